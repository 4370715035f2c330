"""Import adds records; it never changes stored ones (docs/stores.md, "Import and pull").

The shapes see only an import's own quads, so one quad could rewrite history: close a stored belief with no
retraction, give a record a second m:confidence (after which every write to it was refused: a wedged store),
give a document a second text (the quoted spans change), an entity a second label, a claim graph a second
triple, or put quads where no verb and no `validate` looks (the default graph, any other graph). Each forgery
here is refused in the library (InvalidInput) and through the CLI (exit 2, one line), the store's quads
stay byte for byte what they were, and the store still conforms. Importing what is stored already, or an
export into an empty store, still works.
"""

from __future__ import annotations

import shutil

import pyoxigraph as ox
import pytest

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.values import Chunk, Doc, Triple
from semantic_rdf.core.vocab import (
    DOCUMENT_GRAPH,
    ENTITY_GRAPH,
    M,
    P,
    PROVENANCE_GRAPH,
    RDF_TYPE,
    RDFS_LABEL,
    SKOS,
    XSD,
    assertion_iri,
    claim_graph,
    entity_iri,
    predicate_iri,
    segment_iri,
)
from semantic_rdf.rdf.layout import belief_iri
from semantic_rdf.store.assertions import AssertionStore

from _security import dump, refused, run_cli

TEXT = "Ada Lovelace was born in London. She wrote Note G in 1843."
DOC = Doc("notes/ada.txt", "notes/ada.txt", TEXT, {"media_type": "text/plain"})


def _build(s: AssertionStore) -> str:
    """A stored statement, a document with a span, entities: what the forgeries below aim at."""
    aid = s.assert_("Ada Lovelace", "wrote", "Note G", score=0.9)
    with s.run("ingestion", agent="reader") as run:
        s.add_document(DOC, run)
        chunk = Chunk(DOC.id, 0, TEXT, 0, len(TEXT))
        s.assert_triples([Triple("Ada Lovelace", "born_in", "London", chunk=chunk, score=0.8, start=0, end=32)], run=run)
    return aid


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("imp") / "store"
    with AssertionStore.open(root) as s:
        aid = _build(s)
        doc = s.document_iri(DOC)
    return root, aid, doc


@pytest.fixture
def store(built, tmp_path):
    """A copy of the built store of its own for each test."""
    root, aid, doc = built
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    return copy, aid, doc


def _dt(text: str) -> ox.Literal:
    return ox.Literal(text, datatype=ox.NamedNode(XSD + "dateTime"))


def _forgery(name: str, aid: str, doc: ox.NamedNode) -> list[ox.Quad]:
    ada, g = entity_iri("Ada Lovelace"), PROVENANCE_GRAPH
    return {
        # a stored belief closed with no Retraction activity (the audit's reproduction)
        "close-belief": [ox.Quad(belief_iri(aid, 1), M.believedUntil, _dt("2026-12-07T23:59:59Z"), g)],
        # a second confidence for a stored record (the shapes then refused every later write to it)
        "second-confidence": [ox.Quad(assertion_iri(aid), M.confidence, ox.Literal("0.5", datatype=ox.NamedNode(XSD + "decimal")), g)],
        # a second text for a stored document: every quoted span would read other words
        "second-text": [ox.Quad(doc, M.text, ox.Literal("Ada Lovelace was born in Paris. She wrote nothing in 1843."), DOCUMENT_GRAPH)],
        "second-label": [ox.Quad(ada, RDFS_LABEL, ox.Literal("Countess of Lovelace"), ENTITY_GRAPH)],
        "claim-graph-extra": [ox.Quad(ada, predicate_iri("wrote"), entity_iri("Paris"), claim_graph(aid))],
        # an other name for an entity neither the store nor the input has
        "alt-label-of-nobody": [ox.Quad(entity_iri("Nobody At All"), ox.NamedNode(SKOS + "altLabel"), ox.Literal("Nobody"), ENTITY_GRAPH)],
        "default-graph": [ox.Quad(ada, RDFS_LABEL, ox.Literal("Ada"), ox.DefaultGraph())],
        "other-graph": [ox.Quad(ada, RDFS_LABEL, ox.Literal("Ada"), ox.NamedNode("http://evil/g"))],
        # a claim graph with no record, a text of no document, a provenance node that says not what it is
        "claim-graph-without-record": [ox.Quad(ada, predicate_iri("wrote"), entity_iri("Paris"), claim_graph("0123456789abcdef"))],
        "text-of-no-document": [ox.Quad(segment_iri("doc", "0123456789abcdef"), M.text, ox.Literal("words"), DOCUMENT_GRAPH)],
        "untyped-provenance-node": [ox.Quad(segment_iri("run", "forged"), P.endedAtTime, _dt("2026-12-07T23:59:59Z"), g)],
        "blank-node": [ox.Quad(ox.BlankNode("b0"), RDF_TYPE, M.Decision, g)],
    }[name]


