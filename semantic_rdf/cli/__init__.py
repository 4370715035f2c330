"""The `semantic-rdf` command line.

Each verb lives in its own module under semantic_rdf/cli/ and exposes:
    NAME: str                      the verb
    HELP: str                      one line for --help
    add_arguments(parser) -> None  its own arguments
    run(args, ctx) -> int          does the work, returns the exit code
`ctx` (a `Context`) opens the store lazily and prints results as text or JSON.
Argument shapes and output pieces more than one verb uses live in cli/_common.py (not a verb).

Exit codes: 0 success, 1 a check failed (e.g. `validate` found violations),
2 bad input (one line on stderr naming the problem; nothing written).
"""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from semantic_rdf.core.errors import SemanticError

# Verb modules in the order --help lists them. A module missing from this install is skipped.
VERBS = [
    "id",
    "assert_",
    "seed",
    "ingest",
    "ask",
    "chat",
    "query",
    "list_",
    "show",
    "search",
    "entities",
    "predicates",
    "trace",
    "retract",
    "reinstate",
    "erase",
    "compact",
    "derive",
    "decisions",
    "export",
    "import_",
    "validate",
    "stats",
    "push",
    "pull",
    "serve",
    "demo",
]

DEFAULT_STORE = "./semantic-store"


@dataclass
class Context:
    """What a verb gets: the parsed global options, the store (opened on first use), output."""

    store_path: str
    json: bool
    wait: float = 0.0  # --wait: seconds a writing verb waits for the store (AssertionStore.open)
    stdout: Any = field(default_factory=lambda: sys.stdout)
    stderr: Any = field(default_factory=lambda: sys.stderr)
    _store: Any = None
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def store(self, *, read_only: bool = False, create: bool = True):
        """The assertion store at --store. Created if missing only when `create` and not `read_only`: verbs
        that only read (or change existing assertions) pass create=False and get "no store at …" instead."""
        if self._store is None:
            from semantic_rdf.cli._common import require_store
            from semantic_rdf.store.assertions import AssertionStore

            if read_only or not create:
                require_store(self.store_path)
            self._store = AssertionStore.open(self.store_path, read_only=read_only, wait=self.wait)
            self._closers.append(self._store.close)
        return self._store

    def close_after_store(self, fn: Callable[[], None]) -> None:
        """Run `fn` at the end, after the store has closed (side tables hear the store's `closed` event first)."""
        self._closers.insert(0, fn)

    def emit(self, data: Any, text: str | None = None) -> None:
        """Print `data` as JSON with --json, else `text` (or a plain rendering of data)."""
        if self.json:
            self.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")
        else:
            self.stdout.write((text if text is not None else _plain(data)) + "\n")

    def fail(self, message: str, kind: str = "InvalidInput", code: int = 2) -> int:
        """Report a refusal the verb found itself (one line; JSON under --json) and return its exit code."""
        return _fail(self.json, message, kind, code, stream=self.stderr)

    def note(self, message: str) -> None:
        """Human progress or commentary: stderr, never mixed into --json output."""
        self.stderr.write(message + "\n")

    @property
    def interactive(self) -> bool:
        return hasattr(self.stderr, "isatty") and self.stderr.isatty()

    def close(self) -> None:
        while self._closers:
            self._closers.pop()()


def _plain(data: Any) -> str:
    if isinstance(data, str):
        return data
    if isinstance(data, dict):
        return "\n".join(f"{k}: {v}" for k, v in data.items())
    if isinstance(data, list):
        return "\n".join(_plain(x) for x in data)
    return str(data)


class _Usage(Exception):
    """A command line argparse refused; main prints it (as JSON under --json) and exits 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]  # one line, exit 2 (printed by main)
        raise _Usage(f"{self.prog}: error: {message}")


def _seconds(text: str) -> float:
    """--wait's value: a number of seconds from 0 to a day (argparse reports a refusal as a usage error)."""
    from semantic_rdf.store.assertions import MAX_WAIT

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= MAX_WAIT:  # NaN fails both comparisons; inf the second
        raise argparse.ArgumentTypeError(f"SECONDS must be a number from 0 to {MAX_WAIT:g}, not {text!r}")
    return value


