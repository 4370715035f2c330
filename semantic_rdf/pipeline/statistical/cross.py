"""Entity pairs that share no sentence: the candidates of a chunk, read from names only with a place as the
tail, and their features as components most pairs share (`CrossContext`), which run time sums once each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.pipeline.statistical.document import DocState
from semantic_rdf.pipeline.statistical.mentions import ENTITY_TYPES, SentMention
from semantic_rdf.pipeline.statistical.pairs import BUCKET_STARTS, bucket

__all__ = [
    "CROSS_TAIL",
    "CrossPair",
    "CrossCandidates",
    "cross_mentions",
    "cross_candidates",
    "cross_pairs",
    "DocPlaces",
    "together_in",
    "Components",
    "CrossContext",
    "cross_features",
    "end_words",
    "END_WORD_FAMILIES",
    "BAG_FAMILY",
    "sentence_bag",
]


_REAL_TYPES = frozenset(ENTITY_TYPES)
_NAMED = frozenset({"named", "demonym"})  # a pair across sentences is read from names only: the passage quotes both
# Across sentences only a place is a tail: most training pairs that hold a property end in one, and no other
# kind of tail reached the floor out of fold, so every other pair cost time for nothing (docs/extraction.md)
CROSS_TAIL = "LOC"


@dataclass(frozen=True, slots=True)
class CrossPair:
    """Two entities that share no sentence, by their closest mentions (sentence positions in the list given)."""

    h: SentMention
    t: SentMention
    h_sent: int
    t_sent: int


@dataclass(frozen=True, slots=True)
class CrossCandidates:
    """The pairs `cross_pairs` picks, as arrays over the named mentions they are read from: run time scores
    them as arrays (`CrossContext.components`) and makes a CrossPair only for a pair it keeps."""

    mentions: list[SentMention]  # the named mentions considered, in reading order
    sent: np.ndarray  # each mention's sentence (its position in the list of sentences given)
    head: np.ndarray  # per pair, closest first: its head's mention (an index into `mentions`)
    tail: np.ndarray

    def __len__(self) -> int:
        return len(self.head)

    def pair(self, k: int) -> CrossPair:
        i, j = int(self.head[k]), int(self.tail[k])
        return CrossPair(self.mentions[i], self.mentions[j], int(self.sent[i]), int(self.sent[j]))


def cross_mentions(state: DocState, sents: list[list[SentMention]]) -> tuple[list[SentMention], list[int]]:
    """The mentions pairs across sentences are read from (named, of a real type, not the topic), in reading
    order, with their sentences (positions in `sents`)."""
    ents = state.entities
    ms: list[SentMention] = []
    ss: list[int] = []
    for si, row in enumerate(sents):
        for m in row:
            if m.kind in _NAMED and ents[m.entity].type in _REAL_TYPES and m.entity != state.first:
                ms.append(m)
                ss.append(si)
    return ms, ss


def cross_candidates(state: DocState, sents: list[list[SentMention]], together: set[tuple[int, int]], limit: int = 400) -> CrossCandidates:
    """The ordered entity pairs of `sents` (consecutive sentences of one document) that never shared a
    sentence of the document (`together` holds the pairs that did), each by its closest named mentions
    (not pronouns: the passage between them then names both; of equally close ones the first of the head's,
    then of the tail's, in reading order), the tail a place (CROSS_TAIL); the topic is left out (every
    sentence pairs it with the others already). At most `limit`, closest first, then by entity. Every pair
    of mentions is measured at once: a chunk has hundreds of entity pairs."""
    ents = state.entities
    ms, ss = cross_mentions(state, sents)
    sent = np.array(ss, dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    ent = np.array([m.entity for m in ms], dtype=np.int64)
    tails = np.array([i for i, m in enumerate(ms) if ents[m.entity].type == CROSS_TAIL], dtype=np.int64)
    if not len(tails):
        return CrossCandidates(ms, sent, none, none)
    # each mention's rank among its entity's mentions (reading order), the tie-break between equally close ones
    by_ent = np.argsort(ent, kind="stable")
    grouped = ent[by_ent]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    rank = np.empty_like(ent)
    rank[by_ent] = np.arange(len(ent)) - np.repeat(starts, np.diff(np.r_[starts, len(ent)]))
    hi = np.repeat(np.arange(len(ms)), len(tails))
    ti = np.tile(tails, len(ms))
    other = ent[hi] != ent[ti]
    hi, ti = hi[other], ti[other]
    dist = np.abs(sent[hi] - sent[ti])
    he, te = ent[hi], ent[ti]
    # per entity pair, the closest mentions (the lowest (distance, head's rank, tail's rank))
    order = np.lexsort((rank[ti], rank[hi], dist, te, he))
    he, te = he[order], te[order]
    first = np.r_[True, (he[1:] != he[:-1]) | (te[1:] != te[:-1])] if len(order) else np.zeros(0, dtype=bool)
    best = order[first]
    best = best[[(int(h), int(t)) not in together for h, t in zip(ent[hi[best]].tolist(), ent[ti[best]].tolist())]]
    kept = best[np.lexsort((ent[ti[best]], ent[hi[best]], dist[best]))][:limit]
    return CrossCandidates(ms, sent, hi[kept], ti[kept])


def cross_pairs(state: DocState, sents: list[list[SentMention]], together: set[tuple[int, int]], limit: int = 400) -> list[CrossPair]:
    """`cross_candidates` as CrossPairs (what training reads)."""
    c = cross_candidates(state, sents, together, limit)
    return [c.pair(k) for k in range(len(c))]


@dataclass(frozen=True, slots=True)
class DocPlaces:
    """What a document has said so far about places: its most named place, its first country, and how many
    countries it names (gazetteer classes)."""

    top: int | None
    first_country: int | None
    countries: int

    @classmethod
    def of(cls, state: DocState) -> "DocPlaces":
        ents = state.entities
        locs = [i for i, e in enumerate(ents) if e.type == "LOC"]
        top = min(locs, key=lambda i: (-ents[i].mentions, ents[i].first_sent, i)) if locs else None
        countries = [i for i, e in enumerate(ents) if gz.builtin_class(e.name) == "Country"]
        first = min(countries, key=lambda i: (ents[i].first_sent, i)) if countries else None
        return cls(top, first, len(countries))


def together_in(mentions: list[SentMention]) -> set[tuple[int, int]]:
    """The ordered pairs of distinct entities named (or resolved) in one sentence."""
    es = {m.entity for m in mentions if m.kind != "implicit"}
    return {(a, b) for a in es for b in es if a != b}


@dataclass(frozen=True, slots=True)
class Components:
    """One component (a kind of `CrossContext.parts` key) of every pair of some CrossCandidates."""

    kind: str
    codes: np.ndarray  # the distinct codes, one per distinct key
    index: np.ndarray  # per pair, its code's position in `codes` (-1: the pair has none of this kind)
    key: Callable[[int], tuple | None]  # the key of codes[k]


class CrossContext:
    """The cross-sentence pairs of some consecutive sentences of a document (their lower-cased `words`),
    as components: a pair's features are the union of a dozen parts, most shared with other pairs (its
    type pair at its distance, its head's own features against the tail's type, a sentence's bag of
    words, …). Training reads the features (`cross_features`); run time sums each part's weights once
    (`CrossHead.score`) — a chunk has hundreds of pairs over a few dozen entities."""

    def __init__(self, state: DocState, together: set[tuple[int, int]], words: list[list[str]]) -> None:
        self.state = state
        self.words = words
        self.places = DocPlaces.of(state)
        near: dict[int, set[int]] = {}
        for a, b in together:
            near.setdefault(a, set()).add(b)
        self.near = near
        self._cls: dict[int, str | None] = {}
        self._rendered: dict[tuple, tuple[str, ...]] = {}

    def cls(self, i: int) -> str | None:
        got = self._cls.get(i, "")
        if got == "":
            got = self._cls[i] = gz.lexicon_class(self.state.entities[i].name)
        return got

    def parts(self, pair: CrossPair) -> list[tuple]:
        """The pair's components (keys for `render`): the type pair at its distance and order with the two
        gazetteer classes; the head's mention against the tail's type; the tail's against the head's; the
        bags of words of the two sentences; the types of the entities that shared a sentence with both."""
        h, t = pair.h, pair.t
        out = [
            self._p(h.entity, t.entity, pair.h_sent, pair.t_sent),
            self._end("h", h, pair.h_sent, t.entity),
            self._end("t", t, pair.t_sent, h.entity),
            ("hb", pair.h_sent),
            ("tb", pair.t_sent),
        ]
        via = self._v(h.entity, t.entity)
        if via is not None:
            out.append(via)
        return out

    # Keys of this kind are made of types, classes and distances only, never of the document: `render` gives
    # the same features for them in every document, so run time keeps their weights' sums across chunks
    SHARED_KINDS = frozenset({"p"})

    def _p(self, h: int, t: int, hs: int, ts: int) -> tuple:
        ents = self.state.entities
        return ("p", ents[h].type, ents[t].type, "ht" if hs < ts else "th", abs(hs - ts), self.cls(h), self.cls(t))

    def _end(self, side: str, m: SentMention, sent: int, other: int) -> tuple:
        return self._end_type(side, m, sent, self.state.entities[other].type)

    @staticmethod
    def _end_type(side: str, m: SentMention, sent: int, other_type: str) -> tuple:
        return (side, m.entity, sent, m.a, m.b, m.kind, other_type)

    def end_signature(self, side: str, i: int, mkind: str, other: str) -> tuple:
        """What one end's features other than its words are made of: no document in it (`end_features`)."""
        e, c, pl = self.state.entities[i], self.cls(i), self.places
        return (
            side,
            mkind,
            c,
            other,
            bucket(e.mentions),
            e.type,
            i == pl.top,
            side == "t" and i == pl.first_country,
            side == "t" and pl.countries == 1 and c == "Country",
            e.first_sent == 0,
        )

    @staticmethod
    def end_features(signature: tuple) -> list[str]:
        """One end's features other than its words (`end_signature`): how it was found, its gazetteer class, how
        often it is named, whether it is the document's main place or its first or only country, and whether it
        is named in the first sentence, against the other end's type."""
        side, mkind, c, other, n, etype, top, first_country, only_country, s0 = signature
        f = [f"x_{side}k={mkind}"]
        if c:
            f.append(f"x_{side}c={c}|{other}")
        f.append(f"x_{side}n={n}|{etype}")
        if top:
            f.append(f"x_{side}_toploc|{other}")
        if first_country:
            f.append(f"x_t_firstcountry|{other}")
        if only_country:
            f.append(f"x_t_onlycountry|{other}")
        if s0:
            f.append(f"x_{side}_s0|{etype}|{other}" if side == "h" else f"x_{side}_s0|{other}|{etype}")
        return f

    def _v(self, h: int, t: int) -> tuple | None:
        ents = self.state.entities
        nh, nt = self.near.get(h), self.near.get(t)
        via = (nh & nt) - {h, t} if nh and nt else None
        if not via:
            return None
        return ("v", f"{ents[h].type}|{ents[t].type}", tuple(sorted({ents[m].type for m in via})))

    def bound_keys(self, ms: list[SentMention], ss: list[int]) -> tuple[tuple[str, ...], tuple[str, ...], list[int], tuple, tuple] | None:
        """What bounds the pairs of these mentions (from `cross_mentions`; `ss` their sentences): the head types,
        the tail types, the positions in `ms` of the tails (every mention is a head), and for the kinds whose
        keys hold no document (p, v) a signature `shared_keys` turns into keys: each type pair at every
        distance bucket, order and pair of gazetteer classes, and every set of types a third entity can bring.
        A pair's other components are its head's end against its tail's type, its tail's against its head's
        (`end_signature`, `end_words`) and its two sentences' bags. None when no pair can be made."""
        ents = self.state.entities
        tails = [k for k, m in enumerate(ms) if ents[m.entity].type == CROSS_TAIL]
        if not tails or len({m.entity for m in ms}) < 2 or len(set(ss)) < 2:
            return None  # no pair: one entity, no place, or one sentence
        htypes = tuple(sorted({ents[m.entity].type for m in ms}))
        ttypes = tuple(sorted({ents[ms[k].entity].type for k in tails}))
        hcls = tuple(sorted({self.cls(m.entity) or "" for m in ms}))
        tcls = tuple(sorted({self.cls(ms[k].entity) or "" for k in tails}))
        far = bucket(max(ss) - min(ss))
        kinds = tuple(sorted({e.type for e in ents}))
        return htypes, ttypes, tails, ("p", htypes, ttypes, far, hcls, tcls), ("v", htypes, ttypes, kinds)

    @staticmethod
    def shared_keys(signature: tuple) -> list[tuple]:
        """The keys a `bound_keys` signature (p or v) stands for (the same in every document)."""
        if signature[0] == "p":
            _, htypes, ttypes, far, hcls, tcls = signature
            dists = []  # the first distance of each bucket, up to `far`'s
            for d in BUCKET_STARTS:
                dists.append(d)
                if bucket(d) == far:
                    break
            return [
                ("p", ht, tt, o, d, hc or None, tc or None)
                for ht in htypes
                for tt in ttypes
                for o in ("ht", "th")
                for d in dists
                for hc in hcls
                for tc in tcls
            ]
        _, htypes, ttypes, kinds = signature
        via = [tuple(t for k, t in enumerate(kinds) if bits >> k & 1) for bits in range(1, 1 << len(kinds))]
        return [("v", f"{ht}|{tt}", types) for ht in htypes for tt in ttypes for types in via]

    def components(self, c: CrossCandidates, ids: dict[str | None, int]) -> list[Components]:
        """Every pair's components at once, in `parts` order, as codes: equal codes are equal keys, since
        each code is made of what its key is made of. `ids` numbers the type and class names for good (the
        caller keeps it as long as it keeps sums of shared components, whose codes are the same in every
        document)."""
        ents = self.state.entities
        ms = c.mentions
        ent = np.array([m.entity for m in ms], dtype=np.int64)

        def number(name: str | None) -> int:
            got = ids.get(name)
            if got is None:
                got = ids[name] = len(ids)
                if got >= 64:
                    raise ValueError("more than 64 type and class names")
            return got

        typ = np.array([number(ents[e].type) for e in ent.tolist()], dtype=np.int64)
        cls = np.array([number(self.cls(e)) for e in ent.tolist()], dtype=np.int64)
        hi, ti = c.head, c.tail
        hs, ts = c.sent[hi], c.sent[ti]
        ht, tt = typ[hi], typ[ti]
        H, T, S = hi.tolist(), ti.tolist(), c.sent.tolist()
        out: list[Components] = []

        def add(kind: str, codes: np.ndarray, make: Callable[[int, int], tuple | None]) -> None:
            present = np.flatnonzero(codes >= 0)
            uniq, first, inverse = np.unique(codes[present], return_index=True, return_inverse=True)
            index = np.full(len(codes), -1, dtype=np.int64)
            index[present] = inverse.reshape(-1)
            reps = present[first].tolist()
            out.append(Components(kind, uniq, index, lambda k: make(H[reps[k]], T[reps[k]])))

        type_pair = ht << 6 | tt
        p_code = np.abs(hs - ts) << 32 | type_pair << 20 | (hs < ts).astype(np.int64) << 12 | cls[hi] << 6 | cls[ti]
        add("p", p_code, lambda i, j: self._p(ms[i].entity, ms[j].entity, S[i], S[j]))
        add("h", hi << 6 | tt, lambda i, j: self._end("h", ms[i], S[i], ms[j].entity))
        add("t", ti << 6 | ht, lambda i, j: self._end("t", ms[j], S[j], ms[i].entity))
        add("hb", hs, lambda i, j: ("hb", S[i]))
        add("tb", ts, lambda i, j: ("tb", S[j]))
        add("v", self._via_codes(ent[hi], ent[ti], type_pair), lambda i, j: self._v(ms[i].entity, ms[j].entity))
        return out

    def _via_codes(self, he: np.ndarray, te: np.ndarray, type_pair: np.ndarray) -> np.ndarray:
        """Per pair (head and tail entities), a code of its type pair and of the set of types of the entities
        that shared a sentence with both ends (-1: none did)."""
        ents = self.state.entities
        ends = np.unique(np.r_[he, te])
        near = np.zeros((len(ends), len(ents)), dtype=bool)
        for r, e in enumerate(ends.tolist()):
            near[r, sorted(self.near.get(e, ()))] = True
        via = near[np.searchsorted(ends, he)] & near[np.searchsorted(ends, te)]
        rows = np.arange(len(he))
        via[rows, he] = False
        via[rows, te] = False
        names: dict[str, int] = {}
        etype = np.array([names.setdefault(e.type, len(names)) for e in ents], dtype=np.int64)
        mask = np.zeros(len(he), dtype=np.int64)
        for k in range(len(names)):
            mask |= via[:, etype == k].any(axis=1).astype(np.int64) << k
        return np.where(mask > 0, type_pair << len(names) | mask, -1)

    def render(self, key: tuple) -> tuple[str, ...]:
        """The features one component stands for."""
        got = self._rendered.get(key)
        if got is None:
            got = self._rendered[key] = tuple(self._render(key))
        return got

    def _render(self, key: tuple) -> list[str]:
        kind = key[0]
        if kind == "p":
            _, ht, tt, order, d, hc, tc = key
            tp, db = f"{ht}|{tt}", bucket(d)
            f = [f"x_tp={tp}", f"x_d={db}", f"x_ord={order}", f"x_tp={tp}|{order}", f"x_tp={tp}|d={db}"]
            if hc and tc:
                f.append(f"x_hc={hc}|tc={tc}")
            return f
        if kind in ("h", "t"):  # one end: its mention, the entity's own features against the other end's type
            side, i, sent, a, b, mkind, other = key
            words = self.words[sent]
            own = [f"x_{side}{fam}={words[j]}" for fam, j in end_words(len(words), a, b)]
            return [*self.end_features(self.end_signature(side, i, mkind, other)), *own]
        if kind in ("hb", "tb"):
            return sentence_bag(self.words[key[1]], kind[0])
        if kind == "v":  # entities that shared a sentence with both ends
            return [f"x_via|{key[1]}", *(f"x_via={typ}|{key[1]}" for typ in key[2])]
        raise ValueError(f"unknown component {key!r}")


