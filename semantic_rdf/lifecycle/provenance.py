"""Provenance: `trace(id)` back to the source documents, and PROV export for other tools.

`trace` runs queries/trace-nodes.rq once (the closure of prov:wasDerivedFrom from the assertion, as in
queries/trace.rq, with each node's quads) and dresses each node: a derived assertion shows its rule and
every antecedent, each antecedent its own sources, down to text spans of documents with their SHA-256
(or to caller statements, or to the tombstone of an erased antecedent). The result is a tree (`Trace.tree`, JSON-ready) with a
readable rendering (`Trace.text()`).

`export(store, fmt, id=None)` writes the provenance graph only (never the claim graphs: PROV tools read
each named graph as a bundle, and claims are not provenance), whole or restricted to one assertion:
    prov-o-trig / prov-o-turtle   PROV-O as stored (TriG keeps the graph name)
    prov-json / prov-n            converted by the `prov` package (which reads our PROV-O)
    svg / png                     a picture of one assertion's provenance (prov's Graphviz output; needs id)
"""

from __future__ import annotations

import json
import warnings
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from semantic_rdf.rdf import layout as L, ntriples as N
from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.core.errors import InvalidInput, MissingExtra, NotFound, SemanticError
from semantic_rdf.rdf.queries import packaged
from semantic_rdf.core.values import one_line
from semantic_rdf.core.vocab import (
    M,
    OA_,
    P,
    PREFIXES,
    PROVENANCE_GRAPH,
    RDF_TYPE,
    RDFS_LABEL,
    assertion_iri,
    predicate_name,
)

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = ["Trace", "trace", "export", "EXPORT_FORMATS", "prov_document", "prov_quads"]

G = PROVENANCE_GRAPH
EXPORT_FORMATS = ("prov-o-trig", "prov-o-turtle", "prov-json", "prov-n", "svg", "png")
_A = "https://w3id.org/semantic-rdf/a/"
_PREFIXES = {**PREFIXES, **{k: "https://w3id.org/semantic-rdf/" + k + "/" for k in ("belief", "decision", "policy")}}
_SRC = "https://w3id.org/semantic-rdf/src/"
_DOC = "https://w3id.org/semantic-rdf/doc/"


@dataclass(frozen=True)
class Trace:
    """The provenance tree of one assertion."""

    id: str
    tree: dict[str, Any]
    documents: tuple[dict[str, str], ...] = field(default=())

    def as_dict(self) -> dict:
        return {"id": self.id, "tree": self.tree, "documents": list(self.documents)}

    def text(self) -> str:
        lines: list[str] = []
        _render(self.tree, lines, "", True, True)
        if self.documents:
            lines.append("")
            lines.append("source documents:")
            for d in self.documents:
                lines.append(f"  {one_line(d['reference'])}  sha256 {one_line(d['sha256'])}")
        return "\n".join(lines)


def _render(node: dict, out: list[str], prefix: str, last: bool, root: bool) -> None:
    branch = "" if root else ("└─ " if last else "├─ ")
    t = node["type"]
    extra: list[str] = []
    if t == "assertion":
        gen = node.get("generated_by") or {}
        kinds = "+".join(node.get("kinds") or [node.get("kind", "?")])
        head = f"{node['id']}  {node['subject']} —{node['predicate']}→ {node['object']}  [{kinds}, {node['state']}, conf {node['confidence']:g}]"
        if node.get("rule"):
            head += f"  rule {one_line(node['rule'])}"
        if gen:
            head += f"  first recorded by {one_line(gen.get('agent'))} ({gen.get('kind')}, {gen.get('at')})"
        if node.get("cycle"):
            head = f"{node['id']}  (already shown above)"
        else:
            ext = "" if root else ("   " if last else "│  ")
            more = "│  " if node.get("sources") else "   "
            for h in _changes(node.get("history", ())):
                extra.append(prefix + ext + more + h)
    elif t == "tombstone":
        head = f"{node['id']}  ERASED {node.get('erased_at')} by {one_line(node.get('by'))}: {one_line(node.get('reason'))}"
    elif t == "span":
        d = node["document"]
        head = f"span {node['start']}..{node['end']} of {one_line(d['reference'])} (sha256 {one_line(d['sha256'][:12])}…)"
        if node.get("text") is not None:
            head += f"  “{_clip(node['text'])}”"
        if node.get("invalidated"):
            head += "  [retracted observation]"
    elif t == "caller":
        head = f"stated by {one_line(node.get('agent'))}" + (f" ({one_line(node['note'])})" if node.get("note") else "")
        if node.get("invalidated"):
            head += "  [retracted observation]"
    else:
        head = f"{one_line(node.get('iri'))}  ({one_line(t)})"
    out.append(prefix + branch + head)
    out.extend(extra)
    kids = node.get("sources", [])
    ext = "" if root else ("   " if last else "│  ")
    for i, k in enumerate(kids):
        _render(k, out, prefix + ext, i == len(kids) - 1, False)


