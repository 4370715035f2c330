"""semantic-rdf push ENDPOINT — load the store into a triplestore and verify the quad count."""

NAME = "push"
HELP = (
    "load the store into a triplestore (http://HOST:PORT of an Oxigraph or Virtuoso server, which says which it "
    "is; or oxigraph+http://…, virtuoso+http://…, sparql+http://…) and verify counts"
)


def add_arguments(p) -> None:
    p.add_argument(
        "endpoint",
        metavar="ENDPOINT",
        help="http://127.0.0.1:7878 (the server is asked which it is) | oxigraph+http://127.0.0.1:7878[?streams=N] | virtuoso+http://127.0.0.1:8890[?isql=HOST:PORT&load-dir=DIR"
        "&password-file=FILE] | sparql+http://HOST/PATH?update=URL",
    )
    p.add_argument(
        "--since-last", action="store_true", help="send only what changed since the last push to this endpoint (state in <store>/push-state)"
    )


def run(args, ctx) -> int:
    from semantic_rdf.remote.sync import push

    from semantic_rdf.cli._common import progress

    store = ctx.store(read_only=True)
    bar = progress(ctx, "push", total=store.quad_count(), unit="quad")
    try:
        r = push(store, args.endpoint, since_last=args.since_last, progress=bar.update)
    finally:
        bar.close()
    ctx.emit(
        r.as_dict(),
        f"{r.mode} push: sent {r.sent} quads, removed {r.removed} stale subjects; store {r.local} = endpoint {r.remote} quads ({r.seconds:.2f} s)",
    )
    return 0
