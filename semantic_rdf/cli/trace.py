"""semantic-rdf trace ID — the provenance of an assertion, back to its source documents."""

NAME = "trace"
HELP = "show how an assertion came to be: rule and antecedents, spans of source documents with SHA-256"


def add_arguments(p) -> None:
    p.add_argument("id", help="assertion id (16 hex digits; `semantic-rdf id S P O` prints it)")
    p.add_argument("--no-text", action="store_true", help="do not quote the span text")


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle.provenance import trace

    t = trace(ctx.store(create=False), args.id, with_text=not args.no_text)
    ctx.emit(t.as_dict(), t.text())
    return 0
