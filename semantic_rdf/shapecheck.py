"""The write path's shape check: shapes/*.ttl compiled into Python, run over a batch of text quads.

Every write batch is checked before it commits. pyshacl stays the authority (`validate`), and the
SPARQL-compiled checker in shapes.py checks whole stores; this one checks a batch in one pass over
its quads, with no store and no query. It understands the same SHACL Core subset as shapes.py and
refuses to compile anything else, and tests/test_shapes.py holds all three to the same verdicts.

A batch is checked together with `types_of`: the stored types of nodes it points at but does not
describe. Those satisfy sh:class without making the nodes focus nodes of sh:targetClass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

import rdflib
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH

from semantic_rdf import ntriples as N
from semantic_rdf.errors import ShapeViolation
from semantic_rdf.shapes import Report, shapes_graph, supported_or_raise

__all__ = ["ShapeCheck", "shape_check"]

_TYPE = f"<{RDF.type}>"
_SUBCLASS = f"<{RDFS.subClassOf}>"
_NONE: tuple[str, ...] = ()


def _text(node: rdflib.term.Node) -> str:
    if isinstance(node, rdflib.URIRef):
        return N.iri(str(node))
    if isinstance(node, rdflib.Literal):
        return N.literal(str(node), str(node.datatype) if node.datatype else None, node.language)
    raise ValueError(f"unsupported term in shapes: {node!r}")


@lru_cache(maxsize=1 << 16)
def _value(t: str):
    return N.value(t)


# A value test takes one value term (and the node's types lookup) and says whether it is fine.
ValueTest = Callable[[str], bool]
# Value tests are pure and a batch repeats most values (its timestamp, confidences, small integers): the
# costly ones (regular expressions, decimal comparison) remember recent verdicts.
_memo = lru_cache(maxsize=1 << 12)


@dataclass
class _Property:
    path: str
    label: str
    min1: bool = False
    max_count: int | None = None
    tests: list[tuple[str, ValueTest]] = field(default_factory=list)
    classes: list[str] = field(default_factory=list)          # sh:class: every value is an instance
    qualified: list[tuple[str, str]] = field(default_factory=list)  # (class, message): some value is an instance
    compare: list[tuple[str, str, bool]] = field(default_factory=list)  # (other path, text, strict)


@dataclass
class _Shape:
    name: str
    target_class: str | None
    target_subjects_of: str | None
    node_classes: list[str]
    props: list[_Property]


def _compare(strict: bool) -> Callable[[str, str], bool]:
    def ok(v: str, w: str) -> bool:
        a, b = _value(v), _value(w)
        if a is None or b is None or a[0] != b[0]:
            return False
        return a[1] < b[1] if strict else a[1] <= b[1]
    return ok


def _bound(constant: str, op: str) -> ValueTest:
    c = _value(constant)
    if c is None:
        raise ValueError(f"bound {constant} is not comparable")

    def ok(v: str) -> bool:
        a = _value(v)
        if a is None or a[0] != c[0]:
            return False
        return a[1] >= c[1] if op == ">=" else a[1] <= c[1]
    return ok


# Lexical forms of the datatypes the shapes name: an ill-typed literal ("abc"^^xsd:integer) fails
# sh:datatype under pyshacl, so it fails here too.
_LEXICAL = {
    N.XSD + "integer": re.compile(r"[+-]?[0-9]+"),
    N.XSD + "decimal": re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"),
    N.XSD + "boolean": re.compile(r"true|false|1|0"),
    N.XSD + "dateTime": re.compile(r"-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
                                   r"(?:Z|[+-][0-9]{2}:[0-9]{2})?"),
}


def _datatype(dt: str) -> ValueTest:
    if dt == N.XSD + "string":
        return lambda v: v[0] == '"' and v[-1] == '"'
    suffix = f"^^<{dt}>"
    form = _LEXICAL.get(dt)
    if form is None:
        return lambda v: v[0] == '"' and v.endswith(suffix)
    cut = -len(suffix) - 1
    return lambda v: v[0] == '"' and v.endswith(suffix) and form.fullmatch(v[1:cut]) is not None


def _pattern(rx: str) -> ValueTest:
    r = re.compile(rx)
    return lambda v: v[0] != "_" and r.search(N.lexical(v)) is not None


_KINDS = {SH.IRI: ("iri", lambda v: v[0] == "<"), SH.Literal: ("literal", lambda v: v[0] == '"'),
          SH.BlankNode: ("blank node", lambda v: v[0] == "_")}


def _compile(g: rdflib.Graph) -> list[_Shape]:
    shapes = []
    for shape in sorted(set(g.subjects(RDF.type, SH.NodeShape)), key=str):
        supported_or_raise(g, shape)
        tc = [str(c) for c in g.objects(shape, SH.targetClass)]
        ts = [str(p) for p in g.objects(shape, SH.targetSubjectsOf)]
        props = []
        for prop in g.objects(shape, SH.property):
            path = g.value(prop, SH.path)
            msg = g.value(prop, SH.message)
            P = _Property(f"<{path}>", str(msg) if msg is not None else "")
            v = g.value(prop, SH.minCount)
            P.min1 = v is not None and int(v) > 0
            v = g.value(prop, SH.maxCount)
            P.max_count = int(v) if v is not None else None
            v = g.value(prop, SH.datatype)
            if v is not None:
                P.tests.append((f"value is not a {v}", _memo(_datatype(str(v)))))
            v = g.value(prop, SH["class"])
            if v is not None:
                P.classes.append(f"<{v}>")
            v = g.value(prop, SH["in"])
            if v is not None:
                members = frozenset(_text(x) for x in Collection(g, v))
                P.tests.append(("value is not in the allowed list", members.__contains__))
            v = g.value(prop, SH.nodeKind)
            if v is not None:
                _, test = _KINDS[v]
                P.tests.append((f"value is not of node kind {v}", test))
            for key, op in ((SH.minInclusive, ">="), (SH.maxInclusive, "<=")):
                v = g.value(prop, key)
                if v is not None:
                    P.tests.append((f"value is not {op} {v}", _memo(_bound(_text(v), op))))
            for key, strict in ((SH.lessThan, True), (SH.lessThanOrEquals, False)):
                v = g.value(prop, key)
                if v is not None:
                    P.compare.append((f"<{v}>", f"value is not {'<' if strict else '<='} the value of {v}", strict))
            v = g.value(prop, SH.pattern)
            if v is not None:
                P.tests.append((f"value does not match {v}", _memo(_pattern(str(v)))))
            q = g.value(prop, SH.qualifiedValueShape)
            if q is not None:
                P.qualified.append((f"<{g.value(q, SH['class'])}>", f"no value is a {g.value(q, SH['class'])}"))
            props.append(P)
        shapes.append(_Shape(str(shape).rsplit("#", 1)[-1], f"<{tc[0]}>" if tc else None,
                             f"<{ts[0]}>" if ts else None,
                             [f"<{c}>" for c in g.objects(shape, SH["class"])], props))
    return shapes


class ShapeCheck:
    """Checks a batch of quads (text or pyoxigraph; graphs ignored) against the compiled shapes."""

    def __init__(self, shapes: list[_Shape]):
        self.shapes = shapes
        self._compare = {True: _compare(True), False: _compare(False)}

    def check(self, quads: Iterable[N.AnyQuad], types_of: Callable[[str], Iterable[str]] | None = None, *,
              limit: int = 20) -> Report:
        """Violations among `quads`. `types_of(iri)` gives the rdf:types of a node the batch points at (along
        a path with sh:class or a qualified shape) but does not describe; it is asked lazily, once a node."""
        index: dict[str, dict[str, list[str]]] = {}
        by_class: dict[str, list[str]] = {}
        types: dict[str, set[str]] = {}
        supers: dict[str, set[str]] = {}
        get = index.get
        last, props = None, {}
        for q in quads:
            s, p, o, _ = q if type(q) is tuple else N.of(q)
            if s is not last:  # a batch comes in runs of one subject, mostly the same string object
                last, props = s, get(s)
                if props is None:
                    props = index[s] = {}
            vals = props.get(p)
            if vals is None:
                props[p] = [o]
            else:
                vals.append(o)
        for s, props in index.items():
            t = props.get(_TYPE)
            if t:
                types[s] = set(t)
                for c in t:
                    by_class.setdefault(c, []).append(s)
            for c in props.get(_SUBCLASS, _NONE):
                supers.setdefault(s, set()).add(c)

        def ancestors(c: str) -> set[str]:
            seen, todo = set(), [c]
            while todo:
                for up in supers.get(todo.pop(), ()):
                    if up not in seen:
                        seen.add(up)
                        todo.append(up)
            return seen

        def instance(node: str, cls: str) -> bool:
            ts = types.get(node)
            if ts is None:
                if types_of is None or node[0] != "<" or node in index:
                    return False
                ts = types[node] = set(types_of(node))
            if not ts:
                return False
            if cls in ts:
                return True
            return bool(supers) and any(cls in ancestors(t) for t in ts)

        return self._violations(index, by_class, instance, limit)

    @staticmethod
    def _focus(shape: _Shape, index: dict, by_class: dict) -> Iterable[str]:
        if shape.target_class is not None:
            return dict.fromkeys(by_class.get(shape.target_class, _NONE))
        return [s for s, props in index.items() if shape.target_subjects_of in props]

    def _violations(self, index: dict, by_class: dict, instance: Callable[[str, str], bool], limit: int) -> Report:
        """Every violation (up to `limit`), named."""
        out: list[str] = []

        def bad(shape: _Shape, node: str, path: str, what: str, v: str | None = None) -> bool:
            out.append(f"{shape.name}: {node} {path[1:-1] if path else ''}: {what}".replace(" :", ":")
                       + (f" ({v})" if v is not None else ""))
            return len(out) >= limit

        for shape in self.shapes:
            for node in self._focus(shape, index, by_class):
                props = index.get(node, {})
                for cls in shape.node_classes:
                    if not instance(node, cls) and bad(shape, node, "", f"focus node is not a {cls[1:-1]}"):
                        return Report(False, out)
                for P in shape.props:
                    vals = props.get(P.path)
                    if vals is None:  # only the constraints an absent property can break
                        if P.min1 and bad(shape, node, P.path, P.label or "fewer than 1 values"):
                            return Report(False, out)
                        for cls, what in P.qualified:
                            if bad(shape, node, P.path, P.label or what):
                                return Report(False, out)
                        continue
                    if len(vals) > 1:
                        vals = list(dict.fromkeys(vals))
                    if P.max_count is not None and len(vals) > P.max_count and bad(
                            shape, node, P.path, P.label or ("must have no value" if P.max_count == 0
                                                             else "more than one value"), vals[-1]):
                        return Report(False, out)
                    for v in vals:
                        for what, ok in P.tests:
                            if not ok(v) and bad(shape, node, P.path, P.label or what, v):
                                return Report(False, out)
                        for cls in P.classes:
                            if not instance(v, cls) and bad(shape, node, P.path, P.label or f"value is not a {cls[1:-1]}", v):
                                return Report(False, out)
                    for cls, what in P.qualified:
                        if not any(instance(v, cls) for v in vals) and bad(shape, node, P.path, P.label or what):
                            return Report(False, out)
                    for other, what, strict in P.compare:
                        ws = props.get(other, _NONE)
                        ok = self._compare[strict]
                        for v in vals:
                            for w in ws:
                                if not ok(v, w) and bad(shape, node, P.path, P.label or what, v):
                                    return Report(False, out)
        return Report(not out, out)

    def enforce(self, quads: Iterable[N.AnyQuad], types_of: Callable[[str], Iterable[str]] | None = None) -> None:
        r = self.check(quads, types_of)
        if not r.conforms:
            raise ShapeViolation(f"write refused by shapes: {r.violations[0]}", r.violations)


@lru_cache(maxsize=1)
def shape_check() -> ShapeCheck:
    return ShapeCheck(_compile(shapes_graph()))
