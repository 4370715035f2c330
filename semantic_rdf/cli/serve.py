"""semantic-rdf serve — browse the store in a web browser: a read-only SPARQL endpoint with Oxigraph's page.

Runs `remote.endpoint.Endpoint` on the store (127.0.0.1 by default), prints the ready queries of queries/serve/,
and waits; Ctrl-C or SIGTERM stops it. Each query goes through the guard and the limits of `semantic-rdf query`
(no SERVICE: the stock Oxigraph server would let anyone who reaches it fetch any URL) and reads the store as it is
then, with every graph as the default graph: the store keeps everything in named graphs (one per assertion's
claim, plus provenance, entities and documents), so a plain `SELECT * WHERE { ?s ?p ?o }` in the page returns
rows. The page is Oxigraph's own, read once from the `oxigraph` program at start-up.
"""

import signal
import sys
from pathlib import Path

from semantic_rdf.cli._common import require_store
from semantic_rdf.cli.query import add_limit_arguments
from semantic_rdf.core.errors import InvalidInput

NAME = "serve"
HELP = "browse the store: a read-only SPARQL endpoint with Oxigraph's page (127.0.0.1 by default), with ready queries"


def add_arguments(p) -> None:
    p.add_argument("--port", type=int, default=7878, help="port (default 7878; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a DNS name the server may be reached by (the Host header); an IP address and localhost always are",
    )
    add_limit_arguments(p, rows_help="refuse a query past N results (default 100000)")


def ready_queries() -> list[tuple[str, str, str]]:
    """(name, what it answers, query text without its comment header) of each queries/serve/*.rq."""
    from semantic_rdf.core.resources import files

    out = []
    for path in files("queries", "serve/*.rq"):
        lines = path.read_text(encoding="utf-8").splitlines()
        title = lines[0].lstrip("# ").split(" — ", 1)[-1]
        body = "\n".join(ln for ln in lines if not ln.startswith("#")).strip()
        out.append((path.stem, title, body))
    return out


def run(args, ctx) -> int:
    from semantic_rdf.remote.endpoint import Endpoint, oxigraph_page
    from semantic_rdf.store.sandbox import Limits

    require_store(ctx.store_path)
    if not 0 <= args.port <= 65535:
        raise InvalidInput(f"--port {args.port} is not a port number")
    limits = Limits.resolve(args.timeout, args.max_rows, args.max_memory)
    # SIGTERM from here on unwinds through the `finally`s: that of oxigraph_page stops the server it reads the page from
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    endpoint: Endpoint | None = None
    try:
        endpoint = Endpoint(Path(ctx.store_path), args.host, args.port, limits, tuple(args.allow_host), oxigraph_page()).start()
        queries = ready_queries()
        text = [
            f"serving {ctx.store_path} read-only at {endpoint.url}/ (SPARQL endpoint: {endpoint.url}/query); Ctrl-C stops",
            "Every graph is the default graph here: SELECT * WHERE { ?s ?p ?o } returns the whole store.",
            "Ready queries: paste one into the page (`semantic-rdf query serve/NAME --union` runs it here too).",
        ]
        for name, title, body in queries:
            text += ["", f"# serve/{name}: {title}", body]
        ctx.emit(
            {
                "url": endpoint.url,
                "query": endpoint.url + "/query",
                "union_default_graph": True,
                "queries": [{"name": f"serve/{n}", "title": t, "query": b} for n, t, b in queries],
            },
            "\n".join(text),
        )
        ctx.stdout.flush()
        endpoint.serve_forever()
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        if endpoint is not None:
            endpoint.stop()
        signal.signal(signal.SIGTERM, previous)
