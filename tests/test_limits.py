"""Name and text limits at the boundary (values.MAX_NAME, MAX_TEXT; docs/security.md), and the promise
that a refused or failed write writes nothing: no run activity, no agent, not a quad.

Each limit is tested at the boundary (the limit itself is accepted, one more character refused) in the
library, where the values and the store build them, and through the real command line."""

from __future__ import annotations

import pytest

from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import MAX_NAME, MAX_TEXT, Chunk, Triple, check_text

from _security import dump, refused, run_cli

NAME_OK, NAME_LONG = "n" * MAX_NAME, "n" * (MAX_NAME + 1)
TEXT_OK, TEXT_LONG = "t" * MAX_TEXT, "t" * (MAX_TEXT + 1)


def test_the_limits_are_the_documented_ones():
    assert (MAX_NAME, MAX_TEXT) == (1_000, 4_096)


# ---------------------------------------------------------------- values


@pytest.mark.parametrize("field", ["subject", "predicate", "object"])
def test_triple_names_longer_than_the_limit_are_refused(field):
    parts = {"subject": "Ada", "predicate": "born_in", "object": "London"}
    Triple(**{**parts, field: NAME_OK})  # at the limit: a value, whatever the store says of the predicate
    with pytest.raises(InvalidInput, match="over the limit of 1,000"):
        Triple(**{**parts, field: NAME_LONG})


def test_a_typed_literal_object_is_a_name_too():
    Triple("Ada", "published", "1" * MAX_NAME, datatype="http://www.w3.org/2001/XMLSchema#string")
    with pytest.raises(InvalidInput, match="triple object"):
        Triple("Ada", "published", "1" * (MAX_NAME + 1), datatype="http://www.w3.org/2001/XMLSchema#string")


def test_an_extracted_triple_is_held_to_the_same_limit():
    text = "x" * 2000
    chunk = Chunk("d", 0, text, 0, len(text))
    with pytest.raises(InvalidInput):
        Triple(text, "born_in", "London", chunk=chunk)


@pytest.mark.parametrize(
    "value,why",
    [
        ("", "empty"),
        ("  \t", "empty"),
        ("\u200b", "empty"),
        (" \ufeff\u2060\u200c\u200d\u00ad\u202e ", "empty"),
        ("a\udcffb", "unpaired surrogate at position 1"),
        (b"x", "must be str"),
        ("x" * 11, "11 characters long, over the limit of 10"),
    ],
)
def test_check_text_says_what_is_wrong(value, why):
    with pytest.raises(InvalidInput, match=why):
        check_text("it", value, 10)