def _changes(history) -> list[str]:
    """Lines for the belief changes after the first opening: retractions and reinstatements, with time,
    agent and reason. An assertion never retracted gets none (its head line says all)."""
    out = []
    for i, h in enumerate(history):
        if i > 0:
            out.append("reinstated " + _by(h["from"], h["opened_by"]))
        if h["until"] is not None:
            out.append("retracted " + _by(h["until"], h["closed_by"]))
    return out


def _by(at: str | None, act: dict | None) -> str:
    act = act or {}
    text = f"{at} by {one_line(act.get('agent') or 'unknown')}"
    return text + (f": {one_line(act['reason'])}" if act.get("reason") else "")


def _clip(s: str, n: int = 80) -> str:
    s = one_line(s)
    return s if len(s) <= n else s[: n - 1] + "…"


# Predicate and class IRIs as strings: a node's quads are grouped by predicate IRI (one pattern lookup per
# node), and looked up here without building terms.
_TYPE, _LABEL = RDF_TYPE.value, RDFS_LABEL.value
_DERIVED_FROM, _GENERATED_BY, _INVALIDATED_BY = P.wasDerivedFrom.value, P.wasGeneratedBy.value, P.wasInvalidatedBy.value
_INVALIDATED_AT, _ATTRIBUTED_TO = P.invalidatedAtTime.value, P.wasAttributedTo.value
_SUBJECT, _PREDICATE, _OBJECT, _CONF = M.subject.value, M.predicate.value, M.object.value, M.confidence.value
_BELIEF, _RULE, _REASON, _NOTE = M.belief.value, M.rule.value, M.reason.value, M.note.value
_REFERENCE, _SHA256 = M.reference.value, M.sha256.value
_BELIEVED_FROM, _BELIEVED_UNTIL = M.believedFrom.value, M.believedUntil.value
_OPENED_BY, _CLOSED_BY = M.openedBy.value, M.closedBy.value
_HAS_SOURCE, _HAS_SELECTOR, _START, _END = OA_.hasSource.value, OA_.hasSelector.value, OA_.start.value, OA_.end.value
_KINDS = ((M.DerivedAssertion.value, "derived"), (M.ExtractedAssertion.value, "extracted"), (M.SuppliedAssertion.value, "supplied"))


class _Fixed:
    """Details that never change once written, kept per open store across traces: an activity's kind,
    agent, start and reason (written when it is recorded; later writes only add prov:used / end times)
    and a document's reference and SHA-256 (a document IRI is written once, for one id and content).
    Neither is touched by erasure, which redacts document text and drops entity labels (never cached
    here: an erased entity's name must not outlive it in memory either)."""

    MAX = 10_000  # entries per kind; cleared when full (a trace touches a few of each)

    def __init__(self) -> None:
        self.acts: dict[str, dict] = {}
        self.docs: dict[str, dict[str, str]] = {}

    def put(self, table: dict, key: str, value: dict) -> None:
        if len(table) >= self.MAX:
            table.clear()
        table[key] = value


_FIXED: weakref.WeakKeyDictionary[Any, _Fixed] = weakref.WeakKeyDictionary()


def _fixed(store: AssertionStore) -> _Fixed:
    try:
        got = _FIXED.get(store)
        if got is None:
            got = _FIXED[store] = _Fixed()
    except TypeError:  # a store object that cannot be weakly referenced: cache for this trace only
        got = _Fixed()
    return got


