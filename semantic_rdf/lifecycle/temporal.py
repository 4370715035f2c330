"""Two clocks: valid time (when the world was that way) and record time (when the store believed it).

Record time lives in belief intervals (m:BeliefInterval, see layout.py): an assertion is believed at an
instant when one of its intervals covers it. Retraction closes the open interval, reinstatement opens a
new one; neither deletes anything, so an as-of read before a retraction still sees the claim. Every
write takes its instant from the store clock (`store.now()`), never from the caller (HIP-0526 §2 and
Security Considerations: a caller-declared bound is backdating). Reads take caller instants freely.

Valid time is `m:validFrom` / `m:validUntil` on the record; `close_valid` only ever shortens it and keeps
the previous end on the recorded m:ValidTimeClosing activity.

Retraction as a set (`retract_set`) marks every observation (span or caller statement) produced by one
run, one agent or one source document as invalidated, then closes each claim that no other live,
independent observation still supports. Withdrawing an assertion withdraws, transitively, the derived
assertions that name it as an antecedent and have no observation of their own (recorded, with
m:withdrawnBecause on the closed interval); reinstating it reopens those once all their antecedents are
believed again.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, AbstractSet, Callable, Iterable, Sequence

import pyoxigraph as ox

from semantic_rdf.rdf import layout as L, ntriples as N
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.core.events import StoreEvent
from semantic_rdf.rdf.queries import Term
from semantic_rdf.core.resources import query as load_query
from semantic_rdf.core.values import MAX_NAME, MAX_TEXT, Validity, check_text, utc
from semantic_rdf.core.vocab import (
    M,
    NS,
    P,
    PROVENANCE_GRAPH,
    RDF_TYPE,
    agent_iri,
    assertion_iri,
    entity_iri,
    id_of,
    iri_node,
    predicate_name,
    segment_iri,
)

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = [
    "Claim",
    "Change",
    "Interval",
    "as_of",
    "believed",
    "state",
    "history",
    "retract",
    "retract_set",
    "reinstate",
    "close_valid",
    "retracted",
    "bind_rows",
    "activity",
    # the building blocks erasure, reason and decisions share with the verbs above
    "Batch",
    "open_belief",
    "close_belief",
    "cascade_withdraw",
    "has_live_observation",
    "documents_of",
    "objects_of",
    "one_of",
    "types_of",
    "check_id",
    "check_reason",
]

G = PROVENANCE_GRAPH
ValidTimeClosing = ox.NamedNode(NS + "ValidTimeClosing")
setValidUntil = ox.NamedNode(NS + "setValidUntil")
previousValidUntil = ox.NamedNode(NS + "previousValidUntil")
target = ox.NamedNode(NS + "target")
withdrawnBecause = ox.NamedNode(NS + "withdrawnBecause")
_DERIVED = M.DerivedAssertion


# ------------------------------------------------------------------ values


@dataclass(frozen=True)
class Claim:
    """One assertion as a read returns it. Confidence is the record's current (highest) confidence."""

    id: str
    subject: str
    predicate: str
    object: str
    confidence: float
    valid: Validity | None = None

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "confidence": self.confidence,
            "valid_from": self.valid.start.isoformat() if self.valid and self.valid.start else None,
            "valid_until": self.valid.until.isoformat() if self.valid and self.valid.until else None,
        }


@dataclass(frozen=True)
class Interval:
    """A stretch of record time in which an assertion was believed, with the activities that opened/closed it."""

    start: datetime
    until: datetime | None
    opened_by: str
    opened_kind: str
    closed_by: str | None = None
    closed_kind: str | None = None
    reason: str | None = None
    withdrawn_because: str | None = None

    def as_dict(self) -> dict:
        return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class Change:
    """What one retraction, reinstatement or erasure did. A retraction of what is already retracted, or a
    reinstatement of what is already believed, is a no-op: nothing is written, `activity` is None and
    `nothing_changed` is true (the ids are in `unchanged`)."""

    activity: str | None  # IRI of the recorded prov:Activity; None when nothing was recorded (a no-op)
    at: datetime
    changed: tuple[str, ...] = ()  # ids whose belief changed as asked
    kept: tuple[str, ...] = ()  # ids left believed: another independent observation still supports them
    cascaded: tuple[str, ...] = ()  # derived ids withdrawn (or reopened) as a consequence
    unchanged: tuple[str, ...] = ()  # ids already in the asked-for state
    erased: tuple[str, ...] = ()  # ids tombstoned (erasure only)

    @property
    def nothing_changed(self) -> bool:
        """True for a no-op: no activity was recorded and no assertion changed state."""
        return self.activity is None

    def as_dict(self) -> dict:
        return {
            "activity": self.activity,
            "at": self.at.isoformat(),
            "changed": list(self.changed),
            "kept": list(self.kept),
            "cascaded": list(self.cascaded),
            "unchanged": list(self.unchanged),
            "erased": list(self.erased),
            "nothing_changed": self.nothing_changed,
        }


