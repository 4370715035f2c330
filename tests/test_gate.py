import dataclasses

import numpy as np
import pytest

from semantic_rdf.hdc import vectors as hdc
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.hdc.gate import Config, FactIndex, Query, encode_query, entity_key, gate, predicate_key
from semantic_rdf.hdc.wordvectors import default_word_vectors

FACTS = [
    ("a1", "Paris", "capital_of", "France"),
    ("a2", "London", "capital_of", "United Kingdom"),
    ("a3", "Marie Curie", "born_in", "Poland"),
    ("a4", "Marie Curie", "discovered", "Radioactivity"),
    ("a5", "Marie Curie", "won", "Nobel Prize"),
    ("a6", "Alan Turing", "born_in", "London"),
    ("a7", "Alan Turing", "cracked", "Enigma Machine"),
]


@pytest.fixture(scope="module")
def enc():
    return Config().encoder(default_word_vectors())


@pytest.fixture()
def index(enc):
    return FactIndex.from_texts(FACTS, enc)


def ask(index, enc, **kw):
    return gate(index, encode_query(Query(**kw), enc))


def test_config_holds_the_constants_and_validates():
    c = Config()
    assert (c.dim, c.prefix_dims, c.tau_early, c.threshold, c.predicate_floor, c.decay, c.ngram_sizes) == (
        10_000,
        2_000,
        0.20,
        0.55,
        0.35,
        0.95,
        (3, 4, 5),
    )
    assert c.packed_bytes == 1250
    with pytest.raises(InvalidInput):
        Config(prefix_dims=2001)
    with pytest.raises(InvalidInput):
        Config(threshold=1.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.threshold = 0.1


def test_answerable_questions_pass_with_the_right_fact(index, enc):
    r = ask(index, enc, tokens=("marie", "curie", "born"), entities=("Marie Curie",), predicates=("born_in",))
    assert [s.fact_id for s in r.passed] == ["a3"]
    assert r.passed[0].score == pytest.approx(1.0) and r.passed[0].predicate == pytest.approx(1.0)
    r = ask(index, enc, tokens=("cracked", "enigma"), entities=("Enigma Machine",), predicates=("cracked",))
    assert [s.fact_id for s in r.passed] == ["a7"]
    r = ask(index, enc, tokens=("born", "london"), entities=("London",), predicates=("born_in",))
    assert r.passed[0].fact_id == "a6"


def test_unanswerable_questions_are_blocked(index, enc):
    # right entity, wrong relation: the predicate floor blocks it
    r = ask(index, enc, tokens=("marie", "curie", "buried"), entities=("Marie Curie",))
    assert r.blocked and "blocked" in r.reason() or "nothing reached" in r.reason()
    # right relation, unknown entity: a strong predicate alone is not enough
    r = ask(index, enc, tokens=("discovered", "polonium"), predicates=("discovered",))
    assert r.blocked
    r = ask(index, enc, tokens=("alan", "turing", "married"), entities=("Alan Turing",), predicates=("spouse_of",))
    assert r.blocked


def test_long_questions_are_not_penalised(index, enc):
    short = ask(index, enc, tokens=("curie", "born"), entities=("Marie Curie",), predicates=("born_in",))
    filler = ("please", "tell", "exactly", "which", "country", "famous", "scientist", "originally", "came", "from")
    long = ask(index, enc, tokens=("curie", "born") + filler, entities=("Marie Curie",), predicates=("born_in",))
    assert long.passed and long.passed[0].fact_id == "a3"
    assert long.passed[0].score >= short.passed[0].score - 1e-9


def test_predicate_floor_is_enforced_separately(index, enc):
    # both entity slots match (score 1.0) but the relation asked for is unrelated
    r = ask(index, enc, entities=("Marie Curie", "Poland"), tokens=("married",))
    assert r.blocked
    m = [s for s in r.near_misses if s.fact_id == "a3"]
    assert m and m[0].score >= 0.55 and m[0].predicate < 0.35
    assert "predicate" in r.reason()


def _brute(index, enc, q, cfg):
    """Reference: per-fact Python loop with dense cosines."""
    qe = [enc.encode(t) for t in dict.fromkeys(q.tokens + q.entities)]
    qp = [enc.encode(t) for t in dict.fromkeys(q.tokens + q.predicates)]
    out = {}
    for fid, s, p, o in FACTS:

        def best(qs, x):
            return max(float(a.astype(np.int64) @ x) / cfg.dim for a in qs) if qs else -1.0

        def pre(v):
            return v[: cfg.prefix_dims]

        s1 = sorted(
            [
                best([pre(a) for a in qe], pre(enc.encode(s))) * cfg.dim / cfg.prefix_dims,
                best([pre(a) for a in qp], pre(enc.encode(p))) * cfg.dim / cfg.prefix_dims,
                best([pre(a) for a in qe], pre(enc.encode(o))) * cfg.dim / cfg.prefix_dims,
            ]
        )[1]
        if s1 < cfg.tau_early:
            continue
        sl = [best(qe, enc.encode(s)), best(qp, enc.encode(p)), best(qe, enc.encode(o))]
        out[fid] = (sorted(sl)[1], sl[1])
    return out


@pytest.mark.parametrize("block_rows,threads", [(8, 1), (8, 2), (1024, 1)])
def test_vectorised_gate_equals_a_per_fact_reference(enc, block_rows, threads):
    cfg = Config(block_rows=block_rows, threads=threads, tau_early=-1.0, threshold=-1.0, predicate_floor=-1.0)
    idx = FactIndex.from_texts(FACTS, enc, cfg)
    q = Query(tokens=("curie", "london", "born"), entities=("Marie Curie",), predicates=("born_in",))
    r = gate(idx, encode_query(q, enc))
    ref = _brute(idx, enc, q, cfg)
    got = {s.fact_id: (s.score, s.predicate) for s in r.passed}
    assert set(got) == set(ref) == {f[0] for f in FACTS}
    for k in ref:
        assert got[k] == pytest.approx(ref[k], abs=1e-6)


def test_stage_one_rejects_on_the_prefix(index, enc):
    r = ask(index, enc, tokens=("curie", "born"), entities=("Marie Curie",), predicates=("born_in",))
    assert r.candidates == 7 and r.stage1_rejected + r.stage2_scored == 7 and r.stage1_rejected >= 4


def test_restricting_to_candidate_facts(index, enc):
    q = encode_query(Query(tokens=("born",), entities=("Marie Curie",), predicates=("born_in",)), enc)
    r = gate(index, q, fact_ids=["a4", "a5", "a3", "nope"])
    assert r.candidates == 3 and [s.fact_id for s in r.passed] == ["a3"]


def test_append_and_delete_keep_vectors_shared_and_freed(enc):
    idx = FactIndex.from_texts(FACTS, enc)
    assert idx.entities.used == 10  # 10 distinct entities for 7 facts
    assert len(idx) == 7 and "a3" in idx
    assert idx.slots("a3") == (entity_key("Marie Curie"), predicate_key("born_in"), entity_key("Poland"))
    assert idx.remove("a3") and not idx.remove("a3")
    assert entity_key("Poland") not in idx.entities.rows  # no other fact uses Poland
    assert entity_key("Marie Curie") in idx.entities.rows
    with pytest.raises(NotFound):
        idx.slots("a3")
    q = encode_query(Query(tokens=("curie", "born"), entities=("Marie Curie",), predicates=("born_in",)), enc)
    assert gate(idx, q).blocked

    def one(t):
        return entity_key(t) if t[0].isupper() else predicate_key(t), enc.encode_packed(t)

    assert idx.add("a3", one("Marie Curie"), ("p:born_in", enc.encode_packed("born_in")), one("Poland"))
    assert not idx.add("a3", one("Marie Curie"), ("p:born_in", enc.encode_packed("born_in")), one("Poland"))
    assert [s.fact_id for s in gate(idx, q).passed] == ["a3"]
    # the freed row was reused, not leaked
    assert idx.entities.used == 10


def test_bad_queries_are_typed(index, enc):
    with pytest.raises(InvalidInput):
        Query()
    with pytest.raises(InvalidInput):
        Query(tokens=("",))
    bad = encode_query(Query(tokens=("x",)), enc)
    with pytest.raises(InvalidInput):
        gate(index, type(bad)(bad.entity_side[:, :100], bad.predicate_side))


def test_memory_per_vector_is_packed(enc):
    idx = FactIndex.from_texts(FACTS, enc, Config(block_rows=8))
    per_row = (idx.entities.pref.nbytes + idx.entities.rest.nbytes) / idx.entities.rest.shape[0]
    assert per_row == (32 + 125) * 8  # 1,256 bytes in RAM: 1,250 plus word padding of the 2,000-bit prefix


# ---------------------------------------------------------------- optimised path vs a plain reference


def _cos32(h: int, bits: int) -> np.float32:
    """The cosine the gate reports for a Hamming distance: float32 1 - 2h/bits."""
    return np.float32(1.0) - np.float32(2.0) * np.float32(h) / np.float32(bits)


def _reference_gate(facts, order, qe, qp, cfg, fact_ids=None):
    """Straightforward gate: a Python loop per fact over packed uint8 bytes (hdc.hamming), no
    term table, no blocks, no integer shortcuts. facts: id -> (s, p, o) packed uint8 vectors."""
    pb = cfg.prefix_dims // 8
    f32 = np.float32

    def best(qs, v, nbytes, bits):
        if len(qs) == 0:
            return f32(-1.0)
        return _cos32(min(int(hdc.hamming(q[:nbytes], v[:nbytes])) for q in qs), bits)

    def kth(vals):
        return sorted(vals, reverse=True)[cfg.slots_required - 1]

    ids = order if fact_ids is None else [f for f in fact_ids if f in facts]
    s1 = {}
    for f in ids:
        s, p, o = facts[f]
        s1[f] = kth([best(qe, s, pb, cfg.prefix_dims), best(qp, p, pb, cfg.prefix_dims), best(qe, o, pb, cfg.prefix_dims)])
    kept = [f for f in ids if s1[f] >= f32(cfg.tau_early)]
    top = max(s1.values())
    best_prefix = (next(f for f in ids if s1[f] == top), float(top))
    rows = []
    for f in kept:
        s, p, o = facts[f]
        nb = cfg.packed_bytes
        sl = (best(qe, s, nb, cfg.dim), best(qp, p, nb, cfg.dim), best(qe, o, nb, cfg.dim))
        sc = kth(list(sl))
        ok = bool(sc >= f32(cfg.threshold) and sl[1] >= f32(cfg.predicate_floor))
        rows.append((f, float(sc), float(sl[1]), tuple(float(x) for x in sl), ok))
    rows.sort(key=lambda r: (-r[1], -r[2]))  # stable: ties keep fact order
    passed = [r for r in rows if r[4]]
    missed = [r for r in rows if not r[4]]
    return {
        "passed": passed[: cfg.max_reported],
        "near": missed[: min(cfg.max_reported, 5)],
        "candidates": len(ids),
        "rejected": len(ids) - len(kept),
        "scored": len(kept),
        "passed_total": len(passed),
        "best_prefix": best_prefix,
    }


def _as_dict(r):
    def rows(xs):
        return [(s.fact_id, s.score, s.predicate, s.slots, s.passed) for s in xs]

    return {
        "passed": rows(r.passed),
        "near": rows(r.near_misses),
        "candidates": r.candidates,
        "rejected": r.stage1_rejected,
        "scored": r.stage2_scored,
        "passed_total": r.passed_total,
        "best_prefix": r.best_prefix,
    }


def _noisy(rng, v, flip):
    """A packed vector with a fraction `flip` of its bits flipped."""
    bits = np.unpackbits(v, bitorder="little")
    idx = rng.choice(bits.size, int(flip * bits.size), replace=False)
    bits[idx] ^= 1
    return np.packbits(bits, bitorder="little")


def _random_world(seed, n_facts=1500, n_ent=300, n_pred=12, cfg=Config()):
    rng = np.random.default_rng(seed)
    nb = cfg.packed_bytes
    ent = rng.integers(0, 256, (n_ent, nb), dtype=np.uint8)
    pred = rng.integers(0, 256, (n_pred, nb), dtype=np.uint8)
    # a few near-duplicate entities so that prefix and full cosines land on both sides of every threshold
    for i in range(0, 40, 2):
        ent[i + 1] = _noisy(rng, ent[i], rng.uniform(0.0, 0.45))
    s = rng.integers(0, n_ent, n_facts)
    p = rng.integers(0, n_pred, n_facts)
    o = rng.integers(0, n_ent, n_facts)
    s[:5], o[:5] = o[5:10], s[5:10]  # some facts share both entities (in either order)
    ids = [f"f{i:05d}" for i in range(n_facts)]
    return rng, ent, pred, ids, s, p, o


def _queries(rng, ent, pred, s, p, o):
    """Query sides of several shapes: noisy copies (graded noise) of the slots of some stored
    facts, and random components."""
    nb = ent.shape[1]
    rand = lambda k: list(rng.integers(0, 256, (k, nb), dtype=np.uint8))  # noqa: E731
    noisy = lambda v, lo, hi: _noisy(rng, v, rng.uniform(lo, hi))  # noqa: E731
    empty = np.zeros((0, nb), dtype=np.uint8)

    def fact(lo, hi):
        i = int(rng.integers(0, len(s)))
        return noisy(ent[s[i]], lo, hi), noisy(pred[p[i]], lo, hi), noisy(ent[o[i]], lo, hi)

    a, b, c = fact(0.0, 0.2)
    d, e, f = fact(0.1, 0.4)
    g, h, _ = fact(0.0, 0.1)
    shapes = [
        ([a, c] + rand(2), [b] + rand(2)),  # the bench's shape: subject, object, predicate + noise
        ([d, f, a], [e, b]),  # graded noise around the thresholds
        ([g], [h]),  # one component each side
        (rand(6) + [d, g, f], rand(1)),  # more components than one scan group
        (None, [b, e]),  # no entity-side component
        (rand(3), rand(3)),  # nothing near: everything rejected at stage 1
    ]
    return [(np.stack(x) if x is not None else empty, np.stack(y)) for x, y in shapes]


def _use_kernel(monkeypatch, on: bool) -> None:
    """Force the stage-1 scan onto the compiled kernel (even for tiny scans) or onto numpy."""
    from semantic_rdf.hdc import gate as gate_mod

    if on:
        assert gate_mod._compiled_kernel() is not None, "numba is a dependency: the kernel must load"
        monkeypatch.setattr(gate_mod, "_KERNEL_MIN_ROWS", 0)
    else:
        monkeypatch.setattr(gate_mod, "_compiled_kernel", lambda: None)


@pytest.mark.parametrize("kernel", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize(
    "block_rows,threads,scratch,min_par",
    [(1024, 1, None, None), (4096, 2, None, 0), (8, 2, None, 0), (64, 1, 64 * 32 * 9 * 2, None), (24, 2, 1, 0)],
)
def test_optimised_gate_equals_plain_reference_on_random_data(monkeypatch, block_rows, threads, scratch, min_par, kernel):
    from semantic_rdf.hdc import gate as gate_mod

    _use_kernel(monkeypatch, kernel)
    if scratch is not None:
        monkeypatch.setattr(gate_mod, "_SCRATCH_BYTES", scratch)  # several component groups per block
    if min_par is not None:
        monkeypatch.setattr(gate_mod, "_MIN_PARALLEL_ROWS", min_par)  # split even small scans across threads
    cfg = Config(block_rows=block_rows, threads=threads, tau_early=0.12, threshold=0.45, predicate_floor=0.3)
    rng, ent, pred, ids, s, p, o = _random_world(7, cfg=cfg)
    idx = FactIndex(cfg)
    idx.add_many(ids, ([f"e{i}" for i in s], ent[s]), ([f"p{i}" for i in p], pred[p]), ([f"e{i}" for i in o], ent[o]))
    facts = {f: (ent[s[i]], pred[p[i]], ent[o[i]]) for i, f in enumerate(ids)}
    # deletions leave free rows and reorder facts (swap with last): the reference follows the index order
    for f in ids[100:160:3]:
        assert idx.remove(f)
        del facts[f]
    order = idx.ids
    seen_pass = seen_block = 0
    for qe, qp in _queries(rng, ent, pred, s, p, o):
        qv = gate_mod.QueryVectors(qe, qp)
        got = _as_dict(gate(idx, qv))
        want = _reference_gate(facts, order, qe, qp, cfg)
        assert got == want  # exact: same ids, same float32 scores, same order, same counts
        sub = list(rng.choice(order, 200, replace=False)) + ["absent"]
        assert _as_dict(gate(idx, qv, fact_ids=sub)) == _reference_gate(facts, order, qe, qp, cfg, fact_ids=sub)
        seen_pass += got["passed_total"] > 0
        seen_block += got["passed_total"] == 0 and got["scored"] > 0
    assert seen_pass >= 2 and seen_block >= 1  # the data exercised passing, blocked-at-stage-2 and rejected queries


def test_integer_stage_one_matches_float_cosines():
    from semantic_rdf.hdc.gate import _Cosines

    for bits in (8, 2_000, 9_992):
        t = _Cosines.of(bits)
        assert t.strict and t.table[0] == 1.0 and t.table[-1] == -1.0
        assert all(t.table[h] == _cos32(h, bits) for h in (0, 1, bits // 3, bits - 1, bits))
        for floor in (0.2, 0.55, -1.0, 0.9999):
            h = t.max_distance(floor)
            assert t.table[h] >= np.float32(floor) and (h == bits or t.table[h + 1] < np.float32(floor))
    # float32 puts 1 - 2*800/2000 at 0.19999999, below float32(0.2): a prefix cosine of exactly 0.2 is
    # rejected (as the float path always did); the integer path reproduces that bit for bit
    assert _Cosines.of(2_000).max_distance(0.20) == 799 and _Cosines.of(2_000).max_distance(1.5) == -1


def _flip_prefix(v, n, prefix_dims, rng):
    """v with exactly n of its first prefix_dims bits flipped (the rest untouched)."""
    bits = np.unpackbits(v, bitorder="little")
    bits[rng.choice(prefix_dims, n, replace=False)] ^= 1
    return np.packbits(bits, bitorder="little")


@pytest.mark.parametrize("kernel", [True, False], ids=["compiled", "numpy"])
@pytest.mark.parametrize("threads", [1, 2])
def test_stage_one_boundary_is_exact(monkeypatch, threads, kernel):
    from semantic_rdf.hdc import gate as gate_mod

    _use_kernel(monkeypatch, kernel)
    monkeypatch.setattr(gate_mod, "_MIN_PARALLEL_ROWS", 0)
    cfg = Config(threads=threads, block_rows=8)
    rng = np.random.default_rng(3)
    v = rng.integers(0, 256, (6, cfg.packed_bytes), dtype=np.uint8)
    idx = FactIndex(cfg)
    keys = [f"k{i}" for i in range(6)]
    idx.add_many(["f1", "f2"], (keys[0:2], v[0:2]), (keys[2:4], v[2:4]), (keys[4:6], v[4:6]))
    h = gate_mod._Cosines.of(cfg.prefix_dims).max_distance(cfg.tau_early)  # 799: the last distance kept
    qe = np.stack([_flip_prefix(v[0], h, cfg.prefix_dims, rng), _flip_prefix(v[1], h + 1, cfg.prefix_dims, rng)])
    qp = np.stack([_flip_prefix(v[2], h, cfg.prefix_dims, rng), _flip_prefix(v[3], h + 1, cfg.prefix_dims, rng)])
    r = gate(idx, gate_mod.QueryVectors(qe, qp))
    # f1's subject and predicate sit exactly on the last kept distance, f2's one past it
    assert (r.stage2_scored, r.stage1_rejected) == (1, 1) and [s.fact_id for s in r.passed + r.near_misses] == ["f1"]
    facts = {"f1": (v[0], v[2], v[4]), "f2": (v[1], v[3], v[5])}
    assert _as_dict(r) == _reference_gate(facts, ["f1", "f2"], qe, qp, cfg)


@pytest.mark.parametrize("wp,block,nrows,nq", [(32, 1024, 3000, 4), (32, 8, 61, 1), (3, 16, 16, 9), (1100, 8, 20, 3)])
def test_compiled_scan_equals_numpy_scan(monkeypatch, wp, block, nrows, nq):
    """The fused kernel gives the numpy scan's distances, on partly used last blocks, one or many
    components, and prefixes too long for uint16 distances (1,100 words = 70,400 bits)."""
    from semantic_rdf.hdc import gate as gate_mod

    rng = np.random.default_rng(wp * nq)
    pref = rng.integers(0, 2**64, size=(-(-nrows // block), wp, block), dtype=np.uint64)
    q = rng.integers(0, 2**64, size=(nq, wp), dtype=np.uint64)
    q[0] = pref[0, :, 1]  # one exact hit: distance 0
    for threads in (1, 2):
        monkeypatch.setattr(gate_mod, "_MIN_PARALLEL_ROWS", 0)
        _use_kernel(monkeypatch, True)
        got = gate_mod._min_hamming_blocks(pref, q, nrows, threads)[:nrows]
        monkeypatch.undo()
        monkeypatch.setattr(gate_mod, "_compiled_kernel", lambda: None)
        want = gate_mod._min_hamming_blocks(pref, q, nrows, threads)[:nrows]
        monkeypatch.undo()
        assert got.dtype == want.dtype == gate_mod._dist_dtype(wp * 64)
        assert got[1] == 0 and np.array_equal(got, want)
        rows = np.ascontiguousarray(pref.transpose(0, 2, 1).reshape(-1, wp)[:nrows])
        bits = np.unpackbits(rows.view(np.uint8), axis=1)
        qbits = np.unpackbits(q.view(np.uint8), axis=1)
        assert np.array_equal(want, (bits[None] != qbits[:, None]).sum(axis=2).min(axis=0))
