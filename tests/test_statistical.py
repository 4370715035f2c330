"""The statistical extractor (semantic_rdf/statistical): shipped weights, what they extract from real
sentences, determinism, span fidelity, pronouns, code blocks, the manifest, the PROV agent, the
`ingest` default, and the training script end to end on a tiny slice."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from _security import run_cli
from semantic_rdf.pipeline.split import splitter_from_spec
from semantic_rdf.pipeline.statistical import StatisticalExtractor, load_manifest
from semantic_rdf.pipeline.statistical.weights import WEIGHT_FILES, WEIGHTS_DIR, sha256_file
from semantic_rdf.pipeline.statistical.names import clean_name
from semantic_rdf.core.values import Chunk, Doc


def _realtext() -> Path:
    """The corpora folder: $SEMANTIC_RDF_REALTEXT, else ../shared/data/realtext beside the checkout (or a worktree's)."""
    import os

    if os.environ.get("SEMANTIC_RDF_REALTEXT"):
        return Path(os.environ["SEMANTIC_RDF_REALTEXT"])
    repo = Path(__file__).resolve().parents[1]
    for base in (repo.parent, repo.parent.parent):
        if (base / "shared" / "data" / "realtext").is_dir():
            return base / "shared" / "data" / "realtext"
    return repo.parent / "shared" / "data" / "realtext"


REALTEXT = _realtext()
REDOCRED = REALTEXT / "redocred" / "dev_revised.json"

# Real sentences: the opening of Re-DocRED held-out documents and the issue's example (Wikipedia text).
ANGELL = "Henrik Angell was a Norwegian military officer. He died in Kristiania."
ACHEBE = "Chinua Achebe was a Nigerian novelist. He was born in Ogidi, Nigeria."
SCHNEIDER = (
    'Wilfried "Willi" Schneider (born 13 March 1963 in Mediaș, Transylvania) is a German skeleton '
    "racer who competed from 1992 to 2002. He won two medals in the men's skeleton event at the FIBT "
    "World Championships with a gold in 1998 and a bronze in 1999."
)
ALGER = (
    "Ross Patterson Alger (August 20, 1920 – January 16, 1992) was a politician in the Canadian province of "
    "Alberta, who served as mayor of Calgary from 1977 to 1980. Born in Prelate, Saskatchewan, he moved to "
    "Alberta with his family in 1930s. He received a bachelor of commerce degree from the University of "
    "Alberta in 1942."
)


def extract(text: str, doc_id: str = "d", ex: StatisticalExtractor | None = None, **kw):
    ex = ex or StatisticalExtractor(**kw)
    doc = Doc(doc_id, doc_id, text)
    out = []
    for c in splitter_from_spec("sentences").split(doc):
        out.extend(ex.extract(c))
    return ex, out


def facts(triples) -> set[tuple[str, str, str]]:
    return {(t.subject, t.predicate, t.object) for t in triples}


def test_manifest_hashes_match_the_shipped_weight_files():
    man = load_manifest()
    assert set(man["files"]) == set(WEIGHT_FILES)
    for name, digest in man["files"].items():
        assert sha256_file(WEIGHTS_DIR / name) == digest, name
    import hashlib

    combined = hashlib.sha256("".join(f"{n}:{h}\n" for n, h in sorted(man["files"].items())).encode()).hexdigest()
    assert man["weights_sha256"] == combined
    assert len(man["training_data_sha256"]) == 64
    assert man["training_data"]["held_out_documents"] == [400, 500]
    assert 0.0 < man["floor"] <= 1.0


def test_the_shipped_weights_were_made_by_this_code():
    """The calibration is fitted on what the extractor gives: a change to the features, lexicons or
    extraction shipped without retraining leaves weights the training command no longer rebuilds."""
    from semantic_rdf.pipeline.statistical import train

    assert load_manifest()["source_sha256"] == train.source_sha256(), (
        "the extraction code changed since the weights were trained: python -m semantic_rdf.pipeline.statistical.train "
        "--data ../shared/data/realtext --out semantic_rdf/pipeline/statistical/weights"
    )


def test_calibration_is_a_smooth_rising_curve_that_keeps_what_its_floor_promises():
    """Platt scaling (train.py): facts right as often as a known curve says come out close to it, rising, and
    the floor keeps facts that precise; facts all of one kind give a flat curve (a tiny training run)."""
    import random

    import numpy as np

    from semantic_rdf.pipeline.statistical.train import calibrate

    rng = random.Random(7)
    truth = lambda p: p**2  # noqa: E731 - the share of facts at raw probability p that are right
    facts = [(p, rng.random() < truth(p), "P1") for p in (0.02 + 0.98 * rng.random() for _ in range(4000))]
    cal = calibrate(facts, target=0.82)
    curve = cal["by"]["P1"]
    assert all(a <= b for a, b in zip(curve["y"], curve["y"][1:]))
    for p in (0.3, 0.6, 0.9):
        assert abs(np.interp(p, curve["x"], curve["y"]) - truth(p)) < 0.1
    kept = [c for p, c, _ in facts if np.interp(p, curve["x"], curve["y"]) >= cal["floor"]]
    assert len(kept) > 100 and sum(kept) / len(kept) >= 0.82
    flat = calibrate([(0.4, False, "P1"), (0.9, False, "P1")], target=0.82)
    assert set(flat["pooled"]["y"]) == {0.0} and flat["floor"] == 1.0
    assert curve["x"][0] == 0.0 and curve["y"][0] == 0.0  # no value held below the first fact


def test_real_sentences_give_the_expected_facts():
    # a nationality adjective's citizenship calibrates near the default floor, over or under it by the sentence
    # (docs/extraction.md, "Calibration and lexicons"): these are asked for at 0.5, a birthplace and a university at
    # the default
    _, got = extract(" ".join([ANGELL, SCHNEIDER]), floor=0.5)
    f = facts(got)
    assert ("Henrik Angell", "country_of_citizenship", "Norway") in f
    assert ('Wilfried "Willi" Schneider', "country_of_citizenship", "Germany") in f
    _, got = extract(ALGER, floor=0.5)
    assert ("Ross Patterson Alger", "country_of_citizenship", "Canada") in facts(got)
    _, got = extract(ALGER)
    f = facts(got)
    assert {("Ross Patterson Alger", "born_in", "Prelate"), ("Ross Patterson Alger", "educated_at", "University of Alberta")} <= f
    # the issue's wrong fact: a resolved pronoun must not become the nationality adjective (at floor 0.1: every
    # candidate pair has some small calibrated probability, which a floor of 0 keeps)
    _, got = extract(ANGELL, floor=0.1)
    assert not any(t.subject in ("Norwegian", "Norway") for t in got)
    assert all(t.subject == "Henrik Angell" for t in got if t.predicate == "died_in")


def test_scores_are_probabilities_and_the_floor_filters():
    ex, low = extract(SCHNEIDER + " " + ALGER, floor=0.0)
    _, high = extract(SCHNEIDER + " " + ALGER)
    assert all(0.0 <= t.score <= 1.0 for t in low)
    assert all(t.score >= ex.w.floor for t in high)
    assert facts(high) <= facts(low) and len(low) > len(high)


def test_same_output_twice():
    text = " ".join([ANGELL, SCHNEIDER, ALGER])
    _, a = extract(text, floor=0.0)
    _, b = extract(text, floor=0.0)
    assert [(t.subject, t.predicate, t.object, t.score, t.start, t.end) for t in a] == [
        (t.subject, t.predicate, t.object, t.score, t.start, t.end) for t in b
    ]


def test_two_threads_sharing_the_weights_extract_what_one_does():
    """The weights (and the sums they keep) are shared by every extractor of a process: two extractors in two
    threads at once give each what it gives alone, cross-sentence scores included."""
    import threading

    from semantic_rdf.pipeline.statistical.weights import Weights

    texts = [PAUL + " " + ALGER, ANGELL + " " + SCHNEIDER + " " + PAUL] * 3

    def run(w, out, i, start=None):
        if start is not None:
            start.wait()
        _, got = extract(texts[i], f"d{i}", StatisticalExtractor(weights=w, floor=0.05))
        out[i] = [(t.subject, t.predicate, t.object, t.score) for t in got]

    alone: dict[int, list] = {}
    first = Weights.load()
    for i in range(len(texts)):
        run(first, alone, i)
    for _ in range(2):
        shared, together, start = Weights.load(), {}, threading.Barrier(len(texts))
        threads = [threading.Thread(target=run, args=(shared, together, i, start)) for i in range(len(texts))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert together == alone


def _fidelity(ex, doc_text, triples):
    bad = []
    for t in triples:
        ev = doc_text[t.start : t.end]
        sh, so, _, _ = ex.surfaces[(t.chunk.doc_id, t.start, t.end, t.subject, t.predicate, t.object)]
        if sh not in ev or so not in ev:
            bad.append((t, ev))
        assert t.chunk.text[t.start - t.chunk.start : t.end - t.chunk.start] == ev
    return bad


def test_span_fidelity_and_entities_are_names():
    texts = [ANGELL, SCHNEIDER, ALGER]
    if REDOCRED.is_file():  # and the held-out documents themselves, when the corpus is at hand
        from semantic_rdf.pipeline.statistical.text import load_redocred

        texts += [d.text for d in load_redocred(REDOCRED, 400, 430)]
    n = 0
    for i, text in enumerate(texts):
        ex, got = extract(text, f"doc{i}", floor=0.3)
        n += len(got)
        assert _fidelity(ex, text, got) == []
        for t in got:
            assert any(c.isupper() for c in t.subject) and any(c.isupper() for c in t.object)
    assert n > 5


@pytest.mark.parametrize(
    "span, name",
    [
        ("Tom Becker>", "Tom Becker"),
        ('Anna "Annie" <Weiss>', 'Anna "Annie" Weiss'),
        ("<Tom Becker>)", "Tom Becker"),
        ("«Roma»", "Roma"),
        ('"Anna Weiss', "Anna Weiss"),
        ("**Ada Lovelace**", "Ada Lovelace"),
        ("(Tom Becker", "Tom Becker"),
        ("Li Jiancheng (", "Li Jiancheng"),
        ("Queen (band)", "Queen (band)"),
        ("(I Can't Get No) Satisfaction", "(I Can't Get No) Satisfaction"),
        ("the Beatles", "Beatles"),
        ("Roche's", "Roche"),
        ("AC/DC", "AC/DC"),
        ("C++", "C++"),
        ("U.S.", "U.S."),
        ("the U.S.'s", "U.S."),
        ("Washington, D.C.,", "Washington, D.C."),
        ("A.D.", "A.D."),
        ("Warner Bros.", "Warner Bros"),
        ("Paul Desmarais Jr.", "Paul Desmarais Jr"),
        ("Washington, D.C.)", "Washington, D.C."),
        ("Jonas Smith.", "Jonas Smith"),
        ("Bros", "Bros"),
        ("Tom Becker, ", "Tom Becker"),
    ],
)
def test_a_name_keeps_no_marks_at_its_ends_and_no_bracket_without_its_partner(span, name):
    assert clean_name(span) == name


@pytest.mark.parametrize(
    "sentence, x, y, when",
    [
        ("Pia Jensen was born in Zürich on 19 March 1996.", "Pia Jensen", "Zürich", ("1996-03-19", None)),
        ("Ada Lovelace was born in London on December 10, 1815.", "Ada Lovelace", "London", ("1815-12-10", None)),
        ("In 1815 Ada Lovelace was born in London.", "Ada Lovelace", "London", ("1815-01-01", None)),
        ("Marie Curie worked at the University of Paris between 1906 and 1934.", "Marie Curie", "University", ("1906-01-01", "1935-01-01")),
        ("She has lived in Oslo since 2001.", "She", "Oslo", ("2001-01-01", None)),
        ("In 1930 he earned a law degree and was born in Chicago.", "he", "Chicago", None),
        ("Born in Prelate, Saskatchewan, he moved to Alberta in 1935.", "Prelate", "he", None),
        ("Ross Alger (August 20, 1920 – January 16, 1992) was a Canadian politician.", "Ross Alger", "Canadian", None),
        ("Tom Becker married Anna Weiss in 1990 and moved to Berlin in 1995.", "Tom Becker", "Berlin", None),
    ],
)
def test_the_valid_time_of_two_names_is_read_from_their_clause_only(sentence, x, y, when):
    from semantic_rdf.pipeline.dates import clause_validity

    a, b = sentence.index(x), sentence.index(y)
    got = clause_validity(sentence, (a, a + len(x)), (b, b + len(y)))
    as_dates = None if got is None else (got.start.date().isoformat(), got.until and got.until.date().isoformat())
    assert as_dates == when


def test_a_birth_gets_the_date_of_its_clause_and_no_other_fact_gets_one():
    _, got = extract("Chinua Achebe was a Nigerian novelist. He was born in Ogidi on 16 November 1930.", floor=0.0)
    born = [t for t in got if (t.subject, t.predicate, t.object) == ("Chinua Achebe", "born_in", "Ogidi")]
    assert len(born) == 2 and all(t.valid is not None and t.valid.start.date().isoformat() == "1930-11-16" for t in born)
    _, got = extract("Tom Becker took a law degree in 1930 and was born in Chicago.", floor=0.0)
    assert any(t.predicate == "born_in" and t.object == "Chicago" for t in got) and all(t.valid is None for t in got)
    # a place's country in a dated clause: the date is the move's, not the containment's
    _, got = extract("Tom Becker moved to Hamburg in Germany in 1990.", floor=0.0)
    assert any(t.predicate == "located_in" for t in got)
    assert all(t.valid is None for t in got if t.predicate == "located_in")


def test_a_name_in_angle_brackets_is_stored_without_them():
    text = "Anna Weiss (see <Tom Becker>) was born in Hamburg."
    _, got = extract(text, floor=0.0)
    names = {t.subject for t in got} | {t.object for t in got}
    assert "Tom Becker" in names and not any(set(n) & set("<>()") for n in names)


PAUL = "Paul Desmarais Jr. is a Canadian businessman. Desmarais was born in Sudbury, Ontario. He studied at McGill University."


def test_a_fact_across_sentences_quotes_the_passage_that_holds_both_names():
    ex, got = extract(PAUL, floor=0.6)  # its confidence lies near the default floor: a lower one keeps it
    cross = [t for t in got if (t.subject, t.predicate, t.object) == ("Sudbury", "located_in", "Canada")]
    assert len(cross) == 1  # "Canadian" and "Sudbury" never share a sentence
    (t,) = cross
    assert PAUL[t.start : t.end] == "Paul Desmarais Jr. is a Canadian businessman. Desmarais was born in Sudbury, Ontario."
    assert ex.surfaces[("d", t.start, t.end, *("Sudbury", "located_in", "Canada"))][:2] == ("Sudbury", "Canadian")
    assert _fidelity(ex, PAUL, got) == []
    _, above = extract(PAUL, floor=min(1.0, t.score + 0.01))  # a calibrated confidence like the others
    assert ("Sudbury", "located_in", "Canada") not in facts(above)


def test_the_cross_stage_skips_a_chunk_only_when_no_pair_can_reach_the_floor(monkeypatch):
    """The bound (CrossHead.out_of_reach) leaves out chunks whose best pair could not reach the floor; the
    facts are those of scoring every pair, at every floor, and it does leave chunks out."""
    from semantic_rdf.pipeline.statistical.weights import CrossHead

    towns = ["Sudbury", "Kingston", "Guelph", "Barrie", "Oshawa", "Windsor"]
    prose = " ".join(
        f"{a} met {b} in {t}. {b} later moved to {u}."
        for a, b, t, u in zip(["Ann Lee", "Bo Chan", "Cy Dunn"], ["Di Fox", "Ed Gale", "Flo Hart"], towns, towns[3:])
    )
    texts = [PAUL, ANGELL + " " + SCHNEIDER, ALGER, prose]
    real = CrossHead.out_of_reach
    skipped = []

    def counted(self, *a, **kw):
        got = real(self, *a, **kw)
        skipped.append(got)
        return got

    got = {}
    for floor in (0.02, 0.3, 0.6667, 0.9):
        monkeypatch.setattr(CrossHead, "out_of_reach", counted)
        got[floor] = [facts(extract(t, floor=floor)[1]) for t in texts]
        monkeypatch.setattr(CrossHead, "out_of_reach", lambda self, *a, **kw: False)
        assert got[floor] == [facts(extract(t, floor=floor)[1]) for t in texts]
    assert ("Sudbury", "located_in", "Canada") in got[0.6667][0]  # a fact across sentences is among them
    assert any(skipped) and not all(skipped)


def test_the_cross_components_summed_from_columns_equal_their_features_summed(monkeypatch):
    """`CrossHead.key_sums` reads an end's and a bag's features from kept columns of their words and end
    signatures instead of making their names: the sums are the very floats of the names' (`sums` over
    `render`), so the scores stay as trained. Every component of every scored pair, unknown words included."""
    from semantic_rdf.pipeline.statistical import extractor as X

    real = X.score_cross
    seen = []

    def check(w, state, sents, words, together, least=0.02):
        ctx = X.CrossContext(state, together, words)
        pairs = X.cross_candidates(state, sents, together)
        if len(pairs):
            keys = sorted({key for c in ctx.components(pairs, {}) for key in map(c.key, range(len(c.codes)))}, key=repr)
            by_names = w.cross.sums([list(ctx.render(k)) for k in keys])
            assert (w.cross.key_sums(ctx, keys) == by_names).all()
            seen.extend(k[0] for k in keys)
        return real(w, state, sents, words, together, least=least)

    monkeypatch.setattr(X, "score_cross", check)
    for text in (PAUL, ANGELL + " " + SCHNEIDER, ALGER, ALGER.replace("Alberta", "Qwzxland")):
        extract(text)
    assert {"p", "h", "t", "hb", "tb"} <= set(seen)


def test_the_cross_bound_never_falls_below_the_best_pair_of_a_chunk(monkeypatch):
    """The bound, asked at exactly the best score any pair of a chunk has, still lets the chunk through:
    per head type it adds the best of each component, which is at least what that pair sums to."""
    from semantic_rdf.pipeline.statistical import extractor as X

    real = X.score_cross
    best_of: list[float] = []

    def check(w, state, sents, words, together, least=0.02):
        got = real(w, state, sents, words, together, least=0.02)
        if got:
            best = max(c.p for c in got)
            ctx = X.CrossContext(state, together, words)
            assert not w.cross.out_of_reach(ctx, *X.cross_mentions(state, sents), least=best)
            best_of.append(best)
        return [c for c in got if c.p >= least]

    monkeypatch.setattr(X, "score_cross", check)
    for text in (PAUL, ANGELL + " " + SCHNEIDER, ALGER):
        extract(text)
    assert len(best_of) >= 3 and max(best_of) > 0.5


def test_a_place_gets_one_country_and_a_sentence_that_names_both_wins():
    """Read across sentences, "Paris" scored 0.71 for the United States; the document had said "Paris, France"."""
    from semantic_rdf.pipeline import gazetteer as gz

    text = (
        "Pierre Charles L'Enfant was a French-American military engineer who designed the plan for Washington in the "
        "United States. L'Enfant was born in Paris, France. He studied at the Royal Academy in Paris. In 1776 he "
        "sailed to the United States."
    )
    _, got = extract(text, floor=0.05)
    placed = [(s, o) for s, p, o in facts(got) if p == "located_in" and gz.builtin_class(o) == "Country"]
    assert ("Paris", "France") in placed and ("Paris", "United States") not in placed
    assert len({s for s, _ in placed}) == len(placed)  # no place in two countries


def test_a_town_lies_in_the_country_the_text_names():
    """towns.py: a place named as a town of GeoNames' table, in a chunk that names the country that town lies in, is
    located_in it at the precision training measured for such facts, quoting the passage from the one to the other;
    no fact without that country, above a caller's floor, for a person, or for the United Kingdom's other nations."""
    text = "The band toured Japan in 1999. They played in Kobe and Sapporo."
    ex, got = extract(text)
    towns = ex.w.towns
    assert towns is not None and ex.floor <= towns < 1
    kobe = [t for t in got if (t.subject, t.predicate, t.object) == ("Kobe", "located_in", "Japan")]
    assert kobe and kobe[0].score == round(towns, 4) and text[kobe[0].start : kobe[0].end] == text
    for other in ("They played in Kobe and Sapporo.", "The band toured France in 1999. They played in Kobe and Sapporo."):
        assert not any(t.predicate == "located_in" for t in extract(other)[1])
    assert ("Kobe", "located_in", "Japan") not in facts(extract(text, floor=min(1.0, towns + 0.01))[1])
    assert not any(t.predicate == "located_in" for t in extract("Paris Hilton visited France in 2004.")[1])
    f = facts(extract("Glasgow hosted the games. The team left England for Scotland.")[1])
    assert ("Glasgow", "located_in", "Scotland") in f and ("Glasgow", "located_in", "England") not in f


def test_a_document_the_size_of_an_encyclopedia_introduction_is_read_as_one_scope():
    """The default sentence splitter packs up to 2,000 characters, so that a document of the size training reads as one
    scope (Re-DocRED's introductions: about 1,100 characters on average, 2,600 at most) reaches the extractor as one
    chunk: a town in its last sentence is placed in the country its first sentence names, quoting the passage from the
    one to the other. Packed up to 1,000, the last sentence was a chunk of its own and the town stayed unplaced (Re-DocRED
    document 6: "… offices located in both Los Angeles, California and Detroit, Michigan."); it is now placed there too,
    with two selectors (the town's sentence, and the country's earlier mention)."""
    filler = " ".join(f"The programme has a segment on skill number {k} for young players." for k in range(20))
    text = f"The Soccer Academy is a television show shown in the United States. {filler} Its studio is in Detroit."
    assert 1000 < len(text) < 2000
    assert len(splitter_from_spec("sentences").split(Doc("d", "d", text))) == 1
    _, got = extract(text)
    detroit = [t for t in got if (t.subject, t.predicate, t.object) == ("Detroit", "located_in", "United States")]
    assert [(t.start, t.end) for t in detroit] == [(0, len(text))]
    ex = StatisticalExtractor()
    packed = [t for c in splitter_from_spec("sentences:1000").split(Doc("d", "d", text)) for t in ex.extract(c)]
    detroit = [t for t in packed if (t.subject, t.predicate, t.object) == ("Detroit", "located_in", "United States")]
    assert sorted(text[t.start : t.end] for t in detroit) == ["Its studio is in Detroit.", "the United States"]


_FESTIVAL = (
    "The Sommerfest is a music festival in Norway. {code}{filler} In 2019 it moved from Bergen to Trondheim, and a second stage "
    "opened by the Glomma River. Its founder lives in Paris."
)


def _festival(code: str = "") -> str:
    filler = " ".join(f"The festival has a programme of concerts number {k} for young players." for k in range(30))
    return _FESTIVAL.format(code=code, filler=filler)


def test_a_town_lies_in_the_country_a_chunk_before_it_named():
    """A long text names its country once, near its start: a town or a region of a later chunk lies in a country an
    earlier chunk of the document named (GUM's 108 documents, 4,700 characters on average: 55 facts more, all but one
    or two right). The fact has two selectors, the sentence that names the town and the earlier mention of the country,
    each holding the name it stands for. A place named by its kind ("Glomma River") is placed only in the one country
    its own chunk names, and a town of another country (Paris) in none."""
    text = _festival()
    chunks = splitter_from_spec("sentences").split(Doc("d", "d", text))
    assert len(chunks) == 2 and "Norway" not in chunks[1].text
    ex = StatisticalExtractor()
    got = [t for c in chunks for t in ex.extract(c)]
    bergen = sorted((t.chunk.index, text[t.start : t.end]) for t in got if (t.subject, t.predicate, t.object) == ("Bergen", "located_in", "Norway"))
    assert bergen == [(0, "Norway"), (1, "In 2019 it moved from Bergen to Trondheim, and a second stage opened by the Glomma River.")]
    f = facts(got)
    assert ("Trondheim", "located_in", "Norway") in f
    assert not any(p == "located_in" and s in ("Glomma River", "Paris") for s, p, _ in f), f
    for t in got:
        assert t.chunk.text[t.start - t.chunk.start : t.end - t.chunk.start] == text[t.start : t.end]
        sh, so, _, _ = ex.surfaces[("d", t.start, t.end, t.subject, t.predicate, t.object)]
        assert sh in text[t.start : t.end] and so in text[t.start : t.end]


def test_a_selector_in_an_earlier_chunk_cites_the_document_and_both_are_kept(tmp_path):
    """Through `ingest`'s pipeline, with code in the earlier chunk (the extractor reads a copy with the code blanked): the
    second selector cites the document's own chunk, and the store keeps both quotes of the fact."""
    from semantic_rdf.lifecycle.browse import show
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.pipeline.stages import build_pipeline
    from semantic_rdf.store.assertions import AssertionStore

    text = _festival("\n```\nprint('Oslo')\n```\n")
    f = tmp_path / "fest.txt"
    f.write_text(text, encoding="utf-8")
    pipe = build_pipeline([str(f)], extractor=StatisticalExtractor())
    (res,) = list(pipe.run(str(f)))
    assert "Oslo" in res.chunks[0].text and not any("Oslo" in t.subject for t in res.triples)  # the code is not read
    bergen = [t for t in res.triples if (t.subject, t.object) == ("Bergen", "Norway")]
    assert sorted(t.chunk.index for t in bergen) == [0, 1] and all(any(c is t.chunk for c in res.chunks) for t in bergen)
    store = AssertionStore.memory()
    try:
        load(store, build_pipeline([str(f)], extractor=StatisticalExtractor()), [str(f)])
        quotes = {q.text for q in show(store, bergen[0].id).listed.quotes}
        assert "Norway" in quotes and any("from Bergen to Trondheim" in q for q in quotes), quotes
    finally:
        store.close()


def test_a_country_does_not_lie_in_itself_under_another_name():
    """A classifier read "the 27th largest paper in the U.S." after "… in the United States" as U.S. located_in the
    United States (Re-DocRED document 8): two names of one country (the town table's code) are never stated as one
    lying in the other; a place in either still is, under the country's one name (`towns.canonical_country`)."""
    text = (
        "The Sacramento Bee is a daily newspaper published in Sacramento, California, in the United States. Since its founding "
        "in 1857, The Bee has become the largest newspaper in Sacramento, the fifth largest newspaper in California, and the "
        "27th largest paper in the U.S."
    )
    for floor in (None, 0.05):
        f = facts(extract(text, floor=floor)[1])
        assert ("California", "located_in", "United States") in f and not any("U.S." in fact for fact in f)
        assert ("United States", "located_in", "United States") not in f


def test_a_state_lies_in_no_other_country_but_a_nation_of_the_united_kingdom_lies_in_it():
    """An alliance of "Britain, France, Austria …" gave "United Kingdom located_in France" (Re-DocRED document 72; the
    fold models' 11 country-in-country facts over floor 0.3 out of fold were all wrong): a country of the demonym
    lexicon is stated in no other, at any floor; England still lies in the United Kingdom, and a territory with a code
    of its own (Hong Kong, Puerto Rico) may lie in a country."""
    from semantic_rdf.pipeline.statistical.extractor import _may_lie_in

    text = (
        "The War of the Quadruple Alliance was a result of the ambitions of King Philip V of Spain. It saw the defeat of "
        "Spain by an alliance of Britain, France, Austria and the Dutch Republic."
    )
    for floor in (None, 0.05):
        got = facts(extract(text, floor=floor)[1])
        assert not any(s in ("United Kingdom", "Spain", "France", "Austria") and p == "located_in" for s, p, _ in got), got
    assert ("England", "located_in", "United Kingdom") in facts(extract("England is a country of the United Kingdom.", floor=0.05)[1])
    assert not _may_lie_in("United States", "Taiwan") and not _may_lie_in("United Kingdom", "France")
    assert _may_lie_in("Wales", "United Kingdom") and _may_lie_in("Hong Kong", "China") and _may_lie_in("Puerto Rico", "United States")
    assert _may_lie_in("Paris", "France") and _may_lie_in("Kobe", "Korea")
    # a territory with a code of its own lies in a state, not in another territory (GUM's guide to Guadeloupe)
    assert not _may_lie_in("Guadeloupe", "Puerto Rico") and _may_lie_in("Guadeloupe", "France") and _may_lie_in("Cayman Islands", "UK")


def test_a_place_in_a_nation_of_the_united_kingdom_lies_in_the_united_kingdom_too():
    """A place has one country (`_one_object`), and one of the United Kingdom's nations is that one too: Leeds in
    England (read in the sentence) also lies in the United Kingdom (the town table, read across sentences), as
    Re-DocRED states of both; the second had been dropped as another country."""
    text = (
        "The Yorkshire Post is a daily broadsheet newspaper, published in Leeds in northern England. It is one of the "
        "oldest newspapers in the United Kingdom."
    )
    f = facts(extract(text)[1])
    assert {("Leeds", "located_in", "England"), ("Leeds", "located_in", "United Kingdom")} <= f
    f = facts(extract("The Yorkshire Post is published in Leeds in northern England. It is also sold in France.", floor=0.05)[1])
    assert ("Leeds", "located_in", "England") in f and ("Leeds", "located_in", "France") not in f


def test_georgia_is_a_country_and_a_state_of_the_united_states_and_korea_either_korea():
    """The name "Georgia" is the country the demonym lexicon names and one of the United States' states: the country rules
    (a state lies in no other country, a place has one country, a town lies in no country but its own) read it as
    either. "Macon is a city in central Georgia, United States" had lost Macon's and Georgia's facts in the United
    States as a second country and a state in another state."""
    from semantic_rdf.pipeline.statistical.extractor import _may_lie_in, _one_of, _placed_elsewhere

    text = "Macon is a city in central Georgia, United States. It was founded in 1823."
    f = facts(extract(text, floor=0.3)[1])
    assert {("Macon", "located_in", "Georgia"), ("Macon", "located_in", "United States"), ("Georgia", "located_in", "United States")} <= f
    assert _may_lie_in("Georgia", "United States") and not _may_lie_in("Georgia", "Russia")
    assert _one_of("Georgia", "United States") and _one_of("United States", "Georgia") and not _one_of("Georgia", "Russia")
    assert not _placed_elsewhere("Atlanta", "Georgia") and not _placed_elsewhere("Tbilisi", "Georgia")
    assert _placed_elsewhere("Paris", "Georgia")
    # "Korea" is either Korea: GUM's guide to Fort Lee, New Jersey ("a strong Korean presence") had placed New Jersey
    # and New York City in it across sentences
    assert _placed_elsewhere("New Jersey", "Korea") and not _placed_elsewhere("Busan", "Korea") and not _placed_elsewhere("Pyongyang", "Korea")
    assert _one_of("Korea", "South Korea") and not _one_of("Korea", "Japan")


def test_the_towns_table_keeps_the_most_populous_town_of_a_name(tmp_path):
    """towns.build: one country per name (the most populous town's), accents dropped as a second name, the United
    Kingdom's nations apart, small towns and names of countries or continents left out; the file is the same bytes
    on every build; town_pairs pairs a place with the countries it lies in, by its own name and type only, a
    first-level region with the country the gazetteer lists it under, and a region of two countries with neither."""
    from semantic_rdf.pipeline.statistical import towns as tw

    def town(gid, name, cc, pop, admin1=""):
        return {"geonameid": gid, "name": name, "countrycode": cc, "population": pop, "admin1code": admin1, "alternatenames": ["Athena"]}

    cities = [
        town(1, "Springfield", "US", 160_000),
        town(2, "Springfield", "AU", 20_000),
        town(3, "Vitória", "BR", 300_000),
        town(4, "Leeds", "GB", 450_000, "ENG"),
        town(5, "Hamlet", "US", 900),
        town(6, "Chad", "US", 40_000),
        town(7, "Africa", "TN", 50_000),
    ]
    countries = [{"name": n, "iso": c} for n, c in (("United States", "US"), ("Australia", "AU"), ("Brazil", "BR"), ("Chad", "TD"))]
    lines = tw.build(cities, countries, ["Africa"])
    got = {tuple(line.split("\t")[1:]) for line in lines if line.startswith("T")}
    assert got == {("springfield", "US"), ("vitória", "BR"), ("vitoria", "BR"), ("leeds", "GB.ENG")}
    data = tmp_path / "geonames"
    data.mkdir()
    for name, rows in (("cities15000", cities), ("countries", countries), ("continents", [{"name": "Africa"}])):
        (data / f"{name}.json").write_text(json.dumps({str(i): r for i, r in enumerate(rows)}), encoding="utf-8")
    out = [tmp_path / "a.tsv.gz", tmp_path / "b.tsv.gz"]
    for path in out:
        assert tw.main(["--geonames", str(data), "--out", str(path)]) == 0
    assert out[0].read_bytes() == out[1].read_bytes()
    table = tw.load_towns(str(out[0]))
    assert table.country("the United States") == "US" and table.country("England") == "GB.ENG" and table.country("Atlantis") is None
    ents = [("Springfield", "LOC"), ("United States", "LOC"), ("England", "LOC"), ("Leeds", "LOC"), ("Vitoria", "PER"), ("Brazil", "LOC")]
    ents += [("Texas", "LOC"), ("Bavaria", "LOC"), ("Limburg", "LOC"), ("Netherlands", "LOC")]  # Limburg is Dutch and Belgian
    assert sorted(tw.town_pairs(table, ents)) == [(0, 1), (3, 2), (6, 1)]
    shipped = tw.load_towns()
    assert shipped.towns["kobe"] == "JP" and shipped.towns["glasgow"] == "GB.SCT" and "athena" not in shipped.towns


def test_the_tagger_reads_the_town_table_and_a_first_word_apart():
    """The town table's names, of one word or several, are features of the CRF (docs/extraction.md, step 2); a
    sentence's first word, capitalised whatever it is ("Salt" is a town in Spain), has its own; a city of the
    lexicons keeps its lexicon class."""
    from semantic_rdf.pipeline.statistical.tagging import ner_features

    words = "Salt is mined near Gingoog and Punta Arenas , not in Salt or Paris .".split()
    f = ner_features(words)
    assert "town0" in f[0] and "town" not in f[0]
    assert "town" in f[4] and "town" in f[11] and "town0" not in f[11]
    assert "mwB=Town" in f[6] and "mwI=Town" in f[7]
    assert "gz=City" in f[13] and "town" not in f[13]
    assert not any(x.startswith(("town", "mw")) for k in (1, 2, 3, 5, 8, 9, 10, 12) for x in f[k])


def test_a_place_named_by_its_kind_lies_in_the_one_country_named():
    """towns.town_pairs: a place whose name says its kind ("… River", "Lake …", "… County") lies in the country the
    entities name, when they name one only and no town or region they name lies elsewhere; not a sea, not a place
    of another type, not a known town or region of another country; the extractor states it as a town's fact."""
    import doctest

    from semantic_rdf.pipeline.statistical import towns as tw

    ran = doctest.testmod(tw)  # town_pairs' example
    assert ran.attempted and not ran.failed
    table = tw.Towns({"oakland": "US", "davao": "PH"}, {"philippines": "PH", "ethiopia": "ET", "japan": "JP"}, {"mindanao": "PH"})

    def pairs(*ents):
        return sorted(tw.town_pairs(table, list(ents)))

    ph = ("Philippines", "LOC")
    assert pairs(("Pulangi River", "LOC"), ph, ("Lake Lanao", "LOC"), ("Davao", "LOC")) == [(0, 1), (2, 1), (3, 1)]
    assert pairs(("Bukidnon Province", "LOC"), ph, ("Mindanao", "LOC")) == [(0, 1), (2, 1)]
    assert pairs(("Pulangi River", "LOC"), ph, ("Japan", "LOC")) == []  # two countries: which one?
    assert pairs(("Lake Merritt", "LOC"), ("Ethiopia", "MISC"), ("Oakland", "LOC")) == []  # Oakland lies elsewhere
    assert pairs(("Sulu Sea", "LOC"), ph) == [] and pairs(("Pulangi River", "ORG"), ph) == [] and pairs(("Pulangi River", "LOC")) == []
    assert pairs(("Fantasy Island", "MISC"), ph) == [] and pairs(("Riverside", "LOC"), ph) == []
    text = "Rice is grown across the Philippines. Copper is mined near the Pulangi River."  # "Salt" is a town in Spain
    ex, got = extract(text)
    river = [t for t in got if (t.subject, t.predicate, t.object) == ("Pulangi River", "located_in", "Philippines")]
    assert ex.w.towns is not None and river and river[0].score == round(ex.w.towns, 4) and text[river[0].start : river[0].end] == text


def test_an_institution_lies_in_the_one_country_named():
    """towns.town_pairs: an organisation, or a name the tagger typed a place, whose name's head says it is a university,
    a college, a hospital, a museum, a party, a court, a parliament, a ministry … lies in the country the entities name,
    when they name one only (and its name none of many: "European Parliament"); not when
    a word of its name other than its kind is a place elsewhere ("University of Oxford" in a text about Sweden:
    "University" is a town's name too, and does not count), nor when its head is another word ("Claudia Mo of Civic
    Party"), nor a school, a church or an institute, nor a person; the extractor states it as a town's fact."""
    from semantic_rdf.pipeline.statistical import towns as tw

    table = tw.Towns({"oxford": "GB.ENG", "university": "US", "uppsala": "SE"}, {"sweden": "SE", "norway": "NO"}, {})

    def pairs(*ents):
        return sorted(tw.town_pairs(table, list(ents)))

    se = ("Sweden", "LOC")
    assert pairs(("Uppsala University", "ORG"), se, ("Karlberg College of Music", "ORG")) == [(0, 1), (2, 1)]
    assert pairs(("Sahlgrenska Hospital", "LOC"), se) == [(0, 1)]  # typed a place
    assert pairs(("University of Oxford", "ORG"), se) == []  # Oxford lies elsewhere
    assert pairs(("Uppsala University", "ORG"), se, ("Norway", "LOC")) == []  # two countries: which one?
    assert pairs(("Church of Sweden Mission", "ORG"), se) == [] and pairs(("Nobel Institute", "ORG"), se) == []
    assert pairs(("Supreme Court", "ORG"), se) == [(0, 1)] and pairs(("Ministry of Fisheries", "ORG"), se) == [(0, 1)]
    assert pairs(("Defense Department", "ORG"), se) == []  # news names the United States' so in a text about another country
    assert pairs(("European Parliament", "ORG"), se) == [] and pairs(("International Court of Justice", "ORG"), se) == []
    assert pairs(("UN General Assembly", "ORG"), se) == [] and pairs(("Pan-African Parliament", "ORG"), se) == []
    # a place's name covers the towns inside it; a word alone before the kind is a town's name only when listed as a city
    us = tw.Towns({"york": "GB.ENG", "liberal": "US", "mexico": "MX"}, {"united states": "US", "canada": "CA"}, {"new york": "US"})
    assert sorted(tw.town_pairs(us, [("New York University", "ORG"), ("United States", "LOC")])) == [(0, 1)]
    assert sorted(tw.town_pairs(us, [("Liberal Party", "ORG"), ("Canada", "LOC")])) == [(0, 1)]
    assert pairs(("Uppsala University", "ORG"), ("Norway", "LOC")) == []  # Uppsala, a town's name before the kind, lies elsewhere
    assert pairs(("Karlberg School", "ORG"), se) == [] and pairs(("Anna Berg of Moderate Party", "ORG"), se) == []
    assert pairs(("Karlberg College", "PER"), se) == [] and pairs(("Uppsala University", "ORG")) == []
    _a_town_fact_alone(
        "Sweden has many old schools. Anna Berg taught at Karlberg University for a decade.", ("Karlberg University", "located_in", "Sweden")
    )


def test_an_institution_lies_in_the_town_its_name_holds():
    """towns.town_pairs: an institution whose name holds the name of a town or a region the entities name lies in it,
    whether or not they name a country; a name that says where after "in" or "at" is read there only; not a country
    (that is the rules' above), a person, nor a town named inside another word; the extractor states it as a town's fact."""
    from semantic_rdf.pipeline.statistical import towns as tw

    table = tw.Towns(
        {"syracuse": "US", "st. louis": "US", "amherst": "US", "york": "GB.ENG"}, {"sweden": "SE"}, {"massachusetts": "US", "new york": "US"}
    )

    def pairs(*ents):
        return sorted(tw.town_pairs(table, list(ents)))

    assert pairs(("Syracuse University", "ORG"), ("Syracuse", "LOC")) == [(0, 1)]
    assert pairs(("University of Massachusetts Amherst", "ORG"), ("Massachusetts", "LOC"), ("Amherst", "LOC")) == [(0, 1), (0, 2)]
    assert pairs(("Washington University in St. Louis", "ORG"), ("Washington", "LOC"), ("St. Louis", "LOC")) == [(0, 2)]
    assert pairs(("Syracuse Hospital", "PER"), ("Syracuse", "LOC")) == [] and pairs(("Syracuse University", "ORG"), ("Syracuse", "PER")) == []
    assert pairs(("Yorkshire Museum", "ORG"), ("York", "LOC")) == []  # "York" only inside a word
    # a place's name inside a longer one is not what the name holds: New York, not York
    assert pairs(("New York University", "ORG"), ("York", "LOC")) == [] and pairs(("Amherst College", "ORG"), ("Amherst", "LOC")) == [(0, 1)]
    assert pairs(("Syracuse Records", "ORG"), ("Syracuse", "LOC")) == []  # no institution
    # no country named
    _a_town_fact_alone(
        "Tom Hale taught at Syracuse University for a decade. He had grown up in Syracuse.", ("Syracuse University", "located_in", "Syracuse")
    )


def test_a_death_a_marriage_or_a_school_the_rules_read_is_stated_at_the_share():
    """extractor.rule_pairs (docs/extraction.md, step 8): a birth, a death, a school or a spouse the rule extractor reads
    in a sentence where the tagger names both entities is stated at the share of facts read by rule, evidenced by its
    sentence (and by the antecedent of a pronoun the document's state resolved the same way); the rules' own guess at a
    pronoun is not taken alone, what they read of one document does not steer another, and their other predicates are
    not read so."""
    import dataclasses

    from semantic_rdf.core.values import Triple
    from semantic_rdf.pipeline.extract import RuleExtractor
    from semantic_rdf.pipeline.statistical.extractor import Annotator, by_sentence, rule_pairs
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    w = StatisticalExtractor().w
    _a_town_fact_alone("Petra Lind died in Uppsala in 1990.", ("Petra Lind", "died_in", "Uppsala"))
    _a_town_fact_alone("Oskar Brandt married Helga Ruud in 1932.", ("Oskar Brandt", "spouse_of", "Helga Ruud"))
    # a pronoun: the sentence and the latest name before it, even when the person is named again after
    for text in (
        "Oskar Brandt was born in Tromsø. He died in Narvik in 1950.",
        "Oskar Brandt was born in Tromsø. He died in Narvik in 1950. Oskar Brandt was a sailor.",
    ):
        got = [t for t in extract(text)[1] if facts([t]) == {("Oskar Brandt", "died_in", "Narvik")}]
        assert sorted(text[t.start : t.end] for t in got) == ["He died in Narvik in 1950.", "Oskar Brandt"], text
        assert {t.score for t in got} == {round(w.towns, 4)}
    # the rules read this "he" as Anna Berg (the sentence's first person); the document's state leaves it unresolved
    text = "Anna Berg married Karl Lund in 1920; he died in Bergen in 1950."
    assert ("Anna Berg", "died_in", "Bergen") in facts(RuleExtractor().extract(Chunk("d", 0, text, 0, len(text))))
    assert facts(extract(text)[1]) == {("Anna Berg", "spouse_of", "Karl Lund")}
    # one document's reading does not steer the next one's (the rules learn names' types as they read)
    ex = StatisticalExtractor()
    for doc_id, one in (("a", "Karl Lund was born in Oslo in 1890."), ("b", "Anna Berg hired Karl Lund in 1920, and he died in Bergen in 1950.")):
        got = ex.extract(Chunk(doc_id, 0, one, 0, len(one)))
    assert not [t for t in got if t.predicate == "died_in"]
    # read by rule: a person's, of an entity of the type the predicate takes, named in the sentence; no other predicate
    text = "Oskar Brandt married Helga Ruud in Narvik in 1932."
    state = DocState()
    ((mentions, _, _),) = Annotator(w).sentences(state, [tokenize(text, 0, len(text))])
    chunk = Chunk("d", 0, text + " They lived in Bodø.", 0, len(text) + 20)
    said = Triple("Oskar Brandt", "spouse_of", "Helga Ruud", chunk, 0.8, None, 0, len(text))
    named = lambda t: ("", "")  # noqa: E731 (the rules read both sides as names)
    got = rule_pairs([said], state, mentions, named)
    assert [(m.surface, n.surface, p) for m, n, p in got] == [("Oskar Brandt", "Helga Ruud", "spouse_of")]
    for other in (
        dataclasses.replace(said, predicate="founded"),
        dataclasses.replace(said, object="Narvik"),
        dataclasses.replace(said, subject="Narvik", object="Oskar Brandt"),
    ):
        assert rule_pairs([other], state, mentions, named) == [], other
    assert rule_pairs([said], state, mentions, lambda t: ("He", "")) == []  # no "He" of Oskar Brandt there
    assert rule_pairs([said], state, mentions, lambda t: ("", "her")) == []  # an object read from a pronoun
    # a triple goes under the sentence its evidence starts in, none under a sentence not read
    later = dataclasses.replace(said, start=len(text) + 1, end=len(text) + 20)
    assert by_sentence([said, later], [(0, len(text))]) == {0: [said]}


def test_a_citizenship_the_rules_read_from_a_nationality_word_is_stated_at_the_share():
    """extractor.rule_pairs (docs/extraction.md, step 8): a person's citizenship the rule extractor reads from a
    nationality word ("an American politician", "Italian singer Tiziano Ferro") is stated at the share of facts read by
    rule, to the country the tagger read the word as, quoting the sentence; not of a band, a park, a language's teacher
    or a firm."""
    from semantic_rdf.core.values import Triple
    from semantic_rdf.pipeline.statistical.extractor import Annotator, rule_pairs
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    w = StatisticalExtractor().w
    for text, fact in (
        ("Mark Harmsworth is an American politician.", ("Mark Harmsworth", "country_of_citizenship", "United States")),
        ('"Il Regalo" is a song by Italian singer Tiziano Ferro.', ("Tiziano Ferro", "country_of_citizenship", "Italy")),
    ):
        got = [t for t in extract(text)[1] if facts([t]) == {fact}]
        assert len(got) == 1 and got[0].score >= round(w.towns, 4) and text[got[0].start : got[0].end] == text, text
    for text in (
        "Radiohead is an English rock band.",
        "Olympic National Park is an American national park located in Washington.",
        "John Smith is an English teacher.",
        "Heineken is a Dutch brewer.",
    ):
        assert not [t for t in extract(text)[1] if t.predicate == "country_of_citizenship"], text
    # the nationality word's mention stands for its country's entity
    text = "Mark Harmsworth is an American politician."
    state = DocState()
    ((mentions, _, _),) = Annotator(w).sentences(state, [tokenize(text, 0, len(text))])
    said = Triple("Mark Harmsworth", "country_of_citizenship", "United States", Chunk("d", 0, text, 0, len(text)), 0.8, None, 0, len(text))
    got = rule_pairs([said], state, mentions, lambda t: ("", ""))
    assert [(m.surface, n.surface, n.kind, p) for m, n, p in got] == [("Mark Harmsworth", "American", "demonym", "country_of_citizenship")]


def test_where_a_company_is_headquartered_the_rules_read_is_stated_at_the_share():
    """extractor.SUBJECT_TYPE (docs/extraction.md, step 8): the rules' headquartered_in ("Ikea is headquartered in Delft",
    "Pointr is a startup company based in London") is stated of an organisation the tagger names, at the share of facts
    read by rule; not of a person, a team or a band "based in" a town, nor of a firm the tagger takes for a place."""
    from semantic_rdf.pipeline.statistical.extractor import BY_RULES, SUBJECT_TYPE, rule_predicates

    w = StatisticalExtractor().w
    assert SUBJECT_TYPE["headquartered_in"] == "ORG" and BY_RULES["headquartered_in"] == ("LOC",)
    assert "headquartered_in" in rule_predicates({"headquartered_in": "P159"})
    for text, fact in (
        ("Ikea is a Swedish company. Ikea is headquartered in Delft.", ("Ikea", "headquartered_in", "Delft")),
        ("Pointr is a startup company based in London specialized in indoor positioning.", ("Pointr", "headquartered_in", "London")),
    ):
        got = [t for t in extract(text)[1] if facts([t]) == {fact}]
        assert len(got) == 1 and got[0].score >= round(w.towns, 4), text
    for text in (
        "Delia Gallagher is an American journalist based in Rome.",
        "The Beijing Ducks are a professional basketball team based in Beijing.",
        "Sara Lund was a singer. Sara Lund is headquartered in Bergen.",
    ):
        assert not [t for t in extract(text)[1] if t.predicate == "headquartered_in"], text


def test_a_name_does_not_go_on_past_a_short_line():
    """extractor.short_line_ends: a tagged name is cut at the end of a line of three words or fewer that is a title's or
    an infobox's (as long as a line beside it, or at most 0.6 of the longer one): GUM's "Jeanne Moreau\nJeanne Moreau\n
    Moreau in 1958 …" had been one person, "Jeanne Moreau Jeanne Moreau Moreau", with her birth and her awards. A name
    that wrapped prose breaks over two lines stays one."""
    from semantic_rdf.pipeline.statistical.extractor import short_line_ends, split_at
    from semantic_rdf.pipeline.statistical.text import tokenize

    def cuts(text: str) -> list[str]:
        toks = tokenize(text)
        return [toks[i].text for i in sorted(short_line_ends(text, 0, toks))]

    # the caption's line ("Moreau in 1958") is short beside the next one too
    assert cuts("Jeanne Moreau\nJeanne Moreau\nMoreau in 1958\nBorn 23 January 1928 Paris, France") == ["Jeanne", "Moreau", "Born"]
    assert cuts("Children Jérôme Richard\nJeanne Moreau (23 January 1928 – 31 July 2017) was a French actress.") == ["Jeanne"]
    wrapped = "In 1949 the actress Jeanne Moreau married the director Jean-Louis\nRichard."
    assert cuts(wrapped) == [] and cuts("Anna Berg was born in Oslo.") == []
    assert split_at([(0, 4, "PER"), (5, 6, "LOC")], frozenset({2, 5})) == [(0, 2, "PER"), (2, 4, "PER"), (5, 6, "LOC")]
    ex, _ = extract("Jeanne Moreau\nJeanne Moreau\nMoreau in 1958\nBorn 23 January 1928 in Paris.\nShe was a French actress.")
    assert ex.aliases("d")["Jeanne Moreau"] == {"Moreau"} and not [n for n in ex.aliases("d") if n.count("Moreau") > 1]
    ex, _ = extract(wrapped)
    assert "Jean-Louis Richard" in ex.aliases("d")
    # nor does a name take in a personal pronoun (a line with no end mark ran into "She …": "France She")
    from semantic_rdf.pipeline.statistical.extractor import without_pronouns

    assert without_pronouns([(0, 2, "LOC"), (3, 6, "PER")], ["France", "She", "x", "We", "Anna", "Berg"]) == [(0, 1, "LOC"), (4, 6, "PER")]
    ex, _ = extract("Born 23 January 1928 in Paris, France\nShe was a French actress and singer of many songs.")
    assert not [n for n in ex.aliases("d") if "She" in n.split()], ex.aliases("d")


def test_where_a_person_studied_is_where_she_was_educated():
    """extractor.READ_AS: the rules' studied_at ("She studied at the University of Nigeria") is read as educated_at,
    the predicate the statistical extractor states Wikidata's P69 with, at the share of facts read by rule, of a school's
    name only; the pronoun is the person the document's state resolved it to, quoted with her name, unless the sentence
    spells it again for another."""
    from semantic_rdf.pipeline.statistical.extractor import READ_AS, rule_predicates

    assert READ_AS["studied_at"] == "educated_at" and "studied_at" in rule_predicates({"educated_at": "P69"})
    assert "studied_at" not in rule_predicates({"born_in": "P19"})
    w = StatisticalExtractor().w
    text = "Chimamanda Ngozi Adichie is a Nigerian writer. She studied at the University of Nigeria."
    got = [t for t in extract(text)[1] if facts([t]) == {("Chimamanda Ngozi Adichie", "educated_at", "University of Nigeria")}]
    assert sorted(text[t.start : t.end] for t in got) == ["Chimamanda Ngozi Adichie", "She studied at the University of Nigeria."]
    assert {t.score for t in got} == {round(w.towns, 4)}
    # a country, a museum or a ballet is no school, however the rules read it
    for text in ("Leandro Mbomio studied art in Spain.", "Anna Berg studied at the British Museum.", "Tom Hale studied dance in the Bolshoi Ballet."):
        assert not [t for t in extract(text)[1] if t.predicate == "educated_at"], text
    # a pronoun spelt twice in the sentence, once for another person: whose birth the rules read is not taken
    for text in (
        "Carl Holm was a Swedish writer. He wrote novels. He taught Per Lund, who said he was born in Narvik.",
        "Anna Berg was a Swedish singer. She taught Maria Lind, who said she was born in Narvik.",
    ):
        assert not [t for t in extract(text)[1] if t.predicate == "born_in"], text


def test_a_place_after_a_word_of_the_other_is_no_birth_or_death_there():
    """A birth read from a sentence is not of the place after its death ("was born in Tromsø and died in Narvik" gave
    born_in Narvik at 0.95), nor a death of the place after its birth (`extractor.said_of_the_other`)."""
    import doctest

    from semantic_rdf.pipeline.statistical import extractor

    ran = doctest.testmod(extractor)  # said_of_the_other's ("where she was born" among them) and _raised's examples
    assert ran.attempted >= 4 and not ran.failed
    got = facts(extract("Anna Berg was born in Tromsø and died in Narvik.")[1])
    assert ("Anna Berg", "born_in", "Tromsø") in got and ("Anna Berg", "born_in", "Narvik") not in got
    # the classifiers alone say born_in Oslo at 0.97 here
    got = facts(extract("Anna Berg was born in Narvik in 1900 and died in Oslo in 1950.")[1])
    assert ("Anna Berg", "born_in", "Narvik") in got and ("Anna Berg", "born_in", "Oslo") not in got
    # a "where" clause of someone else's birth keeps nothing (it gave born_in Narvik at 0.96)
    got = facts(extract("Anna Berg was born in Oslo and died in Narvik, where her son was born.")[1])
    assert ("Anna Berg", "born_in", "Oslo") in got and ("Anna Berg", "born_in", "Narvik") not in got
    # nor of a stay named after the birth's place or time (it gave born_in Tromsø at 0.89), but "born and raised in" is
    got = facts(extract("Henrik Angell was born in Bergen, grew up in Tromsø and died in Narvik.")[1])
    assert ("Henrik Angell", "born_in", "Bergen") in got and ("Henrik Angell", "born_in", "Tromsø") not in got
    assert ("Anna Berg", "born_in", "Tromsø") not in facts(extract("Anna Berg, born in 1950 and raised in Tromsø, is a singer.")[1])
    assert ("Anna Berg", "born_in", "Tromsø") in facts(extract("Anna Berg was born and raised in Tromsø.")[1])


def _a_town_fact_alone(text: str, fact: tuple[str, str, str]) -> None:
    """The extractor states `fact` once, as a town's fact (at the towns' share, quoting the whole text), and the classifiers
    alone do not state it."""
    import dataclasses

    w = StatisticalExtractor().w
    alone = StatisticalExtractor(weights=dataclasses.replace(w, towns=None))
    assert not [t for t in extract(text, ex=alone)[1] if facts([t]) == {fact}]
    got = [t for t in extract(text)[1] if facts([t]) == {fact}]
    assert len(got) == 1 and got[0].score == round(w.towns, 4) and text[got[0].start : got[0].end] == text


def test_an_organisation_named_for_its_country_lies_in_it():
    """towns.name_country (docs/extraction.md, step 7): an organisation whose name opens with a country's name or
    demonym, or ends with one after its last "of", lies in that country when the text names it; stated as a town's fact.
    A country the text does not name, another country or a place elsewhere in the organisation's name, or an embassy,
    gives nothing."""
    w = StatisticalExtractor().w
    for text, org, country in (
        ("Anna Berg was elected to the Norwegian Parliament in 1977. She later moved to Norway's north.", "Norwegian Parliament", "Norway"),
        ("Tom Hale served in the Royal Thai Army before he left Thailand.", "Royal Thai Army", "Thailand"),
        ("The Communist Party of China governs China.", "Communist Party of China", "China"),
    ):
        got = [t for t in extract(text)[1] if facts([t]) == {(org, "located_in", country)}]
        assert len(got) == 1 and got[0].score == round(w.towns, 4), text
    # no town's fact when the country is not named, another is, a place elsewhere ends the name, or it is an embassy
    for text, org in (
        ("Anna Berg was elected to the Norwegian Parliament in 1977.", "Norwegian Parliament"),
        ("Anna Berg was elected to the Norwegian Parliament in 1977. She later moved to Sweden.", "Norwegian Parliament"),
        ("Tom Hale taught at the American University of Beirut before he returned to the United States.", "American University of Beirut"),
        ("Tom Hale joined the Japanese American Citizens League after he left Japan.", "Japanese American Citizens League"),
        ("Tom Hale worked at the Embassy of Japan before he left Japan.", "Embassy of Japan"),
    ):
        assert not [t for t in extract(text)[1] if t.subject == org and t.predicate == "located_in" and t.score == round(w.towns, 4)], text


def test_a_town_fact_raises_a_reading_that_stated_it_lower():
    """Training chose the floor with each town fact at the better of its pair's own score and the town facts' share
    (`train.stated`): a pair read across sentences that stated the fact first, lower, is raised to the share, and the
    fact comes once, quoting the passage it was read from."""
    import dataclasses

    text = "Rice is grown across the Philippines. The market is held in Gingoog."
    fact = {("Gingoog", "located_in", "Philippines")}
    w = StatisticalExtractor().w
    towns = w.towns
    alone = StatisticalExtractor(floor=0.3, weights=dataclasses.replace(w, towns=None))  # the classifiers alone
    own = [t for t in extract(text, ex=alone)[1] if facts([t]) == fact]
    got = [t for t in extract(text, floor=0.3)[1] if facts([t]) == fact]
    assert towns is not None and len(own) == 1 and 0.3 <= own[0].score < towns
    assert len(got) == 1 and got[0].score == round(towns, 4) and (got[0].start, got[0].end) == (own[0].start, own[0].end)


def test_a_title_line_does_not_run_into_the_name_below_it():
    """A page's title and its headings on lines of their own (split.sentence_spans): the person is "Matthew Goode",
    with the fuller name as an alias, not "Matthew Goode Matthew William Goode", and the heading is not in the quote."""
    text = "Matthew Goode\nMatthew William Goode (born 3 April 1978) is an English actor.\nEarly life\nGoode was born in Exeter, Devon.\n"
    ex, got = extract(text)
    assert {("Matthew Goode", "born_in", "Exeter"), ("Matthew Goode", "country_of_citizenship", "England")} <= facts(got)
    assert "Matthew William Goode" in ex.aliases("d")["Matthew Goode"]
    born = next(t for t in got if t.predicate == "born_in")
    assert text[born.start : born.end] == "Goode was born in Exeter, Devon."


def test_a_country_by_another_name_is_named_as_the_country():
    """The names "U.S.", "USA" and "the United States" in one text are one country in its triples, named as the demonym
    lexicon names it (towns.canonical_country), the others its aliases; the evidence quotes the name as written."""
    text = "Cleveland is a city in the U.S. state of Ohio. Cleveland is the largest city on Lake Erie in the USA."
    ex, got = extract(text)
    assert {("Cleveland", "located_in", "United States"), ("Lake Erie", "located_in", "United States")} <= facts(got)
    assert not {"U.S.", "USA"} & {n for t in got for n in (t.subject, t.object)}
    assert {"U.S.", "USA"} <= ex.aliases("d")["United States"]
    lake = next(t for t in got if t.subject == "Lake Erie")
    assert text[lake.start : lake.end] == "Cleveland is the largest city on Lake Erie in the USA."


def test_the_examples_in_the_name_and_definition_readers_docstrings_hold():
    """The examples in names.py's and definitions.py's docstrings (a title cut, a role split, an opening word, a
    definition's head noun) are what the code gives: no other test ran them while they stood in model.py."""
    import doctest

    from semantic_rdf.pipeline.statistical import definitions, names

    for module in (names, definitions):
        ran = doctest.testmod(module)
        assert ran.attempted and not ran.failed, module.__name__


def test_a_name_ends_before_a_web_or_mail_address():
    """A web or an e-mail address is one token (text.tokenize), and a name the tagger ran into one ends before it: a
    paper's author line gave the entity "Daniel Smith daniel.smith2@", a link's path "Anna_Weiss"."""
    import doctest

    from semantic_rdf.pipeline.statistical import text as tx

    ran = doctest.testmod(tx)  # web_address's example
    assert ran.attempted and not ran.failed
    line = "Daniel Smith daniel.smith2@durham.ac.uk, see https://example.org/Anna_Weiss."
    assert [t.text for t in tx.tokenize(line)] == ["Daniel", "Smith", "daniel.smith2@durham.ac.uk", ",", "see", "https://example.org/Anna_Weiss", "."]
    text = (
        "Daniel Smith daniel.smith2@durham.ac.uk\nDurham University, United Kingdom\n\n"
        "Contact Anna Weiss at anna.weiss@example.com or see https://example.org/Anna_Weiss. Anna Weiss was born in Hamburg."
    )
    ex, got = extract(text)
    names = set(ex.aliases("d")) | {a for al in ex.aliases("d").values() for a in al}
    assert {"Daniel Smith", "Anna Weiss"} <= names and not any("@" in n or "_" in n or "/" in n for n in names), names
    assert ("Anna Weiss", "born_in", "Hamburg") in facts(got)
    # a name the tagger runs into an address ends before it (DocState), whatever the tagger does
    from semantic_rdf.pipeline.statistical.document import DocState

    toks = tx.tokenize("Daniel Smith daniel.smith2@durham.ac.uk wrote it")
    assert [m.surface for m in DocState().add_sentence(toks, [(0, 3, "PER", None), (2, 3, "ORG", None)]) if m.kind == "named"] == ["Daniel Smith"]
    # the tagger reads an address as a separator: read as a word it had never seen, it ran the names around it into one
    ex, got = extract("Claire Bailey-Ross claire.bailey-ross@port.ac.uk University of Portsmouth, United Kingdom")
    assert ("University of Portsmouth", "located_in", "United Kingdom") in facts(got) and "Claire Bailey-Ross" in ex.aliases("d")


def test_a_name_keeps_no_pronoun_or_question_word_the_tagger_ran_into_it():
    """GUM's "… since October, 1805, when I entered Trinity College" was stored as "I entered Trinity College located_in
    England", and "Do museum labels have an impact …?" as "Do country_of_citizenship United Kingdom": the pronoun "I"
    and the lower-case words after it (up to a name's particle or a capital), or a question's first word alone, are no
    part of a name (DocState, whatever the tagger does). A title in quotes, or one the tagger typed a work, keeps them."""
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    def named(text: str, spans: list[tuple[int, int, str, None]]) -> list[str]:
        return [m.surface for m in DocState().add_sentence(tokenize(text), spans) if m.kind == "named"]

    assert named("when I entered Trinity College in England", [(1, 5, "ORG", None), (6, 7, "LOC", None)]) == ["Trinity College", "England"]
    assert named("Do museum labels help visitors in Durham?", [(0, 1, "PER", None), (6, 7, "LOC", None)]) == ["Durham"]
    assert named("I met Anna Weiss", [(0, 1, "PER", None), (2, 4, "PER", None)]) == ["Anna Weiss"]
    assert named('He sang "I Got a Woman" in Leeds', [(3, 7, "MISC", None), (9, 10, "LOC", None)]) == ["I Got a Woman", "Leeds"]
    assert named("Do As Infinity played in Osaka", [(0, 3, "ORG", None), (5, 6, "LOC", None)]) == ["Do As Infinity", "Osaka"]
    # a review's cases: a given name or a surname that is a question's word, where no question opens with it ("Can",
    # "Do"); a closing quote before the pronoun; a name's particle after it
    assert named("Can was arrested in Istanbul", [(0, 1, "PER", None), (4, 5, "LOC", None)]) == ["Can", "Istanbul"]
    assert named("Yesterday Can was arrested in Istanbul?", [(1, 2, "PER", None), (5, 6, "LOC", None)]) == ["Can", "Istanbul"]
    assert named("The journalist Do was born in Hanoi", [(2, 3, "PER", None), (6, 7, "LOC", None)]) == ["Do", "Hanoi"]
    assert named('"Never," I told John Smith in Leeds', [(4, 8, "PER", None), (9, 10, "LOC", None)]) == ["John Smith", "Leeds"]
    assert named("Later I met van Gogh in Arles", [(1, 5, "PER", None), (6, 7, "LOC", None)]) == ["van Gogh", "Arles"]
    # a second review's: a title the tagger typed a work keeps the Italian article; a name with a capital inside stops the
    # words dropped; a word with a hyphen or an apostrophe is dropped too; "I" alone is no name
    assert named("Verdi wrote I due Foscari in Rome", [(0, 1, "PER", None), (2, 5, "MISC", None), (6, 7, "LOC", None)]) == [
        "Verdi",
        "I due Foscari",
        "Rome",
    ]
    assert named("I joined eBay in San Jose", [(0, 3, "ORG", None), (4, 6, "LOC", None)]) == ["eBay", "San Jose"]
    assert named("I re-entered Trinity College in 1930", [(0, 4, "ORG", None)]) == ["Trinity College"]
    assert named("It was I in Leeds", [(2, 3, "PER", None), (4, 5, "LOC", None)]) == ["Leeds"]


def test_a_reading_across_sentences_does_not_place_a_town_outside_its_country():
    """The cross-sentence classifier put "Hamburg" in the United Kingdom a text named a paragraph before (0.79): a
    town or region the town table places in another country is not stated to lie in this one from such a reading; a
    town of that country still is (as a town's fact), and so is one the document places in it ("Sudbury, Ontario":
    test_a_fact_across_sentences_quotes_the_passage_that_holds_both_names)."""
    text = "Daniel Smith works at Durham University, United Kingdom.\n\nContact Anna Weiss for details. Anna Weiss was born in {}."
    got = facts(extract(text.format("Hamburg"))[1])
    assert {("Durham University", "located_in", "United Kingdom"), ("Anna Weiss", "born_in", "Hamburg")} <= got
    assert ("Hamburg", "located_in", "United Kingdom") not in got
    assert ("Leeds", "located_in", "United Kingdom") in facts(extract(text.format("Leeds"))[1])


def test_calibration_states_a_town_fact_at_the_share_of_those_the_classifiers_would_not_keep():
    """train.calibrate: town facts (TOWN + the key their pair's own score is calibrated on) leave the classifiers'
    curves as they are; "towns" is the share right of those under the classifiers' floor, and the floor is chosen
    over every fact as stated; too few town facts give none."""
    import random

    import numpy as np

    from semantic_rdf.pipeline.statistical.train import TOWN, calibrate, stated

    rng = random.Random(3)
    model = [(p, rng.random() < p**2, "P131") for p in (0.02 + 0.98 * rng.random() for _ in range(3000))]
    towns = [(0.0, rng.random() < 0.85, TOWN) for _ in range(200)] + [(0.99, True, TOWN + "P131") for _ in range(50)]
    base = calibrate(model, target=0.82)
    cal = calibrate(model + towns, target=0.82)
    # the curves are the classifiers': a town pair the model scored joins them as its own fact, the others do not
    ref = calibrate(model + [(0.99, True, "P131") for _ in range(50)], target=0.82)
    assert cal["by"] == ref["by"] and cal["pooled"] == ref["pooled"]
    share = np.mean([c for _, c, _ in towns[:200]])
    assert abs(cal["towns"] - share) < 1e-3
    kept = [c for p, c, r in model + towns if stated(cal, p, r) >= cal["floor"]]
    assert sum(kept) / len(kept) >= 0.82 and len(kept) > len([1 for p, c, r in model if stated(base, p, r) >= base["floor"]])
    assert calibrate(model + towns[:10], target=0.82)["towns"] is None


def test_a_reading_of_the_unnamed_topic_or_of_two_sentences_keeps_one_birthplace():
    """Born in one place: "Anna Weiss was born in Hamburg", read with the article's unnamed topic as its subject,
    had stored "Tom Becker born_in Hamburg" (0.71) in an article that says he was born in Lyon. What a sentence
    states stands, even against another sentence that names the subject (the sources' conflict, which `ask` and
    `validate` report)."""
    text = (
        "Tom Becker was born in Lyon, France on 3 May 1961. He studied at the University of Vienna.\n\n"
        "Anna Weiss was born in Hamburg on 3 May 1961. Her brother lives in Rome."
    )
    f = facts(extract(text, floor=0.3)[1])
    assert {("Tom Becker", "born_in", "Lyon"), ("Anna Weiss", "born_in", "Hamburg")} <= f
    assert ("Tom Becker", "born_in", "Hamburg") not in f
    stated = "Tom Becker was born in Lyon. Tom Becker was born in Hamburg, his passport says."
    assert {("Tom Becker", "born_in", "Lyon"), ("Tom Becker", "born_in", "Hamburg")} <= facts(extract(stated, floor=0.3)[1])


def test_what_a_sentence_states_of_another_person_is_not_the_unnamed_topics():
    """The document's first person is read into a sentence that does not name them (the unnamed topic), and took
    the birthplace a sentence stated of someone else: "Barack Obama born_in St. Louis" at 0.78 (and on the bench's
    prose, "Vandelay born_in Lagos" from "Hiro Tanaka was born in Lagos"). A person named with the topic's surname
    may be the topic (Paul Desmarais Jr's "Desmarais"), and two places of one sentence may share a region."""
    text = "Barack Obama met Angela Merkel in Berlin.\n\nChuck Berry was born in St. Louis, Missouri."
    for floor in (None, 0.3):
        f = facts(extract(text, floor=floor)[1])
        assert ("Chuck Berry", "born_in", "St. Louis") in f
        assert ("Barack Obama", "born_in", "St. Louis") not in f, f
    kin = "Anna Weiss is a Canadian engineer.\n\nWeiss was born in Sudbury, Ontario."
    assert ("Weiss", "born_in", "Sudbury") in facts(extract(kin, floor=0.3)[1]) or ("Anna Weiss", "born_in", "Sudbury") in facts(
        extract(kin, floor=0.3)[1]
    )


def test_a_birth_or_a_death_is_read_only_from_a_sentence_that_says_so():
    """The classifiers had learnt a place near a person as a birthplace: a lawyer's practice in Syracuse gave
    `born_in Syracuse` at 0.90 (Re-DocRED) and a review's heading `Best Electrician born_in Florence` (UD EWT). A
    word of birth or death, or a bracket with a year in it (a biography's first line), must be in the sentence."""
    for floor in (None, 0.3):
        f = facts(
            extract(
                "William James Wallace was an American lawyer. He spent 15 years as a lawyer in private practice in "
                "Syracuse before serving as mayor of that city.",
                floor=floor,
            )[1]
        )
        assert not [x for x in f if x[1] in ("born_in", "died_in")], f
        f = facts(extract("Best Electrician in Florence\n\nI have been using Steele Electric for years.", floor=floor)[1])
        assert not [x for x in f if x[1] in ("born_in", "died_in")], f
    f = facts(extract("Anna Weiss is a German painter. She was born in Florence.")[1])
    assert ("Anna Weiss", "born_in", "Florence") in f
    f = facts(extract("Aleksandr Alekseevich Borovkov (6 March 1931, Moscow) is a Russian mathematician.")[1])
    assert ("Aleksandr Alekseevich Borovkov", "born_in", "Moscow") in f


def test_cross_pairs_are_the_entities_that_never_shared_a_sentence():
    from semantic_rdf.pipeline.statistical.cross import cross_pairs, together_in
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    st = DocState()
    m1 = st.add_sentence(tokenize("Ada Lovelace met Charles Babbage in London."), [(0, 2, "PER", None), (3, 5, "PER", None), (6, 7, "LOC", None)])
    m2 = st.add_sentence(tokenize("Babbage lived in Marylebone."), [(0, 1, "PER", None), (3, 4, "LOC", None)])
    pairs = cross_pairs(st, [m1, m2], together_in(m1) | together_in(m2))
    got = {(st.entities[p.h.entity].name, st.entities[p.t.entity].name, p.h_sent, p.t_sent) for p in pairs}
    # Ada Lovelace is the topic (paired in every sentence already); Babbage shared a sentence with both places
    assert got == {("London", "Marylebone", 0, 1), ("Marylebone", "London", 1, 0)}


def test_a_persons_surname_the_tagger_typed_a_place_is_the_person():
    """A surname after the person's full name ("Holt" after "Brock Holt"), which the tagger typed a place as a town's
    name (towns.tsv.gz), is read as the person's mention when one person named in an earlier sentence has that last
    word; otherwise as tagged: a word the lexicons list as a place or a demonym, a name the document gave something
    else before, a sentence that defines the word, a name of the same sentence, an organisation's tag."""
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    def entity(*sentences, k=0):
        """The entity of the k-th mention of the last sentence."""
        st = DocState()
        for text, spans in sentences:
            got = st.add_sentence(tokenize(text), spans)
        return st.entities[got[k].entity].name, st.entities[got[k].entity].type

    brock = ("Brock Holt played for Boston.", [(0, 2, "PER", None), (4, 5, "LOC", None)])
    school = ("Holt attended Navarro College.", [(0, 1, "LOC", None), (2, 4, "ORG", None)])
    assert entity(brock, school) == ("Brock Holt", "PER")
    # another person whose name holds the word elsewhere: the one whose name ends with it
    collier = ("Holt Collier was a guide.", [(0, 2, "PER", None)])
    assert entity(collier, brock, school) == ("Brock Holt", "PER")
    # two persons of that surname: which one is not read here
    assert entity(("Brock Holt and Ann Holt played.", [(0, 2, "PER", None), (3, 5, "PER", None)]), school) == ("Holt", "LOC")
    # as tagged: a place the lexicons list ("Washington" after "George Washington"), a demonym, a town named before
    george = ("George Washington was born in Virginia.", [(0, 2, "PER", None), (5, 6, "LOC", None)])
    assert entity(george, ("Washington is a city.", [(0, 1, "LOC", None)])) == ("Washington", "LOC")
    dawn = ("Dawn French is an actress.", [(0, 2, "PER", None)])
    assert entity(dawn, ("French films won.", [(0, 1, "LOC", None)])) == ("France", "LOC")
    town = ("Holt lies in Norfolk.", [(0, 1, "LOC", None), (3, 4, "LOC", None)])
    assert entity(town, brock, school) == ("Holt", "LOC")
    # a sentence that defines the word, the same sentence as the full name, an organisation's tag
    assert entity(brock, ("Holt is a town in Missouri.", [(0, 1, "LOC", None), (5, 6, "LOC", None)])) == ("Holt", "LOC")
    assert entity(("Brock Holt was born in Holt.", [(0, 2, "PER", None), (5, 6, "LOC", None)]), k=1) == ("Holt", "LOC")
    assert entity(brock, ("Holt hired him.", [(0, 1, "ORG", None)])) == ("Holt", "ORG")
    # no person of that last word named before
    assert entity(("Ann Berg left.", [(0, 2, "PER", None)]), ("Holt is a town.", [(0, 1, "LOC", None)])) == ("Holt", "LOC")


def test_cross_candidates_are_the_closest_mentions_of_each_pair_closest_pair_first():
    """The pairs measured as arrays are the pairs of the rule written out pair by pair."""
    import random
    from types import SimpleNamespace

    from semantic_rdf.pipeline.statistical.cross import cross_candidates
    from semantic_rdf.pipeline.statistical.mentions import SentMention

    def reference(state, sents, together, limit):
        where = {}
        for si, ms in enumerate(sents):
            for m in ms:
                if m.kind in ("named", "demonym") and state.entities[m.entity].type in ("PER", "ORG", "LOC", "MISC") and m.entity != state.first:
                    where.setdefault(m.entity, []).append((si, m))
        cand = []
        for h in sorted(where):
            for t in sorted(where):
                if h == t or (h, t) in together or state.entities[t].type != "LOC":
                    continue
                best = min((abs(si - sj), a, b) for a, (si, _) in enumerate(where[h]) for b, (sj, _) in enumerate(where[t]))
                cand.append((best[0], h, t, best[1], best[2]))
        return [(where[h][a][1], where[t][b][1], where[h][a][0], where[t][b][0]) for _, h, t, a, b in sorted(cand)[:limit]]

    r = random.Random(5)
    for _ in range(200):
        ents = [SimpleNamespace(type=r.choice(["PER", "ORG", "LOC", "LOC", "MISC", "TIME"])) for _ in range(r.randint(1, 12))]
        state = SimpleNamespace(entities=ents, first=r.choice([None, 0]))
        sents = [
            [SentMention(k, k + 1, r.randrange(len(ents)), r.choice(["named", "named", "demonym", "pron"]), 1.0, "x") for k in range(r.randint(0, 5))]
            for _ in range(r.randint(1, 6))
        ]
        together = {(r.randrange(len(ents)), r.randrange(len(ents))) for _ in range(r.randint(0, 6))}
        limit = r.choice([3, 400])
        got = cross_candidates(state, sents, together, limit)
        assert [(p.h, p.t, p.h_sent, p.t_sent) for p in map(got.pair, range(len(got)))] == reference(state, sents, together, limit)


def test_a_sentence_of_many_mentions_is_paired_at_once_as_one_at_a_time(monkeypatch):
    """The arrays (`_pairs_at_once`, for a list of names run into one sentence) give the loop's pairs in its order:
    overlapping spans, two implicit mentions, possessives' one partner, ties kept first, and the closest `limit`."""
    import random

    from semantic_rdf.pipeline.statistical import pairs
    from semantic_rdf.pipeline.statistical.mentions import SentMention
    from semantic_rdf.pipeline.statistical.pairs import candidate_pairs

    r = random.Random(11)
    for _ in range(300):
        ms = []
        for _ in range(r.randint(0, 60)):
            kind = r.choice(["named", "named", "demonym", "pron", "nominal", "implicit"])
            a = -1 if kind == "implicit" else r.randrange(80)
            ms.append(SentMention(a, -1 if kind == "implicit" else a + r.randint(1, 3), r.randrange(r.randint(1, 30)), kind, 1.0, "x"))
        spans = [(m.a, m.b) for m in ms if m.kind == "pron"]
        only = {sp: r.randrange(30) for sp in r.sample(spans, min(len(spans), r.randint(0, 2)))} or None
        limit = r.choice([None, 5, 40, 400])
        monkeypatch.setattr(pairs, "_PAIRS_AT_ONCE", 10**9)
        one_at_a_time = candidate_pairs(ms, only, limit)
        monkeypatch.setattr(pairs, "_PAIRS_AT_ONCE", 0)
        assert candidate_pairs(ms, only, limit) == one_at_a_time
    monkeypatch.setattr(pairs, "_PAIRS_AT_ONCE", 0)
    assert candidate_pairs([], None, 3) == []


def test_cross_scores_sum_each_component_once_and_equal_the_whole_sum():
    import numpy as np

    from semantic_rdf.pipeline.statistical.weights import calibrated
    from semantic_rdf.pipeline.statistical.cross import CrossContext, cross_candidates, cross_features, cross_pairs, together_in
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    head = StatisticalExtractor().w.cross
    assert head.relations
    st = DocState()
    sents, words = [], []
    for text, spans in [
        ("Sudbury is a city.", [(0, 1, "LOC", None)]),
        ("It lies in Ontario, Canada, near Lake Huron.", [(3, 4, "LOC", None), (5, 6, "LOC", None), (8, 10, "LOC", None)]),
        ("The Laurentian University is there.", [(1, 3, "ORG", None)]),
    ]:
        toks = tokenize(text)
        sents.append(st.add_sentence(toks, spans))
        words.append([t.text.lower() for t in toks])
    together = set().union(*map(together_in, sents))
    pairs = cross_pairs(st, sents, together)
    ctx = CrossContext(st, together, words)
    got = head.score(ctx, cross_candidates(st, sents, together))  # each component's weights summed once, then added per pair
    again = head.score(ctx, cross_candidates(st, sents, together))  # the shared components' sums now kept from the first call
    assert np.array_equal(got, again)
    z = head.sums([cross_features(ctx, p) for p in pairs]) + head.intercept  # every feature of every pair
    want = calibrated(1.0 / (1.0 + np.exp(-z)), head.cal_x, head.cal_y, {})
    assert len(pairs) == 3 and got.shape  # the university to the three places (Sudbury is the topic) == (len(pairs), len(head.relations))
    assert np.allclose(got, want, atol=1e-5)
    assert len({tuple(np.round(r, 6)) for r in got}) > 1


def test_a_document_that_lists_names_turns_the_cross_stage_off_and_keeps_no_pair_set():
    from semantic_rdf.pipeline import gazetteer as gz

    names = sorted(gz.COUNTRIES)[:110] + sorted(gz.CITIES)[:60]  # 170 places in one sentence (under 2,000 characters): ~29,000 pairs
    text = "The delegates came from " + ", ".join(names) + ". The summit met in Geneva, Switzerland."
    ex = StatisticalExtractor()
    ex.extract(Chunk("d", 0, text, 0, len(text)))
    doc = ex._docs["d"]
    assert doc.lists and doc.together == set()
    assert ex._cross(doc, Chunk("d", 0, text, 0, len(text)), [], [], []) == []


def test_aliases_group_a_surname_and_a_demonym():
    ex, _ = extract("Paul Desmarais Jr. is a Canadian businessman. Desmarais was born in Montreal, Quebec.")
    al = ex.aliases("d")
    assert "Desmarais" in al["Paul Desmarais Jr"]
    assert "Canadian" in al["Canada"]


def test_a_quoted_nickname_gives_the_name_without_it_and_the_nickname_with_the_surname():
    ex, _ = extract('Michael John "Mike" Padden is an American politician. Mike Padden was born in Spokane, Washington.')
    al = ex.aliases("d")
    assert {"Michael John Padden", "Mike Padden"} <= al['Michael John "Mike" Padden']  # one person, both forms
    assert not any(name == "Mike Padden" for name in al)
    from semantic_rdf.pipeline.statistical.names import name_forms

    assert name_forms('Jon "Bowzer" Bauman') == ["Jon Bauman", "Bowzer Bauman"]
    assert name_forms("Ann Smith") == [] and name_forms('"Weird Al"') == []
    # middle initials left out: a question asks about "Charles Fillmore"; not the initials a name is made of
    assert name_forms("Charles J. Fillmore") == ["Charles Fillmore"] and name_forms("John F. X. Smith") == ["John Smith"]
    assert name_forms("N. C. Wyeth") == [] and name_forms("Harry S Truman") == ["Harry Truman"] and name_forms("Anna Maria Weiss") == []


def test_a_fuller_name_and_a_birth_name_are_the_person_named_before():
    """A heading's short name then the full name, a birth name after "née": one person, so that "Hopper" and
    "She" have one antecedent (with the three apart, neither resolved and "Murray" was a citizen)."""
    text = (
        "Grace Hopper. Grace Brewster Hopper (née Murray; December 9, 1906 – January 1, 1992) was an American "
        "computer scientist. She was born in New York City. Hopper graduated from Vassar College in 1928."
    )
    ex, got = extract(text)
    al = ex.aliases("d")
    assert {"Grace Brewster Hopper", "Murray", "Hopper"} <= al["Grace Hopper"]
    assert "Murray" not in al and "Hopper" not in al
    f = facts(got)
    assert ("Grace Hopper", "born_in", "New York City") in f
    assert ("Grace Hopper", "educated_at", "Vassar College") in f
    assert not any("Murray" in (s, o) for s, _, o in f)


def test_a_fuller_name_joins_only_the_one_person_it_extends():
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    st = DocState()
    for sentence, spans in [
        ("Anna Berg met Anna Lind in Oslo.", [(0, 2, "PER", None), (3, 5, "PER", None), (6, 7, "LOC", None)]),
        ("Anna Maria Berg left.", [(0, 3, "PER", None)]),  # Anna Berg with a middle name
        ("Kari Anna Berg stayed.", [(0, 3, "PER", None)]),  # not the same first name: someone else
        ("Her children were Per Berg and Anna Sofie Berg.", [(3, 5, "PER", None), (6, 9, "PER", None)]),  # namesakes
        ("Olof Berg (born Olof Lind) came.", [(0, 2, "PER", None), (4, 6, "PER", None)]),  # a birth name
    ]:
        st.add_sentence(tokenize(sentence), spans)
    names = {e.name: e.aliases for e in st.entities}
    assert names["Anna Berg"] == {"Anna Berg", "Anna Maria Berg"}
    assert names["Anna Lind"] == {"Anna Lind"}
    assert {"Kari Anna Berg", "Per Berg", "Anna Sofie Berg"} <= set(names)
    assert names["Olof Berg"] == {"Olof Berg", "Olof Lind"}


def test_a_name_known_as_another_a_surname_family_and_postnominals_are_one_entity_or_none():
    """Re-DocRED's and GUM's openings: "X, also known as Y" and "X (born …), better known by her pseudonym Y" name one
    entity (two before: a fact about Y was not X's); "Daniel Bernoulli FRS" is Daniel Bernoulli (GUM gave two
    entities, the heading's and the honours'), and "Aner Shalev Wednesday" Aner Shalev; "the Bernoulli family" is no
    mention of him."""
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    st = DocState()
    for sentence, spans in [
        ("Daniel Bernoulli.", [(0, 2, "PER", None)]),
        ("Daniel Bernoulli FRS (born 1700) was one of the Bernoulli family.", [(0, 3, "PER", None), (11, 12, "PER", None)]),
        ("The Winnebago War, also known as the Winnebago Uprising, was short.", [(1, 3, "MISC", None), (8, 10, "MISC", None)]),
        (
            "Jenna Nicole Mourey (born 1986 [1]), better known by her pseudonym Jenna Marbles, is a comedian.",
            [(0, 3, "PER", None), (16, 18, "PER", None)],
        ),
        ("Kitigan Zibi (also known as River Desert) lies in Quebec.", [(0, 2, "LOC", None), (6, 8, "LOC", None), (11, 12, "LOC", None)]),
        # no name ends where the phrase begins: two entities
        (
            "The villains known as the Brotherhood met Anna Lind, known for nothing, and Per Berg.",
            [(5, 6, "ORG", None), (7, 9, "PER", None), (15, 17, "PER", None)],
        ),
        ("John Smith MD met Karl Lund KBE OBE.", [(0, 3, "PER", None), (4, 8, "PER", None)]),
        ("Aner Shalev Wednesday, September 19, 2007", [(0, 3, "PER", None)]),  # GUM's interview: a dateline, no name
        ("William Ashley Sunday was an outfielder.", [(0, 3, "PER", None)]),
        # a family name written first, in a bracket after the name, with the name in another script before it
        ("Ichiyō Higuchi (樋口 一葉 Higuchi Ichiyō, 1872) was a writer.", [(0, 2, "PER", None), (3, 7, "PER", None)]),
        # a page titled with the other name: the full name given after it joins that entity
        ("Ann Lee.", [(0, 2, "PER", None)]),
        ("Ann Marie Smith, better known by her stage name Ann Lee, sings.", [(0, 3, "PER", None), (10, 12, "PER", None)]),
    ]:
        st.add_sentence(tokenize(sentence), spans)
    names = {e.name: e.aliases for e in st.entities}
    assert names["Daniel Bernoulli"] == {"Daniel Bernoulli"} and st.entities[0].mentions == 2  # the family is no mention
    assert names["Winnebago War"] == {"Winnebago War", "Winnebago Uprising"}
    assert names["Jenna Nicole Mourey"] >= {"Jenna Nicole Mourey", "Jenna Marbles"}
    assert names["Kitigan Zibi"] == {"Kitigan Zibi", "River Desert"} and "Quebec" in names
    assert {"Brotherhood", "Anna Lind", "Per Berg"} <= set(names) and names["Per Berg"] >= {"Per Berg"}
    assert "John Smith MD" in names and "Karl Lund" in names  # MD is no honour here (a doctor, a state)
    assert not any(n.endswith(("FRS", "KBE", "OBE", "Wednesday")) for n in names) and "Aner Shalev" in names
    assert "William Ashley Sunday" in names
    assert names["Ichiyō Higuchi"] >= {"Ichiyō Higuchi", "Higuchi Ichiyō"} and not any("一葉" in n for n in names)
    assert names["Ann Lee"] == {"Ann Lee", "Ann Marie Smith"} and "Ann Marie Smith" not in names


def test_a_role_or_a_title_the_tagger_ran_into_a_name_is_not_part_of_it():
    """Re-DocRED's tagged spans held a person's role or rank before the name ("Hungarian footballer Imre Puskás",
    typed a work; "Eskom chairperson Ben Ngubane", "General Pervez Musharraf") and a sentence's first word ("Unlike
    Hemingway", typed a place): the name is what follows, a person's after a person's role, and a nationality before
    the role is its country. A name's own lower-case words in any language, titles that are given names, words that
    open names, a date's span and the corpus's own spans stay whole; an other name keeps its link without its title."""
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    st = DocState()
    for sentence, spans in [
        ("Hungarian footballer Imre Puskás was born in Budapest.", [(0, 4, "MISC", None), (8, 9, "LOC", None)]),
        ("In 2017 Eskom chairperson Ben Ngubane resigned.", [(2, 6, "ORG", None)]),
        ("General Pervez Musharraf and Lady Gaga met Duke Ellington.", [(0, 3, "PER", None), (4, 6, "PER", None), (7, 9, "PER", None)]),
        ("Unlike Hemingway, Sogn og Fjordane had a Thirty - first Congress.", [(0, 2, "LOC", None), (3, 6, "LOC", None), (8, 12, "ORG", None)]),
        ("Walking Far from Home is a song by Brownlow Medal recipient Jim Stynes.", [(0, 4, "MISC", None), (8, 13, "MISC", None)]),
        ("Noriega candidate Carlos Duque lost.", [(0, 4, "ORG", 7)]),  # the corpus's own span: as it is
        ("Dr. Ada Lovelace thanked Dr. Dre.", [(0, 4, "PER", None), (5, 8, "PER", None)]),
        # a review's cases: names of other languages, titles that are given names, words that open names
        ("Ústí nad Labem has the Museum für Naturkunde.", [(0, 3, "LOC", None), (5, 8, "ORG", None)]),
        ("Shah Rukh Khan met Queen Elizabeth II and NATO member Turkey.", [(0, 3, "PER", None), (4, 7, "PER", None), (8, 11, "LOC", None)]),
        ("Under Armour is a firm.", [(0, 2, "ORG", None)]),
        ("Some 27 member States voted.", [(0, 4, "NUM", None)]),  # no entity type: no entity
        ("Thomas Woodward, better known as Sir Tom Jones, sang.", [(0, 2, "PER", None), (6, 9, "PER", None)]),
    ]:
        st.add_sentence(tokenize(sentence), spans)
    types = {e.name: e.type for e in st.entities}
    assert types["Imre Puskás"] == "PER" and "Hungary" in types and types["Ben Ngubane"] == "PER"
    assert types["Pervez Musharraf"] == "PER" and {"Lady Gaga", "Duke Ellington"} <= set(types)
    assert {"Hemingway", "Sogn og Fjordane", "Thirty - first Congress", "Walking Far from Home"} <= set(types)
    assert types["Jim Stynes"] == "PER" and "Noriega candidate Carlos Duque" in types
    assert "Ada Lovelace" in types and "Dr. Dre" in types
    assert {"Ústí nad Labem", "Museum für Naturkunde", "Shah Rukh Khan", "Elizabeth II", "Under Armour"} <= set(types)
    assert types["Turkey"] == "LOC" and not any("States" in n for n in types)
    assert types["Thomas Woodward"] == "PER" and "Tom Jones" not in types  # the other name is his
    assert not any(w in n.split() for n in types for w in ("footballer", "chairperson", "General", "Unlike", "recipient", "member"))


def test_a_name_read_without_its_role_or_title_keeps_its_other_names_and_its_given_names():
    """A second review's cases: the other name after "better known as" is the name a role split or a title cut leaves,
    in either order, and a nationality before the role links to nothing; given names that are titles stay ("Earl
    Thomas III", an initial after "Prince"); titles of several words and abbreviated ones go; a firm's name that opens
    with a preposition keeps it before a possessive."""
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    def read(*sentences: tuple[str, list]) -> DocState:
        st = DocState()
        for text, spans in sentences:
            st.add_sentence(tokenize(text), spans)
        return st

    st = read(
        ("Thomas Woodward, better known as Welsh singer Tom Jones, was born in Pontypridd.", [(0, 2, "PER", None), (6, 10, "PER", None)]),
        ("Many Welsh fans came.", [(1, 2, "LOC", None)]),
    )
    names = {e.name: e for e in st.entities}
    assert "Tom Jones" in names["Thomas Woodward"].aliases and "Tom Jones" not in names
    assert "Wales" in names and st.by_key.get("welsh") != st.entities.index(names["Thomas Woodward"])
    st = read(
        ("Sir Tom Jones is a singer.", [(0, 3, "PER", None)]),
        ("Thomas Woodward, better known as Sir Tom Jones, was born in Pontypridd.", [(0, 2, "PER", None), (6, 9, "PER", None)]),
    )
    assert [e.name for e in st.entities if e.type == "PER"] == ["Tom Jones"]  # Woodward is his other name
    st = read(
        ("Earl Thomas III met Prince V. Jones and Staff Sergeant Ty Carter.", [(0, 3, "PER", None), (4, 8, "PER", None), (9, 13, "PER", None)]),
        ("Gen. David Petraeus praised Under Armour's shoes.", [(0, 4, "PER", None), (5, 7, "ORG", None)]),
    )
    assert {"Earl Thomas III", "Prince V. Jones", "Ty Carter", "David Petraeus", "Under Armour"} <= {e.name for e in st.entities}


def test_a_sentence_that_defines_a_name_gives_it_its_type_over_the_taggers_votes():
    """Held-out Re-DocRED openings the tagger typed as people: "Goodooga is a village in …", "Heeney is a
    census-designated place", "Kiirunavaara (Northern Sami: Gironvárri) is a mountain". The first definition of a
    name decides its type; a later "is a model for …" does not, nor do later votes, nor a definition under another of
    its names (a surname); a radio station is an organisation, and the head of "a film and television actor" is
    the actor. The corpus's own mentions keep the annotators' types unless the state is asked to read definitions."""
    from semantic_rdf.pipeline.statistical.definitions import definition
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    def kind(sentence, a=0, b=1):
        got = definition([t.text.lower() for t in tokenize(sentence)], a, b)
        return got and got[0]

    assert definition([t.text.lower() for t in tokenize("Goodooga (pop. 262) is a small village in Wales.")], 0, 1) == ("LOC", 9)
    assert kind("Pointr, a start-up based in London, is a British technology company.") == "ORG"
    assert kind("The Bronx is a borough of New York City.", 1, 2) == "LOC"
    assert kind("CKNL-FM is a Canadian radio station.") == "ORG"
    assert kind("Rachel Proctor is an American country music singer.", 0, 2) == "PER"
    assert kind("Tom Hanks is an American film and television actor.", 0, 2) == "PER"
    assert kind("Patsy Montana was an American country and western singer.", 0, 2) == "PER"
    assert kind("Smith is a Canadian film, television and stage actor.") == "PER"
    assert kind("Acme is a film and television production company.") == "ORG"
    assert kind("Lappeenranta is a city and municipality situated on the shore of Saimaa.") == "LOC"
    assert kind("Alexeni is a commune 65 km north-east of Bucharest.") == "LOC"
    for sentence in [
        "The Russell Islands are a group of islands.",
        "The Ryukyu Islands are a series of islands.",
        "Winamp is a media player for Windows.",
        "Zen is a school of Mahayana Buddhism.",
        "DeviantArt is an online art community.",
        "Smith is an adviser to the Bank.",
        "In 1950 Heeney was a town.",  # the sentence does not open with the name
        "Heeney, Silverthorne and Dillon are towns.",  # a list, not an apposition
    ]:
        assert not kind(sentence), sentence

    st = DocState()
    for sentence, spans in [
        ("Lappeenranta is a city and municipality in Finland.", [(0, 1, "PER", None), (7, 8, "LOC", None)]),
        ("Lappeenranta is a model for renewable energies.", [(0, 1, "PER", None)]),
        ("Lappeenranta hosted Lappeenranta.", [(0, 1, "PER", None), (2, 3, "PER", None)]),
        ("Henry Ford was an American industrialist.", [(0, 2, "PER", None)]),
        ("Ford is an American automobile manufacturer.", [(0, 1, "PER", None)]),  # the surname joins Henry Ford
    ]:
        st.add_sentence(tokenize(sentence), spans)
    assert [(e.name, e.type) for e in st.entities] == [("Lappeenranta", "LOC"), ("Finland", "LOC"), ("Henry Ford", "PER")]
    for definitions, typ in ((False, "PER"), (True, "LOC")):
        gold = DocState(definitions=definitions)
        gold.add_sentence(tokenize("Goodooga is a village."), [(0, 1, "PER", 0)])
        assert gold.entities[0].type == typ  # the annotators' type, or the tagger's read as at run time


def test_a_sentence_telling_another_names_birth_gives_the_topic_none():
    """ "Higuchi Ichiyō was born in Tokyo", its name typed as a place by the tagger, had given the page's first
    person (Tom Lee) Tokyo at 0.87 through the unnamed topic; a name sharing a word with the topic's is the topic
    written another way ("Desmarais was born in Sudbury" on Paul Desmarais Jr's page keeps its fact)."""
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    def implicit(sentences):
        st = DocState()
        for sentence, spans in sentences:
            got = st.add_sentence(tokenize(sentence), spans)
        return [m.entity for m in got if m.kind == "implicit"]

    first = ("Tom Lee is an actor.", [(0, 2, "PER", None)])
    assert implicit([first, ("Higuchi Ichiyō was born in Tokyo.", [(0, 2, "LOC", None), (5, 6, "LOC", None)])]) == []
    assert implicit([first, ("Anna Weiss died in Graz.", [(0, 2, "PER", None), (4, 5, "LOC", None)])]) == []
    assert implicit([first, ("Lee Tom was born in Tokyo.", [(0, 2, "LOC", None), (5, 6, "LOC", None)])]) == [0]
    assert implicit([first, ("The studio was built in Tokyo.", [(5, 6, "LOC", None)])]) == [0]


def test_initials_and_a_surname_name_a_person_whatever_the_tagger_says():
    """GUM's paper on lighting is by "N S Andres and R T Ponce", which the tagger typed as places (and stored in the
    Philippines); a unit named by one bare letter stays what the tagger said ("X Corps", Re-DocRED's Pakistan Army)."""
    from semantic_rdf.pipeline.statistical.document import DocState
    from semantic_rdf.pipeline.statistical.text import tokenize

    st = DocState()
    st.add_sentence(tokenize("N S Andres and J. K. Rowling met X Corps."), [(0, 3, "LOC", None), (4, 9, "ORG", None), (10, 12, "ORG", None)])
    assert [(e.name, e.type) for e in st.entities] == [("N S Andres", "PER"), ("J. K. Rowling", "PER"), ("X Corps", "ORG")]


def test_a_place_a_definition_places_its_name_in_is_a_feature_of_the_pair():
    """In "Goodooga is a village in the Australian state of New South Wales in Brewarrina Shire on the eastern bank of
    the Bokhara River": the places in the defining clause are where Goodooga lies; the river after "on the bank"
    is not, nor is a place named before the head noun."""
    from semantic_rdf.pipeline.statistical.mentions import SentenceMemo, SentMention
    from semantic_rdf.pipeline.statistical.pairs import pair_features
    from semantic_rdf.pipeline.statistical.text import tokenize

    sentence = "Goodooga is a village in the Australian state of New South Wales in Brewarrina Shire on the eastern bank of the Bokhara River."
    words = [t.text.lower() for t in tokenize(sentence)]
    at = {w: k for k, w in reversed(list(enumerate(words)))}
    h = SentMention(0, 1, 0, "named", 1.0, "Goodooga")
    nsw = SentMention(at["new"], at["new"] + 3, 1, "named", 1.0, "New South Wales")
    shire = SentMention(at["brewarrina"], at["brewarrina"] + 2, 2, "named", 1.0, "Brewarrina Shire")
    river = SentMention(at["bokhara"], at["bokhara"] + 2, 3, "named", 1.0, "Bokhara River")
    mentions = [h, nsw, shire, river]
    memo = SentenceMemo()

    def feats(t, head=h):
        return pair_features(words, head, t, "LOC", "LOC", True, False, mentions, 0, None, None, memo)

    assert "def=LOC|LOC" in feats(nsw) and "def=LOC|LOC" in feats(shire)
    assert "def=LOC|LOC" not in feats(river)
    assert not any(f.startswith("def=") for f in feats(h, head=nsw))  # the place defined is the head, not the tail
    words = [t.text.lower() for t in tokenize("Bonn is a city in Germany and the twin town of Lyon.")]
    bonn, germany, lyon = (SentMention(k, k + 1, e, "named", 1.0, "") for e, k in enumerate((0, 5, 11)))
    pairs = [pair_features(words, bonn, t, "LOC", "LOC", True, False, [bonn, germany, lyon], 0, None, None) for t in (germany, lyon)]
    assert ["def=LOC|LOC" in f for f in pairs] == [True, False]  # "and the twin town of" leaves the clause


def test_an_other_name_carries_the_facts_to_the_entity_named_first():
    text = "Salah Ahmed, also known as Yasir Simli, was a citizen of Yemen. Simli was born in Taiz."
    ex, got = extract(text)
    assert "Yasir Simli" in ex.aliases("d")["Salah Ahmed"]
    f = facts(got)
    assert ("Salah Ahmed", "born_in", "Taiz") in f  # "Simli", the other name's surname, is the same person
    assert all(s == "Salah Ahmed" for s, _, _ in f if s != "Taiz")


def test_a_markdown_heading_starts_a_section_with_its_own_topic():
    """In a file of several articles, "He" after the second heading is the second article's person, not the
    first article's topic (it was left unresolved: two people in reach and neither the topic)."""
    text = (
        "# Grace Hopper\n\nGrace Hopper was an American computer scientist. She was born in New York City.\n\n"
        "# Chinua Achebe\n\nChinua Achebe was a Nigerian novelist. He was born in Ogidi, Nigeria.\n"
    )
    ex, got = extract(text)
    f = facts(got)
    assert ("Grace Hopper", "born_in", "New York City") in f and ("Chinua Achebe", "born_in", "Ogidi") in f
    assert _fidelity(ex, text, got) == []
    # without the headings the "He" has two people in reach, one of them the topic: resolved less surely
    _, flat = extract(text.replace("# Grace Hopper\n\n", "").replace("# Chinua Achebe\n\n", ""), floor=0.0)
    _, sure = extract(text, floor=0.0)

    def score(triples) -> float:
        return max(t.score for t in triples if (t.subject, t.predicate, t.object) == ("Chinua Achebe", "born_in", "Ogidi"))

    assert score(flat) < score(sure)


def test_a_sentence_opening_with_he_or_she_is_about_the_person_the_last_one_opened_with():
    """Three people in one file, without headings: each "He"/"She" that opens a sentence is the person the
    sentence before opened with (named, or as he/she). The first person of the file, the document's topic,
    had taken "He studied at the University of Ibadan" from Chinua Achebe (0.88), and Pierre Curie, named
    last, Marie Curie's "She died in Passy" (and a woman's gender with it)."""
    text = (
        "Paul Desmarais Jr. is a Canadian businessman. Desmarais was born in Sudbury, Ontario. He studied at McGill University.\n\n"
        "Chinua Achebe was a Nigerian novelist. He was born in Ogidi, Nigeria. He studied at the University of Ibadan.\n\n"
        "Marie Curie was a Polish physicist. She was born in Warsaw. She was married to Pierre Curie. She died in Passy, France.\n"
    )
    ex, got = extract(text)
    f = facts(got)
    right = {("Paul Desmarais Jr", "educated_at", "McGill University"), ("Chinua Achebe", "born_in", "Ogidi"), ("Marie Curie", "born_in", "Warsaw")}
    assert right | {("Marie Curie", "died_in", "Passy")} <= f  # her death read by rule (step 8)
    whose = {"University of Ibadan": "Chinua Achebe", "Ogidi": "Chinua Achebe", "Passy": "Marie Curie"}
    assert not {(s, p) for s, p, o in f if o in whose and s != whose[o] and p != "located_in"}
    assert _fidelity(ex, text, got) == []
    # under the floor too, the sentences' own readings: Achebe's university, Marie Curie's death (not Pierre Curie's)
    low = facts(extract(text, floor=0.3)[1])
    assert {("Chinua Achebe", "educated_at", "University of Ibadan"), ("Marie Curie", "died_in", "Passy")} <= low
    assert ("Pierre Curie", "died_in", "Passy") not in low
    # a name followed by "'s" opens no sentence about that person: "She" is not Alice Smith
    ex, got = extract("Alice Smith's sister is Nadia Jones. She was born in Paris.", floor=0.0)
    read = [ex.surfaces[("d", t.start, t.end, t.subject, t.predicate, t.object)][0] for t in got if t.subject == "Alice Smith"]
    assert read and "She" not in read
    # nor when another person of that sentence fits as well (the rule's first version: Obama born in Hamburg, 0.99)
    ex, got = extract("Barack Obama met Angela Merkel in Berlin. She was born in Hamburg.", floor=0.0)
    assert got and not [t for t in got if ex.surfaces[("d", t.start, t.end, t.subject, t.predicate, t.object)][0] == "She"]
    # and the "She" left unresolved does not hand the sentence to the document's topic unnamed (Obama born in
    # Hamburg at 0.76 that way: at floor 0, its best reading of the pair was educated_at), while a "He" that
    # is the topic still is
    assert not [t for t in got if {t.subject, t.object} == {"Barack Obama", "Hamburg"}]
    got = extract("Barack Obama is an American politician. He met Angela Merkel in Berlin. He was born in Honolulu.")[1]
    assert ("Barack Obama", "born_in", "Honolulu") in facts(got)


def test_a_heading_that_is_not_a_name_starts_a_section_of_the_same_article():
    """Under "## Early life" (no name) "She" is the article's person when the section names no person: every
    heading had reset the topic, and "She" was left unresolved (no fact at any floor). The sentence's fact
    calibrates at 0.70 here, under the default floor: the section's topic is London, not Ada Lovelace."""
    text = "# Ada Lovelace\n\nAda Lovelace was an English mathematician.\n\n## Early life\n\nShe was born in London.\n"
    ex, got = extract(text, floor=0.6)
    assert ("Ada Lovelace", "born_in", "London") in facts(got) and _fidelity(ex, text, got) == []
    from semantic_rdf.pipeline.statistical.extractor import names_only

    assert names_only(["#", "Chinua", "Achebe"], [(1, 3, "PER", None)])
    assert not names_only(["##", "Years", "at", "IBM"], [(3, 4, "ORG", None)])
    assert not names_only(["##", "Early", "life"], [])


def test_peoples_languages_and_one_word_headings_are_no_entities():
    """Found on GUM's Wikipedia and Wikivoyage pages: "Americans located_in Cuba", "Jerome member_of Jew", "Understand
    located_in Greece" (a one-word heading), "Wilfried located_in Germany" (from "performed in German by")."""
    text = (
        "Understand\n\nNorvik is a port town in Norway. Many Americans visit Norvik in Norway every summer. "
        "The ballad was performed in German by Lena Falk. Hedda Moe learned Hebrew from a converted Jew."
    )
    ex, got = extract(text)
    assert set(ex.aliases("d")) == {"Norvik", "Norway", "Lena Falk", "Hedda Moe"}
    assert ("Norvik", "located_in", "Norway") in facts(got)
    # a name the document gave before is a name on a line of its own too
    ex, _ = extract("Norvik is a port town in Norway.\n\nNorvik\n\nThe harbour is deep.")
    assert set(ex.aliases("d")) == {"Norvik", "Norway"}


def test_a_possessive_before_a_named_person_pairs_with_that_person_only():
    """ "Her colleague Tom Becker was born in Hamburg": Tom Becker was born there, not the "her" (it stored
    "Maria Lopez born_in Hamburg" at 0.76)."""
    text = "Maria Lopez, a chemist from Madrid, joined Siemens in 2015. Her colleague Tom Becker was born in Hamburg. Lopez was born in Seville."
    ex, got = extract(text, floor=0.3)
    f = facts(got)
    assert ("Tom Becker", "born_in", "Hamburg") in f and ("Maria Lopez", "born_in", "Seville") in f
    assert ("Maria Lopez", "born_in", "Hamburg") not in f
    from semantic_rdf.pipeline.statistical.mentions import SentMention
    from semantic_rdf.pipeline.statistical.pairs import possessives
    from semantic_rdf.pipeline.statistical.text import tokenize

    def only(sentence, pron_at, person_at):
        tokens = tokenize(sentence)
        a, b = person_at
        ms = [SentMention(pron_at, pron_at + 1, 0, "pron", 0.9, tokens[pron_at].text), SentMention(a, b, 1, "named", 1.0, "x")]
        return possessives(tokens, ms, lambda i: "PER")

    assert only("His wife , Anna Weiss , was born in Vienna .", 0, (3, 5)) == {(0, 1): 1}
    assert only("Her husband Tom Becker died .", 0, (2, 4)) == {(0, 1): 1}
    assert only("where his teachers included Sabine Lacoraet .", 1, (4, 6)) == {}  # a verb between: not the noun's name
    assert only("He met her Tom Becker .", 2, (3, 5)) == {}  # no noun between


def test_a_tagged_mention_stands_for_the_gold_entity_it_overlaps_most():
    """Training also reads the tagger's mentions (docs/extraction.md, "Trained on the mentions the tagger
    finds"): one a word off the gold boundary ("Paul Desmarais Sr ." for "Paul Desmarais Sr") is still that
    entity, so the fact its sentence states stays a positive example; one that overlaps none is no entity's."""
    from semantic_rdf.pipeline.statistical.train import overlapped

    gold = [(0, 3, "PER", 7), (5, 6, "PER", 8), (9, 11, "LOC", 9)]
    assert overlapped(gold, 0, 4) == 7  # a word longer
    assert overlapped(gold, 1, 3) == 7  # a word shorter
    assert overlapped(gold, 4, 5) is None  # beside every gold mention
    assert overlapped(gold, 5, 10) == 8  # over two gold mentions, one token each: the first
    assert overlapped(gold, 8, 11) == 9


def test_a_pair_is_also_described_by_the_words_of_its_two_names():
    """The relation classifier sees each mention's last word and a longer name's first ("Stephenville High School"
    is a school, "Lake Erie" a lake), and a topic paired unnamed sees its partner's last word; measured on
    Re-DocRED 0-399 out of fold: more right facts at every precision (docs/extraction.md, "Mention words, word
    pairs and a longer CRF fit")."""
    from semantic_rdf.pipeline.statistical.mentions import SentMention
    from semantic_rdf.pipeline.statistical.pairs import pair_features

    words = "holt graduated from stephenville high school in texas .".split()
    holt = SentMention(0, 1, 0, "named", 1.0, "Holt")
    school = SentMention(3, 6, 1, "named", 1.0, "Stephenville High School")
    texas = SentMention(7, 8, 2, "named", 1.0, "Texas")
    ms = [holt, school, texas]
    f = set(pair_features(words, holt, school, "PER", "ORG", False, False, ms, 0, None, None))
    assert {"hw=holt", "tw=school", "tf=stephenville"} <= f
    assert not any(x.startswith("hf=") for x in f)  # a one-word name has no first word apart from its last
    g = set(pair_features(words, school, texas, "ORG", "LOC", False, False, ms, 0, None, "Region"))
    assert {"hw=school", "hf=stephenville", "tw=texas"} <= g and not any(x.startswith("tf=") for x in g)
    topic = SentMention(-1, -1, 0, "implicit", 1.0, "")
    h = set(pair_features(words[1:], topic, SentMention(2, 5, 1, "named", 1.0, "x"), "PER", "ORG", True, False, ms, 1, None, None))
    assert "imph|mw=school" in h and not any(x.startswith(("hw=", "tw=")) for x in h)


@pytest.mark.parametrize(
    "sentence, span, junk",
    [
        ("It was performed in German by Lena Falk .", (4, 5), True),
        ("It bears an inscription in German which is wrong", (5, 6), True),
        ("They were translated from French .", (4, 5), True),
        ("He moved in German territory .", (3, 4), False),  # the adjective of a country's territory
        ("The German army left .", (1, 2), False),
        ("Sweden 1 – 0 Korea Republic was played .", (0, 6), True),
        ("d -VOR-zha k was said .", (1, 2), True),
        ("The Germans arrived .", (1, 2), True),
        ("Catholics and Muslims met .", (0, 1), True),
        ("Christian Dior was born .", (0, 2), False),
        ("Microsoft made .NET Framework .", (2, 4), False),  # a name may open with a dot
        ("Intel launched the Core i9 - 9980XE Extreme Edition .", (3, 9), False),  # digits inside words are no score
        ("The Catholic University opened .", (1, 3), False),
    ],
)
def test_not_a_name(sentence, span, junk):
    from semantic_rdf.pipeline.statistical.names import span_text, not_a_name
    from semantic_rdf.pipeline.statistical.text import tokenize

    tokens = tokenize(sentence, 0, len(sentence), 0)
    a, b = span
    assert not_a_name(tokens, a, b, span_text(tokens, a, b)) is junk


def test_code_blocks_are_not_read():
    prose = "Henrik Angell was a Norwegian military officer."
    md = "```\n" + prose + "\n```\n\nSome text without facts.\n<pre>" + prose + "</pre>"
    _, got = extract(md, floor=0.0)
    assert got == []
    _, got = extract(prose, floor=0.0)
    assert got


def test_an_html_pre_block_is_not_read_but_its_text_is_kept(tmp_path):
    """HTML <pre> reaches the extractor as a fenced block (parse.py), so a sentence in one gives no fact; the
    same sentence in a paragraph does, and the stored text keeps the code."""
    for body, want in (("<pre>" + ACHEBE + "</pre>", False), ("<p>" + ACHEBE + "</p>", True)):
        (tmp_path / "page.html").write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
        store = tmp_path / ("with" if want else "without")
        r = run_cli(store, "--json", "ingest", str(tmp_path / "page.html"))
        assert r.rc == 0, r.err
        r = run_cli(store, "--json", "search", "Ogidi")
        assert r.rc == 0 and "Ogidi" in r.out, r.out + r.err  # the text is stored either way
        r = run_cli(store, "--json", "list")
        facts = {(x["subject"], x["predicate"], x["object"]) for x in json.loads(r.out)["assertions"]}
        assert (("Chinua Achebe", "born_in", "Ogidi") in facts) is want, facts


def test_agent_identity_is_the_weights_hash_and_retract_by_agent(tmp_path):
    store = tmp_path / "s"
    r = run_cli(store, "--json", "ingest", "-", stdin=ALGER.encode())
    assert r.rc == 0, r.err
    summary = json.loads(r.out)
    assert summary["new"] >= 3
    ex = StatisticalExtractor()
    man = load_manifest()
    assert ex.agent == f"statistical-extractor-{man['weights_sha256'][:12]}"
    assert man["weights_sha256"] in ex.model_id and man["training_data_sha256"] in ex.model_id
    from semantic_rdf.store.assertions import AssertionStore

    s = AssertionStore.open(store)
    try:
        labels = {q.object.value for q in s.ox.quads_for_pattern(None, None, ox.Literal(ex.agent), None)}
        models = list(s.ox.quads_for_pattern(None, None, ox.Literal(ex.model_id), None))
        assert labels == {ex.agent} and models
    finally:
        s.close()
    r = run_cli(store, "--json", "retract", "--agent", ex.agent, "--reason", "model withdrawn")
    assert r.rc == 0, r.err
    assert len(json.loads(r.out)["changed"]) == summary["new"]


def test_ingest_defaults_to_statistical_and_rules_stays_available(tmp_path):
    r = run_cli(tmp_path / "a", "--json", "ingest", "-", stdin=ACHEBE.encode())
    assert r.rc == 0 and json.loads(r.out)["new"] >= 1
    r = run_cli(tmp_path / "b", "--json", "ingest", "--extractor", "rules", "-", stdin=ANGELL.encode())
    assert r.rc == 0
    r = run_cli(tmp_path / "c", "ingest", "--extractor", "statistical", "--gazetteer", "x.json", "-", stdin=b"x")
    assert r.rc == 2
    # the rules take a gazetteer, of the ontology's entity classes only (one line, exit 2, nothing stored)
    (tmp_path / "g.json").write_text('{"Ada Lovelace": "Decision"}', encoding="utf-8")
    r = run_cli(
        tmp_path / "d", "ingest", "--extractor", "rules", "--gazetteer", str(tmp_path / "g.json"), "-", stdin=b"Ada Lovelace was born in London."
    )
    assert r.rc == 2 and "'Decision' is not an entity class" in r.err and len(r.err.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists()


def test_the_bench_scores_a_child_of_fact_as_the_parent_of_fact_it_reverses():
    from semantic_rdf.pipeline.statistical.evaluate import predicate_property

    prop = predicate_property()
    assert prop["parent_of"] == ("P40", False)
    assert prop["child_of"] == ("P40", True)  # P8810 ("parent"), which Re-DocRED never labels, is P40 reversed
    assert prop["born_in"] == ("P19", False)


def test_training_document_ranges_are_checked():
    import doctest

    from semantic_rdf.pipeline.statistical import train

    assert train.document_ranges("0:100,200:400") == [(0, 100), (200, 400)]
    for bad in ("0:450", "5:5", "-3:5", "100:200,0:50", "0:100,50:150", "x", "1:2:3", ""):
        with pytest.raises(SystemExit):
            train.document_ranges(bad)
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(train.document_ranges, "document_ranges", globs={"document_ranges": train.document_ranges}):
        runner.run(test)
    assert runner.tries == 1 and runner.failures == 0


@pytest.mark.slow
def test_training_runs_end_to_end_on_a_tiny_slice(tmp_path):
    if not REDOCRED.is_file():
        pytest.skip(f"the training corpus is not at {REALTEXT} (it never ships)")
    from semantic_rdf.pipeline.statistical import train

    out = tmp_path / "w"
    # fitted on two blocks around the tuning block (every block of 0-399 can be read by models that never saw it)
    assert train.main(["--data", str(REALTEXT), "--out", str(out), "--no-crossfit", "--fit", "0:4,8:12", "--tune", "4:8", "--iterations", "10"]) == 0
    man = load_manifest(out)
    assert man["training_data"]["redocred_fit_documents"] == [[0, 4], [8, 12]] and man["training_data"]["redocred_tune_documents"] == [4, 8]
    assert all(sha256_file(out / n) == h for n, h in man["files"].items())
    ex, got = extract(ALGER, weights=out, floor=0.0)
    assert ex.w.manifest["weights_sha256"] == man["weights_sha256"]
    for fit, tune in (("0:450", "450:460"), ("0:8", "4:12"), ("0:8", "8:10,10:12")):  # held out, overlapping, two tunings
        with pytest.raises(SystemExit):
            train.main(["--data", str(REALTEXT), "--out", str(out), "--no-crossfit", "--fit", fit, "--tune", tune])
    # cross-fitting: two folds calibrate, then all the documents fit
    out2 = tmp_path / "w2"
    assert train.main(["--data", str(REALTEXT), "--out", str(out2), "--crossfit", "--crossfit-docs", "12", "--iterations", "10"]) == 0
    man2 = load_manifest(out2)
    assert man2["params"]["crossfit"] and man2["training_data"]["crossfit_folds"] == [[[0, 9], [9, 12]], [[3, 12], [0, 3]]]
    assert sorted(p.name for p in out2.iterdir()) == sorted([*WEIGHT_FILES, "manifest.json"])
    assert man2["cross_relations"] == json.loads((out2 / "cross.json").read_text())["relations"]
    with pytest.raises(SystemExit):
        train.main(["--data", str(REALTEXT), "--out", str(out2), "--crossfit", "--crossfit-docs", "450"])


def test_same_output_in_processes_with_different_hash_seeds():
    import os
    import subprocess
    import sys

    code = (
        "import sys; from semantic_rdf.pipeline.statistical import StatisticalExtractor; from semantic_rdf.core.values import Chunk;"
        "t = sys.stdin.read(); ex = StatisticalExtractor(floor=0.0);"
        "print([(x.subject, x.predicate, x.object, x.score, x.start, x.end) for x in ex.extract(Chunk('d', 0, t, 0, len(t)))])"
    )
    root = Path(__file__).resolve().parents[1]
    outs = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(root))
        r = subprocess.run([sys.executable, "-c", code], input=SCHNEIDER + " " + ALGER, capture_output=True, text=True, env=env, check=True)
        outs.add(r.stdout)
    assert len(outs) == 1 and "country_of_citizenship" in outs.pop()


def test_unreadable_weights_are_a_typed_error(tmp_path):
    from semantic_rdf.core.errors import InvalidInput, NotFound

    with pytest.raises(NotFound):
        StatisticalExtractor(weights=tmp_path)
    for name in WEIGHT_FILES:
        (tmp_path / name).write_bytes((WEIGHTS_DIR / name).read_bytes())
    (tmp_path / "features.json").write_text('{"relations": ["P131"], "features": ["x"]}')
    with pytest.raises(InvalidInput):
        StatisticalExtractor(weights=tmp_path)
    with pytest.raises(InvalidInput):
        StatisticalExtractor(floor=1.5)
    with pytest.raises(InvalidInput):
        StatisticalExtractor().extract("not a chunk")


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                ANGELL,
                SCHNEIDER,
                "He",
                "She said it.",
                "The company",
                "```",
                "<pre>x</pre>",
                "İstanbul ΣΊΣΥΦΟΣ",
                "\u202e",
                "Born in Prelate, Saskatchewan,",
                " ",
                "\n\n",
                ".",
            ]
        )
        | st.text(max_size=40),
        max_size=12,
    ).map("".join)
)
def test_any_text_gives_spans_inside_the_chunk(text):
    if not text:
        return
    ex = StatisticalExtractor(floor=0.0)
    chunk = Chunk("d", 0, text, 0, len(text))
    for t in ex.extract(chunk):
        assert 0 <= t.start < t.end <= len(text) and t.subject.strip() and t.object.strip()
        sh, so, _, _ = ex.surfaces[("d", t.start, t.end, t.subject, t.predicate, t.object)]
        assert sh in text[t.start : t.end] and so in text[t.start : t.end]


def test_a_listed_place_holds_no_role_its_predicates_range_says_is_no_place():
    """ "Warsaw's clandestine Flying University" had given `Marie Curie educated_at Warsaw` (0.82), a City where the
    ontology's range is Organization. A place's own roles stay: the birthplace, the town's country."""
    from semantic_rdf.pipeline.statistical.extractor import _out_of_range

    text = (
        "Marie Curie (7 November 1867 – 4 July 1934) was a Polish physicist. She was born in Warsaw. She studied at "
        "Warsaw's clandestine Flying University and began her practical scientific training in Warsaw."
    )
    _, got = extract(text, floor=0.3)
    f = facts(got)
    assert ("Marie Curie", "born_in", "Warsaw") in f and ("Warsaw", "located_in", "Poland") in f
    assert not any(o in ("Warsaw", "Poland") for _, p, o in f if p in ("educated_at", "employed_by", "member_of"))
    assert _out_of_range("Warsaw", "Organization") and _out_of_range("Ontario", "Person")
    assert not _out_of_range("Warsaw", "Place") and not _out_of_range("University of Warsaw", "Organization")
    assert not _out_of_range("France", "Agent")  # a state can act: collaborated_with, an Agent's role
