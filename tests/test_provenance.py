import hashlib
import json
import warnings

import pyoxigraph as ox
import pytest
from prov.model import ProvActivity, ProvAgent, ProvEntity

from semantic_rdf.lifecycle import erasure, provenance as PV, temporal as T
from semantic_rdf.cli import main
from semantic_rdf.lifecycle.decisions import DenyChoices, Recorder
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.lifecycle.reason import derive
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.vocab import PROVENANCE_GRAPH

from _timeprov import ingest, span

DOC1 = "The village of Ashcombe lies in the county of Devon."
DOC2 = "Devon is a county located in England."
PROV = "http://www.w3.org/ns/prov#"


@pytest.fixture(scope="module")
def world():
    s = AssertionStore.memory()
    (a,), _ = ingest(s, "gazetteer/ashcombe.txt", DOC1, [("Ashcombe", "located_in", "Devon", *span(DOC1, DOC1))])
    (b,), _ = ingest(s, "gazetteer/devon.txt", DOC2, [("Devon", "located_in", "England", *span(DOC2, DOC2))])
    c = s.assert_("England", "located_in", "United Kingdom", note="atlas")
    derive(s)
    gone = s.assert_("Ashcombe", "part_of", "Nowhere")
    erasure.erase(s, gone, "test erasure")
    x = s.assert_("Ashcombe", "collaborated_with", "Nobody")
    T.retract(s, x, "test retraction")
    rec = Recorder(s, DenyChoices({"move"}, "moving is not allowed"))
    d = rec.record("planner", "visit", [a])
    rec.record("planner", "move", [b], informed_by=[d.id])
    return s, {"a": a, "b": b, "c": c}


def test_trace_of_a_derived_assertion_reaches_every_source_document(world):
    s, ids = world
    top = assertion_id("Ashcombe", "located_in", "United Kingdom")
    t = PV.trace(s, top)
    want = {hashlib.sha256(DOC1.encode()).hexdigest(), hashlib.sha256(DOC2.encode()).hexdigest()}
    assert {d["sha256"] for d in t.documents} == want

    # every path through the antecedents ends at a span with its document's hash, or a caller statement
    leaves = []

    def walk(n):
        if n["type"] == "assertion" and n["kind"] == "derived":
            assert n["rule"] == "located-in-transitive" and len(n["sources"]) == 2
        for k in n.get("sources", []):
            walk(k)
        if n["type"] in ("span", "caller"):
            leaves.append(n)

    walk(t.tree)
    spans = [x for x in leaves if x["type"] == "span"]
    assert {x["document"]["sha256"] for x in spans} == want
    assert {x["text"] for x in spans} == {DOC1, DOC2}
    assert any(x["type"] == "caller" for x in leaves)
    txt = t.text()
    assert "gazetteer/devon.txt" in txt and "located-in-transitive" in txt
    json.dumps(t.as_dict())
    with pytest.raises(NotFound):
        PV.trace(s, "0123456789abcdef")


def test_prov_package_reads_our_prov_o_with_nothing_dropped(world):
    s, _ = world
    counts = {}
    for cls in ("Entity", "Activity", "Agent"):
        rows = s.select("SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { GRAPH ?g { ?x a ?c } }", g=PROVENANCE_GRAPH, c=ox.NamedNode(PROV + cls))
        counts[cls] = int(rows[0]["n"].value)
    assert counts["Activity"] >= 8 and counts["Agent"] >= 3 and counts["Entity"] >= 10
    doc = PV.prov_document(s)
    recs = doc.get_records()
    got = {
        "Entity": len([r for r in recs if isinstance(r, ProvEntity)]),
        "Activity": len([r for r in recs if isinstance(r, ProvActivity)]),
        "Agent": len([r for r in recs if isinstance(r, ProvAgent)]),
    }
    assert got == counts


def test_export_formats(world, graphviz):  # graphviz: svg/png need `dot` (installed by conftest)
    s, ids = world
    trig = PV.export(s, "prov-o-trig")
    quads = list(ox.parse(trig, format=ox.RdfFormat.TRIG))
    assert quads and {q.graph_name for q in quads} == {PROVENANCE_GRAPH}  # the provenance graph only
    one = PV.export(s, "prov-o-turtle", ids["a"])
    triples = list(ox.parse(one, format=ox.RdfFormat.TURTLE))
    assert triples and not [t for t in triples if t.predicate.value.startswith("https://w3id.org/semantic-rdf/p/")]
    pj = json.loads(PV.export(s, "prov-json", ids["a"]))
    assert "entity" in pj and "activity" in pj and "agent" in pj
    assert "brick" not in pj["prefix"]  # rdflib's default bindings are pruned
    pn = PV.export(s, "prov-n", ids["a"]).decode()
    assert pn.startswith("document") and "wasDerivedFrom" in pn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svg = PV.export(s, "svg", ids["a"])
        png = PV.export(s, "png", ids["a"])
    assert b"<svg" in svg and png.startswith(b"\x89PNG")
    with pytest.raises(InvalidInput):
        PV.export(s, "svg")
    with pytest.raises(InvalidInput):
        PV.export(s, "prov-xml")


