"""semantic-rdf ask QUESTION | --batch FILE|- — answer from verified facts only, or refuse; every answer is a
recorded decision. --batch answers one question per line in one process, JSONL out."""

import json
import sys
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone

from semantic_rdf.cli._common import capped_lines
from semantic_rdf.core.errors import InvalidInput

NAME = "ask"
HELP = "answer a question from the store's verified facts (HDC gate, sources quoted) or refuse"


def add_arguments(p) -> None:
    p.add_argument("question", nargs="?", default=None, help="the question (quote it)")
    p.add_argument(
        "--batch",
        default=None,
        metavar="FILE",
        help="answer every line of FILE (- for stdin) as its own question, each with fresh context; one JSON object per line out",
    )
    add_answer_options(p)
    p.add_argument("--as-of", default=None, metavar="ISO", help="answer from what the store believed at this instant (ISO 8601; no zone = UTC)")


def add_answer_options(p) -> None:
    p.add_argument(
        "--mode",
        default="balanced",
        choices=["strict", "balanced", "conversational"],
        help="strict: facts only, fixed refusal; balanced: + citations and related entities; "
        "conversational: + offers the related topics (default balanced)",
    )
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
    from semantic_rdf.answer.answerer import Answerer, ModelRenderer
    from semantic_rdf.hdc.memory import Memory

    renderer = None
    if args.model_url or args.model:
        if not (args.model_url and args.model):
            raise InvalidInput("--model-url and --model go together")
        from semantic_rdf.pipeline.llm import OpenAICompatibleModel

        renderer = ModelRenderer(OpenAICompatibleModel(args.model_url, args.model, api_key_env=args.model_key_env))
    mem = Memory.attach(ctx.store(create=False))  # asking never creates a store
    ctx.close_after_store(mem.close)  # the store closes first: its `closed` event leaves the side tables' mark
    return Answerer(mem, renderer=renderer)


def show(answer, ctx) -> None:
    ctx.emit(answer.as_dict(), answer.text)


def run(args, ctx) -> int:
    if (args.question is None) == (args.batch is None):
        raise InvalidInput("give a QUESTION or --batch FILE (- for stdin), not both or neither")
    as_of = parse_instant(args.as_of)
    if args.batch is not None:
        return run_batch(args, ctx, as_of)
    answerer = make_answerer(args, ctx)
    a = answerer.ask(args.question, args.mode, as_of=as_of)
    show(a, ctx)
    if not ctx.json and ctx.interactive:
        ctx.note(f"decision {a.decision_id}: {'answered' if a.allowed else 'refused'} ({a.reason[:200]})")
    return 0


def _lines(name: str) -> Iterator[tuple[bytes, bool]]:
    """(bytes, cut) for each line of FILE or stdin, read as it comes (a pipe feeds answers as lines arrive); a
    line longer than any question can be is cut (`capped_lines`), so it is refused without being held."""
    from semantic_rdf.core.values import MAX_QUESTION  # the library's limit (parse_question), loaded with the verb

    cap = MAX_QUESTION * 4 + 2  # a question's characters take at most four bytes each, then the line break
    if name != "-":
        from semantic_rdf.core.bounds import open_regular

        with open_regular(name, "--batch file") as f:  # a device or a FIFO would never end
            yield from capped_lines(f.readline, cap)
        return
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        yield from capped_lines(stream.readline, cap)
        return
    for text, cut in capped_lines(sys.stdin.readline, MAX_QUESTION + 2):  # a text stream stood in for stdin
        yield text.encode("utf-8", "surrogateescape"), cut


def run_batch(args, ctx, as_of) -> int:
    """One JSON object per non-blank line, in order: the answer (`ask --json`'s fields) plus "line", or
    {"line", "question", "error", "kind"} for a line refused as bad input. Each question gets a conversation
    of its own, dropped after it, so no line's pronouns or context reach another; the store's Hebbian state
    moves on exactly as separate `ask` processes would move it. Exit 2 if any line was refused."""
    from semantic_rdf.core.errors import SemanticError
    from semantic_rdf.core.values import MAX_QUESTION

    answerer = make_answerer(args, ctx)  # a missing store is refused before any input is read
    out = ctx.stdout
    asked = refused = 0
    question: str | None
    error: str | None
    for n, (raw, cut) in enumerate(_lines(args.batch), 1):
        if cut:
            question, error = None, f"line {n} is longer than {MAX_QUESTION} characters"
        else:
            try:
                question = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                question, error = None, f"line {n} is not valid UTF-8 (byte {exc.start + 1})"
        if question is not None:
            error = None
            if not question.strip():
                continue
            if len(question) > MAX_QUESTION:
                error = f"line {n} is {len(question)} characters long (at most {MAX_QUESTION})"
        record = None
        if error is None:
            conversation = f"batch-{uuid.uuid4().hex}"
            try:
                a = answerer.ask(question, args.mode, as_of=as_of, conversation=conversation)
                record = {"line": n, **a.as_dict()}
            except SemanticError as exc:
                error = " ".join(str(exc).split())[:500]
                kind = type(exc).__name__
            finally:
                answerer.memory.reservoirs.drop(conversation)
        else:
            kind = "InvalidInput"
        if record is None:
            refused += 1
            shown = None if question is None else question[:200]
            record = {"line": n, "question": shown, "error": error, "kind": kind}
        asked += 1
        out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        out.flush()
    if refused:
        ctx.note(f'semantic-rdf: error: {refused} of {asked} lines refused (see their "error")')
        return 2
    return 0
