"""Physical erasure across every file of a store: RocksDB files, the SQLite side tables, their WAL.

Erase and compact run as fresh `semantic-rdf` processes (as a user runs them), so the side tables must be
reached without any Memory object open in the process.
"""

from __future__ import annotations

from pathlib import Path

from semantic_rdf.hdc.gate import Config
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.hdc.sidetables import SideTables, side_path
from semantic_rdf.store.assertions import AssertionStore
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
