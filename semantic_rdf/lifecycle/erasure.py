"""Erasure: remove an assertion and leave a tombstone; `compact` makes the removal physical.

Retraction is not erasure (HIP-0526 Security Considerations). `erase` drops, in one transaction:
  * the claim graph g:<id>;
  * the record's payload: echoes, literals, belief intervals, and every observation (span / caller
    statement) with its selector;
  * the erased spans' characters in the stored document text, overwritten with a filler character of
    the same length, so the offsets of every other span stay valid;
  * entity-registry rows (label, folded name) of entities no other record, claim or decision uses;
and writes a typed tombstone in their place (`a:<id> a m:Tombstone` with the time, the reason and an
m:Erasure activity naming the agent), so traces and decisions that cite the id still resolve.

Text is blanked only where no surviving assertion's selector overlaps it; otherwise `erase` raises
SharedEvidence naming those assertions, or erases them too (`with_shared_evidence`). `erase_document`
revokes a source and `erase_entity` erases everything about one entity. Each form also rewrites surviving
literals that repeat an erased name or quote (decisions' m:choice / m:reason, labels, notes, references),
and `screen` keeps erased data from coming back through import and pull (tombstones win). docs/security.md
("Erasure semantics") is the full statement.

What was derived from an erased assertion is withdrawn (its belief interval closes, recorded), like a
retraction; a derived assertion left with no antecedent that is still an assertion is erased too,
because a derivation must name an antecedent (HIP-0526 §5, shapes) and because what would remain is
the erased claim restated (e.g. the inverse of an erased parent_of).

Oxigraph (RocksDB) keeps deleted values in older files until they are compacted away, so after an
erasure the text can still sit in the store's files. `compact(store_dir)` copies every live quad into a
fresh store directory and swaps it in atomically, then deletes the old one. `AssertionStore.compact` runs it
for an open store and publishes `compacted`, on which the side tables vacuum their file; `erase` publishes
`erased`, on which they drop the erased rows (semantic_rdf/core/events.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Collection, Iterable, Sequence

import pyoxigraph as ox

from semantic_rdf.rdf import layout as L
from semantic_rdf.rdf.ntriples import StoredQuad
from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.core.errors import InvalidInput, NotFound, SharedEvidence
from semantic_rdf.core.events import StoreEvent
from semantic_rdf.store.tombstones import RECORD, SOURCE, entity_in_use, erasedSha256, redacted, target
from semantic_rdf.core.values import display_ref
from semantic_rdf.core.identity import fold
from semantic_rdf.core.vocab import (
    DOCUMENT_GRAPH,
    ENTITY_GRAPH,
    M,
    NS,
    OA_,
    P,
    PROVENANCE_GRAPH,
    RDF_TYPE,
    RDFS_LABEL,
    assertion_iri,
    claim_graph,
    SKOS,
    entity_iri,
    id_of,
)

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = ["erase", "erase_entity", "erase_document", "redact", "FILLER"]

G = PROVENANCE_GRAPH
FILLER = "\u2588"  # FULL BLOCK: visibly redacted, one code point per erased character
_ALT_LABEL = ox.NamedNode(SKOS + "altLabel")  # an entity's other names (layout.alias_quads)

# ------------------------------------------------------------------ erase

_SRC = SOURCE
_A = RECORD
_DOC_ID = ox.NamedNode(NS + "docId")
# Literals of surviving nodes that can repeat what an erasure removes: a decision's question and the gate's
# account (m:choice, m:reason), labels of runs and decisions, caller-statement notes, references.
_SCRUBBED = (M.choice, M.reason, RDFS_LABEL, M.note, M.reference)
_MIN_QUOTE = 12  # shorter erased quotes ("London") are words, not quotes: names are scrubbed by name


def _payload(store: AssertionStore, aid: str) -> tuple[list[StoredQuad], list[tuple[ox.NamedNode, int, int]], set[str]]:
    """The quads an erasure removes for one record, the text spans it redacts, the entities it mentions."""
    a = assertion_iri(aid)
    quads = list(store.quads(None, None, None, claim_graph(aid)))
    rec = list(store.quads(a, None, None, G))
    quads += rec
    spans: list[tuple[ox.NamedNode, int, int]] = []
    entities: set[str] = set()
    for q in rec:
        if q.predicate in (M.subject, M.object) and isinstance(q.object, ox.NamedNode):
            entities.add(q.object.value)
        elif q.predicate == M.belief and isinstance(q.object, ox.NamedNode):
            quads += store.quads(q.object, None, None, G)
        elif q.predicate == P.wasDerivedFrom and isinstance(q.object, ox.NamedNode) and q.object.value.startswith(_SRC):
            sq, span = _source_payload(store, q.object)
            quads += sq
            if span is not None:
                spans.append(span)
    return quads, spans, entities


def _source_payload(store: AssertionStore, src: ox.NamedNode) -> tuple[list[StoredQuad], tuple[ox.NamedNode, int, int] | None]:
    """The quads of one observation (span with its selector, or caller statement) and the span it points at."""
    sq = list(store.quads(src, None, None, G))
    doc: ox.NamedNode | None = None
    sel: ox.NamedNode | ox.BlankNode | None = None
    for x in sq:
        if x.predicate == OA_.hasSource and isinstance(x.object, ox.NamedNode):
            doc = x.object
        elif x.predicate == OA_.hasSelector and isinstance(x.object, (ox.NamedNode, ox.BlankNode)):
            sel = x.object
    if sel is None:
        return sq, None
    selq = list(store.quads(sel, None, None, G))
    start = next((int(x.object.value) for x in selq if x.predicate == OA_.start), None)
    end = next((int(x.object.value) for x in selq if x.predicate == OA_.end), None)
    span = (doc, start, end) if doc is not None and start is not None and end is not None else None
    return sq + selq, span


def _spans_into(store: AssertionStore, doc: ox.NamedNode) -> list[tuple[str, int, int]]:
    """(assertion id, start, end) of every span source pointing into `doc`."""
    out = []
    for q in store.quads(None, OA_.hasSource, doc, G):
        if not isinstance(q.subject, ox.NamedNode):  # a span source is an IRI
            continue
        _, span = _source_payload(store, q.subject)
        if span is None:
            continue
        for r in store.quads(None, P.wasDerivedFrom, q.subject, G):
            if isinstance(r.subject, ox.NamedNode) and r.subject.value.startswith(_A):
                out.append((id_of(r.subject), span[1], span[2]))
    return out


def redact(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """`text` with every [start, end) span overwritten by FILLER; the length (in code points) is unchanged."""
    chars = list(text)
    for start, end in spans:
        if not 0 <= start <= end <= len(chars):
            raise InvalidInput(f"span {start}..{end} lies outside the document text (length {len(chars)})")
        chars[start:end] = FILLER * (end - start)
    return "".join(chars)


def _erasure_set(store: AssertionStore, roots: Iterable[str]) -> tuple[list[str], list[str]]:
    """(ids to erase, derived ids to withdraw): the roots, plus derived records left without a live antecedent."""
    roots = list(dict.fromkeys(roots))
    gone = set(roots)
    withdraw: list[str] = []

    def orphaned(_ante: str, d: str) -> bool:
        antes = [x.object.value for x in store.quads(assertion_iri(d), P.wasDerivedFrom, None, G)]
        has_obs = any(x.startswith(_SRC) for x in antes)
        live = [x for x in antes if x.startswith(_A) and id_of(x) not in gone and M.Assertion.value in T.types_of(store, ox.NamedNode(x))]
        if not live and not has_obs:
            return True
        if d not in withdraw:
            withdraw.append(d)
        return False

    erase = roots + T.spread(store, roots, gone, orphaned)
    return erase, [d for d in withdraw if d not in gone]


def _name_pattern(names: Iterable[str]) -> re.Pattern | None:
    """One case-insensitive pattern for every name (white space between its words may vary), longest first."""
    alts = sorted({" ".join(n.split()) for n in names if n and n.strip()}, key=len, reverse=True)
    if not alts:
        return None
    parts = [r"\s+".join(re.escape(w) for w in a.split(" ")) for a in alts]
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


def _registry_names(store: AssertionStore) -> dict[str, str]:
    """entity IRI -> display name of every registry entry."""
    return {q.subject.value: q.object.value for q in store.quads(None, RDFS_LABEL, None, ENTITY_GRAPH)}


def _own_aliases(store: AssertionStore, iris: Iterable[str]) -> list[str]:
    """The other names (skos:altLabel) of these entities that no other entity holds as its name or as one
    of its other names: an erasure of the entities removes them with the entity and scrubs them from text;
    a shared one ("Desmarais" of two Desmarais) names someone who stays."""
    iris = set(iris)
    own = {q.object.value for i in iris for q in store.quads(ox.NamedNode(i), _ALT_LABEL, None, ENTITY_GRAPH)}
    if not own:
        return []
    held = {fold(n) for i, n in _registry_names(store).items() if i not in iris}
    held |= {fold(q.object.value) for q in store.quads(None, _ALT_LABEL, None, ENTITY_GRAPH) if q.subject.value not in iris}
    return sorted(a for a in own if fold(a) not in held)


def _scrub_terms(store: AssertionStore, names: Iterable[str], forgotten: set[str]) -> list[str]:
    """The names to scrub from surviving literals: each erased name, and each word of it (3+ letters) that no
    surviving registry entry's name uses ("Quintavenn" alone names only the erased person; "Ada" may not)."""
    names = [n for n in names if n and n.strip()]
    if not names:
        return []
    kept_words: set[str] = set()
    for iri, label in _registry_names(store).items():
        if iri not in forgotten:
            kept_words.update(w.casefold() for w in re.findall(r"\w+", label))
    from semantic_rdf.interfaces.retrieval import STOPWORDS  # "The" of "The Who" is no one's name

    out = set(names)
    for n in names:
        for w in re.findall(r"\w+", n):
            if len(w) >= 3 and not w.isdigit() and w.casefold() not in kept_words and w.lower() not in STOPWORDS:
                out.add(w)
    return sorted(out)


