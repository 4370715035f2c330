"""semantic-rdf seed — insert the Hillock seed knowledge (opt-in)."""

from semantic_rdf.store.seed import seed

NAME = "seed"
HELP = "insert the Hillock seed knowledge (10 entities, 7 caller-supplied triples)"


def add_arguments(p) -> None:
    pass


def run(args, ctx) -> int:
    store = ctx.store()
    ids = seed(store)
    recs = [store.require(i) for i in ids]
    ctx.emit([r.as_dict() for r in recs], "\n".join(f"{r.id}  {r.subject} {r.predicate} {r.object}" for r in recs))
    return 0
