"""An entity pair in one sentence: which pairs a sentence gives (`candidate_pairs`, `possessives`) and the
features the sentence classifier reads of each (`pair_features`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from semantic_rdf.pipeline.statistical.definitions import definition_of, in_definition
from semantic_rdf.pipeline.statistical.mentions import SentenceMemo, SentMention
from semantic_rdf.pipeline.statistical.text import Token

__all__ = ["pair_features", "candidate_pairs", "possessives", "bucket", "BUCKET_STARTS"]


def bucket(n: int) -> str:
    """A count or a distance as the features read it: 0 to 3 each, then 4-5, 6-9 and 10+."""
    return str(n) if n < 4 else ("4-5" if n < 6 else ("6-9" if n < 10 else "10+"))


BUCKET_STARTS = (1, 2, 3, 4, 6, 10)  # the least distance of each of bucket's buckets from 1 on


def _sentence_words(words: list[str], side: str, memo: SentenceMemo | None) -> list[str]:
    """The implicit mention's bag of the sentence's words, built once per sentence and side when the caller
    keeps a `memo` for the sentence (every implicit pair of a sentence has the same). Sorted: the same order,
    so the same float sums, in every process."""
    got = memo.bags.get(side) if memo is not None else None
    if got is None:
        got = [f"imp{side}|sw={w}" for w in sorted(set(words))]
        if memo is not None:
            memo.bags[side] = got
    return got


def pair_features(
    words: list[str],
    h: SentMention,
    t: SentMention,
    ht: str,
    tt: str,
    h_topic: bool,
    t_topic: bool,
    mentions: list[SentMention],
    sent_index: int,
    t_class: str | None,
    h_class: str | None,
    memo: SentenceMemo | None = None,
) -> list[str]:
    """Features of the ordered pair (head h, tail t) in a sentence of lower-cased `words` (`memo`: what the caller
    keeps per sentence, made once for all its pairs)."""
    hk, tk = h.kind, t.kind
    tp = f"{ht}|{tt}"
    f = [f"tp={tp}", f"hk={hk}", f"tk={tk}", f"hk={hk}|tk={tk}|tp={tp}"]
    if h_topic:
        f.append("h_topic")
    if t_topic:
        f.append("t_topic")
    if h_class:
        f.append(f"hc={h_class}")
    if t_class:
        f.append(f"tc={t_class}|{ht}")
    f.append("s0" if sent_index == 0 else "s1+")
    if hk == "named" and h.a <= 1 and t.a > h.b:
        defined = definition_of(words, h, memo)
        if defined and in_definition(words, defined[1], t.a, mentions):
            f.append(f"def={defined[0]}|{tt}")  # "Goodooga is a village in … Brewarrina Shire": where it lies
    if hk == "implicit" or tk == "implicit":
        m, side = (t, "h") if hk == "implicit" else (h, "t")
        ma = m.a
        if m.b > ma:
            f.append(f"imp{side}|mw={words[m.b - 1]}")
        for d in (1, 2, 3):
            if ma - d >= 0:
                f.append(f"imp{side}|pre{d}={words[ma - d]}")
        if ma >= 2:
            f.append(f"imp{side}|pre2={words[ma - 2]}_{words[ma - 1]}")
        if m.b < len(words):
            f.append(f"imp{side}|post={words[m.b]}")
        f.extend(_sentence_words(words, side, memo))
        return f
    # the mentions' own words: the last, an English name's head ("Stephenville High School", "Ohio River"),
    # and the first of a longer name ("Lake Erie", "University of Michigan"), which say what a name the
    # tagger typed alike is: a school, a river, a party (docs/extraction.md, "Mention words, word pairs …")
    f.append(f"hw={words[h.b - 1]}")
    f.append(f"tw={words[t.b - 1]}")
    if h.b - h.a > 1:
        f.append(f"hf={words[h.a]}")
    if t.b - t.a > 1:
        f.append(f"tf={words[t.a]}")
    first, second = (h, t) if h.a <= t.a else (t, h)
    order = "ht" if first is h else "th"
    fb, sa = first.b, second.a
    gap = max(0, sa - fb)
    between = words[fb:sa]
    gb = bucket(gap)
    f.append(f"ord={order}")
    f.append(f"gap={gb}")
    f.append(f"ord={order}|gap={gb}|tp={tp}")
    inside = 0
    for m in mentions:
        if fb <= m.a and m.b <= sa and m.kind != "implicit":
            inside += 1
    f.append(f"ents_between={bucket(inside)}")
    f.extend([f"bw={w}|{order}" for w in sorted(set(between))])
    if len(between) > 1:  # and their pairs in order: "born in" is not "in … born"
        f.extend(sorted({f"bb={a}_{b}|{order}" for a, b in zip(between, between[1:])}))
    if gap <= 6:
        bs = " ".join(between)
        f.append(f"bs={bs}|{order}")
        f.append(f"bs={bs}|{order}|{tp}")
    if between:
        f.append(f"bf={between[0]}|{order}")
        f.append(f"bl={between[-1]}|{order}")
    n = len(words)
    fa, sb = first.a, second.b
    for d in (1, 2):
        if fa - d >= 0:
            f.append(f"pre{d}={words[fa - d]}")
        if sb + d - 1 < n:
            f.append(f"post{d}={words[sb + d - 1]}")
    if fa >= 2:
        f.append(f"pre2={words[fa - 2]}_{words[fa - 1]}")
    if t.a >= 2:
        f.append(f"tpre2={words[t.a - 2]}_{words[t.a - 1]}")
    if t.a >= 1:
        f.append(f"tpre1={words[t.a - 1]}")
    if h.a >= 1:
        f.append(f"hpre1={words[h.a - 1]}")
    return f


def candidate_pairs(
    mentions: list[SentMention], only: dict[tuple[int, int], int] | None = None, limit: int | None = None
) -> list[tuple[SentMention, SentMention]]:
    """Every ordered pair of distinct entities in a sentence, each by its closest pair of mentions
    (a named mention before a resolved one, an implicit one last), in the order of their entities.
    Two implicit mentions never pair. `only`: mentions (by token span) that pair with one entity alone
    (`possessives`). `limit`: when there are more pairs, the `limit` closest (a list of hundreds of names), in
    the order of their distance, then of their entities. A sentence of many mentions is paired with numpy
    (`_pairs_at_once`): the same pairs in the same order, without a Python loop over every two mentions."""
    if len(mentions) > _PAIRS_AT_ONCE:
        return _pairs_at_once(mentions, only, limit)
    best: dict[tuple[int, int], tuple[tuple, SentMention, SentMention]] = {}
    for h in mentions:
        for t in mentions:
            if h.entity == t.entity or (h.kind == "implicit" and t.kind == "implicit"):
                continue
            if only and (only.get((h.a, h.b), t.entity) != t.entity or only.get((t.a, t.b), h.entity) != h.entity):
                continue  # a possessive before a named person: only that person's relation to the possessor
            if h.kind != "implicit" and t.kind != "implicit" and h.a < t.b and t.a < h.b:
                continue  # overlapping spans
            dist = 0 if "implicit" in (h.kind, t.kind) else abs(h.a - t.a)
            key = (_RANK[h.kind] + _RANK[t.kind], dist)
            k = (h.entity, t.entity)
            if k not in best or key < best[k][0]:
                best[k] = (key, h, t)
    chosen = [best[k] for k in sorted(best)]
    if limit is not None and len(chosen) > limit:
        chosen = sorted(chosen, key=lambda c: (c[0][1], c[1].entity, c[2].entity))[:limit]
    return [(h, t) for _, h, t in chosen]


_RANK = {"named": 0, "demonym": 0, "nominal": 1, "pron": 1, "implicit": 3}
# Mentions in a sentence from which `candidate_pairs` pairs them with numpy: prose has at most about 20
# (Re-DocRED's longest sentence, 22); a list of names run into one "sentence" has hundreds, and the loop over
# every two of them was most of the time such text took.
_PAIRS_AT_ONCE = 24


def _pairs_at_once(mentions: list[SentMention], only: dict[tuple[int, int], int] | None, limit: int | None) -> list[tuple[SentMention, SentMention]]:
    """`candidate_pairs` over arrays: every two mentions at once, each entity pair's best by (rank, distance,
    then the first in reading order, as the loop keeps the first of equals)."""
    m = len(mentions)
    ent = np.array([x.entity for x in mentions], dtype=np.int64)
    a = np.array([x.a for x in mentions], dtype=np.int64)
    b = np.array([x.b for x in mentions], dtype=np.int64)
    rank = np.array([_RANK[x.kind] for x in mentions], dtype=np.int64)
    implicit = np.array([x.kind == "implicit" for x in mentions])
    alone = np.array([only.get((x.a, x.b), -1) if only else -1 for x in mentions], dtype=np.int64)
    i, j = (g.ravel() for g in np.meshgrid(np.arange(m), np.arange(m), indexing="ij"))
    either = implicit[i] | implicit[j]
    ok = (ent[i] != ent[j]) & ~(implicit[i] & implicit[j])
    ok &= ~(((alone[i] >= 0) & (alone[i] != ent[j])) | ((alone[j] >= 0) & (alone[j] != ent[i])))
    ok &= either | ~((a[i] < b[j]) & (a[j] < b[i]))  # overlapping spans
    i, j, either = i[ok], j[ok], either[ok]
    dist = np.where(either, 0, np.abs(a[i] - a[j]))
    rsum = rank[i] + rank[j]
    order = np.lexsort((j, i, dist, rsum, ent[j], ent[i]))  # by entity pair, then the loop's preference
    eh, et = ent[i][order], ent[j][order]
    first = order[np.r_[True, (eh[1:] != eh[:-1]) | (et[1:] != et[:-1])]] if len(order) else order
    if limit is not None and len(first) > limit:
        first = first[np.lexsort((ent[j][first], ent[i][first], dist[first]))][:limit]
    return [(mentions[h], mentions[t]) for h, t in zip(i[first].tolist(), j[first].tolist())]


_POSSESSIVE = frozenset({"his", "her", "hers", "its"})  # the possessives DocState resolves


def possessives(tokens: list[Token], mentions: list[SentMention], types: Callable[[int], str]) -> dict[tuple[int, int], int]:
    """Resolved possessives whose noun is a named person ("Her colleague Tom Becker was born in Hamburg",
    "his wife, Anna Weiss, …"): the person is what the sentence goes on about, so the possessor pairs with that
    person only (a colleague, a wife) and not with the rest of the sentence ("Maria Lopez born_in Hamburg" was
    stored at 0.76). Read as: the possessive, one lower-case word, an optional comma, the named person (two words
    would take in a verb: "his teachers included Sabine Lacoraet").
    Returns {possessive's token span: the person's entity}; `types` gives an entity's tagger type."""
    out: dict[tuple[int, int], int] = {}
    named = {m.a: m for m in mentions if m.kind == "named" and types(m.entity) == "PER"}
    for m in mentions:
        if m.kind != "pron" or tokens[m.a].text.lower() not in _POSSESSIVE:
            continue
        k = m.b + 1
        if k > len(tokens) or not tokens[m.b].text[:1].islower():
            continue
        if k < len(tokens) and tokens[k].text == ",":
            k += 1
        n = named.get(k)
        if n is not None and n.entity != m.entity:
            out[(m.a, m.b)] = n.entity
    return out
