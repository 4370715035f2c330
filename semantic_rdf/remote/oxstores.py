"""Graph and Triple (HIP-0526 §4) over RDF: over any SPARQL backend, and over the assertion store.

SparqlTriples / SparqlGraph work on a `sparql.Backend` (the embedded pyoxigraph store, an Oxigraph
server, Virtuoso) inside one named graph. Strings map to IRIs: a string that is an absolute IRI is
used as that IRI; any other string becomes <https://w3id.org/semantic-rdf/node/{percent-encoded}>
and maps back to itself, so every string round-trips. Edge labels live under …/rel/, node
properties under …/prop/ as typed literals.

AssertionTriples / AssertionGraph adapt the assertion store (semantic_rdf.store.assertions): a triple there is
an assertion, with its record, provenance and the 53-predicate vocabulary enforced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit, urlunsplit

import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.remote.sparql import NS_PREFIX, Backend, iri, to_term

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = ["SparqlTriples", "SparqlGraph", "AssertionTriples", "AssertionGraph", "split_graph_param", "DEFAULT_GRAPH", "NODE", "REL", "PROP"]

NODE = NS_PREFIX + "node/"
REL = NS_PREFIX + "rel/"
PROP = NS_PREFIX + "prop/"
DEFAULT_GRAPH = NS_PREFIX + "graph/store"
_RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
_NODE_CLASS = ox.NamedNode(NS_PREFIX + "ns#Node")


def split_graph_param(dsn: str) -> tuple[str, str]:
    """`…?graph=IRI&…` -> (the DSN without it, the graph IRI); no graph -> DEFAULT_GRAPH."""
    parts = urlsplit(dsn)
    params = parse_qs(parts.query, keep_blank_values=True)
    graph = params.pop("graph", [DEFAULT_GRAPH])[-1]
    iri(graph)
    rest = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(params, doseq=True), ""))
    return rest, graph


def _check(s: Any, what: str) -> str:
    if not isinstance(s, str) or not s:
        raise InvalidInput(f"{what} must be a non-empty string, got {s!r}")
    return s


def node_iri(s: str, base: str = NODE) -> ox.NamedNode:
    _check(s, "a term")
    if ":" in s:
        try:
            return ox.NamedNode(s)
        except ValueError:
            pass
    return ox.NamedNode(base + quote(s, safe=""))


def node_str(t: ox.NamedNode | ox.Literal | ox.BlankNode, base: str = NODE) -> str:
    v = t.value
    if isinstance(t, ox.NamedNode) and v.startswith(base):
        return unquote(v[len(base) :])
    return v


class SparqlTriples:
    """Triple over a SPARQL backend, in one named graph."""

    def __init__(self, backend: Backend, graph: str = DEFAULT_GRAPH):
        self.backend = backend
        self.graph = iri(graph)

    def assert_(self, s: str, p: str, o: str) -> None:
        self.backend.insert([ox.Quad(node_iri(s), node_iri(p), node_iri(o), self.graph)])

    def match(self, s: str | None = None, p: str | None = None, o: str | None = None) -> list[tuple[str, str, str]]:
        bound = {k: node_iri(v) for k, v in (("s", s), ("p", p), ("o", o)) if v is not None}
        rows = self.backend.select("SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }", g=self.graph, **bound)
        return sorted({(node_str(r["s"]), node_str(r["p"]), node_str(r["o"])) for r in rows})


class SparqlGraph:
    """Graph over a SPARQL backend, in one named graph. `out` is sorted (RDF keeps no insertion order)."""

    def __init__(self, backend: Backend, graph: str = DEFAULT_GRAPH):
        self.backend = backend
        self.graph = iri(graph)

    def node(self, id: str, props: Mapping[str, Any] | None = None) -> None:
        n = node_iri(id)
        quads = [ox.Quad(n, _RDF_TYPE, _NODE_CLASS, self.graph)]
        keys = []
        for k, v in (props or {}).items():
            if isinstance(v, (list, dict, tuple)) or v is None:
                raise InvalidInput(f"node property {k!r}: only strings, numbers, bools and instants are stored")
            key = ox.NamedNode(PROP + quote(_check(k, "a property name"), safe=""))
            keys.append(key)
            quads.append(ox.Quad(n, key, to_term(v), self.graph))
        for key in keys:  # a property set again replaces its old value (DELETE/INSERT, not DELETE WHERE + FILTER)
            self.backend.update("DELETE { GRAPH ?g { ?n ?k ?old } } WHERE { GRAPH ?g { ?n ?k ?old } }", g=self.graph, n=n, k=key)
        self.backend.insert(quads)

    def edge(self, from_: str, to: str, label: str) -> None:
        a, b = node_iri(from_), node_iri(to)
        rel = ox.NamedNode(REL + quote(_check(label, "an edge label"), safe=""))
        self.backend.insert(
            [ox.Quad(a, _RDF_TYPE, _NODE_CLASS, self.graph), ox.Quad(b, _RDF_TYPE, _NODE_CLASS, self.graph), ox.Quad(a, rel, b, self.graph)]
        )

    def out(self, id: str, label: str | None = None) -> list[str]:
        b: dict[str, Any] = {"g": self.graph, "n": node_iri(id), "prefix": ox.Literal(REL)}
        if label is not None:
            b["r"] = ox.NamedNode(REL + quote(_check(label, "an edge label"), safe=""))
        rows = self.backend.select("SELECT DISTINCT ?o WHERE { GRAPH ?g { ?n ?r ?o } FILTER(STRSTARTS(STR(?r), ?prefix)) }", **b)
        return sorted({node_str(r["o"]) for r in rows})

    def props(self, id: str) -> dict[str, Any]:
        rows = self.backend.select(
            "SELECT ?k ?v WHERE { GRAPH ?g { ?n ?k ?v } FILTER(STRSTARTS(STR(?k), ?prefix)) }", g=self.graph, n=node_iri(id), prefix=ox.Literal(PROP)
        )
        return {node_str(r["k"], PROP): _py(r["v"]) for r in rows}


def _py(t: ox.NamedNode | ox.Literal | ox.BlankNode) -> Any:
    if not isinstance(t, ox.Literal):  # this store writes literals only; another writer's node is its text
        return t.value
    dt = t.datatype.value.rsplit("#", 1)[-1]
    if dt == "integer":
        return int(t.value)
    if dt in ("double", "float", "decimal"):
        return float(t.value)
    if dt == "boolean":
        return t.value in ("true", "1")
    return t.value


class AssertionTriples:
    """Triple over the assertion store: assert_ records a caller-supplied assertion (one of the 53
    predicates), match reads believed assertions back by display name."""

    def __init__(self, store: AssertionStore, agent: str = "caller"):
        self.store = store
        self.agent = agent

    def assert_(self, s: str, p: str, o: str) -> None:
        self.store.assert_(_check(s, "subject"), _check(p, "predicate"), _check(o, "object"), agent=self.agent)

    def match(self, s: str | None = None, p: str | None = None, o: str | None = None) -> list[tuple[str, str, str]]:
        return sorted({(r.subject, r.predicate, r.object) for r in self.store.match(s, p, o)})

    def close(self) -> None:
        self.store.close()


class AssertionGraph:
    """Graph over the assertion store: an edge is an assertion (label = predicate), a property is an
    assertion with the property name as predicate and the value's text as object."""

    def __init__(self, store: AssertionStore, agent: str = "caller"):
        self.store = store
        self.agent = agent

    def node(self, id: str, props: Mapping[str, Any] | None = None) -> None:
        _check(id, "node id")
        for k, v in (props or {}).items():
            if isinstance(v, (list, dict, tuple)) or v is None:
                raise InvalidInput(f"node property {k!r}: only scalar values are stored")
            self.store.assert_(id, _check(k, "a property name"), str(v), agent=self.agent)

    def edge(self, from_: str, to: str, label: str) -> None:
        self.store.assert_(_check(from_, "edge source"), _check(label, "edge label"), _check(to, "edge target"), agent=self.agent)

    def out(self, id: str, label: str | None = None) -> list[str]:
        return sorted({r.object for r in self.store.match(_check(id, "node id"), label, None)})

    def close(self) -> None:
        self.store.close()