class _Reader:
    """The provenance graph read for one trace: one query for the nodes (`closure`), and the details
    nodes share (documents, activities with their agents, labels, document text) read once per trace,
    activities and documents once per open store (`_Fixed`)."""

    def __init__(self, store: AssertionStore) -> None:
        self.store = store
        self._fixed = _fixed(store)
        self._acts: dict[str, dict | None] = {}
        self._labels: dict[str, str] = {}
        self._texts: dict[str, str | None] = {}
        self._docs: dict[str, dict[str, str]] = {}

    def closure(self, root: ox.NamedNode) -> dict[str, dict[str, list]]:
        """Every node of `root`'s trace with its quads, as node IRI -> predicate IRI -> objects: one query
        (queries/trace-nodes.rq) that decodes only ?node ?p ?v, where a lookup per node decodes whole quads."""
        out: dict[str, dict[str, list]] = {}
        for node, pred, obj in self.store.query(packaged("trace-nodes", root=root)):
            props = out.get(node.value)
            if props is None:
                props = out[node.value] = {}
            got = props.get(pred.value)
            if got is None:
                props[pred.value] = [obj]
            else:
                got.append(obj)
        return out

    def props(self, node: ox.NamedNode) -> dict[str, list]:
        """Every quad of `node` in the provenance graph, as predicate IRI -> objects (one index lookup)."""
        out: dict[str, list] = {}
        for q in self.store.quads(node, None, None, G):
            k = q.predicate.value
            got = out.get(k)
            if got is None:
                out[k] = [q.object]
            else:
                got.append(q.object)
        return out

    def first(self, node: ox.NamedNode, pred: ox.NamedNode, graph: ox.NamedNode = G):
        for q in self.store.quads(node, pred, None, graph):
            return q.object
        return None

    def label(self, term) -> str:
        if isinstance(term, ox.Literal):
            return term.value
        v = self._labels.get(term.value)
        if v is None:
            # the registry graph first (entities), then the provenance graph (agents, plans): store.label
            v = self._labels[term.value] = self.store.label(term)
        return v

    def activity(self, act: ox.NamedNode | None) -> dict | None:
        """An activity's kind, agent, start and reason; read by predicate, never the whole node (a run's
        prov:used list grows with every document it read)."""
        if act is None:
            return None
        if act.value in self._acts:
            return self._acts[act.value]
        known = self._fixed.acts.get(act.value)
        if known is None:
            agent = self.first(act, P.wasAssociatedWith)
            started = self.first(act, P.startedAtTime)
            known = {
                "activity": act.value,
                "kind": T.activity_kind(self.store, act),
                "agent": self.label(agent) if agent is not None else None,
                "at": L.parse_dt(started).isoformat() if started is not None else None,
            }
            reason = self.first(act, M.reason)
            if reason is not None:
                known["reason"] = reason.value
            self._fixed.put(self._fixed.acts, act.value, known)
        got = self._acts[act.value] = dict(known)  # a trace's tree is the caller's: never the cached dict
        return got

    def document(self, doc: ox.NamedNode) -> dict[str, str]:
        d = self._docs.get(doc.value)
        if d is None:
            known = self._fixed.docs.get(doc.value)
            if known is None:  # by predicate: a document node has more quads than the two shown
                known = {"iri": doc.value, "reference": self.first(doc, M.reference).value, "sha256": self.first(doc, M.sha256).value}
                self._fixed.put(self._fixed.docs, doc.value, known)
            d = self._docs[doc.value] = dict(known)
        return d

    def text(self, doc: str) -> str | None:
        if doc not in self._texts:
            try:
                self._texts[doc] = self.store.document_text(ox.NamedNode(doc))
            except NotFound:
                self._texts[doc] = None
        return self._texts[doc]

    def history(self, beliefs: list) -> list[dict]:
        """The belief intervals in record time, oldest first: when each opened and closed, and the
        activity (kind, agent, reason) that opened or closed it — a retraction says when, by whom, why."""
        out = []
        for b in beliefs:
            p = self.props(b)
            frm, until = _first(p, _BELIEVED_FROM), _first(p, _BELIEVED_UNTIL)
            out.append(
                {
                    "from": L.parse_dt(frm).isoformat() if frm is not None else None,
                    "opened_by": self.activity(_first(p, _OPENED_BY)),
                    "until": L.parse_dt(until).isoformat() if until is not None else None,
                    "closed_by": self.activity(_first(p, _CLOSED_BY)),
                }
            )
        return sorted(out, key=lambda h: h["from"] or "")


