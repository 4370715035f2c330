from datetime import datetime, timezone

import pyoxigraph as ox
import pytest

from semantic_rdf.rdf import layout as L
from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.core.errors import InvalidInput, ShapeViolation
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.lifecycle.reason import Rule, builtin_rules, derive
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Triple, Validity
from semantic_rdf.core.vocab import M, P, PROVENANCE_GRAPH, assertion_iri

A = "https://w3id.org/semantic-rdf/a/"


def _antecedents(s, aid):
    return sorted(q.object.value[len(A) :] for q in s.ox.quads_for_pattern(assertion_iri(aid), P.wasDerivedFrom, None, PROVENANCE_GRAPH))


def _rule(s, aid):
    return [s.label(q.object) for q in s.ox.quads_for_pattern(assertion_iri(aid), M.rule, None, PROVENANCE_GRAPH)]


def test_builtin_rules_reach_a_fixpoint_and_name_rule_and_antecedents():
    s = AssertionStore.memory()
    chain = ["Soho", "London", "England", "Great Britain", "Europe"]
    hops = [s.assert_(a, "located_in", b) for a, b in zip(chain, chain[1:])]
    par = s.assert_("Lord Byron", "parent_of", "Ada Lovelace")
    col = s.assert_("Ada Lovelace", "worked_with", "Charles Babbage")
    rep = derive(s)
    assert rep.fixpoint
    n = len(chain)
    assert rep.by_rule["located-in-transitive"] == n * (n - 1) // 2 - (n - 1)  # every pair not already a hop
    assert rep.by_rule["inverse-parent-child"] == 1 and rep.by_rule["symmetric"] == 1
    inv = assertion_id("Ada Lovelace", "child_of", "Lord Byron")
    assert _antecedents(s, inv) == [par] and _rule(s, inv) == ["inverse-parent-child"]
    sym = assertion_id("Charles Babbage", "worked_with", "Ada Lovelace")
    assert _antecedents(s, sym) == [col]
    far = assertion_id("Soho", "located_in", "Europe")
    assert s.require(far).kind == "derived" and len(_antecedents(s, far)) == 2
    assert s.validate().conforms
    again = derive(s)
    assert again.new == [] and again.rounds == 1 and again.fixpoint
    assert set(hops) <= set(s.ids())


def test_depth_limit_stops_before_the_fixpoint():
    s = AssertionStore.memory()
    chain = ["a1", "a2", "a3", "a4", "a5", "a6"]
    for a, b in zip(chain, chain[1:]):
        s.assert_(a, "located_in", b)
    rep = derive(s, [r for r in builtin_rules() if r.name == "located-in-transitive"], max_rounds=1)
    assert not rep.fixpoint and rep.rounds == 1
    assert assertion_id("a1", "located_in", "a6") not in s.ids()
    with pytest.raises(InvalidInput):
        derive(s, max_rounds=0)


def test_valid_time_intersects_and_confidence_is_the_weakest_link():
    s = AssertionStore.memory()
    y = lambda n: datetime(n, 1, 1, tzinfo=timezone.utc)  # noqa: E731
    s.assert_("x", "located_in", "y", score=0.9, valid=Validity(y(2000), y(2010)))
    s.assert_("y", "located_in", "z", score=0.6, valid=Validity(y(2005), y(2020)))
    s.assert_("y", "located_in", "w", valid=Validity(y(2015), None))  # disjoint from x-in-y: nothing follows
    derive(s, [r for r in builtin_rules() if r.name == "located-in-transitive"])
    r = s.require(assertion_id("x", "located_in", "z"))
    assert r.valid == Validity(y(2005), y(2010)) and r.confidence == 0.6
    assert assertion_id("x", "located_in", "w") not in s.ids()