FORGERIES = [
    "close-belief",
    "second-confidence",
    "second-text",
    "second-label",
    "claim-graph-extra",
    "alt-label-of-nobody",
    "default-graph",
    "other-graph",
    "claim-graph-without-record",
    "text-of-no-document",
    "untyped-provenance-node",
    "blank-node",
]


def _nquads(quads: list[ox.Quad]) -> bytes:
    data = ox.serialize(quads, format=ox.RdfFormat.N_QUADS)
    assert data is not None
    return data


def _refused_as_it_was(root, tmp_path, data: bytes) -> None:
    """`data` refused by the library (InvalidInput) and by the CLI (exit 2, one stderr line), every quad byte for
    byte as before and the store conforming after each."""
    with AssertionStore.open(root) as s:
        before = sorted(s.export("nquads").splitlines())
        with pytest.raises(InvalidInput):
            s.import_(data)
        assert sorted(s.export("nquads").splitlines()) == before
        assert s.validate().conforms
    path = tmp_path / "forged.nq"
    path.write_bytes(data)
    assert "Traceback" not in refused(root, "import", str(path)).err
    assert run_cli(root, "validate").rc == 0


@pytest.mark.parametrize("whole", [False, True], ids=["alone", "inside-the-export"])
@pytest.mark.parametrize("name", FORGERIES)
def test_a_forged_quad_is_refused_and_nothing_changes(store, tmp_path, name, whole):
    """Alone, or as one more line of the store's own export (all of whose other quads are stored already)."""
    root, aid, doc = store
    with AssertionStore.open(root) as s:
        extra = s.export("nquads") if whole else b""
    _refused_as_it_was(root, tmp_path, extra + _nquads(_forgery(name, aid, doc)))


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("close-belief", "is stored already"),
        ("second-confidence", "is stored already"),
        ("second-text", "is stored already"),
        ("second-label", "is stored already"),
        ("claim-graph-extra", "is stored already"),
        ("alt-label-of-nobody", "no rdf:type and rdfs:label"),
        ("default-graph", "the default graph"),
        ("other-graph", "<http://evil/g>"),
        ("claim-graph-without-record", "does not name it"),
        ("text-of-no-document", "no document"),
        ("untyped-provenance-node", "no rdf:type"),
    ],
)
def test_the_refusal_names_the_node(name, says):
    s = AssertionStore.memory()
    aid = _build(s)
    forged = _forgery(name, aid, s.document_iri(DOC))
    with pytest.raises(InvalidInput) as exc:
        s.import_(_nquads(forged))
    text = str(exc.value)
    assert says in text and "\n" not in text
    q = forged[0]
    if not isinstance(q.graph_name, ox.DefaultGraph) and q.graph_name.value != "http://evil/g":
        named = q.graph_name if q.graph_name.value.startswith("https://w3id.org/semantic-rdf/g/") else q.subject
        assert str(named) in text


def test_the_refused_confidence_leaves_the_record_writable():
    """The forged second confidence had wedged the store: every later write to the record failed the shapes."""
    s = AssertionStore.memory()
    aid = _build(s)
    with pytest.raises(InvalidInput):
        s.import_(_nquads(_forgery("second-confidence", aid, s.document_iri(DOC))))
    assert s.assert_("Ada Lovelace", "wrote", "Note G", score=0.95, note="again") == aid
    assert s.require(aid).count == 2 and s.require(aid).confidence == 0.95
    assert s.validate().conforms


