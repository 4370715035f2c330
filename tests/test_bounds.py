"""Bounds: local roots, symlinks, '..', and the web refusals against a real server on 127.0.0.1."""

from __future__ import annotations

import http.server
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from semantic_rdf.core.bounds import Bounds, is_public_address
from semantic_rdf.core.errors import InvalidInput, RefusedByBounds, SourceError

# ------------------------------------------------------------------ a real server


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hits: list[str] = []

    def log_message(self, *a):  # keep test output clean
        pass

    def _send(self, code, body=b"", headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        if not any(k.lower() == "content-length" for k, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def do_GET(self):
        _Handler.hits.append(self.path)
        p = self.path
        if p == "/ok":
            self._send(200, b"Alice works at Acme.", [("Content-Type", "text/plain; charset=utf-8")])
        elif p == "/big":
            self._send(200, b"x" * 300_000, [("Content-Type", "text/plain")])
        elif p == "/big-undeclared":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for _ in range(40):
                    self.wfile.write(b"y" * 10_000)
            except OSError:
                pass
            self.close_connection = True
        elif p == "/slow":
            time.sleep(2.5)
            self._send(200, b"late")
        elif p == "/drip":
            self.send_response(200)
            self.send_header("Content-Length", "40")
            self.end_headers()
            try:
                for _ in range(40):
                    self.wfile.write(b"z")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass
        elif p == "/to-private":
            self._send(302, headers=[("Location", "http://10.0.0.1/secret")])
        elif p == "/to-metadata":
            self._send(301, headers=[("Location", "http://169.254.169.254/latest/meta-data/")])
        elif p == "/to-ftp":
            self._send(302, headers=[("Location", "ftp://example.org/x")])
        elif p == "/loop":
            self._send(302, headers=[("Location", "/loop")])
        elif p == "/to-ok":
            self._send(302, headers=[("Location", "/ok")])
        else:
            self._send(404, b"no")


class _QuietServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):  # clients hanging up early is the point
        pass


@pytest.fixture(scope="module")
def server():
    srv = _QuietServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def trusted(**kw) -> Bounds:
    return Bounds.make(allow_hosts=["127.0.0.1"], **kw)


# ------------------------------------------------------------------ addresses


@pytest.mark.parametrize(
    "addr",
    [
        "127.0.0.1",
        "127.8.9.10",
        "10.1.2.3",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "100.127.255.254",
        "0.0.0.0",
        "0.1.2.3",
        "224.0.0.1",
        "239.255.255.250",
        "255.255.255.255",
        "240.0.0.1",
        "192.0.2.1",
        "198.18.0.1",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fd12:3456::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "2002:7f00:1::1",
        "2002:a00:1::1",
        "64:ff9b::a00:1",
        "64:ff9b::7f00:1",
        "2001:db8::1",
        "::127.0.0.1",
    ],
)
def test_non_public_addresses_are_refused(addr):
    assert not is_public_address(addr)
    assert not Bounds.make().address_allowed(addr)


@pytest.mark.parametrize("addr", ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(addr):
    assert is_public_address(addr)


def test_allow_list_takes_names_addresses_and_networks():
    b = Bounds.make(allow_hosts=["LocalHost.", "10.0.0.0/8", "::1", "192.168.1.5"])
    assert b.host_allowed("localhost")
    assert b.address_allowed("10.9.9.9")
    assert b.address_allowed("::1")
    assert b.address_allowed("::ffff:10.1.1.1")  # the mapped form of an allowed IPv4 network
    assert b.address_allowed("192.168.1.5")
    assert not b.address_allowed("192.168.1.6")
    assert not b.address_allowed("127.0.0.1")
    with pytest.raises(InvalidInput):
        Bounds.make(allow_hosts=["http://x/"])
    with pytest.raises(InvalidInput):
        Bounds.make(allow_hosts=[""])


@pytest.mark.parametrize(
    "url, fragment",
    [
        ("ftp://example.org/file", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("gopher://x/", "scheme 'gopher'"),
        ("http://127.0.0.1/", "127.0.0.1"),
        ("http://[::1]:8080/", "::1"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
        ("http://100.64.1.1/", "100.64.1.1"),
        ("http://localhost:9/", "loopback name"),
        ("http://api.localhost/", "loopback name"),
        ("http://user:secret@example.org/", "credentials"),
    ],
)
def test_urls_refused_before_any_traffic(url, fragment):
    with pytest.raises(RefusedByBounds) as e:
        Bounds.make().check_url(url)
    assert fragment in str(e.value)


def test_numeric_host_spellings_are_resolved_then_refused():
    # glibc resolves these spellings of 127.0.0.1; the check happens on the resolved answer
    b = Bounds.make()
    for host in ("0x7f000001", "2130706433", "0177.0.0.1"):
        with pytest.raises(RefusedByBounds):
            b.resolve(host, 80)


# ------------------------------------------------------------------ web, against the real server


def test_loopback_refused_by_default_and_no_request_is_sent(server):
    before = len(_Handler.hits)
    with pytest.raises(RefusedByBounds) as e:
        Bounds.make().fetch(server + "/ok")
    assert "allow-list" in str(e.value)
    assert len(_Handler.hits) == before


def test_localhost_name_refused_by_default(server):
    port = server.rsplit(":", 1)[1]
    with pytest.raises(RefusedByBounds):
        Bounds.make().fetch(f"http://localhost:{port}/ok")


def test_allow_list_lets_the_trusted_address_through(server):
    got = trusted().fetch(server + "/ok")
    assert got.status == 200
    assert got.data == b"Alice works at Acme."
    assert got.content_type.startswith("text/plain")
    assert got.url == server + "/ok"
    assert got.fetched_at.tzinfo is not None


def test_allow_list_by_host_name_and_by_network(server):
    port = server.rsplit(":", 1)[1]
    assert Bounds.make(allow_hosts=["localhost"]).fetch(f"http://localhost:{port}/ok").data.startswith(b"Alice")
    assert Bounds.make(allow_hosts=["127.0.0.0/8"]).fetch(server + "/ok").status == 200


def test_redirect_is_followed_and_rechecked(server):
    got = trusted().fetch(server + "/to-ok")
    assert got.data == b"Alice works at Acme."
    assert got.redirects == (server + "/to-ok",)


def test_redirect_into_a_private_address_is_refused(server):
    with pytest.raises(RefusedByBounds) as e:
        trusted().fetch(server + "/to-private")
    assert "10.0.0.1" in str(e.value)


def test_redirect_to_the_metadata_address_is_refused(server):
    with pytest.raises(RefusedByBounds) as e:
        trusted().fetch(server + "/to-metadata")
    assert "169.254.169.254" in str(e.value)


def test_redirect_to_another_scheme_is_refused(server):
    with pytest.raises(RefusedByBounds) as e:
        trusted().fetch(server + "/to-ftp")
    assert "ftp" in str(e.value)


def test_redirect_hops_are_capped(server):
    with pytest.raises(RefusedByBounds) as e:
        trusted(max_redirects=3).fetch(server + "/loop")
    assert "more than 3 redirects" in str(e.value)


def test_oversized_response_refused_by_declared_length(server):
    with pytest.raises(RefusedByBounds) as e:
        trusted(max_bytes=100_000).fetch(server + "/big")
    assert "size cap" in str(e.value)


def test_oversized_response_refused_while_streaming(server):
    with pytest.raises(RefusedByBounds) as e:
        trusted(max_bytes=100_000).fetch(server + "/big-undeclared")
    assert "size cap" in str(e.value)


def test_timeout_waiting_for_a_response(server):
    t = time.monotonic()
    with pytest.raises(SourceError) as e:
        trusted(timeout=0.5).fetch(server + "/slow")
    assert "timed out" in str(e.value)
    assert time.monotonic() - t < 2.4


def test_slow_drip_cannot_stretch_the_deadline(server):
    t = time.monotonic()
    with pytest.raises(SourceError) as e:
        trusted(timeout=1.0).fetch(server + "/drip")  # each byte arrives well within the read timeout
    assert "timed out" in str(e.value)
    assert time.monotonic() - t < 3.5


def test_http_error_status_is_a_source_error(server):
    with pytest.raises(SourceError) as e:
        trusted().fetch(server + "/missing")
    assert "404" in str(e.value)


def test_connected_socket_is_checked_even_if_resolution_lies(server):
    """DNS rebinding: a resolver whose answer passed its check, then the socket lands on loopback."""

    class LyingResolver(Bounds):
        def resolve(self, host, port):
            return [(socket.AF_INET, "127.0.0.1")]

    b = LyingResolver(max_bytes=1000, timeout=2.0)
    with pytest.raises(RefusedByBounds) as e:
        b.fetch("http://public.example:" + server.rsplit(":", 1)[1] + "/ok")
    assert "connected peer 127.0.0.1" in str(e.value)


# ------------------------------------------------------------------ local paths


@pytest.fixture()
def tree(tmp_path: Path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("inside")
    (root / "sub" / "b.txt").write_text("deeper")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    return root, outside


def test_paths_inside_the_roots_are_read(tree):
    root, _ = tree
    b = Bounds.make([root])
    f = b.read_file(root / "sub" / "b.txt")
    assert f.data == b"deeper"
    assert f.size == 6
    assert f.modified.tzinfo is not None


def test_path_outside_the_roots_is_refused(tree):
    root, outside = tree
    with pytest.raises(RefusedByBounds) as e:
        Bounds.make([root]).read_file(outside)
    assert "outside the allowed roots" in str(e.value)


def test_dotdot_escape_is_refused(tree):
    root, _ = tree
    with pytest.raises(RefusedByBounds):
        Bounds.make([root]).read_file(str(root / "sub" / ".." / ".." / "outside.txt"))
    # '..' that stays inside is fine
    assert Bounds.make([root]).read_file(str(root / "sub" / ".." / "a.txt")).data == b"inside"


def test_symlink_escape_is_refused(tree):
    root, outside = tree
    (root / "link.txt").symlink_to(outside)
    (root / "dirlink").symlink_to(outside.parent)
    b = Bounds.make([root])
    with pytest.raises(RefusedByBounds) as e:
        b.read_file(root / "link.txt")
    assert "symlink" in str(e.value)
    with pytest.raises(RefusedByBounds):
        b.read_file(root / "dirlink" / "outside.txt")


def test_symlink_that_stays_inside_is_followed(tree):
    root, _ = tree
    (root / "alias.txt").symlink_to(root / "a.txt")
    assert Bounds.make([root]).read_file(root / "alias.txt").data == b"inside"


def test_sibling_with_a_common_prefix_is_not_inside(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data-private").mkdir()
    (tmp_path / "data-private" / "x.txt").write_text("no")
    with pytest.raises(RefusedByBounds):
        Bounds.make([tmp_path / "data"]).read_file(tmp_path / "data-private" / "x.txt")


def test_size_cap_on_files(tree):
    root, _ = tree
    (root / "big.txt").write_bytes(b"x" * 5000)
    with pytest.raises(RefusedByBounds) as e:
        Bounds.make([root], max_bytes=4096).read_file(root / "big.txt")
    assert "size cap" in str(e.value)


def test_only_regular_files(tree):
    root, _ = tree
    fifo = root / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(RefusedByBounds) as e:
        Bounds.make([root]).read_file(fifo)
    assert "not a regular file" in str(e.value)


def test_missing_file_and_no_roots(tree):
    root, _ = tree
    with pytest.raises(SourceError) as e:
        Bounds.make([root]).read_file(root / "nope.txt")
    assert "no such file" in str(e.value)
    with pytest.raises(RefusedByBounds):
        Bounds.make().read_file(root / "a.txt")


def test_bad_limits_are_invalid_input():
    with pytest.raises(InvalidInput):
        Bounds.make(max_bytes=0)
    with pytest.raises(InvalidInput):
        Bounds.make(timeout=-1)
    with pytest.raises(InvalidInput):
        Bounds.make(max_redirects=-1)
