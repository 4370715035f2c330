"""Ranked search over stored text units, with the metadata filter and subject scoping (HIP-0526 §7).

A *unit* is a piece of stored text (a conversation turn, a sentence, a chunk) with the
subjects it is about. Units are embedded as TF-IDF vectors over Porter-stemmed content words
(sub-linear term frequency, smoothed inverse document frequency), put into a vector store
(`semantic_rdf.interfaces.stores.MemoryVectorStore` by default) and ranked by cosine.

Subject scoping: when a question names a known subject, the search carries the filter
`subjects has <name>` so turns about other people are never candidates. This makes the index
selectively blind, which is what lets a reader decline questions that pin one person's fact on
another. With no known name in the question the search is flat.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from semantic_rdf.core.errors import InvalidInput, MissingExtra
from semantic_rdf.core.identity import fold
from semantic_rdf.interfaces.stores import Cond, Filter, MemoryVectorStore, Vector

__all__ = [
    "STOPWORDS",
    "words",
    "terms",
    "find_names",
    "TermSpace",
    "Unit",
    "Hit",
    "Retriever",
    "SUBJECTS",
]

SUBJECTS = "subjects"  # the metadata field holding the folded names a unit is about

# Function words and conversational filler; they carry no topic and would only add noise to cosines.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been before being
    below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
    during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here
    here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its
    itself let's me more most mustn't my myself no nor not of off on once only or other ought our ours
    ourselves out over own same shan't she she'd she'll she's should shouldn't so some such than that
    that's the their theirs them themselves then there there's these they they'd they'll they're they've
    this those through to too under until up very was wasn't we we'd we'll we're we've were weren't what
    what's when when's where where's which while who who's whom why why's will with won't would wouldn't
    you you'd you'll you're you've your yours yourself yourselves also just really yeah yes oh hey hi
    hello thanks thank wow cool awesome great glad sure ok okay lot lots like get got gonna wanna
    s t d ll m re ve
    """.split()
)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


@lru_cache(maxsize=1)
def _stemmer():
    try:
        from nltk.stem import PorterStemmer
    except ImportError:
        raise MissingExtra("retrieval's stemming (the LoCoMo baseline)", "locomo") from None
    return PorterStemmer()


def words(text: str) -> list[str]:
    """Lower-cased word tokens; a curly apostrophe is read as a straight one."""
    if not isinstance(text, str):
        raise InvalidInput(f"expected text, got {type(text).__name__}")
    return [w.replace("’", "'") for w in _WORD.findall(text.lower())]


