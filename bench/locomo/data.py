"""Read LoCoMo-schema JSON into frozen values, and render each session as a document.

Schema (snap-research/locomo data/locomo10.json): a list of samples with `sample_id`,
`conversation` (`speaker_a`, `speaker_b`, `session_<n>` turn lists, `session_<n>_date_time`)
and `qa` (`question`, `answer` or `adversarial_answer`, `evidence`, `category`). Only
`session_<n>` keys that hold lists are sessions (some date keys have no turns).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from semantic_rdf.core.errors import InvalidInput, ParseError
from semantic_rdf.core.values import Chunk, Doc

__all__ = ["Turn", "Session", "QA", "Conversation", "load", "parse_conversations", "session_doc"]

_SESSION_KEY = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D\d+:\d+")
_DATE_FORMAT = "%I:%M %p on %d %B, %Y"


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str  # the utterance, with a shared image's caption appended as "[shares …]"
    session: int
    start: int  # code-point offsets of `text` inside the session document
    end: int


@dataclass(frozen=True, slots=True)
class Session:
    index: int
    date: datetime  # UTC; the data carries no zone, so the wall time is read as UTC
    turns: tuple[Turn, ...]
    text: str  # the session document: one "Speaker: text" line per turn


@dataclass(frozen=True, slots=True)
class QA:
    question: str
    answer: str | None  # None for adversarial items, which carry only the tempting wrong answer
    evidence: tuple[str, ...]
    category: int
    adversarial_answer: str | None = None


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    qa: tuple[QA, ...]

    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]


def _str(obj: dict, key: str, where: str) -> str:
    v = obj.get(key)
    if not isinstance(v, str) or not v.strip():
        raise ParseError(f"{where}: {key!r} must be a non-empty string")
    return v


def parse_date(text: str, where: str = "date") -> datetime:
    try:
        return datetime.strptime(text.strip(), _DATE_FORMAT).replace(tzinfo=timezone.utc)
    except ValueError as e:
        raise ParseError(f"{where}: cannot read date {text!r}") from e


def _session(conv: dict, n: int, where: str) -> Session:
    raw = conv[f"session_{n}"]
    date = parse_date(_str(conv, f"session_{n}_date_time", where), f"{where} session_{n}")
    lines: list[str] = []
    turns: list[Turn] = []
    pos = 0
    for i, t in enumerate(raw):
        w = f"{where} session_{n} turn {i}"
        if not isinstance(t, dict):
            raise ParseError(f"{w}: a turn must be an object")
        speaker, dia_id = _str(t, "speaker", w), _str(t, "dia_id", w)
        text = t.get("text", "")
        if not isinstance(text, str):
            raise ParseError(f"{w}: 'text' must be a string")
        caption = t.get("blip_caption")
        if isinstance(caption, str) and caption.strip():
            text = f"{text} [shares {caption.strip()}]".strip()
        text = " ".join(text.split())
        prefix = f"{speaker}: "
        start = pos + len(prefix)
        turns.append(Turn(dia_id, speaker, text, n, start, start + len(text)))
        line = prefix + text
        lines.append(line)
        pos += len(line) + 1
    return Session(n, date, tuple(turns), "\n".join(lines))


def _evidence(raw: object) -> tuple[str, ...]:
    # A few upstream items hold malformed strings such as "D8:6; D9:17"; keep every well-formed id.
    if not isinstance(raw, list):
        return ()
    out: list[str] = []
    for item in raw:
        if isinstance(item, str):
            out.extend(_DIA_ID.findall(item))
    return tuple(dict.fromkeys(out))


def _qa(item: object, where: str) -> QA:
    if not isinstance(item, dict):
        raise ParseError(f"{where}: a question must be an object")
    question = _str(item, "question", where)
    category = item.get("category")
    if isinstance(category, bool) or category not in (1, 2, 3, 4, 5):
        raise ParseError(f"{where}: category must be 1..5, got {category!r}")
    answer = item.get("answer")
    if answer is not None and not isinstance(answer, (str, int, float)):
        raise ParseError(f"{where}: answer must be text")
    if answer is None and category != 5:
        raise ParseError(f"{where}: a category-{category} question needs an answer")
    adv = item.get("adversarial_answer")
    return QA(
        question,
        None if answer is None else str(answer),
        _evidence(item.get("evidence")),
        category,
        None if adv is None else str(adv),
    )


def parse_conversations(data: object) -> list[Conversation]:
    if not isinstance(data, list):
        raise ParseError("LoCoMo data must be a JSON list of samples")
    out: list[Conversation] = []
    for k, sample in enumerate(data):
        where = f"sample {k}"
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise ParseError(f"{where}: needs a 'conversation' object")
        sid = _str(sample, "sample_id", where)
        conv = sample["conversation"]
        speakers = (_str(conv, "speaker_a", sid), _str(conv, "speaker_b", sid))
        numbers = sorted(int(m.group(1)) for key, v in conv.items() if (m := _SESSION_KEY.fullmatch(key)) and isinstance(v, list))
        sessions = tuple(_session(conv, n, sid) for n in numbers)
        if not sessions:
            raise ParseError(f"{sid}: no sessions")
        qa_raw = sample.get("qa", [])
        if not isinstance(qa_raw, list):
            raise ParseError(f"{sid}: 'qa' must be a list")
        qa = tuple(_qa(q, f"{sid} qa {i}") for i, q in enumerate(qa_raw))
        out.append(Conversation(sid, speakers, sessions, qa))
    return out


def load(path: str | Path) -> list[Conversation]:
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError as e:
        raise InvalidInput(f"cannot read LoCoMo data {str(p)!r}: {e.strerror or e}") from e
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ParseError(f"{p}: not JSON ({e.msg} at line {e.lineno})") from e
    return parse_conversations(data)


def session_doc(conv: Conversation, session: Session) -> Doc:
    """The session as a document: its text, and the session date as the valid-time start."""
    return Doc(
        id=f"locomo:{conv.sample_id}/session_{session.index}",
        source=f"locomo:{conv.sample_id}#session_{session.index}",
        text=session.text,
        meta={"date": session.date.isoformat(), "speakers": list(conv.speakers)},
    )


def turn_chunk(doc: Doc, turn: Turn, index: int) -> Chunk:
    return Chunk(doc.id, index, doc.text[turn.start : turn.end], turn.start, turn.end)
