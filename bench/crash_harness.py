"""Crash consistency: SIGKILL a writer at random moments, then check what survived.

    python bench/crash_harness.py --trials 50              # kills `semantic-rdf ingest` (the acceptance run)
    python bench/crash_harness.py --trials 50 --mode driver

Modes (both write through the real store and side tables, one store reused across all trials, so
every trial also starts from the state the previous kill left behind):
  ingest  `python -m semantic_rdf --json ingest DIR` over a fresh directory of generated documents
          (each document one checked batch, each batch then indexed in the side tables). A run that
          finishes before the kill prints its summary: its ids are the acknowledged ones.
  driver  a child process that writes batches through AssertionStore.assert_triples, indexes each in
          the side tables and prints the batch's ids (flushed) after both commits: each printed line
          is acknowledged. Starts faster, so the kill lands mid-batch far more often.

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

PER_BATCH = 12  # assertions per generated document / batch


def sentences(batch: int) -> list[tuple[str, str, str]]:
    """The claims of one batch: names unique to the batch, so batches share no id."""
    return [(f"Quill{batch}x{k} Varnel", "born_in", f"Ostrava{batch}y{k}") for k in range(PER_BATCH)]


def text_of(batch: int) -> str:
    return " ".join(f"{s} was born in {o}." for s, _, o in sentences(batch))


def expected_ids(batch: int) -> set[str]:
    from semantic_rdf.identity import assertion_id

    return {assertion_id(s, p, o) for s, p, o in sentences(batch)}


def _side(store_dir: Path):
    from semantic_rdf.gate import Config
    from semantic_rdf.sidetables import SideTables, side_path

    cfg = Config()
    return SideTables(side_path(store_dir), cfg, cfg.encoder(None))


# ------------------------------------------------------------------ child: the driver writer


def child(store_dir: Path, first: int, count: int, out=None) -> None:
    from semantic_rdf.store import AssertionStore
    from semantic_rdf.values import Chunk, Doc, Triple

    def say(obj) -> None:
        line = (json.dumps(obj) + "\n").encode()
        if out is None:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
        else:
            out(line)

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
        say({"batch": b, "ids": rep.ids})
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

    @property
    def ok(self) -> bool:
        return (self.opened and not self.lost and not self.half_batches and not self.violations
                and not self.side_missing and not self.side_mismatch and not self.error)

    def line(self) -> str:
        return (f"trial {self.trial:3d}: acked {self.acked:4d}  present {self.present:5d}  lost {len(self.lost)}  "
                f"half {len(self.half_batches)}  violations {len(self.violations)}  "
                f"side-missing {self.side_missing}  side-mismatch {self.side_mismatch}"
                + (f"  ERROR {self.error}" if self.error else "") + ("" if self.ok else "  FAIL"))


def verify(store_dir: Path, acked: set[str], batches: range, trial: int) -> Verdict:
    from semantic_rdf.memory import believed_facts
    from semantic_rdf.shapes import fast_checker
    from semantic_rdf.store import AssertionStore

    v = Verdict(trial, acked=len(acked))
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
        v.lost = sorted(acked - ids)
        for b in batches:
            n = len(expected_ids(b) & ids)
            if n not in (0, PER_BATCH):
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


def _forked_child(store_dir: str, first: int, count: int, conn) -> None:
    child(Path(store_dir), first, count, out=conn.send_bytes)


_CTX = None


def _context():
    """A fork server with the store modules preloaded: children start writing at once, and are forked
    from a clean single-threaded process (forking the caller, which may run threads, could deadlock)."""
    global _CTX
    if _CTX is None:
        import multiprocessing as mp

        _CTX = mp.get_context("forkserver")
        _CTX.set_forkserver_preload(["semantic_rdf.store", "semantic_rdf.sidetables", "semantic_rdf.gate",
                                     "semantic_rdf.values"])
    return _CTX


def _forked_trial(store_dir: Path, first: int, count: int, delay: float) -> bytes:
    """The driver in a fork-server child, SIGKILLed `delay` seconds after it has opened the store."""
    ctx = _context()
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_forked_child, args=(str(store_dir), first, count, send), daemon=True)
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
    proc.join(delay)
    if proc.is_alive():
        proc.kill()
    proc.join(30)
    drain(0)  # whatever was fully sent before the kill; a message cut by the kill is not acknowledged
    recv.close()
    return bytes(buf)


def trial(store_dir: Path, n: int, rng: random.Random, mode: str, max_delay: float, work: Path,
          fork: bool = False) -> Verdict:
    first = n * 1000
    count = 40 if mode == "driver" else 6
    if mode == "driver" and fork:
        out = _forked_trial(store_dir, first, count, rng.uniform(0.0, max_delay))
        return verify(store_dir, _read_acked(out, mode), range(first, first + count), n)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if mode == "driver":
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(store_dir), str(first), str(count)]
    else:
        d = work / f"docs-{n}"
        d.mkdir()
        for b in range(first, first + count):
            (d / f"doc-{b}.txt").write_text(text_of(b) + "\n", encoding="utf-8")
        cmd = [sys.executable, "-m", "semantic_rdf", "--store", str(store_dir), "--json", "ingest", str(d)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=str(REPO))
    head = b""
    if mode == "driver":
        head = proc.stdout.readline()  # the driver has opened the store: start the clock from here
    delay = rng.uniform(0.0 if mode == "driver" else 0.05, max_delay)
    try:
        out, _ = proc.communicate(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
    return verify(store_dir, _read_acked(head + out, mode), range(first, first + count), n)


def run(trials: int, mode: str, seed: int, max_delay: float | None = None, quiet: bool = False,
        fork: bool = False) -> list[Verdict]:
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="crash-"))
    store_dir = work / "store"
    delay = max_delay if max_delay is not None else (1.5 if mode == "driver" else 12.0)
    out = []
    try:
        for n in range(trials):
            v = trial(store_dir, n, rng, mode, delay, work, fork)
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
    ap.add_argument("--child", nargs=3, metavar=("STORE", "FIRST", "COUNT"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        child(Path(a.child[0]), int(a.child[1]), int(a.child[2]))
        return 0
    t0 = time.perf_counter()
    verdicts = run(a.trials, a.mode, a.seed, a.max_delay)
    lost = sum(len(v.lost) for v in verdicts)
    invalid = sum(1 for v in verdicts if v.violations or not v.opened or v.error)
    half = sum(len(v.half_batches) for v in verdicts)
    side = sum(v.side_missing + v.side_mismatch for v in verdicts)
    acked = sum(v.acked for v in verdicts)
    print(f"\n{a.mode}: {len(verdicts)} trials in {time.perf_counter() - t0:.1f} s; acknowledged {acked}; "
          f"lost acknowledged assertions {lost}; invalid stores {invalid}; half batches {half}; "
          f"side-table mismatches {side}")
    return 0 if all(v.ok for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
