"""Looking around a store: list assertions, show one, search names and text, list entities and predicates.

Every read here is a packaged query (queries/list.rq, entities.rq, search.rq, text-search.rq,
decisions-about.rq, ontology/predicates.rq) with its parameters bound as terms; names the user types go through
the entity registry (folded, as identity folds them), never into query text. A name or predicate that
matches nothing is an error that suggests the closest ones the store (or the taxonomy) holds.

>>> from semantic_rdf.store.assertions import AssertionStore
>>> store = AssertionStore.memory()
>>> aid = store.assert_("Ada Lovelace", "wrote", "Note G", score=0.9)
>>> [(r.record.subject, r.record.predicate, r.record.object) for r in list_assertions(store).rows]
[('Ada Lovelace', 'wrote', 'Note G')]
>>> [e.label for e in entities(store)]
['Ada Lovelace', 'Note G']
>>> resolve_entity(store, "ada lovelac")
Traceback (most recent call last):
...
semantic_rdf.core.errors.NotFound: no entity named 'ada lovelac'; did you mean 'Ada Lovelace'?
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache

import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.core.identity import fold
from semantic_rdf.rdf.queries import packaged
from semantic_rdf.core.resources import files
from semantic_rdf.store.assertions import AssertionStore, Record
from semantic_rdf.core.vocab import NS, id_of, predicate_iri

__all__ = [
    "Listed",
    "Page",
    "Quote",
    "EntityInfo",
    "PredicateInfo",
    "TextHit",
    "Shown",
    "Decision",
    "STATES",
    "list_assertions",
    "show",
    "entities",
    "search",
    "predicates",
    "resolve_entity",
    "entities_named",
]

STATES = ("believed", "retracted")
_QUOTE_LIMIT = 240  # characters of a span shown in a listing; `show` prints the whole span


@dataclass(frozen=True)
class Quote:
    """One span source of an assertion: the document it is in and the text it points at."""

    reference: str | None
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Listed:
    """One row of `list`: the record, whether it is believed now, and its quoted spans."""

    record: Record
    believed: bool
    quotes: tuple[Quote, ...]

    def as_dict(self) -> dict:
        return {**self.record.as_dict(), "believed": self.believed, "quotes": [q.__dict__ for q in self.quotes]}


@dataclass(frozen=True)
class Page:
    rows: tuple[Listed, ...]
    offset: int
    limit: int
    more: bool  # another page follows

    def as_dict(self) -> dict:
        return {"offset": self.offset, "limit": self.limit, "more": self.more, "assertions": [r.as_dict() for r in self.rows]}


@dataclass(frozen=True)
class EntityInfo:
    iri: str
    label: str
    types: tuple[str, ...]
    aliases: tuple[str, ...]
    uses: int  # assertion records naming it as subject or object

    def as_dict(self) -> dict:
        return {"iri": self.iri, "label": self.label, "types": list(self.types), "aliases": list(self.aliases), "uses": self.uses}


@dataclass(frozen=True)
class PredicateInfo:
    name: str
    label: str
    category: str
    comment: str
    wikidata: tuple[tuple[str, str], ...]  # (match kind, Wikidata property id), e.g. ("exact", "P19")

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "label": self.label,
            "category": self.category,
            "comment": self.comment,
            "wikidata": [{"match": m, "property": p} for m, p in self.wikidata],
        }


@dataclass(frozen=True)
class TextHit:
    """A search hit: an entity name or alias, or a place in a stored document's text."""

    kind: str  # "entity" | "text"
    label: str  # entity label, or document reference
    at: int | None  # offset in the document (text hits)
    snippet: str

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Decision:
    id: str
    at: str
    agent: str
    choice: str
    allowed: bool
    reason: str | None


@dataclass(frozen=True)
class Shown:
    """Everything `show` prints about one assertion."""

    listed: Listed
    trace: dict  # provenance.trace(...).as_dict(): derivations and sources, recursively
    trace_text: str
    decisions: tuple[Decision, ...]

    def as_dict(self) -> dict:
        return {**self.listed.as_dict(), "trace": self.trace, "decisions": [d.__dict__ for d in self.decisions]}


# ------------------------------------------------------------------ names


