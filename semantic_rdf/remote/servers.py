"""Start and stop real triplestore servers as child processes, bound to 127.0.0.1.

Used by the test fixtures, the benches and `serve` (to read Oxigraph's page: remote/endpoint.py). They are
separate programs (`oxigraph` from PyPI, `virtuoso-t` from Debian's virtuoso-opensource) that we launch, wait
for, and stop; the library's own listener is `serve`'s endpoint only.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field

from semantic_rdf.core.errors import ServerError

__all__ = ["ServerError", "address", "free_port", "OxigraphServer", "VirtuosoServer", "oxigraph_binary", "INSTALL_OXIGRAPH", "INSTALL_VIRTUOSO"]

INSTALL_OXIGRAPH = "pip install 'oxigraph>=0.5.13,<0.6'  (or: pip install -e '.[test]')"
INSTALL_VIRTUOSO = "sudo .ci/install-servers.sh  (apt-get install virtuoso-opensource)"
VIRTUOSO_INI = "/etc/virtuoso-opensource-7/virtuoso.ini"


def address(host: str, port: int) -> str:
    """host:port, an IPv6 address in brackets (in a URL and in oxigraph's --bind: "::1:7878" is ambiguous)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def oxigraph_binary() -> str:
    exe = shutil.which("oxigraph")
    if not exe:
        raise ServerError(f"the `oxigraph` server binary is not on PATH; install it with: {INSTALL_OXIGRAPH}")
    return exe


def _wait(url: str, proc: subprocess.Popen, timeout: float, what: str, log: str | None = None) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            if proc.poll() is not None:
                tail = ""
                if log and os.path.exists(log):
                    with open(log, errors="replace") as f:
                        tail = f.read()[-800:]
                raise ServerError(f"{what} exited with code {proc.returncode} before answering. {tail}")
            if time.monotonic() > deadline:
                raise ServerError(f"{what} did not answer {url} within {timeout:.0f} s")
            time.sleep(0.05)


def _stop(proc: subprocess.Popen | None, grace: float = 20.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@dataclass
class OxigraphServer:
    """`oxigraph serve` (or `serve-read-only`) on a store directory; no location = in memory."""

    location: str | None = None
    read_only: bool = False
    port: int = 0
    host: str = "127.0.0.1"
    union_default_graph: bool = False  # queries without GRAPH see every graph (serve: the store's named graphs)
    # descriptors the server inherits: `serve` passes its snapshot's lock, so that the snapshot stays the server's
    # while the server runs, even past `serve` itself (store/readers.py)
    pass_fds: tuple[int, ...] = ()
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://{self._address}"

    @property
    def _address(self) -> str:
        return address(self.host, self.port)

    @property
    def dsn(self) -> str:
        return f"oxigraph+{self.url}"

    def start(self, timeout: float = 60.0) -> "OxigraphServer":
        exe = oxigraph_binary()
        self.port = self.port or free_port()
        cmd = [exe, "serve-read-only" if self.read_only else "serve", "--bind", self._address]
        if self.location:
            cmd += ["--location", self.location]
        elif self.read_only:
            raise ServerError("a read-only server needs a store directory")
        if self.union_default_graph:
            cmd.append("--union-default-graph")
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, pass_fds=self.pass_fds
        )
        _wait(f"{self.url}/query?query=ASK%7B%7D", self.proc, timeout, "oxigraph server")
        return self

    def stop(self) -> None:
        _stop(self.proc)

    def __enter__(self) -> "OxigraphServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@dataclass
class VirtuosoServer:
    """A private Virtuoso 7 instance in its own directory: loopback only, anonymous update granted,
    result cap raised (unless max_rows=None), a load directory it may read. Always starts as dba/dba
    (a new database)."""

    workdir: str | None = None
    http_port: int = 0
    sql_port: int = 0
    buffers: int = 170000
    max_rows: int | None = 10_000_000  # ResultSetMaxRows; None keeps the packaged default (10,000)
    proc: subprocess.Popen | None = field(default=None, repr=False)
    _tmp: tempfile.TemporaryDirectory | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def isql_address(self) -> str:
        return f"127.0.0.1:{self.sql_port}"

    @property
    def load_dir(self) -> str:
        assert self.workdir is not None, "the server has no working directory before start()"
        return os.path.join(self.workdir, "load")

    @property
    def password_file(self) -> str:
        assert self.workdir is not None, "the server has no working directory before start()"
        return os.path.join(self.workdir, "dba-password")

    @property
    def dsn(self) -> str:
        """HTTP only: pushes go through batched INSERT DATA."""
        return f"virtuoso+{self.url}"

    @property
    def bulk_dsn(self) -> str:
        """With the local loader: pushes go through ld_dir/rdf_loader_run."""
        return f"virtuoso+{self.url}?isql={self.isql_address}&load-dir={self.load_dir}&password-file={self.password_file}"

    def start(self, timeout: float = 120.0) -> "VirtuosoServer":
        exe = shutil.which("virtuoso-t")
        if not exe or not shutil.which("isql-vt") or not os.path.exists(VIRTUOSO_INI):
            raise ServerError(f"Virtuoso (virtuoso-t, isql-vt, {VIRTUOSO_INI}) is not installed; run: {INSTALL_VIRTUOSO}")
        if self.workdir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="semantic-rdf-virtuoso-")
            self.workdir = self._tmp.name
        os.makedirs(os.path.join(self.workdir, "db"), exist_ok=True)
        os.makedirs(self.load_dir, exist_ok=True)
        self.http_port = self.http_port or free_port()
        self.sql_port = self.sql_port or free_port()
        with open(VIRTUOSO_INI, encoding="utf-8") as f:
            ini = f.read()
        lines = []
        section = ""
        for line in ini.splitlines():
            s = line.strip()
            if s.startswith("["):
                section = s
            key = s.split("=", 1)[0].strip() if "=" in s and not s.startswith(";") else ""
            line = line.replace("/var/lib/virtuoso-opensource-7/db/", "db/")
            if key == "ServerPort" and section == "[Parameters]":
                line = f"ServerPort = 127.0.0.1:{self.sql_port}"
            elif key == "ServerPort" and section == "[HTTPServer]":
                line = f"ServerPort = 127.0.0.1:{self.http_port}"
            elif key == "DirsAllowed":
                line = f"DirsAllowed = ., {self.load_dir}, /usr/share/virtuoso-opensource-7/vad"
            elif key == "ResultSetMaxRows" and self.max_rows is not None:
                line = f"ResultSetMaxRows = {int(self.max_rows)}"
            elif key == "NumberOfBuffers":
                line = f"NumberOfBuffers = {self.buffers}"
            elif key == "MaxDirtyBuffers":
                line = f"MaxDirtyBuffers = {self.buffers * 3 // 4}"
            lines.append(line)
        with open(os.path.join(self.workdir, "virtuoso.ini"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        with open(self.password_file, "w", encoding="utf-8") as f:
            f.write("dba\n")
        os.chmod(self.password_file, 0o600)
        self.proc = subprocess.Popen(
            [exe, "+foreground", "+configfile", "virtuoso.ini"],
            cwd=self.workdir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            _wait(f"{self.url}/sparql?query=ASK%7B%7D", self.proc, timeout, "virtuoso-t", os.path.join(self.workdir, "db", "virtuoso.log"))
            self.isql('GRANT SPARQL_UPDATE TO "SPARQL";')
        except BaseException:
            self.stop()
            raise
        return self

    def isql(self, sql: str, timeout: float = 600.0) -> str:
        out = subprocess.run(["isql-vt", self.isql_address, "dba", "dba", f"exec={sql}"], capture_output=True, text=True, timeout=timeout)
        if out.returncode != 0 or "*** Error" in out.stdout + out.stderr:
            raise ServerError(f"isql failed: {(out.stdout + out.stderr).strip()[-500:]}")
        return out.stdout

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                subprocess.run(["isql-vt", self.isql_address, "dba", "dba", "exec=shutdown;"], capture_output=True, timeout=30)
                self.proc.wait(30)
            except Exception:
                pass
            _stop(self.proc)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> "VirtuosoServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
