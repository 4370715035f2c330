"""Compaction: rebuild a closed store's directory from its live quads, so that what an erasure removed is in
none of its files (`semantic-rdf compact`, `AssertionStore.compact`), and finish or undo one a crash
interrupted (`recover`, called before a store is opened).
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

import pyoxigraph as ox

from semantic_rdf.core.errors import NotFound, StoreInUse
from semantic_rdf.store.readers import READERS, sweep

__all__ = ["compact", "recover", "CompactReport"]


@dataclass(frozen=True)
class CompactReport:
    quads: int
    bytes_before: int
    bytes_after: int
    side_tables: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"quads": self.quads, "bytes_before": self.bytes_before, "bytes_after": self.bytes_after, "side_tables": list(self.side_tables)}


def _size(path: Path) -> int:
    """Bytes of the store directory's files; not those of readers' snapshots (hard links to the files a reader
    opened, which after a compaction are the old ones)."""
    readers = path / READERS
    total = 0
    for f in path.rglob("*"):
        try:
            if f.is_file() and readers not in f.parents:
                total += f.stat().st_size
        except FileNotFoundError:
            pass  # a file RocksDB removed between the listing and its size (an old log, a flushed table)
    return total


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
    fresh = root / f"oxigraph.compact-{uuid.uuid4().hex}"
    try:
        old = ox.Store(str(data))
    except OSError as exc:
        if "lock" in str(exc).lower():
            raise StoreInUse(f"store {str(root)!r} is in use; close it before compacting") from None
        raise
    # measured once the lock is held: a store open elsewhere is refused before its files are read, which its writer
    # may be removing meanwhile
    before = _size(root)
    sweep(root)  # readers that ended without closing left their snapshots of the old files
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
    sweep(root)  # and those that ended meanwhile
    tables = _compact_side_tables(root)
    return CompactReport(n_new, before, _size(root), tuple(tables))


def _compact_side_tables(root: Path) -> list[str]:
    """Make every SQLite file inside the store directory drop its free pages. The side tables beside it
    (<store>.side.sqlite) are not this module's: they vacuum their file on the `compacted` event that
    `AssertionStore.compact` publishes (semantic_rdf/core/events.py)."""
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
