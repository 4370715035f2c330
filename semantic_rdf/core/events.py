"""Store events: what changed in one AssertionStore, told to the subscribers registered on that store object.

    unsubscribe = store.subscribe(callback)   # callback(event: StoreEvent) after each durable change
    unsubscribe()

Who publishes: the store itself (`committed`: `assert_triples`, `import_`; `compacted`: `compact`; `closed`: `close`
of an on-disk store opened for writing), and the
modules that change its state through `store.commit` (temporal: `retracted` / `reinstated`; erasure: `erased`;
reason: `committed` / `reinstated` for derived assertions). Always after the change is durable, on the thread
that made it, in that thread's order of changes. Nothing is published for a no-op.

Failure rule: every subscriber runs, even after one raised; then the first exception is re-raised (the
others added to it as notes). The store change stands (it is durable before anyone is told), so the caller
learns that a subscriber is out of step instead of the change being undone or half-applied. Not logged and
swallowed, because the subscribers are the side tables, and a silent failure after an erasure would leave
the erased names in them while the erasure looked complete; what they derive is rebuilt from the store at
the next `Memory.attach` / `sync`. docs/architecture.md ("Store events") is the full statement.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Literal, NamedTuple

__all__ = ["StoreEvent", "Subscribers", "Subscriber", "KINDS", "WrittenFact", "WrittenSpan", "WrittenEntity"]

Kind = Literal["committed", "retracted", "reinstated", "erased", "compacted", "closed"]
KINDS: tuple[str, ...] = ("committed", "retracted", "reinstated", "erased", "compacted", "closed")


class WrittenFact(NamedTuple):
    """A record a write created (believed from then on), with the display names a read of it would give: the
    registry labels of its entities (a literal object's value) and the predicate's name."""

    id: str
    subject: str
    predicate: str
    object: str


class WrittenSpan(NamedTuple):
    """A span source a write added: the assertion, the document IRI it was read from, its start offset."""

    id: str
    document: str
    start: int


class WrittenEntity(NamedTuple):
    """An entity whose registry rows a write added (`label` and `cls` set) or gave other names (`label` None)."""

    iri: str
    folded: str
    label: str | None
    cls: str | None  # local name of its class; None with `label`
    aliases: tuple[str, ...]  # the other names the write added


@dataclass(frozen=True, slots=True)
class StoreEvent:
    """One durable change of a store.

    `ids`: the assertions the change is about (written, retracted, reinstated or tombstoned); `cascaded`: the
    derived assertions withdrawn (or reopened) as a consequence; `observed`: for `committed`, the
    (assertion id, document IRI) observations the write added; `activity`: the IRI of the recorded
    prov:Activity (retract, reinstate, erase); `path`: the store directory (`compacted`, `closed`; None in
    memory); `generation`: for `closed`, the fingerprint of the store's files as the next process will find
    them (semantic_rdf/store/generation.py), or None when it is not known; `entities`: for `committed`, the IRIs
    of the entities whose registry rows the change added or changed (`()`: none), or None when not known (an
    import).

    What a write told, so a subscriber need not read it back (docs/architecture.md, "Store events"): for
    `committed` by `assert_triples` with a subscriber, `facts` (the records it created, named), `spans` (every
    span source it added) and `registered` (how it changed each entity of `entities`); None (`facts`,
    `registered`) when the change does not tell, and a subscriber that needs them reads the store. For
    `committed` by `add_documents`: `documents`, the IRIs of the document versions it stored (none of them had
    a source before)."""

    kind: Kind
    ids: tuple[str, ...] = ()
    cascaded: tuple[str, ...] = ()
    observed: tuple[tuple[str, str], ...] = ()
    activity: str | None = None
    path: str | None = None
    generation: str | None = None
    entities: tuple[str, ...] | None = None
    facts: tuple[WrittenFact, ...] | None = None
    spans: tuple[WrittenSpan, ...] = ()
    registered: tuple[WrittenEntity, ...] | None = None
    documents: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown store event kind {self.kind!r} (one of {', '.join(KINDS)})")

    @property
    def affected(self) -> tuple[str, ...]:
        """`ids` then `cascaded`: every assertion whose state this change moved."""
        return self.ids + self.cascaded


Subscriber = Callable[[StoreEvent], None]


class Subscribers:
    """The subscribers of one store object (state on that object: no module-level registry)."""

    def __init__(self) -> None:
        # (token, callback): the token tells registrations apart (one callback may be subscribed twice)
        self._subs: list[tuple[object, Subscriber]] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Register `callback`; returns the function that unregisters it (calling it twice is harmless)."""
        if not callable(callback):
            raise TypeError("a store subscriber must be callable")
        token = object()
        with self._lock:
            self._subs = self._subs + [(token, callback)]  # copy-on-write: publish iterates a snapshot

        def unsubscribe() -> None:
            with self._lock:
                self._subs = [s for s in self._subs if s[0] is not token]

        return unsubscribe

    def callbacks(self) -> tuple[Subscriber, ...]:
        return tuple(cb for _, cb in self._subs)

    def publish(self, event: StoreEvent) -> None:
        """Call every subscriber with `event`, in order of subscription; then re-raise the first failure."""
        errors: list[Exception] = []
        for cb in self.callbacks():
            try:
                cb(event)
            except Exception as exc:  # noqa: BLE001 - the others still run; re-raised below
                errors.append(exc)
        if errors:
            first = errors[0]
            for other in errors[1:]:
                first.add_note(f"another store subscriber also failed on {event.kind}: {other!r}")
            raise first
