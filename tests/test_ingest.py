"""Ingest drivers: registry, origin metadata, stable ids, records with byte offsets, the web."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import threading
from pathlib import Path

import pytest

from semantic_rdf.core.bounds import Bounds
from semantic_rdf.core.errors import InvalidInput, ParseError, RefusedByBounds, SourceError
from semantic_rdf.pipeline.sources import (
    Ingest,
    IngestConfig,
    MemoryIngester,
    decode_text,
    default_roots,
    detect_media_type,
    docs_from_bytes,
    ingest_bytes,
    origin,
    resolve,
    scheme_of,
)
from semantic_rdf.core.plugins import Registry, default_registry
from semantic_rdf.core.values import Doc


def cfg(*roots, **kw) -> IngestConfig:
    allow = kw.pop("allow_hosts", ())
    return IngestConfig(Bounds.make(roots, allow, **{k: kw.pop(k) for k in list(kw) if k in ("max_bytes", "timeout")}), **kw)


def ok(docs):
    return [d for d in docs if "error" not in d.meta]


def failed(docs):
    return [d for d in docs if "error" in d.meta]


@pytest.fixture()
def corpus(tmp_path: Path, monkeypatch):
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "a.txt").write_text("Alice works at Acme.\n")
    (root / "sub" / "b.md").write_text("# B\n\nBob lives in Oslo.\n")
    (root / "sub" / "c.html").write_text("<title>C</title><p>Carol</p>")
    (root / ".git" / "config").write_text("hidden")
    (root / ".hidden.txt").write_text("hidden")
    monkeypatch.chdir(tmp_path)
    return root


# ------------------------------------------------------------------ scheme and registry


@pytest.mark.parametrize(
    "ref, scheme",
    [
        ("-", "stdin"),
        ("http://x.org/a", "http"),
        ("HTTPS://x.org/", "https"),
        ("ftp://x.org/f", "ftp"),
        ("ftp:x", "ftp"),
        ("file:///tmp/x", "file"),
        ("s3://bucket/key", "s3"),
        ("docs/*.md", "glob"),
        ("**/*.txt", "glob"),
        ("plain.txt", "file"),
        ("C:/x.txt", "file"),
    ],
)
def test_scheme_of(ref, scheme):
    assert scheme_of(ref) == scheme


def test_existing_dir_is_dir_and_colon_filename_is_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / "notes:2024.txt").write_text("x")
    assert scheme_of("d") == "dir"
    assert scheme_of("notes:2024.txt") == "file"


def test_unknown_scheme_is_refused_with_the_known_ones():
    for ref in ("ftp://example.org/x", "mailto:someone@example.org", "gopher://x"):
        with pytest.raises(RefusedByBounds) as e:
            resolve(ref)
        assert "no ingest driver" in str(e.value)
        assert "file" in str(e.value) and "https" in str(e.value)


def test_registry_extends_without_forking():
    reg = Registry()

    class Notes:
        """A tiny driver serving an in-process notebook under notes:NAME."""

        def __init__(self, config):
            self.book = {"todo": b"Buy milk. Call Dana."}

        def ingest(self, ref):
            name = ref.split(":", 1)[1]
            if name not in self.book:
                raise SourceError(f"{ref}: no such note")
            return docs_from_bytes(self.book[name], ref=ref)

    reg.register("source", "Notes", Notes)
    assert "notes" in reg.names("source")
    docs = Ingest(cfg(), reg).ingest("notes:todo")
    assert docs[0].text == "Buy milk. Call Dana."
    with pytest.raises(SourceError):
        Ingest(cfg(), reg).ingest("notes:nothing")
    with pytest.raises(InvalidInput):
        reg.register("source", "notes", Notes)  # no silent replacement
    reg.register("source", "notes", Notes, replace=True)
    with pytest.raises(InvalidInput):
        reg.register("source", "no spaces", Notes)
    assert "notes" not in default_registry().names("source")  # the default registry is untouched


def test_register_in_the_default_registry():
    class Echo:
        def __init__(self, config):
            pass

        def ingest(self, ref):
            return docs_from_bytes(ref.encode(), ref=ref)

    default_registry().register("source", "echo-test", Echo)
    assert resolve("echo-test:hello").ingest("echo-test:hello")[0].text == "echo-test:hello"


def test_default_roots_are_the_named_paths():
    assert default_roots(["a/b.txt", "docs", "src/**/*.md", "http://x.org/", "-"]) == ["a/b.txt", "docs", "src"]


# ------------------------------------------------------------------ file, dir, glob


def test_file_origin_and_stable_id(corpus):
    docs = Ingest(cfg(corpus)).ingest("corpus/a.txt")
    assert len(docs) == 1
    d = docs[0]
    o = origin(d)
    data = (corpus / "a.txt").read_bytes()
    assert o.ref == "corpus/a.txt" == d.source
    assert o.offset == 0 and o.size == len(data)
    assert o.sha256 == hashlib.sha256(data).hexdigest()
    assert o.media_type == "text/plain"
    assert o.modified is not None and o.modified.tzinfo is not None
    assert d.text == "Alice works at Acme.\n"
    # the same bytes named another way (absolute path, file:// URL) keep the id; nothing machine-specific in meta
    again = Ingest(cfg(corpus)).ingest(str(corpus / "a.txt"))[0]
    url = Ingest(cfg(corpus)).ingest("file://" + str(corpus / "a.txt"))[0]
    assert again.id == d.id == url.id
    assert again.source == "a.txt"
    assert str(corpus) not in json.dumps({k: v for k, v in again.meta.items()}, default=str)
    assert d.id.startswith("doc-") and len(d.id) == 36


def test_changed_content_is_a_new_document(corpus):
    first = Ingest(cfg(corpus)).ingest("corpus/a.txt")[0].id
    (corpus / "a.txt").write_text("Alice works at Initech.\n")
    assert Ingest(cfg(corpus)).ingest("corpus/a.txt")[0].id != first


def test_missing_file_raises_not_empty(corpus):
    with pytest.raises(SourceError):
        Ingest(cfg(corpus)).ingest("corpus/nope.txt")


def test_dir_is_recursive_sorted_and_skips_hidden(corpus):
    docs = Ingest(cfg(corpus)).ingest("corpus")
    assert [d.source for d in docs] == ["corpus/a.txt", "corpus/sub/b.md", "corpus/sub/c.html"]
    assert [d.meta["media_type"] for d in docs] == ["text/plain", "text/markdown", "text/html"]


def test_dir_include_and_exclude(corpus):
    docs = Ingest(cfg(corpus, include=("*.md", "*.txt"))).ingest("corpus")
    assert [d.source for d in docs] == ["corpus/a.txt", "corpus/sub/b.md"]
    docs = Ingest(cfg(corpus, exclude=("sub",))).ingest("corpus")  # replaces the default: hidden files in
    assert {d.source for d in docs} == {"corpus/.git/config", "corpus/.hidden.txt", "corpus/a.txt"}
    docs = Ingest(cfg(corpus, exclude=(".*", "sub/*.html"))).ingest("corpus")
    assert [d.source for d in docs] == ["corpus/a.txt", "corpus/sub/b.md"]
    with pytest.raises(SourceError):
        Ingest(cfg(corpus, include=("*.pdf",))).ingest("corpus")


def test_bad_file_in_dir_is_reported_and_the_rest_read(corpus, tmp_path):
    (corpus / "broken.json").write_text('[{"a": 1}, {"b": ')
    (tmp_path / "secret.txt").write_text("secret")
    (corpus / "leak.txt").symlink_to(tmp_path / "secret.txt")
    docs = Ingest(cfg(corpus)).ingest("corpus")
    bad = {d.source: d.meta["error"] for d in failed(docs)}
    assert isinstance(bad["corpus/broken.json"], ParseError)
    assert isinstance(bad["corpus/leak.txt"], RefusedByBounds)
    assert "secret" not in "".join(d.text for d in docs)
    assert {d.source for d in ok(docs)} == {"corpus/a.txt", "corpus/sub/b.md", "corpus/sub/c.html"}


def test_dir_outside_roots_and_empty_dir(corpus, tmp_path):
    with pytest.raises(RefusedByBounds):
        Ingest(cfg(corpus / "sub")).ingest("corpus")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError):
        Ingest(cfg(tmp_path / "empty")).ingest("empty")


def test_glob(corpus):
    docs = Ingest(cfg(corpus)).ingest("corpus/**/*.md")
    assert [d.source for d in docs] == ["corpus/sub/b.md"]
    assert [d.source for d in Ingest(cfg(corpus)).ingest("glob:corpus/*.txt")] == ["corpus/a.txt"]
    with pytest.raises(SourceError):
        Ingest(cfg(corpus)).ingest("corpus/*.nothing")


def test_glob_outside_roots_reports_each_file(corpus):
    docs = Ingest(cfg(corpus / "sub")).ingest("corpus/**/*.txt")
    assert docs and all(isinstance(d.meta["error"], RefusedByBounds) for d in docs)


def test_max_files(corpus):
    docs = Ingest(cfg(corpus, max_files=2)).ingest("corpus")
    assert len(ok(docs)) == 2 and isinstance(failed(docs)[0].meta["error"], RefusedByBounds)


# ------------------------------------------------------------------ records


def test_json_array_one_doc_per_record_with_byte_offsets():
    data = '[ {"name": "Zoë", "n": 1},\n  {"name": "Åsa"}, 3, "x"]'.encode()
    docs = docs_from_bytes(data, ref="people.json")
    assert [d.meta["record"] for d in docs] == [0, 1, 2, 3]
    for d in docs:
        o = origin(d)
        piece = data[o.offset : o.offset + o.size]
        assert json.loads(piece) == json.loads(d.text)
        assert o.sha256 == hashlib.sha256(piece).hexdigest()
    assert len({d.id for d in docs}) == 4


def test_json_object_is_one_doc_and_bom_counts_in_offsets():
    data = b"\xef\xbb\xbf" + b'[{"a": 1}]'
    d = docs_from_bytes(data, ref="x.json")[0]
    assert data[d.meta["offset"] : d.meta["offset"] + d.meta["size"]] == b'{"a": 1}'
    assert docs_from_bytes(b'{"a": [1, 2]}', ref="o.json")[0].meta["size"] == 13


@pytest.mark.parametrize("data", [b'[{"a": 1},', b"[1 2]", b"[1] x", b"[]", b"   "])
def test_malformed_json_is_a_parse_error(data):
    with pytest.raises(ParseError):
        docs_from_bytes(data, ref="bad.json")


def test_deeply_nested_json_does_not_crash():
    with pytest.raises(ParseError) as e:
        docs_from_bytes(b"[" * 100_000 + b"]" * 100_000, ref="deep.json")
    assert "deep.json" in str(e.value)


def test_jsonl_offsets_skip_blank_lines_and_crlf():
    data = '{"a": "é"}\r\n\r\n{"b": 2}\n  \n{"c": 3}'.encode()
    docs = docs_from_bytes(data, ref="log.jsonl")
    assert [json.loads(d.text) for d in docs] == [{"a": "é"}, {"b": 2}, {"c": 3}]
    for d in docs:
        assert data[d.meta["offset"] : d.meta["offset"] + d.meta["size"]].decode() == d.text
    assert docs[0].meta["media_type"] == "application/json"


def test_csv_rows_with_quoted_newlines_and_offsets():
    data = 'name;note\r\nAl;"two\nlines"\r\nBø;plain\r\n\r\n'.encode()
    docs = docs_from_bytes(data, ref="t.csv")
    assert len(docs) == 2
    assert docs[0].meta["csv_header"] == ("name", "note")
    assert docs[0].meta["csv_delimiter"] == ";"
    for d in docs:
        assert data[d.meta["offset"] : d.meta["offset"] + d.meta["size"]].decode() == d.text
    assert docs[0].text == 'Al;"two\nlines"'


def test_csv_id_depends_on_the_header():
    a = docs_from_bytes(b"x,y\n1,2\n", ref="a.csv")[0]
    b = docs_from_bytes(b"p,q\n1,2\n", ref="b.csv")[0]
    assert a.meta["sha256"] == b.meta["sha256"] and a.id != b.id


def test_csv_without_rows_is_a_parse_error():
    with pytest.raises(ParseError):
        docs_from_bytes(b"only,a,header\n", ref="h.csv")


def test_tsv_by_extension():
    docs = docs_from_bytes(b"a\tb\n1\t2\n", ref="t.tsv")
    assert docs[0].meta["csv_delimiter"] == "\t"


# ------------------------------------------------------------------ media types and decoding


@pytest.mark.parametrize(
    "data, name, declared, expected",
    [
        (b"%PDF-1.4 ...", "x.txt", None, "application/pdf"),
        (b"\x89PNG\r\n\x1a\n....", "x.txt", None, "application/octet-stream"),
        (b"abc\x00def", "x.md", None, "application/octet-stream"),
        (b"# Title", "x.md", None, "text/markdown"),
        (b"<!DOCTYPE html><p>x", "page", None, "text/html"),
        (b"<html><p>x", "x.txt", None, "text/html"),
        (b'{"a": 1}', "data", None, "application/json"),
        (b'{"a": 1}\n{"a": 2}\n', "data", None, "application/x-ndjson"),
        (b"From: a@b.org\nSubject: hi\n\nbody", "msg", None, "message/rfc822"),
        (b"plain words", "README", None, "text/plain"),
        (b"<p>x</p>", "/page", "text/html; charset=utf-8", "text/html"),
        (b'{"a":1}', "/api", "application/ld+json", "application/json"),
        (b"a,b\n1,2", "/x", "text/csv", "text/csv"),
        (b"hello", "/x", "text/plain", "text/plain"),
        ("é".encode("utf-16"), "x.txt", None, "text/plain"),
    ],
)
def test_detect_media_type(data, name, declared, expected):
    assert detect_media_type(data, name, declared) == expected


def test_random_bytes_are_binary_but_legacy_8bit_text_is_not():
    import random

    rng = random.Random(5)
    for n in (64, 512, 4096):  # (a dozen random bytes can pass for text; the test bounds the rate at 64+)
        for _ in range(20):
            noise = bytes(rng.getrandbits(8) for _ in range(n))
            assert detect_media_type(noise, "x.txt") == "application/octet-stream"
    latin1 = ("Müller aß Brötchen in Köln, während Señor Peña café trank. " * 20).encode("latin-1")
    assert detect_media_type(latin1, "x.txt") == "text/plain"


def test_invalid_utf8_is_replaced_and_counted_not_latin1():
    data = "café ".encode() + b"\xff\xfe" + " naïve".encode()
    d = docs_from_bytes(data, ref="x.txt")[0]
    assert d.text == "café \ufffd\ufffd naïve"
    assert d.meta["decode_errors"] == 2
    assert d.meta["encoding"] == "utf-8"


def test_invalid_utf8_keeps_record_offsets_exact():
    data = b'{"a": "x\xff"}\n{"b": 1}\n'
    docs = docs_from_bytes(data, ref="x.jsonl")
    assert docs[1].meta["offset"] == data.index(b'{"b"')


def test_utf16_records_keep_exact_byte_offsets():
    data = ("\ufeff" + '[{"a": "é"}, {"b": 2}]').encode("utf-16-le")
    docs = docs_from_bytes(data, ref="wide.json")
    assert [d.meta["encoding"] for d in docs] == ["utf-16-le"] * 2
    for d in docs:
        assert data[d.meta["offset"] : d.meta["offset"] + d.meta["size"]].decode("utf-16-le") == d.text


def test_declared_charset_and_boms():
    assert decode_text("Grüße".encode("latin-1"), "iso-8859-1").text == "Grüße"
    assert decode_text("Grüße".encode("utf-16")).text == "Grüße"
    d = decode_text(b"\xef\xbb\xbfhi")
    assert d.text == "hi" and d.bom == 3
    assert decode_text(b"x", "no-such-charset").encoding == "utf-8"
    html = '<meta charset="windows-1252"><p>caf\xe9'.encode("cp1252")
    assert "café" in docs_from_bytes(html, ref="p.html")[0].text


def test_binary_is_kept_as_bytes_for_the_parser():
    d = docs_from_bytes(b"%PDF-1.4 fake", ref="x.pdf")[0]
    assert d.text == "" and d.meta["raw"] == b"%PDF-1.4 fake"


# ------------------------------------------------------------------ stdin and memory


def test_stdin():
    docs = Ingest(cfg(stdin=io.BytesIO(b"Dana met Eve."))).ingest("-")
    assert docs[0].text == "Dana met Eve." and docs[0].source == "stdin"
    with pytest.raises(SourceError):
        Ingest(cfg(stdin=io.BytesIO(b""))).ingest("-")
    with pytest.raises(RefusedByBounds):
        Ingest(cfg(stdin=io.BytesIO(b"x" * 5000), max_bytes=4096)).ingest("-")


def test_memory_ingester_and_ingest_bytes():
    mem = MemoryIngester({"n.md": "# Hi\n\nText.", "r": io.BytesIO(b"from a reader"), "b": b"[1, 2]"}, media_types={"b": "application/json"})
    assert mem.ingest("n.md")[0].meta["media_type"] == "text/markdown"
    assert mem.ingest("r")[0].text == "from a reader"
    assert len(mem.ingest("b")) == 2
    with pytest.raises(SourceError):
        mem.ingest("missing")
    assert ingest_bytes("x,y\n1,2\n", "t.csv")[0].meta["record"] == 0
    with pytest.raises(RefusedByBounds):
        MemoryIngester({"big": b"x" * 10}, max_bytes=5).ingest("big")


def test_origin_requires_origin_meta():
    with pytest.raises(InvalidInput):
        origin(Doc("d", "s", "t"))


# ------------------------------------------------------------------ web driver


class _Web(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.path == "/page":
            body = "<html><title>Über</title><p>Grüße aus Köln.</p></html>".encode("latin-1")
            ctype = "text/html; charset=iso-8859-1"
        elif self.path == "/data":
            body = b'{"x": 1}\n{"x": 2}\n'
            ctype = "application/x-ndjson"
        elif self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def web():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Web)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def test_web_refused_by_default(web):
    with pytest.raises(RefusedByBounds):
        Ingest(cfg()).ingest(web + "/page")


def test_web_origin_and_charset(web):
    docs = Ingest(cfg(allow_hosts=["127.0.0.1"])).ingest(web + "/moved")
    d = docs[0]
    o = origin(d)
    assert o.status == 200 and o.url == web + "/page" and o.ref == web + "/moved"
    assert o.fetched_at is not None and o.modified.year == 2015
    assert o.media_type == "text/html"
    assert "Grüße aus Köln" in d.text and d.meta["encoding"] == "iso8859-1"


def test_web_records_and_http_errors(web):
    docs = Ingest(cfg(allow_hosts=["127.0.0.1"])).ingest(web + "/data")
    assert [json.loads(d.text) for d in docs] == [{"x": 1}, {"x": 2}]
    assert all(d.meta["status"] == 200 for d in docs)
    with pytest.raises(SourceError):
        Ingest(cfg(allow_hosts=["127.0.0.1"])).ingest(web + "/gone")


def test_resolve_without_config_bounds_to_the_named_path(corpus):
    assert resolve("corpus/a.txt").ingest("corpus/a.txt")[0].text.startswith("Alice")
    os.symlink(corpus / "a.txt", corpus.parent / "outside-link.txt")
    # naming the link itself makes its target the root: allowed
    assert resolve("outside-link.txt").ingest("outside-link.txt")[0].text.startswith("Alice")


# ------------------------------------------------------------------ loader: batched documents, read-ahead


class _Texts:
    """An ingester of in-memory texts, one document per name (kept verbatim, lone surrogates included)."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def ingest(self, ref: str) -> list[Doc]:
        return [Doc(ref, ref, self.texts[ref])]


