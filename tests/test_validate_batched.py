"""`validate` in batches of focus nodes (semantic_rdf/rdf/validation.py) gives the verdicts and the very violations
of pyshacl over the whole store (issue 20 item 9: bounded memory on large stores)."""

from __future__ import annotations

import json
import subprocess
import sys

import pyoxigraph as ox
import pytest

from semantic_rdf.rdf.shapes import validate_full
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.rdf.validation import validate_store
from semantic_rdf.core.values import Triple
from semantic_rdf.core.vocab import ENTITY_GRAPH as EG, M, PROVENANCE_GRAPH as PG, RDF_TYPE, XSD, entity_iri

from test_shapes import _mutations, _triples, _valid_store

GRAPHS = [PG, EG]
RDFS_LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
SUBCLASS = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf")


def _store_of(quads) -> ox.Store:
    st = ox.Store()
    st.extend(quads)
    return st


def _whole(st: ox.Store) -> list[str]:
    return validate_full([q for g in GRAPHS for q in st.quads_for_pattern(None, None, None, g)]).violations


def _batched(st: ox.Store, batch: int, pyshacl: bool = False) -> list[str]:
    stats: list = []
    report = validate_store(st, GRAPHS, batch=batch, pyshacl=pyshacl, stats=stats)
    assert report.conforms == (not report.violations)
    assert stats[0].quads >= sum(1 for g in GRAPHS for _ in st.quads_for_pattern(None, None, None, g))
    return report.violations


@pytest.mark.parametrize("name,quads", list(_mutations(_triples(_valid_store()))), ids=lambda x: x if isinstance(x, str) else "")
def test_each_kind_of_violation_the_same_as_whole_store_pyshacl(name, quads):
    st = _store_of(quads)
    want = _whole(st)
    assert want, name
    for batch in (1, 9, 100_000):  # one subject a batch, a few, everything in one
        assert _batched(st, batch) == want, (name, batch)


@pytest.fixture(scope="module")
def broken():
    """300 caller-supplied assertions, broken in places far apart (so in different batches of 400 triples)."""
    s = AssertionStore.memory()
    with s.run("statement", agent="tester") as run:
        s.assert_triples([Triple(f"Person {i}", "born_in", f"Town {i % 40}", score=0.5) for i in range(300)], run=run)
    records = sorted({q.subject for q in s.ox.quads_for_pattern(None, M.claimGraph, None, PG)}, key=str)
    first, middle, last = records[0], records[150], records[-1]
    s.ox.remove(next(iter(s.ox.quads_for_pattern(first, M.count, None, PG))))  # count missing
    s.ox.add(ox.Quad(middle, M.subject, entity_iri("Somebody Else"), PG))  # two subjects
    conf = next(iter(s.ox.quads_for_pattern(last, M.confidence, None, PG)))
    s.ox.remove(conf)
    s.ox.add(ox.Quad(last, M.confidence, ox.Literal("1.5", datatype=ox.NamedNode(XSD + "decimal")), PG))
    ent = entity_iri("Town 7")
    for q in list(s.ox.quads_for_pattern(ent, RDFS_LABEL, None, EG)):  # an entity with no label
        s.ox.remove(q)
    activity = next(q.object for q in s.ox.quads_for_pattern(records[200], ox.NamedNode("http://www.w3.org/ns/prov#wasGeneratedBy"), None, PG))
    for q in list(s.ox.quads_for_pattern(activity, RDF_TYPE, None, PG)):  # sh:class on a value
        s.ox.remove(q)
    yield s
    s.close()


def test_violations_in_different_batches_are_the_whole_store_set(broken):
    want = _whole(broken.ox)
    assert len(want) >= 5
    n = sum(1 for g in GRAPHS for _ in broken.ox.quads_for_pattern(None, None, None, g))
    stats: list = []
    report = validate_store(broken.ox, GRAPHS, batch=400, stats=stats)
    assert report.violations == want
    assert stats[0].batches >= n // 400 and 3 <= stats[0].rechecked < stats[0].batches  # found in several
    assert _batched(broken.ox, 400, pyshacl=True) == want


def test_store_validate_and_cli_report_them(broken, tmp_path):
    assert broken.validate().violations[: len(_whole(broken.ox))] == _whole(broken.ox)
    path = tmp_path / "st"
    with AssertionStore.open(path) as disk:
        disk.ox.bulk_extend(list(broken.ox))
    for extra in ([], ["--pyshacl"]):
        out = subprocess.run(
            [sys.executable, "-m", "semantic_rdf", "--store", str(path), "--json", "validate", *extra], capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 1, out.stderr
        assert set(_whole(broken.ox)) <= set(json.loads(out.stdout)["violations"])


def test_a_valid_store_conforms_in_batches(tmp_path):
    s = _valid_store()
    assert _whole(s.ox) == [] and _batched(s.ox, 1) == [] and _batched(s.ox, 1, pyshacl=True) == []
    path = tmp_path / "ok"
    with AssertionStore.open(path) as disk:
        disk.ox.bulk_extend(list(s.ox))
    out = subprocess.run([sys.executable, "-m", "semantic_rdf", "--store", str(path), "validate"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip() == "conforms", out.stderr


def test_a_node_described_in_both_graphs_is_judged_on_all_its_triples(tmp_path):
    """An entity whose label sits in the provenance graph: pyshacl over the union sees it labelled; read graph
    by graph it comes in two runs, and is checked again with all its triples. (On disk, where each graph's
    dump is grouped by subject, it is the only node that comes in two runs; in memory most do.)"""
    s = AssertionStore.open(tmp_path / "st")
    s.ox.bulk_extend(list(_valid_store().ox))
    ent = entity_iri("London")
    label = next(iter(s.ox.quads_for_pattern(ent, RDFS_LABEL, None, EG)))
    s.ox.remove(label)
    s.ox.add(ox.Quad(ent, RDFS_LABEL, label.object, PG))
    assert _whole(s.ox) == []
    stats: list = []
    assert validate_store(s.ox, GRAPHS, batch=1, stats=stats).violations == []
    assert stats[0].split == 1
    # and a real problem on such a node is still found
    s.ox.add(ox.Quad(ent, M.folded, ox.Literal("second folded name"), PG))
    want = _whole(s.ox)
    assert want and _batched(s.ox, 1) == want
    s.close()


def test_subclasses_in_the_data_are_validated_with_pyshacl():
    """The compiled checker takes sh:targetClass as direct rdf:type; pyshacl follows rdfs:subClassOf in the data.
    A store holding rdfs:subClassOf triples is validated with pyshacl throughout, so nothing is missed."""
    s = _valid_store()
    special = ox.NamedNode("https://w3id.org/semantic-rdf/ns#SpecialAssertion")
    odd = ox.NamedNode("https://w3id.org/semantic-rdf/a/00000000000000ff")
    s.ox.add(ox.Quad(special, SUBCLASS, M.Assertion, PG))
    s.ox.add(ox.Quad(odd, RDF_TYPE, special, PG))  # an Assertion by subclass, with none of an assertion's properties
    want = _whole(s.ox)
    assert any(str(odd.value) in v for v in want)
    assert _batched(s.ox, 1) == want and _batched(s.ox, 5) == want
