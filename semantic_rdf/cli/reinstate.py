"""semantic-rdf reinstate ID --reason R — explicitly believe a retracted assertion again."""

from semantic_rdf.cli._common import add_change_arguments, cascade_note, change_one

NAME = "reinstate"
HELP = "believe a retracted assertion again from now on (recorded; re-asserting alone never does this)"


def add_arguments(p) -> None:
    add_change_arguments(p, reason_help="why (recorded)", by_help="who reinstates (recorded)")


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle import temporal

    ch = change_one(ctx, args, temporal.reinstate)
    if ch.nothing_changed:  # a no-op: nothing recorded, exit 0 (docs/time-and-provenance.md)
        text = f"already believed: {args.id} (nothing recorded)"
    else:
        text = f"reinstated {args.id}" + cascade_note(ch, "reopened")
    ctx.emit(ch.as_dict(), text)
    return 0
