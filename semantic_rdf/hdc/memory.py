"""The glue between the RDF store (the truth) and the side tables (vectors, paths, Hebbian weights).

    mem = Memory.open("./semantic-store")      # store + <store>.side.sqlite, reconciled on open
    mem = Memory.attach(store)                 # an open AssertionStore (in-memory SQLite for an in-memory store)
    mem.sync()                                 # reconcile again (after writes made behind our back)
    mem.index(ids) / mem.drop(ids)             # keep in step after a write / a withdrawal
    mem.retract(id, reason) / mem.reinstate(…) / mem.erase(…)   # the store operation (the event does the rest)
    stop = follow(store)                       # no Memory open: the side file beside an on-disk store follows

What is derived from the store (fact rows, term vectors, document path memories) is rebuilt from it
whenever they disagree; Hebbian weights cannot be rebuilt, so they are only ever forgotten, and only
for entities the store itself no longer knows (erasure). A Memory subscribes to its store's events
(semantic_rdf/core/events.py) when attached and unsubscribes on close: whatever writes, retracts, reinstates,
erases or compacts through that store object keeps the side tables in step. `follow(store)` does the same
for the CLI's verbs, which open no Memory: each event opens `<store>.side.sqlite`, applies, closes it.
Nothing is registered at import time.
"""

from __future__ import annotations

import sqlite3
import weakref
from collections import OrderedDict
from itertools import chain
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, AbstractSet, Callable, Iterable, Sequence

import pyoxigraph as ox

from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.hdc.gate import Config, FactIndex, entity_key
from semantic_rdf.core.events import StoreEvent, WrittenEntity
from semantic_rdf.hdc.vectors import Encoder
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.hdc.paths import document_memory, enumerate_paths
from semantic_rdf.rdf.queries import packaged
from semantic_rdf.hdc.reservoir import ReservoirBank
from semantic_rdf.hdc.sidetables import ReconcileReport, SideTables, corrupt, side_path
from semantic_rdf.core.vocab import (
    ENTITY_GRAPH,
    M,
    OA_,
    P,
    PROVENANCE_GRAPH,
    RDF_TYPE,
    RDFS_LABEL,
    SKOS,
    XSD_INTEGER,
    assertion_iri,
    id_of,
    predicate_name,
)

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = ["Memory", "Entity", "SyncReport", "believed_facts", "believed_ids", "after_ingest_hook", "follow_in_step", "follow", "shared_encoder"]

_ENCODERS: dict[tuple, Encoder] = {}


def shared_encoder(config: Config = Config()) -> Encoder:
    """One encoder (and one word-vector load) per process and configuration."""
    key = (config.dim, config.ngram_sizes, config.subword_salt, config.simhash_seed)
    enc = _ENCODERS.get(key)
    if enc is None:
        from semantic_rdf.hdc.wordvectors import default_word_vectors

        enc = _ENCODERS[key] = config.encoder(default_word_vectors())
    return enc


@dataclass(frozen=True, slots=True)
class Entity:
    """A row of the store's entity registry."""

    iri: str
    name: str
    folded: str
    cls: str  # local name of its class (Person, Place, Organization, Thing, …)
    aliases: tuple[str, ...] = ()  # its other names (skos:altLabel), which the answer path links too

    @classmethod
    def of(cls, iri: str, folded: str, label: str | None, kind: str | None, aliases: Iterable[str]) -> "Entity":
        """An entity from its registry values, with the defaults the registry implies: no label reads as its
        folded name, no class as Thing. (`Memory.entities` and the entity rows both build them here.)"""
        return cls(iri, label if label is not None else folded, folded, kind or "Thing", tuple(sorted(aliases)))


@dataclass(frozen=True, slots=True)
class SyncReport:
    added: int
    removed: int
    reencoded: int
    documents: int  # documents whose path memory was rebuilt
    forgotten: int  # Hebbian pairs dropped for entities the store no longer knows


_ALT_LABEL = ox.NamedNode(SKOS + "altLabel")


def _label_map(store: AssertionStore) -> dict[str, str]:
    return {q.subject.value: q.object.value for q in store.quads(None, RDFS_LABEL, None, ENTITY_GRAPH)}


