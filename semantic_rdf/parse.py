"""Parsers: a document's text made plain, its structure moved into meta (HIP-0526 §3).

A parser reads ``Doc.text`` (or, for binary formats, the bytes the ingester kept under
``meta["raw"]``) and returns a NEW document with a copy of the metadata; it never opens a
file and never mutates its input. `AutoParser` picks one by the ingester's media type, then
the file extension, then the content:

    text/plain, text/markdown   kept as is (Markdown syntax is readable text, and the heading
                                splitter needs it); Markdown's first heading becomes the title
    text/html                   title and visible text; script, style, template, noscript,
                                svg dropped; block elements become line breaks
    application/json            one record rendered as ``key: value`` lines (nested keys dotted)
    text/csv, TSV               one row rendered as ``column: value`` lines
    application/pdf             the text layer of every page (pypdf), pages as paragraphs
    message/rfc822              subject and body (text/plain part, else HTML made plain);
                                sender, recipients and date into meta

Unknown binary content raises ParseError naming the source. Anything nested too deeply to
parse raises ParseError, never RecursionError.
"""

from __future__ import annotations

import csv
import email
import email.policy
import io
import json
import re
from html.parser import HTMLParser
from typing import Any, Callable, Mapping

from semantic_rdf.errors import ParseError, SemanticError
from semantic_rdf.ingest import (
    BINARY, BINARY_TYPES, CSV, EMAIL, HTML, JSON, JSONL, MARKDOWN, PDF, RAW_KEY, TEXT, TSV,
    detect_media_type, decode_text,
)
from semantic_rdf.values import Doc

__all__ = [
    "AutoParser",
    "parse",
    "parse_text",
    "parse_markdown",
    "parse_html",
    "parse_json",
    "parse_csv",
    "parse_pdf",
    "parse_email",
    "html_to_text",
    "PARSERS",
]

MAX_JSON_DEPTH = 64


def _new(doc: Doc, text: str, parser: str, **meta: Any) -> Doc:
    m = {k: v for k, v in doc.meta.items() if k != RAW_KEY}
    m.update({k: v for k, v in meta.items() if v is not None})
    m["parser"] = parser
    return Doc(doc.id, doc.source, text, m)


def _raw(doc: Doc) -> bytes:
    raw = doc.meta.get(RAW_KEY)
    if isinstance(raw, (bytes, bytearray)):
        return bytes(raw)
    return doc.text.encode("utf-8", "surrogatepass")


def parse_text(doc: Doc) -> Doc:
    return _new(doc, doc.text, "text")


_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_FRONT = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*(\n|\Z)", re.DOTALL)


def parse_markdown(doc: Doc) -> Doc:
    text = doc.text
    front = None
    m = _FRONT.match(text)
    if m:  # YAML front matter is metadata, not prose
        front = m.group(1)
        text = text[m.end():]
    title = None
    tm = re.search(r"^title:\s*(.+)$", front or "", re.MULTILINE)
    if tm:
        title = tm.group(1).strip().strip("\"'")
    if title is None:
        hm = _ATX.search(text)
        if hm:
            title = hm.group(2).strip()
    return _new(doc, text, "markdown", title=title, front_matter=front)


# ------------------------------------------------------------------ HTML

_DROP = frozenset({"script", "style", "template", "noscript", "svg", "math", "iframe", "object", "canvas"})
_BLOCK = frozenset({
    "address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details", "dialog", "div", "dl",
    "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
    "html", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th",
    "thead", "tr", "ul",
})
_PARAGRAPH = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol", "dl",
                        "section", "article", "header", "footer", "hr", "figure", "main", "aside", "nav"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
_WS = re.compile(r"[ \t\n\r\f]+")