def _first(p: dict[str, list], key: str):
    got = p.get(key)
    return got[0] if got else None


def trace(store: AssertionStore, aid: str, *, with_text: bool = True) -> Trace:
    """Walk generation and derivation from assertion `aid` back to source documents (queries/trace-nodes.rq).

    One query (queries/trace-nodes.rq: the closure of prov:wasDerivedFrom from the assertion, as in
    trace.rq, with every quad of each node, so its edges are trace.rq's rows), then a lookup per detail
    one step further (a span's selector, a belief interval); documents, activities, agents and labels
    are read once per trace.
    """
    root = assertion_iri(aid)
    rd = _Reader(store)
    nodes = rd.closure(root)
    top = nodes.get(root.value, {})
    if _TYPE not in top:
        raise NotFound(f"no assertion with id {aid}")
    edges = {n: sorted({s.value for s in p[_DERIVED_FROM]}) for n, p in nodes.items() if _DERIVED_FROM in p}
    docs: dict[str, dict[str, str]] = {}

    def source_node(src: str) -> dict:
        p = nodes.get(src, {})
        types = {x.value for x in p.get(_TYPE, ())}
        gen = rd.activity(_first(p, _GENERATED_BY))
        inval = _INVALIDATED_AT in p
        if OA_.SpecificResource.value in types:
            d = rd.document(p[_HAS_SOURCE][0])
            docs[d["iri"]] = d
            sel = rd.props(p[_HAS_SELECTOR][0])
            start, end = int(sel[_START][0].value), int(sel[_END][0].value)
            out = {"type": "span", "iri": src, "document": d, "start": start, "end": end, "generated_by": gen, "invalidated": inval}
            if with_text:
                text = rd.text(d["iri"])
                out["text"] = text[start:end] if text is not None else None
            conf = p.get(_CONF)
            if conf:
                out["confidence"] = float(conf[0].value)
            return out
        if M.CallerStatement.value in types:
            note, who = _first(p, _NOTE), _first(p, _ATTRIBUTED_TO)
            return {
                "type": "caller",
                "iri": src,
                "agent": rd.label(who) if who is not None else None,
                "note": note.value if note is not None else None,
                "generated_by": gen,
                "invalidated": inval,
            }
        return {"type": "unknown", "iri": src}

    def assertion_node(iri: str, path: frozenset[str], p: dict[str, list] | None = None) -> dict:
        aid_ = iri[len(_A) :]
        if iri in path:
            return {"type": "assertion", "id": aid_, "iri": iri, "cycle": True}
        if p is None:
            p = nodes.get(iri, {})
        types = {x.value for x in p.get(_TYPE, ())}
        if M.Tombstone.value in types:
            er = rd.activity(_first(p, _INVALIDATED_BY))
            at = _first(p, _INVALIDATED_AT)
            reason = _first(p, _REASON)
            return {
                "type": "tombstone",
                "id": aid_,
                "iri": iri,
                "erased_at": L.parse_dt(at).isoformat() if at is not None else None,
                "reason": reason.value if reason is not None else None,
                "by": er.get("agent") if er else None,
                "erasure": er.get("activity") if er else None,
            }
        if M.Assertion.value not in types:
            return {"type": "missing", "id": aid_, "iri": iri}
        kind = next((k for c, k in _KINDS if c in types), "unknown")
        rule = _first(p, _RULE)
        history = rd.history(p.get(_BELIEF, []))
        kids: list[dict] = []
        node = {
            "type": "assertion",
            "id": aid_,
            "iri": iri,
            "subject": rd.label(p[_SUBJECT][0]),
            "predicate": predicate_name(p[_PREDICATE][0]),
            "object": rd.label(p[_OBJECT][0]),
            "kind": kind,
            # every way it was observed: extracted and then supplied by a caller is both, not a contradiction
            "kinds": [k for c, k in _KINDS if c in types],
            "state": "believed" if any(h["until"] is None for h in history) else "retracted",
            "history": history,
            "confidence": float(p[_CONF][0].value),
            "generated_by": rd.activity(_first(p, _GENERATED_BY)),
            "rule": rd.label(rule) if rule is not None else None,
            "rule_iri": rule.value if rule is not None else None,
            "sources": kids,
        }
        here = path | {iri}
        for src in edges.get(iri, ()):
            if src.startswith(_A):
                kids.append(assertion_node(src, here))
            elif src.startswith(_SRC):
                kids.append(source_node(src))
            else:
                kids.append({"type": "unknown", "iri": src})
        return node

    try:
        tree = assertion_node(root.value, frozenset(), top)
    except SemanticError:
        raise
    except (KeyError, IndexError, ValueError, AttributeError) as exc:  # a node lacks what this tool always writes
        what = f"no {exc.args[0]}" if isinstance(exc, KeyError) and exc.args else " ".join(str(exc).split())[:200]
        raise InvalidInput(
            f"the provenance of {aid} is malformed ({what}): the store was not written by semantic-rdf, or was changed outside it"
        ) from None
    return Trace(aid, tree, tuple(sorted(docs.values(), key=lambda d: (d["reference"], d["sha256"]))))


