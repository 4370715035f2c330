"""Splitters: a document's text into chunks that tile it (HIP-0526 §3.3).

Every splitter first cuts the text into *units* that tile it exactly (white space and
separators stay on the preceding unit), then packs consecutive units into chunks no larger
than `size`. So, with zero overlap, the chunks concatenate back to the text exactly, and every
chunk carries its code-point offsets: ``chunk.text == doc.text[chunk.start:chunk.end]``.
Python strings index code points, so no boundary can fall inside one; hard cuts also avoid
separating a combining mark from its base.

    Sentences(size=1000)          sentence units ("Dr.", "e.g.", "U.S.", initials and "3.14"
                                  do not end a sentence; a blank line always does, and the
                                  line break after a title line: `_title_cuts`)
    Paragraphs(size=2000)         units end at a blank line
    MarkdownHeadings(size=4000)   units start at an ATX heading outside fenced code
    Recursive(size=2000)          blank line, line, sentence, word, then a hard cut — the
                                  coarsest separator that splits, recursively, then packed

`size` counts code points, or estimated tokens (ceil(code points / 4)) with ``unit="tokens"``.
``size=0`` means one chunk per unit (or the whole text, for Recursive). A unit larger than
`size` is cut further by the recursive rules rather than passed through oversized.
`overlap` repeats the last `overlap` units at the start of the next chunk (for Recursive:
trailing pieces up to `overlap` in the size unit); every chunk still advances by at least
one unit, and the offsets of overlapping chunks stay exact.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np
from dataclasses import dataclass
from typing import Callable, Sequence

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.plugins import Registry, default_registry
from semantic_rdf.core.values import Chunk, Doc

__all__ = [
    "Sentences",
    "Paragraphs",
    "MarkdownHeadings",
    "Recursive",
    "sentence_spans",
    "paragraph_spans",
    "heading_spans",
    "chunks_from_spans",
    "splitter_from_spec",
    "token_splitter",
]

Span = tuple[int, int]

# ------------------------------------------------------------------ sentence boundaries

# Titles and abbreviations that (almost) never end a sentence.
_NEVER_END = frozenset(
    """mr mrs ms mx dr prof rev fr sr st mt ft gen col capt cpt lt sgt maj adm cmdr hon gov sen rep pres supt
    insp messrs mme mlle vs v cf fig figs eq eqs no nos vol vols ch chap sec pp p para approx ca est dept
    univ assn bros e.g i.e viz al op ed eds trans tel ext min max avg jan feb mar apr jun jul aug sep sept
    oct nov dec mon tue tues wed thu thur thurs fri sat sun""".split()
)
# Abbreviations that often end a sentence too: a boundary only if the next word opens one.
_MAYBE_END = frozenset("inc ltd co corp llc plc gmbh jr etc a.m p.m ph.d u.s u.k u.n e.u d.c".split())
_STARTERS = frozenset(
    """the a an he she it they we i you this that these those there here his her its their our my your
    in on at but and or so yet however then after before when while if as since although though
    because meanwhile later today yesterday tomorrow one some many most all both each every no not
    what who why how where which""".split()
)
# One terminator character first (so the regex engine scans for it at C speed), then the
# branch for its kind: Latin terminators + closers + white space; CJK terminators, which need
# no space; or a blank line. Linear time: a run of terminators is tried once, from its first
# character (the look-behind `(?<!..{2})` skips the rest of the run), and every quantifier is
# possessive (its class is disjoint from what follows), so 64,000 "!" without a space after
# them cost one scan, not one per character (which was quadratic).
_END = re.compile(
    r"[.!?\u2026\u3002\uff01\uff1f\n](?:"
    r"(?<=[.!?\u2026])(?<![.!?\u2026]{2})[.!?\u2026]*+[\"'\u2019\u201d)\]\u00bb]*+\s+"
    r"|(?<=[\u3002\uff01\uff1f])[\u3002\uff01\uff1f]*+[\u300d\u300f\"'\u2019\u201d)]*+\s*+"
    r"|(?<=\n)[^\S\n]*+\n\s*+)"
)
_PARA = re.compile(r"\n[^\S\n]*+\n\s*+")
_WORD_AFTER = re.compile(r"(?<![\"'\u2018\u201c(\[])[\"'\u2018\u201c(\[]*+(\w+)")  # used after white space


def _is_boundary(text: str, m: re.Match[str]) -> bool:
    """Decide whether a terminator match really ends a sentence."""
    s = m.group(0)
    c0 = s[0]
    if c0 == "\n" or c0 in "\u3002\uff01\uff1f":
        return True
    nxt = m.end()
    if nxt >= len(text):
        return True
    term = s.rstrip()
    if s.count("\n", len(term)) >= 2:
        return True  # a blank line after a terminator always ends the sentence
    # A sentence does not start with a lower-case letter ("e.g. this", "etc. and", "... so").
    if text[nxt].islower():
        return False
    if term.rstrip("\"'\u2019\u201d)]\u00bb") != ".":
        return True  # "!", "?", "?!", "..." followed by an upper-case letter, digit or symbol
    start = m.start()
    lo = max(0, start - 40)
    j = max(text.rfind(" ", lo, start), text.rfind("\n", lo, start), text.rfind("\t", lo, start)) + 1
    if j == 0 and lo > 0:
        return True  # a 40-character "word": not an abbreviation
    token = text[j:start].lstrip("\"'(\u2018\u201c[.-").lower()
    if not token:
        return True
    if token in _NEVER_END:
        return False
    bare = token.replace(".", "")
    if (
        token in _MAYBE_END
        or (len(bare) == 1 and bare.isalpha())
        or ("." in token and bare.isalpha() and all(len(p) <= 2 for p in token.split(".") if p))
    ):
        # "Acme Inc. He ...", initials "J. R. R. Tolkien", initialisms "U.S. Army": a boundary
        # only if the next word is one that typically opens a sentence
        wm = _WORD_AFTER.match(text, nxt)
        return wm is not None and wm.group(1).lower() in _STARTERS
    return True


def _sentence_cuts(text: str, s: int = 0, e: int | None = None) -> list[int]:
    """Positions strictly inside (s, e) where a new sentence starts.

    Most candidates are decided by a few cheap tests; only a single "." closing a listed
    abbreviation, a one-letter token or a dotted token (initialisms) gets the full rules."""
    e = len(text) if e is None else e
    cuts: list[int] = []
    append = cuts.append
    never, maybe = _NEVER_END, _MAYBE_END
    for m in _END.finditer(text, s, e):
        c = m.end()
        if c <= s or c >= e:
            continue
        a = m.start()
        if text[c].islower() and text[a] != "\n" and m.group().count("\n") < 2:
            continue  # a sentence never starts lower-case (both branches below agree), unless a blank line ends it
        if text[a] == "." and text[a + 1] != ".":
            lo = a - 16 if a > 16 else 0
            # no white space among the 16 characters before: the token is longer, read as those 16 (from the
            # text's start instead, each such "." lower-cased the whole text before it: quadratic)
            j = max(text.rfind(" ", lo, a), text.rfind("\n", lo, a), text.rfind("\t", lo, a), lo - 1) + 1
            tok = text[j:a].lstrip("\"'(\u2018\u201c[").lower()
            if len(tok) <= 1 or "." in tok or tok in never or tok in maybe:
                if _is_boundary(text, m):
                    append(c)
                continue
        if not text[c].islower() or m.group().count("\n") >= 2:
            append(c)
    if text.find("\n", s, e) >= 0:
        titles = _title_cuts(text, s, e)
        if titles:
            cuts = sorted(set(cuts).union(titles))
    return cuts


# A title or heading on a line of its own ("Phoenix\nPhoenix is the capital of Arizona.", "Early life\nHe was born
# in …") ends its sentence at the line's end, as a blank line would: read into the next line, "Phoenix Phoenix" and
# "Life Nida" became entities. A line of wrapped prose is not one, so a title line: opens the text, or follows a blank
# line, a line that ended a sentence or another title line, or is at most half as long as the next line (an infobox's
# "Children Jérôme Richard" after "Spouse(s) … (m. 1977; div. 1979)": a wrapped line that short would have taken the next
# line's first word); is at most eight words, in title case when more than
# three; opens no bracket it does not close; ends in no punctuation and in no article, preposition or conjunction; is
# shorter than the next line by a fifth at least (a wrapped line is about as long as the next, or longer); and the
# next line opens with a capital or a digit (docs/pipeline.md, "A title line").
_TITLE_MAX_WORDS = 8
_TITLE_SMALL = frozenset("a an the of in on at to for from by with and or nor but as de da di du la le van von".split())
_TITLE_NOT_LAST = _TITLE_SMALL | frozenset("is was are were be been that which who whose his her its their our my your".split())
_TITLE_END_PUNCT = frozenset(".!?\u2026,;:([{-\u2013\u2014/&")
_SENTENCE_END_PUNCT = frozenset(".!?\u2026:\u3002\uff01\uff1f")
_CLOSERS = "\"'\u2019\u201d)]\u00bb"


def _title_case(word: str) -> bool:
    """Whether a word of a title of more than three words fits one: its first letter a capital, or a small word."""
    first = next((ch for ch in word if ch.isalpha()), "")
    return not first or first.isupper() or word.strip("\"'\u2018\u201c(") in _TITLE_SMALL


def _title_line(line: str, next_line: str) -> bool:
    words = line.split()
    if not words or len(words) > _TITLE_MAX_WORDS or len(line) > 80 or len(line) > 0.8 * len(next_line):
        return False
    if line[-1] in _TITLE_END_PUNCT or words[-1] in _TITLE_NOT_LAST or not (line[0].isupper() or line[0].isdigit()):
        return False
    if line.count("(") > line.count(")") or line.count("[") > line.count("]"):
        return False
    return len(words) <= 3 or all(_title_case(w) for w in words)


def _title_cuts(text: str, s: int, e: int) -> list[int]:
    """Positions inside (s, e) after the single line break that ends a title line (see above): where the next
    line's first character is. Each line is read twice, as the line and as the one after it: linear time."""
    out: list[int] = []
    ls = s  # the start of the current line
    opened = True  # the current line opens the text, or follows a blank line, a sentence's end or a title
    n = text.find("\n", s, e)
    while n >= 0:
        nxt = text.find("\n", n + 1, e)
        line = text[ls:n].strip()
        follow = text[n + 1 : nxt if nxt >= 0 else e]
        c = n + 1 + len(follow) - len(follow.lstrip(" \t\r"))
        if not line:
            opened = True
        elif (
            c < e
            and text[c] != "\n"
            and (opened or 2 * len(line) <= len(follow.strip()))
            and _title_line(line, follow.strip())
            and _opens_upper(text, c, e)
        ):
            out.append(c)
        else:
            opened = line.rstrip(_CLOSERS)[-1:] in _SENTENCE_END_PUNCT
        ls, n = n + 1, nxt
    return out


