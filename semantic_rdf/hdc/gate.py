"""The HYDRA MaxSim gate: does any stored fact answer this question well enough to speak?

Query components come in three kinds: content tokens, linked entities and mapped predicates.
A fact has three slots: subject, predicate, object. Matching is typed: the entity slots are
compared with tokens and linked entities, the predicate slot with tokens and mapped predicates.

Slot-wise MaxSim (the fix for the original's length penalty): for every slot, its best cosine
over the query components of the right kind,

    m_s = max_q cos(q, S),  m_p = max_q cos(q, P),  m_o = max_q cos(q, O)

and the fact's score is the `slots_required`-th best of (m_s, m_p, m_o) — by default the second
best: a question names two of the three slots and asks for the third ("Where was Curie born?"
names S and P). The original averaged, over query components, each component's best match; every
extra word that matches nothing pulled that mean down, so long questions were blocked. Here an
extra component can only raise a slot's maximum, never lower the score, and a fact needs two
slots that really match, so a strong predicate plus a vaguely similar entity does not pass.

Two stages, vectorised over every fact in one pass:
  1. cosines on the first `prefix_dims` (2,000) dimensions, packed uint64, XOR + popcount, for
     every entity and predicate vector; facts whose prefix score is below tau_early are dropped;
  2. the full D (10,000) dimensions, only for the terms of the surviving facts; a fact passes at
     score >= threshold AND predicate alignment m_p >= predicate_floor.

Stage 1 works on integer Hamming distances: each distinct term's min distance over the query
components (one scan of the block-transposed prefix words, split over up to two threads), then
per fact the k-th smallest of its three slot distances by integer gathers. The float32 cosine
1 - 2h/bits is non-increasing in h, so the k-th best score is the cosine of the k-th smallest
distance and `score >= tau_early` is `h <= max_distance(tau_early)`, read off a table of the
float32 cosines: the decisions and reported scores are bit-identical to computing every cosine in
float32 (tested against a per-fact reference on random data).

Facts share their component vectors: FactIndex stores each distinct entity and predicate vector
once (a term table) and each fact as three row numbers, so the scan reads each entity vector
once however many facts mention it.
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:  # imported where a pool is made: most processes never make one
    from concurrent.futures import ThreadPoolExecutor

from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.hdc.vectors import Encoder, WordVectorSource, split_words
from semantic_rdf.core.identity import fold, term_id

__all__ = [
    "Config",
    "Query",
    "QueryVectors",
    "FactIndex",
    "Scored",
    "GateResult",
    "encode_query",
    "gate",
    "entity_key",
    "predicate_key",
]


@dataclass(frozen=True, slots=True)
class Config:
    """Every constant of the HDC tier, in one place."""

    dim: int = 10_000
    prefix_dims: int = 2_000
    tau_early: float = 0.20
    threshold: float = 0.55
    predicate_floor: float = 0.35
    slots_required: int = 2
    decay: float = 0.95
    ngram_sizes: tuple[int, ...] = (3, 4, 5)
    subword_salt: str = "semantic-rdf/subword/v1"
    simhash_seed: int = 42
    wordvector_max_pieces: int = 1
    hebbian_eta: float = 0.15
    hebbian_gamma: float = 0.01
    priming_threshold: float = 0.05
    path_max_hops: int = 3
    path_window: int = 6
    path_probe_sigmas: float = 4.0
    block_rows: int = 1024
    threads: int = 0  # scan threads; 0 = automatic (up to 2, numpy ufuncs release the GIL)
    max_reported: int = 50
    reservoir_conversations: int = 256

    def __post_init__(self) -> None:
        if self.dim <= 0 or self.dim % 8:
            raise InvalidInput(f"dim must be a positive multiple of 8, got {self.dim}")
        if not (0 < self.prefix_dims < self.dim) or self.prefix_dims % 8:
            raise InvalidInput(f"prefix_dims must be a multiple of 8 in (0, dim), got {self.prefix_dims}")
        for name in ("tau_early", "threshold", "predicate_floor"):
            v = getattr(self, name)
            if not (-1.0 <= v <= 1.0) or math.isnan(v):
                raise InvalidInput(f"{name} must be a cosine in [-1, 1], got {v}")
        if self.slots_required not in (1, 2, 3):
            raise InvalidInput("slots_required must be 1, 2 or 3")
        if not (0.0 < self.decay < 1.0):
            raise InvalidInput("decay must be in (0, 1)")
        if not (0.0 < self.hebbian_eta <= 1.0) or not (0.0 <= self.hebbian_gamma < 1.0):
            raise InvalidInput("hebbian_eta must be in (0, 1] and hebbian_gamma in [0, 1)")
        if not self.ngram_sizes or min(self.ngram_sizes) < 1:
            raise InvalidInput("ngram_sizes must be positive")
        if self.path_max_hops < 2 or self.path_window < 1:
            raise InvalidInput("path_max_hops must be >= 2 and path_window >= 1")
        if self.block_rows < 8 or self.threads < 0:
            raise InvalidInput("block_rows must be >= 8 and threads >= 0 (0 = automatic)")

    @property
    def packed_bytes(self) -> int:
        return self.dim // 8

    @property
    def prefix_words(self) -> int:
        return -(-self.prefix_dims // 64)

    @property
    def rest_words(self) -> int:
        return -(-(self.dim - self.prefix_dims) // 64)

    @property
    def scan_threads(self) -> int:
        """Threads the stage-1 scan uses: `threads`, or with 0 up to 2 (the cores there are)."""
        return self.threads or default_threads()

    def encoder(self, word_vectors: WordVectorSource | None = None) -> Encoder:
        return Encoder(
            dim=self.dim,
            ngram_sizes=self.ngram_sizes,
            subword_salt=self.subword_salt,
            simhash_seed=self.simhash_seed,
            word_vectors=word_vectors,
        )


def _distinct(a: np.ndarray) -> np.ndarray:
    """The sorted distinct values of `a` (flattened): np.unique's result without its first-call import of
    numpy.ma, which every `ask` process would pay for (docs/answer.md)."""
    s = np.sort(np.asarray(a).ravel())
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if s.size else s


def entity_key(name: str) -> str:
    """Key of an entity's vector: its term id (FNV-1a of the folded name)."""
    return term_id(name)


