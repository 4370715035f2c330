"""SHACL validation: pyshacl as the authority, and a fast write-path checker compiled from the same shapes.

`compile_shapes()` turns shapes/*.ttl into one SPARQL SELECT that lists violations. It understands
exactly the SHACL Core features the shape files use; any other feature makes compilation fail, so
the fast checker can never silently ignore a constraint that pyshacl enforces. tests/test_shapes.py
checks that both give the same verdict on valid data and on every kind of violation.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

import pyoxigraph as ox
import rdflib
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH

from semantic_rdf.errors import ShapeViolation
from semantic_rdf.resources import files

__all__ = ["shapes_graph", "FastChecker", "fast_checker", "validate_full", "pyshacl_results", "Report",
           "required_datatypes"]

_SUPPORTED_PROPERTY = {
    SH.path, SH.minCount, SH.maxCount, SH.datatype, SH["class"], SH["in"], SH.nodeKind, SH.minInclusive,
    SH.maxInclusive, SH.lessThan, SH.lessThanOrEquals, SH.pattern, SH.qualifiedValueShape,
    SH.qualifiedMinCount, SH.message,
}
_SUPPORTED_NODE = {RDF.type, SH.targetClass, SH.targetSubjectsOf, SH.property, SH["class"]}


@lru_cache(maxsize=1)
def shapes_graph() -> rdflib.Graph:
    g = rdflib.Graph()
    for path in files("shapes", "*.ttl"):
        g.parse(path, format="turtle")
    return g


@lru_cache(maxsize=1)
def required_datatypes() -> dict[str, str]:
    """Predicate IRI -> the datatype IRI every shape that constrains it with sh:datatype requires (predicates
    whose shapes disagree are left out). What `sync.pull` maps a server's re-typed literals back to."""
    g = shapes_graph()
    seen: dict[str, set[str]] = {}
    for prop in g.subjects(SH.datatype, None):
        path, dt = g.value(prop, SH.path), g.value(prop, SH.datatype)
        if isinstance(path, rdflib.URIRef) and isinstance(dt, rdflib.URIRef):
            seen.setdefault(str(path), set()).add(str(dt))
    return {p: next(iter(d)) for p, d in seen.items() if len(d) == 1}


def _t(node: rdflib.term.Node) -> str:
    """SPARQL text of a term taken from the (trusted, packaged) shapes graph."""
    if isinstance(node, rdflib.URIRef):
        return str(ox.NamedNode(str(node)))
    if isinstance(node, rdflib.Literal):
        if node.datatype is not None:
            return str(ox.Literal(str(node), datatype=ox.NamedNode(str(node.datatype))))
        return str(ox.Literal(str(node), language=node.language) if node.language else ox.Literal(str(node)))
    raise ValueError(f"unsupported term in shapes: {node!r}")


# Type triples of nodes outside the delta enter the check store under CONTEXT_TYPE, so they satisfy
# sh:class without making those nodes focus nodes of sh:targetClass.
CONTEXT_TYPE = ox.NamedNode("urn:semantic-rdf:check:context-type")
_TYPE = "(<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>|<urn:semantic-rdf:check:context-type>)"
_SUBCLASS = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>+"


def _instance(node: str, cls: str) -> str:
    """A group matching every instance `node` of `cls` (directly, or through rdfs:subClassOf)."""
    return f"{{ {node} {_TYPE} {cls} }} UNION {{ {node} {_TYPE} ?_cls . ?_cls {_SUBCLASS} {cls} }}"


def _not_instance(left: str, node: str, cls: str, via: str = "") -> str:
    """Rows of `left` whose `node` is not an instance of `cls`, as a MINUS: both sides are evaluated
    once and anti-joined. (A FILTER NOT EXISTS here made Oxigraph re-evaluate the class test per row,
    or start from every typed node, which was quadratic in the batch size.)"""
    return f"{left} MINUS {{ {via} {_instance(node, cls)} }}"


_INSTANCE = _TYPE


@dataclass(frozen=True)
class _Check:
    shape: str
    path: str
    what: str
    body: str  # a group pattern binding ?this (and maybe ?v)
    target: str = ""  # "class <iri>" or "subjectsOf <iri>": which delta triples make this check relevant


