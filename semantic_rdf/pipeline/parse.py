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
parse raises ParseError, never RecursionError. Work and output are bounded per source by
`bounds.ParseLimits` (PDF pages, text, page content; a wall clock for HTML); what a parser cut or
replaced is listed in ``meta["notes"]``.
"""

from __future__ import annotations

import csv
import email
import email.errors
import email.header
import email.policy
import email.utils
import functools
import io
import json
import re
import time
from html.parser import HTMLParser
from typing import Any, Callable, Iterator, Mapping

from semantic_rdf.core.bounds import ParseLimits
from semantic_rdf.core.errors import ParseError, SemanticError
from semantic_rdf.core.plugins import Registry, default_registry
from semantic_rdf.pipeline.sources import (
    BINARY,
    BINARY_TYPES,
    RAW_KEY,
    TSV,
    detect_media_type,
    decode_text,
)
from semantic_rdf.core.values import Doc

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
    "refuse_binary",
]

MAX_JSON_DEPTH = 64
LIMITS = ParseLimits()  # the default caps (bounds.py); AutoParser(limits=...) sets others
NOTES_KEY = "notes"  # meta key: what a parser cut or replaced, for the ingest summary


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


# The heading's text is the rest of its line, with the closing blanks and "#"s stripped in Python:
# `(.+?)[ \t#]*$` retried the closing class at every character of a long line (quadratic).
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]++(.*)$", re.MULTILINE)
_FRONT = re.compile(r"\A---[ \t]*+\n(.*?\n)---[ \t]*+(\n|\Z)", re.DOTALL)
_FRONT_TITLE = re.compile(r"^title:[ \t]*+(.*\S)", re.MULTILINE)


def _atx_title(line_rest: str) -> str:
    """The text of an ATX heading from what follows its opening "#"s and blanks."""
    return line_rest.rstrip(" \t#").strip() or line_rest[:1].strip()


def parse_markdown(doc: Doc) -> Doc:
    text = doc.text
    front = None
    m = _FRONT.match(text)
    if m:  # YAML front matter is metadata, not prose
        front = m.group(1)
        text = text[m.end() :]
    title = None
    tm = _FRONT_TITLE.search(front or "")
    if tm:
        title = tm.group(1).strip().strip("\"'")
    if title is None:
        for hm in _ATX.finditer(text):  # the first heading with text
            title = _atx_title(hm.group(2)) or None
            if title:
                break
    return _new(doc, text, "markdown", title=title, front_matter=front)


# ------------------------------------------------------------------ HTML

_DROP = frozenset({"script", "style", "template", "noscript", "svg", "math", "iframe", "object", "canvas"})
_BLOCK = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "html",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
_PARAGRAPH = frozenset(
    {
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "table",
        "ul",
        "ol",
        "dl",
        "section",
        "article",
        "header",
        "footer",
        "hr",
        "figure",
        "main",
        "aside",
        "nav",
    }
)
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
_WS = re.compile(r"[ \t\n\r\f]+")
# HTML <pre> becomes a Markdown fence in the text, the one way code is marked for every later stage: the
# statistical extractor reads no sentence inside one (docs/extraction.md), and the quote of a span keeps it
_FENCE = "```"


class _HTMLText(HTMLParser):
    """Flat and iterative (html.parser does not recurse), so deep nesting cannot crash it.
    Output items are text or an int break (1 = line, 2 = paragraph); adjacent breaks merge
    to the larger one, so ``</li><li>`` is one line break, not two."""

    def __init__(self, deadline: float = float("inf")) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str | int] = []
        self.title: list[str] = []
        self.in_title = False
        self.drop: list[str] = []  # open dropped elements, innermost last
        self.dropped: dict[str, int] = {}  # how many of each tag `drop` holds: a lookup, not a scan of the stack
        self.pre = 0
        self.code = 0  # open <code> elements outside <pre>; the outermost began at out[code_at]
        self.code_at = 0
        self.deadline = deadline

    def _tick(self) -> None:
        # html.parser calls a handler at least once per rescan of the input, so a check here bounds a
        # quadratic case to one scan past the deadline
        if time.monotonic() > self.deadline:
            raise _TooSlow

    def _push_drop(self, tag: str) -> None:
        self.drop.append(tag)
        self.dropped[tag] = self.dropped.get(tag, 0) + 1

    def _pop_drop(self) -> str:
        tag = self.drop.pop()
        n = self.dropped[tag] - 1
        if n:
            self.dropped[tag] = n
        else:
            del self.dropped[tag]
        return tag

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
        self._tick()
        if tag == "title" and not self.drop:
            self.in_title = True
            return
        if self.drop:
            if tag == self.drop[-1] or tag in _DROP and tag not in _VOID:
                self._push_drop(tag)
            return
        if tag in _DROP:
            self._push_drop(tag)
            return
        if tag in _BLOCK:
            self._brk(2 if tag in _PARAGRAPH else 1)
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self._text(" " + alt + " ")
        if tag == "pre":
            if not self.pre:  # the text keeps a preformatted block as a fenced one: extractors skip code
                self.out += [_FENCE, 1]
            self.pre += 1
        elif tag == "code" and not self.pre:
            if not self.code:
                self.code_at = len(self.out)
                self.out.append("")  # the opening backticks, set at </code> (codespans.py reads them)
            self.code += 1

    def handle_endtag(self, tag: str) -> None:
        self._tick()
        if tag == "title":
            self.in_title = False
            return
        if self.drop:
            if tag in self.dropped:
                while self.drop and self._pop_drop() != tag:
                    pass
            return
        if tag == "code" and self.code and not self.pre:
            self.code -= 1
            if not self.code:  # nested ones are inside the outermost's span
                self._close_code(self.code_at)
            return
        if tag == "pre" and self.pre:
            if self.pre == 1:
                self._brk(1)
                self.out.append(_FENCE)
            self.pre -= 1
        if tag in _BLOCK:
            self._brk(2 if tag in _PARAGRAPH else 1)

    def _close_code(self, at: int) -> None:
        """Write the <code> element that began at out[at] as a Markdown code span: a backtick run longer
        than any inside it, padded with a space where the code itself starts or ends with a backtick."""
        inner = "".join(x if isinstance(x, str) else " " for x in self.out[at + 1 :])
        if not inner.strip():
            return
        n = max((len(r) for r in re.findall(r"`+", inner)), default=0) + 1
        pad = " " if inner[:1] == "`" or inner[-1:] == "`" else ""
        self.out[at] = "`" * n + pad
        self.out.append(pad + "`" * n)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tick()
        if tag in _BLOCK and not self.drop:
            self._brk(1)

    def handle_data(self, data: str) -> None:
        self._tick()
        if self.in_title:
            self.title.append(data)
        elif not self.drop:
            self._text(data)

    def handle_comment(self, data: str) -> None:
        self._tick()

    def handle_decl(self, decl: str) -> None:
        self._tick()

    def handle_pi(self, data: str) -> None:
        self._tick()

    def unknown_decl(self, data: str) -> None:
        self._tick()


class _TooSlow(Exception):
    """Raised inside html.parser when the parse passes its deadline."""


def _defuse(html: str) -> str:
    """The same HTML with the constructs html.parser reads in quadratic time escaped as text.

    At the end of input html.parser reports each construct it could not finish as text and
    rescans the rest of the input for the next "<": quadratic in the unfinished tags (docs/security.md). After the
    last ">" no tag, comment or declaration can be finished, nor a comment after the last "-->";
    escaping their "<" as "&lt;" gives the same text in linear time."""
    last = html.rfind(">") + 1
    if html.find("<", last) >= 0:
        html = html[:last] + html[last:].replace("<", "&lt;")
    close = html.rfind("-->")
    if html.find("<!--", close + 1 if close >= 0 else 0) >= 0:
        cut = close + 3 if close >= 0 else 0
        html = html[:cut] + html[cut:].replace("<!--", "&lt;!--")
    return html


def html_to_text(html: str, limits: ParseLimits = LIMITS) -> tuple[str, str | None]:
    """Visible text and title of an HTML string. ParseError if it is malformed beyond repair or
    takes longer to parse than `limits` allow (html.parser has quadratic corners left)."""
    budget = limits.budget(len(html))
    p = _HTMLText(time.monotonic() + budget)
    try:
        p.feed(_defuse(html))
        p.close()
    except _TooSlow:
        raise ParseError(f"HTML not parsed within {budget:.1f} s (refused: constructs the parser reads in quadratic time)") from None
    except (RecursionError, AssertionError) as e:
        raise ParseError(f"malformed HTML ({type(e).__name__})") from None
    parts = ["\n" * x if isinstance(x, int) else x for x in p.out]
    while parts and parts[-1].strip() == "" and not p.pre:
        parts.pop()
    text = "".join(parts).strip("\n").rstrip()
    title = _WS.sub(" ", "".join(p.title)).strip() or None
    return text, title


def parse_html(doc: Doc, limits: ParseLimits = LIMITS) -> Doc:
    try:
        text, title = html_to_text(doc.text, limits)
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


def _children(path: str, v: Any):
    if isinstance(v, dict):
        for k, x in v.items():
            yield (f"{path}.{k}" if path else str(k)), x
    else:
        for i, x in enumerate(v):
            yield f"{path}[{i}]", x


def _nested(v: Any) -> bool:
    return isinstance(v, dict) or isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v)


def render_json(value: Any, source: str = "", max_text: int = LIMITS.max_text) -> str:
    """``key: value`` lines, nested keys dotted, lists of scalars comma-joined, lists of
    objects indexed. Iterative (a stack of generators, so memory follows the depth, not the
    width), and refuses nesting deeper than MAX_JSON_DEPTH and a rendering longer than
    `max_text` characters (every line repeats its path, so a long key over many items would
    multiply the input)."""
    if not isinstance(value, (dict, list)):
        return _scalar(value)
    if not _nested(value):
        return ", ".join(_scalar(x) for x in value)
    lines: list[str] = []
    size = 0
    stack = [_children("", value)]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        if len(stack) > MAX_JSON_DEPTH:
            raise ParseError(f"{source}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
        path, v = item
        if _nested(v):
            stack.append(_children(path, v))
            continue
        if isinstance(v, list):
            line = f"{path}: {', '.join(_scalar(x) for x in v)}"
        else:
            line = f"{path}: {_scalar(v)}"
        size += len(line) + 1
        if size > max_text + 1:
            raise ParseError(f"{source}: JSON renders to more than {max_text} characters (the text cap)")
        lines.append(line)
    return "\n".join(lines)


def parse_json(doc: Doc, limits: ParseLimits = LIMITS) -> Doc:
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
    return _new(doc, render_json(value, doc.source, limits.max_text), "json", title=title, fields=fields)


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


def _content_items(page: Any) -> list[Any]:
    from pypdf.generic import ArrayObject

    raw = page.get("/Contents")
    return list(raw) if isinstance(raw, ArrayObject) else ([] if raw is None else [raw])


def _content_key(items: list[Any]) -> tuple[tuple[int, int], ...] | None:
    """The indirect references of a page's content streams (None if any is direct): pages with
    the same key draw the same thing."""
    from pypdf.generic import IndirectObject

    if not items or not all(isinstance(it, IndirectObject) for it in items):
        return None
    return tuple((it.idnum, it.generation) for it in items)


def _content_size(items: list[Any]) -> int:
    """Decoded bytes of a page's content streams (pypdf bounds each decompression itself)."""
    size = 0
    for it in items:
        obj = it.get_object()
        if hasattr(obj, "get_data"):
            size += len(obj.get_data())
    return size


