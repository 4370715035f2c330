"""`semantic-rdf ask --batch FILE|-` over the demo store: one JSON object per question, the same answers as
separate `ask --json` calls, no context carried from line to line, bad lines refused one by one."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from semantic_rdf.cli import main
from semantic_rdf.hdc.sidetables import side_path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [
    "Where was Ada Lovelace born?",
    "Who discovered Polonium?",
    "Where was she born?",  # a pronoun: in a batch, nothing before it may resolve it
    "Where was Charles Babbage born?",
    "Who discovered penicillin?",
    "Where was Marie Curie born?",
]
VOLATILE = ("decision", "line")  # decision ids are minted per recording


def cli(*argv, stdin: bytes | None = None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "semantic_rdf", *argv], input=stdin, capture_output=True, env=env, cwd=ROOT, timeout=300)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("batch") / "demo"
    r = cli("--store", str(root), "demo")
    assert r.returncode == 0, r.stderr.decode()
    return root


def copy_of(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    shutil.copy2(side_path(src), side_path(dst))
    return dst


def batch(store: Path, text: str, capsys, monkeypatch, *extra) -> tuple[int, list[dict], str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code = main(["--store", str(store), "ask", "--batch", "-", *extra])
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines()], out.err


def strip(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in VOLATILE}


def test_batch_equals_one_by_one(demo, tmp_path, capsys, monkeypatch):
    one, many = copy_of(demo, tmp_path / "one"), copy_of(demo, tmp_path / "many")
    singles = []
    for q in QUESTIONS:  # separate calls, in the same order, on an identical copy of the store
        assert main(["--store", str(one), "--json", "ask", q]) == 0
        singles.append(json.loads(capsys.readouterr().out))
    code, answers, _ = batch(many, "\n".join(QUESTIONS) + "\n", capsys, monkeypatch)
    assert code == 0
    assert [a["line"] for a in answers] == list(range(1, len(QUESTIONS) + 1))
    assert [strip(a) for a in answers] == [strip(s) for s in singles]
    assert all(a["decision"] for a in answers)  # every batch answer is a recorded decision too
    first, second = answers[0], answers[1]
    assert first["allowed"] and first["answer_entity"] == "London" and first["linked"] == ["Ada Lovelace"]
    assert first["cited"] == [f["id"] for f in first["facts"]] and len(first["cited"]) == 1
    assert second["answer_entity"] == "Marie Curie" and second["linked"] == ["Polonium"]
    assert not answers[4]["allowed"] and answers[4]["answer_entity"] is None and answers[4]["cited"] == []


def test_context_does_not_carry_between_lines(demo, tmp_path, capsys, monkeypatch):
    store = copy_of(demo, tmp_path / "s")
    # in a chat "she" would be Marie Curie; a batch line stands alone
    code, answers, _ = batch(store, "Who discovered Polonium?\nWhere was she born?\n", capsys, monkeypatch)
    assert code == 0 and answers[0]["allowed"]
    assert not answers[1]["allowed"] and answers[1]["linked"] == [] and not answers[1]["scores"]["pronoun_resolved"]
    # the same two turns as a conversation do resolve
    monkeypatch.setattr(sys, "stdin", io.StringIO("Who discovered Polonium?\nWhere was she born?\n"))
    code = main(["--store", str(store), "chat"])
    assert code == 0 and "Warsaw" in capsys.readouterr().out


def test_bad_lines_are_refused_one_by_one(demo, tmp_path):
    store = copy_of(demo, tmp_path / "s")
    data = b"Where was Ada Lovelace born?\n\n   \n\xff\xfe bad bytes\n" + b"x" * 10_001 + b"\nWho discovered Polonium?\r\n"
    r = cli("--store", str(store), "ask", "--batch", "-", stdin=data)
    assert r.returncode == 2 and r.stderr.decode().count("\n") == 1 and "2 of 4 lines refused" in r.stderr.decode()
    rows = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert [row["line"] for row in rows] == [1, 4, 5, 6]  # blank lines are no questions
    assert rows[0]["allowed"] and rows[3]["allowed"] and rows[3]["question"] == "Who discovered Polonium?"
    assert rows[1]["kind"] == "InvalidInput" and "UTF-8" in rows[1]["error"] and rows[1]["question"] is None
    assert rows[2]["kind"] == "InvalidInput" and "characters long" in rows[2]["error"]


def test_batch_from_a_file_and_empty_input(demo, tmp_path, capsys, monkeypatch):
    store = copy_of(demo, tmp_path / "s")
    f = tmp_path / "q.txt"
    f.write_text("Where was Ada Lovelace born?\n", encoding="utf-8")
    assert main(["--store", str(store), "ask", "--batch", str(f)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 1 and rows[0]["answer_entity"] == "London"
    code, answers, err = batch(store, "", capsys, monkeypatch)
    assert code == 0 and answers == [] and err == ""
    assert main(["--store", str(store), "ask", "--batch", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_question_and_batch_are_exclusive(demo, capsys):
    assert main(["--store", str(demo), "ask"]) == 2
    assert main(["--store", str(demo), "ask", "Who?", "--batch", "-"]) == 2
    assert "not both or neither" in capsys.readouterr().err


def test_missing_store_is_exit_2_and_creates_nothing(tmp_path):
    missing = tmp_path / "nope"
    r = cli("--store", str(missing), "ask", "--batch", "-", stdin=b"Where was Ada Lovelace born?\n")
    assert r.returncode == 2 and b"no store at" in r.stderr and r.stdout == b""
    assert not missing.exists() and not side_path(missing).exists()


@pytest.mark.parametrize("verb", [["ask", "--batch", "-"], ["chat"]])
def test_an_endless_line_is_refused_without_being_held(demo, tmp_path, verb):
    """A 300 MB line on stdin is read through in pieces and refused; the next line is still answered, and the
    process never holds the line (before, `ask --batch` peaked at three times its length)."""
    import threading
    import time

    store = copy_of(demo, tmp_path / "s")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "semantic_rdf", "--store", str(store), *verb],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )

    def feed():
        block = b"a" * (1 << 20)
        try:
            for _ in range(300):
                proc.stdin.write(block)
            proc.stdin.write(b"\nWhere was Marie Curie born?\n")
        finally:
            proc.stdin.close()

    peak_kb = [0]

    def watch():
        # the child's own high-water mark, read while it runs (its rusage would count the test process's
        # memory: the child starts as a fork of it)
        while proc.poll() is None:
            try:
                with open(f"/proc/{proc.pid}/status") as f:
                    hwm = next((int(x.split()[1]) for x in f if x.startswith("VmHWM:")), 0)
                peak_kb[0] = max(peak_kb[0], hwm)
            except (OSError, ValueError):
                pass
            time.sleep(0.02)

    writer = threading.Thread(target=feed, daemon=True)
    watcher = threading.Thread(target=watch, daemon=True)
    writer.start()
    watcher.start()
    out = proc.stdout.read().decode()
    proc.stderr.read()
    proc.wait(60)
    writer.join(10)
    watcher.join(10)
    peak_mb = peak_kb[0] / 1024
    assert peak_mb > 20  # the watcher saw the process
    assert "longer than 10000 characters" in out or "at most 10000 characters" in out
    assert "Warsaw" in out
    assert peak_mb < 300, f"peak {peak_mb:.0f} MB for a 300 MB line"
    assert proc.returncode == (2 if verb[0] == "ask" else 0)