def predicate_key(name: str) -> str:
    return "p:" + fold(name)


# ---------------------------------------------------------------- query side


@dataclass(frozen=True, slots=True)
class Query:
    """The components of a question, already split by kind (the answer path builds this)."""

    tokens: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    predicates: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("tokens", "entities", "predicates"):
            vals = tuple(getattr(self, name))
            if any(not isinstance(v, str) or not v.strip() for v in vals):
                raise InvalidInput(f"query {name} must be non-empty strings")
            object.__setattr__(self, name, vals)
        if not (self.tokens or self.entities or self.predicates):
            raise InvalidInput("a query needs at least one component")


@dataclass(frozen=True, slots=True)
class QueryVectors:
    """Packed query components: compared with entity slots, and with the predicate slot."""

    entity_side: np.ndarray  # uint8 (Qe, D/8)
    predicate_side: np.ndarray  # uint8 (Qp, D/8)


def encode_query(query: Query, encoder: Encoder) -> QueryVectors:
    ent = list(dict.fromkeys(query.tokens + query.entities))
    pred = list(dict.fromkeys(query.tokens + query.predicates))
    return QueryVectors(encoder.encode_many(ent), encoder.encode_many(pred))


# ---------------------------------------------------------------- storage


class _Terms:
    """Distinct component vectors. Prefix words are stored block-transposed (blocks, Wp, B) so a
    block's XOR/popcount/row-sum run along long contiguous rows; the rest is row-major for
    gathering the few survivors of stage 1."""

    def __init__(self, wp: int, wr: int, block: int):
        self.wp, self.wr, self.block = wp, wr, block
        self.pref = np.zeros((0, wp, block), dtype=np.uint64)
        self.rest = np.zeros((0, wr), dtype=np.uint64)
        self.keys: list[str | None] = []
        self.rows: dict[str, int] = {}
        self.refs = np.zeros(0, dtype=np.int64)
        self.free: list[int] = []

    @property
    def used(self) -> int:
        return len(self.keys)

    def _grow(self, need: int) -> None:
        cap = self.rest.shape[0]
        if need <= cap:
            return
        new = max(need, 2 * cap, self.block)
        new = -(-new // self.block) * self.block
        pref = np.zeros((new // self.block, self.wp, self.block), dtype=np.uint64)
        pref[: self.pref.shape[0]] = self.pref
        rest = np.zeros((new, self.wr), dtype=np.uint64)
        rest[:cap] = self.rest
        refs = np.zeros(new, dtype=np.int64)
        refs[:cap] = self.refs
        self.pref, self.rest, self.refs = pref, rest, refs

    def intern(self, keys: Sequence[str], packed: np.ndarray, prefix_dims: int) -> np.ndarray:
        """Row numbers for keys, adding vectors for unseen keys; bumps reference counts."""
        out = np.empty(len(keys), dtype=np.int64)
        new_keys: list[str] = []
        new_src: list[int] = []
        new_pos: list[int] = []
        pending: dict[str, int] = {}
        next_row = self.used
        for i, k in enumerate(keys):
            r = self.rows.get(k)
            if r is None:
                r = pending.get(k)
                if r is None:
                    if self.free:
                        r = self.free.pop()
                    else:
                        r = next_row
                        next_row += 1
                    pending[k] = r
                    new_keys.append(k)
                    new_src.append(i)
                    new_pos.append(r)
            out[i] = r
        if new_keys:
            top = max(new_pos) + 1
            self._grow(top)
            while len(self.keys) < top:
                self.keys.append(None)
            pw, rw = split_words(np.asarray(packed)[new_src], prefix_dims)
            pos = np.asarray(new_pos)
            self.pref[pos // self.block, :, pos % self.block] = pw
            self.rest[pos] = rw
            for k, r in zip(new_keys, new_pos):
                self.keys[r] = k
                self.rows[k] = r
        np.add.at(self.refs, out, 1)
        return out

    def release(self, rows: np.ndarray) -> None:
        np.subtract.at(self.refs, rows, 1)
        for r in _distinct(rows):
            if self.refs[r] <= 0:
                self.refs[r] = 0
                k = self.keys[r]
                if k is not None:
                    del self.rows[k]
                self.keys[r] = None
                self.pref[r // self.block, :, r % self.block] = 0
                self.rest[r] = 0
                self.free.append(int(r))

    def gather_prefix(self, rows: np.ndarray) -> np.ndarray:
        return self.pref[rows // self.block, :, rows % self.block]


class FactIndex:
    """In-memory packed matrix of fact components (the gate's input). Append and delete by id."""

    def __init__(self, config: Config = Config()):
        self.config = config
        wp, wr, b = config.prefix_words, config.rest_words, config.block_rows
        self.entities = _Terms(wp, wr, b)
        self.predicates = _Terms(wp, wr, b)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        # fact rows as three contiguous columns (subject, predicate, object term rows), so the
        # per-fact gathers of stage 1 read contiguous index arrays
        self._spo = np.zeros((3, 0), dtype=np.int64)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._row

    @property
    def ids(self) -> list[str]:
        return list(self._ids)

    def nbytes(self) -> int:
        """Bytes held by vectors and fact rows."""
        e, p = self.entities, self.predicates
        return e.pref.nbytes + e.rest.nbytes + p.pref.nbytes + p.rest.nbytes + self._spo[:, : len(self)].nbytes

    def add_many(
        self,
        ids: Sequence[str],
        subjects: tuple[Sequence[str], np.ndarray],
        predicates: tuple[Sequence[str], np.ndarray],
        objects: tuple[Sequence[str], np.ndarray],
    ) -> int:
        """Add facts: each slot is (keys, packed uint8 (n, D/8)). Known ids are skipped. Returns the count added."""
        n = len(ids)
        nb = self.config.packed_bytes
        for keys, packed in (subjects, predicates, objects):
            if len(keys) != n or np.asarray(packed).shape != (n, nb):
                raise InvalidInput(f"each slot needs {n} keys and a ({n}, {nb}) packed matrix")
        seen: set[str] = set()
        keep = []
        for i, f in enumerate(ids):
            if f not in self._row and f not in seen:
                seen.add(f)
                keep.append(i)
        if not keep:
            return 0
        pd = self.config.prefix_dims
        sk = [subjects[0][i] for i in keep]
        ok = [objects[0][i] for i in keep]
        pk = [predicates[0][i] for i in keep]
        ent_rows = self.entities.intern(sk + ok, np.concatenate([np.asarray(subjects[1])[keep], np.asarray(objects[1])[keep]]), pd)
        pred_rows = self.predicates.intern(pk, np.asarray(predicates[1])[keep], pd)
        m = len(keep)
        start = len(self._ids)
        need = start + m
        if need > self._spo.shape[1]:
            grown = np.zeros((3, max(need, 2 * self._spo.shape[1], 1024)), dtype=np.int64)
            grown[:, :start] = self._spo[:, :start]
            self._spo = grown
        self._spo[0, start:need] = ent_rows[:m]
        self._spo[1, start:need] = pred_rows
        self._spo[2, start:need] = ent_rows[m:]
        for j, i in enumerate(keep):
            self._ids.append(ids[i])
            self._row[ids[i]] = start + j
        return m

    def add(self, fact_id: str, subject: tuple[str, bytes], predicate: tuple[str, bytes], obj: tuple[str, bytes]) -> bool:
        def one(kv):
            return ([kv[0]], np.frombuffer(bytes(kv[1]), dtype=np.uint8).reshape(1, -1))

        return self.add_many([fact_id], one(subject), one(predicate), one(obj)) == 1

    def remove(self, fact_id: str) -> bool:
        """Drop a fact; vectors no other fact uses are zeroed and freed. False if absent."""
        r = self._row.pop(fact_id, None)
        if r is None:
            return False
        s, p, o = self._spo[:, r]
        last = len(self._ids) - 1
        if r != last:
            self._spo[:, r] = self._spo[:, last]
            moved = self._ids[last]
            self._ids[r] = moved
            self._row[moved] = r
        self._ids.pop()
        self._spo[:, last] = 0
        self.entities.release(np.array([s, o]))
        self.predicates.release(np.array([p]))
        return True

    def slots(self, fact_id: str) -> tuple[str, str, str]:
        """(subject key, predicate key, object key) of a fact."""
        r = self._row.get(fact_id)
        if r is None:
            raise NotFound(f"no fact {fact_id} in the index")
        s, p, o = self._spo[:, r]
        return self.entities.keys[s], self.predicates.keys[p], self.entities.keys[o]  # type: ignore[return-value]

    @classmethod
    def from_texts(cls, facts: Iterable[tuple[str, str, str, str]], encoder: Encoder, config: Config = Config()) -> "FactIndex":
        """Build from (id, subject, predicate, object) strings (tests, small stores)."""
        facts = list(facts)
        idx = cls(config)
        if facts:
            ids, s, p, o = (list(c) for c in zip(*facts))
            idx.add_many(
                ids,
                ([entity_key(x) for x in s], encoder.encode_many(s)),
                ([predicate_key(x) for x in p], encoder.encode_many(p)),
                ([entity_key(x) for x in o], encoder.encode_many(o)),
            )
        return idx


# ---------------------------------------------------------------- kernels

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()

# Scratch budget of the stage-1 kernel per thread: the XOR words (8 B) and their popcounts (1 B)
# of one block against a group of query components (more components than fit are done in
# groups, so a long question cannot blow the scratch up). Rows must be long, or numpy's per-inner-loop
# cost dominates; past that the block and group sizes hardly matter (docs/hdc.md has the measurements).
_SCRATCH_BYTES = 2_560 * 1024
_MIN_PARALLEL_ROWS = 16_384  # below this a second thread costs more than it saves
# Scans of at least this many rows use the compiled kernel (semantic_rdf.hdc.hamming) when numba is
# installed; smaller ones stay in numpy, so a small store never imports numba.
_KERNEL_MIN_ROWS = 16_384


@lru_cache(maxsize=1)
def _compiled_kernel():
    try:
        from semantic_rdf.hdc.hamming import min_distance_blocks
    # no numba on this platform, or numba finds no writable cache location (RuntimeError at
    # decoration): numpy does the scan, with the same results
    except (ImportError, RuntimeError):
        return None
    return min_distance_blocks


def _pool(n: int) -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL._max_workers < n:  # noqa: SLF001
            from concurrent.futures import ThreadPoolExecutor

            _POOL = ThreadPoolExecutor(max_workers=n, thread_name_prefix="hdc-gate")
        return _POOL


def _run_split(fn, total: int, threads: int) -> list:
    """[fn(lo, hi) ...] over [0, total) cut into up to `threads` contiguous parts, in order."""
    parts = max(1, min(threads, total))
    if parts == 1:
        return [fn(0, total)]
    cuts = [total * k // parts for k in range(parts + 1)]
    futs = [_pool(parts).submit(fn, cuts[k], cuts[k + 1]) for k in range(parts)]
    return [f.result() for f in futs]


def _dist_dtype(bits: int) -> np.dtype:
    """Smallest unsigned type holding a Hamming distance over `bits` bits."""
    return np.dtype(np.uint16) if bits <= np.iinfo(np.uint16).max else np.dtype(np.uint32)


def _min_hamming_blocks(pref: np.ndarray, q: np.ndarray, nrows: int, threads: int) -> np.ndarray:
    """min over query rows of the prefix Hamming distance, for rows [0, nrows) of a
    block-transposed prefix matrix pref (blocks, Wp, B) uint64; q: (Q, Wp) uint64. Returns
    uint16 distances (uint32 for prefixes over 65,535 bits), at least nrows of them (entries past
    nrows are unspecified).

    Large scans run the compiled kernel (XOR and popcount fused, semantic_rdf.hdc.hamming). The
    numpy path, per block and group of query components: one XOR of the block against the group
    (the block is read from memory once and stays in cache for the next group), one popcount, one
    sum over the words (along contiguous rows of B), then a min over the components. A handful of
    numpy calls per block, preallocated out= buffers, no Python work per row. Either way blocks
    are split between `threads` workers (both release the GIL), each with its own scratch.
    """
    _, wp, b = pref.shape
    nq = q.shape[0]
    nblocks = -(-nrows // b)
    dt = _dist_dtype(wp * 64)
    out = np.empty((nblocks, b), dtype=dt)
    threads = threads if nrows >= _MIN_PARALLEL_ROWS else 1
    kernel = _compiled_kernel() if nrows >= _KERNEL_MIN_ROWS else None
    if kernel is not None:
        qc = np.ascontiguousarray(q, dtype=np.uint64)
        _run_split(lambda lo, hi: kernel(pref, qc, nrows, lo, hi, out), nblocks, threads)
        return out.reshape(-1)
    qb = np.ascontiguousarray(q, dtype=np.uint64)[:, :, None]
    g = max(1, min(nq, _SCRATCH_BYTES // (wp * b * 9)))
    groups = [(k, min(nq, k + g)) for k in range(0, nq, g)]

    def work(lo: int, hi: int) -> None:
        x = np.empty((g, wp, b), dtype=np.uint64)
        c = np.empty((g, wp, b), dtype=np.uint8)
        h = np.empty((nq, b), dtype=dt)
        for i in range(lo, hi):
            w = min(b, nrows - i * b)  # the last block may be partly used
            blk = pref[i, None, :, :w]
            for k0, k1 in groups:
                xs, cs = x[: k1 - k0, :, :w], c[: k1 - k0, :, :w]
                np.bitwise_xor(blk, qb[k0:k1], out=xs)
                np.bitwise_count(xs, out=cs)
                np.add.reduce(cs, axis=1, dtype=dt, out=h[k0:k1, :w] if nq > 1 else out[i, None, :w])
            if nq > 1:
                np.minimum.reduce(h[:, :w], axis=0, out=out[i, :w])

    _run_split(work, nblocks, threads)
    return out.reshape(-1)


def _min_hamming_rows(words: np.ndarray, q: np.ndarray) -> np.ndarray:
    """min over query rows of the Hamming distance to each of `words` rows (S, W); (S,) int64."""
    return _hamming_rows(words, q).min(axis=0)


def _hamming_rows(words: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(Q, S) Hamming distances between query words (Q, W) and rows (S, W)."""
    if words.shape[0] == 0 or q.shape[0] == 0:
        return np.zeros((q.shape[0], words.shape[0]), dtype=np.int64)
    return np.bitwise_count(words[None, :, :] ^ q[:, None, :]).sum(axis=2, dtype=np.int64)


def _kth_best(slots: np.ndarray, k: int) -> np.ndarray:
    """k-th largest of each row of a (n, 3) array (k=2: the median of three)."""
    a, b, c = slots[:, 0], slots[:, 1], slots[:, 2]
    if k == 1:
        return np.maximum(np.maximum(a, b), c)
    if k == 3:
        return np.minimum(np.minimum(a, b), c)
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))


def _kth_smallest_inplace(a: np.ndarray, b: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """k-th smallest of (a, b, c) elementwise, overwriting the inputs; returns the array holding it."""
    if k == 1:
        np.minimum(a, b, out=a)
        return np.minimum(a, c, out=a)
    if k == 3:
        np.maximum(a, b, out=a)
        return np.maximum(a, c, out=a)
    t = np.maximum(a, b)  # median = max(min(a, b), min(max(a, b), c))
    np.minimum(a, b, out=a)
    np.minimum(t, c, out=t)
    return np.maximum(a, t, out=a)


@dataclass(frozen=True, slots=True)
class _Cosines:
    """Cosine of every Hamming distance 0..bits, as float32, computed exactly as the gate
    reports it (1 - 2 h / bits). Non-increasing in h, so order statistics and thresholds can
    be taken on integer distances and mapped at the end without changing any decision."""

    table: np.ndarray
    strict: bool

    @staticmethod
    @lru_cache(maxsize=16)
    def of(bits: int) -> "_Cosines":
        t = 1.0 - 2.0 * np.arange(bits + 1).astype(np.float32) / bits
        t.setflags(write=False)
        return _Cosines(t, bool(np.all(t[1:] < t[:-1])))

    def max_distance(self, floor: float) -> int:
        """Largest distance whose cosine is >= floor (compared in float32, as the scores are); -1 if none."""
        ok = np.flatnonzero(self.table >= floor)
        return int(ok[-1]) if ok.size else -1


def _stage1_facts(he: np.ndarray, hp: np.ndarray, spo: np.ndarray, k: int, hmax: int, cos: _Cosines, threads: int) -> tuple[np.ndarray, int, float]:
    """Per fact: the k-th best slot distance from the per-term distances he/hp (gathered by the
    fact's three term rows). Returns (fact positions with distance <= hmax, the position of the
    best prefix score and that score), the best being the first maximum of the float32 score."""
    n = spo.shape[1]

    def work(lo: int, hi: int):
        a = np.take(he, spo[0, lo:hi])
        b = np.take(hp, spo[1, lo:hi])
        c = np.take(he, spo[2, lo:hi])
        med = _kth_smallest_inplace(a, b, c, k)
        keep = np.flatnonzero(med <= hmax) if hmax >= 0 else np.zeros(0, dtype=np.intp)
        i = int(np.argmin(med)) if cos.strict else int(np.argmax(cos.table[med]))
        return keep + lo, lo + i, float(cos.table[med[i]])

    par = threads if n >= 8 * _MIN_PARALLEL_ROWS else 1
    parts = _run_split(work, n, par)
    keep = parts[0][0] if len(parts) == 1 else np.concatenate([p[0] for p in parts])
    best = max(parts, key=lambda p: p[2])  # max() keeps the first of equal scores
    return keep, best[1], best[2]


# ---------------------------------------------------------------- the gate


@dataclass(frozen=True, slots=True)
class Scored:
    fact_id: str
    score: float
    predicate: float
    slots: tuple[float, float, float]
    passed: bool


@dataclass(frozen=True, slots=True)
class GateResult:
    passed: tuple[Scored, ...]  # best first, at most config.max_reported
    near_misses: tuple[Scored, ...]  # best blocked facts that reached stage 2
    candidates: int
    stage1_rejected: int
    stage2_scored: int
    passed_total: int
    config: Config = field(repr=False, default=Config())
    best_prefix: tuple[str, float] | None = None  # best stage-1 (2,000-dim) score, for refusal reasons

    @property
    def blocked(self) -> bool:
        return self.passed_total == 0

    @property
    def best(self) -> Scored | None:
        if self.passed:
            return self.passed[0]
        return self.near_misses[0] if self.near_misses else None

    def reason(self) -> str:
        """A one-line, human-readable account (recorded as the decision's reason)."""
        c = self.config
        head = (
            f"{self.candidates} candidates, {self.stage1_rejected} rejected at stage 1 (tau_early {c.tau_early}), {self.stage2_scored} scored in full"
        )
        b = self.best
        if self.passed_total and b is not None:
            return (
                f"{head}; {self.passed_total} passed (threshold {c.threshold}, predicate floor {c.predicate_floor}); "
                f"best {b.fact_id} score {b.score:.3f} predicate {b.predicate:.3f}"
            )
        if b is None:
            bp = f" (best prefix score {self.best_prefix[1]:.3f}, {self.best_prefix[0]})" if self.best_prefix else ""
            return f"{head}; nothing reached stage 2{bp}"
        return f"{head}; blocked: best {b.fact_id} score {b.score:.3f} (needs {c.threshold}) predicate {b.predicate:.3f} (needs {c.predicate_floor})"


def _side_words(packed: np.ndarray, config: Config) -> tuple[np.ndarray, np.ndarray]:
    packed = np.asarray(packed, dtype=np.uint8)
    if packed.ndim != 2 or packed.shape[1] != config.packed_bytes:
        raise InvalidInput(f"query vectors must be (n, {config.packed_bytes}) packed")
    return split_words(packed, config.prefix_dims)


def gate(index: FactIndex, query: QueryVectors, config: Config | None = None, *, fact_ids: Iterable[str] | None = None) -> GateResult:
    """Score every fact (or only `fact_ids`) against the query; see the module docstring."""
    cfg = config or index.config
    if (cfg.dim, cfg.prefix_dims, cfg.block_rows) != (index.config.dim, index.config.prefix_dims, index.config.block_rows):
        raise InvalidInput("gate config and index config disagree on the vector layout")
    n = len(index)
    if fact_ids is None:
        rows = None
        spo = index._spo[:, :n]
    else:
        rows = np.array([index._row[f] for f in fact_ids if f in index._row], dtype=np.int64)
        spo = index._spo[:, rows]
    cand = spo.shape[1]
    empty = GateResult((), (), cand, 0, 0, 0, cfg)
    if cand == 0:
        return empty

    qe_p, qe_r = _side_words(query.entity_side, cfg)
    qp_p, qp_r = _side_words(query.predicate_side, cfg)
    pd, d = cfg.prefix_dims, cfg.dim
    ents, preds = index.entities, index.predicates
    threads = cfg.scan_threads
    cos1 = _Cosines.of(pd)

    # ---- stage 1: min prefix Hamming distance (= max prefix cosine) of every term involved.
    # Kept as integer distances: a term no query component can reach gets distance pd
    # (cosine exactly -1.0).
    def prefix_min(terms: _Terms, qw: np.ndarray, need: np.ndarray | None) -> np.ndarray:
        dt = _dist_dtype(qw.shape[1] * 64)
        if qw.shape[0] == 0 or terms.used == 0:
            return np.full(terms.rest.shape[0], pd, dtype=dt)
        if need is None:
            return _min_hamming_blocks(terms.pref, qw, terms.used, threads)
        h = np.full(terms.rest.shape[0], pd, dtype=dt)
        h[need] = _min_hamming_rows(terms.gather_prefix(need), qw)
        return h

    need_e = None if rows is None else _distinct(spo[[0, 2]])
    need_p = _distinct(spo[1]) if rows is not None or preds.used > 4 * cand else None
    he1 = prefix_min(ents, qe_p, need_e)
    hp1 = prefix_min(preds, qp_p, need_p)
    # the k-th best slot score is the cosine of the k-th smallest slot distance (the cosine
    # table is non-increasing), and score >= tau_early  <=>  distance <= hmax
    keep, top1, top1_score = _stage1_facts(he1, hp1, spo, cfg.slots_required, cos1.max_distance(cfg.tau_early), cos1, threads)
    rejected = cand - keep.size
    best_prefix = (index._ids[top1 if rows is None else int(rows[top1])], top1_score)
    if keep.size == 0:
        return GateResult((), (), cand, rejected, 0, 0, cfg, best_prefix)

    # ---- stage 2: full cosines for the terms of the survivors only
    ks = spo[:, keep].T

    def full_max(terms: _Terms, qp: np.ndarray, qr: np.ndarray, need: np.ndarray) -> np.ndarray:
        m = np.full(terms.rest.shape[0], -1.0, dtype=np.float32)
        if qp.shape[0] == 0:
            return m
        ham = _hamming_rows(terms.gather_prefix(need), qp) + _hamming_rows(terms.rest[need], qr)
        m[need] = 1.0 - 2.0 * ham.min(axis=0).astype(np.float32) / d
        return m

    me2 = full_max(ents, qe_p, qe_r, _distinct(ks[:, [0, 2]]))
    mp2 = full_max(preds, qp_p, qp_r, _distinct(ks[:, 1]))
    slots = np.stack([me2[ks[:, 0]], mp2[ks[:, 1]], me2[ks[:, 2]]], axis=1)
    score = _kth_best(slots, cfg.slots_required)
    palign = slots[:, 1]
    ok = (score >= cfg.threshold) & (palign >= cfg.predicate_floor)

    fact_rows = keep if rows is None else rows[keep]
    order = np.lexsort((-palign, -score))  # by score, then predicate alignment

    def scored(i: int) -> Scored:
        return Scored(
            index._ids[int(fact_rows[i])],
            float(score[i]),
            float(palign[i]),
            (float(slots[i, 0]), float(slots[i, 1]), float(slots[i, 2])),
            bool(ok[i]),
        )

    passed_idx = order[ok[order]][: cfg.max_reported]
    miss_idx = order[~ok[order]][: min(cfg.max_reported, 5)]
    return GateResult(
        tuple(scored(i) for i in passed_idx),
        tuple(scored(i) for i in miss_idx),
        cand,
        rejected,
        int(keep.size),
        int(ok.sum()),
        cfg,
        best_prefix,
    )


def default_threads() -> int:
    """Threads worth using for the scan on this machine (ufuncs release the GIL)."""
    return max(1, min(2, os.cpu_count() or 1))