def parse_pdf(doc: Doc, limits: ParseLimits = LIMITS) -> Doc:
    """The text layer, page by page, within `limits`: at most `max_pages` pages and `max_text`
    characters; a page whose content decodes to more than `max_page_content` bytes is not read; a
    page drawn by the same content stream(s) as an earlier page adds no text again (one shared
    stream of 1 MB under 2,000 pages would otherwise be read 2,000 times). What was left out is
    said in ``meta["notes"]``; ``pages`` counts the pages read, ``pages_total`` all of them."""
    import logging

    import pypdf
    from pypdf.errors import PyPdfError

    # pypdf logs its repairs of malformed files as warnings; with no handler Python prints them on stderr,
    # which would break the one-line error contract. The failure itself still raises ParseError below.
    pdf_log = logging.getLogger("pypdf")
    if not pdf_log.handlers:
        pdf_log.addHandler(logging.NullHandler())
    data = _raw(doc)
    notes: list[str] = []
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                decrypted = bool(reader.decrypt(""))  # PasswordType.NOT_DECRYPTED is 0
            except Exception:  # pypdf raises several types for unsupported crypto
                decrypted = False
            if not decrypted:
                raise ParseError(f"{doc.source}: encrypted PDF")
        total = len(reader.pages)
        pages: list[str] = []
        read = 0
        chars = 0
        seen: set[tuple[tuple[int, int], ...]] = set()
        repeated: list[int] = []
        too_big: list[int] = []
        for i in range(min(total, limits.max_pages)):
            page = reader.pages[i]
            items = _content_items(page)
            key = _content_key(items)
            if key and key in seen:
                repeated.append(i + 1)
                continue
            if key:
                seen.add(key)
            if _content_size(items) > limits.max_page_content:
                too_big.append(i + 1)
                continue
            text = (page.extract_text() or "").strip()
            read += 1
            if chars + len(text) > limits.max_text:
                pages.append(text[: max(0, limits.max_text - chars)])
                notes.append(f"text cap of {limits.max_text} characters reached at page {i + 1} of {total}; the rest was not read")
                break
            chars += len(text) + 2
            pages.append(text)
        if total > limits.max_pages:
            notes.append(f"page cap: read the first {limits.max_pages} of {total} pages")
        if too_big:
            notes.append(f"{len(too_big)} page(s) not read, content over {limits.max_page_content} bytes (page {_page_list(too_big)})")
        if repeated:
            notes.append(f"{len(repeated)} page(s) repeat an earlier page's content, text kept once (page {_page_list(repeated)})")
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
        if too_big:
            raise ParseError(f"{doc.source}: no text read from the PDF ({'; '.join(notes)})")
        raise ParseError(f"{doc.source}: PDF has no text layer (a scanned image?)")
    return _new(doc, text, "pdf", title=title, pages=read, pages_total=total, **{NOTES_KEY: tuple(notes) or None})


