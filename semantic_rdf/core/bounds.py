"""Bounds: what an ingest reference may reach (HIP-0526 Security Considerations).

Ingest is the only stage that touches the world, and a reference is caller-supplied, so
every driver asks a `Bounds` before it reads anything:

* Local paths (file, dir, glob) must resolve — after following every symlink and `..` —
  inside one of the allowed roots. By default the roots are the paths the user named.
  The opened file descriptor is checked again (``/proc/self/fd``) so a symlink swapped in
  between the check and the open is still caught. Only regular files are read.
* Web references: only http and https, no user-info in the URL, no proxy. A host name is
  resolved once, every answer must be a public address, and the connection goes to the
  address that was checked (so a second DNS answer cannot rebind it). The connected
  socket's peer address is checked again. Redirects are followed by hand, each hop
  re-checked, at most `max_redirects` of them. The body is capped at `max_bytes` and the
  whole fetch at `timeout` seconds (a slow drip cannot stretch it). A gzip or deflate body is
  decoded here a bounded piece at a time (`read_body`), so the cap counts decoded bytes before
  more are made and the deadline holds while they are: a few kilobytes cannot inflate to gigabytes.
* `allow_hosts` is the explicit trust list: host names (``localhost``, ``intranet.example``)
  or addresses and networks (``127.0.0.1``, ``10.0.0.0/8``, ``::1``). It is the only way to
  reach a non-public address.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import socket
import stat
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO, Callable, Iterable
from urllib.parse import urljoin, urlsplit

from semantic_rdf.core.errors import InvalidInput, RefusedByBounds, SourceError

__all__ = [
    "Bounds",
    "Fetched",
    "LocalFile",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "DEFAULT_MAX_REDIRECTS",
    "ParseLimits",
    "is_public_address",
    "open_regular",
    "read_regular",
    "read_body",
]

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_REDIRECTS = 5
# What a parser may make of one source's bytes (ParseLimits): a few hundred kilobytes of PDF can
# decode to gigabytes of text (one content stream shared by every page), so the bytes cap alone
# does not bound the work.
DEFAULT_MAX_TEXT = DEFAULT_MAX_BYTES  # characters of text extracted from one source
DEFAULT_MAX_PAGES = 1000  # PDF pages read from one source
DEFAULT_MAX_PAGE_CONTENT = 512 * 1024  # decoded bytes of one PDF page's content (a dense page: ~10-50 KB)
DEFAULT_PARSE_SECONDS = 3.0  # wall clock for HTML parsing, plus PARSE_SECONDS_PER_MB per megabyte
PARSE_SECONDS_PER_MB = 1.0

_IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Not always covered by `is_global` in every Python version, so named explicitly.
_ALWAYS_REFUSED = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128",
        "::1/128",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
        "2001:db8::/32",
        "100::/64",
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def open_regular(path: str | os.PathLike[str], what: str) -> BinaryIO:
    """A file a user named on the command line (a query, a rule, an import, a batch of questions), opened for
    reading if it is a regular file: a device would never end and a FIFO might never open (it is opened
    without waiting for a writer, then refused). InvalidInput names `what` otherwise. (Ingest reads through
    `Bounds.read_file`, which also keeps to its roots.)"""
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise InvalidInput(f"cannot read {what} {name!r}: {e.strerror or e}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidInput(f"{what} {name!r} is not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_regular(path: str | os.PathLike[str], what: str, limit: int | None = None) -> bytes:
    """The bytes of a regular file a user named (`open_regular`), at most `limit` bytes when given."""
    name = os.fspath(path)
    with open_regular(path, what) as f:
        try:
            size = os.fstat(f.fileno()).st_size
            if limit is not None and size > limit:
                raise InvalidInput(f"{what} {name!r} is {size:,} bytes (at most {limit:,})")
            data = f.read() if limit is None else f.read(limit + 1)
        except OSError as e:
            raise InvalidInput(f"cannot read {what} {name!r}: {e.strerror or e}") from None
    if limit is not None and len(data) > limit:
        raise InvalidInput(f"{what} {name!r} is longer than {limit:,} bytes")
    return data


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, 6to4, Teredo, NAT64)."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    packed = ip.packed
    if packed[:12] == bytes(12) and int(ip) > 1:  # deprecated IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(packed[12:])
    return None


def is_public_address(ip: _IPAddress | str) -> bool:
    """True for a globally routable unicast address; False for loopback, private, link-local
    (incl. 169.254.169.254), CGNAT, multicast, unspecified, documentation and reserved ranges,
    and for IPv6 forms that embed such an IPv4 address."""
    if isinstance(ip, str):
        ip = ipaddress.ip_address(ip.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:  # ::ffff:a.b.c.d reaches a.b.c.d: judge that
            return is_public_address(ip.ipv4_mapped)
        v4 = _embedded_v4(ip)
        if v4 is not None and not is_public_address(v4):
            return False
        if ip.scope_id:
            return False
    if any(ip in n for n in _ALWAYS_REFUSED if n.version == ip.version):
        return False
    return ip.is_global and not ip.is_multicast and not ip.is_unspecified and not ip.is_reserved


def _norm_host(host: str) -> str:
    host = host.strip().lower().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host


@dataclass(frozen=True, slots=True)
class ParseLimits:
    """Caps on what parsing one source may produce or cost, like `Bounds.max_bytes` on what may be
    read. A cap that is reached truncates the document at a page (PDF) and says so in its meta
    (``notes``) and in the ingest summary, or refuses the source (ParseError) where a partial
    result would be arbitrary (HTML that cannot be parsed in time, JSON that renders too large)."""

    max_text: int = DEFAULT_MAX_TEXT
    max_pages: int = DEFAULT_MAX_PAGES
    max_page_content: int = DEFAULT_MAX_PAGE_CONTENT
    parse_seconds: float = DEFAULT_PARSE_SECONDS
    seconds_per_mb: float = PARSE_SECONDS_PER_MB

    def __post_init__(self) -> None:
        for name in ("max_text", "max_pages", "max_page_content"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise InvalidInput(f"{name} must be a positive integer, got {v!r}")
        for name in ("parse_seconds", "seconds_per_mb"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not v >= 0:
                raise InvalidInput(f"{name} must be a non-negative number, got {v!r}")

    def budget(self, size: int) -> float:
        """Seconds a parser may spend on `size` bytes (a floor plus a rate: linear work fits easily)."""
        return self.parse_seconds + self.seconds_per_mb * size / 1e6


@dataclass(frozen=True, slots=True)
class LocalFile:
    """A local file that passed the bounds, read whole (up to the size cap)."""

    path: Path  # resolved real path (never stored in a document: machine-specific)
    data: bytes
    modified: datetime
    size: int


@dataclass(frozen=True, slots=True)
class Fetched:
    """A web response that passed the bounds."""

    url: str  # the final URL, after redirects
    status: int
    data: bytes
    content_type: str
    fetched_at: datetime
    redirects: tuple[str, ...] = ()
    last_modified: datetime | None = None


@dataclass(frozen=True)
class Bounds:
    """The limits of one ingest. `roots` empty means no local path is allowed."""

    roots: tuple[Path, ...] = ()
    allow_hosts: frozenset[str] = frozenset()
    allow_networks: tuple[_IPNetwork, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = DEFAULT_TIMEOUT
    max_redirects: int = DEFAULT_MAX_REDIRECTS
    schemes: frozenset[str] = field(default=frozenset({"http", "https"}))

    @classmethod
    def make(
        cls,
        roots: Iterable[str | os.PathLike[str]] = (),
        allow_hosts: Iterable[str] = (),
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        timeout: float = DEFAULT_TIMEOUT,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
    ) -> "Bounds":
        """Bounds from user input: roots are resolved now (symlinks followed, relative to the
        working directory); each allow-list entry is a host name, an address or a network."""
        if not isinstance(max_bytes, int) or max_bytes <= 0:
            raise InvalidInput(f"max_bytes must be a positive integer, got {max_bytes!r}")
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise InvalidInput(f"timeout must be a positive number of seconds, got {timeout!r}")
        if not isinstance(max_redirects, int) or max_redirects < 0:
            raise InvalidInput(f"max_redirects must be >= 0, got {max_redirects!r}")
        resolved: list[Path] = []
        for r in roots:
            p = Path(os.path.realpath(os.fspath(r)))
            if p not in resolved:
                resolved.append(p)
        names: set[str] = set()
        nets: list[_IPNetwork] = []
        for entry in allow_hosts:
            if not isinstance(entry, str) or not entry.strip():
                raise InvalidInput(f"allow-list entry must be a host name or address, got {entry!r}")
            e = _norm_host(entry)
            try:
                nets.append(ipaddress.ip_network(e, strict=False))
            except ValueError:
                if not e or any(c in e for c in "/:@ "):
                    raise InvalidInput(f"allow-list entry {entry!r} is neither a host name nor an address") from None
                names.add(e)
        return cls(tuple(resolved), frozenset(names), tuple(nets), max_bytes, float(timeout), max_redirects)

    # ---------------------------------------------------------------- local paths

    def within_roots(self, real: Path) -> bool:
        return any(real == r or r in real.parents for r in self.roots)

    def check_path(self, path: str | os.PathLike[str], name: str | None = None) -> Path:
        """The real path of `path` if it lies inside a root, else RefusedByBounds.
        `name` is how messages refer to it (default: the path as given)."""
        name = os.fspath(path) if name is None else name
        if not self.roots:
            raise RefusedByBounds(f"{name}: no local roots are allowed in this ingest")
        real = Path(os.path.realpath(os.fspath(path)))
        if not self.within_roots(real):
            how = "a symlink or '..' leads" if Path(os.path.abspath(os.fspath(path))) != real else "it lies"
            raise RefusedByBounds(f"{name}: refused, {how} outside the allowed roots")
        return real

    def read_file(self, path: str | os.PathLike[str], name: str | None = None) -> LocalFile:
        """Read a regular file inside the roots, at most `max_bytes`, re-checking the opened fd."""
        name = os.fspath(path) if name is None else name
        real = self.check_path(path, name)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(real, flags)
        except FileNotFoundError:
            raise SourceError(f"{name}: no such file") from None
        except IsADirectoryError:
            raise SourceError(f"{name}: is a directory") from None
        except OSError as e:
            raise SourceError(f"{name}: cannot open ({e.strerror or e})") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise RefusedByBounds(f"{name}: not a regular file")
            proc = f"/proc/self/fd/{fd}"
            if os.path.exists(proc) and not self.within_roots(Path(os.readlink(proc))):
                raise RefusedByBounds(f"{name}: refused, the opened file lies outside the allowed roots")
            if st.st_size > self.max_bytes:
                raise RefusedByBounds(f"{name}: {st.st_size} bytes exceeds the size cap of {self.max_bytes}")
            chunks: list[bytes] = []
            total = 0
            while True:
                b = os.read(fd, min(1 << 20, self.max_bytes + 1 - total))
                if not b:
                    break
                chunks.append(b)
                total += len(b)
                if total > self.max_bytes:
                    raise RefusedByBounds(f"{name}: exceeds the size cap of {self.max_bytes} bytes")
        except OSError as e:
            raise SourceError(f"{name}: cannot read ({e.strerror or e})") from None
        finally:
            os.close(fd)
        return LocalFile(real, b"".join(chunks), datetime.fromtimestamp(st.st_mtime, timezone.utc), total)

    # ---------------------------------------------------------------- addresses

    def host_allowed(self, host: str) -> bool:
        """The host name itself is on the allow-list (so any address it resolves to is trusted)."""
        return _norm_host(host) in self.allow_hosts

    def address_allowed(self, ip: _IPAddress | str, host: str = "") -> bool:
        if isinstance(ip, str):
            ip = ipaddress.ip_address(ip.split("%", 1)[0])
        if host and self.host_allowed(host):
            return True
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            if any(ip.ipv4_mapped in n for n in self.allow_networks if n.version == 4):
                return True
        if any(ip in n for n in self.allow_networks if n.version == ip.version):
            return True
        return is_public_address(ip)

    def check_url(self, url: str) -> tuple[str, str, int]:
        """Scheme, host and port of an acceptable URL; refuses before any network traffic
        what can be refused from the URL alone (scheme, user-info, literal addresses, localhost)."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as e:
            raise SourceError(f"{url}: malformed URL ({e})") from None
        scheme = parts.scheme.lower()
        if scheme not in self.schemes:
            raise RefusedByBounds(f"{url}: scheme {scheme or '(none)'!r} is not allowed (only http, https)")
        host = _norm_host(parts.hostname or "")
        if not host:
            raise SourceError(f"{url}: no host")
        if parts.username is not None or parts.password is not None:
            raise RefusedByBounds(f"{url}: credentials in a URL are refused")
        if port is None:
            port = 443 if scheme == "https" else 80
        if self.host_allowed(host):
            return scheme, host, port
        try:
            ip = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            if host == "localhost" or host.endswith(".localhost"):
                raise RefusedByBounds(f"{url}: {host} is a loopback name (add it to the allow-list to trust it)") from None
            return scheme, host, port
        if not self.address_allowed(ip):
            raise RefusedByBounds(f"{url}: {ip} is not a public address (add it to the allow-list to trust it)")
        return scheme, host, port

    def resolve(self, host: str, port: int) -> list[tuple[int, str]]:
        """Every address `host` resolves to, refused if ANY answer is not allowed."""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as e:
            raise SourceError(f"{host}: cannot resolve ({e})") from None
        out: list[tuple[int, str]] = []
        for family, _, _, _, sockaddr in infos:
            addr = str(sockaddr[0])
            if not self.address_allowed(addr, host):
                raise RefusedByBounds(f"{host} resolves to {addr}, which is not a public address (add it to the allow-list to trust it)")
            if (family, addr) not in out:
                out.append((family, addr))
        if not out:
            raise SourceError(f"{host}: no address")
        return out

    # ---------------------------------------------------------------- web

    def fetch(self, url: str) -> Fetched:
        """GET `url` within the bounds: every hop checked, body capped, whole fetch timed (every
        socket operation, from connect through the headers to the last body byte, waits at most
        until one deadline, `timeout` seconds after the start)."""
        import httpx

        deadline = time.monotonic() + self.timeout
        hops: list[str] = []
        current = url
        with httpx.Client(
            transport=_guarded_transport_class()(self, deadline),  # connect, headers and body share it
            trust_env=False,
            follow_redirects=False,
            timeout=httpx.Timeout(self.timeout),
            headers={"User-Agent": "semantic-rdf-ingest", "Accept-Encoding": ACCEPT_ENCODING},
        ) as client:
            while True:
                if time.monotonic() > deadline:
                    raise SourceError(f"{url}: timed out after {self.timeout:g} s")
                self.check_url(current)
                try:
                    with client.stream("GET", current) as resp:
                        if resp.is_redirect:
                            location = resp.headers.get("location", "")
                            if not location:
                                raise SourceError(f"{current}: redirect without a Location")
                            if len(hops) >= self.max_redirects:
                                raise RefusedByBounds(f"{url}: more than {self.max_redirects} redirects")
                            hops.append(current)
                            current = urljoin(current, location)
                            continue
                        if resp.status_code >= 400:
                            raise SourceError(f"{current}: HTTP {resp.status_code}")
                        declared = resp.headers.get("content-length")
                        if declared and declared.isdigit() and int(declared) > self.max_bytes:
                            raise RefusedByBounds(f"{current}: response of {declared} bytes exceeds the size cap of {self.max_bytes}")
                        here = current
                        body = read_body(
                            resp.iter_raw(),  # never iter_bytes(): httpx would inflate each chunk whole
                            resp.headers.get("content-encoding", ""),
                            self.max_bytes,
                            deadline,
                            too_big=lambda: RefusedByBounds(f"{here}: response exceeds the size cap of {self.max_bytes} bytes"),
                            too_late=lambda: SourceError(f"{url}: timed out after {self.timeout:g} s"),
                            refused=lambda why: SourceError(f"{here}: {why}"),
                        )
                        return Fetched(
                            url=str(resp.url),
                            status=resp.status_code,
                            data=body,
                            content_type=resp.headers.get("content-type", ""),
                            fetched_at=datetime.now(timezone.utc),
                            redirects=tuple(hops),
                            last_modified=_http_date(resp.headers.get("last-modified")),
                        )
                except httpx.TimeoutException:
                    raise SourceError(f"{url}: timed out after {self.timeout:g} s") from None
                except httpx.InvalidURL as e:  # a URL (or a redirect's Location) httpx cannot parse: not an HTTPError
                    raise SourceError(f"{current}: malformed URL ({e})") from None
                except httpx.HTTPError as e:
                    cause = e.__cause__ or e.__context__
                    if isinstance(cause, SourceError):
                        raise cause from None
                    raise SourceError(f"{current}: {type(e).__name__}: {e}") from None