def test_a_new_claim_graph_must_hold_what_its_record_echoes():
    """A new record whose claim graph holds another triple than the record's echo is refused whole."""
    src = AssertionStore.memory()
    aid = src.assert_("Grace Hopper", "born_in", "New York")
    g = f"<https://w3id.org/semantic-rdf/g/{aid}> .".encode()
    lines = src.export("nquads").splitlines(keepends=True)
    data = b"".join(x.replace(b"/e/new-york-", b"/e/london-") if x.rstrip().endswith(g) else x for x in lines)
    assert data.count(b"/e/london-") == 1  # the claim graph's object only
    dst = AssertionStore.memory()
    with pytest.raises(InvalidInput) as exc:
        dst.import_(data)
    assert "echoes" in str(exc.value) and aid in str(exc.value)
    assert len(dst.ox) == 0


def test_importing_the_same_export_twice_adds_nothing_and_succeeds(store, tmp_path):
    root, _, _ = store
    path = tmp_path / "store.nq"
    assert run_cli(root, "export", "-o", str(path)).rc == 0
    before = dump(root)
    for _ in range(2):
        r = run_cli(root, "import", str(path))
        assert r.rc == 0, r.err
        assert dump(root) == before
    other = tmp_path / "other"
    for _ in range(2):
        r = run_cli(other, "import", str(path))
        assert r.rc == 0, r.err
        assert dump(other) == before
    assert run_cli(other, "validate").rc == 0


def test_export_then_import_into_an_empty_store_round_trips():
    src = AssertionStore.memory()
    _build(src)
    src.assert_("Charles Babbage", "designed", "Analytical Engine", note="a second store's own record")
    for fmt in ("nquads", "trig", "jsonld"):
        dst = AssertionStore.memory()
        dst.import_(src.export(fmt), fmt)
        assert sorted(map(str, dst.ox)) == sorted(map(str, src.ox)), fmt
        assert dst.validate().conforms


def test_another_store_s_new_records_come_in_beside_the_stored_ones():
    """Records of another store are added: its caller agent and the entities both hold are the same nodes,
    stored already and equal, so they pass; its own records, runs and entities are new."""
    a, b = AssertionStore.memory(), AssertionStore.memory()
    a.assert_("Ada Lovelace", "wrote", "Note G")
    bid = b.assert_("Ada Lovelace", "born_in", "London")
    n = a.import_(b.export("nquads"))
    assert n == len(b.ox)
    assert a.get(bid) is not None and a.validate().conforms
    assert set(map(str, b.ox)) <= set(map(str, a.ox))


def test_the_same_record_from_another_store_is_refused():
    """Both stores hold the record (its count, confidence, run and time differ): merging it would give it two
    of each, so the import is refused, whole."""
    a, b = AssertionStore.memory(), AssertionStore.memory()
    aid = a.assert_("Ada Lovelace", "wrote", "Note G")
    assert b.assert_("Ada Lovelace", "wrote", "Note G", score=0.4) == aid
    before = sorted(map(str, a.ox))
    with pytest.raises(InvalidInput) as exc:
        a.import_(b.export("nquads"))
    assert "is stored already" in str(exc.value)
    assert sorted(map(str, a.ox)) == before and a.validate().conforms


def test_pull_into_the_store_that_pushed_adds_nothing(oxigraph_server, tmp_path):
    """push then pull back into the same store: every pulled node is stored already and equal (the pull's
    check passes), and a remote copy that closes a stored belief is refused."""
    from semantic_rdf.remote.sparql import NS_PREFIX, RemoteBackend
    from semantic_rdf.remote.sync import pull, push

    s = AssertionStore.open(tmp_path / "st")
    remote = RemoteBackend(oxigraph_server.dsn)
    remote.drop(NS_PREFIX)
    try:
        aid = _build(s)
        push(s, oxigraph_server.dsn, state_dir=tmp_path / "push-state", backend=remote)
        before = sorted(map(str, s.ox))
        assert pull(s, oxigraph_server.dsn) == len(s.ox)
        assert sorted(map(str, s.ox)) == before
        remote.insert(_forgery("close-belief", aid, s.document_iri(DOC)))
        with pytest.raises(InvalidInput):
            pull(s, oxigraph_server.dsn)
        assert sorted(map(str, s.ox)) == before and s.validate().conforms
    finally:
        remote.drop(NS_PREFIX)
        remote.close()
        s.close()


