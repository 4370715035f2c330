"""Read-only handles on a store directory that another process may be writing.

RocksDB's read-only open reads the list of the store's files, opens some of them and leaves the others to
the first query that needs them. The writer meanwhile compacts, flushes and bulk loads, and deletes the
files it has replaced. A reader that then reaches for one of them fails, and pyoxigraph (0.5.13) can loop
on that error inside one query until memory runs out (docs/security.md, "A reader opens a snapshot of the
store's files"). So a reader opens a snapshot instead: a private directory under ``<store>/readers/`` holding hard
links to the store's table and log files and a copy of its file list, taken at a moment the writer
changed nothing. The writer's deletions then remove its own names only; the reader's files live until it
closes and the snapshot is removed.

A snapshot is owned through a lock: its reader holds a shared `flock` on the snapshot's ``lock`` file. A
snapshot whose lock nobody holds was left by a reader that ended without closing (killed, a forked child
that exited); `sweep` removes it, and every open of the store sweeps. Where hard links or locks are not to
be had (another platform, a file system without them, a directory the reader may not write), the reader
opens the store's own directory, as before.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput, StoreInUse

try:
    import fcntl
except ImportError:  # not POSIX: no snapshots (see the module's docstring)
    fcntl = None  # type: ignore[assignment]

__all__ = ["READERS", "Snapshot", "fresh_snapshot", "open_read_only", "read_only", "snapshot", "sweep"]

READERS = "readers"  # the snapshots' directory, inside the store's
_LOCK = "lock"
_HALF_MADE = 60.0  # seconds after which a snapshot directory without a lock is a reader's leftover
_SNAPSHOT_NAME = re.compile(r"[0-9a-f]{32}")  # uuid4().hex: a sweep removes nothing else
_ATTEMPTS = 50  # snapshots tried while the writer keeps changing its file list (each takes milliseconds)


class Snapshot:
    """One reader's directory of hard links to a store's files; `close` removes it."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def fileno(self) -> int:
        """The descriptor of the lock it holds: a process that inherits it holds the lock too (`serve`'s server)."""
        if self._fd is None:
            raise ValueError("snapshot closed")
        return self._fd

    def close(self) -> None:
        """Remove the directory and let go of its lock (again: nothing)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        shutil.rmtree(self.path, ignore_errors=True)
        os.close(fd)

    def __repr__(self) -> str:
        return f"Snapshot({str(self.path)!r}, {'open' if self._fd is not None else 'closed'})"


def _own_directory(path: Path) -> bool:
    """Whether `path` is a directory itself, not a link to one: a store directory from elsewhere could hold a
    `readers` link to any directory, whose old subdirectories a sweep would then remove."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _file_list(data: Path) -> tuple[bytes, str, int]:
    """RocksDB's CURRENT (which MANIFEST is the file list) and that MANIFEST's size: while these stay the same,
    the writer has installed no new version of the store, so no file of the version they describe has been
    deleted (a file is deleted only after a version without it is written to the MANIFEST)."""
    current = (data / "CURRENT").read_bytes()
    name = current.decode("ascii", "replace").strip()
    if not name.startswith("MANIFEST-") or "/" in name:
        raise FileNotFoundError(f"unexpected CURRENT in {data}")
    return current, name, (data / name).stat().st_size


