"""Cost at scale (issue 21, item 9): ingest peak memory per input MB, `ask` as a process on a store of 100,000
assertions, and `validate` on that store — each printed against its target, beside an anchor measured in the
same run.

    python bench/bench_scale.py                              # 50,000 sentences to ingest, 100,000 assertions
    python bench/bench_scale.py --sentences 5000 --assertions 10000          # quicker
    python bench/bench_scale.py --store DIR --keep           # build (or reuse) the large store in DIR

Every measured command runs as a child process of its own; wall time is the parent's clock and peak memory the
child's own resident peak (os.wait4). The anchor is `semantic-rdf id` (interpreter, libraries and command line,
no store): the ratios say what a verb costs beyond starting up on this machine, which swings with load. Run it
when nothing else runs. The large store is written through the store API (bench_store.synthetic, as
bench_validate.py does); the ingest text is generated short biographical sentences that the default extractor
reads. Figures go in docs/security.md, not here.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_cli import command, env  # noqa: E402

# targets of issue 21, item 9
INGEST_TIMES_INPUT, INGEST_FIXED_MB = 100, 300
ASK_SECONDS = 0.5
VALIDATE_SECONDS = 120

# generated people, places and works, spelled like the names the extractor was trained on
_FIRST = [
    "Maria",
    "John",
    "Anna",
    "Peter",
    "Elena",
    "David",
    "Sofia",
    "Thomas",
    "Clara",
    "Henrik",
    "Laura",
    "Michael",
    "Julia",
    "Robert",
    "Ingrid",
    "James",
    "Helen",
    "Carlos",
    "Marta",
    "William",
    "Alice",
    "Pierre",
    "Greta",
    "Samuel",
    "Irene",
    "Victor",
    "Nora",
    "Oskar",
    "Rosa",
    "Paul",
]
_LAST = [
    "Jensen",
    "Moreau",
    "Keller",
    "Novak",
    "Lindqvist",
    "Brennan",
    "Costa",
    "Hartmann",
    "Okafor",
    "Svensson",
    "Romano",
    "Fischer",
    "Delgado",
    "Whitaker",
    "Kowalski",
    "Dubois",
    "Hale",
    "Bergstrom",
    "Marino",
    "Fletcher",
    "Nakamura",
    "Petrov",
    "Ellison",
    "Vargas",
    "Larsen",
    "Ashworth",
    "Rinaldi",
    "Holm",
    "Carver",
    "Quinn",
]
_PLACES = [
    "Oslo",
    "Lyon",
    "Munich",
    "Porto",
    "Gdansk",
    "Leeds",
    "Bergen",
    "Turin",
    "Ghent",
    "Cork",
    "Basel",
    "Seville",
    "Tampere",
    "Utrecht",
    "Graz",
    "Krakow",
    "Bristol",
    "Aarhus",
    "Bologna",
    "Nantes",
    "Dresden",
    "Malmo",
    "Bilbao",
    "Leiden",
    "Lille",
    "Zagreb",
    "Galway",
    "Linz",
    "Verona",
    "Odense",
]
_WORKS = [
    "The Silent Harbour",
    "Notes on Light",
    "A Winter Journey",
    "The Glass Orchard",
    "Northern Letters",
    "The Last Ferry",
    "Songs of the Valley",
    "The Quiet Engine",
    "Paper Rivers",
    "The Iron Garden",
]


def sentences(n: int, seed: int = 11) -> str:
    """`n` short sentences about generated people, places and works, in a few common phrasings."""
    rng = random.Random(seed)
    people = [f"{rng.choice(_FIRST)} {rng.choice(_LAST)}" for _ in range(max(1, n // 10))]
    forms = [
        "{p} was born in {c}.",
        "{p} studied at the University of {c}.",
        "{p} wrote {w}.",
        "{p} married {q}.",
        "{p} moved to {c} in {y}.",
        "{p} died in {c}.",
        "{c} is a city in {d}.",
        "{p} worked with {q} in {c}.",
    ]
    out = []
    for _ in range(n):
        out.append(
            rng.choice(forms).format(
                p=rng.choice(people),
                q=rng.choice(people),
                c=rng.choice(_PLACES),
                d=rng.choice(["Norway", "France", "Germany", "Italy", "Poland"]),
                w=rng.choice(_WORKS),
                y=rng.randint(1800, 2000),
            )
        )
    return " ".join(out) + "\n"


def run(argv: list[str], cwd: Path | None = None) -> tuple[int, float, float, str]:
    """(exit code, wall seconds, the child's peak resident MB, its output) of one command as a process."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, text=True, env=env(), cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        text = out.read()
    return os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024, text


def cli(store: Path, *args: str) -> list[str]:
    return [*command(), "--store", str(store), *args]


def checked(result: tuple[int, float, float, str], what: str) -> tuple[int, float, float, str]:
    if result[0] != 0:
        raise SystemExit(f"{what}: exit {result[0]}: {result[3][-800:]}")
    return result


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def ingest(work: Path, n: int, anchor: float) -> None:
    """Peak memory of `ingest` per input MB."""
    text = work / "sentences.txt"
    text.write_text(sentences(n), encoding="utf-8")
    mb = text.stat().st_size / 1e6
    _, wall, peak, _ = checked(run(cli(work / "ingested", "--json", "ingest", str(text))), "ingest")
    stats = json.loads(checked(run(cli(work / "ingested", "--json", "stats")), "stats")[3])
    target = INGEST_TIMES_INPUT * mb + INGEST_FIXED_MB
    print(
        f"ingest {n:,} sentences ({mb:.2f} MB): {wall:.1f} s ({mb / wall:.3f} MB/s, {wall / anchor:.0f}x anchor), "
        f"{stats['assertions']:,} assertions, peak RSS {peak:.0f} MB = {peak / mb:.0f} MB per input MB; target "
        f"<= {INGEST_TIMES_INPUT} x input + {INGEST_FIXED_MB} MB = {target:.0f} MB: {verdict(peak <= target)}"
    )


def build(big: Path, n: int) -> None:
    if big.exists():
        print(f"reusing {big}")
        return
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_validate.py"), "--build-only", "--n", str(n), "--store", str(big)], check=True, env=env()
    )
    print(f"  (store built through the API in {time.perf_counter() - t0:.0f} s)")


