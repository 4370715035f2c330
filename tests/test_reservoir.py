import numpy as np
import pytest

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.hdc.reservoir import Reservoir, ReservoirBank


def tokens(n, d, seed=0):
    return (np.random.default_rng(seed).integers(0, 2, (n, d)) * 2 - 1).astype(np.int8)


def test_step_matches_the_formula_then_renormalises():
    r = Reservoir(16, 0.95)
    t = tokens(2, 16)
    r.step(t[0])
    s0 = r.state.copy()
    r.step(t[1])
    raw = 0.95 * s0 + t[1] + np.roll(s0, 1) * t[1]
    assert np.allclose(r.state, raw * (r.target / np.linalg.norm(raw)))


def test_the_unnormalised_recurrence_would_overflow():
    # the original's bug, for contrast: norm grows ~1.38x per token and overflows in float64
    s = np.zeros(64)
    with np.errstate(over="ignore", invalid="ignore"):
        for t in tokens(3000, 64):
            s = 0.95 * s + t + np.roll(s, 1) * t
    assert not np.all(np.isfinite(s))


def test_a_million_tokens_stay_finite():
    # the real step function, on a small dimension so a million steps run in seconds
    r = Reservoir(8, 0.95)
    r.feed(tokens(1_000_000, 8, seed=1))
    assert r.steps == 1_000_000
    assert np.all(np.isfinite(r.state))
    assert np.linalg.norm(r.state) == pytest.approx(r.target)


def test_fingerprint_ranks_recent_content_first():
    d = 10_000
    book = tokens(50, d, seed=2)
    names = [f"e{i}" for i in range(50)]
    r = Reservoir(d)
    assert r.fingerprint(names, book) == []
    for i in (3, 7, 11):
        r.step(book[i])
    fp = r.fingerprint(names, book, top_k=4)
    assert fp[0][0] == "e11" and {n for n, _ in fp[:3]} == {"e3", "e7", "e11"}
    assert fp[2][1] > 0.15 and abs(fp[3][1]) < 0.05  # fed tokens stand out; the rest is noise
    assert fp[0][1] > fp[1][1] + 0.1  # the latest dominates
    packed = np.packbits(book > 0, axis=1, bitorder="little")
    assert [n for n, _ in r.fingerprint(names, packed, top_k=4)] == [n for n, _ in fp]


def test_state_roundtrip_and_bad_input():
    r = Reservoir(32)
    r.feed(tokens(10, 32))
    r2 = Reservoir.from_bytes(r.to_bytes(), 32)
    assert np.array_equal(r.state, r2.state) and r2.steps == 10
    with pytest.raises(InvalidInput):
        r.step(np.ones(31))
    with pytest.raises(InvalidInput):
        Reservoir.from_bytes(b"\x00" * 10, 32)
    with pytest.raises(InvalidInput):
        Reservoir(32, decay=1.5)


def test_per_conversation_state_is_separate_and_bounded():
    bank = ReservoirBank(16, capacity=2)
    a, b = bank.get("a"), bank.get("b")
    a.step(tokens(1, 16)[0])
    assert a.steps == 1 and b.steps == 0 and bank.get("a") is a
    bank.get("c")  # evicts the least recently used: b
    assert "b" not in bank and "a" in bank and len(bank) == 2
    with pytest.raises(InvalidInput):
        bank.get("")
