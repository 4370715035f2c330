"""The verbs that change one assertion's state (retract, reinstate, erase) and the triple verbs (id, assert):
their shared argument shapes and their text, JSON and exit codes, cascades included."""

from __future__ import annotations

import json

from _security import run_cli

from semantic_rdf.core.identity import assertion_id


def _assert(store, s: str, p: str, o: str) -> str:
    r = run_cli(store, "assert", s, p, o)
    assert r.rc == 0, r.err
    aid = assertion_id(s, p, o)
    assert r.out.startswith(aid + "  ")
    return aid


def test_id_and_assert_take_the_same_triple(tmp_path):
    r = run_cli(None, "--json", "id", "Ada  Lovelace", "born_in", "London")
    assert r.rc == 0
    assert json.loads(r.out) == {
        "id": assertion_id("Ada Lovelace", "born_in", "London"),
        "subject": "ada lovelace",
        "predicate": "born_in",
        "object": "london",
    }
    for verb in ("id", "assert"):
        r = run_cli(tmp_path / "s", verb, "only", "two")
        assert r.rc == 2 and "required: object" in r.err


def test_change_verbs_require_reason_and_id(tmp_path):
    store = tmp_path / "s"
    r = run_cli(store, "reinstate")
    assert r.rc == 2 and "required: id, --reason" in r.err
    r = run_cli(store, "erase")  # the id is optional for erase (--document or --entity may stand in for it)
    assert r.rc == 2 and "required: --reason" in r.err
    r = run_cli(store, "erase", "--reason", "x")
    assert r.rc == 2 and "exactly one of an assertion ID, --document REF or --entity NAME" in r.err
    r = run_cli(store, "retract")  # the id is optional for retract (a set selector may stand in for it)
    assert r.rc == 2 and "required: --reason" in r.err
    r = run_cli(store, "retract", "--reason", "x")
    assert r.rc == 2 and "exactly one of --run, --agent, --source" in r.err


def test_retract_reinstate_erase_with_cascade(tmp_path):
    store = tmp_path / "s"
    parent = _assert(store, "Ada Byron", "parent_of", "Ada Lovelace")
    r = run_cli(store, "derive")
    assert r.rc == 0 and r.out.startswith("derived 1 new")
    child = assertion_id("Ada Lovelace", "child_of", "Ada Byron")

    r = run_cli(store, "retract", parent, "--reason", "wrong record", "--by", "editor")
    assert r.rc == 0
    lines = r.out.splitlines()
    assert lines[:2] == ["retracted 1", "withdrawn derived assertions: 1"] and lines[2].startswith("activity ")
    r = run_cli(store, "retract", parent, "--reason", "again")
    assert (r.rc, r.out) == (0, f"already retracted: {parent} (nothing recorded)\n")  # tests/test_retract_noop.py

    r = run_cli(store, "reinstate", parent, "--reason", "it was right")
    assert (r.rc, r.out) == (0, f"reinstated {parent}; reopened 1 derived assertions\n")
    r = run_cli(store, "--json", "reinstate", parent, "--reason", "again")
    assert r.rc == 0 and json.loads(r.out)["unchanged"] == [parent]
    r = run_cli(store, "reinstate", parent, "--reason", "again")
    assert (r.rc, r.out) == (0, f"already believed: {parent} (nothing recorded)\n")

    r = run_cli(store, "erase", parent, "--reason", "right to erasure")
    assert r.rc == 0
    assert r.out == f"erased {parent}, {child}\n"  # the inverse only restated the erased claim
    assert "semantic-rdf compact" in r.err
    r = run_cli(store, "erase", parent, "--reason", "again")
    assert (r.rc, r.out) == (0, f"{parent} was already erased\n")

    for verb, msg in (("retract", "nothing left to retract"), ("reinstate", "cannot be reinstated")):
        r = run_cli(store, verb, parent, "--reason", "x")
        assert r.rc == 2 and msg in r.err
    for verb in ("retract", "reinstate", "erase"):
        r = run_cli(store, verb, "0123456789abcdef", "--reason", "x")
        assert (r.rc, r.err_lines) == (2, ["semantic-rdf: error: no assertion with id 0123456789abcdef"])
        r = run_cli(store, verb, parent, "--reason", "   ")
        assert (r.rc, r.err_lines) == (2, ["semantic-rdf: error: a reason is required"])
