"""`semantic-rdf serve` (issue 19, item 7): the Oxigraph server on the store with the union default graph, the
ready queries it prints, and its page checked in a real headless Chromium (Debian's, through chromedriver)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import pytest

from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.lifecycle.temporal import retract
from semantic_rdf.core.values import Chunk, Doc, Triple

TEXT = "Marie Curie was born in Warsaw. She discovered Polonium. She moved to Paris."
FACTS = [("Marie Curie", "born_in", "Warsaw", 0, 31), ("Marie Curie", "discovered", "Polonium", 32, 56), ("Marie Curie", "moved_to", "Paris", 57, 76)]


def _start_serve(root, *args: str) -> tuple[subprocess.Popen, dict]:
    """`semantic-rdf --json serve --port 0 ARGS` on `root`, and the JSON object it prints once the server answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "semantic_rdf", "--json", "--store", str(root), "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        out.append(line)
        if line.rstrip() == "}":
            break
    try:
        return proc, json.loads("".join(out))
    except ValueError:
        proc.kill()
        pytest.fail("serve printed no JSON: " + "".join(out) + proc.stderr.read())


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A store with three extracted facts (one retracted, with a reason) served by `semantic-rdf serve --json`."""
    root = tmp_path_factory.mktemp("serve") / "store"
    store = AssertionStore.open(root)
    doc = Doc("curie.txt", "curie.txt", TEXT)
    with store.run("ingestion", agent="test-extractor") as run:
        store.add_document(doc, run)
        report = store.assert_triples(
            [Triple(s, p, o, Chunk(doc.id, 0, TEXT, 0, len(TEXT)), 0.8, start=a, end=b) for s, p, o, a, b in FACTS], run=run
        )
    retract(store, report.ids[2], "the move date is disputed", agent="a-reviewer")
    store.close()
    proc, info = _start_serve(root)
    # the server reads a snapshot of the store's files (store/readers.py), removed when serve ends
    assert len(list((root / "readers").iterdir())) == 1
    yield info, root
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert not list((root / "readers").iterdir())
    try:
        os.kill(info["pid"], 0)
    except ProcessLookupError:
        pass
    else:
        pytest.fail("the oxigraph server outlived `serve`")


def _select(endpoint: str, query: str) -> list[dict]:
    req = urllib.request.Request(
        endpoint, data=urllib.parse.urlencode({"query": query}).encode(), headers={"Accept": "application/sparql-results+json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return [{k: v["value"] for k, v in b.items()} for b in json.load(r)["results"]["bindings"]]


def _ready(info) -> dict[str, str]:
    return {q["name"]: q["query"] for q in info["queries"]}


def test_a_plain_select_returns_the_store(served):
    info, _ = served
    assert info["union_default_graph"] is True
    rows = _select(info["query"], "SELECT * WHERE { ?s ?p ?o }")
    assert len(rows) > 50  # records, claims, entities, documents: all in named graphs
    assert any(r["p"] == "https://w3id.org/semantic-rdf/p/born_in" for r in rows)


def test_the_ready_queries_answer_questions_about_the_store(served):
    info, _ = served
    ready = _ready(info)
    assert set(ready) == {"serve/facts", "serve/documents", "serve/withdrawn"}
    facts = _select(info["query"], ready["serve/facts"])
    assert [(r["subject"], r["predicate"], r["object"], r["document"], r["quote"]) for r in facts] == [
        ("Marie Curie", "born_in", "Warsaw", "curie.txt", "Marie Curie was born in Warsaw."),
        ("Marie Curie", "discovered", "Polonium", "curie.txt", "She discovered Polonium."),
    ]  # the retracted move is not believed
    docs = _select(info["query"], ready["serve/documents"])
    assert [(r["document"], r["facts"]) for r in docs] == [("curie.txt", "3")] and docs[0]["read"]
    withdrawn = _select(info["query"], ready["serve/withdrawn"])
    assert [(r["object"], r["why"], r["by"], r["believed_again"]) for r in withdrawn] == [
        ("Paris", "the move date is disputed", "a-reviewer", "false")
    ]


def test_the_ready_queries_run_on_the_embedded_store_too(served):
    info, root = served
    facts = _select(info["query"], _ready(info)["serve/facts"])
    r = subprocess.run(
        [sys.executable, "-m", "semantic_rdf", "--store", str(root), "query", "serve/facts", "--union", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    local = [{k: v["value"] for k, v in b.items()} for b in json.loads(r.stdout)["results"]["bindings"]]
    assert local == facts


def test_the_text_output_lists_the_ready_queries(tmp_path):
    root = tmp_path / "store"
    AssertionStore.open(root).close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "semantic_rdf", "--store", str(root), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stdout.readline()
        assert first.startswith(f"serving {root} read-only at http://127.0.0.1:"), first + proc.stderr.read()
        rest = [proc.stdout.readline() for _ in range(4)]
        assert "SELECT * WHERE { ?s ?p ?o } returns the whole store" in rest[0]
        assert rest[3].startswith("# serve/documents: the documents read into the store")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def _run_in_page(browser, url: str, query: str) -> list[list[str]]:
    """Load the server's page, put `query` in its editor, press its run button, and read the result table."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url + "/")
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return !!document.querySelector('.CodeMirror')"))
    assert browser.title == "Oxigraph server"
    browser.execute_script("document.querySelector('.CodeMirror').CodeMirror.setValue(arguments[0])", query)
    browser.find_element(By.CSS_SELECTOR, ".yasqe_queryButton").click()
    # The result table is read in one script call, and again until two reads agree: the page may draw the table
    # more than once (an element found in one drawing is stale in the next, and selenium then raises).
    read = "return Array.from(document.querySelectorAll('.yasr table tbody tr'), tr => Array.from(tr.querySelectorAll('td'), td => td.innerText))"
    seen: list = []

    def settled(d) -> bool:
        rows = d.execute_script(read)
        stable = bool(rows) and any(rows) and rows == (seen[-1] if seen else None)
        seen.append(rows)
        return stable

    WebDriverWait(browser, 30, poll_frequency=0.2).until(settled)
    return seen[-1]


