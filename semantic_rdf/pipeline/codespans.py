"""Code in a document's text: the regions no extractor reads.

- Fenced blocks, in any text: a line of three or more backticks or tildes (indented at most three spaces)
  up to the closing line of the same character, at least as long, or the end of the text. parse.py writes
  an HTML <pre> as one.
- Code spans, in Markdown and in text parsed from HTML (which writes <code> as one): a run of backticks up
  to the next run of exactly as many, within a paragraph; a backtick after a backslash is text.
- Indented blocks, in Markdown: lines indented four spaces (or a tab) after a blank line, when the last
  line before that blank is a paragraph's, unindented and not a list item. (Under a list item the same
  indent continues the item, so those lines are prose.)

`mask(text, regions)` blanks the regions (line breaks kept), so offsets and lengths stay those of the text:
the pipeline hands extractors masked chunks and gives their triples the real ones back (stages.py). Every
step is one pass over the lines or the backtick runs: linear in the text (tests/test_codespans.py).
"""

from __future__ import annotations

import re

__all__ = ["code_regions", "mask", "regions_for"]

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"(?:[-+*]|[0-9]{1,9}[.)])(?:[ \t]|$)")
_TICKS = re.compile(r"`+")
_NOT_BREAK = re.compile(r"[^\r\n]")


def _indent(line: str) -> int:
    """Columns of leading white space (a tab counts four)."""
    n = 0
    for c in line:
        if c == " ":
            n += 1
        elif c == "\t":
            n += 4
        else:
            break
    return n


def code_regions(text: str, *, spans: bool = False, indented: bool = False) -> list[tuple[int, int]]:
    """(start, end) offsets of the code in `text`, in order, not overlapping: fenced blocks always, code
    spans and indented blocks when asked (see the module's notes)."""
    blocks: list[tuple[int, int]] = []
    paragraphs: list[tuple[int, int]] = []
    fence: tuple[str, int] | None = None
    fence_at = 0
    block_at: int | None = None  # start of an open indented block
    block_end = 0  # end of its last indented line
    para_at: int | None = None
    prev_blank = True
    last_plain = True  # the last non-blank line (or the start) lets an indented block begin after a blank
    pos = 0
    for line in text.splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        blank = not body.strip()
        if fence is not None:
            m = _FENCE.match(body)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1] and not body[m.end() :].strip():
                blocks.append((fence_at, pos))
                fence = None
                prev_blank, last_plain = False, True
            continue
        if block_at is not None:
            if blank or _indent(body) >= 4:
                if not blank:
                    block_end = pos
                continue
            blocks.append((block_at, block_end))
            block_at = None
        m = _FENCE.match(body)
        if m and not (m.group(1)[0] == "`" and "`" in body[m.end() :]):
            if para_at is not None:
                paragraphs.append((para_at, start))
                para_at = None
            fence, fence_at = (m.group(1)[0], len(m.group(1))), start
            continue
        if indented and not blank and prev_blank and last_plain and _indent(body) >= 4:
            if para_at is not None:
                paragraphs.append((para_at, start))
                para_at = None
            block_at, block_end = start, pos
            continue
        if blank:
            if para_at is not None:
                paragraphs.append((para_at, start))
                para_at = None
        else:
            if para_at is None:
                para_at = start
            last_plain = _indent(body) == 0 and not _LIST_ITEM.match(body)
        prev_blank = blank
    if fence is not None:
        blocks.append((fence_at, len(text)))
    if block_at is not None:
        blocks.append((block_at, block_end))
    if para_at is not None:
        paragraphs.append((para_at, len(text)))
    if not spans:
        return blocks
    inline = [r for a, b in paragraphs for r in _spans(text, a, b)]
    return sorted(blocks + inline)


def _spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Code spans of text[start:end]: each backtick run paired with the next run of the same length."""
    runs = [m.span() for m in _TICKS.finditer(text, start, end)]
    if not runs:
        return []
    if "\\`" in text[start:end]:  # an escaped backtick is text; the rest of its run may still open a span
        runs = [(a + 1, b) if a > 0 and text[a - 1] == "\\" else (a, b) for a, b in runs]
        runs = [r for r in runs if r[0] < r[1]]
    lengths = [b - a for a, b in runs]
    if min(lengths) == max(lengths):  # one length: consecutive runs pair up (the loop below, in one step)
        return [(a, d) for (a, _), (_, d) in zip(runs[0::2], runs[1::2])]
    # for each run, the index of the next run of the same length (-1: none), found from the end
    nxt = [-1] * len(runs)
    seen: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        n = lengths[i]
        nxt[i] = seen.get(n, -1)
        seen[n] = i
    out: list[tuple[int, int]] = []
    i, count = 0, len(runs)
    while i < count:
        j = nxt[i]
        if j < 0:
            i += 1  # no closing run: literal backticks
        else:
            out.append((runs[i][0], runs[j][1]))
            i = j + 1
    return out


def regions_for(text: str, parser: object) -> list[tuple[int, int]]:
    """The code regions of a parsed document's text, by the parser that made it (its meta "parser")."""
    return code_regions(text, spans=parser in ("markdown", "html"), indented=parser == "markdown")


def mask(text: str, regions: list[tuple[int, int]]) -> str:
    """`text` with every region blanked to spaces, line breaks kept: the same length and offsets."""
    if not regions:
        return text
    ends = [0] + [b for _, b in regions]
    starts = [a for a, _ in regions] + [len(text)]
    kept = [text[b:a] for b, a in zip(ends, starts)]  # the text between regions (and around them)
    blanked = [_blank(text[a:b]) for a, b in regions]
    out = [""] * (len(kept) + len(blanked))
    out[0::2], out[1::2] = kept, blanked
    return "".join(out)


def _blank(code: str) -> str:
    return _NOT_BREAK.sub(" ", code) if "\n" in code or "\r" in code else " " * len(code)
