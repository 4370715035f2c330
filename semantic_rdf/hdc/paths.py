"""Multi-hop path hypervectors: written per document, probed for 2-3-hop questions.

A path E0 -R1-> E1 -R2-> E2 (-R3-> E3) is bound into one vector with cyclic permutation:

    path = E0 * R1 * Π¹(E1) * Π²(R2) * Π³(E2) * Π⁴(R3) * Π⁵(E3)

(element k of [E0, R1, E1, R2, E2, …] is shifted by max(0, k - 1)). Paths are found among a
document's triples in extraction order: each hop's triple lies within `window` (6) positions of
the first hop's, no entity repeats, at most `max_hops` (3) hops. A document's paths are
superposed (majority, unbiased ties) into one packed vector stored with the path list.

Probing: a question gives a pattern with some positions known (e.g. anchor entity and the two
relations of "where was the wife of Pierre Curie born?") and some unknown. For every stored path
of the same length, the hypothesis vector takes the question's vectors at known positions and the
stored path's own vectors at unknown ones; its cosine with the document memory is the evidence
the memory holds that path (about sqrt(2/(pi*n)) for a member of an n-path memory, ~0 ± 1/sqrt(D)
otherwise; a fuzzy known element scales it by its similarity). Candidates above
`sigmas / sqrt(D)` are returned best first, and the caller confirms every hop against the claim
graphs (`confirm`) before using them: the memory proposes, the claims decide.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol, Sequence

import numpy as np

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.hdc.vectors import Encoder, pack, unpack

__all__ = ["Path", "Candidate", "ClaimChecker", "enumerate_paths", "bind_path", "document_memory", "probe", "confirm"]


@dataclass(frozen=True, slots=True)
class Path:
    """Alternating entities and relations: (E0, R1, E1, R2, E2, …); `triples` are the source indices."""

    elements: tuple[str, ...]
    triples: tuple[int, ...]

    @property
    def hops(self) -> int:
        return len(self.elements) // 2

    def hop_triples(self) -> list[tuple[str, str, str]]:
        e = self.elements
        return [(e[i], e[i + 1], e[i + 2]) for i in range(0, len(e) - 2, 2)]


@dataclass(frozen=True, slots=True)
class Candidate:
    doc_id: str
    path: Path
    score: float


class ClaimChecker(Protocol):
    def has_claim(self, subject: str, predicate: str, obj: str) -> bool:
        """True if the store believes this claim."""


def enumerate_paths(triples: Sequence[tuple[str, str, str]], *, max_hops: int = 3, window: int = 6, min_hops: int = 2) -> list[Path]:
    """All chains s -p1-> n1 -p2-> n2 … of min_hops..max_hops hops within the locality window."""
    if max_hops < min_hops or min_hops < 1 or window < 1:
        raise InvalidInput("need 1 <= min_hops <= max_hops and window >= 1")
    by_subject: dict[str, list[int]] = {}
    for i, t in enumerate(triples):
        if len(t) != 3 or not all(isinstance(x, str) and x for x in t):
            raise InvalidInput(f"triple {i} is not three non-empty strings")
        by_subject.setdefault(t[0], []).append(i)
    out: list[Path] = []

    def extend(first: int, chain: list[int], seen: list[str]) -> None:
        if len(chain) >= min_hops:
            els: list[str] = [triples[chain[0]][0]]
            for j in chain:
                els += [triples[j][1], triples[j][2]]
            out.append(Path(tuple(els), tuple(chain)))
        if len(chain) == max_hops:
            return
        tail = triples[chain[-1]][2]
        for j in by_subject.get(tail, ()):
            if j in chain or abs(j - first) > window:
                continue
            nxt = triples[j][2]
            if nxt in seen:
                continue
            extend(first, chain + [j], seen + [nxt])

    for i, (s, _, o) in enumerate(triples):
        if s != o:
            extend(i, [i], [s, o])
    return out


def bind_path(vectors: Sequence[np.ndarray]) -> np.ndarray:
    """E0 * R1 * Π¹E1 * Π²R2 * … for bipolar vectors [E0, R1, E1, R2, …] (odd length >= 3)."""
    if len(vectors) < 3 or len(vectors) % 2 == 0:
        raise InvalidInput("a path has entities and relations alternating: E0, R1, E1, …")
    acc = np.asarray(vectors[0], dtype=np.int8).copy()
    for k, v in enumerate(vectors[1:], start=1):
        acc *= np.roll(np.asarray(v, dtype=np.int8), max(0, k - 1))
    return acc


def _path_vector(elements: Sequence[str], encoder: Encoder) -> np.ndarray:
    return bind_path([encoder.encode(e) for e in elements])


def document_memory(paths: Sequence[Path], encoder: Encoder) -> np.ndarray:
    """Packed superposition of a document's path vectors (ties broken by the first path)."""
    if not paths:
        raise InvalidInput("no paths to superpose")
    m = np.zeros(encoder.dim, dtype=np.int32)
    for p in paths:
        m += _path_vector(p.elements, encoder)
    first = _path_vector(paths[0].elements, encoder)
    v = np.where(m > 0, 1, np.where(m < 0, -1, first)).astype(np.int8)
    return pack(v)


def probe(
    pattern: Sequence[str | None],
    memories: Mapping[str, tuple[bytes, Sequence[Sequence[str]]]],
    encoder: Encoder,
    *,
    sigmas: float = 4.0,
    top_k: int = 10,
) -> list[Candidate]:
    """Stored paths that the document memories support for a partly known pattern.

    pattern: [E0, R1, E1, R2, E2, …] with None at unknown positions (at least one known).
    memories: doc_id -> (packed memory, stored paths as element lists), as SideTables keeps them.
    """
    if len(pattern) < 5 or len(pattern) % 2 == 0:
        raise InvalidInput("a multi-hop pattern is E0, R1, E1, R2, E2[, R3, E3]")
    known = [i for i, x in enumerate(pattern) if x is not None]
    if not known:
        raise InvalidInput("a pattern needs at least one known element")
    qv = {i: encoder.encode(pattern[i]) for i in known}  # type: ignore[arg-type]
    floor = sigmas / np.sqrt(encoder.dim)
    found: list[Candidate] = []
    for doc_id, (packed, stored) in memories.items():
        same = [list(p) for p in stored if len(p) == len(pattern)]
        if not same:
            continue
        mem = unpack(packed, encoder.dim).astype(np.float32)
        hyps = np.empty((len(same), encoder.dim), dtype=np.int8)
        for r, els in enumerate(same):
            hyps[r] = bind_path([qv[i] if i in qv else encoder.encode(els[i]) for i in range(len(els))])
        scores = hyps.astype(np.float32) @ mem / encoder.dim
        for k in np.flatnonzero(scores >= floor):
            found.append(Candidate(doc_id, Path(tuple(same[k]), ()), float(scores[k])))
    found.sort(key=lambda c: (-c.score, c.doc_id, c.path.elements))
    return found[:top_k]


def confirm(candidate: Candidate, claims: ClaimChecker) -> bool:
    """Every hop of the candidate path must be a believed claim."""
    return all(claims.has_claim(s, p, o) for s, p, o in candidate.path.hop_triples())