@lru_cache(maxsize=131072)
def _term(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    return _stemmer().stem(word)


def terms(text: str) -> list[str]:
    """Content terms of a text: stop words dropped, possessives cut, Porter-stemmed."""
    return [_term(w) for w in words(text) if w not in STOPWORDS]


def _sentence_start(text: str, pos: int) -> bool:
    before = text[:pos].rstrip().rstrip("\"'“‘«([{").rstrip()
    return not before or before.endswith((".", "!", "?", ":", ";", "…"))


def find_names(text: str, names: Iterable[str]) -> tuple[str, ...]:
    """The known names a text mentions as whole words (case-insensitive), longest first.

    A shorter name inside a longer one that matched ("Ann" in "Ann Lee") is not counted twice.
    A name made only of stop words ("Will", "It", "The Who") is found only where the text writes it
    exactly so, and not as a single capitalised word starting a sentence ("Will Ann come?"): anything
    else is the function word.
    """
    low = text.lower()
    taken: list[tuple[int, int]] = []
    found: list[str] = []
    for name in sorted({n for n in names if n and n.strip()}, key=lambda n: (-len(n), n)):
        ws = words(name)
        cased = bool(ws) and all(w in STOPWORDS for w in ws)
        if cased and not any(c.isupper() for c in name):
            continue  # a lower-case stop word is never a name
        pattern = r"(?<![^\W_])" + re.escape(name if cased else name.lower()) + r"(?![^\W_])"
        for m in re.finditer(pattern, text if cased else low):
            if cased and _sentence_start(text, m.start()) and not any(c.isupper() for c in name[1:]):
                continue
            if all(m.end() <= a or m.start() >= b for a, b in taken):
                taken.append(m.span())
                if name not in found:
                    found.append(name)
    return tuple(found)


@dataclass(frozen=True, slots=True)
class TermSpace:
    """A fitted vocabulary with inverse document frequencies; embeds texts as dense rows."""

    vocab: Mapping[str, int]
    idf: np.ndarray

    @classmethod
    def fit(cls, docs: Sequence[Sequence[str]]) -> "TermSpace":
        """Fit on term lists (one per unit). idf = ln((1 + N) / (1 + df)) + 1."""
        vocab: dict[str, int] = {}
        for doc in docs:
            for t in doc:
                if t not in vocab:
                    vocab[t] = len(vocab)
        cols = np.fromiter((vocab[t] for doc in docs for t in set(doc)), dtype=np.int64)
        df = np.bincount(cols, minlength=len(vocab)).astype(np.float64)
        idf = np.log((1.0 + len(docs)) / (1.0 + df)) + 1.0
        idf.setflags(write=False)
        return cls(MappingProxyType(vocab), idf)

    @property
    def dim(self) -> int:
        return len(self.vocab)

    def embed(self, docs: Sequence[Sequence[str]]) -> np.ndarray:
        """Rows of (1 + ln tf) · idf, L2-normalised; terms outside the vocabulary are ignored.

        A row with no known term stays all zero (it has no direction).
        """
        rows: list[int] = []
        cols: list[int] = []
        for i, doc in enumerate(docs):
            for t in doc:
                c = self.vocab.get(t)
                if c is not None:
                    rows.append(i)
                    cols.append(c)
        n, d = len(docs), max(self.dim, 1)
        counts = (
            np.bincount(np.asarray(rows, dtype=np.int64) * d + np.asarray(cols, dtype=np.int64), minlength=n * d).reshape(n, d).astype(np.float64)
        )
        m = np.zeros_like(counts)
        nz = counts > 0
        m[nz] = 1.0 + np.log(counts[nz])
        if self.dim:
            m *= self.idf[None, :]
        norms = np.linalg.norm(m, axis=1)
        ok = norms > 0
        m[ok] /= norms[ok, None]
        return m

    def embed_one(self, doc: Sequence[str]) -> np.ndarray:
        """`embed([doc])[0]` for one text, touching only its own terms (a query holds a handful)."""
        counts: dict[int, int] = {}
        for t in doc:
            c = self.vocab.get(t)
            if c is not None:
                counts[c] = counts.get(c, 0) + 1
        v = np.zeros(max(self.dim, 1))
        if counts:
            cols = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
            tf = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
            w = (1.0 + np.log(tf)) * self.idf[cols]
            v[cols] = w / np.linalg.norm(w)
        return v


@dataclass(frozen=True, slots=True)
class Unit:
    """One retrievable text: an id, the text, the subjects it is about, and any other metadata."""

    id: str
    text: str
    subjects: tuple[str, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise InvalidInput("a unit needs a non-empty id")
        if not isinstance(self.text, str):
            raise InvalidInput(f"unit {self.id!r}: text must be str")
        if isinstance(self.subjects, str) or not all(isinstance(s, str) for s in self.subjects):
            raise InvalidInput(f"unit {self.id!r}: subjects must be a sequence of names")
        if SUBJECTS in self.meta:
            raise InvalidInput(f"unit {self.id!r}: {SUBJECTS!r} is set from .subjects, not from meta")
        object.__setattr__(self, "subjects", tuple(self.subjects))
        object.__setattr__(self, "meta", MappingProxyType(dict(self.meta)))


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved unit, its cosine to the query, and how much of the query it covers.

    `cover` is the idf-weighted share of the query's content terms that the unit holds, counting
    the names of its subjects as held (a turn covers its speaker's name though it says "I").
    """

    unit: Unit
    score: float
    cover: float = 0.0

    @property
    def id(self) -> str:
        return self.unit.id


class Retriever:
    """TF-IDF cosine search over a fixed set of units, through a vector store with a filter.

    The vocabulary and idf are fitted on the units given, so build one retriever per corpus
    (e.g. per conversation). Units whose text has no content term are kept (they resolve by id)
    but can never be retrieved.
    """

    def __init__(self, units: Iterable[Unit], store: Vector | None = None):
        self.units: dict[str, Unit] = {}
        for u in units:
            if not isinstance(u, Unit):
                raise InvalidInput(f"expected a Unit, got {type(u).__name__}")
            if u.id in self.units:
                raise InvalidInput(f"unit id {u.id!r} appears twice")
            self.units[u.id] = u
        ordered = list(self.units.values())
        unit_terms = [terms(u.text) for u in ordered]
        self.space = TermSpace.fit(unit_terms)
        self.store: Vector = store if store is not None else MemoryVectorStore()
        self.names: frozenset[str] = frozenset(s for u in ordered for s in u.subjects)
        self._held: dict[str, frozenset[str]] = {u.id: frozenset(t).union(*(terms(s) for s in u.subjects)) for u, t in zip(ordered, unit_terms)}
        mat = self.space.embed(unit_terms)
        keep = np.flatnonzero(np.linalg.norm(mat, axis=1) > 0)
        if keep.size:
            ids = [ordered[i].id for i in keep]
            metas = [{**ordered[i].meta, SUBJECTS: sorted({fold(s) for s in ordered[i].subjects})} for i in keep]
            put_many = getattr(self.store, "put_many", None)
            if put_many is not None:
                put_many(ids, mat[keep], metas)
            else:
                for j, i in enumerate(keep):
                    self.store.put(ids[j], mat[i], metas[j])

    def query_vector(self, text: str) -> np.ndarray | None:
        v = self.space.embed_one(terms(text))
        return v if v.any() else None

    def idf(self, term: str) -> float:
        """A term's idf; a term the corpus never saw counts as the rarest one."""
        c = self.space.vocab.get(term)
        if c is not None:
            return float(self.space.idf[c])
        return float(self.space.idf.max()) if self.space.dim else 1.0

    def coverage(self, query: str, unit_ids: Sequence[str]) -> np.ndarray:
        """For each unit, the idf-weighted share of the query's distinct content terms it holds."""
        q = sorted(set(terms(query)))
        if not q:
            return np.zeros(len(unit_ids))
        w = np.array([self.idf(t) for t in q])
        held = np.array([[t in self._held[i] for t in q] for i in unit_ids], dtype=bool).reshape(len(unit_ids), len(q))
        return held @ w / w.sum()

    def subjects_of(self, question: str) -> tuple[str, ...]:
        """The known subjects a question names (longest match first); empty means search flat."""
        return find_names(question, self.names)

    def search(
        self,
        query: str,
        k: int = 5,
        filter: Filter | None = None,
        subjects: Sequence[str] | None = None,
    ) -> list[Hit]:
        """The k best units by cosine, best first.

        `filter` is passed to the store; `subjects`, when non-empty, further restricts candidates
        to units about any one of them (one scoped search per subject, merged by score).
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInput(f"k must be a positive integer, got {k!r}")
        q = self.query_vector(query)
        if q is None:
            return []
        base = tuple(filter or ())
        if not subjects:
            matches = self.store.near(q, k, base)
        else:
            best: dict[str, Any] = {}
            for s in dict.fromkeys(fold(x) for x in subjects):
                for m in self.store.near(q, k, base + (Cond(SUBJECTS, "has", s),)):
                    if m.id not in best or m.score > best[m.id].score:
                        best[m.id] = m
            matches = sorted(best.values(), key=lambda m: (-m.score, m.id))[:k]
        matches = [m for m in matches if m.id in self.units and math.isfinite(m.score)]
        cover = self.coverage(query, [m.id for m in matches])
        return [Hit(self.units[m.id], float(m.score), float(c)) for m, c in zip(matches, cover)]
