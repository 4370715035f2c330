import dataclasses

import numpy as np
import pytest

from semantic_rdf import hdc
from semantic_rdf.errors import InvalidInput, NotFound
from semantic_rdf.gate import Config, FactIndex, Query, encode_query, entity_key, gate, predicate_key
from semantic_rdf.wordvectors import default_word_vectors

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
        10_000, 2_000, 0.20, 0.55, 0.35, 0.95, (3, 4, 5))
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
        pre = lambda v: v[: cfg.prefix_dims]
        s1 = sorted([best([pre(a) for a in qe], pre(enc.encode(s))) * cfg.dim / cfg.prefix_dims,
                     best([pre(a) for a in qp], pre(enc.encode(p))) * cfg.dim / cfg.prefix_dims,
                     best([pre(a) for a in qe], pre(enc.encode(o))) * cfg.dim / cfg.prefix_dims])[1]
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
    one = lambda t: (entity_key(t) if t[0].isupper() else predicate_key(t), enc.encode_packed(t))
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
