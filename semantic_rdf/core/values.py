"""The three values of HIP-0526 §2 — Doc, Chunk, Triple — and a validity span.

All frozen. Offsets are Unicode code points (Python `str` indices) into the stored,
normalised document text; `start` is inclusive and `end` exclusive, like a slice.
"""

from __future__ import annotations

import math
import os
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput

__all__ = ["Doc", "Chunk", "Triple", "Validity", "utc", "MAX_NAME", "MAX_TEXT", "MAX_QUESTION", "check_text", "is_blank", "one_line", "display_ref"]

# Length limits at the boundary, in characters (docs/security.md, "Name and text limits"). A name is repeated
# in every record, label, side-table row and subword encoding that mentions it, so one huge name costs its
# length many times over later; real names are far shorter.
MAX_NAME = 1_000  # entity names, predicates, agent names, a typed literal object
MAX_TEXT = 4_096  # a statement's source label (note), a reason
MAX_QUESTION = 10_000  # a question to `ask`, `ask --batch` or `chat` (each answer is recorded with its question)


def one_line(value: object) -> str:
    """Stored free text (a note, a reason, a document reference, a quote) as a person's output shows it inside a
    layout of lines (a tree, a citation): every run of white space, line breaks included, one space, as an
    entity's name is stored (layout.entity_quads), so the text cannot forge a line of the layout. JSON keeps the
    exact text."""
    return " ".join(str(value).split())


def is_blank(value: str) -> bool:
    """Whether `value` is nothing but whitespace and format characters (Unicode category Cf: U+200B ZERO WIDTH
    SPACE, U+FEFF, U+2060 WORD JOINER, U+200C/D ZWNJ/ZWJ, U+00AD SOFT HYPHEN, bidi marks), which str.strip()
    keeps. A name that merely contains one (a ZWNJ inside a Persian word, an emoji ZWJ sequence) is not blank."""
    return all(c.isspace() or unicodedata.category(c) == "Cf" for c in value)  # stops at the first other character


