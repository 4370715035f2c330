"""`export --format trig|turtle` carries the project's prefix map and still holds exactly the store's quads."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.vocab import PREFIXES, PROVENANCE_GRAPH

from _security import HOSTILE


@pytest.fixture()
def store():
    s = AssertionStore.memory()
    s.assert_("Ada Lovelace", "wrote", "Note G", score=0.9, note="biography p.12")
    for i, name in enumerate(HOSTILE[:20]):
        if name.strip():
            s.assert_(name, "born_in", f"Place {i}", score=0.5)
    return s


def test_trig_has_the_prefixes_and_the_same_quads(store):
    trig = store.export("trig")
    head = trig.decode().split("\n", len(PREFIXES))[: len(PREFIXES)]
    assert {line.split()[1] for line in head if line.startswith("@prefix")} >= {"m:", "p:", "e:", "a:", "prov:"}
    nq = set(ox.parse(store.export("nquads"), format=ox.RdfFormat.N_QUADS))
    assert set(ox.parse(trig, format=ox.RdfFormat.TRIG)) == nq


def test_turtle_of_one_graph_has_the_prefixes_and_the_same_triples(store):
    ttl = store.export("turtle", graph=PROVENANCE_GRAPH)
    assert b"@prefix prov: <http://www.w3.org/ns/prov#>" in ttl
    want = {ox.Triple(q.subject, q.predicate, q.object) for q in store.ox.quads_for_pattern(None, None, None, PROVENANCE_GRAPH)}
    assert {ox.Triple(q.subject, q.predicate, q.object) for q in ox.parse(ttl, format=ox.RdfFormat.TURTLE)} == want


def test_line_formats_carry_no_prefixes(store):
    assert b"@prefix" not in store.export("nquads")
