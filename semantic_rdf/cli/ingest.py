"""semantic-rdf ingest REF… — read documents, extract assertions with their spans, store them."""

import json
import sys

from semantic_rdf.core.errors import InvalidInput

NAME = "ingest"
HELP = "ingest files, directories, globs, http(s) URLs or - (stdin); extract assertions with spans"


# a gazetteer is a JSON object of name -> class: far past any real one, short of filling the memory
MAX_GAZETTEER = 64 << 20


def add_arguments(p) -> None:
    p.add_argument("refs", nargs="+", metavar="REF")
    p.add_argument("--name", default=None, metavar="NAME", help="the reference to record for what - reads from standard input (default: stdin)")
    p.add_argument("--verbose", "-v", action="store_true", help="list the documents that gave no assertion")
    p.add_argument("--reread", action="store_true", help="read documents again even when stored unchanged with all their facts (records a run)")
    p.add_argument("--root", action="append", default=None, help="allowed local root (default: the paths named)")
    p.add_argument("--allow-host", action="append", default=[], help="trust this host/address/network for http(s)")
    p.add_argument("--include", action="append", default=[], help="glob of files to take inside directories")
    p.add_argument("--exclude", action="append", default=None, help="glob of files to skip inside directories")
    p.add_argument("--max-bytes", type=int, default=None, help="size cap per source")
    p.add_argument("--timeout", type=float, default=None, help="seconds for each web fetch, from connect to the last byte (default 30)")
    p.add_argument("--splitter", default="sentences", help="sentences | paragraphs | recursive[:SIZE[:OVERLAP]] | markdown")
    p.add_argument(
        "--extractor",
        default="statistical",
        help="statistical: the trained model shipped in the package (default); rules: the pattern"
        " extractor; model: an OpenAI-compatible model; none: store documents only; or one a plug-in registers",
    )
    p.add_argument("--floor", type=float, default=None, help="confidence floor (separate from the schema check)")
    p.add_argument("--gazetteer", default=None, help="JSON file {name: class} of names to recognise")
    p.add_argument("--model-url", default=None, help="OpenAI-compatible base URL (for --extractor model)")
    p.add_argument("--model", default=None, help="model name (for --extractor model)")
    p.add_argument("--model-key-env", default=None, help="environment variable holding the API key")
    p.add_argument(
        "--read-ahead",
        default="auto",
        choices=["auto", "thread", "child"],
        help="where read, parse, split and extract run while the store is written: a worker thread, or"
        " a forked child process on the second core (auto: a child for 1 MB or more of local files"
        " on Linux)",
    )
    p.add_argument(
        "--allow-erased", action="store_true", help="ingest content whose document was erased (erase --document) again (default: refuse it)"
    )


def make_extractor(args):
    """The extractor `--extractor NAME` names in the registry (semantic_rdf/core/plugins.py), made with the
    options given: --floor, --gazetteer, the model of --model-url and --model. One it does not take is an error."""
    import inspect

    from semantic_rdf.core.plugins import default_registry

    factory = default_registry().get("extractor", args.extractor)
    options: dict = {}
    if args.floor is not None:
        if not 0.0 <= args.floor <= 1.0:
            raise InvalidInput(f"--floor {args.floor} is outside [0, 1]")
        options["floor"] = args.floor
    if args.model_url or args.model:
        from semantic_rdf.pipeline.llm import OpenAICompatibleModel

        if not args.model_url or not args.model:
            raise InvalidInput("--extractor model needs --model-url and --model")
        options["model"] = OpenAICompatibleModel(args.model_url, args.model, api_key_env=args.model_key_env)
    if args.gazetteer:
        options["gazetteer"] = _gazetteer(args.gazetteer)
    try:
        inspect.signature(factory).bind(**options)
    except TypeError:
        taken = set(inspect.signature(factory).parameters)
        extra = ", ".join(f"--{k}" if k != "model" else "--model-url/--model" for k in options if k not in taken)
        raise InvalidInput(f"--extractor {args.extractor} does not take {extra}") from None
    return factory(**options)


