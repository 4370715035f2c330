"""Entity classes and other names (issue 17, build item 3).

* The classes an extractor finds (m:Person, m:City, ...) reach the entity graph. They never did: the
  loader read `ex.entity_types or {}`, which replaced the extractor's dict (empty when an ingest begins) by a
  new one, so every entity was stored as m:Thing, and an extractor in a forked child (ahead.py) was never
  read at all. The findings now travel with each PipelineResult.
* Within a document, the other names of an entity ("Desmarais" for "Paul Desmarais Jr") are stored as
  skos:altLabel in the same checked batch as its assertions: never a pronoun or a lower-case description.
* `ask` links an entity by an other name; an other name two entities share links neither (refused, naming
  them). `entities` shows them, `query asof --bind s=ALIAS` resolves them.
* `erase --entity` removes them with the entity, and an erased name survives as no one's other name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from semantic_rdf.rdf import layout as L
from semantic_rdf.answer.answerer import REFUSAL, Ambiguous, Linker, parse_question
from semantic_rdf.lifecycle.erasure import erase_entity
from semantic_rdf.core.identity import fold
from semantic_rdf.hdc.memory import Entity
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Triple
from semantic_rdf.core.vocab import ENTITY_GRAPH, NS, RDF_TYPE, SKOS, entity_iri

ROOT = Path(__file__).resolve().parents[1]
ALT = ox.NamedNode(SKOS + "altLabel")

# short biographies written the way Wikipedia introductions are
PAUL = (
    "Paul Desmarais Jr. is a Canadian businessman. Desmarais was born in Sudbury, Ontario. He studied at "
    "McGill University. Desmarais is the son of Paul Desmarais Sr. He works for Power Corporation of Canada.\n"
)
ANDRE = "André Desmarais is a Canadian businessman. Desmarais was born in Montreal. He studied at the University of Ottawa.\n"


def cli(store: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "semantic_rdf", "--store", str(store), *args], input=stdin, capture_output=True, text=True, env=env, timeout=300
    )


def ingest(store: Path, tmp: Path, name: str, text: str, *extra: str) -> None:
    f = tmp / name
    f.write_text(text, encoding="utf-8")
    r = cli(store, "ingest", *extra, str(f))
    assert r.returncode == 0, r.stderr


def entity_rows(store: Path) -> dict[str, dict]:
    """name -> {"types": {class local names}, "aliases": {other names}} from the stored entity graph."""
    st = AssertionStore.open(store, read_only=True)
    try:
        out: dict[str, dict] = {}
        for q in st.ox.quads_for_pattern(None, ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"), None, ENTITY_GRAPH):
            node = q.subject
            out[q.object.value] = {
                "types": {t.object.value.rsplit("#", 1)[-1] for t in st.ox.quads_for_pattern(node, RDF_TYPE, None, ENTITY_GRAPH)},
                "aliases": {a.object.value for a in st.ox.quads_for_pattern(node, ALT, None, ENTITY_GRAPH)},
            }
        return out
    finally:
        st.close()


def all_aliases(store: Path) -> set[str]:
    return {a for row in entity_rows(store).values() for a in row["aliases"]}


@pytest.fixture(scope="module")
def paul(tmp_path_factory) -> Path:
    """A store holding PAUL, ingested through `semantic-rdf ingest` with the default (statistical) extractor."""
    tmp = tmp_path_factory.mktemp("paul")
    store = tmp / "store"
    ingest(store, tmp, "paul.txt", PAUL)
    return store


def test_default_extractor_stores_classes_and_other_names(paul):
    rows = entity_rows(paul)
    full = [n for n in rows if n.startswith("Paul Desmarais Jr")]
    assert len(full) == 1, rows  # one entity for "Paul Desmarais Jr.", "Desmarais" and "He"
    assert rows[full[0]]["types"] == {"Person"}
    assert "Desmarais" in rows[full[0]]["aliases"]
    assert "Desmarais" not in rows  # the surname is no entity of its own
    assert rows["McGill University"]["types"] == {"Organization"}
    assert rows["Sudbury"]["types"] & {"Place", "City"}
    assert any(r["types"] - {"Thing"} for r in rows.values())
    for alias in all_aliases(paul):  # never a pronoun or a lower-case word
        assert alias[0].isupper() and fold(alias) not in {"he", "she", "it", "they", "his", "her"}, alias


def test_rule_extractor_stores_classes(tmp_path):
    store = tmp_path / "store"
    ingest(store, tmp_path, "paul.txt", PAUL, "--extractor", "rules")
    rows = entity_rows(store)
    assert rows["McGill University"]["types"] == {"Organization"}
    assert rows["Sudbury"]["types"] == {"Place"}
    assert rows["Paul Desmarais Sr"]["types"] == {"Person"}


def test_entities_shows_aliases_and_validate_conforms(paul):
    r = cli(paul, "entities")
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("Paul Desmarais Jr"))
    assert "[Person]" in line and "aka Desmarais" in line
    v = cli(paul, "validate")  # pyshacl over the whole store, altLabel included
    assert v.returncode == 0 and "conforms" in v.stdout, v.stdout + v.stderr


def test_query_binds_an_alias(paul):
    r = cli(paul, "query", "asof", "--bind", "s=Desmarais")
    assert r.returncode == 0, r.stderr
    assert "p:born_in" in r.stdout and "e:sudbury" in r.stdout


def test_ask_links_an_alias(paul):
    r = cli(paul, "ask", "Where was Desmarais born?")
    assert r.returncode == 0, r.stderr
    assert "Sudbury" in r.stdout and "Paul Desmarais Jr" in r.stdout


def test_ask_links_a_name_without_its_middle_initial(tmp_path):
    store = tmp_path / "store"
    ingest(store, tmp_path, "fillmore.txt", "Charles J. Fillmore was an American linguist. Fillmore was born in Saint Paul, Minnesota.\n")
    assert "Charles Fillmore" in entity_rows(store)["Charles J. Fillmore"]["aliases"]
    r = cli(store, "ask", "Where was Charles Fillmore born?")
    assert r.returncode == 0, r.stderr
    assert "Charles J. Fillmore was born in Saint Paul" in r.stdout


def test_shared_alias_is_refused_naming_both(paul, tmp_path):
    store = tmp_path / "store"
    ingest(store, tmp_path, "paul.txt", PAUL)
    ingest(store, tmp_path, "andre.txt", ANDRE)
    assert "Desmarais" in entity_rows(store)["André Desmarais"]["aliases"]
    r = cli(store, "ask", "--json", "Where was Desmarais born?")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["allowed"] is False and out["text"] == REFUSAL and not out["facts"]
    assert "André Desmarais" in out["reason"] and "Paul Desmarais Jr" in out["reason"]
    r = cli(store, "ask", "Where was André Desmarais born?")  # the full name still answers
    assert "Montreal" in r.stdout
    # erase --entity takes names, not other names: it says whose other name it is
    r = cli(store, "erase", "--entity", "Desmarais", "--reason", "test")
    assert r.returncode == 2 and "André Desmarais" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_erase_entity_removes_its_aliases(paul, tmp_path):
    store = tmp_path / "store"
    ingest(store, tmp_path, "paul.txt", PAUL, "--floor", "0.6")  # a floor that keeps the facts read across sentences
    name = next(n for n in entity_rows(store) if n.startswith("Paul Desmarais Jr"))
    r = cli(store, "erase", "--entity", name, "--reason", "a subject's request")
    # the facts read across sentences (Sudbury located_in Canada) quote the passages that name him
    assert r.returncode == 2 and "--with-shared-evidence" in r.stderr
    r = cli(store, "erase", "--entity", name, "--reason", "a subject's request", "--with-shared-evidence")
    assert r.returncode == 0, r.stderr
    assert "Desmarais" not in all_aliases(store)
    st = AssertionStore.open(store, read_only=True)
    try:
        assert not list(st.ox.quads_for_pattern(entity_iri(name), None, None, ENTITY_GRAPH))
        texts = [q.object.value for q in st.ox.quads_for_pattern(None, ox.NamedNode(NS + "text"), None, None)]
        assert texts and not any("Desmarais was born" in t for t in texts)  # the other name left the text too
    finally:
        st.close()
    r = cli(store, "ask", "Where was Desmarais born?")
    assert "Sudbury" not in r.stdout
    assert cli(store, "validate").returncode == 0


# ------------------------------------------------------------------ the library parts


def test_alias_names_keeps_names_only():
    got = L.alias_names(
        "Paul Desmarais Jr.",
        [
            "Desmarais",
            "He",
            "he",
            "It",
            "The company",
            "his father",
            "desmarais",
            "Paul Desmarais Jr.",
            "His father",
            "PDJ",
            "Power Corporation of Canada",
            "x\u0000y",
            "D" * 5000,
        ],
    )
    assert got == ["Desmarais", "PDJ", "Power Corporation of Canada"]


def test_aliases_for_a_stored_entity_and_erasing_the_alias_name():
    store = AssertionStore.memory()
    with store.run("statement") as run:
        store.assert_triples(
            [Triple("Ada Lovelace", "born_in", "London"), Triple("Lovelace", "born_in", "London")],
            run=run,
            entity_types={"Ada Lovelace": "Person", "London": "City"},
        )
    with store.run("statement") as run:  # the entity exists: its other names are added, once
        store.assert_triples(
            [Triple("Ada Lovelace", "educated_at", "University of London")], run=run, aliases={"Ada Lovelace": {"Lovelace", "Ada", "she"}}
        )
        store.assert_triples([Triple("Ada Lovelace", "educated_at", "University of London")], run=run, aliases={"Ada Lovelace": {"Lovelace"}})
    ada = entity_iri("Ada Lovelace")
    assert {q.object.value for q in store.ox.quads_for_pattern(ada, ALT, None, ENTITY_GRAPH)} == {"Ada", "Lovelace"}
    assert ox.Quad(ada, RDF_TYPE, ox.NamedNode(NS + "Person"), ENTITY_GRAPH) in store.ox
    assert ox.Quad(entity_iri("London"), RDF_TYPE, ox.NamedNode(NS + "City"), ENTITY_GRAPH) in store.ox
    # erasing the entity "Lovelace" leaves that name as no one's other name
    erase_entity(store, "Lovelace", "test")
    assert {q.object.value for q in store.ox.quads_for_pattern(ada, ALT, None, ENTITY_GRAPH)} == {"Ada"}
    erase_entity(store, "Ada Lovelace", "test")
    assert not list(store.ox.quads_for_pattern(None, ALT, None, ENTITY_GRAPH))
    store.close()


def test_linker_links_aliases_and_refuses_shared_ones():
    def E(name, *aliases, cls="Person"):
        return Entity("urn:x:" + name, name, fold(name), cls, tuple(aliases))

    jr, sr, curie = E("Paul Desmarais Jr", "Desmarais", "PDJ"), E("Paul Desmarais Sr", "Desmarais"), E("Curie")
    marie = E("Marie Curie", "Curie")
    lk = Linker([jr, sr, curie, marie])
    p = parse_question("Where was PDJ born?", lk)
    assert p.linked == (jr,) and not p.unknown
    p = parse_question("Where was Desmarais born?", lk)
    assert p.linked == () and not p.unknown and len(p.ambiguous) == 1
    assert isinstance(p.ambiguous[0], Ambiguous) and set(p.ambiguous[0].entities) == {jr, sr}
    p = parse_question("Where was Curie born?", lk)  # a registry entity of that name links; the holder comes along
    assert p.linked == (curie,) and marie in p.aliases


@pytest.mark.parametrize("mode", ["thread", "child"])
def test_findings_cross_the_read_ahead(tmp_path, mode):
    """In a forked child (ahead.py) the extractor's state never reaches the parent: the findings ride on
    each PipelineResult, so classes and other names are stored in both read-ahead modes."""
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.pipeline.stages import build_pipeline
    from semantic_rdf.pipeline.statistical import StatisticalExtractor

    f = tmp_path / "paul.txt"
    f.write_text(PAUL, encoding="utf-8")
    store = AssertionStore.memory()
    # the father's one fact (parent_of) is what stores him, and it calibrates under the default floor: not what this tests
    load(store, build_pipeline([str(f)], extractor=StatisticalExtractor(floor=0.5)), [str(f)], read_ahead=mode)
    people = [q.subject for q in store.ox.quads_for_pattern(None, RDF_TYPE, ox.NamedNode(NS + "Person"), ENTITY_GRAPH)]
    assert len(people) >= 2
    assert any(q.object.value == "Desmarais" for p in people for q in store.ox.quads_for_pattern(p, ALT, None, ENTITY_GRAPH))
    store.close()
