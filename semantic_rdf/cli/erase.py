"""semantic-rdf erase [ID | --document REF | --entity NAME] --reason R — remove data and leave tombstones."""

from semantic_rdf.cli._common import add_change_arguments, cascade_note
from semantic_rdf.core.errors import InvalidInput

NAME = "erase"
HELP = "erase an assertion, a document (--document) or an entity (--entity): drop claims, spans and text, leave tombstones (then run compact)"


def add_arguments(p) -> None:
    add_change_arguments(
        p,
        reason_help="why (kept on the tombstone)",
        by_help="who erases (recorded)",
        optional_id=True,
        selectors=[
            ("--document", "REF", "revoke a source: its text, every span into it; assertions with no other source become tombstones"),
            ("--entity", "NAME", "every assertion naming the entity, its registry entry and aliases, and the text that mentions it"),
        ],
    )
    p.add_argument(
        "--with-shared-evidence",
        action="store_true",
        help="also erase surviving assertions whose quotes overlap the text this erasure blanks (default: refuse and name them)",
    )


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle import erasure

    given = [x for x in (args.id, args.document, args.entity) if x is not None]
    if len(given) != 1:
        raise InvalidInput("name exactly one of an assertion ID, --document REF or --entity NAME")
    store = ctx.store(create=False)  # nothing to erase in a missing store: refused, none created
    from semantic_rdf.hdc.memory import follow

    follow(store)  # the side file beside the store drops the erased rows (the `erased` event)
    if args.document is not None:
        ch = erasure.erase_document(store, args.document, args.reason, agent=args.by)
        text = f"erased document {args.document}: {len(ch.erased)} assertion(s) tombstoned, {len(ch.kept)} kept their other sources"
    elif args.entity is not None:
        ch = erasure.erase_entity(store, args.entity, args.reason, agent=args.by, with_shared_evidence=args.with_shared_evidence)
        text = f"erased entity {args.entity}: {len(ch.erased)} assertion(s) tombstoned"
    else:
        ch = erasure.erase(store, args.id, args.reason, agent=args.by, with_shared_evidence=args.with_shared_evidence)
        if ch.unchanged:
            ctx.emit(ch.as_dict(), f"{args.id} was already erased")
            return 0
        text = f"erased {', '.join(ch.erased)}"
    text += cascade_note(ch, "withdrew")
    ctx.note("run `semantic-rdf compact` to remove the erased data from the store's files")
    ctx.emit(ch.as_dict(), text)
    return 0
