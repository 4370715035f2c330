"""The record layout: pure functions from values to the quads design.md prescribes.

No I/O here. store/assertions.py decides what to write; this module decides how it looks in RDF.
Quads are built as N-Triples text (ntriples.py): the literal helpers below return pyoxigraph terms
for queries and callers, and their `_t` twins return the same terms as text for quads.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from datetime import datetime
from typing import Iterable

import pyoxigraph as ox

from semantic_rdf.rdf import ntriples as N
from semantic_rdf.core.identity import fold, fnv1a64
from semantic_rdf.core.values import MAX_NAME, Doc, Triple, Validity, utc
from semantic_rdf.core.vocab import (
    DOCUMENT_GRAPH,
    ENTITY_GRAPH,
    M,
    NS,
    OA_,
    P,
    PROVENANCE_GRAPH,
    RDF_TYPE,
    RDFS_LABEL,
    XSD_BOOLEAN,
    XSD_DATETIME,
    XSD_DECIMAL,
    XSD_INTEGER,
    assertion_ref,
    claim_graph_ref,
    entity_iri,
    entity_ref,
    predicate_ref,
    segment_iri,
    segment_ref,
    SKOS,
)

Quad = N.NQ
Ref = ox.NamedNode | str  # an IRI as a term or as its N-Triples text


def h16(*parts: str) -> str:
    return format(fnv1a64(b"".join(p.encode("utf-8", "surrogatepass") + b"\x00" for p in parts)), "016x")


# ------------------------------------------------------------------ literals


def _dt_lex(t: datetime) -> str:
    t = utc(t)  # the year zero-padded to four digits, as xsd:dateTime wants (strftime gives "999" for 999)
    return f"{t.year:04d}-{t:%m-%dT%H:%M:%S.%f}Z"


@lru_cache(maxsize=1024)
def dt(t: datetime) -> ox.Literal:
    return ox.Literal(_dt_lex(t), datatype=XSD_DATETIME)


def parse_dt(lit: ox.Literal) -> datetime:
    return datetime.fromisoformat(lit.value.replace("Z", "+00:00"))


def _dec_lex(x: float) -> str:
    s = format(float(x), ".6f").rstrip("0")
    return s + "0" if s.endswith(".") else s


def dec(x: float) -> ox.Literal:
    return ox.Literal(_dec_lex(x), datatype=XSD_DECIMAL)


def integer(n: int) -> ox.Literal:
    return ox.Literal(str(int(n)), datatype=XSD_INTEGER)


def string(s: str) -> ox.Literal:
    return ox.Literal(s)


def boolean(b: bool) -> ox.Literal:
    return ox.Literal("true" if b else "false", datatype=XSD_BOOLEAN)


# ------------------------------------------------------------------ the same literals as N-Triples text

_DT, _DEC, _INT = (f"^^{x}" for x in (XSD_DATETIME, XSD_DECIMAL, XSD_INTEGER))


@lru_cache(maxsize=1024)
def dt_t(t: datetime) -> str:
    return '"' + _dt_lex(t) + '"' + _DT


def dec_t(x: float) -> str:
    return '"' + _dec_lex(x) + '"' + _DEC


def integer_t(n: int) -> str:
    return '"' + str(int(n)) + '"' + _INT


def nni_t(n: int) -> str:
    if n < 0:
        raise ValueError(f"negative offset {n}")
    return integer_t(n)


def string_t(s: str) -> str:
    return N.literal(s)


def ref(x: Ref) -> str:
    return x if isinstance(x, str) else str(x)


class _Texts:
    """`T.name` is the N-Triples text of the vocabulary term `ns.name` (computed once)."""

    def __init__(self, ns) -> None:
        self._ns = ns

    def __getattr__(self, name: str) -> str:
        value = str(getattr(self._ns, name))
        setattr(self, name, value)
        return value


Mt, Pt, OAt = _Texts(M), _Texts(P), _Texts(OA_)
TYPE, LABEL = str(RDF_TYPE), str(RDFS_LABEL)
PROV_G, ENTITY_G, DOCUMENT_G = str(PROVENANCE_GRAPH), str(ENTITY_GRAPH), str(DOCUMENT_GRAPH)
DOC_ID = f"<{NS}docId>"


# ------------------------------------------------------------------ IRIs of minted nodes


_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def doc_sha256(doc: Doc) -> str:
    sha = doc.meta.get("sha256")
    if isinstance(sha, str) and _SHA256_HEX.fullmatch(sha):  # one C call (a generator over 64 characters showed in profiles)
        return sha
    return hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()


@lru_cache(maxsize=4096)  # asked twice per document by an ingest (is it stored? then its records); FNV in Python
def doc_iri(doc_id: str, sha256: str) -> ox.NamedNode:
    """A document version: the caller's id plus the content hash, so a changed file never rewrites old spans."""
    return segment_iri("doc", h16(doc_id, sha256))