def _other_store_export() -> tuple[str, str]:
    """Another store's export of one new record (Ada born in Paris, at 0.7), and that record's id."""
    other = AssertionStore.memory()
    bid = other.assert_("Ada Lovelace", "born_in", "Paris", score=0.7)
    return other.export("nquads").decode(), bid


def _new_node_forgery(name: str, aid: str, doc: ox.NamedNode) -> str:
    """Quads of nodes the store does not hold, described whole, that are still not what the store would write
    (a helper's second review of the import rule found each accepted)."""
    exported, bid = _other_store_export()
    stated = f'a/{bid}> <https://w3id.org/semantic-rdf/ns#confidence> "0.7"'
    forged = {
        # a record under the id of another triple: a later assert of that triple would find this record
        "id-not-its-triple": exported.replace(bid, "0123456789abcdef"),
        "count-not-its-sources": exported.replace('ns#count> "1"', 'ns#count> "7"'),
        "confidence-not-its-best-source": exported.replace(stated, stated.replace('"0.7"', '"0.95"')),
    }
    if name in forged:
        return forged[name]
    ada, g = entity_iri("Ada Lovelace"), PROVENANCE_GRAPH
    label = "Grace Hopper"
    quads = {
        # a registry row under the IRI of another name
        "entity-iri-not-its-label": [
            ox.Quad(entity_iri(label), RDF_TYPE, M.Thing, ENTITY_GRAPH),
            ox.Quad(entity_iri(label), RDFS_LABEL, ox.Literal("Mallory"), ENTITY_GRAPH),
        ],
        # stored nodes described again in another graph, where the rule had taken them for new ones
        "stored-record-in-the-registry": [
            ox.Quad(assertion_iri(aid), RDF_TYPE, M.Thing, ENTITY_GRAPH),
            ox.Quad(assertion_iri(aid), RDFS_LABEL, ox.Literal("x"), ENTITY_GRAPH),
            ox.Quad(assertion_iri(aid), M.object, entity_iri("Mallory"), ENTITY_GRAPH),
        ],
        "stored-entity-in-provenance": [ox.Quad(ada, RDF_TYPE, P.Entity, g), ox.Quad(ada, RDFS_LABEL, ox.Literal("Mallory"), g)],
        "stored-document-in-the-registry": [
            ox.Quad(doc, RDF_TYPE, M.Thing, ENTITY_GRAPH),
            ox.Quad(doc, RDFS_LABEL, ox.Literal("y"), ENTITY_GRAPH),
            ox.Quad(doc, M.text, ox.Literal("Mallory was born in Paris."), ENTITY_GRAPH),
        ],
        # an erasure of a live stored document: every later ingest of its content would be refused as erased
        "erasure-of-a-stored-document": [
            ox.Quad(segment_iri("run", "forged-erasure"), RDF_TYPE, M.Erasure, g),
            ox.Quad(segment_iri("run", "forged-erasure"), ox.NamedNode(M.Erasure.value.rsplit("#", 1)[0] + "#target"), doc, g),
        ],
    }[name]
    return _nquads(quads).decode()


NEW_NODE_FORGERIES = [
    "id-not-its-triple",
    "count-not-its-sources",
    "confidence-not-its-best-source",
    "entity-iri-not-its-label",
    "stored-record-in-the-registry",
    "stored-entity-in-provenance",
    "stored-document-in-the-registry",
    "erasure-of-a-stored-document",
]