_BORN = {
    "d0": "Ada Lovelace was born in London.",
    "d1": "Alan Turing was born in London.",
    "d2": "Grace Hopper was born in New York.",
    "d3": "Emmy Noether was born in Erlangen.",
    "d4": "Carl Gauss was born in Brunswick.",
}


def _loader_pipeline(texts: dict[str, str], extractor=None):
    from semantic_rdf.pipeline.extract import RuleExtractor
    from semantic_rdf.pipeline.split import splitter_from_spec
    from semantic_rdf.pipeline.stages import Pipeline

    return Pipeline(_Texts(texts), splitter=splitter_from_spec("sentences"), extractor=extractor or RuleExtractor())


def test_load_skips_only_the_document_the_store_refuses():
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.store.assertions import AssertionStore

    texts = dict(_BORN, d2=_BORN["d2"] + " \ud800")  # a lone surrogate cannot be stored
    store = AssertionStore.memory()
    summary = load(store, _loader_pipeline(texts), list(texts), batch_size=3)
    assert [f["ref"] for f in summary.failed] == ["d2"]
    assert summary.documents == 4 and summary.new == 4 and not summary.unchanged
    assert all(store.exists(i) for i in summary.ids)
    assert {store.get(i).subject for i in summary.ids} == {"Ada Lovelace", "Alan Turing", "Emmy Noether", "Carl Gauss"}
    assert store.validate().conforms