def named_verb(argv: list[str]) -> str | None:
    """The module of the verb `argv` names (its first word that is neither an option nor the value of --store or --wait),
    or None when that word is no verb (argparse then lists the verbs)."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--store", "--wait"):
            skip = True
        elif arg == "--":
            return None
        elif not arg.startswith("-"):
            return next((m for m in (arg, arg + "_") if m in VERBS), None)
    return None


def build_parser(only: str | None = None) -> tuple[argparse.ArgumentParser, dict[str, Any]]:
    """The command line's parser and its verb modules: every verb's, or only the verb module `only` (a run
    imports the one verb it runs, not all 27 and what they import)."""
    common = _Parser(add_help=False)
    common.add_argument(
        "--store", default=argparse.SUPPRESS, metavar="DIR", help=f"store directory (env SEMANTIC_RDF_STORE, default {DEFAULT_STORE})"
    )
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    common.add_argument(
        "--wait",
        type=_seconds,
        default=argparse.SUPPRESS,
        metavar="SECONDS",
        help="a verb that writes waits this long for another process to let the store go (default 0: fails at once)",
    )
    parser = _Parser(prog="semantic-rdf", parents=[common], description="A checkable memory: assertions with spans, time and provenance, in RDF.")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    modules: dict[str, Any] = {}
    for modname in VERBS if only is None else [only]:
        try:
            mod = importlib.import_module(f"semantic_rdf.cli.{modname}")
        except ModuleNotFoundError as exc:
            if exc.name == f"semantic_rdf.cli.{modname}":
                continue
            raise
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP, parents=[common])
        mod.add_arguments(p)
        modules[mod.NAME] = mod
    return parser, modules


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "numpy" not in sys.modules:
        # No verb multiplies matrices large enough for BLAS threads to pay (the gate and the shape checks
        # run threads of their own); one thread makes numpy's import cheaper. A value the user set stands.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Errors are one line on stderr; with --json anywhere on the line, that line is a JSON object
    # {"error": message, "kind": exception class, "exit": code}, so a client reads one format.
    as_json = "--json" in argv
    bad = _not_utf8(argv)
    if bad is not None:
        return _fail(as_json, bad, "InvalidInput", 2)
    parser, modules = build_parser(named_verb(argv))
    try:
        args = parser.parse_args(argv)
    except _Usage as exc:
        return _fail(as_json, str(exc), "UsageError", 2, prefix="")
    if not args.verb:
        parser.print_help()
        return 2
    ctx = Context(
        store_path=getattr(args, "store", None) or os.environ.get("SEMANTIC_RDF_STORE") or DEFAULT_STORE,
        json=getattr(args, "json", False),
        wait=getattr(args, "wait", 0.0),
    )
    try:
        return int(modules[args.verb].run(args, ctx) or 0)
    except SemanticError as exc:
        return _fail(ctx.json, _one_line(exc), type(exc).__name__, 2)
    except KeyboardInterrupt:
        return _fail(ctx.json, "interrupted", "KeyboardInterrupt", 130, prefix="semantic-rdf: ")
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never show a traceback unless asked to
        why = _environment(exc)
        if why is not None:  # the machine refused, not the program: bad input to fix, like any other
            return _fail(ctx.json, f"{why}: {_one_line(exc)}", type(exc).__name__, 2)
        if os.environ.get("SEMANTIC_RDF_DEBUG"):
            raise
        return _fail(ctx.json, f"{type(exc).__name__}: {_one_line(exc)}", "InternalError", 1, prefix="semantic-rdf: internal error: ")
    finally:
        ctx.close()


def console() -> None:
    """The installed `semantic-rdf` script and `python -m semantic_rdf`: `main` in a process that ends with it.

    Such a process runs one verb and exits, so it spares the cycle collector's work that buys nothing: young
    objects are collected every 100,000 allocations instead of every 700 (start-up allocates hundreds of
    thousands that live to the end: numpy's, the verb's modules'), and the interpreter's last collection, which
    walks every live object only for all of them to be freed at exit anyway, is skipped by freezing them when
    `main` returns: about 4 % of an `ask`'s instructions (docs/answer.md). Not in `main` itself: a process
    that calls `main` and goes on (a test run, a script) keeps the collector as it set it."""
    gc.set_threshold(100_000, 50, 100)
    code = main()
    gc.freeze()
    sys.exit(code)


def _fail(as_json: bool, message: str, kind: str, code: int, *, prefix: str = "semantic-rdf: error: ", stream: Any = None) -> int:
    """Print one error line (plain, or a JSON object under --json) on stderr and return the exit code."""
    stream = stream or sys.stderr
    if as_json:
        stream.write(json.dumps({"error": message, "kind": kind, "exit": code}, ensure_ascii=False) + "\n")
    else:
        stream.write(f"{prefix}{message}\n")
    return code


def _not_utf8(argv: list[str]) -> str | None:
    """Why an argument is refused, if one is not UTF-8: Python hands undecodable bytes on to us as lone
    surrogates, which no store, query or file name built from them could hold. One check for every verb."""
    for i, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            shown = " ".join(arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace").split())
            return f"argument {i} is not valid UTF-8 (character {exc.start + 1}): {shown[:80]}"
    return None


# What the operating system (or RocksDB, SQLite on its behalf) says when the disk or the store cannot be
# written: the store's writes are transactions, so nothing is half-written, and the fix is the user's.
_OS_REFUSALS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exhausted",
    errno.EROFS: "the store is on a read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
}
_OS_MESSAGES = {  # RocksDB's OSError and SQLite's OperationalError carry no errno, only the message
    "no space left on device": errno.ENOSPC,
    "database or disk is full": errno.ENOSPC,
    "disk quota exceeded": errno.EDQUOT,
    "read-only file system": errno.EROFS,
    "attempt to write a readonly database": errno.EROFS,
    "permission denied": errno.EACCES,
}


def _environment(exc: BaseException) -> str | None:
    """A one-line reason if `exc` is the file system refusing a write or a read (disk full, read-only,
    no permission), else None (a real bug: "internal error")."""
    import sqlite3

    if not isinstance(exc, (OSError, sqlite3.OperationalError)):
        return None
    code = getattr(exc, "errno", None)
    if code not in _OS_REFUSALS:
        text = str(exc).lower()
        code = next((c for m, c in _OS_MESSAGES.items() if m in text), None)
    return _OS_REFUSALS.get(code) if code is not None else None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())[:500]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
