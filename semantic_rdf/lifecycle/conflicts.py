"""Conflicts: believed assertions that give one subject different objects for a predicate that holds of one
object at a time in the world (`owl:FunctionalProperty` in ontology/taxonomy.ttl: born_in, died_in,
place_of_birth, place_of_death, capital_of), at overlapping valid times.

They are not errors in the store — each assertion is faithfully what a source said — so `validate` reports
them as SHACL warnings (severity sh:Warning: the store still conforms) from shapes/warnings/conflicts.ttl,
run by pyshacl over the records of the functional predicates only; and the answer path names both sides.

Two objects of which the store believes one located in the other (`nested`: "born in Rochester" and "born in
New York", beside "Rochester located_in New York") are one fact told at two scales, not a conflict: both
`warnings` and the answer path leave such a pair out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

import pyoxigraph as ox

from semantic_rdf.core.identity import fold
from semantic_rdf.core.resources import read_text
from semantic_rdf.core.vocab import OWL, functional_predicates, id_of, predicate_iri

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from datetime import datetime

    from semantic_rdf.store.assertions import AssertionStore

__all__ = ["Nesting", "Warning_", "functional_predicates", "nested", "warnings"]

NESTING = "located_in"  # the transitive predicate (ontology/taxonomy.ttl) along which places nest
_MAX_VISITS = 256  # places followed up from one place (a chain of located_in is a handful in practice)
_MAX_READS = 4096  # store reads of one Nesting (a store built to make the walks long stops here)


@dataclass(frozen=True)
class Warning_:
    """One conflict: the two assertions that disagree, their subject, predicate and objects (display
    names, in id order), and pyshacl's message (which names the IRIs)."""

    ids: tuple[str, str]
    subject: str
    predicate: str
    objects: tuple[str, str]
    message: str

    def text(self) -> str:
        return f"conflict: {self.subject} {self.predicate} {self.objects[0]} ({self.ids[0]}) but also {self.objects[1]} ({self.ids[1]})"

    def as_dict(self) -> dict:
        return {
            "ids": list(self.ids),
            "subject": self.subject,
            "predicate": self.predicate,
            "objects": list(self.objects),
            "severity": "sh:Warning",
            "message": self.message,
        }


def _rdflib(term):
    import rdflib

    if isinstance(term, ox.NamedNode):
        return rdflib.URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return rdflib.BNode(term.value)
    if term.language:
        return rdflib.Literal(term.value, lang=term.language)
    return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))


def warnings(store: AssertionStore) -> list[Warning_]:
    """The conflict warnings of shapes/warnings/conflicts.ttl, one per disagreeing pair, sorted."""
    import pyshacl
    import rdflib
    from rdflib.namespace import RDF, SH

    data = rdflib.Graph()
    for name in sorted(functional_predicates()):
        p = predicate_iri(name)
        data.add((rdflib.URIRef(p.value), RDF.type, rdflib.URIRef(OWL + "FunctionalProperty")))
        for row in store.run_query("functional-records", p=p):
            data.add((_rdflib(row["x"]), _rdflib(row["q"]), _rdflib(row["v"])))
    if len(data) <= len(functional_predicates()):
        return []
    shapes = rdflib.Graph().parse(data=read_text("shapes", "warnings/conflicts.ttl"), format="turtle")
    _, results, _ = pyshacl.validate(data, shacl_graph=shapes, allow_warnings=True)
    seen: dict[frozenset[str], Warning_ | None] = {}
    places = Nesting(store)
    for r in results.subjects(RDF.type, SH.ValidationResult):
        if results.value(r, SH.resultSeverity) != SH.Warning:
            continue
        pair = frozenset((id_of(str(results.value(r, SH.focusNode))), id_of(str(results.value(r, SH.value)))))
        if pair in seen:
            continue  # each pair is found from both ends
        first, second = (store.get(i) for i in sorted(pair))
        if first is None or second is None:
            continue
        if places.nested(first.object, second.object):
            seen[pair] = None
            continue
        seen[pair] = Warning_(
            (first.id, second.id),
            first.subject,
            first.predicate,
            (first.object, second.object),
            " ".join(str(results.value(r, SH.resultMessage)).split()),
        )
    return sorted((w for w in seen.values() if w is not None), key=lambda w: w.ids)


def nested(store: AssertionStore, a: str, b: str, as_of: datetime | None = None) -> bool:
    """Whether the store believes (at `as_of`) one of two places located in the other, following located_in
    from each: "Rochester" and "New York" when it holds Rochester located_in New York, or a chain to it.

    >>> from semantic_rdf.store.assertions import AssertionStore
    >>> s = AssertionStore.memory()
    >>> _ = s.assert_("Rochester", "located_in", "Monroe County")
    >>> _ = s.assert_("Monroe County", "located_in", "New York")
    >>> nested(s, "New York", "Rochester"), nested(s, "Rochester", "Albany")
    (True, False)
    """
    return Nesting(store, as_of).nested(a, b)


class Nesting:
    """The places the store believes each place located in (located_in, followed transitively), read once
    per place for one look at the store: `warnings`, or one answer's conflicts. A place's walk stops after
    `_MAX_VISITS` places, and all walks together after `_MAX_READS` reads of the store; a pair left unjudged
    by then counts as not nested, so its conflict is still reported."""

    def __init__(self, store: AssertionStore, as_of: datetime | None = None) -> None:
        self.store, self.as_of = store, as_of
        self._above: dict[str, frozenset[str]] = {}
        self._reads = 0

    def nested(self, a: str, b: str) -> bool:
        fa, fb = fold(a), fold(b)
        return fa != fb and (fb in self.above(a) or fa in self.above(b))

    def above(self, place: str) -> frozenset[str]:
        """The folded names of the places `place` is located in, directly or through others."""
        key = fold(place)
        got = self._above.get(key)
        if got is None:
            seen, todo = {key}, [place]
            while todo and len(seen) <= _MAX_VISITS and self._reads < _MAX_READS:
                self._reads += 1
                for r in self.store.match(s=todo.pop(), p=NESTING, as_of=self.as_of):
                    k = fold(r.object)
                    if not r.retracted and k not in seen:
                        seen.add(k)
                        todo.append(r.object)
            got = self._above[key] = frozenset(seen - {key})
        return got