@dataclass(frozen=True)
class _Names:
    """Erased names to find in text, except inside a surviving entity's longer name that contains one
    ("Zorblax Quintavenn" inside "Zorblax Quintavenn Foundation" is the foundation's name, which stays)."""

    pattern: re.Pattern | None
    shield: re.Pattern | None

    def spans(self, text: str) -> list[tuple[int, int]]:
        if self.pattern is None:
            return []
        keep = [(m.start(), m.end()) for m in self.shield.finditer(text)] if self.shield is not None else []
        return [(m.start(), m.end()) for m in self.pattern.finditer(text) if not any(a <= m.start() and m.end() <= b for a, b in keep)]

    def sub(self, text: str, marker: str) -> str:
        for s, e in reversed(self.spans(text)):
            text = text[:s] + marker + text[e:]
        return text


def _names(store: AssertionStore, names: Iterable[str], forgotten: set[str], extra: Iterable[str] = ()) -> _Names:
    """_Names for these entity names (and their own words, `_scrub_terms`) plus `extra` literal strings."""
    pattern = _name_pattern(_scrub_terms(store, names, forgotten) + list(extra))
    if pattern is None:
        return _Names(None, None)
    longer = [n for i, n in _registry_names(store).items() if i not in forgotten and pattern.search(n)]
    return _Names(pattern, _name_pattern(longer))