def _opens_upper(text: str, c: int, e: int) -> bool:
    while c < e and text[c] in "\"'\u2018\u201c([":
        c += 1
    return c < e and (text[c].isupper() or text[c].isdigit())


def _tile(s: int, e: int, cuts: Sequence[int]) -> list[Span]:
    if s >= e:
        return []
    out = []
    a = s
    for c in cuts:
        if a < c < e:
            out.append((a, c))
            a = c
    out.append((a, e))
    return out


def sentence_spans(text: str, *, tiling: bool = False) -> list[Span]:
    """Sentences of `text` as (start, end) code-point offsets.

    By default each span is trimmed of surrounding white space (what evidence should point
    at) and empty spans are dropped; ``tiling=True`` gives the spans that tile the text,
    trailing white space included. To locate a sentence inside a chunk, add ``chunk.start``."""
    spans = _tile(0, len(text), _sentence_cuts(text))
    return spans if tiling else _trim(text, spans)


def paragraph_spans(text: str, *, tiling: bool = False) -> list[Span]:
    spans = _tile(0, len(text), [m.end() for m in _PARA.finditer(text) if 0 < m.end() < len(text)])
    return spans if tiling else _trim(text, spans)


_FENCE_OR_HEADING = re.compile(r"^ {0,3}(?:(`{3,}|~{3,})|#{1,6}(?=[ \t]|$))", re.MULTILINE)


