"""The statistical extractor: shipped weights in, taxonomy triples with calibrated confidences out.

Per sentence: tokens -> CRF entity tags -> mentions grouped into the document's entities (see
document.DocState) -> every ordered entity pair scored by one logistic regression per aligned
Wikidata property -> calibrated -> kept at or above the floor. Per chunk: pairs across sentences, a town's
country from the town table (towns.py), and a birth, a death, a school, a spouse or a citizenship the rule extractor reads
(`rule_pairs`), the last two at the measured share of such facts. Deterministic: no sampling, no threads, the
same weights give the same triples. Loads from disk only; no network.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import chain, repeat
from pathlib import Path
from typing import cast

import numpy as np

from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.core.identity import fold
from semantic_rdf.pipeline.extract import RuleExtractor, check_chunk, check_floor, clause_validity, predicate_hints, school_name, sentence_spans
from semantic_rdf.pipeline.statistical.alignment import alignment
from semantic_rdf.pipeline.statistical.cross import (
    BAG_FAMILY,
    CrossCandidates,
    CrossContext,
    CrossPair,
    END_WORD_FAMILIES,
    cross_candidates,
    cross_mentions,
    end_words,
    together_in,
)
from semantic_rdf.pipeline.statistical.document import DocState
from semantic_rdf.pipeline.statistical.mentions import ENTITY_TYPES, SentMention, SentenceMemo
from semantic_rdf.pipeline.statistical.pairs import candidate_pairs, pair_features, possessives
from semantic_rdf.pipeline.statistical.tagging import ner_features
from semantic_rdf.pipeline.statistical.text import Token, tokenize, web_address
from semantic_rdf.pipeline.statistical.towns import Towns, canonical_country, country_names, institution, load_towns, other_codes, town_pairs
from semantic_rdf.core.values import Chunk, Triple
from semantic_rdf.core.vocab import functional_predicates

__all__ = [
    "StatisticalExtractor",
    "load_manifest",
    "Weights",
    "WEIGHTS_DIR",
    "WEIGHT_FILES",
    "sha256_file",
    "CrossHead",
    "CrossScored",
    "score_cross",
    "calibrated",
    "CROSS",
    "BY_RULES",
    "rule_properties",
    "by_sentence",
    "rule_pairs",
    "rule_predicates",
    "READ_AS",
]

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
WEIGHT_FILES = ("ner.crfsuite", "relations.npz", "features.json", "cross.npz", "cross.json", "calibration.json")
CROSS = "x:"  # calibration key prefix of the cross-sentence classifiers ("x:P131")
_CLASS = {"PER": "Person", "ORG": "Organization", "LOC": "Place", "MISC": "Thing"}
_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)", re.M)
_MAX_PAIRS = 400  # entity pairs scored per sentence (or per chunk, across sentences) at most
_MAX_SHARED = 65_536  # cross-sentence component sums kept across chunks (a few hundred in practice)
_MAX_WORDS = 262_144  # words whose cross-sentence feature columns are kept (`CrossHead._word_columns`)
_FAMILIES = (*END_WORD_FAMILIES, BAG_FAMILY)
# each end's position of a word family's column in `CrossHead._word_columns`
_END_SLOT = {side: {fam: k + len(_FAMILIES) * j for k, fam in enumerate(_FAMILIES)} for j, side in enumerate("ht")}
_MAX_TOGETHER = 20_000  # a document naming so many pairs together is a list, not prose: no cross stage
# a Markdown heading opens the sentence. (Plain-text lines without end punctuation were tried as headings too: on
# GUM's pages an infobox line, "Alma mater Conservatoire de Paris", then read as a title took the topic away.)
_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t]")
_CODE_TAG = re.compile(r"<(pre|code)\b[^>]*>.*?</\1\s*>", re.S | re.I)


def names_only(words: list[str], spans: list[tuple[int, int, str, int | None]]) -> bool:
    """Whether a heading's words are one name and nothing else ("# Chinua Achebe"): a new article about it
    (DocState.new_section). A heading that names no one, or more than a name ("## Early life", "## Years at
    IBM"), starts a section of the same article: "She" below it is still the article's person."""
    first = next((i for i, w in enumerate(words) if w.strip("#")), None)
    named = [(a, b) for a, b, typ, _ in spans if typ in ENTITY_TYPES]
    return first is not None and named == [(first, len(words))]


def _named(name: str, typ: str) -> str:
    """The name a triple gives an entity: another name of a country as the country's own ("U.S.", "USA", "the United
    States" as "United States": `towns.canonical_country`), so that one document's "Cleveland located_in U.S." and
    "… located_in USA" are one fact, and one entity across documents; not a person's name ("Holland"). Whatever
    else the tagger took the name for (a place, a nationality, "the U.S. government"'s organisation), so that the
    triples, typed at their sentence, and the aliases, at the document's end, name it alike. Only the triple's
    name: the classifiers read the name as written (read as "United States", "U.S." took the features of a country
    the lexicons list, and the cross-sentence classifier put many a place and firm of a text in it: docs/extraction.md)."""
    return name if typ == "PER" else canonical_country(name) or name


def _table_code(place: str) -> str | None:
    """The town table's country code of a country, or of a first-level region or a town (`Towns.place`), by its name."""
    towns = load_towns()
    return towns.country(place) or towns.place(place)


def _placed_elsewhere(place: str, country: str, stated: Iterable[str] = ()) -> bool:
    """Whether the town table puts a place (a town or a first-level region, by its name) in a country other than
    `country`, and the document has not stated that it lies in a place of `country` (`stated`: the table codes of what
    it said the place lies in; "Sudbury, Ontario" places the table's English Sudbury in Canada). A reading across
    sentences is no evidence against the table: the cross-sentence classifier put "Hamburg" in the United Kingdom a
    text named a paragraph before. A country is not placed so (Hong Kong lies in China, Puerto Rico in the United
    States). Nor is a town of a country the name may also stand for (`towns.other_codes`: the U.S. state of Georgia,
    either Korea)."""
    towns = load_towns()
    wheres = _country_codes(country)
    if not wheres or towns.country(place) is not None:
        return False
    code = towns.place(place)
    return code is not None and not any(Towns.lies_in(c, w) for c in (code, *stated) for w in wheres)


def _country_code(name: str) -> str | None:
    """The town table's code of a country's name, read from the table's country lines only (`country_names`: the
    towns themselves are not loaded for it)."""
    return country_names().get(fold(name))


def _country_codes(name: str) -> list[str]:
    """Every code a country's name may stand for: its own, and those `towns.other_codes` lists for it."""
    return [c for c in (_country_code(name), *other_codes(name)) if c]


# the object classes a listed place (the gazetteer's country, city or first-level region) cannot be
_NOT_A_PLACE = frozenset({"Organization", "Person", "Work", "Award", "Artifact"})


def _out_of_range(obj: str, object_class: str | None) -> bool:
    """Whether `obj` is a place the gazetteer lists given as an object the predicate's range says is no place: a
    place written as an organisation's owner ("She studied at Warsaw's clandestine Flying University") had given
    `educated_at Warsaw`, an Organization's role held by a City (docs/extraction.md, "Entity classes")."""
    return object_class in _NOT_A_PLACE and gz.lexicon_class(obj) in ("City", "Country", "Region")


def _may_lie_in(place: str, where: str) -> bool:
    """False for a country in itself under another name ("U.S." located_in "United States": the town table's codes),
    and for a state the demonym lexicon names in another country ("United Kingdom located_in France", read from "an
    alliance of Britain, France, Austria": such readings were all wrong, docs/extraction.md step 7), but for one of the
    United Kingdom's nations in it, and for a state's name that may also stand for a region of `where` ("Georgia" in
    the United States: `towns.other_codes`). Other places the table lists as countries (Hong Kong, Greenland, Puerto
    Rico: codes of their own) may lie in a state of the lexicon, not in one another ("Guadeloupe located_in Puerto
    Rico", from GUM's guide to Guadeloupe)."""
    a, b = _country_code(place), _country_code(where)
    if a is None or b is None:
        return True
    if a == b:
        return False
    if Towns.lies_in(a, b):
        return True
    if (canonical_country(where) or where) not in _STATES:
        return False  # a territory of its own lies in a state, not in another territory (Guadeloupe in Puerto Rico)
    return place not in _STATES or b in other_codes(place)


# the demonym lexicon's countries that lie in no other (`_may_lie_in`): Puerto Rico is the United States' territory
_STATES = frozenset(gz.DEMONYMS.values()) - {"Puerto Rico"}


def _one_object(predicate: str, obj: str) -> str | None:
    """What a subject has one of, when `predicate` to `obj` is such a thing: the predicate itself when the
    ontology declares it functional (born_in, died_in, …), "country" for located_in a country; else None."""
    if predicate in functional_predicates():
        return predicate
    if predicate == "located_in" and gz.builtin_class(obj) == "Country":
        return "country"
    return None


def _one_of(a: str, b: str) -> bool:
    """Whether objects `a` and `b` of a subject's one country (`_one_object`) are the same one: the same name, or
    one of the United Kingdom's nations and the United Kingdom (the town table's codes: "GB.ENG" lies in "GB"), or
    names that may stand for one (`towns.other_codes`: Georgia and the United States, Korea and South Korea). Documents place
    London in England and in the United Kingdom, and Re-DocRED states both; the second had been dropped as a second
    country."""
    if a == b:
        return True
    return any(Towns.lies_in(x, y) or Towns.lies_in(y, x) for x in _country_codes(a) for y in _country_codes(b))


# what the rule extractor (pipeline/extract.py) reads of a birth, a death, a school, a spouse or a citizenship, and the
# type of entity the object must be: its patterns are precise where the classifiers score low ("William H. Armstrong was
# born in Williamsport", "(18 December 1931 in Mladá Boleslav – 10 November 1991 in Prague)", "Mark Harmsworth is an
# American politician", "a song by Italian singer Tiziano Ferro"), so its facts are stated at the
# share right of the facts read by rule out of fold, as a town's are (docs/extraction.md, step 8)
BY_RULES = {
    "born_in": ("LOC",),
    "died_in": ("LOC",),
    "educated_at": ("ORG", "LOC"),
    "spouse_of": ("PER",),
    "country_of_citizenship": ("LOC",),
}
# a rule predicate read as one of `BY_RULES`: "She studied at the University of Nigeria" is where she was educated
READ_AS = {"studied_at": "educated_at"}


def rule_properties(relations: Iterable[str]) -> dict[str, str]:
    """Predicate -> Wikidata property, for each predicate of `BY_RULES` that one of `relations` (the properties a set
    of weights scores) aligns with directly: what the extractor reads by rule, and what training calibrates so."""
    align = alignment()
    out: dict[str, str] = {}
    for pid in relations:
        pred, inverse = align.get(pid, ("", True))
        if not inverse and pred in BY_RULES:
            out[pred] = pid
    return out


def rule_predicates(pid_of: Mapping[str, str]) -> frozenset[str]:
    """The rule extractor's predicates whose facts are read (`rule_pairs`) for those of `BY_RULES` in `pid_of`."""
    return frozenset(pid_of) | {rule for rule, pred in READ_AS.items() if pred in pid_of}


def by_sentence(triples: Iterable[Triple], spans: list[tuple[int, int]], offset: int = 0) -> dict[int, list[Triple]]:
    """Each triple under the position in `spans` of the sentence its evidence starts in (`spans` offsets less `offset`
    into the text the triples' `start` counts in); a triple in none of them is left out."""
    starts = [a for a, _ in spans]
    out: dict[int, list[Triple]] = {}
    for t in triples:
        if t.start is None:
            continue
        k = bisect_right(starts, t.start - offset) - 1
        if k >= 0 and t.start - offset < spans[k][1]:
            out.setdefault(k, []).append(t)
    return out


def rule_pairs(
    triples: Iterable[Triple], state: DocState, mentions: list[SentMention], pronouns_of: Callable[[Triple], tuple[str, str]]
) -> list[tuple[SentMention, SentMention, str]]:
    """(the subject's mention, the object's mention, predicate) for each triple of a predicate of `BY_RULES` (or read as
    one, `READ_AS`) that the rule extractor stated in one sentence (whose `mentions` the document's state found): its
    subject a person the state names there as the rules read it, or the person the state resolved the rules' pronoun
    to (`pronouns_of`; the rules' own guess at who it stands for is not taken: they know no gender, and "Her father was
    Lord Byron. … She died in Marylebone" is Lord Byron's death to them), its object an entity of the type the predicate
    takes, named there (by its name or, for a country, its nationality word; not read from a pronoun). A fact read as
    another predicate (`READ_AS`) is taken only of a school's name ("studied at the University of Nigeria", not "studied
    at the Louvre": `extract.school_name`)."""
    out: list[tuple[SentMention, SentMention, str]] = []
    ents = state.entities
    for t in triples:
        pred = READ_AS.get(t.predicate, t.predicate)
        kinds = BY_RULES.get(pred)
        if kinds is None or (pred != t.predicate and not school_name(t.object)):
            continue
        pron_s, pron_o = pronouns_of(t)
        ti = state.by_key.get(fold(t.object))
        if pron_o or ti is None or ents[ti].type not in kinds:
            continue
        if pron_s:
            # the pronoun as the state resolved it, when the sentence holds no other of that spelling, or only ones
            # resolved to the same person ("He taught Per Lund, who said he was born in Narvik": whose birth it is
            # the rules' match knows and the mentions do not)
            same = [m for m in mentions if m.kind == "pron" and m.surface.lower() == pron_s.lower()]
            said = t.chunk.text[(t.start or 0) - t.chunk.start : (t.end or 0) - t.chunk.start] if t.chunk is not None else ""
            spelt = len(re.findall(rf"\b{re.escape(pron_s)}\b", said, re.I))
            mh = same[0] if same and len(same) == spelt and len({m.entity for m in same}) == 1 else None
        else:
            hi = state.by_key.get(fold(t.subject))
            mh = None if hi is None else next((m for m in mentions if m.entity == hi and m.kind == "named"), None)
        # the object as named; a country by its nationality word for a citizenship only (the birth of "died a French
        # citizen; she was born in France" is in France, not where "French" stands)
        kinds_of_mention = ("named", "demonym") if pred == "country_of_citizenship" else ("named",)
        mt = min((m for m in mentions if m.entity == ti and m.kind in kinds_of_mention), key=lambda m: m.kind != "named", default=None)
        if mh is not None and mt is not None and mh.entity != ti and ents[mh.entity].type == "PER":
            out.append((mh, mt, pred))
    return out


def _raised(triples: list[Triple], scores: dict[tuple[str, str, str], float]) -> list[Triple]:
    """`triples` with each whose (subject, predicate, object) `scores` holds at a higher score given that score, its
    evidence kept.

    >>> from semantic_rdf.core.values import Chunk
    >>> t = Triple("Gingoog", "located_in", "Philippines", Chunk("d", 0, "…", 0, 1), 0.32)
    >>> [x.score for x in _raised([t], {("Gingoog", "located_in", "Philippines"): 0.79})]
    [0.79]
    """
    if not scores:
        return triples
    return [
        replace(t, score=round(got, 4)) if (got := scores.get((t.subject, t.predicate, t.object))) is not None and t.confidence < got else t
        for t in triples
    ]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_manifest(directory: Path | str | None = None) -> dict:
    path = Path(directory or WEIGHTS_DIR) / "manifest.json"
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise NotFound(f"statistical extractor weights: cannot read {path} ({exc.__class__.__name__})") from None


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _feature_ids(vocab: dict[str, int], feats: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Each row's feature count, and every feature's column in order (-1 for a name the model does not know):
    all rows' names looked up in one C-level map."""
    lens = np.fromiter(map(len, feats), dtype=np.intp, count=len(feats))
    ids = np.fromiter(map(vocab.get, chain.from_iterable(feats), repeat(-1)), dtype=np.intp, count=int(lens.sum()))
    return lens, ids


def _curves(cal: dict | None, pids: tuple[str, ...], prefix: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each property's reliability curve: its own when it had enough tuning facts, else the pooled one;
    the identity when the weights are read uncalibrated."""
    xs, ys = [], []
    for pid in pids:
        c = cal["by"].get(prefix + pid, cal["pooled"]) if cal else {"x": [0.0, 1.0], "y": [0.0, 1.0]}
        xs.append(np.array(c["x"]))
        ys.append(np.array(c["y"]))
    return xs, ys


def raw_floor(cal_x: list[np.ndarray], cal_y: list[np.ndarray], cache: dict, least: float) -> np.ndarray:
    """Per property, the raw probability at or below which the calibrated one stays under `least` (the curves
    are non-decreasing: the last knot under `least`); kept in `cache`."""
    got = cache.get(least)
    if got is None:
        got = np.empty(len(cal_x))
        for j, (x, y) in enumerate(zip(cal_x, cal_y)):
            hit = np.nonzero(y >= least)[0]
            got[j] = np.inf if not len(hit) else (x[hit[0] - 1] if hit[0] > 0 else -np.inf)
        cache[least] = got
    return got


def calibrated(p: np.ndarray, cal_x: list[np.ndarray], cal_y: list[np.ndarray], cache: dict, least: float = 0.02) -> np.ndarray:
    """Raw probabilities (pairs x relations) -> calibrated. Only entries that can reach `least` are
    interpolated (the rest are left at 0): below its curve's last knot under `least`, a raw probability
    cannot calibrate to `least` or more, the curves being non-decreasing. `cache` keeps each `least`'s
    raw thresholds."""
    floor_raw = raw_floor(cal_x, cal_y, cache, least)
    out = np.zeros_like(p)
    above = p > floor_raw
    for k in np.nonzero(above.any(axis=0))[0]:  # one interp per property over its rows (elementwise: same values)
        rows = above[:, k]
        out[rows, k] = np.interp(p[rows, k], cal_x[k], cal_y[k])
    return out


@dataclass
class CrossHead:
    """The classifiers of entity pairs that share no sentence (one logistic regression per property)."""

    vocab: dict[str, int]
    coef: np.ndarray  # (features, relations) float32
    intercept: np.ndarray
    relations: tuple[str, ...]
    cal_x: list[np.ndarray]
    cal_y: list[np.ndarray]
    _raw_floor: dict = field(default_factory=dict)
    # the weights' sums of shared components (CrossContext.SHARED_KINDS) by kind and code, and the numbers
    # of type and class names their codes are made of: both kept for the head's life
    _shared: dict = field(default_factory=dict)
    _ids: dict = field(default_factory=dict)
    # the weights are shared by every extractor of the process (`_cached_weights`): two threads numbering a new
    # name at once would give two names one number, and the kept sums of one key to another
    _numbering: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _bound: dict = field(default_factory=dict)  # the best sums of document-free keys, by `bound_keys` signature
    _words: dict = field(default_factory=dict)  # a word -> its features' columns (`_word_columns`)
    _end_cols: dict = field(default_factory=dict)  # an end signature -> its features' columns (`_end_columns`)
    _end_rows: dict = field(default_factory=dict)  # an end signature -> its features' sum in float64 (`_end_row`)
    _coef64: np.ndarray | None = None  # `_padded`

    def sums(self, feats: list[list[str]]) -> np.ndarray:
        """Each row's known features' weights summed (rows x relations), in feature order."""
        return self._sums(*_feature_ids(self.vocab, feats))

    def key_sums(self, ctx: CrossContext, keys: list[tuple]) -> np.ndarray:
        """`sums` of the features of each component key (`CrossContext.render`), the same floats. A key of
        one end or of a sentence's bag is read from the columns of its words' features, looked up once per
        word (`_word_columns`) and once per document-free end signature (`_end_columns`), not from
        strings made for every mention of every chunk: those strings were the most of the bound's time."""
        lens: list[int] = []
        cols: list[int] = []
        for key in keys:
            kind = key[0]
            if kind in ("h", "t"):
                side, i, sent, a, b, mkind, other = key
                got = [*self._end_columns(ctx.end_signature(side, i, mkind, other)), *self._own_columns(side, ctx.words[sent], a, b)]
            elif kind in ("hb", "tb"):
                got = self._bag_columns(kind[0], ctx.words[key[1]])
            else:
                got = [self.vocab.get(f, -1) for f in ctx.render(key)]
            lens.append(len(got))
            cols.extend(got)
        return self._sums(np.array(lens, dtype=np.intp), np.array(cols, dtype=np.intp))

    def _word_columns(self, word: str) -> tuple[int, ...]:
        """The columns of a word's features in every family of one end and of the bags (`_END_SLOT`'s order;
        -1 where the model has none), kept for the head's life (at most `_MAX_WORDS` words)."""
        got = self._words.get(word)
        if got is None:
            if len(self._words) >= _MAX_WORDS:
                self._words.clear()
            v = self.vocab
            got = self._words[word] = tuple(v.get(f"x_{side}{fam}={word}", -1) for side in "ht" for fam in _FAMILIES)
        return got

    def _own_columns(self, side: str, words: list[str], a: int, b: int) -> list[int]:
        """The columns of the features of an end's own words (`end_words`), in their order."""
        slot = _END_SLOT[side]
        return [self._word_columns(words[j])[slot[fam]] for fam, j in end_words(len(words), a, b)]

    def _bag_columns(self, side: str, words: list[str]) -> list[int]:
        """The columns of a sentence's bag of words (`sentence_bag`), in its order."""
        col = _END_SLOT[side][BAG_FAMILY]
        return [self._word_columns(w)[col] for w in sorted(set(words))]

    def _end_columns(self, signature: tuple) -> tuple[int, ...]:
        """The columns of an end's features other than its words (`CrossContext.end_features`), by signature."""
        got = self._end_cols.get(signature)
        if got is None:
            if len(self._end_cols) >= _MAX_SHARED:
                self._end_cols.clear()
            got = self._end_cols[signature] = tuple(self.vocab.get(f, -1) for f in CrossContext.end_features(signature))
        return got

    def _sums(self, lens: np.ndarray, ids: np.ndarray) -> np.ndarray:
        n = len(lens)
        out = np.zeros((n, len(self.relations)), np.float32)
        keep = ids >= 0
        counts = np.bincount(np.repeat(np.arange(n), lens)[keep], minlength=n)
        idx = ids[keep]
        if len(idx):
            full = counts > 0
            starts = (np.cumsum(counts) - counts)[full]
            out[full] = np.add.reduceat(self.coef[idx], starts, axis=0)
        return out

    def out_of_reach(self, ctx: CrossContext, ms: list[SentMention], ss: list[int], least: float) -> bool:
        """True when no pair of these mentions (`cross_mentions`) can score `least` for any property. The
        model is linear, so a pair's raw score is the sum of its components (`CrossContext.parts`), and for
        each type its head can have it is at most: the best type-pair key of that head type (over distances,
        orders and gazetteer classes), the best head mention of that type (its end against a tail type, its
        words) plus its own sentence's bag, the best tail mention against that head type plus its own
        sentence's bag, and a third entity's types when they add (`CrossContext.bound_keys`). Most chunks of
        prose are out of reach, and their pairs are then never made. The words of every mention and every bag
        are summed in one gather; an end's other features by signature, kept (`_end_row`)."""
        got = ctx.bound_keys(ms, ss)
        if got is None or not self.relations:
            return True
        htypes, ttypes, tails, p_sig, v_sig = got
        ents = ctx.state.entities
        words = ctx.words
        coef = self._padded()
        pad = len(coef) - 1
        # rows: each mention's words as a head, each tail's words as a tail, each sentence's bag for either side
        ends = [("h", k) for k in range(len(ms))] + [("t", k) for k in tails]
        hsents, tsents = sorted(set(ss)), sorted({ss[k] for k in tails})
        bags = [("h", s) for s in hsents] + [("t", s) for s in tsents]
        starts: list[int] = []
        cols: list[int] = []
        for side, k in ends:
            starts.append(len(cols))
            cols.append(pad)  # no row is empty: reduceat needs each to hold one column at least
            cols.extend(self._own_columns(side, words[ss[k]], ms[k].a, ms[k].b))
        for side, s in bags:
            starts.append(len(cols))
            cols.append(pad)
            cols.extend(self._bag_columns(side, words[s]))
        idx = np.array(cols, dtype=np.intp)
        sums = np.add.reduceat(coef[np.where(idx >= 0, idx, pad)], np.array(starts, dtype=np.intp), axis=0)
        n_h, n_t = len(ms), len(tails)
        bag_at = {b: sums[n_h + n_t + r] for r, b in enumerate(bags)}
        rows: dict[tuple, np.ndarray] = {}

        def end(side: str, m: SentMention, other: str) -> np.ndarray:
            key = (side, m.entity, m.kind, other)
            row = rows.get(key)
            if row is None:
                row = rows[key] = self._end_row(ctx.end_signature(side, m.entity, m.kind, other))
            return row

        bag_rows = [bag_at[("h", s)] for s in ss] + [bag_at[("t", ss[k])] for k in tails]
        own = sums[: n_h + n_t] + np.stack(bag_rows)  # each end's words and its sentence's bag
        # each head mention at its best tail type: the best head of each head type
        hends = [end("h", m, ttypes[0]) for m in ms]
        for tt in ttypes[1:]:
            hends = [np.maximum(r, end("h", m, tt)) for r, m in zip(hends, ms)]
        hrows = own[:n_h] + np.stack(hends)
        htype = np.array([ents[m.entity].type for m in ms])
        type_pairs, via = self._by_head_type(ctx, p_sig), self._by_head_type(ctx, v_sig)
        top = None
        for ht in htypes:
            h = hrows[htype == ht].max(axis=0)
            t = (own[n_h:] + np.stack([end("t", ms[k], ht) for k in tails])).max(axis=0)
            z = type_pairs[ht] + h + t + np.maximum(via.get(ht, 0.0), 0.0)
            top = z if top is None else np.maximum(top, z)
        if top is None:
            return True
        # a margin over float32 rounding: the bound is summed in float64, the scores in float32
        top = top + self.intercept.astype(np.float64)
        return bool(np.all(_sigmoid(top + 1e-3) <= raw_floor(self.cal_x, self.cal_y, self._raw_floor, least)))

    def _padded(self) -> np.ndarray:
        """The weights in float64 with a row of zeros after the last (the column of an unknown feature)."""
        if self._coef64 is None:
            self._coef64 = np.vstack([self.coef.astype(np.float64), np.zeros((1, self.coef.shape[1]))])
        return self._coef64

    def _end_row(self, signature: tuple) -> np.ndarray:
        """The sum of an end's features other than its words (`CrossContext.end_features`), by signature."""
        got = self._end_rows.get(signature)
        if got is None:
            if len(self._end_rows) >= _MAX_SHARED:
                self._end_rows.clear()
            cols = [c for c in self._end_columns(signature) if c >= 0]
            got = self._end_rows[signature] = self._padded()[cols].sum(axis=0)
        return got

    def _by_head_type(self, ctx: CrossContext, signature: tuple) -> dict[str, np.ndarray]:
        """The best sums of the document-free keys a `bound_keys` signature stands for, by the head's type
        (kept for the head's life: the same in every document)."""
        got = self._bound.get(signature)
        if got is None:
            if len(self._bound) >= _MAX_SHARED:
                self._bound.clear()
            keys = ctx.shared_keys(signature)
            sums = self.sums([list(ctx.render(k)) for k in keys]).astype(np.float64)
            got = {}
            for key, row in zip(keys, sums):
                ht = key[1] if key[0] == "p" else key[1].split("|")[0]
                got[ht] = row if ht not in got else np.maximum(got[ht], row)
            self._bound[signature] = got
        return got

    def score(self, ctx: CrossContext, pairs: CrossCandidates) -> np.ndarray:
        """Calibrated probabilities (pairs x relations). The model is linear: each of the pairs' components
        (cross.CrossContext) has its weights summed once, and a pair's score is the sum of its components',
        added in the components' order (so it is the sum of all its features' weights, as in training)."""
        if not len(pairs) or not self.relations:
            return np.zeros((len(pairs), len(self.relations)), np.float32)
        with self._numbering:
            groups = ctx.components(pairs, self._ids)
        tables: list[np.ndarray] = []
        todo: list[tuple[int, int, tuple]] = []  # (group, row, key) of the sums not kept
        for g, comp in enumerate(groups):
            table = np.empty((len(comp.codes), len(self.relations)), np.float32)
            kept = self._shared.get(comp.kind) if comp.kind in ctx.SHARED_KINDS else None
            for k, code in enumerate(comp.codes.tolist()):
                row = None if kept is None else kept.get(code)
                if row is None:
                    todo.append((g, k, cast(tuple, comp.key(k))))
                    continue
                table[k] = row
            tables.append(table)
        if todo:
            sums = self.key_sums(ctx, [key for _, _, key in todo])
            for (g, k, _), row in zip(todo, sums):
                tables[g][k] = row
                if groups[g].kind in ctx.SHARED_KINDS:
                    kept = self._shared.setdefault(groups[g].kind, {})
                    if len(kept) >= _MAX_SHARED:
                        kept.clear()
                    kept[int(groups[g].codes[k])] = row
        z = tables[0][groups[0].index]  # every pair has its type pair
        for comp, table in zip(groups[1:], tables[1:]):
            has = comp.index >= 0
            if has.all():
                z += table[comp.index]
            elif has.any():
                z[has] += table[comp.index[has]]
        return calibrated(_sigmoid(z + self.intercept), self.cal_x, self.cal_y, self._raw_floor)


@dataclass
class Weights:
    """The trained parts, read from a weights directory (the shipped one by default)."""

    directory: Path
    tagger: object
    vocab: dict[str, int]
    coef: np.ndarray  # (features, relations) float32
    intercept: np.ndarray  # (relations,)
    relations: tuple[str, ...]  # Wikidata property ids, one per column
    cal_x: list[np.ndarray]  # per relation: calibration knots (a logistic curve, train.py)
    cal_y: list[np.ndarray]
    floor: float
    manifest: dict
    cross: "CrossHead"
    # the measured precision of a fact read by table or rule: a town's located_in its country (towns.py), or a birth,
    # a death, a school or a spouse the rule extractor reads (`rule_pairs`); None when uncalibrated
    towns: float | None = None
    _raw_floor: dict = field(default_factory=dict)  # least calibrated value -> per relation raw threshold
    _keep: list = field(default_factory=list)  # the CRF's attributes, once read (crf_keep)
    _reading: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def crf_keep(self) -> frozenset[str] | None:
        """The attributes the tagger has weights for (`crf_attributes`), read once per Weights (whichever
        thread asks first reads them; the others wait for that)."""
        if not self._keep:
            with self._reading:
                if not self._keep:
                    self._keep.append(crf_attributes(self.tagger))
        return self._keep[0]

    @classmethod
    def load(cls, directory: Path | str | None = None, *, calibrated: bool = True) -> "Weights":
        import pycrfsuite

        d = Path(directory or WEIGHTS_DIR)
        for name in WEIGHT_FILES[:5]:
            if not (d / name).is_file():
                raise NotFound(
                    f"statistical extractor weights: {d / name} is missing (rebuild with python -m semantic_rdf.pipeline.statistical.train)"
                )
        try:
            tagger = pycrfsuite.Tagger()
            tagger.open(str(d / "ner.crfsuite"))
            with open(d / "features.json", encoding="utf-8") as f:
                meta = json.load(f)
            with np.load(d / "relations.npz", allow_pickle=False) as z:
                coef = z["coef"].astype(np.float32)
                intercept = z["intercept"].astype(np.float32)
            if coef.shape != (len(meta["features"]), len(meta["relations"])) or intercept.shape != (coef.shape[1],):
                raise ValueError("relation weights do not match the feature list")
            with open(d / "cross.json", encoding="utf-8") as f:
                xmeta = json.load(f)
            with np.load(d / "cross.npz", allow_pickle=False) as z:
                xcoef = z["coef"].astype(np.float32)
                xintercept = z["intercept"].astype(np.float32)
            if xcoef.shape != (len(xmeta["features"]), len(xmeta["relations"])) or xintercept.shape != (xcoef.shape[1],):
                raise ValueError("cross-sentence weights do not match their feature list")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"statistical extractor weights in {d} are unreadable ({exc})") from None
        rels = tuple(meta["relations"])
        xrels = tuple(xmeta["relations"])
        cal: dict | None = None
        if calibrated and (d / "calibration.json").is_file():
            with open(d / "calibration.json", encoding="utf-8") as f:
                cal = json.load(f)
        floor = float(cal["floor"]) if cal else 0.5
        cal_x, cal_y = _curves(cal, rels, "")
        manifest = load_manifest(d) if (d / "manifest.json").is_file() else {}
        vocab = {name: i for i, name in enumerate(meta["features"])}
        cross = CrossHead({name: i for i, name in enumerate(xmeta["features"])}, xcoef, xintercept, xrels, *_curves(cal, xrels, CROSS))
        towns = float(cal["towns"]) if cal and cal.get("towns") is not None else None
        return cls(d, tagger, vocab, coef, intercept, rels, cal_x, cal_y, floor, manifest, cross, towns)

    def calibrate(self, p: np.ndarray, least: float = 0.02) -> np.ndarray:
        """Raw probabilities (pairs x relations) -> calibrated (see `calibrated`)."""
        return calibrated(p, self.cal_x, self.cal_y, self._raw_floor, least)

    def score(self, feats: list[list[str]]) -> np.ndarray:
        """Raw probabilities (pairs x relations) of one sentence's pairs."""
        return self.score_sentences(feats, [len(feats)])

    def score_sentences(self, feats: list[list[str]], sizes: list[int]) -> np.ndarray:
        """Raw probabilities (pairs x relations) of the pairs of consecutive sentences (`sizes` pairs each):
        each pair's weights summed in one gather and reduce.

        Per sentence this is the sum the weights were tuned with: the features of a pair in order and,
        for a sentence's last pair (when it has any known feature), feature 0's weights added last — a
        sentinel the one-sentence reduceat always let into its last range. Kept so the scores, and so the
        calibrated floor, stay exactly as trained. The names of all pairs are looked up in one C-level
        map and the unknown ones dropped with a numpy mask."""
        n = len(feats)
        lens, ids = _feature_ids(self.vocab, feats)
        keep = ids >= 0
        counts = np.bincount(np.repeat(np.arange(n), lens)[keep], minlength=n)
        idx = ids[keep]
        if not len(idx):
            return _sigmoid(np.tile(self.intercept, (n, 1)))
        last = np.cumsum([k for k in sizes if k]) - 1  # each sentence's last pair
        last = last[counts[last] > 0]
        # feature 0 goes in after the last known feature of each sentence's last pair
        ends = np.cumsum(counts)
        idx = np.insert(idx, ends[last], 0)
        counts[last] += 1
        starts = np.cumsum(counts) - counts
        if not counts[-1]:
            idx = np.append(idx, 0)  # an empty last row still needs a start inside the array (zeroed below)
        sums = np.add.reduceat(self.coef[idx], starts, axis=0)
        sums[counts == 0] = 0.0  # reduceat copies a row for an empty range
        return _sigmoid(sums + self.intercept)


# a state feature's line in CRFsuite's model dump: "  (0) ATTRIBUTE --> LABEL: WEIGHT" (no label holds " --> ")
_STATE_FEATURE = re.compile(r"^  \(\d+\) (.+) --> [^\n]*$", re.M)


def crf_attributes(tagger) -> frozenset[str] | None:
    """The attributes the CRF model has state weights for (read from its dump: `Weights.crf_keep` keeps
    them); None (hand the CRF every feature: slower, the same tags) when the dump cannot be written to a
    temp file. The dump's STATE_FEATURES section is read with one expression: `Tagger.info()` parses every
    line of the dump into Python objects, 0.25-0.4 s that every extracting process paid before its first
    sentence (0.05 s so; the same set, tests/test_statistical_speed.py)."""
    import tempfile

    try:
        with tempfile.TemporaryDirectory(prefix="semantic-rdf-crf-") as d:
            dump = Path(d) / "model.txt"
            tagger.dump(str(dump))
            text = dump.read_text(encoding="utf-8")
    except OSError:
        return None
    start = text.find("\nSTATE_FEATURES = {\n")
    if start < 0:
        return None
    end = text.find("\n}", start + 1)
    return frozenset(_STATE_FEATURE.findall(text, start, end if end > 0 else len(text)))


def tag_spans(tagger, words: list[str], keep: frozenset[str] | None = None) -> list[tuple[int, int, str]]:
    """BIO tags from the CRF as (token a, token b, type) spans (keep: see tagging.ner_features)."""
    tags = tagger.tag(ner_features(words, keep)) if words else []
    spans: list[tuple[int, int, str]] = []
    a, typ = -1, ""
    for i, tag in enumerate(tags):
        if tag == "O":  # most tokens: nothing opens
            if a >= 0:
                spans.append((a, i, typ))
                a = -1
            continue
        opens = tag.startswith("B-")
        if a >= 0 and (opens or tag[2:] != typ):
            spans.append((a, i, typ))
            a = -1
        if opens or (a < 0 and tag.startswith("I-")):  # "B-X", or an "I-X" that continues nothing
            a, typ = i, tag[2:]
    if a >= 0:
        spans.append((a, len(tags), typ))
    return spans


def _for_tagger(words: list[str]) -> list[str]:
    """The words as the tagger reads them: a web or e-mail address (one token) as a comma. Read as itself, a word the
    tagger has never seen, it ran the names on either side into one ("Claire Bailey-Ross claire.bailey-ross@port.ac.uk
    University of Portsmouth" one organisation); as a separator, they stay apart."""
    if not any("@" in w or "/" in w or w[:4] in ("www.", "WWW.") for w in words):
        return words
    return ["," if web_address(w) else w for w in words]


@dataclass(frozen=True, slots=True)
class Scored:
    """One entity pair of a sentence with its calibrated probability for one Wikidata property."""

    h: SentMention
    t: SentMention
    pid: str
    p: float
    sent: int


class Annotator:
    """A document's sentences -> scored pairs; shared by the extractor, training's tuning pass and the bench."""

    def __init__(self, weights: Weights) -> None:
        self.w = weights

    def sentence(
        self, state: DocState, tokens: list[Token], gold: list[tuple[int, int, str, int | None]] | None = None
    ) -> tuple[list[SentMention], list[Scored]]:
        mentions, scored, _ = self.sentences(state, [tokens], gold)[0]
        return mentions, scored

    def sentences(
        self,
        state: DocState,
        sents: list[list[Token]],
        gold: list[tuple[int, int, str, int | None]] | None = None,
        headings: list[bool] | None = None,
        least: float = 0.02,
    ) -> list[tuple[list[SentMention], list[Scored], dict[int, str]]]:
        """Several consecutive sentences of a document: per sentence its mentions, its scored pairs and the
        types its entities had then (a later mention can change an entity's majority type). Pairs are scored
        for the properties they reach over 0.02 and at least `least` (the extractor's floor: a calibration
        curve over 0.02 for nearly every raw probability would otherwise make every pair a candidate).

        The document state grows sentence by sentence exactly as one `sentence` call at a time would; only
        the scoring is batched: all pairs of all the sentences go through one lookup, gather, reduce and
        calibration (numpy's per-call overhead dominated on sentences of a few pairs). Each pair's sum is
        the same float32 sum as before, the sentence's last pair included (see Weights.score)."""
        per: list[tuple[list[SentMention], list[tuple[SentMention, SentMention]], dict[int, str], int]] = []
        feats: list[list[str]] = []
        ents = state.entities
        keep = self.w.crf_keep() if gold is None else None
        for k, tokens in enumerate(sents):
            words = [t.text for t in tokens]
            if gold is not None:
                spans = gold
            else:
                # a one-word sentence (a heading: "Understand", "Overview") gives the tagger no context, and its
                # capital is the line's: its word is a name only if the document named it so before (known_spans)
                spans = [(a, b, typ, None) for a, b, typ in tag_spans(self.w.tagger, _for_tagger(words), keep)] if len(words) > 1 else []
                spans = state.known_spans(words, spans)
            if headings and headings[k]:
                state.new_section(article=names_only(words, spans))
            mentions = state.add_sentence(tokens, spans)
            # a list of hundreds of names: the closest pairs only (bounded work)
            pairs = candidate_pairs(mentions, possessives(tokens, mentions, lambda i: ents[i].type) if gold is None else None, _MAX_PAIRS)
            types = {m.entity: ents[m.entity].type for m in mentions}
            if pairs:
                lower = [w.lower() for w in words]
                memo = SentenceMemo()
                feats.extend(features_of(state, lower, h, t, mentions, memo) for h, t in pairs)
            per.append((mentions, pairs, types, state.sent))
        if not feats:
            return [(m, [], ty) for m, _, ty, _ in per]
        probs = self.w.calibrate(self.w.score_sentences(feats, [len(p) for _, p, _, _ in per]), max(least, 0.02))
        rel = self.w.relations
        hits = np.nonzero((probs > 0.02) & (probs >= least))  # row-major: pair by pair, property by property
        out: list[tuple[list[SentMention], list[Scored], dict[int, str]]] = []
        row = 0
        pos = 0
        nhits = len(hits[0])
        ks, js = hits[0].tolist(), hits[1].tolist()
        for mentions, pairs, types, sent in per:
            end = row + len(pairs)
            scored = []
            while pos < nhits and ks[pos] < end:
                k, j = ks[pos], js[pos]
                h, t = pairs[k - row]
                scored.append(Scored(h, t, rel[j], float(probs[k, j]), sent))
                pos += 1
            out.append((mentions, scored, types))
            row = end
        return out


@dataclass(frozen=True, slots=True)
class CrossScored:
    """An entity pair that shares no sentence, with its calibrated probability for one Wikidata property."""

    pair: CrossPair
    pid: str
    p: float


def score_cross(
    w: Weights,
    state: DocState,
    sents: list[list[SentMention]],
    words: list[list[str]],
    together: set[tuple[int, int]],
    least: float = 0.02,
) -> list[CrossScored]:
    """The pairs of `sents` (consecutive sentences of a document, their lower-cased `words`) whose entities
    never shared a sentence of the document (`together`), scored by the cross-sentence classifiers: those
    with a probability of at least `least` (and over 0.02) for a property."""
    ctx = CrossContext(state, together, words)
    if w.cross.out_of_reach(ctx, *cross_mentions(state, sents), least=max(least, 0.02)):
        return []
    pairs = cross_candidates(state, sents, together, _MAX_PAIRS)
    if not len(pairs):
        return []
    probs = w.cross.score(ctx, pairs)
    rel = w.cross.relations
    ks, js = np.nonzero((probs > 0.02) & (probs >= least))
    return [CrossScored(pairs.pair(k), rel[j], float(probs[k, j])) for k, j in zip(ks.tolist(), js.tolist())]


def features_of(
    state: DocState, lower: list[str], h: SentMention, t: SentMention, mentions: list[SentMention], memo: SentenceMemo | None = None
) -> list[str]:
    eh, et = state.entities[h.entity], state.entities[t.entity]
    return pair_features(
        lower,
        h,
        t,
        eh.type,
        et.type,
        h.entity == state.first,
        t.entity == state.first,
        mentions,
        state.sent,
        gz.lexicon_class(et.name),
        gz.lexicon_class(eh.name),
        memo,
    )


# the predicates whose valid time starts at the date their clause states (docs/extraction.md, "Valid time")
_DATED = frozenset({"born_in", "died_in", "place_of_birth", "place_of_death"})
# A birth or a death is read only from a sentence that says so: a word of it, or a bracket with a year in it (a
# biography's first line, "(6 March 1931, Moscow)"). The classifiers had learnt the place near a person as a
# birthplace: "He spent 15 years as a lawyer in private practice in Syracuse" gave `born_in Syracuse` at 0.90, and a
# review headed "Best Electrician in Florence" `Best Electrician born_in Florence`.
_BIRTH = re.compile(r"\b(?:[Bb]orn|[Bb]irth\w*|native|n[ée]e|b\.)(?!\w)")
_DEATH = re.compile(r"\b(?:[Dd]ied|[Dd]ies|[Dd]eath|killed|buried|d\.|executed|murdered|assassinated|passed away)(?!\w)")
_SAYS = {"born_in": _BIRTH, "place_of_birth": _BIRTH, "died_in": _DEATH, "place_of_death": _DEATH}
_OTHER = {"born_in": _DEATH, "place_of_birth": _DEATH, "died_in": _BIRTH, "place_of_death": _BIRTH}


def said_of_the_other(predicate: str, sentence: str, at: int, end: int | None = None) -> bool:
    """Whether the last word of a birth or a death before the place at `at` (to `end`) in `sentence` is a word of the
    other: the place after it is where the other happened ("was born in Tromsø and died in Narvik" had given born_in
    Narvik at 0.95), unless a "where" clause right after the place says it ("buried in Narvik, where she was born").

    >>> said_of_the_other("born_in", "She was born in Tromsø and died in Narvik.", 35)
    True
    >>> said_of_the_other("born_in", "She was born in Tromsø and died in Narvik.", 16)
    False
    >>> said_of_the_other("born_in", "She was buried in Narvik, where she had been born.", 18, 24)
    False
    >>> said_of_the_other("born_in", "She was born in Oslo and died in Narvik, where her son was born.", 33, 39)
    True

    Nor is a birth of the place after another stay that follows the birth's own place ("born in Bergen, grew up in
    Tromsø" had given born_in Tromsø at 0.89), where "born and raised in Tromsø" is the birth's:

    >>> said_of_the_other("born_in", "He was born in Bergen, grew up in Tromsø and died in Narvik.", 34, 40)
    True
    >>> said_of_the_other("born_in", "He was born and raised in Tromsø.", 26, 32)
    False
    """
    own = max((m.end() for m in _SAYS[predicate].finditer(sentence, 0, at)), default=-1)
    if own >= 0 and predicate in _STAYED_AFTER:
        stay = max((m.start() for m in _STAYED_AFTER[predicate].finditer(sentence, own, at)), default=-1)
        if stay >= 0 and _NAMED.search(sentence, own, stay):
            return True
    if max((m.end() for m in _OTHER[predicate].finditer(sentence, 0, at)), default=-1) <= own:
        return False
    where = _WHERE.match(sentence, end) if end is not None else None
    return where is None or not _SAYS[predicate].search(where.group(1))


# a stay after a birth, once the birth's place is named: the place after it is the stay's
_STAY = re.compile(r"\b(?:grew\s+up|raised|moved|lived|settled|emigrated|relocated|studied|worked|spent)\b")
_STAYED_AFTER = {"born_in": _STAY, "place_of_birth": _STAY}
# a name or a date between the birth's word and the stay: the birth's own place or time ("born in 1950 and raised in
# Tromsø" says where she was raised)
_NAMED = re.compile(r"[A-Z\d]")

# a "where" clause of the same person ("…, where she had been born"; not "…, where her son was born")
_WHERE = re.compile(r"\s*,?\s*where\s+(?:he|she|they)\b([^;.]*)")


_YEAR_IN_BRACKETS = re.compile(r"\([^()]*\b(?:1\d{3}|20\d\d)\b[^()]*\)")


def _kin(state: DocState, i: int, j: int) -> bool:
    """Whether the last word of entity `i`'s name or of `j`'s is a word of the other's (folded): "Desmarais" and
    "Paul Desmarais Jr" may be one man; "Lena Jones" and "Lena Smith" are two."""
    a, b = fold(state.entities[i].name).split(), fold(state.entities[j].name).split()
    return bool(a and b) and (a[-1] in b or b[-1] in a)


class _Doc:
    """Run-time state of one document: its entities, what has been emitted, where a code block is open."""

    def __init__(self) -> None:
        self.state = DocState()
        self.seen_end = 0
        self.emitted: set[tuple[str, str, str]] = set()
        # (subject, what it has one of) -> the objects emitted for it (`_one_object`, `_triple`)
        self.held: dict[tuple[str, str], set[str]] = {}
        self.placed: dict[str, set[str]] = {}  # a place -> the town table's codes of what it was stated to lie in
        self.in_fence = False
        self.named_at: dict[int, tuple[int, int]] = {}  # entity -> its latest named mention before this sentence
        self.together: set[tuple[int, int]] = set()  # entity pairs that shared a sentence (the cross stage skips them)
        self.lists = False  # too many pairs shared sentences: the cross stage is off for this document
        # a country entity -> the chunk and the mention that last named it, in a chunk before this one (`_towns`)
        self.countries: dict[int, tuple[Chunk, SentMention]] = {}
        # the rule extractor reading this document's births, deaths, schools, spouses and citizenships (`_read_by_rules`): one per
        # document, so what it learns of names in one document does not steer its reading of another
        self.rules: RuleExtractor | None = None


class StatisticalExtractor:
    """Trained, deterministic, offline extractor for the 53-predicate taxonomy (see docs/extraction.md).

    floor: confidence floor on the calibrated probability; None takes the floor chosen at training
    (on the tuning documents, for precision >= 0.80). Chunks of one document should come in order: a
    document's entities, and the antecedents of its pronouns, are carried from chunk to chunk.
    `entity_types` maps each entity name in an emitted triple to its ontology class; `aliases(doc_id)`
    gives each entity's other names in that document; `surfaces` records, per emitted triple, the
    surface forms its subject and object stood for in the evidence and how each was found (named,
    demonym, pron, nominal, implicit; "antecedent" for the second selector of a resolved one), for
    span-fidelity checks. A triple whose subject or object was resolved from a pronoun or nominal comes
    twice: with the sentence as evidence, and with the antecedent's mention (when it lies in the chunk)."""

    process_safe = True  # the weights are read-only: a forked child (ahead.py) extracts the same

    def __init__(self, floor: float | None = None, *, weights: Weights | str | Path | None = None, max_sentence: int = 2000) -> None:
        self.w = weights if isinstance(weights, Weights) else _cached_weights(str(weights or WEIGHTS_DIR))
        # a floor given is checked and returned as given (None only when none is given)
        self.floor: float = self.w.floor if floor is None else cast(float, check_floor(floor))
        self.annotator = Annotator(self.w)
        self.max_sentence = max_sentence
        align = alignment()
        self._pred = {pid: align[pid] for pid in self.w.relations if pid in align}
        self._pid_of = rule_properties(self.w.relations)
        self.hints = predicate_hints()
        man = self.w.manifest
        wsha = man.get("weights_sha256", "unversioned")
        self.agent = f"statistical-extractor-{wsha[:12]}"
        self.model_id = f"semantic_rdf.pipeline.statistical weights sha256:{wsha} training data sha256:{man.get('training_data_sha256', 'unknown')}"
        self.entity_types: dict[str, str] = {}
        self.surfaces: OrderedDict[tuple, tuple[str, str]] = OrderedDict()
        self._docs: OrderedDict[str, _Doc] = OrderedDict()

    def aliases(self, doc_id: str) -> dict[str, set[str]]:
        """Each entity's other names by the name its triples give it (`_named`: a country's other names under one)."""
        d = self._docs.get(doc_id)
        if d is None:
            return {}
        out: dict[str, set[str]] = {}
        for e in d.state.entities:
            out.setdefault(_named(e.name, e.type), set()).update(e.aliases, (e.name,))
        return {name: names - {name} for name, names in out.items()}

    def _class(self, name: str, typ: str, hint: str | None) -> str:
        if typ == "LOC":
            return gz.builtin_class(name) or "Place"
        if typ == "MISC" and hint in ("Work", "Award", "Artifact", "Concept", "Field", "Event"):
            return hint
        return _CLASS.get(typ, "Thing")

    def extract(self, chunk: Chunk) -> list[Triple]:
        check_chunk(chunk)
        doc = self._docs.get(chunk.doc_id)
        if doc is None:
            doc = self._docs[chunk.doc_id] = _Doc()
        self._docs.move_to_end(chunk.doc_id)
        while len(self._docs) > 256:
            self._docs.popitem(last=False)
        text = chunk.text
        code = self._code_regions(doc, text)
        out: list[Triple] = []
        spans: list[tuple[int, int]] = []
        sents: list[list[Token]] = []
        headings: list[bool] = []
        seen_end = doc.seen_end
        off = chunk.start
        cuts = sentence_spans(text)
        for a, b in cuts:
            if off + a < seen_end:
                continue  # an overlapping chunk repeats sentences already read
            if b - a > self.max_sentence or any(a < ce and cs < b for cs, ce in code):
                continue  # code is not prose; an overlong "sentence" is a table or a dump
            tokens = tokenize(text, a, b, off)
            if not tokens:
                continue
            spans.append((a, b))
            sents.append(tokens)
            headings.append(_HEADING.match(text, a) is not None)
            seen_end = off + b
        if not sents:
            return out
        results = self.annotator.sentences(doc.state, sents, headings=headings, least=self.floor)
        said = self._read_by_rules(doc, chunk, cuts, spans)
        raised: dict[tuple[str, str, str], float] = {}
        for k, ((a, b), (mentions, scored, types)) in enumerate(zip(spans, results)):
            sa, sb = off + a, off + b
            # a fact the sentence states of another person it names is not also the unnamed topic's ("Barack Obama
            # met Angela Merkel. Chuck Berry was born in St. Louis." gave Obama born_in St. Louis at 0.78 too); a
            # surname may be the topic's own (`_kin`), and two places of a sentence may well lie in one region
            ents = doc.state.entities
            named = [
                (s.pid, s.t.entity, s.h.entity) for s in scored if s.h.kind != "implicit" and s.p >= self.floor and ents[s.h.entity].type == "PER"
            ]
            for s in scored:
                if s.p < self.floor or s.pid not in self._pred:
                    continue
                if (
                    named
                    and s.h.kind == "implicit"
                    and any((p, t) == (s.pid, s.t.entity) and not _kin(doc.state, h, s.h.entity) for p, t, h in named)
                ):
                    continue
                out.extend(self._triple(doc, chunk, s.h, s.t, s.pid, s.p, sa, sb, types))
            if k in said and doc.rules is not None:
                # read in the sentence's turn, as its own pairs are: a pronoun's antecedent is the latest name before it
                for mh, mt, pred in rule_pairs(said[k], doc.state, mentions, doc.rules.pronouns_of):
                    out.extend(self._triple(doc, chunk, mh, mt, self._pid_of[pred], cast(float, self.w.towns), sa, sb, types, raised=raised))
            for m in mentions:
                if m.kind in ("named", "demonym"):
                    doc.named_at[m.entity] = (m.start, m.end)
            if not doc.lists:
                doc.together |= together_in(mentions)
                if len(doc.together) > _MAX_TOGETHER:  # the set is dropped: kept for 256 documents, it must stay small
                    doc.lists = True
                    doc.together = set()
            doc.seen_end = off + b
        out.extend(self._cross(doc, chunk, spans, sents, [m for m, _, _ in results]))
        towns = self._towns(doc, chunk, spans, [m for m, _, _ in results], raised)
        return _raised(out, raised) + towns

    def _read_by_rules(self, doc: _Doc, chunk: Chunk, cuts: list[tuple[int, int]], spans: list[tuple[int, int]]) -> dict[int, list[Triple]]:
        """The births, deaths, schools, spouses and citizenships the rule extractor reads in this chunk (`cuts`: all its sentences),
        by the position in `spans` (the sentences read here) of the sentence each is read from; none when facts read
        by rule have no measured precision over the floor (`Weights.towns`). Each is stated in its sentence's turn
        (`rule_pairs`) at that precision, evidenced by its sentence; one the document has stated lower is raised to it."""
        p = self.w.towns
        if p is None or p < self.floor or not self._pid_of:
            return {}
        if doc.rules is None:
            doc.rules = RuleExtractor(max_sentence=self.max_sentence, predicates=rule_predicates(self._pid_of))
        return by_sentence(doc.rules.extract(chunk, spans=cuts), spans, chunk.start)

    def _cross(
        self, doc: _Doc, chunk: Chunk, spans: list[tuple[int, int]], sents: list[list[Token]], mentions: list[list[SentMention]]
    ) -> list[Triple]:
        """Facts between entities of this chunk that share no sentence of the document: the evidence is the
        passage from the first of the two sentences to the last (at most `max_sentence` characters)."""
        if doc.lists:
            return []
        words = [[t.text.lower() for t in tokens] for tokens in sents]
        ents = doc.state.entities
        types = {i: e.type for i, e in enumerate(ents)}
        out: list[Triple] = []
        found = score_cross(self.w, doc.state, mentions, words, doc.together, least=self.floor)
        if not found:
            return out
        for c in sorted(found, key=lambda c: -c.p):  # best first: a better-scored pair's object holds (`_triple`)
            if c.p < self.floor or c.pid not in self._pred:
                continue
            (a1, b1), (a2, b2) = spans[c.pair.h_sent], spans[c.pair.t_sent]
            start, end = chunk.start + min(a1, a2), chunk.start + max(b1, b2)
            if end - start <= self.max_sentence:
                out.extend(self._triple(doc, chunk, c.pair.h, c.pair.t, c.pid, c.p, start, end, types, inferred=True))
        return out

    def _towns(
        self, doc: _Doc, chunk: Chunk, spans: list[tuple[int, int]], mentions: list[list[SentMention]], raised: dict[tuple[str, str, str], float]
    ) -> list[Triple]:
        """A place of this chunk whose name is a town's or a region's, or says its kind ("Pulangi River":
        towns.town_pairs), located_in a country the chunk names that it lies in, at the precision measured for such
        facts (`Weights.towns`), when no better-scored fact says otherwise (`_triple`, read as inferred). The evidence
        is the passage from the place's first name in the chunk to the nearest naming of the country, as for a pair
        read across sentences.

        A town or a region of this chunk also lies in a country that only a chunk before it named (a long text names
        its country once, near its start): the evidence is then two selectors, the sentence that names the place and
        the earlier mention of the country (`_triple`'s `named_before`).

        Recorded in `raised`: the facts the document had stated already that a town fact of this chunk would state, with
        the town facts' precision, to raise where this chunk stated them lower (`_raised`): training's calibration chose
        the floor with each town fact at the better of its pair's own score and that precision (`train.stated`)."""
        p = self.w.towns
        if p is None or p < self.floor or "P131" not in self._pred:
            return []
        named: dict[int, list[tuple[int, SentMention]]] = {}
        for k, ms in enumerate(mentions):
            for m in ms:
                if m.kind in ("named", "demonym"):
                    named.setdefault(m.entity, []).append((k, m))
        ents = doc.state.entities
        # the towns are read only for a chunk that names a country, or follows one that did (most text about places
        # does; much does not)
        countries = country_names()
        here = [i for i in named if fold(ents[i].name) in countries]
        before = [i for i in doc.countries if i not in named]
        # an institution whose name holds a town's or a region's the chunk names lies in it, whether or not it names a country
        held = any(institution(ents[i].name) for i in named)
        if not here and not before and not held:
            return []
        order = list(named)
        towns = load_towns()
        entities = [(ents[i].name, ents[i].type) for i in order]
        pairs = town_pairs(towns, entities) if here or held else []
        # a town or a region of this chunk in a country named only before it (not a place named by its kind: which
        # one country is named is this chunk's question; nor an organisation, which a name places and the text does not)
        later = [
            (x, c)
            for x, c in (town_pairs(towns, entities + [(ents[i].name, ents[i].type) for i in before]) if before else [])
            if x < len(order) <= c and entities[x][1] == "LOC" and towns.place(entities[x][0]) is not None
        ]
        types = {i: e.type for i, e in enumerate(ents)} if pairs or later else {}
        out: list[Triple] = []
        for x, c in pairs:
            k1, mx = named[order[x]][0]
            k2, mc = min(named[order[c]], key=lambda km: abs(km[0] - k1))
            (a1, b1), (a2, b2) = spans[k1], spans[k2]
            start, end = chunk.start + min(a1, a2), chunk.start + max(b1, b2)
            if end - start <= self.max_sentence:
                out.extend(self._triple(doc, chunk, mx, mc, "P131", p, start, end, types, inferred=True, raised=raised))
        for x, c in later:
            k1, mx = named[order[x]][0]
            a1, b1 = spans[k1]
            earlier, mc = doc.countries[before[c - len(order)]]
            out.extend(
                self._triple(
                    doc, chunk, mx, mc, "P131", p, chunk.start + a1, chunk.start + b1, types, inferred=True, named_before=earlier, raised=raised
                )
            )
        for i in here:
            doc.countries[i] = (chunk, named[i][-1][1])
        return out

    def _triple(
        self,
        doc: _Doc,
        chunk: Chunk,
        sh: SentMention,
        stl: SentMention,
        pid: str,
        p: float,
        sa: int,
        sb: int,
        types: dict[int, str],
        inferred: bool = False,
        named_before: Chunk | None = None,
        raised: dict[tuple[str, str, str], float] | None = None,
    ) -> list[Triple]:
        """The triple of a pair scored for a property, evidenced by doc.text[sa:sb] (and by the antecedent's
        mention when a side was a pronoun or nominal); none when the document has stated it already, nor when it
        was read across sentences (`inferred`) or with the topic unnamed and gives a subject a second object of
        what a subject has one of (`_one_object`): a place lies in one country, a person was born in one place,
        and a reading of two sentences or of an unnamed topic does not contradict what the document has stated
        (it had stored "Tom Becker born_in Hamburg" from "Anna Weiss was born in Hamburg" in an article about a
        man born in Lyon).

        `named_before`: the chunk, before this one, in which the object `stl` was named (a town of this chunk in a
        country named there, `_towns`); the triple then comes twice, with doc.text[sa:sb] (the subject's sentence) and
        with that mention of the object.

        `raised`: where a fact the document has stated already is recorded with this score (`_towns`)."""
        st = doc.state
        pred, inverse = self._pred[pid]
        h, t = (stl, sh) if inverse else (sh, stl)
        eh, et = st.entities[h.entity], st.entities[t.entity]
        start = sa
        if "implicit" in (h.kind, t.kind):
            # the topic is not named in this sentence: the evidence reaches back to its latest mention,
            # which must lie in this chunk so that the span holds the name it stands for
            topic_at = doc.named_at.get(h.entity if h.kind == "implicit" else t.entity)
            if topic_at is None or topic_at[0] < chunk.start:
                return []
            start = topic_at[0]
        nh, nt = _named(eh.name, types[h.entity]), _named(et.name, types[t.entity])
        key = (nh, pred, nt)
        hs, ho = self.hints.get(pred, (None, None))
        if key in doc.emitted and raised is not None:
            raised[key] = max(p, raised.get(key, 0.0))
        if key in doc.emitted or nh == nt or (pred == "located_in" and not _may_lie_in(nh, nt)) or _out_of_range(nt, ho):
            return []
        if inferred and pred == "located_in" and _placed_elsewhere(nh, nt, doc.placed.get(nh, ())):
            return []
        says = _SAYS.get(pred)
        if says is not None:
            sentence = chunk.text[sa - chunk.start : sb - chunk.start]
            if not (says.search(sentence) or _YEAR_IN_BRACKETS.search(sentence)):
                return []
            if not inferred and t.kind != "implicit" and sa <= t.start and said_of_the_other(pred, sentence, t.start - sa, t.end - sa):
                return []
        if (one := _one_object(pred, nt)) is not None:
            objects = doc.held.setdefault((nh, one), set())
            if objects and not any(_one_of(nt, o) for o in objects) and (inferred or "implicit" in (h.kind, t.kind)):
                return []
            objects.add(nt)
        doc.emitted.add(key)
        if pred == "located_in" and (code := _table_code(nt)) is not None:
            doc.placed.setdefault(nh, set()).add(code)
        # the types the entities had at this sentence (the batch has read the chunk's later sentences already)
        self.entity_types[nh] = self._class(nh, types[h.entity], hs)
        self.entity_types[nt] = self._class(nt, types[t.entity], ho)
        if len(self.entity_types) > 200_000:
            self.entity_types.clear()

        def surface(m: SentMention) -> str:
            a, b = doc.named_at.get(m.entity, (-1, -1)) if m.kind == "implicit" else (m.start, m.end)
            return chunk.text[a - chunk.start : b - chunk.start] if chunk.start <= a < b <= chunk.end else m.surface

        surf_h, surf_t = surface(h), surface(t)
        score = round(p, 4)
        # valid time: the date of a birth or death in the clause that holds both mentions (none when the topic
        # stands unnamed for one); other relations' clause dates date the sentence's event as often as the relation
        valid = None
        if pred in _DATED and "implicit" not in (h.kind, t.kind):
            valid = clause_validity(chunk.text[sa - chunk.start : sb - chunk.start], (h.start - sa, h.end - sa), (t.start - sa, t.end - sa))
        if named_before is not None:
            # `stl` was named in the earlier chunk: each selector quotes the side it stands for
            first = (surf_h, "", h.kind, "") if stl is t else ("", surf_t, "", t.kind)
            second = ("", stl.surface, "", "antecedent") if stl is t else (stl.surface, "", "antecedent", "")
            self._note(chunk.doc_id, start, sb, key, first)
            self._note(chunk.doc_id, stl.start, stl.end, key, second)
            return [Triple(nh, pred, nt, chunk, score, valid, start, sb), Triple(nh, pred, nt, named_before, score, valid, stl.start, stl.end)]
        self._note(chunk.doc_id, start, sb, key, (surf_h, surf_t, h.kind, t.kind))
        out = [Triple(nh, pred, nt, chunk, score, valid, start, sb)]
        # a subject or object read from a pronoun or nominal gets a second selector: the antecedent's
        # mention, so the evidence for the link is kept beside the sentence that states the relation
        for m, side in ((h, 0), (t, 1)):
            at = doc.named_at.get(m.entity) if m.kind in ("pron", "nominal") else None
            if at is not None and chunk.start <= at[0] and at[1] <= sa:
                name = chunk.text[at[0] - chunk.start : at[1] - chunk.start]
                self._note(chunk.doc_id, at[0], at[1], key, (name, "", "antecedent", "") if side == 0 else ("", name, "", "antecedent"))
                out.append(Triple(nh, pred, nt, chunk, score, valid, at[0], at[1]))
        return out

    def _note(self, doc_id: str, start: int, end: int, key: tuple[str, str, str], rec: tuple) -> None:
        self.surfaces[(doc_id, start, end, *key)] = rec
        while len(self.surfaces) > 100_000:
            self.surfaces.popitem(last=False)

    @staticmethod
    def _code_regions(doc: _Doc, text: str) -> list[tuple[int, int]]:
        """Markdown fenced blocks (carried across chunks) and HTML <pre>/<code> elements of this chunk."""
        regions: list[tuple[int, int]] = [(m.start(), m.end()) for m in _CODE_TAG.finditer(text)]
        open_at = 0 if doc.in_fence else None
        for m in _FENCE.finditer(text):
            if open_at is None:
                open_at = m.start()
            else:
                regions.append((open_at, text.find("\n", m.end()) % (len(text) + 1) or len(text)))
                open_at = None
        if open_at is not None:
            regions.append((open_at, len(text)))
        doc.in_fence = open_at is not None
        return regions


@lru_cache(maxsize=4)
def _cached_weights(directory: str) -> Weights:
    return Weights.load(directory)
