from datetime import datetime, timedelta, timezone

import pyoxigraph as ox
import pytest
import rdflib
from hypothesis import given, settings, strategies as st

from semantic_rdf.core.errors import InvalidInput, NotFound, StoreInUse
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.store.seed import seed
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Chunk, Doc, Triple, Validity
from semantic_rdf.core.vocab import PROVENANCE_GRAPH, entity_iri

TEXT = "Ada Lovelace was born in London. She wrote Note G in 1843. Ada Lovelace was born in London."


def _doc_store():
    s = AssertionStore.memory()
    d = Doc("notes/ada.txt", "notes/ada.txt", TEXT, {"media_type": "text/plain"})
    return s, d, Chunk(d.id, 0, TEXT, 0, len(TEXT))


def test_same_triple_two_sources_is_one_claim_graph():
    s = AssertionStore.memory()
    a = s.assert_("Marie Curie", "discovered", "Radioactivity", score=0.4, note="source A")
    b = s.assert_(" marie  CURIE ", "DISCOVERED", "radioactivity", score=0.9, note="source B")
    assert a == b == assertion_id("Marie Curie", "discovered", "Radioactivity")
    r = s.require(a)
    assert r.count == 2 and r.confidence == 0.9
    assert {x.note for x in r.sources} == {"source A", "source B"}
    graphs = [g for g in s.ox.named_graphs() if g.value.endswith("/g/" + a)]
    assert len(graphs) == 1
    assert len(list(s.ox.quads_for_pattern(None, None, None, graphs[0]))) == 1
    assert s.validate().conforms


def test_absent_score_is_full_confidence():
    s = AssertionStore.memory()
    r = s.require(s.assert_("a", "born_in", "b"))
    assert r.confidence == 1.0


def test_same_statement_twice_counts_once():
    s = AssertionStore.memory()
    s.assert_("a", "born_in", "b", note="x")
    s.assert_("a", "born_in", "b", note="x")
    assert s.require(assertion_id("a", "born_in", "b")).count == 1


def test_source_read_span_resolves_and_reingest_is_idempotent():
    s, d, c = _doc_store()
    t = Triple("Ada Lovelace", "born_in", "London", c, 0.8, start=0, end=32)
    with s.run("ingestion", agent="rules") as run:
        s.add_document(d, run)
        r1 = s.assert_triples([t], run=run)
    n = len(s.ox)
    with s.run("ingestion", agent="rules") as run:
        s.add_document(d, run)
        r2 = s.assert_triples([t], run=run)
    assert r1.new == 1 and r2.new == 0 and r2.unchanged == 1
    rec = s.require(r1.ids[0])
    assert rec.count == 1 and rec.kind == "extracted"
    assert s.span_text(rec.sources[0]) == "Ada Lovelace was born in London."
    # a second run adds only its activity, never a second copy of the span
    assert len(s.ox) - n < 15
    # the same triple read again at another span is a second source
    t2 = Triple("Ada Lovelace", "born_in", "London", c, 0.6, start=TEXT.rindex("Ada"), end=len(TEXT))
    with s.run("ingestion", agent="rules") as run:
        s.assert_triples([t2], run=run)
    rec = s.require(r1.ids[0])
    assert rec.count == 2 and rec.confidence == 0.8
    assert sorted(s.span_text(x) for x in rec.sources) == ["Ada Lovelace was born in London."] * 2
    assert s.validate().conforms


def test_extracted_and_supplied_are_typed_differently():
    s, d, c = _doc_store()
    sup = s.require(s.assert_("Ada Lovelace", "wrote", "Note G"))
    with s.run("ingestion", agent="rules") as run:
        s.add_document(d, run)
        rid = s.assert_triples([Triple("Ada Lovelace", "born_in", "London", c, start=0, end=32)], run=run).ids[0]
    assert sup.kinds == ("supplied",)
    assert s.require(rid).kinds == ("extracted",)


def test_unknown_document_and_bad_predicate_refused_without_writes():
    s, d, c = _doc_store()
    before = len(s.ox)
    with pytest.raises(InvalidInput, match="likes"):
        s.assert_("Marie Curie", "likes", "Tea")
    with s.run("ingestion", agent="rules") as run:
        n = len(s.ox)
        with pytest.raises(NotFound):
            s.assert_triples([Triple("a", "born_in", "b", c)], run=run)
        with pytest.raises(InvalidInput):
            s.assert_triples([Triple("a", "born_in", "b"), Triple("a", "likes", "b")], run=run)
        assert len(s.ox) == n
    assert before <= len(s.ox)


