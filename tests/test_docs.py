"""The documentation runs: README.md's tour and every Python snippet in README.md and docs/*.md.

The README's ```bash blocks after the first two (`pip install . && semantic-rdf demo` and the test
command, which CI runs itself) are the tour. They run as one `bash -e` script in an empty temporary
directory, with the interpreter's bin directory first on PATH (so `semantic-rdf` and `oxigraph` are the
ones of this environment) and PYTHONPATH at this checkout (so the CLI is the code under test). The
port the tour starts `oxigraph serve` on is replaced by a free one.

Python snippets run as sqlite-utils runs its docs: a file's ```python blocks in order, in one namespace
(so a store opened by one block serves the next), in a temporary working directory. A block that needs
what a test machine cannot have (a model server) is preceded by `<!-- not run: REASON -->`; the test
honours the mark, requires a reason, and keeps the number of such marks small.
"""

from __future__ import annotations

import os
import pathlib
import re
import signal
import socket
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
BIN = os.path.dirname(sys.executable)
TOUR_PORT = "7878"
# Blocks skipped on purpose across all docs; raising this needs a reason written next to the block.
MAX_NOT_RUN = 4

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->\s*$", re.S)


def blocks(path: pathlib.Path, lang: str) -> list[tuple[int, str, str | None]]:
    """(line, code, not-run reason or None) for each ```lang block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        if m.group(1) != lang:
            continue
        before = text[: m.start()].rstrip()
        mark = _NOT_RUN.search(before[-400:])
        out.append((text.count("\n", 0, m.start()) + 1, m.group(2), mark.group(1) if mark else None))
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEMANTIC_RDF_")}
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def test_readme_install_blocks_are_the_ones_ci_runs():
    first, second = (code for _, code, _ in blocks(README, "bash")[:2])
    assert first.strip() == "pip install . && semantic-rdf demo"
    assert second.strip() == "pip install '.[test]' && python -m pytest"


def test_readme_tour_runs_as_written(tmp_path):
    tour = blocks(README, "bash")[2:]
    assert tour, "README.md has no tour"
    assert not any(reason for _, _, reason in tour), "the tour runs whole"
    script = "\n".join(code for _, code, _ in tour)
    assert "…" not in script, "a placeholder in the tour"
    assert f"127.0.0.1:{TOUR_PORT}" in script
    script = script.replace(TOUR_PORT, str(_free_port()))  # in the URL and in the /dev/tcp readiness probe
    # Own session, so that whatever the script leaves running (the server, if a line fails before
    # `kill`) is ended by this process group's id afterwards.
    proc = subprocess.Popen(
        ["bash", "-e", "-c", script], cwd=tmp_path, env=_env(), text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    assert proc.returncode == 0, f"tour failed (exit {proc.returncode})\n{out}\n{err}"
    # Key outputs, in the order the tour prints them.
    keys = [
        "ef841e2caf41e08c\n",  # id
        "ef841e2caf41e08c  Ada Lovelace wrote Note G",  # assert
        "b145c3940fe6541b  Ada Lovelace —born_in→ London",  # list (the id show/trace/erase use)
        "“Ada Lovelace was born in London.”",  # the quoted span
        "Ada Lovelace wrote Note G.",  # ask's verified answer
        "sha256 ",  # trace down to the document hash
        "a,s,p,o,",  # query asof, W3C CSV header
        "retracted 1",
        "erased b145c3940fe6541b",
        "conforms",  # validate
        "endpoint",  # push, counts verified
    ]
    at = 0
    for key in keys:
        found = out.find(key, at)
        assert found >= 0, f"{key!r} missing (or out of order) in the tour's output:\n{out}"
        at = found
    # The query bound the entity by name: both of Ada's assertions, no one else's.
    csv_rows = [line for line in out.splitlines() if line.startswith("https://w3id.org/semantic-rdf/a/")]
    assert len(csv_rows) == 2 and all("/e/ada-lovelace-" in r for r in csv_rows), csv_rows
    trig = (tmp_path / "store.trig").read_text(encoding="utf-8")
    assert "Note G" in trig and "born in London" not in trig  # erased text is gone from the export
    assert (tmp_path / "my-store").is_dir()


def _python_docs() -> list[pathlib.Path]:
    return [p for p in [README, *DOCS] if blocks(p, "python")]


def test_not_run_mark_is_read_only_right_before_its_block(tmp_path):
    md = tmp_path / "x.md"
    md.write_text(
        "<!-- not run: needs a model server -->\n```python\nraise SystemExit\n```\n\n"
        "<!-- not run: far away -->\ntext between\n```python\nx = 1\n```\n",
        encoding="utf-8",
    )
    assert [(line, reason) for line, _, reason in blocks(md, "python")] == [(2, "needs a model server"), (8, None)]


def test_readme_sparql_runs_on_the_library_store(tmp_path, monkeypatch):
    """The SPARQL sample, saved as q.rq, run by `semantic-rdf query q.rq` over the store the Library
    snippet builds: the span behind "Marie Curie was born in Warsaw." comes back."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for line, code, _ in blocks(README, "python"):
        exec(compile(code, f"README.md:{line}", "exec"), namespace)
    [(_, sparql, _)] = blocks(README, "sparql")
    (tmp_path / "q.rq").write_text(sparql, encoding="utf-8")
    env = _env()
    env["SEMANTIC_RDF_STORE"] = "./my-store"  # the directory the Library snippet opens
    r = subprocess.run(["semantic-rdf", "query", "q.rq", "--format", "csv"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()
    assert rows[0] == "p,ref,start,end" and len(rows) == 2, r.stdout
    assert rows[1].endswith("/p/born_in,notes.txt,0,31"), r.stdout


def test_not_run_marks_are_rare_and_explained():
    marked = [(p.name, line, reason) for p in _python_docs() for line, _, reason in blocks(p, "python") if reason is not None]
    assert all(reason for _, _, reason in marked), marked
    assert len(marked) <= MAX_NOT_RUN, marked


# A file's blocks run in a fresh interpreter of their own: snippets may change process-wide state the way a
# reader's program would (docs/stores.md registers a driver in the default registry), which must not leak
# into the tests that run after them.
_RUNNER = """
import json, sys
ns = {"__name__": sys.argv[2]}
for line, code in json.load(open(sys.argv[1], encoding="utf-8")):
    exec(compile(code, f"{sys.argv[3]}:{line}", "exec"), ns)
"""


@pytest.mark.parametrize("path", _python_docs(), ids=lambda p: p.name)
def test_python_snippets_run(path, tmp_path):
    import json
    import sys

    code = [(line, text) for line, text, reason in blocks(path, "python") if reason is None]
    assert code, f"{path.name}: every python block is marked not run"
    (tmp_path / "blocks.json").write_text(json.dumps(code), encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-c", _RUNNER, "blocks.json", f"docs_{path.stem}", str(path.relative_to(ROOT))],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
