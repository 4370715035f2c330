"""Trace and as-of read latency with N assertions stored (default 100,000).

    python3 bench/bench_provenance.py [N] [--memory-only] [--compare-match]

Builds a store with the real record layout (layout.py): N assertions read from 1,000 documents by 100
extraction runs, 5% of them derived (two antecedents each, some in chains), 10% retracted, record times
spread over N seconds. Then measures, over random ids / subjects:
  * trace()            the full provenance tree (queries/trace-nodes.rq + detail lookups), without span text
  * trace(with_text)   the same, quoting each span from the stored document text
  * trace.rq           the portable edge query alone (what `push` targets run)
  * trace-nodes.rq     the query trace() runs, alone
  * as_of()            an as-of read of one subject at a random record-time instant (queries/asof.rq)
  * believed_facts()   the whole store's believed facts, once (memory.believed_facts, queries/believed.rq);
                       with --compare-match also the whole-store queries/match.rq it replaced, rows alike
Targets (issue 4): trace p95 <= 5 ms, as-of p95 <= 10 ms. Ratios are printed against an anchor measured
in the same run: one record's quads by pattern (a point lookup), so machines can be compared.

The same store is then copied into an on-disk (RocksDB) store in a temporary directory, compacted
(Store.optimize, as `semantic-rdf compact` leaves a store and as RocksDB's background compaction
converges after a bulk load; measuring while that compaction still runs measures its CPU use instead),
closed and opened again with AssertionStore.open(path): a store a user has, with a cold block cache.
It is measured in the same run, after the in-memory figures, each against its own anchor. The targets
are about that on-disk store. --memory-only skips it. The load average is printed with the figures
(the p95 of a millisecond operation depends on how busy the CPUs are).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, not an installed one

import pyoxigraph as ox  # noqa: E402

from semantic_rdf.rdf import layout as L  # noqa: E402
from semantic_rdf.lifecycle import provenance as PV  # noqa: E402
from semantic_rdf.lifecycle import temporal as T  # noqa: E402
from semantic_rdf.core.identity import assertion_id  # noqa: E402
from semantic_rdf.hdc.memory import believed_facts  # noqa: E402
from semantic_rdf.rdf.queries import packaged  # noqa: E402
from semantic_rdf.store.assertions import AssertionStore  # noqa: E402
from semantic_rdf.core.values import Doc, Triple  # noqa: E402
from semantic_rdf.core.vocab import (  # noqa: E402
    M,
    P,
    PROVENANCE_GRAPH,
    assertion_iri,
    agent_iri,
    id_of,
    segment_iri,
)

PREDICATES = ["located_in", "born_in", "employed_by", "member_of", "wrote", "founded", "studied_at", "part_of"]
G = PROVENANCE_GRAPH
BATCH = 250_000


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def build(store: AssertionStore, n: int, rng: random.Random) -> tuple[list[str], list[str], list[str], datetime]:
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    n_ent = max(10, n // 5)
    names = [f"Entity {i}" for i in range(n_ent)]
    quads: list[ox.Quad] = []
    extracted: list[tuple[str, str, str, str]] = []
    derived_ids: list[str] = []

    def flush(force: bool = False) -> None:
        if quads and (force or len(quads) >= BATCH):
            store.commit(quads, check=())  # built by the same layout functions the store uses; tests check those
            quads.clear()

    for nm in names:
        quads += L.entity_quads(nm, None)
    ag = agent_iri("bench-extractor")
    quads += L.agent_quads(ag, "bench-extractor", "software")
    runs = []
    for r in range(100):
        run = segment_iri("run", f"bench-{r}")
        quads += L.activity_quads(run, M.Ingestion, ag, base, None, None)
        runs.append(run)
    n_docs = 1000
    n_derived = n // 20
    per_doc = (n - n_derived) // n_docs + 1
    seen: set[str] = set()
    i = 0
    for d in range(n_docs):
        sentences, claims = [], []
        for _ in range(per_doc):
            if i >= n - n_derived:
                break
            while True:
                s, p, o = rng.choice(names), rng.choice(PREDICATES), rng.choice(names)
                aid = assertion_id(s, p, o)
                if s != o and aid not in seen:
                    seen.add(aid)
                    break
            sentences.append(f"{s} {p.replace('_', ' ')} {o}.")
            claims.append((aid, s, p, o))
            i += 1
        text = " ".join(sentences)
        doc = Doc(f"bench/doc-{d}.txt", f"bench/doc-{d}.txt", text)
        sha = L.doc_sha256(doc)
        diri = L.doc_iri(doc.id, sha)
        quads += L.document_quads(doc, diri, sha)
        run = runs[d % len(runs)]
        quads.append(ox.Quad(run, P.used, diri, G))
        pos = 0
        for (aid, s, p, o), sent in zip(claims, sentences):
            at = base + timedelta(seconds=len(extracted))
            t = Triple(s, p, o)
            quads += L.record_quads(aid, t, [M.ExtractedAssertion], 1.0, 1, at, run, None)
            quads.append(L.claim_quad(aid, t))
            src = L.span_iri(aid, diri, pos, pos + len(sent))
            quads += L.span_source_quads(src, diri, pos, pos + len(sent), 0, 1.0, at, run)
            quads.append(ox.Quad(assertion_iri(aid), P.wasDerivedFrom, src, G))
            pos += len(sent) + 1
            extracted.append((aid, s, p, o))
        flush()
    # derived: two antecedents each; every tenth builds on an earlier derived one (chains)
    drun = segment_iri("run", "bench-derivation")
    rag = agent_iri("reasoner")
    quads += L.agent_quads(rag, "reasoner", "software")
    quads += L.activity_quads(drun, M.Derivation, rag, base, None, None)
    rule = segment_iri("rule", "bench-rule-00000000")
    quads += L.plan_quads(rule, M.Rule, "bench-rule")
    pool = [e[0] for e in extracted]
    for k in range(n_derived):
        a1 = derived_ids[-1] if derived_ids and k % 10 else rng.choice(pool)
        a2 = rng.choice(pool)
        while True:
            s, p, o = rng.choice(names), rng.choice(PREDICATES), rng.choice(names)
            aid = assertion_id(s, p, o)
            if s != o and aid not in seen:
                seen.add(aid)
                break
        at = base + timedelta(seconds=len(extracted) + k)
        t = Triple(s, p, o)
        quads += L.record_quads(aid, t, [M.DerivedAssertion], 1.0, 2, at, drun, None)
        quads.append(L.claim_quad(aid, t))
        quads.append(ox.Quad(assertion_iri(aid), M.rule, rule, G))
        quads += [ox.Quad(assertion_iri(aid), P.wasDerivedFrom, assertion_iri(x), G) for x in (a1, a2)]
        derived_ids.append(aid)
        flush()
    # retract 10% (closing their first belief interval half-way through the record-time range)
    rrun = segment_iri("run", "bench-retraction")
    quads += L.activity_quads(rrun, M.Retraction, ag, base, None, None)
    end = base + timedelta(seconds=n)
    for aid, *_ in rng.sample(extracted, len(extracted) // 10):
        b = L.belief_iri(aid, 1)
        quads += [ox.Quad(b, M.believedUntil, L.dt(end - timedelta(seconds=n // 4)), G), ox.Quad(b, M.closedBy, rrun, G)]
    flush(force=True)
    return [e[0] for e in extracted], derived_ids, names, end


def timed(fn, items) -> list[float]:
    out = []
    for x in items:
        t = time.perf_counter()
        fn(x)
        out.append((time.perf_counter() - t) * 1000)
    return out


def measure(store: AssertionStore, label: str, extracted: list[str], derived: list[str], names: list[str], end: datetime, n: int) -> None:
    rng = random.Random(44)
    h = min(200, len(extracted), len(derived))
    k = 2 * h
    sample = rng.sample(extracted, h) + rng.sample(derived, h)
    subjects = [rng.choice(names) for _ in range(k)]
    base = end - timedelta(seconds=n)
    instants = [base + timedelta(seconds=rng.uniform(0, n)) for _ in range(k)]

    def anchor(aid: str) -> None:
        list(store.ox.quads_for_pattern(assertion_iri(aid), None, None, G))

    # warm up (the on-disk store's block cache too)
    for aid in sample[:40]:
        PV.trace(store, aid)
        anchor(aid)
    for i in range(20):
        T.as_of(store, subjects[i], instants[i])
    res = {
        "anchor: one record by pattern": timed(anchor, sample),
        "trace.rq (query only)": timed(lambda a: store.run_query("trace", root=assertion_iri(a)), sample),
        "trace-nodes.rq (query only)": timed(lambda a: store.run_query("trace-nodes", root=assertion_iri(a)), sample),
        "trace()": timed(lambda a: PV.trace(store, a, with_text=False), sample),
        "trace() extracted only": timed(lambda a: PV.trace(store, a, with_text=False), sample[:h]),
        "trace() derived only": timed(lambda a: PV.trace(store, a, with_text=False), sample[h:]),
        "trace(with_text)": timed(lambda a: PV.trace(store, a, with_text=True), sample),
        "as_of(subject, instant)": timed(lambda i: T.as_of(store, subjects[i], instants[i]), range(k)),
        "as_of(subject) now": timed(lambda i: T.as_of(store, subjects[i]), range(k)),
    }
    a50 = pct(res["anchor: one record by pattern"], 0.5)
    print(f"\n[{label}]  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'operation':32} {'p50 ms':>8} {'p95 ms':>8} {'p95/anchor':>11}")
    for name, xs in res.items():
        print(f"{name:32} {pct(xs, 0.5):8.3f} {pct(xs, 0.95):8.3f} {pct(xs, 0.95) / a50:11.1f}")
    tr95 = pct(res["trace()"], 0.95)
    ao95 = pct(res["as_of(subject, instant)"], 0.95)
    print(
        f"targets ({label}): trace p95 {tr95:.2f} ms (<= 5: {'met' if tr95 <= 5 else 'MISSED'}); "
        f"as-of p95 {ao95:.2f} ms (<= 10: {'met' if ao95 <= 10 else 'MISSED'})"
    )
    whole_store_read(store, label)


def whole_store_read(store: AssertionStore, label: str) -> None:
    """believed_facts over the whole store, and (--compare-match) the match.rq read it replaced."""
    t0 = time.perf_counter()
    facts = believed_facts(store)
    t_new = time.perf_counter() - t0
    line = f"believed_facts ({label}): {len(facts):,} facts in {t_new:.2f} s"
    if "--compare-match" in sys.argv:
        t0 = time.perf_counter()
        ids = [id_of(r["a"]) for r in store.ox.query(packaged("match"))]
        t_old = time.perf_counter() - t0
        same = ids == [f[0] for f in facts]
        line += f"; whole-store match.rq (ORDER BY, DISTINCT) {t_old:.2f} s, same ids: {same}"
    print(line + f"  [load {' '.join(f'{x:.2f}' for x in os.getloadavg())}]")


def main() -> None:
    n = int(next((a for a in sys.argv[1:] if a.isdigit()), 100_000))
    rng = random.Random(4)
    store = AssertionStore.memory()
    t0 = time.perf_counter()
    extracted, derived, names, end = build(store, n, rng)
    n_records = len(extracted) + len(derived)
    print(f"built {n_records:,} assertions, {len(store.ox):,} quads in {time.perf_counter() - t0:.1f} s (memory)")
    measure(store, "memory", extracted, derived, names, end, n)
    if "--memory-only" in sys.argv:
        store.close()
        return
    with tempfile.TemporaryDirectory() as tmp:
        disk = AssertionStore.open(tmp)
        t0 = time.perf_counter()
        disk.ox.bulk_extend(store.ox)  # the same quads, written through RocksDB
        disk.ox.flush()
        disk.ox.optimize()
        store.close()
        n_quads = len(disk.ox)
        disk.close()
        disk = AssertionStore.open(tmp)
        print(f"\ncopied {n_quads:,} quads to disk and compacted in {time.perf_counter() - t0:.1f} s; reopened")
        measure(disk, "disk", extracted, derived, names, end, n)
        disk.close()


if __name__ == "__main__":
    main()
