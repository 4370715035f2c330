import numpy as np
import pytest

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.hdc.gate import Config, Query, encode_query, gate
from semantic_rdf.hdc.sidetables import SideTables, side_path
from semantic_rdf.hdc.wordvectors import default_word_vectors

FACTS = [
    ("a1", "Paris", "capital_of", "France"),
    ("a3", "Marie Curie", "born_in", "Poland"),
    ("a4", "Marie Curie", "discovered", "Radioactivity"),
    ("a6", "Alan Turing", "born_in", "London"),
]


@pytest.fixture(scope="module")
def enc():
    return Config().encoder(default_word_vectors())


def test_vectors_are_written_packed_and_the_index_gates(tmp_path, enc):
    with SideTables(tmp_path / "s.sqlite", encoder=enc) as st:
        assert st.put_facts(FACTS) == 4 and st.put_facts(FACTS[:1]) == 0
        assert len(st) == 4
        v = st.term_vector("Marie Curie")
        assert v == enc.encode_packed("Marie Curie") and len(v) == 1250
        idx = st.index()
        r = gate(idx, encode_query(Query(tokens=("curie", "born"), entities=("Marie Curie",), predicates=("born_in",)), enc))
        assert [s.fact_id for s in r.passed] == ["a3"]
        names, mat = st.entities()
        assert "Poland" in names and mat.shape == (len(names), 1250)
        assert st.fact_texts("a3") == ("Marie Curie", "born_in", "Poland")


def test_reconcile_adds_missing_and_removes_orphans(tmp_path, enc):
    path = tmp_path / "s.sqlite"
    with SideTables(path, encoder=enc) as st:
        st.put_facts(FACTS[:3])
    store_now = [FACTS[1], FACTS[2], FACTS[3]]  # a1 gone from the RDF store, a6 never made it to the side tables
    with SideTables(path, encoder=enc) as st:
        rep = st.reconcile(store_now)
        assert (rep.added, rep.removed, rep.reencoded) == (1, 1, 0)
        assert st.fact_ids() == {"a3", "a4", "a6"}
        assert st.term_vector("Paris") is None and st.term_vector("France") is None  # orphan vectors go too
        assert st.reconcile(store_now) == type(rep)(0, 0, 0)


def test_reconcile_reencodes_when_the_encoder_changes(tmp_path, enc):
    path = tmp_path / "s.sqlite"
    with SideTables(path, encoder=Config().encoder(None)) as st:
        st.put_facts(FACTS)
        old = st.term_vector("capital_of", kind="p")
    with SideTables(path, encoder=enc) as st:
        assert st.stale
        rep = st.reconcile(FACTS)
        assert rep.reencoded == 10  # 7 entities + 3 predicates and not st.stale
        assert st.term_vector("capital_of", kind="p") == enc.encode_packed("capital_of") != old


def test_erased_names_do_not_survive_in_the_file(tmp_path, enc):
    path = tmp_path / "s.sqlite"
    with SideTables(path, encoder=enc) as st:
        st.put_facts(FACTS + [("z9", "Zanzibar Quuxlington", "born_in", "Paris")])
        st.hebbian.step({"Zanzibar Quuxlington", "Paris"})
        st.remove_facts(["z9"])
        st.hebbian.forget(["Zanzibar Quuxlington"])
        st.vacuum()
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"Quuxlington" not in data


def test_hebbian_state_persists_and_paths_are_stored(tmp_path, enc):
    path = tmp_path / "s.sqlite"
    with SideTables(path, encoder=enc) as st:
        st.hebbian.step({"curie", "nobel"})
        st.put_paths("doc1", np.zeros(1250, dtype=np.uint8), [["a", "p", "b", "q", "c"]])
        with pytest.raises(InvalidInput):
            st.put_paths("doc1", b"\x00" * 10, [])
    with SideTables(path, encoder=enc) as st:
        assert st.hebbian.turn == 1 and st.hebbian.weight("nobel", "curie") == pytest.approx(0.15)
        vec, paths = st.path_memory("doc1")
        assert len(vec) == 1250 and paths == [["a", "p", "b", "q", "c"]]
        assert st.path_documents() == ["doc1"] and st.remove_paths("doc1") and st.path_memory("doc1") is None


def test_bad_records_write_nothing(enc):
    st = SideTables(None, encoder=enc)
    with pytest.raises(InvalidInput):
        st.put_facts([FACTS[0], ("a2", "", "born_in", "x")])
    assert len(st) == 0
    assert st.conn.execute("PRAGMA secure_delete").fetchone()[0] == 1


def test_layout_mismatch_is_refused(tmp_path, enc):
    path = tmp_path / "s.sqlite"
    SideTables(path, encoder=enc).close()
    with pytest.raises(InvalidInput):
        SideTables(path, Config(dim=8000, prefix_dims=2000))


def test_side_path_is_a_sibling_file(tmp_path):
    assert side_path(tmp_path / "semantic-store") == tmp_path / "semantic-store.side.sqlite"
