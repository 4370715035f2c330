"""Side tables kept in step from what each write tells (StoreEvent.facts, .spans, .registered, .documents):
a Memory in step follows an ingest without reading from the store what the ingest just wrote, and ends
with the rows a rebuild from the store gives (facts, term texts, path memories, entity rows)."""

from __future__ import annotations

import sqlite3

import pytest

from semantic_rdf.core.events import StoreEvent
from semantic_rdf.hdc.memory import Memory
from semantic_rdf.pipeline.load import load
from semantic_rdf.pipeline.stages import build_pipeline
from semantic_rdf.pipeline.statistical import StatisticalExtractor
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Triple

from tests.test_memory_ingest import ROUND1, ROUND2, _ingest

BIOS = {
    "desmarais.txt": "Paul Desmarais Jr. is a Canadian businessman. Desmarais was born in Sudbury, Ontario. "
    "He studied at McGill University in Montreal. His father, Paul Desmarais, founded Power Corporation.",
    "angell.txt": "Henrik Angell was a Norwegian military officer. Angell was born in Kristiansund. "
    "He died in Kristiania. He studied at the Norwegian Military Academy in Oslo.",
    "curie.txt": "Marie Curie was a Polish physicist. Curie was born in Warsaw, Poland. She studied at the University "
    "of Paris. Marie Curie died in Passy, France.",
    "more-desmarais.txt": "Paul Desmarais Jr. lives in Montreal. Paul Desmarais Jr. is the chairman of Power Corporation. "
    "Desmarais studied at the University of Ottawa.",
}

READS = ("query", "quads", "run_query", "select", "label", "get", "match", "has")


def _rows(conn: sqlite3.Connection) -> dict[str, list]:
    return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall()) for t in ("facts", "terms", "paths", "entities", "entity_keys")}


def _count_reads_while_following(store: AssertionStore, mem: Memory) -> list[str]:
    """The store reads made while `mem` handles an event (instance attributes shadow the store's methods)."""
    reads: list[str] = []
    following = [False]
    for name in READS:
        method = getattr(store, name)

        def counted(*a, _m=method, _n=name, **k):
            if following[0]:
                reads.append(_n)
            return _m(*a, **k)

        setattr(store, name, counted)
    on_event = mem._on_event

    def watched(ev: StoreEvent) -> None:
        following[0] = True
        try:
            on_event(ev)
        finally:
            following[0] = False

    mem._on_event = watched  # type: ignore[method-assign]
    return reads


def _write_files(tmp_path, texts: dict[str, str]) -> list[str]:
    for name, text in texts.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return [str(tmp_path / n) for n in texts]


def test_an_ingest_followed_from_events_reads_nothing_back_and_equals_a_rebuild(tmp_path):
    store = AssertionStore.memory()
    mem = Memory.attach(store)
    assert mem._in_step
    mem.entities_for(["nobody"])  # the entity rows are built, so the ingest keeps them in step too
    assert mem.side.entities_ready
    reads = _count_reads_while_following(store, mem)
    heard: list[StoreEvent] = []
    store.subscribe(heard.append)

    # statistical: entities with classes and other names, documents across batches, a known entity named again
    refs = _write_files(tmp_path, BIOS)
    ex = StatisticalExtractor(floor=0.3)
    load(store, build_pipeline(refs[:3], extractor=ex), refs[:3], batch_size=3, read_ahead="thread")
    load(store, build_pipeline(refs[3:], extractor=ex), refs[3:], batch_size=2, read_ahead="thread")
    # the rules: many small documents reading the same facts again (records that gain only a source)
    _ingest(store, [ROUND1, ROUND2], lambda s: lambda report: None)
    # a caller's statement naming a known entity, with another name for it
    store.assert_triples(
        [Triple("Marie Curie", "award_received", "Nobel Prize")], run=store.begin_run("statement"), aliases={"Marie Curie": ["Maria Sklodowska"]}
    )

    committed = [e for e in heard if e.kind == "committed"]
    assert len(committed) > 10 and all(e.facts is not None for e in committed)
    assert any(e.documents for e in committed) and any(e.registered for e in committed)
    assert any(r.label is None and r.aliases for e in committed for r in e.registered or ())  # a known entity's new name
    assert reads == []  # nothing the writes made was read back

    got = _rows(mem.side.conn)
    assert got["facts"] and got["paths"] and got["entities"]
    mem.close()
    rebuilt = Memory.attach(store)  # new in-memory side tables, reconciled from the store
    rebuilt.entities_for(["nobody"])
    assert _rows(rebuilt.side.conn) == got
    rebuilt.close()


def test_a_memory_attached_after_a_document_was_first_named_reads_its_rows(tmp_path):
    """A document whose first sources this Memory was not told of: its path memory is built from the store."""
    store = AssertionStore.memory()
    refs = _write_files(tmp_path, {"a.txt": BIOS["curie.txt"]})
    ex = StatisticalExtractor(floor=0.3)
    # first half of the document without a Memory, the whole of it after one attached
    first = tmp_path / "first"
    first.mkdir()
    (first / "a.txt").write_text(BIOS["curie.txt"].split(". ")[0] + ".", encoding="utf-8")
    load(store, build_pipeline([str(first / "a.txt")], extractor=ex), [str(first / "a.txt")])
    mem = Memory.attach(store)
    load(store, build_pipeline(refs, extractor=ex), refs, batch_size=1, read_ahead="thread")
    got = _rows(mem.side.conn)
    mem.close()
    rebuilt = Memory.attach(store)
    assert got["paths"] and _rows(rebuilt.side.conn)["paths"] == got["paths"]
    rebuilt.close()


def test_no_subscriber_no_telling():
    """A store nobody listens to gathers nothing for events (the labels of known entities are not read)."""
    store = AssertionStore.memory()
    run = store.begin_run("statement")
    store.assert_triples([Triple("Ada Lovelace", "born_in", "London")], run=run)
    assert store._labels == {}
    heard: list[StoreEvent] = []
    store.subscribe(heard.append)
    store.assert_triples([Triple("Ada Lovelace", "educated_at", "University of London")], run=run)
    (ev,) = heard
    assert ev.facts is not None and [tuple(f)[1:] for f in ev.facts] == [("Ada Lovelace", "educated_at", "University of London")]
    assert [r.iri.rsplit("/", 1)[-1].startswith("university-of-london") for r in ev.registered or ()] == [True]


@pytest.mark.parametrize("surface", ["ada lovelace", "ADA  LOVELACE"])
def test_a_fact_names_an_entity_by_its_registry_label_not_the_surface_it_was_written_with(surface):
    store = AssertionStore.memory()
    run = store.begin_run("statement")
    store.assert_triples([Triple("Ada Lovelace", "born_in", "London")], run=run)
    heard: list[StoreEvent] = []
    store.subscribe(heard.append)
    store.assert_triples([Triple(surface, "died_in", "Marylebone")], run=run)
    assert [tuple(f)[1:] for f in heard[0].facts or ()] == [("Ada Lovelace", "died_in", "Marylebone")]
