"""Normalizers: one text transform each; `chain` composes them (HIP-0526 §3).

The normalised text is what a document stores, and every offset (chunk, span) counts code
points in it — so normalisation happens once, before splitting, and never after.

    line_endings   CRLF, CR, NEL, U+2028/2029, form feed and vertical tab -> "\\n"
    control_chars  C0/C1 controls except \\n and \\t, DEL, zero-width and bidirectional
                   format characters (U+200B, U+2060, U+FEFF, U+202A-202E, U+2066-2069),
                   soft hyphens and non-characters removed; lone surrogates -> U+FFFD
    nfc            Unicode canonical composition (NFC)
    quotes         typographic single/double quotes and primes -> ' and "
    whitespace     Unicode spaces -> " ", runs of blanks inside a line -> one space
                   (indentation kept), trailing blanks dropped, at most one empty line in a
                   row, no leading empty lines and no trailing white space

`DEFAULT` chains all five in that order; it is idempotent.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable, Iterable, Protocol, runtime_checkable

__all__ = [
    "Step",
    "Chain",
    "chain",
    "nfc",
    "line_endings",
    "control_chars",
    "quotes",
    "whitespace",
    "DEFAULT",
    "normalize",
]


@runtime_checkable
class _Normalizer(Protocol):
    def normalize(self, text: str) -> str: ...


class Step:
    """A named str -> str transform; usable as a Normalizer and as a plain function."""

    __slots__ = ("name", "_fn")
    process_safe = True  # may run in a child process (ahead.py)

    def __init__(self, name: str, fn: Callable[[str], str]) -> None:
        self.name = name
        self._fn = fn

    def normalize(self, text: str) -> str:
        return self._fn(text)

    __call__ = normalize

    def __repr__(self) -> str:
        return f"Step({self.name})"


class Chain:
    """Steps applied left to right. A chain is itself a step, so chains compose."""

    __slots__ = ("steps",)
    process_safe = True  # may run in a child process (ahead.py)

    def __init__(self, steps: Iterable[Step]) -> None:
        self.steps = tuple(steps)

    def normalize(self, text: str) -> str:
        for s in self.steps:
            text = s.normalize(text)
        return text

    __call__ = normalize

    def __repr__(self) -> str:
        return "chain(" + ", ".join(s.name for s in self.steps) + ")"

    @property
    def name(self) -> str:
        return repr(self)


def _as_step(x: object) -> Step | Chain:
    if isinstance(x, (Step, Chain)):
        return x
    if isinstance(x, _Normalizer):
        return Step(type(x).__name__, x.normalize)
    if callable(x):
        return Step(getattr(x, "__name__", "step"), x)  # type: ignore[arg-type]
    raise TypeError(f"not a normalizer: {x!r}")


def chain(*steps: object) -> Chain:
    """Compose normalizers (Steps, Chains, objects with .normalize, or str -> str functions)."""
    flat: list[Step] = []
    for s in steps:
        st = _as_step(s)
        flat.extend(st.steps if isinstance(st, Chain) else (st,))
    return Chain(flat)


# ------------------------------------------------------------------ the steps


def _nfc(text: str) -> str:
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)


_NEWLINES = re.compile("\r\n?|[\x0b\x0c\x85\u2028\u2029]")
_ODD_NEWLINES = re.compile("[\x0b\x0c\x85\u2028\u2029]")


def _line_endings(text: str) -> str:
    if "\r" not in text and not _ODD_NEWLINES.search(text):
        return text
    return _NEWLINES.sub("\n", text)


_DROP_CHARS = (
    [c for c in range(0x20) if c not in (0x09, 0x0A)]
    + list(range(0x7F, 0xA0))
    + [0xAD, 0x200B, 0x2060, 0xFEFF, 0xFFFE, 0xFFFF]
    + list(range(0x202A, 0x202F))
    + list(range(0x2066, 0x206A))
)
_CONTROL_TABLE = dict.fromkeys(_DROP_CHARS)
_SURROGATE = re.compile("[\ud800-\udfff]")
_HAS_CONTROL = re.compile("[" + "".join(re.escape(chr(c)) for c in _DROP_CHARS) + "\ud800-\udfff]")


def _control_chars(text: str) -> str:
    if not _HAS_CONTROL.search(text):
        return text
    text = text.translate(_CONTROL_TABLE)
    return _SURROGATE.sub("\ufffd", text)


# str.replace per character beats str.translate on non-ASCII text by an order of magnitude
_QUOTES = (
    ("\u2018", "'"),
    ("\u2019", "'"),
    ("\u201a", "'"),
    ("\u201b", "'"),
    ("\u2032", "'"),
    ("\u201c", '"'),
    ("\u201d", '"'),
    ("\u201e", '"'),
    ("\u201f", '"'),
    ("\u2033", '"'),
)


def _quotes(text: str) -> str:
    if text.isascii():
        return text
    for a, b in _QUOTES:
        if a in text:
            text = text.replace(a, b)
    return text


_SPACES = re.compile("[\xa0\u1680\u2000-\u200a\u202f\u205f\u3000]")
# Linear time: a run of blanks is tried once, from its first character (the look-behind), and
# taken whole (possessive); `[ \t]+(?=\n|\Z)` alone retried every suffix of a run that does not
# end a line, which is quadratic in the run's length.
_TRAILING = re.compile(r"(?<![ \t])[ \t]++(?=\n|\Z)")
_INNER = re.compile(r"(?<=[^\s])[ \t]{2,}+(?=[^\s])")
_BLANKS = re.compile(r"\n{3,}")


def _whitespace(text: str) -> str:
    if not text.isascii():
        text = _SPACES.sub(" ", text)
    # substring tests are fast C scans; most texts need none of the substitutions
    if " \n" in text or "\t\n" in text:
        text = _TRAILING.sub("", text)
    if "  " in text or "\t " in text or " \t" in text or "\t\t" in text:
        text = _INNER.sub(" ", text)
    if "\n\n\n" in text:
        text = _BLANKS.sub("\n\n", text)
    return text.lstrip("\n").rstrip()


nfc = Step("nfc", _nfc)
line_endings = Step("line_endings", _line_endings)
control_chars = Step("control_chars", _control_chars)
quotes = Step("quotes", _quotes)
whitespace = Step("whitespace", _whitespace)

DEFAULT = chain(line_endings, control_chars, nfc, quotes, whitespace)


def normalize(text: str) -> str:
    """The default chain."""
    return DEFAULT.normalize(text)
