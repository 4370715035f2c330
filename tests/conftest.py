"""Shared fixtures: real triplestore servers, started once per test session on 127.0.0.1.

`oxigraph_server` runs `oxigraph serve` (in memory) and `virtuoso_server` a private Virtuoso 7 in
its own temporary directory (anonymous SPARQL update granted, result cap raised). Each starts only
when a test asks for it, waits until it answers, and is stopped at the end of the session.

A missing Virtuoso, Graphviz or Chromium (with its WebDriver) is installed by the fixtures themselves on a
Debian/Ubuntu machine where apt-get can run as root (root, or sudo without a password):
`.ci/install-servers.sh`, once per session, announced on the terminal. Elsewhere the test FAILS naming
what is missing and the command that installs it: a skipped server test would hide it. (The `oxigraph` binary comes with `pip install '.[test]'`.)

`any_store` is parametrized over the embedded pyoxigraph store, the Oxigraph server and Virtuoso:
the same test runs against each and must see the same results. It starts every test with no
graph under https://w3id.org/semantic-rdf/ and removes what the test left behind.
"""

from __future__ import annotations

import ctypes
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from semantic_rdf.remote.servers import VIRTUOSO_INI, OxigraphServer, ServerError, VirtuosoServer
from semantic_rdf.remote.sparql import NS_PREFIX, EmbeddedBackend, RemoteBackend

STORE_KINDS = ("embedded", "oxigraph", "virtuoso")
# SEMANTIC_RDF_TEST_INSTALLER names another script to run in its place: tests/test_fresh_machine.py uses it to
# check this file's own behaviour without running apt-get on the machine.
INSTALL_SCRIPT = Path(os.environ.get("SEMANTIC_RDF_TEST_INSTALLER") or Path(__file__).resolve().parent.parent / ".ci" / "install-servers.sh")

# `python -m pytest` from a virtual environment that was never activated: the `oxigraph` binary that
# `pip install '.[test]'` put beside this interpreter is then not on PATH. Put it there (children inherit it).
_BIN = os.path.dirname(sys.executable)
if os.path.isfile(os.path.join(_BIN, "oxigraph")) and _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")


def missing_tools(need: tuple[str, ...] = ("virtuoso", "graphviz", "browser")) -> list[str]:
    """What of the apt-installed test tools `need` names this machine lacks (empty when all are there)."""
    missing = []
    if "virtuoso" in need:
        missing += [exe for exe in ("virtuoso-t", "isql-vt") if not shutil.which(exe)]
        if not os.path.exists(VIRTUOSO_INI):
            missing.append(VIRTUOSO_INI)
    if "graphviz" in need and not shutil.which("dot"):
        missing.append("dot (Graphviz)")
    if "browser" in need:
        missing += [exe for exe in ("chromium", "chromedriver") if not shutil.which(exe)]
    return missing


def _apt_runner() -> list[str] | None:
    """How to run the install script with apt as root here: [] as root, ["sudo", "-n"] when sudo needs no
    password, None when apt cannot be used (no apt-get, or no root)."""
    if not shutil.which("apt-get") or not shutil.which("debconf-set-selections"):
        return None
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n"]
    return None


_INSTALL: dict[str, str | None] = {}  # "error" -> why the one install attempt of this session failed (None: ok)


