"""Retracting what is already retracted, or reinstating what is already believed, is a no-op (issue 20, repro 7).

It says so (library: `Change.nothing_changed`, activity None; CLI: "already retracted: ID", exit 0) and writes
nothing: the store's sorted N-Quads dump is the same before and after — no activity, no agent, no interval.
"""

from __future__ import annotations

import json

import pytest
from _security import run_cli
from _timeprov import ingest, span

from semantic_rdf.lifecycle import erasure, temporal as T
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.store.assertions import AssertionStore

TEXT_A = "Ada Lovelace lived in London. Ada Lovelace wrote Note G."
TEXT_B = "Records show Ada Lovelace lived in London for years."
LIVED = assertion_id("Ada Lovelace", "resided_in", "London")
WROTE = assertion_id("Ada Lovelace", "wrote", "Note G")


def dump(store) -> list[bytes]:
    return sorted(store.export("nquads").splitlines())


def _two_sources(s) -> str:
    """LIVED from a.txt (with WROTE) and b.txt; returns a.txt's run."""
    _, run_a = ingest(
        s,
        "a.txt",
        TEXT_A,
        [
            ("Ada Lovelace", "resided_in", "London", *span(TEXT_A, "Ada Lovelace lived in London.")),
            ("Ada Lovelace", "wrote", "Note G", *span(TEXT_A, "Ada Lovelace wrote Note G.")),
        ],
        agent="model-a",
    )
    ingest(s, "b.txt", TEXT_B, [("Ada Lovelace", "resided_in", "London", *span(TEXT_B, TEXT_B))], agent="model-b")
    return run_a


def test_retract_twice_writes_nothing_the_second_time():
    s = AssertionStore.memory()
    aid = s.assert_("Ada Lovelace", "born_in", "London")
    first = T.retract(s, aid, "wrong")
    assert first.changed == (aid,) and first.activity and not first.nothing_changed
    before = dump(s)
    again = T.retract(s, aid, "still wrong", agent="someone-new")  # not even this new agent is written
    assert again.nothing_changed and again.activity is None
    assert (again.changed, again.unchanged, again.cascaded) == ((), (aid,), ())
    assert again.as_dict()["nothing_changed"] is True and again.as_dict()["activity"] is None
    assert dump(s) == before
    assert T.state(s, aid) == "retracted" and len(T.history(s, aid)) == 1
    assert s.validate().conforms


def test_reinstate_of_a_believed_assertion_writes_nothing():
    s = AssertionStore.memory()
    aid = s.assert_("Ada Lovelace", "born_in", "London")
    before = dump(s)
    ch = T.reinstate(s, aid, "it is right", agent="someone-new")
    assert ch.nothing_changed and ch.unchanged == (aid,) and ch.changed == ()
    assert dump(s) == before
    T.retract(s, aid, "wrong")
    back = T.reinstate(s, aid, "right after all")
    assert back.changed == (aid,) and not back.nothing_changed
    before = dump(s)
    assert T.reinstate(s, aid, "again").nothing_changed
    assert dump(s) == before and len(T.history(s, aid)) == 2


def test_a_withdrawn_derived_assertion_is_already_retracted():
    s = AssertionStore.memory()
    parent = s.assert_("Ada Byron", "parent_of", "Ada Lovelace")
    from semantic_rdf.lifecycle import reason

    reason.derive(s, reason.builtin_rules())
    child = assertion_id("Ada Lovelace", "child_of", "Ada Byron")
    assert T.retract(s, parent, "wrong").cascaded == (child,)
    before = dump(s)
    assert T.retract(s, child, "also wrong").nothing_changed
    assert dump(s) == before