def test_hostile_names_stay_inside_their_terms():
    s = AssertionStore.memory()
    evil = 'x"> } ; DROP ALL ; <y> {\n#\u202e\x00'
    aid = s.assert_(evil, "born_in", "London")
    r = s.require(aid)
    assert r.subject == " ".join(evil.split())
    assert entity_iri(evil).value.startswith("https://w3id.org/semantic-rdf/e/x-")
    assert s.validate().conforms
    assert len(s.match(s=evil)) == 1


def test_match_wildcards_and_valid_time():
    s = AssertionStore.memory()
    t0 = datetime(2020, 1, 1, tzinfo=timezone.utc)
    s.assert_("Ann", "resided_in", "Paris", valid=Validity(t0, t0 + timedelta(days=365)))
    s.assert_("Ann", "resided_in", "Rome", valid=Validity(t0 + timedelta(days=365)))
    s.assert_("Bob", "born_in", "Rome")
    assert len(s.match(s="ann")) == 2
    assert len(s.match(p="resided_in")) == 2
    assert len(s.match(o="Rome")) == 2
    at = [r.object for r in s.match(s="Ann", valid_at=t0 + timedelta(days=10))]
    assert at == ["Paris"]
    assert [r.object for r in s.match(s="Ann", valid_at=t0 + timedelta(days=400))] == ["Rome"]
    before = s.now()
    s.assert_("Bob", "moved_to", "Oslo")
    assert len(s.match(s="Bob", as_of=before)) == 1
    assert len(s.match(s="Bob")) == 2


def test_export_roundtrip_pyoxigraph_and_rdflib():
    s = AssertionStore.memory()
    seed(s)
    for fmt in ("nquads", "trig"):
        data = s.export(fmt)
        fresh = ox.Store()
        fresh.load(data, format=ox.RdfFormat.N_QUADS if fmt == "nquads" else ox.RdfFormat.TRIG)
        assert sorted(map(str, fresh)) == sorted(map(str, s.ox))
        ds = rdflib.Dataset()
        ds.parse(data=data.decode(), format="nquads" if fmt == "nquads" else "trig")
        assert len(list(ds.quads((None, None, None, None)))) == len(s.ox)
        claim_graphs = [g for g in fresh.named_graphs() if "/g/" in g.value]
        assert len(claim_graphs) == 7
        assert all(len(list(fresh.quads_for_pattern(None, None, None, g))) == 1 for g in claim_graphs)
    again = AssertionStore.memory()
    again.import_(s.export("nquads"))
    assert sorted(map(str, again.ox)) == sorted(map(str, s.ox))


def test_import_refuses_invalid_data_atomically():
    s = AssertionStore.memory()
    seed(s)
    data = s.export("nquads").replace(b"/p/born_in>", b"/p/likes>")
    other = AssertionStore.memory()
    with pytest.raises(InvalidInput):
        other.import_(data)
    assert len(other.ox) == 0
    with pytest.raises(InvalidInput):
        other.import_(b"<a> <b> .", "nquads")


def test_tampered_record_fails_validation():
    s = AssertionStore.memory()
    aid = seed(s)[0]
    assert s.validate().conforms
    q = next(iter(s.ox.quads_for_pattern(None, None, None, ox.NamedNode("https://w3id.org/semantic-rdf/g/" + aid))))
    s.ox.remove(q)
    s.ox.add(ox.Quad(q.subject, q.predicate, entity_iri("Berlin"), q.graph_name))
    r = s.validate()
    assert not r.conforms and any("claim graph" in v for v in r.violations)


def test_on_disk_reopen_and_lock(tmp_path):
    p = tmp_path / "st"
    s = AssertionStore.open(p)
    aid = s.assert_("a", "born_in", "b")
    with pytest.raises(StoreInUse):
        AssertionStore.open(p)
    s.close()
    s2 = AssertionStore.open(p)
    assert s2.require(aid).object == "b"
    # the clock never goes backwards across reopen
    assert s2.now() > s2.require(aid).generated_at
    s2.close()
    with pytest.raises(InvalidInput):
        AssertionStore.open(tmp_path / "st" / "oxigraph" / "CURRENT")


def test_bad_ids_are_typed_errors():
    s = AssertionStore.memory()
    with pytest.raises(InvalidInput):
        s.get("../../etc")
    assert s.get("0123456789abcdef") is None
    with pytest.raises(NotFound):
        s.require("0123456789abcdef")


def test_stats_counts():
    s = AssertionStore.memory()
    seed(s)
    st = s.stats()
    assert st["assertions"] == 7 and st["supplied"] == 7 and st["entities"] == 10
    assert st["quads"] == len(s.ox)
    prov_quads = list(s.ox.quads_for_pattern(None, None, None, PROVENANCE_GRAPH))
    assert prov_quads


