"""`ask` names disagreeing believed facts on a functional predicate, in every mode, with both sources."""

from __future__ import annotations

import json

import pytest


from _security import run_cli


@pytest.fixture()
def store(tmp_path):
    for name, text in (
        ("a.txt", "Ada Lovelace was born in London.\n"),
        ("b.txt", "Ada Lovelace was born in Paris.\n"),
        ("c.txt", "Charles Babbage was born in London.\n"),
    ):
        (tmp_path / name).write_text(text)
    root = tmp_path / "s"
    r = run_cli(root, "ingest", "--extractor", "rules", *(str(tmp_path / n) for n in ("a.txt", "b.txt", "c.txt")))
    assert r.rc == 0, r.err
    return root


@pytest.mark.parametrize("mode", ["strict", "balanced", "conversational"])
def test_two_birthplaces_are_answered_as_a_conflict_naming_both_sources(store, mode):
    r = run_cli(store, "ask", "Where was Ada Lovelace born?", "--mode", mode)
    assert r.rc == 0
    line = next(x for x in r.out.splitlines() if x.startswith("Conflict:"))
    assert "London (a.txt;" in line and "Paris (b.txt;" in line
    data = json.loads(run_cli(store, "--json", "ask", "Where was Ada Lovelace born?", "--mode", mode).out)
    (c,) = data["conflicts"]
    assert c["subject"] == "Ada Lovelace" and c["predicate"] == "born_in"
    assert [(s["object"], s["sources"]) for s in c["sides"]] == [("London", ["a.txt"]), ("Paris", ["b.txt"])]


def test_no_conflict_for_one_fact_or_after_a_retraction(store):
    r = run_cli(store, "--json", "ask", "Where was Charles Babbage born?")
    assert json.loads(r.out)["conflicts"] == []
    paris = json.loads(run_cli(store, "--json", "ask", "Where was Ada Lovelace born?").out)["conflicts"][0]["sides"][1]["id"]
    assert run_cli(store, "retract", paris, "--reason", "misread").rc == 0
    data = json.loads(run_cli(store, "--json", "ask", "Where was Ada Lovelace born?").out)
    assert data["conflicts"] == [] and "Conflict" not in data["text"]


def test_a_birthplace_and_the_region_it_lies_in_are_no_conflict(tmp_path):
    (tmp_path / "a.txt").write_text("Jenna Marbles was born in Rochester.\n")
    (tmp_path / "b.txt").write_text("Jenna Marbles was born in New York.\n")
    root = tmp_path / "s"
    assert run_cli(root, "ingest", "--extractor", "rules", str(tmp_path / "a.txt"), str(tmp_path / "b.txt")).rc == 0
    q = "Where was Jenna Marbles born?"
    assert len(json.loads(run_cli(root, "--json", "ask", q).out)["conflicts"]) == 1
    assert run_cli(root, "assert", "Rochester", "located_in", "New York").rc == 0
    data = json.loads(run_cli(root, "--json", "ask", q).out)
    assert data["conflicts"] == [] and "Conflict" not in data["text"]
    assert {f["object"] for f in data["facts"]} >= {"Rochester", "New York"}
