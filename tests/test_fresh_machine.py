"""The README's test command on a machine without Virtuoso, Graphviz or Chromium (issue 20, repro 6).

Each test runs a small pytest session in a child process whose PATH holds only what the case needs, with
tests/conftest.py's fixtures: on a machine without apt the server test fails naming exactly what is missing
and the command that installs it; where apt-get runs as root the fixtures run the install script
themselves, once per session, and say so. The install script is replaced (SEMANTIC_RDF_TEST_INSTALLER) by
one that links the real binaries into the child's PATH, so the test never runs apt-get on this machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"
REPO = CONFTEST.parent.parent

SESSION_CONFTEST = f"""
import importlib.util

_spec = importlib.util.spec_from_file_location("semantic_rdf_tests_conftest", {str(CONFTEST)!r})
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
globals().update({{k: v for k, v in vars(_mod).items() if not k.startswith("__")}})
"""
SESSION_TESTS = """
def test_pictures(graphviz):
    assert graphviz.endswith("/dot")


def test_virtuoso(virtuoso_server):
    assert virtuoso_server.proc.poll() is None  # the real server, started by the real fixture
"""
INSTALLER = """#!/bin/sh
# "installs" by linking the real binaries into the session's PATH; counts its runs
echo run >> "{counter}"
echo "installing into {bin}"
{links}
"""


def _bin(tmp_path: Path, tools: list[str]) -> Path:
    """A directory of links to the named real programs: the child's whole PATH."""
    b = tmp_path / "bin"
    b.mkdir()
    for t in tools:
        real = shutil.which(t)
        assert real, f"{t} is needed to run this test"
        (b / t).symlink_to(real)
    return b


def _session(tmp_path: Path, path_dir: Path, installer: Path | None = None) -> subprocess.CompletedProcess:
    d = tmp_path / "session"
    d.mkdir()
    (d / "conftest.py").write_text(SESSION_CONFTEST)
    (d / "test_session.py").write_text(SESSION_TESTS)
    env = {k: v for k, v in os.environ.items() if k != "SEMANTIC_RDF_TEST_INSTALLER"}
    env.update(PATH=str(path_dir), PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]))
    if installer is not None:
        env["SEMANTIC_RDF_TEST_INSTALLER"] = str(installer)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", str(d)], cwd=d, env=env, capture_output=True, text=True, timeout=300
    )


def test_without_apt_the_tests_say_what_is_missing_and_how_to_install_it(tmp_path):
    path_dir = _bin(tmp_path, [])  # no apt-get, no virtuoso-t, no isql-vt, no dot, no chromium
    r = _session(tmp_path, path_dir)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "2 errors" in r.stdout  # a fixture that fails is a setup error
    # each error's own report (the short summary cuts lines at the terminal's width)
    reports = r.stdout.split("= ERRORS =")[1].split("= short test summary")[0].split("_ ERROR at setup of ")[1:]
    assert [x.split(" ")[0] for x in reports] == ["test_pictures", "test_virtuoso"], r.stdout
    for report in reports:
        text = " ".join(report.split())
        assert "missing for the tests: virtuoso-t, isql-vt, dot (Graphviz), chromium, chromedriver;" in text
        assert "this machine has no apt-get" in text
        assert f"sudo sh {REPO / '.ci' / 'install-servers.sh'}" in text
    assert "installing once" not in r.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="checks the as-root path: the tests' own install runs as root")
def test_as_root_with_apt_the_fixtures_install_once_per_session(tmp_path, virtuoso_tools, graphviz, browser_tools):
    # virtuoso_tools, graphviz, browser_tools: this session's real tools (installed first on a fresh machine), to link
    path_dir = _bin(tmp_path, ["apt-get", "debconf-set-selections", "sh"])
    counter = tmp_path / "runs"
    links = "\n".join(
        f'"{shutil.which("ln")}" -s "{shutil.which(t)}" "{path_dir}/{t}"' for t in ("virtuoso-t", "isql-vt", "dot", "chromium", "chromedriver")
    )
    installer = tmp_path / "install.sh"
    installer.write_text(INSTALLER.format(counter=counter, bin=path_dir, links=links))
    r = _session(tmp_path, path_dir, installer)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed" in r.stdout
    assert r.stdout.count("installing once for this session") == 1
    assert "missing virtuoso-t, isql-vt, dot (Graphviz), chromium, chromedriver" in r.stdout and "semantic-rdf tests: installed in" in r.stdout
    assert counter.read_text().split() == ["run"]


@pytest.mark.skipif(os.geteuid() != 0, reason="checks the as-root path: the tests' own install runs as root")
def test_a_failed_install_is_tried_once_and_reported(tmp_path):
    path_dir = _bin(tmp_path, ["apt-get", "debconf-set-selections", "sh"])
    counter = tmp_path / "runs"
    installer = tmp_path / "install.sh"
    installer.write_text(f'#!/bin/sh\necho run >> "{counter}"\necho "E: Unable to locate package" >&2\nexit 100\n')
    r = _session(tmp_path, path_dir, installer)
    assert r.returncode == 1 and "2 errors" in r.stdout, r.stdout + r.stderr
    # each error's own report names the failed install (the short summary may repeat it or cut it at the
    # terminal's width, so it is not counted)
    reports = r.stdout.split("= ERRORS =")[1].split("= short test summary")[0].split("_ ERROR at setup of ")[1:]
    assert len(reports) == 2, r.stdout
    assert all("install.sh exited with 100" in " ".join(x.split()) for x in reports), r.stdout
    assert "E: Unable to locate package" in r.stdout
    assert counter.read_text().split() == ["run"]  # not once per test
