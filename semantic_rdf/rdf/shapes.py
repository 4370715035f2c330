"""SHACL validation: pyshacl as the authority, and a fast write-path checker compiled from the same shapes.

`compile_shapes()` turns shapes/*.ttl into one SPARQL SELECT that lists violations. It understands
exactly the SHACL Core features the shape files use; any other feature makes compilation fail, so
the fast checker can never silently ignore a constraint that pyshacl enforces. tests/test_shapes.py
checks that both give the same verdict on valid data and on every kind of violation.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

import pyoxigraph as ox

if TYPE_CHECKING:  # imported where the pool is made (checks of a large store)
    from concurrent.futures import ThreadPoolExecutor

from semantic_rdf.core.errors import ShapeViolation
from semantic_rdf.core.resources import files
from semantic_rdf.core.vocab import RDF, RDF_TYPE

__all__ = [
    "shapes_graph",
    "ShapeGraph",
    "packaged_shapes",
    "FastChecker",
    "fast_checker",
    "validate_full",
    "pyshacl_results",
    "Report",
    "required_datatypes",
    "sh",
]

SHACL = "http://www.w3.org/ns/shacl#"


def sh(name: str) -> ox.NamedNode:
    return ox.NamedNode(SHACL + name)


Term = ox.NamedNode | ox.BlankNode | ox.Literal


class ShapeGraph:
    """The shape files as pyoxigraph terms, indexed for the few reads the compilers make. The write path
    compiles its checker from this, so writing (an `ask` recording its decision) never imports rdflib;
    pyshacl, the authority, reads `shapes_graph()`, the same files through rdflib."""

    def __init__(self, triples: Iterable[ox.Triple | ox.Quad]):
        self._out: dict[Term, dict[ox.NamedNode, list[Term]]] = {}
        self._len = 0
        for t in triples:
            s, o = t.subject, t.object
            if isinstance(s, ox.Triple) or isinstance(o, ox.Triple):
                raise ValueError("RDF-star triples in shapes are not supported")
            self._out.setdefault(s, {}).setdefault(t.predicate, []).append(o)
            self._len += 1

    @classmethod
    def parse(cls, turtle: str) -> ShapeGraph:
        return cls(ox.parse(turtle, format=ox.RdfFormat.TURTLE))

    def __len__(self) -> int:
        return self._len

    def subjects(self, p: ox.NamedNode, o: Term) -> list[Term]:
        return [s for s, out in self._out.items() if o in out.get(p, ())]

    def having(self, p: ox.NamedNode) -> list[Term]:
        return [s for s, out in self._out.items() if p in out]

    def objects(self, s: Term, p: ox.NamedNode) -> list[Term]:
        return list(self._out.get(s, {}).get(p, ()))

    def predicates(self, s: Term) -> list[ox.NamedNode]:
        return list(self._out.get(s, {}))

    def value(self, s: Term, p: ox.NamedNode) -> Term | None:
        vs = self._out.get(s, {}).get(p)
        return vs[0] if vs else None

    def integer(self, s: Term, p: ox.NamedNode) -> int | None:
        v = self.value(s, p)
        return None if v is None else int(v.value)

    def members(self, head: Term) -> list[Term]:
        """The items of the RDF list starting at `head` (sh:in's value)."""
        out: list[Term] = []
        first, rest, nil = ox.NamedNode(RDF + "first"), ox.NamedNode(RDF + "rest"), ox.NamedNode(RDF + "nil")
        node: Term | None = head
        while node is not None and node != nil:
            item = self.value(node, first)
            if item is None or len(out) > len(self._out):
                raise ValueError("malformed RDF list in shapes")
            out.append(item)
            node = self.value(node, rest)
        return out

    def node_shapes(self) -> list[Term]:
        return sorted(self.subjects(RDF_TYPE, sh("NodeShape")), key=lambda n: n.value)


@lru_cache(maxsize=1)
def packaged_shapes() -> ShapeGraph:
    """shapes/*.ttl as a ShapeGraph, what both compiled checkers compile from (`shapes_graph()` is the same
    files as rdflib reads them, for pyshacl)."""
    return ShapeGraph(q for path in files("shapes", "*.ttl") for q in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE))


