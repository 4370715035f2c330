"""Locate the package data: ontology/*.ttl, shapes/*.ttl and queries/*.rq.

The files are the single source of truth. In a wheel they sit inside the package
(`semantic_rdf/ontology`, …); in a source checkout they sit at the repository root.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from semantic_rdf.core.errors import NotFound

_PKG = Path(__file__).resolve().parent.parent  # the package: semantic_rdf/core/ is one level down
_KINDS = ("ontology", "shapes", "queries")


@lru_cache(maxsize=None)
def data_dir(kind: str) -> Path:
    if kind not in _KINDS:
        raise ValueError(f"unknown data kind {kind!r}")
    for base in (_PKG, _PKG.parent):
        d = base / kind
        if d.is_dir():
            return d
    raise FileNotFoundError(f"package data directory {kind}/ is missing from this install")


def read_text(kind: str, name: str) -> str:
    path = data_dir(kind) / name
    if not path.is_file():
        raise NotFound(f"no {kind} file named {name!r}")
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def query(name: str) -> str:
    """The text of queries/<name>.rq (or a path below queries/, e.g. 'rules/inverse')."""
    return read_text("queries", name if name.endswith(".rq") else name + ".rq")


def files(kind: str, pattern: str = "*") -> list[Path]:
    return sorted(data_dir(kind).glob(pattern))
