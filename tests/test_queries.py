"""Each packaged query of the time / provenance / decision layer, run on the embedded store."""

from datetime import datetime, timezone

import pyoxigraph as ox
import pytest

from semantic_rdf.lifecycle import erasure, temporal as T
from semantic_rdf.lifecycle.decisions import DenyChoices, Recorder
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.lifecycle.reason import derive
from semantic_rdf.core.resources import query
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Validity
from semantic_rdf.core.vocab import NS, PROVENANCE_GRAPH as PG, RDF_TYPE, agent_iri, assertion_iri, entity_iri, segment_iri

from _timeprov import ingest, span

PROV = "http://www.w3.org/ns/prov#"
XSD_DT = ox.NamedNode("http://www.w3.org/2001/XMLSchema#dateTime")
RDF_TYPE = RDF_TYPE.value
TEXT = "Kew lies in London. London lies in England."
MINE = [
    "trace",
    "trace-nodes",
    "asof",
    "believed",
    "by-source",
    "by-run",
    "derived-from",
    "decisions-by-agent",
    "decision-chain",
    "tombstones",
    "retracted",
]


def _id(term):
    return term.value.rsplit("/", 1)[-1]


@pytest.fixture(scope="module")
def w():
    s = AssertionStore.memory()
    (kew, london), run = ingest(
        s,
        "places.txt",
        TEXT,
        [
            ("Kew", "located_in", "London", *span(TEXT, "Kew lies in London.")),
            ("London", "located_in", "England", *span(TEXT, "London lies in England.")),
        ],
    )
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
    assert {r["rule"].value.rsplit("/", 1)[-1].rsplit("-", 1)[0] for r in rows if r["rule"] is not None} == {"located-in-transitive"}
    spans = {_id(r["source"]) for r in rows if "/src/" in r["source"].value}
    assert len(spans) == 2  # the observations of both antecedents


def test_trace_nodes_rq_has_trace_rq_edges_and_each_node_quads(w):
    s = w["s"]
    for aid in (w["derived"], w["kew"], w["london"]):
        root = assertion_iri(aid)
        edges = {(r["node"].value, r["source"].value) for r in s.run_query("trace", root=root)}
        rows = s.run_query("trace-nodes", root=root)
        assert {(r["node"].value, r["v"].value) for r in rows if r["p"].value == PROV + "wasDerivedFrom"} == edges
        nodes = {r["node"].value for r in rows}
        assert nodes == {root.value} | {b for _, b in edges}  # the root, and every source it reaches
        for n in nodes:  # each node's quads as stored, less those a trace never reads
            stored = {(q.predicate.value, q.object.value) for q in s.ox.quads_for_pattern(ox.NamedNode(n), None, None, PG)}
            got = {(r["p"].value, r["v"].value) for r in rows if r["node"].value == n}
            assert got <= stored and (RDF_TYPE, PROV + "Entity") not in got
            assert {x for x in stored if x[0] in (RDF_TYPE, PROV + "wasDerivedFrom", NS + "subject")} - got == {(RDF_TYPE, PROV + "Entity")}
    assert s.run_query("trace-nodes", root=assertion_iri("0123456789abcdef")) == []


def _believed(s, **params):
    return sorted(_id(r["a"]) for r in s.run_query("believed", **params))


def _matched(s, **params):
    return sorted(_id(r["a"]) for r in s.run_query("match", **params))


