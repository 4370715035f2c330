"""Normalizers: each step, composition, and the default chain's idempotence."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from semantic_rdf.pipeline.normalize import (
    DEFAULT,
    Chain,
    Step,
    chain,
    control_chars,
    line_endings,
    nfc,
    normalize,
    quotes,
    whitespace,
)
from semantic_rdf.pipeline.stages import Normalizer


def test_nfc_composes():
    decomposed = "Cafe\u0301 Zo\u0308e \u212b"  # e + acute, o + diaeresis, ANGSTROM SIGN
    out = nfc(decomposed)
    assert out == "Caf\u00e9 Z\u00f6e \u00c5" == unicodedata.normalize("NFC", decomposed)
    assert len(out) == len(decomposed) - 2
    assert nfc("plain ascii") == "plain ascii"


@pytest.mark.parametrize(
    "src, expected",
    [
        ("a\r\nb", "a\nb"),
        ("a\rb", "a\nb"),
        ("a\u2028b\u2029c", "a\nb\nc"),
        ("a\x85b", "a\nb"),
        ("page\x0cbreak", "page\nbreak"),
        ("v\x0btab", "v\ntab"),
        ("a\r\n\r\nb", "a\n\nb"),
    ],
)
def test_line_endings(src, expected):
    assert line_endings(src) == expected


def test_control_chars_keep_newline_and_tab():
    src = "a\x00b\x07c\td\ne\x1bf\x7fg\x9bh\u200bi\u00adj\ufeffk\u202eevil\u202cl\u2066m\u2069"
    assert control_chars(src) == "abc\td\nefghijkevillm"
    assert control_chars("lone \ud800 surrogate") == "lone \ufffd surrogate"
    assert control_chars("clean text") == "clean text"
    assert control_chars("emoji 👩\u200d🔬 kept") == "emoji 👩\u200d🔬 kept"  # ZWJ sequences survive


def test_quotes():
    assert (
        quotes("\u201cHello,\u201d she said. It\u2019s \u2018fine\u2019 \u201etoo\u201f 5\u2032 6\u2033")
        == '"Hello," she said. It\'s \'fine\' "too" 5\' 6"'
    )
    assert quotes("«guillemets» stay") == "«guillemets» stay"


def test_whitespace():
    src = "\n\n  indented  line\u00a0with\u3000odd   spaces \t\nnext\n\n\n\n\npara\t \n  "
    assert whitespace(src) == "  indented line with odd spaces\nnext\n\npara"
    assert whitespace("a\tb") == "a\tb"  # a single tab is content (TSV-like text)


def test_default_chain_order_and_result():
    src = "\ufeff\u201cDr.\u201d Smith\u2019s caf\u0065\u0301\r\n\r\n\r\n\x00works   at\u00a0Acme.  "
    assert normalize(src) == '"Dr." Smith\'s café\n\nworks at Acme.'
    assert isinstance(DEFAULT, Chain)
    assert [s.name for s in DEFAULT.steps] == ["line_endings", "control_chars", "nfc", "quotes", "whitespace"]


def test_chain_composes_steps_chains_and_functions():
    class Upper:
        def normalize(self, text: str) -> str:
            return text.upper()

    c = chain(line_endings, chain(quotes, whitespace), Upper(), lambda t: t + "!")
    assert c.normalize("\u2018a\u2019\r\n  b  ") == "'A'\n  B!"
    assert len(c.steps) == 5
    assert isinstance(c, Normalizer) and isinstance(nfc, Normalizer)
    assert c("x") == "X!"
    assert isinstance(Step("id", lambda t: t), Normalizer)
    with pytest.raises(TypeError):
        chain(42)


_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(list("\r\n\t \u00a0\u2028\u2019\u201c\u0301\u0308\u212b\u200b\x00\x0c\ufeffe.")),
    ),
    max_size=200,
)


@settings(max_examples=200, deadline=None)
@given(_text)
def test_default_chain_is_idempotent(text):
    once = normalize(text)
    assert normalize(once) == once


@settings(max_examples=200, deadline=None)
@given(_text)
def test_default_chain_output_properties(text):
    out = normalize(text)
    assert unicodedata.is_normalized("NFC", out)
    assert "\r" not in out and "\n\n\n" not in out
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 for c in out)
    assert out == out.strip() or out[:1] in " \t"  # leading indentation is content; trailing space never
    assert out == out.rstrip()
