"""The side file's table of one-piece words stands in for the tokenizer: the same vectors, bit for bit, and
`ask` as a process never loads the tokenizer."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from semantic_rdf.hdc.sidetables import SideTables
from semantic_rdf.hdc.wordvectors import TabledWords, WordLlamaVectors, default_word_vectors

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def side(tmp_path_factory):
    st = SideTables(tmp_path_factory.mktemp("words") / "s.sqlite")
    yield st
    st.close()


def _words(wv: WordLlamaVectors) -> list[str]:
    vocab = sorted(wv.tokenizer.get_vocab())
    rng = np.random.default_rng(7)
    picked = [vocab[i].lstrip("\u2581") for i in rng.choice(len(vocab), 1500, replace=False)]
    return (
        picked
        + [w.lower() for w in picked]
        + [w.capitalize() for w in picked]
        + [
            "paris",
            "London",
            "lovelace",
            "Ada",
            "polonium",
            "zzqxj",
            "straße",
            "İstanbul",
            "ǅx",
            "x" * 40,
            "abc123",
            "naïve",
            "東京",
            "",
            "two words",
            "don't",
            "1815",
        ]
    )


def test_table_gives_the_tokenizers_vectors(side):
    wv = WordLlamaVectors()
    tabled = TabledWords(WordLlamaVectors(), side.word_piece)
    covered = 0
    for w in _words(wv):
        a, b = wv.vector(w), tabled.vector(w)
        assert (a is None) == (b is None), w
        if a is not None:
            covered += 1
            assert np.array_equal(a, b), w
    assert covered > 1000  # the sample is not all uncovered words
    assert tabled.base._tok is None  # the tokenizer was never loaded for the tabled lookups


def test_table_is_built_once_and_keeps_the_centre(side):
    side.word_piece("paris")
    rows = side.conn.execute("SELECT count(*) FROM words").fetchone()[0]
    assert rows > 10_000
    again = SideTables(side.path)
    try:
        fresh = WordLlamaVectors()
        assert again._meta("words") == default_word_vectors().signature
        c = np.frombuffer(bytes.fromhex(again._meta("words_centre")), dtype=np.float32)
        assert np.array_equal(c.reshape(1, -1), fresh.centre)
    finally:
        again.close()


def test_without_a_table_the_tokenizer_answers():
    def no_table(word):
        raise LookupError("read-only")

    wv = WordLlamaVectors()
    tabled = TabledWords(WordLlamaVectors(), no_table)
    for w in ("paris", "zzqxj", "Lovelace"):
        a, b = wv.vector(w), tabled.vector(w)
        assert (a is None and b is None) or np.array_equal(a, b)


def test_ask_as_a_process_loads_no_tokenizer(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    store = tmp_path / "demo"
    run = lambda *a: subprocess.run([sys.executable, *a], capture_output=True, text=True, env=env, timeout=300)  # noqa: E731
    r = run("-m", "semantic_rdf", "demo", "--store", str(store))
    assert r.returncode == 0, r.stderr
    r = run("-X", "importtime", "-m", "semantic_rdf", "ask", "--store", str(store), "Where was Ada Lovelace born?")
    assert r.returncode == 0, r.stderr
    assert "London" in r.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
    assert "numpy" in imported  # the import log is there
    assert "tokenizers" not in imported and "rdflib" not in imported


def test_a_damaged_word_table_falls_back_to_the_tokenizer(tmp_path):
    """Rows a damaged or hostile side file holds (a piece id out of range, text for an id, a negative id)
    cost a word its table entry, never the answer: the tokenizer reads it instead."""
    wv = WordLlamaVectors()
    st = SideTables(tmp_path / "s.sqlite")
    try:
        st.word_piece("paris")  # builds the table
        st.conn.execute("UPDATE words SET piece = 10000000 WHERE word = 'paris'")
        st.conn.execute("UPDATE words SET piece = 'abc' WHERE word = 'london'")
        st.conn.execute("UPDATE words SET piece = -3 WHERE word = 'born'")
        tabled = TabledWords(WordLlamaVectors(), st.word_piece)
        for w in ("paris", "london", "born", "Paris"):
            a, b = wv.vector(w), tabled.vector(w)
            assert a is not None and np.array_equal(a, b), w
        st.conn.execute("DROP TABLE words")
        st.conn.execute("CREATE TABLE words (other TEXT)")
        assert np.array_equal(TabledWords(WordLlamaVectors(), st.word_piece).vector("paris"), wv.vector("paris"))
    finally:
        st.close()