def supported_or_raise(g: rdflib.Graph, shape: rdflib.term.Node) -> None:
    """Refuse a node shape that uses any SHACL feature the compiled checkers do not implement, so they
    can never silently ignore a constraint that pyshacl enforces."""
    extra = set(g.predicates(shape)) - _SUPPORTED_NODE
    if extra:
        raise ValueError(f"shape {shape} uses unsupported SHACL features: {sorted(map(str, extra))}")
    if len(list(g.objects(shape, SH.targetClass))) + len(list(g.objects(shape, SH.targetSubjectsOf))) != 1:
        raise ValueError(f"shape {shape} must have exactly one target")
    for prop in g.objects(shape, SH.property):
        extra = set(g.predicates(prop)) - _SUPPORTED_PROPERTY
        if extra:
            raise ValueError(f"property shape of {shape} uses unsupported SHACL features: {sorted(map(str, extra))}")
        if not isinstance(g.value(prop, SH.path), rdflib.URIRef):
            raise ValueError(f"property shape of {shape}: only IRI paths are supported")
        v = g.value(prop, SH.minCount)
        if v is not None and int(v) > 1:
            raise ValueError("sh:minCount > 1 is not supported by the fast checker")
        v = g.value(prop, SH.maxCount)
        if v is not None and int(v) > 1:
            raise ValueError("sh:maxCount > 1 is not supported by the fast checker")
        v = g.value(prop, SH.nodeKind)
        if v is not None and v not in (SH.IRI, SH.Literal, SH.BlankNode):
            raise ValueError(f"sh:nodeKind {v} is not supported by the fast checker")
        q = g.value(prop, SH.qualifiedValueShape)
        if q is not None:
            qn = g.value(prop, SH.qualifiedMinCount)
            if set(g.predicates(q)) != {SH["class"]} or qn is None or int(qn) != 1:
                raise ValueError("only sh:qualifiedValueShape [ sh:class C ] with sh:qualifiedMinCount 1 is supported")


def _compile(g: rdflib.Graph) -> list[_Check]:
    checks: list[_Check] = []
    for shape in sorted(set(g.subjects(RDF.type, SH.NodeShape)), key=str):
        supported_or_raise(g, shape)
        targets = []
        for c in g.objects(shape, SH.targetClass):
            targets.append((f"?this <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> {_t(c)} .", f"class {c}"))
        for p in g.objects(shape, SH.targetSubjectsOf):
            targets.append((f"?this {_t(p)} ?_t .", f"subjectsOf {p}"))
        target, target_key = targets[0]
        name = str(shape).rsplit("#", 1)[-1]
        for c in g.objects(shape, SH["class"]):
            checks.append(_Check(name, "", f"focus node is not a {c}",
                                 _not_instance(target, "?this", _t(c)), target_key))
        for prop in g.objects(shape, SH.property):
            path = g.value(prop, SH.path)
            P = _t(path)
            msg = g.value(prop, SH.message)
            label = str(msg) if msg is not None else None
            pname = str(path)

            def add(what: str, body: str) -> None:
                checks.append(_Check(name, pname, label or what, body, target_key))

            v = g.value(prop, SH.minCount)
            if v is not None and int(v) > 0:
                add("fewer than 1 values", f"{target} FILTER NOT EXISTS {{ ?this {P} ?_v }}")
            v = g.value(prop, SH.maxCount)
            if v is not None:
                n = int(v)
                if n == 0:
                    add("must have no value", f"{target} ?this {P} ?v .")
                else:
                    add("more than one value", f"{target} ?this {P} ?v . ?this {P} ?_w . FILTER(!sameTerm(?v, ?_w))")
            v = g.value(prop, SH.datatype)
            if v is not None:
                add(f"value is not a {v}", f"{target} ?this {P} ?v . FILTER(!isLiteral(?v) || datatype(?v) != {_t(v)})")
            v = g.value(prop, SH["class"])
            if v is not None:
                add(f"value is not a {v}", _not_instance(f"{{ {target} ?this {P} ?v . }}", "?v", _t(v)))
            v = g.value(prop, SH["in"])
            if v is not None:
                members = ", ".join(_t(x) for x in Collection(g, v))
                add("value is not in the allowed list", f"{target} ?this {P} ?v . FILTER(?v NOT IN ({members}))")
            v = g.value(prop, SH.nodeKind)
            if v is not None:
                test = {SH.IRI: "isIRI(?v)", SH.Literal: "isLiteral(?v)", SH.BlankNode: "isBlank(?v)"}[v]
                add(f"value is not of node kind {v}", f"{target} ?this {P} ?v . FILTER(!{test})")
            for key, op in ((SH.minInclusive, ">="), (SH.maxInclusive, "<=")):
                v = g.value(prop, key)
                if v is not None:
                    add(f"value is not {op} {v}", f"{target} ?this {P} ?v . FILTER(!COALESCE(?v {op} {_t(v)}, false))")
            for key, op in ((SH.lessThan, "<"), (SH.lessThanOrEquals, "<=")):
                v = g.value(prop, key)
                if v is not None:
                    add(f"value is not {op} the value of {v}",
                        f"{target} ?this {P} ?v . ?this {_t(v)} ?_w . FILTER(!COALESCE(?v {op} ?_w, false))")
            v = g.value(prop, SH.pattern)
            if v is not None:
                add(f"value does not match {v}",
                    f"{target} ?this {P} ?v . FILTER(isBlank(?v) || !REGEX(STR(?v), {_t(rdflib.Literal(str(v)))}))")
            q = g.value(prop, SH.qualifiedValueShape)
            if q is not None:
                qc = g.value(q, SH["class"])
                add(f"no value is a {qc}", _not_instance(f"{{ {target} }}", "?_q", _t(qc), via=f"?this {P} ?_q ."))
    return checks


@dataclass(frozen=True)
class Report:
    conforms: bool
    violations: list[str]
    text: str = ""


