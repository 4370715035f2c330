"""Each packaged query of the time / provenance / decision layer, run on the embedded store."""

import pyoxigraph as ox
import pytest

from semantic_rdf import erasure, temporal as T
from semantic_rdf.decisions import DenyChoices, Recorder
from semantic_rdf.identity import assertion_id
from semantic_rdf.reason import derive
from semantic_rdf.resources import query
from semantic_rdf.store import AssertionStore
from semantic_rdf.vocab import agent_iri, assertion_iri, entity_iri, segment_iri

from _timeprov import ingest, span

TEXT = "Kew lies in London. London lies in England."
MINE = ["trace", "asof", "by-source", "by-run", "derived-from", "decisions-by-agent", "decision-chain",
        "tombstones", "retracted"]


def _id(term):
    return term.value.rsplit("/", 1)[-1]


@pytest.fixture(scope="module")
def w():
    s = AssertionStore.memory()
    (kew, london), run = ingest(s, "places.txt", TEXT, [("Kew", "located_in", "London", *span(TEXT, "Kew lies in London.")),
                                                        ("London", "located_in", "England",
                                                         *span(TEXT, "London lies in England."))])
    derive(s)
    derived = assertion_id("Kew", "located_in", "England")
    t_before = s.now()
    T.retract(s, london, "checking")
    gone = s.assert_("Kew", "part_of", "Surrey")
    erasure.erase(s, gone, "wrong county")
    rec = Recorder(s)
    d1 = rec.record("guide", "recommend Kew", [kew])
    d2 = rec.record("guide", "sell tickets", [kew], informed_by=[d1.id], policy=DenyChoices({"sell tickets"}, "not ours"))
    return dict(s=s, kew=kew, london=london, derived=derived, gone=gone, run=run, t=t_before, d1=d1, d2=d2)


@pytest.mark.parametrize("name", MINE)
def test_each_query_documents_what_it_answers_and_its_parameters(name):
    text = query(name)
    assert text.startswith(f"# {name} — ")
    assert "Parameters" in text and "Returns" in text


def test_trace_rq(w):
    rows = w["s"].run_query("trace", root=assertion_iri(w["derived"]))
    assert {_id(r["source"]) for r in rows if r["node"] == assertion_iri(w["derived"])} == {w["kew"], w["london"]}
    assert {r["rule"].value.rsplit("/", 1)[-1].rsplit("-", 1)[0] for r in rows if r["rule"] is not None} == {
        "located-in-transitive"}
    spans = {_id(r["source"]) for r in rows if "/src/" in r["source"].value}
    assert len(spans) == 2  # the observations of both antecedents


def test_asof_rq(w):
    s = w["s"]
    now = [_id(r["a"]) for r in s.run_query("asof", s=entity_iri("Kew"))]
    assert w["kew"] in now and w["derived"] not in now and w["gone"] not in now
    then = [_id(r["a"]) for r in s.run_query("asof", s=entity_iri("Kew"), asof=ox.Literal(
        w["t"].strftime("%Y-%m-%dT%H:%M:%S.%fZ"), datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#dateTime")))]
    assert sorted(then) == sorted([w["kew"], w["derived"]])


def test_by_source_and_by_run_rq(w):
    s = w["s"]
    rows = s.run_query("by-source", reference=ox.Literal("places.txt"))
    assert sorted({_id(r["a"]) for r in rows}) == sorted([w["kew"], w["london"]])
    assert all(int(r["start"].value) < int(r["end"].value) for r in rows)
    rows = s.run_query("by-run", run=segment_iri("run", w["run"]))
    assert sorted({_id(r["a"]) for r in rows}) == sorted([w["kew"], w["london"]])
    rows = s.run_query("by-run", agent=agent_iri("reasoner"))
    assert {_id(r["a"]) for r in rows} == {w["derived"]}


def test_derived_from_rq(w):
    rows = w["s"].run_query("derived-from", a=assertion_iri(w["london"]))
    assert [_id(r["d"]) for r in rows] == [w["derived"]] and r_rule(rows) == "located-in-transitive"


def r_rule(rows):
    return rows[0]["rule"].value.rsplit("/", 1)[-1].rsplit("-", 1)[0]


def test_decision_queries(w):
    s = w["s"]
    rows = s.run_query("decisions-by-agent", agent=agent_iri("guide"))
    assert [(_id(r["d"]), r["allowed"].value) for r in rows] == [(w["d1"].id, "true"), (w["d2"].id, "false")]
    assert rows[1]["reason"].value == "not ours"
    rows = s.run_query("decision-chain", d=segment_iri("decision", w["d2"].id))
    assert [_id(r["prior"]) for r in rows] == [w["d1"].id]


def test_tombstones_and_retracted_rq(w):
    s = w["s"]
    rows = s.run_query("tombstones")
    assert [(_id(r["a"]), r["reason"].value) for r in rows] == [(w["gone"], "wrong county")]
    rows = s.run_query("retracted")
    got = {_id(r["a"]): r for r in rows}
    assert set(got) == {w["london"], w["derived"]}
    assert got[w["london"]]["reason"].value == "checking"
    assert _id(got[w["derived"]]["because"]) == w["london"]
    assert [x["id"] for x in T.retracted(s, w["t"])] == []  # nothing was retracted yet at that instant
