"""MemoryVectorStore.near at the LoCoMo harness's shape, against anchors measured in the same run.

    python -m bench.locomo.bench_near [--rows 700] [--dim 4000] [--reps 300]

A synthetic conversation-sized store (no LoCoMo data): `rows` unit rows of a sparse TF-IDF-like
matrix (about 12 non-zero terms a row), each with `subjects` = one of two speakers. Queries hold
5 terms, as a question does. Printed: the median time of

* near(q, 5) flat, and near(q, 5, subjects has X) scoped — the store as it is;
* anchor "copy": the same ranking done the way near() used to, copying the filtered rows out of the
  matrix (`mat[rows] @ q`) after a row-by-row `has` test of the list field;
* anchor "product": one full mat-vec over the stored rows (the floor for a dense scan);

and the ratios. The results are checked equal to the anchor's before timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from semantic_rdf.interfaces.stores import Cond, MemoryVectorStore, matches


def _median(fn, reps: int) -> float:
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.locomo.bench_near")
    p.add_argument("--rows", type=int, default=700)
    p.add_argument("--dim", type=int, default=4000)
    p.add_argument("--reps", type=int, default=300)
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    n, d = args.rows, args.dim
    mat = np.zeros((n, d))
    for i in range(n):
        mat[i, rng.integers(d, size=12)] = rng.random(12) + 0.1
    mat /= np.linalg.norm(mat, axis=1)[:, None]
    metas = [{"subjects": ["ada" if i % 2 else "ben"], "session": i // 20} for i in range(n)]
    ids = [f"D{i // 20}:{i % 20}" for i in range(n)]
    store = MemoryVectorStore()
    store.put_many(ids, mat, metas)
    stored = store._mat[: store._n]  # noqa: SLF001 - the anchor reads the same matrix
    flt = (Cond("subjects", "has", "ada"),)
    queries = []
    for _ in range(32):
        q = np.zeros(d)
        q[rng.integers(d, size=5)] = 1.0
        queries.append(q / np.linalg.norm(q))

    def copy_anchor(q: np.ndarray, k: int = 5) -> list[str]:
        rows = np.flatnonzero([matches(m, flt) for m in metas])
        scores = stored[rows] @ q
        order = np.lexsort((np.array([ids[r] for r in rows], dtype=object), -scores))[:k]
        return [ids[rows[i]] for i in order]

    for q in queries:
        assert [m.id for m in store.near(q, 5, flt)] == copy_anchor(q)

    it = iter(range(10**9))

    def pick() -> np.ndarray:
        return queries[next(it) % len(queries)]

    t_flat = _median(lambda: store.near(pick(), 5), args.reps)
    t_scoped = _median(lambda: store.near(pick(), 5, flt), args.reps)
    t_copy = _median(lambda: copy_anchor(pick()), args.reps)
    t_prod = _median(lambda: stored @ pick(), args.reps)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"rows {n}, dim {d}, reps {args.reps}, load average {load:.2f}")
    print(f"near flat        {t_flat * 1e6:9.1f} us   {t_flat / t_prod:6.2f}x one full mat-vec")
    print(f"near scoped      {t_scoped * 1e6:9.1f} us   {t_scoped / t_prod:6.2f}x one full mat-vec")
    print(f"anchor copy      {t_copy * 1e6:9.1f} us   (row-by-row has + mat[rows] @ q)")
    print(f"anchor product   {t_prod * 1e6:9.1f} us   (mat @ q over every stored row)")
    print(f"scoped near is {t_copy / t_scoped:.1f}x faster than the copy anchor")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
