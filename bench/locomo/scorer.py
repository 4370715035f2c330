"""The LoCoMo question-answering metric, written from its published rules.

Normalisation: delete commas, lower-case, drop ASCII punctuation, remove the whole words
a/an/the/and, collapse white space; tokens are NLTK Porter stems (default mode). Token F1 over
the multiset overlap. Per category (JSON codes): 1 multi-hop = mean over comma-separated gold
parts of the best comma-separated prediction part; 2 temporal and 4 single-hop = token F1;
3 open-domain = token F1 against the gold text before the first ';'; 5 adversarial = 1 when
the reply contains "no information available" or "not mentioned", else 0.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import lru_cache

from nltk.stem import PorterStemmer

from semantic_rdf.core.errors import InvalidInput

__all__ = [
    "CATEGORIES",
    "DECLINE",
    "normalize_answer",
    "answer_tokens",
    "token_f1",
    "multi_hop_f1",
    "score",
]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DECLINE = "No information available"

_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_STEMMER = PorterStemmer()


def normalize_answer(s: str) -> str:
    s = s.replace(",", "").lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stem(word)


def answer_tokens(s: str) -> list[str]:
    return [_stem(w) for w in normalize_answer(s).split()]


def token_f1(prediction: str, gold: str) -> float:
    pred, ref = answer_tokens(prediction), answer_tokens(gold)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def multi_hop_f1(prediction: str, gold: str) -> float:
    # The split is on the raw strings, before normalisation removes the commas.
    preds = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in gold.split(",")]
    return sum(max(token_f1(p, g) for p in preds) for g in golds) / len(golds)


def score(prediction: str, gold: str | int | float | None, category: int) -> float:
    """One question's score under the official rules."""
    if not isinstance(prediction, str):
        raise InvalidInput(f"prediction must be str, got {type(prediction).__name__}")
    if category == 5:
        low = prediction.lower()
        return 1.0 if ("no information available" in low or "not mentioned" in low) else 0.0
    if category not in CATEGORIES:
        raise InvalidInput(f"unknown LoCoMo category {category!r}")
    if gold is None:
        raise InvalidInput(f"a category-{category} question needs a gold answer")
    gold = str(gold)
    if category == 1:
        return multi_hop_f1(prediction, gold)
    if category == 3:
        gold = gold.split(";")[0].strip()
    return token_f1(prediction, gold)
