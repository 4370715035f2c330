"""A sync of side tables that were in step once reads only what changed (believed ids from three index scans,
then the new records): it must leave the same rows as a sync that reads every believed fact."""

from __future__ import annotations

import shutil
import sqlite3

from semantic_rdf.lifecycle import erasure, temporal as T
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.hdc.memory import Memory, believed_facts, believed_ids
from semantic_rdf.hdc.sidetables import side_path
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Chunk, Doc, Triple

FACTS = [
    ("Ada Lovelace", "born_in", "London"),
    ("Ada Lovelace", "wrote", "Note G"),
    ("Charles Babbage", "designed", "Analytical Engine"),
    ("Ada Lovelace", "collaborated_with", "Charles Babbage"),
    ("London", "capital_of", "England"),
    ("Alan Turing", "born_in", "Maida Vale"),
]


def _rows(path) -> dict[str, list]:
    conn = sqlite3.connect(path)
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall()) for t in ("facts", "terms", "paths")}
    finally:
        conn.close()


def test_believed_ids_are_the_believed_facts_ids():
    s = AssertionStore.memory()
    ids = [s.assert_(*f, score=0.9) for f in FACTS]
    T.retract(s, ids[1], "wrong")
    T.retract(s, ids[2], "wrong")
    T.reinstate(s, ids[2], "right after all")  # two belief intervals: one closed, one open
    erasure.erase(s, ids[3], "request")
    got = believed_ids(s)
    assert got == {f[0] for f in believed_facts(s)}
    assert got == {ids[0], ids[2], ids[4], ids[5]}


def _document(store: AssertionStore, ref: str, facts: list[tuple[str, str, str]]) -> None:
    """A document stating `facts`, one sentence each: multi-hop paths where the facts chain."""
    sentences = [f"{s} {p.replace('_', ' ')} {o}." for s, p, o in facts]
    text = " ".join(sentences)
    doc = Doc(ref, ref, text)
    triples, at = [], 0
    for (s, p, o), sent in zip(facts, sentences):
        triples.append(Triple(s, p, o, Chunk(doc.id, 0, text, 0, len(text)), 0.8, start=at, end=at + len(sent)))
        at += len(sent) + 1
    with store.run("ingestion", agent="test-extractor") as run:
        store.add_document(doc, run)
        store.assert_triples(triples, run=run)


def test_a_sync_after_writes_behind_its_back_equals_a_full_rebuild(tmp_path):
    root = tmp_path / "st"
    with AssertionStore.open(root) as s:
        ids = [s.assert_(*f, score=0.9) for f in FACTS[:4]]
        _document(s, "a.txt", [FACTS[0], FACTS[4]])  # Ada born_in London, London capital_of England: a path
    with Memory.open(root) as mem:  # the side tables in step, paths built
        assert mem.side.path_documents()
    with AssertionStore.open(root) as s:  # no Memory attached: the side file is not told
        ids += [s.assert_(*f, score=0.9) for f in FACTS[4:]]
        _document(s, "b.txt", [FACTS[5], ("Maida Vale", "located_in", "London")])  # new facts, a new path
        T.retract(s, ids[0], "wrong")  # breaks a.txt's path
        erasure.erase(s, ids[2], "request")
    with Memory.open(root) as mem:
        rep = mem.sync()  # nothing left to do: the open reconciled
        assert (rep.added, rep.removed) == (0, 0)
        assert set(mem.side.fact_ids()) == {ids[1], ids[3], ids[4], ids[5], assertion_id("Maida Vale", "located_in", "London")}
        paths = {d: mem.side.path_memory(d)[1] for d in mem.side.path_documents()}
    delta = _rows(side_path(root))
    shutil.move(side_path(root), tmp_path / "old.sqlite")  # a new side file is built by reading everything
    with Memory.open(root) as mem:
        assert mem.side.paths_built
    assert _rows(side_path(root)) == delta
    # a.txt's path lost its first hop (its memory went); b.txt's path is new (its memory was built)
    (only,) = paths.values()
    assert only == [["Alan Turing", "born_in", "Maida Vale", "located_in", "London"]]


def test_a_sync_forgets_hebbian_pairs_of_erased_entities_and_keeps_the_rest(tmp_path):
    """Pairs of entities the fact rows name are known without reading the registry; a pair whose entity no
    fact row names is looked up there: kept while the entity is registered, forgotten once it is erased."""
    from semantic_rdf.hdc.gate import entity_key

    root = tmp_path / "st"
    with AssertionStore.open(root) as s:
        ada = s.assert_("Ada Lovelace", "born_in", "London", score=0.9)
        cb = s.assert_("Charles Babbage", "designed", "Analytical Engine", score=0.9)
    with Memory.open(root) as mem:
        mem.activate(["Ada Lovelace", "Charles Babbage"])
    with AssertionStore.open(root) as s:
        T.retract(s, cb, "unsure")  # Babbage stays registered, but no fact row names him
    key = entity_key("Charles Babbage")
    with Memory.open(root) as mem:
        assert key not in {r[0] for r in mem.side.conn.execute("SELECT key FROM terms")}
        assert any(key in pair for pair in mem.side.hebbian.weights())
    with AssertionStore.open(root) as s:
        erasure.erase(s, cb, "request")  # his only record: he leaves the registry
    with Memory.open(root) as mem:
        assert not any(key in pair for pair in mem.side.hebbian.weights())
        assert mem.side.fact_ids() == {ada}


# ---------------------------------------------------------------- the mark: skip the reconcile when nothing wrote