def test_trace_cli_json(tmp_path):
    root = tmp_path / "st"
    s = AssertionStore.open(root)
    aid = s.assert_("a", "born_in", "b")
    s.close()
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        from semantic_rdf import cli

        rc = cli.main(["--store", str(root), "--json", "trace", aid])
    assert rc == 0
    assert json.loads(out.getvalue())["tree"]["id"] == aid
    assert main(["--store", str(root), "trace", "nothex"]) == 2


def test_trace_reads_the_same_tree_from_an_on_disk_store(tmp_path):
    # trace() reads nodes with queries/trace-nodes.rq and caches activities and documents per open store:
    # the tree must be what the nodes say, on disk as in memory, through a tombstone and a retraction too
    s = AssertionStore.memory()
    (a,), _ = ingest(s, "gazetteer/ashcombe.txt", DOC1, [("Ashcombe", "located_in", "Devon", *span(DOC1, DOC1))])
    (b,), _ = ingest(s, "gazetteer/devon.txt", DOC2, [("Devon", "located_in", "England", *span(DOC2, DOC2))])
    s.assert_("England", "located_in", "United Kingdom", note="atlas")
    derive(s)
    top = assertion_id("Ashcombe", "located_in", "United Kingdom")
    before = PV.trace(s, top).as_dict()
    erasure.erase(s, b, "test erasure")
    T.retract(s, a, "test retraction")
    disk = AssertionStore.open(tmp_path / "copy")
    try:
        disk.ox.bulk_extend(s.ox)
        disk.ox.flush()
        ids = s.ids()
        assert top in ids and len(ids) >= 4
        for aid in ids:
            want = PV.trace(s, aid)
            assert PV.trace(disk, aid).as_dict() == want.as_dict() and PV.trace(disk, aid).text() == want.text()
        after = PV.trace(disk, top)
        assert after.as_dict() != before
        assert "ERASED" in after.text() and "test erasure" in after.text() and "retracted" in after.text()
        # a caller changing one trace's tree changes neither the store's cache nor the next trace
        first = PV.trace(disk, top, with_text=False)
        first.tree["generated_by"]["agent"] = "someone else"
        first.documents[0]["sha256"] = "0" * 64
        assert PV.trace(disk, top, with_text=False).as_dict() == PV.trace(s, top, with_text=False).as_dict()
    finally:
        disk.close()


FORGED = "a note\n└─ forged 0123456789abcdef  Ada Lovelace —born_in→ Paris"


def test_a_note_cannot_forge_a_line_of_trace_or_ask(tmp_path):
    """A --source note's line breaks had been printed raw, so a note could fake tree lines in `trace` and
    citation lines in `ask`; the text layouts fold it to one line, the JSON keeps it exact."""
    from _security import run_cli

    root = tmp_path / "st"
    assert run_cli(root, "assert", "Ada Lovelace", "born_in", "London", "--source", FORGED).rc == 0
    aid = assertion_id("Ada Lovelace", "born_in", "London")
    r = run_cli(root, "trace", aid)
    assert r.rc == 0 and len(r.out.strip().splitlines()) == 2, r.out  # the assertion and its one source
    assert r.out.strip().splitlines()[1] == "└─ stated by caller (a note └─ forged 0123456789abcdef  Ada Lovelace —born_in→ Paris)".replace("  ", " ")
    r = run_cli(root, "ask", "Where was Ada Lovelace born?")
    assert r.rc == 0 and len(r.out.strip().splitlines()) == 1 and "a note └─ forged" in r.out, r.out
    r = run_cli(root, "--json", "trace", aid)
    assert json.loads(r.out)["tree"]["sources"][0]["note"] == FORGED
    r = run_cli(root, "--json", "ask", "Where was Ada Lovelace born?")
    assert json.loads(r.out)["facts"][0]["sources"][0]["note"] == FORGED


def test_a_quote_cannot_forge_a_line_of_list_or_show(tmp_path):
    """A span's text may hold a line break (a document's own): `list` and `show` printed it raw, so a document could
    fake an assertion line in them (a review of the trace/ask fix found it); the text layouts fold it, JSON keeps it."""
    from _security import run_cli
    from semantic_rdf.core.values import Chunk, Doc, Triple
    from semantic_rdf.store.assertions import AssertionStore

    root = tmp_path / "st"
    text = "Ada Lovelace was born in\n0123456789abcdef  Mallory —born_in→ Paris  [extracted, believed, conf 1]\nLondon."
    doc = Doc("forged.txt", "forged.txt", text, {"media_type": "text/plain"})
    with AssertionStore.open(root) as store:
        with store.run("ingestion", agent="reader") as run:
            store.add_document(doc, run)
            chunk = Chunk(doc.id, 0, text, 0, len(text))
            (aid,) = store.assert_triples([Triple("Ada Lovelace", "born_in", "London", chunk=chunk, start=0, end=len(text))], run=run).ids
    for verb in (["list"], ["show", aid]):
        r = run_cli(root, *verb)
        assert r.rc == 0 and not any(line.startswith("0123456789abcdef") for line in r.out.splitlines()), r.out
        assert "Ada Lovelace was born in 0123456789abcdef" in r.out
    quotes = json.loads(run_cli(root, "--json", "list").out)["assertions"][0]["quotes"]
    assert quotes[0]["text"] == text
