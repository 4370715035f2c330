"""Build one memory per conversation and ask every question through each arm.

Arms (they share the units, the reader and the scorer; they differ only in what is retrieved):

* ``flat``    — TF-IDF cosine over all turns of the conversation;
* ``scoped``  — the same, with candidates filtered to turns about the subject the question names;
* ``oracle``  — the dataset's annotated evidence turns, handed over as perfect retrieval (score 1);
* ``gate``    — the scoped retrieval and the same reader, with the HDC gate of semantic_rdf.hdc.gate
  as the abstention signal instead of the reader's support (bench/locomo/gate_arm.py); reported as
  not run, with the reason, if the gate cannot be imported.
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.interfaces.retrieval import Retriever, Unit

from bench.locomo.data import Conversation, Turn, session_doc
from bench.locomo.reader import Passage, ReaderConfig, read
from bench.locomo.scorer import DECLINE, score

__all__ = ["ARMS", "Results", "ConversationMemory", "build_memory", "run"]

ARMS = ("flat", "scoped", "oracle", "gate")


@dataclass
class ConversationMemory:
    conv: Conversation
    retriever: Retriever
    turns: dict[str, Turn]
    dates: dict[str, Any]
    stored: Any = None  # the AssertionStore holding the session documents, when the store is available
    doc_ids: dict[int, str] = field(default_factory=dict)
    _texts: dict[int, str] = field(default_factory=dict)

    def passages(self, hits: Sequence[tuple[str, float]]) -> list[Passage]:
        return [Passage(i, self.turns[i].text, self.dates[i], s, self.turns[i].speaker) for i, s in hits]

    def span_text(self, dia_id: str) -> str:
        """The text a unit resolves to: from the stored document when there is one."""
        t = self.turns[dia_id]
        if t.session not in self._texts:
            if self.stored is not None:
                self._texts[t.session] = self.stored.document_text(self.doc_ids[t.session])
            else:
                self._texts[t.session] = next(s.text for s in self.conv.sessions if s.index == t.session)
        return self._texts[t.session][t.start : t.end]


def turn_subjects(turn: Turn, speakers: Sequence[str]) -> tuple[str, ...]:
    """Whom a turn is about: its speaker (first person resolves to the speaker)."""
    return (turn.speaker,)


def _store_factory() -> Callable[[], Any] | None:
    if importlib.util.find_spec("semantic_rdf.store.assertions") is None:
        return None
    from semantic_rdf.store import assertions as store_mod

    cls = getattr(store_mod, "AssertionStore", None)
    if cls is None or not hasattr(cls, "add_document"):
        return None
    if hasattr(cls, "memory"):
        return cls.memory
    return lambda: cls.open(None)


def store_available() -> bool:
    return _store_factory() is not None


def build_memory(conv: Conversation, use_store: bool = True) -> ConversationMemory:
    units: list[Unit] = []
    turns: dict[str, Turn] = {}
    dates: dict[str, Any] = {}
    for s in conv.sessions:
        for t in s.turns:
            if t.dia_id in turns:
                continue  # upstream ids are unique within a conversation; keep the first if not
            turns[t.dia_id] = t
            dates[t.dia_id] = s.date
            units.append(
                Unit(t.dia_id, t.text, turn_subjects(t, conv.speakers), {"session": s.index, "speaker": t.speaker, "start": t.start, "end": t.end})
            )
    mem = ConversationMemory(conv, Retriever(units), turns, dates)
    factory = _store_factory() if use_store else None
    if factory is not None:
        mem.stored = factory()
        with mem.stored.run("ingestion", agent="locomo-bench") as ingestion:
            for s in conv.sessions:
                doc = session_doc(conv, s)
                mem.stored.add_document(doc, ingestion)
                mem.doc_ids[s.index] = doc.id
    # Every unit must resolve to its span in the stored text; a mismatch is a harness bug.
    for i, t in turns.items():
        if mem.span_text(i) != t.text:
            raise InvalidInput(f"{conv.sample_id} {i}: the stored span does not hold the turn text")
    return mem


def _gate() -> tuple[Any, str]:
    """The gate arm's factory, or None and the reason it cannot run."""
    try:
        from bench.locomo.gate_arm import TurnGate
    except ImportError as e:  # the HDC tier (or its word vectors) is not installed
        return None, f"the HDC gate could not be imported ({e})"
    return TurnGate, ""


