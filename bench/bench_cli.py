"""Wall time of `semantic-rdf ask` as a process (start-up included) and of `ask --batch` per question.

    python3 bench/bench_cli.py [--store DIR] [--runs N] [--questions 600] [--json]

Builds the demo store (`semantic-rdf demo`) in a temporary directory unless --store names one, then, in
the same run so the figures share the machine's load:
- anchors: `python -c pass` (interpreter start-up) and `python -c "import numpy, pyoxigraph"` (the libraries
  no answer can do without), each run N times;
- `semantic-rdf ask QUESTION` N times (questions cycled), median and quartiles of the wall time;
- `semantic-rdf ask --batch -` over 1 and over --questions questions: per question = (T_many - T_one) /
  (many - 1), which leaves the start-up out; and T_many / many, which leaves it in.
Targets (issue 19): ask <= 0.3 s, batch <= 20 ms per question. Figures go in docs/answer.md, not here.
The command is the venv's `semantic-rdf` script when there is one (what a user runs), else `python -m`;
byte code is cached in a private directory as an installed package would have it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [
    "Where was Ada Lovelace born?",
    "Who discovered Polonium?",
    "Where was Marie Curie born?",
    "Where was Alan Turing born?",
    "Who discovered penicillin?",
    "Where was Charles Babbage born?",
]


def command() -> list[str]:
    script = Path(sys.executable).parent / "semantic-rdf"
    return [str(script)] if script.exists() else [sys.executable, "-m", "semantic_rdf"]


PYCACHE = tempfile.mkdtemp(prefix="bench-cli-pycache-")


def env() -> dict[str, str]:
    # this checkout's code, even when the venv's editable install points at another one; byte code cached
    # (in a directory of the bench's own, never the checkout) as an installed wheel has it, even where the
    # environment sets PYTHONDONTWRITEBYTECODE: recompiling ~60 modules per run is no user's start-up
    e = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "PYTHONPYCACHEPREFIX": PYCACHE}
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    return e


CPU: list[float] = []  # CPU seconds (user + system) of each process `wall` ran: less sensitive to load


def wall(argv: list[str], stdin: bytes | None = None) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env())
    took = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} …: exit {r.returncode}: {r.stderr.decode()[:500]}")
    return took


def summary(xs: list[float]) -> dict:
    q = statistics.quantiles(xs, n=4) if len(xs) >= 2 else [xs[0]] * 3
    return {"median": statistics.median(xs), "q1": q[0], "q3": q[2], "min": min(xs), "runs": len(xs)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", default=None, help="an existing demo store (default: build one in a temp dir)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--questions", type=int, default=600)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cmd = command()
    tmp = None
    store = args.store
    if store is None:
        tmp = tempfile.mkdtemp(prefix="bench-cli-")
        store = os.path.join(tmp, "demo")
        wall(cmd + ["--store", store, "demo"])
    try:
        for _ in range(2):  # warm the page cache, the side tables and the byte-code cache
            wall(cmd + ["--store", store, "ask", QUESTIONS[0]])
        py = [sys.executable, "-c", "pass"]
        libs = [sys.executable, "-c", "import numpy, pyoxigraph"]
        anchor, floor, ask, ask_cpu = [], [], [], []
        for i in range(args.runs):  # interleaved, so load drifts hit all three alike
            anchor.append(wall(py))
            floor.append(wall(libs))
            ask.append(wall(cmd + ["--store", store, "ask", QUESTIONS[i % len(QUESTIONS)]]))
            ask_cpu.append(CPU[-1])
        many = "".join(QUESTIONS[i % len(QUESTIONS)] + "\n" for i in range(args.questions)).encode()
        one = (QUESTIONS[0] + "\n").encode()
        t_one = statistics.median(wall(cmd + ["--store", store, "ask", "--batch", "-"], one) for _ in range(3))
        t_many = wall(cmd + ["--store", store, "ask", "--batch", "-"], many)
        result = {
            "command": " ".join(cmd),
            "load_average": os.getloadavg(),
            "cpus": os.cpu_count(),
            "python_pass_s": summary(anchor),
            "import_numpy_pyoxigraph_s": summary(floor),
            "ask_s": summary(ask),
            "ask_cpu_s": summary(ask_cpu),
            "batch": {
                "questions": args.questions,
                "one_s": t_one,
                "all_s": t_many,
                "per_question_ms": 1000 * (t_many - t_one) / max(1, args.questions - 1),
                "per_question_with_startup_ms": 1000 * t_many / args.questions,
            },
        }
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(PYCACHE, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    a, p, f, b = result["ask_s"], result["python_pass_s"], result["import_numpy_pyoxigraph_s"], result["batch"]
    print(f"machine: {result['cpus']} cpus, load average {', '.join(f'{x:.2f}' for x in result['load_average'])}")
    print(f"anchor  python -c pass                    median {p['median']:.3f} s  (q1 {p['q1']:.3f}, q3 {p['q3']:.3f})")
    print(f"floor   python -c 'import numpy, pyoxigraph'  median {f['median']:.3f} s  (q1 {f['q1']:.3f}, q3 {f['q3']:.3f})")
    print(
        f"ask     semantic-rdf ask QUESTION         median {a['median']:.3f} s  (q1 {a['q1']:.3f}, q3 {a['q3']:.3f}, "
        f"min {a['min']:.3f}; target 0.300)"
    )
    print(f"        its CPU time (user+system)        median {result['ask_cpu_s']['median']:.3f} s")
    print(
        f"batch   ask --batch, {b['questions']} questions: {b['all_s']:.2f} s; per question "
        f"{b['per_question_ms']:.1f} ms without start-up ({b['per_question_with_startup_ms']:.1f} with; target 20)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