def test_load_raises_what_the_pipeline_raises_and_leaves_no_run():
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.store.assertions import AssertionStore

    class Boom:
        def extract(self, chunk):
            if chunk.doc_id == "d3":
                raise RuntimeError("extractor broke")
            return []

    store = AssertionStore.memory()
    threads = threading.active_count()
    with pytest.raises(RuntimeError, match="extractor broke"):
        load(store, _loader_pipeline(_BORN, Boom()), list(_BORN))
    assert threading.active_count() == threads  # the read-ahead worker is gone
    # nothing was written before the failure, so the run left no trace (a run is recorded with its first write)
    assert store.quad_count() == 0
    assert store.validate().conforms


@pytest.mark.parametrize("on_disk", [False, True])
def test_load_starts_with_small_batches_in_memory_only(tmp_path, on_disk):
    """In memory the first batch is an eighth of batch_size and each next one doubles, so writes start early;
    on disk, where a batch pays an fsync and a flush, every batch is full size. The stored facts are the same."""
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.store.assertions import AssertionStore

    texts = {f"d{i:02d}": "".join(f"Person{i}x{k} Smith was born in Town{k}. " for k in range(4)) for i in range(30)}
    store = AssertionStore.open(tmp_path / "s") if on_disk else AssertionStore.memory()
    sizes: list[int] = []
    summary = load(
        store, _loader_pipeline(texts), list(texts), batch_size=40, read_ahead="thread", on_commit=lambda report: sizes.append(len(report.ids))
    )
    assert sum(sizes) == summary.extracted == 120 and summary.new == 120
    assert sizes == ([40, 40, 40] if on_disk else [8, 12, 20, 40, 40])  # limits 5, 10, 20, 40, 40; 4 triples a document
    assert store.validate().conforms
    store.close()
