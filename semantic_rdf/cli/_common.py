"""Argument shapes and output pieces shared by several verbs (not a verb: absent from VERBS)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, AnyStr

from semantic_rdf.core.errors import NotFound

# The verbs that create a store at a path that holds none; every other verb refuses a missing store.
CREATING_VERBS = ("assert", "seed", "ingest", "import", "pull", "derive", "demo")

# (flag, metavar, help) of an option that takes one value and has no default
Option = tuple[str, str, str]


def add_triple_arguments(p) -> None:
    """SUBJECT PREDICATE OBJECT, as `id` and `assert` take them."""
    p.add_argument("subject")
    p.add_argument("predicate")
    p.add_argument("object")


def add_change_arguments(p, *, reason_help: str, by_help: str, optional_id: bool = False, selectors: Sequence[Option] = ()) -> None:
    """ID --reason R [selectors] --by NAME: the arguments of a verb that changes assertions' state."""
    p.add_argument("id", nargs="?" if optional_id else None, help="assertion id")
    p.add_argument("--reason", required=True, help=reason_help)
    for flag, metavar, text in selectors:
        p.add_argument(flag, metavar=metavar, help=text)
    p.add_argument("--by", default="caller", metavar="NAME", help=by_help)


def require_store(path: str | Path) -> None:
    """NotFound (one line, exit 2) unless `path` holds a store; checked before anything is opened, so a
    mistyped --store creates neither PATH/ nor PATH.side.sqlite."""
    if not (Path(path) / "oxigraph").is_dir():
        raise NotFound(f"no store at {str(path)!r} (only {', '.join(CREATING_VERBS)} create one; --store or SEMANTIC_RDF_STORE names another)")


def change_one(ctx, args, change: Callable[..., Any]):
    """Apply `change(store, id, reason, agent=by)` (temporal.retract, temporal.reinstate, erasure.erase) to a
    store that must exist already: there is nothing to change in a missing one."""
    return change(ctx.store(create=False), args.id, args.reason, agent=args.by)


def cascade_note(ch, verb: str) -> str:
    """ "; <verb> N derived assertions" when the change cascaded, else ""."""
    return f"; {verb} {len(ch.cascaded)} derived assertions" if ch.cascaded else ""


class _NoBar:
    """What `progress` gives when nobody watches: every call does nothing."""

    n = 0

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def close(self) -> None:
        pass


def progress(ctx, desc: str, *, total: int | None = None, unit: str = "it"):
    """A tqdm progress bar on stderr while stderr is a terminal (never under --json, never in a pipe or a
    log, which get only the summary); a do-nothing bar otherwise. Close it before printing the result."""
    if ctx.json or not ctx.interactive:
        return _NoBar()
    import shutil

    from tqdm import tqdm

    size = shutil.get_terminal_size()
    # a terminal that reports no size (a bare pseudo-terminal: 0 x 0) gets nothing at all from tqdm
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=True,
        file=ctx.stderr,
        leave=False,
        ncols=size.columns if size.columns >= 20 else 80,
        nrows=size.lines if size.lines > 0 else 24,
        mininterval=0.2,
    )


def capped_lines(readline: Callable[[int], AnyStr], cap: int) -> Iterator[tuple[AnyStr, bool]]:
    """(line, cut) for each line `readline(limit)` gives (a binary or text stream's readline), each held to
    at most `cap` bytes or characters: the rest of a longer line is read through in pieces and dropped, and
    `cut` says so. One endless line costs the time to read it, never the memory to hold it."""
    while True:
        line = readline(cap)
        if not line:
            return
        cut = len(line) >= cap and line[-1:] not in ("\n", b"\n")
        while cut:
            more = readline(1 << 16)
            if not more or more[-1:] in ("\n", b"\n"):
                break
        yield line, cut
