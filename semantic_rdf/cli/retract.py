"""semantic-rdf retract — withdraw belief in one assertion, or in everything a run, agent or source produced."""

from semantic_rdf.cli._common import add_change_arguments, change_one
from semantic_rdf.core.errors import InvalidInput

NAME = "retract"
HELP = "retract an assertion (kept, closed in record time), or a set: --run, --agent or --source"


def add_arguments(p) -> None:
    add_change_arguments(
        p,
        reason_help="why (recorded)",
        by_help="who retracts (recorded; default caller)",
        optional_id=True,
        selectors=[
            ("--run", "RUN", "every observation one extraction run produced"),
            ("--agent", "NAME", "every observation one extractor / model / person produced"),
            ("--source", "REF", "every observation read from one source document"),
        ],
    )


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle import temporal

    sets = [x for x in (args.run, args.agent, args.source) if x is not None]
    if (args.id is None) == (not sets) or len(sets) > 1:
        raise InvalidInput("give either an assertion ID or exactly one of --run, --agent, --source")
    if args.id is not None:
        ch = change_one(ctx, args, temporal.retract)
        if ch.nothing_changed:  # a no-op: nothing recorded, exit 0 (docs/time-and-provenance.md)
            ctx.emit(ch.as_dict(), f"already retracted: {args.id} (nothing recorded)")
            return 0
    else:
        ch = temporal.retract_set(ctx.store(create=False), reason=args.reason, run=args.run, agent=args.agent, source=args.source, by=args.by)
    lines = [f"retracted {len(ch.changed)}"]
    if ch.kept:
        lines.append(f"kept believed (another independent source): {len(ch.kept)}")
    if ch.cascaded:
        lines.append(f"withdrawn derived assertions: {len(ch.cascaded)}")
    if ch.unchanged:
        lines.append(f"already retracted: {len(ch.unchanged)}")
    lines.append("nothing recorded" if ch.nothing_changed else f"activity {ch.activity}")
    ctx.emit(ch.as_dict(), "\n".join(lines))
    return 0
