"""`trace` tells the belief history, and the provenance picture explains one assertion."""

from __future__ import annotations

import re
from collections import Counter
from html import unescape

import pytest

from semantic_rdf.lifecycle import provenance as PV
from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Chunk, Doc, Triple
from semantic_rdf.core.vocab import P

DOCS = {"lovelace.txt": "Ada Lovelace wrote Note G.", "babbage.txt": "Charles Babbage designed the Analytical Engine."}


@pytest.fixture()
def store():
    s = AssertionStore.memory()
    with s.run("ingestion", agent="test-extractor") as run:  # one run reads both documents
        ids = []
        for ref, text in DOCS.items():
            doc = Doc(ref, ref, text)
            s.add_document(doc, run)
            subj, rest = ("Ada Lovelace", ("wrote", "Note G")) if ref == "lovelace.txt" else ("Charles Babbage", ("designed", "Analytical Engine"))
            ids += s.assert_triples([Triple(subj, *rest, Chunk(doc.id, 0, text, 0, len(text)), 0.8)], run=run).ids
    s.ids_ = ids  # type: ignore[attr-defined]
    return s


def test_trace_shows_each_retraction_and_reinstatement_with_time_agent_reason(store):
    aid = store.ids_[0]
    store.assert_("Ada Lovelace", "wrote", "Note G", note="biography p.12")
    T.retract(store, aid, "misread", agent="alice")
    T.reinstate(store, aid, "checked the scan", agent="bob")
    T.retract(store, aid, "wrong after all", agent="carol")
    t = PV.trace(store, aid)
    text = t.text()
    head = text.splitlines()[0]
    assert "[extracted+supplied, retracted" in head and "first recorded by test-extractor" in head
    changes = [line.strip("│ ") for line in text.splitlines() if re.search(r"(retracted|reinstated) \d{4}-", line)]
    assert [c.split(" ")[0] for c in changes] == ["retracted", "reinstated", "retracted"]
    assert changes[0].endswith("by alice: misread") and changes[1].endswith("by bob: checked the scan")
    assert changes[2].endswith("by carol: wrong after all")
    hist = t.tree["history"]
    assert len(hist) == 2 and hist[0]["closed_by"]["agent"] == "alice" and hist[1]["opened_by"]["agent"] == "bob"
    assert t.tree["kinds"] == ["extracted", "supplied"]


def test_a_never_retracted_assertion_has_no_change_lines(store):
    text = PV.trace(store, store.ids_[1]).text()
    assert "retracted 2" not in text and "reinstated" not in text and "[extracted, believed" in text


def _svg_texts(svg: bytes) -> list[str]:
    return [unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg.decode("utf-8"))]


def test_picture_shows_triple_quote_and_only_its_own_document(store):
    aid = store.ids_[0]
    texts = _svg_texts(PV.export(store, "svg", aid))
    joined = "\n".join(texts)
    assert any(t.startswith("Ada Lovelace —wrote→ Note G") and "“Ada Lovelace wrote Note G.”" in t for t in texts)
    assert any(t.startswith("span 0..26 of lovelace.txt") for t in texts)
    assert "lovelace.txt" in texts  # the document node is labelled with its reference
    assert "babbage.txt" not in joined and "Babbage" not in joined  # the run read it; this fact did not
    edge_labels = {"used", "wasGeneratedBy", "wasDerivedFrom", "wasAssociatedWith", "wasAttributedTo", "wasInvalidatedBy", "wasInformedBy"}
    twice = [t for t, n in Counter(texts).items() if n > 1 and t not in edge_labels]
    assert twice == []  # no node prints its id as its label a second time


def test_picture_renders_as_png(store):
    png = PV.export(store, "png", store.ids_[0])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


def test_exports_other_than_the_picture_keep_every_quad(store):
    aid = store.ids_[0]
    used = {q.object.value for q in PV.prov_quads(store, aid) if q.predicate == P.used}
    assert {store.document_iri(Doc(r, r, t)).value for r, t in DOCS.items()} <= used
    pictured = {q.object.value for q in PV.picture_quads(store, aid) if q.predicate == P.used}
    assert pictured == {store.document_iri(Doc("lovelace.txt", "lovelace.txt", DOCS["lovelace.txt"])).value}
