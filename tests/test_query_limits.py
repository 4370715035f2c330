"""Query limits (issue 21, item 4): every SPARQL the CLI runs for a user (query, derive --rule) has a
deadline, a row cap and a memory cap, from flags or the environment, and ends with a one-line error and
exit 2 when one is hit. Reproduction: a three-way cross product sorted on a store of ~480 quads reached
15.7 GB resident in 40 s; now the whole process tree stays near the memory cap and ends within seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from semantic_rdf.core.errors import LimitExceeded
from semantic_rdf.store.sandbox import Limits, run_user_query
from tests._security import REPO, assert_refused, run_cli

CROSS_SORTED = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?c ?f ?i"
CROSS_COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("limits") / "store"
    for i in range(14):
        assert run_cli(root, "assert", f"Person {i}", "parent_of", f"Child {i}").rc == 0
    r = run_cli(root, "--json", "query", "--union", "-", stdin=b"SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    n = int(json.loads(r.out)["results"]["bindings"][0]["n"]["value"])
    assert 450 <= n <= 600, n  # the size of the reproduction's store (482 quads)
    return root


def _measured(store, *argv: str, env: dict | None = None) -> tuple[int, str, float, int]:
    """Run the CLI as a real process from a fresh interpreter; return (exit, stderr, seconds, peak RSS in
    MiB of the whole process tree: RUSAGE_CHILDREN covers the CLI and the child it forks for the query)."""
    probe = (
        "import json, resource, subprocess, sys, time\n"
        "t = time.monotonic()\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "print(json.dumps([r.returncode, r.stderr.decode('utf-8', 'replace'), time.monotonic() - t,\n"
        "                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024]))\n"
    )
    cmd = [sys.executable, "-c", probe, sys.executable, "-m", "semantic_rdf", "--store", str(store), *argv]
    full_env = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    full_env.pop("SEMANTIC_RDF_DEBUG", None)
    out = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=120, cwd=str(REPO))
    rc, err, secs, peak = json.loads(out.stdout)
    return rc, err, secs, peak


def test_the_reproduction_stops_at_the_default_memory_cap(store, tmp_path):
    rq = tmp_path / "cross.rq"
    rq.write_text(CROSS_SORTED)
    rc, err, secs, peak = _measured(store, "query", "--union", str(rq))
    assert rc == 2, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "memory limit of 1024 MiB" in lines[0], err
    assert secs < Limits().timeout, secs
    assert peak < 1024 + 512, f"peak resident {peak} MiB"  # the cap plus the interpreter, not 15.7 GB


def test_a_smaller_memory_cap_holds_the_peak_lower(store, tmp_path):
    rq = tmp_path / "cross.rq"
    rq.write_text(CROSS_SORTED)
    rc, err, secs, peak = _measured(store, "query", "--union", "--max-memory", "200", str(rq))
    assert rc == 2 and "memory limit of 200 MiB" in err, err
    assert peak < 200 + 400, f"peak resident {peak} MiB"


def test_the_environment_sets_the_memory_cap(store, tmp_path):
    rq = tmp_path / "cross.rq"
    rq.write_text(CROSS_SORTED)
    rc, err, _, peak = _measured(store, "query", "--union", str(rq), env={"SEMANTIC_RDF_QUERY_MAX_MEMORY": "150"})
    assert rc == 2 and "memory limit of 150 MiB" in err, err
    assert peak < 150 + 400, peak


def test_a_slow_query_stops_at_the_time_limit(store, tmp_path):
    rq = tmp_path / "count.rq"
    rq.write_text(CROSS_COUNT)
    rc, err, secs, _ = _measured(store, "query", "--union", "--timeout", "1.5", str(rq))
    assert rc == 2 and "time limit of 1.5 s" in err, err
    assert secs < 15, secs


def test_time_limit_from_the_environment(store, tmp_path, monkeypatch):
    rq = tmp_path / "count.rq"
    rq.write_text(CROSS_COUNT)
    monkeypatch.setenv("SEMANTIC_RDF_QUERY_TIMEOUT", "1")
    t0 = time.monotonic()
    r = run_cli(store, "query", "--union", str(rq))
    assert_refused(r)
    assert "time limit of 1 s" in r.err
    assert time.monotonic() - t0 < 10


def test_row_cap(store, tmp_path):
    rq = tmp_path / "all.rq"
    rq.write_text("SELECT * WHERE { ?s ?p ?o }")
    r = run_cli(store, "query", "--union", "--max-rows", "5", str(rq))
    assert_refused(r)
    assert "more than 5 results" in r.err
    ok = run_cli(store, "--json", "query", "--union", "--max-rows", "100000", str(rq))
    assert ok.rc == 0 and len(json.loads(ok.out)["results"]["bindings"]) > 400


def test_library_limits(store):
    with pytest.raises(LimitExceeded, match="time limit"):
        run_user_query(store, CROSS_COUNT, union=True, limits=Limits(timeout=1))
    with pytest.raises(LimitExceeded, match="more than 3 results"):
        run_user_query(store, "SELECT * WHERE { ?s ?p ?o }", union=True, limits=Limits(max_rows=3))
    res = run_user_query(store, "ASK { ?s ?p ?o }", union=True)
    assert res.kind == "boolean" and res.boolean is True


@pytest.mark.parametrize(
    "argv",
    [
        ["--timeout", "0"],
        ["--timeout", "-1"],
        ["--timeout", "nan"],
        ["--max-rows", "0"],
        ["--max-memory", "-5"],
    ],
)
def test_bad_limits_are_refused(store, tmp_path, argv):
    rq = tmp_path / "q.rq"
    rq.write_text("ASK { ?s ?p ?o }")
    assert_refused(run_cli(store, "query", *argv, str(rq)))


def test_bad_limit_in_the_environment_is_refused(store, tmp_path, monkeypatch):
    rq = tmp_path / "q.rq"
    rq.write_text("ASK { ?s ?p ?o }")
    monkeypatch.setenv("SEMANTIC_RDF_QUERY_MAX_ROWS", "lots")
    assert_refused(run_cli(store, "query", str(rq)))


def test_derive_rule_stops_at_the_time_limit(store, tmp_path):
    rule = tmp_path / "cross.rq"
    # the working store holds three triples per believed assertion: five of them crossed is ~130M rows
    rule.write_text(
        "# rule: cross\n# antecedents: ?a\nCONSTRUCT { ?a ?b ?c } WHERE { ?a ?b ?c . ?d ?e ?f . "
        "?x ?y ?z . ?p ?q ?r . ?u ?v ?w } ORDER BY ?c ?f ?z ?r ?w"
    )
    t0 = time.monotonic()
    r = run_cli(store, "derive", "--only", "--rule", str(rule), "--timeout", "2", "--max-memory", "300")
    assert_refused(r)
    assert "rule cross stopped" in r.err and ("time limit" in r.err or "memory limit" in r.err), r.err
    assert time.monotonic() - t0 < 20


def test_derive_row_cap(store):
    r = run_cli(store, "derive", "--max-rows", "1")
    assert_refused(r)
    assert "more than 1 results" in r.err
