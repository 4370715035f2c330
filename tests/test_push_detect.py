"""`push http://HOST:PORT`: the server says which it is (Oxigraph or Virtuoso); the + forms stay explicit."""

from __future__ import annotations

import http.server
import socket
import threading

import pytest

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.remote.sparql import Endpoint, NS_PREFIX, RemoteBackend, detect_flavour
from semantic_rdf.store.assertions import AssertionStore

from _security import assert_refused, run_cli


def test_oxigraph_and_virtuoso_are_told_apart(oxigraph_server, virtuoso_server):
    assert detect_flavour(oxigraph_server.url) == "oxigraph"
    assert detect_flavour(virtuoso_server.url) == "virtuoso"
    plain = Endpoint.parse(oxigraph_server.url)
    assert plain == Endpoint.parse(oxigraph_server.dsn)
    assert Endpoint.parse(virtuoso_server.url + "/").flavour == "virtuoso"


class _Other(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Server", "SomethingElse/1.0")
        self.end_headers()

    def log_message(self, *a):
        pass


def test_an_unknown_or_silent_server_is_refused_with_the_explicit_forms():
    srv = http.server.HTTPServer(("127.0.0.1", 0), _Other)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        with pytest.raises(InvalidInput, match="neither Oxigraph nor Virtuoso"):
            Endpoint.parse(f"http://127.0.0.1:{srv.server_port}")
    finally:
        srv.shutdown()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InvalidInput, match="cannot ask the server"):
        Endpoint.parse(f"http://127.0.0.1:{port}")


def test_cli_push_to_a_plain_http_address(oxigraph_server, tmp_path):
    remote = RemoteBackend(oxigraph_server.dsn)
    remote.drop(NS_PREFIX)
    store = tmp_path / "s"
    with AssertionStore.open(store) as s:
        s.assert_("Ada Lovelace", "wrote", "Note G", score=0.9)
        local = len(s.ox)
    try:
        r = run_cli(store, "push", oxigraph_server.url)
        assert r.rc == 0, r.err
        assert f"store {local} = endpoint {local} quads" in r.out
        assert_refused(run_cli(store, "push", "ftp://127.0.0.1:1/"))
    finally:
        remote.drop(NS_PREFIX)
        remote.close()
