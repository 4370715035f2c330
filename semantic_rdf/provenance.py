"""Provenance: `trace(id)` back to the source documents, and PROV export for other tools.

`trace` runs queries/trace.rq once (the closure of prov:wasDerivedFrom from the assertion) and dresses
each node from the provenance graph: a derived assertion shows its rule and every antecedent, each
antecedent its own sources, down to text spans of documents with their SHA-256 (or to caller statements,
or to the tombstone of an erased antecedent). The result is a tree (`Trace.tree`, JSON-ready) with a
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
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from semantic_rdf import layout as L
from semantic_rdf import temporal as T
from semantic_rdf.errors import InvalidInput, NotFound
from semantic_rdf.vocab import (
    M, OA_, P, PREFIXES, PROVENANCE_GRAPH, RDF_TYPE, RDFS_LABEL, assertion_iri, id_of, predicate_name,
)

__all__ = ["Trace", "trace", "export", "EXPORT_FORMATS", "prov_document", "prov_quads"]

G = PROVENANCE_GRAPH
EXPORT_FORMATS = ("prov-o-trig", "prov-o-turtle", "prov-json", "prov-n", "svg", "png")
_A = "https://w3id.org/semantic-rdf/a/"
_PREFIXES = {**PREFIXES, **{k: "https://w3id.org/semantic-rdf/" + k + "/" for k in ("belief", "decision", "policy")}}
_SRC = "https://w3id.org/semantic-rdf/src/"


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
                lines.append(f"  {d['reference']}  sha256 {d['sha256']}")
        return "\n".join(lines)


def _render(node: dict, out: list[str], prefix: str, last: bool, root: bool) -> None:
    branch = "" if root else ("└─ " if last else "├─ ")
    t = node["type"]
    if t == "assertion":
        gen = node.get("generated_by") or {}
        head = (f"{node['id']}  {node['subject']} —{node['predicate']}→ {node['object']}  "
                f"[{node['kind']}, {node['state']}, conf {node['confidence']:g}]")
        if node.get("rule"):
            head += f"  rule {node['rule']}"
        if gen:
            head += f"  by {gen.get('agent')} ({gen.get('kind')}, {gen.get('at')})"
        if node.get("cycle"):
            head = f"{node['id']}  (already shown above)"
    elif t == "tombstone":
        head = f"{node['id']}  ERASED {node.get('erased_at')} by {node.get('by')}: {node.get('reason')}"
    elif t == "span":
        d = node["document"]
        head = f"span {node['start']}..{node['end']} of {d['reference']} (sha256 {d['sha256'][:12]}…)"
        if node.get("text") is not None:
            head += f"  “{_clip(node['text'])}”"
        if node.get("invalidated"):
            head += "  [retracted observation]"
    elif t == "caller":
        head = f"stated by {node.get('agent')}" + (f" ({node['note']})" if node.get("note") else "")
        if node.get("invalidated"):
            head += "  [retracted observation]"
    else:
        head = f"{node.get('iri')}  ({t})"
    out.append(prefix + branch + head)
    kids = node.get("sources", [])
    ext = "" if root else ("   " if last else "│  ")
    for i, k in enumerate(kids):
        _render(k, out, prefix + ext, i == len(kids) - 1, False)


def _clip(s: str, n: int = 80) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


class _Reader:
    """Small cached lookups in the provenance graph for one trace."""

    def __init__(self, store) -> None:
        self.store = store
        self._acts: dict[str, dict] = {}
        self._labels: dict[str, str] = {}
        self._texts: dict[str, str] = {}

    def props(self, node: ox.NamedNode) -> dict[str, list]:
        out: dict[str, list] = {}
        for q in self.store.ox.quads_for_pattern(node, None, None, G):
            out.setdefault(q.predicate.value, []).append(q.object)
        return out

    def label(self, term) -> str:
        if isinstance(term, ox.Literal):
            return term.value
        v = self._labels.get(term.value)
        if v is None:
            v = self._labels[term.value] = self.store.label(term)
        return v

    def activity(self, act: ox.NamedNode | None) -> dict | None:
        if act is None:
            return None
        got = self._acts.get(act.value)
        if got is None:
            p = self.props(act)
            agent = (p.get(P.wasAssociatedWith.value) or [None])[0]
            started = (p.get(P.startedAtTime.value) or [None])[0]
            got = {"activity": act.value, "kind": T.activity_kind(self.store, act),
                   "agent": self.label(agent) if agent is not None else None,
                   "at": L.parse_dt(started).isoformat() if started is not None else None}
            reason = p.get(M.reason.value)
            if reason:
                got["reason"] = reason[0].value
            self._acts[act.value] = got
        return got

    def text(self, doc: str) -> str | None:
        if doc not in self._texts:
            try:
                self._texts[doc] = self.store.document_text(ox.NamedNode(doc))
            except NotFound:
                self._texts[doc] = None  # type: ignore[assignment]
        return self._texts[doc]


def trace(store, aid: str, *, with_text: bool = True) -> Trace:
    """Walk generation and derivation from assertion `aid` back to source documents (queries/trace.rq)."""
    root = assertion_iri(aid)
    if not store._has(root, RDF_TYPE):
        raise NotFound(f"no assertion with id {aid}")
    rows = store.run_query("trace", root=root)
    edges: dict[str, list[str]] = {}
    rules: dict[str, str] = {}
    for r in rows:
        n, s = r["node"].value, r["source"].value
        lst = edges.setdefault(n, [])
        if s not in lst:
            lst.append(s)
        if r["rule"] is not None:
            rules[n] = r["rule"].value
    rd = _Reader(store)
    docs: dict[str, dict[str, str]] = {}

    def source_node(src: str, run: ox.NamedNode | None = None) -> dict:
        node = ox.NamedNode(src)
        p = rd.props(node)
        types = {x.value for x in p.get(RDF_TYPE.value, [])}
        gen = rd.activity((p.get(P.wasGeneratedBy.value) or [None])[0])
        inval = P.invalidatedAtTime.value in p
        conf = p.get(M.confidence.value)
        if OA_.SpecificResource.value in types:
            doc = p[OA_.hasSource.value][0]
            d = docs.get(doc.value)
            if d is None:
                dp = rd.props(doc)
                d = docs[doc.value] = {"iri": doc.value, "reference": dp[M.reference.value][0].value,
                                       "sha256": dp[M.sha256.value][0].value}
            sel = rd.props(p[OA_.hasSelector.value][0])
            start, end = int(sel[OA_.start.value][0].value), int(sel[OA_.end.value][0].value)
            out = {"type": "span", "iri": src, "document": d, "start": start, "end": end, "generated_by": gen,
                   "invalidated": inval}
            if with_text:
                text = rd.text(d["iri"])
                out["text"] = text[start:end] if text is not None else None
            if conf:
                out["confidence"] = float(conf[0].value)
            return out
        if M.CallerStatement.value in types:
            note = p.get(M.note.value)
            who = p.get(P.wasAttributedTo.value)
            return {"type": "caller", "iri": src, "agent": rd.label(who[0]) if who else None,
                    "note": note[0].value if note else None, "generated_by": gen, "invalidated": inval}
        return {"type": "unknown", "iri": src}

    def assertion_node(iri: str, path: frozenset[str]) -> dict:
        a = ox.NamedNode(iri)
        aid_ = id_of(iri)
        if iri in path:
            return {"type": "assertion", "id": aid_, "iri": iri, "cycle": True}
        p = rd.props(a)
        types = {x.value for x in p.get(RDF_TYPE.value, [])}
        if M.Tombstone.value in types:
            er = rd.activity((p.get(P.wasInvalidatedBy.value) or [None])[0])
            at = p.get(P.invalidatedAtTime.value)
            return {"type": "tombstone", "id": aid_, "iri": iri,
                    "erased_at": L.parse_dt(at[0]).isoformat() if at else None,
                    "reason": p[M.reason.value][0].value if M.reason.value in p else None,
                    "by": er.get("agent") if er else None, "erasure": er.get("activity") if er else None}
        if M.Assertion.value not in types:
            return {"type": "missing", "id": aid_, "iri": iri}
        kind = ("derived" if M.DerivedAssertion.value in types else "extracted" if M.ExtractedAssertion.value in types
                else "supplied" if M.SuppliedAssertion.value in types else "unknown")
        beliefs = p.get(M.belief.value, [])
        believed = any(not list(store.ox.quads_for_pattern(b, M.believedUntil, None, G)) for b in beliefs)
        rule = (p.get(M.rule.value) or [None])[0]
        node = {
            "type": "assertion", "id": aid_, "iri": iri,
            "subject": rd.label(p[M.subject.value][0]), "predicate": predicate_name(p[M.predicate.value][0]),
            "object": rd.label(p[M.object.value][0]), "kind": kind,
            "state": "believed" if believed else "retracted",
            "confidence": float(p[M.confidence.value][0].value),
            "generated_by": rd.activity((p.get(P.wasGeneratedBy.value) or [None])[0]),
            "rule": rd.label(rule) if rule is not None else None,
            "rule_iri": rule.value if rule is not None else None,
            "sources": [],
        }
        here = path | {iri}
        for src in sorted(edges.get(iri, [])):
            if src.startswith(_A):
                node["sources"].append(assertion_node(src, here))
            elif src.startswith(_SRC):
                node["sources"].append(source_node(src))
            else:
                node["sources"].append({"type": "unknown", "iri": src})
        return node

    tree = assertion_node(root.value, frozenset())
    return Trace(aid, tree, tuple(sorted(docs.values(), key=lambda d: (d["reference"], d["sha256"]))))


# ------------------------------------------------------------------ PROV export

_FOLLOW = {
    P.wasDerivedFrom.value, P.wasGeneratedBy.value, M.belief.value, M.rule.value, P.wasInvalidatedBy.value,
    OA_.hasSource.value, OA_.hasSelector.value, P.wasAttributedTo.value, M.openedBy.value, M.closedBy.value,
    P.wasAssociatedWith.value, P.qualifiedAssociation.value, P.agent.value, P.hadPlan.value,
}


def prov_quads(store, aid: str | None = None) -> list[ox.Quad]:
    """The provenance graph, or the part of it that describes one assertion's provenance."""
    if aid is None:
        return list(store.ox.quads_for_pattern(None, None, None, G))
    start = assertion_iri(aid)
    if T.state(store, aid) is None:
        raise NotFound(f"no assertion with id {aid}")
    seen = {start.value}
    todo = [start]
    out: list[ox.Quad] = []
    while todo:
        node = todo.pop()
        for q in store.ox.quads_for_pattern(node, None, None, G):
            out.append(q)
            o = q.object
            if q.predicate.value in _FOLLOW and isinstance(o, ox.NamedNode) and o.value not in seen:
                seen.add(o.value)
                todo.append(o)
    return out


