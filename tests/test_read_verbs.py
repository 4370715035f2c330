"""Verbs that only read (or change assertions a store already holds) never create a store (issue 20, repro 5).

`semantic-rdf --store typo-store ask …` used to answer "I do not have verified information", exit 0, and leave
`typo-store/` and `typo-store.side.sqlite` behind. Now every such verb on a missing store prints one line,
"semantic-rdf: error: no store at 'PATH' (…)", exits 2 and creates nothing beside PATH. Only the verbs in
cli._common.CREATING_VERBS create one.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from _security import REPO, run_cli

from semantic_rdf import cli
from semantic_rdf.cli._common import CREATING_VERBS

AID = "0123456789abcdef"

# verb -> argument lists to try on a missing store ({inputs} is a directory beside, never inside, the store's)
READ_CALLS: dict[str, list[list[str]]] = {
    "ask": [
        ["Where was Marie Curie born?"],
        ["--mode", "strict", "Who designed the Analytical Engine?"],
        ["Where was Marie Curie born?", "--as-of", "2020-01-01T00:00:00Z"],
    ],
    "chat": [[]],
    "query": [["{inputs}/q.rq"], ["-"], ["{inputs}/q.rq", "--union"]],
    "trace": [[AID], [AID, "--no-text"]],
    "decisions": [["--agent", "answerer"], ["show", AID], ["chain", AID]],
    "export": [[], ["--format", "trig"], ["-o", "{inputs}/out.nq"], ["--format", "prov-json"], ["--graph", "entities"]],
    "stats": [[]],
    "validate": [[]],
    "push": [["oxigraph+http://127.0.0.1:9"]],  # the store is checked before any connection is tried
    "serve": [["--port", "0"]],
    "compact": [[]],
    "retract": [[AID, "--reason", "x"], ["--run", "r1", "--reason", "x"], ["--agent", "m", "--reason", "x"], ["--source", "a.txt", "--reason", "x"]],
    "reinstate": [[AID, "--reason", "x"]],
    "erase": [[AID, "--reason", "x"]],
    "list": [[], ["--subject", "Marie Curie"], ["--state", "retracted", "--limit", "5"]],
    "show": [[AID]],
    "search": [["Warsaw"]],
    "entities": [[], ["--name", "Marie Curie"]],
}
NO_STORE = {"id", "predicates"}  # never open a store at all
CASES = [(verb, argv) for verb, calls in READ_CALLS.items() for argv in calls]
STDIN = b"Where was Marie Curie born?\n"  # chat and `query -` read it; a query that would parse
QUERY = b"SELECT * WHERE { ?s ?p ?o } LIMIT 1\n"


def _inputs(tmp_path):
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "q.rq").write_bytes(QUERY)
    return inputs


def _beside(tmp_path) -> list[str]:
    return sorted(p for p in os.listdir(tmp_path) if p != "inputs")


def _check_refused(r, store, tmp_path, inputs) -> None:
    assert r.rc == 2, (r.rc, r.out, r.err)
    assert len(r.err_lines) == 1, r.err
    assert r.err_lines[0].startswith(f"semantic-rdf: error: no store at {str(store)!r} (only "), r.err
    assert "SEMANTIC_RDF_STORE" in r.err_lines[0]
    assert r.out == ""
    assert _beside(tmp_path) == [], "a read verb created files: " + ", ".join(_beside(tmp_path))
    assert sorted(os.listdir(inputs)) == ["q.rq"]  # not even the -o file


def test_every_verb_is_classified():
    """A new verb must be listed here as creating, reading, or store-less, so it cannot create stores unnoticed."""
    _, modules = cli.build_parser()
    assert set(modules) == set(READ_CALLS) | set(CREATING_VERBS) | NO_STORE
    assert not set(READ_CALLS) & set(CREATING_VERBS)


@pytest.mark.parametrize("verb,argv", CASES, ids=[f"{v}:{' '.join(a) or '-'}" for v, a in CASES])
def test_read_verb_on_missing_store_creates_nothing(tmp_path, verb, argv):
    inputs = _inputs(tmp_path)
    store = tmp_path / "typo-store"
    args = [a.replace("{inputs}", str(inputs)) for a in argv]
    r = run_cli(store, verb, *args, stdin=QUERY if args == ["-"] else STDIN)
    _check_refused(r, store, tmp_path, inputs)


@pytest.mark.parametrize("verb", ["ask", "trace", "decisions", "stats", "retract"])
def test_an_empty_directory_is_not_made_a_store(tmp_path, verb):
    store = tmp_path / "empty"
    store.mkdir()
    argv = {"ask": ["Where was Marie Curie born?"], "trace": [AID], "decisions": ["--agent", "x"], "stats": [], "retract": [AID, "--reason", "x"]}[
        verb
    ]
    r = run_cli(store, verb, *argv)
    assert r.rc == 2 and r.err_lines[0].startswith(f"semantic-rdf: error: no store at {str(store)!r}")
    assert os.listdir(store) == [] and sorted(os.listdir(tmp_path)) == ["empty"]


def test_the_reproduction_through_the_executable(tmp_path):
    """Issue 20 repro 5 as a user runs it: a relative --store, the real process, then stats on the same path."""
    env = {k: v for k, v in os.environ.items() if k not in ("SEMANTIC_RDF_STORE", "SEMANTIC_RDF_DEBUG")}
    env["PYTHONPATH"] = str(REPO)
    for argv in (["ask", "Where was Marie Curie born?"], ["stats"]):
        r = subprocess.run(
            [sys.executable, "-m", "semantic_rdf", "--store", "typo-store", *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert r.returncode == 2, (r.stdout, r.stderr)
        assert r.stdout == "" and r.stderr.count("\n") == 1
        assert r.stderr.startswith("semantic-rdf: error: no store at 'typo-store' (only ")
        assert os.listdir(tmp_path) == []


def test_the_default_store_from_the_environment_is_not_created(tmp_path, monkeypatch):
    monkeypatch.setenv("SEMANTIC_RDF_STORE", str(tmp_path / "env-store"))
    r = run_cli(None, "ask", "Where was Marie Curie born?")
    assert r.rc == 2 and r.err_lines == [r.err_lines[0]] and "no store at" in r.err_lines[0]
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("verb,argv", [("assert", ["Ada Lovelace", "born_in", "London"]), ("seed", []), ("derive", [])])
def test_writing_verbs_still_create_the_store(tmp_path, verb, argv):
    store = tmp_path / "new"
    r = run_cli(store, verb, *argv)
    assert r.rc == 0, r.err
    assert (store / "oxigraph").is_dir()
    r = run_cli(store, "stats")  # and the read verbs then find it
    assert r.rc == 0, r.err


def test_read_verbs_work_once_the_store_exists(tmp_path):
    store = tmp_path / "s"
    assert run_cli(store, "assert", "Ada Lovelace", "born_in", "London").rc == 0
    r = run_cli(store, "ask", "Where was Ada Lovelace born?")
    assert r.rc == 0 and "London" in r.out
    assert run_cli(store, "validate").rc == 0
    assert sorted(os.listdir(tmp_path)) == ["s", "s.side.sqlite"]
