"""One registry of the parts a user or a plug-in package can add, keyed by (kind, name).

    kind        name                      the part                                   built in
    source      a reference's scheme      factory(IngestConfig) -> Ingester          file dir glob http https stdin
    parser      a media type              parse(Doc) -> Doc                          text/plain text/markdown text/html …
    splitter    a splitter spec's NAME    factory(*numbers) -> Splitter              sentences paragraphs markdown …
    extractor   an extractor's name       factory(**options) -> Extractor | None     statistical rules model none
    vector      a data source name's      opener(Dsn) -> VectorStore                 memory file oxigraph
    graph       driver (HIP-0526 §4.2)    opener(Dsn) -> GraphStore                  … and SPARQL servers
    triple                                opener(Dsn) -> TripleStore                 … and SPARQL servers

A part is a callable, or a "module:attribute" string imported on first use. The built-in parts are listed
that way (`BUILT_IN` below), so naming them loads nothing and this module imports none of the layers above
it. A name registered as None is known but not carried by this install (e.g. the vector driver `qdrant`):
asking for it raises `DriverNotBuiltIn`, not `UnknownDriver`, because the two are different problems.

A package adds parts without forking by declaring entry points in the group `semantic_rdf.plugins`, each
named "KIND:NAME", as rdflib's plug-ins do (pyproject.toml of the plug-in package):

    [project.entry-points."semantic_rdf.plugins"]
    "vector:mydb" = "mypkg.stores:open_mydb"
    "parser:text/x-org" = "mypkg.org:parse_org"

They are found when a registry is first asked for a part (not at import), and a part that fails to import
raises `PluginError` when it is asked for, naming the entry point, without hiding the other parts. A plug-in
does not replace a built-in part of the same name (register it explicitly, `replace=True`, to do that).

`default_registry()` is the one registry the library uses when it is not handed another; a caller that wants
parts of its own without touching it makes a `Registry()` and passes it (`build_pipeline(registry=…)`,
`remote.registry.open_vector(dsn, registry=…)`).

>>> r = Registry(entry_points=False)
>>> r.register("splitter", "lines", lambda *n: None)
>>> "lines" in r.names("splitter") and "sentences" in r.names("splitter")
True
>>> r.get("vector", "qdrant")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
semantic_rdf.core.errors.DriverNotBuiltIn: the vector store driver 'qdrant' is registered but not built into this install; ...
"""

from __future__ import annotations

import importlib
import re
import threading
from typing import Any, Callable, Iterable, Mapping, Union

from semantic_rdf.core.errors import DriverNotBuiltIn, InvalidInput, PluginError, UnknownDriver

__all__ = ["KINDS", "GROUP", "BUILT_IN", "Registry", "default_registry"]

KINDS = ("source", "parser", "splitter", "extractor", "vector", "graph", "triple")
GROUP = "semantic_rdf.plugins"  # the entry-point group plug-in packages declare their parts in

Part = Callable[..., Any]
Ref = Union[Part, str, None]  # a callable, "module:attribute", or None (known, not built in)

# What each kind's names look like: schemes and driver names as URL schemes are written, media types as
# type/subtype, the rest as plain words.
_NAME = {
    "source": re.compile(r"[a-z][a-z0-9+.-]*"),
    "parser": re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*"),
    "splitter": re.compile(r"[a-z][a-z0-9_-]*"),
    "extractor": re.compile(r"[a-z][a-z0-9_-]*"),
    "vector": re.compile(r"[a-z][a-z0-9.+-]*"),
    "graph": re.compile(r"[a-z][a-z0-9.+-]*"),
    "triple": re.compile(r"[a-z][a-z0-9.+-]*"),
}
_NOUN = {"source": "ingest driver", "parser": "parser", "splitter": "splitter", "extractor": "extractor"}

_SOURCES = "semantic_rdf.pipeline.sources"
_PARSE = "semantic_rdf.pipeline.parse"
_SPLIT = "semantic_rdf.pipeline.split"
_STORES = "semantic_rdf.remote.registry"
_SERVERS = ("oxigraph+http", "oxigraph+https", "virtuoso+http", "virtuoso+https", "sparql+http", "sparql+https")
# Named by HIP-0526 §4.3 and the reference as drivers that exist elsewhere but are not built here.
_NOT_BUILT_IN = {
    "vector": ("qdrant", "faiss", "milvus", "pgvector", "pinecone", "weaviate", "sqlite-vss"),
    "graph": ("neo4j", "age", "falkordb", "neptune"),
    "triple": ("anzo", "stardog", "graphdb"),
}

