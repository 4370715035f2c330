"""A read-only SPARQL endpoint over a store directory, with Oxigraph's page, for `semantic-rdf serve`.

The stock Oxigraph server evaluates SERVICE: anyone who can send it a query can make it fetch any URL (a
loopback service, a cloud's metadata address) and read the reply, which its error message quotes; and it
answers whatever Host a request names, so a web page can reach it through DNS rebinding. This endpoint
answers the SPARQL 1.1 protocol (GET and POST on /query and /sparql) itself instead: each query goes
through the guard and the sandbox of `semantic-rdf query` (`sandbox.run_user_query`: no SERVICE, LOAD or
update; a forked child with a deadline, a memory cap and a row cap), at most `MAX_RUNNING` at once, on a
fresh read-only snapshot of the store, with every graph as the default graph. A request is refused (403)
when its Host names this server by no name it has (a DNS name other than localhost, unless allowed), or
its Origin is another site's.

The page is Oxigraph's own (YASGUI), read once from the `oxigraph` program at start-up (`oxigraph_page`):
an empty in-memory server on a loopback port, stopped as soon as its four files are read.
"""

from __future__ import annotations

import ipaddress
import json
import threading
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from semantic_rdf.core.errors import InvalidInput, SemanticError, ServerError
from semantic_rdf.core.values import one_line
from semantic_rdf.rdf.queries import preload_checker
from semantic_rdf.rdf.results import csv_text, json_boolean, json_results, tsv_text
from semantic_rdf.remote.servers import OxigraphServer, address
from semantic_rdf.store.sandbox import Limits, QueryResult, run_user_query

__all__ = ["Endpoint", "MAX_BODY", "MAX_CONNECTIONS", "MAX_RUNNING", "PAGE_FILES", "oxigraph_page"]

PAGE_FILES = ("/", "/yasgui.min.js", "/yasgui.min.css", "/logo.svg")
MAX_BODY = 1 << 20  # bytes of a POSTed query: the guard's token cap is reached well before
MAX_RUNNING = 2  # queries evaluated at once, each in its own child (the machine's cores, not its requests)
MAX_CONNECTIONS = 64  # connections served at once, a thread each
_QUERY_PATHS = ("/query", "/sparql")
_SOLUTION_TYPES = {
    "application/sparql-results+json": "json",
    "application/json": "json",
    "text/csv": "csv",
    "text/tab-separated-values": "tsv",
}
_GRAPH_TYPES = ("application/n-triples", "text/turtle")  # N-Triples is Turtle too
_HEADERS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def oxigraph_page(timeout: float = 30.0) -> dict[str, tuple[str, bytes]]:
    """Path -> (content type, bytes) of the Oxigraph server's page (`PAGE_FILES`), read from an empty in-memory
    `oxigraph serve` on a loopback port that is stopped at once. ServerError when the program is missing or fails."""
    server = OxigraphServer()
    try:
        server.start(timeout)
        out = {}
        for path in PAGE_FILES:
            with urllib.request.urlopen(server.url + path, timeout=timeout) as r:
                out[path] = (r.headers.get("Content-Type", "application/octet-stream"), r.read())
        return out
    except OSError as exc:
        raise ServerError(f"cannot read the oxigraph server's page: {exc}") from None
    finally:
        server.stop()


