"""Run one shell command, then print the peak resident memory of the largest process it ran and exit with
its exit code.

Used by .ci/run around the README's test command. /usr/bin/time -v reports the same figure (the wait4 rusage
of the waited-for process tree) but is not on a fresh Debian (package `time`, priority optional); this needs
only the standard library. RUSAGE_CHILDREN's ru_maxrss is the largest single process among the children and
the descendants they waited for (pip, pytest, the servers and CLI processes the tests start), not a sum.

    python3 .ci/peak_rss.py [--limit-gb N] -- "COMMAND"

With --limit-gb, a command that succeeded but peaked at or above N GB exits 3 (the suite's budget).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="peak_rss.py")
    p.add_argument("--limit-gb", type=float, default=None)
    p.add_argument("command", help="one shell command line, run with bash -c")
    args = p.parse_args(argv)
    rc = subprocess.call(["bash", "-c", args.command])
    kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    gb = kib * 1024 / 1e9
    print(f"peak resident memory of `{args.command}`: {gb:.2f} GB ({kib} KiB, largest single process)", flush=True)
    if rc == 0 and args.limit_gb is not None and gb >= args.limit_gb:
        print(f"over the suite's budget of {args.limit_gb:g} GB", file=sys.stderr, flush=True)
        return 3
    return rc if rc >= 0 else 128 - rc  # killed by a signal: the shell's convention


if __name__ == "__main__":
    sys.exit(main())
