"""semantic-rdf reinstate ID --reason R — explicitly believe a retracted assertion again."""

NAME = "reinstate"
HELP = "believe a retracted assertion again from now on (recorded; re-asserting alone never does this)"


def add_arguments(p) -> None:
    p.add_argument("id", help="assertion id")
    p.add_argument("--reason", required=True, help="why (recorded)")
    p.add_argument("--by", default="caller", metavar="NAME", help="who reinstates (recorded)")


def run(args, ctx) -> int:
    from semantic_rdf import temporal

    ch = temporal.reinstate(ctx.store(), args.id, args.reason, agent=args.by)
    text = (f"{args.id} was already believed" if ch.unchanged else f"reinstated {args.id}") + (
        f"; reopened {len(ch.cascaded)} derived assertions" if ch.cascaded else "")
    ctx.emit(ch.as_dict(), text)
    return 0
