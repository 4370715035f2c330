"""End-to-end ingest speed: a generated text corpus through ingest, parse, normalise, split
(and extract, when an extractor is named), with where the time goes.

    python3 bench/bench_ingest.py                 # 10 MB, no extractor
    python3 bench/bench_ingest.py --mb 2 --extractor rules          # + the rule extractor
    python3 bench/bench_ingest.py --extractor rules --store         # + writes into an in-memory AssertionStore
    python3 bench/bench_ingest.py --extractor rules --store --disk  # + an on-disk store (what `ingest` writes)
    python3 bench/bench_ingest.py --extractor rules --store --disk --side-tables  # all that `ingest` does

`--extractor` takes `rules` (semantic_rdf.pipeline.extract:RuleExtractor), `statistical` (the default of `ingest`,
semantic_rdf.pipeline.statistical:StatisticalExtractor) or any module:Class. `--store` runs
semantic_rdf.pipeline.load.load, as `semantic-rdf ingest` does, into `AssertionStore.memory()` and adds the
store writes (documents, assertions) to the per-stage table; `--side-tables` adds the indexing of each
batch in the side tables as `semantic-rdf ingest` does it (a Memory follows each committed batch from what
its event tells: HDC vectors for the gate, document paths, entity rows), timed apart from the writes.
`--read-ahead thread|child` picks where the pipeline runs (default: as `ingest`).

Speeds are printed as MB/s and as a ratio against an anchor measured in the same run on the
same files: read every file, decode it, and split it into words with one regex — the least
any pipeline has to do. The ratio is what to compare across machines, not the MB/s.
The corpus is synthetic prose (names, organisations, places, dates, abbreviations, decimals)
in .txt, .md, .html and .jsonl files; nothing is downloaded.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyoxigraph as ox  # noqa: E402

from semantic_rdf.pipeline.ahead import choose  # noqa: E402
from semantic_rdf.pipeline.stages import build_pipeline  # noqa: E402

FIRST = "Alice Bob Carol Dana Erik Farah Greta Hiro Ines Jonas Kemal Lena Marta Nadia Omar Pia Quentin Rosa".split()
LAST = "Smith Jones Okafor Tanaka Müller García Novak Rossi Dubois Kowalski Jensen Silva Haddad Ivanova".split()
ORGS = "Acme Initech Globex Umbrella Hooli Vandelay Stark Wayne Tyrell Cyberdyne Aperture Soylent".split()
PLACES = "Paris Oslo Lagos Kyoto Lima Cairo Quebec Porto Tallinn Hanoi Denver Perth Zürich".split()
TEMPLATES = [
    "{p} works at {o}.",
    "{p} was born in {c} on {d}.",
    "Dr. {p} joined {o} in {y}.",
    "{p} lives in {c}, near the U.S. embassy.",
    "{o} is headquartered in {c}.",
    "{p} founded {o} in {y}, e.g. with help from {q}.",
    "{p} is married to {q}.",
    "In {y}, {o} acquired {o2} for {n} million dollars.",
    "{p} studied at the University of {c} and later moved to {c2}.",
    "Mr. {q} reports to {p}; revenue grew by {f} percent.",
    "{p}'s sister is {q}. She visits {c} every summer.",
    "The meeting with {o} lasted {n} minutes... then everyone left!",
    "Does {p} still work at {o}? Nobody knows.",
]


def _person(r: random.Random) -> str:
    return f"{r.choice(FIRST)} {r.choice(LAST)}"


def _sentence(r: random.Random) -> str:
    return r.choice(TEMPLATES).format(
        p=_person(r),
        q=_person(r),
        o=r.choice(ORGS),
        o2=r.choice(ORGS),
        c=r.choice(PLACES),
        c2=r.choice(PLACES),
        d=f"{r.randint(1, 28)} {r.choice(['March', 'June', 'October'])} {r.randint(1950, 2020)}",
        y=r.randint(1980, 2024),
        n=r.randint(2, 900),
        f=f"{r.uniform(0, 40):.2f}",
    )


_POOL: list[str] = []


def _paragraph(r: random.Random) -> str:
    if not _POOL:
        rng = random.Random(11)
        _POOL.extend(_sentence(rng) for _ in range(20_000))
    return " ".join(r.choices(_POOL, k=r.randint(3, 8)))


def make_corpus(root: Path, total_bytes: int, seed: int = 7) -> tuple[int, int]:
    r = random.Random(seed)
    written = files = 0
    while written < total_bytes:
        kind = r.choices(["txt", "md", "html", "jsonl"], weights=[6, 2, 1, 1])[0]
        paras = [_paragraph(r) for _ in range(r.randint(4, 30))]
        if kind == "txt":
            body = "\n\n".join(paras) + "\n"
        elif kind == "md":
            body = "".join(f"## Section {i}\n\n{p}\n\n" for i, p in enumerate(paras))
        elif kind == "html":
            body = (
                "<html><head><title>Report</title><style>p{}</style></head><body>"
                + "".join(f"<p>{p.replace('&', '&amp;')}</p>\n" for p in paras)
                + "<script>var x = 1;</script></body></html>"
            )
        else:
            body = "".join('{"id": %d, "text": "%s"}\n' % (i, p.replace('"', '\\"')) for i, p in enumerate(paras))
        data = body.encode("utf-8")
        sub = root / f"part{files % 16:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"doc{files:05d}.{kind}").write_bytes(data)
        written += len(data)
        files += 1
    return written, files


_WORD = re.compile(r"\w+")


def anchor(root: Path) -> float:
    """Read, decode and word-split every file: the floor for any text pipeline."""
    t = time.perf_counter()
    n = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            with open(os.path.join(dirpath, name), "rb") as f:
                n += len(_WORD.findall(f.read().decode("utf-8")))
    assert n > 0
    return time.perf_counter() - t


def load_extractor(spec: str | None):
    if not spec:
        return None
    spec = {"rules": "semantic_rdf.pipeline.extract:RuleExtractor", "statistical": "semantic_rdf.pipeline.statistical:StatisticalExtractor"}.get(
        spec, spec
    )
    mod, _, attr = spec.partition(":")
    obj = getattr(importlib.import_module(mod), attr or "Extractor")
    return obj() if isinstance(obj, type) else obj


_STAGE_METHODS = {
    "ingest": ("ingester", "ingest"),
    "parse": ("parser", "parse"),
    "normalize": ("normalizer", "normalize"),
    "split": ("splitter", "split"),
    "extract": ("extractor", "extract"),
}


class _CpuCounted:
    """A pipeline stage whose method adds the CPU time of its thread to `cpus[stage]`."""

    def __init__(self, inner, method: str, stage: str, cpus: dict[str, float]):
        self._inner, self._stage, self._cpus = inner, stage, cpus
        setattr(self, method, self._timed(getattr(inner, method)))

    def _timed(self, f):
        def timed(*a, **kw):
            c0 = time.thread_time()
            try:
                return f(*a, **kw)
            finally:
                self._cpus[self._stage] += time.thread_time() - c0

        return timed

    def __getattr__(self, name):
        return getattr(self._inner, name)


def _count_stage_cpu(pipe) -> dict[str, float]:
    cpus = dict.fromkeys(_STAGE_METHODS, 0.0)
    for stage, (attr, method) in _STAGE_METHODS.items():
        obj = getattr(pipe, attr)
        if obj is not None:
            setattr(pipe, attr, _CpuCounted(obj, method, stage, cpus))
    return cpus


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=10.0, help="corpus size in MB (default 10)")
    ap.add_argument("--splitter", default="sentences", help="splitter spec (default sentences)")
    ap.add_argument("--extractor", default=None, help="rules, or module:Class of an Extractor to include")
    ap.add_argument("--store", action="store_true", help="also write everything into an in-memory AssertionStore")
    ap.add_argument("--disk", action="store_true", help="with --store: an on-disk store, as `semantic-rdf ingest` writes")
    ap.add_argument(
        "--side-tables",
        action="store_true",
        help="with --store: also index each batch in the side tables (HDC vectors, paths), as `semantic-rdf ingest` does",
    )
    ap.add_argument(
        "--read-ahead",
        default="auto",
        choices=["auto", "thread", "child"],
        help="with --store: where the pipeline runs ahead of the store writes (default auto, as `ingest`)",
    )
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        root = Path(tmp) / "corpus"
        root.mkdir()
        t = time.perf_counter()
        size, files = make_corpus(root, int(args.mb * 1_000_000))
        gen = time.perf_counter() - t
        mb = size / 1_000_000
        print(f"corpus: {files} files, {mb:.2f} MB (generated in {gen:.1f} s)")

        base = min(anchor(root) for _ in range(2))
        pipe = build_pipeline([str(root)], splitter=args.splitter, extractor=load_extractor(args.extractor))
        writes = {"store:docs": 0.0, "store:assert": 0.0}
        mode = choose(pipe, [str(root)], args.read_ahead) if args.store else "none"
        # a child process runs its own copy of the stages: their CPU is its CPU, not counted per stage here
        cpus = _count_stage_cpu(pipe) if mode != "child" else dict.fromkeys(_STAGE_METHODS, 0.0)
        docs = chunks = triples = failed = 0
        cpu = time.process_time()
        child0 = _children_cpu()
        t = time.perf_counter()
        if args.store:
            from semantic_rdf.pipeline.load import load
            from semantic_rdf.store.assertions import AssertionStore

            store = AssertionStore.open(Path(tmp) / "store") if args.disk else AssertionStore.memory()
            # what the store's subscribers do (a Memory following the committed batches: the side tables), timed
            # apart from the write that published it
            told = {"wall": 0.0, "cpu": 0.0}

            def publish(event, _f=store.publish) -> None:
                t0, c0 = time.perf_counter(), time.thread_time()
                try:
                    _f(event)
                finally:
                    told["wall"] += time.perf_counter() - t0
                    told["cpu"] += time.thread_time() - c0

            store.publish = publish  # type: ignore[method-assign]
            for name, key in (("add_documents", "store:docs"), ("assert_triples", "store:assert")):

                def timed(*a, _f=getattr(store, name), _k=key, **kw):
                    t0, c0, w0, p0 = time.perf_counter(), time.thread_time(), told["wall"], told["cpu"]
                    try:
                        return _f(*a, **kw)
                    finally:
                        writes[_k] += time.perf_counter() - t0 - (told["wall"] - w0)
                        cpus[_k] = cpus.get(_k, 0.0) + time.thread_time() - c0 - (told["cpu"] - p0)

                setattr(store, name, timed)
            hook = mem = None
            if args.side_tables:
                from semantic_rdf.hdc.memory import Memory, after_ingest_hook, follow_in_step

                # as `ingest`: a Memory follows the batches' events when the side tables are in step (a new store's
                # are); the hook indexes each batch otherwise (and does nothing while a Memory follows)
                mem = follow_in_step(store) if args.disk else Memory.attach(store, reconcile=False)
                index = after_ingest_hook(store)
                writes["side tables"] = 0.0

                def hook(report, _index=index) -> None:
                    t0, c0 = time.perf_counter(), time.thread_time()
                    try:
                        _index(report)
                    finally:
                        writes["side tables"] += time.perf_counter() - t0
                        cpus["side tables"] = cpus.get("side tables", 0.0) + time.thread_time() - c0

            summary = load(store, pipe, [str(root)], read_ahead=mode, on_commit=hook)
            if args.side_tables:
                writes["side tables"] += told["wall"]
                cpus["side tables"] = cpus.get("side tables", 0.0) + told["cpu"]
            docs, chunks, triples, failed = summary.documents, summary.chunks, summary.extracted, len(summary.failed)
            stored = f"; stored {summary.new} new + {summary.repeated} repeated assertions"
        else:
            stored = ""
            for res in pipe.run(str(root)):
                if res.error is not None:
                    failed += 1
                    continue
                docs += 1
                chunks += len(res.chunks)
                triples += len(res.triples)
        total = time.perf_counter() - t
        parent_cpu = time.process_time() - cpu
        child_cpu = _children_cpu() - child0
        cpu = parent_cpu + child_cpu
        floor = None
        if args.store:
            # Oxigraph's own floor for the same data: load the quads the store ended up holding
            dump, nquads = store.export("nquads"), store.quad_count()
            store.close()
            if mem is not None:  # after the store: its `closed` event leaves the side tables' mark
                mem.close()
            fresh = ox.Store(str(Path(tmp) / "floor")) if args.disk else ox.Store()
            t0 = time.perf_counter()
            if args.disk:
                fresh.bulk_load(dump, format=ox.RdfFormat.N_QUADS)
                fresh.flush()
            else:
                fresh.load(dump, format=ox.RdfFormat.N_QUADS)
            floor = (nquads, time.perf_counter() - t0)
            del fresh

    load1, load5, _ = os.getloadavg()
    print(f"load average {load1:.2f} / {load5:.2f} (1 / 5 min) on {os.cpu_count()} cores; pipeline CPU time {cpu:.2f} s of {total:.2f} s wall")
    if args.store:
        where = {
            "child": f"in a forked child process ({child_cpu:.2f} CPU-s there, {parent_cpu:.2f} CPU-s in this one)",
            "thread": "in a worker thread of this process",
        }[mode]
        print(f"read-ahead: the pipeline ran {where}")
    print(f"anchor (read + decode + regex words): {base:.3f} s = {mb / base:.1f} MB/s")
    print(
        f"pipeline: {total:.3f} s = {mb / total:.2f} MB/s, {total / base:.1f}x the anchor; "
        f"{docs} documents, {chunks} chunks, {triples} assertions, {failed} failed{stored}"
    )
    if triples:
        print(f"assertions/s: {triples / total:.0f}")
    stages = dict(pipe.timings)
    if pipe.extractor is None:
        stages.pop("extract", None)
    if args.store:
        stages.update(writes)
        nquads, floor_s = floor
        w = writes["store:docs"] + writes["store:assert"]
        how = "bulk_load into a fresh on-disk Store" if args.disk else "Store.load into a fresh in-memory Store"
        print(
            f"store floor: Oxigraph alone ({how}) takes {floor_s:.3f} s for the {nquads:,} quads the store holds; "
            f"the store's checked writes took {w:.3f} s = {w / floor_s:.1f}x that"
        )
    print(
        "where the time goes (wall: seconds in the stage's thread, GIL waits included; with --store the"
        " pipeline stages run in a worker thread while the store writes, so wall times overlap;"
        " cpu: that thread's CPU seconds):"
    )
    if mode == "child":
        print(
            "  (the stages ran in the children: their wall times there are shown as CPU; with the parent writing the store"
            " meanwhile, they include waits for a core)"
        )
        cpus.update({k: v for k, v in stages.items() if k in _STAGE_METHODS})
    for stage, secs in stages.items():
        c = cpus.get(stage, 0.0)
        speed = f"{mb / c:8.1f} MB/s" if c > 0 else "       -    "
        print(f"  {stage:<12} wall {secs:7.3f} s  cpu {c:7.3f} s {c / cpu if cpu else 0:6.1%}  {speed} (cpu)  {c / base:5.1f}x anchor")
    staged = sum(cpus.get(k, 0.0) for k in stages)
    other = f"{cpu - staged:7.3f} s" if cpu >= staged else "    n/a  "  # the children's waits counted above
    print(f"  {'(other)':<12} cpu {other}  (process CPU {cpu:.3f} s, wall {total:.3f} s)")
    target = 1.0
    print(f"target >= {target} MB/s end to end: {'met' if mb / total >= target else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