# ------------------------------------------------------------------ query helpers


def bind_rows(query_text: str, names: Sequence[str], rows: Iterable[Sequence[Term | None]]) -> str:
    """`query_text` with a multi-row VALUES block (None = UNDEF) first in its outermost WHERE group.

    Terms are serialised by pyoxigraph (validated IRIs, escaped literals): no caller text reaches the query.
    """
    body = []
    for row in rows:
        if len(row) != len(names):
            raise ValueError("row width does not match the variable list")
        cells = []
        for t in row:
            if t is None:
                cells.append("UNDEF")
            elif isinstance(t, (ox.NamedNode, ox.Literal)):
                cells.append(str(t))
            else:
                raise InvalidInput(f"a bound value must be an IRI or literal term, got {type(t).__name__}")
        body.append("(" + " ".join(cells) + ")")
    m = _first_where(query_text)
    values = f" VALUES ({' '.join('?' + n for n in names)}) {{ {' '.join(body)} }} "
    return query_text[:m] + values + query_text[m:]


_WHERE = re.compile(r"\bWHERE\s*\{", re.IGNORECASE)


def _first_where(text: str) -> int:
    """Offset just after the brace of the first WHERE group outside a comment line."""
    pos = 0
    for line in text.splitlines(keepends=True):
        if not line.lstrip().startswith("#"):
            m = _WHERE.search(line)
            if m:
                return pos + m.end()
        pos += len(line)
    raise ValueError("query has no WHERE group")


def _select(store: AssertionStore, name: str, **params: Term | None) -> list[dict]:
    return store.run_query(name, **params)


def objects_of(store: AssertionStore, s: ox.NamedNode, p: ox.NamedNode) -> list:
    """The objects of `s p` in the provenance graph."""
    return [q.object for q in store.quads(s, p, None, G)]


def one_of(store: AssertionStore, s: ox.NamedNode, p: ox.NamedNode):
    """One object of `s p` in the provenance graph, or None."""
    for q in store.quads(s, p, None, G):
        return q.object
    return None


def types_of(store: AssertionStore, s: ox.NamedNode) -> set[str]:
    """The rdf:types (IRIs as text) of `s` in the provenance graph."""
    return {q.object.value for q in store.quads(s, RDF_TYPE, None, G)}


def check_id(aid: str) -> ox.NamedNode:
    """The record IRI of an assertion id."""
    return assertion_iri(aid)  # raises InvalidInput for anything but 16 lower-case hex digits