def test_the_page_runs_a_plain_select_in_a_real_browser(served, browser):
    info, _ = served
    rows = _run_in_page(browser, info["url"], "SELECT * WHERE { ?s ?p ?o } LIMIT 5")
    assert len(rows) == 5 and all(any(cell.strip() for cell in row) for row in rows)


def test_the_page_runs_a_ready_query_in_a_real_browser(served, browser):
    info, _ = served
    rows = _run_in_page(browser, info["url"], _ready(info)["serve/facts"])
    text = [" ".join(cell.split()) for row in rows for cell in row]
    assert len(rows) == 2
    assert "Marie Curie was born in Warsaw." in " ".join(text) and "Paris" not in " ".join(text)


def test_an_ipv6_host_is_bracketed_in_the_url_and_the_bind_address():
    from semantic_rdf.remote.servers import OxigraphServer

    assert OxigraphServer(host="::1", port=7878).url == "http://[::1]:7878"
    assert OxigraphServer(host="127.0.0.1", port=7878).url == "http://127.0.0.1:7878"


def test_serve_on_the_ipv6_loopback_answers(tmp_path):
    import socket

    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")  # an environment without IPv6, not a missing install
    root = tmp_path / "store"
    AssertionStore.open(root).close()
    proc, info = _start_serve(root, "--host", "::1")
    try:
        assert info["url"].startswith("http://[::1]:")
        rows = _select(info["query"], "SELECT (1 AS ?one) WHERE { }")
        assert rows == [{"one": "1"}]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_a_server_that_outlives_a_killed_serve_keeps_its_snapshot(tmp_path):
    """The server reads a snapshot that `serve` owns by a lock (store/readers.py); the server inherits the lock, so
    when `serve` is killed (SIGKILL: no clean-up) and the server runs on, no sweep removes the files under it. Once
    the server ends, the next open sweeps the snapshot."""
    root = tmp_path / "store"
    store = AssertionStore.open(root)
    store.assert_("Ada Lovelace", "born_in", "London")
    store.close()
    proc, info = _start_serve(root)
    (served,) = (root / "readers").iterdir()
    proc.kill()
    proc.wait(timeout=30)
    try:
        with AssertionStore.open(root, read_only=True) as ro:  # sweeps
            assert ro.stats()["assertions"] == 1
        assert served.is_dir()
        assert _select(info["query"], "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")[0]["n"] != "0"
    finally:
        os.kill(info["pid"], signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(info["pid"], 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
    AssertionStore.open(root, read_only=True).close()
    assert not served.exists()
