"""Browsing a store: list, show, search, entities, predicates (library and command line)."""

from __future__ import annotations

import doctest
import json

import pytest

from semantic_rdf.lifecycle import browse
from semantic_rdf.lifecycle.browse import entities, list_assertions, predicates, resolve_entity, search, show
from semantic_rdf.lifecycle.decisions import Recorder
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.lifecycle.temporal import retract
from semantic_rdf.core.values import Chunk, Doc, Triple
from semantic_rdf.core.vocab import predicate_iri, predicate_names

from _security import HOSTILE, assert_refused, dump, run_cli

TEXT_A = "Marie Curie was born in Warsaw. She discovered Polonium."
TEXT_B = "Alan Turing was born in Maida Vale."


def _fill(store: AssertionStore) -> dict[str, str]:
    ids = {}
    for ref, text, facts in (
        ("a.txt", TEXT_A, [("Marie Curie", "born_in", "Warsaw", 0, 31), ("Marie Curie", "discovered", "Polonium", 32, 56)]),
        ("b.txt", TEXT_B, [("Alan Turing", "born_in", "Maida Vale", 0, 35)]),
    ):
        doc = Doc(ref, ref, text)
        with store.run("ingestion", agent="test-extractor") as run:
            store.add_document(doc, run)
            triples = [Triple(s, p, o, Chunk(doc.id, 0, text, 0, len(text)), 0.8, start=a, end=b) for s, p, o, a, b in facts]
            report = store.assert_triples(triples, run=run)
        for (s, p, o, *_), aid in zip(facts, report.ids):
            ids[f"{s}/{p}"] = aid
        ids[f"run:{ref}"] = run.id
    ids["supplied"] = store.assert_("Ada Lovelace", "wrote", "Note G", score=0.9)
    return ids


@pytest.fixture()
def filled():
    store = AssertionStore.memory()
    return store, _fill(store)


def _triples(page) -> set[tuple[str, str, str]]:
    return {(r.record.subject, r.record.predicate, r.record.object) for r in page.rows}


def test_list_filters_each_narrow_to_what_they_name(filled):
    store, ids = filled
    assert len(list_assertions(store).rows) == 4
    assert _triples(list_assertions(store, subject="marie  CURIE")) == {
        ("Marie Curie", "born_in", "Warsaw"),
        ("Marie Curie", "discovered", "Polonium"),
    }
    assert _triples(list_assertions(store, predicate="born_in")) == {("Marie Curie", "born_in", "Warsaw"), ("Alan Turing", "born_in", "Maida Vale")}
    assert _triples(list_assertions(store, obj="Warsaw")) == {("Marie Curie", "born_in", "Warsaw")}
    assert _triples(list_assertions(store, reference="b.txt")) == {("Alan Turing", "born_in", "Maida Vale")}
    assert _triples(list_assertions(store, run=ids["run:a.txt"])) == {("Marie Curie", "born_in", "Warsaw"), ("Marie Curie", "discovered", "Polonium")}
    assert list_assertions(store, reference="nowhere.txt").rows == ()


def test_list_quotes_are_the_exact_spans(filled):
    store, _ = filled
    quotes = {q.text for row in list_assertions(store).rows for q in row.quotes}
    assert quotes == {"Marie Curie was born in Warsaw.", "She discovered Polonium.", TEXT_B}
    row = list_assertions(store, predicate="discovered").rows[0]
    assert TEXT_A[row.quotes[0].start : row.quotes[0].end] == row.quotes[0].text


def test_list_state_follows_retraction(filled):
    store, ids = filled
    retract(store, ids["Marie Curie/born_in"], "misread")
    assert _triples(list_assertions(store, state="retracted")) == {("Marie Curie", "born_in", "Warsaw")}
    assert ("Marie Curie", "born_in", "Warsaw") not in _triples(list_assertions(store, state="believed"))
    assert len(list_assertions(store).rows) == 4
    with pytest.raises(InvalidInput):
        list_assertions(store, state="gone")


def test_list_pages_without_gaps_or_repeats(filled):
    store, _ = filled
    seen, offset = [], 0
    while True:
        page = list_assertions(store, limit=3, offset=offset)
        seen += [r.record.id for r in page.rows]
        if not page.more:
            break
        offset += 3
    assert seen == sorted(store.ids()) and len(seen) == 4
    with pytest.raises(InvalidInput):
        list_assertions(store, limit=0)