def check_reason(reason: str) -> str:
    """A reason within the boundary's text limit (values.MAX_TEXT), whitespace collapsed."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("a reason is required")
    return " ".join(check_text("the reason", reason, MAX_TEXT).split())


def _instant(t: datetime | None) -> ox.Literal | None:
    return None if t is None else L.dt(utc(t))


# ------------------------------------------------------------------ reads


def state(store: AssertionStore, aid: str) -> str | None:
    """'believed', 'retracted', 'erased', or None when the store never held the id."""
    a = check_id(aid)
    types = types_of(store, a)
    if M.Tombstone.value in types:
        return "erased"
    if M.Assertion.value not in types:
        return None
    return "believed" if _open_intervals(store, a) else "retracted"


def believed(store: AssertionStore, aid: str, at: datetime | None = None) -> bool:
    """Whether the store believed the assertion at record-time instant `at` (default: now)."""
    a = check_id(aid)
    if at is None:
        return bool(_open_intervals(store, a))
    t = utc(at)
    for start, until in _spans(store, a):
        if start <= t and (until is None or t < until):
            return True
    return False


def _beliefs(store: AssertionStore, a: ox.NamedNode) -> list[ox.NamedNode]:
    return [o for o in objects_of(store, a, M.belief)]


def _spans(store: AssertionStore, a: ox.NamedNode) -> list[tuple[datetime, datetime | None]]:
    out = []
    for b in _beliefs(store, a):
        f, u = one_of(store, b, M.believedFrom), one_of(store, b, M.believedUntil)
        out.append((L.parse_dt(f), L.parse_dt(u) if u is not None else None))
    return out


def _open_intervals(store: AssertionStore, a: ox.NamedNode) -> list[ox.NamedNode]:
    return [b for b in _beliefs(store, a) if one_of(store, b, M.believedUntil) is None]


_KIND_OF = {
    M.Ingestion.value: "ingestion",
    M.Statement.value: "statement",
    M.Derivation.value: "derivation",
    M.Retraction.value: "retraction",
    M.Reinstatement.value: "reinstatement",
    M.Erasure.value: "erasure",
    M.Decision.value: "decision",
    ValidTimeClosing.value: "valid-time closing",
}


def activity_kind(store: AssertionStore, act: ox.NamedNode) -> str:
    for t in types_of(store, act):
        if t in _KIND_OF:
            return _KIND_OF[t]
    return "activity"


def history(store: AssertionStore, aid: str) -> list[Interval]:
    """The belief intervals of an assertion, oldest first, with who opened/closed them and why."""
    a = check_id(aid)
    out = []
    for b in _beliefs(store, a):
        f, u = one_of(store, b, M.believedFrom), one_of(store, b, M.believedUntil)
        ob, cb = one_of(store, b, M.openedBy), one_of(store, b, M.closedBy)
        reason = one_of(store, cb, M.reason) if cb is not None else None
        wb = one_of(store, b, withdrawnBecause)
        out.append(
            Interval(
                L.parse_dt(f),
                L.parse_dt(u) if u is not None else None,
                ob.value,
                activity_kind(store, ob),
                cb.value if cb is not None else None,
                activity_kind(store, cb) if cb is not None else None,
                reason.value if reason is not None else None,
                id_of(wb) if wb is not None else None,
            )
        )
    return sorted(out, key=lambda i: i.start)


def as_of(store: AssertionStore, subject: str, at: datetime | None = None, valid_at: datetime | None = None) -> list[Claim]:
    """What the store believed about `subject` at record-time `at` (default now), valid at `valid_at` (any time).

    Runs queries/asof.rq.
    """
    rows = _select(store, "asof", s=entity_iri(subject), asof=_instant(at), validat=_instant(valid_at))
    out = []
    labels: dict[str, str] = {}  # one lookup per distinct term: the subject is the same on every row

    def label(t) -> str:
        if isinstance(t, ox.Literal):
            return t.value
        got = labels.get(t.value)
        if got is None:
            got = labels[t.value] = store.label(t)
        return got

    for r in rows:
        vf, vu = r["vf"], r["vu"]
        valid = (
            Validity(L.parse_dt(vf) if vf is not None else None, L.parse_dt(vu) if vu is not None else None)
            if (vf is not None or vu is not None)
            else None
        )
        out.append(Claim(id_of(r["a"]), label(r["s"]), predicate_name(r["p"]), label(r["o"]), float(r["conf"].value), valid))
    return out


def retracted(store: AssertionStore, at: datetime | None = None) -> list[dict]:
    """Assertions not believed at `at` (default now) though the store holds them; runs queries/retracted.rq."""
    out = []
    for r in _select(store, "retracted", asof=_instant(at)):
        out.append(
            {
                "id": id_of(r["a"]),
                "closed_at": L.parse_dt(r["closed"]).isoformat() if r["closed"] else None,
                "closed_by": r["by"].value if r["by"] is not None else None,
                "reason": r["reason"].value if r["reason"] is not None else None,
            }
        )
    return out


# ------------------------------------------------------------------ writing helpers


def activity(
    store: AssertionStore,
    cls: ox.NamedNode,
    agent: str,
    *,
    reason: str | None = None,
    label: str | None = None,
    agent_kind: str = "person",
    plan: ox.NamedNode | None = None,
) -> tuple[ox.NamedNode, datetime, list]:
    """A finished activity (started and ended at one store-clock instant) as quads, not yet committed."""
    if not isinstance(agent, str) or not agent.strip():
        raise InvalidInput("an agent name is required")
    ag = store.ensure_agent(agent, agent_kind)
    at = store.now()
    act = segment_iri("run", uuid.uuid4().hex)
    q: list[N.AnyQuad] = [*L.activity_quads(act, cls, ag, at, plan, label)]
    q.append(ox.Quad(act, P.endedAtTime, L.dt(at), G))
    if reason is not None:
        q.append(ox.Quad(act, M.reason, L.string(reason), G))
    return act, at, q


class Batch:
    """Quads to add and remove in one commit, and the quads the shapes must see."""

    def __init__(self, store: AssertionStore) -> None:
        self.store = store
        self.add: list[N.AnyQuad] = []  # pyoxigraph quads, or text quads from layout.py
        self.remove: list[N.AnyQuad] = []
        self.touched: set[str] = set()  # subjects whose full description goes into the check

    def commit(self) -> None:
        skip = {N.of(q) for q in self.remove} | {N.of(q) for q in self.add}
        check = list(self.add)
        for s in self.touched:
            for q in self.store.quads(ox.NamedNode(s), None, None, G):
                if N.of(q) not in skip:
                    check.append(q)
        self.store.commit(self.add, self.remove, check=check)


def close_belief(batch: Batch, a: ox.NamedNode, act: ox.NamedNode, at: datetime, because: ox.NamedNode | None = None) -> bool:
    """Close the open belief interval(s) of record `a`. False when there was none (closing twice: no change)."""
    store = batch.store
    opened = _open_intervals(store, a)
    if not opened:
        return False
    for b in opened:
        batch.add += [ox.Quad(b, M.believedUntil, L.dt(at), G), ox.Quad(b, M.closedBy, act, G)]
        if because is not None:
            batch.add.append(ox.Quad(b, withdrawnBecause, because, G))
        batch.touched.add(b.value)
    old_t = one_of(store, a, P.invalidatedAtTime)
    if old_t is None:  # the PROV view of the current state: invalidated while retracted
        batch.add += [ox.Quad(a, P.invalidatedAtTime, L.dt(at), G), ox.Quad(a, P.wasInvalidatedBy, act, G)]
    batch.touched.add(a.value)
    return True


def open_belief(batch: Batch, a: ox.NamedNode, act: ox.NamedNode, at: datetime) -> None:
    """Open a new belief interval of record `a` (a fresh interval node: one is never reused)."""
    store = batch.store
    n = len(_beliefs(store, a)) + 1
    b = L.belief_iri(id_of(a), n)
    while store.has(b, RDF_TYPE):  # never reuse an interval node
        n += 1
        b = L.belief_iri(id_of(a), n)
    batch.add += [
        ox.Quad(a, M.belief, b, G),
        ox.Quad(b, RDF_TYPE, M.BeliefInterval, G),
        ox.Quad(b, M.believedFrom, L.dt(at), G),
        ox.Quad(b, M.openedBy, act, G),
    ]
    batch.remove += list(store.quads(a, P.invalidatedAtTime, None, G))
    batch.remove += list(store.quads(a, P.wasInvalidatedBy, None, G))
    batch.touched.add(a.value)


def dependents(store: AssertionStore, ids: Iterable[str]) -> dict[str, list[str]]:
    """antecedent id -> ids of derived assertions naming it (queries/derived-from.rq)."""
    ids = list(ids)
    out: dict[str, list[str]] = {i: [] for i in ids}
    if not ids:
        return out
    text = bind_rows(load_query("derived-from"), ["a"], [(assertion_iri(i),) for i in ids])
    for row in store.query(text):
        out[id_of(row["a"])].append(id_of(row["d"]))
    return out


def has_live_observation(store: AssertionStore, a: ox.NamedNode, excluded: set[str]) -> bool:
    """Whether the record has a span or caller observation that is not invalidated and not in `excluded`."""
    for src in objects_of(store, a, P.wasDerivedFrom):
        if src.value in excluded or not src.value.startswith("https://w3id.org/semantic-rdf/src/"):
            continue
        if one_of(store, src, P.invalidatedAtTime) is None:
            return True
    return False


def spread(store: AssertionStore, roots: Iterable[str], seen: set[str], step: Callable[[str, str], bool]) -> list[str]:
    """Breadth first through the derived assertions resting on `roots`: `step(antecedent, dependent)` runs
    once a round for each dependent not in `seen`; those it accepts join `seen` and the result, and spread."""
    done: list[str] = []
    frontier = list(roots)
    while frontier:
        nxt = []
        for ante, ds in dependents(store, frontier).items():
            for d in ds:
                if d not in seen and step(ante, d):
                    seen.add(d)
                    done.append(d)
                    nxt.append(d)
        frontier = nxt
    return done


def cascade_withdraw(batch: Batch, roots: Iterable[str], act: ox.NamedNode, at: datetime, skip: AbstractSet[str] = frozenset()) -> list[str]:
    """Withdraw, transitively, derived assertions resting on `roots` that have no observation of their own."""
    store = batch.store
    roots = list(roots)
    seen = set(roots) | set(skip)

    def withdraw(ante: str, d: str) -> bool:
        da = assertion_iri(d)
        if has_live_observation(store, da, set()):
            return False
        seen.add(d)  # tried once: already closed or not, it is not tried again
        return close_belief(batch, da, act, at, because=assertion_iri(ante))

    return spread(store, roots, seen, withdraw)


def _cascade_reopen(batch: Batch, roots: Iterable[str], act: ox.NamedNode, at: datetime) -> list[str]:
    """Reopen derived assertions a cascade withdrew, once every antecedent they name is believed again."""
    store = batch.store
    roots = list(roots)
    now_believed = set(roots)

    def reopen(_ante: str, d: str) -> bool:
        da = assertion_iri(d)
        iv = history(store, d)
        if not iv or iv[-1].until is None or iv[-1].withdrawn_because is None:
            return False  # believed, or closed on purpose: only an explicit reinstatement reopens it
        antes = [id_of(x) for x in objects_of(store, da, P.wasDerivedFrom) if x.value.startswith("https://w3id.org/semantic-rdf/a/")]
        if not all(x in now_believed or state(store, x) == "believed" for x in antes):
            return False
        open_belief(batch, da, act, at)
        return True

    return spread(store, roots, now_believed, reopen)


# ------------------------------------------------------------------ retraction and reinstatement


def require_state(store: AssertionStore, aid: str, erased: str | None) -> str:
    """The state of an assertion the store holds (NotFound otherwise); `erased` is the InvalidInput message
    for a tombstone, or None when an erased assertion is acceptable."""
    st = state(store, aid)
    if st is None:
        raise NotFound(f"no assertion with id {aid}")
    if st == "erased" and erased is not None:
        raise InvalidInput(erased)
    return st


def _check_agent(agent: str) -> str:
    if not isinstance(agent, str) or not agent.strip():
        raise InvalidInput("an agent name is required")
    return check_text("the agent", agent, MAX_NAME)  # also when nothing changes, so nothing is written under it


def _no_op(store: AssertionStore, aid: str) -> Change:
    """A change that finds the assertion already in the asked-for state: recorded nowhere (not even the
    agent), so asking twice leaves the store byte for byte as it was (tests/test_retract_noop.py)."""
    return Change(None, store.now(), unchanged=(aid,))


def _begin_one(
    store: AssertionStore, aid: str, reason: str, agent: str, cls: ox.NamedNode, verb: str, erased: str, already: str
) -> tuple[ox.NamedNode, str, ox.NamedNode, datetime, Batch] | None:
    """Check a change to one assertion and open its batch with the activity that records it (and uses the
    record): (record, state, activity, time, batch). None, with nothing written, when the assertion is
    already in state `already`."""
    a = check_id(aid)
    reason = check_reason(reason)
    _check_agent(agent)
    st = require_state(store, aid, erased)
    if st == already:
        return None
    act, at, q = activity(store, cls, agent, reason=reason, label=f"{verb} {aid}")
    q.append(ox.Quad(act, P.used, a, G))
    batch = Batch(store)
    batch.add += q
    return a, st, act, at, batch


def _published(store: AssertionStore, kind: str, ch: Change) -> Change:
    """Tell the store's subscribers (semantic_rdf/core/events.py) of a change just committed; returns `ch`."""
    store.publish(StoreEvent(kind, ch.changed, ch.cascaded, activity=ch.activity))  # type: ignore[arg-type]
    return ch


