"""A mention of an entity in a sentence, and what the pairs of one sentence share: the values the document's
state, the pair features and the cross-sentence stage pass between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ENTITY_TYPES", "SentMention", "SentenceMemo"]


ENTITY_TYPES = ("PER", "ORG", "LOC", "MISC")  # TIME and NUM are tagged but never become entities


@dataclass(frozen=True, slots=True)
class SentMention:
    a: int  # token indices in the sentence, a <= b (exclusive); -1/-1 for an implicit mention
    b: int
    entity: int
    kind: str  # named | demonym | pron | nominal | implicit
    confidence: float
    surface: str
    start: int = -1  # character offsets into the document text (-1 for implicit)
    end: int = -1


@dataclass(slots=True)
class SentenceMemo:
    """What the pairs of one sentence share, made once for them: its bags of words by side (`_sentence_words`) and
    the definition each of its opening names is given (`definition_of`)."""

    bags: dict[str, list[str]] = field(default_factory=dict)
    definitions: dict[tuple[int, int], tuple[str, int] | None] = field(default_factory=dict)
