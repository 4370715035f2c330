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
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.resources import query as load_query

Term = ox.NamedNode | ox.Literal

_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN_PATTERN = (
    r"""(?P<comment>\#[^\n]*)
      | (?P<string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
      | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
      | (?P<bound>\b(?i:BOUND)\s*\(\s*[?$](?P<bvar>[^\x00-\x2F\x3A-\x40\x5B-\x5E\x60\x7B-\xB6\U00010000-\U0010FFFF]+)\s*\))
      | (?P<var>[?$](?P<name>[^\x00-\x2F\x3A-\x40\x5B-\x5E\x60\x7B-\xB6\U00010000-\U0010FFFF]+))
      | (?P<kw>\b(?i:SELECT|WHERE|FROM|CONSTRUCT|ASK|DESCRIBE|ORDER\s+BY|GROUP\s+BY)\b)
      | (?P<brace>[{}])
    """,
    # case-blind only for the keywords: over the variables' wide character ranges it triples the compile time.
    # A variable's characters (A-Z a-z 0-9 _ and U+00B7..U+FFFF) are written as the complement of the rest:
    # the same set (tests/test_queries.py checks every code point), far cheaper to compile than the wide range
    re.VERBOSE,
)


@lru_cache(maxsize=1)
def _token() -> re.Pattern[str]:
    """The binder's tokenizer, compiled on first use: only processes that bind a query pay for it."""
    return re.compile(*_TOKEN_PATTERN)


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
    for m in _token().finditer(query_text):
        out.append(query_text[pos : m.start()])
        pos = m.end()
        kind, text = m.lastgroup, m.group(0)
        if kind == "kw":
            word = text.upper()
            in_projection = word == "SELECT"
            in_modifier = word.startswith(("ORDER", "GROUP"))
        elif kind == "brace":  # a group opens or a subquery's modifiers end
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


def packaged(name: str, **params: Term | None) -> str:
    """queries/<name>.rq with `params` bound."""
    return bind(load_query(name), params)


# ---------------------------------------------------------------- the guard for query text from users
#
# A user's query (semantic-rdf query, derive --rule) is lexed here by SPARQL's own lexical rules, as
# Oxigraph reads them (\u escapes only inside strings and IRIs; `\#` inside a prefixed name is part of the
# name, not a comment), into tokens. The query that runs is *rendered from those tokens*: comments dropped,
# one space between tokens, strings and IRIs re-escaped so that they hold no character that means anything
# to a parser outside them. So Oxigraph and rdflib parse exactly the token stream checked here; nothing can
# hide in a comment, a string or an IRI that one reader sees and another does not. The checks:
#   * size (MAX_QUERY_CHARS), nesting (MAX_QUERY_DEPTH) and length (MAX_QUERY_TOKENS, VALUES data not
#     counted): Oxigraph's parser and evaluator recurse per level and per operator in a chain and overflow
#     the stack (SIGSEGV) at a few thousand; rdflib's recurses too. Counted in one linear pass, before any
#     parser runs;
#   * SERVICE, LOAD and update keywords as tokens (a fast, exact first refusal);
#   * then `check_algebra` parses the rendered text with rdflib's SPARQL parser and walks the algebra:
#     a query form, no ServiceGraphPattern anywhere (EXISTS, subqueries, OPTIONAL, …). It runs in the
#     child process that evaluates the query (semantic_rdf/store/sandbox.py), under its time and memory limits,
#     because rdflib's parser costs seconds on long queries.

MAX_QUERY_CHARS = 1_000_000
MAX_QUERY_DEPTH = 128
MAX_QUERY_TOKENS = 4_000  # outside VALUES data; Oxigraph crashes on chains of ~10,000 (docs/security.md)
_UPDATE_WORDS = frozenset("INSERT DELETE LOAD CLEAR DROP CREATE ADD MOVE COPY WITH".split())

_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_CHARS_U = _BASE + "_"
_CHARS = _CHARS_U + "\\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_PLX = r"%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]"


