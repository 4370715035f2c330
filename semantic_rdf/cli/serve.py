"""semantic-rdf serve — browse the store in a web browser through the standard Oxigraph server.

Launches `oxigraph serve-read-only --location <store>/oxigraph --bind 127.0.0.1:PORT` (the `oxigraph`
PyPI package) and waits; Ctrl-C stops it. The library itself never opens a listener.
"""

import os
import signal
import sys

from semantic_rdf.cli._common import require_store
from semantic_rdf.errors import InvalidInput

NAME = "serve"
HELP = "browse the store: run the Oxigraph server read-only on it (127.0.0.1 by default)"


def add_arguments(p) -> None:
    p.add_argument("--port", type=int, default=7878, help="port (default 7878; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)")


def run(args, ctx) -> int:
    from semantic_rdf.servers import OxigraphServer

    require_store(ctx.store_path)
    data = os.path.join(ctx.store_path, "oxigraph")
    if not 0 <= args.port <= 65535:
        raise InvalidInput(f"--port {args.port} is not a port number")
    server = OxigraphServer(location=data, read_only=True, port=args.port, host=args.host)
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.start()
        ctx.emit({"url": server.url, "query": server.url + "/query", "pid": server.proc.pid},
                 f"serving {ctx.store_path} read-only at {server.url}/ (SPARQL: {server.url}/query); Ctrl-C stops")
        ctx.stdout.flush()
        server.proc.wait()
        return 0 if server.proc.returncode in (0, -signal.SIGTERM) else 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()
        signal.signal(signal.SIGTERM, previous)
