"""The entity tagger's token features: the word, its shape and affixes, its neighbours', and the lexicons'
(gazetteer classes, the town table, listed names of several words). Training and run time call the same
functions, so a feature means the same thing in both.
"""

from __future__ import annotations

import re
from functools import lru_cache

from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.pipeline.statistical.names import fold
from semantic_rdf.pipeline.statistical.towns import load_towns

__all__ = ["ner_features"]


@lru_cache(maxsize=200_000)
def _shape(w: str) -> str:
    out: list[str] = []
    for c in w:
        if c.isupper():
            k = "X"
        elif c.islower():
            k = "x"
        elif c.isdigit():
            k = "d"
        else:
            k = c
        if not out or out[-1] != k:
            out.append(k)
    return "".join(out)[:6]


@lru_cache(maxsize=200_000)
def _word_feats(w: str) -> tuple[str, ...]:
    lw = w.lower()
    f = ["w=" + lw, "sh=" + _shape(w), "p3=" + lw[:3], "s3=" + lw[-3:], "s2=" + lw[-2:]]
    if w[:1].isupper():
        f.append("up")
    if w.isupper() and len(w) > 1:
        f.append("allup")
    if w.isdigit():
        f.append("num" + str(min(len(w), 5)))
    if gz.country_of_demonym(w):
        f.append("demonym")
    cls = gz.lexicon_class(w)
    if cls:
        f.append("gz=" + cls)
    elif w[:1].isupper() and fold(w) in _town_words():
        f.append("town")  # a town's name (towns.tsv.gz): a place, or a name that a person, a firm or a word shares
    sc = gz.suffix_class(w) if w[:1].isupper() else None
    if sc:
        f.append("sfx=" + sc)
    return tuple(f)


@lru_cache(maxsize=200_000)
def _context_feats(w: str) -> tuple[tuple[str, ...], ...]:
    """The features a word gives its neighbours at offsets -2, -1, +1, +2 (in that order)."""
    lw, sh = w.lower(), _shape(w)
    return tuple((f"{d}w={lw}", f"{d}sh={sh}") for d in (-2, -1, 1, 2))


@lru_cache(maxsize=200_000)
def _kept_word_feats(w: str, keep: frozenset[str]) -> tuple[str, ...]:
    return tuple(x for x in _word_feats(w) if x in keep)


@lru_cache(maxsize=200_000)
def _kept_context_feats(w: str, keep: frozenset[str]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(x for x in pair if x in keep) for pair in _context_feats(w))


def ner_features(words: list[str], keep: frozenset[str] | None = None) -> list[list[str]]:
    """CRF features for each token of one sentence: the word, its shape and affixes, and its neighbours'.

    keep: the attributes the CRF model has weights for (run time); the others are left out, in order.
    CRFsuite skips an attribute it does not know, so the tags are the same, but handing it hundreds of
    thousands of strings it then looks up and drops was half the tagging time."""
    n = len(words)
    if keep is None:
        base = [_word_feats(w) for w in words]
        ctx = [_context_feats(w) for w in words]
    else:
        base = [_kept_word_feats(w, keep) for w in words]
        ctx = [_kept_context_feats(w, keep) for w in words]
    # column by column, each token's features in the order training saw: its own, BOS, the neighbours
    # at -2, -1, +1, +2, the bigram with the previous word
    out = [list(b) for b in base]
    if n and "town" in _word_feats(words[0]):
        # a sentence's first word has a capital whatever it is ("Salt is mined …", "Most of …"): its own feature, in
        # the place "town" has among the word's features
        out[0] = [x for x in ("town0" if x == "town" else x for x in _word_feats(words[0])) if keep is None or x in keep]
    if n and (keep is None or "BOS" in keep):
        out[0].append("BOS")
    for f, c in zip(out[2:], ctx):
        f.extend(c[0])
    for f, c in zip(out[1:], ctx):
        f.extend(c[1])
    for f, c in zip(out, ctx[1:]):
        f.extend(c[2])
    for f, c in zip(out, ctx[2:]):
        f.extend(c[3])
    lower = [w.lower() for w in words]
    for f, a, b in zip(out[1:], lower, lower[1:]):
        bi = f"bi=-1{a}|{b}"
        if keep is None or bi in keep:
            f.append(bi)
    for i, x in _lexicon_spans(tuple(w.casefold() for w in words)):
        if keep is None or x in keep:
            out[i].append(x)
    return out


_LETTER_WORDS = re.compile(r"(?<![^\W\d_])[^\W\d_]++(?: [^\W\d_]++)+")  # from a word's start only: linear


@lru_cache(maxsize=1)
def _multiword_names() -> tuple[dict[tuple[str, ...], str], frozenset[str]]:
    """Folded tokens of every listed name of two to five tokens -> its lexicon class ("New South Wales"), and of
    the town table's ("Punta Arenas") -> "Town"; and the first words of those names (where a match can begin)."""
    from semantic_rdf.pipeline.statistical.text import tokenize

    out: dict[tuple[str, ...], str] = {}
    for names in (gz.COUNTRIES, gz.CITIES, gz.REGIONS):
        for name in sorted(names):
            key = tuple(t.text.casefold() for t in tokenize(name))
            cls = gz.lexicon_class(name)
            if 2 <= len(key) <= 5 and cls:
                out.setdefault(key, cls)
    # the town table's names of several words, as the tokenizer splits them: a name of letters and spaces alone at its
    # spaces, which gives the same words without the tokenizer's cost at start-up
    for town in sorted(load_towns().towns):
        if " " in town:
            key = tuple(town.casefold().split()) if _LETTER_WORDS.fullmatch(town) else tuple(t.text.casefold() for t in tokenize(town))
            if 2 <= len(key) <= 5:
                out.setdefault(key, "Town")
    return out, frozenset(k[0] for k in out)


@lru_cache(maxsize=1)
def _town_words() -> frozenset[str]:
    """The town table's names of one word, folded (the CRF's "town" feature)."""
    return frozenset(name for name in load_towns().towns if " " not in name)


def _lexicon_spans(folded: tuple[str, ...]) -> list[tuple[int, str]]:
    """(token, feature) for the tokens of each listed multi-word name in a sentence, longest first: the
    CRF's single-word lexicon feature cannot see that "South" and "Wales" together name a region."""
    names, first = _multiword_names()
    got: list[tuple[int, str]] = []
    i, n = 0, len(folded)
    while i < n:
        if folded[i] not in first:
            i += 1
            continue
        for k in range(min(5, n - i), 1, -1):
            cls = names.get(folded[i : i + k])
            if cls:
                got.extend((j, ("mwB=" if j == i else "mwI=") + cls) for j in range(i, i + k))
                i += k
                break
        else:
            i += 1
    return got