def _page_list(nums: list[int]) -> str:
    """ "3, 5-9, 12" for page numbers (ascending), at most a few ranges."""
    runs: list[list[int]] = []
    for n in nums:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:5]]
    return ", ".join(parts) + (", …" if len(runs) > 5 else "")


# ------------------------------------------------------------------ e-mail


# How much of one header field is read. The parser of `email.policy.default` is superlinear in a field's
# length (a 1.1 MB From: of 100,000 addresses took 112 s and 1.4 GB; 20,000 RFC 2231 parameters in a 318 KB
# Content-Type 27 s), so a message is parsed with the compat32 policy, whose headers stay text, and only
# the fields used are decoded, each from a bounded prefix:
# - the MIME fields the email package reads itself (Content-Type and its parameters, Content-Disposition,
#   Content-Transfer-Encoding, Content-ID) at most MIME_HEADER_CAP characters, with a note when one is cut:
#   compat32's parameter parsing is quadratic only on an unclosed quote (0.08 s at this cap, 1.2 s at four
#   times it), and an RFC 2231 file name of 108 Japanese characters is already 1,100 characters long (a cap of
#   1,024 had cut the charset and the boundary after it: the body garbled or lost, with no note);
# - From, To, Subject, Date and Message-ID read as `email.policy.default` reads them (the same text as
#   before) when at most STRUCTURED_MAX characters long, its worst case there some 40 ms; a longer one
#   RFC 2047-decoded (`decode_header`, linear) from its first HEADER_CAP characters, with a note if cut.
MIME_HEADER_CAP = 16_384
STRUCTURED_MAX = 2_000
HEADER_CAP = 16_384
_FIELDS = ("subject", "from", "to", "date", "message-id")
_LINE_BREAK = re.compile(r"\n|\r")