@lru_cache(maxsize=1)
def shapes_graph():
    """The shape files as an rdflib Graph: what pyshacl reads."""
    import rdflib

    g = rdflib.Graph()
    for path in files("shapes", "*.ttl"):
        g.parse(path, format="turtle")
    return g


@lru_cache(maxsize=1)
def required_datatypes() -> dict[str, str]:
    """Predicate IRI -> the datatype IRI every shape that constrains it with sh:datatype requires (predicates
    whose shapes disagree are left out). What `sync.pull` maps a server's re-typed literals back to."""
    g = packaged_shapes()
    seen: dict[str, set[str]] = {}
    for prop in g.having(sh("datatype")):
        path, dt = g.value(prop, sh("path")), g.value(prop, sh("datatype"))
        if isinstance(path, ox.NamedNode) and isinstance(dt, ox.NamedNode):
            seen.setdefault(path.value, set()).add(dt.value)
    return {p: next(iter(d)) for p, d in seen.items() if len(d) == 1}


def _t(node: Term | None) -> str:
    """SPARQL text of a term taken from the (trusted, packaged) shapes graph."""
    if isinstance(node, (ox.NamedNode, ox.Literal)):
        return str(node)
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


_SUPPORTED_PROPERTY = frozenset(
    map(
        sh,
        (
            "path",
            "minCount",
            "maxCount",
            "datatype",
            "class",
            "in",
            "nodeKind",
            "minInclusive",
            "maxInclusive",
            "lessThan",
            "lessThanOrEquals",
            "pattern",
            "qualifiedValueShape",
            "qualifiedMinCount",
            "message",
        ),
    )
)
_SUPPORTED_NODE = frozenset([RDF_TYPE, *map(sh, ("targetClass", "targetSubjectsOf", "property", "class"))])
NODE_KINDS: dict[Term, str] = {sh("IRI"): "isIRI", sh("Literal"): "isLiteral", sh("BlankNode"): "isBlank"}


def supported_or_raise(g: ShapeGraph, shape: Term) -> None:
    """Refuse a node shape that uses any SHACL feature the compiled checkers do not implement, so they
    can never silently ignore a constraint that pyshacl enforces."""
    extra = set(g.predicates(shape)) - _SUPPORTED_NODE
    if extra:
        raise ValueError(f"shape {shape.value} uses unsupported SHACL features: {sorted(p.value for p in extra)}")
    if len(g.objects(shape, sh("targetClass"))) + len(g.objects(shape, sh("targetSubjectsOf"))) != 1:
        raise ValueError(f"shape {shape.value} must have exactly one target")
    for prop in g.objects(shape, sh("property")):
        extra = set(g.predicates(prop)) - _SUPPORTED_PROPERTY
        if extra:
            raise ValueError(f"property shape of {shape.value} uses unsupported SHACL features: {sorted(p.value for p in extra)}")
        if not isinstance(g.value(prop, sh("path")), ox.NamedNode):
            raise ValueError(f"property shape of {shape.value}: only IRI paths are supported")
        if (g.integer(prop, sh("minCount")) or 0) > 1:
            raise ValueError("sh:minCount > 1 is not supported by the fast checker")
        if (g.integer(prop, sh("maxCount")) or 0) > 1:
            raise ValueError("sh:maxCount > 1 is not supported by the fast checker")
        v = g.value(prop, sh("nodeKind"))
        if v is not None and v not in NODE_KINDS:
            raise ValueError(f"sh:nodeKind {v.value} is not supported by the fast checker")
        q = g.value(prop, sh("qualifiedValueShape"))
        if q is not None:
            qn = g.integer(prop, sh("qualifiedMinCount"))
            if set(g.predicates(q)) != {sh("class")} or qn != 1:
                raise ValueError("only sh:qualifiedValueShape [ sh:class C ] with sh:qualifiedMinCount 1 is supported")


