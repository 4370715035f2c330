"""push / pull between the embedded store and a remote triplestore.

push loads every quad of the store's named graphs (all under https://w3id.org/semantic-rdf/) into
the endpoint and then checks that the endpoint holds exactly as many quads under that prefix.
A full push first drops the endpoint's graphs under the prefix, so the endpoint ends equal to the
store. `since_last=True` sends only what changed since the last push to the same endpoint.

Change tracking is by "molecule": all quads of one subject in one graph. The push state, kept in
<store>/push-state/, is one 64-bit digest per molecule plus the molecule's graph and subject IRIs:
no literal, so erased text never survives in it. A changed or vanished molecule is removed remotely
with `DELETE WHERE { GRAPH <g> { <s> ?p ?o } }` (plain SPARQL 1.1) and re-sent whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import tempfile
import time
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput, PushMismatch
from semantic_rdf.rdf.ntriples import follow_dump
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.remote.sparql import (
    BLOCK,
    NS_PREFIX,
    Endpoint,
    RemoteBackend,
    iri,
    line_blocks,
    split_lines,
    term,
)

__all__ = ["PushReport", "PushMismatch", "push", "pull", "local_nquads", "export_nquads", "nquads_blocks", "molecules", "as_shapes_require"]


@dataclass(frozen=True)
class PushReport:
    endpoint: str
    mode: str  # "full" | "incremental"
    sent: int  # quads loaded
    removed: int  # molecules deleted remotely before re-sending
    local: int  # quads in the store under the prefix
    remote: int  # quads at the endpoint under the prefix, after the push
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _readable(store: AssertionStore | ox.Store) -> AssertionStore:
    """The store to read: an AssertionStore, or a bare pyoxigraph Store read as one."""
    return store if isinstance(store, AssertionStore) else AssertionStore(store, None, read_only=True)


def _only_prefix(st: AssertionStore, prefix: str) -> bool:
    """Whether every quad of the store is in a named graph under `prefix` (then its own dump is the export)."""
    in_default = next(iter(st.quads(None, None, None, ox.DefaultGraph())), None) is not None
    return not in_default and all(isinstance(g, ox.NamedNode) and g.value.startswith(prefix) for g in st.named_graphs())


def _under_prefix(st: AssertionStore, prefix: str) -> list[ox.Quad]:
    return [
        q  # type: ignore[misc]  # a StoredQuad is a pyoxigraph Quad at run time
        for q in st.quads()
        if not isinstance(q.graph_name, ox.DefaultGraph) and q.graph_name.value.startswith(prefix)
    ]


def refuse_blank_nodes(data) -> None:
    """Raise InvalidInput if the N-Quads in `data` (bytes or an mmap) hold a blank node. A "_:" inside a
    literal is fine: only the lines holding one are parsed, to be sure."""
    at = data.find(b"_:")
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end == -1 else end
        for q in ox.parse(data[start:end], format=ox.RdfFormat.N_QUADS):
            if isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode) or isinstance(q.graph_name, ox.BlankNode):
                raise InvalidInput("the store holds blank nodes, which cannot be pushed (skolemise them)")
        at = data.find(b"_:", end)


def local_nquads(store: AssertionStore | ox.Store, prefix: str = NS_PREFIX) -> bytes:
    """The store's quads in named graphs under `prefix`, as N-Quads (native dump when nothing else is there)."""
    st = _readable(store)
    if _only_prefix(st, prefix):
        data = st.dump(format=ox.RdfFormat.N_QUADS)
    else:
        data = ox.serialize(_under_prefix(st, prefix), format=ox.RdfFormat.N_QUADS)
    assert data is not None  # given no output, a dump returns its bytes
    refuse_blank_nodes(data)
    return data


def export_nquads(store: AssertionStore | ox.Store, path: str | os.PathLike, prefix: str = NS_PREFIX) -> int:
    """Write the store's quads in named graphs under `prefix` to the file `path` as N-Quads and return how
    many: Oxigraph's own dump straight to the file when the store holds nothing else (no Python objects)."""
    st = _readable(store)
    if _only_prefix(st, prefix):
        st.dump(os.fspath(path), format=ox.RdfFormat.N_QUADS)
        n = st.quad_count()
    else:
        quads = _under_prefix(st, prefix)
        ox.serialize(quads, os.fspath(path), format=ox.RdfFormat.N_QUADS)
        n = len(quads)
    if n:
        import mmap

        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            refuse_blank_nodes(m)
    return n


