"""A small store with every kind of literal and record the servers re-spell or evaluate differently (not a
test module): valid-time bounds (open on either side, closed, with fractional seconds), integer-valued
decimals (an assertion given without a score has confidence "1"^^xsd:decimal), booleans (decisions),
dateTimes with fractions (every record-time stamp; some valid-time bounds), retracted, reinstated, withdrawn
(a derived record whose antecedent was retracted), erased (a tombstone), source-read and derived records.

Used by tests/test_cross_store.py: every packaged query must give the same rows on the embedded store, the
Oxigraph server and Virtuoso over this data, with its parameters unbound and bound to instants around
each bound it holds.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from semantic_rdf.lifecycle import erasure, temporal as T
from semantic_rdf.lifecycle.decisions import DenyChoices, Recorder
from semantic_rdf.lifecycle.reason import derive
from semantic_rdf.store.seed import seed
from semantic_rdf.core.values import Validity

from _timeprov import ingest, span

UTC = timezone.utc
TEXT = "Kew lies in London. London lies in England. Marie Curie won the Nobel Prize in Physics in 1903."

# valid-time bounds: one open on each side, one closed interval, fractional seconds on some
VALID_FROM = datetime(1903, 12, 10, 16, 30, 0, 250000, tzinfo=UTC)
VALID_UNTIL = datetime(1934, 7, 4, tzinfo=UTC)
BOTH = (datetime(1939, 9, 1, 4, 45, 0, 500000, tzinfo=UTC), datetime(1945, 5, 8, 23, 1, 0, 125000, tzinfo=UTC))


def build(store) -> dict:
    """Fill `store` (an empty AssertionStore) and return the ids and instants the tests bind."""
    out: dict = {}
    out["seed"] = seed(store)  # confidence "1"^^xsd:decimal on every one
    (kew, london, curie), out["run"] = ingest(
        store,
        "places.txt",
        TEXT,
        [
            ("Kew", "located_in", "London", *span(TEXT, "Kew lies in London."), 0.75),
            ("London", "located_in", "England", *span(TEXT, "London lies in England.")),
            ("Marie Curie", "won", "Nobel Prize in Physics", *span(TEXT, "Marie Curie won the Nobel Prize in Physics in 1903."), 1.0),
        ],
    )
    derive(store)  # Kew located_in England, confidence from the rule
    out.update(kew=kew, london=london, curie=curie)
    out["from"] = store.assert_("Marie Curie", "won", "Nobel Prize in Chemistry", score=1.0, valid=Validity(VALID_FROM))
    out["until"] = store.assert_("Marie Curie", "resided_in", "Paris", valid=Validity(None, VALID_UNTIL))
    out["both"] = store.assert_("Alan Turing", "worked_at", "Bletchley Park", score=0.5, valid=Validity(*BOTH))
    out["t_before_retract"] = store.now()
    T.retract(store, london, "checking the county")  # withdraws the derived record too
    out["again"] = store.assert_("Ada Lovelace", "collaborated_with", "Charles Babbage", score=0.9)
    T.retract(store, out["again"], "unsure")
    out["t_retracted"] = store.now()
    T.reinstate(store, out["again"], "sure again")  # two belief intervals, one closed
    gone = store.assert_("Kew", "part_of", "Surrey", valid=Validity(VALID_FROM))
    erasure.erase(store, gone, "wrong county")
    out["gone"] = gone
    rec = Recorder(store)
    d1 = rec.record("guide", "recommend Kew", [kew])  # m:allowed true
    d2 = rec.record("guide", "sell tickets", [kew], informed_by=[d1.id], policy=DenyChoices({"sell tickets"}, "not ours"))  # m:allowed false
    out.update(d1=d1.id, d2=d2.id, t_end=store.now())
    return out


def instants(built: dict) -> list[datetime]:
    """Instants to ask at: on, just before and just after every bound, and between the records' stamps."""
    points = []
    for t in (VALID_FROM, VALID_UNTIL, *BOTH):
        points += [t, t - timedelta(microseconds=1), t + timedelta(microseconds=1)]
    points += [datetime(1800, 1, 1, tzinfo=UTC), built["t_before_retract"], built["t_retracted"], built["t_end"]]
    return points


def build_small(store) -> dict:
    """Less of the same, no documents or derivations: pushed first to a fresh Virtuoso, this is the data on which
    its planner refused the earlier match.rq and asof.rq (a server that had seen more data planned them)."""
    ids = seed(store)
    store.assert_("Marie Curie", "won", "Nobel Prize in Physics", valid=Validity(datetime(1903, 1, 1, tzinfo=UTC)))
    store.assert_("Ada Lovelace", "born_in", "London", valid=Validity(None, datetime(1900, 1, 1, 0, 0, 0, 500000, tzinfo=UTC)))
    store.assert_("Charles Babbage", "born_in", "London", score=1.0)
    T.retract(store, ids[0], "checking")
    erasure.erase(store, store.assert_("Kew", "part_of", "Surrey"), "wrong county")
    Recorder(store).record("guide", "recommend", [ids[1]])
    return {"seed": ids, "t_end": store.now()}