def _compile(g: ShapeGraph) -> list[_Check]:
    checks: list[_Check] = []
    for shape in g.node_shapes():
        supported_or_raise(g, shape)
        targets = []
        for c in g.objects(shape, sh("targetClass")):
            targets.append((f"?this <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> {_t(c)} .", f"class {c.value}"))
        for p in g.objects(shape, sh("targetSubjectsOf")):
            targets.append((f"?this {_t(p)} ?_t .", f"subjectsOf {p.value}"))
        target, target_key = targets[0]
        name = shape.value.rsplit("#", 1)[-1]
        for c in g.objects(shape, sh("class")):
            checks.append(_Check(name, "", f"focus node is not a {c.value}", _not_instance(target, "?this", _t(c)), target_key))
        for prop in g.objects(shape, sh("property")):
            path = g.value(prop, sh("path"))
            assert path is not None  # supported_or_raise: an IRI
            P = _t(path)
            msg = g.value(prop, sh("message"))
            label = msg.value if msg is not None else None
            pname = path.value

            def add(what: str, body: str) -> None:
                checks.append(_Check(name, pname, label or what, body, target_key))

            if (g.integer(prop, sh("minCount")) or 0) > 0:
                add("fewer than 1 values", f"{target} FILTER NOT EXISTS {{ ?this {P} ?_v }}")
            n = g.integer(prop, sh("maxCount"))
            if n == 0:
                add("must have no value", f"{target} ?this {P} ?v .")
            elif n is not None:
                add("more than one value", f"{target} ?this {P} ?v . ?this {P} ?_w . FILTER(!sameTerm(?v, ?_w))")
            v = g.value(prop, sh("datatype"))
            if v is not None:
                add(f"value is not a {v.value}", f"{target} ?this {P} ?v . FILTER(!isLiteral(?v) || datatype(?v) != {_t(v)})")
            v = g.value(prop, sh("class"))
            if v is not None:
                add(f"value is not a {v.value}", _not_instance(f"{{ {target} ?this {P} ?v . }}", "?v", _t(v)))
            v = g.value(prop, sh("in"))
            if v is not None:
                members = ", ".join(_t(x) for x in g.members(v))
                add("value is not in the allowed list", f"{target} ?this {P} ?v . FILTER(?v NOT IN ({members}))")
            v = g.value(prop, sh("nodeKind"))
            if v is not None:
                add(f"value is not of node kind {v.value}", f"{target} ?this {P} ?v . FILTER(!{NODE_KINDS[v]}(?v))")
            for key, op in (("minInclusive", ">="), ("maxInclusive", "<=")):
                v = g.value(prop, sh(key))
                if v is not None:
                    add(f"value is not {op} {v.value}", f"{target} ?this {P} ?v . FILTER(!COALESCE(?v {op} {_t(v)}, false))")
            for key, op in (("lessThan", "<"), ("lessThanOrEquals", "<=")):
                v = g.value(prop, sh(key))
                if v is not None:
                    add(
                        f"value is not {op} the value of {v.value}",
                        f"{target} ?this {P} ?v . ?this {_t(v)} ?_w . FILTER(!COALESCE(?v {op} ?_w, false))",
                    )
            v = g.value(prop, sh("pattern"))
            if v is not None:
                add(f"value does not match {v.value}", f"{target} ?this {P} ?v . FILTER(isBlank(?v) || !REGEX(STR(?v), {_t(ox.Literal(v.value))}))")
            q = g.value(prop, sh("qualifiedValueShape"))
            if q is not None:
                qc = g.value(q, sh("class"))
                add(f"no value is a {qc.value if qc else qc}", _not_instance(f"{{ {target} }}", "?_q", _t(qc), via=f"?this {P} ?_q ."))
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
            qs = [(i, f"SELECT DISTINCT ?this ?v WHERE {{ {c.body} }}") for i, c in enumerate(self.checks) if c.target in targets]
            self._queries[targets] = qs
        return qs

    def check_store(self, store: ox.Store, *, limit: int = 20, targets: frozenset[str] | None = None, default_graph: list | None = None) -> Report:
        if targets is None:
            targets = frozenset(c.target for c in self.checks)
        queries = self.queries_for(targets)

        def run(item: tuple[int, str]) -> list[str]:
            i, query = item
            c = self.checks[i]
            found = []
            for row in _solutions(store.query(query, default_graph=default_graph)):
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
        given = triples if isinstance(triples, list) else list(triples)
        quads: list[ox.Quad] = [t if isinstance(t, ox.Quad) else ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in given]
        s.extend(quads)
        s.extend(ox.Quad(t.subject, CONTEXT_TYPE, t.object, ox.DefaultGraph()) for t in context)
        graphs = [ox.DefaultGraph(), *s.named_graphs()]
        # which shapes can have focus nodes here: ask the (Rust) store rather than scan in Python
        targets = {f"class {r['c'].value}" for r in _solutions(s.query("SELECT DISTINCT ?c WHERE { ?s a ?c }", default_graph=graphs))}
        targets |= {f"subjectsOf {r['p'].value}" for r in _solutions(s.query("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", default_graph=graphs))}
        return self.check_store(s, targets=frozenset(targets), default_graph=graphs)

    def enforce(self, triples: Iterable[ox.Triple | ox.Quad], context: Iterable[ox.Triple | ox.Quad] = ()) -> None:
        r = self.check(triples, context)
        if not r.conforms:
            raise ShapeViolation(f"write refused by shapes: {r.violations[0]}", r.violations)