@lru_cache(maxsize=1)
def _lexer():
    """The guard's token patterns, compiled on first use: their Unicode classes are slow to compile, a cost
    every process that never lexes a user's query (`ask`, `ingest`) would otherwise pay at import."""
    lex = {
        "ws": re.compile(r"(?:[ \t\r\n]+|\#[^\r\n]*)+"),
        "long1": re.compile(r"'''((?:(?:''|')?(?:[^'\\]|\\.))*)'''", re.S),
        "long2": re.compile(r'"""((?:(?:""|")?(?:[^"\\]|\\.))*)"""', re.S),
        "short1": re.compile(r"'((?:[^'\\\n\r]|\\.)*)'"),
        "short2": re.compile(r'"((?:[^"\\\n\r]|\\.)*)"'),
        "iri": re.compile(r"<((?:[^<>\"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*)>"),
        "var": re.compile(f"[?$][{_CHARS_U}0-9][{_CHARS_U}0-9\u00b7\u0300-\u036f\u203f-\u2040]*"),
        "bnode": re.compile(f"_:[{_CHARS_U}0-9](?:[{_CHARS}.]*[{_CHARS}])?"),
        "run": re.compile(f"[{_CHARS}.]*"),
        "local": re.compile(f"(?:[{_CHARS_U}:0-9]|{_PLX})(?:(?:[{_CHARS}.:]|{_PLX})*(?:[{_CHARS}:]|{_PLX}))?"),
        "word": re.compile(r"[A-Za-z][A-Za-z0-9_]*"),
        "num": re.compile(r"[+-]?(?:[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.?[0-9]+[eE][+-]?[0-9]+|[0-9]*\.[0-9]+|[0-9]+)"),
        "lang": re.compile(r"@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*"),
    }
    base_char = re.compile(f"[{_BASE}]")
    prefix_ok = re.compile(f"[{_BASE}](?:[{_CHARS}.]*[{_CHARS}])?")
    return lex, base_char, prefix_ok


_PUNCT2 = ("^^", "||", "&&", "!=", "<=", ">=")
_PUNCT1 = frozenset("{}()[].;,=<>!+-*/|^?")
_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
# re-escaped on output: every ASCII character that means something to a SPARQL lexer outside a string / IRI
_STR_ESC = {c: f"\\u{c:04X}" for c in range(128) if not chr(c).isalnum() and chr(c) not in " _.,:-"}
_IRI_ESC = {c: f"\\u{c:04X}" for c in range(128) if not chr(c).isalnum() and chr(c) not in ":._~%-"}
_OPERAND_KINDS = frozenset({"var", "num", "str", "lang", "iri", "pname", "bnode"})


@dataclass(frozen=True)
class GuardedQuery:
    """A user's query as the guard accepted it: `text` (rendered from the checked tokens) is what runs,
    `neutral` (the same tokens, every string, IRI and local name replaced by a placeholder) is what rdflib
    parses for `check_algebra`."""

    text: str
    neutral: str
    form: str  # SELECT, CONSTRUCT, ASK or DESCRIBE
    depth: int
    tokens: int
    dataset: bool = False  # it names its dataset (FROM, FROM NAMED): a default graph read as every graph would override it


def _unescape(body: str, what: str, *, echar: bool) -> str:
    if "\\" not in body:
        return body

    def one(m: re.Match) -> str:
        if m.group(3) is not None:
            if echar and m.group(3) in _ECHAR:
                return _ECHAR[m.group(3)]
            raise InvalidInput(f"bad escape \\{m.group(3)} in {what}")
        cp = int(m.group(1) or m.group(2), 16)
        if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            raise InvalidInput(f"bad escape (code point U+{cp:X}) in {what}")
        return chr(cp)

    return _ESCAPE.sub(one, body)


_JOINED_CALLS = frozenset({"COALESCE", "CONCAT", "BNODE"})


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