BUILT_IN: dict[tuple[str, str], str | None] = {
    ("source", "file"): f"{_SOURCES}:FileDriver",
    ("source", "dir"): f"{_SOURCES}:DirDriver",
    ("source", "glob"): f"{_SOURCES}:GlobDriver",
    ("source", "http"): f"{_SOURCES}:WebDriver",
    ("source", "https"): f"{_SOURCES}:WebDriver",
    ("source", "stdin"): f"{_SOURCES}:StdinDriver",
    ("parser", "text/plain"): f"{_PARSE}:parse_text",
    ("parser", "text/markdown"): f"{_PARSE}:parse_markdown",
    ("parser", "text/html"): f"{_PARSE}:parse_html",
    ("parser", "application/json"): f"{_PARSE}:parse_json",
    ("parser", "application/x-ndjson"): f"{_PARSE}:parse_json",
    ("parser", "text/csv"): f"{_PARSE}:parse_csv",
    ("parser", "text/tab-separated-values"): f"{_PARSE}:parse_csv",
    ("parser", "application/pdf"): f"{_PARSE}:parse_pdf",
    ("parser", "message/rfc822"): f"{_PARSE}:parse_email",
    ("parser", "application/octet-stream"): f"{_PARSE}:refuse_binary",
    ("splitter", "sentences"): f"{_SPLIT}:Sentences",
    ("splitter", "paragraphs"): f"{_SPLIT}:Paragraphs",
    ("splitter", "markdown"): f"{_SPLIT}:MarkdownHeadings",
    ("splitter", "headings"): f"{_SPLIT}:MarkdownHeadings",
    ("splitter", "recursive"): f"{_SPLIT}:Recursive",
    ("splitter", "tokens"): f"{_SPLIT}:token_splitter",
    ("extractor", "statistical"): "semantic_rdf.pipeline.statistical:make_extractor",
    ("extractor", "rules"): "semantic_rdf.pipeline.extract:make_rule_extractor",
    ("extractor", "model"): "semantic_rdf.pipeline.model_extract:make_model_extractor",
    ("extractor", "none"): "semantic_rdf.pipeline.extract:make_no_extractor",
    **{(kind, name): f"{_STORES}:open_{kind}_{name}" for kind in ("vector", "graph", "triple") for name in ("memory", "file", "oxigraph")},
    **{(kind, s): f"{_STORES}:open_{kind}_remote" for kind in ("graph", "triple") for s in _SERVERS},
    **{(kind, name): None for kind, names in _NOT_BUILT_IN.items() for name in names},
}


