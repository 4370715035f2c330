"""Side tables kept in step by `after_ingest_hook` during a batched ingest: the same rows as a rebuild.

The hook reads only what a committed write touched (believed-of.rq for its assertion ids, sources-of.rq
for the documents the write gave observations): these tests hold it equal to the whole-store reads it
replaces (believed.rq, by-source.rq, `Memory.index` and a from-scratch `sync`).
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta, timezone

import pyoxigraph as ox
import pytest

from semantic_rdf.lifecycle import erasure, temporal as T
from semantic_rdf.hdc import memory as Mem
from semantic_rdf.pipeline.load import load
from semantic_rdf.hdc.memory import Memory, after_ingest_hook, believed_facts
from semantic_rdf.rdf.queries import packaged
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Doc, Validity
from semantic_rdf.core.vocab import M, PROVENANCE_GRAPH, assertion_iri

PEOPLE = ["Alice Smith", "Bob Jones", "Carol Okafor", "Dana Tanaka", "Erik Rossi", "Farah Novak"]
ORGS = ["Acme", "Initech", "Globex", "Hooli"]
PLACES = ["Paris", "Oslo", "Lagos", "Kyoto", "Lima"]
TEMPLATES = [
    "{p} works at {o}.",
    "{o} is headquartered in {c}.",
    "{p} was born in {c}.",
    "{p} is married to {q}.",
    "{p} lives in {c}.",
    "{p} founded {o} in 1999.",
]


def _texts(seed: int, n: int, prefix: str) -> dict[str, str]:
    """Small documents over a small vocabulary: the same facts are read again by later documents."""
    r = random.Random(seed)
    out = {}
    for i in range(n):
        sents = [
            r.choice(TEMPLATES).format(p=r.choice(PEOPLE), q=r.choice(PEOPLE), o=r.choice(ORGS), c=r.choice(PLACES)) for _ in range(r.randint(3, 9))
        ]
        out[f"{prefix}{i:02d}"] = " ".join(sents)
    return out


class _Texts:
    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def ingest(self, ref: str) -> list[Doc]:
        return [Doc(ref, ref, self.texts[ref])]


def _pipeline(texts: dict[str, str]):
    from semantic_rdf.pipeline.extract import RuleExtractor
    from semantic_rdf.pipeline.split import splitter_from_spec
    from semantic_rdf.pipeline.stages import Pipeline

    return Pipeline(_Texts(texts), splitter=splitter_from_spec("sentences"), extractor=RuleExtractor())


def _rows(conn: sqlite3.Connection) -> dict[str, list]:
    return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall()) for t in ("facts", "terms", "paths")}


# round 1: new documents; round 2: new documents reading mostly the same facts (writes with no new record),
# two documents of round 1 again (nothing new), and one new document whose text repeats a round-1 document.
ROUND1 = _texts(1, 24, "a")
ROUND2 = dict(_texts(2, 16, "b"), a00=ROUND1["a00"], a05=ROUND1["a05"], c00=ROUND1["a03"] + " Bob Jones lives in Lima.")


def _ingest(store: AssertionStore, rounds, on_commit_for, batch_size: int = 7) -> list:
    reports = []
    for texts in rounds:
        hook = on_commit_for(store)

        def spy(report, hook=hook):
            reports.append(report)
            hook(report)

        summary = load(
            store, _pipeline(texts), list(texts), batch_size=batch_size, on_commit=spy, read_ahead="thread", reread=True
        )  # the second round repeats documents: the hook's unchanged path
        assert not summary.failed
    return reports


def test_hook_in_batches_equals_index_and_a_rebuild():
    hooked = AssertionStore.memory()
    mem = Memory.attach(hooked)  # open: the hook indexes into it
    reports = _ingest(hooked, [ROUND1, ROUND2], after_ingest_hook)
    assert len(reports) > 10 and any(r.new == 0 and r.repeated for r in reports) and any(r.new for r in reports)
    assert any(r.observed for r in reports) and any(r.unchanged and not r.observed for r in reports)

    # the same writes indexed the way Memory.index does it: every document of every believed assertion
    plain = AssertionStore.memory()
    ref_mem = Memory.attach(plain)
    _ingest(plain, [ROUND1, ROUND2], lambda s: lambda report: ref_mem.index(report.ids))

    got = _rows(mem.side.conn)
    assert got["paths"] and got["facts"] and got["terms"]
    assert got == _rows(ref_mem.side.conn)
    mem.close()
    ref_mem.close()
    rebuilt = Memory.attach(hooked)  # fresh in-memory side tables, reconciled from the store
    assert _rows(rebuilt.side.conn) == got
    rebuilt.close()


def test_hook_on_disk_attaching_per_write_equals_a_rebuild(tmp_path):
    """What `semantic-rdf ingest` does: no Memory open, the hook attaches <store>.side.sqlite per write."""
    store = AssertionStore.open(tmp_path / "st")
    try:
        _ingest(store, [ROUND1, ROUND2], after_ingest_hook, batch_size=11)
        got = _rows(sqlite3.connect(tmp_path / "st.side.sqlite"))
        rebuilt = Memory.attach(store, side=tmp_path / "ref.sqlite")
        assert got["paths"] and _rows(rebuilt.side.conn) == got
        rebuilt.close()
    finally:
        store.close()


def test_a_report_without_observations_listed_refreshes_every_document_of_its_assertions():
    """A WriteReport-like object of another writer (no `observed`): every document of its believed assertions."""
    store = AssertionStore.memory()
    mem = Memory.attach(store)

    class Bare:
        def __init__(self, report):
            self.ids = report.ids

    _ingest(store, [ROUND1, ROUND2], lambda s: lambda report: mem.index_written(Bare(report)))
    got = _rows(mem.side.conn)
    mem.close()
    rebuilt = Memory.attach(store)
    assert got["paths"] and _rows(rebuilt.side.conn) == got
    rebuilt.close()


def test_document_rows_are_by_source_rq_in_its_order():
    store = AssertionStore.memory()
    mem = Memory.attach(store)
    _ingest(store, [ROUND1, ROUND2], after_ingest_hook)
    docs = sorted({q.subject.value for q in store.ox.quads_for_pattern(None, M.reference, None, PROVENANCE_GRAPH)})
    rows = mem._document_rows(docs + ["https://example.org/not-a-document"])
    assert len(docs) > 30 and "https://example.org/not-a-document" not in rows
    for d in docs:
        node = ox.NamedNode(d)
        ref = next(iter(store.ox.quads_for_pattern(node, M.reference, None, PROVENANCE_GRAPH))).object
        want = [r["a"].value.rsplit("/", 1)[-1] for r in store.run_query("by-source", reference=ref) if r["doc"] == node]
        assert rows.get(d, []) == want, d
    mem.close()


# ---------------------------------------------------------------- believed-of.rq == believed.rq


def _history_store():
    """Retracted, reinstated (a closed and an open interval), cascaded, valid-time bounded and closed,
    erased records, with instants between the changes."""
    from semantic_rdf.lifecycle.reason import derive
    from semantic_rdf.store.seed import seed

    s = AssertionStore.memory()
    seed(s)
    utc = timezone.utc
    bounded = s.assert_("Kew", "member_of", "Royal Parks", valid=Validity(datetime(2000, 1, 1, tzinfo=utc), datetime(2010, 1, 1, tzinfo=utc)))
    since = s.assert_("Kew", "part_of", "Richmond", valid=Validity(datetime(1965, 1, 1, tzinfo=utc), None))
    kl = s.assert_("Kew", "located_in", "London")
    s.assert_("London", "located_in", "England")
    derive(s)
    instants = [s.now()]
    ids = s.ids()
    T.retract(s, ids[0], "checking")
    T.retract(s, kl, "checking")  # cascades to what was derived from it
    instants.append(s.now())
    T.reinstate(s, ids[0], "checked")  # two intervals: one closed, one open
    T.close_valid(s, since, datetime(2001, 1, 1, tzinfo=utc), "moved")
    instants.append(s.now())
    erasure.erase(s, ids[1], "wrong")
    instants.append(s.now())
    return s, [bounded, since, kl, ids[0], ids[1]], instants


def _rows_of(rows) -> list[tuple[str, ...]]:
    return sorted(tuple(str(t) for t in r) for r in rows)


def test_believed_of_rq_is_believed_rq_restricted_to_the_bound_records():
    from semantic_rdf.rdf import layout as L

    s, marked, instants = _history_store()
    records = sorted({q.subject for q in s.ox.quads_for_pattern(None, M.belief, None, PROVENANCE_GRAPH)}, key=str)
    records.append(assertion_iri("0" * 16))  # no such record
    utc = timezone.utc
    asofs = [None] + [L.dt(t) for t in instants] + [L.dt(instants[0] - timedelta(days=1))]
    validats = [None] + [L.dt(datetime(y, 1, 1, tzinfo=utc)) for y in (1900, 1990, 2005, 2010)]
    some = set(records[::3])
    for asof in asofs:
        for validat in validats:
            whole = _rows_of(s.ox.query(packaged("believed", asof=asof, validat=validat)))
            of = _rows_of(s.ox.query(T.bind_rows(packaged("believed-of", asof=asof, validat=validat), ["a"], [(r,) for r in records])))
            assert of == whole, (asof, validat)
            part = _rows_of(s.ox.query(T.bind_rows(packaged("believed-of", asof=asof, validat=validat), ["a"], [(r,) for r in some])))
            assert part == [r for r in whole if ox.NamedNode(r[0][1:-1]) in some]
    # the store has what the test is about: records believed at one instant and not at another
    now = {r[0] for r in _rows_of(s.ox.query(packaged("believed")))}
    then = {r[0] for r in _rows_of(s.ox.query(packaged("believed", asof=asofs[1])))}
    assert now != then and len(now) > 10


@pytest.mark.parametrize("chunk", [Mem._CHUNK, 2])
def test_believed_facts_of_ids_equal_the_whole_read_filtered(monkeypatch, chunk):
    s, marked, instants = _history_store()
    monkeypatch.setattr(Mem, "_CHUNK", chunk)  # one VALUES block, then many
    every = s.ids()
    for at in [None, *instants]:
        whole = believed_facts(s, as_of=at)
        for ids in (every, every[::2], marked, []):
            want = set(ids)
            assert believed_facts(s, as_of=at, ids=ids) == [f for f in whole if f[0] in want], at


def _doc_with_facts(store: AssertionStore, ref: str, text: str, facts: list[tuple[str, str, str, int, int]]) -> None:
    from semantic_rdf.core.values import Chunk, Triple

    doc = Doc(ref, ref, text)
    with store.run("ingestion", agent="test-extractor") as run:
        store.add_document(doc, run)
        store.assert_triples([Triple(s, p, o, Chunk(doc.id, 0, text, 0, len(text)), 0.8, start=a, end=b) for s, p, o, a, b in facts], run=run)


def test_a_sync_of_an_unchanged_store_rebuilds_no_path_memory_even_when_no_document_has_paths(tmp_path):
    """The first sync builds every document's path memory once, whether or not it gives a path; later syncs
    of an unchanged store rebuild none (they rebuilt all of them when no document had a path)."""
    root = tmp_path / "st"
    with AssertionStore.open(root) as store:  # two facts with no shared entity: no multi-hop path
        _doc_with_facts(
            store, "a.txt", "Ada was born in London. Tim wrote Notes.", [("Ada", "born_in", "London", 0, 23), ("Tim", "wrote", "Notes", 24, 40)]
        )
    with Memory.open(root, config=Mem.Config()) as mem:
        assert mem.side.paths_built and mem.side.path_documents() == []
        assert mem.sync().documents == 0
    with Memory.open(root) as mem:
        assert mem.sync().documents == 0


def test_a_new_encoder_rebuilds_the_path_memories_with_it(tmp_path):
    """Path memories are vectors too: side tables written by another encoder are rebuilt whole, paths included."""
    from semantic_rdf.hdc.vectors import Encoder as HDC
    from semantic_rdf.hdc.paths import document_memory, enumerate_paths

    root = tmp_path / "st"
    text = "Ada was born in London. London is the capital of England."
    with AssertionStore.open(root) as store:
        _doc_with_facts(store, "b.txt", text, [("Ada", "born_in", "London", 0, 23), ("London", "capital_of", "England", 24, len(text))])
    old = HDC(dim=Mem.Config().dim, word_vectors=None)
    with AssertionStore.open(root) as store:
        with Memory.attach(store, encoder=old) as mem:
            (doc,) = mem.side.path_documents()
            before = mem.side.path_memory(doc)
    with Memory.open(root) as mem:  # the shared encoder (word vectors on): another signature
        rep_vec, paths = mem.side.path_memory(doc)
        want = document_memory(
            enumerate_paths(
                [tuple(p) for p in [("Ada", "born_in", "London"), ("London", "capital_of", "England")]],
                max_hops=mem.config.path_max_hops,
                window=mem.config.path_window,
            ),
            mem.encoder,
        )
        assert paths == before[1] and rep_vec != before[0]
        assert rep_vec == bytes(want.tobytes())