class FastChecker:
    """Checks a store, or a set of triples plus context, against the shapes compiled to SPARQL.

    Only the checks whose target occurs in the data run. Whole stores are checked this way (the
    crash harness, `validate`'s quick path); write batches go through shapecheck.py, which needs no store.
    """

    def __init__(self, checks: list[_Check]):
        self.checks = checks
        self.class_paths = frozenset(c.path for c in checks if c.path and _INSTANCE in c.body)
        self._queries: dict[frozenset[str], list[tuple[int, str]]] = {}

    def queries_for(self, targets: frozenset[str]) -> list[tuple[int, str]]:
        """One SELECT per relevant check. (A single UNION of them all ran superlinearly in Oxigraph.)"""
        qs = self._queries.get(targets)
        if qs is None:
            qs = [(i, f"SELECT DISTINCT ?this ?v WHERE {{ {c.body} }}")
                  for i, c in enumerate(self.checks) if c.target in targets]
            self._queries[targets] = qs
        return qs

    def check_store(self, store: ox.Store, *, limit: int = 20, targets: frozenset[str] | None = None,
                    default_graph: list | None = None) -> Report:
        if targets is None:
            targets = frozenset(c.target for c in self.checks)
        queries = self.queries_for(targets)

        def run(item: tuple[int, str]) -> list[str]:
            i, query = item
            c = self.checks[i]
            found = []
            for row in store.query(query, default_graph=default_graph):
                v = row["v"]
                vs = f" ({v})" if v is not None else ""
                found.append(f"{c.shape}: {row['this']} {c.path}: {c.what}{vs}".replace(": :", ":"))
                if len(found) >= limit:
                    break
            return found

        # Oxigraph evaluates queries without the GIL: the checks of a big batch run on every core.
        results = _pool().map(run, queries) if len(store) > 20_000 else map(run, queries)
        out = [v for found in results for v in found][:limit]
        return Report(not out, out)

    def check(self, triples: Iterable[ox.Triple | ox.Quad], context: Iterable[ox.Triple | ox.Quad] = ()) -> Report:
        """Violations among `triples`; `context` holds type triples of nodes they point at."""
        s = ox.Store()
        # quads keep their graphs (no re-wrapping in Python); the queries read all of them as one default graph
        triples = triples if isinstance(triples, list) else list(triples)
        if triples and not isinstance(triples[0], ox.Quad):
            triples = [ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in triples]
        s.extend(triples)
        s.extend(ox.Quad(t.subject, CONTEXT_TYPE, t.object, ox.DefaultGraph()) for t in context)
        graphs = [ox.DefaultGraph(), *s.named_graphs()]
        # which shapes can have focus nodes here: ask the (Rust) store rather than scan in Python
        targets = {f"class {r['c'].value}" for r in s.query("SELECT DISTINCT ?c WHERE { ?s a ?c }", default_graph=graphs)}
        targets |= {f"subjectsOf {r['p'].value}"
                    for r in s.query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", default_graph=graphs)}
        return self.check_store(s, targets=frozenset(targets), default_graph=graphs)

    def enforce(self, triples: Iterable[ox.Triple | ox.Quad], context: Iterable[ox.Triple | ox.Quad] = ()) -> None:
        r = self.check(triples, context)
        if not r.conforms:
            raise ShapeViolation(f"write refused by shapes: {r.violations[0]}", r.violations)


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)), thread_name_prefix="shape-check")


@lru_cache(maxsize=1)
def fast_checker() -> FastChecker:
    return FastChecker(_compile(shapes_graph()))


def validate_full(triples: Iterable[ox.Triple | ox.Quad]) -> Report:
    """Full pyshacl validation of the given triples (graph names ignored: they are validated as one graph)."""
    conforms, found, text = pyshacl_results(triples)
    return Report(conforms, sorted(v for _, v in found), text)


def pyshacl_results(triples: Iterable[ox.Triple | ox.Quad]) -> tuple[bool, list[tuple[str, str]], str]:
    """pyshacl over the given triples as one graph: whether they conform, each violation as (its focus node's
    N-Triples text, the violation as `validate_full` words it), and pyshacl's text report."""
    import pyshacl

    g = rdflib.Graph()
    for t in triples:
        g.add((_to_rdflib(t.subject), _to_rdflib(t.predicate), _to_rdflib(t.object)))
    conforms, results_graph, text = pyshacl.validate(g, shacl_graph=shapes_graph(), inference="none",
                                                     advanced=False, allow_warnings=False)
    found = []
    for r in results_graph.subjects(RDF.type, SH.ValidationResult):
        focus = results_graph.value(r, SH.focusNode)
        path = results_graph.value(r, SH.resultPath)
        msg = results_graph.value(r, SH.resultMessage)
        found.append((focus.n3(), f"{focus} {path or ''}: {msg}"))
    return bool(conforms), found, text


def _to_rdflib(term):
    if isinstance(term, ox.NamedNode):
        return rdflib.URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return rdflib.BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return rdflib.Literal(term.value, lang=term.language)
        return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))
    raise TypeError(term)
