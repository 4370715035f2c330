"""Decisions (HIP-0526 §6): what an agent chose, under which rule, citing which assertions.

    Record   {id, agent, choice, because, rule, at, allowed, reason, informed_by}
    Policy   allow(agent, choice) -> (allowed, reason)      (a Protocol; `name` names its prov:Plan)
    Recorder record(...) -> Record ; by(agent) -> [Record] ; chain(id) -> [Record] ; get(id)

A decision is an RDF m:Decision prov:Activity in the provenance graph: associated with its agent under
the policy as prov:Plan (qualified association), `m:because a:<id>` for every cited assertion (also
`prov:used`, for PROV tools), `prov:wasInformedBy` every earlier decision it rests on, m:choice,
m:allowed and the policy's m:reason. A refusal is recorded exactly like an allowed choice and returned
as a Record with allowed=False; it is never raised. `chain` is the walk along prov:wasInformedBy
(queries/decision-chain.rq), never a stored narrative. The instant is the store clock's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Iterable, Protocol, runtime_checkable

import pyoxigraph as ox

from semantic_rdf.rdf import layout as L, ntriples as N
from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.core.values import MAX_NAME, check_text, is_blank
from semantic_rdf.core.vocab import (
    M,
    P,
    PROVENANCE_GRAPH,
    RDF_TYPE,
    agent_iri,
    assertion_iri,
    segment_iri,
)

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

__all__ = ["Record", "Policy", "AllowAll", "DenyChoices", "AllowAgents", "RequireBelieved", "Recorder"]

G = PROVENANCE_GRAPH
_DEC = "https://w3id.org/semantic-rdf/decision/"
_A = "https://w3id.org/semantic-rdf/a/"


@dataclass(frozen=True)
class Record:
    id: str
    agent: str
    choice: str
    because: tuple[str, ...]
    rule: str | None
    at: datetime
    allowed: bool
    reason: str | None = None
    informed_by: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "agent": self.agent,
            "choice": self.choice,
            "because": list(self.because),
            "rule": self.rule,
            "at": self.at.isoformat(),
            "allowed": self.allowed,
            "reason": self.reason,
            "informed_by": list(self.informed_by),
        }


@runtime_checkable
class Policy(Protocol):
    """Answers before the act. `name` names the rule (a prov:Plan) the decision is recorded under."""

    @property
    def name(self) -> str: ...

    def allow(self, agent: str, choice: str) -> tuple[bool, str]: ...


@dataclass(frozen=True)
class AllowAll:
    name: str = "allow-all"

    def allow(self, agent: str, choice: str) -> tuple[bool, str]:
        return True, "no restriction"


@dataclass(frozen=True)
class DenyChoices:
    """Refuses the listed choices (compared after folding white space and case)."""

    choices: frozenset[str]
    reason: str = "this choice is not permitted"
    name: str = "deny-choices"

    def __post_init__(self) -> None:
        object.__setattr__(self, "choices", frozenset(self.choices))

    def allow(self, agent: str, choice: str) -> tuple[bool, str]:
        key = " ".join(choice.split()).lower()
        if key in {" ".join(c.split()).lower() for c in self.choices}:
            return False, self.reason
        return True, "choice not on the deny list"


@dataclass(frozen=True)
class AllowAgents:
    """Allows only the listed agents."""

    agents: frozenset[str]
    name: str = "allow-agents"

    def __post_init__(self) -> None:
        object.__setattr__(self, "agents", frozenset(self.agents))

    def allow(self, agent: str, choice: str) -> tuple[bool, str]:
        if agent in self.agents:
            return True, f"{agent} is an allowed agent"
        return False, f"{agent} is not among the allowed agents"


@dataclass(frozen=True)
class RequireBelieved:
    """Refuses a choice whose cited assertions are not all believed now. Bind the citations with `citing`."""

    store: AssertionStore
    because: tuple[str, ...] = ()
    name: str = "require-believed-evidence"

    def citing(self, because: Iterable[str]) -> "RequireBelieved":
        return RequireBelieved(self.store, tuple(because), self.name)

    def allow(self, agent: str, choice: str) -> tuple[bool, str]:
        bad = [i for i in self.because if T.state(self.store, i) != "believed"]
        if bad:
            return False, "evidence not believed: " + ", ".join(bad)
        return True, "all cited evidence is believed"


def _decision_iri(did: str) -> ox.NamedNode:
    if not isinstance(did, str) or len(did) != 16 or any(c not in "0123456789abcdef" for c in did):
        raise InvalidInput(f"not a decision id (16 lower-case hex digits): {did!r}")
    return segment_iri("decision", did)


def _check_text(what: str, s: str, limit: int = 2000) -> str:
    if not isinstance(s, str) or is_blank(s):
        raise InvalidInput(f"a decision needs a non-empty {what}")
    return check_text(f"the {what}", s, limit).strip()  # the length (as for every name), valid Unicode (no lone surrogate)


class Recorder:
    """Records decisions in an assertion store and reads them back."""

    def __init__(self, store: AssertionStore, policy: Policy | None = None, agent_kind: str = "software") -> None:
        self.store = store
        self.policy = policy or AllowAll()
        self.agent_kind = agent_kind

    def record(
        self, agent: str, choice: str, because: Iterable[str] = (), *, informed_by: Iterable[str] = (), policy: Policy | None = None
    ) -> Record:
        """Ask the policy, then record the decision — allowed or refused — and return it."""
        agent = _check_text("agent", agent, MAX_NAME)
        choice = _check_text("choice", choice)
        pol = policy or self.policy
        if not isinstance(pol, Policy):
            raise InvalidInput("the policy must have a name and an allow(agent, choice) method")
        cites = []
        for i in because:
            a = assertion_iri(i)  # validates the id
            if not (T.types_of(self.store, a) & {M.Assertion.value, M.Tombstone.value}):
                raise NotFound(f"decision cites {i}, which this store has never held")
            cites.append(a)
        prior = []
        for earlier in informed_by:
            di = _decision_iri(earlier)
            if M.Decision.value not in T.types_of(self.store, di):
                raise NotFound(f"no decision with id {earlier}")
            prior.append(di)
        allowed, reason = pol.allow(agent, choice)
        if not isinstance(allowed, bool) or not isinstance(reason, str):
            raise InvalidInput(f"policy {pol.name!r} must answer (bool, str)")
        plan = self.store.ensure_plan(_check_text("policy name", pol.name, MAX_NAME), M.Policy, pol.name)
        ag = self.store.ensure_agent(agent, self.agent_kind)
        at = self.store.now()
        did = L.h16(agent, choice, at.isoformat())
        d = _decision_iri(did)
        q: list[N.AnyQuad] = [*L.activity_quads(d, M.Decision, ag, at, plan, f"{agent}: {choice}"[:200])]
        q += [
            ox.Quad(d, P.endedAtTime, L.dt(at), G),
            ox.Quad(d, M.choice, L.string(choice), G),
            ox.Quad(d, M.allowed, L.boolean(allowed), G),
            ox.Quad(d, M.reason, L.string(reason), G),
        ]
        for a in cites:
            q += [ox.Quad(d, M.because, a, G), ox.Quad(d, P.used, a, G)]
        q += [ox.Quad(d, P.wasInformedBy, x, G) for x in prior]
        self.store.commit(q)
        return Record(
            did, agent, choice, tuple(a.value[len(_A) :] for a in cites), pol.name, at, allowed, reason, tuple(x.value[len(_DEC) :] for x in prior)
        )

    def get(self, did: str) -> Record:
        d = _decision_iri(did)
        props: dict[str, list] = {}
        for q in self.store.quads(d, None, None, G):
            props.setdefault(q.predicate.value, []).append(q.object)
        if M.Decision.value not in {x.value for x in props.get(RDF_TYPE.value, [])}:
            raise NotFound(f"no decision with id {did}")
        rule = None
        for assoc in props.get(P.qualifiedAssociation.value, []):
            for q in self.store.quads(assoc, P.hadPlan, None, G):
                rule = self.store.label(q.object)
        agent = props[P.wasAssociatedWith.value][0]
        reason = props.get(M.reason.value)
        return Record(
            id=did,
            agent=self.store.label(agent),
            choice=props[M.choice.value][0].value,
            because=tuple(sorted(x.value[len(_A) :] for x in props.get(M.because.value, []))),
            rule=rule,
            at=L.parse_dt(props[P.startedAtTime.value][0]),
            allowed=props[M.allowed.value][0].value == "true",
            reason=reason[0].value if reason else None,
            informed_by=tuple(sorted(x.value[len(_DEC) :] for x in props.get(P.wasInformedBy.value, []))),
        )

    def by(self, agent: str) -> list[Record]:
        """Every decision `agent` made, oldest first (queries/decisions-by-agent.rq)."""
        rows = self.store.run_query("decisions-by-agent", agent=agent_iri(_check_text("agent", agent, MAX_NAME)))
        return [self.get(r["d"].value[len(_DEC) :]) for r in rows]

    def chain(self, did: str) -> list[Record]:
        """The decisions `did` rests on, oldest first: the walk along prov:wasInformedBy (queries/decision-chain.rq)."""
        self.get(did)  # NotFound for an unknown id
        rows = self.store.run_query("decision-chain", d=_decision_iri(did))
        return [self.get(r["prior"].value[len(_DEC) :]) for r in rows]
