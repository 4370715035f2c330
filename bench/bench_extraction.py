"""Extraction quality and speed of the rule extractor.

    python3 bench/bench_extraction.py [--split dev|heldout|all] [--failures N] [--mb 2] [--json]

Quality: tests/data/extraction_gold.jsonl (hand-written sentences, every 4th held out). A prediction
matches a gold triple when predicate and folded subject/object agree (leading articles ignored;
symmetric predicates match in either direction). Prints precision/recall for dev, held-out and all,
a per-predicate table and the failures.

Speed: a generated prose corpus (gold sentences mixed with relation-free filler) run through the
extractor in 2,000-character chunks, beside an anchor measured in the same run on the same text
(one `re.findall(r"\\w+")` pass, the cost of merely tokenising it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from semantic_rdf.pipeline.extract import RuleExtractor  # noqa: E402
from semantic_rdf.core.identity import fold  # noqa: E402
from semantic_rdf.core.values import Chunk  # noqa: E402

GOLD = ROOT / "tests" / "data" / "extraction_gold.jsonl"
SYMMETRIC = {"collaborated_with", "worked_with", "partnered_with", "spouse_of"}
_DET = re.compile(r"^(?:the|a|an)\s+")


def norm(name: str) -> str:
    return _DET.sub("", fold(name))


def key(s: str, p: str, o: str) -> tuple[str, str, str]:
    a, b = norm(s), norm(o)
    if p in SYMMETRIC and b < a:
        a, b = b, a
    return (a, p, b)


def load() -> list[dict]:
    return [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate(items: list[dict]) -> dict:
    per = defaultdict(Counter)
    tp = fp = fn = 0
    failures = []
    for it in items:
        ex = RuleExtractor()  # fresh per item: pronouns resolve only inside the item
        text = it["text"]
        got = ex.extract(Chunk(it["id"], 0, text, 0, len(text)))
        pred = {key(t.subject, t.predicate, t.object): t for t in got}
        gold = {key(*g) for g in it["triples"]}
        for k in gold:
            per[k[1]]["gold"] += 1
        for k, t in pred.items():
            per[k[1]]["pred"] += 1
            if k in gold:
                tp += 1
                per[k[1]]["tp"] += 1
            else:
                fp += 1
                failures.append(("FP", it["id"], it["split"], f"{t.subject} | {t.predicate} | {t.object}", text))
        for k in gold - set(pred):
            fn += 1
            failures.append(("FN", it["id"], it["split"], " | ".join(k), text))
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    return {
        "items": len(items),
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": p,
        "recall": r,
        "per_predicate": {k: dict(v) for k, v in sorted(per.items())},
        "failures": failures,
    }


FILLER = [
    "The weather stayed mild for most of the season, and the roads were busy every weekend.",
    "Several committees met in the afternoon to discuss the budget and the timetable for the coming year.",
    "After a long delay the train finally left the station, carrying far more passengers than usual.",
    "Most of the letters were written in pencil and have faded badly over the decades.",
    "The report notes that prices rose sharply in the second half of the decade.",
    "Visitors often remark on the quiet of the reading room and the smell of old paper.",
    "Nobody could say for certain how many copies of the pamphlet had been printed.",
    "In the evening the square filled with musicians, traders and families out for a walk.",
]


def corpus(mb: float, seed: int = 7, density: float = 0.35) -> str:
    rnd = random.Random(seed)
    gold = [it["text"] for it in load()]
    parts, size = [], 0
    target = int(mb * 1_000_000)
    while size < target:
        para = " ".join(rnd.choice(gold) if rnd.random() < density else rnd.choice(FILLER) for _ in range(8))
        parts.append(para)
        size += len(para.encode("utf-8")) + 2
    return "\n\n".join(parts)


def throughput(mb: float, density: float = 0.35, repeat: int = 3) -> dict:
    text = corpus(mb, density=density)
    nbytes = len(text.encode("utf-8"))
    chunks, i, idx = [], 0, 0
    while i < len(text):
        j = min(len(text), i + 2000)
        if j < len(text):
            sp = text.rfind(" ", i + 1000, j)
            j = sp + 1 if sp > 0 else j
        chunks.append(Chunk("bench", idx, text[i:j], i, j))
        i, idx = j, idx + 1
    RuleExtractor().extract(chunks[0])  # warm: compile the rules
    # best of `repeat` runs, extractor and anchor interleaved, each timed in wall-clock and CPU seconds: on a
    # shared machine the CPU figures (and the ratio of the two, measured side by side) are what to compare
    best = {"seconds": float("inf"), "cpu": float("inf"), "anchor_seconds": float("inf"), "anchor_cpu": float("inf")}
    for _ in range(repeat):
        ex = RuleExtractor()
        t0, c0 = time.perf_counter(), time.process_time()
        n = 0
        for c in chunks:
            n += len(ex.extract(c))
        best["seconds"] = min(best["seconds"], time.perf_counter() - t0)
        best["cpu"] = min(best["cpu"], time.process_time() - c0)
        t1, c1 = time.perf_counter(), time.process_time()
        words = len(re.findall(r"\w+", text))
        best["anchor_seconds"] = min(best["anchor_seconds"], time.perf_counter() - t1)
        best["anchor_cpu"] = min(best["anchor_cpu"], time.process_time() - c1)
    dt, anchor = best["seconds"], best["anchor_seconds"]
    return {
        "density": density,
        "bytes": nbytes,
        "chunks": len(chunks),
        "triples": n,
        "seconds": dt,
        "mb_per_s": nbytes / dt / 1e6,
        "cpu_seconds": best["cpu"],
        "cpu_mb_per_s": nbytes / best["cpu"] / 1e6,
        "anchor_seconds": anchor,
        "anchor_words": words,
        "ratio_to_anchor": dt / anchor if anchor else None,
        "cpu_ratio_to_anchor": best["cpu"] / best["anchor_cpu"] if best["anchor_cpu"] else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=["dev", "heldout", "all"], default=None, help="list failures of this split only (default: dev)")
    ap.add_argument("--failures", type=int, default=200, help="how many failures to list")
    ap.add_argument("--mb", type=float, default=2.0, help="corpus size for the throughput line")
    ap.add_argument("--repeat", type=int, default=3, help="speed runs per corpus; the best is printed")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    items = load()
    results = {name: evaluate([it for it in items if name == "all" or it["split"] == name]) for name in ("dev", "heldout", "all")}
    speed = [throughput(args.mb, d, max(1, args.repeat)) for d in (0.35, 0.10)]
    if args.json:
        print(
            json.dumps({"quality": {k: {kk: vv for kk, vv in v.items() if kk != "failures"} for k, v in results.items()}, "speed": speed}, indent=2)
        )
        return 0
    preds = {g[1] for it in items for g in it["triples"]}
    print(f"gold: {len(items)} items, {sum(len(it['triples']) for it in items)} triples, {len(preds)} predicates")
    for name in ("dev", "heldout", "all"):
        r = results[name]
        print(f"{name:8s} items={r['items']:3d}  P={r['precision']:.3f}  R={r['recall']:.3f}  tp={r['tp']} fp={r['fp']} fn={r['fn']}")
    print("\nper predicate (all):  gold  pred  tp   P     R")
    reached = 0
    for p, c in results["all"]["per_predicate"].items():
        g, pr, tp = c.get("gold", 0), c.get("pred", 0), c.get("tp", 0)
        reached += tp > 0
        print(f"  {p:24s} {g:4d} {pr:5d} {tp:3d}  {tp / pr if pr else 1:.2f}  {tp / g if g else 1:.2f}")
    print(f"predicates with at least one correct extraction: {reached}")
    which = args.split or "dev"
    fails = [f for f in results["all"]["failures"] if which == "all" or f[2] == which]
    print(f"\nfailures ({which}, {len(fails)}):")
    for kind, id_, split, triple, text in fails[: args.failures]:
        print(f"  {kind} {id_} [{split}] {triple}\n       {text}")
    print()
    load1, load5, _ = os.getloadavg()
    print(f"load average {load1:.2f} / {load5:.2f} (1 / 5 min) on {os.cpu_count()} cores; best of {args.repeat} runs")
    for s in speed:
        print(
            f"throughput ({s['density']:.0%} relation sentences): {s['bytes'] / 1e6:.2f} MB in {s['chunks']} chunks "
            f"-> {s['triples']} triples in {s['seconds']:.2f} s = {s['mb_per_s']:.2f} MB/s "
            f"(CPU {s['cpu_seconds']:.2f} s = {s['cpu_mb_per_s']:.2f} MB/s); anchor (re \\w+ pass) "
            f"{s['anchor_seconds'] * 1000:.0f} ms, extraction = {s['ratio_to_anchor']:.1f}x anchor "
            f"({s['cpu_ratio_to_anchor']:.1f}x in CPU time)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
