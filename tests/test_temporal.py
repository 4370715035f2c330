from datetime import datetime, timezone

import pytest

from semantic_rdf.lifecycle import erasure, temporal as T
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Validity

from _timeprov import ingest, span

TEXT_A = "Ada Lovelace lived in London. Ada Lovelace wrote Note G."
TEXT_B = "Records show Ada Lovelace lived in London for years."


def _ids(claims):
    return sorted(c.id for c in claims)


def test_as_of_reads_around_assert_reobserve_retract_reassert_reinstate_erase():
    s = AssertionStore.memory()
    lived = assertion_id("Ada Lovelace", "resided_in", "London")
    wrote = assertion_id("Ada Lovelace", "wrote", "Note G")
    t0 = s.now()
    ingest(
        s,
        "a.txt",
        TEXT_A,
        [
            ("Ada Lovelace", "resided_in", "London", *span(TEXT_A, "Ada Lovelace lived in London.")),
            ("Ada Lovelace", "wrote", "Note G", *span(TEXT_A, "Ada Lovelace wrote Note G.")),
        ],
    )
    t1 = s.now()
    s.assert_("Ada Lovelace", "resided_in", "London", note="biography")  # re-observation: a second source
    t2 = s.now()
    ch = T.retract(s, lived, "the biography is disputed")
    assert ch.changed == (lived,)
    t3 = s.now()
    ingest(s, "b.txt", TEXT_B, [("Ada Lovelace", "resided_in", "London", *span(TEXT_B, TEXT_B))])  # re-assert
    assert s.require(lived).count == 3  # the new observation is recorded ...
    t4 = s.now()
    assert T.state(s, lived) == "retracted"  # ... but does not reopen the claim
    T.reinstate(s, lived, "confirmed by a second archive")
    t5 = s.now()
    expected = {t0: [], t1: [lived, wrote], t2: [lived, wrote], t3: [wrote], t4: [wrote], t5: [lived, wrote]}
    for t, want in expected.items():
        assert _ids(T.as_of(s, "Ada Lovelace", t)) == sorted(want), t
        assert _ids(s.match(s="Ada Lovelace", as_of=t)) == sorted(want), t  # the store's match.rq agrees
    assert _ids(T.as_of(s, "Ada Lovelace")) == sorted([lived, wrote])
    assert [i.closed_kind for i in T.history(s, lived)] == ["retraction", None]
    assert s.validate().conforms
    erasure.erase(s, lived, "subject asked for deletion")
    t6 = s.now()
    # erasure removes the record itself: no instant, before or after, still shows it
    for t in (t1, t2, t5, t6):
        assert lived not in _ids(T.as_of(s, "Ada Lovelace", t))
        assert wrote in _ids(T.as_of(s, "Ada Lovelace", t))
    assert T.state(s, lived) == "erased"
    assert s.validate().conforms


def test_valid_time_reads_and_closing_only_shortens():
    s = AssertionStore.memory()
    y = lambda n: datetime(n, 1, 1, tzinfo=timezone.utc)  # noqa: E731
    aid = s.assert_("Alan Turing", "employed_by", "NPL", valid=Validity(y(1945), y(1950)))
    other = s.assert_("Alan Turing", "employed_by", "Manchester", valid=Validity(y(1948), None))
    assert _ids(T.as_of(s, "Alan Turing", valid_at=y(1946))) == [aid]
    assert _ids(T.as_of(s, "Alan Turing", valid_at=y(1949))) == sorted([aid, other])
    assert _ids(T.as_of(s, "Alan Turing", valid_at=y(1951))) == [other]
    before = s.now()
    v = T.close_valid(s, aid, y(1948), "left NPL in 1948")
    assert v == Validity(y(1945), y(1948))
    assert _ids(T.as_of(s, "Alan Turing", valid_at=y(1949))) == [other]
    assert T.close_valid(s, aid, y(1949), "later end") == v  # a later end never lengthens
    assert T.close_valid(s, aid, y(1948), "again") == v  # closing twice changes nothing
    assert s.require(aid).valid == v
    with pytest.raises(InvalidInput):
        T.close_valid(s, aid, y(1940), "before it began")
    assert T.close_valid(s, other, y(1954), "died") == Validity(y(1948), y(1954))
    # the two clocks stay apart: record time (as of `before`) and valid time (1946) combine
    assert _ids(T.as_of(s, "Alan Turing", before, valid_at=y(1946))) == [aid]
    assert s.validate().conforms


def test_retract_by_source_keeps_claims_with_another_independent_source():
    s = AssertionStore.memory()
    both = assertion_id("Ada Lovelace", "resided_in", "London")
    only_a = assertion_id("Ada Lovelace", "wrote", "Note G")
    ingest(
        s,
        "a.txt",
        TEXT_A,
        [
            ("Ada Lovelace", "resided_in", "London", *span(TEXT_A, "Ada Lovelace lived in London.")),
            ("Ada Lovelace", "wrote", "Note G", *span(TEXT_A, "Ada Lovelace wrote Note G.")),
        ],
    )
    ingest(s, "b.txt", TEXT_B, [("Ada Lovelace", "resided_in", "London", *span(TEXT_B, TEXT_B))], agent="other-extractor")
    ch = T.retract_set(s, source="a.txt", reason="a.txt was an injected document")
    assert ch.changed == (only_a,) and ch.kept == (both,)
    assert T.state(s, only_a) == "retracted" and T.state(s, both) == "believed"
    # the retracted observation is remembered: retracting the other source now leaves nothing
    ch2 = T.retract_set(s, source="b.txt", reason="b.txt too")
    assert ch2.changed == (both,)
    assert T.retracted(s)[-1]["reason"] == "b.txt too"
    assert s.validate().conforms


def test_retract_by_run_and_by_agent():
    s = AssertionStore.memory()
    ids_a, run_a = ingest(s, "a.txt", TEXT_A, [("Ada Lovelace", "wrote", "Note G", *span(TEXT_A, "Ada Lovelace wrote Note G."))], agent="bad-model")
    ids_b, _ = ingest(s, "b.txt", TEXT_B, [("Ada Lovelace", "resided_in", "London", *span(TEXT_B, TEXT_B))], agent="good-model")
    assert T.retract_set(s, run=run_a, reason="poisoned run").changed == tuple(ids_a)
    assert T.state(s, ids_b[0]) == "believed"
    assert T.retract_set(s, agent="good-model", reason="model recalled").changed == tuple(ids_b)
    assert T.retract_set(s, agent="good-model", reason="again").unchanged == tuple(ids_b)
    with pytest.raises(NotFound):
        T.retract_set(s, agent="nobody", reason="x")
    with pytest.raises(InvalidInput):
        T.retract_set(s, reason="x")
    assert s.validate().conforms


def test_retract_twice_and_bad_input():
    s = AssertionStore.memory()
    aid = s.assert_("a", "born_in", "b")
    assert T.retract(s, aid, "x").changed == (aid,)
    assert T.retract(s, aid, "y").unchanged == (aid,)  # closing twice changes nothing
    assert len(T.history(s, aid)) == 1
    assert T.believed(s, aid) is False
    with pytest.raises(NotFound):
        T.retract(s, "0123456789abcdef", "x")
    with pytest.raises(InvalidInput):
        T.retract(s, "not-an-id", "x")
    with pytest.raises(InvalidInput):
        T.retract(s, aid, "   ")
    with pytest.raises(InvalidInput):
        T.as_of(s, "a", datetime(2020, 1, 1))  # an instant with no zone is refused
