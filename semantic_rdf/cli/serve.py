"""semantic-rdf serve — browse the store in a web browser through the standard Oxigraph server.

Launches `oxigraph serve-read-only --location <store>/readers/<snapshot> --bind 127.0.0.1:PORT
--union-default-graph` (the `oxigraph` PyPI package), prints the ready queries of queries/serve/, and
waits; Ctrl-C stops it. The union default graph is what makes a plain `SELECT * WHERE { ?s ?p ?o }`
in the page return rows: the store keeps everything in named graphs (one per assertion's claim, plus
provenance, entities and documents), and a server's default graph is otherwise empty. The library
itself never opens a listener.
"""

import os
import signal
import sys
from pathlib import Path

from semantic_rdf.cli._common import require_store
from semantic_rdf.core.errors import InvalidInput

NAME = "serve"
HELP = "browse the store: run the Oxigraph server read-only on it (127.0.0.1 by default), with ready queries"


def add_arguments(p) -> None:
    p.add_argument("--port", type=int, default=7878, help="port (default 7878; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)")


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
    from semantic_rdf.remote.servers import OxigraphServer
    from semantic_rdf.store.readers import fresh_snapshot

    require_store(ctx.store_path)
    root = Path(ctx.store_path)
    if not 0 <= args.port <= 65535:
        raise InvalidInput(f"--port {args.port} is not a port number")
    # the server reads a snapshot of the store's files, as every read-only open does (store/readers.py): a writer's
    # compaction cannot delete a file under it; it serves the store as it was when it started, as it would anyway
    snap = fresh_snapshot(root / "oxigraph", root)
    data = str(snap.path) if snap is not None else os.path.join(ctx.store_path, "oxigraph")
    keep = (snap.fileno(),) if snap is not None else ()  # the server holds the snapshot's lock too, should serve die first
    server = OxigraphServer(location=data, read_only=True, port=args.port, host=args.host, union_default_graph=True, pass_fds=keep)
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.start()
        proc = server.proc
        assert proc is not None  # start() ran it
        queries = ready_queries()
        text = [
            f"serving {ctx.store_path} read-only at {server.url}/ (SPARQL endpoint: {server.url}/query); Ctrl-C stops",
            "Every graph is the default graph here: SELECT * WHERE { ?s ?p ?o } returns the whole store.",
            "Ready queries: paste one into the page (`semantic-rdf query serve/NAME --union` runs it here too).",
        ]
        for name, title, body in queries:
            text += ["", f"# serve/{name}: {title}", body]
        ctx.emit(
            {
                "url": server.url,
                "query": server.url + "/query",
                "pid": proc.pid,
                "union_default_graph": True,
                "queries": [{"name": f"serve/{n}", "title": t, "query": b} for n, t, b in queries],
            },
            "\n".join(text),
        )
        ctx.stdout.flush()
        proc.wait()
        return 0 if proc.returncode in (0, -signal.SIGTERM) else 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()
        if snap is not None:
            snap.close()
        signal.signal(signal.SIGTERM, previous)
