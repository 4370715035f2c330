"""semantic-rdf derive — run the forward-chaining rules to a fixpoint."""

NAME = "derive"
HELP = "forward chaining: run queries/rules/*.rq (and --rule FILE) over believed assertions, record what they conclude"


def add_arguments(p) -> None:
    p.add_argument("--rule", action="append", default=[], metavar="FILE.rq", help="an extra rule file (repeatable)")
    p.add_argument("--only", action="store_true", help="run only the --rule files, not the built-in rules")
    p.add_argument("--max-rounds", type=int, default=10, help="depth limit (default 10)")
    from semantic_rdf.cli.query import add_limit_arguments

    add_limit_arguments(p, rows_help="stop with an error past N triples from one rule evaluation (default 1000000)")


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle import reason
    from semantic_rdf.store.sandbox import Limits

    limits = Limits.resolve(args.timeout, args.max_rows, args.max_memory, default_rows=1_000_000)
    rules = [] if args.only else reason.builtin_rules()
    rules += [reason.load_rule(f) for f in args.rule]
    rep = reason.derive(ctx.store(), rules, max_rounds=args.max_rounds, limits=limits)
    text = f"derived {len(rep.new)} new, reopened {len(rep.reopened)} in {rep.rounds} rounds" + (
        "" if rep.fixpoint else " (depth limit reached before the fixpoint)"
    )
    ctx.emit(rep.as_dict(), text)
    return 0
