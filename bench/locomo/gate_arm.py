"""The gate arm: the HDC gate of semantic_rdf.hdc.gate as the abstention signal.

The rule extractor (semantic_rdf.pipeline.extract) reads no taxonomy triple out of chat turns (0 of the
419 turns of the first development conversation), so the facts the gate scores are built from
the turns themselves: every triple of a turn's content words in reading order that lies within
the HDC tier's co-occurrence window (Config.path_window, 6 content words),

    (w_i, w_j, w_k)   i < j < k, k - i < window   as (subject, predicate, object)

so the gate's rule "two of the three slots match" reads "two of the question's components (or
near-synonyms) sit close together in one turn". The speaker is not a slot: with the speaker as
subject, the scoped candidates always match it and a single shared word passed (measured: the
gate passed 93% of the development questions, abstention AUC 0.519). Facts are encoded with the
answer path's own encoder (`semantic_rdf.hdc.memory.shared_encoder`), lazily, only for turns that
some search retrieved (encoding is 2-5 ms a distinct string on this machine).

The question's components are built as the answer path builds them
(`semantic_rdf.answer.answerer.parse_question` with a linker over the two speakers): content tokens,
linked names, mapped taxonomy predicates. The one difference: the answer path also puts every
run of 2-3 content words on the entity side; those phrases are not used here, because the fact
slots are single words (a phrase cannot match a single-word slot better than its own words do,
which are already tokens) and because encoding the 6,175 distinct phrases of the development
questions would cost some 15-30 s.

Candidates are the facts of the retrieved turns (the scoped search, k units): the answer path
likewise restricts the gate to the facts touching the linked entity. The gate passes when some
fact scores >= threshold (2nd best of its three slot cosines) with predicate alignment >= the
predicate floor. As a continuous signal (for the floor sweep and the ROC AUC) the arm uses

    margin = max over reported facts of min(score, predicate + threshold - predicate_floor)

which is >= threshold exactly when the gate passes; so at floor = threshold (0.55, the default
floor) the arm declines exactly when the gate refuses. For a refusal the reported facts are the
gate's five best near misses, so the margin of a refusal can be slightly underestimated; with
nothing reaching stage 2 it is the best stage-1 (prefix) score, below tau_early.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from semantic_rdf.answer.answerer import STOP, Linker, parse_question
from semantic_rdf.hdc.gate import Config, FactIndex, GateResult, Query, encode_query, entity_key, gate, predicate_key
from semantic_rdf.hdc.vectors import Encoder
from semantic_rdf.core.identity import fold
from semantic_rdf.hdc.memory import Entity, shared_encoder
from semantic_rdf.interfaces.retrieval import STOPWORDS, words

from bench.locomo.data import Conversation, Turn

__all__ = ["TurnGate", "GateVerdict", "turn_facts", "margin"]


def content_words(turn: Turn) -> list[str]:
    """The turn's distinct content words in reading order: two letters or more, and a stop word
    neither of the answer path's question parser (answer.STOP) nor of retrieval (chat filler)."""
    return list(dict.fromkeys(w for w in words(turn.text) if len(w) > 1 and w not in STOPWORDS and w not in STOP))


@lru_cache(maxsize=256)
def _triples(m: int, window: int) -> np.ndarray:
    """(n, 3) index triples i < j < k < m with k - i < window, in lexicographic order."""
    out = [(i, j, k) for i, j, k in combinations(range(m), 3) if k - i < window]
    return np.asarray(out, dtype=np.int64).reshape(-1, 3)


def turn_facts(turn: Turn, window: int = Config().path_window) -> list[tuple[str, str, str, str]]:
    """(fact id, subject, predicate, object): every triple w_i, w_j, w_k (i < j < k, k - i < window)
    of the turn's content words. A turn with fewer than three content words has none."""
    ws = content_words(turn)
    return [(f"{turn.dia_id}#{i}:{j}:{k}", ws[i], ws[j], ws[k]) for i, j, k in _triples(len(ws), window).tolist()]


def margin(g: GateResult) -> float:
    """The gate's decision as a number: >= threshold iff it passed (see the module docstring)."""
    c = g.config
    lift = c.threshold - c.predicate_floor
    reported = g.passed + g.near_misses
    if reported:
        return max(0.0, max(min(s.score, s.predicate + lift) for s in reported))
    if g.best_prefix is not None:
        return max(0.0, g.best_prefix[1])
    return 0.0


@dataclass(frozen=True, slots=True)
class GateVerdict:
    confidence: float
    passed: bool
    result: GateResult


@dataclass
class TurnGate:
    """One conversation's turn facts in a FactIndex, added as turns are first retrieved."""

    conv: Conversation
    turns: Mapping[str, Turn]
    config: Config = field(default_factory=Config)
    encoder: Encoder | None = None

    def __post_init__(self) -> None:
        if self.encoder is None:
            self.encoder = shared_encoder(self.config)
        self.index = FactIndex(self.config)
        people = [
            Entity(f"urn:locomo:{self.conv.sample_id}:speaker:{i}", name, fold(name), "Person")
            for i, name in enumerate(dict.fromkeys(self.conv.speakers))
        ]
        self.linker = Linker(people)
        self._facts: dict[str, list[str]] = {}

    def facts_of(self, dia_id: str) -> list[str]:
        got = self._facts.get(dia_id)
        if got is None:
            turn = self.turns[dia_id]
            ws = content_words(turn)
            tri = _triples(len(ws), self.config.path_window)
            got = [f"{dia_id}#{i}:{j}:{k}" for i, j, k in tri.tolist()]
            if got:
                # each distinct word is keyed and encoded once; a fact's slots index into them
                vecs = self.encoder.encode_many(ws)
                ekeys = [entity_key(w) for w in ws]
                pkeys = [predicate_key(w) for w in ws]
                s, p, o = tri[:, 0], tri[:, 1], tri[:, 2]
                self.index.add_many(
                    got,
                    ([ekeys[i] for i in s.tolist()], vecs[s]),
                    ([pkeys[i] for i in p.tolist()], vecs[p]),
                    ([ekeys[i] for i in o.tolist()], vecs[o]),
                )
            self._facts[dia_id] = got
        return got

    def query(self, question: str) -> Query:
        parsed = parse_question(question, self.linker)
        names = tuple(dict.fromkeys(e.name for e in parsed.linked + parsed.aliases))
        tokens = parsed.tokens or tuple(parsed.words) or ("?",)
        return Query(tokens=tokens, entities=names, predicates=parsed.predicates)

    def judge(self, question: str, dia_ids: Sequence[str]) -> GateVerdict:
        """Score the question against the facts of the retrieved turns `dia_ids`."""
        cands = [f for i in dia_ids for f in self.facts_of(i)]
        if not cands:
            return GateVerdict(0.0, False, GateResult((), (), 0, 0, 0, 0, self.config))
        g = gate(self.index, encode_query(self.query(question), self.encoder), self.config, fact_ids=cands)
        return GateVerdict(margin(g), not g.blocked, g)
