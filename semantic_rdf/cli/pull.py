"""semantic-rdf pull ENDPOINT — copy a triplestore's semantic-rdf graphs into the store."""

NAME = "pull"
HELP = "copy the endpoint's semantic-rdf graphs into the store (shape-checked like import)"


def add_arguments(p) -> None:
    p.add_argument("endpoint", metavar="ENDPOINT", help="oxigraph+http://… | virtuoso+http://… | sparql+http://…")
    p.add_argument("--skip-erased", action="store_true", help="leave out data of erased assertions and documents and pull the rest (default: refuse)")


def run(args, ctx) -> int:
    from semantic_rdf.remote.sync import pull

    skipped: list = []
    n = pull(ctx.store(), args.endpoint, on_erased="skip" if args.skip_erased else "refuse", on_skipped=skipped.append)
    text = f"pulled {n} quads" + (f"; skipped {skipped[0].text()} (erased: tombstones win)" if skipped else "")
    ctx.emit({"quads": n, "skipped_erased": skipped[0].as_dict() if skipped else None}, text)
    return 0
