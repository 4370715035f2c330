"""semantic-rdf validate — the shapes (pyshacl's verdicts, checked in batches) plus the integrity rules."""

NAME = "validate"
HELP = "validate the whole store against the shapes (pyshacl's verdicts, in batches) and the integrity rules: exit 0 if it conforms, 1 if not"


def add_arguments(p) -> None:
    p.add_argument("--limit", type=int, default=50, help="how many problems to list")
    p.add_argument(
        "--pyshacl",
        action="store_true",
        help="run pyshacl on every batch, not only on those the compiled checker finds a problem in "
        "(the same verdicts, about a hundred times slower)",
    )


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle.conflicts import warnings

    from semantic_rdf.cli._common import progress

    store = ctx.store(read_only=True)
    bar = progress(ctx, "validate", total=store.quad_count(), unit="quad")
    try:
        report = store.validate(pyshacl=args.pyshacl, progress=bar.update)
    finally:
        bar.close()
    found = warnings(store)  # sh:Warning: reported, never a reason to exit 1
    notes = [w.text() for w in found[: args.limit]]
    more_w = len(found) - len(notes)
    tail = (
        ""
        if not found
        else f"\n{len(found)} warning(s) (sh:Warning; the store still conforms):\n"
        + "\n".join("  " + n for n in notes)
        + (f"\n  … and {more_w} more" if more_w > 0 else "")
    )
    as_json = [w.as_dict() for w in found]
    if report.conforms:
        ctx.emit({"conforms": True, "violations": [], "warnings": as_json}, "conforms" + tail)
        return 0
    shown = report.violations[: args.limit]
    more = len(report.violations) - len(shown)
    ctx.emit(
        {"conforms": False, "violations": report.violations, "warnings": as_json},
        f"does not conform: {len(report.violations)} problem(s)\n"
        + "\n".join("  " + v for v in shown)
        + (f"\n  … and {more} more" if more > 0 else "")
        + tail,
    )
    return 1
