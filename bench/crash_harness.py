"""Crash consistency: SIGKILL a writer at random moments, then check what survived.

    python bench/crash_harness.py --trials 50              # kills `semantic-rdf ingest` (the acceptance run)
    python bench/crash_harness.py --trials 50 --mode driver

Modes (both write through the real store and side tables; a store is reused across `--reuse` trials, so
most trials also start from the state the previous kill left behind):
  ingest  `python -m semantic_rdf --json ingest DIR` over a fresh directory of INGEST_DOCS generated documents
          (6,000 assertions: ingest writes them in checked batches of up to 20,000 triples, so the first
          batch is all of them, well over 50,000 quads, and takes the journaled bulk path of store.commit;
          each batch is then indexed in the side tables). A run that finishes before the kill prints its
          summary: its ids are acknowledged.
  driver  a child process that writes batches through AssertionStore.assert_triples, indexes each in
          the side tables and prints the batch's ids (flushed) after both commits: each printed line
          is acknowledged. Starts faster, so the kill lands mid-batch far more often. In trials whose
          kill is aimed at the bulk window or placed after a bulk acknowledgement, every fifth batch (the
          third of each child) holds BIG assertions (> 50,000 quads): the journaled bulk path.

Kill moments: in a `--journal-share` of the trials the harness waits until `<store>/journal.nq` exists (a
bulk batch is journaled and being bulk loaded) and kills within JOURNAL_WINDOW seconds of that; the other
trials are killed at a uniformly random moment, except (forked driver, `ack_share`) those killed within
0.3 s of a bulk batch's acknowledgement (an acknowledged bulk batch must survive the kill that follows);
in ingest mode that share (`ack_share`, 15 %) runs to completion unkilled, so acknowledgements exist under
any load. Every acknowledgement is checked again after every later kill on the same store. After each kill
the harness records whether a journal (or a half-written journal.tmp) was left behind: those are kills that
landed in the bulk window, and the next open must replay (or drop) them.

After each kill the harness checks: the store opens; the compiled shapes find no violation in the
whole store and store.integrity() is empty; every acknowledged id is present; every batch (one
document's assertions) is all there or not there at all; acknowledged ids are in the side tables,
and after reconcile the side-table facts equal the store's believed facts exactly.
Prints one line per trial and a summary; exit 1 if any trial lost data or left an invalid store.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

PER_BATCH = 12  # assertions per generated document / small driver batch
BIG = 1_800  # assertions in a big driver batch: ~56k quads, over store._BULK_THRESHOLD (50,000)
INGEST_DOCS = 500  # documents per ingest trial: 6,000 assertions, all in the first ingest batch
JOURNAL_WINDOW = {"ingest": 1.5, "driver": 0.35}  # seconds after the journal appears within which to kill


def batch_size(batch: int) -> int:
    """In a trial whose driver writes big batches (trial n numbers its batches n*1000...), batches n*1000+2,
    n*1000+7, ... are big; all others (and every ingested document) hold PER_BATCH."""
    return BIG if _BIG_ON.get(batch // 1000, False) and batch % 5 == 2 else PER_BATCH


_BIG_ON: dict[int, bool] = {}  # trial number -> its driver writes big batches (set by `trial`)


def sentences(batch: int) -> list[tuple[str, str, str]]:
    """The claims of one batch: names unique to the batch, so batches share no id."""
    return [(f"Quill{batch}x{k} Varnel", "born_in", f"Ostrava{batch}y{k}") for k in range(batch_size(batch))]


def text_of(batch: int) -> str:
    return " ".join(f"{s} was born in {o}." for s, _, o in sentences(batch))


def expected_ids(batch: int) -> set[str]:
    from semantic_rdf.core.identity import assertion_id

    return {assertion_id(s, p, o) for s, p, o in sentences(batch)}


def _side(store_dir: Path):
    from semantic_rdf.hdc.gate import Config
    from semantic_rdf.hdc.sidetables import SideTables, side_path

    cfg = Config()
    return SideTables(side_path(store_dir), cfg, cfg.encoder(None))


# ------------------------------------------------------------------ child: the driver writer


def child(store_dir: Path, first: int, count: int, out=None, big: bool = False) -> None:
    from semantic_rdf.store.assertions import AssertionStore
    from semantic_rdf.core.values import Chunk, Doc, Triple

    def say(obj) -> None:
        line = (json.dumps(obj) + "\n").encode()
        if out is None:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
        else:
            out(line)

    _BIG_ON[first // 1000] = big
    store = AssertionStore.open(store_dir)
    side = _side(store_dir)
    say({"ready": True})
    for b in range(first, first + count):
        text = text_of(b)
        doc = Doc(f"crash-doc-{b}", f"crash-doc-{b}.txt", text, {"media_type": "text/plain"})
        chunk = Chunk(doc.id, 0, text, 0, len(text))
        triples, pos = [], 0
        for s, p, o in sentences(b):
            sent = f"{s} was born in {o}."
            start = text.index(sent, pos)
            pos = start + len(sent)
            triples.append(Triple(s, p, o, chunk, 0.9, start=start, end=pos))
        with store.run("ingestion", agent="crash-driver") as run:
            store.add_document(doc, run)
            rep = store.assert_triples(triples, run=run)
        side.put_facts([(t.id, t.subject, t.predicate, t.object) for t in triples])
        say({"batch": b, "ids": rep.ids, "quads": rep.quads_added})
    store.close()


# ------------------------------------------------------------------ checks


@dataclass
class Verdict:
    trial: int
    acked: int = 0
    present: int = 0
    lost: list[str] = field(default_factory=list)
    half_batches: list[int] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    side_missing: int = 0
    side_mismatch: int = 0
    opened: bool = True
    error: str = ""
    acked_ids: frozenset[str] = frozenset()
    journal: bool = False  # the kill left <store>/journal.nq behind (landed while a bulk batch was journaled)
    journal_tmp: bool = False  # the kill left a half-written journal.tmp (an unacknowledged batch)
    aimed: bool = False  # this trial's kill was aimed at the journal window
    bulk_acked: int = 0  # acknowledged batches that took the bulk path (driver mode: > 50,000 quads)

    @property
    def ok(self) -> bool:
        return (
            self.opened
            and not self.lost
            and not self.half_batches
            and not self.violations
            and not self.side_missing
            and not self.side_mismatch
            and not self.error
        )

    def line(self) -> str:
        return (
            f"trial {self.trial:3d}: acked {self.acked:4d}  present {self.present:5d}  lost {len(self.lost)}  "
            f"half {len(self.half_batches)}  violations {len(self.violations)}  "
            f"side-missing {self.side_missing}  side-mismatch {self.side_mismatch}"
            + ("  [killed with journal]" if self.journal else "")
            + ("  [journal.tmp]" if self.journal_tmp else "")
            + (f"  bulk-acked {self.bulk_acked}" if self.bulk_acked else "")
            + (f"  ERROR {self.error}" if self.error else "")
            + ("" if self.ok else "  FAIL")
        )


def verify(store_dir: Path, acked: set[str], batches: range, trial: int, earlier: frozenset[str] = frozenset()) -> Verdict:
    """`acked`: this trial's acknowledgements; `earlier`: those of earlier trials on the same store, which
    must also have survived this trial's kill (a crash mid bulk load must not take older data with it)."""
    from semantic_rdf.hdc.memory import believed_facts
    from semantic_rdf.rdf.shapes import fast_checker
    from semantic_rdf.store.assertions import JOURNAL, AssertionStore

    v = Verdict(trial, acked=len(acked), acked_ids=frozenset(acked))
    v.journal = (store_dir / JOURNAL).exists()
    v.journal_tmp = (store_dir / JOURNAL).with_suffix(".tmp").exists()
    try:
        store = AssertionStore.open(store_dir)
    except Exception as exc:  # noqa: BLE001 - the verdict reports it
        v.opened, v.error = False, f"{type(exc).__name__}: {exc}"
        return v
    try:
        rep = fast_checker().check_store(store.ox, limit=20)
        v.violations = list(rep.violations) + store.integrity()
        ids = set(store.ids())
        v.present = len(ids)
        v.lost = sorted((acked | earlier) - ids)
        for b in batches:
            n = len(expected_ids(b) & ids)
            if n not in (0, batch_size(b)):
                v.half_batches.append(b)
        side = _side(store_dir)
        try:
            v.side_missing = len(acked - side.fact_ids())
            facts = believed_facts(store)
            side.reconcile(facts)
            v.side_mismatch = len(side.fact_ids() ^ {f[0] for f in facts})
        finally:
            side.close()
    except Exception as exc:  # noqa: BLE001
        v.error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    finally:
        store.close()
    return v