ACCEPT_ENCODING = "gzip, deflate"  # what Bounds.fetch asks for: the codings read_body decodes
_DECODE_STEP = 1 << 20  # decoded bytes made per call at most: the cap and the deadline are checked between calls


def _coding_wbits(content_encoding: str, refused: Callable[[str], BaseException]) -> int | None:
    """zlib's wbits for a Content-Encoding header (None: not encoded); one layer of gzip or deflate only."""
    codings = [c.strip().lower() for c in content_encoding.split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return None
    if len(codings) > 1:
        raise refused(f"a body encoded {len(codings)} times ({', '.join(codings)[:60]!r}) is refused: one gzip or deflate layer at most")
    if codings[0] in ("gzip", "x-gzip"):
        return zlib.MAX_WBITS | 16
    if codings[0] == "deflate":
        return zlib.MAX_WBITS  # zlib's format, as RFC 9110 says; raw deflate (as some servers send) is tried too
    raise refused(f"content encoding {codings[0][:40]!r} is refused: only gzip and deflate are decoded")


def read_body(
    raw: Iterable[bytes],
    content_encoding: str,
    max_bytes: int,
    deadline: float | None,
    *,
    too_big: Callable[[], BaseException],
    too_late: Callable[[], BaseException],
    refused: Callable[[str], BaseException],
) -> bytes:
    """A reply's body from its chunks as they came off the wire (httpx's `Response.iter_raw()`), decoded here
    when its Content-Encoding is one layer of gzip or deflate. At most `max_bytes` bytes are ever held, decoded
    or not: zlib makes at most _DECODE_STEP bytes per call and never more than one byte past the cap (httpx's
    own decoding inflates a whole network chunk at once, 64 KiB of gzip into 64 MiB, and stacks decoders for
    `gzip, gzip`, each layer another thousandfold). `deadline` (time.monotonic(), None for none) is checked
    between calls too, so inflating cannot outlast it either. Errors are the caller's: `too_big()` past the
    cap, `too_late()` past the deadline, `refused(reason)` for a stacked or unknown coding or a body that is
    not what its coding says (also one that stops before its end, which could pass for a shorter body).
    Used by `Bounds.fetch` (ingest) and the remote SPARQL client (remote/sparql.py)."""

    def in_time() -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise too_late()

    wbits = _coding_wbits(content_encoding, refused)
    body = bytearray()
    if wbits is None:
        for chunk in raw:
            body += chunk
            if len(body) > max_bytes:
                raise too_big()
            in_time()
        return bytes(body)
    inflate = zlib.decompressobj(wbits)
    started = False  # zlib has accepted some input (a "deflate" body without zlib's header is raw deflate)
    wire = 0
    for chunk in raw:
        wire += len(chunk)
        if wire > max_bytes:
            raise too_big()
        in_time()
        data, more = chunk, True
        while more and not inflate.eof:
            room = min(max_bytes + 1 - len(body), _DECODE_STEP)
            try:
                out = inflate.decompress(data, room)
            except zlib.error:
                if started or wbits != zlib.MAX_WBITS:
                    raise refused("the body is not the gzip or deflate data its Content-Encoding says") from None
                wbits = -zlib.MAX_WBITS
                inflate = zlib.decompressobj(wbits)
                continue
            started = True
            body += out
            if len(body) > max_bytes:
                raise too_big()
            in_time()
            data = inflate.unconsumed_tail
            more = bool(data) or len(out) == room  # input left over, or output zlib held back when `room` ran out
        # what follows the end of the compressed stream is ignored (as httpx does), under the cap and the deadline
    if wire and not inflate.eof:
        raise refused("the gzip or deflate body stops before its end")
    return bytes(body)


def _http_date(value: str | None) -> datetime | None:
    from email.utils import parsedate_to_datetime

    if not value:
        return None
    try:
        t = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def _guarded_backend(bounds: Bounds, deadline: float | None = None):
    """The network backend of `Bounds.fetch`: only addresses the bounds accept, every read and write
    until `deadline`."""
    return deadline_backend(lambda: deadline, bounds)


def deadline_backend(deadline: Callable[[], float | None], bounds: Bounds | None = None):
    """An httpcore network backend whose every socket operation, from the connect through the headers
    to the last body byte, waits at most until `deadline()` (a time.monotonic() value, asked at each
    operation, so one pool can serve requests of different deadlines; None: httpx's own timeouts only).
    With `bounds`, it also connects only to the addresses they accept and checks the connected peer.
    Used by `Bounds.fetch` (ingest) and the remote SPARQL client (remote/sparql.py)."""
    import httpcore

    def left(timeout: float | None, error: type[Exception]) -> float | None:
        """The I/O timeout httpx asked for, shortened to what is left of the whole request."""
        end = deadline()
        if end is None:
            return timeout
        rest = end - time.monotonic()
        if rest <= 0:
            raise error("the whole request passed its deadline")
        return rest if timeout is None else min(timeout, rest)

    class _DeadlineStream(httpcore.NetworkStream):
        """Every read and write waits at most until the request's deadline: httpx's timeouts are per
        operation, so a server sending one header byte a second never tripped them."""

        def __init__(self, stream: httpcore.NetworkStream) -> None:
            self._stream = stream

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self._stream.read(max_bytes, left(timeout, httpcore.ReadTimeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._stream.write(buffer, left(timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            self._stream.close()

        def start_tls(self, ssl_context, server_hostname=None, timeout=None):
            return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, left(timeout, httpcore.ConnectTimeout)))

        def get_extra_info(self, info: str):
            return self._stream.get_extra_info(info)

    class _GuardedBackend(httpcore.SyncBackend):
        """Connects only to addresses the bounds accept (any, without bounds), and checks the connected peer."""

        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            if bounds is None:
                return _DeadlineStream(super().connect_tcp(host, port, left(timeout, httpcore.ConnectTimeout), local_address, socket_options))
            last: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
            for _family, addr in bounds.resolve(host, port):
                try:  # connect to the checked address, never to the name (no second resolution)
                    stream = super().connect_tcp(addr, port, left(timeout, httpcore.ConnectTimeout), local_address, socket_options)
                except (httpcore.ConnectError, httpcore.ConnectTimeout) as e:
                    last = e
                    continue
                peer = stream.get_extra_info("socket").getpeername()[0]
                if not bounds.address_allowed(peer, host):
                    stream.close()
                    raise RefusedByBounds(f"{host}: connected peer {peer} is not a public address")
                return _DeadlineStream(stream)
            if last is not None:
                raise last
            raise httpcore.ConnectError(f"{host}:{port}: no address to connect to")

    return _GuardedBackend()


@functools.lru_cache(maxsize=1)
def _guarded_transport_class():
    import httpcore
    import httpx

    class GuardedTransport(httpx.HTTPTransport):
        def __init__(self, bounds: Bounds, deadline: float | None = None) -> None:
            super().__init__(trust_env=False)
            # Same pool httpx builds, with our network backend: the one place a socket is opened.
            self._pool = httpcore.ConnectionPool(
                ssl_context=httpx.create_ssl_context(trust_env=False),
                max_connections=4,
                max_keepalive_connections=0,
                network_backend=_guarded_backend(bounds, deadline),
            )

    return GuardedTransport
