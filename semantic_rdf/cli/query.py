"""semantic-rdf query FILE.rq|NAME|- — run a read-only SPARQL query against the store."""

import json
import os
import sys

from semantic_rdf.cli.assert_ import parse_instant
from semantic_rdf.core.errors import InvalidInput

NAME = "query"
HELP = "run a read-only SPARQL query: a .rq file, a packaged query by name (--list), or - for stdin; --bind NAME=VALUE binds parameters safely"


def add_limit_arguments(p, *, rows_help: str = "stop with an error past N results (default 100000)") -> None:
    """--timeout, --max-rows, --max-memory: the limits of a user's SPARQL (sandbox.Limits; env fallbacks)."""
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="wall-clock limit (default 30, env SEMANTIC_RDF_QUERY_TIMEOUT)")
    p.add_argument("--max-rows", type=int, default=None, metavar="N", help=rows_help + ", env SEMANTIC_RDF_QUERY_MAX_ROWS")
    p.add_argument(
        "--max-memory", type=int, default=None, metavar="MIB", help="memory the query may use (default 1024 MiB, env SEMANTIC_RDF_QUERY_MAX_MEMORY)"
    )


def add_arguments(p) -> None:
    p.add_argument("file", nargs="?", help="a .rq file, a packaged query's name (asof, match, …), or - for stdin")
    p.add_argument("--list", action="store_true", help="list the packaged queries with what each answers")
    p.add_argument(
        "--bind",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help='bind ?NAME: <IRI> for an IRI, "text" (quoted) for a literal, otherwise an entity\'s name '
        "(or alias) binds that entity, and a value naming no entity a plain literal",
    )
    p.add_argument(
        "--format",
        choices=["table", "json", "csv", "tsv"],
        default=None,
        help="SELECT/ASK output: a table with prefixed names (default), or the W3C SPARQL 1.1 "
        "results formats json, csv, tsv (--json means --format json)",
    )
    p.add_argument("--as-of", default=None, metavar="ISO", help="bind ?asof (record time)")
    p.add_argument("--valid-at", default=None, metavar="ISO", help="bind ?validat (valid time)")
    p.add_argument("--union", action="store_true", help="default graph = union of all graphs (unless the query names its own with FROM)")
    add_limit_arguments(p)


def _term(value: str, entity=None):
    """The term a --bind value stands for; `entity(name)` looks a name up in the store's registry."""
    import pyoxigraph as ox

    if value.startswith("<") and value.endswith(">"):
        try:
            return ox.NamedNode(value[1:-1])
        except ValueError as exc:
            raise InvalidInput(f"bad IRI {value!r}: {exc}") from None
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        return ox.Literal(value[1:-1])
    found = entity(value) if entity is not None and value.strip() else []
    if len(found) > 1:
        names = ", ".join(f"{label} <{iri.value}>" for iri, label in found[:10])
        raise InvalidInput(f"{value!r} names {len(found)} entities: {names}; bind one by its <IRI>")
    return found[0][0] if found else ox.Literal(value)


def packaged_queries() -> list[tuple[str, str]]:
    """(name, first line of its header) of every packaged query and rule, e.g. ("asof", "what the store …")."""
    from semantic_rdf.core.resources import data_dir

    root = data_dir("queries")
    out = []
    for path in sorted(root.rglob("*.rq")):
        name = path.relative_to(root).with_suffix("").as_posix()
        first = next((ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("#")), "#")
        what = first.lstrip("# ").split(" — ", 1)[-1] if " — " in first else first.lstrip("# ")
        out.append((name, what))
    return out


def read_query(path: str) -> str:
    """The query text: stdin for -, a file that exists, else the packaged query of that name."""
    from semantic_rdf.core.bounds import read_regular
    from semantic_rdf.rdf.queries import MAX_QUERY_CHARS

    if path == "-":
        text = sys.stdin.read(MAX_QUERY_CHARS + 1)  # what stdin holds past a query's length is never read
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidInput(f"query is longer than {MAX_QUERY_CHARS:,} characters")
        return text
    if not os.path.exists(path) and not path.endswith(".rq"):
        from semantic_rdf.core.resources import query as packaged_text

        if path in dict(packaged_queries()):
            return packaged_text(path)
        raise InvalidInput(f"no query file {path!r} and no packaged query of that name (`semantic-rdf query --list` shows them)")
    data = read_regular(path, "query file", MAX_QUERY_CHARS * 4)  # a character takes at most four bytes
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"query file {path!r} is not UTF-8 (byte {exc.start + 1})") from None


def run(args, ctx) -> int:
    from semantic_rdf.rdf import layout as L

    from semantic_rdf.rdf import results as R
    from semantic_rdf.store.sandbox import Limits, run_user_query

    if args.list:
        found = packaged_queries()
        ctx.emit([{"name": n, "answers": w} for n, w in found], "\n".join(f"{n:<34} {w}" for n, w in found))
        return 0
    if args.file is None:
        raise InvalidInput("give a query: a .rq file, a packaged query's name, or - (see --list)")
    from semantic_rdf.cli._common import require_store

    require_store(ctx.store_path)  # before reading stdin or a file: a mistyped --store is the first error
    limits = Limits.resolve(args.timeout, args.max_rows, args.max_memory)
    text = read_query(args.file)
    params = {}
    lookup = None
    for b in args.bind:
        if "=" not in b:
            raise InvalidInput(f"--bind takes NAME=VALUE, got {b!r}")
        name, value = b.split("=", 1)
        if lookup is None:
            from semantic_rdf.lifecycle.browse import entities_named

            store = ctx.store(read_only=True)
            lookup = lambda n: entities_named(store, n)  # noqa: E731
        params[name] = _term(value, lookup)
    if args.as_of:
        params["asof"] = L.dt(parse_instant(args.as_of, "--as-of"))
    if args.valid_at:
        params["validat"] = L.dt(parse_instant(args.valid_at, "--valid-at"))
    res = run_user_query(ctx.store_path, text, params=params, union=args.union, limits=limits)
    fmt = args.format or ("json" if ctx.json else "table")
    if res.kind == "boolean":
        # SPARQL's CSV and TSV formats describe SELECT results only: an ASK prints true or false there
        ctx.stdout.write((json.dumps(R.json_boolean(bool(res.boolean))) if fmt == "json" else "true" if res.boolean else "false") + "\n")
        return 0
    if res.kind == "solutions":
        names = R.select_order(text, res.variables)
        at = [list(res.variables).index(n) for n in names]
        rows = [tuple(r[i] for i in at) for r in res.rows]
        if fmt == "json":
            ctx.stdout.write(json.dumps(R.json_results(names, rows), ensure_ascii=False, indent=2 if ctx.json else None) + "\n")
        elif fmt == "csv":
            ctx.stdout.write(R.csv_text(names, rows))
        elif fmt == "tsv":
            ctx.stdout.write(R.tsv_text(names, rows))
        else:
            ctx.stdout.write(R.table(names, rows) + "\n")
        return 0
    triples = [t + " ." for t in res.triples]
    ctx.emit(triples, "\n".join(triples))
    return 0