def _line_end(text: str, i: int) -> int:
    """End of the line holding position i (a search, not a copy of the rest of the text: one
    copy per fence line was quadratic)."""
    j = text.find("\n", i)
    return len(text) if j < 0 else j


def heading_spans(text: str) -> list[Span]:
    """Sections that start at ATX headings (``#`` .. ``######``) outside fenced code; tiling."""
    cuts = []
    fence: str | None = None
    for m in _FENCE_OR_HEADING.finditer(text):
        f = m.group(1)
        if f:
            if fence is None:
                fence = f
            elif f[0] == fence[0] and len(f) >= len(fence) and not text[m.end() : _line_end(text, m.end())].strip():
                fence = None
            continue
        if fence is None and m.start() > 0:
            cuts.append(m.start())
    return _tile(0, len(text), cuts)


def _trim(text: str, spans: list[Span]) -> list[Span]:
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
    return out


# ------------------------------------------------------------------ recursive pieces

_NEWLINE = re.compile(r"\n")
_SPACE = re.compile(r"\s+")


def _regex_cuts(rx: re.Pattern[str]) -> Callable[[str, int, int], list[int]]:
    def cuts(text: str, s: int, e: int) -> list[int]:
        return [m.end() for m in rx.finditer(text, s, e) if s < m.end() < e]

    return cuts