def retract(store: AssertionStore, aid: str, reason: str, agent: str = "caller") -> Change:
    """Withdraw belief in one assertion: the record and claim stay, the open belief interval closes now.
    Retracting what is already retracted is a no-op (`Change.nothing_changed`; nothing is written)."""
    begun = _begin_one(
        store,
        aid,
        reason,
        agent,
        M.Retraction,
        "retract",
        erased=f"assertion {aid} was erased; there is nothing left to retract",
        already="retracted",
    )
    if begun is None:
        return _no_op(store, aid)
    a, _, act, at, batch = begun
    close_belief(batch, a, act, at)  # believed, so it has an open interval to close
    cascaded = cascade_withdraw(batch, [aid], act, at)
    batch.commit()
    return _published(store, "retracted", Change(act.value, at, (aid,), (), tuple(cascaded)))


def reinstate(store: AssertionStore, aid: str, reason: str, agent: str = "caller") -> Change:
    """Explicitly believe a retracted assertion again, from now on (a new belief interval). Reinstating what
    is already believed is a no-op (`Change.nothing_changed`; nothing is written)."""
    begun = _begin_one(
        store, aid, reason, agent, M.Reinstatement, "reinstate", erased=f"assertion {aid} was erased and cannot be reinstated", already="believed"
    )
    if begun is None:
        return _no_op(store, aid)
    a, _, act, at, batch = begun
    open_belief(batch, a, act, at)
    cascaded = _cascade_reopen(batch, [aid], act, at)
    batch.commit()
    return _published(store, "reinstated", Change(act.value, at, (aid,), (), tuple(cascaded)))


