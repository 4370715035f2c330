"""Erasure semantics (issue 20, Build 1, 2 and 8; reproductions 1, 2 and 9).

What an erase removes, where it refuses (shared evidence), the document and entity forms, tombstones
winning over import / pull / assert / ingest, and erased names leaving decisions, labels and side tables.
Every check of "gone" is a raw-bytes search of every file of the store directory and its side tables,
after `compact`, as a user runs them (the real command line).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from semantic_rdf.lifecycle import erasure, temporal as T
from semantic_rdf.lifecycle.decisions import Recorder
from semantic_rdf.core.errors import ErasedData, SharedEvidence
from semantic_rdf.hdc.gate import entity_key
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.hdc.memory import Memory
from semantic_rdf.hdc.sidetables import side_path
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.remote.sync import pull, push

from _security import dump, run_cli
from _timeprov import ingest, span


def files_with(root: Path, needle: str) -> list[str]:
    """Every file of the store directory and of its side tables (with WAL and shared memory) whose raw bytes
    hold `needle` (UTF-8), compared case-insensitively for ASCII."""
    side = side_path(root)
    files = [f for f in Path(root).rglob("*") if f.is_file()]
    files += [f for f in side.parent.glob(side.name + "*") if f.is_file()]
    low = needle.lower().encode("utf-8")
    return sorted(str(f) for f in files if low in f.read_bytes().lower())


def quotes(store) -> dict[str, list[str]]:
    """id -> the quoted text of each span source, for every assertion the store holds."""
    out = {}
    for i in store.ids():
        rec = store.require(i)
        out[i] = [store.span_text(s) for s in rec.sources if s.kind == "span"]
    return out


def cli(root, *argv):
    return run_cli(root, *argv)


# ------------------------------------------------------------------ Build 1: what an erase removes, and when it refuses


def test_a_refusal_names_every_assertion_the_flag_would_erase(tmp_path):
    """Quotes that overlap in a chain: erasing A blanks text B quotes; erasing B too blanks text C quotes. The refusal
    names B and C (`ids`, and the one line), so that it says all that --with-shared-evidence erases; D stays."""
    text = "Ada Lovelace wrote Note G in London. Charles Babbage designed the Analytical Engine. Mary Somerville lived in Rome."
    root = tmp_path / "store"
    s = AssertionStore.open(root)
    try:
        a, b, c, d = ingest(
            s,
            "chain.txt",
            text,
            [
                ("Ada Lovelace", "wrote", "Note G", 0, 25),
                ("Note G", "located_in", "London", 19, 35),
                ("Charles Babbage", "designed", "Analytical Engine", 29, 83),
                ("Mary Somerville", "born_in", "Rome", 84, len(text)),
            ],
        )[0]
        before = dump(root)
        with pytest.raises(SharedEvidence) as exc:
            erasure.erase(s, a, "test")
        assert exc.value.ids == tuple(sorted((b, c))) and b in str(exc.value) and c in str(exc.value)
        assert dump(root) == before
    finally:
        s.close()
    r = cli(root, "erase", a, "--reason", "test")
    assert r.rc == 2 and len(r.err_lines) == 1 and b in r.err and c in r.err
    r = cli(root, "erase", a, "--reason", "test", "--with-shared-evidence")
    assert r.rc == 0
    s = AssertionStore.open(root)
    try:
        assert {i: T.state(s, i) for i in (a, b, c, d)} == {a: "erased", b: "erased", c: "erased", d: "believed"}
    finally:
        s.close()


def test_reproduction_1_erase_refuses_when_a_survivor_quotes_the_same_text(tmp_path):
    root = tmp_path / "store"
    doc = tmp_path / "a.txt"
    doc.write_text("Ada Lovelace wrote Note G. Charles Babbage designed the Analytical Engine.\n")
    assert cli(root, "ingest", "--extractor", "rules", str(doc)).rc == 0
    wrote = assertion_id("Ada Lovelace", "wrote", "Note G")
    designed = assertion_id("Charles Babbage", "designed", "Analytical Engine")
    before = dump(root)
    s = AssertionStore.open(root)
    try:
        assert set(s.ids()) == {wrote, designed}, "the splitter joins both sentences into one span (the issue's case)"
        with pytest.raises(SharedEvidence) as exc:
            erasure.erase(s, wrote, "test")
        assert exc.value.ids == (designed,)
    finally:
        s.close()
    r = cli(root, "erase", wrote, "--reason", "test")
    assert r.rc == 2 and len(r.err_lines) == 1 and designed in r.err and "--with-shared-evidence" in r.err
    assert dump(root) == before, "a refused erase writes nothing"
    r = cli(root, "ask", "Who designed the Analytical Engine?", "--mode", "balanced")
    assert r.rc == 0 and "Babbage" in r.out and erasure.FILLER not in r.out

    r = cli(root, "--json", "erase", wrote, "--reason", "test", "--with-shared-evidence")
    assert r.rc == 0, r.err
    assert cli(root, "compact").rc == 0
    for needle in ("Note G", "Babbage", "Analytical Engine", "Lovelace"):
        assert files_with(root, needle) == [], needle
    s = AssertionStore.open(root)
    try:
        assert T.state(s, wrote) == T.state(s, designed) == "erased"
        reasons = {r["a"].value.rsplit("/", 1)[-1]: r["reason"].value for r in s.run_query("tombstones")}
        assert reasons[wrote] == "test" and "shared" in reasons[designed]  # each recorded on its own tombstone
        assert s.validate().conforms
    finally:
        s.close()


TEXT = "Quorvath Zendelmire was born in Plinthaven. Ada Lovelace was born in London. Charles Babbage was born in Walworth."


def test_erasing_an_assertion_keeps_every_other_quote(tmp_path):
    root = tmp_path / "store"
    s = AssertionStore.open(root)
    claims = [
        ("Quorvath Zendelmire", "born_in", "Plinthaven", *span(TEXT, "Quorvath Zendelmire was born in Plinthaven.")),
        ("Ada Lovelace", "born_in", "London", *span(TEXT, "Ada Lovelace was born in London.")),
        ("Charles Babbage", "born_in", "Walworth", *span(TEXT, "Charles Babbage was born in Walworth.")),
    ]
    (secret, *_), _ = ingest(s, "bio.txt", TEXT, claims)
    before = quotes(s)
    s.close()
    r = cli(root, "erase", secret, "--reason", "right to erasure")
    assert r.rc == 0, r.err
    assert cli(root, "compact").rc == 0
    for needle in ("Zendelmire", "Quorvath", "born in Plinthaven"):
        assert files_with(root, needle) == [], needle
    s = AssertionStore.open(root)
    try:
        after = quotes(s)
        assert set(after) == set(before) - {secret}
        assert all(after[i] == before[i] for i in after)  # every survivor still traces to its original quote
        assert s.validate().conforms
    finally:
        s.close()


# ------------------------------------------------------------------ erase --document


def test_erase_document_revokes_a_source_and_refuses_its_content_again(tmp_path):
    root = tmp_path / "store"
    doc = tmp_path / "bio.txt"
    body = "Zorblax Quintavenn was born in Vexmoor. Ada Lovelace was born in London.\n"
    doc.write_text(body)
    other = tmp_path / "other.txt"
    other.write_text("Charles Babbage was born in Walworth.\n")
    assert cli(root, "ingest", "--extractor", "rules", str(doc), str(other)).rc == 0
    zorb = assertion_id("Zorblax Quintavenn", "born_in", "Vexmoor")
    ada = assertion_id("Ada Lovelace", "born_in", "London")
    babbage = assertion_id("Charles Babbage", "born_in", "Walworth")
    assert cli(root, "assert", "Ada Lovelace", "born_in", "London", "--source", "encyclopedia").rc == 0
    s = AssertionStore.open(root)
    before = quotes(s)
    assert s.require(ada).count == 2
    s.close()

    r = cli(root, "--json", "erase", "--document", str(doc), "--reason", "licence revoked")
    assert r.rc == 0, r.err
    s = AssertionStore.open(root)
    try:
        assert T.state(s, zorb) == "erased"  # its only source was the document
        rec = s.require(ada)  # keeps its other source
        assert rec.count == 1 and [x.kind for x in rec.sources] == ["caller"] and rec.kinds == ("supplied",)
        assert quotes(s)[babbage] == before[babbage]
        assert s.validate().conforms
    finally:
        s.close()
    assert cli(root, "compact").rc == 0
    for needle in ("Quintavenn", "Zorblax", "Vexmoor", "born in London"):
        assert files_with(root, needle) == [], needle

    r = cli(root, "ingest", "--extractor", "rules", str(doc))  # the same content again: refused, nothing written
    assert r.rc == 2 and "--allow-erased" in r.err
    assert files_with(root, "Vexmoor") == []
    r = cli(root, "ingest", "--extractor", "rules", str(doc), "--allow-erased")
    assert r.rc == 0, r.err
    s = AssertionStore.open(root)
    try:
        assert T.state(s, zorb) == "erased"  # the tombstone still wins for the erased assertion
        assert s.require(ada).count == 2
        assert s.validate().conforms
    finally:
        s.close()


# ------------------------------------------------------------------ erase --entity


def test_erase_entity_removes_every_assertion_mention_and_registry_entry(tmp_path):
    root = tmp_path / "store"
    s = AssertionStore.open(root)
    t1 = "Zorblax Quintavenn was born in Vexmoor. Ada Lovelace was born in London."
    t2 = "Zorblax Quintavenn was employed by Acme Corp. Quintavenn liked tea. Charles Babbage was born in Walworth."
    ingest(
        s,
        "one.txt",
        t1,
        [
            ("Zorblax Quintavenn", "born_in", "Vexmoor", *span(t1, "Zorblax Quintavenn was born in Vexmoor.")),
            ("Ada Lovelace", "born_in", "London", *span(t1, "Ada Lovelace was born in London.")),
        ],
    )
    ingest(
        s,
        "two.txt",
        t2,
        [
            ("Zorblax Quintavenn", "employed_by", "Acme Corp", *span(t2, "Zorblax Quintavenn was employed by Acme Corp.")),
            ("Charles Babbage", "born_in", "Walworth", *span(t2, "Charles Babbage was born in Walworth.")),
        ],
    )
    s.assert_("Ada Lovelace", "collaborated_with", "Zorblax Quintavenn")
    before = quotes(s)
    s.close()
    r = cli(root, "--json", "erase", "--entity", "Zorblax Quintavenn", "--reason", "gdpr")
    assert r.rc == 0, r.err
    gone = {
        assertion_id("Zorblax Quintavenn", "born_in", "Vexmoor"),
        assertion_id("Zorblax Quintavenn", "employed_by", "Acme Corp"),
        assertion_id("Ada Lovelace", "collaborated_with", "Zorblax Quintavenn"),
    }
    assert cli(root, "compact").rc == 0
    for needle in ("Zorblax", "Quintavenn", "zorblax-quintavenn"):
        assert files_with(root, needle) == [], needle
    s = AssertionStore.open(root)
    try:
        assert all(T.state(s, i) == "erased" for i in gone)
        after = quotes(s)
        assert set(after) == set(before) - gone and all(after[i] == before[i] for i in after)
        assert "liked tea" in s.document_text("two.txt")  # only the mention went, not the sentence
        assert s.validate().conforms
    finally:
        s.close()


def test_erase_entity_refuses_when_a_survivor_quotes_a_mention(tmp_path):
    s = AssertionStore.memory()
    t = "Ada Lovelace, a friend of Zorblax Quintavenn, was born in London. Zorblax Quintavenn was born in Vexmoor."
    ingest(
        s,
        "one.txt",
        t,
        [
            ("Ada Lovelace", "born_in", "London", *span(t, "Ada Lovelace, a friend of Zorblax Quintavenn, was born in London.")),
            ("Zorblax Quintavenn", "born_in", "Vexmoor", *span(t, "Zorblax Quintavenn was born in Vexmoor.")),
        ],
    )
    ada = assertion_id("Ada Lovelace", "born_in", "London")
    with pytest.raises(SharedEvidence) as exc:
        erasure.erase_entity(s, "Zorblax Quintavenn", "gdpr")
    assert exc.value.ids == (ada,)
    assert s.document_text("one.txt") == t and T.state(s, ada) == "believed"
    ch = erasure.erase_entity(s, "zorblax  QUINTAVENN", "gdpr", with_shared_evidence=True)
    assert ada in ch.erased and "Zorblax" not in s.document_text("one.txt")
    assert s.validate().conforms


# ------------------------------------------------------------------ Build 2: tombstones win


def test_reproduction_2_export_erase_compact_import_does_not_bring_it_back(tmp_path):
    root = tmp_path / "store"
    assert cli(root, "assert", "Ada Lovelace", "born_in", "London").rc == 0
    assert cli(root, "assert", "Charles Babbage", "born_in", "Walworth").rc == 0
    aid = assertion_id("Ada Lovelace", "born_in", "London")
    assert cli(root, "ask", "Where was Ada Lovelace born?").rc == 0
    export = tmp_path / "before.nq"
    assert cli(root, "export", "-o", str(export)).rc == 0
    assert cli(root, "erase", aid, "--reason", "gdpr").rc == 0
    assert cli(root, "compact").rc == 0
    assert files_with(root, "Lovelace") == []
    after_erase = dump(root)

    r = cli(root, "import", str(export))  # default: refused, one line, nothing written
    assert r.rc == 2 and len(r.err_lines) == 1 and aid in r.err and "--skip-erased" in r.err
    assert dump(root) == after_erase
    r = cli(root, "--json", "import", str(export), "--skip-erased")
    assert r.rc == 0, r.err
    assert '"skipped_erased"' in r.out and aid in r.out
    assert cli(root, "validate").rc == 0
    r = cli(root, "assert", "Ada Lovelace", "born_in", "London")  # assert of an erased id: refused
    assert r.rc == 2 and aid in r.err
    r = cli(root, "assert", "Ada Lovelace", "born_in", "London", "--skip-erased")
    assert r.rc == 0 and "skipped" in r.out
    assert cli(root, "compact").rc == 0
    assert files_with(root, "Lovelace") == []
    # (asking again records the new question, which names her: so this comes last)
    r = cli(root, "ask", "Where was Ada Lovelace born?")
    assert "London" not in r.out
    assert "erased" in cli(root, "trace", aid).out.lower()


def test_pull_of_an_erased_assertion_is_refused_or_skipped(oxigraph_server, tmp_path):
    root = tmp_path / "st"
    s = AssertionStore.open(root)
    try:
        aid = s.assert_("Zorblax Quintavenn", "born_in", "Vexmoor")
        keep = s.assert_("Ada Lovelace", "born_in", "London")
        push(s, oxigraph_server.dsn)  # the remote copy still holds the claim
        erasure.erase(s, aid, "gdpr")
        before = len(s.ox)
        with pytest.raises(ErasedData) as exc:
            pull(s, oxigraph_server.dsn)
        assert aid in exc.value.ids and len(s.ox) == before
        with pytest.raises(ErasedData):
            s.assert_("Zorblax Quintavenn", "born_in", "Vexmoor")
        assert s.assert_("Zorblax Quintavenn", "born_in", "Vexmoor", on_erased="skip") == aid
        assert len(s.ox) == before, "a skipped assert records nothing"
    finally:
        s.close()
    r = cli(root, "pull", oxigraph_server.dsn)
    assert r.rc == 2 and len(r.err_lines) == 1 and aid in r.err
    r = cli(root, "--json", "pull", oxigraph_server.dsn, "--skip-erased")  # the rest comes in, the claim does not
    assert r.rc == 0 and '"skipped_erased"' in r.out and aid in r.out, r.err
    assert cli(root, "compact").rc == 0
    assert files_with(root, "Quintavenn") == []
    s = AssertionStore.open(root)
    try:
        assert s.get(aid) is None and T.state(s, aid) == "erased" and s.get(keep) is not None
        assert s.validate().conforms
    finally:
        s.close()


# ------------------------------------------------------------------ Build 8: every copy


def test_reproduction_9_erased_names_leave_decisions_labels_and_side_tables(tmp_path):
    root = tmp_path / "store"
    assert cli(root, "assert", "Zorblax Quintavenn", "born_in", "Vexmoor").rc == 0
    assert cli(root, "assert", "Ada Lovelace", "born_in", "London").rc == 0
    aid = assertion_id("Zorblax Quintavenn", "born_in", "Vexmoor")
    r = cli(root, "--json", "ask", "Where was Zorblax Quintavenn born?")
    assert r.rc == 0 and "Vexmoor" in r.out
    assert cli(root, "ask", "Where was Ada Lovelace born?").rc == 0
    assert files_with(root, "Zorblax Quintavenn"), "the decision and side tables hold the name before erasure"
    assert cli(root, "erase", aid, "--reason", "gdpr").rc == 0
    assert cli(root, "compact").rc == 0
    for needle in ("Zorblax Quintavenn", "Zorblax", "Quintavenn", "Vexmoor"):
        assert files_with(root, needle) == [], needle
    s = AssertionStore.open(root)
    try:
        rec = Recorder(s)
        decisions = [
            rec.get(r["d"].value.rsplit("/", 1)[-1])
            for r in s.select(
                "SELECT ?d WHERE { GRAPH <https://w3id.org/semantic-rdf/graph/provenance> { ?d a <https://w3id.org/semantic-rdf/ns#Decision> } }"
            )
        ]
        erased = [d for d in decisions if aid in d.because]
        assert len(erased) == 1  # the decision stays, citing the erased id
        assert f"[erased a:{aid}]" in erased[0].choice and "Vexmoor" not in (erased[0].reason or "")
        other = [d for d in decisions if aid not in d.because]
        assert any("Ada Lovelace" in d.choice for d in other)  # decisions about others are untouched
        assert T.state(s, aid) == "erased" and s.validate().conforms
    finally:
        s.close()


def test_an_open_memory_forgets_hebbian_pairs_and_reservoirs_of_erased_names():
    mem = Memory.open(None)
    try:
        aid = mem.store.assert_("Zorblax Quintavenn", "born_in", "Vexmoor")
        mem.store.assert_("Ada Lovelace", "born_in", "London")
        mem.sync()
        mem.activate(["Zorblax Quintavenn", "Vexmoor"])
        mem.activate(["Ada Lovelace", "London"])
        mem.reservoirs.get("c1")
        gone = {entity_key("Zorblax Quintavenn"), entity_key("Vexmoor")}
        assert any(k in gone for pair in mem.side.hebbian.weights() for k in pair)
        mem.erase(aid, "gdpr")
        pairs = mem.side.hebbian.weights()
        assert pairs and not any(k in gone for pair in pairs for k in pair)
        assert len(mem.reservoirs) == 0
        assert mem.side.fact_ids() == {assertion_id("Ada Lovelace", "born_in", "London")}
    finally:
        mem.close()


def test_import_of_a_revoked_document_is_refused_or_skipped(tmp_path):
    s = AssertionStore.memory()
    t = "Zorblax Quintavenn was born in Vexmoor. Ada Lovelace was born in London."
    ingest(
        s,
        "bio.txt",
        t,
        [
            ("Zorblax Quintavenn", "born_in", "Vexmoor", *span(t, "Zorblax Quintavenn was born in Vexmoor.")),
            ("Ada Lovelace", "born_in", "London", *span(t, "Ada Lovelace was born in London.")),
        ],
    )
    keep = s.assert_("Ada Lovelace", "born_in", "London", note="encyclopedia")
    before = s.export("nquads")
    ch = erasure.erase_document(s, "bio.txt", "licence revoked")
    assert ch.erased == (assertion_id("Zorblax Quintavenn", "born_in", "Vexmoor"),) and ch.kept == (keep,)
    after = sorted(str(q) for q in s.ox)
    with pytest.raises(ErasedData):
        s.import_(before)
    assert sorted(str(q) for q in s.ox) == after
    n, rep = s.import_report(before, on_erased="skip")
    assert rep.documents and rep.ids and n > 0
    assert "Vexmoor" not in s.export("nquads").decode() and "born in London" not in s.export("nquads").decode()
    assert s.require(keep).count == 1 and s.validate().conforms


@pytest.mark.parametrize(
    "argv",
    [
        ["erase", "--reason", "x"],
        ["erase", "0123456789abcdef", "--document", "bio.txt", "--reason", "x"],
        ["erase", "--document", "no-such.txt", "--reason", "x"],
        ["erase", "--entity", "No Such Person", "--reason", "x"],
        ["erase", "--entity", 'a>b" . <urn:x> <urn:y> <urn:z> .', "--reason", "x"],
        ["erase", "--entity", "Ada Lovelace", "--reason", "   "],
        ["import", "nope.nq"],
    ],
)
def test_bad_erase_and_import_arguments_are_one_line_exit_2_and_write_nothing(tmp_path, argv):
    root = tmp_path / "store"
    assert cli(root, "assert", "Ada Lovelace", "born_in", "London").rc == 0
    before = dump(root)
    r = cli(root, *argv)
    assert r.rc == 2 and len(r.err_lines) == 1 and "Traceback" not in r.err, r.err
    assert dump(root) == before


def test_erase_entity_leaves_a_longer_surviving_name_that_contains_it():
    s = AssertionStore.memory()
    t = "Zorblax Quintavenn was born in Vexmoor. The Zorblax Quintavenn Foundation was founded in Plinthaven."
    ingest(
        s,
        "one.txt",
        t,
        [
            ("Zorblax Quintavenn", "born_in", "Vexmoor", *span(t, "Zorblax Quintavenn was born in Vexmoor.")),
            ("Zorblax Quintavenn Foundation", "located_in", "Plinthaven", *span(t, "The Zorblax Quintavenn Foundation was founded in Plinthaven.")),
        ],
    )
    foundation = assertion_id("Zorblax Quintavenn Foundation", "located_in", "Plinthaven")
    before = quotes(s)[foundation]
    ch = erasure.erase_entity(s, "Zorblax Quintavenn", "gdpr")  # no shared evidence: the foundation's name is its own
    assert foundation not in ch.erased and quotes(s)[foundation] == before
    first = len("Zorblax Quintavenn was born in Vexmoor.")
    assert s.document_text("one.txt") == erasure.FILLER * first + t[first:]
    assert s.validate().conforms


def test_erase_forgets_the_push_state_and_the_next_push_replaces_the_remote_copy(oxigraph_server, tmp_path):
    from semantic_rdf.remote.sparql import RemoteBackend

    root = tmp_path / "st"
    s = AssertionStore.open(root)
    try:
        aid = s.assert_("Zorblax Quintavenn", "born_in", "Vexmoor")
        s.assert_("Ada Lovelace", "born_in", "London")
        push(s, oxigraph_server.dsn, since_last=True)
        assert files_with(root / "push-state", "zorblax-quintavenn"), "the state names the entity's IRI"
        erasure.erase(s, aid, "gdpr")
        assert push(s, oxigraph_server.dsn, since_last=True).mode == "full"
        remote = RemoteBackend(oxigraph_server.dsn)
        try:
            held = "\n".join(str(q) for q in remote.dump())
        finally:
            remote.close()
        assert "Quintavenn" not in held and "Lovelace" in held
    finally:
        s.close()
    assert cli(root, "compact").rc == 0
    assert files_with(root, "quintavenn") == []


@pytest.mark.parametrize("argv", [["--document", "bio.txt"], ["--entity", "Ada Lovelace"]])
def test_erase_forms_on_a_missing_store_create_nothing(tmp_path, argv):
    r = cli(tmp_path / "typo-store", "erase", *argv, "--reason", "x")
    assert r.rc == 2 and len(r.err_lines) == 1 and "no store at" in r.err
    assert list(tmp_path.iterdir()) == []
