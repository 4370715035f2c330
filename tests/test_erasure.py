import pytest

from semantic_rdf.store import compaction
from semantic_rdf.lifecycle import erasure, temporal as T
from semantic_rdf.cli import main
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.lifecycle.reason import derive
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.vocab import ENTITY_GRAPH, entity_iri

from _timeprov import files_containing, ingest, span

TEXT = "Quorvath Zendelmire was born in Plinthaven. Ada Lovelace was born in London."
SECRET = "Zendelmire"


def test_erase_then_compact_leaves_the_text_in_no_file(tmp_path):
    root = tmp_path / "store"
    s = AssertionStore.open(root)
    secret_span = span(TEXT, "Quorvath Zendelmire was born in Plinthaven.")
    keep_span = span(TEXT, "Ada Lovelace was born in London.")
    (secret, keep), _ = ingest(
        s, "bio.txt", TEXT, [("Quorvath Zendelmire", "born_in", "Plinthaven", *secret_span), ("Ada Lovelace", "born_in", "London", *keep_span)]
    )
    s.assert_("Ada Lovelace", "resided_in", "Plinthaven")  # Plinthaven stays in use by another claim
    s.close()
    assert files_containing(root, SECRET), "the test needs the text on disk before erasure"
    assert main(["--store", str(root), "--json", "erase", secret, "--reason", "right to erasure", "--by", "dpo"]) == 0
    assert files_containing(root, SECRET), "deleted values linger in RocksDB files until compaction"
    assert main(["--store", str(root), "compact"]) == 0
    assert files_containing(root, SECRET) == []
    assert files_containing(root, SECRET.lower()) == []
    s = AssertionStore.open(root)
    try:
        assert s.get(secret) is None and T.state(s, secret) == "erased"
        rows = s.run_query("tombstones")
        assert [r["a"].value.rsplit("/", 1)[-1] for r in rows] == [secret]
        assert rows[0]["reason"].value == "right to erasure" and rows[0]["agentLabel"].value == "dpo"
        # the other span still resolves at its old offsets; the erased one is filler of the same length
        text = s.document_text("bio.txt")
        assert len(text) == len(TEXT)
        rec = s.require(keep)
        assert s.span_text(rec.sources[0]) == "Ada Lovelace was born in London."
        assert text[slice(*secret_span)] == erasure.FILLER * (secret_span[1] - secret_span[0])
        # registry: the erased-only entity is gone, the shared one stays
        assert not list(s.ox.quads_for_pattern(entity_iri("Quorvath Zendelmire"), None, None, ENTITY_GRAPH))
        assert list(s.ox.quads_for_pattern(entity_iri("Plinthaven"), None, None, ENTITY_GRAPH))
        assert s.validate().conforms
        # an erased claim is not learned again
        again, _ = ingest(s, "bio2.txt", "Quorvath Zendelmire was born in Plinthaven.", [("Quorvath Zendelmire", "born_in", "Plinthaven", 0, 43)])
        assert again == [secret] and s.get(secret) is None and T.state(s, secret) == "erased"
    finally:
        s.close()


def test_erasing_an_antecedent_withdraws_or_erases_what_was_derived():
    s = AssertionStore.memory()
    a = s.assert_("Paris", "located_in", "France")
    b = s.assert_("France", "located_in", "Europe")
    p = s.assert_("Lord Byron", "parent_of", "Ada Lovelace")
    derive(s)
    trans = assertion_id("Paris", "located_in", "Europe")
    inverse = assertion_id("Ada Lovelace", "child_of", "Lord Byron")
    assert T.state(s, trans) == T.state(s, inverse) == "believed"
    before = s.now()
    ch = erasure.erase(s, a, "wrong")
    assert trans in ch.cascaded and T.state(s, trans) == "retracted"
    assert trans in [c.id for c in T.as_of(s, "Paris", before)]  # as-of before the erasure still sees it
    assert T.history(s, trans)[-1].withdrawn_because == a
    ch = erasure.erase(s, p, "private")
    assert set(ch.erased) == {p, inverse}  # the inverse restates the erased claim: erased too
    assert T.state(s, b) == "believed"
    assert erasure.erase(s, p, "again").unchanged == (p,)
    assert s.validate().conforms


def test_redact_keeps_length_and_refuses_bad_spans():
    assert erasure.redact("abcdef", [(1, 3)]) == "a" + erasure.FILLER * 2 + "def"
    with pytest.raises(ValueError):
        erasure.redact("abc", [(2, 9)])


def test_compact_counts_no_file_that_vanished_while_it_measured(tmp_path, monkeypatch):
    """RocksDB removes its old logs and flushed tables while a store is open; a file gone between the listing of the
    store's directory and the reading of its size is not counted, where it had stopped `compact` with
    FileNotFoundError."""
    from pathlib import Path

    s = AssertionStore.open(tmp_path / "st")
    s.assert_("a", "born_in", "b")
    s.close()
    gone = tmp_path / "st" / "oxigraph" / "LOG.old.1"
    gone.write_bytes(b"x" * 10)
    is_file = Path.is_file

    def listed_then_removed(self):
        got = is_file(self)
        if got and self == gone:
            self.unlink()
        return got

    monkeypatch.setattr(Path, "is_file", listed_then_removed)
    report = compaction.compact(tmp_path / "st")
    assert report.quads > 0 and not gone.exists()


def test_compact_refuses_an_open_store(tmp_path):
    s = AssertionStore.open(tmp_path / "st")
    s.assert_("a", "born_in", "b")
    try:
        from semantic_rdf.core.errors import StoreInUse

        with pytest.raises(StoreInUse):
            compaction.compact(tmp_path / "st")
    finally:
        s.close()
    assert compaction.compact(tmp_path / "st").quads > 0
