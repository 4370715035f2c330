"""Terms and quads as N-Triples text: the write path's own quad representation.

A quad here is a tuple of four strings, each one term in N-Triples syntax (`<iri>`, `"lex"`,
`"lex"^^<datatype>`, `"lex"@lang`). Building these is an order of magnitude cheaper than building
pyoxigraph objects, and a batch of them is handed to Oxigraph as one N-Quads document, which its
Rust parser checks (syntax, escapes, UTF-8) before anything is written.

Safety rests on two rules, both tested (tests/test_ntriples.py):
- literals are escaped here and only here (`literal`), exactly as pyoxigraph escapes them;
- an IRI is wrapped (`iri`) only after it is known to be valid: from a validated `ox.NamedNode`,
  or minted by vocab.py from fixed text and hex/digit identifiers.
The second rule is why Oxigraph parses this text leniently (`OWN`): it does not validate each IRI a
second time, a large part of its parsing work (docs/layout.md, "The write path builds text").
"""

from __future__ import annotations

import re
import threading
from decimal import Decimal, InvalidOperation
from datetime import datetime
from typing import Generator, Iterable, Protocol, Sequence, TypedDict, Union

import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput

NQ = tuple[str, str, str, str]


class StoredQuad(Protocol):
    """A quad as the store hands it out (`AssertionStore.quads`): pyoxigraph's `Quad`, typed without RDF 1.2
    triple terms, which the project's layout never holds (an import refuses them)."""

    @property
    def subject(self) -> ox.NamedNode | ox.BlankNode: ...
    @property
    def predicate(self) -> ox.NamedNode: ...
    @property
    def object(self) -> ox.NamedNode | ox.BlankNode | ox.Literal: ...
    @property
    def graph_name(self) -> ox.NamedNode | ox.BlankNode | ox.DefaultGraph: ...


AnyQuad = Union[NQ, ox.Quad, StoredQuad]

XSD = "http://www.w3.org/2001/XMLSchema#"
_ESCAPES = {0x5C: "\\\\", 0x22: '\\"', 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x08: "\\b", 0x0C: "\\f"}
_TABLE = {c: _ESCAPES.get(c, f"\\u{c:04X}") for c in [*range(0x20), 0x7F, 0x5C, 0x22]}
# str.translate looks every character up in _TABLE; long texts (documents) go through str.replace for the
# common escapes (backslash first) and translate only what is left, which holds no backslash to redo.
_COMMON = ("\\", '"', "\n", "\r", "\t")
_RARE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_RARE_TABLE = {c: e for c, e in _TABLE.items() if chr(c) not in _COMMON}
_LONG = 256
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\]')


class _ParseOptions(TypedDict):
    format: ox.RdfFormat
    lenient: bool


# how Oxigraph reads the text made here: N-Quads, the IRIs not validated again (the module's second rule)
OWN: _ParseOptions = {"format": ox.RdfFormat.N_QUADS, "lenient": True}


def literal(value: str, datatype: str | None = None, language: str | None = None) -> str:
    """`"value"`, `"value"^^<datatype>` or `"value"@language`; `datatype` is an IRI string."""
    body = '"' + (value.translate(_TABLE) if len(value) < _LONG else _escape_long(value)) + '"'
    if language:
        return f"{body}@{language}"
    if datatype and datatype != XSD + "string":
        return f"{body}^^<{datatype}>"
    return body


def _escape_long(value: str) -> str:
    for c in _COMMON:
        if c in value:
            value = value.replace(c, _ESCAPES[ord(c)])
    return value.translate(_RARE_TABLE) if _RARE.search(value) else value


def iri(value: str) -> str:
    """`<value>` for an IRI minted from trusted parts. Anything that could break out of `<...>` is refused."""
    if _IRI_FORBIDDEN.search(value):
        raise InvalidInput(f"not an IRI: {value[:80]!r}")
    return f"<{value}>"


def of(q: AnyQuad) -> NQ:
    """A quad in text form (a pyoxigraph quad is converted; a text quad is returned as is)."""
    if isinstance(q, tuple):
        return q
    g = q.graph_name
    return (str(q.subject), str(q.predicate), str(q.object), "" if isinstance(g, ox.DefaultGraph) else str(g))


def document(quads: Iterable[NQ]) -> str:
    """An N-Quads document of text quads."""
    lines = " .\n".join(map(" ".join, quads))
    return lines + " .\n" if lines else ""


def sparql_data(quads: Iterable[NQ]) -> str:
    """Quads as the body of INSERT DATA / DELETE DATA (N-Triples terms are valid SPARQL terms)."""
    return "\n".join(f"GRAPH {g} {{ {s} {p} {o} }}" if g else f"{s} {p} {o} ." for s, p, o, g in quads)


