"""The statistical extractor's speed paths give exactly what the plain paths give (docs/extraction.md, Speed)."""

import numpy as np

from semantic_rdf.pipeline.statistical import StatisticalExtractor
from semantic_rdf.pipeline.statistical.extractor import tag_spans
from semantic_rdf.pipeline.statistical.weights import crf_attributes
from semantic_rdf.pipeline.statistical.tagging import ner_features
from semantic_rdf.pipeline.statistical.text import tokenize

SENTENCES = [
    "Henrik Angell was a Norwegian military officer born in Kristiania.",
    "He studied at the University of Oslo and later joined the Norwegian Army in 1880.",
    "Paul Desmarais Jr. chairs Power Corporation of Canada, a company based in Montreal.",
    "the album was released by Sony Music on 3 March 1999 .",
]


def test_crf_gets_only_known_attributes_and_tags_the_same():
    w = StatisticalExtractor().w
    keep = crf_attributes(w.tagger)
    assert keep and "BOS" in keep
    # read from the dump with one expression: the set pycrfsuite's own dump parser gives
    assert keep == frozenset(a for a, _ in w.tagger.info().state_features)
    for s in SENTENCES:
        words = [t.text for t in tokenize(s)]
        full = ner_features(words)
        kept = ner_features(words, keep)
        assert kept == [[f for f in tok if f in keep] for tok in full]  # same features, same order
        assert any(len(a) < len(b) for a, b in zip(kept, full))  # something unknown was dropped
        assert tag_spans(w.tagger, words, keep) == tag_spans(w.tagger, words)


class _Tags:
    """A tagger that gives fixed tags: what `tag_spans` reads from them."""

    def __init__(self, tags: list[str]) -> None:
        self.tags = tags

    def tag(self, features: list[list[str]]) -> list[str]:
        assert len(features) == len(self.tags)
        return self.tags


def test_tag_spans_reads_bio_tags():
    """B opens a span; I continues one of its type, or opens one after O or after another type; O and the end close."""
    tags = ["B-PER", "I-PER", "O", "I-LOC", "I-LOC", "B-LOC", "I-ORG", "B-PER", "O", "O", "B-MISC", "I-MISC"]
    got = tag_spans(_Tags(tags), ["w"] * len(tags))
    assert got == [(0, 2, "PER"), (3, 5, "LOC"), (5, 6, "LOC"), (6, 7, "ORG"), (7, 8, "PER"), (10, 12, "MISC")]
    assert tag_spans(_Tags(["O", "O"]), ["a", "b"]) == [] and tag_spans(_Tags([]), []) == []


def test_batched_scores_equal_one_sentence_at_a_time():
    w = StatisticalExtractor().w
    s1 = [["tp=PER|LOC", "hk=named", "bw=born|ht", "no-such-feature"], ["tp=LOC|PER", "hk=named"]]
    s2 = [["no-such-feature"]]  # a sentence whose only pair has no known feature
    s3 = [["tp=PER|ORG", "hk=named", "tk=named"], ["nothing"], ["tp=ORG|PER", "ord=th"]]
    batch = w.score_sentences(s1 + s2 + s3, [len(s1), len(s2), len(s3)])
    one = np.vstack([w.score(s1), w.score(s2), w.score(s3)])
    assert batch.dtype == one.dtype and np.array_equal(batch, one)
    assert not np.array_equal(batch[0], batch[1])


def test_scoring_only_what_can_reach_the_floor_keeps_those_scores():
    """The extractor asks the annotator only for pairs that reach its floor; they are the pairs, with the same
    scores, that a full scoring keeps at that floor."""
    from semantic_rdf.pipeline.statistical.document import DocState

    ann = StatisticalExtractor().annotator
    sents = [tokenize(s) for s in SENTENCES]
    full = ann.sentences(DocState(), sents, least=0.02)
    for floor in (0.1, 0.5, 0.9):
        part = ann.sentences(DocState(), sents, least=floor)
        assert [m for m, _, _ in part] == [m for m, _, _ in full]
        assert [s for _, s, _ in part] == [[x for x in s if x.p >= floor] for _, s, _ in full]
    assert sum(len(s) for _, s, _ in full) > sum(len(s) for _, s, _ in ann.sentences(DocState(), sents, least=0.5)) > 0