def nquads_blocks(store: AssertionStore | ox.Store, prefix: str = NS_PREFIX, size: int = BLOCK) -> Generator[bytes, None, None]:
    """The store's quads in named graphs under `prefix` as N-Quads in blocks of whole lines, handed out
    while Oxigraph is still writing them: it dumps to a private temporary file on a thread of its own
    (a dump to a path runs without the GIL) and the file is read as it grows, so a consumer (a server
    loading the blocks) works alongside the export. InvalidInput at the first block with a blank node."""
    st = _readable(store)
    fd, path = tempfile.mkstemp(prefix="semantic-rdf-", suffix=".nq")
    os.close(fd)
    try:
        if _only_prefix(st, prefix):
            chunks = follow_dump(st, path, size)
        else:
            ox.serialize(_under_prefix(st, prefix), path, format=ox.RdfFormat.N_QUADS)
            chunks = _file_chunks(path, size)
        try:
            for block in line_blocks(chunks):
                refuse_blank_nodes(block)
                yield block
        finally:
            chunks.close()  # waits for the dump when the consumer stopped early
    finally:
        os.unlink(path)


def _file_chunks(path: str, size: int) -> Generator[bytes, None, None]:
    with open(path, "rb", buffering=0) as f:
        yield from iter(lambda: f.read(size), b"")


_MASK = (1 << 64) - 1


def _molecule(line: bytes) -> tuple[bytes, int]:
    """The (graph, subject) key of an N-Quads line and the line's 64-bit hash."""
    s = line[: line.index(b" ")]
    g = line[line.rindex(b" <", 0, len(line) - 1) + 1 : line.rindex(b">") + 1]
    return g + b" " + s, int.from_bytes(hashlib.blake2b(line, digest_size=8).digest(), "little")


def molecules(lines: list[bytes]) -> tuple[dict[bytes, int], dict[bytes, list[int]]]:
    """Digest (sum of 64-bit line hashes, order-free) and line numbers per (graph, subject) key."""
    digest: dict[bytes, int] = {}
    members: dict[bytes, list[int]] = {}
    for i, line in enumerate(lines):
        key, h = _molecule(line)
        digest[key] = (digest.get(key, 0) + h) & _MASK
        members.setdefault(key, []).append(i)
    return digest, members


def _digest_blocks(blocks: queue.Queue[bytes | None]) -> dict[bytes, int]:
    """The molecule digests of the N-Quads blocks taken from `blocks` until None (order-free sums)."""
    digest: dict[bytes, int] = {}
    while (block := blocks.get()) is not None:
        for line in split_lines(block):
            key, h = _molecule(line)
            digest[key] = (digest.get(key, 0) + h) & _MASK
    return digest


# ----------------------------------------------------------------------------------------------
# push state on disk


def _state_paths(state_dir: Path, endpoint: Endpoint) -> tuple[Path, Path]:
    name = hashlib.sha256(endpoint.key.encode()).hexdigest()[:16]
    return state_dir / f"{name}.npy", state_dir / f"{name}.keys"


def _load_state(state_dir: Path, endpoint: Endpoint) -> dict[bytes, int] | None:
    dig_path, key_path = _state_paths(state_dir, endpoint)
    if not (dig_path.exists() and key_path.exists()):
        return None
    digests = np.load(dig_path)
    keys = key_path.read_bytes().split(b"\n")[:-1]
    if len(keys) != len(digests):
        return None  # torn state: fall back to a full push
    return dict(zip(keys, (int(d) for d in digests)))


def _save_state(state_dir: Path, endpoint: Endpoint, digest: dict[bytes, int], report: PushReport) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    dig_path, key_path = _state_paths(state_dir, endpoint)
    keys = list(digest)
    tmp_d, tmp_k = dig_path.with_suffix(".npy.tmp"), key_path.with_suffix(".keys.tmp")
    with open(tmp_d, "wb") as f:
        np.save(f, np.fromiter((digest[k] for k in keys), dtype=np.uint64, count=len(keys)))
    tmp_k.write_bytes(b"".join(k + b"\n" for k in keys))
    os.replace(tmp_d, dig_path)
    os.replace(tmp_k, key_path)
    index_path = state_dir / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    index[endpoint.key] = {"file": dig_path.stem, **report.as_dict()}
    tmp = index_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(index, indent=2, sort_keys=True))
    os.replace(tmp, index_path)


def _forget_state(state_dir: Path, endpoint: Endpoint) -> None:
    for path in _state_paths(state_dir, endpoint):
        if path.exists():
            path.unlink()


def default_state_dir(store: AssertionStore | ox.Store) -> Path | None:
    path = store.path if isinstance(store, AssertionStore) else None
    return Path(path) / "push-state" if path is not None else None


# ----------------------------------------------------------------------------------------------


