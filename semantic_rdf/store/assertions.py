"""The assertion store: the RDF layout of design.md over an embedded pyoxigraph store.

One claim graph per assertion (named from its FNV-1a id, holding exactly the claimed triple), one
shared provenance graph (records, spans, documents, activities, agents, plans, decisions,
tombstones), an entity registry graph and a document-text graph. Every write batch is checked
against shapes/ before it commits, and commits in one transaction.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

import pyoxigraph as ox

from semantic_rdf.rdf import layout as L, ntriples as N
from semantic_rdf.core.errors import InvalidInput, NotFound, SemanticError, StoreInUse
from semantic_rdf.core.events import StoreEvent, Subscriber, Subscribers, WrittenEntity, WrittenFact, WrittenSpan
from semantic_rdf.store.generation import fingerprint
from semantic_rdf.store.readers import Snapshot, open_read_only, sweep
from semantic_rdf.store import tombstones
from semantic_rdf.core.identity import assertion_id, fold
from semantic_rdf.rdf.queries import Term, bind, packaged
from semantic_rdf.core.values import MAX_NAME, MAX_TEXT, Doc, Triple, Validity, check_text
from semantic_rdf.core.vocab import (
    BASE,
    DOCUMENT_GRAPH,
    ENTITY_GRAPH,
    entity_classes,
    M,
    NS,
    OA_,
    P,
    PREFIXES,
    PROVENANCE_GRAPH,
    RDF_TYPE,
    RDFS_LABEL,
    agent_iri,
    assertion_iri,
    assertion_ref,
    entity_iri,
    id_of,
    iri_node,
    predicate_iri,
    predicate_name,
    segment_iri,
    slug,
)
from semantic_rdf.core.vocab import SKOS

_ALT_LABEL = ox.NamedNode(SKOS + "altLabel")  # an entity's other names (layout.alias_quads)

if TYPE_CHECKING:  # the shape checker (rdflib) loads on the first write, so reading verbs never pay for it
    from semantic_rdf.rdf.shapecheck import Settled
    from semantic_rdf.rdf.shapes import Report

__all__ = ["AssertionStore", "Record", "Source", "Run", "WriteReport", "FORMATS"]

FORMATS = {
    "nquads": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
    "jsonld": ox.RdfFormat.JSON_LD,
    "turtle": ox.RdfFormat.TURTLE,
    "ntriples": ox.RdfFormat.N_TRIPLES,
}
_DATASET_FORMATS = {"nquads", "trig", "jsonld"}
_KIND_CLASS = {"extracted": M.ExtractedAssertion, "supplied": M.SuppliedAssertion, "derived": M.DerivedAssertion}
_KIND_REF = {k: str(v) for k, v in _KIND_CLASS.items()}
_SHAPED = (L.PROV_G, L.ENTITY_G)  # the shapes describe these graphs only
_CLASS_KIND = {v.value: k for k, v in _KIND_CLASS.items()}
_TEXT_KIND = {v: k for k, v in _KIND_REF.items()}
_COUNT, _CONFIDENCE, _TOMBSTONE = L.Mt.count, L.Mt.confidence, L.Mt.Tombstone
_ADDED = frozenset({L.Pt.wasDerivedFrom})  # a repeat only adds sources to a record
_ACTIVITY_CLASS = {
    "ingestion": M.Ingestion,
    "statement": M.Statement,
    "derivation": M.Derivation,
    "retraction": M.Retraction,
    "reinstatement": M.Reinstatement,
    "erasure": M.Erasure,
    "decision": M.Decision,
}
# A batch of fresh quads larger than this (on disk) is written with Oxigraph's bulk loader (faster than a
# transaction) behind a redo journal (AssertionStore._journaled). Other batches are one transaction.
_BULK_THRESHOLD = 50_000
# On disk a repeat batch with more new source quads than this writes them ahead of the update that links
# them, behind the journal (bulk loaded above _BULK_THRESHOLD, else one transaction); a smaller one is one
# update, where a journal's fsync would cost more than the parsing it saves.
_SPLIT_THRESHOLD = 5_000
# On disk, the writer flushes once its transactions since the last flush have written this many quads. Until
# a flush they live only in RocksDB's log, which a read-only open (`stats` beside an `ingest`) replays whole: after
# 24,000 small assertions an open took 9 s and 660 MB (tests/test_concurrency.py, docs/security.md).
_FLUSH_AFTER = 50_000
JOURNAL = "journal.nq"
LINK_JOURNAL = "journal-link.ru"  # the update that links a journaled batch of new nodes (see _journaled)


MAX_WAIT = 86_400.0  # the longest `open(wait=…)`: a day; longer is a mistake, not a plan


def _locked(exc: OSError) -> bool:
    """Whether opening failed because another process holds RocksDB's lock on the directory."""
    return "lock" in str(exc).lower()


def _open_writable(data: Path, wait: float) -> ox.Store:
    """The writer's handle on `data`; while another process holds RocksDB's lock, tried again until `wait`
    seconds have passed (a few tries a second: a verb such as `ask` holds the store for a fraction of one).
    The last try's error goes to the caller."""
    deadline = time.monotonic() + wait
    pause = 0.02
    while True:
        try:
            return ox.Store(str(data))
        except OSError as exc:
            left = deadline - time.monotonic()
            if not _locked(exc) or left <= 0:
                raise
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.25)


def _prune_info_logs(data: Path, keep: int = 2) -> None:
    """Delete all but the newest `keep` of RocksDB's rotated informational logs (`LOG.old.<microseconds>`) in
    the store's data directory. Every writable open rotates one (about 130 KB: the options
    RocksDB prints as it opens) and RocksDB keeps a thousand, a limit pyoxigraph gives no way to lower, so a
    store that answered a thousand `ask` processes carried 130 MB of them beside 3 MB of data. They hold no
    data (store/generation.py leaves them out of the fingerprint); the caller holds the writer's lock, so no
    other process rotates one meanwhile. Housekeeping never fails an open: a log already gone, or one the file
    system will not delete, is left to the next open."""
    old = sorted((p for p in data.glob("LOG.old.*") if p.name[8:].isdigit()), key=lambda p: int(p.name[8:]))
    for p in old[: max(len(old) - keep, 0)]:
        try:
            p.unlink(missing_ok=True)
        except OSError:
            pass


