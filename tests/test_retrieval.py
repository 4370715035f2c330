"""Ranked search over text units: TF-IDF cosine through the vector store, the filter, subject scoping."""

from __future__ import annotations

import numpy as np
import pytest

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.interfaces.retrieval import SUBJECTS, Retriever, TermSpace, Unit, find_names, terms
from semantic_rdf.interfaces.stores import Cond, MemoryVectorStore, brute_force_near

UNITS = [
    Unit("a1", "I adopted a beagle puppy named Biscuit last week.", ("Ada",), {"session": 1}),
    Unit("a2", "My pottery class made a blue vase yesterday.", ("Ada",), {"session": 1}),
    Unit("b1", "Nice, Ada! I ran the Boston marathon last Sunday.", ("Ben",), {"session": 2}),
    Unit("b2", "Biscuit the puppy chewed my marathon shoes.", ("Ben",), {"session": 2}),
    Unit("b3", "Ada and I went hiking in the mountains.", ("Ben", "Ada"), {"session": 3}),
    Unit("x", "Okay!", ("Ben",), {"session": 3}),  # no content term: stored nowhere, never retrieved
]


def test_terms_drop_stopwords_cut_possessives_and_stem():
    assert terms("The puppies' owner is Ada's friend, running!") == ["puppi", "owner", "ada", "friend", "run"]
    assert terms("I am here") == []


def test_find_names_is_word_bounded_case_insensitive_longest_first():
    names = ["Mel", "Melanie", "Ann", "Ann Lee", "Jo"]
    assert find_names("What did melanie paint?", names) == ("Melanie",)
    assert find_names("Hey Mel, how is Jo?", names) == ("Mel", "Jo")
    assert find_names("Did Ann Lee call Ann?", names) == ("Ann Lee", "Ann")
    assert find_names("Caroline's bowl", ["Caroline"]) == ("Caroline",)
    assert find_names("Joanne and Annabel", names) == ()


def test_term_space_rows_are_unit_length_and_unknown_terms_ignored():
    docs = [terms(u.text) for u in UNITS]
    space = TermSpace.fit(docs)
    m = space.embed(docs + [["zzz-unknown"]])
    norms = np.linalg.norm(m, axis=1)
    assert np.allclose(norms[:5], 1.0)
    assert norms[5] == 0.0 and norms[6] == 0.0
    # a term in fewer units weighs more
    assert space.idf[space.vocab["biscuit"]] < space.idf[space.vocab["vase"]]


def test_embed_one_is_embed_of_one_text():
    docs = [terms(u.text) for u in UNITS]
    space = TermSpace.fit(docs)
    for doc in docs + [terms("puppy puppy marathon zzz-unknown"), [], ["zzz-unknown"]]:
        np.testing.assert_allclose(space.embed_one(doc), space.embed([doc])[0], rtol=0, atol=1e-15)


def test_search_ranks_exactly_like_brute_force_cosine():
    r = Retriever(UNITS)
    q = "Who ran the marathon with the puppy?"
    got = [(h.id, h.score) for h in r.search(q, k=4)]
    docs = [terms(u.text) for u in UNITS]
    mat = r.space.embed(docs)
    items = [(u.id, mat[i], {}) for i, u in enumerate(UNITS) if mat[i].any()]
    want = brute_force_near(items, r.query_vector(q), 4)
    assert [i for i, _ in got] == [i for i, _ in want]
    assert np.allclose([s for _, s in got], [s for _, s in want])
    assert got[0][0] == "b1"  # ran + marathon beats puppy + marathon: "ran" is rarer than "puppy"


def test_subject_scoping_hides_other_peoples_units():
    r = Retriever(UNITS)
    q = "What is the name of Ben's puppy?"
    assert r.subjects_of(q) == ("Ben",)
    flat = [h.id for h in r.search(q, k=3)]
    scoped = [h.id for h in r.search(q, k=3, subjects=r.subjects_of(q))]
    assert flat[0] == "a1"  # Ada's turn about her puppy wins without the filter
    assert "a1" not in scoped and "a2" not in scoped
    assert scoped[0] == "b2"
    both = {h.id for h in r.search("hiking mountains", k=5, subjects=("Ada", "Ben"))}
    assert "b3" in both


def test_units_carry_subjects_and_meta_into_the_store_and_filters_apply():
    store = MemoryVectorStore()
    r = Retriever(UNITS, store=store)
    assert "x" not in store and len(store) == 5
    _, meta = store.get("b3")
    assert meta[SUBJECTS] == ["ada", "ben"] and meta["session"] == 3
    hits = r.search("puppy Biscuit", k=5, filter=(Cond("session", "ge", 2),))
    assert hits and all(h.unit.meta["session"] >= 2 for h in hits)
    assert r.search("puppy", k=5, subjects=("Nobody",)) == []


def test_coverage_counts_subject_names_and_weighs_by_idf():
    r = Retriever(UNITS)
    cover = r.coverage("Did Ada adopt a puppy?", ["a1", "b2", "a2"])
    # a1 holds ada (its subject), adopt, puppi: everything
    assert cover[0] == pytest.approx(1.0)
    w = {t: r.idf(t) for t in ("ada", "adopt", "puppi")}
    assert cover[1] == pytest.approx(w["puppi"] / sum(w.values()))
    assert cover[2] == pytest.approx(w["ada"] / sum(w.values()))
    hits = r.search("Did Ada adopt a puppy?", k=1)
    assert hits[0].id == "a1" and hits[0].cover == pytest.approx(1.0)


def test_query_without_known_terms_returns_nothing():
    r = Retriever(UNITS)
    assert r.search("is it?", k=3) == []
    assert r.search("quantum chromodynamics", k=3) == []


def test_bad_input_is_rejected():
    with pytest.raises(InvalidInput):
        Unit("", "text")
    with pytest.raises(InvalidInput):
        Unit("u", "text", "Ada")  # a bare string is not a list of subjects
    with pytest.raises(InvalidInput):
        Unit("u", "text", (), {SUBJECTS: ["x"]})
    with pytest.raises(InvalidInput):
        Retriever([UNITS[0], UNITS[0]])
    with pytest.raises(InvalidInput):
        Retriever(UNITS).search("puppy", k=0)
    with pytest.raises(InvalidInput):
        Retriever(["not a unit"])  # type: ignore[list-item]
