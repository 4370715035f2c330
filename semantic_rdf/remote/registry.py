"""Open stores by data source name (HIP-0526 §4.2): which engine backs which question is a run-time fact.

    memory:                         in-memory Vector / Graph / Triple
    file:DIR                        SQLite files in DIR (vectors.sqlite, graph.sqlite, triples.sqlite)
    oxigraph:DIR                    the assertion store in DIR (Graph / Triple; vectors in DIR/vectors.sqlite)
    oxigraph:                       an in-memory assertion store
    oxigraph+http://HOST:PORT       an Oxigraph server   } Graph / Triple over SPARQL 1.1,
    virtuoso+http://HOST:PORT       a Virtuoso 7 server  } in the named graph ?graph=IRI
    sparql+http://HOST/PATH         any SPARQL 1.1 endpoint (?update=URL)

The drivers are parts of the one registry (semantic_rdf/core/plugins.py), kinds "vector", "graph" and
"triple". A custom driver is one call, no fork:
`default_registry().register("vector", "mydb", lambda dsn: MyStore(dsn.rest))`, or an entry point
"vector:mydb" in a plug-in package. A name nobody registered raises errors.UnknownDriver; a name registered
with no implementation in this install (qdrant, neo4j, …) raises errors.DriverNotBuiltIn. They are different
operator problems.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Callable

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.plugins import Registry, default_registry

__all__ = ["Dsn", "open_store", "open_vector", "open_graph", "open_triple", "KINDS"]

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


# The built-in openers, by the names core/plugins.py's BUILT_IN gives them ("vector:memory" ->
# open_vector_memory, …): the registry imports this module only when one of them is asked for.
open_vector_memory, open_graph_memory, open_triple_memory = (_memory(k) for k in KINDS)
open_vector_file, open_graph_file, open_triple_file = (_file(k) for k in KINDS)
open_vector_oxigraph, open_graph_oxigraph, open_triple_oxigraph = (_oxigraph(k) for k in KINDS)
open_graph_remote, open_triple_remote = _remote("graph"), _remote("triple")


def open_store(kind: str, dsn: str | Dsn, registry: Registry | None = None) -> Any:
    """The store of `kind` ("vector", "graph" or "triple") that `dsn` names, opened by the driver registered
    under its name (the default registry unless one is given). UnknownDriver / DriverNotBuiltIn otherwise."""
    if kind not in KINDS:
        raise InvalidInput(f"store kind must be one of {KINDS}, got {kind!r}")
    d = dsn if isinstance(dsn, Dsn) else Dsn.parse(dsn)
    return (registry or default_registry()).get(kind, d.driver)(d)


def open_vector(dsn: str | Dsn, registry: Registry | None = None):
    return open_store("vector", dsn, registry)


def open_graph(dsn: str | Dsn, registry: Registry | None = None):
    return open_store("graph", dsn, registry)


def open_triple(dsn: str | Dsn, registry: Registry | None = None):
    return open_store("triple", dsn, registry)
