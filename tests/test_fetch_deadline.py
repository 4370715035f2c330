"""The whole-fetch timeout covers connect, headers and body (issue 21, item 3).

A server on 127.0.0.1 sends its response one byte at a time, each byte well inside httpx's
per-read timeout, for far longer than the fetch may take. Before the fix a fetch with
timeout=3 ran for minutes (every read returned in time, so no per-operation timeout fired)."""

from __future__ import annotations

import http.server
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


# ----------------------------------------------------------------------------------------------
# A compressed body: the cap counts decoded bytes, and the deadline holds while they are made. httpx's
# iter_bytes() inflated each network chunk whole (64 KiB of gzip: 64 MiB) and stacked a decoder per layer
# of `Content-Encoding: gzip, gzip`; the cap was checked between its pieces. The fetch runs in a child
# process (tests/_security.run_bounded) to measure its memory.

BOMB_CAP = 1 << 20
PAGE = (
    "<html><head><title>Ada</title></head><body><h1>Ada Lovelace</h1>"
    + "<p>Ada Lovelace was born in London in 1815. She wrote the first program.</p>" * 200
    + "</body></html>"
).encode()


def _deflate(data: bytes, wbits: int) -> bytes:
    import zlib

    z = zlib.compressobj(6, zlib.DEFLATED, wbits)
    return z.compress(data) + z.flush()


class _Compressed(http.server.BaseHTTPRequestHandler):
    """/page (plain), /page.gzip, /page.deflate (zlib), /page.raw-deflate, /bomb1, /bomb2 (gzip once, twice)."""

    def do_GET(self) -> None:
        import gzip

        bodies = self.server.bodies  # type: ignore[attr-defined]
        coding, body = {
            "/page": ("", PAGE),
            "/page.gzip": ("gzip", gzip.compress(PAGE)),
            "/page.deflate": ("deflate", _deflate(PAGE, 15)),
            "/page.raw-deflate": ("deflate", _deflate(PAGE, -15)),
            "/bomb1": ("gzip", bodies[1]),
            "/bomb2": ("gzip, gzip", bodies[2]),
        }[self.path]
        self.server.asked.append(self.headers.get("Accept-Encoding", ""))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if coding:
            self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *a) -> None:
        pass


@pytest.fixture(scope="module")
def compressed():
    from tests._security import gzip_bomb

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Compressed)
    srv.daemon_threads = True
    srv.bodies = {1: gzip_bomb(100 << 20, 1), 2: gzip_bomb(512 << 20, 2)}  # type: ignore[attr-defined]
    srv.asked = []  # type: ignore[attr-defined]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.mark.parametrize("path, refusal", [("/bomb1", "exceeds the size cap of 1048576 bytes"), ("/bomb2", "a body encoded 2 times")])
def test_a_gzip_bomb_is_refused_in_bounded_memory_and_time(compressed, path, refusal):
    from tests._security import run_bounded

    url = f"http://127.0.0.1:{compressed.server_address[1]}"
    setup = (
        "from semantic_rdf.core.bounds import Bounds\n"
        f"b = Bounds.make(allow_hosts=['127.0.0.1'], max_bytes={BOMB_CAP}, timeout={TIMEOUT})\n"
        f"b.fetch('{url}/page')\n"
    )
    got = run_bounded(setup, f"b.fetch('{url}{path}')")
    assert got["error"] in ("SourceError", "RefusedByBounds") and refusal in got["message"], got
    assert "\n" not in got["message"]
    assert got["peak"] < 16 << 20, f"Python held {got['peak'] >> 20} MiB against a cap of 1 MiB"
    assert got["grew"] < 100 << 20, f"resident size grew {got['grew'] >> 20} MiB against a cap of 1 MiB"
    assert got["seconds"] < TIMEOUT + 2, got


@pytest.mark.parametrize("path", ["/page.gzip", "/page.deflate", "/page.raw-deflate"])
def test_a_compressed_page_ingests_to_the_plain_pages_text(compressed, path, tmp_path):
    url = f"http://127.0.0.1:{compressed.server_address[1]}"
    bounds = Bounds.make(allow_hosts=["127.0.0.1"], timeout=TIMEOUT)
    assert bounds.fetch(url + path).data == PAGE
    assert compressed.asked[-1] == "gzip, deflate"  # what is decoded, and only that (no br, no zstd)
    ing = Ingest(IngestConfig(Bounds.make([tmp_path], ["127.0.0.1"], timeout=TIMEOUT)))
    plain, packed = ing.ingest(url + "/page"), ing.ingest(url + path)
    assert [d.text for d in packed] == [d.text for d in plain] and "Ada Lovelace was born in London" in plain[0].text


def test_the_deadline_holds_while_one_chunk_inflates(monkeypatch):
    """One network chunk of gzip (64 KiB: 64 MiB inflated) is decoded a MiB at a time, the deadline asked
    between the pieces: a clock that moves a second per question stops it after a few MiB."""
    import types

    from semantic_rdf.core import bounds as bounds_module
    from tests._security import gzip_bomb

    chunk = gzip_bomb(64 << 20)[: 1 << 16]
    clock = iter(range(10**6))
    monkeypatch.setattr(bounds_module, "time", types.SimpleNamespace(monotonic=lambda: float(next(clock))))
    with pytest.raises(TimeoutError):
        bounds_module.read_body(
            [chunk], "gzip", 1 << 30, 5.0, too_big=lambda: AssertionError("cap"), too_late=lambda: TimeoutError(), refused=AssertionError
        )
    assert next(clock) < 12  # a question per MiB made: stopped at the fifth second, not after 64 MiB