@dataclass
class Endpoint:
    """The endpoint on the store directory `root`, bound to host:port (port 0: a free one, known after `start`).
    `allow_hosts`: other names the Host header may give (a DNS name the server is reached by); `page`: what
    `oxigraph_page` returns (an empty mapping serves no page)."""

    root: Path
    host: str = "127.0.0.1"
    port: int = 0
    limits: Limits = field(default_factory=Limits)
    allow_hosts: tuple[str, ...] = ()
    page: Mapping[str, tuple[str, bytes]] = field(default_factory=dict)
    _server: ThreadingHTTPServer | None = field(default=None, init=False, repr=False)
    _running: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(MAX_RUNNING), init=False, repr=False)
    _serving: int | None = field(default=None, init=False, repr=False)  # the thread in `serve_forever`

    @property
    def url(self) -> str:
        return f"http://{address(self.host, self.port)}"

    def start(self) -> "Endpoint":
        """Bind (InvalidInput when the address cannot be bound); `serve_forever` then answers."""
        preload_checker()  # before any request thread: its first parse is not for two threads at once
        handler = type("Handler", (_Handler,), {"endpoint": self})
        server_class = type("Server", (_Server,), {"address_family": _family(self.host)})
        try:
            self._server = server_class((self.host, self.port), handler)
        except OSError as exc:
            raise InvalidInput(f"cannot listen on {self.host} port {self.port}: {exc.strerror or exc}") from None
        self.port = self._server.server_address[1]
        return self

    def serve_forever(self) -> None:
        """Answer requests until `stop` (from another thread) or an exception in this one (a signal's)."""
        assert self._server is not None, "start() first"
        try:
            self._serving = threading.get_ident()
            self._server.serve_forever(poll_interval=0.2)
        finally:
            self._serving = None

    def stop(self) -> None:
        """Stop answering and close the socket. The server's shutdown() waits for its loop to end, so it is asked
        only of a loop another thread runs: in the loop's own thread (a signal's exception left it) or before
        any loop (a SIGTERM right after start) it would wait for ever."""
        if self._server is not None:
            if self._serving not in (None, threading.get_ident()):
                self._server.shutdown()
            self._server.server_close()
            self._server = None

    def host_allowed(self, host: str | None) -> bool:
        """Whether a request's Host header names this server: by an IP address or localhost, by the address it is
        bound to or a name in `allow_hosts`, with this server's port (or none, on port 80). A DNS name otherwise is
        refused: a page that rebinds its own name to this address must not read or query the store."""
        if not host:
            return False
        name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
        if not name or port and not port.isdigit():
            name, port = host, ""
        if (int(port) if port else 80) != self.port:
            return False
        name = name.strip("[]").lower().rstrip(".")
        if name in ("localhost", self.host.lower()) or name in {h.lower() for h in self.allow_hosts}:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def answer(self, query: str, accept: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for a query: the results in the first format `accept` lists that this
        endpoint writes (SPARQL JSON by default), or a one-line error (400 for a query refused or over a limit)."""
        if not self._running.acquire(timeout=self.limits.timeout):
            return 503, "text/plain; charset=utf-8", b"busy: other queries are running; try again\n"
        try:
            try:
                res = run_user_query(self.root, query, union=True, limits=self.limits)
            except SemanticError as exc:
                return 400, "text/plain; charset=utf-8", (one_line(exc) + "\n").encode()
            except Exception as exc:  # the engine's own failure: one line, the server goes on
                return 500, "text/plain; charset=utf-8", f"internal error: {type(exc).__name__}\n".encode()
        finally:
            self._running.release()
        return _serialised(res, accept)


def _family(host: str):
    import socket

    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _preferences(accept: str) -> list[str]:
    """The media types of an Accept header, most wanted first (by q, then in the order written; q=0 left out)."""
    ranked = []
    for i, part in enumerate(accept.split(",")):
        kind, *params = (x.strip() for x in part.split(";"))
        q = 1.0
        for param in params:
            if param.lower().startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        if kind and q > 0:
            ranked.append((-q, i, kind.lower()))
    return [kind for _, _, kind in sorted(ranked)]


def _serialised(res: QueryResult, accept: str) -> tuple[int, str, bytes]:
    """The results in the first format the Accept header prefers that this endpoint writes; its default where
    it takes any (a wildcard, or no header); else 406."""
    wanted = _preferences(accept) or ["*/*"]
    writes = dict.fromkeys(_GRAPH_TYPES, "") if res.kind == "triples" else _SOLUTION_TYPES
    kind = next((t for t in wanted if t in writes or t.endswith("/*")), None)
    if kind is None:
        return 406, "text/plain; charset=utf-8", f"this endpoint writes {', '.join(writes)}\n".encode()
    if res.kind == "triples":
        kind = kind if kind in _GRAPH_TYPES else _GRAPH_TYPES[0]
        return 200, kind + "; charset=utf-8", "".join(t + " .\n" for t in res.triples).encode()
    fmt = _SOLUTION_TYPES.get(kind, "json")
    if fmt == "json" or res.kind == "boolean":
        doc = json_boolean(bool(res.boolean)) if res.kind == "boolean" else json_results(res.variables, res.rows)
        return 200, "application/sparql-results+json; charset=utf-8", json.dumps(doc).encode()
    if fmt == "csv":
        return 200, "text/csv; charset=utf-8", csv_text(res.variables, res.rows).encode()
    return 200, "text/tab-separated-values; charset=utf-8", tsv_text(res.variables, res.rows).encode()


class _Server(ThreadingHTTPServer):
    """At most `MAX_CONNECTIONS` connections at once (one thread each; more are closed at once), and no traceback
    on the terminal for a client that left mid-answer."""

    daemon_threads = True  # a request thread does not keep `serve` from ending (its query's child dies with it)

    def __init__(self, address, handler) -> None:
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, handler)

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address) -> None:
        pass


class _Handler(BaseHTTPRequestHandler):
    endpoint: Endpoint
    server_version = "semantic-rdf"
    protocol_version = "HTTP/1.1"
    timeout = 60  # seconds a connection may wait for a request's next bytes: an idle client does not hold a thread

    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's name
        pass  # no line per request on the terminal `serve` prints its queries to

    def do_GET(self) -> None:
        if self.headers.get("Content-Length", "0") != "0" or "Transfer-Encoding" in self.headers:
            self.close_connection = True  # a body is not read here: the connection cannot carry another request
        if not self._allowed():
            return
        url = urllib.parse.urlsplit(self.path)
        if url.path in _QUERY_PATHS:
            self._query(urllib.parse.parse_qs(url.query, keep_blank_values=True))
        elif url.path in self.endpoint.page:
            kind, body = self.endpoint.page[url.path]
            self._send(200, kind, body)
        else:
            self._send(404, "text/plain; charset=utf-8", b"not found\n")

    def do_POST(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        if "Transfer-Encoding" in self.headers:
            self.close_connection = True
            self._send(411, "text/plain; charset=utf-8", b"send the query with a Content-Length\n")
            return
        try:
            size = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            size = -1
        if not 0 <= size <= MAX_BODY:
            self.close_connection = True  # the body is not read: the connection cannot carry another request
            self._send(413, "text/plain; charset=utf-8", f"a request body of 0 to {MAX_BODY} bytes is read\n".encode())
            return
        body = self.rfile.read(size)  # read before any refusal, so that the connection stays in step
        if not self._allowed():
            return
        if path not in _QUERY_PATHS:
            status = 403 if path == "/update" else 404
            self._send(status, "text/plain; charset=utf-8", b"this endpoint is read-only\n" if status == 403 else b"not found\n")
            return
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind == "application/sparql-query":
            self._query({"query": [body.decode("utf-8", "replace")]})
        elif kind == "application/x-www-form-urlencoded":
            self._query(urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True))
        else:
            self._send(415, "text/plain; charset=utf-8", b"POST a query as application/sparql-query or as a form\n")

    def _allowed(self) -> bool:
        """The Host and Origin checks (the module's docstring); a refused request gets 403. A browser names the
        origin of a POST and of a script's request (Origin), and the kind of site of every request it sends
        (Sec-Fetch-Site: "same-origin", "none" when typed by the user): a plain cross-site GET (an image) has
        no Origin, and is refused by the second."""
        host = self.headers.get("Host")
        origin = self.headers.get("Origin")
        if not self.endpoint.host_allowed(host):
            self._send(403, "text/plain; charset=utf-8", b"this server is not reached by that name\n")
            return False
        site = self.headers.get("Sec-Fetch-Site")
        if (origin is not None and origin != f"http://{host}") or site not in (None, "same-origin", "none"):
            self._send(403, "text/plain; charset=utf-8", b"cross-origin requests are refused\n")
            return False
        return True

    def _query(self, params: Mapping[str, list[str]]) -> None:
        if "update" in params:
            self._send(403, "text/plain; charset=utf-8", b"this endpoint is read-only\n")
            return
        if "default-graph-uri" in params or "named-graph-uri" in params:
            self._send(400, "text/plain; charset=utf-8", b"default-graph-uri and named-graph-uri are not taken: every graph is the default graph\n")
            return
        texts = params.get("query", [])
        if len(texts) != 1:
            self._send(400, "text/plain; charset=utf-8", b"give one query parameter\n")
            return
        status, kind, body = self.endpoint.answer(texts[0], self.headers.get("Accept") or "")
        self._send(status, kind, body)

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in _HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
