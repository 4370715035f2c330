"""Vector / Graph / Triple (HIP-0526 §4): the filter semantics, exact ranking, file stores that survive."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.interfaces.stores import (
    Cond,
    FileGraphStore,
    FileTripleStore,
    FileVectorStore,
    Graph,
    Match,
    MemoryGraphStore,
    MemoryTripleStore,
    MemoryVectorStore,
    Triple,
    Vector,
    brute_force_near,
    matches,
    where,
)


def random_items(n=1200, dim=24, seed=7):
    rng = np.random.default_rng(seed)
    vecs = rng.normal(size=(n, dim))
    metas = []
    for i in range(n):
        m = {}
        r = rng.random(6)
        if r[0] < 0.8:
            m["space"] = ["alice", "bob", "carol", "dave"][i % 4]
        if r[1] < 0.7:
            m["n"] = [1, 2, 3, 2.5, True, "3", -7][i % 7]
        if r[2] < 0.3:
            m["tags"] = [["x", "y"], ["y"], ["z", 1]][i % 3]
        if r[3] < 0.1:
            m["n"] = None
        metas.append(m)
    return [f"id{i:05d}" for i in range(n)], vecs, metas


FILTERS = [
    (),
    where(space="alice"),
    where(space__ne="alice"),
    where(n__ge=2),
    where(n__lt=2.5),
    where(n__gt="2"),
    where(n__in=[1, True, "3"]),
    where(tags__has="y"),
    where(tags__has=1),
    where(space__has="o"),
    where(space__has="ar", n__gt=1),
    where(n=True),
    where(n=1),
    where(n__ne=2),
    where(missing=1),
    where(missing__ne=1),
    where(space__in=["bob", "carol"], tags__has="x"),
    where(space__le="bob"),
]


@pytest.fixture(params=["memory", "file"])
def vstore(request, tmp_path):
    s = MemoryVectorStore() if request.param == "memory" else FileVectorStore(tmp_path / "v.sqlite")
    yield s
    if request.param == "file":
        s.close()


def test_all_implementations_satisfy_the_protocols(tmp_path):
    assert isinstance(MemoryVectorStore(), Vector) and isinstance(FileVectorStore(tmp_path / "v"), Vector)
    assert isinstance(MemoryGraphStore(), Graph) and isinstance(FileGraphStore(tmp_path / "g"), Graph)
    assert isinstance(MemoryTripleStore(), Triple) and isinstance(FileTripleStore(tmp_path / "t"), Triple)
    assert not isinstance(MemoryTripleStore(), Vector)


@pytest.mark.parametrize("flt", FILTERS, ids=[str(f) for f in FILTERS])
def test_filtered_near_is_exactly_the_brute_force_ranking(vstore, flt):
    ids, vecs, metas = random_items()
    vstore.put_many(ids, vecs, metas)
    q = np.random.default_rng(1).normal(size=vecs.shape[1])
    for k in (1, 10, 5000):
        got = vstore.near(q, k, flt)
        ref = brute_force_near(zip(ids, vecs, metas), q, k, flt)
        assert [m.id for m in got] == [r[0] for r in ref]
        np.testing.assert_allclose([m.score for m in got], [r[1] for r in ref], rtol=0, atol=1e-12)
        assert all(matches(m.meta, flt) for m in got)
    assert int(vstore.mask(flt).sum()) == sum(matches(m, flt) for m in metas)


def test_filter_applies_before_ranking_not_after():
    s = MemoryVectorStore()
    close = np.eye(8)[0]
    # 100 near neighbours in the wrong space, 3 far ones in the right one
    s.put_many([f"near{i}" for i in range(100)], close + 0.01 * np.random.default_rng(0).normal(size=(100, 8)), [{"space": "bob"}] * 100)
    s.put_many(["far1", "far2", "far3"], -np.eye(8)[:3] + 0.1, [{"space": "alice"}] * 3)
    got = s.near(close, 3, where(space="alice"))
    assert sorted(m.id for m in got) == ["far1", "far2", "far3"]


def test_ties_are_broken_by_id_exactly_like_the_brute_force():
    s = MemoryVectorStore()
    ids = [f"t{i:03d}" for i in range(50)][::-1]
    s.put_many(ids, np.ones((50, 4)), [{}] * 50)
    assert [m.id for m in s.near(np.ones(4), 7)] == sorted(ids)[:7]


@pytest.mark.parametrize(
    "meta,cond,expected",
    [
        ({}, Cond("a", "ne", 1), False),  # a missing field fails every op, ne included
        ({"a": None}, Cond("a", "ne", 1), False),
        ({"a": 2}, Cond("a", "ne", 1), True),
        ({"a": True}, Cond("a", "eq", 1), False),  # a bool is not a number
        ({"a": 1}, Cond("a", "eq", 1.0), True),  # int and float compare
        ({"a": "abc"}, Cond("a", "has", "b"), True),
        ({"a": ["x", "y"]}, Cond("a", "has", "y"), True),
        ({"a": ["x", "y"]}, Cond("a", "has", "xy"), False),
        ({"a": "10"}, Cond("a", "gt", 9), False),  # string vs number ordering fails, never raises
        ({"a": "b"}, Cond("a", "gt", "a"), True),
        ({"a": 3}, Cond("a", "in", [1, 3]), True),
        ({"a": 3}, Cond("a", "in", ["3"]), False),
        ({"a": 2**60 + 1}, Cond("a", "eq", 2**60 + 1), True),  # big ints stay exact
        ({"a": 2**60 + 1}, Cond("a", "eq", 2**60), False),
    ],
)
def test_filter_semantics_row_and_column_agree(meta, cond, expected):
    assert matches(meta, (cond,)) is expected
    s = MemoryVectorStore()
    s.put("x", np.ones(3), meta)
    assert bool(s.mask((cond,))[0]) is expected
    assert [m.id for m in s.near(np.ones(3), 1, (cond,))] == (["x"] if expected else [])


@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["a", "b"]),
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(-3, 3),
                st.floats(-3, 3, allow_nan=False),
                st.sampled_from(["", "a", "ab", "b"]),
                st.lists(st.sampled_from(["a", "b", 1]), max_size=2),
            ),
            max_size=2,
        ),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge", "in", "has"]),
    st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "b", "ab"]), st.floats(-3, 3)),
)
@settings(max_examples=200, deadline=None)
def test_vectorised_mask_equals_row_semantics(metas, op, value):
    if op in ("lt", "le", "gt", "ge") and isinstance(value, bool):
        with pytest.raises(InvalidInput):
            Cond("a", op, value)
        return
    cond = Cond("a", op, [value, 1] if op == "in" else value)
    s = MemoryVectorStore()
    s.put_many([str(i) for i in range(len(metas))], np.ones((len(metas), 2)), metas)
    assert s.mask((cond,)).tolist() == [matches(m, (cond,)) for m in metas]


@pytest.mark.parametrize(
    "bad",
    [
        lambda: Cond("a", "like", 1),
        lambda: Cond("", "eq", 1),
        lambda: Cond("a", "in", "abc"),
        lambda: Cond("a", "lt", [1]),
        lambda: Cond("a", "eq", {"x": 1}),
    ],
)
def test_bad_conditions_are_typed_errors(bad):
    with pytest.raises(InvalidInput):
        bad()


def test_bad_vectors_are_refused_and_change_nothing(vstore):
    vstore.put("a", np.array([1.0, 0.0]), {"k": 1})
    for vec in (np.array([1.0, 0, 0]), np.zeros(2), np.array([np.nan, 1.0]), "xx"):
        with pytest.raises(InvalidInput):
            vstore.put("b", vec, {})
    with pytest.raises(InvalidInput):
        vstore.put("c", np.array([1.0, 2.0]), {"k": object()})
    with pytest.raises(InvalidInput):
        vstore.near(np.array([1.0, 0]), 0)
    assert len(vstore) == 1 and vstore.ids() == ["a"]


def test_put_replaces_and_delete_removes(vstore):
    vstore.put_many(["a", "b", "c"], np.eye(3), [{"s": "x"}, {"s": "y"}, {"s": "x"}])
    vstore.put("a", np.array([0, 0, 1.0]), {"s": "y"})
    assert [m.id for m in vstore.near(np.array([0, 0, 1.0]), 3, where(s="y"))] == ["a", "b"]
    assert vstore.delete("c") and not vstore.delete("c")
    assert [m.id for m in vstore.near(np.array([1.0, 0, 0]), 3, where(s="x"))] == []
    with pytest.raises(NotFound):
        vstore.get("c")


def test_list_index_follows_replace_and_delete_and_sparse_queries_rank_exactly():
    """`has` on list fields is an inverted index kept at write time; after puts that replace rows and
    deletes that move the last row into the hole, every mask still equals the row semantics, and
    near() (sparse query: only its non-zero columns are read) still equals the brute force."""
    rng = np.random.default_rng(3)
    s = MemoryVectorStore()
    live: dict[str, tuple[np.ndarray, dict]] = {}
    values = ["a", "b", 1, 1.0, True, None, "ab"]
    conds = [Cond("t", "has", v) for v in ("a", "b", 1, True, "ab", 2)] + [Cond("t", "has", None), Cond("u", "has", "a")]
    for step in range(300):
        i = f"r{rng.integers(40):02d}"
        if rng.random() < 0.3 and live:
            gone = sorted(live)[rng.integers(len(live))]
            assert s.delete(gone)
            del live[gone]
        else:
            vec = np.where(rng.random(64) < 0.1, rng.normal(size=64), 0.0)
            vec[rng.integers(64)] = 1.0
            kind = rng.integers(3)
            t = [values[j] for j in rng.integers(len(values), size=rng.integers(4))] if kind == 0 else "ab" if kind == 1 else [[1], {"a": 1}]
            meta = {"t": t, "u": ["a"]} if rng.random() < 0.5 else {"t": t}
            s.put(i, vec, meta)
            live[i] = (vec, meta)
        if step % 25 == 0:
            ids = s.ids()
            for c in conds:
                assert s.mask((c,)).tolist() == [matches(live[x][1], (c,)) for x in ids], c
                q = np.where(rng.random(64) < 0.05, 1.0, 0.0)
                q[0] = 1.0
                got = s.near(q, 5, (c,))
                ref = brute_force_near(((x, *live[x]) for x in sorted(live)), q, 5, (c,))
                assert [m.id for m in got] == [r[0] for r in ref]
                np.testing.assert_allclose([m.score for m in got], [r[1] for r in ref], rtol=0, atol=1e-12)


def test_match_is_a_frozen_value():
    m = MemoryVectorStore()
    m.put("a", np.ones(2), {"k": 1})
    hit = m.near(np.ones(2), 1)[0]
    assert isinstance(hit, Match) and hit.meta["k"] == 1
    with pytest.raises(Exception):
        hit.score = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        hit.meta["k"] = 2  # type: ignore[index]


def test_file_vector_store_survives_reopen_and_a_rejected_write(tmp_path):
    path = tmp_path / "v.sqlite"
    s = FileVectorStore(path)
    ids, vecs, metas = random_items(200, 6)
    s.put_many(ids, vecs, metas)
    with pytest.raises(InvalidInput):  # the reference logged this before validating: every reopen failed
        s.put("bad", np.ones(7), {})
    with pytest.raises(InvalidInput):
        s.put_many(["x", "x"], np.ones((2, 6)), [{}, {}])
    s.delete(ids[0])
    q = np.ones(6)
    before = [(m.id, m.score) for m in s.near(q, 20, where(space="bob"))]
    s.close()
    again = FileVectorStore(path)
    assert len(again) == 199 and "bad" not in again and ids[0] not in again
    assert [(m.id, m.score) for m in again.near(q, 20, where(space="bob"))] == before
    again.put("new", np.ones(6), {"space": "bob"})
    again.close()
    assert "new" in FileVectorStore(path)
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.fixture(params=["memory", "file"])
def gstore(request, tmp_path):
    return MemoryGraphStore() if request.param == "memory" else FileGraphStore(tmp_path / "g.sqlite")


def test_graph_nodes_edges_out(gstore):
    gstore.node("alice", {"age": 30})
    gstore.edge("alice", "bob", "knows")
    gstore.edge("alice", "bob", "knows")
    gstore.edge("alice", "acme", "works_at")
    gstore.node("alice", {"city": "Paris"})
    assert gstore.out("alice") == ["acme", "bob"]
    assert gstore.out("alice", "knows") == ["bob"]
    assert gstore.out("bob") == [] and gstore.out("nobody", "knows") == []
    assert dict(gstore.props("alice")) == {"age": 30, "city": "Paris"}
    with pytest.raises(InvalidInput):
        gstore.edge("alice", "", "knows")
    with pytest.raises(InvalidInput):
        gstore.node("x", {"bad": float("nan")})


def test_file_graph_survives_reopen(tmp_path):
    g = FileGraphStore(tmp_path / "g.sqlite")
    g.node("a", {"k": [1, 2]})
    g.edge("a", "b", "r")
    with pytest.raises(InvalidInput):
        g.node("a", {"k": object()})
    g.close()
    g = FileGraphStore(tmp_path / "g.sqlite")
    assert g.out("a", "r") == ["b"] and dict(g.props("a")) == {"k": [1, 2]} and dict(g.props("b")) == {}


@pytest.fixture(params=["memory", "file"])
def tstore(request, tmp_path):
    return MemoryTripleStore() if request.param == "memory" else FileTripleStore(tmp_path / "t.sqlite")


def test_triple_match_with_wildcards(tstore):
    for t in [("a", "p", "b"), ("a", "q", "c"), ("b", "p", "c"), ("a", "p", "b")]:
        tstore.assert_(*t)
    assert tstore.match() == [("a", "p", "b"), ("a", "q", "c"), ("b", "p", "c")]
    assert tstore.match(s="a") == [("a", "p", "b"), ("a", "q", "c")]
    assert tstore.match(p="p", o="c") == [("b", "p", "c")]
    assert tstore.match(o="zzz") == []
    with pytest.raises(InvalidInput):
        tstore.assert_("a", "", "b")
    with pytest.raises(InvalidInput):
        tstore.match(s="")


def test_file_triples_survive_reopen(tmp_path):
    t = FileTripleStore(tmp_path / "t.sqlite")
    t.assert_("s", "p", "o")
    t.close()
    assert FileTripleStore(tmp_path / "t.sqlite").match(p="p") == [("s", "p", "o")]
