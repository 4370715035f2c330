"""semantic-rdf chat — an interactive conversation over the store (reads questions line by line from stdin)."""

import sys
import uuid

from semantic_rdf.cli._common import capped_lines
from semantic_rdf.cli.ask import add_answer_options, make_answerer
from semantic_rdf.core.errors import SemanticError

NAME = "chat"
HELP = "interactive questions (one per line; /mode strict|balanced|conversational, /quit); context carried across turns"

HELP_TEXT = (
    "Ask a question per line. /mode strict|balanced|conversational changes the mode, /mode shows it, "
    "/help shows this, /quit (or end of input) leaves."
)


def add_arguments(p) -> None:
    add_answer_options(p)


def run(args, ctx, stdin=None) -> int:
    import json

    from semantic_rdf.core.values import MAX_QUESTION  # the library's limit (parse_question), as `ask`'s

    stdin = stdin if stdin is not None else sys.stdin
    answerer = make_answerer(args, ctx)
    conversation = "chat-" + uuid.uuid4().hex  # this session's reservoir
    mode = args.mode
    tty = hasattr(stdin, "isatty") and stdin.isatty()

    def say(data, text):
        if ctx.json:
            ctx.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")  # one JSON object per turn
        else:
            ctx.stdout.write(text + "\n")
        ctx.stdout.flush()

    if tty and not ctx.json:
        ctx.note(HELP_TEXT)
    lines = capped_lines(stdin.readline, MAX_QUESTION + 2)  # one endless line is read through, never held
    while True:
        if tty:
            ctx.stderr.write(f"{mode}> ")
            ctx.stderr.flush()
        got = next(lines, None)
        if got is None:
            break
        line, cut = got
        if cut:
            say({"error": f"a question is at most {MAX_QUESTION} characters"}, f"error: a question is at most {MAX_QUESTION} characters")
            continue
        line = line.strip()
        if not line:
            continue
        if line.startswith("/"):
            cmd, _, rest = line.partition(" ")
            cmd, rest = cmd.lower(), rest.strip().lower()
            if cmd in ("/quit", "/exit", "/q"):
                break
            if cmd == "/mode":
                if rest in ("strict", "balanced", "conversational"):
                    mode = rest
                    say({"mode": mode}, f"mode: {mode}")
                elif not rest:
                    say({"mode": mode}, f"mode: {mode}")
                else:
                    say({"error": f"unknown mode {rest!r}"}, f"unknown mode {rest!r} (strict, balanced, conversational)")
                continue
            if cmd == "/help":
                say({"help": HELP_TEXT}, HELP_TEXT)
                continue
            say({"error": f"unknown command {cmd}"}, f"unknown command {cmd} (try /help)")
            continue
        try:
            a = answerer.ask(line, mode, conversation=conversation)
        except SemanticError as exc:
            say({"error": str(exc)}, f"error: {exc}")
            continue
        say(a.as_dict(), a.text)
    return 0
