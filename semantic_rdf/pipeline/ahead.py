"""Running a pipeline ahead of the store: in a worker thread, or in forked child processes.

The store is written from the caller's thread only, in order; the pipeline (read, parse, normalise,
split, extract) runs ahead of it, a bounded number of results deep. A thread shares the GIL with
the store's Python work, so only Oxigraph's own parsing and writing overlap with it. Child processes
get the machine's other cores: on Linux, for a big enough local input whose every stage says it may
run there (a class attribute ``process_safe = True``: its output depends only on its input and how it
was built, so nothing it would remember is lost with the child, except a ``counts`` Counter, whose
increments the child sends back). The documents are dealt to one child per CPU (`children`) by size.

A child is forked, so it starts at once with the very stage objects of the parent (no pickling
of the pipeline, no re-import). It sends each result back pickled over a pipe, then the stage
timings and the bytes read; the parent re-validates every value as it unpickles it (the value
types check themselves when built). Order is kept (each result comes with its position, and the caller
gets them in that order), an exception of the pipeline is raised in the caller's thread, and the
children are killed and reaped whenever the caller stops early.
"""

from __future__ import annotations

import gc
import glob as _glob
import os
import pickle
import signal
import struct
import sys
import threading
from collections import Counter, deque
from typing import Generator, Iterable, Iterator, Literal, cast

from semantic_rdf.core.errors import InvalidInput, SourceError
from semantic_rdf.pipeline.sources import Ingest
from semantic_rdf.pipeline.stages import Pipeline, PipelineResult

__all__ = ["Mode", "ahead", "choose", "children", "in_child", "in_thread", "why_not_child"]

Mode = Literal["auto", "thread", "child"]

# Results computed ahead of the store writes: about two store batches (load.load writes one per 20,000
# triples or 4M characters of text), so the pipeline goes on while a batch is written; and bounded memory.
DEPTH = 2048
AHEAD_CHARS = 16_000_000  # document text ahead (past the first result)
CHILD_MIN_BYTES = 1_000_000  # below this a child's start-up (fork, first batch) is not worth it
# Children a big ingest is dealt to, at most: past a few the parent's store writes are the limit, and each
# child keeps pages of the extractor's model of its own once it touches them.
MAX_CHILDREN = 4
CHILD_GC_YOUNG = 50_000  # a child's first collector threshold (allocations less frees between young passes)
_FRAME = struct.Struct("<Q")
_FRAME_BYTES = 1 << 20  # the child's pipe buffer
# a child sends its results once they hold this much document text, and flushes them at once: the parent then
# writes the store while the children extract (with 256 KB batches held in a 1 MB buffer, nothing reached it
# for the first 2.4 s of a 2 MB ingest, and a quarter of the store's writes came after the children's end)
_BATCH_CHARS = 1 << 16
_LOCAL = ("file", "dir", "glob")
_ROLES = ("ingester", "parser", "normalizer", "splitter", "extractor")


def ahead(pipeline: Pipeline, refs: Iterable[str], mode: Mode = "auto", depth: int = DEPTH) -> Generator[PipelineResult, None, None]:
    """`pipeline.run_all(refs)`, computed ahead of the caller in a thread or a child (`choose`)."""
    refs = list(refs)
    if choose(pipeline, refs, mode) == "child":
        return in_child(pipeline, refs, depth, children())
    return in_thread(pipeline.run_all(refs), depth)


def children() -> int:
    """How many children `ahead` deals a pipeline to: one per CPU this process may run on, at most MAX_CHILDREN.
    (The parent, which writes the store, is mostly idle while they extract: docs/pipeline.md, "The child processes".)"""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_CHILDREN))


def choose(pipeline: Pipeline, refs: list[str], mode: Mode = "auto") -> str:
    """ "child" or "thread". "auto" takes a child when one may run the pipeline (`why_not_child`) and
    the local input is at least `CHILD_MIN_BYTES`; "child" insists (InvalidInput if it cannot)."""
    if mode == "thread":
        return "thread"
    if mode not in ("auto", "child"):
        raise InvalidInput(f"unknown read-ahead mode {mode!r} (use 'auto', 'thread' or 'child')")
    why = why_not_child(pipeline, refs)
    if mode == "child":
        if why:
            raise InvalidInput(f"the pipeline cannot run in a child process: {why}")
        return "child"
    return "child" if not why and _local_bytes(refs, CHILD_MIN_BYTES) >= CHILD_MIN_BYTES else "thread"


