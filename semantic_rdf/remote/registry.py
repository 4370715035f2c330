"""Open stores by data source name (HIP-0526 §4.2): which engine backs which question is a run-time fact.

    memory:                         in-memory Vector / Graph / Triple
    file:DIR                        SQLite files in DIR (vectors.sqlite, graph.sqlite, triples.sqlite)
    oxigraph:DIR                    the assertion store in DIR (Graph / Triple; vectors in DIR/vectors.sqlite)
    oxigraph:                       an in-memory assertion store
    oxigraph+http://HOST:PORT       an Oxigraph server   } Graph / Triple over SPARQL 1.1,
    virtuoso+http://HOST:PORT       a Virtuoso 7 server  } in the named graph ?graph=IRI
    sparql+http://HOST/PATH         any SPARQL 1.1 endpoint (?update=URL)

A custom driver is one call, no fork:  registry.register("vector", "mydb", lambda dsn: MyStore(dsn.rest)).
A name nobody registered raises errors.UnknownDriver; a name registered with no implementation in
this install (qdrant, neo4j, …) raises errors.DriverNotBuiltIn. They are different operator problems.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Callable

from semantic_rdf.core.errors import DriverNotBuiltIn, InvalidInput, UnknownDriver

__all__ = ["Dsn", "Registry", "REGISTRY", "register", "open_vector", "open_graph", "open_triple", "KINDS"]

KINDS = ("vector", "graph", "triple")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9.+-]*):(.*)$", re.DOTALL)

Opener = Callable[["Dsn"], Any]


@dataclass(frozen=True, slots=True)
class Dsn:
    """A parsed data source name: the driver name (before the first ':') and the rest, untouched."""

    driver: str
    rest: str
    raw: str

    @classmethod
    def parse(cls, text: str) -> "Dsn":
        if not isinstance(text, str):
            raise InvalidInput(f"a data source name is a string, got {type(text).__name__}")
        m = _SCHEME.match(text.strip())
        if not m:
            raise InvalidInput(f"not a data source name: {text!r} (expected driver:rest, e.g. memory: or file:DIR)")
        return cls(m.group(1).lower(), m.group(2), text.strip())


class Registry:
    """Openers by (kind, driver name). An opener of None means "known, not built into this install"."""

    def __init__(self) -> None:
        self._openers: dict[str, dict[str, Opener | None]] = {k: {} for k in KINDS}

    def register(self, kind: str, driver: str, opener: Opener | None) -> None:
        self._kind(kind)
        if not isinstance(driver, str) or not re.fullmatch(r"[a-z][a-z0-9.+-]*", driver):
            raise InvalidInput(f"bad driver name {driver!r} (lower-case letters, digits, . + -)")
        if opener is not None and not callable(opener):
            raise InvalidInput("a driver opener must be callable (or None for not-built-in)")
        self._openers[kind][driver] = opener

    def has(self, kind: str, driver: str) -> bool:
        """Registered with a working implementation."""
        return self._openers[self._kind(kind)].get(driver) is not None

    def names(self, kind: str) -> list[str]:
        return sorted(self._openers[self._kind(kind)])

    def built_in(self, kind: str) -> list[str]:
        return sorted(n for n, o in self._openers[self._kind(kind)].items() if o is not None)

    def open(self, kind: str, dsn: str | Dsn) -> Any:
        d = dsn if isinstance(dsn, Dsn) else Dsn.parse(dsn)
        table = self._openers[self._kind(kind)]
        if d.driver not in table:
            raise UnknownDriver(f"no {kind} store driver named {d.driver!r}; known: {', '.join(self.names(kind))}")
        opener = table[d.driver]
        if opener is None:
            raise DriverNotBuiltIn(
                f"the {kind} store driver {d.driver!r} is registered but not built into this install; "
                f"built in: {', '.join(self.built_in(kind))} (register an implementation with registry.register)"
            )
        return opener(d)

    @staticmethod
    def _kind(kind: str) -> str:
        if kind not in KINDS:
            raise InvalidInput(f"store kind must be one of {KINDS}, got {kind!r}")
        return kind


# ----------------------------------------------------------------------------------------------
# built-in drivers


def _dir(d: Dsn) -> str:
    path = d.rest
    if path.startswith("//"):
        path = path[2:]
    if not path:
        raise InvalidInput(f"{d.driver}: needs a directory, e.g. {d.driver}:./store")
    return os.path.expanduser(path)


def _memory(kind: str) -> Opener:
    def opener(d: Dsn):
        if d.rest not in ("", "//"):
            raise InvalidInput(f"memory: takes no path, got {d.raw!r}")
        from semantic_rdf.interfaces import stores

        return {"vector": stores.MemoryVectorStore, "graph": stores.MemoryGraphStore, "triple": stores.MemoryTripleStore}[kind]()

    return opener


def _file(kind: str) -> Opener:
    def opener(d: Dsn):
        from semantic_rdf.interfaces import stores

        root = _dir(d)
        if os.path.exists(root) and not os.path.isdir(root):
            raise InvalidInput(f"file: store path {root!r} is not a directory")
        cls, name = {
            "vector": (stores.FileVectorStore, "vectors.sqlite"),
            "graph": (stores.FileGraphStore, "graph.sqlite"),
            "triple": (stores.FileTripleStore, "triples.sqlite"),
        }[kind]
        return cls(os.path.join(root, name))

    return opener


def _oxigraph(kind: str) -> Opener:
    def opener(d: Dsn):
        from semantic_rdf.remote import oxstores
        from semantic_rdf.store.assertions import AssertionStore

        if kind == "vector":
            from semantic_rdf.interfaces.stores import FileVectorStore, MemoryVectorStore

            if d.rest in ("", "//"):
                return MemoryVectorStore()
            return FileVectorStore(os.path.join(_dir(d), "vectors.sqlite"))
        store = AssertionStore.open(None if d.rest in ("", "//") else _dir(d))
        return oxstores.AssertionGraph(store) if kind == "graph" else oxstores.AssertionTriples(store)

    return opener


def _remote(kind: str) -> Opener:
    def opener(d: Dsn):
        from semantic_rdf.remote import oxstores
        from semantic_rdf.remote.sparql import RemoteBackend

        url, graph = oxstores.split_graph_param(d.raw)
        backend = RemoteBackend(url)
        return oxstores.SparqlGraph(backend, graph) if kind == "graph" else oxstores.SparqlTriples(backend, graph)

    return opener


# Named by HIP-0526 §4.3 / the reference as drivers that exist elsewhere but are not built here.
NOT_BUILT_IN = {
    "vector": ("qdrant", "faiss", "milvus", "pgvector", "pinecone", "weaviate", "sqlite-vss"),
    "graph": ("neo4j", "age", "falkordb", "neptune"),
    "triple": ("anzo", "stardog", "graphdb"),
}


def default_registry() -> Registry:
    r = Registry()
    for kind in KINDS:
        r.register(kind, "memory", _memory(kind))
        r.register(kind, "file", _file(kind))
        r.register(kind, "oxigraph", _oxigraph(kind))
        for name in NOT_BUILT_IN[kind]:
            r.register(kind, name, None)
    for kind in ("graph", "triple"):
        for scheme in ("oxigraph+http", "oxigraph+https", "virtuoso+http", "virtuoso+https", "sparql+http", "sparql+https"):
            r.register(kind, scheme, _remote(kind))
    return r


REGISTRY = default_registry()


def register(kind: str, driver: str, opener: Opener | None) -> None:
    REGISTRY.register(kind, driver, opener)


def open_vector(dsn: str):
    return REGISTRY.open("vector", dsn)


def open_graph(dsn: str):
    return REGISTRY.open("graph", dsn)


def open_triple(dsn: str):
    return REGISTRY.open("triple", dsn)