def _read_acked(out: bytes, mode: str) -> set[str]:
    acked: set[str] = set()
    if mode == "ingest":
        try:
            acked.update(json.loads(out.decode("utf-8"))["ids"])
        except (ValueError, KeyError):
            pass  # killed before the summary: nothing acknowledged
        return acked
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut by the kill is not an acknowledgement
        acked.update(rec.get("ids", ()))
    return acked


def _bulk_acked(out: bytes) -> int:
    from semantic_rdf.store.assertions import _BULK_THRESHOLD

    n = 0
    for line in out.decode("utf-8", "replace").splitlines():
        try:
            n += json.loads(line).get("quads", 0) > _BULK_THRESHOLD
        except (ValueError, AttributeError):
            continue
    return n


def _forked_child(store_dir: str, first: int, count: int, conn, big: bool) -> None:
    child(Path(store_dir), first, count, out=conn.send_bytes, big=big)


_CTX = None


def _context():
    """A fork server with the store modules preloaded: children start writing at once, and are forked
    from a clean single-threaded process (forking the caller, which may run threads, could deadlock)."""
    global _CTX
    if _CTX is None:
        import multiprocessing as mp

        _CTX = mp.get_context("forkserver")
        _CTX.set_forkserver_preload(
            ["semantic_rdf.store.assertions", "semantic_rdf.hdc.sidetables", "semantic_rdf.hdc.gate", "semantic_rdf.core.values"]
        )
    return _CTX


