"""Tombstones: what an erasure left behind that the store itself enforces (docs/security.md).

An erased assertion is never written again (`refuse_erased`), an erased document version is not ingested
again (`erased_documents`), and `screen` keeps erased data from coming back through import and pull:
tombstones win. The erasures themselves are lifecycle/erasure's (`semantic_rdf.lifecycle.erasure`); these are the
reads the store's own write paths need, so they sit beside the store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

import pyoxigraph as ox

from semantic_rdf.core.errors import ErasedData, InvalidInput
from semantic_rdf.core.vocab import ENTITY_GRAPH, M, NS, OA_, P, PREFIXES, PROVENANCE_GRAPH, RDF_TYPE, assertion_iri, id_of

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = [
    "erased_documents",
    "tombstoned",
    "refuse_erased",
    "screen",
    "Screened",
    "entity_in_use",
    "erasedSha256",
    "target",
    "redacted",
    "RECORD",
    "SOURCE",
]

G = PROVENANCE_GRAPH
erasedSha256 = ox.NamedNode(NS + "erasedSha256")  # the sha256 of a document version an erasure revoked
target = ox.NamedNode(NS + "target")  # what an erasure erased
redacted = ox.NamedNode(NS + "redacted")  # a node whose literals an erasure rewrote
RECORD = PREFIXES["a"]  # assertion records
SOURCE = PREFIXES["src"]  # their sources (spans and caller observations)
_A, _SRC = RECORD, SOURCE


def entity_in_use(store: AssertionStore, e: ox.NamedNode, removing: set[str]) -> bool:
    """Whether a quad outside the entity registry, other than those in `removing` (as text), names entity `e`."""
    for q in store.quads(None, None, e, None):
        if q.graph_name != ENTITY_GRAPH and str(q) not in removing:
            return True
    for q in store.quads(e, None, None, None):
        if q.graph_name != ENTITY_GRAPH and str(q) not in removing:
            return True
    return False


def erased_documents(store: AssertionStore) -> set[str]:
    """The sha256 of every document version an erasure revoked (`erase --document`)."""
    return {q.object.value for q in store.quads(None, erasedSha256, None, G)}


def tombstoned(store: AssertionStore) -> set[str]:
    """Ids of every erased assertion."""
    return {id_of(q.subject.value) for q in store.quads(None, RDF_TYPE, M.Tombstone, G) if q.subject.value.startswith(_A)}


def refuse_erased(store: AssertionStore, aid: str) -> None:
    """ErasedData if `aid` is erased: what `assert` calls before it records anything."""
    if store.has(assertion_iri(aid), RDF_TYPE, o=M.Tombstone):
        raise ErasedData(f"assertion {aid} was erased; it is not written again (tombstones win)", (aid,))


@dataclass(frozen=True)
class Screened:
    """What an import or pull left out because an erasure had removed it."""

    ids: tuple[str, ...] = ()  # erased assertions whose data the input held
    documents: tuple[str, ...] = ()  # erased document versions (IRIs) whose data the input held
    redacted: int = 0  # literals of redacted nodes (decisions, documents) the input held in their old form
    quads: int = 0  # quads left out in all

    def __bool__(self) -> bool:
        return bool(self.quads)

    def as_dict(self) -> dict:
        return {"ids": list(self.ids), "documents": list(self.documents), "redacted": self.redacted, "quads": self.quads}

    def text(self) -> str:
        parts = []
        if self.ids:
            parts.append(f"{len(self.ids)} erased assertion(s) ({', '.join(self.ids[:5])}{' …' if len(self.ids) > 5 else ''})")
        if self.documents:
            parts.append(f"{len(self.documents)} erased document(s)")
        if self.redacted:
            parts.append(f"{self.redacted} redacted value(s) in their old form")
        return f"{self.quads} quads of " + ", ".join(parts)


def _text(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> str:
    """A term's value; "" for an RDF 1.2 triple term (import refuses those before screening)."""
    return "" if isinstance(term, ox.Triple) else term.value