def span_ref(aid: str, doc: Ref, start: int, end: int) -> str:
    d = ref(doc)
    return segment_ref("src", f"{aid}-{d[d.rindex('/') + 1 : -1]}-{int(start)}-{int(end)}")


def span_iri(aid: str, doc: Ref, start: int, end: int) -> ox.NamedNode:
    return ox.NamedNode(span_ref(aid, doc, start, end)[1:-1])


def selector_ref(span: Ref) -> str:
    return ref(span)[:-1] + "-selector>"


def caller_ref(aid: str, agent: str, note: str) -> str:
    return segment_ref("src", f"{aid}-caller-{h16(agent, note)}")


def belief_ref(aid: str, n: int) -> str:
    return segment_ref("belief", f"{aid}-{int(n)}")


def belief_iri(aid: str, n: int) -> ox.NamedNode:
    return ox.NamedNode(belief_ref(aid, n)[1:-1])


def object_term(t: Triple) -> ox.NamedNode | ox.Literal:
    if t.datatype:
        return ox.Literal(t.object, datatype=ox.NamedNode(t.datatype))
    return entity_iri(t.object)


def object_ref(t: Triple) -> str:
    if t.datatype:
        return str(object_term(t))  # the datatype IRI comes from the caller: let pyoxigraph validate it
    return entity_ref(t.object)


# ------------------------------------------------------------------ quads (N-Triples text, see ntriples.py)


def document_quads(doc: Doc, iri: Ref, sha256: str) -> list[Quad]:
    G, d = PROV_G, ref(iri)
    meta = doc.meta
    q = [
        (d, TYPE, Mt.Document, G),
        (d, TYPE, Pt.Entity, G),
        (d, Mt.reference, string_t(str(meta.get("reference") or doc.source or doc.id)), G),
        (d, Mt.sha256, string_t(sha256), G),
        (d, LABEL, string_t(str(meta.get("title") or doc.id)), G),
        (d, DOC_ID, string_t(doc.id), G),
    ]
    if meta.get("media_type"):
        q.append((d, Mt.mediaType, string_t(str(meta["media_type"])), G))
    for key, pred in (("size", Mt.byteSize), ("offset", Mt.byteOffset), ("status", Mt.httpStatus)):
        v = meta.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            q.append((d, pred, integer_t(v), G))
    for key, pred in (("modified", Mt.modified), ("fetched_at", Mt.fetchedAt)):
        v = meta.get(key)
        if isinstance(v, datetime) and v.tzinfo is not None:
            q.append((d, pred, dt_t(v), G))
    q.append((d, Mt.text, string_t(doc.text), DOCUMENT_G))
    return q


def entity_quads(name: str, cls: Ref | None, aliases: Iterable[str] = ()) -> list[Quad]:
    e, G = entity_ref(name), ENTITY_G
    return [
        (e, TYPE, ref(cls) if cls is not None else Mt.Thing, G),
        (e, LABEL, string_t(" ".join(name.split())), G),
        (e, Mt.folded, string_t(fold(name)), G),
        *alias_quads(name, aliases),
    ]


ALT_LABEL = f"<{SKOS}altLabel>"

# Words that never stand as an entity's other name, even capitalised at a sentence's start: pronouns,
# determiners and the like (a coreference chain holds "He" and "The company" beside the names).
_NOT_ALIASES = frozenset(
    """he she it they we i you him her hers his its them their theirs our ours us me my mine
your yours himself herself itself themselves this that these those who whom whose which what the a an""".split()
)
_PARTICLES = frozenset("of the and de du des la le van von der den di da del y for in on at".split())


