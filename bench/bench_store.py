"""Write N synthetic assertions through the store API (shape checks on) and compare with
pyoxigraph `bulk_load` of the very same quads, measured in the same run.

    python bench/bench_store.py            # 100,000 assertions (target: ratio >= 0.5)
    python bench/bench_store.py --n 20000  # quicker
    python bench/bench_store.py --reps 3   # alternate the two 3 times, print the median ratio
                                           # (on a shared machine, load drifts between the two)
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, not an installed one

import pyoxigraph as ox  # noqa: E402

from semantic_rdf.store.assertions import AssertionStore  # noqa: E402
from semantic_rdf.core.values import Chunk, Doc, Triple  # noqa: E402
from semantic_rdf.core.vocab import predicate_names  # noqa: E402


def synthetic(n: int, seed: int = 7) -> tuple[Doc, list[Triple]]:
    rng = random.Random(seed)
    preds = sorted(predicate_names())
    sentences, spans = [], []
    pos = 0
    for i in range(n):
        s = f"Person {i % 5000} met Thing {rng.randrange(20000)} in year {1900 + i % 100}. "
        sentences.append(s)
        spans.append((pos, pos + len(s) - 1))
        pos += len(s)
    text = "".join(sentences)
    doc = Doc("bench/synthetic.txt", "bench/synthetic.txt", text, {"media_type": "text/plain"})
    chunk = Chunk(doc.id, 0, text, 0, len(text))
    triples = [
        Triple(f"Person {i % 5000}", preds[i % len(preds)], f"Thing {i}", chunk, round(rng.random(), 3), start=a, end=b)
        for i, (a, b) in enumerate(spans)
    ]
    return doc, triples


def api_run(doc: Doc, triples: list[Triple], batch: int, root: Path) -> tuple[float, int, bytes]:
    store = AssertionStore.open(root)
    t0 = time.perf_counter()
    with store.run("ingestion", agent="bench") as run:
        store.add_document(doc, run)
        for i in range(0, len(triples), batch):
            store.assert_triples(triples[i : i + batch], run=run)
    store.ox.flush()
    api_s = time.perf_counter() - t0
    nquads = len(store.ox)
    dump = store.export("nquads")
    store.close()
    return api_s, nquads, dump


def bulk_run(dump: bytes, root: Path) -> float:
    raw = ox.Store(str(root))
    t0 = time.perf_counter()
    raw.bulk_load(dump, format=ox.RdfFormat.N_QUADS)
    raw.flush()
    raw_s = time.perf_counter() - t0
    del raw
    return raw_s


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=1, help="alternate API and bulk_load runs this many times")
    args = ap.parse_args()
    doc, triples = synthetic(args.n)
    tmp = Path(tempfile.mkdtemp(prefix="bench-store-"))
    ratios = []
    try:
        for rep in range(args.reps):
            api_s, nquads, dump = api_run(doc, triples, args.batch, tmp / f"api{rep}")
            raw_s = bulk_run(dump, tmp / f"raw{rep}")
            shutil.rmtree(tmp / f"api{rep}", ignore_errors=True)
            shutil.rmtree(tmp / f"raw{rep}", ignore_errors=True)
            ratios.append(raw_s / api_s)
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"run {rep + 1}: load average {load}")
            print(f"assertions            {args.n:>10,}")
            print(f"quads written         {nquads:>10,}  ({nquads / args.n:.1f} per assertion)")
            print(f"store API (checked)   {api_s:>10.2f} s  {args.n / api_s:>10,.0f} assertions/s  {nquads / api_s:>10,.0f} quads/s")
            print(f"bulk_load same quads  {raw_s:>10.2f} s  {args.n / raw_s:>10,.0f} assertions/s  {nquads / raw_s:>10,.0f} quads/s")
            print(f"ratio (bulk_load time / API time) = {raw_s / api_s:.2f}x   target >= 0.5x")
        if args.reps > 1:
            print(f"median ratio over {args.reps} alternating runs = {statistics.median(ratios):.2f}x   target >= 0.5x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