def push(
    store: AssertionStore | ox.Store,
    endpoint: str | Endpoint,
    *,
    since_last: bool = False,
    state_dir: str | Path | None = None,
    prefix: str = NS_PREFIX,
    backend: RemoteBackend | None = None,
    track: bool | None = None,
    progress: Callable[[int], object] | None = None,
) -> PushReport:
    """Load the store into the endpoint (all of it, or what changed since the last push there) and verify counts.

    Change tracking (the per-molecule digests a later `since_last` push compares with) is kept when `track`
    is true, by default only for a `since_last` push; a full push without it forgets any earlier state
    for the endpoint, so a later `since_last` push starts with a full one instead of diffing stale state."""
    t0 = time.perf_counter()
    ep = Endpoint.parse(endpoint) if isinstance(endpoint, str) else endpoint
    sdir = Path(state_dir) if state_dir is not None else default_state_dir(store)
    remote = backend or RemoteBackend(ep)
    if track is None:
        track = since_last
    try:
        previous = _load_state(sdir, ep) if (since_last and sdir is not None) else None
        need_digest = bool(track) and sdir is not None
        digest: dict[bytes, int] = {}
        if previous is None:
            mode, removed = "full", 0
            remote.drop(prefix)
            # Counting every quad is cheap (an index count), testing every quad's graph IRI against the prefix
            # is not (docs/stores.md): so the check is the growth of the total over the load (the prefix was
            # just emptied), and only when that disagrees is the exact count under the prefix asked for.
            before = remote.count_all() if hasattr(remote, "count_all") else None
            if getattr(remote, "loads_blocks", False):
                n_local, digest = _stream_full(store, remote, prefix, need_digest, progress)
                sent = n_local
            else:
                data = local_nquads(store, prefix)
                lines = split_lines(data)
                n_local = len(lines)
                digest = molecules(lines)[0] if need_digest else {}
                sent = remote.load(data) if lines else 0
            n_remote = None
            if before is not None:
                grown = remote.count_all() - before
                n_remote = grown if grown == n_local else None
            if n_remote is None:
                n_remote = remote.count(prefix)
        else:
            lines = split_lines(local_nquads(store, prefix))
            n_local = len(lines)
            digest, members = molecules(lines)
            mode = "incremental"
            changed = [k for k, d in digest.items() if previous.get(k) != d]
            gone = [k for k in previous if k not in digest]
            stale = [k for k in changed if k in previous] + gone
            _delete_molecules(remote, stale)
            removed = len(stale)
            chosen = sorted(i for k in changed for i in members[k])
            sent = remote.load(b"".join(lines[i] + b"\n" for i in chosen)) if chosen else 0
            n_remote = remote.count(prefix)
        report = PushReport(ep.key, mode, sent, removed, n_local, n_remote, time.perf_counter() - t0)
        if n_remote != n_local:
            raise PushMismatch(f"after the push {ep.query_url} holds {n_remote} quads under {prefix}, the store {n_local}")
        if sdir is not None:
            if need_digest:
                _save_state(sdir, ep, digest, report)
            else:
                _forget_state(sdir, ep)
        return report
    finally:
        if backend is None:
            remote.close()


def _counted(blocks: Iterable[bytes], progress: Callable[[int], object]) -> Iterator[bytes]:
    for block in blocks:
        yield block
        progress(block.count(b"\n"))


def _stream_full(
    store: AssertionStore | ox.Store, remote: RemoteBackend, prefix: str, need_digest: bool, progress: Callable[[int], object] | None = None
) -> tuple[int, dict[bytes, int]]:
    """Stream the store's export into the server while it is written (see nquads_blocks and
    RemoteBackend.load_blocks); the digests, when wanted, are folded on a thread of their own.
    Lenient: the N-Quads are Oxigraph's own, and push checks the count afterwards."""
    blocks = nquads_blocks(store, prefix)
    sent = _counted(blocks, progress) if progress is not None else blocks
    try:
        if not need_digest:
            return remote.load_blocks(sent, lenient=True), {}
        copies: queue.Queue = queue.Queue(16)
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(_digest_blocks, copies)
            try:
                n = remote.load_blocks(_teed(sent, copies), lenient=True)
            finally:
                copies.put(None)
            return n, pending.result()
    except InvalidInput:
        remote.drop(prefix)  # what went before the refused block: the endpoint ends as the drop left it
        raise
    finally:
        blocks.close()  # a load that stopped early: wait for the dump, remove its file


def _teed(blocks: Iterable[bytes], copies: queue.Queue) -> Iterator[bytes]:
    for block in blocks:
        copies.put(block)
        yield block


def _delete_molecules(remote: RemoteBackend, keys: list[bytes], per_request: int = 50) -> None:
    ops = []
    for k in keys:
        g, s = k.decode("utf-8").split(" ", 1)
        ops.append(f"DELETE WHERE {{ GRAPH {term(iri(g[1:-1]))} {{ {term(iri(s[1:-1]))} ?p ?o }} }}")
    for i in range(0, len(ops), per_request):
        remote._post_update(" ;\n".join(ops[i : i + per_request]))


