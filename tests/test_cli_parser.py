"""The command line imports only the verb it runs (start-up time of `ask`, issue 19 item 10)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from semantic_rdf.cli import VERBS, build_parser, named_verb


@pytest.mark.parametrize(
    "argv, verb",
    [
        (["ask", "Who?"], "ask"),
        (["--store", "ask", "list", "--subject", "x"], "list_"),  # --store's value is a directory, not the verb
        (["--json", "import", "f.trig"], "import_"),
        (["--store=ask", "assert", "a", "wrote", "b"], "assert_"),
        (["bogus", "ask"], None),  # the first word is no verb: the full parser says so
        (["--", "ask"], None),
        (["--json"], None),
        ([], None),
    ],
)
def test_the_named_verb_is_the_first_word_not_an_option(argv, verb):
    assert named_verb(argv) == verb


def test_the_parser_for_one_verb_parses_as_the_full_one():
    argv = ["--store", "s", "list", "--subject", "Ada Lovelace", "--state", "believed"]
    full, all_modules = build_parser()
    one, modules = build_parser(named_verb(argv))
    assert list(modules) == ["list"] and set(all_modules) == {m.rstrip("_") for m in VERBS}
    assert vars(one.parse_args(argv)) == vars(full.parse_args(argv))


def test_a_run_imports_only_its_verb_module():
    code = (
        "import sys; from semantic_rdf.cli import main; main(['id', 'Ada Lovelace', 'wrote', 'Note G']); "
        "print(sorted(m for m in sys.modules if m.startswith('semantic_rdf.cli.')))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["ef841e2caf41e08c", "['semantic_rdf.cli._common', 'semantic_rdf.cli.id']"]


def test_the_script_exits_with_the_verbs_code_and_main_leaves_the_collector_alone(tmp_path):
    # `python -m semantic_rdf` is the script's entry (`console`): it relaxes the cycle collector for a
    # process that ends after one verb, and must still hand on the verb's exit code and its output
    ok = subprocess.run([sys.executable, "-m", "semantic_rdf", "id", "Ada Lovelace", "wrote", "Note G"], capture_output=True, text=True, timeout=60)
    assert (ok.returncode, ok.stdout) == (0, "ef841e2caf41e08c\n"), ok.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "semantic_rdf", "--store", str(tmp_path / "none"), "ask", "Who?"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and bad.stderr.startswith("semantic-rdf: error: no store at") and bad.stderr.count("\n") == 1
    # a process that calls `main` and goes on (this one) keeps its collector as it was
    code = (
        "import gc, sys; from semantic_rdf.cli import main; gc.set_threshold(700, 10, 10); "
        "main(['id', 'Ada Lovelace', 'wrote', 'Note G']); print(gc.get_threshold(), gc.get_freeze_count())"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "(700, 10, 10) 0", r.stderr
