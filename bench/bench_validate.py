"""Time and peak memory of `semantic-rdf validate` on a generated on-disk store (issue 20: ≤ 1 GB resident for
200,000 assertions; issue 21: 1.5M quads in ≤ 2 minutes).

    python bench/bench_validate.py                       # 200,000 source-read assertions, in a temporary directory
    python bench/bench_validate.py --n 20000             # quicker
    python bench/bench_validate.py --store DIR --keep    # build (or reuse) the store in DIR and keep it
    python bench/bench_validate.py --pyshacl             # also time `validate --pyshacl` (pyshacl on every batch)

The store is written through the store API (bench_store.synthetic: one document, one span per assertion);
`validate` then runs as a child process and its wall time and peak resident set (os.wait4 on the child) are
printed, with the store's quad count. Figures go in docs/layout.md, not here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_store import synthetic  # noqa: E402
from semantic_rdf.store.assertions import AssertionStore  # noqa: E402


def build(root: Path, n: int, batch: int = 20_000) -> tuple[int, float]:
    doc, triples = synthetic(n)
    t0 = time.perf_counter()
    with AssertionStore.open(root) as store:
        with store.run("ingestion", agent="bench") as run:
            store.add_document(doc, run)
            for i in range(0, len(triples), batch):
                store.assert_triples(triples[i : i + batch], run=run)
        quads = len(store.ox)
    return quads, time.perf_counter() - t0


def run_validate(root: Path, *extra: str) -> tuple[int, float, float, str]:
    """(exit code, wall seconds, peak RSS of the child in MB, first line of output). The peak is the child's
    own (os.wait4), not getrusage(RUSAGE_CHILDREN), which also counts children the build left to be reaped."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "semantic_rdf", "--store", str(root), "validate", *extra], stdout=out, stderr=subprocess.STDOUT, text=True
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        first = (out.read().splitlines() or [""])[0]
    return proc.returncode, wall, usage.ru_maxrss / 1024, first  # ru_maxrss: KB on Linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200_000, help="assertions to generate")
    ap.add_argument("--store", type=Path, help="store directory (reused if it exists)")
    ap.add_argument("--keep", action="store_true", help="keep the store")
    ap.add_argument("--pyshacl", action="store_true", help="also run validate --pyshacl")
    ap.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.build_only:
        quads, secs = build(args.store, args.n)
        print(f"built {args.n:,} assertions, {quads:,} quads in {secs:.1f} s")
        return
    root = args.store or Path(tempfile.mkdtemp(prefix="bench-validate-")) / "st"
    try:
        if root.exists():
            with AssertionStore.open(root, read_only=True) as s:
                print(f"reusing {root}: {len(s.ox):,} quads")
        else:  # in a process of its own: a read-only open while the writing process lives replays its log
            subprocess.run([sys.executable, __file__, "--build-only", "--n", str(args.n), "--store", str(root)], check=True)
        for extra in ([], ["--pyshacl"]) if args.pyshacl else ([],):
            code, wall, peak, first = run_validate(root, *extra)
            print(f"validate {' '.join(extra) or '(default)'}: exit {code} ({first}), {wall:.1f} s, peak RSS {peak:.0f} MB")
    finally:
        if args.store is None and not args.keep:
            shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
