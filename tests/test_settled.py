"""A repeat (an assertion seen again) reads and checks what it changes, not the sources the record already has:
the shape check takes the stored record as settled (shapecheck.Settled) and must still give pyshacl's verdict."""

import random

import pyoxigraph as ox
import pytest

from semantic_rdf.rdf import layout as L, ntriples as N
from semantic_rdf.core.errors import ShapeViolation
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.rdf.shapecheck import Settled, shape_check
from semantic_rdf.rdf.shapes import validate_full
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Chunk, Doc, Triple
from semantic_rdf.core.vocab import ENTITY_GRAPH, M, OA_, P, PROVENANCE_GRAPH, XSD, assertion_ref

SENTENCE = "Ada Lovelace was born in London. "
AID = assertion_id("Ada Lovelace", "born_in", "London")


class _Counting:
    """The real store, counting the quads the assertion store reads (quads_for_pattern, and `in` probes)."""

    def __init__(self, store: ox.Store):
        self._store, self.calls, self.quads = store, 0, 0

    def quads_for_pattern(self, *pattern):
        self.calls += 1
        for q in self._store.quads_for_pattern(*pattern):
            self.quads += 1
            yield q

    def __contains__(self, quad) -> bool:  # a probe for one quad: a read of at most one
        self.calls += 1
        found = quad in self._store
        self.quads += found
        return found

    def __getattr__(self, name):
        return getattr(self._store, name)


def _read_store(spans: int) -> tuple[AssertionStore, Chunk]:
    """The record of AID read at `spans` places of one document."""
    text = SENTENCE * (spans + 1)
    s = AssertionStore.memory()
    d = Doc("d1", "mem:d1", text)
    c = Chunk("d1", 0, text, 0, len(text))
    with s.run("ingestion", agent="rules") as run:
        s.add_document(d, run)
        n = len(SENTENCE)
        s.assert_triples([Triple("Ada Lovelace", "born_in", "London", c, 0.5, start=i * n, end=i * n + n - 1) for i in range(spans)], run=run)
    return s, c


def _repeat_cost(spans: int) -> tuple[int, int]:
    s, c = _read_store(spans)
    n = len(SENTENCE)
    with s.run("ingestion", agent="rules") as run:
        counting = s.ox = _Counting(s.ox)
        r = s.assert_triples([Triple("Ada Lovelace", "born_in", "London", c, 0.9, start=spans * n, end=spans * n + n - 1)], run=run)
        s.ox = counting._store
    assert r.repeated == 1
    rec = s.require(AID)
    assert rec.count == spans + 1 and rec.confidence == 0.9
    return counting.calls, counting.quads


def test_repeat_reads_the_same_whatever_the_number_of_sources():
    assert _repeat_cost(2) == _repeat_cost(150)


def test_repeat_with_many_sources_stays_valid():
    s, c = _read_store(60)
    s.assert_("Ada Lovelace", "born_in", "London", note="a caller")
    rec = s.require(AID)
    assert rec.count == 61 and rec.kinds == ("extracted", "supplied")
    assert s.validate().conforms


@pytest.mark.parametrize("order", ["extracted-then-supplied", "supplied-then-extracted"])
def test_repeat_adding_a_kind(order):
    s = AssertionStore.memory()
    if order.startswith("supplied"):
        s.assert_("Ada Lovelace", "born_in", "London", score=0.4)
    d = Doc("d1", "mem:d1", SENTENCE)
    c = Chunk("d1", 0, SENTENCE, 0, len(SENTENCE))
    with s.run("ingestion", agent="rules") as run:
        s.add_document(d, run)
        s.assert_triples([Triple("Ada Lovelace", "born_in", "London", c, 0.6, start=0, end=31)], run=run)
    if order.startswith("extracted"):
        s.assert_("Ada Lovelace", "born_in", "London", score=0.4)
    rec = s.require(AID)
    assert rec.kinds == ("extracted", "supplied") and rec.count == 2 and rec.confidence == 0.6
    assert s.validate().conforms


def _captured_repeat(s: AssertionStore, triples: list[Triple], run) -> dict:
    """The batch the writer builds for `triples`, taken at commit and not written."""
    seen: dict = {}

    def keep(add, remove=(), *, check=None, settled=None, unlinked=(), types=None, rendered=""):
        assert not rendered  # one source per document: each is checked, none written as lines only
        seen.update(add=list(unlinked) + list(add), remove=remove, check=check, settled=settled)

    s.commit = keep  # type: ignore[method-assign]
    try:
        s.assert_triples(triples, run=run)
    finally:
        del s.commit
    assert seen["settled"], "not a repeat"
    return seen


def _scenario(kind: str):
    """A stored extracted record with two spans, and the writer's batch repeating it as `kind`."""
    s, c = _read_store(2)
    if kind == "supplied":
        run = s.begin_run("statement")
        s.record_run(run)  # on record before the captured batch, which does not write it
        batch = _captured_repeat(s, [Triple("Ada Lovelace", "born_in", "London", score=0.95)], run)
    else:
        run = s.begin_run("ingestion", agent="rules")
        s.record_run(run)  # on record before the captured batch, which does not write it
        n = len(SENTENCE)
        batch = _captured_repeat(s, [Triple("Ada Lovelace", "born_in", "London", c, 0.7, start=2 * n, end=3 * n - 1)], run)
    return s, batch


