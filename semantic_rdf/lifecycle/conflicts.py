"""Conflicts: believed assertions that give one subject different objects for a predicate that holds of one
object at a time in the world (`owl:FunctionalProperty` in ontology/taxonomy.ttl: born_in, died_in,
place_of_birth, place_of_death, capital_of), at overlapping valid times.

They are not errors in the store — each assertion is faithfully what a source said — so `validate` reports
them as SHACL warnings (severity sh:Warning: the store still conforms) from shapes/warnings/conflicts.ttl,
run by pyshacl over the records of the functional predicates only; and the answer path names both sides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

import pyoxigraph as ox

from semantic_rdf.core.resources import read_text
from semantic_rdf.core.vocab import OWL, functional_predicates, id_of, predicate_iri

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = ["Warning_", "functional_predicates", "warnings"]


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
    seen: dict[frozenset[str], Warning_] = {}
    for r in results.subjects(RDF.type, SH.ValidationResult):
        if results.value(r, SH.resultSeverity) != SH.Warning:
            continue
        pair = frozenset((id_of(str(results.value(r, SH.focusNode))), id_of(str(results.value(r, SH.value)))))
        if pair in seen:
            continue  # each pair is found from both ends
        first, second = (store.get(i) for i in sorted(pair))
        if first is None or second is None:
            continue
        seen[pair] = Warning_(
            (first.id, second.id),
            first.subject,
            first.predicate,
            (first.object, second.object),
            " ".join(str(results.value(r, SH.resultMessage)).split()),
        )
    return sorted(seen.values(), key=lambda w: w.ids)