@dataclass
class _Plan:
    """What one erasure removes and rewrites, built before anything is written."""

    ids: list[str]
    withdraw: list[str]
    shared: list[str]  # ids erased because they quote text that is erased
    blanks: dict[str, list[tuple[int, int]]]  # document IRI -> spans to overwrite with FILLER


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _plan(store: AssertionStore, roots: list[str], extra: dict[str, list[tuple[int, int]]], with_shared: bool, dropped: set[str], what: str) -> _Plan:
    """The erasure set, grown by the assertions whose quotes overlap the text it blanks, and by those whose quotes
    overlap theirs, until none does (with_shared); or SharedEvidence naming every one of them (without), so that a
    refusal says all that `--with-shared-evidence` would erase. Documents in `dropped` lose their whole text:
    nothing overlaps there."""
    ids, withdraw = _erasure_set(store, roots)
    shared: list[str] = []
    first: list[str] = []  # the assertions quoting the text of what was asked for, before the ones quoting theirs
    while True:
        blanks: dict[str, list[tuple[int, int]]] = {d: list(s) for d, s in extra.items() if d not in dropped}
        for i in ids:
            for doc, s, e in _payload(store, i)[1]:
                if doc.value not in dropped and e > s:
                    blanks.setdefault(doc.value, []).append((s, e))
        gone = set(ids)
        hit: dict[str, None] = {}
        for d, spans in blanks.items():
            for aid, s, e in _spans_into(store, ox.NamedNode(d)):
                if aid not in gone and e > s and any(_overlaps((s, e), b) for b in spans):
                    hit[aid] = None
        if not hit:
            if shared and not with_shared:
                raise SharedEvidence(_refusal(what, first, shared), tuple(sorted(shared)))
            return _Plan(ids, [w for w in withdraw if w not in gone], shared, blanks)
        first = first or sorted(hit)
        shared += [h for h in hit if h not in shared]
        ids, withdraw = _erasure_set(store, list(ids) + list(hit))


