"""Scoring extracted facts against Re-DocRED's gold at (entity pair, Wikidata property) level.

Only facts whose property aligns with one of the 53 predicates count. A predicted entity is the
gold entity one of whose mentions has the same folded text as the predicted name or one of its
aliases (a demonym counts as its country); a name that matches no gold entity is a wrong fact.
"""

from __future__ import annotations

from semantic_rdf.pipeline import gazetteer as gz
from semantic_rdf.core.identity import fold
from semantic_rdf.pipeline.statistical.alignment import alignment
from semantic_rdf.pipeline.statistical.names import clean_name
from semantic_rdf.pipeline.statistical.text import GoldDoc

__all__ = ["gold_facts", "gold_index", "match_entity", "predicate_property"]


# Properties read as the reverse of another: P150 ("contains administrative territorial entity") is P131 with
# head and tail swapped, and P8810 ("parent": the subject's parent is the object, our child_of) is P40 ("child").
# Gold labels of the first kind and predicates aligned with the second are scored as the property they reverse.
_READ_REVERSED = {"P150": "P131", "P8810": "P40"}


def gold_facts(doc: GoldDoc) -> set[tuple[int, int, str]]:
    """(head entity, tail entity, property) for every aligned property; P150 (contains) read as P131 reversed."""
    align = alignment()
    out = set()
    for h, t, r, _ in doc.labels:
        if r in align:
            out.add((h, t, r))
        elif _READ_REVERSED.get(r) in align:
            out.add((t, h, _READ_REVERSED[r]))
    return out


def gold_index(doc: GoldDoc) -> dict[str, int]:
    """Folded surface form -> gold entity (the first entity wins a shared surface)."""
    idx: dict[str, int] = {}
    for m in doc.mentions:
        s = doc.text[m.start : m.end]
        for v in (s, clean_name(s), gz.country_of_demonym(clean_name(s)) or ""):
            if v:
                idx.setdefault(fold(v), m.entity)
    return idx


def match_entity(name: str, aliases, idx: dict[str, int]) -> int | None:
    got = idx.get(fold(name))
    if got is not None:
        return got
    for a in sorted(aliases or ()):
        got = idx.get(fold(a))
        if got is not None:
            return got
    return None


def predicate_property() -> dict[str, tuple[str, bool]]:
    """predicate name -> (Wikidata property, inverse?) for every aligned predicate (one property each);
    child_of is scored as P40 reversed (Re-DocRED states parenthood as P40 only)."""
    out = {}
    for pid, (name, inv) in alignment().items():
        out[name] = (_READ_REVERSED[pid], not inv) if pid in _READ_REVERSED else (pid, inv)
    return out