# ------------------------------------------------------------------ PROV export

_FOLLOW = {
    P.wasDerivedFrom.value,
    P.wasGeneratedBy.value,
    M.belief.value,
    M.rule.value,
    P.wasInvalidatedBy.value,
    OA_.hasSource.value,
    OA_.hasSelector.value,
    P.wasAttributedTo.value,
    M.openedBy.value,
    M.closedBy.value,
    P.wasAssociatedWith.value,
    P.qualifiedAssociation.value,
    P.agent.value,
    P.hadPlan.value,
}


def prov_quads(store: AssertionStore, aid: str | None = None) -> list[ox.Quad]:
    """The provenance graph, or the part of it that describes one assertion's provenance."""
    return N.to_ox(_prov_quads(store, aid))


def _prov_quads(store: AssertionStore, aid: str | None) -> list[N.StoredQuad]:
    if aid is None:
        return list(store.quads(None, None, None, G))
    start = assertion_iri(aid)
    if T.state(store, aid) is None:
        raise NotFound(f"no assertion with id {aid}")
    seen = {start.value}
    todo = [start]
    out: list[N.StoredQuad] = []
    while todo:
        node = todo.pop()
        for q in store.quads(node, None, None, G):
            out.append(q)
            o = q.object
            if q.predicate.value in _FOLLOW and isinstance(o, ox.NamedNode) and o.value not in seen:
                seen.add(o.value)
                todo.append(o)
    return out


def _turtle(quads: list[ox.Quad]) -> bytes:
    triples = [ox.Triple(q.subject, q.predicate, q.object) for q in quads]
    data = ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=_PREFIXES)
    assert data is not None  # given no output, serialize returns its bytes
    return data


