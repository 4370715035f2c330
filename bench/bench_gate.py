"""Two-stage HYDRA gate over N packed fact vectors, beside this machine's memory-read floor.

    python3 bench/bench_gate.py            # 100,000 and 1,000,000 facts (about a minute)
    python3 bench/bench_gate.py --quick    # 100,000 facts only

Every fact has its own subject and object vector rows (N facts over N entity vectors, 53
predicates), so the scan reads N packed 10,000-bit vectors. The floor is a numpy read of the same
packed arrays in the same run (a bitwise-xor reduction: touches every byte once, trivially
cheap per byte). The query has 4 entity-side components (2 match stored entities) and 3
predicate-side ones. Vectors are random bits (the encoder's output is indistinguishable from
random for speed purposes); 1M strings are not encoded here.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from semantic_rdf.hdc.gate import Config, FactIndex, QueryVectors, gate  # noqa: E402


def build(n: int, cfg: Config, rng: np.random.Generator) -> FactIndex:
    idx = FactIndex(cfg)
    b, wp, wr = cfg.block_rows, cfg.prefix_words, cfg.rest_words
    for terms, rows in ((idx.entities, n), (idx.predicates, 53)):
        blocks = -(-rows // b)
        terms.pref = rng.integers(0, 2**63, size=(blocks, wp, b), dtype=np.uint64)
        terms.pref[:, wp - 1, :] &= np.uint64((1 << (cfg.prefix_dims % 64 or 64)) - 1)  # zero padding bits
        terms.rest = rng.integers(0, 2**63, size=(blocks * b, wr), dtype=np.uint64)
        terms.keys = [f"k{i}" for i in range(rows)]
        terms.rows = {k: i for i, k in enumerate(terms.keys)}
        terms.refs = np.ones(blocks * b, dtype=np.int64)
    spo = np.empty((3, n), dtype=np.int64)
    spo[0] = np.arange(n)
    spo[1] = rng.integers(0, 53, n)
    spo[2] = rng.permutation(n)
    idx._spo = spo
    idx._ids = [f"{i:016x}" for i in range(n)]
    idx._row = {f: i for i, f in enumerate(idx._ids)}
    return idx


def row_packed(terms, r: int, cfg: Config) -> np.ndarray:
    """Packed bytes of one stored row (to make query components that really match)."""
    pw = terms.pref[r // terms.block, :, r % terms.block]
    rw = terms.rest[r]
    pb = pw.astype("<u8").view(np.uint8)[: cfg.prefix_dims // 8]
    rb = rw.astype("<u8").view(np.uint8)[: (cfg.dim - cfg.prefix_dims) // 8]
    return np.concatenate([pb, rb])


def timed(fns: dict, reps: int) -> dict:
    """Median wall time and mean CPU time (all threads) of each fn, runs interleaved round-robin
    so a change in machine load hits the gate and its floor alike."""
    for fn in fns.values():
        fn()
    wall = {k: [] for k in fns}
    cpu = {k: 0.0 for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[k].append(time.perf_counter() - t0)
            cpu[k] += time.process_time() - c0
    return {k: (statistics.median(wall[k]), cpu[k] / reps) for k in fns}


def read_floor(arrays, threads: int):
    flat = [a.reshape(-1) for a in arrays]
    if threads == 1:
        return lambda: [np.bitwise_xor.reduce(a) for a in flat]
    ex = ThreadPoolExecutor(threads)
    parts = [p for a in flat for p in np.array_split(a, threads)]

    def run():
        list(ex.map(np.bitwise_xor.reduce, parts))

    return run


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100,000 facts only")
    ap.add_argument("--threads", type=int, nargs="*", default=[1, 2], help="scan threads to measure (default 1 2)")
    args = ap.parse_args()
    sizes = [100_000] if args.quick else [100_000, 1_000_000]
    rng = np.random.default_rng(0)
    print(
        f"numpy {np.__version__}, {os.cpu_count()} cpus, {load()}; D=10,000 prefix 2,000; vectors are 1,250 B on disk; "
        f"default Config().scan_threads = {Config().scan_threads}"
    )
    verdict = []
    for n in sizes:
        for threads in args.threads:
            cfg = Config(threads=threads)
            idx = build(n, cfg, rng)
            ent = np.stack(
                [row_packed(idx.entities, 17, cfg), row_packed(idx.entities, int(idx._spo[2, 17]), cfg)]
                + [np.frombuffer(rng.bytes(cfg.packed_bytes), np.uint8) for _ in range(2)]
            )
            pred = np.stack(
                [row_packed(idx.predicates, int(idx._spo[1, 17]), cfg)] + [np.frombuffer(rng.bytes(cfg.packed_bytes), np.uint8) for _ in range(2)]
            )
            q = QueryVectors(ent, pred)
            res = gate(idx, q)
            assert res.passed and res.passed[0].fact_id == idx._ids[17], "the planted fact must pass"
            reps = 21 if n <= 100_000 else 7
            arrays = [idx.entities.pref, idx.entities.rest, idx._spo]
            nbytes = sum(a.nbytes for a in arrays)
            t = timed({"gate": lambda: gate(idx, q), "floor": read_floor(arrays, threads), "prefix": read_floor([idx.entities.pref], threads)}, reps)
            (t_gate, c_gate), (t_floor, _), (t_pref, _) = t["gate"], t["floor"], t["prefix"]
            per_vec = (idx.entities.pref.nbytes + idx.entities.rest.nbytes) / idx.entities.rest.shape[0]
            print(
                f"N={n:>9,} threads={threads}: gate p50 {t_gate * 1e3:7.1f} ms (cpu {c_gate * 1e3:6.1f} ms) | "
                f"read floor ({nbytes / 1e6:,.0f} MB) {t_floor * 1e3:7.1f} ms ({nbytes / t_floor / 1e9:4.1f} GB/s) | "
                f"ratio {t_gate / t_floor:4.2f}x | prefix-only read {t_pref * 1e3:6.1f} ms | "
                f"stage1 rejected {res.stage1_rejected:,}/{res.candidates:,} | "
                f"{per_vec:.0f} B/vector in RAM + {idx._spo.itemsize * 3} B/fact | {load()}",
                flush=True,
            )
            if n == 100_000:
                verdict.append(f"100,000 facts, {threads} thread(s): p50 {t_gate * 1e3:.1f} ms ({'meets' if t_gate <= 0.010 else 'misses'} <= 10 ms)")
            if n == 1_000_000:
                verdict.append(
                    f"1,000,000 facts, {threads} thread(s): {t_gate / t_floor:.2f}x the read floor "
                    f"({'meets' if t_gate <= 2 * t_floor else 'misses'} <= 2x)"
                )
    print("targets: 100,000 facts p50 <= 10 ms; 1,000,000 facts <= 2x the read floor")
    for v in verdict:
        print("  " + v)
    print(load())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
