"""semantic-rdf erase ID --reason R — remove an assertion and leave a tombstone."""

import semantic_rdf.memory  # noqa: F401  (registers the side-table hooks for erasure and compaction)

NAME = "erase"
HELP = "erase an assertion: drop claim, spans and literals, redact its span text, leave a tombstone (then run compact)"


def add_arguments(p) -> None:
    p.add_argument("id", help="assertion id")
    p.add_argument("--reason", required=True, help="why (kept on the tombstone)")
    p.add_argument("--by", default="caller", metavar="NAME", help="who erases (recorded)")


def run(args, ctx) -> int:
    from semantic_rdf import erasure

    ch = erasure.erase(ctx.store(), args.id, args.reason, agent=args.by)
    if ch.unchanged:
        text = f"{args.id} was already erased"
    else:
        text = f"erased {', '.join(ch.erased)}" + (
            f"; withdrew {len(ch.cascaded)} derived assertions" if ch.cascaded else "")
        ctx.note("run `semantic-rdf compact` to remove the erased data from the store's files")
    ctx.emit(ch.as_dict(), text)
    return 0
