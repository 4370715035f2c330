"""semantic-rdf ask QUESTION — answer from verified facts only, or refuse; every answer is a recorded decision."""

from datetime import datetime, timezone

from semantic_rdf.errors import InvalidInput

NAME = "ask"
HELP = "answer a question from the store's verified facts (HDC gate, sources quoted) or refuse"


def add_arguments(p) -> None:
    p.add_argument("question", help="the question (quote it)")
    add_answer_options(p)
    p.add_argument("--as-of", default=None, metavar="ISO",
                   help="answer from what the store believed at this instant (ISO 8601; no zone = UTC)")


def add_answer_options(p) -> None:
    p.add_argument("--mode", default="balanced", choices=["strict", "balanced", "conversational"],
                   help="strict: facts only, fixed refusal; balanced: + citations and related entities; "
                        "conversational: + offers the related topics (default balanced)")
    p.add_argument("--model-url", default=None, help="render with an OpenAI-compatible chat endpoint (not in strict)")
    p.add_argument("--model", default=None, help="model name for --model-url")
    p.add_argument("--model-key-env", default=None, help="environment variable holding the endpoint's API key")


def parse_instant(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        t = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"--as-of {text!r} is not an ISO 8601 instant") from None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def make_answerer(args, ctx):
    """A Memory over the CLI's store (closed with the context) and an Answerer with the chosen renderer."""
    from semantic_rdf.answer import Answerer, ModelRenderer
    from semantic_rdf.memory import Memory

    renderer = None
    if args.model_url or args.model:
        if not (args.model_url and args.model):
            raise InvalidInput("--model-url and --model go together")
        from semantic_rdf.model import OpenAICompatibleModel

        renderer = ModelRenderer(OpenAICompatibleModel(args.model_url, args.model, api_key_env=args.model_key_env))
    mem = Memory.attach(ctx.store(create=False))  # asking never creates a store
    ctx._closers.append(mem.close)
    return Answerer(mem, renderer=renderer)


def show(answer, ctx) -> None:
    ctx.emit(answer.as_dict(), answer.text)


def run(args, ctx) -> int:
    as_of = parse_instant(args.as_of)
    answerer = make_answerer(args, ctx)
    a = answerer.ask(args.question, args.mode, as_of=as_of)
    show(a, ctx)
    if not ctx.json and ctx.interactive:
        ctx.note(f"decision {a.decision_id}: {'answered' if a.allowed else 'refused'} ({a.reason[:200]})")
    return 0