def picture_quads(store: AssertionStore, aid: str) -> list[ox.Quad]:
    """`prov_quads` of one assertion, made to explain itself as a picture: the assertion and its span
    sources are labelled with the triple and the quoted text, documents with their reference, unlabelled
    activities with their kind; documents an activity used that are no source of this assertion are left
    out (an ingestion run reads many). Only the picture is changed; the exports keep every quad."""
    t = trace(store, aid)
    labels: dict[str, str] = {}
    sources: set[str] = set()

    def walk(n: dict) -> None:
        if n["type"] == "assertion" and not n.get("cycle") and "subject" in n:
            labels[n["iri"]] = f"{n['subject']} —{n['predicate']}→ {n['object']}"
        elif n["type"] == "span":
            d = n["document"]
            sources.add(d["iri"])
            labels[d["iri"]] = d["reference"]
            quote = f": “{_clip(n['text'], 60)}”" if n.get("text") else ""
            labels[n["iri"]] = f"span {n['start']}..{n['end']} of {d['reference']}{quote}"
        elif n["type"] == "caller":
            labels[n["iri"]] = f"stated by {n.get('agent')}" + (f" ({_clip(n['note'], 40)})" if n.get("note") else "")
        for k in n.get("sources", ()):
            walk(k)

    walk(t.tree)
    root = t.tree
    spans = [k for k in root.get("sources", ()) if k.get("type") == "span" and k.get("text")]
    if spans and root["iri"] in labels:
        labels[root["iri"]] += f"  ·  “{_clip(spans[0]['text'], 60)}”"
    used = P.used.value
    out: list[N.StoredQuad] = []
    labelled = set()
    for q in _prov_quads(store, aid):
        if q.predicate.value == used and q.object.value.startswith(_DOC) and q.object.value not in sources:
            continue
        if q.predicate == RDFS_LABEL and q.subject.value in labels:
            continue  # replaced below
        if q.predicate == RDFS_LABEL:
            labelled.add(q.subject.value)
        out.append(q)
    for q in list(out):
        if (
            q.predicate == RDF_TYPE
            and q.object == P.Activity
            and isinstance(q.subject, ox.NamedNode)
            and q.subject.value not in labelled | set(labels)
        ):
            labels[q.subject.value] = T.activity_kind(store, q.subject)
    return N.to_ox(out) + [ox.Quad(ox.NamedNode(iri), RDFS_LABEL, ox.Literal(text), G) for iri, text in labels.items()]


def prov_document(store: AssertionStore, aid: str | None = None, *, picture: bool = False):
    """Our PROV-O read by the `prov` package (a prov.model.ProvDocument); `picture` reads
    `picture_quads` instead of `prov_quads`."""
    from prov.model import ProvDocument

    data = _turtle(picture_quads(store, aid) if picture and aid is not None else prov_quads(store, aid))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # prov warns about every non-PROV resource it skips (selectors, beliefs)
        return ProvDocument.deserialize(content=data.decode("utf-8"), format="rdf", rdf_format="turtle")


def export(store: AssertionStore, fmt: str, id: str | None = None) -> bytes:  # noqa: A002 - `id` is the CLI's name
    """The provenance graph (or one assertion's part of it) in a PROV format; see EXPORT_FORMATS."""
    if fmt not in EXPORT_FORMATS:
        raise InvalidInput(f"unknown provenance format {fmt!r} (one of {', '.join(EXPORT_FORMATS)})")
    if fmt == "prov-o-trig":
        trig = ox.serialize(prov_quads(store, id), format=ox.RdfFormat.TRIG, prefixes=_PREFIXES)
        assert trig is not None  # given no output, serialize returns its bytes
        return trig
    if fmt == "prov-o-turtle":
        return _turtle(prov_quads(store, id))
    if fmt in ("svg", "png") and id is None:
        raise InvalidInput(f"a {fmt} picture shows one assertion's provenance: give its id")
    doc = prov_document(store, id, picture=fmt in ("svg", "png"))
    if fmt == "prov-json":
        data = json.loads(doc.serialize(format="json"))
        body = json.dumps({k: v for k, v in data.items() if k != "prefix"})
        data["prefix"] = {k: v for k, v in data.get("prefix", {}).items() if f'"{k}:' in body}
        return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")
    if fmt == "prov-n":
        return _prune_provn(doc.get_provn()).encode("utf-8")
    try:
        from prov.dot import prov_to_dot
        import pydot  # noqa: F401  (prov.dot imports it only when drawing)
    except ImportError:
        raise MissingExtra(f"export --format {fmt}", "pictures") from None

    dot = prov_to_dot(doc, use_labels=True, show_element_attributes=False, show_relation_attributes=False)
    return dot.create_svg() if fmt == "svg" else dot.create_png()  # type: ignore[attr-defined]  # pydot adds create_<format> by setattr


def _prune_provn(text: str) -> str:
    """Drop the prefix lines rdflib's default bindings add and the document never uses."""
    lines = text.splitlines()
    body = "\n".join(x for x in lines if not x.strip().startswith("prefix "))
    keep = []
    for x in lines:
        parts = x.split()
        if len(parts) >= 2 and parts[0] == "prefix" and (parts[1] + ":") not in body:
            continue
        keep.append(x)
    return "\n".join(keep) + "\n"
