"""SPARQL 1.1 stores: the embedded pyoxigraph store and remote endpoints behind one small interface.

    Backend.select(query, **bindings) -> list[dict[str, term]]
    Backend.ask(query, **bindings)    -> bool
    Backend.update(text, **bindings)  -> None
    Backend.insert(quads) / delete(quads) / load(quads) -> int
    Backend.count(prefix) -> int      quads in the named graphs whose IRI starts with prefix
    Backend.dump(prefix) -> list[Quad]

Remote endpoints are named by a data source name (see `Endpoint.parse`):

    oxigraph+http://127.0.0.1:7878            Oxigraph server: /query, /update, /store
    virtuoso+http://127.0.0.1:8890            Virtuoso 7: /sparql, /sparql-graph-crud
        ?isql=127.0.0.1:1111&load-dir=/abs/dir&password-file=/abs/file   bulk loads through isql (local server)
    sparql+http://host/path?update=URL&gsp=URL  any other SPARQL 1.1 endpoint

Queries and updates are form POSTs over httpx (Virtuoso hangs on an
`application/sparql-query` body); bulk loads use the Graph Store Protocol over httpx, or
Virtuoso's loader. A reply is untrusted input: no redirect is followed (a 3xx is a RemoteError naming
its status and the Location's host), every reply body is capped at `max_bytes` (decoded bytes: identity is
asked for, and a reply gzip- or deflate-encoded anyway is inflated a bounded piece at a time by
core.bounds.read_body), every request but a bulk load held to one deadline, `timeout` seconds from its
start (a bulk load, upload and reply, has none: each of its socket operations waits at most `timeout`)
(env SEMANTIC_RDF_REMOTE_MAX_BYTES / SEMANTIC_RDF_REMOTE_TIMEOUT), the shape of SPARQL JSON is checked in
one place (`_sparql_json`), and no error message quotes a reply body (its content type and length
instead). Nothing is ever pasted into query text: every value is a pyoxigraph term
(IRIs validated by constructing a NamedNode) serialised in its escaped N-Triples form, and
bindings are substituted token by token (SEP-0007 semantics, the same as pyoxigraph's
`substitutions=`: the variable becomes the term everywhere, `BOUND(?v)` becomes true and the
projection still returns ?v), then the result is parsed locally before it is sent.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from datetime import datetime
from typing import Any, Iterable, Iterator, Mapping, Protocol, Sequence, TypeVar
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pyoxigraph as ox

from semantic_rdf.rdf.queries import bind as _bind_terms
from semantic_rdf.core.errors import InvalidInput, PathTooDeep, RemoteError, TruncatedResult

__all__ = [
    "Endpoint",
    "Backend",
    "EmbeddedBackend",
    "RemoteBackend",
    "RemoteError",
    "TruncatedResult",
    "PathTooDeep",
    "ClosurePath",
    "closure_paths",
    "term",
    "to_term",
    "bind",
    "canonical",
    "canonical_rows",
    "NS_PREFIX",
    "open_backend",
]

Term = ox.NamedNode | ox.Literal | ox.BlankNode
_Sendable = ox.NamedNode | ox.Literal  # a term that can go back to a server in query text (no blank node)
_K = TypeVar("_K", bound=Term)
NS_PREFIX = "https://w3id.org/semantic-rdf/"
XSD = "http://www.w3.org/2001/XMLSchema#"
FLAVOURS = ("oxigraph", "virtuoso", "generic")


# ----------------------------------------------------------------------------------------------
# terms


def to_term(v: Any) -> Term:
    """A pyoxigraph term from a term, or from a Python value (str -> xsd:string literal, int, float, bool, datetime)."""
    if isinstance(v, (ox.NamedNode, ox.Literal, ox.BlankNode)):
        return v
    if isinstance(v, bool):
        return ox.Literal("true" if v else "false", datatype=ox.NamedNode(XSD + "boolean"))
    if isinstance(v, int):
        return ox.Literal(str(v), datatype=ox.NamedNode(XSD + "integer"))
    if isinstance(v, float):
        return ox.Literal(repr(v), datatype=ox.NamedNode(XSD + "double"))
    if isinstance(v, Decimal):
        return ox.Literal(str(v), datatype=ox.NamedNode(XSD + "decimal"))
    if isinstance(v, datetime):
        if v.tzinfo is None:
            raise InvalidInput(f"instant {v.isoformat()} has no time zone")
        return ox.Literal(v.isoformat(), datatype=ox.NamedNode(XSD + "dateTime"))
    if isinstance(v, str):
        return ox.Literal(v)
    raise InvalidInput(f"cannot make an RDF term from {type(v).__name__}")


def iri(value: str) -> ox.NamedNode:
    """A validated IRI (pyoxigraph refuses anything that is not an absolute IRI)."""
    try:
        return ox.NamedNode(value)
    except (ValueError, TypeError) as exc:
        raise InvalidInput(f"not an IRI: {value!r} ({exc})") from None


def term(t: Any) -> str:
    """The escaped SPARQL/N-Triples form of a term. Blank nodes are refused: their labels do not cross requests."""
    t = to_term(t)
    if isinstance(t, ox.BlankNode):
        raise InvalidInput("blank nodes cannot be sent to a remote store (skolemise them first)")
    return str(t)


def bind(query: str, bindings: Mapping[str, Any]) -> str:
    """The query with each bound variable replaced by its escaped term (see semantic_rdf.rdf.queries.bind)."""
    terms = {k: (None if v is None else to_term(v)) for k, v in bindings.items()}
    return _bind_terms(query, terms)  # type: ignore[arg-type]  # it refuses a blank node (InvalidInput)


def _parse_check(text: str, update: bool = False) -> None:
    """Refuse text that is not SPARQL 1.1 before it leaves the process."""
    try:
        if update:
            ox.Store().update(text)
        else:
            ox.Store().query(text)
    except SyntaxError as exc:
        raise InvalidInput(f"not valid SPARQL 1.1: {exc}") from None


def from_json_binding(b: Mapping[str, Any]) -> Term:
    """The term of one SPARQL JSON binding; RemoteError (never quoting it) when it makes none."""
    kind = b.get("type")
    value = b.get("value", "")
    try:
        if not isinstance(value, str):
            raise TypeError
        if kind == "uri":
            return ox.NamedNode(value)
        if kind == "bnode":
            return ox.BlankNode(value)
        if kind in ("literal", "typed-literal"):
            if "xml:lang" in b:
                return ox.Literal(value, language=b["xml:lang"])
            if "datatype" in b:
                return ox.Literal(value, datatype=ox.NamedNode(b["datatype"]))
            return ox.Literal(value)
    except (ValueError, TypeError):
        pass
    raise RemoteError("the server answered a term that is not RDF (a bad type, IRI, language tag or value in its SPARQL JSON)")


def canonical(t: Term | None) -> Any:
    """A comparable value for a term: servers may re-spell numbers and instants (Virtuoso does)."""
    if not isinstance(t, ox.Literal):
        return None if t is None else ("iri" if isinstance(t, ox.NamedNode) else "bnode", t.value)
    dt = t.datatype.value
    try:
        if dt in (XSD + "integer", XSD + "decimal", XSD + "nonNegativeInteger", XSD + "int", XSD + "long"):
            return ("num", Decimal(t.value).normalize())
        if dt in (XSD + "double", XSD + "float"):
            return ("num", Decimal(repr(float(t.value))).normalize())
        if dt == XSD + "dateTime":
            return ("dateTime", datetime.fromisoformat(t.value.replace("Z", "+00:00")))
        if dt == XSD + "boolean":
            return ("bool", t.value in ("true", "1"))
    except (InvalidOperation, ValueError):
        pass
    return ("lit", t.value, t.language or dt)


def canonical_rows(rows: Iterable[Mapping[str, Term]]) -> list[tuple]:
    """Rows as sorted tuples of (variable, canonical value): what "the same answer" means across servers."""
    return sorted(tuple(sorted((k, canonical(v)) for k, v in r.items() if v is not None)) for r in rows)


# ----------------------------------------------------------------------------------------------
# the interface


class Backend(Protocol):
    def select(self, query: str, **bindings: Any) -> list[dict[str, Term]]: ...
    def ask(self, query: str, **bindings: Any) -> bool: ...
    def update(self, text: str, **bindings: Any) -> None: ...
    def insert(self, quads: Iterable[ox.Quad]) -> int: ...
    def delete(self, quads: Iterable[ox.Quad]) -> int: ...
    def load(self, quads: Iterable[ox.Quad] | bytes) -> int: ...
    def count(self, prefix: str = NS_PREFIX) -> int: ...
    def dump(self, prefix: str = NS_PREFIX) -> list[ox.Quad]: ...
    def drop(self, prefix: str) -> None: ...


_COUNT = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), ?prefix)) }"
_GRAPHS_AFTER = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), ?prefix) && STR(?g) > ?after) } ORDER BY STR(?g)"
_HOP = {  # one step along ?__p from the nodes bound to ?__x (VALUES added by temporal.bind_rows)
    (True, True): "SELECT DISTINCT ?__y WHERE { GRAPH ?__g { ?__x ?__p ?__y } }",
    (True, False): "SELECT DISTINCT ?__y WHERE { GRAPH ?__g { ?__y ?__p ?__x } }",
    (False, True): "SELECT DISTINCT ?__y WHERE { ?__x ?__p ?__y }",
    (False, False): "SELECT DISTINCT ?__y WHERE { ?__y ?__p ?__x }",
}
_EDGES = {True: "SELECT ?__x ?__y WHERE { GRAPH ?__g { ?__x ?__p ?__y } }", False: "SELECT ?__x ?__y WHERE { ?__x ?__p ?__y }"}
_IS_NODE = {True: "ASK { GRAPH ?__g { { ?__t ?__p ?__o } UNION { ?__s ?__p ?__t } } }", False: "ASK { { ?__t ?__p ?__o } UNION { ?__s ?__p ?__t } }"}
_IS_NODE_LITERAL = {True: "ASK { GRAPH ?__g { ?__s ?__p ?__t } }", False: "ASK { ?__s ?__p ?__t }"}
_GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), ?prefix)) } ORDER BY ?g"
# dumps from a capped server (VALUES blocks added by temporal.bind_rows)
_GRAPH_SIZES = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
_QUADS_OF_GRAPHS = "SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }"
_QUADS_OF_SUBJECTS = "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }"
_SUBJECT_SIZES_AFTER = "SELECT ?s (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STR(?s) > ?after) } GROUP BY ?s ORDER BY STR(?s)"


def _runs(keys: Sequence[_K], sizes: Mapping[Term, int], page: int, most: int) -> Iterator[list[_K]]:
    """Consecutive keys grouped so that each group holds at most `page` rows and `most` keys; a key
    larger than a page comes alone."""
    run: list[_K] = []
    rows = 0
    for k in keys:
        n = sizes.get(k, 0)
        if run and (rows + n > page or len(run) >= most):
            yield run
            run, rows = [], 0
        run.append(k)
        rows += n
    if run:
        yield run


def _check_quads(quads: Iterable[ox.Quad]) -> list[ox.Quad]:
    out = []
    for q in quads:
        if not isinstance(q, ox.Quad):
            raise InvalidInput(f"expected a pyoxigraph Quad, got {type(q).__name__}")
        if isinstance(q.graph_name, ox.DefaultGraph):
            raise InvalidInput("a quad in the default graph cannot be pushed (every graph is named here)")
        for t in (q.subject, q.object, q.graph_name):
            if isinstance(t, ox.BlankNode):
                raise InvalidInput("blank nodes cannot be sent to a remote store (skolemise them first)")
        out.append(q)
    return out


def _nquads(quads: Sequence[ox.Quad]) -> bytes:
    data = ox.serialize(quads, format=ox.RdfFormat.N_QUADS)
    assert data is not None  # given no output, serialize returns its bytes
    return data


def _data_block(quads: Sequence[ox.Quad]) -> str:
    """The body of INSERT DATA / DELETE DATA, one GRAPH block per graph."""
    by_graph: dict[str, list[str]] = {}
    for q in quads:
        by_graph.setdefault(str(q.graph_name), []).append(f"{q.subject} {q.predicate} {q.object} .")
    return " ".join(f"GRAPH {g} {{ {' '.join(lines)} }}" for g, lines in by_graph.items())


class EmbeddedBackend:
    """A pyoxigraph.Store behind the Backend interface (the reference the remote ones are held to)."""

    flavour = "embedded"

    def __init__(self, store: ox.Store | None = None):
        self._db = store if store is not None else ox.Store()

    # Bindings go through the same token substitution as the remote stores, so the three run the
    # same text (pyoxigraph's own substitutions= insists that the variable be projected).
    def select(self, query: str, **bindings: Any) -> list[dict[str, Term]]:
        try:
            res = self._db.query(bind(query, bindings))
        except SyntaxError as exc:
            raise InvalidInput(f"not valid SPARQL 1.1: {exc}") from None
        if not isinstance(res, ox.QuerySolutions):  # as a remote store answers an ASK given to select()
            raise InvalidInput("select() was given a query that is not SELECT")
        names = [v.value for v in res.variables]
        return [{n: sol[n] for n in names if sol[n] is not None} for sol in res]

    def ask(self, query: str, **bindings: Any) -> bool:
        try:
            return bool(self._db.query(bind(query, bindings)))
        except SyntaxError as exc:
            raise InvalidInput(f"not valid SPARQL 1.1: {exc}") from None

    def update(self, text: str, **bindings: Any) -> None:
        text = bind(text, bindings)
        try:
            self._db.update(text)
        except SyntaxError as exc:
            raise InvalidInput(f"not valid SPARQL 1.1: {exc}") from None

    def insert(self, quads: Iterable[ox.Quad]) -> int:
        qs = _check_quads(quads)
        self._db.extend(qs)
        return len(qs)

    def delete(self, quads: Iterable[ox.Quad]) -> int:
        qs = _check_quads(quads)
        for q in qs:
            self._db.remove(q)
        return len(qs)

    def load(self, quads: Iterable[ox.Quad] | bytes) -> int:
        if isinstance(quads, (bytes, bytearray)):
            quads = list(ox.parse(bytes(quads), format=ox.RdfFormat.N_QUADS))
        return self.insert(quads)

    def count(self, prefix: str = NS_PREFIX) -> int:
        return int(self.select(_COUNT, prefix=prefix)[0]["n"].value)

    def graphs(self, prefix: str = NS_PREFIX) -> list[str]:
        return [r["g"].value for r in self.select(_GRAPHS, prefix=prefix)]

    def dump(self, prefix: str = NS_PREFIX) -> list[ox.Quad]:
        return sorted((q for q in self._db if not isinstance(q.graph_name, ox.DefaultGraph) and q.graph_name.value.startswith(prefix)), key=str)

    def drop(self, prefix: str) -> None:
        for g in self.graphs(prefix):
            self._db.remove_graph(ox.NamedNode(g))

    def close(self) -> None:
        pass


# ----------------------------------------------------------------------------------------------
# remote endpoints


@dataclass(frozen=True)
class Endpoint:
    """Where a remote store answers, and which server it is (its quirks follow from the flavour)."""

    flavour: str
    query_url: str
    update_url: str
    gsp_url: str | None = None
    isql: str | None = None  # host:port of Virtuoso's SQL port, for bulk loads on the same machine
    load_dir: str | None = None  # a directory Virtuoso may read (DirsAllowed) that this process may write
    password_file: str | None = None  # the dba password is read from here when a load needs it, never held
    isql_user: str = "dba"
    batch: int = 1000  # quads per INSERT DATA
    page: int = 5000  # rows per request when a server caps result sets (Virtuoso: 10,000,
    # and an answer of exactly the cap is flagged as cut)
    streams: int = 2  # concurrent bulk-load requests to Oxigraph server

    @property
    def key(self) -> str:
        """A name for push state: the flavour and query URL, nothing secret."""
        return f"{self.flavour}:{self.query_url}"

    @classmethod
    def parse(cls, dsn: str) -> "Endpoint":
        if not isinstance(dsn, str) or "://" not in dsn:
            raise InvalidInput(f"not an endpoint name: {dsn!r}")
        parts = urlsplit(dsn)
        scheme = parts.scheme.lower()
        if parts.username or parts.password:  # checked before any probe: a name's userinfo is never sent
            raise InvalidInput("credentials do not belong in an endpoint name; use password-file=PATH")
        if scheme in ("http", "https") and parts.hostname:
            # a plain http(s) name: ask the server which one it is (oxigraph+/virtuoso+ stay for being explicit)
            return cls.parse(f"{detect_flavour(dsn)}+{dsn}")
        flavour, _, transport = scheme.partition("+")
        if transport not in ("http", "https"):
            raise InvalidInput(
                f"endpoint {dsn!r}: use http(s)://HOST:PORT, or oxigraph+http://, virtuoso+http:// or sparql+http:// (or +https) to name the server"
            )
        if flavour == "sparql":
            flavour = "generic"
        if flavour not in FLAVOURS:
            raise InvalidInput(f"endpoint {dsn!r}: unknown server flavour {flavour!r}")
        if parts.username or parts.password:
            raise InvalidInput("credentials do not belong in an endpoint name; use password-file=PATH")
        if not parts.hostname:
            raise InvalidInput(f"endpoint {dsn!r} names no host")
        params = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        unknown = set(params) - {"update", "gsp", "isql", "load-dir", "password-file", "batch", "page", "user", "streams"}
        if unknown:
            raise InvalidInput(f"endpoint {dsn!r}: unknown parameter(s) {sorted(unknown)}")
        base = urlunsplit((transport, parts.netloc, parts.path.rstrip("/"), "", ""))
        root = urlunsplit((transport, parts.netloc, "", "", ""))
        g: str | None
        if flavour == "oxigraph":
            q, u, g = root + "/query", root + "/update", root + "/store"
            batch = 1000
        elif flavour == "virtuoso":
            q = u = root + "/sparql"
            g = root + "/sparql-graph-crud"
            batch = 100  # faster than larger batches, and far below Virtuoso's SQL statement size limit
        else:
            q = base
            u = params.get("update") or base
            g = params.get("gsp")
            batch = 1000
        for path_param in ("load-dir", "password-file"):
            if path_param in params and not os.path.isabs(params[path_param]):
                raise InvalidInput(f"{path_param} must be an absolute path")
        try:
            batch = int(params.get("batch", batch))
            page = int(params.get("page", 5000))
            streams = int(params.get("streams", 2))
        except ValueError:
            raise InvalidInput("batch, page and streams must be integers") from None
        if not (1 <= batch <= 1000) or page < 1 or not (1 <= streams <= 16):
            raise InvalidInput("batch must be 1..1000, page positive and streams 1..16")
        return cls(
            flavour, q, u, g, params.get("isql"), params.get("load-dir"), params.get("password-file"), params.get("user", "dba"), batch, page, streams
        )


_SERVERS = (("oxigraph/", "oxigraph"), ("virtuoso/", "virtuoso"))


def detect_flavour(url: str, timeout: float = 10.0) -> str:
    """Which server answers at `url` ("oxigraph" or "virtuoso"), from the Server header of one GET of its
    root (both name themselves there, also on an error page); redirects are not followed, the body is
    never read, and the whole request has `timeout` seconds. Anything else is refused: a generic endpoint
    is named sparql+http://… with its update URL."""
    import httpx

    parts = urlsplit(url)
    root = urlunsplit((parts.scheme, parts.netloc, "/", "", ""))
    end = time.monotonic() + timeout
    try:
        with httpx.Client(transport=_deadline_transport(lambda: end), timeout=timeout, follow_redirects=False, trust_env=False) as client:
            with client.stream("GET", root) as reply:
                server = reply.headers.get("server", "")
    except httpx.HTTPError as exc:
        raise InvalidInput(
            f"endpoint {url!r}: cannot ask the server which it is ({type(exc).__name__}); "
            "name it oxigraph+http://, virtuoso+http:// or sparql+http://"
        ) from None
    low = server.lower()
    for mark, flavour in _SERVERS:
        if low.startswith(mark):
            return flavour
    raise InvalidInput(
        f"endpoint {url!r}: the server says it is {server[:60]!r}, neither Oxigraph nor Virtuoso; "
        "name a generic endpoint sparql+http://HOST/PATH?update=URL"
    )