def ask(big: Path, n: int, asks: int, anchor: float) -> None:
    """`ask` as a process on the large store: the first (which indexes every believed fact), then `asks` more."""
    _, first, first_peak, _ = checked(run(cli(big, "ask", "What did Person 7 discover?")), "first ask")
    print(f"first ask on {n:,} assertions (indexes the believed facts once): {first:.2f} s, peak RSS {first_peak:.0f} MB")
    times, peaks = [], []
    for i in range(asks):
        _, secs, pk, _ = checked(run(cli(big, "ask", f"Who did Person {100 + i * 37} meet?")), "ask")
        times.append(secs)
        peaks.append(pk)
    took = statistics.median(times)
    print(
        f"ask on {n:,} assertions as a process, median of {asks}: {took:.2f} s ({took / anchor:.1f}x anchor), "
        f"peak RSS {max(peaks):.0f} MB; target <= {ASK_SECONDS} s: {verdict(took <= ASK_SECONDS)}"
    )


def validate(big: Path, anchor: float) -> None:
    """`validate` of the large store, scaled linearly to 1.5M quads."""
    from bench.bench_validate import run_validate
    from semantic_rdf.store.assertions import AssertionStore

    code, wall, peak, first_line = run_validate(big)
    with AssertionStore.open(big, read_only=True) as st:
        quads = len(st.ox)
    scaled = wall * 1_500_000 / quads
    print(
        f"validate {quads:,} quads: exit {code} ({first_line}), {wall:.1f} s ({wall / anchor:.0f}x anchor), "
        f"peak RSS {peak:.0f} MB; at 1.5M quads ~{scaled:.0f} s (linear); target <= {VALIDATE_SECONDS} s "
        f"at 1.5M: {verdict(scaled <= VALIDATE_SECONDS)}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=50_000, help="sentences to ingest (default 50,000)")
    ap.add_argument("--assertions", type=int, default=100_000, help="assertions in the large store")
    ap.add_argument("--asks", type=int, default=5, help="timed asks after the first (default 5)")
    ap.add_argument("--store", type=Path, help="the large store's directory (reused if it exists)")
    ap.add_argument("--keep", action="store_true", help="keep the stores")
    ap.add_argument("--only", choices=["ingest", "ask", "validate"], action="append", help="run only this part (repeatable; default: all three)")
    args = ap.parse_args()
    parts = set(args.only or ["ingest", "ask", "validate"])
    work = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    big = args.store or work / "big"
    try:
        anchor = statistics.median(checked(run([*command(), "id", "Ada Lovelace", "wrote", "Note G"]), "anchor")[1] for _ in range(5))
        print(f"anchor: `semantic-rdf id` as a process, median of 5: {anchor:.3f} s")
        if "ingest" in parts:
            ingest(work, args.sentences, anchor)
        if parts & {"ask", "validate"}:
            build(big, args.assertions)
        if "validate" in parts:  # before the asks, which add their decisions to the store
            validate(big, anchor)
        if "ask" in parts:
            ask(big, args.assertions, args.asks, anchor)
    finally:
        if args.keep:
            print(f"kept {work}" + (f" and {big}" if args.store else ""))
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
