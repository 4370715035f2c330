"""A deterministic extractive reader: no model, blind to the category and to the arm.

Given a question and the retrieved units (text, session date, retrieval score), it

* declines with "No information available" when nothing came back or the best retrieval score
  is below the floor (the abstention signal is that score);
* answers "when" questions from the session date of the best unit, resolving a relative time
  expression in it ("yesterday", "last week", "next month", "two years ago") against that date,
  in the style of the gold answers ("7 May 2023", "The week before 9 June 2023");
* otherwise takes, from the best units, the declarative sentence that covers the question best,
  drops stop words and words the question already holds, and keeps the `span` rarest words in
  their original order; up to `parts` such answers from different units, each within `band`
  of the best, joined by ", ".
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime, timedelta
from typing import Callable, Sequence

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.interfaces.retrieval import STOPWORDS, terms, words

from bench.locomo.scorer import DECLINE

__all__ = ["ReaderConfig", "Passage", "Reply", "read", "is_when_question", "resolve_when", "day"]

_QUESTION_WORDS = frozenset("what when where who whom whose which why how did does do is was were are kind type".split())
_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+|$)")
_WEEKDAYS = [d.lower() for d in calendar.day_name]
_MONTHS = [m for m in calendar.month_name if m]
_NUM = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUM.update({"a": 1, "an": 1, "a couple of": 2, "couple of": 2, "a couple": 2})


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    floor: float = 0.55
    span: int = 4
    band: float = 0.90
    parts: int = 2

    def __post_init__(self) -> None:
        if not (0.0 <= self.floor <= 1.0) or self.span < 1 or self.parts < 1 or not (0.0 < self.band <= 1.0):
            raise InvalidInput(f"bad reader configuration {self!r}")


@dataclass(frozen=True, slots=True)
class Passage:
    id: str
    text: str
    date: datetime
    score: float  # support from retrieval: the share of the question the unit covers (the oracle's evidence: 1.0)
    speaker: str = ""  # who said it: the turn covers its speaker's name though "I" stands in the text


@dataclass(frozen=True, slots=True)
class Reply:
    text: str
    confidence: float  # the best passage's support; the floor is applied to this
    answer: str  # what the reader would say at floor 0 (the sweep re-applies other floors)
    used: tuple[str, ...] = ()

    @property
    def declined(self) -> bool:
        return self.text == DECLINE


def day(d: datetime) -> str:
    return f"{d.day} {d.strftime('%B')} {d.year}"


def is_when_question(q: str) -> bool:
    low = q.lower().strip()
    return low.startswith("when ") or bool(re.search(r"\b(what|which) (year|month|date|day)\b", low))


def _shift_month(d: datetime, n: int) -> tuple[int, int]:
    m = d.month - 1 + n
    return d.year + m // 12, m % 12 + 1


def _count(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return _NUM.get(word)


_N = r"(\d+|a couple of|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_RULES: list[tuple[re.Pattern[str], Callable[[re.Match[str], datetime], str]]] = [
    (re.compile(r"\byesterday\b"), lambda m, d: day(d - timedelta(days=1))),
    (re.compile(r"\btomorrow\b"), lambda m, d: day(d + timedelta(days=1))),
    (re.compile(r"\b(today|tonight|this morning|this afternoon|this evening)\b"), lambda m, d: day(d)),
    (re.compile(r"\b(a few|few|several) days ago\b"), lambda m, d: f"A few days before {day(d)}"),
    (re.compile(rf"\b{_N} days? ago\b"), lambda m, d: day(d - timedelta(days=_count(m.group(1)) or 1))),
    (re.compile(rf"\b{_N} weeks? ago\b"), lambda m, d: f"{m.group(1)} weeks before {day(d)}"),
    (re.compile(rf"\b{_N} weekends? ago\b"), lambda m, d: f"{m.group(1)} weekends before {day(d)}"),
    (
        re.compile(rf"\b{_N} months? ago\b"),
        lambda m, d: "{} {}".format(_MONTHS[_shift_month(d, -(_count(m.group(1)) or 1))[1] - 1], _shift_month(d, -(_count(m.group(1)) or 1))[0]),
    ),
    (re.compile(rf"\b{_N} years? ago\b"), lambda m, d: str(d.year - (_count(m.group(1)) or 1))),
    (re.compile(r"\b(last|past|this past) weekend\b"), lambda m, d: f"The weekend before {day(d)}"),
    (re.compile(r"\bthis weekend\b"), lambda m, d: f"The weekend of {day(d)}"),
    (re.compile(r"\bnext weekend\b"), lambda m, d: f"The weekend after {day(d)}"),
    (re.compile(r"\b(last|past|this past) week\b"), lambda m, d: f"The week before {day(d)}"),
    (re.compile(r"\bthis week\b"), lambda m, d: f"The week of {day(d)}"),
    (re.compile(r"\bnext week\b"), lambda m, d: f"The week after {day(d)}"),
    (re.compile(r"\b(last|this past|past) (" + "|".join(_WEEKDAYS) + r")\b"), lambda m, d: f"The {m.group(2)} before {day(d)}"),
    (
        re.compile(r"\bnext (" + "|".join(_WEEKDAYS) + r")\b"),
        lambda m, d: day(d + timedelta(days=(_WEEKDAYS.index(m.group(1)) - d.weekday()) % 7 or 7)),
    ),
    (re.compile(r"\b(last|past) month\b"), lambda m, d: "{1} {0}".format(_shift_month(d, -1)[0], _MONTHS[_shift_month(d, -1)[1] - 1])),
    (re.compile(r"\bnext month\b"), lambda m, d: "{1} {0}".format(_shift_month(d, 1)[0], _MONTHS[_shift_month(d, 1)[1] - 1])),
    (re.compile(r"\bthis month\b"), lambda m, d: f"{d.strftime('%B')} {d.year}"),
    (re.compile(r"\blast year\b"), lambda m, d: str(d.year - 1)),
    (re.compile(r"\bnext year\b"), lambda m, d: str(d.year + 1)),
    (
        re.compile(r"\blast (summer|winter|spring|fall|autumn)\b"),
        lambda m, d: f"{m.group(1)} {d.year if d.month >= {'spring': 6, 'summer': 9, 'fall': 12, 'autumn': 12}.get(m.group(1), 13) else d.year - 1}",
    ),
    (re.compile(r"\b(19|20)\d\d\b"), lambda m, d: m.group(0)),
]


def resolve_when(text: str, date: datetime) -> str | None:
    """The first relative time expression in `text`, resolved against `date`, or None."""
    low = text.lower()
    found: list[tuple[int, str]] = []
    for pattern, render in _RULES:
        m = pattern.search(low)
        if m:
            found.append((m.start(), render(m, date)))
    if not found:
        return None
    return min(found, key=lambda t: t[0])[1]


@lru_cache(maxsize=65536)
def _term_set(text: str) -> frozenset[str]:
    return frozenset(terms(text))


@lru_cache(maxsize=16384)
def _sentences(text: str) -> tuple[str, ...]:
    # A question asserts nothing, so interrogative sentences are never read as answers.
    out = [s.strip() for s in _SENTENCE.findall(text)]
    return tuple(s for s in out if s and not s.endswith("?"))


def read(question: str, passages: Sequence[Passage], cfg: ReaderConfig, rarity: Callable[[str], float]) -> Reply:
    """Answer `question` from `passages` (best first). `rarity(term)` weighs a stemmed term (e.g. its idf)."""
    if not passages:
        return Reply(DECLINE, 0.0, DECLINE)
    q_terms = set(terms(question))
    weights = {t: rarity(t) for t in q_terms}
    total = sum(weights.values()) or 1.0

    def cover(found: set[str]) -> float:
        return sum(w for t, w in weights.items() if t in found) / total

    confidence = max(p.score for p in passages)
    candidates: list[tuple[float, int, str, Passage]] = []
    for rank, p in enumerate(passages):
        who = _term_set(p.speaker)
        for s in _sentences(p.text) or (p.text,):
            c = cover(_term_set(s) | who)
            candidates.append((c * (0.5 + 0.5 * p.score), -rank, s, p))
    candidates.sort(key=lambda c: (c[0], c[1]), reverse=True)
    best_score, _, best_sentence, best_passage = candidates[0]

    if is_when_question(question):
        when = resolve_when(best_sentence, best_passage.date) or resolve_when(best_passage.text, best_passage.date)
        answer = when or day(best_passage.date)
        used = (best_passage.id,)
    else:
        answers: list[str] = []
        used_ids: list[str] = []
        for score, _, sentence, p in candidates:
            if len(answers) >= cfg.parts or score < cfg.band * best_score:
                break
            if p.id in used_ids:
                continue
            phrase = _extract(sentence, q_terms, cfg.span, rarity)
            if phrase and phrase not in answers:
                answers.append(phrase)
                used_ids.append(p.id)
        answer = ", ".join(answers) if answers else DECLINE
        used = tuple(used_ids)
    text = answer if confidence >= cfg.floor else DECLINE
    return Reply(text, confidence, answer, used)


def _extract(sentence: str, q_terms: set[str], span: int, rarity: Callable[[str], float]) -> str:
    toks = [w for w in words(sentence) if w not in STOPWORDS and w not in _QUESTION_WORDS]
    toks = [w for w in toks if terms(w) and terms(w)[0] not in q_terms]
    if not toks:
        return ""
    ranked = sorted(range(len(toks)), key=lambda i: (-rarity(terms(toks[i])[0]), i))[:span]
    return " ".join(toks[i] for i in sorted(ranked))
