"""The two knobs every extractor's triples pass, reported apart: the schema (a predicate of the taxonomy's) and the
confidence floor (`screen`); and the checks of an extractor's arguments (`check_floor`, `check_chunk`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.identity import fold
from semantic_rdf.core.values import Chunk, Triple

__all__ = ["Screened", "screen", "check_floor", "check_chunk", "predicate_vocabulary"]


@dataclass(frozen=True)
class Screened:
    """The two knobs' verdicts, kept apart: out of vocabulary (schema) vs below the confidence floor."""

    kept: tuple[Triple, ...]
    out_of_vocabulary: tuple[Triple, ...]
    below_floor: tuple[Triple, ...]

    def counts(self) -> dict[str, int]:
        return {"kept": len(self.kept), "out_of_vocabulary": len(self.out_of_vocabulary), "below_floor": len(self.below_floor)}


def check_floor(floor: float | None) -> float | None:
    if floor is None:
        return None
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0.0 <= float(floor) <= 1.0:
        raise InvalidInput(f"confidence floor must be a number in [0, 1], got {floor!r}")
    return float(floor)


def predicate_vocabulary(names: Iterable[str] | None) -> frozenset[str]:
    """The folded predicate names a triple may use: the taxonomy's unless `names` are given."""
    if names is None:
        from semantic_rdf.core import vocab

        return vocab.predicate_names()  # already folded
    return frozenset(fold(v) for v in names)


def check_chunk(chunk: Chunk) -> None:
    if not isinstance(chunk, Chunk):
        raise InvalidInput(f"extract() needs a Chunk, got {type(chunk).__name__}")


def screen(triples: Iterable[Triple], floor: float | None = None, vocabulary: Iterable[str] | None = None) -> Screened:
    """Schema check first (predicate must be one of the taxonomy's), then the floor (score < floor is dropped;
    a triple with no score counts as fully confident). The two rejections are reported separately."""
    floor = check_floor(floor)
    vocab_set = predicate_vocabulary(vocabulary)
    kept, oov, low = [], [], []
    for t in triples:
        if fold(t.predicate) not in vocab_set:
            oov.append(t)
        elif floor is not None and t.confidence < floor:
            low.append(t)
        else:
            kept.append(t)
    return Screened(tuple(kept), tuple(oov), tuple(low))