class Registry:
    """Parts by (kind, name): the built-ins, what the installed plug-in packages declare, and what is
    registered on this object. Thread-safe; each object is independent of every other."""

    def __init__(self, parts: Mapping[tuple[str, str], Ref] | None = None, *, entry_points: bool = True) -> None:
        self._parts: dict[str, dict[str, Any]] = {k: {} for k in KINDS}
        self._origin: dict[tuple[str, str], str] = {}  # where a lazily named part came from, for errors
        self._lock = threading.RLock()
        self._discover = entry_points
        for (kind, name), part in (BUILT_IN if parts is None else parts).items():
            self.register(kind, name, part)

    # ------------------------------------------------------------------ adding parts
    def register(self, kind: str, name: str, part: Ref, *, replace: bool = False) -> None:
        """Register `part` (a callable, "module:attribute", or None for known-but-not-built-in) as `name`.
        A name that already has a part is refused unless `replace` is true (no silent replacement); one
        known but not built in takes an implementation without it."""
        table = self._table(kind)
        key = self._name(kind, name)
        if part is not None and not callable(part) and not (isinstance(part, str) and _is_ref(part)):
            raise InvalidInput(f"a {self._noun(kind)} must be callable, 'module:attribute', or None (known, not built in)")
        with self._lock:
            if not replace and table.get(key) is not None:
                raise InvalidInput(f"a {self._noun(kind)} is already registered as {key!r}")
            table[key] = part
            if isinstance(part, str):
                self._origin[(kind, key)] = part

    # ------------------------------------------------------------------ finding parts
    def get(self, kind: str, name: str) -> Part:
        """The part registered as `name`, imported if it was named by "module:attribute".
        UnknownDriver when nothing is, DriverNotBuiltIn when it is known but not carried by this install,
        PluginError when it cannot be imported."""
        part = self.find(kind, name)
        if part is not None:
            return part
        key = self._key(name)
        if key in self._entries(kind):
            raise DriverNotBuiltIn(
                f"the {self._noun(kind)} {key!r} is registered but not built into this install; "
                f"built in: {', '.join(self.built_in(kind))} (register an implementation with Registry.register)"
            )
        raise UnknownDriver(f"no {self._noun(kind)} named {key!r}; known: {', '.join(self.names(kind))}")

    def find(self, kind: str, name: str) -> Part | None:
        """The part registered as `name`, or None when there is none or it is known but not built in."""
        entries = self._entries(kind)
        key = self._key(name)
        part = entries.get(key)
        if isinstance(part, str):
            part = self._load(kind, key, part)
        return part

    def has(self, kind: str, name: str) -> bool:
        """Whether a working part is registered as `name` (it is not imported to find out)."""
        return self._entries(kind).get(self._key(name)) is not None

    def names(self, kind: str) -> list[str]:
        """Every name registered for `kind`, the not-built-in ones included."""
        return sorted(self._entries(kind))

    def built_in(self, kind: str) -> list[str]:
        """The names of `kind` with a part in this install."""
        return sorted(n for n, p in self._entries(kind).items() if p is not None)

    def parts(self, kind: str) -> dict[str, Part]:
        """name -> part for every working part of `kind` (each imported)."""
        out = {}
        for name in self.built_in(kind):
            part = self.find(kind, name)
            if part is not None:
                out[name] = part
        return out

    # ------------------------------------------------------------------ inside
    def _entries(self, kind: str) -> dict[str, Any]:
        table = self._table(kind)
        if self._discover:
            with self._lock:
                if self._discover:
                    self._discover = False
                    self._add_entry_points(entry_point_parts())
        return table

    def _add_entry_points(self, found: Iterable[tuple[str, str, str, str]]) -> None:
        for kind, name, value, label in found:
            if kind not in self._parts or not _NAME[kind].fullmatch(name) or not _is_ref(value):
                continue  # not ours to read: another version's kind, or a malformed entry
            if name in self._parts[kind] and self._parts[kind][name] is not None:
                continue  # a plug-in does not shadow a part already here (a built-in, or one registered)
            self._parts[kind][name] = value
            self._origin[(kind, name)] = label

    def _load(self, kind: str, name: str, ref: str) -> Part:
        module, _, attr = ref.partition(":")
        try:
            obj: Any = importlib.import_module(module)
            for a in attr.split("."):
                obj = getattr(obj, a)
        except Exception as exc:  # noqa: BLE001 -- any failure of a plug-in's import is reported the same way
            where = self._origin.get((kind, name), ref)
            raise PluginError(f"the {self._noun(kind)} {name!r} ({where}) cannot be loaded: {type(exc).__name__}: {exc}") from None
        if not callable(obj):
            raise PluginError(f"the {self._noun(kind)} {name!r} ({self._origin.get((kind, name), ref)}) is not callable")
        with self._lock:
            if self._parts[kind].get(name) == ref:
                self._parts[kind][name] = obj  # imported once
        return obj

    def _table(self, kind: str) -> dict[str, Any]:
        if kind not in self._parts:
            raise InvalidInput(f"a part's kind is one of {', '.join(KINDS)}, not {kind!r}")
        return self._parts[kind]

    def _name(self, kind: str, name: str) -> str:
        key = self._key(name)
        if not _NAME[kind].fullmatch(key):
            raise InvalidInput(f"not a {kind} name: {name!r}")
        return key

    @staticmethod
    def _key(name: str) -> str:
        if not isinstance(name, str):
            raise InvalidInput(f"a part's name is a string, got {type(name).__name__}")
        return name.strip().lower()

    @staticmethod
    def _noun(kind: str) -> str:
        return _NOUN.get(kind, f"{kind} store driver")


def _is_ref(value: str) -> bool:
    module, sep, attr = value.partition(":")
    return bool(sep) and all(p.isidentifier() for p in module.split(".")) and all(p.isidentifier() for p in attr.split("."))


def entry_point_parts() -> list[tuple[str, str, str, str]]:
    """(kind, name, "module:attribute", label) for each entry point of the group `GROUP` the installed
    distributions declare, named "KIND:NAME"; others are left out."""
    from importlib.metadata import entry_points

    out = []
    for ep in entry_points(group=GROUP):
        kind, sep, name = ep.name.partition(":")
        if sep:
            dist = getattr(ep, "dist", None)
            label = f"entry point {ep.name!r}" + (f" of {dist.name}" if dist is not None else "")
            out.append((kind.strip(), name.strip().lower(), ep.value.strip(), label))
    return out


_DEFAULT: Registry | None = None
_DEFAULT_LOCK = threading.Lock()


def default_registry() -> Registry:
    """The registry the library uses when it is handed none: the built-ins and the installed plug-ins,
    plus whatever a caller registered on it. Made on first use."""
    global _DEFAULT
    if _DEFAULT is None:
        with _DEFAULT_LOCK:
            if _DEFAULT is None:
                _DEFAULT = Registry()
    return _DEFAULT