def _own(path: Path) -> int:
    """Create `path`'s lock and hold it shared; FileNotFoundError when a sweep removed the directory first."""
    fd = os.open(path / _LOCK, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits while a sweep holds it exclusively, removing the directory
        # a sweep that locked the file before this process did has removed it meanwhile
        if os.fstat(fd).st_ino != os.stat(path / _LOCK).st_ino:
            raise FileNotFoundError(path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _fill(data: Path, into: Path) -> bool:
    """Link the store's files into `into`; False when the writer changed its file list meanwhile."""
    before = _file_list(data)
    current, manifest, size = before
    with open(data / manifest, "rb") as src:
        (into / manifest).write_bytes(src.read(size))  # the list as it was: the writer only appends to it
    (into / "CURRENT").write_bytes(current)
    for name in os.listdir(data):
        try:
            if name.endswith((".sst", ".log")):  # immutable tables; logs only grow, and a link sees what was written
                os.link(data / name, into / name, follow_symlinks=False)
            elif name.startswith("OPTIONS-") or name == "IDENTITY":
                shutil.copyfile(data / name, into / name)
        except FileNotFoundError:
            pass  # gone with a version the list no longer holds, or the check below sees the change
    return _file_list(data) == before


def snapshot(data: Path, root: Path) -> Snapshot | None:
    """A snapshot of the store at `root` (its RocksDB directory `data`); None where none can be taken."""
    if fcntl is None or not hasattr(os, "link"):
        return None
    parent = root / READERS
    try:
        parent.mkdir(exist_ok=True)
    except OSError:
        return None
    if not _own_directory(parent):
        return None
    for _ in range(_ATTEMPTS):
        path = parent / uuid.uuid4().hex
        try:
            path.mkdir()
            fd = _own(path)
        except FileNotFoundError:
            continue
        except OSError:
            shutil.rmtree(path, ignore_errors=True)
            return None
        snap = Snapshot(path, fd)
        try:
            if _fill(data, path):
                return snap
        except FileNotFoundError:
            pass  # the writer replaced CURRENT or its MANIFEST between two reads: again
        except OSError:
            snap.close()
            return None  # no hard links here (or no room): the store's own directory
        snap.close()
    return None


def sweep(root: Path) -> int:
    """Remove the snapshots under `root` that no reader holds; the number removed. Housekeeping: it never
    fails an open (what it cannot read or remove is left to the next)."""
    parent = root / READERS
    if fcntl is None or not _own_directory(parent):
        return 0
    try:
        paths = [p for p in parent.iterdir() if _SNAPSHOT_NAME.fullmatch(p.name) and _own_directory(p)]
    except OSError:
        return 0
    removed = 0
    for path in paths:
        try:
            fd = os.open(path / _LOCK, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            # being made (its reader creates the lock next), or left so by a reader that ended then: such a
            # directory holds no file of the store yet, and is removed once it is older than any making takes
            try:
                if time.time() - path.stat().st_mtime < _HALF_MADE:
                    continue
            except OSError:
                continue
            fd = None
        except OSError:
            continue
        try:
            if fd is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue  # a reader holds it
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
        finally:
            if fd is not None:
                os.close(fd)
    return removed


def fresh_snapshot(data: Path, root: Path) -> Snapshot | None:
    """`snapshot`, after sweeping the ones readers left (`serve`; `open_read_only` sweeps once, before its retries)."""
    sweep(root)
    return snapshot(data, root)


def open_read_only(data: Path, root: Path, attempts: int = 20) -> tuple[ox.Store, Snapshot | None]:
    """A read-only handle on the store at `root` (its RocksDB directory `data`) and the snapshot it reads, which
    the caller closes after the last use of the handle (None: it reads `data` itself). Stale snapshots are swept
    first. Opening the store's own directory reads RocksDB's list of files; a compaction or bulk load in the
    writer can delete one of them in between, which RocksDB reports as "Corruption: IO error: No such file"
    although nothing is damaged: open again (tests/test_concurrency.py)."""
    sweep(root)
    for attempt in range(attempts):
        snap = snapshot(data, root)
        try:
            return ox.Store.read_only(str(snap.path if snap is not None else data)), snap
        except RuntimeError as exc:
            if snap is not None:
                snap.close()
            if "No such file" not in str(exc):
                raise InvalidInput(f"cannot open store {str(root)!r}: {' '.join(str(exc).split())}") from None
            time.sleep(0.01 * (attempt + 1))
        except BaseException:
            if snap is not None:
                snap.close()
            raise
    raise StoreInUse(f"store {str(root)!r} is being rewritten by its writer; try again")


@contextmanager
def read_only(data: Path, root: Path) -> Iterator[ox.Store]:
    """`open_read_only` for one block: the handle is dropped and its snapshot removed at the block's end (the
    handle must not be used after it)."""
    st, snap = open_read_only(data, root)
    try:
        yield st
    finally:
        del st
        if snap is not None:
            snap.close()