def _stored_text(s: AssertionStore) -> list[N.NQ]:
    return [N.of(q) for g in (PROVENANCE_GRAPH, ENTITY_GRAPH) for q in s.ox.quads_for_pattern(None, None, None, g)]


def _as_settled_means(stored: list[N.NQ], check: list[N.NQ], settled: dict[str, Settled]) -> list[N.NQ]:
    """The data a settled batch stands for (Settled's contract): the store, with the values of a settled node on
    each path the batch lists (and does not only add to) replaced by the listed ones."""
    listed = {(q[0], q[1]) for q in check if q[0] in settled and q[1] not in settled[q[0]].added}
    return list(dict.fromkeys([q for q in stored if (q[0], q[1]) not in listed] + check))


def _verdicts(s: AssertionStore, check: list[N.NQ], settled: dict[str, Settled]) -> tuple[bool, bool]:
    fast = shape_check().check(check, s._stored_types, settled=settled, stored=s._stored_values)
    full = validate_full(N.to_ox(_as_settled_means(_stored_text(s), check, settled)))
    return fast.conforms, full.conforms


_POOL = [
    N.literal("1.5", XSD + "decimal"),
    N.literal("0.25", XSD + "decimal"),
    N.literal("0", XSD + "integer"),
    N.literal("7", XSD + "integer"),
    N.literal("abc", XSD + "integer"),
    N.literal("plain"),
    N.literal("2020-01-01T00:00:00Z", XSD + "dateTime"),
    N.literal("yesterday", XSD + "dateTime"),
    "<https://w3id.org/semantic-rdf/e/someone>",
    str(M.CallerStatement),
    str(OA_.SpecificResource),
    str(M.Assertion),
    str(M.SuppliedAssertion),
    str(M.ExtractedAssertion),
    str(M.DerivedAssertion),
    str(M.Tombstone),
    str(M.BeliefInterval),
    str(P.Activity),
    "_:b0",
]


def _mutate(new: list[N.NQ], rng: random.Random) -> list[N.NQ]:
    """Damage among the quads a repeat adds (its listing of the stored rdf:types stays whole)."""
    new = list(new)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(new))
        s, p, o, g = new[i]
        op = rng.choice(["drop", "object", "duplicate-predicate", "retype"])
        if op == "drop":
            new.pop(i)
        elif op == "object":
            new[i] = (s, p, rng.choice(_POOL), g)
        elif op == "duplicate-predicate":
            new.append((s, p, rng.choice(_POOL), g))
        else:
            new.append((rng.choice(new)[0], L.TYPE, rng.choice(_POOL[9:18]), g))
    return new


@pytest.mark.parametrize("kind", ["supplied", "extracted"])
def test_writer_repeat_conforms_both_ways(kind):
    s, batch = _scenario(kind)
    assert _verdicts(s, batch["check"], batch["settled"]) == (True, True)


@pytest.mark.parametrize("seed", range(30))
def test_settled_check_agrees_with_pyshacl_on_damaged_repeats(seed):
    rng = random.Random(seed)
    s, batch = _scenario("supplied" if seed % 2 else "extracted")
    check, settled = batch["check"], batch["settled"]
    types = [q for q in check if q[0] in settled and q[1] == L.TYPE and q[2] in settled[q[0]].classes]
    damaged = types + _mutate([q for q in check if q not in types], rng)
    fast, full = _verdicts(s, damaged, settled)
    assert fast == full, seed


def test_crafted_bad_repeats_refused_and_store_unchanged():
    s, batch = _scenario("supplied")
    a = assertion_ref(AID)
    before = sorted(map(str, s.ox))
    src = next(q[0] for q in batch["add"] if q[2] == str(M.CallerStatement))
    # the added kind's caller statement is not typed one: the stored sources (spans) are read, and none is
    untyped = [q for q in batch["add"] if not (q[0] == src and q[2] == str(M.CallerStatement))]
    bad_count = [(q[0], q[1], N.literal("0", XSD + "integer"), q[3]) if q[1] == str(M.count) and q[0] == a else q for q in batch["add"]]
    types = [q for q in batch["check"] if q not in batch["add"]]  # the stored record's rdf:types
    for add in (untyped, bad_count):
        with pytest.raises(ShapeViolation):
            s.commit(add, batch["remove"], check=types + add, settled=batch["settled"])
        assert sorted(map(str, s.ox)) == before
    s.commit(batch["add"], batch["remove"], check=batch["check"], settled=batch["settled"])
    assert s.validate().conforms


def test_settled_types_must_be_listed():
    s, batch = _scenario("supplied")
    a = assertion_ref(AID)
    check = [q for q in batch["check"] if not (q[0] == a and q[2] == str(M.Assertion))]
    with pytest.raises(ValueError, match="rdf:types"):
        shape_check().check(check, s._stored_types, settled=batch["settled"], stored=s._stored_values)