def _set_members(store: AssertionStore, run: str | None, agent: str | None, source: str | None) -> tuple[list[dict], list]:
    """Observations matched by the set selectors, and the IRIs the selectors resolved to."""
    if sum(x is not None for x in (run, agent, source)) != 1:
        raise InvalidInput("name exactly one of run, agent or source")
    if run is not None:
        r = iri_node(run, "run") if run.startswith("https://") else segment_iri("run", run)
        if not types_of(store, r) & {P.Activity.value}:
            raise NotFound(f"no run {run!r}")
        return _select(store, "by-run", run=r), [r]
    if agent is not None:
        check_text("the agent", agent, MAX_NAME)  # the limit every agent name has (ensure_agent, decisions)
        ag = iri_node(agent, "agent") if agent.startswith("https://") else agent_iri(agent)
        if P.Agent.value not in types_of(store, ag):
            raise NotFound(f"no agent {agent!r}")
        return _select(store, "by-run", agent=ag), [ag]
    docs = documents_of(store, source)  # type: ignore[arg-type]
    rows: list[dict] = []
    for d in docs:
        rows += _select(store, "by-source", doc=d)
    return rows, docs


def documents_of(store: AssertionStore, ref: str) -> list[ox.NamedNode]:
    """Documents whose IRI, reference or id is `ref` (every stored version of that source)."""
    if not isinstance(ref, str) or not ref:
        raise InvalidInput("a source reference is required")
    check_text("the source reference", ref, MAX_TEXT)
    found: dict[str, ox.NamedNode] = {}
    if ref.startswith("https://w3id.org/semantic-rdf/doc/"):
        d = iri_node(ref, "document")
        if M.Document.value in types_of(store, d):
            found[d.value] = d
    for p in (M.reference, ox.NamedNode(NS + "docId")):
        for q in store.quads(None, p, ox.Literal(ref), G):
            found[q.subject.value] = q.subject  # type: ignore[assignment]
    if not found:
        raise NotFound(f"no document with reference or id {ref!r}")
    return list(found.values())


