"""Identity (HIP-0526 §2.3): fold, and the FNV-1a assertion id.

Both follow the Go reference exactly: white space is Go's `unicode.IsSpace` (as used by
`strings.Fields`), lower-casing is Go's simple per-rune mapping (`strings.ToLower`: no
final-sigma rule, U+0130 becomes "i"), and no Unicode normalisation is applied.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["fold", "assertion_id", "fnv1a64", "term_id"]

# Go's unicode.IsSpace. Python's str.split() also splits on U+001C..U+001F; Go does not.
_GO_SPACE = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")
_SURROGATE = re.compile("[\ud800-\udfff]")

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = 0xFFFFFFFFFFFFFFFF


def _go_lower_rune(c: str) -> str:
    # Python's full mapping turns U+0130 into two code points and applies final sigma in
    # context; Go's simple mapping does neither. Every other rune maps one-to-one.
    if c == "\u0130":
        return "i"
    return c.lower()


@lru_cache(maxsize=1 << 16)  # names repeat across a batch; fold is pure
def fold(s: str) -> str:
    """Trim, collapse inner white space to one space, lower-case — exactly as Go does."""
    if not isinstance(s, str):
        raise TypeError(f"fold expects str, got {type(s).__name__}")
    # Go strings hold UTF-8; a lone surrogate cannot be encoded and Go would see U+FFFD.
    if _SURROGATE.search(s):
        s = _SURROGATE.sub("\ufffd", s)
    joined = " ".join(part for part in _GO_SPACE.split(s) if part)
    if joined.isascii():
        return joined.lower()
    return "".join(_go_lower_rune(c) for c in joined)


def fnv1a64(data: bytes) -> int:
    """FNV-1a, 64 bit."""
    h = _FNV_OFFSET
    for b in data:
        h = ((h ^ b) * _FNV_PRIME) & _MASK
    return h


@lru_cache(maxsize=1 << 16)  # an ingest asks for the id of each triple twice (loader, then store)
def assertion_id(subject: str, predicate: str, obj: str) -> str:
    """FNV-1a 64 over fold(s) NUL fold(p) NUL fold(o) NUL, as 16 lower-case hex digits."""
    data = b"".join(fold(x).encode("utf-8") + b"\x00" for x in (subject, predicate, obj))
    return format(fnv1a64(data), "016x")


def term_id(name: str) -> str:
    """Identifier of one term (an entity name): FNV-1a 64 over fold(name) NUL."""
    return format(fnv1a64(fold(name).encode("utf-8") + b"\x00"), "016x")