# Names of nothing but white space and format characters (Unicode Cf, which str.strip() keeps) had been
# stored as entities; a name that merely contains a ZWNJ or ZWJ is a real name.
INVISIBLE = ["\u200b", "\ufeff", "\u2060", "\u200c\u200d", "\u00ad", " \u200b\t\ufeff "]
WITH_JOINERS = ["\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "\U0001f469\u200d\U0001f4bb", "zero\u200bwidth"]


@pytest.mark.parametrize("name", INVISIBLE)
def test_a_name_of_only_invisible_characters_is_empty(store, name):
    before = _all(store)
    with pytest.raises(InvalidInput, match="empty"):
        store.assert_(name, "born_in", "London")
    with pytest.raises(InvalidInput, match="empty"):
        store.assert_("Alan Turing", "born_in", "London", agent=name)
    with pytest.raises(InvalidInput, match="empty"):
        Triple("Ada", "born_in", name)
    assert _all(store) == before


@pytest.mark.parametrize("name", WITH_JOINERS)
def test_a_name_containing_a_joiner_is_still_a_name(store, name):
    aid = store.assert_(name, "born_in", "London")
    assert store.require(aid).subject == name


def test_check_text_returns_the_value_unchanged():
    assert check_text("it", " a b ", 10) == " a b "
    assert check_text("it", "", 10, required=False) == ""


# ---------------------------------------------------------------- the store


@pytest.fixture()
def store():
    s = AssertionStore.memory()
    s.assert_("Ada Lovelace", "born_in", "London")
    return s


def _all(store) -> list[str]:
    return sorted(store.export().decode().splitlines())


@pytest.mark.parametrize(
    "kw,ok,long",
    [
        ("subject", NAME_OK, NAME_LONG),
        ("obj", NAME_OK, NAME_LONG),
        ("agent", NAME_OK, NAME_LONG),
        ("note", TEXT_OK, TEXT_LONG),
    ],
)
def test_store_assert_refuses_long_names_and_source_labels_and_writes_nothing(store, kw, ok, long):
    args = {"subject": "Alan Turing", "predicate": "born_in", "obj": "London"}
    before = _all(store)
    with pytest.raises(InvalidInput, match="over the limit"):
        store.assert_(**{**args, kw: long})
    assert _all(store) == before  # no run activity, no agent, no entity
    aid = store.assert_(**{**args, kw: ok})
    assert store.exists(aid)


def test_reasons_are_limited_to_max_text(store):
    aid = assertion_id("Ada Lovelace", "born_in", "London")
    before = _all(store)
    with pytest.raises(InvalidInput, match="the reason is 4,097 characters long"):
        T.retract(store, aid, TEXT_LONG)
    assert _all(store) == before
    T.retract(store, aid, TEXT_OK)
    assert store.require(aid).retracted


def test_a_source_reference_is_limited_and_must_be_text(store):
    with pytest.raises(InvalidInput, match="over the limit"):
        T.retract_set(store, reason="r", source=TEXT_LONG)
    with pytest.raises(InvalidInput, match="surrogate"):
        T.retract_set(store, reason="r", source="doc\udcff.txt")


def _nquads(store) -> str:
    return store.export().decode()


@pytest.mark.parametrize(
    "what,name,literal",
    [
        ("an entity name", "Ada Lovelace", False),
        ("a claimed literal", "1815-12-10", True),
    ],
)
def test_import_refuses_a_name_over_the_limit(what, name, literal):
    src = AssertionStore.memory()
    if literal:
        t = Triple("Ada Lovelace", "published", name, datatype="http://www.w3.org/2001/XMLSchema#string")
        with src.run("statement") as run:
            src.assert_triples([t], run=run)
    else:
        src.assert_(name, "born_in", "London")
    text = _nquads(src)
    ok = AssertionStore.memory()
    ok.import_(text.encode())  # the export itself goes back in
    assert len(ok.ox) == len(src.ox)
    target = AssertionStore.memory()
    with pytest.raises(InvalidInput, match="over the limit of 1,000"):
        target.import_(text.replace(f'"{name}"', '"' + "x" * (MAX_NAME + 1) + '"').encode())
    assert len(target.ox) == 0


def test_import_refuses_a_note_or_reason_over_the_limit():
    src = AssertionStore.memory()
    aid = src.assert_("Ada Lovelace", "born_in", "London", note="lab notebook")
    T.retract(src, aid, "because")
    text = _nquads(src)
    for old in ('"lab notebook"', '"because"'):
        target = AssertionStore.memory()
        with pytest.raises(InvalidInput, match="over the limit of 4,096"):
            target.import_(text.replace(old, '"' + "y" * (MAX_TEXT + 1) + '"').encode())
        assert len(target.ox) == 0


# ---------------------------------------------------------------- a refused or failed write writes nothing


def test_a_run_that_writes_nothing_is_not_recorded(store):
    before = _all(store)
    with store.run("statement", agent="somebody new") as run:
        assert not store.recorded(run)
    assert _all(store) == before
    with pytest.raises(RuntimeError):
        with store.run("ingestion", agent="another one"):
            raise RuntimeError("a bug half-way")  # the internal-error path
    assert _all(store) == before


def test_a_run_is_recorded_with_its_first_write_in_the_same_transaction(store):
    with store.run("statement", agent="new agent") as run:
        rep = store.assert_triples([Triple("Alan Turing", "born_in", "London")], run=run)
        assert store.recorded(run)
    rec = store.get(rep.ids[0])
    assert rec is not None and rec.sources[0].agent == "new agent"
    ended = store.select("SELECT ?t WHERE { GRAPH ?g { ?r <http://www.w3.org/ns/prov#endedAtTime> ?t } }", r=run.iri)
    assert len(ended) == 1
    assert store.validate().conforms


def test_record_run_puts_a_run_on_record_before_it_writes(store):
    run = store.begin_run("ingestion", agent="early")
    store.record_run(run)
    assert store.recorded(run)
    store.end_run(run)
    ended = store.select("SELECT ?t WHERE { GRAPH ?g { ?r <http://www.w3.org/ns/prov#endedAtTime> ?t } }", r=run.iri)
    assert len(ended) == 1 and store.validate().conforms


def test_a_refused_batch_leaves_its_run_unrecorded(store):
    before = _all(store)
    with store.run("statement") as run:
        with pytest.raises(InvalidInput):
            store.assert_triples([Triple("Alan Turing", "no_such_predicate", "London")], run=run)
        assert not store.recorded(run)
    assert _all(store) == before


# ---------------------------------------------------------------- the command line


@pytest.fixture()
def disk(tmp_path):
    root = tmp_path / "s"
    assert run_cli(root, "assert", "Ada Lovelace", "born_in", "London").rc == 0
    return root


@pytest.mark.parametrize(
    "argv",
    [
        ["assert", NAME_LONG, "born_in", "London"],
        ["assert", "Ada", "born_in", NAME_LONG],
        ["assert", "Ada", NAME_LONG, "London"],
        ["assert", "Ada", "born_in", "Paris", "--agent", NAME_LONG],
        ["assert", "Ada", "born_in", "Paris", "--source", TEXT_LONG],
        ["retract", assertion_id("Ada Lovelace", "born_in", "London"), "--reason", TEXT_LONG],
        ["erase", assertion_id("Ada Lovelace", "born_in", "London"), "--reason", TEXT_LONG],
        ["retract", "--source", TEXT_LONG, "--reason", "r"],
    ],
)
def test_cli_refuses_over_the_limit_and_writes_nothing(disk, argv):
    r = refused(disk, *argv)
    assert "over the limit" in r.err


def test_cli_accepts_names_and_labels_at_the_limit(disk):
    r = run_cli(disk, "--json", "assert", NAME_OK, "born_in", "London", "--source", TEXT_OK, "--agent", NAME_OK)
    assert r.rc == 0, r.err
    r = run_cli(disk, "retract", assertion_id(NAME_OK, "born_in", "London"), "--reason", TEXT_OK)
    assert r.rc == 0, r.err


@pytest.mark.parametrize("name", INVISIBLE)
def test_cli_refuses_a_name_of_only_invisible_characters(disk, name):
    r = refused(disk, "assert", name, "born_in", "London")
    assert "empty" in r.err


@pytest.mark.parametrize("name", WITH_JOINERS)
def test_cli_accepts_a_name_containing_a_joiner(disk, name):
    r = run_cli(disk, "--json", "assert", name, "born_in", "London")
    assert r.rc == 0, r.err


def test_an_agent_name_has_the_same_limit_everywhere(disk):
    """`decisions --agent` had refused an agent over 200 characters that `assert --agent` and `retract --by`
    accept: every agent name is held to MAX_NAME."""
    agent = "a" * 500
    assert run_cli(disk, "assert", "Grace Hopper", "born_in", "New York", "--agent", agent).rc == 0
    r = run_cli(disk, "retract", assertion_id("Ada Lovelace", "born_in", "London"), "--reason", "r", "--by", agent)
    assert r.rc == 0, r.err
    r = run_cli(disk, "--json", "decisions", "--agent", agent)
    assert r.rc == 0, r.err
    r = run_cli(disk, "--json", "retract", "--agent", agent, "--reason", "r")
    assert r.rc == 0, r.err
    r = run_cli(disk, "--json", "decisions", "--agent", NAME_OK)
    assert r.rc == 0, r.err
    for argv in (
        ["assert", "Grace Hopper", "born_in", "Paris", "--agent", NAME_LONG],
        ["retract", assertion_id("Grace Hopper", "born_in", "New York"), "--reason", "r", "--by", NAME_LONG],
        ["retract", "--agent", NAME_LONG, "--reason", "r"],
        ["decisions", "--agent", NAME_LONG],
    ):
        r = refused(disk, *argv)
        assert "over the limit of 1,000" in r.err, r.err


def test_a_decisions_agent_is_held_to_max_name_in_the_library(store):
    from semantic_rdf.lifecycle.decisions import Recorder

    rec = Recorder(store)
    aid = assertion_id("Ada Lovelace", "born_in", "London")
    made = rec.record("a" * 500, "answer", because=[aid])
    assert [d.id for d in rec.by("a" * 500)] == [made.id]
    assert rec.record(NAME_OK, "answer", because=[aid]).agent == NAME_OK
    before = _all(store)
    for call in (lambda: rec.record(NAME_LONG, "answer"), lambda: rec.by(NAME_LONG)):
        with pytest.raises(InvalidInput, match="over the limit of 1,000"):
            call()
    assert _all(store) == before


def test_cli_import_of_a_too_long_literal_name_is_refused(disk, tmp_path):
    src = tmp_path / "src"
    assert run_cli(src, "assert", "Grace Hopper", "born_in", "New York").rc == 0
    out = run_cli(src, "export")
    assert out.rc == 0
    bad = tmp_path / "bad.nq"
    bad.write_text(out.out.replace('"Grace Hopper"', '"' + "G" * (MAX_NAME + 1) + '"'))
    r = refused(disk, "import", str(bad))
    assert "over the limit of 1,000" in r.err
    good = tmp_path / "good.nq"
    good.write_text(out.out)
    before = len(dump(disk))
    assert run_cli(disk, "import", str(good)).rc == 0 and len(dump(disk)) > before


def test_a_question_that_is_not_valid_unicode_is_refused_in_the_library():
    from semantic_rdf.answer.answerer import Answerer
    from semantic_rdf.hdc.memory import Memory

    with Memory.open(None) as mem:
        mem.store.assert_("Ada Lovelace", "born_in", "London")
        before = _all(mem.store)
        with pytest.raises(InvalidInput, match="surrogate"):
            Answerer(mem).ask("Where was Ada Lovelace\udcff born?")
        assert _all(mem.store) == before  # no decision recorded for a refused question