BLOCK = 1 << 22  # bytes of N-Quads per streamed block

# What one reply may cost. The byte cap must admit the store's own export in one Graph Store GET (an
# Oxigraph pull): hundreds of MB for a large store, so 1 GiB; a SPARQL JSON page is far smaller. The
# deadline is for one whole request (connect, headers, every body byte): a bulk load is exempt, its
# upload and the server's reply both (it lasts as long as the store is large; each socket operation
# still waits at most `timeout`), its reply is not capped less.
ENV_MAX_BYTES = "SEMANTIC_RDF_REMOTE_MAX_BYTES"
ENV_TIMEOUT = "SEMANTIC_RDF_REMOTE_TIMEOUT"
DEFAULT_MAX_BYTES = 1 << 30
DEFAULT_TIMEOUT = 300.0
_ERROR_BODY = 1 << 16  # bytes of an error reply read, to say how long it is (never what it says)
_ACCEPT_JSON = "application/sparql-results+json,application/json,text/javascript,application/javascript"


MAX_TIMEOUT = 86_400.0  # the longest deadline accepted: a day (as store.assertions.MAX_WAIT); socket timeouts overflow near 1e10 s


def _limit(value: float | int | None, env: str, conv: type, default: float | int, name: str) -> Any:
    """An explicit limit, else the environment's, else the default; InvalidInput (one line) unless a positive
    finite number, a whole one for a byte count (`1e9` is one), at most MAX_TIMEOUT for a number of seconds."""
    source, got = name, ""
    if value is None:
        raw = os.environ.get(env, "").strip()
        if not raw:
            return default
        source = f"{env}={raw[:40]!r}"
        try:
            value = int(raw)
        except ValueError:
            try:
                value = float(raw)
            except ValueError:
                raise InvalidInput(f"{source} is not a number") from None
    else:
        got = f", got {value!r}"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value == float("inf"):
        raise InvalidInput(f"{source} must be a positive number{got}")
    if conv is int:
        if value != int(value):
            raise InvalidInput(f"{source} must be a whole number of bytes{got}")
        return int(value)
    if value > MAX_TIMEOUT:
        raise InvalidInput(f"{source} must be at most {MAX_TIMEOUT:,.0f} seconds (a day){got}")
    return conv(value)


