"""semantic-rdf search TEXT — entity names, aliases and stored document text containing TEXT."""

NAME = "search"
HELP = "search entity names, aliases and stored document text (case-insensitive)"


def add_arguments(p) -> None:
    p.add_argument("text")
    p.add_argument("--limit", type=int, default=50, help="at most this many hits (default 50)")


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle.browse import search

    hits = search(ctx.store(read_only=True), args.text, limit=args.limit)
    lines = [
        f"entity  {h.label}" + (f"  (as {h.snippet!r})" if h.snippet != h.label.lower() else "")
        if h.kind == "entity"
        else f"text    {h.label} @{h.at}: {h.snippet}"
        for h in hits
    ]
    ctx.emit([h.as_dict() for h in hits], "\n".join(lines) or "nothing found")
    return 0
