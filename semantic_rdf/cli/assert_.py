"""semantic-rdf assert S P O — write one caller-supplied assertion."""

from datetime import datetime, timezone

from semantic_rdf.cli._common import add_triple_arguments
from semantic_rdf.core.errors import InvalidInput

NAME = "assert"
HELP = "write one caller-supplied assertion SUBJECT PREDICATE OBJECT (predicate: one of the 53)"


def add_arguments(p) -> None:
    add_triple_arguments(p)
    p.add_argument("--score", type=float, default=None, help="confidence in [0, 1] (absent = full confidence)")
    p.add_argument("--source", default="", help="a label for this statement (distinct labels count as distinct sources)")
    p.add_argument("--agent", default="caller", help="who states it (default: caller)")
    p.add_argument("--valid-from", default=None, metavar="ISO", help="valid time start (ISO 8601 with zone)")
    p.add_argument("--valid-until", default=None, metavar="ISO", help="valid time end (ISO 8601 with zone)")
    p.add_argument(
        "--skip-erased", action="store_true", help="if the assertion was erased, report it and write nothing, exit 0 (default: refuse, exit 2)"
    )


def parse_instant(text: str | None, what: str) -> datetime | None:
    if text is None:
        return None
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"{what}: not an ISO 8601 instant: {text!r}") from None
    if len(text) == 10 and t.tzinfo is None:  # a bare date (2026-01-01) is the start of that day, UTC
        t = t.replace(tzinfo=timezone.utc)
    if t.tzinfo is None:
        raise InvalidInput(f"{what}: {text!r} has no time zone (add Z or +00:00)")
    return t


def run(args, ctx) -> int:
    from semantic_rdf.core.values import Validity

    valid = None
    if args.valid_from or args.valid_until:
        valid = Validity(parse_instant(args.valid_from, "--valid-from"), parse_instant(args.valid_until, "--valid-until"))
    store = ctx.store()
    aid = store.assert_(
        args.subject,
        args.predicate,
        args.object,
        score=args.score,
        valid=valid,
        agent=args.agent,
        note=args.source,
        on_erased="skip" if args.skip_erased else "refuse",
    )
    rec = store.get(aid)
    if rec is None:  # erased, and --skip-erased: nothing was written
        ctx.emit({"id": aid, "skipped": "erased"}, f"skipped {aid}: it was erased (tombstones win); nothing written")
        return 0
    ctx.emit(
        rec.as_dict(),
        f"{aid}  {rec.subject} {rec.predicate} {rec.object}  (confidence {rec.confidence:g}, {rec.count} source{'s' if rec.count != 1 else ''})",
    )
    return 0
