"""Which layers one command runs, and every call from one layer's function into another's.

    python3 bench/trace_layers.py --store DIR ingest FILE      # any `semantic-rdf` verb and its arguments
    python3 bench/trace_layers.py --store DIR ask "Where was Ada Lovelace born?"

Runs the command in this process under a profile hook (sys.setprofile, threading.setprofile) that records,
for every function of the package called, its layer (the subpackage: cli, pipeline, store, rdf, core, hdc,
lifecycle, answer, remote, interfaces) and, when the nearest calling function of the package is in another
layer, the edge `caller layer -> callee layer` with the two functions' names. A forked read-ahead child is
not traced (run ingest with --read-ahead thread to see the pipeline's own calls). docs/architecture.md ("One
document in, one question out") was checked with it. Not a timing: the hook slows everything several-fold.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def layer_of(frame) -> str | None:
    """The package layer a frame's function lives in (the subpackage after `semantic_rdf.`), or None."""
    name = frame.f_globals.get("__name__", "")
    parts = name.split(".")
    return parts[1] if parts[0] == "semantic_rdf" and len(parts) > 1 else None


def main(argv: list[str]) -> int:
    from semantic_rdf.cli import main as cli

    calls: Counter[str] = Counter()
    edges: Counter[tuple[str, str, str, str]] = Counter()

    def hook(frame, event, arg) -> None:
        if event != "call":
            return
        here = layer_of(frame)
        if here is None:
            return
        calls[here] += 1
        back = frame.f_back
        while back is not None and layer_of(back) is None:
            back = back.f_back
        if back is not None and (there := layer_of(back)) != here:
            assert there is not None
            edges[(there, here, back.f_code.co_name, frame.f_code.co_name)] += 1

    sys.setprofile(hook)
    threading.setprofile(hook)
    try:
        code = cli(argv)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    print(f"\nexit {code}; calls by layer: " + ", ".join(f"{k} {v}" for k, v in calls.most_common()))
    for (a, b, f, g), n in sorted(edges.items()):
        print(f"  {a:>10} -> {b:<10} {f} -> {g}  x{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
