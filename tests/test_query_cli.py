"""`semantic-rdf query`: packaged queries by name, parameters bound by entity name, W3C result formats."""

from __future__ import annotations

import io
import json

import pyoxigraph as ox
import pytest
from rdflib.query import Result
from SPARQLWrapper.SmartWrapper import Bindings
from SPARQLWrapper.Wrapper import QueryResult

from semantic_rdf.rdf import results as R
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.vocab import ENTITY_GRAPH, SKOS, entity_iri

from _security import assert_refused, dump, run_cli

PEOPLE = [
    ("Marie Curie", "born_in", "Warsaw"),
    ("Marie Curie", "won", "Nobel Prize in Physics"),
    ("Pierre Curie", "born_in", "Paris"),
    ("Ada Lovelace", "wrote", "Note G"),
]


@pytest.fixture()
def store(tmp_path):
    path = tmp_path / "s"
    with AssertionStore.open(path) as s:
        for t in PEOPLE:
            s.assert_(*t, score=0.9)
        s.assert_("Ada Lovelace", "born_in", 'London "the city" <x>', score=1)
        # both Curies are known as "Curie": an alias that names two entities
        for name in ("Marie Curie", "Pierre Curie"):
            s.ox.add(ox.Quad(entity_iri(name), ox.NamedNode(SKOS + "altLabel"), ox.Literal("Curie"), ENTITY_GRAPH))
    return path


def _objects(r) -> set[str]:
    data = json.loads(r.out)
    return {b["o"]["value"] for b in data["results"]["bindings"]}


def test_packaged_query_by_name_with_an_entity_bound_by_name(store):
    by_name = run_cli(store, "--json", "query", "asof", "--bind", "s=marie  curie")
    by_iri = run_cli(store, "--json", "query", "asof", "--bind", f"s=<{entity_iri('Marie Curie').value}>")
    assert by_name.rc == 0 and by_name.out == by_iri.out
    assert _objects(by_name) == {entity_iri("Warsaw").value, entity_iri("Nobel Prize in Physics").value}


def test_an_ambiguous_name_lists_the_candidates(store):
    r = run_cli(store, "query", "asof", "--bind", "s=Curie")
    assert_refused(r)
    assert "names 2 entities" in r.err and "Marie Curie" in r.err and "Pierre Curie" in r.err


def test_quoted_values_and_unknown_names_bind_literals(store, tmp_path):
    rq = tmp_path / "q.rq"
    rq.write_text("SELECT ?x WHERE { BIND(?v AS ?x) }")
    for value, want in (('"Marie Curie"', "Marie Curie"), ("Zorblax", "Zorblax"), ('"<a> } #"', "<a> } #")):
        r = run_cli(store, "--json", "query", str(rq), "--bind", f"v={value}")
        assert r.rc == 0, r.err
        assert json.loads(r.out)["results"]["bindings"] == [{"x": {"type": "literal", "value": want}}]


def test_list_shows_every_packaged_query_and_rule(store):
    r = run_cli(store, "--json", "query", "--list")
    names = {q["name"] for q in json.loads(r.out)}
    assert {"asof", "match", "believed", "list", "rules/symmetric"} <= names
    assert all(q["answers"] for q in json.loads(r.out))
    assert_refused(run_cli(store, "query", "no-such-query"))
    assert_refused(run_cli(store, "query"))


def test_json_is_w3c_results_read_by_sparqlwrapper_and_rdflib(store):
    r = run_cli(store, "query", "asof", "--bind", "s=Ada Lovelace", "--format", "json")
    assert r.rc == 0
    wrapped = Bindings(QueryResult((io.BytesIO(r.out.encode()), "json")))
    assert wrapped.variables == ["a", "s", "p", "o", "conf", "vf", "vu"]
    objs = {b["o"].value for b in wrapped.bindings}
    assert entity_iri('London "the city" <x>').value in objs
    confs = {b["conf"].datatype for b in wrapped.bindings}
    assert confs == {"http://www.w3.org/2001/XMLSchema#decimal"}
    res = Result.parse(io.StringIO(r.out), format="json")
    assert [str(v) for v in res.vars] == wrapped.variables and len(res) == 2
    ask = run_cli(store, "query", "-", "--format", "json", stdin=b"ASK { GRAPH ?g { ?s ?p ?o } }")
    assert json.loads(ask.out) == {"head": {}, "boolean": True}
    assert Result.parse(io.StringIO(ask.out), format="json").askAnswer is True


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_csv_and_tsv_parse_back_with_rdflib(store, fmt):
    r = run_cli(store, "query", "asof", "--bind", "s=Ada Lovelace", "--format", fmt)
    assert r.rc == 0
    res = Result.parse(io.StringIO(r.out), format=fmt)
    assert [str(v) for v in res.vars] == ["a", "s", "p", "o", "conf", "vf", "vu"]
    objects = {str(row[3]) for row in res}
    assert entity_iri('London "the city" <x>').value in objects and len(res) == 2
    if fmt == "csv":
        assert r.out.splitlines()[0] == "a,s,p,o,conf,vf,vu" and "\r\n" in r.out


def test_table_uses_prefixed_names_and_select_star_keeps_query_order(store):
    r = run_cli(store, "query", "-", stdin=b"SELECT * WHERE { GRAPH ?g { ?zz ?p ?aa } } LIMIT 3")
    header = r.out.splitlines()[0].split()
    assert header == ["g", "zz", "p", "aa"]
    assert "e:marie-curie-" in r.out or "e:ada-lovelace-" in r.out or "graph:" in r.out
    assert "https://w3id.org/semantic-rdf/e/" not in r.out


def test_read_only_errors_say_so(store):
    before = dump(store)
    r = run_cli(store, "query", "-", stdin=b"INSERT DATA { <urn:a> <urn:b> <urn:c> }")
    assert_refused(r)
    assert "read-only" in r.err and dump(store) == before


def test_as_of_takes_a_bare_date(store):
    r = run_cli(store, "--json", "query", "asof", "--bind", "s=Marie Curie", "--as-of", "2000-01-01")
    assert r.rc == 0 and json.loads(r.out)["results"]["bindings"] == []  # nothing was believed in 2000
    now = run_cli(store, "--json", "query", "asof", "--bind", "s=Marie Curie", "--as-of", "2999-01-01")
    assert len(json.loads(now.out)["results"]["bindings"]) == 2


def test_results_module_doctest():
    import doctest

    assert doctest.testmod(R).failed == 0