_LEVELS: tuple[Callable[[str, int, int], list[int]], ...] = (
    _regex_cuts(_PARA),
    _regex_cuts(_NEWLINE),
    _sentence_cuts,
    _regex_cuts(_SPACE),
)


def _is_mark(c: str) -> bool:
    return bool(unicodedata.combining(c)) or c in "\u200d\ufe0e\ufe0f" or "\U0001f3fb" <= c <= "\U0001f3ff"


def _safe_cut(text: str, p: int, a: int) -> int:
    """Move a hard cut back off a combining mark / joiner so a grapheme is not split;
    bounded, and never back to the piece start `a` (then the cut stays where it was)."""
    q = p
    while q > a + 1 and p - q < 16 and (_is_mark(text[q]) or text[q - 1] == "\u200d"):
        q -= 1
    return q if q > a and not (_is_mark(text[q]) or text[q - 1] == "\u200d") else p


def _pieces(
    text: str, s: int, e: int, fits: Callable[[int, int], bool], hard: int, levels: Sequence[Callable[[str, int, int], list[int]]] = _LEVELS
) -> list[Span]:
    if fits(s, e):
        return [(s, e)]
    for i, level in enumerate(levels):
        cuts = level(text, s, e)
        if cuts:
            out: list[Span] = []
            for a, b in _tile(s, e, cuts):
                out.extend(_pieces(text, a, b, fits, hard, levels[i + 1 :]))
            return out
    out = []
    a = s
    while a < e:
        b = min(a + hard, e)
        if b < e:
            b = _safe_cut(text, b, a)
        out.append((a, b))
        a = b
    return out


# ------------------------------------------------------------------ the same pieces, as arrays of ends
#
# `_pieces` and `_pack` above and below say what the chunks are; for a long unit (a 50 MB line without a
# sentence end) they cost a Python object per word. `_piece_ends` gives the same pieces as the ascending
# array of their ends (pieces tile, so the ends say everything), only recursing into the few pieces that do
# not fit, and finds white space with numpy; `_pack_ends` packs them with a binary search per chunk.

_WS_TABLE = np.array([chr(c).isspace() for c in range(0x3001)], dtype=bool)  # what `\s` matches (U+3000 is the last)
_BLOCK = 1 << 22