def guard(query_text: str) -> GuardedQuery:
    """Lex a user's query, refuse what it may not do (InvalidInput), and render the text that runs.

    Refused: more than MAX_QUERY_CHARS characters, nesting deeper than MAX_QUERY_DEPTH, more than
    MAX_QUERY_TOKENS tokens outside VALUES data, SERVICE (a federated query would make the store reach
    the network), LOAD and every update (queries are read-only), and text SPARQL cannot lex. One linear
    pass; no parser runs. `check_algebra` then parses the result (see the comment above)."""
    if not isinstance(query_text, str):
        raise InvalidInput("a query is text")
    if len(query_text) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query is longer than {MAX_QUERY_CHARS:,} characters")
    try:
        query_text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("query text is not valid Unicode (lone surrogate)") from None
    t = query_text
    n = len(t)
    out: list[str] = []
    neutral: list[str] = []
    # open brackets: g { group, b [ property list, c ( collection or list, e ( expression, v { VALUES data, s <<
    frames: list[str] = []
    prev_kind = prev_text = prev2_text = ""
    values_pending = in_select = in_modifier = dataset = False
    form = ""
    count = depth = 0
    no_pname_until = v_rows = 0
    pos = 0
    _LEX, _BASE_CHAR, _PREFIX_OK = _lexer()
    ws = _LEX["ws"]
    while True:
        gap = pos
        m = ws.match(t, pos)
        if m:
            pos = m.end()
        if pos >= n:
            break
        c = t[pos]
        start = pos
        kind = "punct"
        text = ""
        neut: str | None = None
        in_values = "v" in frames
        top = frames[-1] if frames else ""
        if c in "\"'":
            for key in ("long2", "short2") if c == '"' else ("long1", "short1"):
                m = _LEX[key].match(t, pos)
                if m:
                    break
            else:
                raise InvalidInput(f"unterminated or malformed string at {_where(t, pos)}")
            value = _unescape(m.group(1), "a string", echar=True)
            kind, text, neut, pos = "str", '"' + value.translate(_STR_ESC) + '"', '"s"', m.end()
        elif (
            c == "<"
            and not (top == "e" and (prev_kind in _OPERAND_KINDS or prev_text in (")", "]") or prev_text.upper() in ("TRUE", "FALSE")))
            and (m := _LEX["iri"].match(t, pos))
        ):
            value = _unescape(m.group(1), "an IRI", echar=False)
            kind, text, pos = "iri", "<" + value.translate(_IRI_ESC) + ">", m.end()
            neut = f"<urn:x:{pos}>"  # distinct: rdflib binds one prefix per namespace
        elif c == "<" and t.startswith("<<", pos) and top != "e":
            text, pos = "<<", pos + 2
        elif c == ">" and t.startswith(">>", pos) and top == "s":
            text, pos = ">>", pos + 2
        elif c in "?$" and (m := _LEX["var"].match(t, pos)):
            kind, text, pos = "var", m.group(0), m.end()
        elif c == "_" and t.startswith("_:", pos):
            if not (m := _LEX["bnode"].match(t, pos)):
                raise InvalidInput(f"bad blank node label at {_where(t, pos)}")
            kind, text, pos = "bnode", m.group(0), m.end()
        elif (c.isdigit() or c in "+-." and pos + 1 < n and (t[pos + 1].isdigit() or t[pos + 1] == "." and t[pos + 2 : pos + 3].isdigit())) and (
            m := _LEX["num"].match(t, pos)
        ):
            kind, text, pos = "num", m.group(0), m.end()
        elif c == "@" and (m := _LEX["lang"].match(t, pos)):
            kind, text, pos = "lang", m.group(0), m.end()
        elif c == ":" or (pos >= no_pname_until and _BASE_CHAR.match(c)):
            e = _LEX["run"].match(t, pos).end()
            if e < n and t[e] == ":" and (e == pos or _PREFIX_OK.fullmatch(t, pos, e)):
                m = _LEX["local"].match(t, e + 1)
                end = m.end() if m else e + 1
                kind, text, pos = "pname", t[pos:end], end
                neut = t[start : e + 1] + ("x" if m else "")
            else:
                no_pname_until = e  # every later start inside this run ends at the same place: no colon
        if not text and (m := _LEX["word"].match(t, pos)):
            kind, text, pos = "word", m.group(0), m.end()
        elif not text:
            two = t[pos : pos + 2]
            if two in _PUNCT2:
                text = two
            elif c in _PUNCT1:
                text = c
            else:
                raise InvalidInput(f"unexpected character {c!r} at {_where(t, pos)}")
            pos += len(text)
        # -- what the token means
        if kind == "word":
            up = text.upper()
            if up == "SERVICE":
                raise InvalidInput("SERVICE (federated query) is refused: queries never reach the network")
            if up in _UPDATE_WORDS:
                raise InvalidInput(f"query is read-only: {up} is an update")
            if not form and up in ("SELECT", "CONSTRUCT", "ASK", "DESCRIBE"):
                form = up
            dataset = dataset or up == "FROM"
            if up == "VALUES":
                values_pending = True
            elif up == "SELECT":
                in_select = True
            elif up in ("GROUP", "ORDER", "HAVING"):
                in_modifier = True
            elif up in ("WHERE", "LIMIT", "OFFSET"):
                in_select = in_modifier = False
        opened = ""
        if text == "{":
            opened = "v" if values_pending else "g"
            v_rows = 0 if values_pending else v_rows
            values_pending = in_select = in_modifier = False
        elif text == "[":
            opened = "b"
        elif text == "<<":
            opened = "s"
        elif text == "(":
            if top == "e" or in_select or in_modifier:
                opened = "e"
            elif values_pending or top in ("v", "c") and in_values:
                opened = "c"
            elif not top:
                opened = "e"
            elif (
                prev_kind == "word"
                and prev_text.upper() not in ("A", "TRUE", "FALSE")
                or (prev_kind in ("iri", "pname") and prev2_text.upper() == "FILTER")
            ):
                opened = "e"
            else:
                opened = "c"
        elif text in ("}", "]", ")", ">>"):
            want = {"}": "gv", "]": "b", ")": "ec", ">>": "s"}[text]
            if not top or top not in want:
                raise InvalidInput(f"unbalanced {text!r} at {_where(t, start)}")
            frames.pop()
            if text == "}":
                in_select = in_modifier = False
        if opened:
            frames.append(opened)
            depth = max(depth, len(frames))
            if len(frames) > MAX_QUERY_DEPTH:
                raise InvalidInput(f"query nests deeper than {MAX_QUERY_DEPTH} levels")
        if not in_values:
            count += 1
            if count > MAX_QUERY_TOKENS:
                raise InvalidInput(f"query is longer than {MAX_QUERY_TOKENS:,} tokens (VALUES data not counted)")
        # one space between tokens, except where rdflib needs them joined (a literal's tag or datatype, a
        # path modifier written next to its path); joining these cannot make a different token. Oxigraph 0.5
        # also refuses a space between COALESCE, CONCAT or BNODE and its bracket (its grammar reads their
        # argument lists as one token there), which SPARQL allows: those brackets are joined too.
        glue = (
            kind == "lang"
            or text == "^^"
            or prev_text == "^^"
            or (text in ("*", "+", "?") and start == gap)
            or (text == "(" and prev_kind == "word" and prev_text.upper() in _JOINED_CALLS)
        )
        sep = "" if glue or not out else "\n" if "\n" in t[gap:start] else " "
        out.append(sep + text)
        if not in_values or v_rows == 0 or (text == "}" and top == "v"):  # rdflib checks one row of VALUES data
            neutral.append(("" if glue else " ") + (neut if neut is not None else text))
        if in_values and ((kind != "punct" and top == "v") or (text == ")" and frames and frames[-1] == "v")):
            v_rows += 1
        prev2_text, prev_kind, prev_text = prev_text, kind, text
    if frames:
        raise InvalidInput("query has unclosed brackets")
    if not form:
        raise InvalidInput("not a SPARQL query (SELECT, CONSTRUCT, ASK or DESCRIBE)")
    return GuardedQuery("".join(out), "".join(neutral).strip(), form, depth, count, dataset)


