"""semantic-rdf stats — what the store holds."""

NAME = "stats"
HELP = "count assertions (by kind), retracted, tombstones, documents, entities, activities, decisions, quads"


def add_arguments(p) -> None:
    pass


def run(args, ctx) -> int:
    s = ctx.store(read_only=True).stats()
    ctx.emit(s, "\n".join(f"{k:>12}  {v}" for k, v in s.items()))
    return 0