def alias_names(name: str, aliases: Iterable[str]) -> list[str]:
    """The other names of entity `name` worth storing as skos:altLabel: each written like a name (its first
    letter a capital, every other word a capital-initial word or a short particle such as "of", "de"), not a
    pronoun or determiner, not the entity's own name folded, at most MAX_NAME characters and free of control
    characters. Sorted, one per folded form."""
    own = fold(name)
    out: dict[str, str] = {}
    for a in aliases:
        if not isinstance(a, str):
            continue
        a = " ".join(a.split())
        if not a or len(a) > MAX_NAME or not a[0].isupper() or any(ord(c) < 32 or ord(c) == 127 for c in a):
            continue
        words = a.split()
        if fold(a) == own or all(w.lower().strip(".,'") in _NOT_ALIASES for w in words):
            continue
        if (
            words[0].lower() in _NOT_ALIASES
            and len(words) > 1
            or not all(w[:1].isupper() or w[:1].isdigit() or w.lower() in _PARTICLES for w in words[1:])
        ):
            continue  # "The company", "His father": a description, not a name
        out.setdefault(fold(a), a)
    return sorted(out.values())


def alias_quads(name: str, aliases: Iterable[str]) -> list[Quad]:
    """skos:altLabel quads, in the entity graph, for the storable other names of `name` (`alias_names`)."""
    e = entity_ref(name)
    return [(e, ALT_LABEL, string_t(a), ENTITY_G) for a in alias_names(name, aliases)]


def claim_quad(aid: str, t: Triple) -> Quad:
    return (entity_ref(t.subject), predicate_ref(t.predicate), object_ref(t), claim_graph_ref(aid))


def record_quads(
    aid: str, t: Triple, kinds: Iterable[Ref], confidence: float, count: int, at: datetime, run: Ref, valid: Validity | None
) -> list[Quad]:
    a, G, r, when = assertion_ref(aid), PROV_G, ref(run), dt_t(at)
    b = belief_ref(aid, 1)
    q = [
        (a, TYPE, Mt.Assertion, G),
        (a, TYPE, Pt.Entity, G),
        *((a, TYPE, ref(k), G) for k in kinds),
        (a, Mt.claimGraph, claim_graph_ref(aid), G),
        (a, Mt.subject, entity_ref(t.subject), G),
        (a, Mt.predicate, predicate_ref(t.predicate), G),
        (a, Mt.object, object_ref(t), G),
        (a, Mt.confidence, dec_t(confidence), G),
        (a, Mt.count, integer_t(count), G),
        (a, Pt.generatedAtTime, when, G),
        (a, Pt.wasGeneratedBy, r, G),
        (a, Mt.belief, b, G),
        (b, TYPE, Mt.BeliefInterval, G),
        (b, Mt.believedFrom, when, G),
        (b, Mt.openedBy, r, G),
    ]
    if valid is not None:
        if valid.start is not None:
            q.append((a, Mt.validFrom, dt_t(valid.start), G))
        if valid.until is not None:
            q.append((a, Mt.validUntil, dt_t(valid.until), G))
    return q


SPAN_TYPES = [OAt.SpecificResource, Pt.Entity]  # the rdf:types of a span source (span_source_quads)


def span_source_quads(src: Ref, doc: Ref, start: int, end: int, chunk_index: int | None, confidence: float, at: datetime, run: Ref) -> list[Quad]:
    return _span_quads(*_span_terms(src, doc, start, end, chunk_index, confidence, at, run))


def span_source_text(src: Ref, doc: Ref, start: int, end: int, chunk_index: int | None, confidence: float, at: datetime, run: Ref) -> str:
    """The quads of `span_source_quads` as N-Quads lines, filled into a template made from that function
    (a third less work than building the quads and joining them; a batch writes tens of thousands)."""
    terms = _span_terms(src, doc, start, end, chunk_index, confidence, at, run)
    template, order = _SPAN_TEXT[chunk_index is not None]
    return template % tuple(map(terms.__getitem__, order))