_CHUNK = 1_000  # assertion ids or documents bound per VALUES block
# documents whose every span source a Memory has been told (`Memory._told_rows`), the most recently written
# kept: an ingest names a document in one or a few consecutive batches, and one evicted is read from the store
_TOLD_DOCUMENTS = 4_096


def believed_facts(
    store: AssertionStore, as_of: datetime | None = None, labels: dict[str, str] | None = None, ids: Iterable[str] | None = None
) -> list[tuple[str, str, str, str]]:
    """(id, subject, predicate, object) display names of every assertion believed now (or at `as_of`),
    ordered by id; only those of `ids` when given. Runs queries/believed.rq (unordered; sorting the rows
    here is much cheaper than ORDER BY in the store) and names each term once. With `ids`, runs
    queries/believed-of.rq (the same rows, read from those records: a few index seeks per id, whatever
    the size of the store) with the ids bound by VALUES blocks of _CHUNK."""
    from semantic_rdf.rdf import layout as L

    asof = L.dt(as_of) if as_of is not None else None
    wanted = None if ids is None else set(ids)
    if wanted is not None:
        order = sorted(wanted)
        text = packaged("believed-of", asof=asof)
        found = chain.from_iterable(
            store.query(T.bind_rows(text, ["a"], [(assertion_iri(i),) for i in order[k : k + _CHUNK]])) for k in range(0, len(order), _CHUNK)
        )
        labels = {} if labels is None else labels
    else:
        found = store.query(packaged("believed", asof=asof))
        labels = _label_map(store) if labels is None else labels
    names: dict[str, str] = {}  # term IRI -> display name (a few thousand entities across 100,000 rows)

    def name(t) -> str:
        if isinstance(t, ox.Literal):
            return t.value
        got = names.get(t.value)
        if got is None:
            got = names[t.value] = labels.get(t.value) or store.label(t)
        return got

    preds: dict[str, str] = {}
    rows: dict[str, tuple[str, str, str, str]] = {}
    for a, s, p, o in found:
        aid = id_of(a)
        if aid in rows or (wanted is not None and aid not in wanted):
            continue
        pn = preds.get(p.value)
        if pn is None:
            pn = preds[p.value] = predicate_name(p)
        rows[aid] = (aid, name(s), pn, name(o))
    return [rows[k] for k in sorted(rows)]


def believed_ids(store: AssertionStore) -> set[str]:
    """Ids of every assertion believed now (queries/believed-ids.rq): the same set as `believed_facts(store)`'s
    ids, without joining and labelling every record, so a sync can find what changed before reading it."""
    return {id_of(row[0]) for row in store.query(packaged("believed-ids"))}


