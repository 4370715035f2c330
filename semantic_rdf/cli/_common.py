"""Argument shapes and output pieces shared by several verbs (not a verb: absent from VERBS)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from semantic_rdf.errors import NotFound

# The verbs that create a store at a path that holds none; every other verb refuses a missing store.
CREATING_VERBS = ("assert", "seed", "ingest", "import", "pull", "derive", "demo")

# (flag, metavar, help) of an option that takes one value and has no default
Option = tuple[str, str, str]


def add_triple_arguments(p) -> None:
    """SUBJECT PREDICATE OBJECT, as `id` and `assert` take them."""
    p.add_argument("subject")
    p.add_argument("predicate")
    p.add_argument("object")


def add_change_arguments(p, *, reason_help: str, by_help: str, optional_id: bool = False,
                         selectors: Sequence[Option] = ()) -> None:
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
        raise NotFound(f"no store at {str(path)!r} (only {', '.join(CREATING_VERBS)} create one; "
                       "--store or SEMANTIC_RDF_STORE names another)")


def change_one(ctx, args, change: Callable[..., Any]):
    """Apply `change(store, id, reason, agent=by)` (temporal.retract, temporal.reinstate, erasure.erase) to a
    store that must exist already: there is nothing to change in a missing one."""
    return change(ctx.store(create=False), args.id, args.reason, agent=args.by)


def cascade_note(ch, verb: str) -> str:
    """"; <verb> N derived assertions" when the change cascaded, else ""."""
    return f"; {verb} {len(ch.cascaded)} derived assertions" if ch.cascaded else ""