def cross_features(ctx: CrossContext, pair: CrossPair) -> list[str]:
    """Features of an entity pair that shares no sentence: types, distance and order, gazetteer classes,
    how often and how early each is named in the document, whether the tail is the document's main
    place or country, the types of entities that shared a sentence with both, each mention's own last and
    first words and the words beside it, and the bags of words of the two sentences."""
    return [f for key in ctx.parts(pair) for f in ctx.render(key)]


def end_words(n: int, a: int, b: int) -> list[tuple[str, int]]:
    """The words a cross-sentence pair's end is read by, as (feature family, position) in a sentence of `n`
    words where the mention is words a..b: its last word and, for a longer name, its first (as the sentence
    classifier reads them, `pair_features`), and the words before and after it. A family's feature is
    f"x_{side}{family}={word}"."""
    got = []
    if b > a:
        got.append(("w", b - 1))
        if b - a > 1:
            got.append(("f", a))
    if a >= 1:
        got.append(("pre1", a - 1))
    if b < n:
        got.append(("post1", b))
    return got


END_WORD_FAMILIES = ("w", "f", "pre1", "post1")  # end_words' families
BAG_FAMILY = "sw"  # sentence_bag's


def sentence_bag(words: list[str], side: str) -> list[str]:
    """The bag of a sentence's words as features of a cross-sentence pair's head ("h") or tail ("t") side, in
    the order of the words themselves (the prefix is the same)."""
    return sorted({f"x_{side}{BAG_FAMILY}={w}" for w in words})
