"""Dates and numbers in text (`literals`), and the valid time a sentence or a clause states (`sentence_validity`,
`clause_validity`): a date bounds a relation only in the clause that states it. Both extractors read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

from semantic_rdf.core.values import Validity

__all__ = ["Literal", "literals", "sentence_validity", "clause_validity", "MONTH_RX", "XSD"]

XSD = "http://www.w3.org/2001/XMLSchema#"
MONTH_RX = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTHS = {m: i + 1 for i, m in enumerate(MONTH_RX.lower().split("|"))}
_DATE_DMY = re.compile(rf"\b([0-3]?\d)\s+({MONTH_RX})\s+(1\d{{3}}|20\d\d)\b")
_DATE_MDY = re.compile(rf"\b({MONTH_RX})\s+([0-3]?\d),?\s+(1\d{{3}}|20\d\d)\b")
_MONTH_GATE = re.compile(MONTH_RX)
_DATE_ISO = re.compile(r"\b(1\d{3}|20\d\d)-([01]\d)-([0-3]\d)\b")
_YEAR = re.compile(r"(?<![\d.,])(1[0-9]\d\d|20\d\d)(?![\d,]|\.\d)")
_NUMBER = re.compile(r"(?<![\w.,])[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w,])|(?<![\w.,])[-−]?\d+(?:\.\d+)?(?![\w])")
_RANGE = re.compile(r"\b(?:from|between)\s+(1\d{3}|20\d\d)\s+(?:to|until|till|and|through)\s+(1\d{3}|20\d\d)\b")
_SINCE = re.compile(r"\bsince\s+(1\d{3}|20\d\d)\b")
_UNTIL = re.compile(r"\buntil\s+(1\d{3}|20\d\d)\b")
_DIGIT = re.compile(r"\d")
_IN_YEAR = re.compile(r"\b[Ii]n\s+(1\d{3}|20\d\d)\b")


@dataclass(frozen=True, slots=True)
class Literal:
    """A date or number found in text, as an XSD-typed lexical form with its offsets in that text."""

    text: str
    lexical: str
    datatype: str
    start: int
    end: int


def _iso(y: int, m: int, d: int) -> str | None:
    try:
        return datetime(y, m, d).date().isoformat()
    except ValueError:
        return None


def literals(text: str) -> list[Literal]:
    """Dates (xsd:date, xsd:gYear) and numbers (xsd:integer, xsd:decimal) in `text`, in order."""
    out: list[Literal] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for rx, order in ((_DATE_DMY, "dmy"), (_DATE_MDY, "mdy"), (_DATE_ISO, "iso")):
        for m in rx.finditer(text):
            if order == "dmy":
                d, mo, y = int(m.group(1)), _MONTHS[m.group(2).lower()], int(m.group(3))
            elif order == "mdy":
                mo, d, y = _MONTHS[m.group(1).lower()], int(m.group(2)), int(m.group(3))
            else:
                y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
            iso = _iso(y, mo, d)
            if iso and free(m.start(), m.end()):
                out.append(Literal(m.group(0), iso, XSD + "date", m.start(), m.end()))
                taken.append((m.start(), m.end()))
    for m in _YEAR.finditer(text):
        if free(m.start(), m.end()):
            out.append(Literal(m.group(0), m.group(1), XSD + "gYear", m.start(), m.end()))
            taken.append((m.start(), m.end()))
    for m in _NUMBER.finditer(text):
        if free(m.start(), m.end()):
            lex = m.group(0).replace(",", "").replace("−", "-")
            out.append(Literal(m.group(0), lex, XSD + ("decimal" if "." in lex else "integer"), m.start(), m.end()))
    out.sort(key=lambda lit: lit.start)
    return out


def _jan1(y: int) -> datetime:
    return datetime(y, 1, 1, tzinfo=timezone.utc)


def sentence_validity(sentence: str) -> Validity | None:
    """Valid time stated in a sentence: "from 1920 to 1933" -> [1920, 1934); "since 1990"; "until 1950";
    one full date or one "in YEAR" -> starts then. Several different dates -> None (ambiguous)."""
    if not _DIGIT.search(sentence):
        return None  # every form below needs a year
    m = _RANGE.search(sentence) if "from" in sentence or "between" in sentence else None
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        return Validity(_jan1(a), _jan1(b + 1)) if a <= b else None
    since = _SINCE.search(sentence) if "since" in sentence else None
    until = _UNTIL.search(sentence) if "until" in sentence else None
    if since or until:
        begin = _jan1(int(since.group(1))) if since else None
        end = _jan1(int(until.group(1)) + 1) if until else None
        if begin is not None and end is not None and not begin < end:
            return None
        return Validity(begin, end)
    dates = set()
    if _MONTH_GATE.search(sentence):  # day-month-year and month-day-year both name the month
        for m in _DATE_DMY.finditer(sentence):
            dates.add(_iso(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1))))
        for m in _DATE_MDY.finditer(sentence):
            dates.add(_iso(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2))))
    if "-" in sentence:
        for m in _DATE_ISO.finditer(sentence):
            dates.add(_iso(int(m.group(1)), int(m.group(2)), int(m.group(3))))
    known = {x for x in dates if x is not None}
    if len(known) == 1:
        y, mo, d = map(int, next(iter(known)).split("-"))
        return Validity(datetime(y, mo, d, tzinfo=timezone.utc))
    if known:
        return None
    years = {int(x) for x in _IN_YEAR.findall(sentence)}
    if len(years) == 1:
        return Validity(_jan1(years.pop()))
    return None


# What ends a clause around two names: punctuation that opens or closes one (not the comma of "July 4, 1776"), a
# spaced dash, and the words that join clauses or start one. Not "since", "until", "from", "between": they bring
# the dates a clause's own time is read from, nor the "and" of "between 1920 and 1933".
_CLAUSE_BREAK = re.compile(
    r"[;:()\[\]{}]|,(?!\s*(?:1\d{3}|20\d\d)\b)|\s[–—-]\s"
    r"|\band\b(?!\s+(?:1\d{3}|20\d\d)\b)|\b(?:but|or|nor|while|whereas|although|though|because|which|who|whom|whose|where|when)\b",
    re.IGNORECASE,
)


def clause_validity(sentence: str, a: tuple[int, int], b: tuple[int, int]) -> Validity | None:
    """Valid time stated in the clause of `sentence` that holds both spans (`sentence_validity` of that clause):
    from the last clause break before the first span to the first one after the second. None when a break lies
    between them: a date in another clause bounds another relation ("In 1930 he took a law degree, and he was
    born in Chicago")."""
    (s1, e1), (s2, e2) = sorted((a, b))
    if _CLAUSE_BREAK.search(sentence, e1, max(e1, s2)):
        return None
    lo = 0
    for m in _CLAUSE_BREAK.finditer(sentence, 0, s1):
        lo = m.end()
    after = _CLAUSE_BREAK.search(sentence, max(e1, e2))
    return sentence_validity(sentence[lo : after.start() if after else len(sentence)])