def check_text(what: str, value: object, limit: int, *, required: bool = True) -> str:
    """`value` if it is a str of at most `limit` characters that encodes as UTF-8 (no lone surrogate, as
    undecodable bytes on a command line become), not blank (`is_blank`) when `required`; else InvalidInput."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be str, got {type(value).__name__}")
    if len(value) > limit:
        raise InvalidInput(f"{what} is {len(value):,} characters long, over the limit of {limit:,}")
    if required and is_blank(value):
        raise InvalidInput(f"{what} is empty" if not value.strip() else f"{what} is empty (only invisible characters)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"{what} is not valid Unicode text (an unpaired surrogate at position {exc.start})") from None
    return value


def utc(t: datetime) -> datetime:
    """The same instant in UTC; a naive datetime is refused (its zone is unknowable)."""
    if not isinstance(t, datetime):
        raise InvalidInput(f"expected a datetime, got {type(t).__name__}")
    if t.tzinfo is None or t.utcoffset() is None:
        raise InvalidInput(f"instant {t.isoformat()} has no time zone")
    return t.astimezone(timezone.utc)


@dataclass(frozen=True, slots=True)
class Doc:
    """One parsed source: a stable id, where it came from, its text, what the reader learned."""

    id: str
    source: str
    text: str
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise InvalidInput("a document needs a non-empty id")
        if not isinstance(self.text, str):
            raise InvalidInput(f"document {self.id!r}: text must be str")
        object.__setattr__(self, "meta", MappingProxyType(dict(self.meta)))

    def __reduce__(self):  # pickled by value through the constructor, which checks it again
        return Doc, (self.id, self.source, self.text, dict(self.meta))

    def with_(self, *, text: str | None = None, meta: Mapping[str, Any] | None = None) -> "Doc":
        """A new document with another text and/or metadata merged over a copy of this one's."""
        merged = dict(self.meta)
        if meta:
            merged.update(meta)
        return Doc(self.id, self.source, self.text if text is None else text, merged)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A span of a document sized for extraction: text == doc.text[start:end]."""

    doc_id: str
    index: int
    text: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.index < 0 or self.start < 0 or self.end < self.start:
            raise InvalidInput(f"chunk {self.doc_id}#{self.index}: bad offsets {self.start}..{self.end}")
        if self.end - self.start != len(self.text):
            raise InvalidInput(f"chunk {self.doc_id}#{self.index}: offsets {self.start}..{self.end} do not match text length {len(self.text)}")

    def __reduce__(self):
        return Chunk, (self.doc_id, self.index, self.text, self.start, self.end)


@dataclass(frozen=True, slots=True)
class Validity:
    """When the world was that way. A missing bound is open."""

    start: datetime | None = None
    until: datetime | None = None

    def __post_init__(self) -> None:
        if self.start is not None:
            object.__setattr__(self, "start", utc(self.start))
        if self.until is not None:
            object.__setattr__(self, "until", utc(self.until))
        if self.start is not None and self.until is not None and not self.start < self.until:
            raise InvalidInput(f"validity starts at {self.start.isoformat()} but ends at {self.until.isoformat()}")

    def __reduce__(self):
        return Validity, (self.start, self.until)

    def holds_at(self, t: datetime) -> bool:
        t = utc(t)
        return (self.start is None or self.start <= t) and (self.until is None or t < self.until)

    def closed_at(self, until: datetime) -> "Validity":
        """Closing only ever shortens: the earlier of the current and the new end wins."""
        until = utc(until)
        if self.until is not None and self.until <= until:
            return self
        return Validity(self.start, until)


def _check_datatype(value: object) -> None:
    try:
        ox.NamedNode(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"datatype {value!r} is not an absolute IRI ({exc})") from None


@dataclass(frozen=True, slots=True)
class Triple:
    """One claim: subject, predicate, object, the chunk it was read from, and its score.

    `score` None means the extractor stated no confidence, which reads as full confidence
    (HIP-0526 §2.4), never as zero. `start`/`end`, when given, are the document offsets of
    the evidence (the sentence) inside the chunk; otherwise the whole chunk is the evidence.
    `datatype` marks the object as a typed literal (an XSD datatype IRI) instead of an entity.
    """

    subject: str
    predicate: str
    object: str
    chunk: Chunk | None = None
    score: float | None = None
    valid: Validity | None = None
    start: int | None = None
    end: int | None = None
    datatype: str | None = None

    def __post_init__(self) -> None:
        for name in ("subject", "predicate", "object"):
            check_text(f"triple {name}", getattr(self, name), MAX_NAME)
        if self.score is not None:
            if isinstance(self.score, bool) or not isinstance(self.score, (int, float)) or math.isnan(self.score):
                raise InvalidInput(f"score must be a number in [0, 1], got {self.score!r}")
            if not 0.0 <= float(self.score) <= 1.0:
                raise InvalidInput(f"score {self.score} is outside [0, 1]")
        if self.datatype is not None:
            _check_datatype(self.datatype)
        if (self.start is None) != (self.end is None):
            raise InvalidInput("evidence start and end go together")
        if self.start is not None:
            if self.chunk is None:
                raise InvalidInput("an evidence span needs the chunk it lies in")
            if not (self.chunk.start <= self.start <= self.end <= self.chunk.end):  # type: ignore[operator]
                raise InvalidInput(f"evidence {self.start}..{self.end} lies outside chunk {self.chunk.start}..{self.chunk.end}")

    def __reduce__(self):
        return Triple, (self.subject, self.predicate, self.object, self.chunk, self.score, self.valid, self.start, self.end, self.datatype)

    @property
    def confidence(self) -> float:
        return 1.0 if self.score is None else float(self.score)

    @property
    def id(self) -> str:
        from semantic_rdf.core.identity import assertion_id

        return assertion_id(self.subject, self.predicate, self.object)

    @property
    def span(self) -> tuple[int, int] | None:
        """Document offsets of the evidence, or None for a caller-supplied assertion."""
        if self.chunk is None:
            return None
        if self.start is not None:
            return (self.start, self.end)  # type: ignore[return-value]
        return (self.chunk.start, self.chunk.end)


def display_ref(named: str, rel: str | None = None) -> str:
    """A document's machine-independent reference, as `ingest` stores it: a relative path as written
    (normalised), an absolute one by its last component only, plus the path inside it (`rel`)."""
    p = os.path.normpath(named)
    base = os.path.basename(p) if os.path.isabs(p) else p
    if rel is None:
        return Path(base).as_posix()
    return (Path(base) / rel).as_posix() if base not in ("", ".") else Path(rel).as_posix()
