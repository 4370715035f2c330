"""semantic-rdf list — assertions, filtered and paged, each with its document and quoted span."""

NAME = "list"
HELP = "list assertions (filter by subject, predicate, object, document, run, state), with quoted spans"


def add_arguments(p) -> None:
    p.add_argument("--subject", "-s", metavar="NAME", help="entity name of the subject")
    p.add_argument("--predicate", "-p", metavar="NAME", help="one of the taxonomy predicates (see `predicates`)")
    p.add_argument("--object", "-o", dest="obj", metavar="NAME", help="entity name (or literal value) of the object")
    p.add_argument("--source", metavar="REF", help="only assertions read from this document reference")
    p.add_argument("--run", metavar="ID", help="only assertions generated (or observed again) by this run")
    p.add_argument("--state", choices=["believed", "retracted"], help="default: both")
    p.add_argument("--limit", type=int, default=20, help="rows per page (default 20)")
    p.add_argument("--offset", type=int, default=0, help="rows to skip (default 0)")


def run(args, ctx) -> int:
    from semantic_rdf.core.values import one_line  # stored free text printed in this layout keeps to its line
    from semantic_rdf.lifecycle.browse import list_assertions

    page = list_assertions(
        ctx.store(read_only=True),
        subject=args.subject,
        predicate=args.predicate,
        obj=args.obj,
        reference=args.source,
        run=args.run,
        state=args.state,
        limit=args.limit,
        offset=args.offset,
    )
    lines = []
    for row in page.rows:
        r = row.record
        state = "believed" if row.believed else "retracted"
        lines.append(f"{r.id}  {r.subject} —{r.predicate}→ {r.object}  [{r.kind}, {state}, conf {r.confidence:g}]")
        for q in row.quotes:
            lines.append(f"    {one_line(q.reference)} {q.start}..{q.end}: “{one_line(q.text)}”")
    if not page.rows:
        lines.append("no assertions match")
    elif page.more:
        lines.append(f"… more: --offset {page.offset + page.limit}")
    ctx.emit(page.as_dict(), "\n".join(lines))
    return 0
