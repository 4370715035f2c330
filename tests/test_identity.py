import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from semantic_rdf.core.identity import assertion_id, fnv1a64, fold

# The public HIP-0526 conformance vectors (copied from shared/conformance/identity-vectors.jsonl).
VECTORS = Path(__file__).parent / "data" / "conformance-public.jsonl"
# Regression pins for the Go-specific rules (U+0130, no final sigma, U+2028, U+001C); the rules
# themselves are asserted directly in test_fold_go_* below.
LOCAL_VECTORS = Path(__file__).parent / "data" / "identity-vectors.jsonl"


def _vectors():
    rows = []
    for path in (VECTORS, LOCAL_VECTORS):
        if path.exists():
            rows += [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    return rows


def test_public_vectors_present():
    assert len(_vectors()) >= 12


@pytest.mark.parametrize("row", _vectors(), ids=lambda r: r[3])
def test_conformance_vector(row):
    s, p, o, want = row
    assert assertion_id(s, p, o) == want


def test_fnv1a64_known_values():
    # FNV-1a 64 of the empty input is the offset basis; of "a" a published value.
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert fnv1a64(b"a") == 0xAF63DC4C8601EC8C


def test_fold_go_whitespace_rules():
    assert fold("  Ada \t\n Lovelace ") == "ada lovelace"
    # U+001C..U+001F are not white space in Go
    assert fold("a\x1cb") == "a\x1cb"
    assert fold("a\x1fb") == "a\x1fb"
    # U+0085, U+00A0, U+2028, U+3000 are
    assert fold("a\x85b\xa0c\u2028d\u3000e") == "a b c d e"
    # U+200B (zero width space) is not
    assert fold("a\u200bb") == "a\u200bb"


def test_fold_go_lowercase_rules():
    assert fold("\u0130stanbul") == "istanbul"  # Go: İ -> i (one rune); Python's lower() gives two
    assert fold("ΟΔΟΣ") == "οδοσ"  # no final sigma
    assert fold("Montréal") == "montréal"
    assert fold("e\u0301") != fold("\u00e9")  # no normalisation


def test_fold_lone_surrogate_does_not_crash():
    assert assertion_id("a\ud800", "b", "c") == assertion_id("a\ufffd", "b", "c")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_fold_idempotent(s):
    assert fold(fold(s)) == fold(s)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet=st.characters(blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")), min_size=1), min_size=1, max_size=5),
    st.lists(st.sampled_from([" ", "\t", "\n", "\u00a0", "\u3000", "  "]), min_size=6, max_size=6),
)
def test_fold_whitespace_invariance(words, spaces):
    plain = " ".join(words)
    spaced = spaces[0] + spaces[1].join(words) + spaces[2]
    assert fold(spaced) == fold(plain)
    assert assertion_id(spaced, "P", plain) == assertion_id(plain, "p", spaced)


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(), st.text())
def test_id_shape(s, p, o):
    i = assertion_id(s, p, o)
    assert len(i) == 16 and all(c in "0123456789abcdef" for c in i)


def test_nul_separation_distinguishes_splits():
    assert assertion_id("ab", "c", "d") != assertion_id("a", "bc", "d")
