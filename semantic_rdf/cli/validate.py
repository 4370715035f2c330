"""semantic-rdf validate — the shapes (pyshacl's verdicts, checked in batches) plus the integrity rules."""

NAME = "validate"
HELP = ("validate the whole store against the shapes (pyshacl's verdicts, in batches) and the integrity rules: "
        "exit 0 if it conforms, 1 if not")


def add_arguments(p) -> None:
    p.add_argument("--limit", type=int, default=50, help="how many problems to list")
    p.add_argument("--pyshacl", action="store_true",
                   help="run pyshacl on every batch, not only on those the compiled checker finds a problem in "
                        "(the same verdicts, about a hundred times slower)")


def run(args, ctx) -> int:
    report = ctx.store(read_only=True).validate(pyshacl=args.pyshacl)
    if report.conforms:
        ctx.emit({"conforms": True, "violations": []}, "conforms")
        return 0
    shown = report.violations[: args.limit]
    more = len(report.violations) - len(shown)
    ctx.emit({"conforms": False, "violations": report.violations},
             f"does not conform: {len(report.violations)} problem(s)\n" + "\n".join("  " + v for v in shown)
             + (f"\n  … and {more} more" if more > 0 else ""))
    return 1