def _spans(doc_id: str, n: int, extra: int = 0) -> tuple[Doc, list[Triple]]:
    text = "".join(f"P{i} met T{i}. " for i in range(n + extra))
    doc = Doc(doc_id, doc_id, text)
    chunk = Chunk(doc_id, 0, text, 0, len(text))
    out, pos = [], 0
    for i in range(n + extra):
        s = f"P{i} met T{i}. "
        out.append(Triple(f"P{i}", "worked_with", f"T{i}", chunk, 0.5 if doc_id == "a" else 0.8, start=pos, end=pos + len(s) - 1))
        pos += len(s)
    return doc, out


def _read_twice_and_once(s: AssertionStore, n: int) -> None:
    """After documents "a" (n spans) and "b" (the same n, then more): a fact of both has two sources, one of
    "b" alone one, and the store holds to its shapes and integrity rules. Closes `s`."""
    from semantic_rdf.rdf.shapes import fast_checker

    rec = s.get(assertion_id("P7", "worked_with", "T7"))
    assert (rec.count, rec.confidence, len(rec.sources)) == (2, 0.8, 2)
    assert s.get(assertion_id(f"P{n + 2}", "worked_with", f"T{n + 2}")).count == 1
    assert s.integrity() == [] and fast_checker().check_store(s.ox).conforms
    s.close()


def test_big_batches_fresh_and_repeated_stay_consistent(tmp_path):
    s = AssertionStore.open(tmp_path / "s")
    n = 1800  # about 31 quads an assertion: well above the bulk threshold
    with s.run("ingestion", agent="t") as run:
        for doc_id, extra in (("a", 0), ("b", 50)):
            doc, triples = _spans(doc_id, n, extra)
            s.add_document(doc, run)
            report = s.assert_triples(triples, run=run)
    assert (report.new, report.repeated) == (50, n)
    assert not (tmp_path / "s" / "journal.nq").exists()
    _read_twice_and_once(s, n)


class _Crash(Exception):
    pass


class _StopsAt:
    """The store, raising where a crash would stop the writer: at `method` (pyoxigraph's Store is final)."""

    def __init__(self, store: ox.Store, method: str):
        self._store, self._method = store, method

    def __getattr__(self, name):
        if name == self._method:

            def stop(*a, **kw):
                raise _Crash(name)

            return stop
        return getattr(self._store, name)

    def __contains__(self, quad) -> bool:
        return quad in self._store

    def __len__(self) -> int:
        return len(self._store)


@pytest.mark.parametrize("bulk", [True, False])
@pytest.mark.parametrize("stop_at", [None, "update", "flush"])
def test_a_big_repeat_batch_on_disk_is_journaled_with_its_link_and_redone_after_a_crash(tmp_path, monkeypatch, stop_at, bulk):
    """On disk a repeat batch with many new sources writes them behind the journal (bulk loaded, or one
    transaction), then runs the update that links them (journal-link.ru). Cut short after the load or after
    the update, the next open redoes both, and running the update twice changes nothing more."""
    import semantic_rdf.store.assertions as S

    monkeypatch.setattr(S, "_SPLIT_THRESHOLD", 100)  # the split path for a hundred assertions
    monkeypatch.setattr(S, "_BULK_THRESHOLD", 500 if bulk else 10**9)
    root = tmp_path / "s"
    s = AssertionStore.open(root)
    n = 120
    with s.run("ingestion", agent="t") as run:
        doc, triples = _spans("a", n)
        s.add_document(doc, run)
        s.assert_triples(triples, run=run)
    run = s.begin_run("ingestion", agent="t")
    doc, triples = _spans("b", n, 5)
    s.add_document(doc, run)
    real = s.ox
    if stop_at is None:
        report = s.assert_triples(triples, run=run)
        assert (report.new, report.repeated) == (5, n)
    else:
        s.ox = _StopsAt(real, stop_at)
        with pytest.raises(_Crash):
            s.assert_triples(triples, run=run)
        s.ox, real = real, None  # no other handle may keep the store open
        assert (root / S.JOURNAL).exists() and (root / S.LINK_JOURNAL).exists()
        s.close()
        s = AssertionStore.open(root)  # replays the journal and its link
    assert not (root / S.JOURNAL).exists() and not (root / S.LINK_JOURNAL).exists()
    _read_twice_and_once(s, n)