def resolve_entity(store: AssertionStore, name: str) -> ox.NamedNode:
    """The IRI of a stored entity, found by its folded name; unknown names raise NotFound with suggestions."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("an entity name must be non-empty text")
    rows = store.run_query("entities", folded=ox.Literal(fold(name)))
    if rows:
        return rows[0]["e"]  # type: ignore[return-value]
    raise NotFound(f"no entity named {name!r}{_did_you_mean(name, [e.label for e in entities(store)])}")


def entities_named(store: AssertionStore, name: str) -> list[tuple[ox.NamedNode, str]]:
    """(IRI, label) of every entity `name` may mean: by its folded name or as an alias (several: ambiguous)."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("an entity name must be non-empty text")
    return [(r["e"], r["label"].value) for r in store.run_query("entity-by-name", folded=ox.Literal(fold(name)))]  # type: ignore[misc]


def _did_you_mean(name: str, candidates: list[str]) -> str:
    by_fold = {fold(c): c for c in candidates}
    close = difflib.get_close_matches(fold(name), list(by_fold), n=3, cutoff=0.6)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(by_fold[c]) for c in close) + "?"


# ------------------------------------------------------------------ list / show


def list_assertions(
    store: AssertionStore,
    *,
    subject: str | None = None,
    predicate: str | None = None,
    obj: str | None = None,
    reference: str | None = None,
    run: str | None = None,
    state: str | None = None,
    limit: int = 20,
    offset: int = 0,
) -> Page:
    """A page of assertions matching every given filter, in id order, each with its quoted spans.

    `subject`/`obj` are entity names (an object that is no entity is matched as a literal value);
    `reference` a document reference as ingest recorded it; `run` a run id or IRI; `state` one of STATES.
    """
    if state is not None and state not in STATES:
        raise InvalidInput(f"state must be one of {', '.join(STATES)}, not {state!r}")
    if not (isinstance(limit, int) and 1 <= limit <= 10_000) or not (isinstance(offset, int) and offset >= 0):
        raise InvalidInput("limit must be 1..10000 and offset 0 or more")
    params: dict[str, ox.NamedNode | ox.Literal | None] = {
        "s": resolve_entity(store, subject) if subject is not None else None,
        "p": predicate_iri(predicate) if predicate is not None else None,
        "o": _object_term(store, obj) if obj is not None else None,
        "reference": ox.Literal(reference) if reference is not None else None,
        "run": _run_iri(run) if run is not None else None,
        "state": ox.Literal(state) if state is not None else None,
    }
    # one row more than asked for says whether another page follows; limit and offset are checked ints
    text = packaged("list", **params) + f"\nLIMIT {limit + 1} OFFSET {offset}\n"
    found = store.select(text)
    rows = []
    for row in found[:limit]:
        rec = store.get(id_of(row["a"]))  # type: ignore[arg-type]
        if rec is not None:
            rows.append(Listed(rec, row["open"] is not None, _quotes(store, rec)))
    return Page(tuple(rows), offset, limit, len(found) > limit)


def show(store: AssertionStore, aid: str) -> Shown:
    """One assertion: the triple, its state in both clocks, every source with its whole quote, the
    derivation tree (provenance.trace) and the decisions taken because of it."""
    from semantic_rdf.lifecycle.provenance import trace

    rec = store.require(aid)
    believed = bool(rec.believed) and rec.believed[-1][1] is None
    t = trace(store, aid, with_text=True)
    decisions = tuple(
        Decision(
            id_of(r["d"]),
            r["at"].value,
            store.label(r["agent"]),
            r["choice"].value,
            r["allowed"].value in ("true", "1"),
            r["reason"].value if r["reason"] is not None else None,
        )
        for r in store.run_query("decisions-about", a=ox.NamedNode(_assertion(aid)))
    )
    return Shown(Listed(rec, believed, _quotes(store, rec, limit=None)), t.as_dict(), t.text(), decisions)


def _assertion(aid: str) -> str:
    from semantic_rdf.core.vocab import assertion_iri

    return assertion_iri(aid).value