def pull(store: AssertionStore | ox.Store, endpoint: str | Endpoint, *, prefix: str = NS_PREFIX, on_erased: str = "refuse", on_skipped=None) -> int:
    """Copy the endpoint's quads under `prefix` into the store (through its import, so shapes are checked).
    Tombstones win: data of erased assertions or documents is refused (ErasedData) or, on_erased='skip',
    left out and passed to `on_skipped` (a tombstones.Screened) — tombstones.screen decides which."""
    remote = RemoteBackend(endpoint)
    try:
        quads = remote.dump(prefix)
    finally:
        remote.close()
    if not quads:
        return 0
    quads = as_shapes_require(quads)
    data = ox.serialize(quads, format=ox.RdfFormat.N_QUADS)
    assert data is not None  # given no output, serialize returns its bytes
    if isinstance(store, AssertionStore):
        n, skipped = store.import_report(data, "nquads", on_erased=on_erased)
        if skipped and on_skipped is not None:
            on_skipped(skipped)
        return n
    store.extend(quads)  # a bare pyoxigraph Store: a copy, unchecked
    return len(quads)


# ----------------------------------------------------------------------------------------------
# literals as a server hands them back

_XSD = "http://www.w3.org/2001/XMLSchema#"
_NUMERIC = frozenset(
    _XSD + t
    for t in (
        "decimal",
        "integer",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
)
_DATETIME = re.compile(r"(-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?")
_DT_NODES = {t: ox.NamedNode(_XSD + t) for t in ("decimal", "integer", "boolean", "dateTime")}


_MAX_NUMERAL = 100  # characters of a number a server hands back, and the most digits its canonical form may have


def _canonical_lexical(value: str, source: str, target: str) -> str | None:
    """The canonical lexical form (Oxigraph's) of `value`, typed `source`, as a `target` literal; None when
    it is not one, or is no number of at most _MAX_NUMERAL digits either side of the point (the literal is
    then left as it is, and the shapes refuse it with their own message)."""
    from decimal import Context, Decimal, InvalidOperation

    v = value.strip()
    if target in (_XSD + "decimal", _XSD + "integer") and source in _NUMERIC:
        if len(v) > _MAX_NUMERAL:
            return None
        try:
            d = Decimal(v)
        except InvalidOperation:
            return None
        # bounded before any conversion: "1E10000000" is a short string whose integer has ten million
        # digits (int() of it ran for ever), and its plain form as many characters
        if not d.is_finite() or abs(d.adjusted()) > _MAX_NUMERAL:
            return None
        if d == d.to_integral_value():
            return str(int(d))
        # normalised with room for every digit: the default context's 28 would round a longer decimal
        return None if target == _XSD + "integer" else format(d.normalize(Context(prec=_MAX_NUMERAL + 1)), "f")
    if target == _XSD + "boolean" and (source == target or source in _NUMERIC):
        return {"true": "true", "1": "true", "false": "false", "0": "false"}.get(v)
    if target == _XSD + "dateTime" and source == target:
        m = _DATETIME.fullmatch(v)
        if m is None:
            return None
        frac = (m.group(2) or "").rstrip("0")
        tz = m.group(3) or ""
        return m.group(1) + (frac if frac != "." else "") + ("Z" if tz in ("+00:00", "-00:00") else tz)
    return None


def as_shapes_require(quads: Iterable[ox.Quad]) -> list[ox.Quad]:
    """`quads` with each literal given back the datatype the shapes require of its predicate, in the canonical
    lexical form the embedded store writes, where the value is the same: Virtuoso 7 hands "1"^^xsd:decimal back
    as "1"^^xsd:integer, true as "1"^^xsd:boolean, and pads dateTime fractions to three or six digits. Only
    value-preserving changes are made (3.5 never becomes an integer; "abc" stays as it is and the shapes refuse
    it); literals of predicates the shapes give no datatype keep their datatype, in canonical form."""
    from semantic_rdf.rdf.shapes import required_datatypes  # rdflib: only when pulling

    want = required_datatypes()
    out = []
    for q in quads:
        o = q.object
        if isinstance(o, ox.Literal) and not o.language:
            source = o.datatype.value
            target = want.get(q.predicate.value, source)
            short = target[len(_XSD) :] if target.startswith(_XSD) else None
            if short in _DT_NODES:
                lexical = _canonical_lexical(o.value, source, target)
                if lexical is not None and (lexical != o.value or target != source):
                    q = ox.Quad(q.subject, q.predicate, ox.Literal(lexical, datatype=_DT_NODES[short]), q.graph_name)
        out.append(q)
    return out
