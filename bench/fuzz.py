"""Long fuzzing run: the properties of tests/test_fuzz.py with many more examples each.

    python bench/fuzz.py            # scale 50: 3,000 examples per property (1,250 for the rule extractor)
    python bench/fuzz.py --scale 200

Prints pytest's summary; exit status is pytest's (0 = no counterexample found).
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=50, help="multiplier on the suite's max_examples")
    a = ap.parse_args()
    env = dict(os.environ, SEMANTIC_RDF_FUZZ_SCALE=str(a.scale), PYTHONPATH=str(REPO))
    t0 = time.perf_counter()
    rc = subprocess.call(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::DeprecationWarning",
            "--durations=0",
            str(REPO / "tests" / "test_fuzz.py"),
        ],
        env=env,
        cwd=str(REPO),
    )
    print(f"fuzz scale {a.scale}: {time.perf_counter() - t0:.1f} s, exit {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
