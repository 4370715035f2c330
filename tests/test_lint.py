"""Lint as part of the test command (issue 18): `ruff check` and `ruff format --check` with pyproject.toml's rules over the package, the
tests, the benches and CI's scripts must pass, so CI (which runs the README's test command) holds every change to
it. ruff comes with the `test` extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _ruff() -> list[str]:
    return [sys.executable, "-m", "ruff"]  # the environment's, activated or not


def test_ruff_passes():
    r = subprocess.run(
        [*_ruff(), "check", "--no-cache", "semantic_rdf", "tests", "bench", ".ci"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_ruff_format_is_clean():
    """Formatting is ruff's, not each author's: `ruff format` would change nothing."""
    r = subprocess.run(
        [*_ruff(), "format", "--check", "--no-cache", "semantic_rdf", "tests", "bench", ".ci"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_ruff_format_sees_what_it_is_asked_to(tmp_path):
    """The same configuration notices code ruff would lay out differently: the check above can fail."""
    bad = tmp_path / "bad.py"
    bad.write_text("x = {  'a':1 }\n")
    r = subprocess.run(
        [*_ruff(), "format", "--check", "--no-cache", "--config", str(REPO / "pyproject.toml"), str(bad)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 1, r.stdout + r.stderr


def test_ruff_sees_what_it_is_asked_to(tmp_path):
    """The same configuration finds an unused import: the check above can fail."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    r = subprocess.run(
        [*_ruff(), "check", "--no-cache", "--config", str(REPO / "pyproject.toml"), str(bad)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 1 and "F401" in r.stdout, r.stdout + r.stderr
