"""The compiled fast checker and pyshacl must agree: on valid data and on every kind of violation."""

import pyoxigraph as ox
import pytest

from semantic_rdf.core.errors import ShapeViolation
from semantic_rdf.rdf import ntriples as N
from semantic_rdf.rdf.shapecheck import _compile as compile_python, shape_check
from semantic_rdf.rdf.shapes import ShapeGraph, _compile, fast_checker, packaged_shapes, shapes_graph, validate_full
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Chunk, Doc, Triple, Validity
from semantic_rdf.core.vocab import ENTITY_GRAPH, M, OA_, P, PROVENANCE_GRAPH, RDF_TYPE, XSD, assertion_iri

import rdflib
from datetime import datetime, timezone
from hypothesis import given, settings, strategies as st

from semantic_rdf.rdf import layout as L
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.core.resources import files


def _valid_store() -> AssertionStore:
    s = AssertionStore.memory()
    s.assert_("Ada Lovelace", "wrote", "Note G", score=0.7, note="book")
    d = Doc("d1", "mem:d1", "Ada Lovelace was born in London. She wrote Note G.")
    with s.run("ingestion", agent="rules") as run:
        s.add_document(d, run)
        c = Chunk("d1", 0, d.text, 0, len(d.text))
        s.assert_triples(
            [Triple("Ada Lovelace", "born_in", "London", c, 0.8, start=0, end=31, valid=Validity(datetime(1815, 12, 10, tzinfo=timezone.utc)))],
            run=run,
        )
    return s


def _triples(s: AssertionStore) -> list[ox.Quad]:
    return list(s.ox.quads_for_pattern(None, None, None, PROVENANCE_GRAPH)) + list(s.ox.quads_for_pattern(None, None, None, ENTITY_GRAPH))


def _replace(quads, pred, new_obj=None, subject_filter=None):
    out, done = [], False
    for q in quads:
        if q.predicate == pred and not done and (subject_filter is None or subject_filter(q.subject)):
            done = True
            if new_obj is not None:
                out.append(ox.Quad(q.subject, q.predicate, new_obj, q.graph_name))
            continue
        out.append(q)
    assert done, f"no {pred} to replace"
    return out


def _is_record(term):
    return term.value.startswith("https://w3id.org/semantic-rdf/a/")


def _mutations(quads):
    X = lambda v, dt: ox.Literal(v, datatype=ox.NamedNode(XSD + dt))  # noqa: E731
    a = next(q.subject for q in quads if q.predicate == M.claimGraph)
    yield "predicate outside taxonomy", _replace(quads, M.predicate, ox.NamedNode("https://w3id.org/semantic-rdf/p/likes"))
    yield "confidence above 1", _replace(quads, M.confidence, X("1.5", "decimal"), _is_record)
    yield "confidence negative", _replace(quads, M.confidence, X("-0.1", "decimal"), _is_record)
    yield "count zero", _replace(quads, M.count, X("0", "integer"))
    yield "count missing", _replace(quads, M.count)
    yield "two subjects", quads + [ox.Quad(a, M.subject, ox.NamedNode("https://w3id.org/semantic-rdf/e/x"), PROVENANCE_GRAPH)]
    yield "no subject", _replace(quads, M.subject)
    yield "start after end", _replace(quads, OA_.start, X("40", "integer"))
    yield "negative start", _replace(quads, OA_.start, X("-1", "integer"))
    yield (
        "validFrom after validUntil",
        quads
        + [
            ox.Quad(
                next(q.subject for q in quads if q.predicate == M.validFrom), M.validUntil, X("1800-01-01T00:00:00Z", "dateTime"), PROVENANCE_GRAPH
            )
        ],
    )
    extracted = next(q.subject for q in quads if q.object == M.ExtractedAssertion)
    yield "source-read without span", [q for q in quads if not (q.subject == extracted and q.predicate == P.wasDerivedFrom)]
    yield "derived without antecedent", quads + [ox.Quad(a, RDF_TYPE, M.DerivedAssertion, PROVENANCE_GRAPH)]
    yield "agent only SoftwareAgent", [q for q in quads if not (q.predicate == RDF_TYPE and q.object == P.Agent)]
    yield "bad sha256", _replace(quads, M.sha256, ox.Literal("not-a-hash"))
    yield "second generation", quads + [ox.Quad(a, P.wasGeneratedBy, ox.NamedNode("https://w3id.org/semantic-rdf/run/other"), PROVENANCE_GRAPH)]


# The write path's checker (Python, over text quads) and the whole-store checker (SPARQL) are held
# to pyshacl's verdict; the Python one is also fed the quads as text, as the write path does.
CHECKERS = {
    "sparql": lambda quads: fast_checker().check(quads),
    "python": lambda quads: shape_check().check(quads),
    "python-text": lambda quads: shape_check().check([N.of(q) for q in quads]),
}


