"""Opening stores by data source name; the two registry errors are different types with different messages."""

from __future__ import annotations

import numpy as np
import pytest

from semantic_rdf.core.errors import DriverNotBuiltIn, InvalidInput, UnknownDriver
from semantic_rdf.remote.oxstores import AssertionGraph, AssertionTriples, SparqlTriples
from semantic_rdf.core.plugins import Registry, default_registry
from semantic_rdf.remote.registry import open_graph, open_triple, open_vector
from semantic_rdf.interfaces.stores import FileVectorStore, MemoryGraphStore, MemoryTripleStore, MemoryVectorStore


def test_memory_and_file_open_by_name(tmp_path):
    assert isinstance(open_vector("memory:"), MemoryVectorStore)
    assert isinstance(open_graph("memory:"), MemoryGraphStore)
    assert isinstance(open_triple("memory:"), MemoryTripleStore)
    v = open_vector(f"file:{tmp_path}/side")
    v.put("a", np.ones(3), {"k": 1})
    v.close()
    again = open_vector(f"file:{tmp_path}/side")
    assert isinstance(again, FileVectorStore) and again.ids() == ["a"]
    t = open_triple(f"file:{tmp_path}/side")
    t.assert_("s", "p", "o")
    t.close()
    assert open_triple(f"file:{tmp_path}/side").match() == [("s", "p", "o")]


def test_unknown_and_not_built_in_are_distinguishable():
    with pytest.raises(UnknownDriver) as unknown:
        open_vector("nosuchdb://x")
    with pytest.raises(DriverNotBuiltIn) as missing:
        open_vector("qdrant://localhost:6333/points")
    with pytest.raises(DriverNotBuiltIn):
        open_graph("neo4j://localhost")
    assert not isinstance(unknown.value, DriverNotBuiltIn) and not isinstance(missing.value, UnknownDriver)
    assert "no vector store driver named 'nosuchdb'" in str(unknown.value)
    assert "registered but not built into this install" in str(missing.value)
    assert str(unknown.value) != str(missing.value)
    # a kind has its own table: qdrant is a vector driver, nobody registered it for triples
    with pytest.raises(UnknownDriver):
        open_triple("qdrant://x")


def test_custom_driver_registers_without_forking():
    r = Registry()
    opened = []

    def opener(dsn):
        opened.append(dsn.rest)
        return MemoryVectorStore(dim=4)

    r.register("vector", "mydb", opener)
    store = open_vector("mydb://host/coll", registry=r)
    assert isinstance(store, MemoryVectorStore) and store.dim == 4 and opened == ["//host/coll"]
    r.register("vector", "qdrant", lambda dsn: MemoryVectorStore())  # an install can supply a missing one
    assert isinstance(open_vector("qdrant://x", registry=r), MemoryVectorStore)
    assert "mydb" not in default_registry().names("vector")  # a private registry does not leak into the default one
    assert r.has("vector", "mydb") and not Registry().has("vector", "mydb")


@pytest.mark.parametrize("bad", ["", "no-scheme", "1abc:x", "memory:/some/path"])
def test_bad_names_are_invalid_input(bad):
    with pytest.raises(InvalidInput):
        open_vector(bad)


def test_bad_registrations_are_refused():
    r = Registry()
    with pytest.raises(InvalidInput):
        r.register("vectors", "x", None)
    with pytest.raises(InvalidInput):
        r.register("vector", "Bad Name", None)
    with pytest.raises(InvalidInput):
        r.register("vector", "x", "not callable")


def test_oxigraph_name_opens_the_assertion_store(tmp_path):
    triples = open_triple(f"oxigraph:{tmp_path}/st")
    assert isinstance(triples, AssertionTriples)
    triples.assert_("Ada Lovelace", "born_in", "London")
    assert triples.match(s="Ada Lovelace") == [("Ada Lovelace", "born_in", "London")]
    triples.close()
    graph = open_graph(f"oxigraph:{tmp_path}/st")
    assert isinstance(graph, AssertionGraph)
    assert graph.out("Ada Lovelace") == ["London"]
    graph.close()
    assert isinstance(open_vector(f"oxigraph:{tmp_path}/st"), FileVectorStore)  # vectors live inside the store dir
    assert (tmp_path / "st" / "vectors.sqlite").exists()


def test_remote_names_open_sparql_adapters(oxigraph_server):
    t = open_triple(f"{oxigraph_server.dsn}?graph=https://w3id.org/semantic-rdf/test/registry")
    assert isinstance(t, SparqlTriples)
    t.assert_("a", "p", "b")
    assert t.match(p="p") == [("a", "p", "b")]
    t.backend.drop("https://w3id.org/semantic-rdf/test/")
    with pytest.raises(InvalidInput):
        open_triple(f"{oxigraph_server.dsn}?graph=not an iri")
