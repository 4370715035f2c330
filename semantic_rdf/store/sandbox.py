"""Run a user's SPARQL in a child process, with a deadline, a memory cap and a row cap.

Oxigraph cannot cancel a query from Python, and some queries use all the memory there is before they yield
a first row (an ORDER BY over a cross product sorts everything first), so a check per row in this process
cannot bound them. `run_isolated` forks: the child does the work (parses with rdflib for the algebra check,
opens the store read-only, evaluates) and streams its results back over a pipe as JSON lines; this process
reads them against a wall-clock deadline, watches the child's resident memory every 20 ms, counts rows,
and kills the child (SIGKILL) when a limit is hit. The child also has RLIMIT_AS as a backstop and no core
dumps, so a crash in the engine ends the child, never the caller. Fork (not spawn) because the child then
starts in milliseconds with everything imported and, for `derive`, with the in-memory working store as it
is. Linux (reads /proc); docs/security.md has the figures.
"""

from __future__ import annotations

import json
import os
import resource
import selectors
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from semantic_rdf.core import errors
from semantic_rdf.core.errors import InvalidInput, LimitExceeded, NotFound

ENV_TIMEOUT = "SEMANTIC_RDF_QUERY_TIMEOUT"
ENV_MAX_ROWS = "SEMANTIC_RDF_QUERY_MAX_ROWS"
ENV_MAX_MEMORY = "SEMANTIC_RDF_QUERY_MAX_MEMORY"
_POLL = 0.02  # seconds between two looks at the child's memory
_PR_SET_PDEATHSIG = 1  # prctl(2)
_FORKING = threading.Lock()
_CHECK_STACK = 512 << 20  # the thread that runs rdflib's recursive parser in the child (virtual; touched as used)


@dataclass(frozen=True)
class Limits:
    """What one user query (or one `derive`) may use. `max_memory` is MiB of resident memory the child may
    add; the bytes it sends back count against it too."""

    timeout: float = 30.0
    max_rows: int = 100_000
    max_memory: int = 1024

    @classmethod
    def resolve(
        cls, timeout: float | None = None, max_rows: int | None = None, max_memory: int | None = None, *, default_rows: int = 100_000
    ) -> "Limits":
        """Explicit values, else the environment (SEMANTIC_RDF_QUERY_TIMEOUT / _MAX_ROWS / _MAX_MEMORY),
        else the defaults. A value that is not a positive number is InvalidInput."""

        def pick(value, env, conv, default, flag):
            if value is None:
                raw = os.environ.get(env, "").strip()
                if not raw:
                    return default
                try:
                    value = conv(raw)
                except ValueError:
                    raise InvalidInput(f"{env}={raw!r} is not a number") from None
            if not value > 0 or value != value or value == float("inf"):
                raise InvalidInput(f"{flag} must be a positive number, got {value!r}")
            return value

        return cls(
            pick(timeout, ENV_TIMEOUT, float, cls.timeout, "--timeout"),
            pick(max_rows, ENV_MAX_ROWS, int, default_rows, "--max-rows"),
            pick(max_memory, ENV_MAX_MEMORY, int, cls.max_memory, "--max-memory"),
        )