def test_a_link_journal_without_its_commit_point_is_dropped(tmp_path):
    import semantic_rdf.store.assertions as S

    root = tmp_path / "s"
    AssertionStore.open(root).close()
    marker = "INSERT DATA { <https://example.org/never> <https://example.org/p> <https://example.org/o> }"
    (root / S.LINK_JOURNAL).write_text(marker, encoding="utf-8")
    s = AssertionStore.open(root)
    assert not (root / S.LINK_JOURNAL).exists()
    assert not list(s.ox.quads_for_pattern(ox.NamedNode("https://example.org/never"), None, None))
    s.close()


def _masked_dataset(s: AssertionStore) -> list[str]:
    """The store's quads as sorted N-Quads lines, its times and run ids masked (they differ between stores)."""
    import re

    text = s.export("nquads").decode("utf-8")
    text = re.sub(r'"[0-9-]+T[0-9:.]+Z"\^\^<http://www.w3.org/2001/XMLSchema#dateTime>', '"T"', text)
    return sorted(re.sub(r"/run/[0-9a-f]{32}>", "/run/R>", text).splitlines())


@pytest.mark.parametrize("where", ["disk", "disk-split", "disk-bulk"])
def test_every_write_path_stores_what_the_memory_store_stores(tmp_path, monkeypatch, where):
    """A batch writes most span sources as N-Quads lines from their template (layout.span_source_text) and the
    sampled ones as quads. Whichever path a batch takes (in memory one load; on disk one transaction, one
    update, or the journaled split and bulk paths), the stored quads are the same."""
    import semantic_rdf.store.assertions as S

    def fill(s: AssertionStore) -> list[str]:
        with s.run("ingestion", agent="t") as run:
            for doc_id, extra in (("a", 0), ("b", 6)):  # "b" repeats the 30 facts of "a" with sources of its own
                doc, triples = _spans(doc_id, 30, extra)
                s.add_document(doc, run)
                s.assert_triples(triples + triples[:3], run=run)  # the same span twice counts once
        rec = s.get(assertion_id("P7", "worked_with", "T7"))
        assert (rec.count, len(rec.sources)) == (2, 2)
        assert s.validate().conforms and s.integrity() == []
        return _masked_dataset(s)

    expected = fill(AssertionStore.memory())
    if where != "disk":
        monkeypatch.setattr(S, "_SPLIT_THRESHOLD", 10)  # new sources ahead of their link, journaled
    if where == "disk-bulk":
        monkeypatch.setattr(S, "_BULK_THRESHOLD", 50)  # and through the bulk loader
    s = AssertionStore.open(tmp_path / "s")
    assert fill(s) == expected
    s.close()


@settings(max_examples=200, deadline=None)
@given(
    start=st.integers(0, 10**12),
    length=st.integers(0, 10**6),
    index=st.one_of(st.none(), st.integers(0, 10**9)),
    confidence=st.floats(0, 1),
    run=st.sampled_from(["<https://w3id.org/semantic-rdf/run/0a>", "<urn:x:%41%>"]),
)
def test_a_span_source_as_text_is_its_quads_as_lines(start, length, index, confidence, run):
    from semantic_rdf.rdf import layout as L, ntriples as N

    doc = "<https://w3id.org/semantic-rdf/doc/0123456789abcdef>"
    src = L.span_ref("0123456789abcdef", doc, start, start + length)
    at = datetime(2026, 12, 3, tzinfo=timezone.utc)
    args = (src, doc, start, start + length, index, confidence, at, run)
    assert L.span_source_text(*args) == N.document(L.span_source_quads(*args))


def test_a_repeat_of_a_record_without_its_count_is_refused_as_malformed():
    # a record changed outside this tool (its m:count removed): a repeat crashed with AttributeError in the commit
    from semantic_rdf.core.vocab import M, assertion_iri

    s = AssertionStore.memory()
    aid = s.assert_("Marie Curie", "discovered", "Radioactivity", note="source A")
    for q in list(s.ox.quads_for_pattern(assertion_iri(aid), M.count, None, PROVENANCE_GRAPH)):
        s.ox.remove(q)
    before = s.quad_count()
    with pytest.raises(InvalidInput, match="malformed record"):
        s.assert_("Marie Curie", "discovered", "Radioactivity", note="source B")
    assert s.quad_count() == before  # nothing of the refused repeat was written