def _span_terms(
    src: Ref, doc: Ref, start: int, end: int, chunk_index: int | None, confidence: float, at: datetime, run: Ref
) -> tuple[str, str, str, str, str, str | None, str, str, str]:
    s = ref(src)
    return (
        s,
        selector_ref(s),
        ref(doc),
        nni_t(start),
        nni_t(end),
        None if chunk_index is None else integer_t(chunk_index),
        dec_t(confidence),
        dt_t(at),
        ref(run),
    )


def _span_quads(s: str, sel: str, doc: str, start: str, end: str, chunk_index: str | None, confidence: str, at: str, run: str) -> list[Quad]:
    G = PROV_G
    q = [
        *((s, TYPE, c, G) for c in SPAN_TYPES),
        (s, OAt.hasSource, doc, G),
        (s, OAt.hasSelector, sel, G),
        (s, Mt.confidence, confidence, G),
        (s, Pt.generatedAtTime, at, G),
        (s, Pt.wasGeneratedBy, run, G),
        (sel, TYPE, OAt.TextPositionSelector, G),
        (sel, OAt.start, start, G),
        (sel, OAt.end, end, G),
    ]
    if chunk_index is not None:
        q.append((s, Mt.chunkIndex, chunk_index, G))
    return q


def _text_template(with_chunk: bool) -> tuple[str, tuple[int, ...]]:
    """`_span_quads` over placeholder terms, as a %-template and the order its slots take the terms in."""
    marks = [f"\x00{i}\x00" for i in range(9)]
    text = N.document(_span_quads(marks[0], marks[1], marks[2], marks[3], marks[4], marks[5] if with_chunk else None, marks[6], marks[7], marks[8]))
    parts = text.replace("%", "%%").split("\x00")  # odd parts are slot numbers
    return "%s".join(parts[0::2]), tuple(int(i) for i in parts[1::2])


_SPAN_TEXT = {False: _text_template(False), True: _text_template(True)}


def caller_source_quads(src: Ref, agent: Ref, note: str, confidence: float, at: datetime, run: Ref) -> list[Quad]:
    G, s = PROV_G, ref(src)
    q = [
        (s, TYPE, Mt.CallerStatement, G),
        (s, TYPE, Pt.Entity, G),
        (s, Pt.wasAttributedTo, ref(agent), G),
        (s, Mt.confidence, dec_t(confidence), G),
        (s, Pt.generatedAtTime, dt_t(at), G),
        (s, Pt.wasGeneratedBy, ref(run), G),
    ]
    if note:
        q.append((s, Mt.note, string_t(note), G))
    return q


_AGENT_CLASS = {"software": "SoftwareAgent", "person": "Person", "organization": "Organization"}


def agent_quads(agent: Ref, name: str, kind: str, model: str | None = None) -> list[Quad]:
    G, a = PROV_G, ref(agent)
    q = [(a, TYPE, Pt.Agent, G), (a, LABEL, string_t(name), G)]
    cls = _AGENT_CLASS.get(kind)
    if cls is not None:
        q.append((a, TYPE, getattr(Pt, cls), G))
    if model:
        q.append((a, Mt.model, string_t(model), G))
    return q


def activity_quads(run: Ref, kind: Ref, agent: Ref, started: datetime, plan: Ref | None = None, label: str | None = None) -> list[Quad]:
    G, r, ag = PROV_G, ref(run), ref(agent)
    q = [
        (r, TYPE, Pt.Activity, G),
        (r, TYPE, ref(kind), G),
        (r, Pt.startedAtTime, dt_t(started), G),
        (r, Pt.wasAssociatedWith, ag, G),
    ]
    if label:
        q.append((r, LABEL, string_t(label), G))
    if plan is not None:
        assoc = r[:-1] + "-association>"
        q += [
            (r, Pt.qualifiedAssociation, assoc, G),
            (assoc, TYPE, Pt.Association, G),
            (assoc, Pt.agent, ag, G),
            (assoc, Pt.hadPlan, ref(plan), G),
        ]
    return q


def plan_quads(plan: Ref, cls: Ref, label: str) -> list[Quad]:
    G, p = PROV_G, ref(plan)
    return [(p, TYPE, Pt.Plan, G), (p, TYPE, Pt.Entity, G), (p, TYPE, ref(cls), G), (p, LABEL, string_t(label), G)]


__all__ = [n for n in dir() if not n.startswith("_")]
