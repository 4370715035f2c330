"""`semantic-rdf serve` (issue 19, item 7): a read-only SPARQL endpoint on the store with the union default graph and
the guard of `query` (remote/endpoint.py), the ready queries it prints, and Oxigraph's page checked in a real headless
Chromium (Debian's, through chromedriver)."""

from __future__ import annotations

import os
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
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
    yield info, root
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    # each query read a snapshot of the store's files (store/readers.py), removed once it was answered
    assert not list((root / "readers").iterdir())
    assert not _listening(info["url"])


def _select(endpoint: str, query: str) -> list[dict]:
    req = urllib.request.Request(
        endpoint, data=urllib.parse.urlencode({"query": query}).encode(), headers={"Accept": "application/sparql-results+json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return [{k: v["value"] for k, v in b.items()} for b in json.load(r)["results"]["bindings"]]


def _listening(url: str) -> bool:
    host, port = urllib.parse.urlsplit(url).hostname, urllib.parse.urlsplit(url).port
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError:
        return False
    return True


def _get(url: str, headers: dict[str, str] | None = None, data: bytes | None = None) -> tuple[int, str, str]:
    """(status, content type, body) of a request, an HTTP error's too."""
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read().decode()


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


def test_an_ipv6_host_is_bracketed_in_the_url_and_the_bind_address(tmp_path):
    from semantic_rdf.remote.endpoint import Endpoint
    from semantic_rdf.remote.servers import OxigraphServer

    assert OxigraphServer(host="::1", port=7878).url == "http://[::1]:7878"
    assert OxigraphServer(host="127.0.0.1", port=7878).url == "http://127.0.0.1:7878"
    assert Endpoint(tmp_path, "::1", 7878).url == "http://[::1]:7878"


def test_serve_on_the_ipv6_loopback_answers(tmp_path):
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


def test_each_query_reads_the_store_as_it_is_then(tmp_path):
    """No snapshot is held between queries: a fact asserted while serve runs is served, and a killed serve (SIGKILL:
    no clean-up) leaves nothing listening and nothing the next open does not sweep."""
    root = tmp_path / "store"
    store = AssertionStore.open(root)
    store.assert_("Ada Lovelace", "born_in", "London")
    store.close()
    proc, info = _start_serve(root)
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?a <https://w3id.org/semantic-rdf/ns#claimGraph> ?g }"
    try:
        assert _select(info["query"], count) == [{"n": "1"}]
        with AssertionStore.open(root) as store:  # serve holds no lock: a writer opens the store meanwhile
            store.assert_("Ada Lovelace", "wrote", "Note G")
        assert _select(info["query"], count) == [{"n": "2"}]
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert not _listening(info["url"])
    AssertionStore.open(root, read_only=True).close()
    assert not list((root / "readers").iterdir())


def test_a_federated_query_is_refused_and_reaches_no_service(served):
    """The stock Oxigraph server would fetch the SERVICE's URL (a loopback service, a cloud's metadata address) and
    quote its reply in the error it returns; this endpoint refuses the query as `semantic-rdf query` does."""
    from test_remote_hostile import port, results, serving  # a service on 127.0.0.1 that records each request

    info, _ = served
    with serving(lambda h, _q: h.reply(200, results([], []))) as srv:
        service = f"http://127.0.0.1:{port(srv)}/metadata"
        for query in (f"SELECT * WHERE {{ SERVICE <{service}> {{ ?s ?p ?o }} }}", f"ASK {{ SERVICE SILENT <{service}> {{ ?s ?p ?o }} }}"):
            status, _, body = _get(info["query"] + "?" + urllib.parse.urlencode({"query": query}))
            assert (status, body) == (400, "SERVICE (federated query) is refused: queries never reach the network\n")
            status, _, body = _get(info["url"] + "/sparql", {"Content-Type": "application/sparql-query"}, query.encode())
            assert status == 400 and "SERVICE" in body
        assert urllib.request.urlopen(service, timeout=10).status == 200  # the control: it answers a direct request
        assert srv.requests == [("GET", "/metadata")]  # type: ignore[attr-defined]


def test_a_request_by_another_name_or_from_another_site_is_refused(served):
    """DNS rebinding (a page whose own name now points at this address) and cross-site requests: 403, no query."""
    info, _ = served
    port = urllib.parse.urlsplit(info["url"]).port
    ask = info["query"] + "?" + urllib.parse.urlencode({"query": "ASK { ?s ?p ?o }"})
    assert _get(ask)[0] == 200
    assert _get(ask, {"Host": f"localhost:{port}"})[0] == 200
    assert _get(ask, {"Host": f"evil.example:{port}"})[:3:2] == (403, "this server is not reached by that name\n")
    assert _get(info["url"] + "/", {"Host": f"evil.example:{port}"})[0] == 403  # the page too
    assert _get(ask, {"Host": f"127.0.0.1:{port + 1}"})[0] == 403
    assert _get(ask, {"Origin": "http://evil.example"})[:3:2] == (403, "cross-origin requests are refused\n")
    assert _get(ask, {"Origin": "null"})[0] == 403
    assert _get(ask, {"Origin": info["url"]})[0] == 200


def test_a_name_the_server_is_reached_by_may_be_allowed(tmp_path):
    root = tmp_path / "store"
    AssertionStore.open(root).close()
    proc, info = _start_serve(root, "--allow-host", "Memory.Example")
    try:
        port = urllib.parse.urlsplit(info["url"]).port
        ask = info["query"] + "?" + urllib.parse.urlencode({"query": "ASK { }"})
        assert _get(ask, {"Host": f"memory.example:{port}"})[:3:2] == (200, '{"head": {}, "boolean": true}')
        assert _get(ask, {"Host": f"other.example:{port}"})[0] == 403
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_the_endpoint_is_read_only_and_bounded(served):
    info, root = served
    before = _select(info["query"], "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert _get(info["url"] + "/update", form, b"update=DROP+ALL")[0] == 403
    assert _get(info["query"], form, b"update=DROP+ALL")[0] == 403
    status, _, body = _get(info["query"], {"Content-Type": "application/sparql-query"}, b"DROP ALL")
    assert status == 400 and body.count("\n") == 1
    url = urllib.parse.urlsplit(info["url"])
    with socket.create_connection((url.hostname, url.port), timeout=30) as sock:  # refused before a byte of it is read
        sock.sendall(f"POST /query HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Length: {(1 << 20) + 1}\r\n\r\n".encode())
        assert sock.recv(100).startswith(b"HTTP/1.1 413 ")
    assert _get(info["query"], {"Content-Type": "text/plain"}, b"ASK {}")[0] == 415
    assert _get(info["query"] + "?" + urllib.parse.urlencode({"query": "ASK {}", "default-graph-uri": "http://x/"}))[0] == 400
    assert _get(info["url"] + "/store?default")[0] == 404  # no Graph Store protocol
    assert _select(info["query"], "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }") == before


def test_results_come_in_the_format_asked_for(served):
    info, _ = served
    where = "WHERE { ?s <https://w3id.org/semantic-rdf/p/born_in> ?e . ?e <http://www.w3.org/2000/01/rdf-schema#label> ?o }"
    select = info["query"] + "?" + urllib.parse.urlencode({"query": "SELECT ?o " + where})
    assert _get(select, {"Accept": "text/csv"})[1:] == ("text/csv; charset=utf-8", "o\r\nWarsaw\r\n")
    assert _get(select, {"Accept": "text/tab-separated-values"})[2] == '?o\n"Warsaw"\n'
    status, kind, body = _get(select, {"Accept": "application/sparql-results+xml, */*;q=0.1"})  # no XML: JSON
    assert kind.startswith("application/sparql-results+json") and json.loads(body)["results"]["bindings"] == [
        {"o": {"type": "literal", "value": "Warsaw"}}
    ]
    construct = "CONSTRUCT { ?s <http://example.org/born> ?o } " + where
    status, kind, body = _get(info["query"] + "?" + urllib.parse.urlencode({"query": construct}), {"Accept": "text/turtle"})
    assert status == 200 and kind == "text/turtle; charset=utf-8" and body.endswith('<http://example.org/born> "Warsaw" .\n')


def test_oxigraphs_page_is_read_from_the_program():
    from semantic_rdf.remote.endpoint import PAGE_FILES, oxigraph_page

    page = oxigraph_page()
    assert set(page) == set(PAGE_FILES)
    kind, html = page["/"]
    assert kind.startswith("text/html") and b"yasgui.min.js" in html and b"<title>Oxigraph server</title>" in html
    assert len(page["/yasgui.min.js"][1]) > 100_000


def _children(pid: int) -> set[int]:
    """The processes `pid` forked (every thread's), from /proc."""
    out: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out.update(int(x) for x in f.read().split())
    except OSError:
        pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pids: set[int], within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


_SLOW = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }"


def _post(url: str, query: str) -> tuple[int, str, float]:
    t = time.monotonic()
    status, _, body = _get(url, {"Content-Type": "application/x-www-form-urlencoded"}, urllib.parse.urlencode({"query": query}).encode())
    return status, body, time.monotonic() - t


def test_queries_at_once_answer_each_alone(tmp_path):
    """Two first queries at once had broken rdflib's parser for good (its first parse is for one thread), and a
    fast query waited for a slow one's child to end (that child held a copy of the fast one's pipe)."""
    root = tmp_path / "store"
    with AssertionStore.open(root) as store:
        for i in range(12):
            store.assert_(f"Person {i}", "born_in", f"Town {i}")
    proc, info = _start_serve(root, "--timeout", "6")
    try:
        results: list = []
        threads = [threading.Thread(target=lambda: results.append(_post(info["query"], "ASK { ?s ?p ?o }"))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [(s, json.loads(b)["boolean"]) for s, b, _ in results] == [(200, True)] * 4
        slow = threading.Thread(target=lambda: results.append(_post(info["query"], _SLOW)))
        slow.start()
        time.sleep(0.5)
        status, body, took = _post(info["query"], "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        assert status == 200 and took < 4, (status, body, took)
        slow.join()
        assert results[-1][0] == 400 and "time limit of 6 s" in results[-1][1]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0


def test_a_killed_serve_leaves_no_query_running_and_frees_its_port(tmp_path):
    root = tmp_path / "store"
    with AssertionStore.open(root) as store:
        for i in range(12):
            store.assert_(f"Person {i}", "born_in", f"Town {i}")
    proc, info = _start_serve(root, "--timeout", "60")

    def ask_slowly() -> None:
        try:
            _post(info["query"], _SLOW)
        except OSError:  # the server is killed under it (http.client's RemoteDisconnected is one)
            pass

    slow = threading.Thread(target=ask_slowly, daemon=True)
    slow.start()
    deadline = time.monotonic() + 30
    while not _children(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    running = _children(proc.pid)
    assert running, "the query's child never started"
    proc.kill()
    proc.wait(timeout=30)
    assert _gone(running), "a query's child outlived serve"
    url = urllib.parse.urlsplit(info["url"])
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as serve binds: a closed connection may linger
        s.bind((url.hostname, url.port))
        s.listen()  # nothing listens on the port any more


_SIGNALLED = """
import os, signal, sys
from semantic_rdf.remote import servers, endpoint
{patch}
from semantic_rdf.cli import main
sys.exit(main(["--store", sys.argv[1], "serve", "--port", "0"]))
"""


def _serve_signalled(tmp_path, patch: str) -> subprocess.CompletedProcess:
    root = tmp_path / "store"
    AssertionStore.open(root).close()
    script = tmp_path / "signalled.py"
    script.write_text(_SIGNALLED.format(patch=patch))
    return subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=60)


def test_sigterm_while_reading_the_page_stops_the_oxigraph_server_it_started(tmp_path):
    """The page is read from a stock Oxigraph server, which would fetch any URL: it must not outlive `serve`."""
    started = tmp_path / "oxigraph.pid"
    patch = f"""
start = servers.OxigraphServer.start
def started(self, *a, **k):
    start(self, *a, **k)
    open({str(started)!r}, "w").write(str(self.proc.pid))
    os.kill(os.getpid(), signal.SIGTERM)
    return self
servers.OxigraphServer.start = started
"""
    r = _serve_signalled(tmp_path, patch)
    assert r.returncode == 0, r.stderr
    assert _gone({int(started.read_text())}), "the oxigraph server outlived serve"


def test_sigterm_as_the_server_loop_begins_ends_serve(tmp_path):
    patch = """
serve_forever = endpoint.ThreadingHTTPServer.serve_forever
def signalled(self, *a, **k):
    os.kill(os.getpid(), signal.SIGTERM)
    return serve_forever(self, *a, **k)
endpoint.ThreadingHTTPServer.serve_forever = signalled
"""
    r = _serve_signalled(tmp_path, patch)
    assert r.returncode == 0, r.stderr


def test_a_cross_site_request_without_an_origin_is_refused(served):
    """A page's <img src=…> sends no Origin, but a browser says where a request comes from (Sec-Fetch-Site)."""
    info, _ = served
    ask = info["query"] + "?" + urllib.parse.urlencode({"query": "ASK { ?s ?p ?o }"})
    assert _get(ask, {"Sec-Fetch-Site": "cross-site"})[0] == 403
    assert _get(ask, {"Sec-Fetch-Site": "same-site"})[0] == 403
    assert _get(ask, {"Sec-Fetch-Site": "same-origin"})[0] == 200
    assert _get(info["url"] + "/", {"Sec-Fetch-Site": "none"})[0] == 200  # typed in the address bar


def test_a_query_that_names_its_dataset_reads_it(served):
    """Every graph is the default graph, unless the query says FROM (as a SPARQL endpoint does)."""
    info, _ = served
    assert _select(info["query"], "SELECT (COUNT(*) AS ?n) FROM <urn:nothing> WHERE { ?s ?p ?o }") == [{"n": "0"}]
    assert _select(info["query"], "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")[0]["n"] != "0"


def test_the_accept_header_is_read_by_its_weights(served):
    info, _ = served
    select = info["query"] + "?" + urllib.parse.urlencode({"query": "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"})
    assert _get(select, {"Accept": "text/csv;q=0.1, application/sparql-results+json"})[1].startswith("application/sparql-results+json")
    assert _get(select, {"Accept": "application/json;q=0, text/tab-separated-values;q=0.5"})[1].startswith("text/tab-separated-values")
    status, _, body = _get(select, {"Accept": "application/sparql-results+xml"})
    assert status == 406 and "application/sparql-results+json" in body
    url = urllib.parse.urlsplit(info["url"])
    with socket.create_connection((url.hostname, url.port), timeout=30) as sock:  # a chunked body is not read
        sock.sendall(f"POST /query HTTP/1.1\r\nHost: {url.netloc}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nASK{{}}\r\n0\r\n\r\n".encode())
        assert sock.recv(100).startswith(b"HTTP/1.1 411 ")
