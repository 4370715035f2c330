"""Code is not extracted from (issue 17, item 6): fenced blocks in any text, code spans and indented blocks in
Markdown, HTML <pre> and <code>. The pipeline blanks them in what extractors read and hands back the real
chunks, so spans still quote the document; finding them is linear in the text."""

from __future__ import annotations

import time

import pytest

from semantic_rdf.pipeline.codespans import code_regions, mask, regions_for
from semantic_rdf.pipeline.extract import RuleExtractor
from semantic_rdf.pipeline.parse import parse
from semantic_rdf.pipeline.split import splitter_from_spec
from semantic_rdf.pipeline.stages import Pipeline
from semantic_rdf.pipeline.statistical import StatisticalExtractor
from semantic_rdf.core.values import Doc

MB = 1 << 20


def _code(text: str, **kw) -> list[str]:
    return [text[a:b] for a, b in code_regions(text, **kw)]


def test_fenced_blocks_in_any_text():
    t = "A.\n```py\nx = 1\n```\nB.\n~~~~\ny\n~~~\nstill code\n~~~~~\nC.\n   ```\nunclosed\nto the end"
    assert _code(t) == ["```py\nx = 1\n```\n", "~~~~\ny\n~~~\nstill code\n~~~~~\n", "   ```\nunclosed\nto the end"]
    assert _code("Inline ``` is not a fence.\n    ```\nnor is this") == []  # mid-line; four spaces of indent


def test_code_spans_pair_runs_of_equal_length_within_a_paragraph():
    t = "Use ``a ` b`` and `c` but not ``` d, nor \\`e`, nor `f\n\ng` across a blank line."
    assert _code(t, spans=True) == ["``a ` b``", "`c`", "`, nor `"]
    assert _code(t) == []  # spans only where asked (Markdown, HTML)


def test_indented_blocks_follow_a_paragraph_not_a_list_item():
    t = (
        "Para.\n\n    code line\n\n    more code\nProse again.\n\n- item\n\n    the item's second paragraph\n"
        "\n1. first\n   continued\n\n    still the item\n"
    )
    assert _code(t, indented=True) == ["    code line\n\n    more code\n"]
    assert _code("    code at the start\nand on", indented=True) == ["    code at the start\n"]
    assert _code(t) == []


def test_mask_keeps_offsets_and_line_breaks():
    t = "a `b\r\nc` d\n```\ne\n```\n"
    r = code_regions(t, spans=True)
    m = mask(t, r)
    assert len(m) == len(t) and m.count("\n") == t.count("\n") and m.count("\r") == t.count("\r")
    assert m.replace(" ", "").replace("\r", "").replace("\n", "") == "ad"
    assert mask(t, []) is t


def test_html_code_becomes_a_span_and_pre_a_fence():
    def text(html: str) -> str:
        return parse(Doc("d", "d.html", html, {"media_type": "text/html"})).text

    assert text("<p>Use <code>foo()</code> here.</p>") == "Use `foo()` here."
    assert text("<p>A <code>x `y` z</code> b</p>") == "A ``x `y` z`` b"  # a longer run than any inside
    assert text("<p>A <code>`q</code> b</p>") == "A `` `q `` b"
    assert text("<p><code><code>in</code> out</code> after</p>") == "`in out` after"
    assert text("<pre><code>block</code></pre><p>Then.</p>").startswith("```\nblock\n```")
    t = text("<p>A <code>x `y` z</code> b <code>`q</code></p>")
    assert [t[a:b] for a, b in regions_for(t, "html")] == ["``x `y` z``", "`` `q ``"]


DOCS = {
    "a.html": (
        "<html><body><p>Intro.</p><code>Marie Curie was born in Warsaw.</code>"
        "<p>Alan Turing was born in London.</p><pre>Grace Hopper was born in New York.</pre></body></html>"
    ),
    "b.md": (
        "Intro.\n\n    Pierre Curie was born in Paris.\n\nCharles Babbage was born in London.\n\n"
        "See `Ada Lovelace was born in London.` here.\n\n```\nGrace Hopper was born in New York.\n```\n"
    ),
    "c.txt": "Marie Curie was born in Warsaw.\n```\nAlan Turing was born in London.\n```\n",
}
MEDIA = {"html": "text/html", "md": "text/markdown", "txt": "text/plain"}


class _Docs:
    def ingest(self, ref: str) -> list[Doc]:
        return [Doc(ref, ref, DOCS[ref], {"media_type": MEDIA[ref.rsplit(".", 1)[1]]})]


@pytest.mark.parametrize("extractor", [RuleExtractor, StatisticalExtractor], ids=["rules", "statistical"])
def test_no_extractor_reads_code_and_spans_quote_the_document(extractor):
    from semantic_rdf.pipeline.parse import AutoParser

    p = Pipeline(_Docs(), parser=AutoParser(), splitter=splitter_from_spec("sentences"), extractor=extractor())
    got = {}
    for ref in DOCS:
        (res,) = list(p.run(ref))
        assert res.ok, res.error
        for t in res.triples:
            got[(ref, t.subject)] = t
            assert res.doc.text[t.start : t.end] == t.chunk.text[t.start - t.chunk.start : t.end - t.chunk.start]
            assert "`" not in t.subject + t.object
            assert any(c is t.chunk for c in res.chunks)  # the real chunk, not the blanked copy
    assert ("a.html", "Alan Turing") in got and ("b.md", "Charles Babbage") in got and ("c.txt", "Marie Curie") in got
    assert not {s for _, s in got} & {"Grace Hopper", "Pierre Curie", "Ada Lovelace"}
    assert ("a.html", "Marie Curie") not in got and ("c.txt", "Alan Turing") not in got


ADVERSARIAL = {
    "runs of every length": " ".join("`" * k for k in range(1, 1450)),
    "one paragraph of single ticks": "` " * (MB // 2),
    "fence lines": "```\n" * (MB // 4),
    "unclosed fences of growing length": "".join("`" * k + "\n" for k in range(3, 1450)),
    "indent and blank lines": "Para.\n\n    x\n" * (MB // 12),
    "list items and indents": "- a\n\n    b\n" * (MB // 10),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_finding_code_is_linear(name):
    text = ADVERSARIAL[name]
    t = time.perf_counter()
    regions = code_regions(text, spans=True, indented=True)
    mask(text, regions)
    # about 0.5-0.9 s here; a pattern that backtracks over a megabyte takes minutes, so 5 s tells the two apart
    # without failing on a loaded machine (1.0 s did, at 1.05-1.15 s, under the full suite in a fresh venv)
    assert time.perf_counter() - t < 5.0, name


def test_nested_html_code_is_linear():
    html = "<p>" + "<code>" * 40_000 + "x" + "</code>" * 40_000 + "</p>"
    t = time.perf_counter()
    text = parse(Doc("d", "d.html", html, {"media_type": "text/html"})).text
    assert time.perf_counter() - t < 5.0
    assert text == "`x`"
