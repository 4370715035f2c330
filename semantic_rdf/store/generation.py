"""Whether an on-disk store changed between two processes: a fingerprint of its files at rest.

Every write to the embedded store, by this tool or by anything else (pyoxigraph in a user's script, a writer
killed half-way), appends to RocksDB's files, so the names, sizes and modification times of the files under
`<store>/oxigraph` change with it. The store takes the fingerprint before it opens the directory and again
after it has closed it (`AssertionStore.generation_at_open`, the `closed` event); the side tables keep the one
of the last close at which they were known to be in step, and a later process that finds the same one at
open skips reading the store to reconcile them (docs/answer.md, "Cost at scale").

RocksDB's informational log (`LOG`, `LOG.old.*`) and its lock file carry no data and change on opens that write
nothing (a read-only open rotates the log), so they are left out: leaving them in would only cost a reconcile.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "000001.log").write_bytes(b"x")
>>> a = fingerprint(d)
>>> _ = (d / "LOG").write_text("opened")
>>> fingerprint(d) == a
True
>>> _ = (d / "000001.log").write_bytes(b"xy")
>>> fingerprint(d) == a
False
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["fingerprint"]

_NOT_DATA = ("LOG", "LOCK")


def fingerprint(directory: str | os.PathLike) -> str | None:
    """A digest of every data file under `directory` (relative name, size, modification time in ns), or
    None when it cannot be read (then nothing may be assumed about the store)."""
    root = Path(directory)
    rows = []
    try:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                if name.startswith(_NOT_DATA):
                    continue
                st = os.stat(os.path.join(dirpath, name), follow_symlinks=False)
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                rows.append(f"{rel}\t{st.st_size}\t{st.st_mtime_ns}")
    except OSError:
        return None
    if not rows:
        return None
    return hashlib.sha256("\n".join(rows).encode("utf-8", "surrogateescape")).hexdigest()
