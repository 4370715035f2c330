"""The whole-fetch timeout covers connect, headers and body (issue 21, item 3).

A server on 127.0.0.1 sends its response one byte at a time, each byte well inside httpx's
per-read timeout, for far longer than the fetch may take. Before the fix a fetch with
timeout=3 ran for minutes (every read returned in time, so no per-operation timeout fired)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from semantic_rdf.core.bounds import Bounds
from semantic_rdf.core.errors import SourceError
from semantic_rdf.pipeline.sources import Ingest, IngestConfig

TIMEOUT = 2.0
DRIP = 0.25  # seconds between bytes: far below the per-read timeout
ROOT = Path(__file__).resolve().parents[1]


class DripServer:
    """Accepts connections and sends a never-ending response one byte per DRIP seconds, either in
    the headers (the status line and then an endless header) or in the body (after complete headers)."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.sent = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(1.0)
            try:
                conn.recv(65536)  # the request
                if self.where == "body":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
                    payload = b"Ada Lovelace was born in London. " * 4000
                else:
                    payload = b"HTTP/1.1 200 OK\r\nX-Drip: " + b"a" * 100000
                for i in range(len(payload)):
                    if self.stop.is_set():
                        return
                    conn.sendall(payload[i : i + 1])
                    self.sent += 1
                    time.sleep(DRIP)
            except OSError:
                return  # the client hung up: what the deadline should make it do

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(2)


@pytest.fixture(params=["headers", "body"])
def drip(request):
    server = DripServer(request.param)
    yield server
    server.close()


def test_fetch_deadline_holds_while_bytes_drip(drip):
    bounds = Bounds.make(allow_hosts=["127.0.0.1"], timeout=TIMEOUT)
    t = time.monotonic()
    with pytest.raises(SourceError, match="timed out"):
        bounds.fetch(f"http://127.0.0.1:{drip.port}/")
    elapsed = time.monotonic() - t
    assert elapsed < TIMEOUT + 1.5, f"fetch ran {elapsed:.1f} s against a {TIMEOUT} s deadline"
    assert drip.sent >= 2  # the server did drip (the deadline, not a refused connection, ended it)


def test_ingest_reports_a_dripping_source_as_failed_and_reads_the_rest(drip, tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("Ada Lovelace was born in London.\n")
    ing = Ingest(IngestConfig(Bounds.make([tmp_path], ["127.0.0.1"], timeout=TIMEOUT)))
    t = time.monotonic()
    with pytest.raises(SourceError, match="timed out after 2 s"):
        ing.ingest(f"http://127.0.0.1:{drip.port}/")
    assert time.monotonic() - t < TIMEOUT + 1.5
    assert [d.source for d in ing.ingest(str(good))] == ["good.txt"]


def test_cli_ingest_of_a_dripping_server_fails_with_exit_2(tmp_path):
    server = DripServer("headers")
    try:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        t = time.monotonic()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "semantic_rdf",
                "--store",
                str(tmp_path / "s"),
                "ingest",
                "--allow-host",
                "127.0.0.1",
                "--timeout",
                str(TIMEOUT),
                f"http://127.0.0.1:{server.port}/",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )
        elapsed = time.monotonic() - t
    finally:
        server.close()
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "timed out after 2 s" in err[0], proc.stderr
    # the server would drip for 100,000 x 0.25 s; the process includes interpreter start-up on a shared machine
    assert elapsed < 30, f"ingest ran {elapsed:.1f} s"