def _gazetteer(path: str) -> dict[str, str]:
    """The --gazetteer file: a JSON object of name -> class."""
    from semantic_rdf.core.bounds import read_regular

    data = read_regular(path, "--gazetteer file", MAX_GAZETTEER)  # a device or a FIFO would never end
    try:
        gaz = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise InvalidInput(f"--gazetteer {path!r}: {exc.__class__.__name__}") from None
    if not isinstance(gaz, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in gaz.items()):
        raise InvalidInput("--gazetteer must be a JSON object of name -> class")
    from semantic_rdf.core.vocab import entity_classes

    known = entity_classes()
    odd = sorted({v for v in gaz.values() if v not in known})
    if odd:
        raise InvalidInput(f"--gazetteer class {odd[0]!r} is not an entity class; use one of {', '.join(sorted(known))}")
    return gaz


def stdin_name(args) -> dict:
    """build_pipeline's stdin_name, when --name is given (only with the reference -)."""
    if args.name is None:
        return {}
    if "-" not in args.refs:
        raise InvalidInput("--name names what - reads from standard input; no - was given")
    return {"stdin_name": args.name}


def own_files(store: str, refs) -> list[str]:
    """Exclude patterns for the store's own files inside the folders among `refs`: the store's folder and its
    side tables (<store>.side.sqlite, with SQLite's -wal and -shm), so that ingesting the folder that holds
    the store does not read the store."""
    import glob
    from pathlib import Path

    from semantic_rdf.hdc.sidetables import side_path

    home = Path(store).resolve()
    out: list[str] = []
    for ref in refs:
        base = Path(ref).resolve()
        if ref == "-" or not base.is_dir() or home == base or not home.is_relative_to(base):
            continue
        out += [glob.escape(home.relative_to(base).as_posix()), glob.escape(side_path(home).relative_to(base).as_posix()) + "*"]
    return out


def run(args, ctx) -> int:
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.pipeline.sources import IngestConfig
    from semantic_rdf.pipeline.stages import build_pipeline

    extractor = make_extractor(args)
    pipeline = build_pipeline(
        args.refs,
        roots=args.root,
        allow_hosts=args.allow_host,
        max_bytes=args.max_bytes,
        timeout=args.timeout,
        include=args.include,
        exclude=[*(args.exclude if args.exclude is not None else IngestConfig.exclude), *own_files(ctx.store_path, args.refs)],
        splitter=args.splitter,
        extractor=extractor,
        stdin=sys.stdin.buffer,
        **stdin_name(args),
    )
    store = ctx.store()
    from semantic_rdf.cli._common import progress as progress_bar

    bar = progress_bar(ctx, "ingest", unit="doc")

    def progress(ref: str, n: int) -> None:
        bar.update(n - bar.n)
        bar.set_postfix_str(ref[-40:])

    # the model behind the extractor, recorded on its PROV agent: a served model's name, or the
    # statistical extractor's weights and training data hashes
    model = getattr(extractor, "model_id", None) or getattr(getattr(extractor, "model", None), "model", None)
    hook = None
    try:
        from semantic_rdf.hdc.memory import after_ingest_hook, follow_in_step  # side tables, when installed

        # side tables in step: a Memory follows the batches as events and leaves the mark when the store closes
        # (the next `ask` then reads nothing to reconcile); otherwise the hook indexes each batch
        mem = follow_in_step(store)
        if mem is not None:
            ctx.close_after_store(mem.close)
        hook = after_ingest_hook(store)
    except ImportError:
        pass
    summary = load(
        store,
        pipeline,
        args.refs,
        floor=args.floor,
        model=model,
        progress=progress,
        on_commit=hook,
        read_ahead=args.read_ahead,
        allow_erased=args.allow_erased,
        reread=args.reread,
    )
    bar.close()
    ctx.emit(summary.as_dict(), summary.text(verbose=args.verbose))
    if summary.documents == 0 and summary.failed and not summary.unchanged_documents:
        first = summary.failed[0]["error"]
        more = f" (and {len(summary.failed) - 1} more failed)" if len(summary.failed) > 1 else ""
        return ctx.fail(f"nothing ingested: {first[:400]}{more}", "SourceError")
    return 0
