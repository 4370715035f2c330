"""Erasure: remove an assertion and leave a tombstone; `compact` makes the removal physical.

Retraction is not erasure (HIP-0526 Security Considerations). `erase` drops, in one transaction:
  * the claim graph g:<id>;
  * the record's payload: echoes, literals, belief intervals, and every observation (span / caller
    statement) with its selector;
  * the erased spans' characters in the stored document text, overwritten with a filler character of
    the same length, so the offsets of every other span stay valid;
  * entity-registry rows (label, folded name) of entities no other record, claim or decision uses;
and writes a typed tombstone in their place (`a:<id> a m:Tombstone` with the time, the reason and an
m:Erasure activity naming the agent), so traces and decisions that cite the id still resolve.

What was derived from an erased assertion is withdrawn (its belief interval closes, recorded), like a
retraction; a derived assertion left with no antecedent that is still an assertion is erased too,
because a derivation must name an antecedent (HIP-0526 §5, shapes) and because what would remain is
the erased claim restated (e.g. the inverse of an erased parent_of).

Oxigraph (RocksDB) keeps deleted values in older files until they are compacted away, so after an
erasure the text can still sit in the store's files. `compact(store_dir)` copies every live quad into a
fresh store directory and swaps it in atomically, then deletes the old one; side tables get the same
treatment through `semantic_rdf.sidetables` (or the hooks below).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import shutil
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pyoxigraph as ox

from semantic_rdf import layout as L
from semantic_rdf import temporal as T
from semantic_rdf.errors import InvalidInput, NotFound, StoreInUse
from semantic_rdf.vocab import (
    DOCUMENT_GRAPH, ENTITY_GRAPH, M, NS, OA_, P, PROVENANCE_GRAPH, RDF_TYPE, assertion_iri, claim_graph, id_of,
)

__all__ = ["erase", "compact", "CompactReport", "FILLER", "ERASE_HOOKS", "COMPACT_HOOKS"]

G = PROVENANCE_GRAPH
FILLER = "\u2588"  # FULL BLOCK: visibly redacted, one code point per erased character
redacted = ox.NamedNode(NS + "redacted")

# Side-table hooks. erase(store, ids) runs after the RDF commit: delete rows keyed by the erased ids.
# compact(store_dir) runs during `compact`: make deleted rows unrecoverable (secure_delete + VACUUM).
ERASE_HOOKS: list[Callable[[object, list[str]], None]] = []
COMPACT_HOOKS: list[Callable[[Path], None]] = []


def _sidetables():
    try:
        from semantic_rdf import sidetables  # type: ignore[attr-defined]
    except ModuleNotFoundError as exc:
        if exc.name == "semantic_rdf.sidetables":
            return None
        raise
    return sidetables


# ------------------------------------------------------------------ erase

def _payload(store, aid: str) -> tuple[list[ox.Quad], list[tuple[ox.NamedNode, int, int]], set[str]]:
    """The quads an erasure removes for one record, the text spans it redacts, the entities it mentions."""
    a = assertion_iri(aid)
    quads = list(store.ox.quads_for_pattern(None, None, None, claim_graph(aid)))
    rec = list(store.ox.quads_for_pattern(a, None, None, G))
    quads += rec
    spans: list[tuple[ox.NamedNode, int, int]] = []
    entities: set[str] = set()
    for q in rec:
        if q.predicate in (M.subject, M.object) and isinstance(q.object, ox.NamedNode):
            entities.add(q.object.value)
        elif q.predicate == M.belief:
            quads += store.ox.quads_for_pattern(q.object, None, None, G)
        elif q.predicate == P.wasDerivedFrom and q.object.value.startswith("https://w3id.org/semantic-rdf/src/"):
            src = q.object
            sq = list(store.ox.quads_for_pattern(src, None, None, G))
            quads += sq
            doc = sel = None
            for x in sq:
                if x.predicate == OA_.hasSource:
                    doc = x.object
                elif x.predicate == OA_.hasSelector:
                    sel = x.object
            if sel is not None:
                selq = list(store.ox.quads_for_pattern(sel, None, None, G))
                quads += selq
                start = next((int(x.object.value) for x in selq if x.predicate == OA_.start), None)
                end = next((int(x.object.value) for x in selq if x.predicate == OA_.end), None)
                if doc is not None and start is not None and end is not None:
                    spans.append((doc, start, end))
    return quads, spans, entities


def _entity_in_use(store, e: ox.NamedNode, removing: set[str]) -> bool:
    for q in store.ox.quads_for_pattern(None, None, e, None):
        if q.graph_name != ENTITY_GRAPH and str(q) not in removing:
            return True
    for q in store.ox.quads_for_pattern(e, None, None, None):
        if q.graph_name != ENTITY_GRAPH and str(q) not in removing:
            return True
    return False


def redact(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with every [start, end) span overwritten by FILLER; the length (in code points) is unchanged."""
    chars = list(text)
    for start, end in spans:
        if not 0 <= start <= end <= len(chars):
            raise InvalidInput(f"span {start}..{end} lies outside the document text (length {len(chars)})")
        chars[start:end] = FILLER * (end - start)
    return "".join(chars)