class Memory:
    """An assertion store with its side tables kept in step, plus per-conversation reservoirs."""

    def __init__(self, store: AssertionStore, side: SideTables, *, owns_store: bool = False):
        self.store = store
        self.side = side
        self.config = side.config
        self._owns_store = owns_store
        # known to be in step with the store: synced, or found unchanged since the mark of a close at which they
        # were (store/generation.py); then the store's `closed` event leaves the mark for the next process
        self._in_step = False
        self._own_writes = side.writes  # the side tables' write count after this Memory's own last change
        self._index: FactIndex | None = None
        self._entities: list[Entity] | None = None
        # document IRI -> {(start, assertion id)} of every span source it has, for the documents whose first
        # source this Memory was told of (StoreEvent.documents) and every one since: their path memories are
        # rebuilt from these, not from a read of the store (docs/architecture.md, "Store events")
        self._told_rows: OrderedDict[str, set[tuple[int, str]]] = OrderedDict()
        self.reservoirs = ReservoirBank(self.config.dim, self.config.decay, self.config.reservoir_conversations)
        self._unsubscribe = store.subscribe(_Listener(self))  # until close (semantic_rdf/core/events.py)

    # ------------------------------------------------------------------ opening
    @classmethod
    def attach(
        cls,
        store: AssertionStore,
        *,
        config: Config = Config(),
        encoder: Encoder | None = None,
        side: str | Path | None = None,
        reconcile: bool = True,
    ) -> "Memory":
        """Side tables for an open store: `<store>.side.sqlite` beside an on-disk store, in-memory SQLite
        for an in-memory one (or the file `side` names). Reconciled unless told not to, and always when the
        file was missing or unreadable (rebuilt from the store); not when the store's files are as the last
        process that kept these tables in step left them (their mark, docs/answer.md)."""
        path = side if side is not None else (side_path(store.path) if store.path is not None else None)
        # beside an on-disk store the side file's own default encoder (it reads one-piece words from its
        # table, not the tokenizer); in memory the process's shared one
        tables = SideTables(path, config, encoder or (None if path is not None else shared_encoder(config)))
        mem = cls(store, tables)
        if store.read_only:
            return mem
        if not tables.rebuilt and mem._unchanged_since_mark():
            mem._in_step = True  # nothing wrote the store since a process left it and these tables in step
        elif reconcile or tables.rebuilt:
            try:
                mem.sync()
            except BaseException:
                mem.close()
                raise
        else:
            tables.forget_entities()  # not known to be in step: the entity rows are read again when needed
        return mem

    def _unchanged_since_mark(self) -> bool:
        """Whether the store's files, as found before this process opened them, are those of the last close
        at which the side tables were in step (the mark), with the encoder and path memories of a full sync."""
        gen = self.store.generation_at_open
        return gen is not None and not self.side.stale and self.side.paths_built and self.side.store_generation == gen

    @classmethod
    def open(cls, path: str | Path | None, *, read_only: bool = False, config: Config = Config(), encoder: Encoder | None = None) -> "Memory":
        """Open the store at `path` (None: in memory) and its side tables."""
        from semantic_rdf.store.assertions import AssertionStore

        store = AssertionStore.open(path, read_only=read_only)
        try:
            mem = cls.attach(store, config=config, encoder=encoder)
        except BaseException:
            store.close()
            raise
        mem._owns_store = True
        return mem

    def close(self) -> None:
        try:
            if self._owns_store and self.store.is_open:
                self.store.close()  # first: its `closed` event leaves the mark while the side tables are open
        finally:
            self._unsubscribe()
            self.side.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def encoder(self) -> Encoder:
        return self.side.encoder

    # ------------------------------------------------------------------ keeping in step
    def sync(self) -> SyncReport:
        """Reconcile with the store: believed facts indexed, others dropped, stale vectors re-encoded,
        path memories rebuilt for the documents whose facts changed, Hebbian pairs of vanished entities forgotten.
        A side-table file found damaged on the way is replaced and rebuilt from the store (with a notice)."""
        try:
            return self._sync()
        except sqlite3.DatabaseError as e:
            if self.side.path is None or not corrupt(e):
                raise
            self.side.reset(str(e))
            self._invalidate()
            return self._sync()

    def _sync(self) -> SyncReport:
        self._in_step = False  # until this sync has finished
        self.side.mark_store_generation(None)
        self.side.forget_entities()  # the registry may have changed behind these tables' back too
        rep = self._sync_all() if self.side.stale or not self.side.paths_built else self._sync_changed()
        self._in_step = True
        self._own_writes = self.side.writes
        return rep

    def _sync_changed(self) -> SyncReport:
        # the side tables were in step once, with this encoder: bring in what changed since, reading only that
        want = believed_ids(self.store)
        have = self.side.fact_ids()
        new, gone = want - have, have - want
        facts = believed_facts(self.store, ids=new) if new else []
        added = self.side.put_facts(facts)
        removed = self.side.remove_facts(gone)
        docs = self._documents_of(new) | self._documents_with_paths_of(gone)
        built = self._rebuild_paths(docs, facts, read=new)
        forgotten = self._forget_unknown()
        if new or gone:
            self._invalidate()
        return SyncReport(added, removed, 0, built, forgotten)

    def _sync_all(self) -> SyncReport:
        """Reconcile reading every believed fact: a new or rebuilt side file, or vectors of another encoder."""
        facts = believed_facts(self.store)
        want = {f[0] for f in facts}
        have = self.side.fact_ids()
        changed = (want - have) | (have - want)
        gone = have - want
        rep: ReconcileReport = self.side.reconcile(facts)
        docs = self._documents_of(want - have) | self._documents_with_paths_of(gone)
        if facts and (rep.reencoded or not self.side.paths_built):
            # the first sync of an existing store, or vectors of another encoder: build every path memory. (Asking
            # whether any document had paths instead rebuilt them all on every sync of a store whose documents
            # give no multi-hop path; docs/security.md, "Cost at scale".)
            docs |= self._documents_of(want)
        built = self._rebuild_paths(docs, facts, read=None)
        if not self.side.paths_built:
            self.side.mark_paths_built()
        forgotten = self._forget_unknown()
        if changed or rep.reencoded:
            self._invalidate()
        return SyncReport(rep.added, rep.removed, rep.reencoded, built, forgotten)

    def index(self, ids: Iterable[str], observed: Iterable[tuple[str, str]] | None = None) -> int:
        """Index newly written assertions (those the store believes) and refresh the path memories of their
        documents: every document that read one of them, or, given the (id, document IRI) observations the
        write added (`WriteReport.observed`), only those: an assertion read again adds nothing to the
        documents that read it before (the side tables being in step before the write)."""
        ids = set(ids)
        if not ids:
            return 0
        facts = believed_facts(self.store, ids=ids)
        n = self.side.put_facts(facts)
        believed = {f[0] for f in facts}
        docs = self._documents_of(believed) if observed is None else {d for a, d in observed if a in believed}
        self._rebuild_paths(docs, facts, read=ids)
        if n:
            self._invalidate()
        self._own_writes = self.side.writes
        return n

    def _note_spans(self, ev: StoreEvent) -> None:
        """Keep the span sources of the documents whose every source this Memory has been told of."""
        rows = self._told_rows
        for d in ev.documents:
            rows[d] = set()
        for sp in ev.spans:
            got = rows.get(sp.document)
            if got is not None:
                got.add((sp.start, sp.id))
                rows.move_to_end(sp.document)
        while len(rows) > _TOLD_DOCUMENTS:
            rows.popitem(last=False)

    def _index_told(self, ev: StoreEvent) -> None:
        """`index` for a write that told what it wrote (StoreEvent.facts, .spans), the side tables being in step:
        nothing is read back from the store. The records it created are believed; a record it only gave a new
        source is believed exactly when its fact row is here (the tables being in step), and then indexed
        already; the path memories of the documents of believed ones are rebuilt."""
        facts: list[tuple[str, str, str, str]] = list(ev.facts or ())
        n = self.side.put_facts(facts)
        new = {f[0] for f in facts}
        believed = new | self.side.fact_ids_among({sp.id for sp in ev.spans} - new)
        self._rebuild_paths({sp.document for sp in ev.spans if sp.id in believed}, facts, read=None, told=True)
        if n:
            self._invalidate()

    def index_written(self, report) -> int:
        """`index` for one committed write (a WriteReport of `assert_triples`), by the observations it added."""
        return self.index(getattr(report, "ids", ()) or (), getattr(report, "observed", None))

    def drop(self, ids: Iterable[str]) -> int:
        """Remove withdrawn (retracted or erased) assertions from the side tables."""
        ids = [i for i in set(ids) if i]
        if not ids:
            return 0
        n = self.side.remove_facts(ids)
        self._rebuild_paths(self._documents_with_paths_of(set(ids)))
        self._forget_unknown()
        self._invalidate()
        self._own_writes = self.side.writes
        return n

    def retract(self, aid: str, reason: str, agent: str = "caller") -> T.Change:
        return T.retract(self.store, aid, reason, agent)  # the `retracted` event drops the rows

    def reinstate(self, aid: str, reason: str, agent: str = "caller") -> T.Change:
        return T.reinstate(self.store, aid, reason, agent)  # the `reinstated` event indexes them again

    def erase(self, aid: str, reason: str, agent: str = "caller", **kw) -> T.Change:
        from semantic_rdf.lifecycle import erasure

        return erasure.erase(self.store, aid, reason, agent, **kw)  # the `erased` event drops the rows

    def _on_event(self, ev: StoreEvent) -> None:
        """Keep the side tables in step with one durable change of the store (subscribed by __init__)."""
        if ev.kind == "closed":
            # the mark: these tables are in step with the store's files as the next process will find them,
            # unless rows were written around this Memory (then they are not known to be)
            ok = self._in_step and self.side.writes == self._own_writes
            self.side.mark_store_generation(ev.generation if ok else None)
            return
        try:
            self._follow(ev)
        except BaseException:
            self._in_step = False  # a change these tables missed: no mark, the next process reconciles
            raise
        self._own_writes = self.side.writes

    def _follow(self, ev: StoreEvent) -> None:
        if ev.kind == "committed":
            self._note_spans(ev)
            if ev.facts is not None and self._in_step:
                self._index_told(ev)
            else:
                self.index(ev.ids, ev.observed or None)
            self._follow_registry(ev.entities, ev.registered if self._in_step else None)
        elif ev.kind == "reinstated":
            self.index(ev.affected)
        elif ev.kind == "retracted":
            self.drop(ev.affected)
        elif ev.kind == "erased":
            self.drop(ev.affected)
            self.after_erasure()
        elif ev.kind == "compacted" and self.side.path is not None:
            self.side.vacuum()

    def after_erasure(self) -> None:
        """What an erasure needs beyond `drop`: path memories of documents the store no longer holds (erase
        --document) go, every conversation's reservoir restarts, since its state may have been built from
        erased names (reservoirs live in memory only, so nothing else holds them), and the entity rows go."""
        self._told_rows.clear()  # an erasure removes span sources: read them from the store again
        for d in self.side.path_documents():
            if not any(True for _ in self.store.quads(ox.NamedNode(d), M.sha256, None, PROVENANCE_GRAPH)):
                self.side.remove_paths(d)
        self.reservoirs = ReservoirBank(self.config.dim, self.config.decay, self.config.reservoir_conversations)
        # the entity rows held the registry's names, erased ones among them: deleted (secure_delete overwrites
        # them), and read again from the store when next needed
        self.side.forget_entities()
        self._invalidate()

    def _invalidate(self) -> None:
        self._index = None
        self._entities = None

    # ------------------------------------------------------------------ reads for the answer path
    def fact_index_of(self, ids: Iterable[str]) -> FactIndex:
        """The FactIndex of these stored facts only (indexed side-table reads; not cached)."""
        return self.side.index_of(ids)

    def fact_index(self) -> FactIndex:
        """The packed FactIndex of every believed fact (loaded from the side tables, cached)."""
        if self._index is None:
            self._index = self.side.index()
        return self._index

    def facts_touching(self, names: Iterable[str]) -> list[str]:
        """Ids of indexed facts whose subject or object is one of these entities."""
        keys = sorted({entity_key(n) for n in names})
        if not keys:
            return []
        out: set[str] = set()
        for i in range(0, len(keys), 400):
            chunk = keys[i : i + 400]
            marks = ",".join("?" * len(chunk))
            out.update(
                r[0]
                for r in self.side.conn.execute(
                    f"SELECT id FROM facts WHERE s IN ({marks}) UNION SELECT id FROM facts WHERE o IN ({marks})", chunk + chunk
                )
            )
        return sorted(out)

    def fact_texts(self, fact_id: str) -> tuple[str, str, str] | None:
        return self.side.fact_texts(fact_id)

    def entities_for(self, words: Sequence[str], folded: Iterable[str] = ()) -> list[Entity] | None:
        """The registry entities a question of these folded words (in order) can link or pair
        (`sidetables.entity_keys`), plus
        those whose folded name is one of `folded`, by IRI, from the side tables' entity rows: a few index
        reads, whatever the size of the registry. The rows are rebuilt from the store first when they are not
        in step (a new side file, a change of the registry these tables did not follow). None for a read-only
        store whose rows are not in step: the caller reads the whole registry (`entities`) instead."""
        if not self.side.entities_ready:
            if self.store.read_only:
                return None
            self.side.set_entities((e.iri, e.name, e.folded, e.cls, e.aliases) for e in self.entities())
        return [Entity(*row) for row in self.side.entities_for_words(list(words), folded)]

    def _follow_registry(self, changed: tuple[str, ...] | None, told: tuple[WrittenEntity, ...] | None = None) -> None:
        """Keep the entity rows in step with a change of the registry: the rows of the `changed` entities read
        again from the store (or, when which is not known, the rows marked for a rebuild); when the write told
        how it changed them (`told`: new entities whole, other names added to known ones), from that and the
        rows these tables hold."""
        self._entities = None
        if not self.side.entities_ready or changed == ():
            return
        if changed is None:
            self.side.forget_entities()
            return
        if told is not None and {e.iri for e in told} == set(changed):
            self._follow_told_registry(told)
            return
        rows, gone = [], []
        for iri in changed:
            e = self._registry_entry(iri)
            if e is None:
                gone.append(iri)
            else:
                rows.append((e.iri, e.name, e.folded, e.cls, e.aliases))
        self.side.put_entities(rows, gone)

    def _follow_told_registry(self, told: tuple[WrittenEntity, ...]) -> None:
        held = {r[0]: r for r in self.side.entity_rows(e.iri for e in told if e.label is None)}
        rows = []
        for e in told:
            if e.label is not None:
                rows.append(Entity.of(e.iri, e.folded, e.label, e.cls, e.aliases))
                continue
            old = held.get(e.iri)
            if old is None:  # a registered entity these rows lack: not in step after all, read it
                old_entity = self._registry_entry(e.iri)
                if old_entity is not None:
                    rows.append(old_entity)
                continue
            rows.append(Entity.of(old[0], old[2], old[1], old[3], set(old[4]) | set(e.aliases)))
        self.side.put_entities([(e.iri, e.name, e.folded, e.cls, e.aliases) for e in rows])

    def _registry_entry(self, iri: str) -> Entity | None:
        """One entity as `entities` reads it, from its own registry quads (None when it is not registered)."""
        node = ox.NamedNode(iri)
        label = folded = cls = None
        alt: list[str] = []
        for q in self.store.quads(node, None, None, ENTITY_GRAPH):
            p = q.predicate
            if p == RDFS_LABEL and label is None:
                label = q.object.value
            elif p == M.folded:
                folded = q.object.value
            elif p == RDF_TYPE:
                cls = q.object.value.rsplit("#", 1)[-1]
            elif p == _ALT_LABEL:
                alt.append(q.object.value)
        if folded is None:
            return None
        return Entity.of(iri, folded, label, cls, alt)

    def entities(self) -> list[Entity]:
        """The store's entity registry (cached until the next write through this Memory)."""
        if self._entities is None:
            labels = _label_map(self.store)
            folded = {q.subject.value: q.object.value for q in self.store.quads(None, M.folded, None, ENTITY_GRAPH)}
            classes = {}
            for q in self.store.quads(None, RDF_TYPE, None, ENTITY_GRAPH):
                classes[q.subject.value] = q.object.value.rsplit("#", 1)[-1]
            alt: dict[str, list[str]] = {}
            for q in self.store.quads(None, _ALT_LABEL, None, ENTITY_GRAPH):
                alt.setdefault(q.subject.value, []).append(q.object.value)
            self._entities = [Entity.of(iri, f, labels.get(iri), classes.get(iri), alt.get(iri, ())) for iri, f in sorted(folded.items())]
        return self._entities

    def has_claim(self, subject: str, predicate: str, obj: str, at: datetime | None = None) -> bool:
        """True if the store believes (now, or at `at`) the claim, and its claim graph holds it."""
        try:
            aid = assertion_id(subject, predicate, obj)
        except Exception:  # noqa: BLE001 - odd input is simply not a claim
            return False
        return T.state(self.store, aid) is not None and T.believed(self.store, aid, at)

    def path_memories(self) -> dict[str, tuple[bytes, list[list[str]]]]:
        out = {}
        for d in self.side.path_documents():
            m = self.side.path_memory(d)
            if m is not None:
                out[d] = m
        return out

    # ------------------------------------------------------------------ path memories
    def _documents_of(self, ids: Iterable[str]) -> set[str]:
        docs: set[str] = set()
        quads = self.store.quads
        for i in ids:
            for q in quads(assertion_iri(i), P.wasDerivedFrom, None, PROVENANCE_GRAPH):
                if isinstance(q.object, ox.Literal):
                    continue  # a source is a node, never a literal
                for d in quads(q.object, OA_.hasSource, None, PROVENANCE_GRAPH):
                    docs.add(d.object.value)
        return docs

    def _documents_with_paths_of(self, ids: set[str]) -> set[str]:
        """Documents whose stored paths use one of these assertions (found by the paths' own hops)."""
        if not ids:
            return set()
        out = set()
        for d in self.side.path_documents():
            m = self.side.path_memory(d)
            if m is None:
                continue
            for els in m[1]:
                if any(assertion_id(els[k], els[k + 1], els[k + 2]) in ids for k in range(0, len(els) - 2, 2)):
                    out.add(d)
                    break
        return out

    def _told_document_rows(self, docs: Sequence[str]) -> dict[str, list[str]]:
        """`_document_rows`, from what this Memory was told where it was told every source of a document."""
        out = {d: [aid for _, aid in sorted(self._told_rows[d])] for d in docs if d in self._told_rows}
        rest = [d for d in docs if d not in out]
        if rest:
            out.update(self._document_rows(rest))
        return out

    def _document_rows(self, docs: Sequence[str]) -> dict[str, list[str]]:
        """doc -> ids of the assertions read from it, in by-source.rq's order (start offset, then record
        IRI; repeats kept), for documents that have an m:reference. One queries/sources-of.rq per _CHUNK
        documents; a document with a start offset that is not an xsd:integer is read with by-source.rq."""
        spans: dict[str, list[tuple[int, str]]] = {}
        odd: set[str] = set()
        for k in range(0, len(docs), _CHUNK):
            text = T.bind_rows(packaged("sources-of"), ["doc"], [(ox.NamedNode(d),) for d in docs[k : k + _CHUNK]])
            for doc, a, start in self.store.query(text):
                if isinstance(start, ox.Literal) and start.datatype == XSD_INTEGER:
                    spans.setdefault(doc.value, []).append((int(start.value), a.value))
                else:
                    odd.add(doc.value)
        out = {d: [id_of(a) for _, a in sorted(rows)] for d, rows in spans.items() if d not in odd}
        for d in sorted(odd):
            node = ox.NamedNode(d)
            refs = [q.object for q in self.store.quads(node, M.reference, None, PROVENANCE_GRAPH) if not isinstance(q.object, ox.BlankNode)]
            # bound by reference (binding ?doc would also substitute it inside ORDER BY); ordered by start offset
            out[d] = [id_of(r["a"]) for ref in refs[:1] for r in self.store.run_query("by-source", reference=ref) if r["doc"] == node]
        return out

    def _rebuild_paths(
        self,
        docs: Iterable[str],
        facts: Sequence[tuple[str, str, str, str]] = (),
        read: AbstractSet[str] | None = frozenset(),
        *,
        told: bool = False,
    ) -> int:
        """Rebuild the path memories of `docs` from the believed facts among their assertions. `facts` are
        the believed ones among the ids in `read`, which the caller has read already (`read` None: `facts`
        is every believed fact); the rest are read for those assertions only. `told`: the side tables are in
        step, so the rest are their fact rows (not read from the store), and so are the assertions of a
        document this Memory was told every source of (`_told_rows`)."""
        docs = sorted(set(docs))
        if not docs:
            return 0
        rows = self._told_document_rows(docs) if told else self._document_rows(docs)
        if told:
            have = {f[0] for f in facts}
            facts = list(facts) + self.side.fact_rows(set(chain.from_iterable(rows.values())) - have)
        elif read is not None:
            need = set(chain.from_iterable(rows.values())) - read
            facts = list(facts) + (believed_facts(self.store, ids=need) if need else [])
        by_id = {f[0]: f for f in facts}
        n = 0
        for d in docs:
            seen: set[str] = set()
            triples = []
            for aid in rows.get(d, ()):
                if aid in by_id and aid not in seen:
                    seen.add(aid)
                    triples.append(by_id[aid][1:])
            paths = enumerate_paths(triples, max_hops=self.config.path_max_hops, window=self.config.path_window) if triples else []
            if paths:
                self.side.put_paths(d, document_memory(paths, self.encoder), [p.elements for p in paths])
            else:
                self.side.remove_paths(d)
            n += 1
        return n

    def _forget_unknown(self) -> int:
        """Drop Hebbian pairs of entities the store's registry no longer holds (erased). An entity a fact row
        names is known (the fact rows are in step when this runs); only the others are looked for in the
        registry, which is read whole only when there are such others."""
        rows = self.side.conn.execute("SELECT a FROM hebbian UNION SELECT b FROM hebbian EXCEPT SELECT key FROM terms WHERE kind = 'e'").fetchall()
        if not rows:
            return 0
        known = {entity_key(f) for f in (q.object.value for q in self.store.quads(None, M.folded, None, ENTITY_GRAPH))}
        gone = [r[0] for r in rows if r[0] not in known]
        return self.side.hebbian.forget(gone) if gone else 0

    # ------------------------------------------------------------------ Hebbian, by entity name
    def activate(self, names: Iterable[str]) -> int:
        """One Hebbian turn: strengthen every pair of these entities; the rest decays. Returns the turn."""
        return self.side.hebbian.step({entity_key(n) for n in names})

    def priming(self, name: str, limit: int | None = None) -> list[tuple[str, float]]:
        """Entities associated with `name` above the priming threshold, strongest first, as display names."""
        names: dict[str, str] = {}
        for e in self.entities():
            names.setdefault(entity_key(e.name), e.name)
        out = []
        for key, w in self.side.hebbian.priming(entity_key(name)):
            if key in names:
                out.append((names[key], w))
        return out if limit is None else out[:limit]