def _turtle(quads: list[ox.Quad]) -> bytes:
    triples = [ox.Triple(q.subject, q.predicate, q.object) for q in quads]
    return ox.serialize(triples, format=ox.RdfFormat.TURTLE, prefixes=_PREFIXES)


def prov_document(store, aid: str | None = None):
    """Our PROV-O read by the `prov` package (a prov.model.ProvDocument)."""
    from prov.model import ProvDocument

    data = _turtle(prov_quads(store, aid))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # prov warns about every non-PROV resource it skips (selectors, beliefs)
        return ProvDocument.deserialize(content=data.decode("utf-8"), format="rdf", rdf_format="turtle")


def export(store, fmt: str, id: str | None = None) -> bytes:  # noqa: A002 - `id` is the CLI's name
    """The provenance graph (or one assertion's part of it) in a PROV format; see EXPORT_FORMATS."""
    if fmt not in EXPORT_FORMATS:
        raise InvalidInput(f"unknown provenance format {fmt!r} (one of {', '.join(EXPORT_FORMATS)})")
    if fmt == "prov-o-trig":
        return ox.serialize(prov_quads(store, id), format=ox.RdfFormat.TRIG, prefixes=_PREFIXES)
    if fmt == "prov-o-turtle":
        return _turtle(prov_quads(store, id))
    if fmt in ("svg", "png") and id is None:
        raise InvalidInput(f"a {fmt} picture shows one assertion's provenance: give its id")
    doc = prov_document(store, id)
    if fmt == "prov-json":
        data = json.loads(doc.serialize(format="json"))
        body = json.dumps({k: v for k, v in data.items() if k != "prefix"})
        data["prefix"] = {k: v for k, v in data.get("prefix", {}).items() if f'"{k}:' in body}
        return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")
    if fmt == "prov-n":
        return _prune_provn(doc.get_provn()).encode("utf-8")
    from prov.dot import prov_to_dot

    dot = prov_to_dot(doc, use_labels=True, show_element_attributes=False, show_relation_attributes=False)
    return dot.create_svg() if fmt == "svg" else dot.create_png()


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


_ = RDFS_LABEL
