"""Ingest: the stage that turns a reference into documents (HIP-0526 §3, §3.6).

Drivers are parts of kind "source" in the one registry (semantic_rdf/core/plugins.py), looked up by the
reference's scheme, so a new source (an object store, a queue) is one
`registry.register("source", scheme, factory)` call or a plug-in's entry point, not a fork.
Built in: ``file``, ``dir`` (recursive, include/exclude patterns), ``glob``, ``http``/``https``,
``stdin`` (the reference ``-``), plus `MemoryIngester` / `ingest_bytes` for data already in memory.

Every driver reads through `Bounds` (bounds.py). A driver that cannot read what it names
raises `SourceError` (or `RefusedByBounds`); it never returns an empty list. A directory or
glob that reads many files reports each file it could not read or decode as a document
carrying ``meta["error"]`` (the typed exception, never stored) so one bad file never hides
the rest; `Pipeline` turns it into a failed result.

Origin (HIP-0526 §2.2) is written into ``Doc.meta`` and read back by `origin(doc)`:
``ref`` (the reference as named, machine-independent), ``offset`` and ``size`` (bytes within
the source), ``modified`` (ISO 8601 UTC or None), ``sha256`` (hex of the document's bytes),
``media_type``, ``encoding``, ``decode_errors``, ``record`` (index for JSON/JSONL/CSV records),
and for the web ``status``, ``fetched_at`` and ``url`` (after redirects).

Document ids are content-addressed: ``doc-`` + the first 32 hex digits of SHA-256 over
``semantic-rdf/doc/1 NUL media-type NUL [csv-header NUL] bytes``, where bytes are the file's, or
the record's for JSON/JSONL/CSV. The same bytes get the same id on every machine and in every
run; a changed file is a new document (its old spans keep pointing at the old text).
"""

from __future__ import annotations

import codecs
import csv
import fnmatch
import glob as _glob
import hashlib
import json
import mimetypes
import os
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, Callable, Collection, Iterable, Mapping
from urllib.parse import unquote, urlsplit

from semantic_rdf.core.bounds import DEFAULT_MAX_BYTES, DEFAULT_MAX_TEXT, Bounds
from semantic_rdf.core.errors import InvalidInput, ParseError, RefusedByBounds, SemanticError, SourceError
from semantic_rdf.core.plugins import Registry, default_registry
from semantic_rdf.core.values import Doc, display_ref

__all__ = [
    "Origin",
    "origin",
    "IngestConfig",
    "resolve",
    "scheme_of",
    "Ingest",
    "FileDriver",
    "DirDriver",
    "GlobDriver",
    "WebDriver",
    "StdinDriver",
    "MemoryIngester",
    "ingest_bytes",
    "docs_from_bytes",
    "detect_media_type",
    "decode_text",
    "default_roots",
    "BINARY_TYPES",
    "RAW_KEY",
]

RAW_KEY = "raw"  # meta key holding the bytes of a binary document until a parser reads them

TEXT = "text/plain"
MARKDOWN = "text/markdown"
HTML = "text/html"
JSON = "application/json"
JSONL = "application/x-ndjson"
CSV = "text/csv"
TSV = "text/tab-separated-values"
PDF = "application/pdf"
EMAIL = "message/rfc822"
BINARY = "application/octet-stream"

BINARY_TYPES = frozenset({PDF, EMAIL, BINARY})