# ------------------------------------------------------------------ the side file of a store with no Memory open


class _Listener:
    """A Memory's subscription, holding it weakly: a Memory dropped without `close` is not kept alive (with
    its SQLite connection) by the store it was attached to, and stops receiving events."""

    __slots__ = ("memory",)

    def __init__(self, mem: Memory) -> None:
        self.memory = weakref.ref(mem)

    def __call__(self, ev: StoreEvent) -> None:
        mem = self.memory()
        if mem is not None:
            mem._on_event(ev)


def _attached(store: AssertionStore) -> list[Memory]:
    """The Memories subscribed to this store object (its subscriber list: no module-level registry)."""
    mems = (cb.memory() for cb in store.subscribers() if isinstance(cb, _Listener))
    return [m for m in mems if m is not None]


def _erased(store: AssertionStore, ev: StoreEvent) -> None:
    path = store.path
    if path is None or not side_path(path).exists():
        return
    side = SideTables(side_path(path))
    tmp = Memory(store, side)
    try:
        if side.rebuilt:  # was damaged: filled again from the store, which no longer believes `ids`
            tmp.sync()
        else:
            tmp.drop(ev.affected)
        tmp.after_erasure()
    finally:
        tmp._unsubscribe()
        side.close()


def _compacted(root: Path) -> None:
    p = side_path(root)
    if p.exists():
        side = SideTables(p)
        try:
            side.vacuum()
        finally:
            side.close()
        if side.rebuilt:  # it was damaged and is empty now: gone, the next Memory.attach builds it from the store
            for x in ("", "-wal", "-shm"):
                p.with_name(p.name + x).unlink(missing_ok=True)


