import random
import sqlite3

import pytest

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.hdc.hebbian import Hebbian, eager_turn


def test_update_rule_values():
    h = Hebbian(sqlite3.connect(":memory:", isolation_level=None))
    h.step({"a", "b"})
    assert h.weight("a", "b") == pytest.approx(0.15)
    h.step({"b", "a"})
    assert h.weight("b", "a") == pytest.approx(0.2775)
    h.step({"c"})
    assert h.weight("a", "b") == pytest.approx(0.2775 * 0.99)
    assert h.turn == 3


def test_lazy_decay_equals_eager_over_10000_random_turns():
    rng = random.Random(5)
    ents = [f"e{i}" for i in range(12)]
    h = Hebbian(sqlite3.connect(":memory:", isolation_level=None))
    eager: dict = {}
    worst = 0.0
    for turn in range(10_000):
        active = set(rng.sample(ents, rng.choice([0, 1, 2, 2, 3, 4])))
        eager = eager_turn(eager, active)
        h.step(active)
        if turn % 500 == 499 or turn == 9_999:
            lazy = h.weights()
            assert set(lazy) == set(eager)
            worst = max(worst, max(abs(lazy[k] - eager[k]) for k in eager))
    assert worst <= 1e-12
    assert h.turn == 10_000


def test_priming_is_ordered_and_thresholded():
    h = Hebbian(sqlite3.connect(":memory:", isolation_level=None))
    for _ in range(3):
        h.step({"curie", "nobel"})
    h.step({"curie", "poland"})
    h.step({"turing", "enigma"})
    p = h.priming("curie")
    assert [e for e, _ in p] == ["nobel", "poland"]
    assert p[0][1] > p[1][1] > 0.05
    for _ in range(250):
        h.step(set())
    assert h.priming("curie") == []  # decayed below 0.05
    assert h.priming("curie", threshold=0.0)[0][0] == "nobel"


def test_a_failed_turn_writes_nothing():
    conn = sqlite3.connect(":memory:", isolation_level=None)
    h = Hebbian(conn)
    h.step({"a", "b"})
    with pytest.raises(InvalidInput):
        h.step({"a", ""})
    assert h.turn == 1 and h.weight("a", "b") == pytest.approx(0.15)
    conn.execute("CREATE TRIGGER boom BEFORE INSERT ON hebbian WHEN NEW.a = 'x' BEGIN SELECT RAISE(ABORT, 'boom'); END")
    with pytest.raises(sqlite3.IntegrityError):
        h.step({"x", "y", "a"})
    assert h.turn == 1 and h.weight("a", "y") == 0.0


def test_forget_removes_every_pair_of_an_entity():
    h = Hebbian(sqlite3.connect(":memory:", isolation_level=None))
    h.step({"a", "b", "c"})
    assert h.forget(["b"]) == 2
    assert h.weight("a", "b") == 0.0 and h.weight("a", "c") > 0
