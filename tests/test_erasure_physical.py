"""Physical erasure across every file of a store: RocksDB files, the SQLite side tables, their WAL.

Erase and compact run as fresh `semantic-rdf` processes (as a user runs them), so the side tables must be
reached without any Memory object open in the process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from semantic_rdf.hdc.gate import Config
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.hdc.sidetables import SideTables, side_path
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.store.compaction import compact
from semantic_rdf.core.values import Chunk, Doc, Triple

from _security import run_proc

SECRET = "Quorvath Zendelmire"
TEXT = f"{SECRET} was born in Plinthaven. Ada Lovelace was born in London."


def _files_with(paths: list[Path], needle: str) -> list[str]:
    data = needle.encode("utf-8")
    out = []
    for p in paths:
        files = [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file()] if p.is_dir() else []
        out += [str(f) for f in files if data in f.read_bytes()]
    return sorted(out)


def test_erase_and_compact_remove_the_claim_from_rocksdb_and_side_tables(tmp_path):
    root = tmp_path / "store"
    s = AssertionStore.open(root)
    doc = Doc("bio.txt", "bio.txt", TEXT, {"media_type": "text/plain"})
    chunk = Chunk(doc.id, 0, TEXT, 0, len(TEXT))
    cut = TEXT.index(" Ada")
    triples = [
        Triple(SECRET, "born_in", "Plinthaven", chunk, start=0, end=cut),
        Triple("Ada Lovelace", "born_in", "London", chunk, start=cut + 1, end=len(TEXT)),
    ]
    with s.run("ingestion", agent="test") as run:
        s.add_document(doc, run)
        s.assert_triples(triples, run=run)
    cfg = Config()
    side = SideTables(side_path(root), cfg, cfg.encoder(None))
    side.put_facts([(t.id, t.subject, t.predicate, t.object) for t in triples])
    side.close()
    s.close()
    everywhere = [root, side_path(root), Path(str(side_path(root)) + "-wal"), Path(str(side_path(root)) + "-shm")]
    assert _files_with([side_path(root)], SECRET), "the side tables must hold the name before erasure"
    assert _files_with([root], "Zendelmire")

    secret_id = assertion_id(SECRET, "born_in", "Plinthaven")
    r = run_proc(root, "erase", secret_id, "--reason", "right to erasure")
    assert r.rc == 0, r.err
    r = run_proc(root, "compact")
    assert r.rc == 0, r.err
    for needle in (SECRET, "Zendelmire", "zendelmire", "quorvath"):
        assert _files_with(everywhere, needle) == [], needle
    # what was not erased is still there, in both
    side = SideTables(side_path(root), cfg, cfg.encoder(None))
    try:
        assert side.fact_ids() == {assertion_id("Ada Lovelace", "born_in", "London")}
    finally:
        side.close()
    s = AssertionStore.open(root)
    try:
        assert s.get(secret_id) is None and s.get(assertion_id("Ada Lovelace", "born_in", "London")) is not None
    finally:
        s.close()


def test_a_reader_open_through_erase_and_compact_keeps_the_text_only_until_it_closes(tmp_path):
    """A read-only handle reads a snapshot of hard links to the store's files (store/readers.py). One open through
    `erase` and `compact` keeps its view, erased claim and all, and so its files, until it closes; then they are in no
    file. One that ended without closing (killed) leaves its snapshot behind, and `compact` removes it."""
    root = tmp_path / "store"
    s = AssertionStore.open(root)
    doc = Doc("bio.txt", "bio.txt", TEXT, {"media_type": "text/plain"})
    chunk = Chunk(doc.id, 0, TEXT, 0, len(TEXT))
    with s.run("ingestion", agent="test") as run:
        s.add_document(doc, run)
        s.assert_triples([Triple(SECRET, "born_in", "Plinthaven", chunk, start=0, end=TEXT.index(" Ada"))], run=run)
    s.close()
    secret_id = assertion_id(SECRET, "born_in", "Plinthaven")
    ro = AssertionStore.open(root, read_only=True)
    killed = "import os, sys; from semantic_rdf.store.assertions import AssertionStore; AssertionStore.open(sys.argv[1], read_only=True); os._exit(0)"
    subprocess.run([sys.executable, "-c", killed, str(root)], check=True)
    assert len(list((root / "readers").iterdir())) == 2
    assert run_proc(root, "erase", secret_id, "--reason", "right to erasure").rc == 0
    report = compact(root)  # in this process: nothing writes between its report and the sizes read below
    (left,) = (root / "readers").iterdir()  # the killed reader's snapshot is gone, the open one's stays
    assert ro.get(secret_id) is not None  # it reads the store as it opened it
    assert {Path(f).relative_to(left).parts[0] for f in _files_with([left], "Zendelmire")}
    assert _files_with([root / "oxigraph"], "Zendelmire") == []
    # the report's sizes are the store's files, not the reader's (hard links to the old ones)
    assert report.bytes_after == sum(f.stat().st_size for f in root.rglob("*") if f.is_file() and left not in f.parents)
    ro.close()
    assert _files_with([root], "Zendelmire") == [] and not list((root / "readers").iterdir())
