"""Conflicts on functional predicates: SHACL warnings (pyshacl, sh:Warning) in `validate`, never violations."""

from __future__ import annotations

import json
from datetime import datetime, timezone


from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.lifecycle.conflicts import functional_predicates, warnings
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Validity

from _security import run_cli


def _t(year: int) -> datetime:
    return datetime(year, 1, 1, tzinfo=timezone.utc)


def test_the_ontology_declares_the_functional_predicates():
    assert functional_predicates() == {"born_in", "died_in", "place_of_birth", "place_of_death", "capital_of"}


def test_two_birthplaces_are_one_warning_naming_both():
    s = AssertionStore.memory()
    a = s.assert_("Ada Lovelace", "born_in", "London")
    b = s.assert_("Ada Lovelace", "born_in", "Paris")
    s.assert_("Charles Babbage", "born_in", "London")  # another subject: no conflict
    s.assert_("Ada Lovelace", "wrote", "Note G")
    s.assert_("Ada Lovelace", "wrote", "Note H")  # not functional: no conflict
    got = warnings(s)
    assert [w.ids for w in got] == [tuple(sorted((a, b)))]
    w = got[0]
    assert w.subject == "Ada Lovelace" and w.predicate == "born_in" and set(w.objects) == {"London", "Paris"}
    assert "London" in w.text() and "Paris" in w.text() and a in w.text() and b in w.text()


def test_a_retracted_side_or_disjoint_valid_times_are_no_conflict():
    s = AssertionStore.memory()
    a = s.assert_("Ada Lovelace", "born_in", "London")
    s.assert_("Ada Lovelace", "born_in", "Paris")
    T.retract(s, a, "misread")
    assert warnings(s) == []
    s.assert_("Bonn", "capital_of", "West Germany", valid=Validity(_t(1949), _t(1990)))
    s.assert_("Bonn", "capital_of", "Germany", valid=Validity(_t(1990), _t(1991)))
    assert warnings(s) == []  # one after the other
    s.assert_("Bonn", "capital_of", "Prussia", valid=Validity(_t(1980), None))
    assert len(warnings(s)) == 2  # overlaps both


def test_validate_lists_warnings_and_still_conforms(tmp_path):
    store = tmp_path / "s"
    with AssertionStore.open(store) as s:
        s.assert_("Ada Lovelace", "born_in", "London")
        s.assert_("Ada Lovelace", "born_in", "Paris")
    r = run_cli(store, "validate")
    assert r.rc == 0, r.err
    assert r.out.startswith("conforms") and "1 warning(s) (sh:Warning" in r.out and "Paris" in r.out
    data = json.loads(run_cli(store, "--json", "validate").out)
    assert data["conforms"] is True and data["warnings"][0]["severity"] == "sh:Warning"
    assert set(data["warnings"][0]["objects"]) == {"London", "Paris"}


def test_a_place_inside_the_other_is_no_conflict():
    """ "Born in Rochester" and "born in New York" are one birth at two scales when the store holds that
    Rochester is in New York (directly or through a chain of located_in); without that, or once it is
    withdrawn, they are two birthplaces."""
    s = AssertionStore.memory()
    s.assert_("Jenna Marbles", "born_in", "Rochester")
    s.assert_("Jenna Marbles", "born_in", "New York")
    assert len(warnings(s)) == 1
    link = s.assert_("Rochester", "located_in", "New York")
    assert warnings(s) == []
    T.retract(s, link, "misread")
    assert len(warnings(s)) == 1
    s.assert_("Rochester", "located_in", "Monroe County")
    s.assert_("Monroe County", "located_in", "New York")
    assert warnings(s) == []
    s.assert_("Jenna Marbles", "born_in", "Boston")  # beside either of them, Boston is another place
    assert {tuple(sorted(w.objects)) for w in warnings(s)} == {("Boston", "New York"), ("Boston", "Rochester")}


def test_nested_follows_located_in_from_either_end_and_stops_at_a_cycle():
    import doctest

    from semantic_rdf.lifecycle import conflicts

    assert doctest.testmod(conflicts).failed == 0
    s = AssertionStore.memory()
    s.assert_("A", "located_in", "B")
    s.assert_("B", "located_in", "A")  # a cycle a source stated: the walk ends
    assert conflicts.nested(s, "A", "B") and conflicts.nested(s, "B", "A")
    assert not conflicts.nested(s, "A", "C") and not conflicts.nested(s, "A", "A")


def test_the_nesting_walk_is_bounded_on_a_store_built_to_make_it_long():
    from semantic_rdf.lifecycle import conflicts

    s = AssertionStore.memory()
    for i in range(300):
        s.assert_(f"Place {i}", "located_in", f"Place {i + 1}")
    reads = []
    real = s.match
    s.match = lambda *a, **kw: reads.append(1) or real(*a, **kw)  # type: ignore[method-assign]
    places = conflicts.Nesting(s)
    assert len(places.above("Place 0")) == conflicts._MAX_VISITS  # the walk stops: what it reached is kept
    assert places.nested("Place 0", "Place 200") and not places.nested("Place 0", "Place 299")
    for i in range(0, 300, 5):
        places.above(f"Place {i}")
    assert len(reads) <= conflicts._MAX_READS
