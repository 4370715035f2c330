"""The write path's shape check: shapes/*.ttl compiled into Python, run over a batch of text quads.

Every write batch is checked before it commits. pyshacl stays the authority (`validate`), and the
SPARQL-compiled checker in shapes.py checks whole stores; this one checks a batch in one pass over
its quads, with no store and no query. It understands the same SHACL Core subset as shapes.py and
refuses to compile anything else, and tests/test_shapes.py holds all three to the same verdicts.

A batch is checked together with `types_of`: the stored types of nodes it points at but does not
describe. Those satisfy sh:class without making the nodes focus nodes of sh:targetClass.

A batch that adds to a stored node can leave out what it does not change (see `Settled`): the checker then
decides each constraint from what is listed plus the fact that the node conformed before, and where that
cannot decide it, asks `stored` for the node's stored values on the paths concerned and checks them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable, Mapping

import pyoxigraph as ox

from semantic_rdf.rdf import ntriples as N
from semantic_rdf.core.errors import ShapeViolation
from semantic_rdf.rdf.shapes import NODE_KINDS, Report, ShapeGraph, Term, sh, packaged_shapes, supported_or_raise
from semantic_rdf.core.vocab import RDF, RDFS

__all__ = ["Settled", "ShapeCheck", "shape_check"]

_TYPE = f"<{RDF}type>"
_SUBCLASS = f"<{RDFS}subClassOf>"
_NONE: tuple[str, ...] = ()


def _text(node: Term) -> str:
    if isinstance(node, ox.NamedNode):
        return N.iri(node.value)
    if isinstance(node, ox.Literal):
        plain = node.language or node.datatype.value == N.XSD + "string"
        return N.literal(node.value, None if plain else node.datatype.value, node.language)
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
    classes: list[str] = field(default_factory=list)  # sh:class: every value is an instance
    qualified: list[tuple[str, str]] = field(default_factory=list)  # (class, message): some value is an instance
    compare: list[tuple[str, str, bool]] = field(default_factory=list)  # (other path, text, strict)
    paths: frozenset[str] = frozenset()  # `path` and the compared paths, set by ShapeCheck


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
    N.XSD + "dateTime": re.compile(
        r"-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?"
        r"(?:Z|[+-][0-9]{2}:[0-9]{2})?"
    ),
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


_KINDS: dict[str, ValueTest] = {"isIRI": lambda v: v[0] == "<", "isLiteral": lambda v: v[0] == '"', "isBlank": lambda v: v[0] == "_"}


def _compile(g: ShapeGraph) -> list[_Shape]:
    shapes = []
    for shape in g.node_shapes():
        supported_or_raise(g, shape)
        tc = [c.value for c in g.objects(shape, sh("targetClass"))]
        ts = [p.value for p in g.objects(shape, sh("targetSubjectsOf"))]
        props = []
        for prop in g.objects(shape, sh("property")):
            path = g.value(prop, sh("path"))
            assert path is not None  # supported_or_raise: an IRI
            msg = g.value(prop, sh("message"))
            P = _Property(f"<{path.value}>", msg.value if msg is not None else "")
            P.min1 = (g.integer(prop, sh("minCount")) or 0) > 0
            P.max_count = g.integer(prop, sh("maxCount"))
            v = g.value(prop, sh("datatype"))
            if v is not None:
                P.tests.append((f"value is not a {v.value}", _memo(_datatype(v.value))))
            v = g.value(prop, sh("class"))
            if v is not None:
                P.classes.append(f"<{v.value}>")
            v = g.value(prop, sh("in"))
            if v is not None:
                members = frozenset(_text(x) for x in g.members(v))
                P.tests.append(("value is not in the allowed list", members.__contains__))
            v = g.value(prop, sh("nodeKind"))
            if v is not None:
                P.tests.append((f"value is not of node kind {v.value}", _KINDS[NODE_KINDS[v]]))
            for key, op in (("minInclusive", ">="), ("maxInclusive", "<=")):
                v = g.value(prop, sh(key))
                if v is not None:
                    P.tests.append((f"value is not {op} {v.value}", _memo(_bound(_text(v), op))))
            for key, strict in (("lessThan", True), ("lessThanOrEquals", False)):
                v = g.value(prop, sh(key))
                if v is not None:
                    P.compare.append((f"<{v.value}>", f"value is not {'<' if strict else '<='} the value of {v.value}", strict))
            v = g.value(prop, sh("pattern"))
            if v is not None:
                P.tests.append((f"value does not match {v.value}", _memo(_pattern(v.value))))
            q = g.value(prop, sh("qualifiedValueShape"))
            if q is not None:
                qc = g.value(q, sh("class"))
                name = qc.value if qc is not None else ""
                P.qualified.append((f"<{name}>", f"no value is a {name}"))
            props.append(P)
        shapes.append(
            _Shape(
                shape.value.rsplit("#", 1)[-1],
                f"<{tc[0]}>" if tc else None,
                f"<{ts[0]}>" if ts else None,
                [f"<{c.value}>" for c in g.objects(shape, sh("class"))],
                props,
            )
        )
    return shapes


@dataclass(frozen=True)
class Settled:
    """A stored node that conformed to the shapes while its rdf:types were `classes`, in a batch that only adds
    to it. The batch lists its rdf:types in full (none removed); on each path in `added` only the values it adds
    (the stored ones stay); on any other path either the node's full values after the batch, or nothing when
    that path is left unchanged. (A batch that empties a path cannot be checked this way.)

    What is known without reading: a shape that targeted the node before still holds on its unchanged paths,
    and its minimum counts (sh:minCount, sh:qualifiedMinCount) still hold on the added paths."""

    classes: frozenset[str]
    added: frozenset[str]


class ShapeCheck:
    """Checks a batch of quads (text or pyoxigraph; graphs ignored) against the compiled shapes."""

    def __init__(self, shapes: list[_Shape]):
        self.shapes = shapes
        self._compare = {True: _compare(True), False: _compare(False)}
        # the paths that decide which nodes a shape targets: never settled
        self._targeting = {_TYPE, _SUBCLASS} | {x.target_subjects_of for x in shapes if x.target_subjects_of}
        for shape in shapes:
            for P in shape.props:
                P.paths = frozenset([P.path] + [other for other, _, _ in P.compare])

    def check(
        self,
        quads: Iterable[N.AnyQuad],
        types_of: Callable[[str], Iterable[str]] | None = None,
        *,
        settled: Mapping[str, Settled] | None = None,
        stored: Callable[[str, str], list[str]] | None = None,
        limit: int = 20,
    ) -> Report:
        """Violations among `quads`. `types_of(iri)` gives the rdf:types of a node the batch points at (along
        a path with sh:class or a qualified shape) but does not describe; it is asked lazily, once a node.
        `settled` names stored nodes the batch lists only in part (see `Settled`); `stored(node, path)` gives
        such a node's stored values on a path, asked only where the listed values cannot decide a constraint."""
        index: dict[str, dict[str, list[str]]] = {}
        by_class: dict[str, list[str]] = {}
        types: dict[str, set[str]] = {}
        supers: dict[str, set[str]] = {}
        get = index.get
        last: str | None = None
        props: dict[str, list[str]] = {}
        for q in quads:
            s, p, o, _ = q if type(q) is tuple else N.of(q)
            if s is not last:  # a batch comes in runs of one subject, mostly the same string object
                last, found = s, get(s)
                if found is None:
                    found = index[s] = {}
                props = found
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

        for node, st in (settled or {}).items():
            if st.added & self._targeting or node in index and not st.classes <= types.get(node, set()):
                raise ValueError(f"settled node {node}: its rdf:types must be listed in full and never settled")
            if stored is None:
                raise ValueError("a batch with settled nodes needs `stored`")
        return self._violations(index, by_class, instance, settled or {}, stored, limit)

    @staticmethod
    def _focus(shape: _Shape, index: dict, by_class: dict) -> Iterable[str]:
        if shape.target_class is not None:
            return dict.fromkeys(by_class.get(shape.target_class, _NONE))
        return [s for s, props in index.items() if shape.target_subjects_of in props]

    @staticmethod
    def _settled_view(
        shape: _Shape,
        P: _Property,
        node: str,
        props: dict,
        st: Settled,
        full: set[str],
        instance: Callable[[str, str], bool],
        stored: Callable[[str, str], list[str]],
    ) -> tuple[list[str] | None, bool] | None:
        """How `P` is checked on a settled node: None when its stored values stand and met it before, else (the
        values to check, whether its minimum counts are known to hold). Where the listed values cannot decide it,
        the node's values on P's paths are completed in `props` from the store (and named in `full`)."""
        paths = [P.path] + [other for other, _, _ in P.compare]
        vals = props.get(P.path)
        if not full.issuperset(paths):
            before = shape.target_class is not None and shape.target_class in st.classes
            if P.path in st.added and P.max_count is None and not P.compare:
                if before:  # the stored values met every constraint: check the added ones, counts only grew
                    return vals, True
                have = vals or _NONE
                if not (P.tests or P.classes) and (not P.min1 or have) and all(any(instance(v, c) for v in have) for c, _ in P.qualified):
                    return vals, True
            elif before and not any(p in props or p in st.added for p in paths):
                return None
            for p in paths:
                if p not in full and (p in st.added or p not in props):
                    more = stored(node, p)
                    if more:
                        props[p] = more + props.get(p, [])
                full.add(p)
            vals = props.get(P.path)
        return vals, False

    def _violations(
        self,
        index: dict,
        by_class: dict,
        instance: Callable[[str, str], bool],
        settled: Mapping[str, Settled],
        stored: Callable[[str, str], list[str]] | None,
        limit: int,
    ) -> Report:
        """Every violation (up to `limit`), named."""
        out: list[str] = []
        full: dict[str, set[str]] = {}  # paths of a settled node whose values `props` now holds in full

        def bad(shape: _Shape, node: str, path: str, what: str, v: str | None = None) -> bool:
            out.append(f"{shape.name}: {node} {path[1:-1] if path else ''}: {what}".replace(" :", ":") + (f" ({v})" if v is not None else ""))
            return len(out) >= limit

        for shape in self.shapes:
            for node in self._focus(shape, index, by_class):
                props = index.get(node, {})
                st = settled.get(node)
                for cls in shape.node_classes:
                    if not instance(node, cls) and bad(shape, node, "", f"focus node is not a {cls[1:-1]}"):
                        return Report(False, out)
                for P in shape.props:
                    known = False  # whether P's minimum counts are known to hold
                    if st is None:
                        vals = props.get(P.path)
                    else:
                        # the common case of `_settled_view` returning None, without the call: no path of P
                        # listed, added or completed on a node the shape targeted before
                        if (
                            P.paths.isdisjoint(props)
                            and P.paths.isdisjoint(st.added)
                            and P.paths.isdisjoint(full.get(node, _NONE))
                            and shape.target_class in st.classes
                        ):
                            continue
                        view = self._settled_view(shape, P, node, props, st, full.setdefault(node, set()), instance, stored)  # type: ignore[arg-type]
                        if view is None:
                            continue
                        vals, known = view
                    if vals is None:  # only the constraints an absent property can break
                        if known:
                            continue
                        if P.min1 and bad(shape, node, P.path, P.label or "fewer than 1 values"):
                            return Report(False, out)
                        for cls, what in P.qualified:
                            if bad(shape, node, P.path, P.label or what):
                                return Report(False, out)
                        continue
                    if len(vals) > 1:
                        vals = list(dict.fromkeys(vals))
                    if (
                        P.max_count is not None
                        and len(vals) > P.max_count
                        and bad(shape, node, P.path, P.label or ("must have no value" if P.max_count == 0 else "more than one value"), vals[-1])
                    ):
                        return Report(False, out)
                    for v in vals:
                        for what, ok in P.tests:
                            if not ok(v) and bad(shape, node, P.path, P.label or what, v):
                                return Report(False, out)
                        for cls in P.classes:
                            if not instance(v, cls) and bad(shape, node, P.path, P.label or f"value is not a {cls[1:-1]}", v):
                                return Report(False, out)
                    for cls, what in () if known else P.qualified:
                        if not any(instance(v, cls) for v in vals) and bad(shape, node, P.path, P.label or what):
                            return Report(False, out)
                    for other, what, strict in P.compare:
                        ws = props.get(other, _NONE)
                        in_order = self._compare[strict]
                        for v in vals:
                            for w in ws:
                                if not in_order(v, w) and bad(shape, node, P.path, P.label or what, v):
                                    return Report(False, out)
        return Report(not out, out)

    def enforce(
        self,
        quads: Iterable[N.AnyQuad],
        types_of: Callable[[str], Iterable[str]] | None = None,
        *,
        settled: Mapping[str, Settled] | None = None,
        stored: Callable[[str, str], list[str]] | None = None,
    ) -> None:
        r = self.check(quads, types_of, settled=settled, stored=stored)
        if not r.conforms:
            raise ShapeViolation(f"write refused by shapes: {r.violations[0]}", r.violations)


@lru_cache(maxsize=1)
def shape_check() -> ShapeCheck:
    return ShapeCheck(_compile(packaged_shapes()))
