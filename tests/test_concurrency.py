"""Concurrency: readers see whole batches while a writer writes; a second writer is refused cleanly."""

from __future__ import annotations

import threading
from pathlib import Path

import pyoxigraph as ox

from semantic_rdf.shapes import fast_checker
from semantic_rdf.store import AssertionStore
from semantic_rdf.values import Triple

from _security import assert_refused, dump, run_cli, run_proc

BATCH = 12
BATCHES = 25
# every statement run is one batch: each must show all its records, each record its claim graph
PER_RUN = """
SELECT ?run (COUNT(DISTINCT ?a) AS ?n) (COUNT(DISTINCT ?g) AS ?claims) WHERE {
  GRAPH <https://w3id.org/semantic-rdf/graph/provenance> {
    ?a <https://w3id.org/semantic-rdf/ns#claimGraph> ?g ; <http://www.w3.org/ns/prov#wasGeneratedBy> ?run .
    ?run <http://www.w3.org/2000/01/rdf-schema#label> "concurrency-batch" .
  }
  GRAPH ?g { ?s ?p ?o }
} GROUP BY ?run
"""


def _batch(b: int) -> list[Triple]:
    return [Triple(f"Person{b}n{k}", "born_in", f"Town{b}n{k}") for k in range(BATCH)]


def _write(store: AssertionStore, stop: threading.Event, batches: int = BATCHES,
           enough: threading.Event | None = None) -> None:
    try:
        for b in range(batches):
            if enough is not None and enough.is_set():
                break
            run = store.begin_run("statement", agent="writer", label="concurrency-batch")
            store.assert_triples(_batch(b), run=run)
            store.end_run(run)
    finally:
        stop.set()


def _sizes(st: ox.Store) -> list[tuple[int, int]]:
    return [(int(r["n"].value), int(r["claims"].value)) for r in st.query(PER_RUN)]


def test_reader_threads_see_whole_batches_while_a_writer_writes(tmp_path):
    store = AssertionStore.open(tmp_path / "store")
    stop = threading.Event()
    seen: list[list[tuple[int, int]]] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            while not stop.is_set():
                seen.append(_sizes(store.ox))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(2)]
    writer = threading.Thread(target=_write, args=(store, stop))
    for t in readers + [writer]:
        t.start()
    for t in readers + [writer]:
        t.join(timeout=120)
    assert not errors, errors
    assert len(seen) > 5, "the readers must have overlapped the writer"
    assert any(0 < len(s) < BATCHES for s in seen), "some reads must have happened mid-run"
    for snapshot in seen:
        assert all(n == BATCH and c == BATCH for n, c in snapshot), snapshot
    assert sorted(_sizes(store.ox)) == [(BATCH, BATCH)] * BATCHES
    assert fast_checker().check_store(store.ox).conforms and store.integrity() == []
    store.close()


def test_read_only_opens_during_writes_are_consistent_snapshots(tmp_path):
    root = tmp_path / "store"
    store = AssertionStore.open(root)
    store.assert_("Seed", "born_in", "Somewhere")
    stop, enough = threading.Event(), threading.Event()
    # the writer goes on until the reader has opened the store several times (or 400 batches)
    writer = threading.Thread(target=_write, args=(store, stop, 400, enough))
    writer.start()
    snapshots = []
    while not stop.is_set():
        ro = ox.Store.read_only(str(root / "oxigraph"))
        snapshots.append(_sizes(ro))
        del ro
        if len(snapshots) >= 8:
            enough.set()
    writer.join(timeout=120)
    assert len(snapshots) > 2
    for s in snapshots:
        assert all(n == BATCH and c == BATCH for n, c in s), s
    store.close()


def test_a_second_writer_process_gets_store_in_use(tmp_path):
    root = tmp_path / "store"
    store = AssertionStore.open(root)
    store.assert_("Ada Lovelace", "born_in", "London")
    store.ox.flush()
    try:
        r = run_proc(root, "assert", "Alan Turing", "born_in", "London")
        assert_refused(r)
        assert "is in use" in r.err
        r = run_proc(root, "ingest", __file__)
        assert_refused(r)
        assert "is in use" in r.err
        # in the same process too: a second handle on the directory is refused, not shared
        r = run_cli(root, "assert", "Alan Turing", "born_in", "London")
        assert_refused(r)
        assert "is in use" in r.err
    finally:
        store.close()
    before = dump(root)
    s = AssertionStore.open(root)
    try:
        assert [r.subject for r in s.match(p="born_in")] == ["Ada Lovelace"]
        assert fast_checker().check_store(s.ox).conforms and s.integrity() == []
    finally:
        s.close()
    assert dump(root) == before
