"""push vs the servers' own bulk loaders, same data, same run.

    python3 bench/bench_push.py            # 1,000,000 quads
    python3 bench/bench_push.py --quick    # 100,000 quads
    python3 bench/bench_push.py --only virtuoso --part-mb 16   # Virtuoso only, other part files

Data: N/10 named graphs x 10 quads (typed literals, language tags), like the baseline in
servers-and-baselines.md §3. The store is an on-disk pyoxigraph store. For each server the anchor
is its native loader on the same N-Quads file, already on disk (`oxigraph load` into a new directory,
no server running; Virtuoso: one isql session running ld_dir + rdf_loader_run + checkpoint into a
new database, where one loader already keeps ~1.8 of 2 cores busy), and `push` (as `semantic-rdf
push` runs it: a full push, no change tracking; --track adds the digests a later --since-last push
needs) goes from the store into a new, empty, running server (`oxigraph serve --location` on a new
directory), export included. Push sends Oxigraph server its N-Quads with `?lenient` (they are
Oxigraph's own, and the count is checked), so `oxigraph load --lenient` is printed as a second
anchor. The generated file lists graph after graph; the store's export comes in Oxigraph's index
(hash) order, which Virtuoso's loader takes longer over, the more so on a busy machine. So each
native loader is also timed on that export ("export" rows). Push hands Virtuoso the export in
sorted parts of 8 MB (sparql.sorted_parts), loaded while the export is still written. Virtuoso's
loader on the generated file is timed before and after the push and the mean is the anchor, since
the machine's load drifts. Printed ratio = native seconds / push seconds (target >= 0.5), with the
load average, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import pyoxigraph as ox  # noqa: E402

from semantic_rdf.remote import sparql  # noqa: E402
from semantic_rdf.remote.servers import OxigraphServer, VirtuosoServer, oxigraph_binary  # noqa: E402
from semantic_rdf.remote.sparql import NS_PREFIX  # noqa: E402
from semantic_rdf.remote.sync import export_nquads, push  # noqa: E402

X = "http://www.w3.org/2001/XMLSchema#"


def generate(n: int, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n // 10):
            a = f"<{NS_PREFIX}a/{i}>"
            g = f"<{NS_PREFIX}g/{i}>"
            f.write(
                f"{a} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{NS_PREFIX}ns#Assertion> {g} .\n"
                f"{a} <{NS_PREFIX}ns#subject> <{NS_PREFIX}e/{i % 5000}> {g} .\n"
                f"{a} <{NS_PREFIX}ns#predicate> <{NS_PREFIX}p/{i % 53}> {g} .\n"
                f"{a} <{NS_PREFIX}ns#object> <{NS_PREFIX}e/{(i * 7) % 5000}> {g} .\n"
                f'{a} <{NS_PREFIX}ns#confidence> "0.{i % 97:02d}"^^<{X}decimal> {g} .\n'
                f"{a} <http://www.w3.org/ns/prov#wasDerivedFrom> <{NS_PREFIX}src/{i}> {g} .\n"
                f'{a} <http://www.w3.org/ns/prov#generatedAtTime> "2024-01-01T00:00:{i % 60:02d}Z"^^<{X}dateTime> {g} .\n'
                f"{a} <http://www.w3.org/ns/prov#wasAttributedTo> <{NS_PREFIX}agent/{i % 3}> {g} .\n"
                f'{a} <http://www.w3.org/2000/01/rdf-schema#label> "claim \\"{i}\\" é"@en {g} .\n'
                f'{a} <{NS_PREFIX}ns#count> "{i % 5 + 1}"^^<{X}integer> {g} .\n'
            )


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", "--quant", action="store_true", help="100,000 quads instead of 1,000,000")
    ap.add_argument("--only", choices=["oxigraph", "virtuoso"], default=None)
    ap.add_argument("--track", action="store_true", help="push with change tracking (as push --since-last does first)")
    ap.add_argument(
        "--part-mb", type=float, default=None, help=f"size of the part files push hands Virtuoso's loader (default {sparql.VIRTUOSO_PART >> 20})"
    )
    args = ap.parse_args()
    n = 100_000 if args.quick else 1_000_000
    if args.part_mb:
        sparql.VIRTUOSO_PART = int(args.part_mb * (1 << 20))
    work = tempfile.mkdtemp(prefix="bench-push-")
    try:
        nq = os.path.join(work, "data.nq")
        generate(n, nq)
        store = ox.Store(os.path.join(work, "store"))
        store.bulk_load(path=nq, format=ox.RdfFormat.N_QUADS)
        store.flush()
        assert len(store) == n, len(store)
        print(f"{n:,} quads, {os.path.getsize(nq) / 1e6:.1f} MB of N-Quads")
        exported = os.path.join(work, "export.nq")
        assert export_nquads(store, exported) == n
        rows = []
        if args.only in (None, "oxigraph"):

            def ox_load(name: str, path: str, *flags: str) -> float:
                return timed(
                    lambda: subprocess.run(
                        [oxigraph_binary(), "load", *flags, "--location", os.path.join(work, name), "--file", path], check=True, capture_output=True
                    )
                )[0]

            native = ox_load("ox-native", nq)
            lenient = ox_load("ox-lenient", nq, "--lenient")
            native_export = ox_load("ox-export", exported)
            with OxigraphServer(location=os.path.join(work, "ox-server")) as server:
                t, rep = timed(lambda: push(store, server.dsn, state_dir=os.path.join(work, "state-ox"), track=args.track))
            assert rep.remote == n
            rows.append(("oxigraph server", "oxigraph load", native, t))
            rows.append(("oxigraph server", "oxigraph load --lenient", lenient, t))
            rows.append(("oxigraph server", "oxigraph load, export", native_export, t))
        if args.only in (None, "virtuoso"):

            def vt_load(name: str, path: str) -> float:
                with VirtuosoServer(workdir=os.path.join(work, name), buffers=100000) as v:
                    shutil.copy(path, os.path.join(v.load_dir, "data.nq"))
                    return timed(lambda: v.isql(f"ld_dir('{v.load_dir}', 'data.nq', 'http://example.org/fallback'); rdf_loader_run(); checkpoint;"))[
                        0
                    ]

            before = vt_load("vt-native", nq)
            native_export = vt_load("vt-export", exported)
            with VirtuosoServer(workdir=os.path.join(work, "vt-push"), buffers=100000) as v:
                server0, own0 = _cpu(v.proc.pid), time.process_time()
                t, rep = timed(lambda: push(store, v.bulk_dsn, state_dir=os.path.join(work, "state-vt"), track=args.track))
                server, own = _cpu(v.proc.pid) - server0, time.process_time() - own0
            assert rep.remote == n
            print(
                f"push into Virtuoso: {t:.2f} s, {server:.2f} CPU-s in the server, {own:.2f} in this process"
                f" (parts of {sparql.VIRTUOSO_PART / (1 << 20):g} MB)"
            )
            after = vt_load("vt-native-after", nq)
            print(f"Virtuoso's loader on the generated file: {before:.2f} s before the push, {after:.2f} s after")
            rows.append(("virtuoso (isql loader)", "ld_dir+loader_run, mean", (before + after) / 2, t))
            rows.append(("virtuoso (isql loader)", "same, export", native_export, t))
        print(
            f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores;"
            f" push {'with' if args.track else 'without'} change tracking"
        )
        print(
            "anchors: the server's own loader, one run, on a file already on disk, into a new database;"
            " push: export from the store + load + count check"
        )
        print(f"{'target':<24}{'native loader':<24}{'native s':>10}{'push s':>10}{'ratio':>8}")
        for target, anchor, native, t in rows:
            print(f"{target:<24}{anchor:<24}{native:>10.2f}{t:>10.2f}{native / t:>8.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
