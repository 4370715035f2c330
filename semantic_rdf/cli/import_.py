"""semantic-rdf import FILE — load an export back: it adds records and never changes stored ones (docs/stores.md)."""

from semantic_rdf.core.errors import InvalidInput

NAME = "import"
HELP = "load an N-Quads / TriG / JSON-LD export into the store: adds records, never changes stored ones (all-or-nothing, shape-checked)"


def add_arguments(p) -> None:
    p.add_argument("file")
    p.add_argument("--format", default=None, choices=["nquads", "trig", "jsonld"], help="default: from the file extension")
    p.add_argument(
        "--skip-erased", action="store_true", help="leave out data of erased assertions and documents and import the rest (default: refuse)"
    )


def run(args, ctx) -> int:
    fmt = args.format or {"nq": "nquads", "trig": "trig", "jsonld": "jsonld", "json": "jsonld"}.get(args.file.rsplit(".", 1)[-1].lower())
    if fmt is None:
        raise InvalidInput(f"cannot tell the format of {args.file!r}: pass --format")
    from semantic_rdf.core.bounds import read_regular

    data = read_regular(args.file, "import file")  # a device or a FIFO is refused, not read forever
    n, skipped = ctx.store().import_report(data, fmt, on_erased="skip" if args.skip_erased else "refuse")
    text = f"imported {n} quads"
    if skipped:
        text += f"; skipped {skipped.text()} (erased: tombstones win)"
    ctx.emit({"quads": n, "skipped_erased": skipped.as_dict()}, text)
    return 0
