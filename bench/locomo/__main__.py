"""python -m bench.locomo --data PATH --out DIR [--floor F] [--k K] [--arms a,b] …"""

from __future__ import annotations

import os
import time

_PROCESS_START = (time.perf_counter(), time.process_time())  # the printed wall time includes the imports

# Every matrix product here is a small matrix-vector one (TF-IDF cosines, the HDC encoder's
# 10,000 x 256 projection); on the shared 2-core machine a multi-threaded BLAS spins its threads
# against the other jobs and runs them 3-5x slower. One thread, unless the caller says otherwise;
# this has to happen before numpy is first imported.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
from pathlib import Path

from semantic_rdf.core.errors import SemanticError

from bench.locomo import data, harness, report
from bench.locomo.reader import ReaderConfig

_DEFAULTS = ReaderConfig()
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo10-dev.json"


def main(argv: list[str] | None = None, started: tuple[float, float] | None = None) -> int:
    """Run the harness; `started` = (perf_counter, process_time) to count from (default: now)."""
    p = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-schema JSON (default: %(default)s)")
    p.add_argument("--out", type=Path, default=Path("locomo-out"), help="directory for locomo.md/.json and the plot")
    p.add_argument("--arms", default=",".join(harness.ARMS), help="comma-separated subset of %s" % ",".join(harness.ARMS))
    p.add_argument("--k", type=int, default=5, help="units retrieved per question")
    p.add_argument("--floor", type=float, default=_DEFAULTS.floor, help="confidence floor below which the reader declines")
    p.add_argument("--span", type=int, default=_DEFAULTS.span, help="words kept per extracted answer")
    p.add_argument("--parts", type=int, default=_DEFAULTS.parts, help="answers joined at most")
    p.add_argument("--band", type=float, default=_DEFAULTS.band, help="a further answer must score within this share of the best")
    p.add_argument("--conversations", type=int, default=None, help="use only the first N conversations")
    p.add_argument("--no-store", action="store_true", help="do not write the sessions into an AssertionStore")
    p.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples over conversations")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    started, cpu_started = started or (time.perf_counter(), time.process_time())
    try:
        arms = [a.strip() for a in args.arms.split(",") if a.strip()]
        unknown = sorted(set(arms) - set(harness.ARMS))
        if unknown or not arms:
            raise SemanticError(f"unknown arm(s) {unknown}; choose from {list(harness.ARMS)}")
        if args.k < 1 or args.bootstrap < 1:
            raise SemanticError("--k and --bootstrap must be positive")
        cfg = ReaderConfig(args.floor, args.span, args.band, args.parts)
        convs = data.load(args.data)
        if args.conversations is not None:
            convs = convs[: max(args.conversations, 0)]
        if not convs:
            raise SemanticError("no conversations to run")
        res = harness.run(convs, cfg, k=args.k, arms=arms, use_store=not args.no_store)
        settings = {
            "data": str(args.data),
            "conversations": [c.sample_id for c in convs],
            "k": args.k,
            "reader": {"floor": cfg.floor, "span": cfg.span, "band": cfg.band, "parts": cfg.parts},
            "store": not args.no_store and harness.store_available(),
        }
        if res.gate_passed:
            from semantic_rdf.hdc.gate import Config

            g = Config()
            settings["gate"] = {
                "threshold": g.threshold,
                "predicate_floor": g.predicate_floor,
                "window": g.path_window,
                "passed_share": sum(res.gate_passed) / len(res.gate_passed),
            }
        rep = report.build_report(res.arrays(), arms, cfg.floor, settings=settings, skipped=res.skipped, resamples=args.bootstrap, seed=args.seed)
        elapsed = time.perf_counter() - started
        rep["wall_seconds"] = elapsed
        rep["phase_seconds"] = dict(res.seconds)
        paths = report.write_outputs(rep, args.out)
    except SemanticError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(report.to_markdown(rep))
    print(f"wrote {paths['markdown']}, {paths['json']}, {paths['plot']}")
    n_q = sum(len(c.qa) for c in convs)
    print(
        f"ingest {res.seconds['ingest']:.1f} s, questions {res.seconds['questions']:.1f} s "
        f"(of which the gate {res.seconds['gate']:.1f} s); "
        f"CPU {time.process_time() - cpu_started:.1f} s"
    )
    print(
        f"total wall time {time.perf_counter() - started:.1f} s "
        f"({len(convs)} conversations, {n_q} questions, arms: {', '.join(a for a in arms if a not in res.skipped)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(started=_PROCESS_START))
