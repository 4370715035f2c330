"""semantic-rdf pull ENDPOINT — copy a triplestore's semantic-rdf graphs into the store."""

from semantic_rdf.sync import pull

NAME = "pull"
HELP = "copy the endpoint's semantic-rdf graphs into the store (shape-checked like import)"


def add_arguments(p) -> None:
    p.add_argument("endpoint", metavar="ENDPOINT", help="oxigraph+http://… | virtuoso+http://… | sparql+http://…")


def run(args, ctx) -> int:
    n = pull(ctx.store(), args.endpoint)
    ctx.emit({"quads": n}, f"pulled {n} quads")
    return 0