def retract_set(
    store: AssertionStore, *, reason: str, run: str | None = None, agent: str | None = None, source: str | None = None, by: str = "caller"
) -> Change:
    """Retract everything one extraction run, one agent (extractor/model) or one source document produced.

    Every observation in the set is marked invalidated (prov:wasInvalidatedBy the retraction). A claim
    stays believed while another observation outside the set, not itself invalidated, supports it. When the
    set's observations are all invalidated already and nothing would close, nothing is written
    (`Change.nothing_changed`).
    """
    reason = check_reason(reason)
    rows, targets = _set_members(store, run, agent, source)
    members: dict[str, set[str]] = {}
    own: set[str] = set()  # derived assertions the run generated itself
    for r in rows:
        aid = id_of(r["a"])
        if r["src"] == r["a"]:
            own.add(aid)
            members.setdefault(aid, set())
        else:
            members.setdefault(aid, set()).add(r["src"].value)
    _check_agent(by)
    all_srcs = set().union(*members.values()) if members else set()
    # Decided before anything is written: a set whose observations are all invalidated already and whose
    # claims are all retracted (or still supported elsewhere) is a no-op that records nothing.
    fresh = [s for s in sorted(all_srcs) if one_of(store, ox.NamedNode(s), P.invalidatedAtTime) is None]
    closing, kept, unchanged = [], [], []
    for aid in sorted(members):
        a = assertion_iri(aid)
        if state(store, aid) != "believed":
            unchanged.append(aid)
        elif has_live_observation(store, a, all_srcs) or (aid not in own and _derived_support(store, a)):
            kept.append(aid)
        else:
            closing.append(aid)
    if not fresh and not closing:
        return Change(None, store.now(), (), tuple(kept), (), tuple(unchanged))
    label = "retract " + ("run " + run if run else "agent " + agent if agent else "source " + str(source))
    act, at, q = activity(store, M.Retraction, by, reason=reason, label=label[:200])
    q += [ox.Quad(act, target, t, G) for t in targets]
    q += [ox.Quad(act, P.used, assertion_iri(aid), G) for aid in sorted(members)]
    batch = Batch(store)
    batch.add += q
    for s in fresh:
        node = ox.NamedNode(s)
        batch.add += [ox.Quad(node, P.invalidatedAtTime, L.dt(at), G), ox.Quad(node, P.wasInvalidatedBy, act, G)]
        batch.touched.add(s)  # the check must see the whole observation, not only the new quads
    changed = [aid for aid in closing if close_belief(batch, assertion_iri(aid), act, at)]
    cascaded = cascade_withdraw(batch, changed, act, at, skip=set(members))
    batch.commit()
    return _published(store, "retracted", Change(act.value, at, tuple(changed), tuple(kept), tuple(cascaded), tuple(unchanged)))