def _say(config, line: str) -> None:
    """A line on the terminal even under output capture and -q (the install takes a minute or two)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        print(line, file=sys.__stderr__, flush=True)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(line)


def ensure_tools(config, need: str) -> None:
    """Fail the asking test unless `need` ("virtuoso", "graphviz" or "browser") is installed, installing what is
    missing of all three first (once per session) where apt-get runs as root."""
    if not missing_tools((need,)):
        return
    missing = missing_tools()
    what = ", ".join(missing)
    if "error" not in _INSTALL:
        runner = _apt_runner()
        if runner is None:
            script = str(INSTALL_SCRIPT)
            if shutil.which("apt-get"):
                how = (
                    f"apt-get needs root, and sudo asks for a password; install them with: sudo sh {script} "
                    "(or run the tests as root and they install them themselves)"
                )
            else:
                how = (
                    "this machine has no apt-get; install them with its package manager: Virtuoso 7 "
                    f"(virtuoso-t, isql-vt, {VIRTUOSO_INI}), Graphviz (dot) and Chromium with its WebDriver "
                    "(chromium, chromedriver). On Debian the command "
                    f"is: sudo sh {script}"
                )
            _INSTALL["error"] = f"missing for the tests: {what}; {how}"
        else:
            log = Path(tempfile.gettempdir()) / f"semantic-rdf-install-servers-{os.getpid()}.log"
            cmd = [*runner, "sh", str(INSTALL_SCRIPT)]
            _say(config, f"\nsemantic-rdf tests: missing {what}; installing once for this session: {' '.join(cmd)} (apt-get; log {log}) ...")
            t0 = time.monotonic()
            with open(log, "wb") as out:
                rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT).returncode
            tail = log.read_text(errors="replace").strip().splitlines()[-15:]
            still = missing_tools()
            if rc == 0 and not still:
                _INSTALL["error"] = None
                _say(config, f"semantic-rdf tests: installed in {time.monotonic() - t0:.0f} s")
            else:
                _INSTALL["error"] = f"{' '.join(cmd)} exited with {rc}; still missing: {', '.join(still) or '-'}; last lines of {log}:\n" + "\n".join(
                    tail
                )
                _say(config, "semantic-rdf tests: installing failed, see the failing server tests")
    if _INSTALL["error"] is not None and missing_tools((need,)):
        pytest.fail(_INSTALL["error"], pytrace=False)


def _start(server):
    try:
        return server.start()
    except ServerError as exc:
        pytest.fail(str(exc), pytrace=False)


def _malloc_trim():
    """glibc's malloc_trim, or None elsewhere (musl, macOS)."""
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


@pytest.fixture(autouse=True, scope="module")
def _give_back_freed_memory():
    """After each test module, hand the memory its objects freed back to the system. glibc keeps freed heap
    pages for reuse, so the one pytest process of the suite only grew (RocksDB's caches and write buffers of
    the stores a module opened and closed among them), and CI holds that process to 2 GB (.ci/run): the
    figure it reports should be what the tests hold, not what they once held."""
    yield
    if _TRIM is not None:
        gc.collect()
        _TRIM(0)


@pytest.fixture(scope="session")
def graphviz(request):
    """Graphviz's `dot` (PROV pictures), installed with the servers when missing."""
    ensure_tools(request.config, "graphviz")
    return shutil.which("dot")


@pytest.fixture(scope="session")
def browser_tools(request):
    """chromium and chromedriver on PATH (installed with the servers when missing), without starting them."""
    ensure_tools(request.config, "browser")


@pytest.fixture(scope="module")
def browser(browser_tools):
    """A headless Chromium driven through Selenium and Debian's chromedriver (the `serve` page test). Selenium
    is given both paths, so it never looks for or downloads a driver. One per module: the browser's few
    hundred MB are given back once its tests are done."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is missing: pip install '.[test]'", pytrace=False)

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
    ):
        options.add_argument(arg)  # --no-sandbox: the tests run as root on CI, where Chromium's sandbox refuses
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def virtuoso_tools(request):
    """virtuoso-t and isql-vt on PATH (installed when missing), for tests that run them without the fixture."""
    ensure_tools(request.config, "virtuoso")


@pytest.fixture(scope="session")
def oxigraph_server():
    server = _start(OxigraphServer())
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def virtuoso_server(request):
    ensure_tools(request.config, "virtuoso")
    server = _start(VirtuosoServer(buffers=20000))
    try:
        yield server
    finally:
        server.stop()


def backend_for(kind: str, request) -> EmbeddedBackend | RemoteBackend:
    if kind == "embedded":
        return EmbeddedBackend()
    server = request.getfixturevalue(f"{kind}_server")
    return RemoteBackend(server.dsn)


@pytest.fixture(params=STORE_KINDS)
def any_store(request):
    backend = backend_for(request.param, request)
    backend.drop(NS_PREFIX)
    try:
        yield backend
    finally:
        backend.drop(NS_PREFIX)
        backend.close()