class _MimePolicy(email.policy.Compat32):
    """compat32, with every header the email package reads for itself cut to MIME_HEADER_CAP characters."""

    def header_fetch_parse(self, name: str, value: str) -> Any:
        return super().header_fetch_parse(name, value[:MIME_HEADER_CAP])


_MIME_POLICY = _MimePolicy()


def _header_text(name: str, raw: str, notes: list[str]) -> Any:
    """One top-level header field as the message's meta shows it (see HEADER_CAP)."""
    value = "".join(_LINE_BREAK.split(raw[: 4 * HEADER_CAP]))  # unfolded: the line breaks are not counted
    if len(value) <= STRUCTURED_MAX and len(raw) <= 4 * HEADER_CAP:
        return email.policy.default.header_fetch_parse(name, value)
    if name == "date":
        return None  # no date is 2,000 characters long
    if len(value) > HEADER_CAP or len(raw) > 4 * HEADER_CAP:
        value = value[:HEADER_CAP]
        notes.append(f"{name.title()} header cut to its first {HEADER_CAP:,} characters")
    value = value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")  # 8-bit bytes as UTF-8, as default does
    try:
        return str(email.header.make_header(email.header.decode_header(value)))
    except (ValueError, LookupError, UnicodeError, email.errors.HeaderParseError):
        return value


