"""semantic-rdf query FILE.rq|- — run a read-only SPARQL query against the store."""

import sys

import pyoxigraph as ox

from semantic_rdf import layout as L
from semantic_rdf.cli.assert_ import parse_instant
from semantic_rdf.errors import InvalidInput
from semantic_rdf.queries import bind, refuse_service

NAME = "query"
HELP = "run a SPARQL query (file or - for stdin) read-only; --bind NAME=<iri>|literal binds parameters safely"


def add_arguments(p) -> None:
    p.add_argument("file", help="a .rq file, or - for standard input")
    p.add_argument("--bind", action="append", default=[], metavar="NAME=VALUE",
                   help="bind ?NAME: <IRI> for an IRI, anything else is a plain literal")
    p.add_argument("--as-of", default=None, metavar="ISO", help="bind ?asof (record time)")
    p.add_argument("--valid-at", default=None, metavar="ISO", help="bind ?validat (valid time)")
    p.add_argument("--union", action="store_true", help="default graph = union of all graphs")


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
    text = refuse_service(read_query(args.file))
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
    store = ctx.store(read_only=True)
    try:
        res = store.ox.query(bind(text, params), use_default_graph_as_union=args.union)
    except SyntaxError as exc:
        raise InvalidInput(f"SPARQL syntax error: {' '.join(str(exc).split())}") from None
    if isinstance(res, bool):
        ctx.emit({"boolean": res}, "true" if res else "false")
        return 0
    if hasattr(res, "variables"):
        names = [v.value for v in res.variables]
        rows = [{n: (None if row[n] is None else str(row[n])) for n in names} for row in res]
        text_out = "\t".join(names) + "\n" + "\n".join("\t".join(r[n] or "" for n in names) for r in rows)
        ctx.emit(rows, text_out.rstrip("\n"))
        return 0
    triples = [str(t) + " ." for t in res]
    ctx.emit(triples, "\n".join(triples))
    return 0
