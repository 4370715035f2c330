"""Progress bars (tqdm) on stderr only when it is a terminal: ingest, validate, push."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _run(store: Path, *argv: str, tty: bool) -> tuple[int, str, str]:
    """`python -m semantic_rdf --store STORE argv…` with stderr a pseudo-terminal (tty) or a pipe."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "100"}
    cmd = [sys.executable, "-m", "semantic_rdf", "--store", str(store), *argv]
    if not tty:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        return p.returncode, p.stdout, p.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    out = p.stdout.read().decode()
    p.wait(timeout=300)
    os.close(master)
    return p.returncode, out, err.decode("utf-8", "replace")


@pytest.fixture()
def docs(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    for i in range(5):
        (d / f"d{i}.txt").write_text(f"Person{i} Example was born in Town{i}.\n")
    return d


def test_ingest_and_validate_show_a_bar_on_a_terminal_only(tmp_path, docs):
    rc, out, err = _run(tmp_path / "s", "ingest", "--extractor", "rules", str(docs), tty=True)
    assert rc == 0 and "documents   5" in out
    assert "ingest" in err and "doc" in err  # tqdm's bar: its description and unit
    rc, out, err = _run(tmp_path / "s2", "ingest", "--extractor", "rules", str(docs), tty=False)
    assert rc == 0 and err == ""  # a pipe or a log gets the summary only
    rc, out, err = _run(tmp_path / "s", "validate", tty=True)
    assert rc == 0 and out.startswith("conforms") and "validate" in err and "quad" in err
    rc, out, err = _run(tmp_path / "s", "validate", tty=False)
    assert rc == 0 and err == ""
    rc, out, err = _run(tmp_path / "s", "--json", "validate", tty=True)
    assert rc == 0 and "validate" not in err  # never under --json


def test_push_shows_a_bar_on_a_terminal(tmp_path, docs, oxigraph_server):
    from semantic_rdf.remote.sparql import NS_PREFIX, RemoteBackend

    assert _run(tmp_path / "s", "ingest", "--extractor", "rules", str(docs), tty=False)[0] == 0
    remote = RemoteBackend(oxigraph_server.dsn)
    try:
        rc, out, err = _run(tmp_path / "s", "push", oxigraph_server.dsn, tty=True)
        assert rc == 0 and "full push" in out and "push" in err and "quad" in err
    finally:
        remote.drop(NS_PREFIX)
        remote.close()