def test_believed_rq_is_match_rq_over_the_whole_store(w):
    s = w["s"]
    t = ox.Literal(w["t"].strftime("%Y-%m-%dT%H:%M:%S.%fZ"), datatype=XSD_DT)
    assert _believed(s) == _matched(s) and w["kew"] in _believed(s) and w["london"] not in _believed(s)
    assert _believed(s, asof=t) == _matched(s, asof=t) and w["london"] in _believed(s, asof=t)

    # valid time: assertions with bounds (closed, open-ended, none), asked about inside, before and after
    s = AssertionStore.memory()
    utc = timezone.utc
    closed = s.assert_("Kew", "member_of", "Royal Parks", valid=Validity(datetime(2000, 1, 1, tzinfo=utc), datetime(2010, 1, 1, tzinfo=utc)))
    since = s.assert_("Kew", "part_of", "Richmond", valid=Validity(datetime(1965, 1, 1, tzinfo=utc), None))
    always = s.assert_("Kew", "located_in", "London")
    for year, want in ((2005, {closed, since, always}), (1990, {since, always}), (2010, {since, always}), (1900, {always})):
        at = ox.Literal(f"{year}-01-01T00:00:00Z", datatype=XSD_DT)
        assert _believed(s, validat=at) == _matched(s, validat=at) == sorted(want), year


def test_asof_rq(w):
    s = w["s"]
    now = [_id(r["a"]) for r in s.run_query("asof", s=entity_iri("Kew"))]
    assert w["kew"] in now and w["derived"] not in now and w["gone"] not in now
    then = [
        _id(r["a"])
        for r in s.run_query(
            "asof",
            s=entity_iri("Kew"),
            asof=ox.Literal(w["t"].strftime("%Y-%m-%dT%H:%M:%S.%fZ"), datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#dateTime")),
        )
    ]
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


@pytest.mark.parametrize("chunk", [1_000, 1])
def test_believed_facts_of_some_ids_equal_the_whole_read_filtered(monkeypatch, chunk):
    from semantic_rdf.hdc import memory as Mem
    from semantic_rdf.store.seed import seed

    s = AssertionStore.memory()
    seed(s)
    ids = s.ids()
    T.retract(s, ids[0], "test")
    monkeypatch.setattr(Mem, "_CHUNK", chunk)  # believed-of.rq: one VALUES block, then one per id
    some = set(ids[:4])
    whole = Mem.believed_facts(s)
    assert Mem.believed_facts(s, ids=some) == [f for f in whole if f[0] in some]
    assert ids[0] not in {f[0] for f in whole}
    assert Mem.believed_facts(s, ids=[]) == []


def test_a_parameter_after_a_subquerys_modifiers_is_bound_as_a_plain_term():
    """A parameter in an ORDER BY / GROUP BY is bound as `(term)`; after the subquery that holds the modifier
    closes, the next occurrence is a triple-pattern slot again (`(term)` there is an RDF collection, and
    matched nothing: the conflict check's functional-records.rq found no records)."""
    from semantic_rdf.rdf.queries import bind

    text = "SELECT ?s WHERE { { SELECT ?s WHERE { ?s ?p ?o } GROUP BY ?s HAVING (COUNT(?o) > 1) } ?s ?p ?o2 } ORDER BY ?p"
    p = ox.NamedNode("http://x/p")
    bound = bind(text, {"p": p})
    assert "?s <http://x/p> ?o }" in bound and "?s <http://x/p> ?o2 }" in bound and bound.endswith("ORDER BY (<http://x/p>)")
    s = ox.Store()
    for o in ("1", "2"):
        s.add(ox.Quad(ox.NamedNode("http://x/a"), p, ox.Literal(o)))
    assert [r["s"].value for r in s.query(bound)] == ["http://x/a", "http://x/a"]


def test_the_binders_variable_characters_are_the_documented_set():
    """The tokenizer writes a variable's characters as a complement (cheap to compile); it is the same set as
    A-Z a-z 0-9 _ and U+00B7..U+FFFF, for every code point."""
    import re

    from semantic_rdf.rdf.queries import _token

    var = _token()
    wanted = re.compile(r"[A-Za-z0-9_\u00B7-\uFFFF]")
    odd = [
        c
        for c in range(0x110000)
        if bool(wanted.fullmatch(chr(c))) != (var.fullmatch("?" + chr(c)) is not None and var.fullmatch("?" + chr(c)).lastgroup == "var")
    ]
    assert odd == []