def why_not_child(pipeline: Pipeline, refs: list[str]) -> str:
    """Why `pipeline` over `refs` must stay in this process ("" when it may go to a child)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return "forking a worker is only done on Linux"
    if (os.cpu_count() or 1) < 2:
        return "one CPU"
    for role in _ROLES:
        stage = getattr(pipeline, role)
        if stage is not None and getattr(stage, "process_safe", False) is not True:
            return f"the {role} ({type(stage).__name__}) is not marked process_safe"
    ingest = pipeline.ingester if isinstance(pipeline.ingester, Ingest) else None
    for ref in refs:
        scheme = ingest.scheme_of(ref) if ingest is not None else "?"
        if ingest is None or scheme not in _LOCAL:
            return f"{ref}: only local files, directories and globs are read in a child"
        if getattr(ingest.factory(scheme), "process_safe", False) is not True:
            return f"{ref}: the {scheme} driver is not marked process_safe"
    return ""


def _local_bytes(refs: list[str], enough: int) -> int:
    """The size of the files `refs` name, counted until `enough` (an estimate: the ingester decides
    what is read; symbolic links are not followed here)."""
    total = 0

    def add(path: str) -> None:
        nonlocal total
        try:
            st = os.lstat(path)
        except OSError:
            return
        if not os.path.islink(path) and os.path.isfile(path):
            total += st.st_size

    for ref in refs:
        path = ref.split(":", 1)[1] if ref.lower().startswith(("file:", "dir:", "glob:")) else ref
        if os.path.isdir(path) and not os.path.islink(path):
            for dirpath, _, names in os.walk(path):
                for name in names:
                    add(os.path.join(dirpath, name))
                    if total >= enough:
                        return total
        elif _glob.has_magic(path) and not os.path.exists(path):
            for p in _glob.iglob(path, recursive=True):
                add(p)
                if total >= enough:
                    return total
        else:
            add(path)
        if total >= enough:
            return total
    return total


# ------------------------------------------------------------------ a worker thread


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


_DONE = object()


class _Ahead:
    """The results between the producer and the caller: at most `depth` of them and, past the first, at
    most `chars` characters of document text. `stop` makes a waiting producer give up. Several queues may
    share one condition (`cond`), so that a caller can wait for whichever of them moves (`in_child`)."""

    def __init__(self, depth: int, chars: int = AHEAD_CHARS, cond: threading.Condition | None = None) -> None:
        self.depth, self.chars = depth, chars
        self.stop = threading.Event()
        self._items: deque[tuple[object, int]] = deque()
        self._held = 0
        self._cond = cond or threading.Condition()

    def put(self, item: object) -> bool:
        """Queue `item` (a result, or a child's (position, result)) once there is room; False if stopped first."""
        doc = getattr(item[1] if isinstance(item, tuple) else item, "doc", None)
        cost = len(doc.text) if doc is not None else 0
        with self._cond:
            while self._items and (len(self._items) >= self.depth or self._held + cost > self.chars):
                if self.stop.is_set():
                    return False
                self._cond.wait(0.05)
            if self.stop.is_set():
                return False
            self._items.append((item, cost))
            self._held += cost
            self._cond.notify_all()
            return True

    def head(self) -> object | None:
        """The first item queued, left in place (None: none yet). Call with the condition held."""
        return self._items[0][0] if self._items else None

    def pop(self) -> object:
        """Take the first item (there is one). Call with the condition held."""
        item, cost = self._items.popleft()
        self._held -= cost
        self._cond.notify_all()
        return item

    def results(self) -> Iterator[PipelineResult]:
        while True:
            with self._cond:
                while not self._items:
                    self._cond.wait()
                item = self.pop()
            if item is _DONE:
                return
            if isinstance(item, _Raised):
                raise item.exc
            yield item  # type: ignore[misc]


def in_thread(results: Iterator[PipelineResult], depth: int = DEPTH) -> Generator[PipelineResult, None, None]:
    """`results`, computed in a worker thread up to `depth` results (and AHEAD_CHARS of text) ahead of the
    caller. Oxigraph parses and writes a batch without the GIL, so the next documents are read, parsed,
    split and extracted meanwhile."""
    q = _Ahead(depth)
    put = q.put

    def produce() -> None:
        try:
            for r in results:
                if not put(r):
                    return
            put(_DONE)
        except BaseException as exc:  # handed to the caller's thread, which raises it
            put(_Raised(exc))

    worker = threading.Thread(target=produce, name="ingest-read-ahead", daemon=True)
    worker.start()
    try:
        yield from q.results()
    finally:
        q.stop.set()
        worker.join()


# ------------------------------------------------------------------ a forked child


def in_child(pipeline: Pipeline, refs: list[str], depth: int = DEPTH, children: int = 1) -> Generator[PipelineResult, None, None]:
    """`pipeline.run_all(refs)` run in forked child processes (forked at the first `next`); `pipeline.timings`,
    `bytes_in` and the stages' `counts` gain the children's when they finish. See the module's notes for when
    this is allowed (`why_not_child`).

    With `children` > 1 the documents are dealt by size (`Pipeline.dealt`): every child reads every reference
    and takes its own share; each result comes back with its position, and the parent gives them out in
    that order, whichever child has the next. A document's extraction stays in one process, which is what a
    `process_safe` extractor needs (its output depends only on its input)."""
    if children < 1:
        raise InvalidInput(f"children must be at least 1, not {children}")
    forked: list[tuple[int, int]] = []
    moved = threading.Condition()  # one for every queue: the caller waits for whichever child sends next
    queues = [_Ahead(max(1, depth // children), cond=moved) for _ in range(children)]
    readers: list[threading.Thread] = []
    try:
        for k in range(children):  # all forked before any reader thread runs: a child copies no thread's locks
            forked.append(_fork(pipeline, refs, (k, children)))
        for k, (_, fd) in enumerate(forked):
            # every child reads every reference: only the first one's ingest time and counts are the ingest's
            reader = threading.Thread(target=_receive, args=(pipeline, fd, queues[k].put, k == 0), name=f"ingest-child-reader-{k}", daemon=True)
            readers.append(reader)
            reader.start()
        position = 0
        while True:
            r = _next(queues, moved, position)
            if r is _DONE:
                break
            yield r  # type: ignore[misc]
            position += 1
    finally:
        for q in queues:
            q.stop.set()
        for pid, _ in forked:
            try:
                os.kill(pid, signal.SIGKILL)  # finished or not: it has nothing left to say
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
        for reader in readers:
            reader.join()
        for _, fd in forked:
            os.close(fd)


def _next(queues: list[_Ahead], moved: threading.Condition, position: int) -> object:
    """The result at `position` from whichever child queued it, _DONE once every child has finished (their
    timings and counts are in then); a child's exception is raised as soon as it is at the front of its queue."""
    with moved:
        while True:
            finished = waiting = 0
            for q in queues:
                head = q.head()
                if head is None:
                    waiting += 1
                elif head is _DONE:
                    finished += 1
                elif isinstance(head, _Raised):
                    q.pop()
                    raise head.exc
                elif cast(tuple, head)[0] == position:
                    return cast(tuple, q.pop())[1]
            if finished == len(queues):
                return _DONE
            if not waiting:  # every child has queued something, and none the next position
                raise RuntimeError(f"the pipeline's children disagree on the documents (none has document {position + 1})")
            moved.wait()


def _fork(pipeline: Pipeline, refs: list[str], share: tuple[int, int] = (0, 1)) -> tuple[int, int]:
    """Fork a child that runs its `share` of the pipeline; (its pid, the read end of its pipe)."""
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    gc.freeze()  # the child then leaves the parent's objects alone (no copy-on-write by its collector)
    try:
        pid = os.fork()
    except BaseException:
        gc.unfreeze()
        os.close(read_fd)
        os.close(write_fd)
        raise
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(read_fd)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the child
            _die_with_parent(parent)
            # the pipeline makes millions of short-lived lists and tuples, nearly none in a cycle: the collector,
            # at its default of one young pass per 700 more allocations than frees, took 3-4 % of extraction
            gc.set_threshold(CHILD_GC_YOUNG, *gc.get_threshold()[1:])
            _child_main(pipeline, refs, write_fd, share)
            code = 0
        finally:
            os._exit(code)  # no atexit handlers, no flushing of buffers copied from the parent
    gc.unfreeze()
    os.close(write_fd)
    return pid, read_fd


def _counters(pipeline: Pipeline) -> dict[str, Counter]:
    return {role: c for role in _ROLES if isinstance(c := getattr(getattr(pipeline, role), "counts", None), Counter)}


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this child when the parent dies, even by SIGKILL (else it would notice only at its
    next write to the pipe)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # it died before the request was in place
        os._exit(1)


def _child_main(pipeline: Pipeline, refs: list[str], fd: int, share: tuple[int, int] = (0, 1)) -> None:
    before = {role: Counter(c) for role, c in _counters(pipeline).items()}
    with os.fdopen(fd, "wb", buffering=_FRAME_BYTES) as out:

        def send(obj: object) -> None:
            data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
            out.write(_FRAME.pack(len(data)))
            out.write(data)
            out.flush()

        def send_results(batch: list[tuple[int, PipelineResult]]) -> None:
            try:
                send(("results", batch))
            except (pickle.PicklingError, TypeError, AttributeError):  # a parser put an odd value in meta
                send(("results", [(i, _transferable(r)) for i, r in batch]))

        batch: list[tuple[int, PipelineResult]] = []
        size = 0
        try:
            for i, r in pipeline.dealt(refs, share):
                batch.append((i, r))
                size += len(r.doc.text) if r.doc is not None else 64
                if size >= _BATCH_CHARS:
                    send_results(batch)
                    batch, size = [], 0
            send_results(batch)
            counted = {role: c - before[role] for role, c in _counters(pipeline).items()}
            send(("done", dict(pipeline.timings), pipeline.bytes_in, counted))
        except BrokenPipeError:
            raise
        except BaseException as exc:
            if batch:
                send_results(batch)
            send(("raised", _picklable(exc)))


def _transferable(r: PipelineResult) -> PipelineResult:
    """`r`, or a failed result naming the problem if it cannot be pickled."""
    try:
        pickle.dumps(r, protocol=pickle.HIGHEST_PROTOCOL)
        return r
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        return PipelineResult(None, error=SourceError(f"{r.ref}: cannot hand the result over ({exc})"), ref=r.ref)


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"the pipeline failed in the child process: {exc!r}")


def _read_exact(fd: int, n: int) -> bytes | None:
    parts, got = [], 0
    while got < n:
        b = os.read(fd, min(n - got, 1 << 20))
        if not b:
            return None
        parts.append(b)
        got += len(b)
    return b"".join(parts)


def _receive(pipeline: Pipeline, fd: int, put, ingester_counts: bool = True) -> None:
    """The parent's reader thread: frames from the child, unpickled (overlapping the store's GIL-free
    writes in the caller's thread) and queued in order. `ingester_counts`: add the child's ingester counts
    and ingest time (not when another child read the same references)."""
    try:
        while True:
            head = _read_exact(fd, _FRAME.size)
            body = None if head is None else _read_exact(fd, _FRAME.unpack(head)[0])
            if body is None:
                put(_Raised(RuntimeError("the pipeline's child process ended without finishing")))
                return
            kind, *rest = pickle.loads(body)
            if kind == "results":
                for r in rest[0]:
                    if not put(r):
                        return
            elif kind == "done":
                timings, read, counted = rest
                for k, v in timings.items():
                    if k != "ingest" or ingester_counts:
                        pipeline.timings[k] = pipeline.timings.get(k, 0.0) + v
                pipeline.bytes_in += read
                for role, c in _counters(pipeline).items():
                    if role != "ingester" or ingester_counts:
                        c.update(counted.get(role, {}))
                put(_DONE)
                return
            else:
                put(_Raised(rest[0]))
                return
    except BaseException as exc:
        put(_Raised(exc))
