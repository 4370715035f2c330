"""SPARQL query results in the formats clients read: the W3C SPARQL 1.1 Query Results JSON, CSV and TSV
formats, and a plain table with prefixed names for people.

Input is what `sandbox.run_user_query` returns: terms in N-Triples syntax (None for unbound). Each term is
read back with pyoxigraph's own N-Triples parser, so escapes and datatypes come out as the store meant them.

>>> rows = (('<https://w3id.org/semantic-rdf/p/born_in>', '"0.9"^^<http://www.w3.org/2001/XMLSchema#decimal>'),)
>>> print(table(["p", "conf"], rows))
p          conf
---------  ----
p:born_in  0.9
>>> csv_text(["p", "conf"], rows).splitlines()
['p,conf', 'https://w3id.org/semantic-rdf/p/born_in,0.9']
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import pyoxigraph as ox

from semantic_rdf.core.vocab import PREFIXES

__all__ = ["FORMATS", "term", "json_results", "json_boolean", "csv_text", "tsv_text", "table", "select_order"]

FORMATS = ("table", "json", "csv", "tsv")
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
Row = Sequence[str | None]


@lru_cache(maxsize=65536)
def term(text: str) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    """A term from its N-Triples text (as `str(term)` wrote it)."""
    if text.startswith("_:"):
        return ox.BlankNode(text[2:])
    triple = next(iter(ox.parse(input=f"<urn:x:s> <urn:x:p> {text} .\n", format=ox.RdfFormat.N_TRIPLES)))
    return triple.object  # type: ignore[return-value]


def _json_term(text: str) -> dict:
    t = term(text)
    if isinstance(t, ox.NamedNode):
        return {"type": "uri", "value": t.value}
    if isinstance(t, ox.BlankNode):
        return {"type": "bnode", "value": t.value}
    out: dict = {"type": "literal", "value": t.value}
    if t.language:
        out["xml:lang"] = t.language
    elif t.datatype.value != _XSD_STRING:
        out["datatype"] = t.datatype.value
    return out


def json_results(variables: Sequence[str], rows: Iterable[Row]) -> dict:
    """The SPARQL 1.1 Query Results JSON object of a SELECT (unbound variables are left out of a binding)."""
    return {
        "head": {"vars": list(variables)},
        "results": {"bindings": [{v: _json_term(x) for v, x in zip(variables, r) if x is not None} for r in rows]},
    }


def json_boolean(value: bool) -> dict:
    """The SPARQL 1.1 Query Results JSON object of an ASK."""
    return {"head": {}, "boolean": bool(value)}


def _csv_value(text: str | None) -> str:
    if text is None:
        return ""
    t = term(text)
    return "_:" + t.value if isinstance(t, ox.BlankNode) else t.value


def csv_text(variables: Sequence[str], rows: Iterable[Row]) -> str:
    """SPARQL 1.1 Query Results CSV: a header of variable names, then values only (IRIs bare, literals'
    lexical forms), CRLF line ends, RFC 4180 quoting."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(variables)
    for r in rows:
        w.writerow([_csv_value(x) for x in r])
    return buf.getvalue()


def _tsv_value(text: str | None) -> str:
    if text is None:
        return ""
    # N-Triples term syntax is the TSV format's (Turtle) syntax; a literal's tabs and newlines are escaped
    # there already, so a value never breaks a row.
    return text


def tsv_text(variables: Sequence[str], rows: Iterable[Row]) -> str:
    """SPARQL 1.1 Query Results TSV: a header of ?variables, then terms in Turtle/N-Triples syntax."""
    lines = ["\t".join("?" + v for v in variables)]
    lines += ["\t".join(_tsv_value(x) for x in r) for r in rows]
    return "\n".join(lines) + "\n"


_BY_LENGTH = sorted(PREFIXES.items(), key=lambda kv: -len(kv[1]))
_LOCAL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


def _short(text: str | None) -> str:
    """A term for people: IRIs as prefixed names where the project's prefix map has one, literals as their
    value (with @lang), numbers and dates without their datatype."""
    if text is None:
        return ""
    t = term(text)
    if isinstance(t, ox.NamedNode):
        for prefix, ns in _BY_LENGTH:
            local = t.value[len(ns) :]
            if t.value.startswith(ns) and _LOCAL.fullmatch(local) and not local.endswith("."):
                return f"{prefix}:{local}"
        return f"<{t.value}>"
    if isinstance(t, ox.BlankNode):
        return "_:" + t.value
    value = " ".join(t.value.split()) if "\n" in t.value or "\t" in t.value else t.value
    return f"{value}@{t.language}" if t.language else value


def _clip(s: str, n: int = 80) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def table(variables: Sequence[str], rows: Iterable[Row]) -> str:
    """An aligned text table, prefixed names for IRIs (`vocab.PREFIXES`)."""
    cells = [[_clip(_short(x)) for x in r] for r in rows]
    widths = [max([len(v)] + [len(r[i]) for r in cells]) for i, v in enumerate(variables)]
    line = lambda vals: "  ".join(s.ljust(w) for s, w in zip(vals, widths)).rstrip()  # noqa: E731
    out = [line(variables), line(["-" * w for w in widths])] + [line(r) for r in cells]
    return "\n".join(out)


_PROJECTION = re.compile(r"\bSELECT\s+(?:DISTINCT\s+|REDUCED\s+)?\*", re.IGNORECASE)
_VAR = re.compile(r"[?$]([A-Za-z_][A-Za-z0-9_]*)")


def select_order(query_text: str, variables: Sequence[str]) -> list[str]:
    """For `SELECT *`, the variables in the order they first appear in the query (the engine's order is
    alphabetical); an explicit projection keeps its own order."""
    if not _PROJECTION.search(query_text):
        return list(variables)
    seen: dict[str, int] = {}
    for m in _VAR.finditer(query_text):
        seen.setdefault(m.group(1), m.start())
    return sorted(variables, key=lambda v: (seen.get(v, len(query_text)), v))