@dataclass
class Kill:
    """When to kill: `delay` seconds after the start; or (aimed) `delay` seconds after the journal appears;
    or (after_ack, forked driver only) `delay` seconds after a bulk batch was acknowledged."""

    delay: float
    aimed: bool
    journal: Path
    after_ack: bool = False
    limit: float = 120.0  # a kill waiting for an event that never comes is made this long after the start

    def due(self, t0: float, seen: list[float], out: bytes = b"") -> bool:
        now = time.perf_counter()
        if not (self.aimed or self.after_ack):
            return now - t0 >= self.delay
        if not seen and (self.journal.exists() if self.aimed else _bulk_acked(out) > 0):
            seen.append(now)
        return (bool(seen) and now - seen[0] >= self.delay) or now - t0 >= self.limit


def _forked_trial(store_dir: Path, first: int, count: int, kill: Kill, big: bool) -> bytes:
    """The driver in a fork-server child, SIGKILLed at `kill` (timed from when it has opened the store)."""
    ctx = _context()
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_forked_child, args=(str(store_dir), first, count, send, big), daemon=True)
    proc.start()
    send.close()
    buf = bytearray()

    def drain(timeout: float) -> bool:
        try:
            while recv.poll(timeout):
                buf.extend(recv.recv_bytes())
                timeout = 0
        except (EOFError, OSError):
            return False
        return True

    if recv.poll(120):  # "ready": the child has opened the store (never wait forever)
        drain(0)
    t0, seen = time.perf_counter(), []
    while proc.is_alive() and not kill.due(t0, seen, bytes(buf) if kill.after_ack else b""):
        proc.join(0.002)
        if kill.after_ack:
            drain(0)
    if proc.is_alive():
        proc.kill()
    proc.join(30)
    drain(0)  # whatever was fully sent before the kill; a message cut by the kill is not acknowledged
    recv.close()
    return bytes(buf)


