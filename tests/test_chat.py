"""`semantic-rdf ask` and `semantic-rdf chat` through the real command line over an on-disk store."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from semantic_rdf.answer.answerer import REFUSAL, Linker, parse_question
from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.values import MAX_QUESTION
from semantic_rdf.cli import main
from semantic_rdf.lifecycle.decisions import Recorder
from semantic_rdf.hdc.sidetables import side_path
from semantic_rdf.store.assertions import AssertionStore

CORPUS = Path(__file__).parent / "data" / "gate_corpus.txt"


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("chat") / "store"
    # the questions below are about facts the rule extractor reads from this synthetic corpus
    assert main(["--store", str(root), "ingest", "--extractor", "rules", str(CORPUS)]) == 0
    assert side_path(root).exists()  # the ingest verb indexed the facts through memory.after_ingest_hook
    return root


def run_cli(argv, stdin_text=None, monkeypatch=None, capsys=None):
    if stdin_text is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin_text))
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ask_text_json_modes_and_decision(store_dir, monkeypatch, capsys):
    code, out, _ = run_cli(["--store", str(store_dir), "ask", "Where was Amalia Roos born?", "--mode", "strict"], capsys=capsys)
    assert code == 0 and out.strip() == ('Amalia Roos was born in Utrecht. [source: gate_corpus.txt: "Amalia Roos was born in Utrecht."]')
    code, out, _ = run_cli(["--store", str(store_dir), "ask", "Where did Amalia Roos die?", "--json"], capsys=capsys)
    d = json.loads(out)
    assert code == 0 and d["allowed"] is False and d["text"] == REFUSAL and d["facts"] == []
    assert d["scores"]["linked"] == ["Amalia Roos"] and d["decision"]
    with AssertionStore.open(store_dir, read_only=True) as st:
        rec = Recorder(st).get(d["decision"])
        assert not rec.allowed and rec.reason == d["reason"]


def test_ask_bad_input_is_exit_2(store_dir, capsys):
    assert main(["--store", str(store_dir), "ask", "Where was Roos born?", "--as-of", "yesterday"]) == 2
    assert "--as-of" in capsys.readouterr().err
    assert main(["--store", str(store_dir), "ask", "   "]) == 2
    assert "question is empty" in capsys.readouterr().err
    assert main(["--store", str(store_dir), "ask", "q", "--model", "m"]) == 2  # --model needs --model-url


def _question(n: int) -> str:
    """A question of exactly `n` characters, about a fact of the corpus."""
    head = "Where was Amalia Roos born"
    return head + (" and" * n)[: n - len(head) - 1] + "?"


def test_ask_and_chat_take_the_same_longest_question(store_dir, monkeypatch, capsys):
    """`ask` refused a question over 2,000 characters, `chat` (and `ask --batch`) one over 10,000: one limit,
    MAX_QUESTION, for all (the library's parse_question)."""
    longest, over = _question(MAX_QUESTION), _question(MAX_QUESTION + 1)
    assert (len(longest), len(over)) == (10_000, 10_001)
    code, out, err = run_cli(["--store", str(store_dir), "ask", longest, "--mode", "strict"], capsys=capsys)
    assert code == 0 and "Utrecht" in out, err
    code, out, err = run_cli(["--store", str(store_dir), "ask", over], capsys=capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "10,000" in err
    code, out, err = run_cli(["--store", str(store_dir), "chat", "--mode", "strict"], longest + "\n" + over + "\n", monkeypatch, capsys)
    answers = out.strip().splitlines()
    assert code == 0 and len(answers) == 2, out
    assert "Utrecht" in answers[0] and answers[1].startswith("error:") and "10,000" in answers[1].replace("10000", "10,000")
    with pytest.raises(InvalidInput):
        parse_question(over, Linker(()))


def test_ask_as_of_before_ingest_knows_nothing(store_dir, capsys):
    code, out, _ = run_cli(
        ["--store", str(store_dir), "ask", "Where was Amalia Roos born?", "--json", "--as-of", "2000-01-01T00:00:00"], capsys=capsys
    )
    assert code == 0 and json.loads(out)["allowed"] is False


def test_chat_piped_keeps_context_switches_modes_and_quits(store_dir, monkeypatch, capsys):
    lines = (
        "\n".join(
            [
                "Who did Marchetti marry?",
                "Where was she born?",  # resolved through this conversation's reservoir
                "/mode strict",
                "What did Ostrova design?",
                "/mode chatty",
                "/mode",
                "",
                "/quit",
                "What did Ivo Marchetti found?",  # after /quit: never read
            ]
        )
        + "\n"
    )
    code, out, err = run_cli(["--store", str(store_dir), "chat", "--mode", "balanced"], lines, monkeypatch, capsys)
    rows = out.strip().splitlines()
    assert code == 0
    assert rows[0].startswith("Marchetti is married to Lena Ostrova.")
    assert rows[1].startswith("Ostrova was born in Riga.")
    assert rows[2] == "mode: strict"
    assert rows[3].startswith("Ostrova designed Harrow Bridge.") and "Related" not in rows[3]
    assert rows[4].startswith("unknown mode") and rows[5] == "mode: strict"
    assert len(rows) == 6 and "Kestrel" not in out
    assert "> " not in out and err == ""  # no prompts when stdin is piped


def test_chat_json_one_object_per_turn_and_fresh_context_per_session(store_dir, monkeypatch, capsys):
    code, out, _ = run_cli(["--store", str(store_dir), "--json", "chat"], "Where was she born?\nwhat?\n", monkeypatch, capsys)
    turns = [json.loads(x) for x in out.strip().splitlines()]
    assert code == 0 and len(turns) == 2
    assert turns[0]["allowed"] is False  # a new session has nothing "she" could refer to
    assert all("decision" in t for t in turns)