def _refusal(what: str, first: list[str], shared: list[str]) -> str:
    def listed(ids: list[str]) -> str:
        return ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")

    more = sorted(set(shared) - set(first))
    then = f" (and, quoting the text those would lose, {listed(more)})" if more else ""
    return (
        f"{what} refused: the text it would blank is also quoted by surviving assertion(s) {listed(first)}{then}; "
        "erase them too with --with-shared-evidence"
    )


def erase(store: AssertionStore, aid: str, reason: str, agent: str = "caller", *, with_shared_evidence: bool = False) -> T.Change:
    """Erase one assertion (and what would only restate it), leaving tombstones. See the module docstring.

    Refused with SharedEvidence when a surviving assertion quotes text this erasure would blank, unless
    `with_shared_evidence`, which erases those too (each with its own tombstone)."""
    T.check_id(aid)
    reason = T.check_reason(reason)
    st = T.require_state(store, aid, erased=None)  # erasing a tombstone again is recorded, not refused
    if st == "erased":
        act, at, q = T.activity(store, M.Erasure, agent, reason=reason, label=f"erase {aid}")
        store.commit(q)  # the request is recorded; the tombstone already says the rest
        return T.Change(act.value, at, unchanged=(aid,))
    plan = _plan(store, [aid], {}, with_shared_evidence, set(), f"erase {aid}")
    return _apply(store, plan, aid, reason, agent, label=f"erase {aid}", marker=f"[erased a:{aid}]")