_EXT = {
    ".txt": TEXT,
    ".text": TEXT,
    ".log": TEXT,
    ".rst": TEXT,
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".mdown": MARKDOWN,
    ".html": HTML,
    ".htm": HTML,
    ".xhtml": HTML,
    ".json": JSON,
    ".jsonl": JSONL,
    ".ndjson": JSONL,
    ".csv": CSV,
    ".tsv": TSV,
    ".tab": TSV,
    ".pdf": PDF,
    ".eml": EMAIL,
}
_TYPE_ALIASES = {
    "application/jsonl": JSONL,
    "application/jsonlines": JSONL,
    "application/x-jsonlines": JSONL,
    "application/ndjson": JSONL,
    "text/x-markdown": MARKDOWN,
    "application/xhtml+xml": HTML,
    "text/json": JSON,
    "application/x-pdf": PDF,
    "text/tsv": TSV,
}
_MAGIC_BINARY = (
    b"\x89PNG",
    b"GIF8",
    b"\xff\xd8\xff",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"BZh",
    b"\xfd7zXZ",
    b"\x7fELF",
    b"MZ",
    b"\xca\xfe\xba\xbe",
    b"\x00asm",
    b"RIFF",
    b"OggS",
    b"ID3",
    b"fLaC",
    b"\xd0\xcf\x11\xe0",
    b"SQLite format 3",
    b"7z\xbc\xaf",
    b"Rar!",
    b"\x28\xb5\x2f\xfd",
)
_EMAIL_HEADERS = re.compile(
    rb"^(Received|From|Return-Path|MIME-Version|Message-ID|Delivered-To|Date|To|Subject|X-[\w-]+):[ \t]",
    re.IGNORECASE,
)
_BOMS = (  # UTF-32 LE before UTF-16 LE: the first two bytes are the same
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 27))
# `[^<>]` (not `[^>]`): a try stops at the next tag, so many "<meta" without a ">" stay linear
_META_CHARSET = re.compile(rb"""<meta[^<>]+charset\s*+=\s*+["']?\s*+([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_CHARSET_PARAM = re.compile(r"charset\s*+=\s*+\"?([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_SURROGATES = re.compile("[\udc80-\udcff]")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")
_LINE = re.compile(r"[^\n]*+\n|[^\n]+")


# ------------------------------------------------------------------ origin


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a document came from (HIP-0526 §2.2), read back from its meta."""

    ref: str
    offset: int
    size: int
    modified: datetime | None
    sha256: str
    media_type: str
    record: int | None = None
    status: int | None = None
    fetched_at: datetime | None = None
    url: str | None = None


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _from_iso(s: Any) -> datetime | None:
    if not s:
        return None
    return datetime.fromisoformat(str(s).replace("Z", "+00:00"))


def origin(doc: Doc) -> Origin:
    """The origin recorded by the ingester; InvalidInput if the document has none."""
    m = doc.meta
    try:
        return Origin(
            ref=str(m["ref"]),
            offset=int(m.get("offset", 0)),
            size=int(m["size"]),
            modified=_from_iso(m.get("modified")),
            sha256=str(m["sha256"]),
            media_type=str(m["media_type"]),
            record=None if m.get("record") is None else int(m["record"]),
            status=None if m.get("status") is None else int(m["status"]),
            fetched_at=_from_iso(m.get("fetched_at")),
            url=m.get("url"),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise InvalidInput(f"document {doc.id!r} has no origin ({e})") from None


# ------------------------------------------------------------------ media type and text


def _norm_type(t: str | None) -> str:
    if not t:
        return ""
    t = t.split(";", 1)[0].strip().lower()
    return _TYPE_ALIASES.get(t, t)


def _charset_param(content_type: str | None) -> str | None:
    if not content_type:
        return None
    m = _CHARSET_PARAM.search(content_type)
    return m.group(1) if m else None


def _looks_binary(head: bytes) -> bool:
    if head.startswith(_MAGIC_BINARY):
        return True
    if any(head.startswith(b) for b, enc in _BOMS if enc != "utf-8"):
        return False  # UTF-16/32 text carries NULs
    if b"\x00" in head:
        return True
    if not head:
        return False
    # Many C0 controls (other than \t \n \r \f \v, ESC), or many bytes that are not UTF-8
    # (random bytes: about half; legacy 8-bit text: a few percent, rarely 15), mean this is not text.
    ctrl = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if ctrl / len(head) > 0.10:
        return True
    if head.isascii():
        return False
    bad = head.decode("utf-8", "replace").count("\ufffd")
    return bad > 4 and bad / len(head) > 0.25


def detect_media_type(data: bytes, name: str = "", declared: str | None = None) -> str:
    """The media type of `data`: the declared type or the file extension, overridden by the
    content where the content is unambiguous (a PDF header, binary magic, NUL bytes), and
    sniffed from the content when neither says anything specific."""
    head = data[:4096]
    if head.startswith(b"%PDF-"):
        return PDF
    if _looks_binary(head):
        return BINARY
    given = _norm_type(declared)
    if given in ("", TEXT, BINARY, "application/x-www-form-urlencoded", "binary/octet-stream"):
        ext = _EXT.get(os.path.splitext(name.split("?", 1)[0].split("#", 1)[0])[1].lower())
        if ext is None and not given:
            guessed = _norm_type(mimetypes.guess_type(name)[0])
            ext = guessed if guessed in _EXT.values() else None
        given = ext or ("" if given in ("", BINARY) else given)
    if given and given != TEXT:
        if given.startswith("text/") or given in _EXT.values():
            return given
        if given.endswith("+json"):
            return JSON
        if given.endswith("+xml") or given in ("application/xml",):
            return TEXT
        return given
    # sniff text
    for bom, _ in _BOMS:
        if head.startswith(bom):
            head = head[len(bom) :]
            break
    lead = head.lstrip()[:256].lower()
    if lead.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
        return HTML
    if not given:
        if lead[:1] in (b"{", b"["):
            first, _, rest = head.lstrip().partition(b"\n")
            try:
                json.loads(first)
                if rest.strip():
                    return JSONL
            except (ValueError, RecursionError):
                pass
            return JSON
        if _EMAIL_HEADERS.match(head) and re.search(rb"\r?\n\r?\n", head):
            return EMAIL
    return TEXT


@dataclass(frozen=True, slots=True)
class Decoded:
    """Text decoded from bytes. `escaped` keeps each undecodable byte as one lone surrogate
    (U+DC80..U+DCFF), so byte offsets can be recomputed exactly; `text` has U+FFFD instead."""

    text: str
    escaped: str
    encoding: str
    bom: int  # bytes of byte-order mark skipped
    errors: int

    def byte_len(self, s: str) -> int:
        if self.encoding == "utf-8":
            return len(s.encode("utf-8", "surrogateescape"))
        return len(s.encode(self.encoding, "replace"))


def decode_text(data: bytes, charset: str | None = None) -> Decoded:
    """Bytes to text. A byte-order mark wins, then a declared charset Python knows, else UTF-8.
    Invalid UTF-8 is not an error: each bad byte becomes U+FFFD and is counted (never a
    silent Latin-1 guess, which would garble every non-ASCII character of a mostly-UTF-8 file)."""
    bom = 0
    enc = "utf-8"
    for b, name in _BOMS:
        if data.startswith(b):
            bom, enc = len(b), name
            break
    if bom == 0 and charset:
        try:
            enc = codecs.lookup(charset).name
        except LookupError:
            enc = "utf-8"
    body = data[bom:]
    if enc == "utf-8":
        if body.isascii():
            s = body.decode("ascii")
            return Decoded(s, s, "utf-8", bom, 0)
        escaped = body.decode("utf-8", "surrogateescape")
        bad = len(_SURROGATES.findall(escaped))
        text = _SURROGATES.sub("\ufffd", escaped) if bad else escaped
        return Decoded(text, escaped, "utf-8", bom, bad)
    text = body.decode(enc, "replace")
    return Decoded(text, text, enc, bom, text.count("\ufffd"))


# ------------------------------------------------------------------ bytes -> documents


def _id_hasher(media_type: str, header: bytes = b""):
    """SHA-256 fed the id's prefix; copied per record, so a long CSV header is hashed once, not per row."""
    h = hashlib.sha256(b"semantic-rdf/doc/1\x00")
    h.update(media_type.encode() + b"\x00")
    if header:
        h.update(header)
        h.update(b"\x00")
    return h


def _doc_id(media_type: str, data: bytes, header: bytes = b"", prefix: Any = None) -> str:
    h = prefix.copy() if prefix is not None else _id_hasher(media_type, header)
    h.update(data)
    return "doc-" + h.hexdigest()[:32]


def _error_doc(ref: str, err: SemanticError) -> Doc:
    """A placeholder for a source that failed inside a multi-file read; never stored."""
    return Doc("err-" + hashlib.sha256(ref.encode("utf-8", "surrogatepass")).hexdigest()[:16], ref, "", {"ref": ref, "error": err})


def docs_from_bytes(
    data: bytes,
    *,
    ref: str,
    name: str = "",
    declared_type: str | None = None,
    modified: datetime | None = None,
    extra: Mapping[str, Any] | None = None,
) -> list[Doc]:
    """Documents from a source's bytes: one, or one per record for JSON arrays, JSON Lines and
    CSV/TSV. Malformed records structure raises ParseError naming `ref`."""
    mt = detect_media_type(data, name or ref, declared_type)
    base: dict[str, Any] = {"ref": ref, "modified": _iso(modified), "media_type": mt}
    if extra:
        base.update(extra)
    if mt in BINARY_TYPES:
        meta = dict(base, offset=0, size=len(data), sha256=hashlib.sha256(data).hexdigest())
        meta[RAW_KEY] = data
        return [Doc(_doc_id(mt, data), ref, "", meta)]
    dec = decode_text(data, _charset_param(declared_type) or _html_charset(data, mt))
    base["encoding"] = dec.encoding
    if dec.errors:
        base["decode_errors"] = dec.errors
    if mt == JSON:
        return _json_docs(data, dec, ref, base)
    if mt == JSONL:
        return _jsonl_docs(data, dec, ref, base)
    if mt in (CSV, TSV):
        return _csv_docs(data, dec, ref, base, "\t" if mt == TSV else None)
    meta = dict(base, offset=0, size=len(data), sha256=hashlib.sha256(data).hexdigest())
    return [Doc(_doc_id(mt, data), ref, dec.text, meta)]


def _html_charset(data: bytes, mt: str) -> str | None:
    if mt != HTML:
        return None
    m = _META_CHARSET.search(data[:2048])
    return m.group(1).decode("ascii") if m else None


def _record_doc(
    ref: str,
    base: Mapping[str, Any],
    index: int,
    offset: int,
    raw: bytes,
    text: str,
    header: bytes = b"",
    extra: Mapping[str, Any] | None = None,
    media_type: str | None = None,
    id_prefix: Any = None,
) -> Doc:
    mt = media_type or base["media_type"]
    meta = dict(base, media_type=mt, record=index, offset=offset, size=len(raw), sha256=hashlib.sha256(raw).hexdigest())
    if extra:
        meta.update(extra)
    return Doc(_doc_id(mt, raw, header, id_prefix), ref, text, meta)


def _clean(s: str) -> str:
    return _SURROGATES.sub("\ufffd", s)


def _skip_ws(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] in " \t\r\n":
        i += 1
    return i


def _json_docs(data: bytes, dec: Decoded, ref: str, base: dict[str, Any]) -> list[Doc]:
    s = dec.escaped
    i = _skip_ws(s, 0)
    if i >= len(s):
        raise ParseError(f"{ref}: empty JSON document")
    if s[i] != "[":
        # one value, one document (validated by the JSON parser stage)
        meta = dict(base, offset=0, size=len(data), sha256=hashlib.sha256(data).hexdigest())
        return [Doc(_doc_id(JSON, data), ref, dec.text, meta)]
    decoder = json.JSONDecoder()
    docs: list[Doc] = []
    byte_pos, char_pos = dec.bom, 0
    i = _skip_ws(s, i + 1)
    try:
        if i < len(s) and s[i] == "]":
            raise ParseError(f"{ref}: empty JSON array, no records")
        while True:
            _, end = decoder.raw_decode(s, i)
            byte_pos += dec.byte_len(s[char_pos:i])
            piece = s[i:end]
            raw = piece.encode("utf-8", "surrogateescape") if dec.encoding == "utf-8" else piece.encode(dec.encoding, "replace")
            docs.append(_record_doc(ref, base, len(docs), byte_pos, raw, _clean(piece)))
            byte_pos += len(raw)
            char_pos = end
            i = _skip_ws(s, end)
            if i < len(s) and s[i] == ",":
                i = _skip_ws(s, i + 1)
                continue
            if i < len(s) and s[i] == "]":
                if _skip_ws(s, i + 1) != len(s):
                    raise ParseError(f"{ref}: trailing data after the JSON array at character {i + 1}")
                return docs
            raise ParseError(f"{ref}: malformed JSON array near character {i}")
    except json.JSONDecodeError as e:
        raise ParseError(f"{ref}: malformed JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise ParseError(f"{ref}: JSON nested too deeply") from None


def _lines_with_offsets(data: bytes, start: int) -> Iterable[tuple[int, bytes]]:
    pos = start
    n = len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        end = n if nl < 0 else nl + 1
        yield pos, data[pos:end]
        pos = end


def _decode_piece(raw: bytes, dec: Decoded) -> str:
    if dec.encoding == "utf-8":
        return raw.decode("utf-8", "replace")
    return raw.decode(dec.encoding, "replace")


def _jsonl_docs(data: bytes, dec: Decoded, ref: str, base: dict[str, Any]) -> list[Doc]:
    if dec.encoding != "utf-8":
        raise ParseError(f"{ref}: JSON Lines must be UTF-8, found {dec.encoding}")
    docs: list[Doc] = []
    for offset, line in _lines_with_offsets(data, dec.bom):
        raw = line.rstrip(b"\r\n")
        if not raw.strip():
            continue
        docs.append(_record_doc(ref, base, len(docs), offset, raw, _decode_piece(raw, dec), media_type=JSON))
    if not docs:
        raise ParseError(f"{ref}: no JSON Lines records")
    return docs


def _sniff_delimiter(header: str) -> str:
    counts = {d: header.count(d) for d in (",", ";", "\t", "|")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _csv_docs(data: bytes, dec: Decoded, ref: str, base: dict[str, Any], delimiter: str | None) -> list[Doc]:
    s = dec.escaped
    # Lines with their code-point offsets; the csv module pulls exactly the lines of one row.
    spans = [(m.start(), m.end()) for m in _LINE.finditer(s)]
    if not spans:
        raise ParseError(f"{ref}: empty CSV")
    first = s[spans[0][0] : spans[0][1]]
    delim = delimiter or _sniff_delimiter(first)
    consumed = 0

    def feed():
        nonlocal consumed
        for a, b in spans:
            consumed += 1
            yield s[a:b]

    reader = csv.reader(feed(), delimiter=delim, strict=True)  # broken quoting is an error, never a silent merge
    docs: list[Doc] = []
    header: list[str] | None = None
    extra: dict[str, Any] = {}
    prefix = None
    # Each row is later rendered "column: value" per non-empty cell, so a long column name costs its
    # length on every row; the source is refused once that text would pass the cap (like bytes).
    budget = DEFAULT_MAX_TEXT + 8 * len(data)
    rendered = 0
    name_len: list[int] = []
    prev = 0
    byte_pos = dec.bom
    try:
        for row in reader:
            a = spans[prev][0]
            b = spans[consumed - 1][1]
            piece = s[a:b]
            raw_full = piece.encode("utf-8", "surrogateescape") if dec.encoding == "utf-8" else piece.encode(dec.encoding, "replace")
            offset = byte_pos
            byte_pos += len(raw_full)
            prev = consumed
            if header is None:  # the header's tuple and its part of the ids are made once, not per row
                header = [_clean(h).strip() for h in row]
                extra = {"csv_header": tuple(header), "csv_delimiter": delim}
                prefix = _id_hasher(base["media_type"], raw_full.rstrip(b"\r\n"))
                name_len = [len(h) for h in header]
                continue
            if not any(c.strip() for c in row):
                continue
            rendered += sum((name_len[i] if i < len(name_len) else 12) + len(c) + 3 for i, c in enumerate(row) if c)
            if rendered > budget:
                raise ParseError(f"{ref}: CSV renders to more than {budget} characters (its column names repeat on every row); refused")
            raw = raw_full.rstrip(b"\r\n")
            docs.append(_record_doc(ref, base, len(docs), offset, raw, _clean(piece.rstrip("\r\n")), extra=extra, id_prefix=prefix))
    except csv.Error as e:
        raise ParseError(f"{ref}: malformed CSV at line {consumed}: {e}") from None
    if not docs:
        raise ParseError(f"{ref}: CSV has a header but no data rows")
    return docs


# ------------------------------------------------------------------ configuration and registry


@dataclass(frozen=True)
class IngestConfig:
    """What every driver of one ingest shares: the bounds, the dir/glob filters, stdin."""

    bounds: Bounds
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = (".*",)  # hidden files and folders (.git, .venv) by default
    max_files: int = 100_000
    stdin: BinaryIO | None = None
    stdin_name: str = "stdin"  # the reference recorded for what `-` reads (ingest - --name NAME)


Factory = Callable[[IngestConfig], Any]


def default_roots(refs: Iterable[str]) -> list[str]:
    """The local roots implied by the references the user named: each path itself, and for a
    glob its fixed leading directory. URLs and ``-`` imply none."""
    out: list[str] = []
    for ref in refs:
        scheme = scheme_of(ref)
        if scheme in ("file", "dir"):
            out.append(_strip_file_url(ref))
        elif scheme == "glob":
            out.append(_glob_base(_strip_prefix(ref, "glob")))
    return out


def _strip_prefix(ref: str, scheme: str) -> str:
    for p in (scheme + "://", scheme + ":"):
        if ref.lower().startswith(p):
            return ref[len(p) :]
    return ref


def _strip_file_url(ref: str) -> str:
    if ref.lower().startswith("file://"):
        parts = urlsplit(ref)
        if parts.netloc not in ("", "localhost"):
            raise RefusedByBounds(f"{ref}: remote file hosts are not supported")
        return unquote(parts.path)
    if ref.lower().startswith("dir://"):
        return ref[6:]
    if ref.lower().startswith(("file:", "dir:")):
        return ref.split(":", 1)[1]
    return ref


def _glob_base(pattern: str) -> str:
    parts = Path(pattern).parts
    fixed: list[str] = []
    for p in parts:
        if _glob.has_magic(p):
            break
        fixed.append(p)
    return str(Path(*fixed)) if fixed else "."


def scheme_of(ref: str, known: Collection[str] | None = None) -> str:
    """``-`` is stdin; ``word:`` or ``word://`` is that scheme (two letters or more, so a
    Windows drive is a path); a pattern with ``* ? [`` is a glob; a directory is dir; else file."""
    if ref == "-":
        return "stdin"
    m = _SCHEME.match(ref)
    if m:
        s = m.group(1).lower()
        if ref[m.end() :].startswith("//") or (known is not None and s in known) or s in _BUILTIN_SCHEMES or not os.path.exists(ref):
            return s
    if _glob.has_magic(ref) and not os.path.exists(ref):
        return "glob"
    if os.path.isdir(ref):
        return "dir"
    return "file"


_BUILTIN_SCHEMES = frozenset({"file", "dir", "glob", "http", "https", "stdin"})


# ------------------------------------------------------------------ drivers


def _read_local(config: IngestConfig, path: str, display: str) -> list[Doc]:
    f = config.bounds.read_file(path, display)
    return docs_from_bytes(f.data, ref=display, name=path, modified=f.modified)


def _guard(display: str, fn: Callable[[], list[Doc]]) -> list[Doc]:
    try:
        return fn()
    except SemanticError as e:
        return [_error_doc(display, e)]
    except RecursionError:
        return [_error_doc(display, ParseError(f"{display}: nested too deeply"))]


class FileDriver:
    """One local file (``path`` or ``file://path``). Undecodable content becomes a failed
    document; a missing, unreadable or out-of-bounds file raises."""

    process_safe = True  # may run in a child process (ahead.py)

    def __init__(self, config: IngestConfig) -> None:
        self.config = config

    def ingest(self, ref: str) -> list[Doc]:
        path = _strip_file_url(ref)
        display = display_ref(path)
        f = self.config.bounds.read_file(path)
        return _guard(display, lambda: docs_from_bytes(f.data, ref=display, name=path, modified=f.modified))


def _matches(rel: str, patterns: Iterable[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    parts = rel.split("/")
    for pat in patterns:
        if fnmatch.fnmatchcase(rel, pat) or fnmatch.fnmatchcase(name, pat):
            return True
        if "/" not in pat and any(fnmatch.fnmatchcase(p, pat) for p in parts[:-1]):
            return True  # an excluded folder name excludes what is inside it
    return False


class DirDriver:
    """A directory tree, recursively, files in sorted order. ``include`` patterns (default all)
    and ``exclude`` patterns (default hidden ``.*``) match the path relative to the directory
    or any one component of it. Symlinked folders are not descended; a symlinked file is read
    only if it resolves inside the roots, else it is reported as refused."""

    process_safe = True  # may run in a child process (ahead.py)

    def __init__(self, config: IngestConfig) -> None:
        self.config = config

    def ingest(self, ref: str) -> list[Doc]:
        root = _strip_file_url(ref)
        real = self.config.bounds.check_path(root)
        if not real.is_dir():
            raise SourceError(f"{ref}: not a directory")
        docs: list[Doc] = []
        files = 0
        for dirpath, dirnames, filenames in os.walk(real, followlinks=False, onerror=None):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, real)
            rel_dir = "" if rel_dir == "." else Path(rel_dir).as_posix() + "/"
            dirnames[:] = [d for d in dirnames if not _matches(rel_dir + d, self.config.exclude)]
            for name in sorted(filenames):
                rel = rel_dir + name
                if self.config.include and not _matches(rel, self.config.include):
                    continue
                if _matches(rel, self.config.exclude):
                    continue
                files += 1
                if files > self.config.max_files:
                    docs.append(
                        _error_doc(display_ref(root, rel), RefusedByBounds(f"{ref}: more than {self.config.max_files} files; the rest were not read"))
                    )
                    return docs
                display = display_ref(root, rel)
                full = os.path.join(dirpath, name)
                docs.extend(_guard(display, lambda: _read_local(self.config, full, display)))
        if not docs:
            raise SourceError(f"{ref}: no files to read (after include/exclude patterns)")
        return docs


def _glob_step(parts: list[str], states: frozenset[int], name: str) -> frozenset[int]:
    """Pattern positions after one more path component `name`, from positions `states` (an NFA over
    the components, so ``**`` costs a set of positions, never a backtracking search). glob's rules:
    ``**`` is any number of names, wildcards stay inside one name and do not match a leading "."
    unless the component starts with one."""
    out: set[int] = set()
    for k in states:
        if k == len(parts):
            continue
        p = parts[k]
        if name.startswith(".") and not p.startswith("."):
            continue  # hidden names only match a component written with the dot
        if p == "**":
            out.add(k)
        elif fnmatch.fnmatchcase(name, p):
            out.add(k + 1)
    return _glob_closure(parts, out)


def _glob_closure(parts: list[str], states: Iterable[int]) -> frozenset[int]:
    out = set(states)
    for k in sorted(out):  # "**" also matches no name at all
        while k < len(parts) and parts[k] == "**":
            k += 1
            out.add(k)
    return frozenset(out)


def _glob_walk(
    base: str, parts: list[str], cap: int, keep: Callable[[str], bool] = lambda rel: True, descend: Callable[[str], bool] = lambda rel: True
) -> tuple[list[str], bool]:
    """Paths under `base` (relative, '/'-joined) of the files the components match, walking with
    os.walk: symlinked folders are never descended (three symlinks to ".." made ``g/**`` exponential
    in glob.glob), a folder is entered only if the pattern can still match below it, and the walk
    stops at `cap` + 1 matches instead of listing every match first. Returns (matches, over_cap)."""
    found: list[str] = []
    states = {"": _glob_closure(parts, (0,))}
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        rel_dir = os.path.relpath(dirpath, base)
        rel_dir = "" if rel_dir == "." else Path(rel_dir).as_posix() + "/"
        here = states.pop(rel_dir, frozenset())
        keep_dirs = []
        for d in sorted(dirnames):
            after = _glob_step(parts, here, d)
            if after and descend(rel_dir + d):
                states[rel_dir + d + "/"] = after
                keep_dirs.append(d)
        dirnames[:] = keep_dirs
        for name in sorted(filenames):
            rel = rel_dir + name
            if len(parts) in _glob_step(parts, here, name) and keep(rel):
                found.append(rel)
                if len(found) > cap:
                    return found, True
    return found, False


class GlobDriver:
    """Files matching a pattern (``**`` recurses), sorted; each must lie inside the roots.
    The walk never follows a symlinked folder and stops at the file cap (`_glob_walk`)."""

    process_safe = True  # may run in a child process (ahead.py)

    def __init__(self, config: IngestConfig) -> None:
        self.config = config

    def ingest(self, ref: str) -> list[Doc]:
        pattern = _strip_prefix(ref, "glob")
        docs: list[Doc] = []
        base = _glob_base(pattern)
        parts = list(Path(pattern).parts)[len(Path(base).parts) :]
        if not parts:  # no wildcard at all: the path itself
            parts, base = [Path(pattern).name], str(Path(pattern).parent)
        cfg = self.config
        cap = cfg.max_files

        def keep(rel: str) -> bool:
            return not _matches(rel, cfg.exclude) and (not cfg.include or _matches(rel, cfg.include))

        def descend(rel: str) -> bool:
            return not _matches(rel, cfg.exclude)

        rels, over = _glob_walk(base, parts, cap, keep, descend) if os.path.isdir(base) else ([], False)
        for rel in sorted(rels[:cap]):
            display = display_ref(base, rel)
            path = os.path.join(base, rel)
            docs.extend(_guard(display, lambda: _read_local(self.config, path, display)))
        if over:
            docs.append(_error_doc(display_ref(base, rels[cap]), RefusedByBounds(f"{ref}: more than {cap} files; the rest were not read")))
        if not docs:
            raise SourceError(f"{ref}: the pattern matches no file")
        return docs


class WebDriver:
    """An http(s) URL, fetched within the bounds (see bounds.py)."""

    def __init__(self, config: IngestConfig) -> None:
        self.config = config

    def ingest(self, ref: str) -> list[Doc]:
        got = self.config.bounds.fetch(ref)
        extra = {"status": got.status, "fetched_at": _iso(got.fetched_at), "url": got.url}
        name = urlsplit(got.url).path
        return _guard(
            ref, lambda: docs_from_bytes(got.data, ref=ref, name=name, declared_type=got.content_type, modified=got.last_modified, extra=extra)
        )


class StdinDriver:
    """Standard input (the reference ``-``), read whole up to the size cap."""

    def __init__(self, config: IngestConfig) -> None:
        self.config = config

    def ingest(self, ref: str) -> list[Doc]:
        stream = self.config.stdin if self.config.stdin is not None else sys.stdin.buffer
        cap = self.config.bounds.max_bytes
        name = self.config.stdin_name
        data = _read_capped(stream, cap, name)
        if not data:
            raise SourceError(f"{name}: nothing on standard input")
        return _guard(name, lambda: docs_from_bytes(data, ref=name))


def _read_capped(stream: Any, cap: int, name: str) -> bytes:
    try:
        data = stream.read(cap + 1)
    except OSError as e:
        raise SourceError(f"{name}: cannot read ({e})") from None
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > cap:
        raise RefusedByBounds(f"{name}: exceeds the size cap of {cap} bytes")
    return data


class MemoryIngester:
    """Sources already in memory, by name: bytes, str or a binary reader (read once).
    ``MemoryIngester({"notes.md": "# Hi"}).ingest("notes.md")``."""

    def __init__(
        self, sources: Mapping[str, bytes | str | BinaryIO], *, max_bytes: int = DEFAULT_MAX_BYTES, media_types: Mapping[str, str] | None = None
    ) -> None:
        self._sources = dict(sources)
        self._types = dict(media_types or {})
        self.max_bytes = max_bytes

    def ingest(self, ref: str) -> list[Doc]:
        if ref not in self._sources:
            raise SourceError(f"{ref}: no such in-memory source")
        src = self._sources[ref]
        if isinstance(src, str):
            data = src.encode("utf-8", "surrogatepass")
        elif isinstance(src, (bytes, bytearray, memoryview)):
            data = bytes(src)
        elif hasattr(src, "read"):
            data = _read_capped(src, self.max_bytes, ref)
        else:
            raise InvalidInput(f"{ref}: in-memory source must be bytes, str or a reader")
        if len(data) > self.max_bytes:
            raise RefusedByBounds(f"{ref}: exceeds the size cap of {self.max_bytes} bytes")
        return _guard(ref, lambda: docs_from_bytes(data, ref=ref, declared_type=self._types.get(ref)))


def ingest_bytes(data: bytes | str, name: str = "memory", media_type: str | None = None) -> list[Doc]:
    """Documents from bytes in memory; `name` is the reference and extension hint."""
    return MemoryIngester({name: data}, media_types={name: media_type} if media_type else None).ingest(name)


class Ingest:
    """The Ingester a pipeline uses: finds each reference's driver by its scheme (kind "source" of the
    registry, semantic_rdf/core/plugins.py) and delegates to it, all under one `IngestConfig`."""

    process_safe = True  # may run in a child process (ahead.py)

    def __init__(self, config: IngestConfig, registry: Registry | None = None) -> None:
        self.config = config
        self.registry = registry if registry is not None else default_registry()

    def scheme_of(self, ref: str) -> str:
        return scheme_of(ref, self.registry.names("source"))

    def factory(self, scheme: str) -> Factory | None:
        """The driver factory registered for `scheme`, or None."""
        return self.registry.find("source", scheme)

    def ingest(self, ref: str) -> list[Doc]:
        docs = resolve(ref, self.config, self.registry).ingest(ref)
        if not docs:
            raise SourceError(f"{ref}: the driver returned no documents")
        return docs


def resolve(ref: str, config: IngestConfig | None = None, registry: Registry | None = None):
    """The driver (an Ingester) for `ref`, from `registry` or the default one; the roots default to `ref`
    itself. A scheme with no driver -> RefusedByBounds (a reference the bounds do not let in)."""
    if not isinstance(ref, str) or not ref:
        raise InvalidInput("an ingest reference must be a non-empty string")
    reg = registry if registry is not None else default_registry()
    scheme = scheme_of(ref, reg.names("source"))
    factory = reg.find("source", scheme)
    if factory is None:
        raise RefusedByBounds(f"{ref}: no ingest driver for scheme {scheme!r} (known: {', '.join(reg.built_in('source'))})")
    if config is None:
        config = IngestConfig(Bounds.make(default_roots([ref])))
    return factory(config)
