import numpy as np
import pytest

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.hdc.gate import Config
from semantic_rdf.hdc.vectors import cosine
from semantic_rdf.hdc.paths import bind_path, confirm, document_memory, enumerate_paths, probe
from semantic_rdf.hdc.sidetables import SideTables

TRIPLES = [
    ("Pierre Curie", "spouse_of", "Marie Curie"),
    ("Marie Curie", "born_in", "Warsaw"),
    ("Warsaw", "capital_of", "Poland"),
    ("Alan Turing", "born_in", "London"),
    ("London", "capital_of", "United Kingdom"),
    ("Marie Curie", "won", "Nobel Prize"),
    ("Marie Curie", "discovered", "Polonium"),
    ("Albert Einstein", "born_in", "Ulm"),
    ("Ulm", "located_in", "Germany"),
]


@pytest.fixture(scope="module")
def enc():
    return Config().encoder(None)


def test_paths_respect_hops_window_and_no_revisits():
    ps = enumerate_paths(TRIPLES)
    els = {p.elements for p in ps}
    assert ("Pierre Curie", "spouse_of", "Marie Curie", "born_in", "Warsaw", "capital_of", "Poland") in els
    assert all(2 <= p.hops <= 3 for p in ps)
    # Einstein -> Ulm -> Germany: triples 7 and 8 are adjacent, so inside the window
    assert ("Albert Einstein", "born_in", "Ulm", "located_in", "Germany") in els
    far = enumerate_paths(TRIPLES[:1] + [("x", "y", "z")] * 7 + [("Marie Curie", "born_in", "Warsaw")], window=6)
    assert not any(p.elements[0] == "Pierre Curie" for p in far)
    loop = enumerate_paths([("a", "r", "b"), ("b", "r", "a")])
    assert loop == []
    with pytest.raises(InvalidInput):
        enumerate_paths([("a", "", "b")])


def test_binding_is_ordered_and_unbinds(enc):
    e0, r1, e1 = enc.encode("Alan Turing"), enc.encode("cracked"), enc.encode("Enigma")
    p = bind_path([e0, r1, e1])
    assert np.array_equal(p, e0 * r1 * np.roll(e1, 1))
    assert abs(cosine(p, bind_path([e1, r1, e0]))) < 0.05  # direction matters
    assert np.array_equal(p * e0 * r1, np.roll(e1, 1))  # self-inverse binding recovers the filler
    with pytest.raises(InvalidInput):
        bind_path([e0, r1])


class Claims:
    def __init__(self, triples):
        self.t = set(triples)

    def has_claim(self, s, p, o):
        return (s, p, o) in self.t


def test_probe_finds_two_and_three_hop_paths_and_confirm_checks_each_hop(tmp_path, enc):
    ps = enumerate_paths(TRIPLES)
    with SideTables(tmp_path / "s.sqlite", encoder=enc) as st:
        st.put_paths("doc1", document_memory(ps, enc), [list(p.elements) for p in ps])
        mems = {d: st.path_memory(d) for d in st.path_documents()}
    c = probe(["Pierre Curie", "spouse_of", None, "born_in", None], mems, enc)
    assert c and c[0].path.elements == ("Pierre Curie", "spouse_of", "Marie Curie", "born_in", "Warsaw")
    assert confirm(c[0], Claims(TRIPLES))
    assert not confirm(c[0], Claims(TRIPLES[:1]))  # a hop the store does not believe
    c3 = probe(["Pierre Curie", "spouse_of", None, "born_in", None, "capital_of", None], mems, enc)
    assert c3[0].path.elements[-1] == "Poland"
    # nothing starts at Turing with spouse_of: no candidate clears the noise floor
    assert probe(["Alan Turing", "spouse_of", None, "born_in", None], mems, enc) == []
    with pytest.raises(InvalidInput):
        probe([None, None, None, None, None], mems, enc)


def test_memory_capacity_many_paths(enc):
    import hashlib

    names = [hashlib.md5(str(i).encode()).hexdigest()[:10] for i in range(200)]
    triples = [(names[i], "related_to", names[i + 1]) for i in range(199)]
    ps = enumerate_paths(triples, max_hops=2, window=1)
    assert len(ps) == 198  # member cosine ~ sqrt(2 / (pi * 198)) = 0.057, noise 0.01
    mem = {"d": (document_memory(ps, enc).tobytes(), [list(p.elements) for p in ps])}
    hit = probe([names[100], "related_to", None, "related_to", None], mem, enc)
    assert hit[0].path.elements == (names[100], "related_to", names[101], "related_to", names[102])
    assert hit[0].score > 4 / np.sqrt(enc.dim) and (len(hit) == 1 or hit[1].score < hit[0].score / 2)
