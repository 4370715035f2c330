"""The write path builds quads as N-Triples text: every hostile string must come back exactly, as one term."""

import pyoxigraph as ox
import pytest
from hypothesis import given, settings, strategies as st

from semantic_rdf import layout as L, ntriples as N
from semantic_rdf.errors import InvalidInput
from semantic_rdf.store import AssertionStore
from semantic_rdf.values import Triple

# any code point but lone surrogates (they cannot be stored: see test_surrogates_are_refused)
text = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)
HOSTILE = ['"', "\\", "\n", "\r", "\t", "\x00", "\x7f", "\u2028", "\u202e", '" .\n<a> <b> <c> .', "\\u0022", "> }", "é"]


@settings(max_examples=300, deadline=None)
@given(text, st.sampled_from([None, N.XSD + "string", N.XSD + "integer", "http://example.org/dt"]))
def test_literal_text_parses_back_to_the_same_term(value, datatype):
    term = N.literal(value, datatype)
    quad = ("<http://example.org/s>", "<http://example.org/p>", term, "<http://example.org/g>")
    [parsed] = list(ox.parse(N.encode(N.document([quad])), format=ox.RdfFormat.N_QUADS))
    want = ox.Literal(value, datatype=ox.NamedNode(datatype)) if datatype else ox.Literal(value)
    assert parsed.object == want
    assert term == str(want)  # the same escapes pyoxigraph writes
    assert N.lexical(term) == value


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(HOSTILE) | text, min_size=20, max_size=80).map("".join))
def test_long_literal_escapes_as_pyoxigraph_does(value):
    # long values (document texts) take the str.replace path of N.literal: same text as the short path
    assert N.literal(value) == str(ox.Literal(value)) == '"' + value.translate(N._TABLE) + '"'


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_strings_stay_inside_one_literal(value):
    quads = [("<http://example.org/s>", "<http://example.org/p>", N.literal(value), "")] * 2
    parsed = list(ox.parse(N.encode(N.document(quads)), format=ox.RdfFormat.N_QUADS))
    assert len(parsed) == 2 and all(q.object == ox.Literal(value) for q in parsed)


@pytest.mark.parametrize("bad", ["http://x/a b", "http://x/a>", 'http://x/"', "http://x/{", "http://x/\n", "a\\b"])
def test_iri_refuses_what_could_break_out(bad):
    with pytest.raises(InvalidInput):
        N.iri(bad)


def test_text_quads_and_pyoxigraph_quads_convert_both_ways():
    q = ox.Quad(ox.NamedNode("http://example.org/s"), ox.NamedNode("http://example.org/p"),
                ox.Literal('a "b"\n', language="en"), ox.NamedNode("http://example.org/g"))
    t = N.of(q)
    assert N.to_ox([t, q]) == [q, q]
    assert N.datatype(t[2]).endswith("langString") and N.lexical(t[2]) == 'a "b"\n'
    assert N.of(ox.Quad(q.subject, q.predicate, q.object, ox.DefaultGraph()))[3] == ""


def test_surrogates_are_refused_before_anything_is_written():
    with pytest.raises(InvalidInput, match="surrogate"):
        N.encode(N.document([("<http://x/s>", "<http://x/p>", N.literal("a\ud800"), "")]))


def test_layout_text_is_what_the_store_keeps(tmp_path):
    s = AssertionStore.open(tmp_path / "s")
    try:
        names = ["Ada \"the\" Lovelace", "back\\slash", "new\nline", "rtl\u202eoverride", "tab\there"]
        with s.run("statement", agent="tester") as run:
            s.assert_triples([Triple(n, "wrote", n + " (book)") for n in names], run=run)
        for n in names:
            e = ox.NamedNode(L.entity_ref(n)[1:-1])
            labels = [q.object.value for q in s.ox.quads_for_pattern(e, None, None, None) if q.predicate.value.endswith("label")]
            assert labels == [" ".join(n.split())]
        assert s.validate().conforms
    finally:
        s.close()