def _erasure_set(store, root: str) -> tuple[list[str], list[str]]:
    """(ids to erase, derived ids to withdraw): the root, plus derived records left without a live antecedent."""
    gone = {root}
    withdraw: list[str] = []

    def orphaned(_ante: str, d: str) -> bool:
        antes = [x.object.value for x in store.ox.quads_for_pattern(assertion_iri(d), P.wasDerivedFrom, None, G)]
        has_obs = any(x.startswith("https://w3id.org/semantic-rdf/src/") for x in antes)
        live = [x for x in antes if x.startswith("https://w3id.org/semantic-rdf/a/") and id_of(x) not in gone
                and M.Assertion.value in T._types(store, ox.NamedNode(x))]
        if not live and not has_obs:
            return True
        if d not in withdraw:
            withdraw.append(d)
        return False

    erase = [root] + T.spread(store, [root], gone, orphaned)
    return erase, [d for d in withdraw if d not in gone]


def erase(store, aid: str, reason: str, agent: str = "caller") -> T.Change:
    """Erase one assertion (and what would only restate it), leaving tombstones. See the module docstring."""
    a = T._check_id(aid)
    reason = T._check_reason(reason)
    st = T.require_state(store, aid, erased=None)  # erasing a tombstone again is recorded, not refused
    act, at, q = T.activity(store, M.Erasure, agent, reason=reason, label=f"erase {aid}")
    if st == "erased":
        store.commit(q)  # the request is recorded; the tombstone already says the rest
        return T.Change(act.value, at, unchanged=(aid,))
    ids, withdraw = _erasure_set(store, aid)
    batch = T._Batch(store)
    batch.add += q
    removing: list[ox.Quad] = []
    spans: dict[str, list[tuple[int, int]]] = {}
    entities: set[str] = set()
    for i in ids:
        pq, sp, ent = _payload(store, i)
        removing += pq
        for doc, s, e in sp:
            spans.setdefault(doc.value, []).append((s, e))
        entities |= ent
        ta = assertion_iri(i)
        why = reason if i == aid else f"{reason} (derived only from erased a:{aid})"
        batch.add += [
            ox.Quad(ta, RDF_TYPE, M.Tombstone, G), ox.Quad(ta, RDF_TYPE, P.Entity, G),
            ox.Quad(ta, P.invalidatedAtTime, L.dt(at), G), ox.Quad(ta, P.wasInvalidatedBy, act, G),
            ox.Quad(ta, M.reason, L.string(why), G),
        ]
    removing_keys = {str(x) for x in removing}
    forgotten: list[str] = []
    for e in sorted(entities):
        node = ox.NamedNode(e)
        if not _entity_in_use(store, node, removing_keys):
            rows = list(store.ox.quads_for_pattern(node, None, None, ENTITY_GRAPH))
            removing += rows
            forgotten += [r.object.value for r in rows if r.predicate == M.folded]
    for doc_iri, sp in spans.items():
        d = ox.NamedNode(doc_iri)
        for old in store.ox.quads_for_pattern(d, M.text, None, DOCUMENT_GRAPH):
            removing.append(old)
            batch.add.append(ox.Quad(d, M.text, L.string(redact(old.object.value, sp)), DOCUMENT_GRAPH))
        batch.add.append(ox.Quad(act, redacted, d, G))
    batch.remove += removing
    cascaded = []
    for d in withdraw:
        da = assertion_iri(d)
        if T._live_observation(store, da, set()):
            continue
        if T._close(batch, da, act, at, because=a):
            cascaded.append(d)
    cascaded += T._cascade_withdraw(batch, cascaded, act, at, skip=set(ids))
    # the check sees tombstones and activity, not the removed payload
    removed_subjects = {x.subject.value for x in removing}
    batch.touched -= removed_subjects
    batch.commit()
    known = getattr(store, "_known_entities", None)  # the store caches registered entities; forget the erased
    if isinstance(known, set):
        known.difference_update(forgotten)
    _run_erase_hooks(store, ids)
    return T.Change(act.value, at, (aid,), (), tuple(cascaded), (), tuple(ids))


