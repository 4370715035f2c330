"""semantic-rdf query FILE.rq|- — run a read-only SPARQL query against the store."""

import sys

import pyoxigraph as ox

from semantic_rdf import layout as L
from semantic_rdf.cli.assert_ import parse_instant
from semantic_rdf.errors import InvalidInput

NAME = "query"
HELP = "run a SPARQL query (file or - for stdin) read-only; --bind NAME=<iri>|literal binds parameters safely"


def add_limit_arguments(p, *, rows_help: str = "stop with an error past N results (default 100000)") -> None:
    """--timeout, --max-rows, --max-memory: the limits of a user's SPARQL (sandbox.Limits; env fallbacks)."""
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="wall-clock limit (default 30, env SEMANTIC_RDF_QUERY_TIMEOUT)")
    p.add_argument("--max-rows", type=int, default=None, metavar="N",
                   help=rows_help + ", env SEMANTIC_RDF_QUERY_MAX_ROWS")
    p.add_argument("--max-memory", type=int, default=None, metavar="MIB",
                   help="memory the query may use (default 1024 MiB, env SEMANTIC_RDF_QUERY_MAX_MEMORY)")


def add_arguments(p) -> None:
    p.add_argument("file", help="a .rq file, or - for standard input")
    p.add_argument("--bind", action="append", default=[], metavar="NAME=VALUE",
                   help="bind ?NAME: <IRI> for an IRI, anything else is a plain literal")
    p.add_argument("--as-of", default=None, metavar="ISO", help="bind ?asof (record time)")
    p.add_argument("--valid-at", default=None, metavar="ISO", help="bind ?validat (valid time)")
    p.add_argument("--union", action="store_true", help="default graph = union of all graphs")
    add_limit_arguments(p)


def _term(value: str):
    if value.startswith("<") and value.endswith(">"):
        try:
            return ox.NamedNode(value[1:-1])
        except ValueError as exc:
            raise InvalidInput(f"bad IRI {value!r}: {exc}") from None
    return ox.Literal(value)


def read_query(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read query file {path!r}: {exc.__class__.__name__}") from None


def run(args, ctx) -> int:
    from semantic_rdf.sandbox import Limits, run_user_query

    limits = Limits.resolve(args.timeout, args.max_rows, args.max_memory)
    text = read_query(args.file)
    params = {}
    for b in args.bind:
        if "=" not in b:
            raise InvalidInput(f"--bind takes NAME=VALUE, got {b!r}")
        name, value = b.split("=", 1)
        params[name] = _term(value)
    if args.as_of:
        params["asof"] = L.dt(parse_instant(args.as_of, "--as-of"))
    if args.valid_at:
        params["validat"] = L.dt(parse_instant(args.valid_at, "--valid-at"))
    res = run_user_query(ctx.store_path, text, params=params, union=args.union, limits=limits)
    if res.kind == "boolean":
        ctx.emit({"boolean": res.boolean}, "true" if res.boolean else "false")
        return 0
    if res.kind == "solutions":
        names = list(res.variables)
        rows = [dict(zip(names, r)) for r in res.rows]
        text_out = "\t".join(names) + "\n" + "\n".join("\t".join(r[n] or "" for n in names) for r in rows)
        ctx.emit(rows, text_out.rstrip("\n"))
        return 0
    triples = [t + " ." for t in res.triples]
    ctx.emit(triples, "\n".join(triples))
    return 0
