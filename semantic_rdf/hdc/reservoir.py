"""Fading reservoir: a running summary of what a conversation has been about.

    state <- decay * state + token + roll(state, 1) * token        (then renormalised)

The bound term roll(state) * token has the same norm as the state, so without renormalisation
the norm grows ~1.38x per token and overflows to inf after ~2,300 tokens (the original's bug).
Here the state is rescaled after every step to the norm of one bipolar token, sqrt(D), which
keeps it finite forever. The three terms then have norms 0.95, 1 and 1 (in sqrt(D) units), so a
step keeps about 0.56 of the older content and adds the new token at about 0.59: the context
fingerprint reflects the last few content tokens, most recent first, which is what it is used
for (resolving "she"/"it" to the entity just talked about). Feed it content tokens and linked
entities, not stop words.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Sequence

import numpy as np

from semantic_rdf.core.errors import InvalidInput

__all__ = ["Reservoir", "ReservoirBank"]


class Reservoir:
    """One conversation's state: float64 (D,)."""

    def __init__(self, dim: int = 10_000, decay: float = 0.95):
        if dim <= 1 or not (0.0 < decay < 1.0):
            raise InvalidInput("reservoir needs dim > 1 and decay in (0, 1)")
        self.dim = dim
        self.decay = float(decay)
        self.target = float(np.sqrt(dim))
        self._shift = np.roll(np.arange(dim), 1)  # b = state[shift] is roll(state, 1)
        self.state = np.zeros(dim, dtype=np.float64)
        self.steps = 0
        self._buf = np.empty(dim, dtype=np.float64)

    def step(self, token: np.ndarray) -> None:
        """Absorb one bipolar token vector (int8 or float, shape (D,))."""
        t = np.asarray(token)
        if t.shape != (self.dim,):
            raise InvalidInput(f"token vector must have shape ({self.dim},), got {t.shape}")
        self._step(t.astype(np.float64))

    def _step(self, t: np.ndarray) -> None:
        # state <- decay*state + t + roll(state)*t == decay*state + t*(1 + roll(state)), in place
        s, b = self.state, self._buf
        np.take(s, self._shift, out=b)
        b += 1.0
        b *= t
        s *= self.decay
        s += b
        n = math.sqrt(float(np.dot(s, s)))
        if n == 0.0 or not math.isfinite(n):
            s[:] = t  # degenerate (measure-zero) cancellation: restart from the token
            n = math.sqrt(float(s @ s))
        s *= self.target / n
        self.steps += 1

    def feed(self, tokens: Sequence[np.ndarray] | np.ndarray) -> None:
        """Absorb a sequence of tokens (validated once, then the same step as `step`)."""
        m = np.asarray(tokens, dtype=np.float64)
        if m.ndim != 2 or m.shape[1] != self.dim:
            raise InvalidInput(f"tokens must have shape (n, {self.dim})")
        step = self._step
        for t in m:
            step(t)

    def bipolar(self) -> np.ndarray:
        """sign(state); an exact zero (only before the first step) breaks by dimension parity."""
        parity = np.where(np.arange(self.dim) % 2 == 0, 1, -1)
        return np.where(self.state > 0, 1, np.where(self.state < 0, -1, parity)).astype(np.int8)

    def fingerprint(self, names: Sequence[str], vectors: np.ndarray, top_k: int = 3) -> list[tuple[str, float]]:
        """Cosine of the state with each candidate vector (bipolar (n, D) or packed (n, D/8)),
        best first, top_k of them."""
        v = np.asarray(vectors)
        if len(names) != v.shape[0]:
            raise InvalidInput("fingerprint needs one name per vector")
        if v.shape[0] == 0 or self.steps == 0:
            return []
        if v.dtype == np.uint8 and v.shape[1] * 8 == self.dim:
            v = np.unpackbits(v, axis=1, bitorder="little").astype(np.float32) * 2 - 1
        if v.shape[1] != self.dim:
            raise InvalidInput(f"candidate vectors must have {self.dim} dimensions")
        sims = (v.astype(np.float32) @ self.state.astype(np.float32)) / (np.sqrt(self.dim) * self.target)
        order = np.argsort(-sims, kind="stable")[:top_k]
        return [(names[i], float(sims[i])) for i in order]

    def to_bytes(self) -> bytes:
        return np.asarray([self.steps], dtype="<i8").tobytes() + self.state.astype("<f8").tobytes()

    @classmethod
    def from_bytes(cls, data: bytes, dim: int = 10_000, decay: float = 0.95) -> "Reservoir":
        if len(data) != 8 + 8 * dim:
            raise InvalidInput("reservoir state has the wrong size")
        r = cls(dim, decay)
        r.steps = int(np.frombuffer(data[:8], dtype="<i8")[0])
        state = np.frombuffer(data[8:], dtype="<f8")
        if not np.all(np.isfinite(state)):
            raise InvalidInput("reservoir state is not finite")
        r.state = state.astype(np.float64).copy()
        return r


class ReservoirBank:
    """Per-conversation reservoirs, least recently used dropped beyond `capacity`."""

    def __init__(self, dim: int = 10_000, decay: float = 0.95, capacity: int = 256):
        if capacity < 1:
            raise InvalidInput("capacity must be >= 1")
        self.dim, self.decay, self.capacity = dim, decay, capacity
        self._items: OrderedDict[str, Reservoir] = OrderedDict()

    def get(self, conversation: str) -> Reservoir:
        if not isinstance(conversation, str) or not conversation:
            raise InvalidInput("a conversation needs a non-empty id")
        r = self._items.get(conversation)
        if r is None:
            r = Reservoir(self.dim, self.decay)
            self._items[conversation] = r
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(conversation)
        return r

    def drop(self, conversation: str) -> bool:
        return self._items.pop(conversation, None) is not None

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, conversation: object) -> bool:
        return conversation in self._items
