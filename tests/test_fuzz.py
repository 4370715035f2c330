"""Property-based fuzzing of the pure stages: identity, ingest decoding, parsers, normalisers, splitters,
extractors. Bounded (modest max_examples, no deadline) so the suite stays fast; `python bench/fuzz.py`
runs the same properties far longer. The contract everywhere: a typed SemanticError or a valid result,
never another exception, and the documented invariants hold."""

from __future__ import annotations

import json
import os
import re

from hypothesis import HealthCheck, given, settings, strategies as st

from semantic_rdf.core.errors import SemanticError
from semantic_rdf.pipeline.extract import RuleExtractor
from semantic_rdf.pipeline.model_extract import ModelExtractor
from semantic_rdf.core.identity import assertion_id, fold
from semantic_rdf.pipeline.sources import docs_from_bytes
from semantic_rdf.pipeline.normalize import DEFAULT as NORMALIZE
from semantic_rdf.pipeline.parse import AutoParser
from semantic_rdf.pipeline.split import Paragraphs, Recursive, Sentences
from semantic_rdf.core.values import Chunk, Doc
from semantic_rdf.core.vocab import predicate_names

SCALE = int(os.environ.get("SEMANTIC_RDF_FUZZ_SCALE", "1"))  # bench/fuzz.py raises it for long runs
FAST = settings(max_examples=60 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# text with the awkward parts over-represented: controls, bidi, surrogates, combining marks, separators
awkward = st.text(
    alphabet=st.one_of(
        st.characters(codec=None),
        st.sampled_from(list("\x00\r\n\t\x0b\x0c\x1c\x1f\x85\u2028\u2029\u202e\u200b\ufeff\u0301 .!?\"'<>{}#")),
    ),
    max_size=300,
)
sentences = st.lists(
    st.sampled_from(
        [
            "Ada Lovelace was born in London.",
            "Marie Curie worked at the Sorbonne.",
            "He married Pierre Curie.",
            "Dr. Smith met Mr. Jones in the U.S. yesterday.",
            "Grace Hopper invented the compiler.",
            "\n\n",
            " ",
            "3.14 is pi.",
            "Ørsted founded Vestas?",
        ]
    ),
    max_size=12,
).map("".join)
names = ["sentences", "paragraphs", "recursive"]
VOCAB = set(predicate_names())


@FAST
@given(awkward, awkward, awkward)
def test_fold_and_id(s, p, o):
    f = fold(s)
    assert fold(f) == f and fold(" \t" + s + "\n ") == f
    aid = assertion_id(s, p, o)
    assert re.fullmatch(r"[0-9a-f]{16}", aid)
    assert assertion_id(s.upper() if s.isascii() else s, p, o) == aid or not s.isascii()
    assert assertion_id(" ".join(s.split(" ")) + " ", p, o) == assertion_id(s, p, o) or "  " in s


@FAST
@given(st.binary(max_size=2000), st.sampled_from(["a.txt", "a.md", "a.html", "a.json", "a.jsonl", "a.csv", "a.tsv", "a.pdf", "a.eml", "a", "a.bin"]))
def test_bytes_to_documents_to_parsed_text(data, name):
    try:
        docs = docs_from_bytes(data, ref=name, name=name)
    except SemanticError:
        return
    for d in docs:
        try:
            parsed = AutoParser().parse(d)
        except SemanticError:
            continue
        assert isinstance(parsed.text, str) and parsed.id == d.id


@FAST
@given(
    st.recursive(
        st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=20),
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
        max_leaves=30,
    )
)
def test_json_records_parse_or_refuse(value):
    data = json.dumps(value).encode()
    try:
        for d in docs_from_bytes(data, ref="r.json", name="r.json"):
            AutoParser().parse(d)
    except SemanticError:
        pass


@FAST
@given(awkward)
def test_normalizer_is_idempotent_and_clean(text):
    n = NORMALIZE.normalize(text)
    assert NORMALIZE.normalize(n) == n
    assert "\r" not in n and "\x00" not in n and "\u202e" not in n
    assert n == n.rstrip() and not n.startswith("\n")  # indentation kept, no leading empty line


@FAST
@given(st.one_of(awkward, sentences), st.sampled_from(names), st.integers(0, 200))
def test_splitters_tile_the_text(text, name, size):
    text = NORMALIZE.normalize(text)
    doc = Doc("d", "d", text)
    sp = {"sentences": Sentences, "paragraphs": Paragraphs, "recursive": Recursive}[name](size)
    chunks = sp.split(doc)
    assert "".join(c.text for c in chunks) == text
    for c in chunks:
        assert text[c.start : c.end] == c.text
    assert all(a.end == b.start for a, b in zip(chunks, chunks[1:]))


@settings(max_examples=25 * SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(sentences, awkward))
def test_rule_extractor_spans_and_vocabulary(text):
    text = NORMALIZE.normalize(text)
    if not text:
        return
    chunk = Chunk("d", 0, text, 0, len(text))
    for t in RuleExtractor().extract(chunk):
        assert t.predicate in VOCAB
        assert 0 <= t.start <= t.end <= len(text) and text[t.start : t.end].strip()
        assert t.subject.strip() and t.object.strip()


class _Scripted:
    """The one allowed double: a model that answers with the fuzzed text."""

    def __init__(self, answer):
        self.answer = answer

    def complete(self, prompt: str, schema: dict) -> str:
        return self.answer


items = st.fixed_dictionaries(
    {
        "subject": st.one_of(st.sampled_from(["Ada Lovelace", "London", "ada  lovelace"]), awkward),
        "predicate": st.one_of(st.sampled_from(sorted(VOCAB)), awkward),
        "object": st.one_of(st.sampled_from(["London", "Ada Lovelace"]), awkward),
    },
    optional={"confidence": st.one_of(st.floats(), st.integers(), st.text(max_size=3)), "x": st.text(max_size=3)},
)
answers = st.one_of(
    awkward,
    st.lists(items, max_size=5).map(lambda xs: json.dumps({"triples": xs})),
    st.lists(items, max_size=3).map(json.dumps),
    st.lists(items, max_size=3).map(lambda xs: "```json\n" + json.dumps({"triples": xs}) + "\n```"),
)


@FAST
@given(answers)
def test_model_extractor_keeps_only_grounded_vocabulary_triples(answer):
    text = "Ada Lovelace was born in London."
    chunk = Chunk("d", 0, text, 0, len(text))
    try:
        out = ModelExtractor(_Scripted(answer)).extract(chunk)
    except SemanticError:
        return
    for t in out:
        assert t.predicate in VOCAB
        assert t.subject.lower() in text.lower() and t.object.lower() in text.lower()
        assert 0.0 <= t.confidence <= 1.0