@pytest.mark.parametrize("name", NEW_NODE_FORGERIES)
def test_a_new_node_is_what_the_store_would_write_or_refused(store, tmp_path, name):
    root, aid, doc = store
    _refused_as_it_was(root, tmp_path, _new_node_forgery(name, aid, doc).encode())


def test_a_document_under_another_iri_than_its_id_and_sha256_give_is_refused(tmp_path):
    """A document's m:sha256 changed and its IRI kept (or the other way round): the store mints the IRI from the id
    and the hash (`doc_iri`), so such a node is none it would write."""
    import hashlib

    source = AssertionStore.memory()
    with source.run("ingestion", agent="reader") as run:
        source.add_document(DOC, run)
    exported = source.export("nquads").decode()
    sha = hashlib.sha256(TEXT.encode()).hexdigest()
    assert sha in exported
    with AssertionStore.open(tmp_path / "store") as s:
        with pytest.raises(InvalidInput, match="m:docId and m:sha256"):
            s.import_(exported.replace(sha, "0" * 64).encode())
        assert s.quad_count() == 0
        s.import_(exported.encode())  # the same export unforged comes in
        assert s.document_text(DOC) == TEXT


def test_a_document_read_from_bytes_other_than_its_text_imports(tmp_path):
    """m:sha256 is the hash of the bytes a document was read from: an HTML page's markup, a file's line ends. An
    export of such documents imports into an empty store (it was refused from 2026-12-07 to this test: their text has
    another sha256)."""
    import hashlib

    page = b"<html><body><p>Ada Lovelace was born in London.</p></body></html>"
    lines = b"Charles Babbage was born in London.\r\n"
    source = AssertionStore.memory()
    with source.run("ingestion", agent="reader") as run:
        for ref, raw, text, media in (
            ("ada.html", page, "Ada Lovelace was born in London.", "text/html"),
            ("babbage.txt", lines, "Charles Babbage was born in London.", "text/plain"),
        ):
            source.add_document(Doc(ref, ref, text, {"media_type": media, "sha256": hashlib.sha256(raw).hexdigest()}), run)
    with AssertionStore.open(tmp_path / "store") as s:
        s.import_(source.export("nquads"))
        assert s.validate().conforms
        assert [s.document_text(ref) for ref in ("ada.html", "babbage.txt")] == [
            "Ada Lovelace was born in London.",
            "Charles Babbage was born in London.",
        ]


def test_another_store_s_new_record_still_comes_in_whole(store):
    """The checks above read the input with the stored registry rows it names: a record of another store that
    names a stored entity (Ada) passes them."""
    root, aid, _ = store
    exported, bid = _other_store_export()
    with AssertionStore.open(root) as s:
        s.import_(exported.encode())
        assert s.get(bid) is not None and s.get(aid) is not None
        assert s.validate().conforms


def test_an_export_after_an_erasure_imports_into_an_empty_store(tmp_path):
    """An erasure blanks the erased span's characters in its document's text (m:redacted names the document): the
    export still imports whole, and the erased fact stays erased while the surviving one keeps its quote."""
    from semantic_rdf.lifecycle.erasure import erase

    text = "Ada Lovelace was born in London. Charles Babbage was born in London."
    doc = Doc("notes.txt", "notes.txt", text, {"media_type": "text/plain"})
    with AssertionStore.open(tmp_path / "a") as a:
        with a.run("ingestion", agent="reader") as run:
            a.add_document(doc, run)
            chunk = Chunk(doc.id, 0, text, 0, len(text))
            triples = [
                Triple("Ada Lovelace", "born_in", "London", chunk=chunk, start=0, end=32),
                Triple("Charles Babbage", "born_in", "London", chunk=chunk, start=33, end=68),
            ]
            kept, gone = a.assert_triples(triples, run=run).ids
        erase(a, gone, "asked to")
        exported = a.export("nquads")
    with AssertionStore.open(tmp_path / "b") as b:
        b.import_(exported)
        assert b.get(gone) is None and b.get(kept) is not None
        assert "Charles Babbage" not in b.document_text(doc) and b.document_text(doc).startswith("Ada Lovelace was born in London.")
        assert b.validate().conforms
