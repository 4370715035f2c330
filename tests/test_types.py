"""Types as part of the test command (issue 18): `mypy` with pyproject.toml's [tool.mypy] must pass over the
whole package, every module of it checked. mypy comes with the `test` extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _mypy(*args: str, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_mypy_passes_on_the_checked_modules(tmp_path):
    r = _mypy(cache=tmp_path / "cache")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    checked = int(r.stdout.rsplit("no issues found in ", 1)[1].split()[0])
    modules = len(list((REPO / "semantic_rdf").rglob("*.py")))
    assert checked == modules, r.stdout  # every module of the package, a new one too: no exclusions


def test_mypy_finds_a_type_error_with_this_configuration(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x: int) -> str:\n    return x\n")
    r = _mypy("--config-file", str(REPO / "pyproject.toml"), str(bad), cache=tmp_path / "cache")
    assert r.returncode == 1 and "Incompatible return value" in r.stdout, r.stdout + r.stderr
