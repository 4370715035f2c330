"""Concurrency: readers see whole batches while a writer writes; a second writer is refused cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput, StoreInUse
from semantic_rdf.rdf.shapes import fast_checker
from semantic_rdf.store.assertions import _BULK_THRESHOLD, AssertionStore
from semantic_rdf.store.readers import read_only
from semantic_rdf.core.values import Chunk, Doc, Triple

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


def _write(store: AssertionStore, stop: threading.Event, batches: int = BATCHES, enough: threading.Event | None = None, pace=None) -> None:
    """Write `batches` batches, one run each, or fewer once `enough` is set; `pace(b)`, when given, is called
    before batch b and may wait for a reader to catch up."""
    try:
        for b in range(batches):
            if enough is not None and enough.is_set():
                break
            if pace is not None:
                pace(b)
            run = store.begin_run("statement", agent="writer", label="concurrency-batch")
            store.assert_triples(_batch(b), run=run)
            store.end_run(run)
    finally:
        stop.set()


def _sizes(st: ox.Store) -> list[tuple[int, int]]:
    return [(int(r["n"].value), int(r["claims"].value)) for r in st.query(PER_RUN)]


class Seen:
    """What readers saw, in bounded memory however long the writer takes: how many snapshots, how many fell
    mid-run (some batches visible, not all), how many showed a batch in part, and the first few of those.
    (Keeping every snapshot in a list grew without limit while a slow writer ran: issue 20.)"""

    KEEP = 5

    def __init__(self, batches: int, whole: tuple[int, ...]):
        self.batches, self.whole = batches, whole
        self.count = self.mid_run = self.broken = 0
        self.examples: list[list[tuple[int, ...]]] = []  # at most KEEP partial snapshots, for the message
        self._lock = threading.Lock()  # two reader threads may add at once

    def add(self, snapshot: list[tuple[int, ...]]) -> None:
        with self._lock:
            self.count += 1
            self.mid_run += 0 < len(snapshot) < self.batches
            if not all(row == self.whole for row in snapshot):
                self.broken += 1
                if len(self.examples) < self.KEEP:
                    self.examples.append(snapshot)

    def check(self, label: str, at_least: int) -> None:
        assert self.count > at_least, f"the {label} readers must have overlapped the writer"
        assert self.mid_run, f"some {label} reads must have happened mid-run"
        assert not self.broken, (label, self.broken, self.examples)


def _reader(look, stop: threading.Event, seen: Seen, errors: list[BaseException]) -> threading.Thread:
    """A thread that tallies look() in `seen` until `stop`; an exception ends it and is kept in `errors`
    (one per thread at most)."""

    def run() -> None:
        try:
            while not stop.is_set():
                seen.add(look())
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    return threading.Thread(target=run)


def test_reader_threads_see_whole_batches_while_a_writer_writes(tmp_path):
    store = AssertionStore.open(tmp_path / "store")
    stop = threading.Event()
    seen = Seen(BATCHES, (BATCH, BATCH))
    errors: list[BaseException] = []

    readers = [_reader(lambda: _sizes(store.ox), stop, seen, errors) for _ in range(2)]
    writer = threading.Thread(target=_write, args=(store, stop))
    for t in readers + [writer]:
        t.start()
    for t in readers + [writer]:
        t.join(timeout=120)
    assert not errors, errors
    seen.check("thread", at_least=5)
    assert sorted(_sizes(store.ox)) == [(BATCH, BATCH)] * BATCHES
    assert fast_checker().check_store(store.ox).conforms and store.integrity() == []
    store.close()


def test_read_only_opens_during_writes_are_consistent_snapshots(tmp_path):
    root = tmp_path / "store"
    store = AssertionStore.open(root)
    store.assert_("Seed", "born_in", "Somewhere")
    stop, enough = threading.Event(), threading.Event()
    cap = 400  # batches at most: the pacing below makes it about 80
    snapshots = Seen(cap, (BATCH, BATCH))

    def pace(b: int) -> None:
        # A read-only open replays the writer's log, so it slows as the store grows, and an unpaced writer
        # outran the reader (7 opens in 4,000 batches and 2 GB of memory on an idle machine, 2026-12-05):
        # the writer waits, at most 5 s a batch, while the reader is more than ten batches behind.
        deadline = time.monotonic() + 5
        while b > 10 * (snapshots.count + 1) and time.monotonic() < deadline:
            time.sleep(0.002)

    writer = threading.Thread(target=_write, args=(store, stop, cap, enough, pace))
    writer.start()
    while not stop.is_set():
        # as the library opens it: RocksDB can report a file the writer's compaction just removed as missing,
        # and the open is tried again (store/readers.py)
        with read_only(root / "oxigraph", root) as ro:
            snapshots.add(_sizes(ro))
        if snapshots.count >= 8:
            enough.set()
    writer.join(timeout=120)
    assert snapshots.count > 2 and snapshots.mid_run
    assert not snapshots.broken, (snapshots.broken, snapshots.examples)
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


def test_a_writer_told_to_wait_opens_once_the_other_process_lets_go(tmp_path):
    """`--wait SECONDS` (AssertionStore.open(wait=…)): a second writer tries again until the first closes,
    then writes; without it, or when the first holds on longer, it is refused and writes nothing."""
    root = tmp_path / "store"
    store = AssertionStore.open(root)
    store.assert_("Ada Lovelace", "born_in", "London")
    store.ox.flush()
    try:
        started = time.monotonic()
        r = run_proc(root, "--wait", "0.6", "assert", "Alan Turing", "born_in", "London")
        assert_refused(r)
        assert "is in use by another process (waited 0.6 s)" in r.err
        assert time.monotonic() - started >= 0.6
        with pytest.raises(StoreInUse, match="waited 0.3 s"):
            AssertionStore.open(root, wait=0.3)
        # the first writer lets go 1 s after the second starts waiting up to 60 s
        threading.Timer(1.0, store.close).start()
        r = run_proc(root, "--wait", "60", "assert", "Alan Turing", "born_in", "London")
        assert r.rc == 0, r.err
    finally:
        store.close()
    s = AssertionStore.open(root)
    try:
        assert sorted(r.subject for r in s.match(p="born_in")) == ["Ada Lovelace", "Alan Turing"]
    finally:
        s.close()


def test_a_wait_out_of_range_is_refused_before_the_store_is_touched(tmp_path):
    root = tmp_path / "store"
    for bad in ("-1", "nan", "inf", "86401", "soon"):
        r = run_cli(root, "--wait", bad, "assert", "Alan Turing", "born_in", "London")
        assert_refused(r)
        assert "--wait" in r.err
    assert not root.exists()
    for bad in (-1, float("nan"), float("inf"), "5"):
        with pytest.raises(InvalidInput, match="wait must be"):
            AssertionStore.open(root, wait=bad)  # type: ignore[arg-type]
    assert not root.exists()
    # the verb is found after --wait's value, as after --store's
    assert run_cli(root, "--wait", "0", "assert", "Alan Turing", "born_in", "London").rc == 0


# ------------------------------------------------------------------ big batches: the journaled bulk path
BIG = 1_800  # assertions with spans per batch: ~61k quads, over store._BULK_THRESHOLD
BIG_BATCHES = 5
# every big batch is one ingestion run: each must show all its records, their claim graphs and their spans
BIG_PER_RUN = """
SELECT ?run (COUNT(DISTINCT ?a) AS ?n) (COUNT(DISTINCT ?g) AS ?claims) (COUNT(DISTINCT ?src) AS ?spans) WHERE {
  GRAPH <https://w3id.org/semantic-rdf/graph/provenance> {
    ?a <https://w3id.org/semantic-rdf/ns#claimGraph> ?g ; <http://www.w3.org/ns/prov#wasGeneratedBy> ?run ;
       <http://www.w3.org/ns/prov#wasDerivedFrom> ?src .
    ?src <http://www.w3.org/ns/oa#hasSource> ?doc .
    ?run <http://www.w3.org/2000/01/rdf-schema#label> "concurrency-bulk" .
  }
  GRAPH ?g { ?s ?p ?o }
} GROUP BY ?run
"""


def _big_write(store: AssertionStore, stop: threading.Event, sizes: list[int]) -> None:
    try:
        for b in range(BIG_BATCHES):
            sents = [f"Bulkperson{b}x{k} was born in Bulktown{b}y{k}." for k in range(BIG)]
            text = " ".join(sents)
            doc = Doc(f"bulk-doc-{b}", f"bulk-doc-{b}.txt", text, {"media_type": "text/plain"})
            chunk = Chunk(doc.id, 0, text, 0, len(text))
            triples, pos = [], 0
            for k, sent in enumerate(sents):
                start = text.index(sent, pos)
                pos = start + len(sent)
                triples.append(Triple(f"Bulkperson{b}x{k}", "born_in", f"Bulktown{b}y{k}", chunk, 0.9, start=start, end=pos))
            run = store.begin_run("ingestion", agent="writer", label="concurrency-bulk")
            store.add_document(doc, run)
            sizes.append(store.assert_triples(triples, run=run).quads_added)
            store.end_run(run)
    finally:
        stop.set()


def _big_sizes(st: ox.Store) -> list[tuple[int, int, int]]:
    return [(int(r["n"].value), int(r["claims"].value), int(r["spans"].value)) for r in st.query(BIG_PER_RUN)]


def test_readers_see_whole_bulk_loaded_batches(tmp_path):
    """Batches over the bulk threshold go through journal + Store.bulk_load: reader threads on the writer's
    handle and read-only opens of the directory must still see each batch whole or not at all.

    While the writer bulk loads, RocksDB's own read-only open fails now and then (2-5 % of opens measured)
    with "Corruption: IO error: No such file ... .sst": the writer removed a file the MANIFEST the reader
    had just read still named. Nothing is damaged; AssertionStore.open(read_only=True) opens again, so
    every open here must succeed."""
    root = tmp_path / "store"
    store = AssertionStore.open(root)
    stop = threading.Event()
    sizes: list[int] = []  # one per batch: BIG_BATCHES
    seen = Seen(BIG_BATCHES, (BIG, BIG, BIG))
    ro_seen = Seen(BIG_BATCHES, (BIG, BIG, BIG))
    errors: list[BaseException] = []

    def open_and_look() -> list[tuple[int, int, int]]:
        ro = AssertionStore.open(root, read_only=True)
        try:
            return _big_sizes(ro.ox)
        finally:
            ro.close()

    threads = [
        _reader(lambda: _big_sizes(store.ox), stop, seen, errors),
        _reader(open_and_look, stop, ro_seen, errors),
        threading.Thread(target=_big_write, args=(store, stop, sizes)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    assert len(sizes) == BIG_BATCHES and all(n > _BULK_THRESHOLD for n in sizes), sizes
    seen.check("thread", at_least=2)
    ro_seen.check("read-only open", at_least=2)
    assert sorted(_big_sizes(store.ox)) == [(BIG, BIG, BIG)] * BIG_BATCHES
    assert not (root / "journal.nq").exists()
    assert fast_checker().check_store(store.ox).conforms and store.integrity() == []
    store.close()
    # the store reopens whole and clean
    ro = ox.Store.read_only(str(root / "oxigraph"))
    assert sorted(_big_sizes(ro)) == [(BIG, BIG, BIG)] * BIG_BATCHES


def _spanned(tag: str, names: list[tuple[str, str]]) -> tuple[Doc, list[Triple]]:
    sents = [f"{s} was born in {o}." for s, o in names]
    text = " ".join(sents)
    doc = Doc(f"mix-doc-{tag}", f"mix-doc-{tag}.txt", text, {"media_type": "text/plain"})
    chunk = Chunk(doc.id, 0, text, 0, len(text))
    out, pos = [], 0
    for (s, o), sent in zip(names, sents):
        start = text.index(sent, pos)
        pos = start + len(sent)
        out.append(Triple(s, "born_in", o, chunk, 0.9, start=start, end=pos))
    return doc, out


# in one snapshot: the records of run "mix-b", and how many records have count 2 (re-observed by mix-b)
MIX_STATE = """
SELECT (COUNT(DISTINCT ?n) AS ?new) (SUM(IF(BOUND(?c) && ?c = 2, 1, 0)) AS ?counted) WHERE {
  { GRAPH <https://w3id.org/semantic-rdf/graph/provenance> {
      ?n <https://w3id.org/semantic-rdf/ns#claimGraph> ?g ; <http://www.w3.org/ns/prov#wasGeneratedBy> ?r .
      ?r <http://www.w3.org/2000/01/rdf-schema#label> "mix-b" } }
  UNION
  { GRAPH <https://w3id.org/semantic-rdf/graph/provenance> { ?o <https://w3id.org/semantic-rdf/ns#count> ?c } }
}
"""


@pytest.mark.parametrize("where", ["disk", "disk-bulk", "memory"])
def test_readers_see_whole_bulk_batches_with_repeats(tmp_path, monkeypatch, where):
    """A batch of 1,800 new assertions plus 1,800 re-observed ones (86k quads: it changes stored records, so
    its records are written in one transaction, not the bulk loader): a reader must see either none of them
    or all of them. The re-observations' new source nodes (~20k quads) go first, unlinked (AssertionStore.commit;
    on disk behind the journal, in one transaction, or bulk loaded in "disk-bulk"): a reader may see them,
    but never a record whose count or confidence disagrees with the sources it links."""
    if where == "disk-bulk":
        import semantic_rdf.store.assertions as S

        monkeypatch.setattr(S, "_BULK_THRESHOLD", 10_000)  # 1,800 new sources: ~20k quads, bulk loaded
    store = AssertionStore.memory() if where == "memory" else AssertionStore.open(tmp_path / "store")
    old = [(f"Oldperson{k}", f"Oldtown{k}") for k in range(BIG)]
    doc, triples = _spanned("a", old)
    with store.run("ingestion", agent="writer", label="mix-a") as run:
        store.add_document(doc, run)
        store.assert_triples(triples, run=run)
    stop = threading.Event()
    states: set[tuple[int, int]] = set()  # the distinct states seen (bounded, unlike one entry per read)
    reads = 0
    problems: list[list[str]] = []  # the first integrity problem found, if any

    def read() -> None:
        nonlocal reads
        while not stop.is_set():
            row = next(iter(store.ox.query(MIX_STATE)))
            states.add((int(row["new"].value), int(row["counted"].value)))
            reads += 1
            found = store.integrity()
            if found and not problems:
                problems.append(found)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        doc, triples = _spanned("b", [(f"Newperson{k}", f"Newtown{k}") for k in range(BIG)] + old)
        with store.run("ingestion", agent="writer", label="mix-b") as run:
            store.add_document(doc, run)
            rep = store.assert_triples(triples, run=run)
    finally:
        stop.set()
        reader.join(timeout=120)
    assert rep.quads_added > _BULK_THRESHOLD and rep.new == BIG and rep.repeated == BIG
    assert reads and states
    assert states <= {(0, 0), (BIG, BIG)}, sorted(states)
    assert not problems, problems[0]
    store.close()


def _log_bytes(root) -> int:
    """The size of RocksDB's write-ahead logs in a store: what a read-only open replays."""
    return sum(f.stat().st_size for f in (root / "oxigraph").glob("*.log"))


def test_the_writer_flushes_so_a_read_only_open_replays_a_bounded_log(tmp_path, monkeypatch):
    from semantic_rdf.store import assertions

    sizes = {}
    for label, after in (("unflushed", 10**9), ("flushed", 1_000)):
        monkeypatch.setattr(assertions, "_FLUSH_AFTER", after)
        root = tmp_path / label
        store = AssertionStore.open(root)
        _write(store, threading.Event(), 60)
        sizes[label] = _log_bytes(root)
        with read_only(root / "oxigraph", root) as ro:
            assert sorted(_sizes(ro)) == [(BATCH, BATCH)] * 60  # everything written is seen, flushed or not
        store.close()
    # 60 batches wrote some 21,000 quads: unflushed they are all in the log (15 MB), flushed every 1,000 the
    # log holds the last thousand or two (RocksDB keeps the log before the current one: 1.5 MB, 2026-12-05)
    assert sizes["unflushed"] > 4 * sizes["flushed"], sizes


# Readers open read-only and query while a writer bulk loads batch after batch and RocksDB compacts behind it.
# Opening the store's own directory, a reader whose table file the writer deleted before it opened it made
# pyoxigraph loop on the read error until memory ran out (2 GB within seconds, every run with 20 batches,
# 2026-12-06); a snapshot of hard links keeps every file the reader needs (store/readers.py).
_REPLACED_UNDER_READERS = """
import sys, threading
from pathlib import Path
import pyoxigraph as ox
from semantic_rdf.store.readers import open_read_only
root = Path(sys.argv[1]); data = root / "oxigraph"
writer = ox.Store(str(data))
done = threading.Event()
def write():
    for k in range(20):
        g = ox.NamedNode("http://example.org/g")
        writer.bulk_extend(ox.Quad(ox.NamedNode(f"http://example.org/s{k}-{i}"), ox.NamedNode("http://example.org/p"),
                                   ox.Literal(str(i)), g) for i in range(20_000))
        writer.flush()
    done.set()
t = threading.Thread(target=write); t.start()
opens, seen = 0, []
while not done.is_set():
    st, snap = open_read_only(data, root)
    opens += 1
    list(st.query("SELECT (MAX(?o) AS ?m) WHERE { GRAPH <http://example.org/none> { ?s ?p ?o } }"))
    if opens % 10 == 0:
        seen.append(len(list(st.quads_for_pattern(None, None, None, ox.NamedNode("http://example.org/g")))))
    del st
    snap.close()
t.join()
print(opens, *seen)
"""


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
    except OSError:
        return 0


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the child's memory from /proc (Linux)")
def test_a_read_only_handle_keeps_its_files_while_the_writer_replaces_them(tmp_path):
    root = tmp_path / "store"
    root.mkdir()
    child = subprocess.Popen([sys.executable, "-c", _REPLACED_UNDER_READERS, str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak, deadline = 0, time.monotonic() + 240
    while child.poll() is None:
        peak = max(peak, _rss_kb(child.pid))
        if peak > 1_000_000 or time.monotonic() > deadline:
            child.kill()
            child.wait()
            pytest.fail(f"a reader beside the bulk-loading writer grew to {peak // 1024} MB or never ended")
        time.sleep(0.05)
    out, err = child.communicate()
    assert child.returncode == 0, err.decode()[-2000:]
    opens, *seen = map(int, out.split())
    assert opens >= 10 and seen, out  # the readers overlapped the writer
    assert all(n % 20_000 == 0 for n in seen), seen  # each saw whole batches
    assert not list((root / "readers").iterdir())  # every snapshot removed at close


def test_a_snapshot_lives_as_long_as_its_store_and_one_left_behind_is_swept(tmp_path):
    from semantic_rdf.store.readers import READERS, sweep

    root = tmp_path / "store"
    store = AssertionStore.open(root)
    store.assert_("Ada Lovelace", "born_in", "London")
    ro = AssertionStore.open(root, read_only=True)
    (taken,) = (root / READERS).iterdir()
    assert any(p.suffix == ".sst" or p.suffix == ".log" for p in taken.iterdir())
    assert sweep(root) == 0  # its reader holds it
    assert ro.stats()["assertions"] == 1
    ro.close()
    assert not list((root / READERS).iterdir())
    # a reader that ended without closing (killed; a forked child's exit): its lock is free, so the next open sweeps it
    leave = (
        "import sys, os; from pathlib import Path; from semantic_rdf.store.readers import snapshot; "
        "r = Path(sys.argv[1]); snapshot(r / 'oxigraph', r); os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", leave, str(root)], check=True)
    (left,) = (root / READERS).iterdir()
    with AssertionStore.open(root, read_only=True) as again:
        assert again.stats()["assertions"] == 1
        assert [p.name for p in (root / READERS).iterdir()] != [left.name]
    assert not left.exists()
    store.close()
    # and a writer's open sweeps too
    subprocess.run([sys.executable, "-c", leave, str(root)], check=True)
    AssertionStore.open(root).close()
    assert not list((root / READERS).iterdir())