def _killed_process(cmd: list[str], env: dict, kill: Kill, wait_ready: bool) -> bytes:
    """Run `cmd`, reading its stdout all along (a big --json summary must not block it), and SIGKILL it at `kill`."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=str(REPO))
    head = proc.stdout.readline() if wait_ready else b""  # the driver has opened the store
    t0, seen = time.perf_counter(), []
    while True:
        try:
            out, _ = proc.communicate(timeout=0.003)
            return head + out
        except subprocess.TimeoutExpired:
            pass
        if kill.due(t0, seen):
            proc.send_signal(signal.SIGKILL)
            out, _ = proc.communicate()
            return head + out


def trial(
    store_dir: Path,
    n: int,
    rng: random.Random,
    mode: str,
    max_delay: float,
    work: Path,
    fork: bool = False,
    journal_share: float = 0.5,
    ack_share: float = 0.15,
    earlier: frozenset[str] = frozenset(),
) -> Verdict:
    """One kill. Driver mode: an aimed trial (share `journal_share`) and, forked, an after-ack trial (share
    `ack_share`: killed just after a bulk batch was acknowledged) write big batches; the others small ones.
    Ingest mode: a share `ack_share` of the trials is not killed: the run completes and acknowledges its
    6,000 assertions, which every later kill on the same store (`earlier`) must leave in place."""
    from semantic_rdf.store.assertions import JOURNAL

    first = n * 1000
    count = 40 if mode == "driver" else INGEST_DOCS
    r = rng.random()
    aimed = r < journal_share
    after_ack = (mode == "ingest" or fork) and not aimed and r < journal_share + ack_share
    big = mode == "driver" and (aimed or after_ack)
    _BIG_ON[n] = big
    if aimed:
        kill = Kill(rng.uniform(0.0, JOURNAL_WINDOW[mode]), True, store_dir / JOURNAL)
    elif after_ack and mode == "ingest":
        kill = Kill(float("inf"), False, store_dir / JOURNAL, limit=float("inf"))  # runs to its summary
    elif after_ack:
        kill = Kill(rng.uniform(0.0, 0.3), False, store_dir / JOURNAL, after_ack=True)
    else:
        kill = Kill(rng.uniform(0.0 if mode == "driver" else 0.05, max_delay), False, store_dir / JOURNAL)
    if mode == "driver" and fork:
        out = _forked_trial(store_dir, first, count, kill, big)
    else:
        env = dict(os.environ, PYTHONPATH=str(REPO))
        if mode == "driver":
            cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(store_dir), str(first), str(count), str(int(big))]
        else:
            d = work / f"docs-{n}"
            d.mkdir()
            for b in range(first, first + count):
                (d / f"doc-{b}.txt").write_text(text_of(b) + "\n", encoding="utf-8")
            cmd = [sys.executable, "-m", "semantic_rdf", "--store", str(store_dir), "--json", "ingest", str(d)]
        out = _killed_process(cmd, env, kill, wait_ready=mode == "driver")
    v = verify(store_dir, _read_acked(out, mode), range(first, first + count), n, earlier)
    v.aimed = aimed
    if mode == "driver":
        v.bulk_acked = _bulk_acked(out)
    return v


def run(
    trials: int,
    mode: str,
    seed: int,
    max_delay: float | None = None,
    quiet: bool = False,
    fork: bool = False,
    journal_share: float = 0.5,
    reuse: int = 0,
    ack_share: float = 0.15,
) -> list[Verdict]:
    """`reuse` > 0 starts a fresh store every `reuse` trials (bounds the store, and so the checks, in size)."""
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="crash-"))
    delay = max_delay if max_delay is not None else (1.5 if mode == "driver" else 25.0)
    out: list[Verdict] = []
    acked: dict[Path, set[str]] = {}  # every acknowledged id of each store, checked again after every later kill
    try:
        for n in range(trials):
            store_dir = work / f"store-{n // reuse if reuse else 0}"
            before = acked.setdefault(store_dir, set())
            v = trial(store_dir, n, rng, mode, delay, work, fork, journal_share, ack_share, frozenset(before))
            before.update(v.acked_ids)
            out.append(v)
            if not quiet:
                print(v.line(), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--mode", choices=["ingest", "driver"], default="ingest")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--max-delay", type=float, default=None, help="kill within this many seconds of the start")
    ap.add_argument("--journal-share", type=float, default=0.4, help="share of trials whose kill is aimed at the journaled bulk window")
    ap.add_argument(
        "--ack-share", type=float, default=0.15, help="share of trials killed after a bulk acknowledgement (driver) / not killed (ingest)"
    )
    ap.add_argument("--reuse", type=int, default=5, help="a fresh store every REUSE trials (0: one store)")
    ap.add_argument("--child", nargs=4, metavar=("STORE", "FIRST", "COUNT", "BIG"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        child(Path(a.child[0]), int(a.child[1]), int(a.child[2]), big=a.child[3] == "1")
        return 0
    t0 = time.perf_counter()
    verdicts = run(a.trials, a.mode, a.seed, a.max_delay, journal_share=a.journal_share, reuse=a.reuse, ack_share=a.ack_share)
    lost = sum(len(v.lost) for v in verdicts)
    invalid = sum(1 for v in verdicts if v.violations or not v.opened or v.error)
    half = sum(len(v.half_batches) for v in verdicts)
    side = sum(v.side_missing + v.side_mismatch for v in verdicts)
    acked = sum(v.acked for v in verdicts)
    acked_trials = sum(1 for v in verdicts if v.acked)
    print(
        f"\n{a.mode}: {len(verdicts)} trials in {time.perf_counter() - t0:.1f} s; acknowledged {acked} (in {acked_trials} trials); "
        f"lost acknowledged assertions {lost}; invalid stores {invalid}; half batches {half}; "
        f"side-table mismatches {side}"
    )
    print(
        f"kills aimed at the bulk window {sum(v.aimed for v in verdicts)}; kills that left journal.nq (landed "
        f"while a bulk batch was journaled) {sum(v.journal for v in verdicts)}; kills that left journal.tmp "
        f"{sum(v.journal_tmp for v in verdicts)}"
        + (f"; acknowledged bulk batches {sum(v.bulk_acked for v in verdicts)}" if a.mode == "driver" else "")
    )
    return 0 if all(v.ok for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