def _status_kb(pid: int | str, field: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(field.encode() + b":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _outlive_no_parent(parent: int, limits: Limits) -> None:
    """Backstops for a child whose parent dies or stops watching it: SIGKILL when the thread that forked it ends
    (Linux's parent-death signal; a parent killed by SIGKILL cannot kill it itself), and a CPU-time limit a little
    over the deadline (the deadline is the parent's to keep)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # it died before the signal was asked for
        os._exit(1)
    cpu = int(limits.timeout) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def _child(produce: Callable[[], Iterable[Any]], fd: int, limits: Limits, parent: int) -> None:
    # a forked child holds every descriptor of the parent: a server's listening socket and connections, and
    # another query's pipe (whose end of file the other parent would then wait for): keep its own pipe only
    os.closerange(3, fd)
    os.closerange(fd + 1, 1 << 20)
    _outlive_no_parent(parent, limits)
    out = os.fdopen(fd, "wb", buffering=1 << 16)

    def send(obj: Any) -> None:
        out.write(json.dumps(obj, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n")

    try:
        # the query engine's own last words when the address-space backstop makes it abort (a C++
        # "terminate called …" line) would reach the user's terminal beside the one-line error: the child's
        # outcome goes through `out`, so its stderr goes nowhere
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        vm = (_status_kb("self", "VmSize") or 0) * 1024
        cap = vm + 2 * limits.max_memory * 2**20 + 2**30  # backstop only: the parent watches resident memory
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        n = 0
        for item in produce():
            n += 1
            if n > limits.max_rows:
                send({"limit": "rows"})
                break
            send({"r": item})
        else:
            send({"end": True})
    except errors.SemanticError as exc:
        send({"error": str(exc), "type": type(exc).__name__})
    except MemoryError:
        send({"limit": "memory"})
    except BaseException as exc:  # noqa: BLE001 — reported to the parent, which decides
        send({"error": f"{type(exc).__name__}: {exc}", "type": "internal"})
    try:
        out.flush()
    except OSError:
        pass


def run_isolated(produce: Callable[[], Iterable[Any]], limits: Limits, *, deadline: float | None = None, what: str = "query") -> list[Any]:
    """The items `produce()` yields, computed in a forked child under `limits` (and `deadline`, a
    time.monotonic() instant, when it comes first). Items must be JSON values. Raises LimitExceeded when a
    limit is hit (the child is killed), the child's own SemanticError (same class, same message), or
    InvalidInput when the child dies."""
    end = time.monotonic() + limits.timeout if deadline is None else min(deadline, time.monotonic() + limits.timeout)
    if end <= time.monotonic():
        raise LimitExceeded(f"{what} stopped: time limit of {limits.timeout:g} s reached (--timeout, {ENV_TIMEOUT})")
    base = _status_kb("self", "VmRSS") or 0
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except (OSError, ValueError):
            pass
    parent = os.getpid()
    with _FORKING:  # one pipe and fork at a time: no other thread's child copies this one's pipe
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the caller's code
            try:
                os.close(rfd)
                _child(produce, wfd, limits, parent)
            finally:
                os._exit(0)
        os.close(wfd)
    items: list[Any] = []
    outcome: dict | None = None
    buf = b""
    got = 0
    budget = limits.max_memory * 2**20
    killed = False
    status = 0
    sel = selectors.DefaultSelector()
    sel.register(rfd, selectors.EVENT_READ)
    try:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise LimitExceeded(f"{what} stopped: time limit of {limits.timeout:g} s reached (--timeout, {ENV_TIMEOUT})")
            if sel.select(min(left, _POLL)):
                chunk = os.read(rfd, 1 << 20)
                if not chunk:
                    break
                got += len(chunk)
                if got > budget:
                    raise LimitExceeded(
                        f"{what} stopped: its result passed the memory limit of {limits.max_memory} MiB (--max-memory, {ENV_MAX_MEMORY})"
                    )
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    msg = json.loads(line)
                    if "r" in msg:
                        items.append(msg["r"])
                    else:
                        outcome = msg
                if outcome is not None:  # its last word: what follows is its exit
                    break
            rss = _status_kb(pid, "VmRSS")
            if rss is not None and (rss - base) * 1024 > budget:
                raise LimitExceeded(f"{what} stopped: memory limit of {limits.max_memory} MiB reached (--max-memory, {ENV_MAX_MEMORY})")
    except LimitExceeded:
        os.kill(pid, signal.SIGKILL)
        killed = True
        raise
    finally:
        sel.close()
        os.close(rfd)
        if not killed and outcome is None:
            try:
                os.kill(pid, signal.SIGKILL)  # closed its end without a verdict: make sure it is gone
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
    if outcome is None:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        if sig == signal.SIGABRT:
            raise LimitExceeded(f"{what} stopped: memory limit of {limits.max_memory} MiB reached (--max-memory, {ENV_MAX_MEMORY})")
        name = signal.Signals(sig).name if sig else f"exit {os.WEXITSTATUS(status)}"
        raise InvalidInput(f"{what} stopped: the query engine ended abnormally ({name})")
    if outcome.get("limit") == "rows":
        raise LimitExceeded(f"{what} stopped: more than {limits.max_rows:,} results (--max-rows, {ENV_MAX_ROWS})")
    if outcome.get("limit") == "memory":
        raise LimitExceeded(f"{what} stopped: memory limit of {limits.max_memory} MiB reached (--max-memory, {ENV_MAX_MEMORY})")
    if "error" in outcome:
        cls = getattr(errors, str(outcome.get("type")), None)
        if isinstance(cls, type) and issubclass(cls, errors.SemanticError) and cls is not errors.ShapeViolation:
            raise cls(outcome["error"])
        raise InvalidInput(f"{what} failed: {outcome['error']}")
    return items


def in_big_stack(fn: Callable[[], Any]) -> Any:
    """fn() in a thread with a large stack and a high recursion limit (rdflib's parser recurses per
    nesting level and per pattern). Meant for the child, where a crash cannot reach the caller."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["v"] = fn()
        except BaseException as exc:  # noqa: BLE001 — re-raised in the calling thread
            box["e"] = exc

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size()
    sys.setrecursionlimit(200_000)
    threading.stack_size(_CHECK_STACK)
    try:
        th = threading.Thread(target=target)
        th.start()
        th.join()
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if "e" in box:
        raise box["e"]
    return box.get("v")


@dataclass(frozen=True)
class QueryResult:
    """What a user query returned: `kind` is "boolean", "solutions" or "triples". Terms are in N-Triples
    syntax (str of the pyoxigraph term), None for an unbound variable."""

    kind: str
    boolean: bool | None = None
    variables: tuple[str, ...] = ()
    rows: tuple[tuple[str | None, ...], ...] = ()
    triples: tuple[str, ...] = ()


def run_user_query(
    store: Any, query_text: str, *, params: Mapping[str, Any] | None = None, union: bool = False, limits: Limits | None = None
) -> QueryResult:
    """Run a user's read-only SPARQL query under the guard (queries.guard, then queries.check_algebra) and
    `limits`. `union`: the default graph is every graph, unless the query names its dataset (FROM). `store` is a
    store directory (opened read-only in the child) or an AssertionStore (its directory, or for an in-memory store
    the store itself as the child inherits it)."""
    from semantic_rdf.rdf.queries import bind, check_algebra, guard, preload_checker

    limits = limits or Limits.resolve()
    checked = guard(query_text)
    preload_checker()
    text = bind(checked.text, dict(params or {}))
    path = store if isinstance(store, (str, Path)) else getattr(store, "path", None)
    if path is not None and not (Path(path) / "oxigraph").is_dir():
        raise NotFound(f"no store at {str(path)!r}")

    from semantic_rdf.store.readers import read_only  # imported here, before the fork, not in every child

    def answer(ox_store):
        try:
            res = ox_store.query(text, use_default_graph_as_union=union and not checked.dataset)  # FROM wins
        except SyntaxError as exc:
            raise InvalidInput(f"SPARQL syntax error: {' '.join(str(exc).split())}") from None
        if isinstance(res, bool) or type(res).__name__ == "QueryBoolean":
            yield {"boolean": bool(res)}
            return
        if hasattr(res, "variables"):
            names = [v.value for v in res.variables]
            yield {"variables": names}
            for row in res:
                yield [None if row[n] is None else str(row[n]) for n in names]
            return
        yield {"triples": True}
        for t in res:
            yield str(t)

    def produce():
        in_big_stack(lambda: check_algebra(checked))
        if path is None:
            yield from answer(store.ox)
            return
        with read_only(Path(path) / "oxigraph", Path(path)) as ox_store:
            yield from answer(ox_store)

    items = run_isolated(produce, limits)
    head, rest = items[0], items[1:]
    if "boolean" in head:
        return QueryResult("boolean", boolean=head["boolean"])
    if "variables" in head:
        return QueryResult("solutions", variables=tuple(head["variables"]), rows=tuple(tuple(r) for r in rest))
    return QueryResult("triples", triples=tuple(rest))
