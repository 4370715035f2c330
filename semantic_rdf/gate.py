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

Facts share their component vectors: FactIndex stores each distinct entity and predicate vector
once (a term table) and each fact as three row numbers, so the scan reads each entity vector
once however many facts mention it.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from semantic_rdf.errors import InvalidInput, NotFound
from semantic_rdf.hdc import Encoder, WordVectorSource, split_words
from semantic_rdf.identity import fold, term_id

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
    threads: int = 1
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
        if self.block_rows < 8 or self.threads < 1:
            raise InvalidInput("block_rows must be >= 8 and threads >= 1")

    @property
    def packed_bytes(self) -> int:
        return self.dim // 8

    @property
    def prefix_words(self) -> int:
        return -(-self.prefix_dims // 64)

    @property
    def rest_words(self) -> int:
        return -(-(self.dim - self.prefix_dims) // 64)

    def encoder(self, word_vectors: WordVectorSource | None = None) -> Encoder:
        return Encoder(
            dim=self.dim,
            ngram_sizes=self.ngram_sizes,
            subword_salt=self.subword_salt,
            simhash_seed=self.simhash_seed,
            word_vectors=word_vectors,
        )


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
        for r in np.unique(rows):
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
        self._spo = np.zeros((0, 3), dtype=np.int64)

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
        return e.pref.nbytes + e.rest.nbytes + p.pref.nbytes + p.rest.nbytes + self._spo[: len(self)].nbytes

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
        if need > self._spo.shape[0]:
            grown = np.zeros((max(need, 2 * self._spo.shape[0], 1024), 3), dtype=np.int64)
            grown[:start] = self._spo[:start]
            self._spo = grown
        self._spo[start:need, 0] = ent_rows[:m]
        self._spo[start:need, 1] = pred_rows
        self._spo[start:need, 2] = ent_rows[m:]
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
        s, p, o = self._spo[r]
        last = len(self._ids) - 1
        if r != last:
            self._spo[r] = self._spo[last]
            moved = self._ids[last]
            self._ids[r] = moved
            self._row[moved] = r
        self._ids.pop()
        self._spo[last] = 0
        self.entities.release(np.array([s, o]))
        self.predicates.release(np.array([p]))
        return True

    def slots(self, fact_id: str) -> tuple[str, str, str]:
        """(subject key, predicate key, object key) of a fact."""
        r = self._row.get(fact_id)
        if r is None:
            raise NotFound(f"no fact {fact_id} in the index")
        s, p, o = self._spo[r]
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


def _pool(n: int) -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None or _POOL._max_workers < n:  # noqa: SLF001
        _POOL = ThreadPoolExecutor(max_workers=n, thread_name_prefix="hdc-gate")
    return _POOL


def _min_hamming_blocks(pref: np.ndarray, q: np.ndarray, nblocks: int, threads: int) -> np.ndarray:
    """min over query rows of the prefix Hamming distance, for every row of the first nblocks
    blocks. pref: (blocks, Wp, B) uint64; q: (Q, Wp) uint64. Returns uint16 (nblocks * B,).

    One block at a time so the XOR and popcount temporaries stay in cache; all Q components
    are done while the block is hot, so the matrix is read from memory once.
    """
    _, wp, b = pref.shape
    nq = q.shape[0]
    out = np.empty((nblocks, b), dtype=np.uint16)
    qb = np.ascontiguousarray(q[:, :, None])

    def work(lo: int, hi: int) -> None:
        x = np.empty((nq, wp, b), dtype=np.uint64)
        c = np.empty((nq, wp, b), dtype=np.uint8)
        h = np.empty((nq, b), dtype=np.uint16)
        for i in range(lo, hi):
            np.bitwise_xor(pref[i][None], qb, out=x)
            np.bitwise_count(x, out=c)
            np.add.reduce(c, axis=1, dtype=np.uint16, out=h)
            np.min(h, axis=0, out=out[i])

    if threads <= 1 or nblocks < 2 * threads:
        work(0, nblocks)
    else:
        cuts = [nblocks * k // threads for k in range(threads + 1)]
        futs = [_pool(threads).submit(work, cuts[k], cuts[k + 1]) for k in range(threads)]
        for f in futs:
            f.result()
    return out.reshape(-1)


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
        head = f"{self.candidates} candidates, {self.stage1_rejected} rejected at stage 1 (tau_early {c.tau_early}), {self.stage2_scored} scored in full"
        b = self.best
        if self.passed_total:
            return f"{head}; {self.passed_total} passed (threshold {c.threshold}, predicate floor {c.predicate_floor}); best {b.fact_id} score {b.score:.3f} predicate {b.predicate:.3f}"
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
        spo = index._spo[:n]
    else:
        rows = np.array([index._row[f] for f in fact_ids if f in index._row], dtype=np.int64)
        spo = index._spo[rows]
    cand = spo.shape[0]
    empty = GateResult((), (), cand, 0, 0, 0, cfg)
    if cand == 0:
        return empty

    qe_p, qe_r = _side_words(query.entity_side, cfg)
    qp_p, qp_r = _side_words(query.predicate_side, cfg)
    pd, d = cfg.prefix_dims, cfg.dim
    ents, preds = index.entities, index.predicates

    # ---- stage 1: prefix cosines of every entity and predicate vector involved
    def prefix_max(terms: _Terms, qw: np.ndarray, need: np.ndarray | None) -> np.ndarray:
        m = np.full(terms.rest.shape[0], -1.0, dtype=np.float32)
        if qw.shape[0] == 0 or terms.used == 0:
            return m
        if need is None:
            nblocks = -(-terms.used // terms.block)
            ham = _min_hamming_blocks(terms.pref, qw, nblocks, cfg.threads)
            m[: ham.shape[0]] = 1.0 - 2.0 * ham.astype(np.float32) / pd
        else:
            ham = _hamming_rows(terms.gather_prefix(need), qw).min(axis=0)
            m[need] = 1.0 - 2.0 * ham.astype(np.float32) / pd
        return m

    need_e = None if rows is None else np.unique(spo[:, [0, 2]])
    need_p = np.unique(spo[:, 1]) if rows is not None or preds.used > 4 * cand else None
    me1 = prefix_max(ents, qe_p, need_e)
    mp1 = prefix_max(preds, qp_p, need_p)
    s1 = _kth_best(np.stack([me1[spo[:, 0]], mp1[spo[:, 1]], me1[spo[:, 2]]], axis=1), cfg.slots_required)
    keep = np.flatnonzero(s1 >= cfg.tau_early)
    rejected = cand - keep.size
    top1 = int(np.argmax(s1))
    best_prefix = (index._ids[top1 if rows is None else int(rows[top1])], float(s1[top1]))
    if keep.size == 0:
        return GateResult((), (), cand, rejected, 0, 0, cfg, best_prefix)

    # ---- stage 2: full cosines for the terms of the survivors only
    ks = spo[keep]

    def full_max(terms: _Terms, qp: np.ndarray, qr: np.ndarray, need: np.ndarray) -> np.ndarray:
        m = np.full(terms.rest.shape[0], -1.0, dtype=np.float32)
        if qp.shape[0] == 0:
            return m
        ham = _hamming_rows(terms.gather_prefix(need), qp) + _hamming_rows(terms.rest[need], qr)
        m[need] = 1.0 - 2.0 * ham.min(axis=0).astype(np.float32) / d
        return m

    me2 = full_max(ents, qe_p, qe_r, np.unique(ks[:, [0, 2]]))
    mp2 = full_max(preds, qp_p, qp_r, np.unique(ks[:, 1]))
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