def test_assertions_name_the_document_just_stored_without_reading_it_back(tmp_path):
    """`add_documents` remembers each document's IRI by id, so the batch that follows names it without a lookup;
    once the document is erased the id is unknown again."""
    from semantic_rdf.lifecycle import erasure

    store = AssertionStore.open(tmp_path / "st")
    text = "Ada Lovelace was born in London."
    doc = Doc("bio.txt", "bio.txt", text, {"media_type": "text/plain"})
    chunk = Chunk(doc.id, 0, text, 0, len(text))
    lookups = []
    real = store.ox.quads_for_pattern
    store.ox = _Spy(store.ox, lambda *a: (lookups.append(a), real(*a))[1])
    with store.run("ingestion", agent="test") as run:
        store.add_document(doc, run)
        before = len(lookups)
        store.assert_triples([Triple("Ada Lovelace", "born_in", "London", chunk)], run=run)
    assert not any(str(a[1]).endswith("docId>") for a in lookups[before:])  # no read back by id
    (rec,) = store.match("Ada Lovelace", "born_in", "London")
    assert rec.sources[0].doc_iri == store.document_iri(doc).value
    erasure.erase_document(store, store.document_iri(doc).value, "request")
    with pytest.raises(NotFound), store.run("ingestion", agent="test") as run:
        store.assert_triples([Triple("Ada Lovelace", "born_in", "Paris", chunk)], run=run)
    store.close()


class _Spy:
    """A pyoxigraph Store whose quads_for_pattern is watched (everything else passes through)."""

    def __init__(self, st, quads_for_pattern):
        self._st, self.quads_for_pattern = st, quads_for_pattern

    def __getattr__(self, name):
        return getattr(self._st, name)

    def __contains__(self, q):
        return q in self._st

    def __len__(self):
        return len(self._st)

    def __iter__(self):
        return iter(self._st)


def test_ending_a_run_checks_the_end_without_reading_the_run_back(tmp_path):
    """The run's activity conformed when written; its end time is checked against the start this object wrote
    (sh:lessThanOrEquals) and the stored end times (sh:maxCount 1), not by reading the whole node back."""
    from semantic_rdf.core.errors import ShapeViolation

    store = AssertionStore.open(tmp_path / "st")
    run = store.begin_run("statement", agent="test")
    store.assert_triples([Triple("Ada Lovelace", "born_in", "London")], run=run)
    lookups = []
    real = store.ox.quads_for_pattern
    store.ox = _Spy(store.ox, lambda *a: (lookups.append(a), real(*a))[1])
    store.end_run(run)
    assert not any(a[0] == run.iri and a[1] is None for a in lookups)  # the node was not read whole
    ended = [q.object.value for q in store.quads(run.iri, ox.NamedNode("http://www.w3.org/ns/prov#endedAtTime"))]
    assert len(ended) == 1 and ended[0] >= run.started.isoformat()[:19]
    with pytest.raises(ShapeViolation):
        store.end_run(run)  # a second end time breaks sh:maxCount 1: the stored one is counted
    late = store.begin_run("statement", agent="test")
    store.assert_triples([Triple("Ada Lovelace", "born_in", "Paris")], run=late)
    import dataclasses

    from semantic_rdf.rdf import layout as L

    # the start the shapes compare with is the one written: were it after the end, the end is refused
    future = late.started + timedelta(days=1)
    store.commit([], remove=[(L.ref(late.iri), L.Pt.startedAtTime, L.dt_t(late.started), L.PROV_G)], check=[])
    store.commit([(L.ref(late.iri), L.Pt.startedAtTime, L.dt_t(future), L.PROV_G)], check=[])
    with pytest.raises(ShapeViolation):
        store.end_run(dataclasses.replace(late, started=future))
    store.close()


def test_each_open_leaves_at_most_two_rotated_rocksdb_info_logs(tmp_path):
    # every writable open rotates RocksDB's informational LOG (~130 KB) and RocksDB keeps a thousand: a store
    # asked a thousand questions carried 130 MB of them. They go at open; the data and the current LOG stay
    for i in range(6):
        with AssertionStore.open(tmp_path / "s") as s:
            s.assert_("Ada Lovelace", "born_in", f"Place {i}")
    data = tmp_path / "s" / "oxigraph"
    stray = data / "LOG.old.notatimestamp"  # not a name RocksDB gives: not ours to delete
    stray.write_text("kept")
    stuck = data / "LOG.old.1"  # the oldest, and one the file system will not unlink: the open goes on
    stuck.mkdir()
    ids = [assertion_id("Ada Lovelace", "born_in", f"Place {i}") for i in range(6)]
    with AssertionStore.open(tmp_path / "s") as s:
        assert len(list(data.glob("LOG.old.*"))) == 4 and stray.exists() and stuck.is_dir() and (data / "LOG").exists()
        assert all(s.exists(a) for a in ids)
    with AssertionStore.open(tmp_path / "s", read_only=True) as s:
        assert all(s.exists(a) for a in ids)