def _solutions(result: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples) -> ox.QuerySolutions:
    """The rows of a SELECT (the compiled checks are all SELECTs)."""
    if not isinstance(result, ox.QuerySolutions):
        raise TypeError(f"a SELECT gave {type(result).__name__}")
    return result


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)), thread_name_prefix="shape-check")


@lru_cache(maxsize=1)
def fast_checker() -> FastChecker:
    return FastChecker(_compile(packaged_shapes()))


def validate_full(triples: Iterable[ox.Triple | ox.Quad]) -> Report:
    """Full pyshacl validation of the given triples (graph names ignored: they are validated as one graph)."""
    conforms, found, text = pyshacl_results(triples)
    return Report(conforms, sorted(v for _, v in found), text)


def pyshacl_results(triples: Iterable[ox.Triple | ox.Quad]) -> tuple[bool, list[tuple[str, str]], str]:
    """pyshacl over the given triples as one graph: whether they conform, each violation as (its focus node's
    N-Triples text, the violation as `validate_full` words it), and pyshacl's text report."""
    import pyshacl
    import rdflib
    from rdflib.namespace import RDF, SH

    g = rdflib.Graph()
    for t in triples:
        g.add((_to_rdflib(t.subject), _to_rdflib(t.predicate), _to_rdflib(t.object)))
    conforms, results_graph, text = pyshacl.validate(g, shacl_graph=shapes_graph(), inference="none", advanced=False, allow_warnings=False)
    found = []
    for r in results_graph.subjects(RDF.type, SH.ValidationResult):
        focus = results_graph.value(r, SH.focusNode)
        path = results_graph.value(r, SH.resultPath)
        msg = results_graph.value(r, SH.resultMessage)
        found.append((focus.n3(), f"{focus} {path or ''}: {msg}"))
    return bool(conforms), found, text


def _to_rdflib(term):
    import rdflib

    if isinstance(term, ox.NamedNode):
        return rdflib.URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return rdflib.BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return rdflib.Literal(term.value, lang=term.language)
        return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))
    raise TypeError(term)