class _HTMLText(HTMLParser):
    """Flat and iterative (html.parser does not recurse), so deep nesting cannot crash it.
    Output items are text or an int break (1 = line, 2 = paragraph); adjacent breaks merge
    to the larger one, so ``</li><li>`` is one line break, not two."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str | int] = []
        self.title: list[str] = []
        self.in_title = False
        self.drop: list[str] = []
        self.pre = 0

    def _brk(self, n: int) -> None:
        out = self.out
        if out and isinstance(out[-1], int):
            out[-1] = max(out[-1], n)
            return
        if out and isinstance(out[-1], str) and not self.pre:
            out[-1] = out[-1].rstrip(" ")
        out.append(n)

    def _text(self, data: str) -> None:
        out = self.out
        if not self.pre:
            data = _WS.sub(" ", data)
            if not out or isinstance(out[-1], int) or out[-1].endswith(" "):
                data = data.lstrip(" ")
            if not data:
                return
        out.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not self.drop:
            self.in_title = True
            return
        if self.drop:
            if tag == self.drop[-1] or tag in _DROP and tag not in _VOID:
                self.drop.append(tag)
            return
        if tag in _DROP:
            self.drop.append(tag)
            return
        if tag in _BLOCK:
            self._brk(2 if tag in _PARAGRAPH else 1)
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self._text(" " + alt + " ")
        if tag == "pre":
            self.pre += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
            return
        if self.drop:
            if tag in self.drop:
                while self.drop and self.drop.pop() != tag:
                    pass
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
        if tag in _BLOCK:
            self._brk(2 if tag in _PARAGRAPH else 1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK and not self.drop:
            self._brk(1)

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
        elif not self.drop:
            self._text(data)


def html_to_text(html: str) -> tuple[str, str | None]:
    """Visible text and title of an HTML string."""
    p = _HTMLText()
    try:
        p.feed(html)
        p.close()
    except (RecursionError, AssertionError) as e:
        raise ParseError(f"malformed HTML ({type(e).__name__})") from None
    parts = ["\n" * x if isinstance(x, int) else x for x in p.out]
    while parts and parts[-1].strip() == "" and not p.pre:
        parts.pop()
    text = "".join(parts).strip("\n").rstrip()
    title = _WS.sub(" ", "".join(p.title)).strip() or None
    return text, title


def parse_html(doc: Doc) -> Doc:
    try:
        text, title = html_to_text(doc.text)
    except ParseError as e:
        raise ParseError(f"{doc.source}: {e}") from None
    return _new(doc, text, "html", title=title)


# ------------------------------------------------------------------ JSON

_TITLE_KEYS = ("title", "name", "subject", "headline", "label")


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    return str(v)


def render_json(value: Any, source: str = "") -> str:
    """``key: value`` lines, nested keys dotted, lists of scalars comma-joined, lists of
    objects indexed. Iterative, and refuses nesting deeper than MAX_JSON_DEPTH."""
    if not isinstance(value, (dict, list)):
        return _scalar(value)
    lines: list[str] = []
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack:
        path, v, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ParseError(f"{source}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(v, dict):
            for k in reversed(list(v)):
                stack.append((f"{path}.{k}" if path else str(k), v[k], depth + 1))
        elif isinstance(v, list):
            if all(not isinstance(x, (dict, list)) for x in v):
                lines.append(f"{path}: {', '.join(_scalar(x) for x in v)}" if path else ", ".join(_scalar(x) for x in v))
            else:
                for i in reversed(range(len(v))):
                    stack.append((f"{path}[{i}]", v[i], depth + 1))
        else:
            lines.append(f"{path}: {_scalar(v)}" if path else _scalar(v))
    return "\n".join(lines)


def parse_json(doc: Doc) -> Doc:
    try:
        value = json.loads(doc.text)
    except json.JSONDecodeError as e:
        raise ParseError(f"{doc.source}: malformed JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise ParseError(f"{doc.source}: JSON nested too deeply") from None
    title = None
    fields = None
    if isinstance(value, dict):
        fields = tuple(str(k) for k in value)
        for k in _TITLE_KEYS:
            if isinstance(value.get(k), str) and value[k].strip():
                title = value[k].strip()
                break
    return _new(doc, render_json(value, doc.source), "json", title=title, fields=fields)


# ------------------------------------------------------------------ CSV


def _render_row(header: list[str] | tuple[str, ...], row: list[str]) -> str:
    out = []
    for i, cell in enumerate(row):
        cell = cell.strip()
        if not cell:
            continue
        name = header[i] if i < len(header) and header[i] else f"column {i + 1}"
        out.append(f"{name}: {cell}")
    return "\n".join(out)


def parse_csv(doc: Doc) -> Doc:
    """One row (with ``csv_header`` in meta, as the ingester makes them) or a whole table
    (first row is the header; rows become paragraphs)."""
    header = doc.meta.get("csv_header")
    delim = doc.meta.get("csv_delimiter") or ("\t" if doc.meta.get("media_type") == TSV else None)
    try:
        if header is not None:
            rows = list(csv.reader(io.StringIO(doc.text, newline=""), delimiter=delim or ","))
            text = "\n".join(_render_row(header, r) for r in rows)
            return _new(doc, text, "csv")
        if delim is None:
            first = doc.text.split("\n", 1)[0]
            counts = {d: first.count(d) for d in (",", ";", "\t", "|")}
            delim = max(counts, key=lambda d: counts[d]) if max(counts.values()) else ","
        rows = list(csv.reader(io.StringIO(doc.text, newline=""), delimiter=delim))
    except csv.Error as e:
        raise ParseError(f"{doc.source}: malformed CSV: {e}") from None
    if not rows:
        return _new(doc, "", "csv")
    head, body = rows[0], rows[1:]
    text = "\n\n".join(t for t in (_render_row(head, r) for r in body) if t)
    return _new(doc, text, "csv", csv_header=tuple(h.strip() for h in head), csv_delimiter=delim)


# ------------------------------------------------------------------ PDF


def parse_pdf(doc: Doc) -> Doc:
    import logging

    import pypdf
    from pypdf.errors import PyPdfError

    # pypdf logs its repairs of malformed files as warnings; with no handler Python prints them on stderr,
    # which would break the one-line error contract. The failure itself still raises ParseError below.
    pdf_log = logging.getLogger("pypdf")
    if not pdf_log.handlers:
        pdf_log.addHandler(logging.NullHandler())
    data = _raw(doc)
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except Exception:  # pypdf raises several types for unsupported crypto
                ok = 0
            if not ok:
                raise ParseError(f"{doc.source}: encrypted PDF")
        pages = []
        for page in reader.pages:
            pages.append((page.extract_text() or "").strip())
        title = None
        try:
            info = reader.metadata
            if info is not None and info.title:
                title = str(info.title).strip() or None
        except (PyPdfError, KeyError, ValueError, TypeError):
            title = None
    except ParseError:
        raise
    except RecursionError:
        raise ParseError(f"{doc.source}: PDF nested too deeply") from None
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError, OSError, AssertionError) as e:
        # pypdf reports malformed files through many exception types
        raise ParseError(f"{doc.source}: unreadable PDF ({type(e).__name__}: {e})") from None
    text = "\n\n".join(p for p in pages if p)
    if not text.strip():
        raise ParseError(f"{doc.source}: PDF has no text layer (a scanned image?)")
    return _new(doc, text, "pdf", title=title, pages=len(pages))


# ------------------------------------------------------------------ e-mail


def parse_email(doc: Doc) -> Doc:
    data = _raw(doc)
    try:
        msg = email.message_from_bytes(data, policy=email.policy.default)
        subject = str(msg.get("subject", "") or "").strip()
        body_part = msg.get_body(preferencelist=("plain", "html"))
        body = ""
        if body_part is not None:
            content = body_part.get_content()
            if isinstance(content, bytes):
                content = decode_text(content, body_part.get_content_charset()).text
            body = html_to_text(content)[0] if body_part.get_content_type() == "text/html" else content
        date = msg.get("date")
        date_iso = None
        if date is not None and getattr(date, "datetime", None) is not None:
            date_iso = date.datetime.isoformat()
        meta = {
            "title": subject or None,
            "from": str(msg.get("from")) if msg.get("from") else None,
            "to": str(msg.get("to")) if msg.get("to") else None,
            "date": date_iso,
            "message_id": str(msg.get("message-id")).strip() if msg.get("message-id") else None,
        }
    except ParseError:
        raise
    except RecursionError:
        raise ParseError(f"{doc.source}: e-mail nested too deeply") from None
    except (ValueError, TypeError, LookupError, AttributeError, IndexError, UnicodeError) as e:
        raise ParseError(f"{doc.source}: unreadable e-mail ({type(e).__name__}: {e})") from None
    body = body.strip("\n")
    text = f"{subject}\n\n{body}" if subject and body else (subject or body)
    return _new(doc, text, "email", **meta)


# ------------------------------------------------------------------ dispatch


def _refuse_binary(doc: Doc) -> Doc:
    mt = doc.meta.get("media_type") or BINARY
    raise ParseError(f"{doc.source}: binary content ({mt}) is not a supported document type")


PARSERS: dict[str, Callable[[Doc], Doc]] = {
    TEXT: parse_text,
    MARKDOWN: parse_markdown,
    HTML: parse_html,
    JSON: parse_json,
    JSONL: parse_json,
    CSV: parse_csv,
    TSV: parse_csv,
    PDF: parse_pdf,
    EMAIL: parse_email,
    BINARY: _refuse_binary,
}


def _media_type(doc: Doc) -> str:
    mt = doc.meta.get("media_type")
    if isinstance(mt, str) and mt:
        return mt
    raw = doc.meta.get(RAW_KEY)
    data = bytes(raw) if isinstance(raw, (bytes, bytearray)) else doc.text[:4096].encode("utf-8", "surrogatepass")
    return detect_media_type(data, doc.source)


class AutoParser:
    """The Parser that dispatches on media type. `overrides` maps a media type to a parser
    function, so a caller can add one (``AutoParser({"text/x-org": my_org_parser})``)."""
    process_safe = True  # may run in a child process (ahead.py)

    def __init__(self, overrides: Mapping[str, Callable[[Doc], Doc]] | None = None) -> None:
        self.parsers = dict(PARSERS)
        if overrides:
            self.parsers.update(overrides)

    def parse(self, doc: Doc) -> Doc:
        mt = _media_type(doc)
        fn = self.parsers.get(mt)
        if fn is None:
            if mt.startswith("text/"):
                fn = parse_text
            elif mt in BINARY_TYPES or doc.meta.get(RAW_KEY) is not None:
                fn = _refuse_binary
            else:
                raise ParseError(f"{doc.source}: no parser for media type {mt}")
        try:
            return fn(doc)
        except SemanticError:
            raise
        except RecursionError:
            raise ParseError(f"{doc.source}: nested too deeply to parse") from None


_DEFAULT = AutoParser()


def parse(doc: Doc) -> Doc:
    """Parse with the default `AutoParser`."""
    return _DEFAULT.parse(doc)

