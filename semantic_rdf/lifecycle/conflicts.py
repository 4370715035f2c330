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

__all__ = ["Warning_", "functional_predicates", "nested", "warnings"]

NESTING = "located_in"  # the transitive predicate (ontology/taxonomy.ttl) along which places nest
_MAX_VISITS = 256  # places followed up from one end (a chain of located_in is a handful in practice)


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
    for r in results.subjects(RDF.type, SH.ValidationResult):
        if results.value(r, SH.resultSeverity) != SH.Warning:
            continue
        pair = frozenset((id_of(str(results.value(r, SH.focusNode))), id_of(str(results.value(r, SH.value)))))
        if pair in seen:
            continue  # each pair is found from both ends
        first, second = (store.get(i) for i in sorted(pair))
        if first is None or second is None:
            continue
        if nested(store, first.object, second.object):
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
    return fold(a) != fold(b) and (_within(store, a, fold(b), as_of) or _within(store, b, fold(a), as_of))


def _within(store: AssertionStore, place: str, goal: str, as_of: datetime | None) -> bool:
    seen = {fold(place)}
    todo = [place]
    while todo and len(seen) <= _MAX_VISITS:
        for r in store.match(s=todo.pop(), p=NESTING, as_of=as_of):
            key = fold(r.object)
            if r.retracted or key in seen:
                continue
            if key == goal:
                return True
            seen.add(key)
            todo.append(r.object)
    return False
