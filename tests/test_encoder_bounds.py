"""The subword encoder's memory is bounded by construction (issue 21, reproduction 5).

A 120,000-character name used to be encoded by unpacking all of its ~360,000 n-gram vectors at once
(a 360,000 x 10,000 byte matrix): `ask` peaked at 4.2 GB. The n-grams are now generated lazily and
unpacked in chunks of `hdc.CHUNK_GRAMS`; these tests hold the peak traced memory of encoding such a
name to a few megabytes and the encodings equal those of the all-at-once reference.
"""

from __future__ import annotations

import random
import string
import tracemalloc

import numpy as np
import pytest

from semantic_rdf.hdc import vectors as hdc
from semantic_rdf.hdc.gate import Config
from semantic_rdf.core.identity import fold
from semantic_rdf.hdc.wordvectors import default_word_vectors

SALT = "semantic-rdf/subword/v1"
LONG = 120_000
PEAK_LIMIT = 32 * 1024 * 1024  # measured ~11 MB for a 120,000-character name (the whole matrix: 3.6 GB)


def reference_subword(text: str, dim: int, sizes=(3, 4, 5), salt: str = SALT) -> np.ndarray:
    """The encoder as it was before chunking: every n-gram vector unpacked into one matrix."""
    grams = [g for w in hdc.words(text) for g in hdc.ngrams(w, sizes)]
    if not grams:
        grams = [f"#{fold(text)}#"]
    stack = np.frombuffer(b"".join(hdc.ngram_bits(g, dim, salt) for g in grams), dtype=np.uint8)
    bits = np.unpackbits(stack.reshape(len(grams), dim // 8), axis=1, bitorder="little")
    s = 2 * bits.sum(axis=0, dtype=np.int32) - len(grams)
    first = bits[0].astype(np.int32) * 2 - 1
    return np.where(s > 0, 1, np.where(s < 0, -1, first)).astype(np.int8)


def random_name(n: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(string.ascii_letters) for _ in range(n))


@pytest.fixture(scope="module")
def enc():
    return Config().encoder(default_word_vectors())


ORDINARY = [
    "Marie Curie",
    "born_in",
    "Ostrova",
    "Tromsø",
    "Nobel Prize in Physics",
    "x",
    "ITS",
    "The Who",
    "Alba Vandr00042",
    "北京大学",
    "e=mc²",
    "  spaced   out  ",
]


@pytest.mark.parametrize("name", ORDINARY)
def test_subword_vector_equals_the_unchunked_encoding_on_ordinary_names(name):
    assert np.array_equal(hdc.subword_vector(name, 10_000, (3, 4, 5), SALT), reference_subword(name, 10_000))


def test_no_ngram_fallback_is_unchanged():
    # sizes longer than the marked word: no n-grams, the whole marked text is the one "gram"
    assert np.array_equal(hdc.subword_vector("ab cd", 512, (7,), SALT), reference_subword("ab cd", 512, (7,)))


def test_chunking_does_not_change_the_result_however_many_chunks(monkeypatch):
    # several chunks, with an odd remainder and with ties decided by the first n-gram (even counts)
    names = [random_name(3 * hdc.CHUNK_GRAMS + 17, seed=s) for s in range(3)] + ["ab " * 700]
    for name in names:
        want = reference_subword(name, 1_024)
        assert np.array_equal(hdc.subword_vector(name, 1_024, (3, 4, 5), SALT), want)
        monkeypatch.setattr(hdc, "CHUNK_GRAMS", 7)
        assert np.array_equal(hdc.subword_vector(name, 1_024, (3, 4, 5), SALT), want)
        monkeypatch.undo()


def test_a_long_name_equals_the_reference_at_a_small_dimension():
    name = random_name(LONG // 4) + "x" * (LONG // 4)  # distinct n-grams past the name's own cache, then repeats
    assert np.array_equal(hdc.subword_vector(name, 64, (3, 4, 5), SALT), reference_subword(name, 64))


@pytest.mark.parametrize("name", ["x" * LONG, random_name(LONG)], ids=["repeated", "random"])
def test_encoding_a_120000_character_name_stays_within_a_few_megabytes(enc, name):
    enc.encode("warm up")  # the word vectors and the projection matrix are loaded once, before measuring
    hdc.ngram_bits.cache_clear()
    tracemalloc.start()
    try:
        packed = enc.encode_packed(name)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(packed) == 1_250
    assert peak < PEAK_LIMIT, f"peak traced memory {peak / 2**20:.1f} MB"
    # a long name is not itself a key of the encoding cache (its digest is), and it evicts no entries
    # of the shared n-gram cache
    assert name not in enc._cache and all(len(k) <= hdc.CACHE_MAX_CHARS for k in enc._cache)
    assert hdc.ngram_bits.cache_info().currsize <= hdc.CHUNK_GRAMS
    assert enc.encode_packed(name) == packed  # now from the cache


def test_many_covered_words_are_averaged_in_bounded_memory(enc):
    text = " ".join(["Paris", "London", "river", "bridge"] * 5_000)  # 20,000 covered words, ~110,000 characters
    enc.encode("warm up")
    tracemalloc.start()
    try:
        sem = enc.semantic(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_LIMIT, f"peak traced memory {peak / 2**20:.1f} MB"
    # the running sum gives the mean of the four words' vectors, as the one-shot mean does
    wv = enc.word_vectors
    x = np.mean([wv.vector(w) for w in ("paris", "london", "river", "bridge")], axis=0)
    want = hdc.simhash_vector(x / np.linalg.norm(x), enc.dim, enc.simhash_seed)
    assert hdc.cosine(sem, want) > 0.99


def test_encoder_unchanged_on_ordinary_names(enc):
    for name in ORDINARY:
        sub = reference_subword(name, enc.dim)
        sem = enc.semantic(name)
        want = sub if sem is None else hdc.fuse(sem, sub)
        assert enc.encode_packed(name) == hdc.pack(want).tobytes()


def test_word_vectors_skip_words_no_vocabulary_piece_can_spell():
    wv = default_word_vectors()
    longest = max(len(t) for t in wv.tokenizer.get_vocab())
    assert wv._max_chars == longest * wv.max_pieces
    assert wv.vector("x" * LONG) is None and wv.vector("paris") is not None
    # every single-piece word the tokenizer can spell is within the bound, so nothing covered is lost
    pieces = [t.lstrip("▁") for t in wv.tokenizer.get_vocab() if t.lstrip("▁").isalpha()]
    assert max(len(p) for p in pieces) <= wv._max_chars
