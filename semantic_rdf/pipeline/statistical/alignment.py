"""The Wikidata alignment of the ontology's predicates (ontology/taxonomy.ttl), which training and the
benchmarks read a property's predicate from.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["alignment"]


@lru_cache(maxsize=1)
def alignment() -> dict[str, tuple[str, bool]]:
    """Wikidata property id -> (predicate name, inverse?) from ontology/taxonomy.ttl.

    Several predicates may align with one property (born_in and place_of_birth with P19): the first
    exactMatch in the file wins, then the first inverseMatch, then the first broadMatch."""
    import pyoxigraph as ox

    from semantic_rdf.core import vocab
    from semantic_rdf.core.resources import files

    ns = vocab.NS
    skos = "http://www.w3.org/2004/02/skos/core#"
    wdt = "http://www.wikidata.org/prop/direct/"
    rank = {skos + "exactMatch": 0, ns + "inverseMatch": 1, skos + "broadMatch": 2}
    names: dict[str, str] = {}
    links: list[tuple[int, int, str, str, bool]] = []
    order = 0
    for path in files("ontology", "taxonomy.ttl"):
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            p = t.predicate.value
            if p == ns + "name":
                names[t.subject.value] = t.object.value
            elif p in rank and t.object.value.startswith(wdt):
                order += 1
                links.append((rank[p], order, t.object.value[len(wdt) :], t.subject.value, p == ns + "inverseMatch"))
    out: dict[str, tuple[str, bool]] = {}
    for _, _, pid, iri, inverse in sorted(links):
        if pid not in out and iri in names:
            out[pid] = (names[iri], inverse)
    return out