def test_unknown_names_suggest_the_closest(filled):
    store, _ = filled
    with pytest.raises(NotFound, match="did you mean 'Marie Curie'"):
        resolve_entity(store, "Marie Curi")
    with pytest.raises(NotFound) as exc:
        list_assertions(store, subject="Zorblax")
    assert "did you mean" not in str(exc.value)
    with pytest.raises(InvalidInput, match="did you mean born_in"):
        predicate_iri("born in")
    with pytest.raises(InvalidInput, match="did you mean born_in"):
        predicate_iri("borne_in")


def test_show_has_both_clocks_quotes_trace_and_decisions(filled):
    store, ids = filled
    aid = ids["Marie Curie/born_in"]
    Recorder(store).record("tester", "answer: where was Marie Curie born?", because=[aid])
    retract(store, aid, "misread")
    s = show(store, aid)
    assert s.listed.believed is False
    assert s.listed.record.believed[-1][1] is not None  # closed in record time
    assert [q.text for q in s.listed.quotes] == ["Marie Curie was born in Warsaw."]
    assert "a.txt" in s.trace_text and s.trace["id"] == aid
    assert [d.choice for d in s.decisions] == ["answer: where was Marie Curie born?"]
    with pytest.raises(NotFound):
        show(store, "0123456789abcdef")


def test_entities_and_search(filled):
    store, _ = filled
    by_label = {e.label: e for e in entities(store)}
    assert set(by_label) == {"Marie Curie", "Warsaw", "Polonium", "Alan Turing", "Maida Vale", "Ada Lovelace", "Note G"}
    assert by_label["Marie Curie"].uses == 2 and by_label["Warsaw"].uses == 1
    hits = search(store, "WARSAW")
    assert [h.label for h in hits if h.kind == "entity"] == ["Warsaw"]
    text_hits = [h for h in hits if h.kind == "text"]
    assert [(h.label, h.at) for h in text_hits] == [("a.txt", TEXT_A.index("Warsaw"))]
    with pytest.raises(InvalidInput):
        search(store, "   ")


@pytest.mark.parametrize("needle", HOSTILE[:22])
def test_search_and_resolve_take_hostile_text_literally(filled, needle):
    store, _ = filled
    assert search(store, needle) == [] or all(needle.strip().lower() in h.snippet.lower() for h in search(store, needle))
    with pytest.raises((NotFound, InvalidInput)):
        resolve_entity(store, needle)


def test_predicates_are_the_taxonomy_with_wikidata():
    preds = {p.name: p for p in predicates()}
    assert set(preds) == set(predicate_names()) and len(preds) == 53
    assert ("exact", "P19") in preds["born_in"].wikidata
    assert ("inverse", "P50") in preds["authored"].wikidata
    assert all(p.category for p in preds.values())


def test_module_doctest():
    assert doctest.testmod(browse, optionflags=doctest.ELLIPSIS).failed == 0


def test_cli_browse_verbs(tmp_path):
    store = tmp_path / "s"
    with AssertionStore.open(store) as s:
        ids = _fill(s)
    r = run_cli(store, "list", "--subject", "Marie Curie", "--limit", "1")
    assert r.rc == 0 and "Marie Curie" in r.out and "more: --offset 1" in r.out
    r = run_cli(store, "--json", "list", "--predicate", "born_in")
    assert r.rc == 0 and len(json.loads(r.out)["assertions"]) == 2
    r = run_cli(store, "show", ids["Alan Turing/born_in"])
    assert r.rc == 0 and TEXT_B in r.out and "believed    from" in r.out
    r = run_cli(store, "--json", "search", "turing")
    assert r.rc == 0 and {h["kind"] for h in json.loads(r.out)} == {"entity", "text"}
    r = run_cli(store, "entities")
    assert r.rc == 0 and "Ada Lovelace" in r.out
    r = run_cli(store, "predicates")
    assert r.rc == 0 and "born_in" in r.out and "P19" in r.out
    before = dump(store)
    for argv in (
        ("list", "--subject", "Marie Curi"),
        ("list", "--predicate", "born in"),
        ("show", "not-an-id"),
        ("list", "--limit", "0"),
        ("entities", "--name", "Nobody"),
    ):
        r = run_cli(store, *argv)
        assert_refused(r)
    assert "did you mean" in run_cli(store, "list", "--predicate", "born in").err
    assert dump(store) == before