def _space_cuts(text: str, s: int, e: int) -> np.ndarray:
    """`_regex_cuts(_SPACE)` as an array: every end of a white-space run strictly inside (s, e)."""
    parts = []
    for lo in range(s, e, _BLOCK):
        hi = min(e, lo + _BLOCK)
        a = max(s, lo - 1)  # one character of look-back
        codes = np.frombuffer(text[a:hi].encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        ws = np.zeros(codes.shape, dtype=bool)
        small = codes <= 0x3000
        ws[small] = _WS_TABLE[codes[small]]
        # the position after the last blank of a run; this block decides positions a+1 .. hi-1 (> s, < e)
        parts.append(np.flatnonzero(ws[:-1] & ~ws[1:]) + (a + 1))
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


Cuts = Callable[[str, int, int], "Sequence[int] | np.ndarray"]  # a level's cut positions in text[lo:hi]

_LEVELS_FAST: tuple[Cuts, ...] = (
    _regex_cuts(_PARA),
    _regex_cuts(_NEWLINE),
    _sentence_cuts,
    _space_cuts,
)


def _piece_ends(text: str, s: int, e: int, limit: int, levels: Sequence[Cuts] = _LEVELS_FAST) -> np.ndarray:
    """Ends of `_pieces(text, s, e, fits, hard=limit)`, where fits(a, b) is b - a <= limit."""
    if e - s <= limit:
        return np.array([e], dtype=np.int64)
    for i, level in enumerate(levels):
        cuts = level(text, s, e)
        if len(cuts):
            bounds = np.append(np.asarray(cuts, dtype=np.int64), e)
            big = np.flatnonzero(np.diff(bounds, prepend=s) > limit)
            if not len(big):
                return bounds
            parts, prev = [], 0
            for k in big.tolist():
                parts.append(bounds[prev:k])
                a = s if k == 0 else int(bounds[k - 1])
                parts.append(_piece_ends(text, a, int(bounds[k]), limit, levels[i + 1 :]))
                prev = k + 1
            parts.append(bounds[prev:])
            return np.concatenate(parts)
    out = []
    a = s
    while a < e:
        b = min(a + limit, e)
        if b < e:
            b = _safe_cut(text, b, a)
        out.append(b)
        a = b
    return np.array(out, dtype=np.int64)


def _pack_ends(s0: int, ends: np.ndarray, limit: int, overlap: int, overlap_limit: int | None = None) -> list[Span]:
    """`_pack` over the pieces that tile [s0, ends[-1]) (a piece fits when end - start <= limit; every piece
    does). overlap counts pieces, or with `overlap_limit` (overlap_by_cost) code points as for the limit."""
    n = len(ends)
    if n == 0:
        return []
    starts = np.empty_like(ends)
    starts[0] = s0
    starts[1:] = ends[:-1]
    out: list[Span] = []
    i = 0
    while i < n:
        st = int(starts[i])
        j = max(i, int(np.searchsorted(ends, st + limit, side="right")) - 1)
        out.append((st, int(ends[j])))
        if j >= n - 1:
            break
        if overlap <= 0:
            i = j + 1
        elif overlap_limit is not None:
            thr = int(ends[j]) - overlap_limit
            i = j + 1 if starts[j] < thr else max(i + 1, int(np.searchsorted(starts, thr, side="left")))
        else:
            i = max(i + 1, j + 1 - overlap)
    return out


# ------------------------------------------------------------------ packing


def _cost_fn(unit: str) -> Callable[[int, int], int]:
    if unit == "chars":
        return lambda a, b: b - a
    if unit == "tokens":
        return lambda a, b: -((a - b) // 4)  # ceil((b - a) / 4)
    raise InvalidInput(f"size unit must be 'chars' or 'tokens', got {unit!r}")


def _pack(units: list[Span], size: int, overlap: int, cost: Callable[[int, int], int], overlap_by_cost: bool = False) -> list[Span]:
    n = len(units)
    if n == 0:
        return []
    if size <= 0 and overlap > 0:
        return [(units[max(0, i - overlap)][0], units[i][1]) for i in range(n)]
    out: list[Span] = []
    i = 0
    while i < n:
        j = i
        if size > 0:
            s0 = units[i][0]
            while j + 1 < n and cost(s0, units[j + 1][1]) <= size:
                j += 1
        out.append((units[i][0], units[j][1]))
        if j >= n - 1:
            break
        if overlap <= 0:
            i = j + 1
        elif overlap_by_cost:
            k = j + 1
            while k - 1 > i and cost(units[k - 1][0], units[j][1]) <= overlap:
                k -= 1
            i = k
        else:
            i = max(i + 1, j + 1 - overlap)
    return out


def chunks_from_spans(doc: Doc, spans: Sequence[Span]) -> list[Chunk]:
    t = doc.text
    return [Chunk(doc.id, k, t[a:b], a, b) for k, (a, b) in enumerate(spans)]


def _check(size: int, overlap: int, unit: str) -> None:
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise InvalidInput(f"chunk size must be a non-negative integer, got {size!r}")
    if not isinstance(overlap, int) or isinstance(overlap, bool) or overlap < 0:
        raise InvalidInput(f"overlap must be a non-negative integer, got {overlap!r}")
    _cost_fn(unit)


class _UnitSplitter:
    process_safe = True  # may run in a child process (ahead.py)
    size: int
    overlap: int
    unit: str

    def _units(self, text: str) -> list[Span]:  # tiling
        raise NotImplementedError

    def spans(self, text: str) -> list[Span]:
        _check(self.size, self.overlap, self.unit)
        units = self._units(text)
        cost = _cost_fn(self.unit)
        if self.size > 0 and all(units[k][1] == units[k + 1][0] for k in range(len(units) - 1)):
            limit = self.size * (4 if self.unit == "tokens" else 1)  # cost(a, b) <= size  <=>  b - a <= limit
            parts = [np.array([b for a, b in units if b - a <= limit], dtype=np.int64)]
            if any(b - a > limit for a, b in units):
                parts = []
                run: list[int] = []
                for a, b in units:
                    if b - a <= limit:
                        run.append(b)
                    else:
                        parts.append(np.array(run, dtype=np.int64))
                        parts.append(_piece_ends(text, a, b, limit))
                        run = []
                parts.append(np.array(run, dtype=np.int64))
            return _pack_ends(units[0][0] if units else 0, np.concatenate(parts), limit, self.overlap)
        if self.size > 0:
            hard = self.size * (4 if self.unit == "tokens" else 1)
            fits = lambda a, b: cost(a, b) <= self.size  # noqa: E731
            split: list[Span] = []
            for a, b in units:
                split.extend(_pieces(text, a, b, fits, hard) if cost(a, b) > self.size else ((a, b),))
            units = split
        return _pack(units, self.size, self.overlap, cost)

    def split(self, doc: Doc) -> list[Chunk]:
        return chunks_from_spans(doc, self.spans(doc.text))


@dataclass(frozen=True)
class Sentences(_UnitSplitter):
    """Sentences packed up to `size` (0: one chunk per sentence)."""

    size: int = 2000
    overlap: int = 0
    unit: str = "chars"

    def _units(self, text: str) -> list[Span]:
        return sentence_spans(text, tiling=True)


@dataclass(frozen=True)
class Paragraphs(_UnitSplitter):
    """Paragraphs (blank-line separated) packed up to `size` (0: one chunk per paragraph)."""

    size: int = 2000
    overlap: int = 0
    unit: str = "chars"

    def _units(self, text: str) -> list[Span]:
        return paragraph_spans(text, tiling=True)


@dataclass(frozen=True)
class MarkdownHeadings(_UnitSplitter):
    """Markdown sections (a heading and what follows it) packed up to `size` (0: one each)."""

    size: int = 4000
    overlap: int = 0
    unit: str = "chars"

    def _units(self, text: str) -> list[Span]:
        return heading_spans(text)


@dataclass(frozen=True)
class Recursive:
    """Cut at the coarsest separator that splits (blank line, line, sentence, word, then a
    hard cut), recursively, until every piece fits; then pack pieces up to `size`.
    `overlap` is in the size unit. ``size=0`` returns the whole text as one chunk."""

    process_safe = True  # may run in a child process (ahead.py)

    size: int = 2000
    overlap: int = 0
    unit: str = "chars"

    def spans(self, text: str) -> list[Span]:
        _check(self.size, self.overlap, self.unit)
        if not text:
            return []
        if self.size == 0:
            return [(0, len(text))]
        if self.overlap >= self.size:
            raise InvalidInput(f"overlap {self.overlap} must be smaller than size {self.size}")
        limit = self.size * (4 if self.unit == "tokens" else 1)  # cost(a, b) <= size  <=>  b - a <= limit
        overlap_limit = self.overlap * (4 if self.unit == "tokens" else 1)
        return _pack_ends(0, _piece_ends(text, 0, len(text), limit), limit, self.overlap, overlap_limit)

    def split(self, doc: Doc) -> list[Chunk]:
        return chunks_from_spans(doc, self.spans(doc.text))


def token_splitter(size: int = 512, overlap: int = 0) -> Recursive:
    """Windows of about `size` estimated tokens (the splitter spec `tokens[:SIZE[:OVERLAP]]`)."""
    return Recursive(size, overlap, unit="tokens")


def splitter_from_spec(spec: str, registry: Registry | None = None):
    """``NAME[:SIZE[:OVERLAP]]``: NAME a splitter of the registry (kind "splitter": built in sentences,
    paragraphs, markdown (headings), recursive (characters) and tokens (estimated tokens, default 512)),
    made with the numbers given."""
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidInput("splitter spec must be a non-empty string")
    name, *nums = spec.strip().lower().split(":")
    reg = registry if registry is not None else default_registry()
    make = reg.find("splitter", name)
    if make is None:
        raise InvalidInput(f"unknown splitter {name!r} (known: {', '.join(reg.built_in('splitter'))})")
    if len(nums) > 2:
        raise InvalidInput(f"splitter spec {spec!r}: expected NAME[:SIZE[:OVERLAP]]")
    try:
        args = [int(x) for x in nums]
    except ValueError:
        raise InvalidInput(f"splitter spec {spec!r}: size and overlap must be integers") from None
    splitter = make(*args)
    if not callable(getattr(splitter, "split", None)):
        raise InvalidInput(f"the splitter {name!r} made {type(splitter).__name__}, which has no split(doc) method")
    if all(hasattr(splitter, a) for a in ("size", "overlap", "unit")):  # a window splitter: its numbers are checked
        _check(splitter.size, splitter.overlap, splitter.unit)
    return splitter
