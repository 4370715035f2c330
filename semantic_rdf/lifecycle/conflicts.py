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
from functools import lru_cache

import pyoxigraph as ox

from semantic_rdf.core.resources import files, read_text
from semantic_rdf.core.vocab import id_of, predicate_iri, predicate_name

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = ["Warning_", "functional_predicates", "warnings"]

_OWL_FUNCTIONAL = "http://www.w3.org/2002/07/owl#FunctionalProperty"
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


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


@lru_cache(maxsize=1)
def functional_predicates() -> frozenset[str]:
    """The names of the taxonomy predicates the ontology declares owl:FunctionalProperty."""
    out = set()
    for path in files("ontology", "*.ttl"):
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            if t.predicate.value == _RDF_TYPE and t.object.value == _OWL_FUNCTIONAL:
                out.add(predicate_name(t.subject))  # type: ignore[arg-type]
    return frozenset(out)


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
        data.add((rdflib.URIRef(p.value), RDF.type, rdflib.URIRef(_OWL_FUNCTIONAL)))
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