def test_retract_set_twice_writes_nothing_the_second_time():
    s = AssertionStore.memory()
    run_a = _two_sources(s)
    first = T.retract_set(s, run=run_a, reason="poisoned run")
    assert first.changed == (WROTE,) and first.kept == (LIVED,)  # b.txt still supports LIVED
    before = dump(s)
    for sel in ({"run": run_a}, {"agent": "model-a"}, {"source": "a.txt"}):
        again = T.retract_set(s, reason="again", by="someone-new", **sel)
        assert again.nothing_changed and again.activity is None
        assert (again.changed, again.kept, again.unchanged) == ((), (LIVED,), (WROTE,))
        assert dump(s) == before
    # retracting b.txt now does change something: its observation was live, and LIVED loses its last support
    third = T.retract_set(s, source="b.txt", reason="also poisoned")
    assert third.changed == (LIVED,) and not third.nothing_changed and dump(s) != before
    assert s.validate().conforms


def test_a_set_already_retracted_one_by_one_still_invalidates_its_observations():
    """Not a no-op: the claims are retracted, but the set's observations were never invalidated."""
    s = AssertionStore.memory()
    run_a = _two_sources(s)
    T.retract(s, WROTE, "x")
    T.retract(s, LIVED, "x")
    ch = T.retract_set(s, run=run_a, reason="poisoned run")
    assert not ch.nothing_changed and ch.changed == () and set(ch.unchanged) == {WROTE, LIVED}
    before = dump(s)
    assert T.retract_set(s, run=run_a, reason="again").nothing_changed and dump(s) == before


def test_bad_input_is_still_refused_on_the_no_op_path():
    s = AssertionStore.memory()
    aid = s.assert_("Ada Lovelace", "born_in", "London")
    T.retract(s, aid, "wrong")
    for call in (
        lambda: T.retract(s, aid, "   "),
        lambda: T.retract(s, aid, "x", agent=" "),
        lambda: T.reinstate(s, s.assert_("a", "born_in", "b"), "x", agent=""),
        lambda: T.retract(s, "not-an-id", "x"),
    ):
        with pytest.raises(InvalidInput):
            call()
    with pytest.raises(NotFound):
        T.retract(s, "0123456789abcdef", "x")
    erasure.erase(s, aid, "gdpr")
    with pytest.raises(InvalidInput, match="nothing left to retract"):
        T.retract(s, aid, "x")


def test_cli_says_so_and_records_nothing(tmp_path):
    store = tmp_path / "s"
    r = run_cli(store, "assert", "Ada Lovelace", "born_in", "London")
    assert r.rc == 0
    aid = assertion_id("Ada Lovelace", "born_in", "London")

    def export() -> list[str]:
        e = run_cli(store, "export", "-o", str(tmp_path / "dump.nq"))
        assert e.rc == 0, e.err
        return sorted((tmp_path / "dump.nq").read_text(encoding="utf-8").splitlines())

    before = export()
    r = run_cli(store, "reinstate", aid, "--reason", "it is right")
    assert (r.rc, r.out, r.err) == (0, f"already believed: {aid} (nothing recorded)\n", "")
    assert export() == before
    r = run_cli(store, "retract", aid, "--reason", "wrong")
    assert r.rc == 0 and r.out.startswith("retracted 1\n")
    before = export()
    r = run_cli(store, "retract", aid, "--reason", "still wrong", "--by", "editor")
    assert (r.rc, r.out, r.err) == (0, f"already retracted: {aid} (nothing recorded)\n", "")
    r = run_cli(store, "--json", "retract", aid, "--reason", "still wrong")
    out = json.loads(r.out)
    assert r.rc == 0 and out["nothing_changed"] is True and out["activity"] is None and out["unchanged"] == [aid]
    assert export() == before
    # a set retraction that changes nothing says so too
    r = run_cli(store, "retract", "--agent", "caller", "--reason", "x")
    assert r.rc == 0 and r.out.splitlines()[-1] == "activity " + r.out.split("activity ")[-1].strip()
    before = export()
    r = run_cli(store, "retract", "--agent", "caller", "--reason", "x")
    assert r.rc == 0 and r.out.splitlines() == ["retracted 0", "already retracted: 1", "nothing recorded"]
    assert export() == before
