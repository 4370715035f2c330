"""Helpers shared by the reliability and security tests (not a test module).

`run_cli` runs the real command line in-process with its own stdin/stdout/stderr; `run_proc`
runs `python -m semantic_rdf` in a child process; `dump` is the store's quads as sorted N-Quads
lines (what "byte-identical before and after" compares); `refused` runs one bad-input case and checks
both promises at once: a one-line refusal (exit 2) and a store whose every quad, run activities
included, is what it was before.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from semantic_rdf import cli
from semantic_rdf.store.readers import read_only

REPO = Path(__file__).resolve().parent.parent

# Names that carry SPARQL / IRI / N-Quads metacharacters, control and bidi characters.
HOSTILE = [
    "a>b",
    "<https://w3id.org/semantic-rdf/graph/provenance>",
    'x" . <urn:evil> <urn:p> "y',
    'q"',
    "} ; DROP ALL ; INSERT DATA { <urn:a> <urn:b> <urn:c> } #",
    "}}}}",
    "#not a comment",
    "line\nbreak",
    "carriage\r\nreturn",
    "nul\x00byte",
    "rtl\u202eevil\u202c",
    "?s",
    "$o ?p",
    "' OR '1'='1",
    '"""triple"""',
    "\\u0022escaped\\u003e",
    "%3E%22%7D",
    "a\tb\x0bc",
    "\u2028sep\u2029",
    "zero\u200bwidth\ufeff",
    "@prefix x: <urn:x> .",
    "_:blank",
    "urn:x",
    "https://evil.example/?q=1#f",
    "../../etc/passwd",
    "ἀλφα Ωμέγα",
    "İstanbul ΣΊΣΥΦΟΣ",
    "x" * 1000,  # a long name at the limit (values.MAX_NAME); one more is refused (tests/test_limits.py)
]


@dataclass
class Out:
    rc: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


def run_cli(store: str | os.PathLike | None, *argv: str, stdin: bytes | None = None) -> Out:
    """`semantic-rdf [--store STORE] argv…` in this process; SystemExit (argparse) becomes the exit code."""
    full = (["--store", str(store)] if store is not None else []) + list(argv)
    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", errors="backslashreplace", write_through=True)
    err = io.TextIOWrapper(err_b, encoding="utf-8", errors="backslashreplace", write_through=True)
    old_in = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(full)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        sys.stdin = old_in
    out.flush()
    err.flush()
    return Out(rc, out_b.getvalue().decode("utf-8", "replace"), err_b.getvalue().decode("utf-8", "replace"))


def run_proc(store: str | os.PathLike | None, *argv: str | bytes, stdin: bytes | None = None, timeout: float = 60) -> Out:
    """`python -m semantic_rdf …` in a child process (argv may be bytes: not valid UTF-8)."""
    env = dict(os.environ, PYTHONPATH=str(REPO), SEMANTIC_RDF_DEBUG="")
    env.pop("SEMANTIC_RDF_DEBUG")
    cmd = [sys.executable, "-m", "semantic_rdf"] + (["--store", str(store)] if store is not None else []) + list(argv)
    r = subprocess.run(
        [os.fsencode(c) if isinstance(c, str) else c for c in cmd], input=stdin or b"", capture_output=True, env=env, timeout=timeout, cwd=str(REPO)
    )
    return Out(r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"))


def dump(store: str | os.PathLike) -> list[str]:
    """Every quad of an on-disk store as sorted N-Quads lines (opened read-only, so it never writes). A test may
    dump while its own writer is open; the library's read-only open retries when the writer's compaction
    deletes a file between RocksDB's reading its list and opening it (CI hit that once with a bare open)."""
    data = Path(store) / "oxigraph"
    if not data.exists():
        return []
    with read_only(data, Path(store)) as st:
        text = st.dump(format=ox.RdfFormat.N_QUADS).decode("utf-8")
    return sorted(line for line in text.splitlines() if line)


def quads(store: str | os.PathLike) -> set[ox.Quad]:
    data = Path(store) / "oxigraph"
    with read_only(data, Path(store)) as st:
        return set(st.quads_for_pattern(None, None, None, None))


def assert_refused(r: Out, *, code: int = 2) -> None:
    """A refusal as the CLI promises it: exit 2, exactly one line on stderr, no traceback."""
    assert r.rc == code, f"exit {r.rc}, stderr {r.err!r}"
    assert "Traceback" not in r.err and "Traceback" not in r.out, r.err
    lines = r.err_lines
    assert len(lines) == 1, f"expected one stderr line, got {lines!r}"
    if lines[0].startswith("{"):  # under --json the line is {"error": …, "kind": …, "exit": …}
        err = json.loads(lines[0])
        assert err["error"] and err["exit"] == code and err["kind"] != "InternalError", lines[0]
        return
    assert lines[0].startswith("semantic-rdf") and "internal error" not in lines[0], lines[0]


def refused(store: str | os.PathLike, *argv: str | bytes, stdin: bytes | None = None, child: bool = False) -> Out:
    """Run one case that must be refused and check it was, cleanly: exit 2 with one line on stderr (never
    "internal error"), and the raw sorted quad dump of `store` (every graph, run activities and agents
    included) identical before and after. `child` runs it as a real process (argv may then be bytes)."""
    before = dump(store)
    r = run_proc(store, *argv, stdin=stdin) if child else run_cli(store, *argv, stdin=stdin)  # type: ignore[arg-type]
    assert_refused(r)
    after = dump(store)
    assert after == before, f"a refused case changed the store: +{sorted(set(after) - set(before))[:5]} -{sorted(set(before) - set(after))[:5]}"
    return r


def gzip_bomb(size: int, layers: int = 1) -> bytes:
    """`size` spaces (JSON and N-Quads whitespace) gzipped `layers` times, built a MiB at a time: 1 GB in
    one layer is about 1 MB, in two about 1.5 KB."""
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    mib = b" " * (1 << 20)
    body = b"".join(z.compress(mib) for _ in range(size >> 20)) + z.flush()
    for _ in range(layers - 1):
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        body = z.compress(body) + z.flush()
    return body


_BOUNDED = r"""
import json, resource, sys, time, tracemalloc
setup, call = sys.argv[1], sys.argv[2]
ns = {}
exec(setup, ns)  # imports, and one ordinary request: what is loaded once is not counted
def vm():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
hard = resource.getrlimit(resource.RLIMIT_AS)[1]
resource.setrlimit(resource.RLIMIT_AS, (vm() + (1 << 30), hard))  # an unbounded client fails here, not the machine
tracemalloc.start()
t = time.monotonic()
try:
    exec(call, ns)
    out = {"error": None, "message": ""}
except BaseException as e:
    out = {"error": type(e).__name__, "message": str(e)}
out["seconds"] = time.monotonic() - t
out["peak"] = tracemalloc.get_traced_memory()[1]
out["grew"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) * 1024
print(json.dumps(out))
"""


def run_bounded(setup: str, call: str, timeout: float = 120) -> dict:
    """Run the Python source `setup`, then `call`, in a child process and say how `call` ended: {"error": the
    exception's class name or None, "message", "seconds" it took, "peak": bytes Python held at most
    (tracemalloc), "grew": how much the peak resident size grew (getrusage)}. The child's address space is
    limited to 1 GiB more than after `setup`, so a client that inflates without bound fails with MemoryError
    instead of taking the machine's memory. Linux only (/proc)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-c", _BOUNDED, setup, call], capture_output=True, text=True, env=env, timeout=timeout, cwd=str(REPO))
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])
