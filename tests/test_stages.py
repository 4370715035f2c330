"""The pipeline: composition, skipped stages, per-document failures, build_pipeline end to end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from semantic_rdf.core.errors import InvalidInput, ParseError, RefusedByBounds, SourceError
from semantic_rdf.pipeline.sources import MemoryIngester
from semantic_rdf.pipeline.normalize import DEFAULT
from semantic_rdf.pipeline.parse import AutoParser
from semantic_rdf.pipeline.split import Sentences, sentence_spans
from semantic_rdf.pipeline.stages import (
    Extractor,
    Ingester,
    Normalizer,
    Parser,
    Pipeline,
    PipelineResult,
    Splitter,
    build_pipeline,
)
from semantic_rdf.core.values import Chunk, Triple


class WorksAt:
    """A real (tiny) rule extractor: "X works at Y." with the sentence as evidence."""

    rx = re.compile(r"\b([A-Z]\w+) works at ([A-Z]\w+)")

    def extract(self, chunk: Chunk) -> list[Triple]:
        out = []
        for a, b in sentence_spans(chunk.text):
            for m in self.rx.finditer(chunk.text, a, b):
                out.append(Triple(m.group(1), "employer", m.group(2), chunk=chunk, score=0.9, start=chunk.start + a, end=chunk.start + b))
        return out


def test_protocols_are_one_method_and_runtime_checkable():
    assert isinstance(MemoryIngester({}), Ingester)
    assert isinstance(AutoParser(), Parser)
    assert isinstance(DEFAULT, Normalizer)
    assert isinstance(Sentences(), Splitter)
    assert isinstance(WorksAt(), Extractor)


def test_missing_ingester_is_an_error_and_stages_are_checked():
    with pytest.raises(InvalidInput):
        Pipeline(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        Pipeline(MemoryIngester({}), parser=object())  # type: ignore[arg-type]


def test_only_an_ingester_skips_everything_else():
    p = Pipeline(MemoryIngester({"a.html": "<p>Hi  there</p>"}))
    [r] = list(p.run("a.html"))
    assert r.ok and r.doc.text == "<p>Hi  there</p>" and r.chunks == () and r.triples == ()


def test_split_without_extractor_and_extract_without_parser():
    p = Pipeline(MemoryIngester({"a.txt": "Alice works at Acme. Bob works at Initech."}), splitter=Sentences(0))
    [r] = list(p.run("a.txt"))
    assert [c.text for c in r.chunks] == ["Alice works at Acme. ", "Bob works at Initech."]
    p = Pipeline(MemoryIngester({"a.txt": "Alice works at Acme."}), splitter=Sentences(), extractor=WorksAt())
    [r] = list(p.run("a.txt"))
    assert [(t.subject, t.object) for t in r.triples] == [("Alice", "Acme")]
    # no splitter: nothing to extract from, and that is not an error
    [r] = list(Pipeline(MemoryIngester({"a.txt": "Alice works at Acme."}), extractor=WorksAt()).run("a.txt"))
    assert r.ok and r.triples == ()


def test_document_text_is_the_normalized_text_and_spans_slice_it():
    src = "\u201cNews\u201d: Alice works at Acme.\r\n\r\n\r\nCaf\u0065\u0301 news:  Bob works at Initech.  "
    p = Pipeline(MemoryIngester({"n.txt": src}), AutoParser(), DEFAULT, Sentences(0), WorksAt())
    [r] = list(p.run("n.txt"))
    assert r.doc.text == '"News": Alice works at Acme.\n\nCafé news: Bob works at Initech.'
    for c in r.chunks:
        assert r.doc.text[c.start : c.end] == c.text
    assert "".join(c.text for c in r.chunks) == r.doc.text
    spans = [r.doc.text[t.start : t.end] for t in r.triples]
    assert spans == ['"News": Alice works at Acme.', "Café news: Bob works at Initech."]
    assert r.doc.meta["size"] == len(src.encode())  # origin survives parsing and normalising


def test_parser_does_not_mutate_what_the_ingester_returned():
    ing = MemoryIngester({"p.html": "<title>T</title><p>Body</p>"})
    original = ing.ingest("p.html")[0]

    class Fixed:
        def ingest(self, ref):
            return [original]

    [r] = list(Pipeline(Fixed(), AutoParser(), DEFAULT, Sentences()).run("p.html"))
    assert r.doc.text == "Body" and original.text == "<title>T</title><p>Body</p>"
    assert "parser" not in original.meta and r.doc.meta["parser"] == "html"


def test_a_failed_record_is_reported_and_the_rest_go_on():
    data = '{"text": "Alice works at Acme."}\n{"broken": \n{"text": "Bob works at Initech."}\n'
    p = Pipeline(MemoryIngester({"r.jsonl": data}), AutoParser(), DEFAULT, Sentences(), WorksAt())
    results = list(p.run("r.jsonl"))
    assert [r.ok for r in results] == [True, False, True]
    bad = results[1]
    assert bad.doc is None and isinstance(bad.error, ParseError) and bad.ref == "r.jsonl"
    assert [t.subject for r in results if r.ok for t in r.triples] == ["Alice", "Bob"]


def test_an_unreadable_reference_yields_one_failed_result():
    p = Pipeline(MemoryIngester({}))
    [r] = list(p.run("nothing"))
    assert not r.ok and isinstance(r.error, SourceError) and r.ref == "nothing"

    class Empty:
        def ingest(self, ref):
            return []

    [r] = list(Pipeline(Empty()).run("x"))
    assert isinstance(r.error, SourceError)  # an empty answer is not silently accepted


def test_results_are_frozen_and_timings_accumulate():
    p = Pipeline(MemoryIngester({"a.txt": "Alice works at Acme. " * 50}), AutoParser(), DEFAULT, Sentences(), WorksAt())
    [r] = list(p.run("a.txt"))
    with pytest.raises(AttributeError):
        r.error = None  # type: ignore[misc]
    assert isinstance(r, PipelineResult)
    assert set(p.timings) == {"ingest", "parse", "normalize", "split", "extract"}
    assert all(v > 0 for v in p.timings.values())
    assert p.bytes_in == len(("Alice works at Acme. " * 50).encode())


# ------------------------------------------------------------------ build_pipeline


@pytest.fixture()
def corpus(tmp_path: Path, monkeypatch):
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.md").write_text("# People\n\nAlice works at Acme. She is an engineer.\n")
    (root / "b.html").write_text("<title>B</title><p>Bob works at Initech.</p><script>Eve works at Evil</script>")
    (root / "c.bin").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "outside.txt").write_text("Mallory works at Outside.")
    monkeypatch.chdir(tmp_path)
    return root


def test_build_pipeline_end_to_end(corpus):
    p = build_pipeline(["corpus"], extractor=WorksAt())
    results = list(p.run_all(["corpus"]))
    good = [r for r in results if r.ok]
    bad = [r for r in results if not r.ok]
    assert [r.ref for r in good] == ["corpus/a.md", "corpus/b.html"]
    assert [r.ref for r in bad] == ["corpus/c.bin"] and "binary" in str(bad[0].error)
    triples = [(t.subject, t.object) for r in good for t in r.triples]
    assert triples == [("Alice", "Acme"), ("Bob", "Initech")]  # the script's text was never read


def test_build_pipeline_refusals(corpus, tmp_path):
    p = build_pipeline(["corpus"])
    refs = ["outside.txt", "corpus/../outside.txt", "ftp://example.org/x", "http://127.0.0.1:9/x", "http://169.254.169.254/latest/meta-data/"]
    results = list(p.run_all(refs))
    assert len(results) == len(refs)
    assert all(isinstance(r.error, RefusedByBounds) and r.doc is None for r in results)
    (corpus / "escape.txt").symlink_to(tmp_path / "outside.txt")
    [r] = [r for r in p.run("corpus") if r.ref == "corpus/escape.txt"]
    assert isinstance(r.error, RefusedByBounds) and "symlink" in str(r.error)


def test_build_pipeline_options(corpus):
    p = build_pipeline(["corpus/a.md"], splitter="markdown:0", normalizer=None, parser=None)
    [r] = list(p.run("corpus/a.md"))
    assert r.doc.text.startswith("# People\n\n") and [c.text for c in r.chunks] == [r.doc.text]
    p = build_pipeline(["corpus/a.md"], roots=[str(corpus)], splitter=Sentences(0))
    assert len(next(p.run("corpus/a.md")).chunks) == 3
    with pytest.raises(InvalidInput):
        build_pipeline([], splitter="nope")
    with pytest.raises(InvalidInput):
        build_pipeline([], parser="xml")
    with pytest.raises(InvalidInput):
        build_pipeline([], max_bytes=0)