def follow(store: AssertionStore) -> Callable[[], None]:
    """Keep the side tables beside an on-disk store in step while no Memory is open on it (the CLI's
    `erase` and `compact`): on `erased` the file, if there is one, drops the erased rows (and forgets
    Hebbian pairs of entities the store no longer knows); on `compacted` it is vacuumed. Events a Memory
    attached to the store handles itself are left to it. Returns the unsubscribe function."""

    def on_event(ev: StoreEvent) -> None:
        if _attached(store):
            return
        if ev.kind == "erased":
            _erased(store, ev)
        elif ev.kind == "compacted" and ev.path is not None:
            _compacted(Path(ev.path))

    return store.subscribe(on_event)


def follow_in_step(store: AssertionStore) -> Memory | None:
    """A Memory attached to `store` when its side tables are known to be in step without reading the store
    (its files are as the last process that kept them in step left them), else None. Attached, it follows the
    writes that come (the ingest verb's batches, as `committed` events: fact rows, path memories, entity rows)
    and leaves the mark when the store closes, so the next process need not reconcile; close it after the store."""
    if _attached(store) or store.path is None or store.read_only:
        return None
    mem = Memory.attach(store, reconcile=False)
    if mem._in_step:
        return mem
    mem.close()
    return None


def after_ingest_hook(store: AssertionStore) -> Callable[[object], None]:
    """A callback for `pipeline.load.load(on_commit=…)`: indexes each committed batch in the side tables beside an
    on-disk store (one call per loader flush). Their file is opened (and rebuilt from the store if it is
    missing or damaged) now, before the ingest commits anything, so a damaged file costs a notice, not a
    half-finished ingest. A Memory attached to the store indexes each write itself (its `committed`
    event), so then the callback does nothing."""
    if not _attached(store) and store.path is not None and not store.read_only:
        Memory.attach(store, reconcile=False).close()

    def hook(report) -> None:
        ids = list(getattr(report, "ids", ()) or ())
        if not ids or _attached(store):
            return
        m = Memory.attach(store, reconcile=False)
        m._unsubscribe()  # indexes this report only, not the events of other writes meanwhile
        try:
            m.index_written(report)
        finally:
            m.close()

    return hook