def _derived_support(store: AssertionStore, a: ox.NamedNode) -> bool:
    """A derived record is supported by its antecedents while every one of them is believed."""
    if M.DerivedAssertion.value not in types_of(store, a):
        return False
    antes = [x for x in objects_of(store, a, P.wasDerivedFrom) if x.value.startswith("https://w3id.org/semantic-rdf/a/")]
    return bool(antes) and all(state(store, id_of(x)) == "believed" for x in antes)


# ------------------------------------------------------------------ valid time


def close_valid(store: AssertionStore, aid: str, until: datetime, reason: str, agent: str = "caller") -> Validity:
    """End the valid time of an assertion at `until`. Only ever shortens: a later end changes nothing."""
    a = check_id(aid)
    reason = check_reason(reason)
    until = utc(until)
    require_state(store, aid, erased=f"assertion {aid} was erased")
    vf, vu = one_of(store, a, M.validFrom), one_of(store, a, M.validUntil)
    start = L.parse_dt(vf) if vf is not None else None
    current = Validity(start, L.parse_dt(vu) if vu is not None else None)
    new = current.closed_at(until) if start is None or until > start else None
    if new is None:
        assert start is not None  # None above only for an end at or before a known start
        raise InvalidInput(f"closing at {until.isoformat()} would end the span before it starts ({start.isoformat()})")
    if new == current:
        return current
    act, at, q = activity(store, ValidTimeClosing, agent, reason=reason, label=f"close valid time of {aid}")
    q += [ox.Quad(act, P.used, a, G), ox.Quad(act, setValidUntil, L.dt(until), G)]
    batch = Batch(store)
    if vu is not None:
        q.append(ox.Quad(act, previousValidUntil, vu, G))
        batch.remove.append(ox.Quad(a, M.validUntil, vu, G))
    batch.add += q + [ox.Quad(a, M.validUntil, L.dt(until), G)]
    batch.touched.add(a.value)
    batch.commit()
    return new