@pytest.mark.parametrize("checker", CHECKERS)
def test_valid_store_conforms_both_ways(checker):
    s = _valid_store()
    q = _triples(s)
    assert CHECKERS[checker](q).conforms
    full = validate_full(q)
    assert full.conforms, full.text
    assert s.validate().conforms


@pytest.mark.parametrize("checker", CHECKERS)
@pytest.mark.parametrize("name,quads", list(_mutations(_triples(_valid_store()))), ids=lambda x: x if isinstance(x, str) else "")
def test_violation_found_by_both(name, quads, checker):
    fast = CHECKERS[checker](quads)
    full = validate_full(quads)
    assert not full.conforms, f"pyshacl accepted: {name}"
    assert not fast.conforms, f"fast checker accepted: {name}"


def test_fast_checker_refuses_unknown_shacl_features():
    g = ShapeGraph.parse("""
        @prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
        ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:minLength 3 ] .
    """)
    with pytest.raises(ValueError, match="unsupported"):
        _compile(g)
    with pytest.raises(ValueError, match="unsupported"):
        compile_python(g)


def test_shapes_parse_and_compile():
    assert len(shapes_graph()) > 100
    # the write path's reading of the shape files holds what rdflib reads there
    fresh = rdflib.Graph()
    for path in files("shapes", "*.ttl"):
        fresh.parse(path, format="turtle")
    assert len(packaged_shapes()) == len(fresh) > 100
    assert len(fast_checker().checks) > 50


def test_write_refused_and_store_unchanged():
    s = _valid_store()
    before = sorted(map(str, s.ox))
    bad = [ox.Quad(assertion_iri("0" * 16), RDF_TYPE, M.Assertion, PROVENANCE_GRAPH)]
    with pytest.raises(ShapeViolation):
        s.commit(bad)
    assert sorted(map(str, s.ox)) == before


_POOL = [
    ox.Literal("1.5", datatype=ox.NamedNode(XSD + "decimal")),
    ox.Literal("0.25", datatype=ox.NamedNode(XSD + "decimal")),
    ox.Literal("-3", datatype=ox.NamedNode(XSD + "integer")),
    ox.Literal("7", datatype=ox.NamedNode(XSD + "integer")),
    ox.Literal("abc", datatype=ox.NamedNode(XSD + "integer")),
    ox.Literal("1.0.1", datatype=ox.NamedNode(XSD + "decimal")),
    ox.Literal("2020-01-01T00:00:00Z", datatype=ox.NamedNode(XSD + "dateTime")),
    ox.Literal("1700-05-01T00:00:00Z", datatype=ox.NamedNode(XSD + "dateTime")),
    ox.Literal("yesterday", datatype=ox.NamedNode(XSD + "dateTime")),
    ox.Literal("plain"),
    ox.Literal("tagged", language="en"),
    ox.Literal("e" * 64),
    ox.NamedNode("https://w3id.org/semantic-rdf/e/someone"),
    ox.NamedNode("https://w3id.org/semantic-rdf/p/wrote"),
    M.Assertion,
    M.BeliefInterval,
    P.Activity,
    P.Agent,
    OA_.TextPositionSelector,
    ox.BlankNode("b0"),
]


def _random_mutation(quads, rng):
    quads = list(quads)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(quads))
        q = quads[i]
        op = rng.choice(["drop", "object", "duplicate-predicate", "retype"])
        if op == "drop":
            quads.pop(i)
        elif op == "object":
            quads[i] = ox.Quad(q.subject, q.predicate, rng.choice(_POOL), q.graph_name)
        elif op == "duplicate-predicate":
            quads.append(ox.Quad(q.subject, q.predicate, rng.choice(_POOL), q.graph_name))
        else:
            node = rng.choice(quads).object if rng.random() < 0.5 else q.subject
            if isinstance(node, ox.Literal):
                continue
            quads.append(
                ox.Quad(
                    node,
                    RDF_TYPE,
                    rng.choice([M.Assertion, M.ExtractedAssertion, M.DerivedAssertion, M.Tombstone, OA_.SpecificResource, P.Activity, M.Document]),
                    q.graph_name,
                )
            )
    return quads


@pytest.mark.parametrize("seed", range(40))
def test_python_checker_agrees_with_pyshacl_on_random_damage(seed):
    import random

    rng = random.Random(seed)
    quads = _random_mutation(_triples(_VALID), rng)
    full = validate_full(quads)
    fast = shape_check().check([N.of(q) for q in quads])
    assert fast.conforms == full.conforms, (full.violations, fast.violations)


_VALID = _valid_store()