def update(remove: Sequence[NQ], add: Sequence[NQ]) -> str:
    """One SPARQL update (one transaction) that deletes `remove` and then inserts `add`."""
    parts = [f"DELETE DATA {{ {sparql_data(remove)} }}"] if remove else []
    if add:
        parts.append(f"INSERT DATA {{ {sparql_data(add)} }}")
    return " ;\n".join(parts)


def to_ox(quads: Sequence[AnyQuad]) -> list[ox.Quad]:
    """pyoxigraph quads of text quads, parsed by Oxigraph."""
    text = [q for q in quads if isinstance(q, tuple)]
    if not text:
        return list(quads)  # type: ignore[arg-type]
    parsed = iter(ox.parse(encode(document(text)), **OWN))
    return [next(parsed) if isinstance(q, tuple) else q for q in quads]  # type: ignore[misc]  # a StoredQuad is a Quad


def encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(f"text holds an unpaired surrogate at position {exc.start}") from None


# ------------------------------------------------------------------ reading terms back (for the checker)


def datatype(t: str) -> str | None:
    """The datatype IRI of a literal term (xsd:string / rdf:langString for plain ones); None for others."""
    if t[0] != '"':
        return None
    end = t.rindex('"')
    rest = t[end + 1 :]
    if rest.startswith("^^<"):
        return rest[3:-1]
    if rest.startswith("@"):
        return "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
    return XSD + "string"


_UNESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_SIMPLE = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def lexical(t: str) -> str:
    """The lexical form of a literal term, the IRI of an IRI term, the label of a blank node."""
    if t[0] == "<":
        return t[1:-1]
    if t[0] != '"':
        return t[2:]
    body = t[1 : t.rindex('"')]
    if "\\" not in body:
        return body
    return _UNESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)) if m.group(3) is None else _SIMPLE[m.group(3)], body)


_NUMERIC = {
    XSD + n
    for n in (
        "integer",
        "decimal",
        "double",
        "float",
        "nonNegativeInteger",
        "positiveInteger",
        "negativeInteger",
        "nonPositiveInteger",
        "long",
        "int",
        "short",
        "byte",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
}


def value(t: str) -> tuple[str, object] | None:
    """A comparable value of a literal, tagged by its value space ('number', 'dateTime', 'string',
    'boolean'), as SPARQL's `<`/`<=` compare them; None where SPARQL comparison would be an error."""
    dt = datatype(t)
    if dt is None:
        return None
    lex = lexical(t)
    try:
        if dt in _NUMERIC:
            v = Decimal(lex.strip())
            return None if not v.is_finite() else ("number", v)
        if dt == XSD + "dateTime":
            d = datetime.fromisoformat(lex.replace("Z", "+00:00"))
            return ("dateTime", d) if d.tzinfo is not None else None
        if dt == XSD + "string":
            return ("string", lex)
        if dt == XSD + "boolean":
            return ("boolean", lex in ("true", "1"))
    except (InvalidOperation, ValueError):
        return None
    return None


__all__ = [
    "NQ",
    "AnyQuad",
    "StoredQuad",
    "Dumps",
    "OWN",
    "literal",
    "iri",
    "of",
    "document",
    "sparql_data",
    "update",
    "to_ox",
    "encode",
    "datatype",
    "lexical",
    "value",
]


class Dumps(Protocol):
    """What `follow_dump` needs: pyoxigraph's `Store.dump` (an AssertionStore's has the same shape)."""

    def dump(self, output: str, *, format: ox.RdfFormat, from_graph: ox.NamedNode | None = None) -> object: ...


def follow_dump(
    st: ox.Store | Dumps, path: str, size: int, *, fmt: ox.RdfFormat = ox.RdfFormat.N_QUADS, from_graph: ox.NamedNode | None = None
) -> Generator[bytes, None, None]:
    """Chunks of the file `path` while `st.dump` writes it (as `fmt`, of `from_graph` or the whole store) on
    another thread (a dump to a path releases the GIL), so reading starts before the dump ends; the dump's
    error, if any, is raised at the end. Chunks are cut anywhere, not at line ends."""
    done = threading.Event()
    failure: list[BaseException] = []

    def dump() -> None:
        try:
            if from_graph is None:
                st.dump(path, format=fmt)
            else:
                st.dump(path, format=fmt, from_graph=from_graph)
        except BaseException as exc:  # noqa: BLE001 -- handed to the reader, which raises it
            failure.append(exc)
        finally:
            done.set()

    writer = threading.Thread(target=dump, name="semantic-rdf-dump", daemon=True)
    writer.start()
    try:
        with open(path, "rb", buffering=0) as f:
            while True:
                finished = done.is_set()  # read first: an empty read after the dump ended is the end
                chunk = f.read(size)
                if chunk:
                    yield chunk
                elif finished:
                    break
                else:
                    done.wait(0.005)
    finally:
        writer.join()
    if failure:
        raise failure[0]