def _quotes(store: AssertionStore, rec: Record, limit: int | None = _QUOTE_LIMIT) -> tuple[Quote, ...]:
    out = []
    for s in rec.sources:
        if s.kind == "span" and s.start is not None and s.end is not None:
            try:
                text = store.span_text(s)
            except NotFound:  # the document's text was erased; the selector stays
                text = ""
            if limit is not None and len(text) > limit:
                text = text[: limit - 1] + "…"
            out.append(Quote(s.reference, s.start, s.end, text))
    return tuple(out)


def _object_term(store: AssertionStore, name: str) -> ox.NamedNode | ox.Literal:
    rows = store.run_query("entities", folded=ox.Literal(fold(name)))
    return rows[0]["e"] if rows else ox.Literal(name)  # type: ignore[return-value]


def _run_iri(run: str) -> ox.NamedNode:
    from semantic_rdf.core.vocab import iri_node, segment_iri

    if run.startswith("https://"):
        return iri_node(run, "run")

    return segment_iri("run", run)


# ------------------------------------------------------------------ entities / search


def entities(store: AssertionStore, *, name: str | None = None) -> list[EntityInfo]:
    """Every registered entity (or the one folded to `name`), with its classes, aliases and uses."""
    params = {"folded": ox.Literal(fold(name))} if name is not None else {}
    merged: dict[str, dict] = {}
    for r in store.run_query("entities", **params):
        e = merged.setdefault(r["e"].value, {"label": r["label"].value, "types": set(), "aliases": set(), "uses": 0})
        if r["type"] is not None:
            e["types"].add(_local(r["type"].value))
        if r["alias"] is not None:
            e["aliases"].add(r["alias"].value)
        e["uses"] = max(e["uses"], int(r["uses"].value))
    return [EntityInfo(iri, e["label"], tuple(sorted(e["types"])), tuple(sorted(e["aliases"])), e["uses"]) for iri, e in merged.items()]


def _local(iri: str) -> str:
    return iri[len(NS) :] if iri.startswith(NS) else iri


def search(store: AssertionStore, text: str, *, limit: int = 50) -> list[TextHit]:
    """Entity names and aliases containing `text` (case-insensitive), then places in stored documents."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("search text must be non-empty")
    needle = fold(text)
    hits = [TextHit("entity", r["label"].value, None, r["hit"].value) for r in store.run_query("search", needle=ox.Literal(needle))]
    plain = text.strip().lower()
    for r in store.run_query("text-search", needle=ox.Literal(plain)):
        body = r["text"].value
        low, at = body.lower(), body.lower().find(plain)
        while at >= 0 and len(hits) < limit:
            lo, hi = max(0, at - 60), min(len(body), at + len(plain) + 60)
            snippet = ("…" if lo else "") + " ".join(body[lo:hi].split()) + ("…" if hi < len(body) else "")
            hits.append(TextHit("text", r["reference"].value, at, snippet))
            at = low.find(plain, at + len(plain))
    return hits[:limit]


# ------------------------------------------------------------------ predicates


@lru_cache(maxsize=1)
def predicates() -> tuple[PredicateInfo, ...]:
    """The taxonomy predicates by category, with their Wikidata alignments (from ontology/*.ttl)."""
    scratch = ox.Store()
    for path in files("ontology", "*.ttl"):
        scratch.load(path=str(path), format=ox.RdfFormat.TURTLE)
    kinds = {
        "http://www.w3.org/2004/02/skos/core#exactMatch": "exact",
        "http://www.w3.org/2004/02/skos/core#broadMatch": "broad",
        NS + "inverseMatch": "inverse",
    }
    merged: dict[str, dict] = {}
    rows = scratch.query(packaged("ontology/predicates"))
    assert isinstance(rows, ox.QuerySolutions)  # a SELECT
    for r in rows:
        p = merged.setdefault(
            r["name"].value,
            {
                "label": r["label"].value,
                "category": r["category"].value if r["category"] else "",
                "comment": r["comment"].value if r["comment"] else "",
                "wikidata": [],
            },
        )
        if r["match"] is not None:
            p["wikidata"].append((kinds[r["match"].value], r["wikidata"].value.rsplit("/", 1)[-1]))
    return tuple(PredicateInfo(n, p["label"], p["category"], p["comment"], tuple(p["wikidata"])) for n, p in merged.items())