def test_retracting_an_antecedent_withdraws_the_derived_and_reinstating_reopens_it():
    s = AssertionStore.memory()
    a = s.assert_("x", "located_in", "y")
    b = s.assert_("y", "located_in", "z")
    derive(s)
    d = assertion_id("x", "located_in", "z")
    before = s.now()
    ch = T.retract(s, b, "wrong")
    assert ch.cascaded == (d,) and T.state(s, d) == "retracted"
    assert d in [c.id for c in T.as_of(s, "x", before)] and d not in [c.id for c in T.as_of(s, "x")]
    assert derive(s).reopened == []  # the antecedent is still retracted: nothing to support it
    T.reinstate(s, b, "right after all")
    assert T.state(s, d) == "believed"
    T.retract(s, d, "I do not trust transitivity here")  # retracted on purpose ...
    assert derive(s).reopened == [] and T.state(s, d) == "retracted"  # ... is never reopened by the reasoner
    assert [i.closed_kind for i in T.history(s, d)] == ["retraction", "retraction"]
    assert s.validate().conforms
    _ = a


def test_a_cascade_withdrawn_derivation_reopens_on_new_support_and_keeps_both_supports():
    s = AssertionStore.memory()
    a = s.assert_("x", "located_in", "y")
    b = s.assert_("y", "located_in", "z")
    derive(s, [r for r in builtin_rules() if r.name == "located-in-transitive"])
    d = assertion_id("x", "located_in", "z")
    T.retract(s, b, "wrong")
    assert T.state(s, d) == "retracted"
    c = s.assert_("x", "located_in", "w")
    e = s.assert_("w", "located_in", "z")
    rep = derive(s, [r for r in builtin_rules() if r.name == "located-in-transitive"])
    assert rep.reopened == [d] and T.state(s, d) == "believed"
    assert _antecedents(s, d) == sorted([a, b, c, e])  # the first support is kept beside the new one
    assert s.require(d).count == 4
    assert s.validate().conforms


def test_shapes_refuse_a_derived_assertion_without_antecedents():
    s = AssertionStore.memory()
    aid = assertion_id("p", "located_in", "q")
    t = Triple("p", "located_in", "q")
    with s.run("derivation", agent="reasoner") as run:
        plan = s.ensure_plan("hand-made", M.Rule)
        q = L.record_quads(aid, t, [M.DerivedAssertion], 1.0, 1, s.now(), run.iri, None)
        q += [L.claim_quad(aid, t), ox.Quad(assertion_iri(aid), M.rule, plan, PROVENANCE_GRAPH)]
        q += L.entity_quads("p", None) + L.entity_quads("q", None)
        with pytest.raises(ShapeViolation):
            s.commit(q)
    assert aid not in s.ids()


def test_rule_files_are_checked():
    with pytest.raises(InvalidInput):
        Rule.parse("SELECT * WHERE { ?s ?p ?o }")
    with pytest.raises(InvalidInput):
        Rule.parse("# rule: x\nCONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")  # no antecedents line
    r = Rule.parse("# rule: my-rule\n# antecedents: ?a ?b\nCONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")
    assert r.antecedents == ("a", "b")
    assert {x.name for x in builtin_rules()} >= {"symmetric", "located-in-transitive", "inverse-parent-child"}


def test_a_conclusion_with_two_subjects_is_refused_and_nothing_derived():
    """A rule whose template gives a conclusion two m:subject values is refused like one that gives none
    (it had silently kept whichever value came last)."""
    s = AssertionStore.memory()
    s.assert_("Ada Lovelace", "born_in", "London")
    rule = Rule.parse(
        "# rule: two-subjects\n# antecedents: ?a\n"
        "PREFIX m: <https://w3id.org/semantic-rdf/ns#>\nPREFIX p: <https://w3id.org/semantic-rdf/p/>\n"
        "PREFIX prov: <http://www.w3.org/ns/prov#>\n"
        "CONSTRUCT { _:c m:subject ?s ; m:subject ?o ; m:predicate p:collaborated_with ; m:object ?o ; prov:wasDerivedFrom ?a }"
        " WHERE { ?a m:subject ?s ; m:predicate ?p ; m:object ?o }"
    )
    ids = set(s.ids())
    with pytest.raises(InvalidInput, match="two values of m:subject"):
        derive(s, [rule])
    assert set(s.ids()) == ids
