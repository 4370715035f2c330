"""Run the packaged SPARQL files (queries/*.rq) with parameters bound safely.

Parameters are RDF terms (pyoxigraph NamedNode / Literal), never text. They are bound by
prepending a one-row `VALUES` block to the query's outermost group: the terms are serialised by
pyoxigraph, which validates IRIs and escapes literals, so no caller text can change the query's
shape. VALUES is plain SPARQL 1.1, so the same bound query runs on the embedded store and on any
remote endpoint (Oxigraph server, Virtuoso).
"""

from __future__ import annotations

import re
from typing import Mapping

import pyoxigraph as ox

from semantic_rdf.errors import InvalidInput
from semantic_rdf.resources import query as load_query

Term = ox.NamedNode | ox.Literal

_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WHERE = re.compile(r"\bWHERE\s*\{", re.IGNORECASE)


def bind(query_text: str, params: Mapping[str, Term | None]) -> str:
    """`query_text` with a VALUES row binding each non-None parameter, placed first in the outermost WHERE group."""
    names, terms = [], []
    for name, term in params.items():
        if term is None:
            continue
        if not _VAR.fullmatch(name):
            raise InvalidInput(f"bad parameter name {name!r}")
        if not isinstance(term, (ox.NamedNode, ox.Literal)):
            raise InvalidInput(f"parameter ?{name} must be an IRI or a literal term, got {type(term).__name__}")
        names.append("?" + name)
        terms.append(str(term))
    if not names:
        return query_text
    m = _WHERE.search(query_text)
    if m is None:
        raise ValueError("query has no WHERE group to bind parameters into")
    values = f" VALUES ({' '.join(names)}) {{ ({' '.join(terms)}) }} "
    return query_text[: m.end()] + values + query_text[m.end():]


def packaged(name: str, **params: Term | None) -> str:
    """queries/<name>.rq with `params` bound."""
    return bind(load_query(name), params)