def erase_entity(store: AssertionStore, name: str, reason: str, agent: str = "caller", *, with_shared_evidence: bool = False) -> T.Change:
    """Erase everything the store says about one entity: every assertion naming it (or a registry alias of
    it: the bare surname of a person no one else shares it with), those registry entries, and every mention
    of those names in stored document text. Refused like `erase` when a surviving assertion quotes a mention."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("an entity name is required")
    reason = T.check_reason(reason)
    e = entity_iri(name)
    names = _registry_names(store)
    if e.value not in names:
        holders = sorted(
            names.get(q.subject.value, "") for q in store.quads(None, _ALT_LABEL, None, ENTITY_GRAPH) if fold(q.object.value) == fold(name)
        )
        hint = f" ({name[:100]!r} is another name of {', '.join(repr(h[:100]) for h in holders[:5])}: erase by that name)" if holders else ""
        raise NotFound(f"no entity named {name[:100]!r} in the registry{hint}")
    targets = {e.value: names[e.value]}
    words = fold(names[e.value]).split()
    if len(words) >= 2:  # a bare surname is an alias when it names only this person (answer.Linker.aliases)
        alias = entity_iri(words[-1])
        sharing = [i for i, n in names.items() if i != e.value and len(fold(n).split()) >= 2 and fold(n).split()[-1] == words[-1]]
        if alias.value in names and not sharing:
            targets[alias.value] = names[alias.value]
    roots: dict[str, None] = {}
    for iri in targets:
        node = ox.NamedNode(iri)
        for p in (M.subject, M.object):
            for q in store.quads(None, p, node, G):
                if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(_A):
                    roots[id_of(q.subject)] = None
    # the name, its own words, and its other names no one else holds
    mentions = _names(store, list(targets.values()) + _own_aliases(store, targets), set(targets))
    extra: dict[str, list[tuple[int, int]]] = {}
    for q in store.quads(None, M.text, None, DOCUMENT_GRAPH):
        found = mentions.spans(q.object.value)
        if found:
            extra.setdefault(q.subject.value, []).extend(found)
    plan = _plan(store, list(roots), extra, with_shared_evidence, set(), f"erase entity {name!r}")
    return _apply(store, plan, None, reason, agent, label="erase an entity", marker="[erased]", forget=set(targets))


def erase_document(store: AssertionStore, ref: str, reason: str, agent: str = "caller") -> T.Change:
    """Revoke a source: every stored version of the document `ref` (reference, id or IRI) loses its text and
    description and every span pointing into it. Assertions with no other observation become tombstones
    (Change.erased); the others keep their other sources (Change.kept). The erasure keeps each version's
    sha256, so ingesting the same content again is refused (`erased_documents`)."""
    reason = T.check_reason(reason)
    try:
        docs = T.documents_of(store, ref)
    except NotFound:
        # the reference `ingest` stored for the path the user names
        if not isinstance(ref, str) or display_ref(ref) == ref:
            raise
        docs = T.documents_of(store, display_ref(ref))
    dropped = {d.value for d in docs}
    roots: list[str] = []
    detach: dict[str, list[ox.NamedNode]] = {}
    for d in docs:
        for q in store.quads(None, OA_.hasSource, d, G):
            if not isinstance(q.subject, ox.NamedNode):  # a span source is an IRI
                continue
            for r in store.quads(None, P.wasDerivedFrom, q.subject, G):
                if isinstance(r.subject, ox.NamedNode) and r.subject.value.startswith(_A):
                    detach.setdefault(id_of(r.subject), []).append(q.subject)
    for aid, srcs in detach.items():
        own = {s.value for s in srcs}
        others = [x for x in T.objects_of(store, assertion_iri(aid), P.wasDerivedFrom) if x.value.startswith(_SRC) and x.value not in own]
        if not others and T.state(store, aid) != "erased":
            roots.append(aid)
    plan = _plan(store, roots, {}, True, dropped, f"erase document {ref!r}")
    keep = {a: s for a, s in detach.items() if a not in set(plan.ids)}
    return _apply(store, plan, None, reason, agent, label="erase a document", marker="[erased]", drop_docs=docs, detach=keep)


def _detach_quads(store: AssertionStore, aid: str, srcs: list[ox.NamedNode], batch: T.Batch) -> list[StoredQuad]:
    """Remove span sources from a record that keeps others: count, confidence and kinds follow its sources."""
    a = assertion_iri(aid)
    gone = {s.value for s in srcs}
    removing: list[StoredQuad] = []
    for s in srcs:
        removing += _source_payload(store, s)[0]
        removing.append(ox.Quad(a, P.wasDerivedFrom, s, G))  # type: ignore[arg-type]  # a Quad of IRIs, so a StoredQuad
    left = [x for x in T.objects_of(store, a, P.wasDerivedFrom) if x.value not in gone]
    confs, spans = [], 0
    for x in left:
        c = T.one_of(store, x, M.confidence)
        if c is not None:
            confs.append(float(c.value))
        if OA_.SpecificResource.value in T.types_of(store, x):
            spans += 1
    removing += store.quads(a, M.count, None, G)
    batch.add.append(ox.Quad(a, M.count, L.integer(sum(x.value.startswith(_SRC) for x in left)), G))
    if confs:
        removing += store.quads(a, M.confidence, None, G)
        batch.add.append(ox.Quad(a, M.confidence, L.dec(max(confs)), G))
    if not spans:
        removing += store.quads(a, RDF_TYPE, M.ExtractedAssertion, G)
    batch.touched.add(a.value)
    return removing


def _apply(
    store: AssertionStore,
    plan: _Plan,
    root: str | None,
    reason: str,
    agent: str,
    *,
    label: str,
    marker: str,
    forget: Collection[str] = frozenset(),
    drop_docs: Sequence[ox.NamedNode] = (),
    detach: dict[str, list[ox.NamedNode]] | None = None,
) -> T.Change:
    """Write one erasure: tombstones, removals, redactions and the scrubbing of surviving literals."""
    ids = plan.ids
    removing: list[StoredQuad] = []
    entities: set[str] = set(forget)
    quotes: list[str] = []
    batch = T.Batch(store)
    payloads = {}
    for i in ids:
        pq, sp, ent = _payload(store, i)
        payloads[i] = pq
        removing += pq
        entities |= ent
    texts: dict[str, str] = {}
    for d in list(plan.blanks) + [d.value for d in drop_docs]:
        for q in store.quads(ox.NamedNode(d), M.text, None, DOCUMENT_GRAPH):
            texts[d] = q.object.value
    for d, spans in plan.blanks.items():
        t = texts.get(d, "")
        quotes += [t[s:e] for s, e in spans if e - s >= _MIN_QUOTE and e <= len(t)]
    for aid, srcs in (detach or {}).items():
        removing += _detach_quads(store, aid, srcs, batch)
    removing_keys = {str(x) for x in removing}
    names = _registry_names(store)
    forgotten: list[str] = []  # folded names, for the store's cache
    forgotten_iris: set[str] = set()
    for e in sorted(entities):
        node = ox.NamedNode(e)
        if e in forget or not entity_in_use(store, node, removing_keys):
            rows = list(store.quads(node, None, None, ENTITY_GRAPH))
            if rows:
                removing += rows
                forgotten += [r.object.value for r in rows if r.predicate == M.folded]
                forgotten_iris.add(e)
    doc_names: list[str] = []
    for doc in drop_docs:
        dq = list(store.quads(doc, None, None, G))
        removing += dq
        removing += store.quads(doc, None, None, DOCUMENT_GRAPH)
        # its reference, and a title long enough not to be a common word ("Home", "Notes")
        doc_names += [
            q.object.value
            for q in dq
            if isinstance(q.object, ox.Literal) and (q.predicate == M.reference or q.predicate == RDFS_LABEL and len(q.object.value) >= _MIN_QUOTE)
        ]
    # an erased name stays nowhere as an other name (skos:altLabel) of an entity that survives
    gone = set(forgotten)
    for q in store.quads(None, _ALT_LABEL, None, ENTITY_GRAPH):
        if q.subject.value not in forgotten_iris and fold(q.object.value) in gone:
            removing.append(q)
    scrub = _names(store, [names[e] for e in forgotten_iris if e in names] + _own_aliases(store, forgotten_iris), forgotten_iris, doc_names)

    def clean(text: str) -> str:
        for qt in quotes:
            text = text.replace(qt, marker)
        return scrub.sub(text, marker)

    reason = clean(reason)
    act, at, act_q = T.activity(store, M.Erasure, agent, reason=reason, label=label)
    batch.add += act_q
    for i in ids:
        ta = assertion_iri(i)
        if i == root:
            why = reason
        elif i in plan.shared:
            why = f"{reason} (its quote shared text with what was erased)"
        elif root is not None:
            why = f"{reason} (derived only from erased a:{root})"
        else:
            why = reason
        batch.add += [
            ox.Quad(ta, RDF_TYPE, M.Tombstone, G),
            ox.Quad(ta, RDF_TYPE, P.Entity, G),
            ox.Quad(ta, P.invalidatedAtTime, L.dt(at), G),
            ox.Quad(ta, P.wasInvalidatedBy, act, G),
            ox.Quad(ta, M.reason, L.string(why), G),
        ]
    for d, spans in plan.blanks.items():
        node = ox.NamedNode(d)
        for old in store.quads(node, M.text, None, DOCUMENT_GRAPH):
            removing.append(old)
            batch.add.append(ox.Quad(node, M.text, L.string(redact(old.object.value, spans)), DOCUMENT_GRAPH))
        batch.add.append(ox.Quad(act, redacted, node, G))
    for aid in detach or {}:  # a record that lost sources: an import must not give them back
        batch.add.append(ox.Quad(act, redacted, assertion_iri(aid), G))
    for doc in drop_docs:
        batch.add.append(ox.Quad(act, target, doc, G))
        for s in store.quads(doc, M.sha256, None, G):
            batch.add.append(ox.Quad(act, erasedSha256, s.object, G))
    # surviving literals that repeat an erased name or quote (decisions, answer reasons, labels, notes)
    removed_subjects = {x.subject.value for x in removing}
    scrubbed: set[str] = set()
    if scrub.pattern is not None or quotes:
        for pred in _SCRUBBED:
            for old in list(store.quads(None, pred, None, G)):
                if old.subject.value in removed_subjects or not isinstance(old.object, ox.Literal):
                    continue
                new = clean(old.object.value)
                if new != old.object.value:
                    removing.append(old)
                    batch.add.append(
                        ox.Quad(
                            old.subject,
                            pred,
                            ox.Literal(new, datatype=old.object.datatype)
                            if old.object.language is None
                            else ox.Literal(new, language=old.object.language),
                            G,
                        )
                    )
                    if old.subject.value not in scrubbed:
                        batch.add.append(ox.Quad(act, redacted, old.subject, G))
                    scrubbed.add(old.subject.value)
    batch.remove += removing
    cascaded = []
    for d in plan.withdraw:
        da = assertion_iri(d)
        if T.has_live_observation(store, da, set()):
            continue
        if T.close_belief(batch, da, act, at, because=assertion_iri(root) if root else None):
            cascaded.append(d)
    cascaded += T.cascade_withdraw(batch, cascaded, act, at, skip=set(ids))
    # the check sees tombstones and activity, not the removed payload; nodes that keep part of their
    # description (a record that lost a source, a scrubbed decision) are checked whole
    partial = {assertion_iri(a).value for a in (detach or {})} | scrubbed
    batch.touched |= scrubbed
    batch.touched -= {x.subject.value for x in removing} - partial
    batch.commit()
    store.forget(entities=forgotten, nodes=(d.value for d in drop_docs))
    _forget_push_state(store)
    # after everything above is durable: the side tables drop the rows (semantic_rdf/core/events.py)
    store.publish(StoreEvent("erased", tuple(ids), tuple(cascaded), activity=act.value))
    kept = tuple(sorted(detach or {}))
    return T.Change(act.value, at, tuple(x for x in ([root] if root else [])), kept, tuple(cascaded), (), tuple(ids))


def _forget_push_state(store: AssertionStore) -> None:
    """Drop the incremental push state (sync.py): its molecule list names subjects, entity IRIs among them,
    whose slugs spell erased names. Without it the next push is a full one, which also replaces the
    remote copy, so the erased data leaves the remote store too."""
    if store.path is None:
        return
    state = Path(store.path) / "push-state"
    for f in list(state.glob("*.keys")) + list(state.glob("*.npy")):
        f.unlink(missing_ok=True)