def _syncs(monkeypatch) -> list[int]:
    """Counts full and incremental reconciles (each reads the store)."""
    n: list[int] = []
    real_all, real_changed = Memory._sync_all, Memory._sync_changed
    monkeypatch.setattr(Memory, "_sync_all", lambda self: (n.append(1), real_all(self))[1])
    monkeypatch.setattr(Memory, "_sync_changed", lambda self: (n.append(1), real_changed(self))[1])
    return n


def _ask_process(path):
    """What `ask` does: a Memory over its store, the store closed first (its `closed` event leaves the mark)."""
    store = AssertionStore.open(path)
    mem = Memory.attach(store)
    store.close()
    mem.close()


def test_a_process_finding_the_store_as_the_last_one_left_it_does_not_reconcile(tmp_path, monkeypatch):
    path = tmp_path / "st"
    s = AssertionStore.open(path)
    for f in FACTS[:3]:
        s.assert_(*f, score=0.9)
    s.close()
    syncs = _syncs(monkeypatch)
    _ask_process(path)  # reconciles (no mark yet) and leaves one
    assert len(syncs) == 1
    _ask_process(path)
    _ask_process(path)
    assert len(syncs) == 1  # nothing wrote since: no store read

    # a writer without side tables: the files changed, so the next process reconciles and finds the new fact
    s = AssertionStore.open(path)
    new = s.assert_(*FACTS[5], score=0.9)
    s.close()
    _ask_process(path)
    assert len(syncs) == 2 and new in sqlite_ids(path)
    _ask_process(path)
    assert len(syncs) == 2

    # a writer that is not this tool at all (pyoxigraph on the directory)
    import pyoxigraph as ox

    raw = ox.Store(str(path / "oxigraph"))
    raw.add(ox.Quad(ox.NamedNode("http://example.org/x"), ox.NamedNode("http://example.org/p"), ox.Literal("y"), ox.DefaultGraph()))
    del raw
    _ask_process(path)
    assert len(syncs) == 3


def sqlite_ids(path) -> set[str]:
    conn = sqlite3.connect(side_path(path))
    try:
        return {r[0] for r in conn.execute("SELECT id FROM facts")}
    finally:
        conn.close()


def test_no_mark_after_a_change_the_side_tables_missed(tmp_path, monkeypatch):
    path = tmp_path / "st"
    s = AssertionStore.open(path)
    s.assert_(*FACTS[0], score=0.9)
    s.close()
    _ask_process(path)
    store = AssertionStore.open(path)
    mem = Memory.attach(store)
    assert mem._in_step

    def broken(self, ev):
        raise RuntimeError("side tables out of step")

    monkeypatch.setattr(Memory, "_follow", broken)
    try:
        store.assert_(*FACTS[1], score=0.9)
    except RuntimeError:
        pass  # the write stands; the subscriber's failure is re-raised to the writer
    monkeypatch.undo()
    store.close()
    mem.close()
    syncs = _syncs(monkeypatch)
    again = AssertionStore.open(path)
    mem = Memory.attach(again)
    assert len(syncs) == 1 and assertion_id(*FACTS[1]) in mem.side.fact_ids()  # reconciled, not trusted
    again.close()
    mem.close()


def test_a_journal_replayed_at_open_means_the_store_changed(tmp_path, monkeypatch):
    path = tmp_path / "st"
    s = AssertionStore.open(path)
    s.assert_(*FACTS[0], score=0.9)
    s.close()
    _ask_process(path)
    from semantic_rdf.store.assertions import JOURNAL

    (path / JOURNAL).write_bytes(b'<http://example.org/x> <http://example.org/p> "y" <http://example.org/g> .\n')
    again = AssertionStore.open(path)
    assert again.generation_at_open is None
    again.close()


def test_an_ingest_after_an_ask_leaves_the_mark_so_the_next_ask_reads_nothing_to_reconcile(tmp_path, monkeypatch, capsys):
    """`ask` leaves the side tables in step with a mark; the `ingest` that follows finds the mark, follows its own
    batches as events (fact rows, entity rows) and leaves a new one, so the next `ask` skips the reconcile and
    answers from the new document."""
    from semantic_rdf.cli import main
    from semantic_rdf.hdc.sidetables import SideTables
    from semantic_rdf.store.generation import fingerprint

    root = tmp_path / "st"
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("Ada Lovelace was born in London.\n")
    second.write_text("Alan Turing was born in Maida Vale.\n")
    assert main(["--store", str(root), "ingest", "--extractor", "rules", str(first)]) == 0
    assert main(["--store", str(root), "ask", "Where was Ada Lovelace born?"]) == 0  # reconciles, leaves the mark
    syncs = _syncs(monkeypatch)
    assert main(["--store", str(root), "ingest", "--extractor", "rules", str(second)]) == 0
    side = SideTables(side_path(root))
    try:
        assert side.store_generation == fingerprint(root / "oxigraph") and side.entities_ready
    finally:
        side.close()
    capsys.readouterr()
    assert main(["--store", str(root), "--json", "ask", "Where was Alan Turing born?"]) == 0
    import json

    answer = json.loads(capsys.readouterr().out)
    assert answer["allowed"] and "Maida Vale" in answer["text"]
    assert syncs == []  # neither the ingest nor the ask read the store to reconcile
    store = AssertionStore.open(root)
    mem = Memory.attach(store)
    assert assertion_id("Alan Turing", "born_in", "Maida Vale") in mem.side.fact_ids()
    assert [e.name for e in mem.entities_for(["alan", "turing"])] == ["Alan Turing"]
    store.close()
    mem.close()
