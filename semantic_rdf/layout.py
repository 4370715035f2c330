"""The record layout: pure functions from values to the quads design.md prescribes.

No I/O here. store.py decides what to write; this module decides how it looks in RDF.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from datetime import datetime
from typing import Iterable

import pyoxigraph as ox

from semantic_rdf.identity import fold, fnv1a64
from semantic_rdf.values import Doc, Triple, Validity, utc
from semantic_rdf.vocab import (
    DOCUMENT_GRAPH, ENTITY_GRAPH, M, NS, OA_, P, PROVENANCE_GRAPH, RDF_TYPE, RDFS_LABEL, XSD_BOOLEAN,
    XSD_DATETIME, XSD_DECIMAL, XSD_INTEGER, XSD_STRING, assertion_iri, claim_graph, entity_iri,
    predicate_iri, segment_iri,
)

Quad = ox.Quad


def h16(*parts: str) -> str:
    return format(fnv1a64(b"".join(p.encode("utf-8", "surrogatepass") + b"\x00" for p in parts)), "016x")


# ------------------------------------------------------------------ literals

@lru_cache(maxsize=1024)
def dt(t: datetime) -> ox.Literal:
    return ox.Literal(utc(t).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), datatype=XSD_DATETIME)


def parse_dt(lit: ox.Literal) -> datetime:
    return datetime.fromisoformat(lit.value.replace("Z", "+00:00"))


def dec(x: float) -> ox.Literal:
    s = format(float(x), ".6f").rstrip("0")
    return ox.Literal(s + "0" if s.endswith(".") else s, datatype=XSD_DECIMAL)


def integer(n: int) -> ox.Literal:
    return ox.Literal(str(int(n)), datatype=XSD_INTEGER)


def nni(n: int) -> ox.Literal:
    # Oxigraph stores xsd:nonNegativeInteger as xsd:integer; write the stored form so the check sees what is kept.
    if n < 0:
        raise ValueError(f"negative offset {n}")
    return ox.Literal(str(int(n)), datatype=XSD_INTEGER)


def string(s: str) -> ox.Literal:
    return ox.Literal(s)


def boolean(b: bool) -> ox.Literal:
    return ox.Literal("true" if b else "false", datatype=XSD_BOOLEAN)


# ------------------------------------------------------------------ IRIs of minted nodes

def doc_sha256(doc: Doc) -> str:
    sha = doc.meta.get("sha256")
    if isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha):
        return sha
    return hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()


def doc_iri(doc_id: str, sha256: str) -> ox.NamedNode:
    """A document version: the caller's id plus the content hash, so a changed file never rewrites old spans."""
    return segment_iri("doc", h16(doc_id, sha256))


def span_iri(aid: str, doc: ox.NamedNode, start: int, end: int) -> ox.NamedNode:
    return segment_iri("src", f"{aid}-{doc.value.rsplit('/', 1)[-1]}-{start}-{end}")


def selector_iri(span: ox.NamedNode) -> ox.NamedNode:
    return ox.NamedNode(span.value + "-selector")


def caller_iri(aid: str, agent: str, note: str) -> ox.NamedNode:
    return segment_iri("src", f"{aid}-caller-{h16(agent, note)}")


def belief_iri(aid: str, n: int) -> ox.NamedNode:
    return segment_iri("belief", f"{aid}-{n}")


def object_term(t: Triple) -> ox.NamedNode | ox.Literal:
    if t.datatype:
        return ox.Literal(t.object, datatype=ox.NamedNode(t.datatype))
    return entity_iri(t.object)


# ------------------------------------------------------------------ quads

def document_quads(doc: Doc, iri: ox.NamedNode, sha256: str) -> list[Quad]:
    G = PROVENANCE_GRAPH
    meta = doc.meta
    q = [
        Quad(iri, RDF_TYPE, M.Document, G),
        Quad(iri, RDF_TYPE, P.Entity, G),
        Quad(iri, M.reference, string(str(meta.get("reference") or doc.source or doc.id)), G),
        Quad(iri, M.sha256, string(sha256), G),
        Quad(iri, RDFS_LABEL, string(str(meta.get("title") or doc.id)), G),
        Quad(iri, ox.NamedNode(NS + "docId"), string(doc.id), G),
    ]
    if meta.get("media_type"):
        q.append(Quad(iri, M.mediaType, string(str(meta["media_type"])), G))
    for key, pred in (("size", M.byteSize), ("offset", M.byteOffset), ("status", M.httpStatus)):
        v = meta.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            q.append(Quad(iri, pred, integer(v), G))
    for key, pred in (("modified", M.modified), ("fetched_at", M.fetchedAt)):
        v = meta.get(key)
        if isinstance(v, datetime) and v.tzinfo is not None:
            q.append(Quad(iri, pred, dt(v), G))
    q.append(Quad(iri, M.text, string(doc.text), DOCUMENT_GRAPH))
    return q


def entity_quads(name: str, cls: ox.NamedNode | None) -> list[Quad]:
    e = entity_iri(name)
    G = ENTITY_GRAPH
    return [
        Quad(e, RDF_TYPE, cls or M.Thing, G),
        Quad(e, RDFS_LABEL, string(" ".join(name.split())), G),
        Quad(e, M.folded, string(fold(name)), G),
    ]


def claim_quad(aid: str, t: Triple) -> Quad:
    return Quad(entity_iri(t.subject), predicate_iri(t.predicate), object_term(t), claim_graph(aid))


