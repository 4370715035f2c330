"""The three store interfaces of HIP-0526 §4 and their in-memory and file-backed implementations.

Vector  put(id, vector, meta)        near(vector, k, filter) -> [Match]
Graph   node(id, props)  edge(from_, to, label)  out(id, label) -> [id]
Triple  assert_(s, p, o)              match(s, p, o) -> [(s, p, o)]   (None is a wildcard)

The metadata filter is part of the vector interface (§4.1): a `Filter` is a tuple of `Cond`s,
all of which must hold. Ops: eq ne lt le gt ge in has. A field that is absent (or null) fails
every op, so `ne` means "present and different". Numbers compare across int and float; a bool is
not a number. `has` is substring for strings and membership for lists. Ordering ops compare
numbers with numbers and strings with strings; any other pairing fails the row (never raises).

MemoryVectorStore keeps a float64 matrix of unit rows and one column per metadata field
(a float column for numbers, a dictionary-encoded column for strings and bools, an object
column for lists), so common filters are numpy masks and the scan is one mat-vec over the rows
the filter kept. Ranking is exact: cosine, ties broken by id, the same as a brute-force sort.

File-backed stores keep their rows in SQLite and validate every write completely before
anything reaches disk, so a rejected write leaves nothing behind and reopening always works.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from semantic_rdf.core.errors import InvalidInput, NotFound

__all__ = [
    "Cond",
    "Filter",
    "Match",
    "OPS",
    "Vector",
    "Graph",
    "Triple",
    "VectorStore",
    "GraphStore",
    "TripleStore",
    "MemoryVectorStore",
    "MemoryGraphStore",
    "MemoryTripleStore",
    "FileVectorStore",
    "FileGraphStore",
    "FileTripleStore",
    "where",
    "matches",
    "brute_force_near",
]

OPS = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "in", "has"})
_ORDER_OPS = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}
_EXACT_FLOAT_INT = 2**53  # beyond this an int does not survive a float64 column


# ----------------------------------------------------------------------------------------------
# values


@dataclass(frozen=True, slots=True)
class Cond:
    """One condition of a filter: `meta[field] <op> value`."""

    field: str
    op: str
    value: Any

    def __post_init__(self) -> None:
        if not isinstance(self.field, str) or not self.field:
            raise InvalidInput("a filter condition needs a non-empty field name")
        if self.op not in OPS:
            raise InvalidInput(f"unknown filter op {self.op!r}; expected one of {sorted(OPS)}")
        v = self.value
        if self.op == "in":
            if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple, set, frozenset)):
                raise InvalidInput(f"filter op 'in' on {self.field!r} needs a list of values")
            object.__setattr__(self, "value", tuple(v))
            for x in self.value:
                _check_scalar(x, self.field)
        elif self.op in _ORDER_OPS:
            if not (_is_num(v) or isinstance(v, str)):
                raise InvalidInput(f"filter op {self.op!r} on {self.field!r} needs a number or a string")
        else:
            _check_scalar(v, self.field)


Filter = tuple[Cond, ...]


def where(**conds: Any) -> Filter:
    """Shorthand: where(space="alice", n__ge=3) -> (Cond("space","eq","alice"), Cond("n","ge",3))."""
    out = []
    for key, value in conds.items():
        name, _, op = key.partition("__")
        out.append(Cond(name, op or "eq", value))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Match:
    """One hit of a vector search: the id, its cosine to the query, and its metadata (read-only)."""

    id: str
    score: float
    meta: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


# ----------------------------------------------------------------------------------------------
# interfaces


@runtime_checkable
class Vector(Protocol):
    def put(self, id: str, vector: np.ndarray, meta: Mapping[str, Any]) -> None: ...
    def near(self, vector: np.ndarray, k: int, filter: Filter | None = None) -> list[Match]: ...


@runtime_checkable
class Graph(Protocol):
    def node(self, id: str, props: Mapping[str, Any]) -> None: ...
    def edge(self, from_: str, to: str, label: str) -> None: ...
    def out(self, id: str, label: str | None = None) -> list[str]: ...


@runtime_checkable
class Triple(Protocol):
    def assert_(self, s: str, p: str, o: str) -> None: ...
    def match(self, s: str | None = None, p: str | None = None, o: str | None = None) -> list[tuple[str, str, str]]: ...


# Longer names for code that also imports values.Triple.
VectorStore, GraphStore, TripleStore = Vector, Graph, Triple


# ----------------------------------------------------------------------------------------------
# filter semantics (the scalar definition; the columns below must agree with it)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v))


def _check_scalar(v: Any, fieldname: str) -> None:
    if v is None or isinstance(v, (str, bool)) or _is_num(v):
        return
    raise InvalidInput(f"filter value for {fieldname!r} must be a string, number or bool, got {type(v).__name__}")


def _same(a: Any, b: Any) -> bool:
    if _is_num(a) and _is_num(b):
        return a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return type(a) is type(b) and a == b


def _test(op: str, have: Any, want: Any) -> bool:
    if have is None:
        return False
    if op == "eq":
        return _same(have, want)
    if op == "ne":
        return not _same(have, want)
    if op == "in":
        return any(_same(have, w) for w in want)
    if op == "has":
        if isinstance(have, str):
            return isinstance(want, str) and want in have
        if isinstance(have, list):
            return any(_same(x, want) for x in have)
        return False
    if _is_num(have) and _is_num(want):
        return bool(_ORDER_OPS[op](have, want))
    if isinstance(have, str) and isinstance(want, str):
        return bool(_ORDER_OPS[op](have, want))
    return False


def matches(meta: Mapping[str, Any], flt: Filter | None) -> bool:
    """Does one metadata mapping pass the filter (the reference semantics, row by row)."""
    return all(_test(c.op, meta.get(c.field), c.value) for c in (flt or ()))


def _clean_meta(meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """A JSON-safe copy of the metadata; lists stay lists, nested mappings are refused in filters but kept."""
    if meta is None:
        return {}
    if not isinstance(meta, Mapping):
        raise InvalidInput(f"metadata must be a mapping, got {type(meta).__name__}")
    out = {}
    for k, v in meta.items():
        if not isinstance(k, str):
            raise InvalidInput(f"metadata keys must be strings, got {k!r}")
        out[k] = v
    try:
        return json.loads(json.dumps(out, allow_nan=False, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"metadata is not JSON-serialisable: {exc}") from None


def _check_id(id: Any, what: str = "id") -> str:
    if not isinstance(id, str) or not id:
        raise InvalidInput(f"{what} must be a non-empty string, got {id!r}")
    return id


# ----------------------------------------------------------------------------------------------
# metadata columns


def _elem_key(x: Any) -> tuple[str, Any] | None:
    """The inverted-index key of a list element under `_same`: numbers compare across int and
    float (1 and 1.0 share a key: equal tuples hash equal), a bool is not a number, None equals
    None. Anything else (a nested list or mapping) can never equal a filter value: no key."""
    if isinstance(x, bool):
        return ("b", x)
    if _is_num(x):
        return ("n", x)
    if isinstance(x, str):
        return ("s", x)
    if x is None:
        return ("z", None)
    return None


class _Column:
    """One metadata field over all rows, in three typed views, plus an inverted index of list
    elements (element key -> rows whose list holds it) so `has` on a list field is a lookup."""

    __slots__ = ("num", "cat", "obj", "has_obj", "big_int", "lists")

    def __init__(self, cap: int):
        self.num = np.full(cap, np.nan)  # numbers (not bools)
        self.cat = np.full(cap, -1, dtype=np.int32)  # code of a (kind, value) for str / bool
        self.obj: dict[int, Any] = {}  # rows holding lists or other values
        self.has_obj = False
        self.big_int = False
        self.lists: dict[tuple[str, Any], set[int]] = {}

    def grow(self, cap: int) -> None:
        n = len(self.num)
        self.num = np.concatenate([self.num, np.full(cap - n, np.nan)])
        self.cat = np.concatenate([self.cat, np.full(cap - n, -1, dtype=np.int32)])

    def set_obj(self, row: int, v: Any) -> None:
        self._unindex(row)
        self.obj[row] = v
        self.has_obj = True
        if isinstance(v, list):
            for x in v:
                key = _elem_key(x)
                if key is not None:
                    self.lists.setdefault(key, set()).add(row)

    def _unindex(self, row: int) -> None:
        v = self.obj.get(row)
        if isinstance(v, list):
            for x in v:
                key = _elem_key(x)
                rows = self.lists.get(key) if key is not None else None
                if key is not None and rows is not None:
                    rows.discard(row)
                    if not rows:
                        del self.lists[key]

    def list_rows(self, value: Any, n: int) -> np.ndarray:
        """Rows (< n) whose list holds an element equal to `value` (the `_same` rule)."""
        key = _elem_key(value)
        rows = self.lists.get(key) if key is not None else None
        if not rows:
            return np.zeros(0, dtype=np.int64)
        idx = np.fromiter(rows, dtype=np.int64, count=len(rows))
        return idx[idx < n]

    def clear(self, row: int) -> None:
        self.num[row] = np.nan
        self.cat[row] = -1
        self._unindex(row)
        self.obj.pop(row, None)

    def move(self, src: int, dst: int) -> None:
        self.num[dst] = self.num[src]
        self.cat[dst] = self.cat[src]
        if src in self.obj:
            v = self.obj[src]
            self.clear(src)
            self.set_obj(dst, v)
        else:
            self._unindex(dst)
            self.obj.pop(dst, None)
        self.clear(src)

    def present(self, n: int) -> np.ndarray:
        p = ~np.isnan(self.num[:n]) | (self.cat[:n] >= 0)
        if self.obj:
            rows = np.fromiter(self.obj.keys(), dtype=np.int64)
            p[rows[rows < n]] = True
        return p


class _Codes:
    """Dictionary encoding of string and bool values, shared by every column of one store."""

    def __init__(self) -> None:
        self.index: dict[tuple[str, Any], int] = {}
        self.values: list[tuple[str, Any]] = []

    def code(self, v: Any) -> int:
        key = ("b" if isinstance(v, bool) else "s", v)
        c = self.index.get(key)
        if c is None:
            c = self.index[key] = len(self.values)
            self.values.append(key)
        return c

    def lookup(self, v: Any) -> int:
        if isinstance(v, bool):
            return self.index.get(("b", v), -1)
        if isinstance(v, str):
            return self.index.get(("s", v), -1)
        return -1

    def table(self, pred) -> np.ndarray:
        """A bool per code: does `pred(value)` hold. Cost is per distinct value, not per row."""
        return np.fromiter((pred(v) for _, v in self.values), dtype=bool, count=len(self.values))

    def strings(self) -> np.ndarray:
        return np.fromiter((k == "s" for k, _ in self.values), dtype=bool, count=len(self.values))


# ----------------------------------------------------------------------------------------------
# vectors in memory


def _as_matrix(vectors: Any, dim: int | None) -> np.ndarray:
    try:
        m = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput("a vector must be a sequence of numbers") from None
    if m.ndim == 1:
        m = m[None, :]
    if m.ndim != 2 or m.shape[1] == 0:
        raise InvalidInput(f"a vector must be one-dimensional and non-empty, got shape {np.shape(vectors)}")
    if dim is not None and m.shape[1] != dim:
        raise InvalidInput(f"vector has dimension {m.shape[1]}, this store holds dimension {dim}")
    if not np.isfinite(m).all():
        raise InvalidInput("a vector holds NaN or infinity")
    norms = np.linalg.norm(m, axis=1)
    if (norms == 0).any():
        raise InvalidInput("a zero vector has no direction (cosine is undefined)")
    return m / norms[:, None]


class MemoryVectorStore:
    """Exact cosine top-k over a numpy matrix, with the metadata filter applied before ranking."""

    def __init__(self, dim: int | None = None):
        self.dim = dim
        self._cap = 0
        self._n = 0
        self._mat = np.zeros((0, dim or 0))
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._meta: list[dict[str, Any]] = []
        self._cols: dict[str, _Column] = {}
        self._codes = _Codes()

    # -- writes ------------------------------------------------------------------------------
    def put(self, id: str, vector: np.ndarray, meta: Mapping[str, Any] | None = None) -> None:
        self.put_many([id], np.asarray(vector)[None, :] if np.ndim(vector) == 1 else vector, [meta or {}])

    def put_many(self, ids: Sequence[str], vectors: np.ndarray, metas: Sequence[Mapping[str, Any]] | None = None) -> None:
        """Insert or replace many rows at once; all validated before any is applied."""
        checked, mat, checked_metas = self._prepare(ids, vectors, metas)
        self._apply(checked, mat, checked_metas)

    def _prepare(self, ids, vectors, metas):
        ids = [_check_id(i) for i in ids]
        if len(set(ids)) != len(ids):
            raise InvalidInput("the same id appears twice in one batch")
        mat = _as_matrix(vectors, self.dim)
        if mat.shape[0] != len(ids):
            raise InvalidInput(f"{len(ids)} ids but {mat.shape[0]} vectors")
        metas = [{} for _ in ids] if metas is None else [_clean_meta(m) for m in metas]
        if len(metas) != len(ids):
            raise InvalidInput(f"{len(ids)} ids but {len(metas)} metadata mappings")
        return ids, mat, metas

    def _apply(self, ids: list[str], mat: np.ndarray, metas: list[dict[str, Any]]) -> None:
        if self.dim is None:
            self.dim = mat.shape[1]
            self._mat = np.zeros((0, self.dim))
        new = [i for i in ids if i not in self._row]
        self._reserve(self._n + len(new))
        rows = np.empty(len(ids), dtype=np.int64)
        for j, i in enumerate(ids):
            r = self._row.get(i)
            if r is None:
                r = self._row[i] = self._n
                self._n += 1
                self._ids.append(i)
                self._meta.append({})
            else:
                for col in self._cols.values():
                    col.clear(r)
            rows[j] = r
            self._meta[r] = metas[j]
            self._set_meta(r, metas[j])
        self._mat[rows] = mat

    def _reserve(self, n: int) -> None:
        if n <= self._cap:
            return
        cap = max(n, 2 * self._cap, 64)
        assert self.dim is not None  # set by the first rows, before any room is reserved
        grown = np.zeros((cap, self.dim))
        grown[: self._n] = self._mat[: self._n]
        self._mat = grown
        for col in self._cols.values():
            col.grow(cap)
        self._cap = cap

    def _set_meta(self, r: int, meta: dict[str, Any]) -> None:
        for k, v in meta.items():
            if v is None:
                continue
            col = self._cols.get(k)
            if col is None:
                col = self._cols[k] = _Column(self._cap)
            if _is_num(v):
                col.num[r] = v
                if isinstance(v, int) and abs(v) > _EXACT_FLOAT_INT:
                    col.big_int = True
            elif isinstance(v, (str, bool)):
                col.cat[r] = self._codes.code(v)
            else:
                col.set_obj(r, v)

    def delete(self, id: str) -> bool:
        """Remove a row (e.g. after an erasure). Returns whether it was there."""
        r = self._row.pop(id, None)
        if r is None:
            return False
        last = self._n - 1
        if r != last:
            moved = self._ids[last]
            self._mat[r] = self._mat[last]
            self._ids[r] = moved
            self._meta[r] = self._meta[last]
            self._row[moved] = r
            for col in self._cols.values():
                col.move(last, r)
        else:
            for col in self._cols.values():
                col.clear(r)
        self._ids.pop()
        self._meta.pop()
        self._n -= 1
        return True

    # -- reads -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._n

    def __contains__(self, id: object) -> bool:
        return id in self._row

    def ids(self) -> list[str]:
        return list(self._ids)

    def get(self, id: str) -> tuple[np.ndarray, Mapping[str, Any]]:
        """The stored (unit) vector and metadata of one id."""
        r = self._row.get(id)
        if r is None:
            raise NotFound(f"no vector with id {id!r}")
        return self._mat[r].copy(), MappingProxyType(self._meta[r])

    def mask(self, flt: Filter | None) -> np.ndarray:
        """Which rows pass the filter, as a bool array over the rows in storage order."""
        n = self._n
        keep = np.ones(n, dtype=bool)
        for c in flt or ():
            if not isinstance(c, Cond):
                raise InvalidInput(f"a filter is a tuple of Cond, got {type(c).__name__}")
            keep &= self._cond_mask(c, n)
            if not keep.any():
                break
        return keep

    def _cond_mask(self, c: Cond, n: int) -> np.ndarray:
        col = self._cols.get(c.field)
        if col is None:
            return np.zeros(n, dtype=bool)
        if col.big_int or (isinstance(c.value, int) and not isinstance(c.value, bool) and abs(c.value) > _EXACT_FLOAT_INT):
            return self._slow(c, n, col)
        num, cat = col.num[:n], col.cat[:n]
        op, v = c.op, c.value
        if op in ("eq", "ne"):
            if _is_num(v):
                m = num == v
            else:
                code = self._codes.lookup(v)
                m = cat == code if code >= 0 else np.zeros(n, dtype=bool)
            if col.has_obj:
                m |= self._obj_rows(col, n, lambda x: _same(x, v))
            return col.present(n) & ~m if op == "ne" else m
        if op == "in":
            nums = [x for x in v if _is_num(x)]
            codes = [self._codes.lookup(x) for x in v if not _is_num(x)]
            m = np.isin(num, np.asarray(nums, dtype=np.float64)) if nums else np.zeros(n, dtype=bool)
            codes = [x for x in codes if x >= 0]
            if codes:
                m |= np.isin(cat, np.asarray(codes, dtype=np.int32))
            if col.has_obj:
                m |= self._obj_rows(col, n, lambda x: any(_same(x, w) for w in v))
            return m
        if op == "has":
            m = np.zeros(n, dtype=bool)
            if isinstance(v, str) and self._codes.values:
                table = self._codes.table(lambda s: isinstance(s, str) and not isinstance(s, bool) and v in s)
                ok = cat >= 0
                m[ok] = table[cat[ok]]
            if col.lists:
                m[col.list_rows(v, n)] = True  # the inverted index built at put time
            return m
        # ordering ops
        if _is_num(v):
            with np.errstate(invalid="ignore"):
                return _ORDER_OPS[op](num, v)
        m = np.zeros(n, dtype=bool)
        if self._codes.values:
            strs = self._codes.strings()
            table = self._codes.table(lambda s: isinstance(s, str) and not isinstance(s, bool) and bool(_ORDER_OPS[op](s, v)))
            table &= strs
            ok = cat >= 0
            m[ok] = table[cat[ok]]
        return m

    @staticmethod
    def _obj_rows(col: _Column, n: int, pred) -> np.ndarray:
        m = np.zeros(n, dtype=bool)
        for r, x in col.obj.items():
            if r < n and pred(x):
                m[r] = True
        return m

    def _slow(self, c: Cond, n: int, col: _Column | None) -> np.ndarray:
        return np.fromiter((_test(c.op, self._meta[r].get(c.field), c.value) for r in range(n)), dtype=bool, count=n)

    def near(self, vector: np.ndarray, k: int, filter: Filter | None = None) -> list[Match]:
        """The k rows closest to `vector` by cosine among those passing `filter`, best first.

        Ties are broken by id, so the result equals a full brute-force sort of the filtered rows.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InvalidInput(f"k must be a positive integer, got {k!r}")
        if self._n == 0:
            if filter:
                self.mask(filter)  # still validate it
            return []
        q = _as_matrix(vector, self.dim)[0]
        n = self._n
        keep = self.mask(filter)
        rows = np.flatnonzero(keep)
        if rows.size == 0:
            return []
        scores = self._scores(q, rows, n)
        if k < rows.size:
            # take everything tied with the k-th best too, so the id tie-break below stays exact
            kth = np.partition(scores, rows.size - k)[rows.size - k]
            sel = np.flatnonzero(scores >= kth)
            rows, scores = rows[sel], scores[sel]
        ids = np.array([self._ids[r] for r in rows], dtype=object)
        order = np.lexsort((ids, -scores))[:k]
        return [Match(self._ids[rows[i]], float(scores[i]), MappingProxyType(self._meta[rows[i]])) for i in order]

    def _scores(self, q: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
        """Cosines of the (unit) rows `rows` with the unit query `q`.

        Never copies the selected rows out of the matrix: a query with few non-zero components
        (a TF-IDF query holds a handful of terms) reads only those columns; otherwise the
        product runs over the stored rows in place and the filtered rows are selected from it.
        Components that are zero add nothing to a dot product, so both give the same cosines.
        """
        nz = np.flatnonzero(q)
        if nz.size * 8 <= q.size:
            return self._mat[rows[:, None], nz[None, :]] @ q[nz] if rows.size < n else self._mat[:n, nz] @ q[nz]
        return (self._mat[:n] @ q)[rows]


def brute_force_near(
    items: Iterable[tuple[str, np.ndarray, Mapping[str, Any]]], vector: np.ndarray, k: int, flt: Filter | None = None
) -> list[tuple[str, float]]:
    """Reference ranking, one row at a time: filter, cosine, sort by (-score, id). For tests and benches."""
    q = np.asarray(vector, dtype=np.float64)
    q = q / np.linalg.norm(q)
    scored = []
    for id, v, meta in items:
        if matches(meta, flt):
            v = np.asarray(v, dtype=np.float64)
            scored.append((id, float(np.dot(v / np.linalg.norm(v), q))))
    scored.sort(key=lambda t: (-t[1], t[0]))
    return scored[:k]


# ----------------------------------------------------------------------------------------------
# graph and triples in memory


class MemoryGraphStore:
    """Nodes with JSON properties and labelled, de-duplicated edges; `out` is sorted."""

    def __init__(self) -> None:
        self._nodes: dict[str, dict[str, Any]] = {}
        self._out: dict[str, dict[str, list[str]]] = {}

    def _prepare_node(self, id: str, props: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
        return _check_id(id, "node id"), _clean_meta(props)

    def _prepare_edge(self, from_: str, to: str, label: str) -> tuple[str, str, str]:
        return _check_id(from_, "edge source"), _check_id(to, "edge target"), _check_id(label, "edge label")

    def node(self, id: str, props: Mapping[str, Any] | None = None) -> None:
        self._apply_node(*self._prepare_node(id, props))

    def edge(self, from_: str, to: str, label: str) -> None:
        self._apply_edge(*self._prepare_edge(from_, to, label))

    def _apply_node(self, id: str, props: dict[str, Any]) -> None:
        self._nodes.setdefault(id, {}).update(props)

    def _apply_edge(self, from_: str, to: str, label: str) -> bool:
        for n in (from_, to):
            self._nodes.setdefault(n, {})
        targets = self._out.setdefault(from_, {}).setdefault(label, [])
        if to in targets:
            return False
        targets.append(to)
        return True

    def props(self, id: str) -> Mapping[str, Any]:
        if id not in self._nodes:
            raise NotFound(f"no node {id!r}")
        return MappingProxyType(self._nodes[id])

    def out(self, id: str, label: str | None = None) -> list[str]:
        """Targets of `id`'s edges (with that label), sorted: the same order every backend can give."""
        by_label = self._out.get(id, {})
        if label is not None:
            return sorted(by_label.get(label, ()))
        return sorted({t for targets in by_label.values() for t in targets})

    def __len__(self) -> int:
        return len(self._nodes)


class MemoryTripleStore:
    """A set of string triples indexed by each position; `match` returns them sorted."""

    def __init__(self) -> None:
        self._all: set[tuple[str, str, str]] = set()
        self._by: tuple[dict[str, set], dict[str, set], dict[str, set]] = ({}, {}, {})

    @staticmethod
    def _prepare(s: str, p: str, o: str) -> tuple[str, str, str]:
        return _check_id(s, "subject"), _check_id(p, "predicate"), _check_id(o, "object")

    def assert_(self, s: str, p: str, o: str) -> None:
        self._apply(self._prepare(s, p, o))

    def _apply(self, t: tuple[str, str, str]) -> bool:
        if t in self._all:
            return False
        self._all.add(t)
        for i in range(3):
            self._by[i].setdefault(t[i], set()).add(t)
        return True

    def match(self, s: str | None = None, p: str | None = None, o: str | None = None) -> list[tuple[str, str, str]]:
        bound = [(i, v) for i, v in enumerate((s, p, o)) if v is not None]
        for _, v in bound:
            _check_id(v, "pattern term")
        if not bound:
            return sorted(self._all)
        sets = sorted((self._by[i].get(v, set()) for i, v in bound), key=len)
        hit = set(sets[0])
        for other in sets[1:]:
            hit &= other
        return sorted(hit)

    def __len__(self) -> int:
        return len(self._all)


# ----------------------------------------------------------------------------------------------
# file-backed (SQLite): validate fully, then commit, then apply in memory


def _connect(path: str | os.PathLike) -> sqlite3.Connection:
    path = os.fspath(path)
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    try:
        con = sqlite3.connect(path, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.DatabaseError as exc:
        raise InvalidInput(f"{path} is not a usable store file: {exc}") from None
    return con


class _SqliteBacked:
    _con: sqlite3.Connection

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None  # type: ignore[assignment]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _write(self, sql: str, rows: list[tuple]) -> None:
        if self._con is None:
            raise InvalidInput("the store is closed")
        with self._con:  # one transaction: all rows or none
            self._con.execute("BEGIN IMMEDIATE")
            self._con.executemany(sql, rows)


class FileVectorStore(MemoryVectorStore, _SqliteBacked):
    """MemoryVectorStore whose rows live in one SQLite file (float64 little-endian blobs + JSON)."""

    def __init__(self, path: str | os.PathLike):
        super().__init__()
        self.path = os.fspath(path)
        self._con = _connect(self.path)
        self._con.executescript(
            "CREATE TABLE IF NOT EXISTS vectors (id TEXT PRIMARY KEY, vec BLOB NOT NULL, meta TEXT NOT NULL);"
            "CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        )
        row = self._con.execute("SELECT value FROM info WHERE key='dim'").fetchone()
        if row:
            self.dim = int(row[0])
            self._mat = np.zeros((0, self.dim))
        ids, blobs, metas = [], [], []
        for i, blob, meta in self._con.execute("SELECT id, vec, meta FROM vectors ORDER BY rowid"):
            ids.append(i)
            blobs.append(blob)
            metas.append(json.loads(meta))
        if ids:
            if self.dim is None:
                raise InvalidInput(f"{self.path}: vectors stored without their dimension (a damaged file)")
            mat = np.frombuffer(b"".join(blobs), dtype="<f8").reshape(len(ids), self.dim)
            self._apply(ids, mat, metas)

    def put_many(self, ids, vectors, metas=None) -> None:
        ids, mat, metas = self._prepare(ids, vectors, metas)
        if self._con is None:
            raise InvalidInput("the store is closed")
        with self._con:
            self._con.execute("BEGIN IMMEDIATE")
            if self.dim is None:
                self._con.execute("INSERT OR REPLACE INTO info VALUES ('dim', ?)", (str(mat.shape[1]),))
            le = mat.astype("<f8", copy=False)
            self._con.executemany(
                "INSERT INTO vectors VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET vec=excluded.vec, meta=excluded.meta",
                [(i, le[j].tobytes(), json.dumps(metas[j], ensure_ascii=False)) for j, i in enumerate(ids)],
            )
        self._apply(ids, mat, metas)

    def delete(self, id: str) -> bool:
        if id not in self._row:
            return False
        self._write("DELETE FROM vectors WHERE id = ?", [(id,)])
        return super().delete(id)


class FileGraphStore(MemoryGraphStore, _SqliteBacked):
    def __init__(self, path: str | os.PathLike):
        super().__init__()
        self.path = os.fspath(path)
        self._con = _connect(self.path)
        self._con.executescript(
            "CREATE TABLE IF NOT EXISTS nodes (id TEXT PRIMARY KEY, props TEXT NOT NULL);"
            "CREATE TABLE IF NOT EXISTS edges (src TEXT NOT NULL, dst TEXT NOT NULL, label TEXT NOT NULL,"
            " PRIMARY KEY (src, label, dst));"
        )
        for id, props in self._con.execute("SELECT id, props FROM nodes ORDER BY rowid"):
            self._apply_node(id, json.loads(props))
        for src, dst, label in self._con.execute("SELECT src, dst, label FROM edges ORDER BY rowid"):
            self._apply_edge(src, dst, label)

    def node(self, id: str, props: Mapping[str, Any] | None = None) -> None:
        id, props = self._prepare_node(id, props)
        merged = {**self._nodes.get(id, {}), **props}
        self._write(
            "INSERT INTO nodes VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET props=excluded.props", [(id, json.dumps(merged, ensure_ascii=False))]
        )
        self._apply_node(id, props)

    def edge(self, from_: str, to: str, label: str) -> None:
        from_, to, label = self._prepare_edge(from_, to, label)
        if to in self._out.get(from_, {}).get(label, ()):
            return
        rows = [(n, "{}") for n in (from_, to) if n not in self._nodes]
        if self._con is None:
            raise InvalidInput("the store is closed")
        with self._con:
            self._con.execute("BEGIN IMMEDIATE")
            self._con.executemany("INSERT OR IGNORE INTO nodes VALUES (?, ?)", rows)
            self._con.execute("INSERT OR IGNORE INTO edges VALUES (?, ?, ?)", (from_, to, label))
        self._apply_edge(from_, to, label)


class FileTripleStore(MemoryTripleStore, _SqliteBacked):
    def __init__(self, path: str | os.PathLike):
        super().__init__()
        self.path = os.fspath(path)
        self._con = _connect(self.path)
        self._con.execute("CREATE TABLE IF NOT EXISTS triples (s TEXT NOT NULL, p TEXT NOT NULL, o TEXT NOT NULL, PRIMARY KEY (s, p, o))")
        for t in self._con.execute("SELECT s, p, o FROM triples"):
            self._apply(tuple(t))

    def assert_(self, s: str, p: str, o: str) -> None:
        t = self._prepare(s, p, o)
        if t in self._all:
            return
        self._write("INSERT OR IGNORE INTO triples VALUES (?, ?, ?)", [t])
        self._apply(t)