def _param(part: Any, name: str) -> str | None:
    """A Content-Type parameter as `email.policy.default` gives it (an RFC 2231 value decoded), or None."""
    value = part.get_param(name)
    return email.utils.collapse_rfc2231_value(value) if isinstance(value, tuple) else value


def _is_attachment(part: Any) -> bool:
    return part.get_content_disposition() == "attachment"


def _find_body(top: Any, part: Any, preferencelist: tuple[str, ...]) -> Iterator[tuple[int, Any]]:
    """email.message.MIMEPart._find_body (Python 3.11), for a compat32 message."""
    if _is_attachment(part):
        return
    maintype, subtype = part.get_content_type().split("/")
    if maintype == "text":
        if subtype in preferencelist:
            yield (preferencelist.index(subtype), part)
        return
    if maintype != "multipart" or not top.is_multipart():
        return
    if subtype != "related":
        for subpart in part.get_payload() if part.is_multipart() else ():
            yield from _find_body(top, subpart, preferencelist)
        return
    if "related" in preferencelist:
        yield (preferencelist.index("related"), part)
    candidate = None
    start = _param(part, "start")
    if start:
        for subpart in part.get_payload() if part.is_multipart() else ():
            if subpart["content-id"] == start:
                candidate = subpart
                break
    if candidate is None:
        subparts = part.get_payload()
        candidate = subparts[0] if subparts else None
    if candidate is not None:
        yield from _find_body(top, candidate, preferencelist)


def _get_body(msg: Any, preferencelist: tuple[str, ...]) -> Any:
    """email.message.MIMEPart.get_body: the first part of the best-preferred type, attachments skipped."""
    best_prio = len(preferencelist)
    body = None
    for prio, part in _find_body(msg, msg, preferencelist):
        if prio < best_prio:
            best_prio = prio
            body = part
            if prio == 0:
                break
    return body