def record_quads(aid: str, t: Triple, kinds: Iterable[ox.NamedNode], confidence: float, count: int,
                 at: datetime, run: ox.NamedNode, valid: Validity | None) -> list[Quad]:
    a, G = assertion_iri(aid), PROVENANCE_GRAPH
    b = belief_iri(aid, 1)
    q = [
        Quad(a, RDF_TYPE, M.Assertion, G),
        Quad(a, RDF_TYPE, P.Entity, G),
        *(Quad(a, RDF_TYPE, k, G) for k in kinds),
        Quad(a, M.claimGraph, claim_graph(aid), G),
        Quad(a, M.subject, entity_iri(t.subject), G),
        Quad(a, M.predicate, predicate_iri(t.predicate), G),
        Quad(a, M.object, object_term(t), G),
        Quad(a, M.confidence, dec(confidence), G),
        Quad(a, M.count, integer(count), G),
        Quad(a, P.generatedAtTime, dt(at), G),
        Quad(a, P.wasGeneratedBy, run, G),
        Quad(a, M.belief, b, G),
        Quad(b, RDF_TYPE, M.BeliefInterval, G),
        Quad(b, M.believedFrom, dt(at), G),
        Quad(b, M.openedBy, run, G),
    ]
    if valid is not None:
        if valid.start is not None:
            q.append(Quad(a, M.validFrom, dt(valid.start), G))
        if valid.until is not None:
            q.append(Quad(a, M.validUntil, dt(valid.until), G))
    return q


def span_source_quads(src: ox.NamedNode, doc: ox.NamedNode, start: int, end: int, chunk_index: int | None,
                      confidence: float, at: datetime, run: ox.NamedNode) -> list[Quad]:
    G = PROVENANCE_GRAPH
    sel = selector_iri(src)
    q = [
        Quad(src, RDF_TYPE, OA_.SpecificResource, G),
        Quad(src, RDF_TYPE, P.Entity, G),
        Quad(src, OA_.hasSource, doc, G),
        Quad(src, OA_.hasSelector, sel, G),
        Quad(src, M.confidence, dec(confidence), G),
        Quad(src, P.generatedAtTime, dt(at), G),
        Quad(src, P.wasGeneratedBy, run, G),
        Quad(sel, RDF_TYPE, OA_.TextPositionSelector, G),
        Quad(sel, OA_.start, nni(start), G),
        Quad(sel, OA_.end, nni(end), G),
    ]
    if chunk_index is not None:
        q.append(Quad(src, M.chunkIndex, integer(chunk_index), G))
    return q


def caller_source_quads(src: ox.NamedNode, agent: ox.NamedNode, note: str, confidence: float,
                        at: datetime, run: ox.NamedNode) -> list[Quad]:
    G = PROVENANCE_GRAPH
    q = [
        Quad(src, RDF_TYPE, M.CallerStatement, G),
        Quad(src, RDF_TYPE, P.Entity, G),
        Quad(src, P.wasAttributedTo, agent, G),
        Quad(src, M.confidence, dec(confidence), G),
        Quad(src, P.generatedAtTime, dt(at), G),
        Quad(src, P.wasGeneratedBy, run, G),
    ]
    if note:
        q.append(Quad(src, M.note, string(note), G))
    return q


_AGENT_CLASS = {"software": P.SoftwareAgent, "person": P.Person, "organization": P.Organization}


def agent_quads(agent: ox.NamedNode, name: str, kind: str, model: str | None = None) -> list[Quad]:
    G = PROVENANCE_GRAPH
    q = [Quad(agent, RDF_TYPE, P.Agent, G), Quad(agent, RDFS_LABEL, string(name), G)]
    cls = _AGENT_CLASS.get(kind)
    if cls is not None:
        q.append(Quad(agent, RDF_TYPE, cls, G))
    if model:
        q.append(Quad(agent, M.model, string(model), G))
    return q


def activity_quads(run: ox.NamedNode, kind: ox.NamedNode, agent: ox.NamedNode, started: datetime,
                   plan: ox.NamedNode | None = None, label: str | None = None) -> list[Quad]:
    G = PROVENANCE_GRAPH
    q = [
        Quad(run, RDF_TYPE, P.Activity, G),
        Quad(run, RDF_TYPE, kind, G),
        Quad(run, P.startedAtTime, dt(started), G),
        Quad(run, P.wasAssociatedWith, agent, G),
    ]
    if label:
        q.append(Quad(run, RDFS_LABEL, string(label), G))
    if plan is not None:
        assoc = ox.NamedNode(run.value + "-association")
        q += [
            Quad(run, P.qualifiedAssociation, assoc, G),
            Quad(assoc, RDF_TYPE, P.Association, G),
            Quad(assoc, P.agent, agent, G),
            Quad(assoc, P.hadPlan, plan, G),
        ]
    return q


def plan_quads(plan: ox.NamedNode, cls: ox.NamedNode, label: str) -> list[Quad]:
    G = PROVENANCE_GRAPH
    return [Quad(plan, RDF_TYPE, P.Plan, G), Quad(plan, RDF_TYPE, P.Entity, G), Quad(plan, RDF_TYPE, cls, G),
            Quad(plan, RDFS_LABEL, string(label), G)]


def serialize_data(quads: Iterable[Quad]) -> str:
    """Quads as the body of INSERT DATA / DELETE DATA. Terms are serialised by pyoxigraph (escaped, validated)."""
    return "\n".join(f"GRAPH {q.graph_name} {{ {q.subject} {q.predicate} {q.object} }}" for q in quads)


__all__ = [n for n in dir() if not n.startswith("_")]
_ = (XSD_STRING,)
