"""Run the packaged SPARQL files (queries/*.rq) with parameters bound safely.

Parameters are RDF terms (pyoxigraph NamedNode / Literal), never text. Binding follows SEP-0007
substitution: every occurrence of a bound variable in the query is replaced by the term as
pyoxigraph serialises it (IRIs validated, literals escaped), `BOUND(?v)` becomes `true`, and in a
SELECT projection `?v` becomes `(term AS ?v)` so the column is still returned. The tokenizer skips
comments, strings and IRIs, so no caller text can change the query's shape. The bound text is plain
SPARQL 1.1 and runs unchanged on the embedded store, Oxigraph server and Virtuoso (which cannot
compile every form a VALUES pre-binding needs, and whose property paths ignore VALUES-bound ends).
"""

from __future__ import annotations

import re
from typing import Mapping

import pyoxigraph as ox

from semantic_rdf.errors import InvalidInput
from semantic_rdf.resources import query as load_query

Term = ox.NamedNode | ox.Literal

_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(
    r"""(?P<comment>\#[^\n]*)
      | (?P<string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
      | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
      | (?P<bound>\bBOUND\s*\(\s*[?$](?P<bvar>[A-Za-z0-9_\u00B7-\uFFFF]+)\s*\))
      | (?P<var>[?$](?P<name>[A-Za-z0-9_\u00B7-\uFFFF]+))
      | (?P<kw>\b(?:SELECT|WHERE|FROM|CONSTRUCT|ASK|DESCRIBE|ORDER\s+BY|GROUP\s+BY)\b)
      | (?P<brace>\{)
    """,
    re.VERBOSE | re.IGNORECASE,
)


def bind(query_text: str, params: Mapping[str, Term | None]) -> str:
    """`query_text` with each non-None parameter substituted as an escaped term (SEP-0007)."""
    terms: dict[str, str] = {}
    for name, term in params.items():
        if not isinstance(name, str) or not _VAR_NAME.fullmatch(name):
            raise InvalidInput(f"bad parameter name {name!r}")
        if term is None:
            continue
        if not isinstance(term, (ox.NamedNode, ox.Literal)):
            raise InvalidInput(f"parameter ?{name} must be an IRI or a literal term, got {type(term).__name__}")
        terms[name] = str(term)
    if not terms:
        return query_text
    out: list[str] = []
    pos = 0
    in_projection = in_modifier = False
    for m in _TOKEN.finditer(query_text):
        out.append(query_text[pos:m.start()])
        pos = m.end()
        kind, text = m.lastgroup, m.group(0)
        if kind == "kw":
            word = text.upper()
            in_projection = word == "SELECT"
            in_modifier = word.startswith(("ORDER", "GROUP"))
        elif kind == "brace":
            in_projection = in_modifier = False
        elif kind == "bound" and m.group("bvar") in terms:
            text = "true"
        elif kind == "var" and m.group("name") in terms:
            t = terms[m.group("name")]
            # ORDER BY / GROUP BY take an expression in brackets, not a bare term
            text = f"({t} AS {text})" if in_projection else f"({t})" if in_modifier else t
        out.append(text)
    out.append(query_text[pos:])
    return "".join(out)


_SERVICE = re.compile(
    r"""(?P<skip>\#[^\n]*
      | '''(?:[^'\\]|\\.|'(?!''))*''' | \"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
      | '(?:[^'\\\n]|\\.)*' | "(?:[^"\\\n]|\\.)*" | <[^<>"{}|^`\\\x00-\x20]*> | [?$]\w+ | [\w.-]*:[\w.-]+)
      | (?P<service>\bSERVICE\b) | (?P<open>[{(\[]) | (?P<close>[})\]])
    """,
    re.VERBOSE | re.IGNORECASE,
)


MAX_QUERY_DEPTH = 256  # Oxigraph's SPARQL parser overflows the stack (SIGSEGV) a few thousand levels down


def refuse_service(query_text: str) -> str:
    """`query_text` unchanged, or InvalidInput if it has a SERVICE clause (a federated query would make the
    store reach the network: SSRF, and only ingest touches the world) or nests groups, brackets or
    parentheses deeper than MAX_QUERY_DEPTH (which would crash the parser). For query text from users."""
    depth = 0
    for m in _SERVICE.finditer(query_text):
        kind = m.lastgroup
        if kind == "service":
            raise InvalidInput("SERVICE (federated query) is refused: queries never reach the network")
        if kind == "open":
            depth += 1
            if depth > MAX_QUERY_DEPTH:
                raise InvalidInput(f"query nests deeper than {MAX_QUERY_DEPTH} levels")
        elif kind == "close":
            depth = max(0, depth - 1)
    return query_text


def packaged(name: str, **params: Term | None) -> str:
    """queries/<name>.rq with `params` bound."""
    return bind(load_query(name), params)
