"""Splitters: tiling, offsets, overlap, sizes, sentence rules — examples and hypothesis properties."""

from __future__ import annotations

import math
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.pipeline.split import (
    MarkdownHeadings,
    Paragraphs,
    Recursive,
    Sentences,
    heading_spans,
    paragraph_spans,
    sentence_spans,
    splitter_from_spec,
)
from semantic_rdf.pipeline.stages import Splitter
from semantic_rdf.core.values import Doc


def doc(text: str) -> Doc:
    return Doc("d1", "test", text)


def sentences_of(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


# ------------------------------------------------------------------ sentence rules


def test_abbreviations_titles_and_decimals_do_not_end_sentences():
    text = (
        "Dr. Smith met Mr. Jones and Mrs. Lee in the U.S. on Jan. 5. He paid $3.14, i.e. too much, "
        "for e.g. coffee at St. Mary's. The U.S. Army arrived at 10 a.m. yesterday. J. R. R. Tolkien wrote it!"
    )
    assert sentences_of(text) == [
        "Dr. Smith met Mr. Jones and Mrs. Lee in the U.S. on Jan. 5.",
        "He paid $3.14, i.e. too much, for e.g. coffee at St. Mary's.",
        "The U.S. Army arrived at 10 a.m. yesterday.",
        "J. R. R. Tolkien wrote it!",
    ]


def test_sentence_ends_after_abbreviation_when_a_new_sentence_clearly_starts():
    assert sentences_of("She moved to the U.S. Then she studied law.") == ["She moved to the U.S.", "Then she studied law."]
    assert sentences_of("He works at Acme Inc. He likes it.") == ["He works at Acme Inc.", "He likes it."]
    assert sentences_of("Apples, pears, etc. are fruit.") == ["Apples, pears, etc. are fruit."]


def test_question_exclamation_quotes_ellipsis_and_blank_lines():
    text = 'Is it? "Yes!" she said. Wait... then what?\n\nA heading without a stop\nNext line.'
    assert sentences_of(text) == ["Is it?", '"Yes!" she said.', "Wait... then what?", "A heading without a stop\nNext line."]


def test_a_title_line_ends_its_sentence_and_wrapped_prose_does_not():
    """A title or heading on a line of its own ends its sentence at the single line break after it (read into the
    next line, "Phoenix\nPhoenix is …" had made the entity "Phoenix Phoenix"); a line of wrapped prose does not."""
    bio = "Matthew Goode\nMatthew William Goode (born 1978) is an actor.\nEarly life\nHe was born in Exeter.\nCareer\nHe acted."
    assert sentences_of(bio) == [
        "Matthew Goode",
        "Matthew William Goode (born 1978) is an actor.",
        "Early life",
        "He was born in Exeter.",
        "Career",
        "He acted.",
    ]
    assert sentences_of("Phoenix\nPhoenix is the capital.") == ["Phoenix", "Phoenix is the capital."]
    assert sentences_of("Flora & fauna\n\u201cOtters\u201d live here.") == ["Flora & fauna", "\u201cOtters\u201d live here."]
    assert sentences_of("Notes\nSee Also\nParis is big.") == ["Notes", "See Also", "Paris is big."]  # a title after a title
    assert sentences_of("x\n\nThe Castle of Otranto\nHorace Walpole wrote it in 1764.") == [
        "x",
        "The Castle of Otranto",
        "Horace Walpole wrote it in 1764.",
    ]
    # wrapped prose: a line that does not open the text or follow a sentence's end, one that ends in a preposition or a
    # comma, one of more than three words not in title case, one not shorter than the next, one before a lower-case line
    for text in (
        "Yesterday he moved to the city and then\nParis was his home.",
        "He was born in\nParis.",
        "The new line has seven words\nParis is nice.",
        "Dear Anna,\nThank you.",
        "Phoenix\nis the capital.",
        "Following the American Revolutionary\nWar, L'Enfant planned the city.",  # title case, but as long as the next line
        "Matthew William Goode (born 3 April\n1978) is an actor.",  # a bracket left open
    ):
        assert sentences_of(text) == [text], text
        assert sentences_of("It ended.\n" + text) == ["It ended.", text], text
    # a title line after a line that ended no sentence, when it is at most half as long as the next (an infobox's lines,
    # 2026-12-08): "Children Jérôme Richard" had read into "Jeanne Moreau (…) was a French actress", one name
    infobox = "Spouse(s) Jean-Louis Richard (m. 1949; div. 1964)\nChildren Jérôme Richard\nJeanne Moreau (born 23 January 1928) was a French actress."
    assert sentences_of(infobox)[-1] == "Jeanne Moreau (born 23 January 1928) was a French actress."
    moreau = "Jeanne Moreau (23 January 1928 – 31 July 2017) was a French actress, singer, screenwriter and director."
    assert sentences_of("Years active 1947 – 2012\nChildren Jérôme Richard\n" + moreau) == [
        "Years active 1947 – 2012\nChildren Jérôme Richard",
        moreau,
    ]
    for text in ("He met the actor\nTom Hanks at the studio in Burbank.", "It was Anna Berg\nwho found the old house in Bergen."):
        assert sentences_of("It ended with a sentence of some length\n" + text)[-1].endswith(text), text
    text = "Title\r\n  Second line starts here.\nThird"
    spans = sentence_spans(text, tiling=True)
    assert "".join(text[a:b] for a, b in spans) == text and sentences_of(text) == ["Title", "Second line starts here.", "Third"]


def test_cjk_sentences():
    assert sentences_of("今日は晴れ。明日は雨！本当？") == ["今日は晴れ。", "明日は雨！", "本当？"]


def test_sentence_spans_trimmed_and_tiling():
    text = "  One here.   Two there.\n\n Three.  "
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["One here.", "Two there.", "Three."]
    tiles = sentence_spans(text, tiling=True)
    assert "".join(text[a:b] for a, b in tiles) == text
    assert all(b == c for (_, b), (c, _) in zip(tiles, tiles[1:]))
    assert sentence_spans("") == [] and sentence_spans("   ") == []


def test_paragraph_and_heading_spans():
    text = "p1 line\nstill p1\n\n  \np2\n\n\np3"
    assert [text[a:b].strip() for a, b in paragraph_spans(text)] == ["p1 line\nstill p1", "p2", "p3"]
    md = "intro\n# One\ntext\n```\n# not a heading\n```\n## Two\n~~~~\n# nor this\n~~~~\nend\n#hashtag\n"
    secs = [md[a:b] for a, b in heading_spans(md)]
    assert secs == ["intro\n", "# One\ntext\n```\n# not a heading\n```\n", "## Two\n~~~~\n# nor this\n~~~~\nend\n#hashtag\n"]


# ------------------------------------------------------------------ splitters


def test_splitters_are_splitters_and_chunks_carry_offsets():
    text = "Alice works at Acme. She lives in Paris. Bob knows Alice."
    for sp in (Sentences(0), Sentences(30), Paragraphs(), MarkdownHeadings(), Recursive(25)):
        assert isinstance(sp, Splitter)
        chunks = sp.split(doc(text))
        assert "".join(c.text for c in chunks) == text
        assert [c.index for c in chunks] == list(range(len(chunks)))
        assert all(c.doc_id == "d1" and text[c.start : c.end] == c.text for c in chunks)
    assert [c.text for c in Sentences(0).split(doc(text))] == ["Alice works at Acme. ", "She lives in Paris. ", "Bob knows Alice."]
    assert [c.text for c in Sentences(45).split(doc(text))] == ["Alice works at Acme. She lives in Paris. ", "Bob knows Alice."]


def test_oversized_sentence_is_cut_further_not_passed_oversized():
    text = "word " * 100 + "end."
    chunks = Sentences(50).split(doc(text))
    assert "".join(c.text for c in chunks) == text
    assert all(len(c.text) <= 50 for c in chunks)
    assert all(c.text.endswith(" ") or c.end == len(text) for c in chunks)  # cut at word boundaries


def test_recursive_prefers_coarse_separators():
    text = "Para one is here.\n\nPara two. It has two sentences.\n\nPara three."
    chunks = Recursive(40).split(doc(text))
    assert [c.text for c in chunks] == ["Para one is here.\n\n", "Para two. It has two sentences.\n\n", "Para three."]
    assert Recursive(0).split(doc(text))[0].text == text
    assert Recursive(10).split(doc("")) == []


def test_hard_cut_does_not_separate_combining_marks():
    text = "e\u0301" * 30  # 60 code points, no separators at all
    chunks = Recursive(7).split(doc(text))
    assert "".join(c.text for c in chunks) == text
    assert all(len(c.text) <= 7 for c in chunks)
    assert all(not unicodedata.combining(c.text[0]) for c in chunks)


def test_token_sizes():
    text = " ".join(f"w{i}" for i in range(400))
    chunks = Recursive(50, unit="tokens").split(doc(text))
    assert "".join(c.text for c in chunks) == text
    assert all(math.ceil(len(c.text) / 4) <= 50 for c in chunks)
    assert max(len(c.text) for c in chunks) > 50  # tokens, not characters


def test_overlap_repeats_units_and_keeps_offsets():
    text = "One. Two. Three. Four. Five."
    chunks = Sentences(0, overlap=1).split(doc(text))
    assert [c.text for c in chunks] == ["One. ", "One. Two. ", "Two. Three. ", "Three. Four. ", "Four. Five."]
    assert all(text[c.start : c.end] == c.text for c in chunks)
    packed = Sentences(12, overlap=1).split(doc(text))
    assert all(text[c.start : c.end] == c.text for c in packed)
    assert packed[-1].end == len(text)
    assert all(a.start < b.start for a, b in zip(packed, packed[1:]))
    rec = Recursive(12, overlap=5).split(doc(text))
    assert any(a.end > b.start for a, b in zip(rec, rec[1:]))  # they really overlap
    assert all(text[c.start : c.end] == c.text for c in rec)


def test_bad_sizes_and_specs():
    with pytest.raises(InvalidInput):
        Sentences(-1).split(doc("x"))
    with pytest.raises(InvalidInput):
        Recursive(10, overlap=10).split(doc("some text here"))
    with pytest.raises(InvalidInput):
        Recursive(10, unit="words").split(doc("x"))
    for bad in ("", "nonsense", "sentences:x", "recursive:1:2:3", "tokens:-5"):
        with pytest.raises(InvalidInput):
            splitter_from_spec(bad)


def test_specs():
    assert splitter_from_spec("sentences") == Sentences()
    assert splitter_from_spec("Sentences:0") == Sentences(0)
    assert splitter_from_spec("recursive:500:50") == Recursive(500, 50)
    assert splitter_from_spec("tokens") == Recursive(512, 0, "tokens")
    assert splitter_from_spec("markdown:0") == MarkdownHeadings(0)
    assert splitter_from_spec("paragraphs:300") == Paragraphs(300)


# ------------------------------------------------------------------ properties

_alphabet = st.one_of(
    st.characters(codec="utf-8", exclude_categories=("Cs",)),
    st.sampled_from(list(".!?。 \n\n\t#`~") + ["Dr.", "e.g.", "3.14", "U.S.", "\n\n", "\n# H\n", "\n```\n", "\u0301"]),
)
texts = st.lists(_alphabet, max_size=120).map("".join)
splitters = st.one_of(
    st.builds(Sentences, st.integers(0, 60), st.just(0), st.sampled_from(["chars", "tokens"])),
    st.builds(Paragraphs, st.integers(0, 60), st.just(0)),
    st.builds(MarkdownHeadings, st.integers(0, 60), st.just(0)),
    st.builds(Recursive, st.integers(0, 60), st.just(0), st.sampled_from(["chars", "tokens"])),
)


@settings(max_examples=200, deadline=None)
@given(texts, splitters)
def test_zero_overlap_chunks_tile_the_text(text, sp):
    chunks = sp.split(doc(text))
    assert "".join(c.text for c in chunks) == text
    pos = 0
    for i, c in enumerate(chunks):
        assert c.index == i and c.start == pos and text[c.start : c.end] == c.text and c.end > c.start
        pos = c.end
    assert pos == len(text)
    if sp.size and isinstance(sp, Recursive):
        cost = (lambda n: n) if sp.unit == "chars" else (lambda n: math.ceil(n / 4))
        assert all(cost(len(c.text)) <= sp.size for c in chunks)


@settings(max_examples=200, deadline=None)
@given(texts, st.integers(1, 60), st.integers(1, 4), st.booleans())
def test_overlapping_chunks_cover_the_text_with_exact_offsets(text, size, overlap, recursive):
    sp = Recursive(size + overlap, overlap) if recursive else Sentences(size, overlap)
    chunks = sp.split(doc(text))
    assert all(text[c.start : c.end] == c.text for c in chunks)
    if text:
        assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for a, b in zip(chunks, chunks[1:]):
        assert a.start < b.start <= a.end  # advances, and leaves no gap
        assert a.end <= b.end


@settings(max_examples=200, deadline=None)
@given(texts)
def test_sentence_spans_are_ordered_trimmed_and_inside_the_tiles(text):
    tiles = sentence_spans(text, tiling=True)
    assert "".join(text[a:b] for a, b in tiles) == text
    spans = sentence_spans(text)
    for (a, b), (c, _) in zip(spans, spans[1:]):
        assert b <= c
    for a, b in spans:
        s = text[a:b]
        assert s and s == s.strip()
        assert any(ta <= a and b <= tb for ta, tb in tiles)


# ------------------------------------------------------------------ the array fast path equals the reference

from semantic_rdf.pipeline import split as _split  # noqa: E402


def _reference_spans(sp, text):
    """What a splitter returns by the original per-piece definition (`_pieces` then `_pack`)."""
    cost = _split._cost_fn(sp.unit)
    if isinstance(sp, Recursive):
        if not text:
            return []
        if sp.size == 0:
            return [(0, len(text))]
        hard = sp.size * (4 if sp.unit == "tokens" else 1)
        pieces = _split._pieces(text, 0, len(text), lambda a, b: cost(a, b) <= sp.size, hard)
        return _split._pack(pieces, sp.size, sp.overlap, cost, overlap_by_cost=True)
    units = sp._units(text)
    if sp.size > 0:
        hard = sp.size * (4 if sp.unit == "tokens" else 1)
        units = [
            p for a, b in units for p in (_split._pieces(text, a, b, lambda x, y: cost(x, y) <= sp.size, hard) if cost(a, b) > sp.size else [(a, b)])
        ]
    return _split._pack(units, sp.size, sp.overlap, cost)


_ws_alphabet = st.one_of(_alphabet, st.sampled_from(["\u00a0", "\u3000", "\u2028", "\t", "  ", "word ", "x" * 25]))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_ws_alphabet, max_size=150).map("".join),
    st.integers(0, 40),
    st.integers(0, 5),
    st.sampled_from(["chars", "tokens"]),
    st.sampled_from([Sentences, Paragraphs, MarkdownHeadings, Recursive]),
)
def test_array_packing_gives_exactly_the_per_piece_chunks(text, size, overlap, unit, cls):
    if cls is Recursive and size and overlap >= size:
        overlap = 0
    sp = cls(size, overlap, unit)
    assert sp.spans(text) == _reference_spans(sp, text)


def test_white_space_cuts_match_the_regex_across_blocks(monkeypatch):
    monkeypatch.setattr(_split, "_BLOCK", 7)  # force many block edges
    text = "ab  c\u00a0\u00a0d\te \n\n f\u3000g" * 5 + "   "
    for s, e in [(0, len(text)), (3, len(text) - 2), (1, 9), (2, 2)]:
        want = [m.end() for m in _split._SPACE.finditer(text, s, e) if s < m.end() < e]
        assert _split._space_cuts(text, s, e).tolist() == want


def test_a_long_line_without_sentence_ends_is_cut_to_size():
    line = " ".join(["lorem", "ipsum", "dolor", "sit"] * 50_000)  # ~1 MB, no terminator, one "sentence"
    chunks = Sentences(size=1000).split(doc(line))
    assert "".join(c.text for c in chunks) == line
    assert all(len(c.text) <= 1000 for c in chunks) and len(chunks) >= len(line) // 1000
    assert all(c.text.endswith(" ") for c in chunks[:-1])  # cut at white space, never inside a word
