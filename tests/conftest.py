"""Shared fixtures: real triplestore servers, started once per test session on 127.0.0.1.

`oxigraph_server` runs `oxigraph serve` (in memory) and `virtuoso_server` a private Virtuoso 7 in
its own temporary directory (anonymous SPARQL update granted, result cap raised). Each starts only
when a test asks for it, waits until it answers, and is stopped at the end of the session.
A missing binary FAILS the test with the install step: a skipped server test would hide it.

`any_store` is parametrized over the embedded pyoxigraph store, the Oxigraph server and Virtuoso:
the same test runs against each and must see the same results. It starts every test with no
graph under https://w3id.org/semantic-rdf/ and removes what the test left behind.
"""

from __future__ import annotations

import pytest

from semantic_rdf.servers import OxigraphServer, ServerError, VirtuosoServer
from semantic_rdf.sparql import NS_PREFIX, EmbeddedBackend, RemoteBackend

STORE_KINDS = ("embedded", "oxigraph", "virtuoso")


def _start(server):
    try:
        return server.start()
    except ServerError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def oxigraph_server():
    server = _start(OxigraphServer())
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def virtuoso_server():
    server = _start(VirtuosoServer(buffers=20000))
    try:
        yield server
    finally:
        server.stop()


def backend_for(kind: str, request) -> EmbeddedBackend | RemoteBackend:
    if kind == "embedded":
        return EmbeddedBackend()
    server = request.getfixturevalue(f"{kind}_server")
    return RemoteBackend(server.dsn)


@pytest.fixture(params=STORE_KINDS)
def any_store(request):
    backend = backend_for(request.param, request)
    backend.drop(NS_PREFIX)
    try:
        yield backend
    finally:
        backend.drop(NS_PREFIX)
        backend.close()