def _deadline_transport(deadline):
    """An httpx transport whose every socket operation waits at most until `deadline()` (see
    core.bounds.deadline_backend, the ingest fetcher's whole-fetch deadline), any host, keep-alive kept."""
    import httpcore
    import httpx

    from semantic_rdf.core.bounds import deadline_backend

    transport = httpx.HTTPTransport(trust_env=False)
    transport._pool = httpcore.ConnectionPool(  # httpx's own pool, with the deadline's network backend
        ssl_context=httpx.create_ssl_context(trust_env=False),
        max_connections=100,
        max_keepalive_connections=20,
        keepalive_expiry=5.0,
        network_backend=deadline_backend(deadline),
    )
    return transport


def _described(content_type: str, size: int | str) -> str:
    """A reply as an error message may name it: its content type and length, never its text."""
    ctype = " ".join(content_type.split())[:80] or "no content type"
    return f"{ctype}, {size} bytes"


def _sparql_json(body: bytes, content_type: str, who: str) -> dict[str, Any]:
    """The SPARQL JSON results in a reply, their shape checked (the one place): an object with a boolean
    "boolean", or with "head" {"vars": [str, …]} and "results" {"bindings": [{var: {…}, …}, …]}. Anything
    else is RemoteError, quoting nothing of it."""

    def bad(what: str) -> RemoteError:
        return RemoteError(f"{who} answered {what}, not SPARQL JSON results ({_described(content_type, len(body))})")

    try:
        data = json.loads(body)
    except RecursionError:
        raise bad("JSON nested too deep") from None
    except ValueError:  # not JSON, or not UTF-8
        raise bad("something other than JSON") from None
    if not isinstance(data, dict):
        raise bad(f"a JSON {type(data).__name__}")
    if "boolean" in data:
        if not isinstance(data["boolean"], bool):
            raise bad('a "boolean" that is not true or false')
        return data
    head, results = data.get("head"), data.get("results")
    if not isinstance(head, dict):
        raise bad('JSON without a "head" object')
    names = head.get("vars", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise bad('a "head" whose "vars" are not a list of names')
    if not isinstance(results, dict) or not isinstance(results.get("bindings"), list):
        raise bad('JSON without a "results" object holding a "bindings" list')
    for row in results["bindings"]:
        if not isinstance(row, dict) or not all(isinstance(b, dict) for b in row.values()):
            raise bad("a binding that is not an object of terms")
    return data


def _cell(row: Mapping[str, Term], name: str, who: str) -> Term:
    """One value of a result row the caller's query always binds; RemoteError when the server left it out."""
    t = row.get(name)
    if t is None:
        raise RemoteError(f"{who} answered a row without ?{name}")
    return t


def _count_of(rows: Sequence[Mapping[str, Term]], who: str, name: str = "n") -> int:
    """The count in the first row (a COUNT query's one row); RemoteError unless it is a plain number."""
    if not rows:
        raise RemoteError(f"{who} answered no row to a count")
    return _number(_cell(rows[0], name, who), who)


def _number(t: Term, who: str) -> int:
    v = t.value.strip() if isinstance(t, ox.Literal) else ""
    if not re.fullmatch(r"\+?[0-9]{1,19}", v):
        raise RemoteError(f"{who} answered a count that is not a number")
    return int(v)


class _Budget:
    """Bytes a paged dump may hold (the graph and subject listings and the quads), against max_bytes: a
    listing that goes on advancing for ever stops too."""

    def __init__(self, limit: int, who: str):
        self.limit, self.who, self.held = limit, who, 0

    def take(self, n: int) -> None:
        self.held += n
        if self.held > self.limit:
            raise RemoteError(f"{self.who}: the dump passed the cap of {self.limit} bytes ({ENV_MAX_BYTES} raises it)")


def line_blocks(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The bytes of `chunks` again, cut at line ends: every block holds whole lines only."""
    rest = b""
    for chunk in chunks:
        buf = rest + chunk if rest else chunk
        cut = buf.rfind(b"\n") + 1
        if cut:
            yield buf[:cut]
        rest = buf[cut:]
    if rest:
        yield rest + b"\n"


# Bytes of N-Quads per file handed to Virtuoso's loader (about 50,000 quads). All the same size: with parts
# doubling from 8 to 64 MB the loader sat idle while each bigger part was written, and the last one was
# left to load after the export (docs/stores.md has the figures).
VIRTUOSO_PART = 1 << 23


def split_lines(data: bytes) -> list[bytes]:
    """The lines of N-Quads text, without their newlines (no empty last line for a final newline)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def sorted_parts(blocks: Iterable[bytes], size: int) -> Iterator[bytes]:
    """The lines of `blocks` (whole N-Quads lines each) again, in parts of at least `size` bytes (the last
    one may be smaller), each part's lines sorted bytewise. Oxigraph exports in the order of its hashed term
    ids, so every new IRI would land at a random place in Virtuoso's indexes; in IRI order its loader does
    less work and slows down much less on a busy machine (docs/stores.md has the figures)."""
    lines: list[bytes] = []
    held = 0
    for block in blocks:
        if not block:
            continue
        lines.extend(split_lines(block))
        held += len(block)
        if held >= size:
            yield _joined_sorted(lines)
            lines, held = [], 0
    if lines:
        yield _joined_sorted(lines)


def _joined_sorted(lines: list[bytes]) -> bytes:
    lines.sort()
    lines.append(b"")
    return b"\n".join(lines)


class _VirtuosoStream:
    """N-Quads blocks loaded by Virtuoso's bulk loader while they are still coming (see load_blocks).

    The blocks are written to files in the load directory (`sorted_parts`: sorted, `part` bytes
    each); as soon as one is complete, one isql session (it runs its statements as they arrive on its standard input) is told
    to register it (ld_dir) and load it (rdf_loader_run), while the next file is written. One
    checkpoint at the end, then every file must be in the load list as loaded without error. When
    the blocks fail (a refused blank node), what was handed over is still loaded before this raises,
    so the caller's drop afterwards leaves nothing behind. The files are removed in every case.
    (Two sessions side by side, each running rdf_loader_run, left files unloaded: one session.)"""

    def __init__(self, argv: list[str], load_dir: str, timeout: float, part: int | None = None):
        self.argv, self.load_dir, self.timeout = argv, load_dir, timeout
        self.part = part or VIRTUOSO_PART
        self.stem = uuid.uuid4().hex[:24]  # the part files: semantic-rdf-<stem><8 hex>.nq (staging_path's form)
        self.names: list[str] = []

    def run(self, blocks: Iterable[bytes]) -> int:
        import tempfile

        with tempfile.TemporaryFile() as log:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, text=True)
            try:
                lines = self._write(blocks, proc)
                self._say(proc, "checkpoint;\n" + self._check_sql())
            finally:  # also when `blocks` raised: let isql load what it was given, then clean up
                self._say(proc, self._forget_sql())
                self._finish(proc)
                for name in self.names:
                    path = os.path.join(self.load_dir, name)
                    if os.path.exists(path):
                        os.unlink(path)
            log.seek(0)
            text = log.read().decode("utf-8", "replace")
        if "*** Error" in text or proc.returncode != 0:
            raise RemoteError(f"Virtuoso loader failed: {' '.join(text.split())[-400:]}")
        m = re.search(r"^loaded\s+(\d+)\s*$", text, re.MULTILINE)
        if not m or int(m.group(1)) != len(self.names):
            raise RemoteError(f"Virtuoso loader did not finish every file: {' '.join(text.split())[-400:]}")
        return lines

    def _write(self, blocks: Iterable[bytes], proc: subprocess.Popen) -> int:
        lines = 0
        for part in sorted_parts(blocks, self.part):
            self.names.append(f"semantic-rdf-{self.stem}{len(self.names):08x}.nq")
            with open(os.path.join(self.load_dir, self.names[-1]), "wb") as f:
                f.write(part)
            lines += part.count(b"\n")
            self._load(proc, self.names[-1])
        return lines

    def _load(self, proc: subprocess.Popen, name: str) -> None:
        d = self.load_dir.replace("'", "''")
        self._say(proc, f"ld_dir('{d}', '{name}', '{NS_PREFIX}graph/default');\nrdf_loader_run();\n")

    def _forget_sql(self) -> str:
        return f"DELETE FROM DB.DBA.load_list WHERE ll_file LIKE '%semantic-rdf-{self.stem}%';\n"

    def _check_sql(self) -> str:
        return (
            f"SELECT 'loaded', COUNT(*) FROM DB.DBA.load_list WHERE ll_file LIKE '%semantic-rdf-{self.stem}%'"
            " AND ll_state = 2 AND ll_error IS NULL;\n"
        )

    @staticmethod
    def _say(proc: subprocess.Popen, sql: str) -> None:
        if proc.stdin is None or proc.stdin.closed:
            return
        try:
            proc.stdin.write(sql)
            proc.stdin.flush()
        except BrokenPipeError:  # isql has gone (refused login, server down): its output says why
            pass

    def _finish(self, proc: subprocess.Popen) -> None:
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise RemoteError("Virtuoso loader did not finish in time") from None


class _StreamedLoad:
    """Blocks shared out to n concurrent chunked POSTs of one URL (see RemoteBackend.load_blocks).

    The requests take blocks from one queue, each when its connection is ready for more: a request
    the server has stopped reading (an in-memory Oxigraph runs concurrent loads one after the other)
    is left alone while the others take the rest, where dealing blocks round robin would deadlock."""

    depth = 4  # blocks queued per request: bounds what is held in memory

    def __init__(self, request, url: str, params: Mapping[str, str], n: int):
        self.request, self.url, self.params, self.n = request, url, dict(params), n
        self.queue: queue.Queue = queue.Queue(self.depth * n)
        self.failed = threading.Event()
        self.errors: list[str] = []

    def run(self, blocks: Iterable[bytes]) -> int:
        threads = [threading.Thread(target=self._send, daemon=True) for _ in range(self.n)]
        for t in threads:
            t.start()
        lines = 0
        try:
            for block in blocks:
                if not self._put(block):
                    break
                lines += block.count(b"\n")
        finally:  # also when `blocks` raises: end every request, then let the caller clean up
            for _ in threads:
                self._put(None)
            for t in threads:
                t.join()
        if self.errors:
            raise RemoteError(f"oxigraph bulk load failed: {self.errors[0]}")
        return lines

    def _put(self, item: bytes | None) -> bool:
        """Queue `item` unless a request has failed (then nothing is sent any more)."""
        while True:
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                if self.failed.is_set():
                    return False

    def _send(self) -> None:
        def body() -> Iterator[bytes]:
            while True:
                try:
                    block = self.queue.get(timeout=0.1)
                except queue.Empty:
                    if self.failed.is_set():  # another request failed: end this one
                        return
                    continue
                if block is None:
                    return
                yield block

        try:  # no deadline: the upload lasts as long as the store is large
            self.request(
                "POST", self.url, "bulk load", deadline=False, params=self.params, content=body(), headers={"Content-Type": "application/n-quads"}
            )
        except RemoteError as exc:  # refused, or the connection went (the server refused the body, or stopped)
            self._fail(str(exc))

    def _fail(self, message: str) -> None:
        self.errors.append(message)
        self.failed.set()


class RemoteBackend:
    """A SPARQL 1.1 endpoint behind the Backend interface."""

    def __init__(self, endpoint: Endpoint | str, timeout: float | None = None, max_bytes: int | None = None):
        """`timeout`: seconds one whole request may take (default SEMANTIC_RDF_REMOTE_TIMEOUT, else 300);
        `max_bytes`: bytes one reply, or one paged dump, may hold (SEMANTIC_RDF_REMOTE_MAX_BYTES, else 1 GiB)."""
        import httpx

        self.endpoint = Endpoint.parse(endpoint) if isinstance(endpoint, str) else endpoint
        self.flavour = self.endpoint.flavour
        self.timeout = float(_limit(timeout, ENV_TIMEOUT, float, DEFAULT_TIMEOUT, "timeout"))
        self.max_bytes = int(_limit(max_bytes, ENV_MAX_BYTES, int, DEFAULT_MAX_BYTES, "max_bytes"))
        self._deadline = threading.local()  # the deadline of the request this thread is making
        self._http = httpx.Client(
            transport=_deadline_transport(lambda: getattr(self._deadline, "at", None)),
            timeout=self.timeout,
            trust_env=False,
            follow_redirects=False,
            headers={"Accept-Encoding": "identity"},  # as SPARQLWrapper asked: replies are read as they come
        )

    def close(self) -> None:
        self._http.close()

    # every request ----------------------------------------------------------------------------
    def _request(self, method: str, url: str, what: str, *, deadline: bool = True, **kw: Any) -> tuple[bytes, Mapping[str, str]]:
        """One request and its whole reply body, or RemoteError: for a redirect (never followed: its status
        and the Location's host are named, nothing else), for an error status (its content type and length,
        never its text), for a body over `max_bytes` (decoded bytes, see core.bounds.read_body), or for a
        request not done within `timeout` seconds (every socket operation waits at most until then;
        `deadline=False`, for a bulk load, drops that deadline for the whole request, upload and reply:
        each socket operation then waits at most `timeout` seconds)."""
        import httpx

        from semantic_rdf.core.bounds import read_body

        who = f"{self.flavour} endpoint ({what})"
        if deadline:
            self._deadline.at = time.monotonic() + self.timeout
        try:
            with self._http.stream(method, url, **kw) as r:
                ctype = r.headers.get("content-type", "")
                if 300 <= r.status_code < 400:
                    try:
                        host = urlsplit(r.headers.get("location", "")).hostname
                    except ValueError:
                        host = None
                    to = f" to host {host[:80]!r}" if host else ""
                    raise RemoteError(f"{who} answered HTTP {r.status_code}, a redirect{to}: redirects are not followed")
                if not 200 <= r.status_code < 300:
                    raise RemoteError(f"{who} failed: HTTP {r.status_code} ({_described(ctype, self._length(r))})")
                declared = r.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > self.max_bytes:
                    raise RemoteError(f"{who}: a reply of {declared} bytes is over the cap of {self.max_bytes} ({ENV_MAX_BYTES} raises it)")
                body = read_body(  # raw: a Content-Encoding sent although identity was asked for is decoded there, bounded
                    r.iter_raw(),
                    r.headers.get("content-encoding", ""),
                    self.max_bytes,
                    self._deadline.at if deadline else None,
                    too_big=lambda: RemoteError(f"{who}: the reply passed the cap of {self.max_bytes} bytes ({ENV_MAX_BYTES} raises it)"),
                    too_late=lambda: httpx.ReadTimeout("the whole request passed its deadline"),
                    refused=lambda why: RemoteError(f"{who}: {why}"),
                )
                return body, r.headers
        except httpx.TimeoutException:
            limit = f"within {self.timeout:g} s ({ENV_TIMEOUT} raises it)" if deadline else "in time"
            raise RemoteError(f"{who} did not answer {limit}") from None
        except httpx.InvalidURL as exc:
            raise RemoteError(f"{who}: bad URL ({exc})") from None
        except (httpx.HTTPError, OSError) as exc:
            raise RemoteError(f"{who}: {urlsplit(url).netloc} unreachable or the connection failed ({type(exc).__name__})") from None
        finally:
            if deadline:
                self._deadline.at = None

    def _length(self, r) -> str:
        """How long an error reply is on the wire, reading at most _ERROR_BODY bytes of it (never decoded)."""
        n = 0
        for piece in r.iter_raw():
            n += len(piece)
            if n > _ERROR_BODY:
                return f"more than {_ERROR_BODY}"
        return str(n)

    # query and update -----------------------------------------------------------------------
    def _results(self, query: str, bindings: Mapping[str, Any]) -> dict:
        text = bind(query, bindings)
        _parse_check(text)
        if self.flavour == "virtuoso":
            text = self._evaluate_closures(text)
        # a form POST: Virtuoso never answers an application/sparql-query body; the format fields are
        # those SPARQLWrapper sent (Virtuoso reads `format`)
        body, headers = self._request(
            "POST",
            self.endpoint.query_url,
            "query",
            data={"query": text, "format": "json", "output": "json", "results": "json"},
            headers={"Accept": _ACCEPT_JSON},
        )
        data = _sparql_json(body, headers.get("content-type", ""), f"{self.flavour} endpoint")
        cap = headers.get("x-sparql-maxrows", "").strip()
        if cap.isdigit() and "results" in data and len(data["results"]["bindings"]) >= int(cap):
            raise TruncatedResult(f"the server capped the answer at {int(cap)} rows (raise ResultSetMaxRows, or page with LIMIT/OFFSET)")
        return data

    def select(self, query: str, **bindings: Any) -> list[dict[str, Term]]:
        data = self._results(query, bindings)
        if "boolean" in data:
            raise InvalidInput("select() was given an ASK query")
        names = data["head"].get("vars", [])
        if self.flavour == "virtuoso" and names == ["_star_fake"]:
            names = []  # Virtuoso's stand-in column for SELECT * over no variables
        return [{n: from_json_binding(b[n]) for n in names if n in b} for b in data["results"]["bindings"]]

    def ask(self, query: str, **bindings: Any) -> bool:
        data = self._results(query, bindings)
        if "boolean" not in data:
            raise InvalidInput("ask() was given a query that is not ASK")
        return data["boolean"]

    def update(self, text: str, **bindings: Any) -> None:
        text = bind(text, bindings)
        _parse_check(text, update=True)
        self._post_update(text)

    def select_paged(self, query: str, order: str, **bindings: Any) -> Iterator[dict[str, Term]]:
        """Rows of a SELECT with no solution modifiers: in one request when the server sends them all, else a
        page at a time in a total order (Virtuoso refuses OFFSET past MaxSortedTopRows, an error, not a gap)."""
        try:
            yield from self.select(query, **bindings)
            return
        except TruncatedResult:
            pass
        size = self.endpoint.page
        offset = 0
        while True:
            rows = self.select(f"{query} ORDER BY {order} LIMIT {size} OFFSET {offset}", **bindings)
            yield from rows
            if len(rows) < size:
                return
            offset += size

    # transitive paths, evaluated here for Virtuoso --------------------------------------------
    # Virtuoso 7.2 gets `P*` / `P+` wrong: with neither end bound it refuses the query ("TR…: transitive
    # derived table"), a start bound through VALUES is refused ("transitive start not given"), and with a
    # constant start it returns a node once per path that reaches it (a diamond gives duplicate rows; SPARQL
    # 1.1 says distinct) and drops the start of `P+` when a cycle leads back to it. So for Virtuoso each
    # `S P* O` / `S P+ O` triple pattern with one IRI as P (see closure_paths) is replaced, before the query
    # is sent, by the closure computed here from one-hop queries (breadth first, at most `path_depth` steps)
    # and written as a VALUES block of escaped terms.
    # An empty one-variable VALUES block (or a lone FILTER(false)) makes Virtuoso's planner estimate days
    # for the rest of the group and refuse it, hence _NO_ROWS: one row that can never exist, filtered out.
    path_depth = 256  # breadth-first steps before PathTooDeep
    path_frontier = 200  # nodes per one-hop request

    def _evaluate_closures(self, text: str) -> str:
        paths = closure_paths(text)
        if not paths:
            return text
        out, pos = [], 0
        for n, cp in enumerate(paths):
            out.append(text[pos : cp.start])
            out.append(self._closure_pattern(cp, n))
            pos = cp.end
        out.append(text[pos:])
        rewritten = "".join(out)
        _parse_check(rewritten)
        return rewritten

    def _one_hop(self, cp: "ClosurePath", nodes: Sequence[_Sendable], forward: bool) -> set[_Sendable]:
        """The nodes one step from `nodes` along cp's predicate (backwards unless forward), in cp's graph."""
        from semantic_rdf.lifecycle.temporal import bind_rows

        found: set[Term] = set()
        # a literal has no outgoing edge; it may have incoming ones
        nodes = [t for t in nodes if not (forward and isinstance(t, ox.Literal))]
        template = _HOP[(cp.graph is not None, forward)]
        for i in range(0, len(nodes), self.path_frontier):
            q = bind_rows(template, ["__x"], [[t] for t in nodes[i : i + self.path_frontier]])
            found.update(r["__y"] for r in self.select_paged(q, "?__y", **cp.bindings))
        return set(_no_blank(found))

    def _reach(self, cp: "ClosurePath", start: ox.NamedNode, forward: bool) -> set[_Sendable]:
        """Nodes reachable from `start` in one or more steps (start itself only through a cycle)."""
        reached: set[_Sendable] = set()
        expanded: set[_Sendable] = {start}
        frontier: list[_Sendable] = [start]
        for _ in range(self.path_depth):
            nxt = self._one_hop(cp, frontier, forward)
            reached |= nxt
            frontier = sorted((t for t in nxt if t not in expanded), key=str)
            if not frontier:
                return reached
            expanded.update(frontier)
        raise PathTooDeep(f"{cp.pred}{cp.mod} from {start} did not close within {self.path_depth} steps")

    def _all_pairs(self, cp: "ClosurePath") -> set[tuple[Term, Term]]:
        """Every (x, y) with y reachable from x in one or more steps: the edges fetched once, closed here."""
        succ: dict[Term, set[Term]] = {}
        for r in self.select_paged(_EDGES[cp.graph is not None], "?__x ?__y", **cp.bindings):
            succ.setdefault(r["__x"], set()).add(r["__y"])
        _no_blank(succ)
        _no_blank(y for ys in succ.values() for y in ys)
        pairs: set[tuple[Term, Term]] = set()
        for x in succ:
            seen: set[Term] = set()
            frontier: set[Term] = {x}
            for _ in range(self.path_depth):
                frontier = {y for f in frontier for y in succ.get(f, ())} - seen
                if not frontier:
                    break
                seen |= frontier
            else:
                raise PathTooDeep(f"{cp.pred}{cp.mod} from {x} did not close within {self.path_depth} steps")
            pairs.update((x, y) for y in seen)
        return pairs

    def _closure_pattern(self, cp: "ClosurePath", n: int) -> str:
        """The group pattern that replaces `cp`, joined where the triple pattern was.

        Each VALUES block sits in a sub-SELECT of its own: Virtuoso drops a bare VALUES branch of a UNION."""
        s_var, o_var = cp.subject.startswith(("?", "$")), cp.object.startswith(("?", "$"))
        if not (s_var and o_var):
            if s_var:  # only the object is fixed: walk backwards from it
                start, forward, var = cp.object_term, False, cp.subject
            else:
                start, forward, var = cp.subject_term, True, cp.object
            ends = self._reach(cp, start, forward)
            if cp.mod == "*" and (ends or self._is_node(cp, start)):
                ends.add(start)  # zero steps: the end itself, when it is a node of the active graph
            if not (s_var or o_var):
                return "{}" if cp.object_term in ends else _NO_ROWS.format(var=f"?__none{n}")
            if not ends:
                return _NO_ROWS.format(var=var)
            return f"{{ SELECT {var} WHERE {{ VALUES {var} {{ {' '.join(term(t) for t in sorted(ends, key=str))} }} }} }}"
        pairs = sorted(self._all_pairs(cp), key=lambda p: (str(p[0]), str(p[1])))
        both = f"{cp.subject} {cp.object}"
        if cp.mod == "+":
            rows = " ".join(f"({term(x)} {term(y)})" for x, y in pairs)
            return f"{{ SELECT {both} WHERE {{ VALUES ({both}) {{ {rows} }} }} }}"
        # zero or more steps with both ends free: the zero-length pairs are every node of the active graph
        rows = " ".join(f"({term(x)} {term(y)})" for x, y in pairs if x != y)
        zp, zs, zo = f"?__zp{n}", f"?__zs{n}", f"?__zo{n}"
        nodes = f"{{ {cp.subject} {zp} {zo} }} UNION {{ {zs} {zp} {cp.subject} }}"
        return (
            f"{{ {{ SELECT {both} WHERE {{ VALUES ({both}) {{ {rows} }} }} }} UNION "
            f"{{ SELECT DISTINCT {cp.subject} ({cp.subject} AS {cp.object}) WHERE {{ {nodes} }} }} }}"
        )

    def _is_node(self, cp: "ClosurePath", t: Term) -> bool:
        """Whether `t` is the subject or object of some triple in cp's graph (Oxigraph's zero-length rule): of
        any predicate, not only the path's (a tombstone has no prov:wasDerivedFrom, yet `trace-nodes` from it
        returns it)."""
        template = (_IS_NODE_LITERAL if isinstance(t, ox.Literal) else _IS_NODE)[cp.graph is not None]
        return self.ask(template, __t=t, **{k: v for k, v in cp.bindings.items() if k != "__p"})

    # writes ---------------------------------------------------------------------------------
    def insert(self, quads: Iterable[ox.Quad]) -> int:
        return self._data("INSERT", _check_quads(quads))

    def delete(self, quads: Iterable[ox.Quad]) -> int:
        return self._data("DELETE", _check_quads(quads))

    def _data(self, verb: str, qs: list[ox.Quad]) -> int:
        b = self.endpoint.batch
        for i in range(0, len(qs), b):
            self._post_update(f"{verb} DATA {{ {_data_block(qs[i : i + b])} }}")
        return len(qs)

    def _post_update(self, text: str) -> None:
        """One update as a form POST over httpx (no re-parse: built here from escaped terms only)."""
        self._request(
            "POST", self.endpoint.update_url, "update", data={"update": text}, headers={"Accept": "application/sparql-results+json, */*;q=0.1"}
        )

    def load(self, quads: Iterable[ox.Quad] | bytes) -> int:
        """Bulk load: Oxigraph's /store without a transaction, Virtuoso's loader when local, else INSERT DATA."""
        if isinstance(quads, (bytes, bytearray)):
            data = bytes(quads)
            if self.flavour == "oxigraph":
                return self._store_load(data, data.count(b"\n"))
            if self._virtuoso_bulk:
                return self._virtuoso_load_bytes(data)
            return self.insert(_check_quads(ox.parse(data, format=ox.RdfFormat.N_QUADS)))
        qs = _check_quads(quads)
        if self.flavour == "oxigraph":
            return self._store_load(_nquads(qs), len(qs))
        if self._virtuoso_bulk:
            return self._virtuoso_load_bytes(_nquads(qs))
        return self.insert(qs)

    def _store_load(self, data: bytes, n: int) -> int:
        """POST N-Quads (`n` quads) to Oxigraph's /store without a transaction; returns `n`."""
        try:
            self._request(
                "POST",
                self._store_url,
                "bulk load",
                deadline=False,
                params={"no_transaction": ""},
                content=data,
                headers={"Content-Type": "application/n-quads"},
            )
        except RemoteError as exc:
            raise RemoteError(f"oxigraph bulk load failed: {exc}") from None
        return n

    @property
    def _store_url(self) -> str:
        """The Graph Store URL (Oxigraph's /store, which Endpoint.parse names for every Oxigraph server)."""
        if self.endpoint.gsp_url is None:
            raise InvalidInput(f"endpoint {self.endpoint.query_url} names no Graph Store URL")
        return self.endpoint.gsp_url

    @property
    def loads_blocks(self) -> bool:
        """Whether `load_blocks` streams (Oxigraph's /store, Virtuoso's loader when local): then a push
        needs no finished export file."""
        return self.flavour == "oxigraph" or self._virtuoso_bulk

    @property
    def _virtuoso_bulk(self) -> bool:
        return self._load_dir is not None

    @property
    def _load_dir(self) -> str | None:
        """Virtuoso's load directory when its loader is used (isql= and load-dir= named), else None."""
        ep = self.endpoint
        return ep.load_dir if self.flavour == "virtuoso" and ep.isql and ep.load_dir else None

    def load_blocks(self, blocks: Iterable[bytes], *, lenient: bool = False) -> int:
        """Bulk-load N-Quads given as blocks of whole lines; returns the number of lines.

        Oxigraph: the blocks are dealt round robin to `endpoint.streams` concurrent chunked
        `POST /store?no_transaction` requests. The server parses each request on one thread into a
        bulk loader of its own (`oxigraph load` splits a file over several threads; this is how a
        client gets the same). `lenient` skips the server's validation of each term: only for N-Quads
        that Oxigraph itself wrote, and only where the caller checks the count afterwards (a line the
        lenient parser drops is skipped, not refused).

        Virtuoso with its loader: the blocks go to sorted files of `VIRTUOSO_PART` bytes in the
        load directory, each loaded by one isql session as soon as it is complete (see _VirtuosoStream).
        Other servers: one `load` of the joined blocks."""
        load_dir = self._load_dir
        if load_dir is not None:
            return _VirtuosoStream(self._isql_argv(), load_dir, self.timeout).run(blocks)
        if self.flavour != "oxigraph":
            return self.load(b"".join(blocks))
        params = {"no_transaction": ""}
        if lenient:
            params["lenient"] = ""
        return _StreamedLoad(self._request, self._store_url, params, self.endpoint.streams).run(blocks)

    def staging_path(self) -> str:
        """A new file name to write N-Quads to before a bulk load: in Virtuoso's load directory
        when its loader is used (so it is never copied), else in the system's temporary directory."""
        name = f"semantic-rdf-{uuid.uuid4().hex}.nq"
        if self.flavour == "virtuoso" and self.endpoint.load_dir:
            return os.path.join(self.endpoint.load_dir, name)
        import tempfile

        return os.path.join(tempfile.gettempdir(), name)

    def _virtuoso_load_bytes(self, data: bytes) -> int:
        path = self.staging_path()
        with open(path, "wb") as f:
            f.write(data)
        try:
            self._virtuoso_loader(path)
        finally:
            os.unlink(path)
        return data.count(b"\n")

    def _isql_argv(self) -> list[str]:
        """The isql command line for the endpoint's SQL port (the password read from its file now)."""
        ep = self.endpoint
        isql = shutil.which("isql-vt") or shutil.which("isql-v")
        if not isql:
            raise RemoteError("Virtuoso bulk load needs isql-vt on PATH (apt-get install virtuoso-opensource)")
        if not ep.isql:
            raise InvalidInput("Virtuoso bulk load needs isql=HOST:PORT in the endpoint name")
        if not ep.password_file:
            raise InvalidInput("Virtuoso bulk load needs password-file=PATH in the endpoint name")
        try:
            with open(ep.password_file, encoding="utf-8") as f:
                password = f.read().strip()
        except OSError as exc:
            raise InvalidInput(f"cannot read the password file: {exc}") from None
        return [isql, ep.isql, ep.isql_user, password]

    def _virtuoso_loader(self, path: str) -> None:
        """One ld_dir + rdf_loader_run + checkpoint through isql for one file in the load directory."""
        ep = self.endpoint
        argv = self._isql_argv()
        name = os.path.basename(path)
        if not re.fullmatch(r"semantic-rdf-[0-9a-f]{32}\.nq", name):
            raise InvalidInput("the loader only takes files named by staging_path()")
        if not ep.load_dir:
            raise InvalidInput("Virtuoso bulk load needs load-dir=PATH in the endpoint name")
        d = ep.load_dir.replace("'", "''")
        script = (
            f"ld_dir('{d}', '{name}', '{NS_PREFIX}graph/default');\n"
            "rdf_loader_run();\n"
            "checkpoint;\n"
            f"SELECT ll_state, ll_error FROM DB.DBA.load_list WHERE ll_file LIKE '%{name}';\n"
            f"DELETE FROM DB.DBA.load_list WHERE ll_file LIKE '%{name}';\n"
        )
        out = subprocess.run(argv, input=script, capture_output=True, text=True, timeout=self.timeout)
        text = out.stdout + out.stderr
        if out.returncode != 0 or "*** Error" in text:
            raise RemoteError(f"Virtuoso loader failed: {' '.join(text.split())[-400:]}")
        m = re.search(r"^\s*(\d+)\s+(\S+)\s*$", text, re.MULTILINE)
        if not m or m.group(1) != "2" or m.group(2) != "NULL":
            raise RemoteError(f"Virtuoso loader did not finish the file: {' '.join(text.split())[-400:]}")

    # reads ----------------------------------------------------------------------------------
    @property
    def _who(self) -> str:
        return f"{self.flavour} endpoint"

    def count(self, prefix: str = NS_PREFIX) -> int:
        return _count_of(self.select(_COUNT, prefix=prefix), self._who)

    def graphs(self, prefix: str = NS_PREFIX, budget: "_Budget | None" = None) -> list[str]:
        """Graph IRIs under prefix, sorted; paged by key (after the last IRI seen), never by OFFSET. A page
        that does not advance past the last key, or a graph outside the prefix, is RemoteError; the IRIs
        held count against `budget` (default: max_bytes)."""
        q = f"{_GRAPHS_AFTER} LIMIT {int(self.endpoint.page)}"
        budget = budget or _Budget(self.max_bytes, self._who)
        out: list[str] = []
        while True:
            after = out[-1] if out else ""
            rows = []
            for r in self.select(q, prefix=prefix, after=after):
                g = _cell(r, "g", self._who)
                if not isinstance(g, ox.NamedNode) or not g.value.startswith(prefix):
                    raise RemoteError(f"{self._who} listed a graph that is not an IRI under {prefix}")
                budget.take(len(g.value))
                rows.append(g.value)
            if rows and not rows[-1] > after:
                raise RemoteError(f"{self._who}: a page of the graph listing did not advance past the last graph (the server ignores the paging key)")
            out.extend(rows)
            if len(rows) < self.endpoint.page:
                return out

    def count_all(self) -> int:
        """Quads in every named graph: no per-quad IRI test, so much cheaper than count() (see sync.push)."""
        return _count_of(self.select("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"), self._who)

    def dump(self, prefix: str = NS_PREFIX) -> list[ox.Quad]:
        """The endpoint's quads in named graphs under prefix, sorted. Every reply is checked (RemoteError for
        one that is not N-Quads or SPARQL JSON, or passes the caps); what the dump holds is at most max_bytes."""
        if self.flavour == "oxigraph":
            body, headers = self._request("GET", self._store_url, "dump", headers={"Accept": "application/n-quads"})
            try:
                quads = [
                    q
                    for q in ox.parse(body, format=ox.RdfFormat.N_QUADS)
                    if not isinstance(q.graph_name, ox.DefaultGraph) and q.graph_name.value.startswith(prefix)
                ]
            except (SyntaxError, ValueError):
                raise RemoteError(
                    f"{self._who} (dump) answered something other than N-Quads ({_described(headers.get('content-type', ''), len(body))})"
                ) from None
        else:
            quads = list(self._dump_by_graph(prefix))
        return sorted(quads, key=str)

    # A capped server (Virtuoso: ResultSetMaxRows, 10,000 by default) is read without OFFSET, which it
    # refuses past MaxSortedTopRows, and without CONSTRUCT or a Graph Store GET, which it cuts at the cap
    # silently (no X-SPARQL-MaxRows header). The graphs are listed by key (graphs()), counted a batch at a
    # time, and fetched in runs of whole graphs of at most `page` quads through VALUES (an index lookup;
    # a FILTER on the graph IRI tests every quad). A graph larger than a page is fetched the same way a
    # run of whole subjects at a time; a single subject with more than a page in one graph raises
    # TruncatedResult (raise page= up to the server's cap).
    values_batch = 500  # IRIs per VALUES block

    def _dump_by_graph(self, prefix: str) -> Iterator[ox.Quad]:
        from semantic_rdf.lifecycle.temporal import bind_rows

        budget = _Budget(self.max_bytes, self._who)
        graphs = [iri(g) for g in self.graphs(prefix, budget)]
        sizes = self._counts(_GRAPH_SIZES, "g", graphs)
        for run in _runs(graphs, sizes, self.endpoint.page, self.values_batch):
            if len(run) == 1 and sizes.get(run[0], 0) > self.endpoint.page:
                yield from self._dump_graph_by_subject(run[0], budget)
                continue
            asked = set(run)
            for r in self.select(bind_rows(_QUADS_OF_GRAPHS, ["g"], [[g] for g in run])):
                q = self._row_quad(r, _cell(r, "g", self._who))
                if q.graph_name not in asked:
                    raise RemoteError(f"{self._who} answered a quad of a graph it was not asked for")
                budget.take(len(str(q)))
                yield q

    def _dump_graph_by_subject(self, graph: ox.NamedNode, budget: "_Budget") -> Iterator[ox.Quad]:
        from semantic_rdf.lifecycle.temporal import bind_rows

        page = self.endpoint.page
        subjects: list[Term] = []
        sizes: dict[Term, int] = {}
        after = ""
        while True:  # subjects and their sizes, by key
            rows = self.select(f"{_SUBJECT_SIZES_AFTER} LIMIT {int(page)}", g=graph, after=after)
            for r in rows:
                s = _cell(r, "s", self._who)
                budget.take(len(s.value))
                subjects.append(s)
                sizes[s] = _number(_cell(r, "n", self._who), self._who)
            if len(rows) < page:
                break
            if not rows[-1]["s"].value > after:
                raise RemoteError(
                    f"{self._who}: a page of the subject listing did not advance past the last subject (the server ignores the paging key)"
                )
            after = rows[-1]["s"].value
        for run in _runs(subjects, sizes, page, self.values_batch):
            if len(run) == 1 and sizes[run[0]] > page:
                raise TruncatedResult(
                    f"{run[0]} has {sizes[run[0]]} quads in {graph}, more than a page ({page}): "
                    "raise page= in the endpoint name (up to the server's result cap)"
                )
            sendable = _no_blank(run)
            for r in self.select(bind_rows(_QUADS_OF_SUBJECTS, ["s"], [[s] for s in sendable]), g=graph):
                q = self._row_quad(r, graph)
                budget.take(len(str(q)))
                yield q

    def _row_quad(self, r: Mapping[str, Term], graph: Term) -> ox.Quad:
        return _quad(_cell(r, "s", self._who), _cell(r, "p", self._who), _cell(r, "o", self._who), graph)

    def _counts(self, template: str, var: str, keys: Sequence[ox.NamedNode]) -> dict[Term, int]:
        from semantic_rdf.lifecycle.temporal import bind_rows

        out: dict[Term, int] = {}
        for i in range(0, len(keys), self.values_batch):
            for r in self.select(bind_rows(template, [var], [[k] for k in keys[i : i + self.values_batch]])):
                out[_cell(r, var, self._who)] = _number(_cell(r, "n", self._who), self._who)
        return out

    def drop(self, prefix: str) -> None:
        graphs = self.graphs(prefix)
        for i in range(0, len(graphs), 100):
            self._post_update(" ; ".join(f"DROP SILENT GRAPH {term(iri(g))}" for g in graphs[i : i + 100]))


# ----------------------------------------------------------------------------------------------
# transitive paths in query text (for servers that evaluate them wrongly)

_PTOK = re.compile(
    r"""(?P<comment>\#[^\n]*)
      | (?P<string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
      | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
      | (?P<var>[?$][A-Za-z0-9_\u00B7-\uFFFF]+)
      | (?P<pname>(?:[A-Za-z\u00C0-\uFFFF][\w\u00B7-\uFFFF.-]*)?:(?:[\w\u00B7-\uFFFF:%-]|\.(?=[\w\u00B7-\uFFFF:%-]))*)
      | (?P<word>[A-Za-z_][\w-]*)
      | (?P<punct>\^\^|\S)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class ClosurePath:
    """One `S P* O` / `S P+ O` triple pattern found in query text: where it is and what it says."""

    start: int  # character span of the triple pattern (without the final '.')
    end: int
    subject: str  # a variable (?x) or an escaped IRI
    pred: str  # the predicate as an escaped IRI
    mod: str  # '*' or '+'
    object: str
    graph: str | None  # the enclosing GRAPH's IRI (escaped), None for the default graph

    @property
    def subject_term(self) -> ox.NamedNode:
        return ox.NamedNode(self.subject[1:-1])

    @property
    def object_term(self) -> ox.NamedNode:
        return ox.NamedNode(self.object[1:-1])

    @property
    def bindings(self) -> dict[str, ox.NamedNode]:
        """The predicate and graph as terms, for queries.bind."""
        out = {"__p": ox.NamedNode(self.pred[1:-1])}
        if self.graph is not None:
            out["__g"] = ox.NamedNode(self.graph[1:-1])
        return out


def closure_paths(text: str) -> list[ClosurePath]:
    """The transitive single-IRI path patterns of a query that can be evaluated by one-hop steps.

    Only the plain form is taken: a triple pattern of its own (after `{`, `.` or `}` and before `.`
    or `}`), its ends variables or IRIs (not the same variable twice), inside no `GRAPH ?var`, in a
    query without FROM. Anything else is left to the server as written."""
    toks = [(m.lastgroup, m.group(0), m.start(), m.end()) for m in _PTOK.finditer(text) if m.lastgroup != "comment"]
    prefixes: dict[str, str] = {}
    for i, (kind, val, _s, _e) in enumerate(toks):
        if kind == "word" and val.upper() == "FROM":
            return []
        if (
            kind == "word"
            and val.upper() == "PREFIX"
            and i + 2 < len(toks)
            and toks[i + 1][0] == "pname"
            and toks[i + 1][1].endswith(":")
            and toks[i + 2][0] == "iri"
        ):
            prefixes[toks[i + 1][1][:-1]] = toks[i + 2][1][1:-1]

    def as_iri(kind: str | None, val: str) -> str | None:
        if kind == "iri":
            return val
        if kind == "pname":
            pre, _, local = val.partition(":")
            if pre in prefixes and "%" not in local and "\\" not in local:
                try:
                    return str(ox.NamedNode(prefixes[pre] + local))
                except ValueError:
                    return None
        return None

    found: list[ClosurePath] = []
    graphs: list[str | None] = [None]  # the graph of each open brace; "?" under a GRAPH variable
    pending: str | None = None  # the graph a GRAPH keyword names for the next brace
    paren = 0
    for i, (kind, val, start, _end) in enumerate(toks):
        if kind == "word" and val.upper() == "GRAPH" and i + 1 < len(toks):
            nk, nv = toks[i + 1][0], toks[i + 1][1]
            pending = "?" if nk == "var" else (as_iri(nk, nv) or "?")
        elif val == "{":
            graphs.append(graphs[-1] if pending is None else pending)
            pending = None
        elif val == "}":
            if len(graphs) > 1:
                graphs.pop()
        elif val == "(":
            paren += 1
        elif val == ")":
            paren = max(0, paren - 1)
        if paren or kind != "punct" or val not in ("*", "+") or i < 2 or i + 2 >= len(toks):
            continue
        (sk, sv, s0, _), (pk, pv, _p0, p1), (ok, ov, _o0, o1) = toks[i - 2], toks[i - 1], toks[i + 1]
        before = toks[i - 3][1] if i >= 3 else ""
        after = toks[i + 2][1]
        if p1 != start or before not in ("{", ".", "}") or after not in (".", "}"):
            continue
        pred = as_iri(pk, pv)
        subj = sv if sk == "var" else as_iri(sk, sv)
        obj = ov if ok == "var" else as_iri(ok, ov)
        graph = graphs[-1]
        if pred is None or subj is None or obj is None or graph == "?" or (sk == ok == "var" and sv[1:] == ov[1:]):
            continue
        found.append(ClosurePath(s0, o1, subj, pred, val, obj, graph))
    return found


_NO_ROWS = "VALUES {var} {{ <urn:x-semantic-rdf:no-row> }} FILTER(false)"


def _no_blank(terms: Iterable[Term]) -> list[_Sendable]:
    """`terms` in a list; RemoteError at the first blank node."""
    out: list[_Sendable] = []
    for t in terms:
        if isinstance(t, ox.BlankNode):
            raise RemoteError("a transitive path reached a blank node, which cannot be sent back to the server")
        out.append(t)
    return out


def _quad(s: Term, p: Term, o: Term, g: Term) -> ox.Quad:
    """A quad of terms a server answered; RemoteError if they make none (a literal subject or graph, a predicate that is no IRI)."""
    if isinstance(s, ox.Literal) or not isinstance(p, ox.NamedNode) or isinstance(g, ox.Literal):
        raise RemoteError("the server answered a quad that is not RDF (a literal subject or graph, or a predicate that is no IRI)")
    return ox.Quad(s, p, o, g)


def open_backend(dsn: str) -> EmbeddedBackend | RemoteBackend:
    """`memory:` -> an empty embedded store; `oxigraph+http://…` / `virtuoso+http://…` / `sparql+http://…` -> remote."""
    if dsn in ("memory:", "memory"):
        return EmbeddedBackend()
    return RemoteBackend(dsn)