def _write_synced(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Building and checking a batch allocates millions of small containers and no cycles; the cyclic
    collector would rescan the whole heap many times over for nothing (a third of the batch time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@dataclass(frozen=True)
class Source:
    """One observation behind an assertion."""

    kind: str  # 'span' | 'caller' | 'assertion'
    iri: str
    confidence: float | None = None
    doc_iri: str | None = None
    reference: str | None = None
    start: int | None = None
    end: int | None = None
    chunk_index: int | None = None
    note: str | None = None
    agent: str | None = None


@dataclass(frozen=True)
class Record:
    """An assertion as the store holds it. Names are display names (entity labels)."""

    id: str
    subject: str
    predicate: str
    object: str
    confidence: float
    count: int
    kinds: tuple[str, ...]
    sources: tuple[Source, ...] = ()
    valid: Validity | None = None
    generated_at: datetime | None = None
    believed: tuple[tuple[datetime, datetime | None], ...] = ()
    object_is_literal: bool = False

    @property
    def retracted(self) -> bool:
        return bool(self.believed) and self.believed[-1][1] is not None

    @property
    def kind(self) -> str:
        for k in ("extracted", "supplied", "derived"):
            if k in self.kinds:
                return k
        return "unknown"

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "confidence": self.confidence,
            "count": self.count,
            "kinds": list(self.kinds),
            "retracted": self.retracted,
            "valid_from": self.valid.start.isoformat() if self.valid and self.valid.start else None,
            "valid_until": self.valid.until.isoformat() if self.valid and self.valid.until else None,
            "generated_at": self.generated_at.isoformat() if self.generated_at else None,
            "sources": [s.__dict__ for s in self.sources],
        }


@dataclass
class Run:
    """An open prov:Activity. Writes made with it are generated by it."""

    iri: ox.NamedNode
    kind: str
    agent: ox.NamedNode
    started: datetime
    used: set[str] = field(default_factory=set)

    @property
    def id(self) -> str:
        return self.iri.value.rsplit("/", 1)[-1]


@dataclass
class WriteReport:
    ids: list[str] = field(default_factory=list)  # one per input triple, in order
    new: int = 0
    repeated: int = 0  # existing assertions that gained a new source
    unchanged: int = 0  # observations already recorded (same span / same caller statement)
    erased: int = 0  # observations of erased assertions, not written
    quads_added: int = 0
    observed: set[tuple[str, str]] = field(default_factory=set)  # (id, document IRI) of each span source added
    entities: set[str] = field(default_factory=set)  # IRIs of the entities whose registry rows it added or changed

    def merge(self, other: "WriteReport") -> None:
        self.ids += other.ids
        self.observed |= other.observed
        self.entities |= other.entities
        for k in ("new", "repeated", "unchanged", "erased", "quads_added"):
            setattr(self, k, getattr(self, k) + getattr(other, k))


class _Source(NamedTuple):
    """One observation a batch may add to a record: its source node and how to write it."""

    node: str  # N-Triples text of the source IRI
    fill: tuple  # the arguments of its layout template (span_source_* for 'extracted', caller_source_quads)
    confidence: float
    kind: str  # 'extracted' | 'supplied'
    doc: str | None  # N-Triples text of the document version it was read from (extracted only)


@dataclass
class _RecordState:
    """What a repeat reads of a stored record: not its sources, which it only adds to (count = distinct sources)."""

    types: list[N.NQ]  # its rdf:type quads
    count_q: N.NQ | None = None
    conf_q: N.NQ | None = None
    count: int = 0
    confidence: float = 0.0

    @property
    def kinds(self) -> set[str]:
        return {_TEXT_KIND[q[2]] for q in self.types if q[2] in _TEXT_KIND}

    @property
    def tombstone(self) -> bool:
        return any(q[2] == _TOMBSTONE for q in self.types)


class _BatchWrites:
    """What one batch of assertions writes, removes and checks, gathered record by record for one commit."""

    def __init__(self, at: datetime, run_ref: str, agent_ref: str, agent: str, note: str, *, tell: bool = False) -> None:
        self.at, self.run_ref, self.agent_ref, self.agent, self.note = at, run_ref, agent_ref, agent, note
        self.add: list[N.AnyQuad] = []
        self.remove: list[N.NQ] = []
        self.check: list[N.AnyQuad] = []
        self.settled: dict[str, Settled] = {}
        self.unlinked: list[N.NQ] = []  # the new source nodes of repeated records
        # The span sources of a batch are one template (layout.span_source_quads) filled with values their Triple
        # and Chunk checked when they were built (offsets, chunk index, confidence) and values the store makes
        # (time, run, document version). The first one of each document goes through the shape check, which so
        # checks the template and the document; the others differ from it only in those checked values, and
        # tests/test_shapes.py shows the template conforms for any of them, and checking each one was a large
        # share of an ingest's time (docs/layout.md). The others are written as N-Quads lines of the same
        # template (span_source_text).
        self.sampled: set[str] = set()  # documents whose span source this batch checks
        self.unchecked: dict[str, list[str]] = {}  # span sources it writes unchecked, with their rdf:types
        self.rendered: list[str] = []  # and their N-Quads text
        self.new_entities: dict[str, None] = {}
        self.entities: set[str] = set()  # IRIs of entities whose registry rows the batch adds or changes
        self.named: set[str] = set()  # the new entities, written with their other names
        # what the committed event tells (AssertionStore._told), gathered only when the store has subscribers
        self.tell = tell
        self.created: list[tuple[str, Triple]] = []  # (id, first observation) of each record the batch creates
        self.spans: list[WrittenSpan] = []
        self.labels: dict[str, str] = {}  # folded name -> label of each entity the batch registers
        self.told: dict[str, tuple[str, str | None, str | None, set[str]]] = {}  # IRI -> (folded, label, class, other names)

    def sources(self, aid: str, obs: list[Triple], docs: Mapping[str, str]) -> list[_Source]:
        """The source each observation of assertion `aid` gives: its span in a document, or the caller."""
        sources: list[_Source] = []
        for t in obs:
            if t.chunk is not None:
                d = docs[t.chunk.doc_id]
                start, end = t.span  # type: ignore[misc]
                src = L.span_ref(aid, d, start, end)
                fill: tuple = (src, d, start, end, t.chunk.index, t.confidence, self.at, self.run_ref)  # as _Source.fill
                sources.append(_Source(src, fill, t.confidence, "extracted", d))
            else:
                src = L.caller_ref(aid, self.agent, self.note)
                fill = (src, self.agent_ref, self.note, t.confidence, self.at, self.run_ref)
                sources.append(_Source(src, fill, t.confidence, "supplied", None))
        return sources

    def source(self, f: _Source, into: list) -> None:
        """Add the quads of source `f` to `into` and to the check, or to `rendered` if it is not sampled."""
        if f.kind != "extracted":
            q = L.caller_source_quads(*f.fill)
        elif f.doc in self.sampled:
            self.unchecked[f.node] = L.SPAN_TYPES
            self.rendered.append(L.span_source_text(*f.fill))
            return
        else:
            self.sampled.add(f.doc)  # type: ignore[arg-type]
            q = L.span_source_quads(*f.fill)
        into.extend(q)
        self.check.extend(q)


class _Clock:
    """UTC wall clock that never repeats or goes backwards within a store."""

    def __init__(self) -> None:
        self._last = datetime.min.replace(tzinfo=timezone.utc)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            t = datetime.now(timezone.utc)
            if t <= self._last:
                t = self._last + timedelta(microseconds=1)
            self._last = t
            return t

    def observe(self, t: datetime) -> None:
        with self._lock:
            if t > self._last:
                self._last = t


_CLAIM_PREFIX = BASE + "g/"
_LONG_TEXT = {M.note.value: "a source label (m:note)", M.reason.value: "a reason (m:reason)"}


_GRAPH_NODES = frozenset({PROVENANCE_GRAPH, ENTITY_GRAPH, DOCUMENT_GRAPH})  # the graphs described by subject
_ENTITY_PREFIX, _DOCUMENT_PREFIX = BASE + "e/", BASE + "doc/"
_OWN_GRAPHS = frozenset(g.value for g in _GRAPH_NODES)
_NodeKey = tuple[ox.NamedNode, ox.NamedNode]  # (graph, subject) of an imported node


def _claim_graph(g: str) -> bool:
    """Whether `g` names a claim graph as the store mints them: g/ and an assertion id (16 hex digits)."""
    return g.startswith(_CLAIM_PREFIX) and len(g) == len(_CLAIM_PREFIX) + 16 and all(c in "0123456789abcdef" for c in g[-16:])


def _check_imported(q: ox.Quad) -> None:
    """Whether an imported quad could be one of this store's. It is in one of the store's graphs (provenance,
    entities, documents, or a claim graph g/<id>): the default graph or any other is refused, as no verb reads
    it and `validate` would never see it. It holds no blank node and no RDF 1.2 triple term (`<<( s p o )>>`,
    which the parser reads): no record of this layout holds one (`push` refuses blank nodes too), an import's
    check goes by node (`AssertionStore._only_additions`), and the store's own N-Quads writer would not take
    a triple term back. And it keeps the limits `assert` keeps (values.MAX_NAME, MAX_TEXT), for names and texts
    an import brings in: entity labels and claimed literals are names; notes and reasons texts. Document text
    and metadata are not names."""
    g = q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else ""
    if g not in _OWN_GRAPHS and not _claim_graph(g):
        where = "the default graph" if isinstance(q.graph_name, ox.DefaultGraph) else f"graph {q.graph_name}"
        raise InvalidInput(
            f"a quad in {where}: import writes only this store's graphs (provenance, entities, documents and claim graphs <{_CLAIM_PREFIX}ID>)"
        )
    o = q.object
    if isinstance(q.subject, ox.Triple) or isinstance(o, ox.Triple):
        raise InvalidInput(f"a triple term in a quad of graph {q.graph_name}: this store's layout holds none")
    if isinstance(q.subject, ox.BlankNode) or isinstance(o, ox.BlankNode):
        raise InvalidInput(f"a blank node in a quad of graph {q.graph_name}: this store's layout holds none")
    if not isinstance(o, ox.Literal):
        return
    if g == ENTITY_GRAPH.value and q.predicate == RDFS_LABEL:
        check_text(f"entity name {o.value[:40]!r}…", o.value, MAX_NAME)
    elif g.startswith(_CLAIM_PREFIX):
        check_text(f"claimed literal {o.value[:40]!r}…", o.value, MAX_NAME)
    elif g == PROVENANCE_GRAPH.value and q.predicate.value in _LONG_TEXT:
        check_text(_LONG_TEXT[q.predicate.value], o.value, MAX_TEXT, required=False)


def _not_whole(node: ox.NamedNode, g: ox.NamedNode, problem: str) -> InvalidInput:
    """The refusal of an imported node the store does not hold and the input does not describe."""
    return InvalidInput(f"import adds whole records: {node} is not stored in graph {g}, and {problem}; nothing was written")


def _integrity(store: ox.Store) -> Iterator[tuple[str, str]]:
    """(record IRI, problem) for each rule of `AssertionStore.integrity` a record of `store` breaks."""
    for row in _solutions(store.query(packaged("integrity"))):
        yield row["a"].value, row["problem"].value
    for row in _solutions(store.query(packaged("records"))):  # streamed: one row per record (bounded memory)
        want = assertion_id(row["sf"].value, predicate_name(row["p"]), row["of"].value if row["of"] is not None else row["o"].value)
        if want != id_of(row["a"]):
            yield row["a"].value, f"id does not match its folded triple (expected {want})"


def _solutions(result: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples) -> ox.QuerySolutions:
    """The rows of a SELECT (the store's own queries are SELECTs)."""
    if not isinstance(result, ox.QuerySolutions):
        raise TypeError(f"a SELECT gave {type(result).__name__}")
    return result


def _parse_dt(term: ox.NamedNode | ox.BlankNode | ox.Literal) -> datetime:
    """A stored date-time literal; anything else there is malformed (a ValueError, as a bad lexical form is)."""
    if not isinstance(term, ox.Literal):
        raise ValueError(f"not a date-time literal: {term}")
    return L.parse_dt(term)


class AssertionStore:
    """Assertions with spans, two clocks and provenance, in an embedded Oxigraph store."""

    def __init__(self, store: ox.Store, path: Path | None, *, read_only: bool = False, snapshot: Snapshot | None = None):
        self.ox = store
        self.path = path
        self.read_only = read_only
        # the private copy of the directory a read-only handle reads (store/readers.py), removed at close
        self._snapshot = snapshot
        self._clock = _Clock()
        self._known_entities: set[str] = set()
        self._known_nodes: set[str] = set()
        # What a `committed` event tells its subscribers without their reading the write back (core/events.py):
        # the registry label of each entity this object has named in one, by folded name; and the documents it
        # stored that no assertion has named yet (the first write that names one says so).
        self._labels: dict[str, str] = {}
        self._sourceless: set[str] = set()
        # doc id -> the IRI of the version this object last stored: the assertions read from a document name
        # it right after `add_documents`, without reading back what was just written (docs/architecture.md)
        self._doc_iris: dict[str, ox.NamedNode] = {}
        # node (as text) -> its rdf:types in the provenance graph, for nodes this object wrote whole (a new
        # document, run or agent) and kept up to date by its own writes: the shape check of the next batch, which
        # points at them, reads their types here instead of from the store it has just written
        self._node_types: dict[str, list[str]] = {}
        self._lock = threading.RLock()
        # Nodes begun but not written yet (an open run's activity and a new agent), by IRI: the next commit
        # that writes anything carries them in its own transaction, so a run that commits nothing, or whose
        # writes are refused, leaves no trace (docs/security.md, "A refused write writes nothing").
        self._pending: dict[str, list[N.AnyQuad]] = {}
        self._unflushed = 0  # quads written in transactions since the last flush (see _FLUSH_AFTER)
        self._subscribers = Subscribers()  # told of each durable change (semantic_rdf/core/events.py)
        # the fingerprint of the files before this process opened them (store/generation.py); None when not
        # known: in memory, read-only, or changed at open by replaying a journal
        self.generation_at_open: str | None = None
        self._restore_clock()

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | Path | None, *, read_only: bool = False, wait: float = 0.0) -> "AssertionStore":
        """The store in directory `path` (in memory when None), created when missing unless `read_only`. One
        process writes a store at a time; `wait`: seconds a writer waits for another process to let the store
        go before `StoreInUse` (0: it does not wait). A reader never waits: it sees the last whole batch."""
        if path is None:
            return cls.memory()
        if not (isinstance(wait, (int, float)) and 0 <= wait <= MAX_WAIT):  # NaN fails both comparisons
            raise InvalidInput(f"wait must be a number of seconds from 0 to {MAX_WAIT:g}, not {wait!r}")
        root = Path(path)
        if root.exists() and not root.is_dir():
            raise InvalidInput(f"store path {str(root)!r} exists and is not a directory")
        data = root / "oxigraph"
        before = fingerprint(data) if not read_only and data.is_dir() else None
        snap: Snapshot | None = None
        try:
            if read_only:
                if not data.is_dir():
                    raise NotFound(f"no store at {str(root)!r}")
                st, snap = open_read_only(data, root)
            else:
                data.mkdir(parents=True, exist_ok=True)
                st = _open_writable(data, wait)
                _prune_info_logs(data)
                sweep(root)
        except OSError as exc:
            if _locked(exc):
                waited = f" (waited {wait:g} s)" if wait and not read_only else ""
                raise StoreInUse(f"store {str(root)!r} is in use by another process{waited}") from None
            raise InvalidInput(f"cannot open store {str(root)!r}: {exc}") from None
        try:
            store = cls(st, root, read_only=read_only, snapshot=snap)
        except BaseException:
            del st
            if snap is not None:
                snap.close()
            raise
        if not read_only and not store._replay_journal():
            store.generation_at_open = before
        return store

    def _journaled(self, nquads: bytes, count: int, link: str | None = None) -> None:
        """Write a big batch of fresh quads (`nquads`, an N-Quads document of `count` lines) through the bulk
        loader behind a redo journal: JOURNAL is written, fsynced and renamed into place (the commit point),
        bulk loaded, then removed. Opening a store replays a journal left by a crash; quads being sets, a
        batch that had landed in whole or in part comes out the same. (A batch that also removes quads is
        one transaction instead: the bulk loader cannot make the removal and the addition visible at once,
        tests/test_concurrency.py.)

        `link`, a SPARQL update, is run after the load: the quads are then new nodes that nothing points at
        until it runs (a repeat batch's new sources; it links them and moves counts). It is journaled before
        the commit point and replayed after the quads; run twice it changes nothing more."""
        journal = self.path / JOURNAL  # type: ignore[operator]
        linker = self.path / LINK_JOURNAL  # type: ignore[operator]
        if link is None:
            linker.unlink(missing_ok=True)
        else:
            _write_synced(linker, link.encode("utf-8"))  # ignored unless JOURNAL follows
        _write_synced(journal, nquads)
        if count > _BULK_THRESHOLD:
            self.ox.bulk_load(path=str(journal), **N.OWN)
        else:  # only a link batch comes this small
            self._transaction(nquads)
        if link is not None:
            self.ox.update(link)
        self.ox.flush()
        self._unflushed = 0
        journal.unlink()
        linker.unlink(missing_ok=True)

    def _replay_journal(self) -> bool:
        """Finish a journaled batch a crash left; True when one was replayed (the store changed at open)."""
        journal = self.path / JOURNAL  # type: ignore[operator]
        linker = self.path / LINK_JOURNAL  # type: ignore[operator]
        for half in (journal, linker):
            half.with_suffix(".tmp").unlink(missing_ok=True)  # a batch never journaled was never acknowledged
        if journal.exists():
            self.ox.load(path=str(journal), **N.OWN)
            if linker.exists():
                self.ox.update(linker.read_text(encoding="utf-8"))
            self.ox.flush()
            journal.unlink()
            linker.unlink(missing_ok=True)
            return True
        linker.unlink(missing_ok=True)  # without JOURNAL: written before a commit point never reached
        return False

    @classmethod
    def memory(cls) -> "AssertionStore":
        return cls(ox.Store(), None)

    def close(self) -> None:
        """Release the store; an on-disk one opened for writing then publishes `closed` (with the fingerprint
        of its files, for the side tables' mark)."""
        at_rest = self._release()
        if at_rest is not None and self.path is not None and not self.read_only:
            # the files as the next process will find them, for the side tables' mark (store/generation.py);
            # unknown when something may still hold the directory open
            gen = fingerprint(self.path / "oxigraph") if at_rest else None
            self.publish(StoreEvent("closed", path=str(self.path), generation=gen))

    def _release(self) -> bool | None:
        """Flush and drop the handle: None when it was closed before, else whether the directory is at rest
        (nothing else held the handle, so RocksDB closed it now)."""
        if self.ox is not None and not self.read_only:
            try:
                self.ox.flush()
            except OSError:
                pass
        st, self.ox = self.ox, None  # type: ignore[assignment]
        snap, self._snapshot = self._snapshot, None
        if st is None:
            return None
        # release the RocksDB lock now, not at interpreter exit: dropping the last reference does it; a store
        # still referenced elsewhere (a cycle, a result iterator) needs the collector, which costs every CLI verb time (docs/answer.md)
        at_rest = released = sys.getrefcount(st) <= 2  # 2: `st` and getrefcount's argument
        if not at_rest:
            gc.collect()
            released = sys.getrefcount(st) <= 2
        del st
        if snap is not None and released:
            snap.close()  # else what holds the handle may yet read its files: kept, and swept by an open after this process ends
        return at_rest

    def __enter__(self) -> "AssertionStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def now(self) -> datetime:
        return self._clock.now()

    # ------------------------------------------------------------------ events (semantic_rdf/core/events.py)
    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(StoreEvent)` after each durable change of this store object; returns the
        function that unsubscribes it. docs/architecture.md ("Store events")."""
        return self._subscribers.subscribe(callback)

    def subscribers(self) -> tuple[Subscriber, ...]:
        return self._subscribers.callbacks()

    def publish(self, event: StoreEvent) -> None:
        """Tell the subscribers of a change already durable. Called by the store and by the modules that
        change its state through `commit` (temporal, erasure, reason); every subscriber runs, then the first
        failure is re-raised (the change stands)."""
        self._subscribers.publish(event)

    def forget(self, entities: Iterable[str] = (), nodes: Iterable[str] = ()) -> None:
        """Drop erased entity and node IRIs from what this object remembers having written (it skips
        rewriting a registry row or a document node it has seen), so a later write states them again."""
        nodes = set(nodes)
        with self._lock:
            self._known_entities.difference_update(entities)
            self._known_nodes.difference_update(nodes)
            self._labels.clear()
            self._sourceless.difference_update(nodes)
            for doc_id in [k for k, v in self._doc_iris.items() if v.value in nodes]:
                del self._doc_iris[doc_id]
            for n in nodes:
                self._node_types.pop(f"<{n}>", None)

    def _restore_clock(self) -> None:
        rows = self.ox.query(
            "SELECT (MAX(?t) AS ?m) WHERE { GRAPH <https://w3id.org/semantic-rdf/graph/provenance> "
            "{ ?x <http://www.w3.org/ns/prov#startedAtTime> ?t } }"
        )
        for row in _solutions(rows):
            if row["m"] is not None:
                self._clock.observe(L.parse_dt(row["m"]))

    def _writable(self) -> None:
        if self.read_only:
            raise InvalidInput("store is open read-only")

    # ------------------------------------------------------------------ low-level commit
    def has(
        self,
        s: ox.NamedNode | ox.BlankNode,
        p: ox.NamedNode,
        g: ox.NamedNode = PROVENANCE_GRAPH,
        o: ox.NamedNode | ox.BlankNode | ox.Literal | None = None,
    ) -> bool:
        """Whether the store holds a quad `s p o g` (any object when `o` is None; the provenance graph by default)."""
        if o is not None:
            return ox.Quad(s, p, o, g) in self.ox
        for _ in self.ox.quads_for_pattern(s, p, None, g):
            return True
        return False

    def _stored_types(self, iri: str) -> list[str]:
        """rdf:types (as text) a node has in the provenance graph: the shape check asks for the nodes a
        batch points at but does not describe (for sh:class). Those of a node this object wrote whole come
        from `_node_types`, not from the store."""
        known = self._node_types.get(iri)
        return list(known) if known is not None else self._stored_values(iri, L.TYPE)

    def _stored_values(self, iri: str, path: str) -> list[str]:
        """The values (as text) of a node on a path in the provenance graph: the shape check asks for those of
        a node a batch lists in part (`settled`) where the listed ones cannot decide a constraint."""
        return [str(q.object) for q in self.ox.quads_for_pattern(ox.NamedNode(iri[1:-1]), ox.NamedNode(path[1:-1]), None, PROVENANCE_GRAPH)]

    def commit(
        self,
        add: Sequence[N.AnyQuad],
        remove: Sequence[N.AnyQuad] = (),
        *,
        check: Sequence[N.AnyQuad] | None = None,
        settled: Mapping[str, Settled] | None = None,
        unlinked: Sequence[N.NQ] = (),
        types: Mapping[str, list[str]] | None = None,
        rendered: str = "",
        fresh: Iterable[str] = (),
    ) -> int:
        """Check the batch against the shapes, then write it in one transaction (or, for a big batch of
        fresh quads on disk, through the journaled bulk loader). Quads may be pyoxigraph or text made by
        layout.py / ntriples.py only: Oxigraph reads the text without validating its IRIs again (`N.OWN`).
        `check` (default `add` and `unlinked`) is what the shapes see; `settled` the stored nodes it lists in
        part. `unlinked` are quads of new nodes that nothing stored points at before `add` links them;
        `rendered`, N-Quads lines, more such quads, which `check` leaves out: `types` gives their nodes'
        rdf:types (see `_assert_batch`); `fresh`, nodes (as text) the batch writes whole, whose types the store
        then remembers for the shape checks of later batches. Returns the number of quads written."""
        self._writable()
        with self._lock:
            pending = dict(self._pending) if (add or remove or unlinked or rendered) else {}
            written = self._commit([q for qs in pending.values() for q in qs], add, remove, check, settled, unlinked, types, rendered)
            for key in pending:  # written with this transaction
                self._pending.pop(key, None)
                self._known_nodes.add(key)
            self._follow_types({f"<{k}>" for k in pending} | set(fresh), [q for qs in pending.values() for q in qs] + list(add), remove)
            return written

    def _follow_types(self, fresh: set[str], added: Sequence[N.AnyQuad], removed: Sequence[N.AnyQuad]) -> None:
        """Keep `_node_types` equal to the store for the nodes it holds: `fresh` nodes (written whole by this
        commit) enter it with the types written; a known node's types follow the commit's type quads."""
        if not fresh and not self._node_types:
            return
        for node in fresh:
            self._node_types.setdefault(node, [])
        for quads, keep in ((added, True), (removed, False)):
            for q in quads:
                s_, p_, o_, g_ = q if type(q) is tuple else N.of(q)
                if p_ != L.TYPE or g_ != L.PROV_G or s_ not in self._node_types:
                    continue
                have = self._node_types[s_]
                if keep and o_ not in have:
                    have.append(o_)
                elif not keep and o_ in have:
                    have.remove(o_)

    def _commit(
        self,
        pending: list[N.AnyQuad],
        add: Sequence[N.AnyQuad],
        remove: Sequence[N.AnyQuad],
        check: Sequence[N.AnyQuad] | None,
        settled: Mapping[str, Settled] | None,
        unlinked: Sequence[N.NQ],
        types: Mapping[str, list[str]] | None,
        rendered: str,
    ) -> int:
        texts: list[N.NQ] = [q if type(q) is tuple else N.of(q) for q in list(pending) + list(add)]
        described = list(unlinked) + texts if check is None else [q if type(q) is tuple else N.of(q) for q in list(pending) + list(check)]
        checked = [q for q in described if q[3] in _SHAPED]
        types_of = self._stored_types if not types else (lambda node: types.get(node) or self._stored_types(node))
        from semantic_rdf.rdf.shapecheck import shape_check

        shape_check().enforce(checked, types_of, settled=settled, stored=self._stored_values)
        n_new = len(unlinked) + rendered.count("\n")  # quads of new nodes
        written = len(texts) + n_new
        if n_new and remove and (self.path is None or n_new > _SPLIT_THRESHOLD):
            # A repeat batch's new sources go ahead of the update that links them and moves the counts: no
            # query reaches a source before its record links it, and the update has a sixth of the text to
            # parse (Oxigraph loads N-Quads faster than it runs INSERT DATA). In memory there is no
            # crash to survive; on disk the sources go behind the redo journal, which holds the linking update
            # too, so a crash between the two is redone at the next open.
            link = N.update([N.of(q) for q in remove], texts)
            text = N.encode(N.document(unlinked) + rendered)
            if self.path is None:
                self.ox.load(text, **N.OWN)
                self.ox.update(link)
            else:
                self._journaled(text, n_new, link)
            return written
        if rendered and remove:  # a small repeat batch on disk: one update, which takes quads, not lines
            unlinked = list(unlinked) + [N.of(q) for q in ox.parse(N.encode(rendered), **N.OWN)]
            rendered = ""
        texts = list(unlinked) + texts
        if remove:
            self.ox.update(N.update([N.of(q) for q in remove], texts))
            if self.path is not None:
                self._written(len(remove) + len(texts))
            return written
        if not written:
            return 0
        nquads = N.encode(N.document(texts) + rendered)  # parsed whole (checked by Oxigraph) before writing
        if self.path is None:  # one transaction
            self.ox.load(nquads, **N.OWN)
        elif written > _BULK_THRESHOLD:
            self._journaled(nquads, written)
        else:
            self._transaction(nquads)
        return written

    def _transaction(self, nquads: bytes) -> None:
        """Write N-Quads text on disk in one transaction, parsed whole first. Not Store.load: on disk it
        ingests new files, which races with read-only opens of the directory (tests/test_concurrency.py)."""
        quads = list(ox.parse(nquads, **N.OWN))
        self.ox.extend(quads)
        self._written(len(quads))

    def _written(self, quads: int) -> None:
        """Count quads written on disk outside the bulk loader; flush once they reach _FLUSH_AFTER, so that a
        read-only open never has more than that to replay from the log."""
        self._unflushed += quads
        if self._unflushed >= _FLUSH_AFTER:
            self.ox.flush()
            self._unflushed = 0

    # ------------------------------------------------------------------ runs, agents, documents
    def ensure_agent(self, name: str, kind: str = "software", model: str | None = None) -> ox.NamedNode:
        """The agent's IRI; a new agent is written with the next commit (not on its own: see `_pending`)."""
        a, quads = self._agent(name, kind, model)
        if quads:
            self._pending.setdefault(a.value, quads)
        return a

    def _agent(self, name: str, kind: str, model: str | None) -> tuple[ox.NamedNode, list[N.AnyQuad]]:
        """An agent's IRI and, unless it is stored, the quads that describe it."""
        check_text("agent name", name, MAX_NAME)
        a = agent_iri(name)
        if a.value in self._known_nodes:
            return a, []
        if self.has(a, RDF_TYPE):
            self._known_nodes.add(a.value)
            return a, []
        return a, list(L.agent_quads(a, name, kind, model))

    def ensure_plan(
        self, name: str, cls: ox.NamedNode = M.Rule, label: str | None = None, extra: Sequence[tuple[ox.NamedNode, ox.Literal | ox.NamedNode]] = ()
    ) -> ox.NamedNode:
        """A prov:Plan (an m:Rule or m:Policy) by name, written once, with `extra` (predicate, object) pairs."""
        plan, quads = self.plan_quads(name, cls, label, extra)
        if quads:
            self.commit(quads)
        self._known_nodes.add(plan.value)
        return plan

    def plan_quads(
        self, name: str, cls: ox.NamedNode = M.Rule, label: str | None = None, extra: Sequence[tuple[ox.NamedNode, ox.Literal | ox.NamedNode]] = ()
    ) -> tuple[ox.NamedNode, list[N.AnyQuad]]:
        """`ensure_plan`'s plan and, unless it is stored, the quads that describe it, for a caller to write with
        the first batch that refers to it (so that work refused before it writes nothing)."""
        plan = segment_iri("rule" if cls == M.Rule else "policy", slug(name) + "-" + L.h16(name)[:8])
        if plan.value in self._known_nodes or self.has(plan, RDF_TYPE):
            return plan, []
        quads: list[N.AnyQuad] = [*L.plan_quads(plan, cls, label or name)]
        return plan, quads + [ox.Quad(plan, p, o, PROVENANCE_GRAPH) for p, o in extra]

    def begin_run(
        self,
        kind: str = "ingestion",
        *,
        agent: str = "caller",
        agent_kind: str | None = None,
        model: str | None = None,
        plan: ox.NamedNode | None = None,
        label: str | None = None,
    ) -> Run:
        if kind not in _ACTIVITY_CLASS:
            raise InvalidInput(f"unknown activity kind {kind!r}")
        akind = agent_kind or ("person" if kind in {"statement", "retraction", "erasure", "reinstatement"} and agent == "caller" else "software")
        a, agent_q = self._agent(agent, akind, model)
        started = self.now()
        run = Run(segment_iri("run", uuid.uuid4().hex), kind, a, started)
        # Not committed now: the run's first write carries its activity (and its agent, if new), so a run
        # that writes nothing is never recorded. Its agent goes with it, not alone: dropped with the run.
        self._pending[run.iri.value] = agent_q + list(L.activity_quads(run.iri, _ACTIVITY_CLASS[kind], a, started, plan, label))
        return run

    def record_run(self, run: Run) -> None:
        """Write a begun run's activity now, before it has written anything (else its first commit does)."""
        quads = self._pending.get(run.iri.value)
        if quads:
            self.commit(list(quads))

    def recorded(self, run: Run) -> bool:
        """Whether the run's activity is in the store (it is once the run has written something)."""
        return run.iri.value not in self._pending

    def end_run(self, run: Run) -> None:
        """Close a run: its end time if it wrote anything, else it is forgotten (nothing of it was stored)."""
        with self._lock:
            if self._pending.pop(run.iri.value, None) is not None:
                return
        q = [ox.Quad(run.iri, P.endedAtTime, L.dt(self.now()), PROVENANCE_GRAPH)]
        node = L.ref(run.iri)
        types = self._node_types.get(node)
        if types is None:  # a run this object did not write whole: the shapes see the node as stored
            self.commit(q, check=q + list(self.ox.quads_for_pattern(run.iri, None, None, PROVENANCE_GRAPH)))
            return
        from semantic_rdf.rdf.shapecheck import Settled

        # The run conformed when its activity was written; the end time only adds a value. The shapes see its
        # types and start time as this object wrote them (the start is compared with the end), not read back.
        known: list[N.AnyQuad] = [(node, L.TYPE, t, L.PROV_G) for t in types]
        known.append((node, L.Pt.startedAtTime, L.dt_t(run.started), L.PROV_G))
        self.commit(q, check=[*q, *known], settled={node: Settled(frozenset(types), frozenset({L.Pt.endedAtTime}))})

    @contextmanager
    def run(self, kind: str = "ingestion", **kw) -> Iterator[Run]:
        r = self.begin_run(kind, **kw)
        try:
            yield r
        finally:
            if self.ox is not None:
                self.end_run(r)

    def add_document(self, doc: Doc, run: Run | None = None) -> ox.NamedNode:
        """Store a document (origin and normalised text). Idempotent for the same id and content."""
        return self.add_documents([doc], run)[0]

    def add_documents(self, docs: Sequence[Doc], run: Run | None = None) -> list[ox.NamedNode]:
        """Store documents in one checked batch: all of them or, if one is refused, none."""
        with self._lock:
            shas = [L.doc_sha256(d) for d in docs]
            iris = [L.doc_iri(d.id, sha) for d, sha in zip(docs, shas)]
            quads: list[N.AnyQuad] = []
            fresh: set[str] = set()
            for doc, sha, iri in zip(docs, shas, iris):
                if iri.value not in self._known_nodes and iri.value not in fresh and not self.has(iri, M.sha256):
                    quads += L.document_quads(doc, iri, sha)
                    fresh.add(iri.value)
            used = [] if run is None else [i for i in dict.fromkeys(iris) if i.value not in run.used]
            quads += [ox.Quad(run.iri, P.used, i, PROVENANCE_GRAPH) for i in used]  # type: ignore[union-attr]
            if quads:
                self.commit(quads, fresh={f"<{f}>" for f in fresh})
                self._sourceless |= fresh
            if run is not None:
                run.used.update(i.value for i in used)
            self._known_nodes.update(i.value for i in iris)
            self._doc_iris.update((d.id, i) for d, i in zip(docs, iris))
            return iris

    def document_iri(self, doc: Doc) -> ox.NamedNode:
        return L.doc_iri(doc.id, L.doc_sha256(doc))

    def has_document(self, doc: Doc) -> bool:
        """Whether this document, with this very content, is stored."""
        return self.has(self.document_iri(doc), M.sha256)

    def document_text(self, doc: Doc | str | ox.NamedNode) -> str:
        iri = doc if isinstance(doc, ox.NamedNode) else (self.document_iri(doc) if isinstance(doc, Doc) else self._doc_iri_by_id(doc))
        for q in self.quads(iri, M.text, None, DOCUMENT_GRAPH):
            return q.object.value
        raise NotFound(f"no stored text for document {iri.value}")

    def _doc_iri_by_id(self, doc_id: str) -> ox.NamedNode:
        if doc_id.startswith("https://"):
            return iri_node(doc_id, "document")
        known = self._doc_iris.get(doc_id)
        if known is not None:
            return known
        found = [q.subject for q in self.ox.quads_for_pattern(None, ox.NamedNode(NS + "docId"), ox.Literal(doc_id), PROVENANCE_GRAPH)]
        if not found:
            raise NotFound(f"no document with id {doc_id!r}")
        return found[-1]  # type: ignore[return-value]

    # ------------------------------------------------------------------ writing assertions
    def assert_(
        self,
        subject: str,
        predicate: str,
        obj: str,
        *,
        score: float | None = None,
        valid: Validity | None = None,
        agent: str = "caller",
        note: str = "",
        entity_types: Mapping[str, str] | None = None,
        on_erased: str = "refuse",
    ) -> str:
        """Write one caller-supplied assertion; returns its id. An erased id is refused (ErasedData) or, with
        on_erased='skip', not written (nothing is recorded) and its id returned."""
        t = Triple(subject, predicate, obj, score=score, valid=valid)
        check_text("source", note, MAX_TEXT, required=False)
        predicate_iri(t.predicate)  # refuse before the statement activity is begun
        aid = assertion_id(t.subject, t.predicate, t.object)
        if self.has(assertion_iri(aid), RDF_TYPE, o=M.Tombstone):  # tombstones win (docs/security.md)
            if on_erased == "skip":
                return aid  # nothing is written, not even the statement activity
            from semantic_rdf.store.tombstones import refuse_erased

            refuse_erased(self, aid)  # ErasedData
        with self.run("statement", agent=agent) as run:
            return self.assert_triples([t], run=run, note=note, entity_types=entity_types).ids[0]

    def assert_triples(
        self,
        triples: Iterable[Triple],
        *,
        run: Run,
        note: str = "",
        entity_types: Mapping[str, str] | None = None,
        aliases: Mapping[str, Iterable[str]] | None = None,
    ) -> WriteReport:
        """Write a batch atomically. Triples with a chunk are source-read (their document must have
        been added with `add_document`); triples without are caller-supplied (attributed to the run's agent).
        `entity_types` names the ontology class of a new entity; `aliases` an entity's other names, stored
        as skos:altLabel in the same batch (layout.alias_names keeps only name-like ones)."""
        self._writable()
        check_text("source", note, MAX_TEXT, required=False)
        triples = list(triples)
        with self._lock, _gc_paused():
            w = _BatchWrites(self.now(), str(run.iri), str(run.agent), run.agent.value, note, tell=bool(self._subscribers.callbacks()))
            report = self._assert_batch(w, triples, entity_types or {}, aliases or {})
            told = self._told(w) if w.tell and report.quads_added else None
        if report.quads_added:  # outside the lock: no subscriber runs while it is held
            facts, spans, registered, documents = told or (None, (), None, ())
            self.publish(
                StoreEvent(
                    "committed",
                    tuple(dict.fromkeys(report.ids)),
                    observed=tuple(sorted(report.observed)),
                    entities=tuple(sorted(report.entities)),
                    facts=facts,
                    spans=spans,
                    registered=registered,
                    documents=documents,
                )
            )
        return report

    def _assert_batch(
        self, w: _BatchWrites, triples: list[Triple], entity_types: Mapping[str, str], aliases: Mapping[str, Iterable[str]] = {}
    ) -> WriteReport:
        report = WriteReport()
        groups, docs = self._group(triples, report)
        for aid, obs in groups.items():
            state = self._record_state(aid)
            if state is not None and state.tombstone:
                report.erased += len(obs)
                continue
            fresh = self._unrecorded(aid, state, w.sources(aid, obs, docs))
            report.unchanged += len(obs) - len(fresh)
            report.observed.update((aid, f.doc[1:-1]) for f in fresh if f.doc is not None)
            if w.tell:
                w.spans += [WrittenSpan(aid, f.doc[1:-1], f.fill[2]) for f in fresh if f.doc is not None]
            if state is None:
                self._new_record(w, aid, obs[0], fresh, entity_types, aliases)
                if w.tell:
                    w.created.append((aid, obs[0]))
                report.new += 1
            elif fresh:
                self._repeat_record(w, aid, state, fresh)
                report.repeated += 1
        self._other_names(w, aliases)
        if w.add:
            report.quads_added = self.commit(
                w.add, w.remove, check=w.check, settled=w.settled, unlinked=w.unlinked, types=w.unchecked, rendered="".join(w.rendered)
            )
            self._known_entities.update(w.new_entities)
            report.entities = w.entities
        return report

    def _told(self, w: _BatchWrites) -> tuple[tuple[WrittenFact, ...], tuple[WrittenSpan, ...], tuple[WrittenEntity, ...], tuple[str, ...]]:
        """What a committed batch tells its subscribers (StoreEvent's facts, spans, registered, documents): the
        records it created, named as `believed-of.rq` and the registry name them, from what the batch wrote and
        the labels this object has named before (an entity it has not named yet: its label read once)."""
        self._labels.update(w.labels)

        def label(name: str) -> str:
            key = fold(name)
            got = self._labels.get(key)
            if got is None:
                got = self._labels[key] = self.label(entity_iri(name))
            return got

        facts = tuple(
            WrittenFact(aid, label(t.subject), predicate_name(predicate_iri(t.predicate)), t.object if t.datatype else label(t.object))
            for aid, t in w.created
        )
        registered = tuple(WrittenEntity(iri, *w.told[iri][:3], tuple(sorted(w.told[iri][3]))) for iri in sorted(w.told))
        documents = tuple(sorted({s.document for s in w.spans} & self._sourceless))
        self._sourceless.difference_update(documents)
        return facts, tuple(w.spans), registered, documents

    def _group(self, triples: list[Triple], report: WriteReport) -> tuple[dict[str, list[Triple]], dict[str, str]]:
        """The batch's observations by assertion id (their ids in `report`, in order), and the IRI of each
        document they were read from, by document id."""
        groups: dict[str, list[Triple]] = {}
        docs: dict[str, str] = {}
        for t in triples:
            if not isinstance(t, Triple):
                raise InvalidInput(f"expected Triple, got {type(t).__name__}")
            predicate_iri(t.predicate)  # schema check: raises InvalidInput naming the predicate
            aid = assertion_id(t.subject, t.predicate, t.object)
            report.ids.append(aid)
            groups.setdefault(aid, []).append(t)
            if t.chunk is not None and t.chunk.doc_id not in docs:
                docs[t.chunk.doc_id] = str(self._doc_iri_by_id(t.chunk.doc_id))
        return groups, docs

    def _unrecorded(self, aid: str, state: _RecordState | None, sources: list[_Source]) -> list[_Source]:
        """`sources` less those repeated within the batch and those the stored record has already."""
        seen: dict[str, _Source] = {}
        for src_ in sources:
            seen.setdefault(src_.node, src_)
        node = assertion_iri(aid)
        return list(seen.values()) if state is None else [v for k, v in seen.items() if not self.has(node, P.wasDerivedFrom, o=ox.NamedNode(k[1:-1]))]

    def _new_record(
        self, w: _BatchWrites, aid: str, first: Triple, fresh: list[_Source], entity_types: Mapping[str, str], aliases: Mapping[str, Iterable[str]]
    ) -> None:
        a = assertion_ref(aid)
        kinds = sorted({f.kind for f in fresh})
        conf = max(f.confidence for f in fresh)
        new_q = L.record_quads(aid, first, [_KIND_REF[k] for k in kinds], conf, len(fresh), w.at, w.run_ref, first.valid)
        new_q.append(L.claim_quad(aid, first))
        for f in fresh:
            w.source(f, w.add)
            new_q.append((a, L.Pt.wasDerivedFrom, f.node, L.PROV_G))
        w.add += new_q
        w.check += new_q
        self._new_entities(w, first, entity_types, aliases)

    def _new_entities(self, w: _BatchWrites, first: Triple, entity_types: Mapping[str, str], aliases: Mapping[str, Iterable[str]]) -> None:
        """The entities a new record names that neither the store nor the batch holds yet, with their class
        and other names."""
        for name in (first.subject,) + (() if first.datatype else (first.object,)):
            key = fold(name)
            if key not in w.new_entities and key not in self._known_entities:
                if self.has(entity_iri(name), M.folded, ENTITY_GRAPH):
                    self._known_entities.add(key)
                else:
                    w.new_entities[key] = None
                    cls = entity_types.get(name)
                    known_cls = cls if cls in entity_classes() else None  # else Thing: no class outside the ontology's
                    cq = L.entity_quads(name, ox.NamedNode(NS + known_cls) if known_cls else None, aliases.get(name, ()))
                    w.add += cq
                    w.check += cq
                    w.named.add(name)
                    iri = entity_iri(name).value
                    w.entities.add(iri)
                    if w.tell:  # as entity_quads writes them
                        w.labels[key] = " ".join(name.split())
                        w.told[iri] = (key, w.labels[key], known_cls or "Thing", set(L.alias_names(name, aliases.get(name, ()))))

    def _repeat_record(self, w: _BatchWrites, aid: str, state: _RecordState, fresh: list[_Source]) -> None:
        """Add `fresh` sources to a stored record, with its new count, confidence and kinds."""
        from semantic_rdf.rdf.shapecheck import Settled

        if state.count_q is None or state.conf_q is None:  # the shapes require both: written outside this tool
            raise InvalidInput(
                f"assertion {aid} has a malformed record (no count or confidence): "
                "the store was not written by semantic-rdf, or was changed outside it"
            )

        a, G = assertion_ref(aid), L.PROV_G
        kinds_now = set(state.kinds)
        new_q: list[N.NQ] = []
        for f in fresh:
            w.source(f, w.unlinked)
            new_q.append((a, L.Pt.wasDerivedFrom, f.node, G))
            if f.kind not in kinds_now:
                kinds_now.add(f.kind)
                new_q.append((a, L.TYPE, _KIND_REF[f.kind], G))
        conf = max([state.confidence] + [f.confidence for f in fresh])
        new_q.append((a, L.Mt.count, L.integer_t(state.count + len(fresh)), G))
        new_q.append((a, L.Mt.confidence, L.dec_t(conf), G))
        w.remove += [state.count_q, state.conf_q]
        w.add += new_q
        # the stored sources stand and met the monotone source constraints: only the additions are checked
        w.check += state.types + new_q
        w.settled[a] = Settled(frozenset(q[2] for q in state.types), _ADDED)

    def _other_names(self, w: _BatchWrites, aliases: Mapping[str, Iterable[str]]) -> None:
        """The other names of entities the store held already (or that a repeated record names)."""
        for name, other in aliases.items():
            if name in w.named or not isinstance(name, str) or not other:
                continue
            try:
                e = entity_iri(name)
            except SemanticError:
                continue
            if fold(name) not in w.new_entities and not self.has(e, M.folded, ENTITY_GRAPH):
                continue  # not an entity this batch or the store holds (its triples were refused or erased)
            added = [a for a in L.alias_names(name, other) if not self.has(e, _ALT_LABEL, ENTITY_GRAPH, o=ox.Literal(a))]
            aq = L.alias_quads(name, added)
            w.add += aq
            w.check += aq
            if aq:
                w.entities.add(e.value)
                if w.tell:
                    w.told.setdefault(e.value, (fold(name), None, None, set()))[3].update(added)

    def _record_state(self, aid: str) -> _RecordState | None:
        """The stored record of an assertion (its types, count and confidence) as text quads, or None. A few
        reads whatever the number of its sources."""
        node, a, G = assertion_iri(aid), assertion_ref(aid), L.PROV_G
        types = [str(q.object) for q in self.ox.quads_for_pattern(node, RDF_TYPE, None, PROVENANCE_GRAPH)]
        if not types:
            return None
        state = _RecordState([(a, L.TYPE, o, G) for o in types])
        for q in self.quads(node, M.count, None, PROVENANCE_GRAPH):
            state.count_q, state.count = (a, _COUNT, str(q.object), G), int(q.object.value)
        for q in self.quads(node, M.confidence, None, PROVENANCE_GRAPH):
            state.conf_q, state.confidence = (a, _CONFIDENCE, str(q.object), G), float(q.object.value)
        return state

    # ------------------------------------------------------------------ reading
    def label(self, term: ox.NamedNode | ox.BlankNode | ox.Literal) -> str:
        if isinstance(term, ox.Literal):
            return term.value
        for g in (ENTITY_GRAPH, PROVENANCE_GRAPH):
            for q in self.quads(term, RDFS_LABEL, None, g):
                return q.object.value
        return predicate_name(term) if isinstance(term, ox.NamedNode) and term.value.startswith("https://w3id.org/semantic-rdf/p/") else term.value

    def exists(self, aid: str) -> bool:
        return self.has(assertion_iri(aid), M.claimGraph)

    def get(self, aid: str) -> Record | None:
        """The record of an assertion id, or None (also None for an erased one: see `tombstone`)."""
        a = assertion_iri(aid)
        quads = list(self.quads(a, None, None, PROVENANCE_GRAPH))
        if not quads or not any(q.predicate == M.claimGraph for q in quads):
            return None
        one: dict = {}
        kinds, srcs, beliefs = [], [], []
        for q in quads:
            p = q.predicate
            if p == RDF_TYPE and q.object.value in _CLASS_KIND:
                kinds.append(_CLASS_KIND[q.object.value])
            elif p == P.wasDerivedFrom:
                srcs.append(q.object)
            elif p == M.belief:
                beliefs.append(q.object)
            else:
                one[p.value] = q.object
        try:
            return self._record(aid, one, kinds, srcs, beliefs)
        except SemanticError:
            raise
        except (KeyError, ValueError, AttributeError) as exc:  # a record this tool never writes: say so
            missing = f"no {exc.args[0]}" if isinstance(exc, KeyError) else " ".join(str(exc).split())[:200]
            raise InvalidInput(
                f"assertion {aid} has a malformed record ({missing}): the store was not written by semantic-rdf, or was changed outside it"
            ) from None

    def _record(self, aid: str, one: dict, kinds: list[str], srcs: list, beliefs: list) -> Record:
        valid = None
        vf, vu = one.get(M.validFrom.value), one.get(M.validUntil.value)
        if vf is not None or vu is not None:
            valid = Validity(L.parse_dt(vf) if vf else None, L.parse_dt(vu) if vu else None)
        obj = one[M.object.value]
        return Record(
            id=aid,
            subject=self.label(one[M.subject.value]),
            predicate=predicate_name(one[M.predicate.value]),
            object=self.label(obj),
            confidence=float(one[M.confidence.value].value),
            count=int(one[M.count.value].value),
            kinds=tuple(sorted(kinds)),
            sources=tuple(sorted((self._source(s) for s in srcs), key=lambda s: s.iri)),
            valid=valid,
            generated_at=L.parse_dt(one[P.generatedAtTime.value]) if P.generatedAtTime.value in one else None,
            believed=tuple(sorted(self._belief(b) for b in beliefs)),
            object_is_literal=isinstance(obj, ox.Literal),
        )

    def require(self, aid: str) -> Record:
        r = self.get(aid)
        if r is None:
            raise NotFound(f"no assertion with id {aid}")
        return r

    def _belief(self, b: ox.NamedNode) -> tuple[datetime, datetime | None]:
        start = until = None
        for q in self.quads(b, None, None, PROVENANCE_GRAPH):
            if q.predicate == M.believedFrom:
                start = _parse_dt(q.object)
            elif q.predicate == M.believedUntil:
                until = _parse_dt(q.object)
        return (start, until)  # type: ignore[return-value]

    def _source(self, s: ox.NamedNode) -> Source:
        props: dict = {}
        types = set()
        for q in self.quads(s, None, None, PROVENANCE_GRAPH):
            if q.predicate == RDF_TYPE:
                types.add(q.object.value)
            else:
                props[q.predicate.value] = q.object
        conf = float(props[M.confidence.value].value) if M.confidence.value in props else None
        if OA_.SpecificResource.value in types:
            doc = props.get(OA_.hasSource.value)
            sel = props.get(OA_.hasSelector.value)
            start = end = None
            if sel is not None:
                for q in self.quads(sel, None, None, PROVENANCE_GRAPH):
                    if q.predicate == OA_.start:
                        start = int(q.object.value)
                    elif q.predicate == OA_.end:
                        end = int(q.object.value)
            ref = None
            if doc is not None:
                for q in self.quads(doc, M.reference, None, PROVENANCE_GRAPH):
                    ref = q.object.value
            ci = props.get(M.chunkIndex.value)
            return Source("span", s.value, conf, doc.value if doc else None, ref, start, end, int(ci.value) if ci is not None else None)
        if M.CallerStatement.value in types:
            note = props.get(M.note.value)
            ag = props.get(P.wasAttributedTo.value)
            return Source("caller", s.value, conf, note=note.value if note else None, agent=self.label(ag) if isinstance(ag, ox.NamedNode) else None)
        return Source("assertion", s.value, conf)

    def span_text(self, source: Source) -> str:
        """The exact text a span source points at."""
        if source.kind != "span" or source.doc_iri is None or source.start is None:
            raise InvalidInput("not a text span")
        return self.document_text(ox.NamedNode(source.doc_iri))[source.start : source.end]

    def match(
        self,
        s: str | None = None,
        p: str | None = None,
        o: str | None = None,
        *,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        object_literal: ox.Literal | None = None,
    ) -> list[Record]:
        """Assertions matching a pattern (None = wildcard), as believed at `as_of` and valid at `valid_at`."""
        params: dict[str, Term | None] = {
            "s": entity_iri(s) if s is not None else None,
            "p": predicate_iri(p) if p is not None else None,
            "o": object_literal if object_literal is not None else (entity_iri(o) if o is not None else None),
            "asof": L.dt(as_of) if as_of is not None else None,
            "validat": L.dt(valid_at) if valid_at is not None else None,
        }
        out = []
        for row in _solutions(self.ox.query(packaged("match", **params))):
            rec = self.get(id_of(row["a"]))
            if rec is not None:
                out.append(rec)
        return out

    def select(self, query_text: str, **params: Term | None) -> list[dict[str, ox.NamedNode | ox.Literal | None]]:
        """Run a SPARQL SELECT with parameters bound as terms. Rows are dicts of variable name -> term."""
        res = self.ox.query(bind(query_text, params))
        if not isinstance(res, ox.QuerySolutions):  # a boolean (ASK) or triples (CONSTRUCT)
            raise InvalidInput("select() takes a SELECT query")
        names = [v.value for v in res.variables]
        return [{n: row[n] for n in names} for row in res]

    # ------------------------------------------------------------------ reads for the layers above
    # The other layers read through these four, never through `ox` (the pyoxigraph handle, kept public for
    # tests and for a user's own low-level work, as sqlite-utils keeps `db.conn`); tests/test_architecture.py
    # holds the package to it.
    @property
    def is_open(self) -> bool:
        """Whether the store is still open (`close` releases the handle)."""
        return self.ox is not None

    def quads(
        self,
        s: ox.NamedNode | ox.BlankNode | None = None,
        p: ox.NamedNode | None = None,
        o: ox.NamedNode | ox.BlankNode | ox.Literal | None = None,
        g: ox.NamedNode | ox.DefaultGraph | None = None,
    ) -> Iterator[N.StoredQuad]:
        """The stored quads matching a pattern (None = any; `g` None = every graph).

        >>> st = AssertionStore.memory()
        >>> _ = st.assert_("Ada Lovelace", "born_in", "London")
        >>> len(list(st.quads(None, predicate_iri("born_in"))))
        1
        """
        return self.ox.quads_for_pattern(s, p, o, g)  # type: ignore[return-value]  # no triple terms: imports refuse them (_check_imported)

    def query(self, text: str, **params: Term | None) -> Any:
        """Run a SPARQL query (SELECT, ASK or CONSTRUCT; never an update) with parameters bound as terms;
        pyoxigraph's result: solutions to iterate (by index or by name), a boolean, or triples."""
        return self.ox.query(bind(text, params) if params else text)

    def named_graphs(self) -> Iterator[ox.NamedNode | ox.BlankNode]:
        return self.ox.named_graphs()

    def dump(self, output: str | None = None, *, format: ox.RdfFormat = ox.RdfFormat.N_QUADS, from_graph: ox.NamedNode | None = None) -> bytes | None:
        """Oxigraph's own serialisation of the store (or of one graph): to the file `output`, without the GIL
        and without Python objects, or returned as bytes. `export` is the checked, user-facing form."""
        if from_graph is None:
            return self.ox.dump(output, format=format)
        return self.ox.dump(output, format=format, from_graph=from_graph)

    def run_query(self, name: str, **params: Term | None) -> list[dict]:
        """Run queries/<name>.rq with parameters bound."""
        return self.select(packaged(name), **params)

    def ids(self) -> list[str]:
        return sorted(id_of(q.subject.value) for q in self.quads(None, M.claimGraph, None, PROVENANCE_GRAPH))

    # ------------------------------------------------------------------ export / import / validate
    def export(self, fmt: str = "nquads", graph: ox.NamedNode | None = None) -> bytes:
        if fmt not in FORMATS:
            raise InvalidInput(f"unknown export format {fmt!r} (one of {', '.join(sorted(FORMATS))})")
        if graph is None and fmt not in _DATASET_FORMATS:
            raise InvalidInput(f"format {fmt} holds one graph: name one (e.g. --graph provenance)")
        # Turtle and TriG carry the project's prefix map (the line formats and JSON-LD ignore it)
        prefixes = dict(PREFIXES) if fmt in ("trig", "turtle") else None
        if graph is None:
            data = self.ox.dump(format=FORMATS[fmt], prefixes=prefixes)
        else:
            data = self.ox.dump(format=FORMATS[fmt], from_graph=graph, prefixes=prefixes)
        assert data is not None  # given no output, a dump returns its bytes
        return data

    def import_(self, data: bytes, fmt: str = "nquads", *, on_erased: str = "refuse") -> int:
        """Load an export back, adding records beside the stored ones: all of it or nothing. A quad outside the
        store's graphs is refused (InvalidInput, `_check_imported`); data of erased assertions or documents is
        refused (ErasedData) or, on_erased='skip', left out; then a change to a node the store holds, or a node
        the input does not describe, is refused (InvalidInput, `_only_additions`); the shapes check the rest."""
        return self.import_report(data, fmt, on_erased=on_erased)[0]

    def import_report(self, data: bytes, fmt: str = "nquads", *, on_erased: str = "refuse"):
        """`import_`, returning (quads written, tombstones.Screened: what tombstones kept out)."""
        if fmt not in _DATASET_FORMATS:
            raise InvalidInput(f"import takes a dataset format ({', '.join(sorted(_DATASET_FORMATS))})")
        try:
            quads = list(ox.parse(data, format=FORMATS[fmt]))
        except SyntaxError as exc:
            raise InvalidInput(f"cannot parse {fmt} input: {exc}") from None
        for q in quads:
            _check_imported(q)
        with self._lock:  # no write of this object's between the checks and the commit
            quads, screened = tombstones.screen(self, quads, on_erased)  # tombstones win (docs/security.md)
            self._only_additions(quads)
            self.commit(quads)
        self._labels.clear()  # an import may name an entity again: labels are read afresh when next told
        ids = sorted(
            {
                id_of(q.subject)
                for q in quads
                if q.predicate == M.claimGraph and q.graph_name == PROVENANCE_GRAPH and isinstance(q.subject, ox.NamedNode)
            }
        )
        if ids:
            self.publish(StoreEvent("committed", tuple(ids)))
        return len(quads), screened

    def _only_additions(self, quads: Sequence[ox.Quad]) -> None:
        """Refuse (InvalidInput, naming the node) an import that would change what the store holds: an import
        adds records, it never changes stored ones. The shapes see only the batch, so without this one quad
        could close a stored belief with no retraction, give a record a second m:confidence (after which every
        write to it is refused), a document a second text or an entity a second label (docs/stores.md, "Import").

        The check goes by node: the quads of one subject in one of the store's graphs, and the quads of one claim
        graph. A node the store holds there must come unchanged: every quad the input gives it is stored already
        (so importing an export again, or one whose agents and entities equal the stored ones, adds nothing and
        succeeds). A node the store does not hold must be described by the input, so that the shapes see it
        whole: in the provenance graph it has an rdf:type; in the entity registry an rdf:type and an rdfs:label;
        in the document graph it is a document (m:Document, stored or in the input) with one m:text; a claim
        graph g/<id> is named by its record a/<id> in the input (m:claimGraph) and holds exactly the triple that
        record echoes. Cost: one index lookup per node, and one per quad only for nodes the store holds (no
        SPARQL); an export of 185,000 quads into an empty store: 0.15 s of the import's 1.7 s."""
        nodes: dict[_NodeKey, list[ox.Quad]] = {}
        for q in quads:  # blank nodes and triple terms were refused (_check_imported)
            nodes.setdefault((q.graph_name, q.subject), []).append(q)  # type: ignore[arg-type]
        claims: dict[ox.NamedNode, list[ox.Quad]] = {}
        fresh: list[ox.NamedNode] = []  # provenance nodes new to the store
        for (g, s), group in nodes.items():
            if g not in _GRAPH_NODES:
                claims.setdefault(g, []).extend(group)
            elif not self._stored(g, s, group):
                self._new_node(g, s, group, nodes)
                if g == PROVENANCE_GRAPH:
                    fresh.append(s)
        for g, group in claims.items():
            if self._stored(g, None, group):
                continue
            record = assertion_iri(g.value[len(_CLAIM_PREFIX) :])
            described = nodes.get((PROVENANCE_GRAPH, record), [])
            if ox.Quad(record, M.claimGraph, g, PROVENANCE_GRAPH) not in described:
                raise _not_whole(g, g, f"its record {record} in the input does not name it (m:claimGraph)")
            echo = {q.predicate: q.object for q in described if q.predicate in (M.subject, M.predicate, M.object)}
            q = group[0]
            if len(group) != 1 or (echo.get(M.subject), echo.get(M.predicate), echo.get(M.object)) != (q.subject, q.predicate, q.object):
                raise _not_whole(g, g, f"it does not hold exactly the triple its record {record} echoes")
        self._new_records_hold(quads, nodes, fresh)

    def _new_node(self, g: ox.NamedNode, s: ox.NamedNode, group: list[ox.Quad], nodes: Mapping[_NodeKey, list[ox.Quad]]) -> None:
        """Refuse a node the store does not hold in graph `g` unless the input describes it whole, in the graph its
        kind lives in, under the IRI the store would mint for it: a stored node is not described again in another
        graph (a stored record's second object written in the registry, a document's second text in it), an
        entity's IRI is that of its label (`entity_iri`), a document's that of its m:docId and m:sha256 (`doc_iri`),
        and an erasure erases nothing the store holds (`erase` does that, and leaves no data behind)."""
        for other in _GRAPH_NODES - {g}:
            if next(self.ox.quads_for_pattern(s, None, None, other), None) is not None:
                raise InvalidInput(f"import adds nodes: {s} is stored already in graph {other}, and the input puts it in {g}; nothing was written")
        entity = s.value.startswith(_ENTITY_PREFIX)
        if (g == ENTITY_GRAPH) != entity or (g == DOCUMENT_GRAPH and not s.value.startswith(_DOCUMENT_PREFIX)):
            raise _not_whole(s, g, "no node of that kind lives in that graph")
        if g == PROVENANCE_GRAPH:
            types = {q.object for q in group if q.predicate == RDF_TYPE}
            if not types:
                raise _not_whole(s, g, "the input gives it no rdf:type")
            if M.Erasure in types:
                for q in group:
                    if (
                        q.predicate == tombstones.target
                        and isinstance(q.object, ox.NamedNode)
                        and next(self.ox.quads_for_pattern(q.object, None, None, None), None)
                    ):
                        raise InvalidInput(f"import adds nodes: the erasure {s} names {q.object}, which the store holds; nothing was written")
        elif g == ENTITY_GRAPH:
            labels = [q.object.value for q in group if q.predicate == RDFS_LABEL and isinstance(q.object, ox.Literal)]
            if RDF_TYPE not in {q.predicate for q in group} or not labels:
                raise _not_whole(s, g, "the input gives it no rdf:type and rdfs:label")
            if len(labels) > 1:
                raise _not_whole(s, g, "the input gives it two rdfs:label")
            folded = {q.object.value for q in group if q.predicate == M.folded and isinstance(q.object, ox.Literal)}
            if entity_iri(labels[0]) != s or folded - {fold(labels[0])}:
                raise _not_whole(s, g, "its IRI or m:folded is not that of its label")
        else:
            if len(group) != 1 or group[0].predicate != M.text:
                raise _not_whole(s, g, "a document's text is one m:text")
            described = nodes.get((PROVENANCE_GRAPH, s), [])
            if ox.Quad(s, RDF_TYPE, M.Document, PROVENANCE_GRAPH) not in described and not self.has(s, RDF_TYPE, o=M.Document):
                raise _not_whole(s, g, "it is no document of the store or of the input (m:Document)")
            # m:sha256 is the hash of the bytes the text was read from (an HTML page, a file with its line ends), which
            # the store does not keep: the text cannot be checked against it. The IRI can: minted from both (doc_iri)
            stated: dict[ox.NamedNode, set[str]] = {M.sha256: set(), M.docId: set()}
            for q in described:
                if q.predicate in stated and isinstance(q.object, ox.Literal):
                    stated[q.predicate].add(q.object.value)
            for p, values in stated.items():
                values.update(q.object.value for q in self.quads(s, p, None, PROVENANCE_GRAPH))
            shas, ids = stated[M.sha256], stated[M.docId]
            if len(shas) != 1 or len(ids) > 1 or (ids and L.doc_iri(min(ids), min(shas)) != s):
                raise _not_whole(s, g, "its IRI is not the one its m:docId and m:sha256 give")

    def _new_records_hold(self, quads: Sequence[ox.Quad], nodes: Mapping[_NodeKey, list[ox.Quad]], fresh: list[ox.NamedNode]) -> None:
        """Refuse a new record that breaks a rule `integrity` reads (its id the hash of its triple, its count its
        sources, its confidence their best, its claim graph its echo), read over the input and the registry rows of
        the stored entities it names: what `validate` would report after the import, found before it."""
        records = {s.value for s in fresh if any(q.predicate == M.claimGraph for q in nodes[(PROVENANCE_GRAPH, s)])}
        if not records:
            return
        overlay = ox.Store()
        overlay.extend(quads)
        named = {t for q in quads for t in (q.subject, q.object) if isinstance(t, ox.NamedNode) and t.value.startswith(_ENTITY_PREFIX)}
        for e in named:
            if (ENTITY_GRAPH, e) not in nodes:
                overlay.extend(self.ox.quads_for_pattern(e, None, None, ENTITY_GRAPH))
        for a, problem in _integrity(overlay):
            if a in records:
                raise InvalidInput(f"import adds whole records: the new record {a} does not hold: {problem}; nothing was written")

    def _stored(self, g: ox.NamedNode, s: ox.NamedNode | None, group: list[ox.Quad]) -> bool:
        """Whether the store holds node `s` in graph `g` (s None: claim graph `g`); InvalidInput if it does and
        `group`, the input's quads of the node, holds one it does not."""
        if next(self.ox.quads_for_pattern(s, None, None, g), None) is None:
            return False
        for q in group:
            if q not in self.ox:
                raise InvalidInput(
                    f"import adds records and does not change stored ones: {g if s is None else s} is stored already in graph {g} "
                    f"and the input differs from it (in {q.predicate}); nothing was written"
                )
        return True

    def compact(self):
        """Rebuild this on-disk store's directory from its live quads (`compaction.compact`: erased data leaves
        its files), then publish `compacted` (the side tables vacuum theirs). The handle is closed for the
        swap and opened again; returns the compaction.CompactReport."""
        from semantic_rdf.store import compaction

        self._writable()
        if self.path is None:
            raise InvalidInput("an in-memory store has no files to compact")
        with self._lock:
            self._release()  # for the swap only: the store object stays open (no `closed` event)
            try:
                report = compaction.compact(self.path)
            finally:
                try:
                    self.ox = ox.Store(str(self.path / "oxigraph"))
                except OSError as exc:
                    raise StoreInUse(f"store {str(self.path)!r} was opened by another process during compaction: {exc}") from None
        self.publish(StoreEvent("compacted", path=str(self.path)))
        return report

    def quad_count(self) -> int:
        return len(self.ox)

    def validate(self, *, pyshacl: bool = False, progress: Callable[[int], object] | None = None) -> Report:
        """Full validation: the shapes over the provenance and entity graphs (pyshacl's verdicts, checked in
        batches; `pyshacl=True`: pyshacl on every batch), plus the layout's integrity rules."""
        from semantic_rdf.rdf.shapes import Report
        from semantic_rdf.rdf.validation import validate_store  # in batches: bounded memory (docs/layout.md)

        report = validate_store(self.ox, [PROVENANCE_GRAPH, ENTITY_GRAPH], pyshacl=pyshacl, progress=progress)
        problems = list(report.violations) + self.integrity()
        return Report(not problems, problems, report.text)

    def integrity(self) -> list[str]:
        """Rules SHACL Core cannot state: claim graph == echo, count == sources, id == hash of the triple."""
        return [f"{a}: {problem}" for a, problem in _integrity(self.ox)]

    def stats(self) -> dict:
        rows = self.run_query("stats")
        r = rows[0] if rows else {}
        out = {k: int(v.value) if v is not None else 0 for k, v in r.items()}
        out["quads"] = len(self.ox)
        return out