def preload_checker() -> None:
    """Import and warm up rdflib's SPARQL parser (about a second) here, once, so that children forked to
    check queries inherit it instead of paying for it each time. One thread at a time: pyparsing's first parse
    records what it learns of its actions' arguments, and two first parses at once (two queries of `serve`)
    recorded it wrong for good."""
    global _warm
    with _warming:
        if not _warm:
            from rdflib.plugins.sparql.algebra import translateQuery
            from rdflib.plugins.sparql.parser import parseQuery

            translateQuery(parseQuery("ASK { ?s ?p ?o FILTER(?o < 1) }"))  # the first parse sets things up
            _warm = True


_warm = False
_warming = threading.Lock()


def check_algebra(q: GuardedQuery) -> None:
    """Parse `q.neutral` with rdflib's SPARQL parser and refuse, from the algebra, anything but a read-only
    query form or any SERVICE anywhere in the tree. Raises InvalidInput. Can take seconds on long queries
    (rdflib's parser is slow) and recurses deeply: run it where a deadline holds (sandbox.run_isolated)."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery
    from rdflib.plugins.sparql.parserutils import CompValue

    try:
        algebra = translateQuery(parseQuery(q.neutral)).algebra
    except RecursionError:
        raise InvalidInput("query nests too deeply to check") from None
    except InvalidInput:
        raise
    except Exception as exc:  # pyparsing's and rdflib's own errors: the text is not a SPARQL query
        raise InvalidInput(f"SPARQL syntax error: {' '.join(str(exc).split())[:300]}") from None
    if getattr(algebra, "name", None) not in ("SelectQuery", "ConstructQuery", "AskQuery", "DescribeQuery"):
        raise InvalidInput("query is read-only: not a query form")
    stack: list = [algebra]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, str) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, CompValue):
            if "Service" in node.name:
                raise InvalidInput("SERVICE (federated query) is refused: queries never reach the network")
            if node.name in ("Load", "InsertData", "DeleteData", "Modify", "Clear", "Drop", "Create", "Add", "Move", "Copy", "DeleteWhere"):
                raise InvalidInput(f"query is read-only: {node.name} is an update")
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple, set, frozenset)):
            stack.extend(node)


def refuse_service(query_text: str) -> str:
    """The text to run for a user's query: `guard(query_text).text`, or InvalidInput (kept for callers of
    the old name; the algebra check runs where the query runs, see sandbox.run_user_query)."""
    return guard(query_text).text
