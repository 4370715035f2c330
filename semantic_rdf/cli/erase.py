"""semantic-rdf erase ID --reason R — remove an assertion and leave a tombstone."""

import semantic_rdf.memory  # noqa: F401  (registers the side-table hooks for erasure and compaction)
from semantic_rdf.cli._common import add_change_arguments, cascade_note, change_one

NAME = "erase"
HELP = "erase an assertion: drop claim, spans and literals, redact its span text, leave a tombstone (then run compact)"


def add_arguments(p) -> None:
    add_change_arguments(p, reason_help="why (kept on the tombstone)", by_help="who erases (recorded)")


def run(args, ctx) -> int:
    from semantic_rdf import erasure

    ch = change_one(ctx, args, erasure.erase)
    if ch.unchanged:
        text = f"{args.id} was already erased"
    else:
        text = f"erased {', '.join(ch.erased)}" + cascade_note(ch, "withdrew")
        ctx.note("run `semantic-rdf compact` to remove the erased data from the store's files")
    ctx.emit(ch.as_dict(), text)
    return 0