def _erased_id_of(value: str) -> str | None:
    """The assertion id a record, claim graph, source, selector or belief IRI is minted from, else None."""
    for prefix in (_A, "https://w3id.org/semantic-rdf/g/", _SRC, "https://w3id.org/semantic-rdf/belief/"):
        if value.startswith(prefix):
            head = value[len(prefix) :][:16]
            if len(head) == 16 and all(c in "0123456789abcdef" for c in head):
                return head
    return None


def screen(store: AssertionStore, quads: list[ox.Quad], on_erased: str = "refuse") -> tuple[list[ox.Quad], Screened]:
    """Leave out of `quads` (an import or a pull) everything an erasure removed: the record, claim graph,
    sources, selectors and belief intervals of a tombstoned id (its tombstone quads, already stored, may
    stay), erased document versions (by IRI or sha256) and the spans into them, old values of redacted
    literals, and registry rows of entities only those named. on_erased 'refuse' raises ErasedData when
    anything would be left out (nothing is written); 'skip' returns the rest and what was left out."""
    if on_erased not in ("refuse", "skip"):
        raise InvalidInput("on_erased is 'refuse' or 'skip'")
    tombs = tombstoned(store)
    shas = erased_documents(store)
    docs = {_text(q.object) for q in store.quads(None, target, None, G) if store.has(q.subject, RDF_TYPE, o=M.Erasure)}
    docs |= {_text(q.subject) for q in quads if q.predicate == M.sha256 and _text(q.object) in shas}
    red = {_text(q.object) for q in store.quads(None, redacted, None, G)}
    if not tombs and not docs and not red:
        return quads, Screened()
    srcs_in = {_text(q.subject) for q in quads if q.predicate == OA_.hasSource and _text(q.object) in docs}
    srcs_in |= {_text(q.object) for q in quads if q.predicate == OA_.hasSelector and _text(q.subject) in srcs_in}
    keep: list[ox.Quad] = []
    ids: dict[str, None] = {}
    hit_docs: dict[str, None] = {}
    n_red = 0
    dropped: list[ox.Quad] = []
    # Every quad of an erased or redacted node is left out: those the store holds already change nothing, and
    # a node described in part would fail the shapes (only the others are counted and reported).
    for q in quads:
        s = q.subject.value if isinstance(q.subject, ox.NamedNode) else ""
        g = q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else ""
        i = _erased_id_of(g) or _erased_id_of(s)
        if i is not None and i in tombs:
            if q not in store.ox:
                ids[i] = None
        elif s in docs or s in srcs_in or (q.predicate == P.wasDerivedFrom and _text(q.object) in srcs_in):
            if q not in store.ox:
                hit_docs[s if s in docs else next(iter(docs))] = None
        elif s in red:
            if q not in store.ox:
                n_red += 1
        else:
            keep.append(q)
            continue
        dropped.append(q)
    if not ids and not hit_docs and not n_red:
        return quads, Screened()
    # registry rows of entities that only the left-out quads named
    named = {_text(q.object) for q in dropped if q.predicate in (M.subject, M.object) and isinstance(q.object, ox.NamedNode)}
    used = set()
    for q in keep:
        if q.graph_name != ENTITY_GRAPH:
            used.add(q.subject.value if isinstance(q.subject, ox.NamedNode) else "")
            used.add(q.object.value if isinstance(q.object, ox.NamedNode) else "")
    orphans = {e for e in named if e not in used and not entity_in_use(store, ox.NamedNode(e), set())}
    rest = []
    for q in keep:
        if q.graph_name == ENTITY_GRAPH and _text(q.subject) in orphans and q not in store.ox:
            dropped.append(q)
        else:
            rest.append(q)
    rep = Screened(tuple(ids), tuple(hit_docs), n_red, sum(q not in store.ox for q in dropped))
    if on_erased == "refuse":
        raise ErasedData(f"the input holds {rep.text()}; nothing was written (tombstones win; skip them with --skip-erased)", rep.ids)
    return rest, rep