# ------------------------------------------------------------------ span sources checked one per document
# A batch's span sources are one template over values their Triple and Chunk checked when built; the write
# path checks the first of each document (store._assert_batch). These tests show the template conforms for
# any such values, with the compiled checker and with pyshacl over whole stores, and that the sample is taken.

FACT = ("Ada Lovelace", "born_in", "London")
_DOC = "<https://w3id.org/semantic-rdf/doc/0123456789abcdef>"
_RUN = "<https://w3id.org/semantic-rdf/run/0123456789abcdef0123456789abcdef>"
# chunk start, chunk length, evidence start within the chunk, chunk index, score
_span = st.tuples(
    st.integers(0, 10**12), st.integers(0, 64), st.integers(0, 64), st.integers(0, 10**9), st.one_of(st.none(), st.floats(0, 1), st.integers(0, 1))
)


def _triple(doc_id: str, text: str, span: tuple) -> Triple:
    start, length, cut, index, score = span
    c = Chunk(doc_id, index, text[:length], start, start + len(text[:length]))
    return Triple(*FACT, c, score, start=c.start + min(cut, len(c.text)), end=c.end)


@settings(max_examples=400, deadline=None)
@given(span=_span, at=st.datetimes(datetime(1, 1, 2), datetime(9999, 12, 30), timezones=st.just(timezone.utc)))
def test_any_valid_span_source_passes_the_compiled_check(span, at):
    t = _triple("d", "x" * 64, span)
    a, b = t.span
    quads = L.span_source_quads(L.span_ref(assertion_id(*FACT), _DOC, a, b), _DOC, a, b, t.chunk.index, t.confidence, at, _RUN)
    report = shape_check().check(quads, lambda node: [str(M.Document)] if node == _DOC else [])
    assert report.conforms, report.violations


@settings(max_examples=15, deadline=None)
@given(spans=st.lists(_span, min_size=2, max_size=12))
def test_stores_written_with_sampled_source_checks_conform_under_pyshacl(spans):
    s = AssertionStore.memory()
    text = "Ada Lovelace was born in London. " * 40
    docs = [Doc(f"d{i}", f"mem:d{i}", text) for i in range(2)]
    with s.run("ingestion", agent="rules") as run:
        s.add_documents(docs, run)
        triples = []
        for k, (start, length, cut, index, score) in enumerate(spans):
            a = start % (len(text) - 64)
            triples.append(_triple(docs[k % 2].id, text[a:], (a, length, cut, index, score)))
        s.assert_triples(triples[:1], run=run)  # a new record with one source
        s.assert_triples(triples, run=run)  # then new sources for it: repeats, one batch
    assert s.validate().conforms


def test_the_write_path_checks_one_span_source_per_document(monkeypatch):
    s = AssertionStore.memory()
    text = "Ada Lovelace was born in London. " * 5
    docs = [Doc(f"d{i}", f"mem:d{i}", text) for i in range(3)]
    seen = []
    check = shape_check()
    real = check.enforce
    monkeypatch.setattr(check, "enforce", lambda quads, *a, **kw: (seen.append(list(quads)), real(quads, *a, **kw)))
    c = {d.id: Chunk(d.id, 0, text, 0, len(text)) for d in docs}
    with s.run("ingestion", agent="rules") as run:
        s.add_documents(docs, run)
        for batch in ([0, 1], [2, 3]):  # a new record, then a repeat batch
            seen.clear()
            s.assert_triples([Triple(*FACT, c[d.id], 0.9, start=33 * k, end=33 * k + 32) for d in docs for k in batch], run=run)
            checked = [q for q in seen[0] if q[1] == str(RDF_TYPE) and q[2] == str(OA_.SpecificResource)]
            assert len(checked) == 3  # 6 sources written, the first of each of the 3 documents checked
    assert len(list(s.ox.quads_for_pattern(None, RDF_TYPE, OA_.SpecificResource, PROVENANCE_GRAPH))) == 12
    assert s.validate().conforms


def test_a_span_source_on_a_node_that_is_not_a_document_is_refused():
    s = AssertionStore.memory()
    fake = ox.NamedNode("https://w3id.org/semantic-rdf/doc/not-a-document")
    s.ox.add(ox.Quad(fake, ox.NamedNode("https://w3id.org/semantic-rdf/ns#docId"), ox.Literal("d9"), PROVENANCE_GRAPH))
    text = "Ada Lovelace was born in London. " * 3
    c = Chunk("d9", 0, text, 0, len(text))
    with s.run("ingestion", agent="rules") as run:
        with pytest.raises(ShapeViolation, match="Document"):
            s.assert_triples([Triple(*FACT, c, 0.9, start=33 * k, end=33 * k + 32) for k in range(3)], run=run)
    assert not s.exists(assertion_id(*FACT))
