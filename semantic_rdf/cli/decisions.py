"""semantic-rdf decisions — decisions by an agent, or the chain a decision rests on."""

from semantic_rdf.core.errors import InvalidInput

NAME = "decisions"
HELP = "list decisions: `decisions --agent NAME`, `decisions chain ID`, `decisions show ID`"


def add_arguments(p) -> None:
    p.add_argument("words", nargs="*", metavar="chain ID | show ID")
    p.add_argument("--agent", metavar="NAME", help="every decision this agent made")


def _line(r) -> str:
    verdict = "ALLOWED" if r.allowed else "REFUSED"
    cites = f" because {', '.join(r.because)}" if r.because else ""
    return f"{r.id}  {r.at.isoformat()}  {r.agent}: {r.choice}  {verdict} by {r.rule} ({r.reason}){cites}"


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle.decisions import Recorder

    rec = Recorder(ctx.store(create=False))
    if args.agent and not args.words:
        out = rec.by(args.agent)
    elif len(args.words) == 2 and args.words[0] in ("chain", "show") and not args.agent:
        out = rec.chain(args.words[1]) if args.words[0] == "chain" else [rec.get(args.words[1])]
    else:
        raise InvalidInput("use `decisions --agent NAME`, `decisions chain ID` or `decisions show ID`")
    ctx.emit([r.as_dict() for r in out], "\n".join(_line(r) for r in out) or "(none)")
    return 0