@dataclass
class Results:
    """One row per (arm, question), as parallel numpy arrays for the report's vectorised sums."""

    arm: list[str] = field(default_factory=list)
    conv: list[str] = field(default_factory=list)
    category: list[int] = field(default_factory=list)
    question: list[str] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)  # the reply at floor 0
    confidence: list[float] = field(default_factory=list)
    f1_answer: list[float] = field(default_factory=list)  # score if the reader answers
    f1_decline: list[float] = field(default_factory=list)  # score if it declines
    recall: list[float] = field(default_factory=list)  # share of annotated evidence retrieved (nan: none annotated)
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=lambda: {"ingest": 0.0, "questions": 0.0, "gate": 0.0})
    gate_passed: list[bool] = field(default_factory=list)  # per gate-arm row: did the gate pass

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "arm": np.asarray(self.arm, dtype=object),
            "conv": np.asarray(self.conv, dtype=object),
            "category": np.asarray(self.category, dtype=np.int64),
            "confidence": np.asarray(self.confidence, dtype=np.float64),
            "f1_answer": np.asarray(self.f1_answer, dtype=np.float64),
            "f1_decline": np.asarray(self.f1_decline, dtype=np.float64),
            "recall": np.asarray(self.recall, dtype=np.float64),
        }


def run(
    conversations: Sequence[Conversation],
    cfg: ReaderConfig,
    k: int = 5,
    arms: Sequence[str] = ARMS,
    use_store: bool = True,
) -> Results:
    res = Results()
    floor0 = ReaderConfig(0.0, cfg.span, cfg.band, cfg.parts)
    make_gate, why = _gate() if "gate" in arms else (None, "")
    if "gate" in arms and make_gate is None:
        res.skipped["gate"] = why
    for conv in conversations:
        t0 = time.perf_counter()
        mem = build_memory(conv, use_store=use_store)
        t1 = time.perf_counter()
        res.seconds["ingest"] += t1 - t0
        turn_gate = make_gate(conv, mem.turns) if make_gate is not None and "gate" not in res.skipped else None
        space = mem.retriever.space
        idf = space.idf
        vocab = space.vocab
        top_idf = float(idf.max()) if idf.size else 1.0

        def rarity(term: str) -> float:
            c = vocab.get(term)
            return float(idf[c]) if c is not None else top_idf

        for qa in conv.qa:
            gold = qa.answer
            known = [e for e in qa.evidence if e in mem.turns]
            searched: dict[tuple[str, ...], list[tuple[str, float]]] = {}  # a scoped search naming nobody is the flat one
            replies: dict[tuple[str, ...], Any] = {}
            f1: dict[str, float] = {}  # by reply: the arms that read the same turns share a score
            for arm in arms:
                if arm in res.skipped:
                    continue
                if arm == "oracle":
                    hits = [(e, 1.0) for e in known]
                else:
                    subjects = mem.retriever.subjects_of(qa.question) if arm in ("scoped", "gate") else ()
                    if subjects not in searched:
                        searched[subjects] = [(h.id, h.cover) for h in mem.retriever.search(qa.question, k, subjects=subjects)]
                    hits = searched[subjects]
                if arm == "oracle":
                    reply = read(qa.question, mem.passages(hits), floor0, rarity)
                else:  # flat, scoped and gate read the same retrieved turns the same way
                    if subjects not in replies:
                        replies[subjects] = read(qa.question, mem.passages(hits), floor0, rarity)
                    reply = replies[subjects]
                confidence = reply.confidence
                if arm == "gate":  # only the abstention signal differs from the scoped arm
                    tg = time.perf_counter()
                    verdict = turn_gate.judge(qa.question, [i for i, _ in hits])
                    res.seconds["gate"] += time.perf_counter() - tg
                    confidence = verdict.confidence
                    res.gate_passed.append(verdict.passed)
                got = {i for i, _ in hits}
                res.arm.append(arm)
                res.conv.append(conv.sample_id)
                res.category.append(qa.category)
                res.question.append(qa.question)
                res.answer.append(reply.answer)
                res.confidence.append(confidence)
                for text in (reply.answer, DECLINE):
                    if text not in f1:
                        f1[text] = score(text, gold, qa.category)
                res.f1_answer.append(f1[reply.answer])
                res.f1_decline.append(f1[DECLINE])
                res.recall.append(sum(e in got for e in known) / len(known) if known else float("nan"))
        res.seconds["questions"] += time.perf_counter() - t1
    return res