def _run_erase_hooks(store, ids: list[str]) -> None:
    hooks = list(ERASE_HOOKS)
    st = _sidetables()
    if st is not None and hasattr(st, "erase"):
        hooks.append(st.erase)
    for h in hooks:
        h(store, ids)


# ------------------------------------------------------------------ compact

@dataclass(frozen=True)
class CompactReport:
    quads: int
    bytes_before: int
    bytes_after: int
    side_tables: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"quads": self.quads, "bytes_before": self.bytes_before, "bytes_after": self.bytes_after,
                "side_tables": list(self.side_tables)}


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directory entries (Linux renameat2 RENAME_EXCHANGE). False when unsupported."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    AT_FDCWD = -100
    rc = fn(AT_FDCWD, os.fsencode(str(a)), AT_FDCWD, os.fsencode(str(b)), _RENAME_EXCHANGE)
    return rc == 0


def recover(store_dir: str | os.PathLike) -> None:
    """Finish or undo a compaction that was interrupted (call before opening the store)."""
    root = Path(store_dir)
    data = root / "oxigraph"
    for leftover in sorted(root.glob("oxigraph.compact-*")):
        if not data.exists() and (leftover / "done").exists():
            os.rename(leftover, data)  # crashed between the two renames of the fallback path
            (data / "done").unlink(missing_ok=True)
        else:
            shutil.rmtree(leftover, ignore_errors=True)


def compact(store_dir: str | os.PathLike) -> CompactReport:
    """Rebuild the store directory from its live quads so erased data is in none of its files.

    The store must not be open (it takes the store's lock). Copies every quad into a fresh Oxigraph
    directory, swaps it in atomically, deletes the old one, then compacts side tables.
    """
    root = Path(store_dir)
    data = root / "oxigraph"
    if not data.is_dir():
        raise NotFound(f"no store at {str(root)!r}")
    recover(root)
    before = _size(root)
    fresh = root / f"oxigraph.compact-{uuid.uuid4().hex}"
    try:
        old = ox.Store(str(data))
    except OSError as exc:
        if "lock" in str(exc).lower():
            raise StoreInUse(f"store {str(root)!r} is in use; close it before compacting") from None
        raise
    try:
        new = ox.Store(str(fresh))
        new.bulk_extend(old.quads_for_pattern(None, None, None, None))
        n_old, n_new = len(old), len(new)
        if n_old != n_new:
            raise RuntimeError(f"compaction copied {n_new} of {n_old} quads; the store was left unchanged")
        new.flush()
        new.optimize()
    except BaseException:
        del old
        new = None
        gc.collect()
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    del old, new
    gc.collect()  # release both RocksDB locks now
    if not _exchange(data, fresh):
        (fresh / "done").touch()
        trash = root / f"oxigraph.old-{uuid.uuid4().hex}"
        os.rename(data, trash)
        os.rename(fresh, data)
        (data / "done").unlink(missing_ok=True)
        fresh = trash
    shutil.rmtree(fresh)
    tables = _compact_side_tables(root)
    return CompactReport(n_new, before, _size(root), tuple(tables))


def _compact_side_tables(root: Path) -> list[str]:
    hooks = list(COMPACT_HOOKS)
    st = _sidetables()
    if st is not None and hasattr(st, "compact"):
        hooks.append(st.compact)
        for h in hooks:
            h(root)
        return [getattr(h, "__name__", "hook") for h in hooks]
    for h in hooks:
        h(root)
    # No side-table module: make every SQLite file in the store directory drop its free pages.
    done = []
    for f in sorted(root.glob("*.sqlite")) + sorted(root.glob("*.db")):
        con = sqlite3.connect(str(f))
        try:
            con.execute("PRAGMA secure_delete = ON")
            con.execute("VACUUM")
        finally:
            con.close()
        done.append(f.name)
    return done