def _part_text(part: Any, notes: list[str]) -> str:
    """A text part's content (as `get_content()` of `email.policy.default` gives it). A charset Python does
    not know (or content that does not decode in it) falls back like other text (decode_text: UTF-8, each
    bad byte U+FFFD), with a note, instead of making the whole message unreadable."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, (bytes, bytearray)):
        payload = str(part.get_payload()).encode("utf-8", "surrogateescape")
    charset = _param(part, "charset")
    try:
        content = payload.decode(charset or "ASCII", errors="replace")
    except (LookupError, UnicodeError) as e:
        dec = decode_text(bytes(payload), None)
        why = f"unknown charset {str(charset)[:60]!r}" if isinstance(e, LookupError) else f"not {str(charset)[:60]!r}"
        notes.append(
            f"{part.get_content_type()} part: {why}, decoded as UTF-8" + (f" ({dec.errors} undecodable bytes replaced)" if dec.errors else "")
        )
        return dec.text
    return content


def parse_email(doc: Doc, limits: ParseLimits = LIMITS) -> Doc:
    data = _raw(doc)
    notes: list[str] = []
    try:
        msg = email.message_from_bytes(data, policy=_MIME_POLICY)
        raw: dict[str, str] = {}
        for name, value in msg.raw_items():  # the first of each field, as msg.get gives it
            key = name.lower()
            if key in _FIELDS and key not in raw and isinstance(value, str):
                raw[key] = value
        fields = {k: _header_text(k, v, notes) for k, v in raw.items()}
        if any(
            len(value) > MIME_HEADER_CAP
            for part in msg.walk()
            for name, value in part.raw_items()
            if name.lower().startswith("content-") and isinstance(value, str)
        ):
            notes.append(f"a MIME header over {MIME_HEADER_CAP:,} characters was read only that far")
        subject = str(fields.get("subject", "") or "").strip()
        body_part = _get_body(msg, ("plain", "html"))
        body = ""
        if body_part is not None:
            content = _part_text(body_part, notes)
            if body_part.get_content_type() == "text/html":
                try:
                    content = html_to_text(content, limits)[0]
                except ParseError as e:
                    raise ParseError(f"{doc.source}: {e}") from None
            body = content
        date = fields.get("date")
        date_iso = None
        if date is not None and getattr(date, "datetime", None) is not None:
            date_iso = date.datetime.isoformat()
        meta = {
            "title": subject or None,
            "from": str(fields["from"]) if fields.get("from") else None,
            "to": str(fields["to"]) if fields.get("to") else None,
            "date": date_iso,
            "message_id": str(fields["message-id"]).strip() if fields.get("message-id") else None,
            NOTES_KEY: tuple(notes) or None,
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


def refuse_binary(doc: Doc) -> Doc:
    """The parser of binary content no other parser reads: a ParseError naming its media type."""
    mt = doc.meta.get("media_type") or BINARY
    raise ParseError(f"{doc.source}: binary content ({mt}) is not a supported document type")


_LIMITED = frozenset({parse_html, parse_json, parse_pdf, parse_email})


def _media_type(doc: Doc) -> str:
    mt = doc.meta.get("media_type")
    if isinstance(mt, str) and mt:
        return mt
    raw = doc.meta.get(RAW_KEY)
    data = bytes(raw) if isinstance(raw, (bytes, bytearray)) else doc.text[:4096].encode("utf-8", "surrogatepass")
    return detect_media_type(data, doc.source)


class AutoParser:
    """The Parser that dispatches on media type to the parsers of the registry (kind "parser", keyed by
    media type: semantic_rdf/core/plugins.py; the default registry unless one is given). `overrides` maps a
    media type to a parser function for this parser only (``AutoParser({"text/x-org": my_org_parser})``)."""

    process_safe = True  # may run in a child process (ahead.py)

    def __init__(
        self, overrides: Mapping[str, Callable[[Doc], Doc]] | None = None, *, limits: ParseLimits = LIMITS, registry: Registry | None = None
    ) -> None:
        self.limits = limits
        self._overrides = dict(overrides or {})
        self._registry = registry
        self._parsers: dict[str, Callable[[Doc], Doc] | None] = {}  # media type -> parser, as first looked up

    def parser_for(self, media_type: str) -> Callable[[Doc], Doc] | None:
        """The parser of `media_type`: an override, else the registry's (imported on first use, so a plug-in
        that fails to load fails only for its own media type), with this parser's limits."""
        if media_type in self._overrides:
            return self._overrides[media_type]
        if media_type not in self._parsers:
            fn = (self._registry or default_registry()).find("parser", media_type)
            if fn is not None and fn in _LIMITED and self.limits != LIMITS:  # the built-in parsers that take caps get these
                fn = functools.partial(fn, limits=self.limits)
            self._parsers[media_type] = fn
        return self._parsers[media_type]

    def parse(self, doc: Doc) -> Doc:
        mt = _media_type(doc)
        fn = self.parser_for(mt)
        if fn is None:
            if mt.startswith("text/"):
                fn = parse_text
            elif mt in BINARY_TYPES or doc.meta.get(RAW_KEY) is not None:
                fn = refuse_binary
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
