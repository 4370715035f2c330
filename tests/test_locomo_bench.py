"""The whole LoCoMo harness on a tiny synthetic conversation written in the upstream schema.

No LoCoMo data is used here (it is CC BY-NC and stays outside the repository).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from bench.locomo import data, harness, report
from bench.locomo.__main__ import main
from bench.locomo.reader import Passage, ReaderConfig, is_when_question, read, resolve_when
from bench.locomo.scorer import DECLINE
from bench.locomo.gate_arm import TurnGate, margin, turn_facts
from semantic_rdf.core.errors import InvalidInput, ParseError
from semantic_rdf.hdc.gate import Config as GateConfig, FactIndex, Query, encode_query, gate

SAMPLE = {
    "sample_id": "conv-synthetic",
    "conversation": {
        "speaker_a": "Ada",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ada", "dia_id": "D1:1", "text": "Hi Ben! I went to a pottery workshop yesterday and made a blue vase."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice, Ada! I adopted a puppy named Biscuit last week."},
            {"speaker": "Ada", "dia_id": "D1:3", "text": "That's lovely. What breed is Biscuit?"},
            {
                "speaker": "Ben",
                "dia_id": "D1:4",
                "text": "Biscuit is a beagle.",
                "img_url": ["http://example.invalid/x.jpg"],
                "blip_caption": "a photo of a small dog on a rug",
            },
        ],
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I ran the Boston marathon last Sunday!"},
            {"speaker": "Ada", "dia_id": "D2:2", "text": "Congrats! I started learning the violin this month."},
            {"speaker": "Ben", "dia_id": "D2:3", "text": "Great. Bye!"},
        ],
        "session_3_date_time": "9:00 am on 1 July, 2023",  # a date with no turns: not a session
    },
    "qa": [
        {"question": "When did Ada go to the pottery workshop?", "answer": "7 May 2023", "evidence": ["D1:1"], "category": 2},
        {"question": "What did Ada make at the pottery workshop?", "answer": "a blue vase", "evidence": ["D1:1"], "category": 4},
        {"question": "What is the name of Ben's puppy?", "answer": "Biscuit", "evidence": ["D1:2"], "category": 4},
        {"question": "When did Ben run the Boston marathon?", "answer": "The sunday before 20 June 2023", "evidence": ["D2:1"], "category": 2},
        {"question": "What instruments is Ada learning?", "answer": "violin", "evidence": ["D2:2; D9:9"], "category": 1},
        {"question": "What did Ada name her puppy?", "adversarial_answer": "Biscuit", "evidence": ["D1:2"], "category": 5},
        {"question": "How many years has Ada played chess?", "answer": "3", "evidence": [], "category": 3},
    ],
}


@pytest.fixture()
def data_file(tmp_path):
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps([SAMPLE]), encoding="utf-8")
    return p


def test_load_builds_sessions_spans_and_evidence(data_file):
    (conv,) = data.load(data_file)
    assert conv.speakers == ("Ada", "Ben")
    assert [s.index for s in conv.sessions] == [1, 2]  # session_3 has a date but no turns
    s1 = conv.sessions[0]
    assert s1.date == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    for t in s1.turns:
        assert s1.text[t.start : t.end] == t.text
        assert s1.text[: t.start].endswith(f"{t.speaker}: ")
    assert s1.turns[3].text == "Biscuit is a beagle. [shares a photo of a small dog on a rug]"
    assert conv.qa[4].evidence == ("D2:2", "D9:9")  # the malformed "a; b" string is split
    assert conv.qa[5].answer is None and conv.qa[5].adversarial_answer == "Biscuit"


@pytest.mark.parametrize(
    "bad",
    [
        {"not": "a list"},
        [{"sample_id": "x"}],
        [{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B"}}],
        [{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [], "session_1_date_time": "yesterday-ish"}}],
        [{**SAMPLE, "qa": [{"question": "q?", "category": 9, "answer": "a"}]}],
        [{**SAMPLE, "qa": [{"question": "q?", "category": 4}]}],
    ],
)
def test_malformed_data_raises_parse_error(bad):
    with pytest.raises(ParseError):
        data.parse_conversations(bad)


def test_when_resolution_in_the_gold_style():
    d = datetime(2023, 5, 25, 10, 0, tzinfo=timezone.utc)  # a Thursday
    assert resolve_when("I went yesterday", d) == "24 May 2023"
    assert resolve_when("I ran a race last Saturday", d) == "The saturday before 25 May 2023"
    assert resolve_when("we met up last week", d) == "The week before 25 May 2023"
    assert resolve_when("going camping next month", d) == "June 2023"
    assert resolve_when("that was last year", d) == "2022"
    assert resolve_when("my birthday ten years ago", d) == "2013"
    assert resolve_when("a game next Sunday", d) == "28 May 2023"
    assert resolve_when("two days ago", d) == "23 May 2023"
    assert resolve_when("nothing temporal here", d) is None
    dec = datetime(2023, 1, 10, tzinfo=timezone.utc)
    assert resolve_when("see you next month", dec) == "February 2023"
    assert resolve_when("it was last month", dec) == "December 2022"
    assert is_when_question("When did she go?") and is_when_question("In what year did he move?")
    assert not is_when_question("What did she make?")


def test_reader_declines_below_the_floor_and_skips_questions():
    d = datetime(2023, 5, 8, tzinfo=timezone.utc)
    cfg = ReaderConfig(floor=0.5, span=3, parts=1)
    p = [Passage("u", "Is it blue? I made a green vase.", d, 0.9, "Ada")]
    reply = read("What did Ada make?", p, cfg, lambda t: 1.0)
    # the interrogative sentence is never read; the question's own words ("Ada", "make") are dropped
    assert reply.text == reply.answer == "made green vase"
    low = read("What did Ada make?", [Passage("u", p[0].text, d, 0.4, "Ada")], cfg, lambda t: 1.0)
    assert low.text == DECLINE and low.answer == "made green vase" and low.declined
    assert read("What did Ada make?", [], cfg, lambda t: 1.0).text == DECLINE


def test_memory_resolves_every_unit_to_a_stored_span(data_file):
    (conv,) = data.load(data_file)
    mem = harness.build_memory(conv)
    assert mem.stored is not None, "the AssertionStore is part of the project and must be used"
    for s in conv.sessions:
        assert mem.stored.document_text(mem.doc_ids[s.index]) == s.text
    for dia_id, turn in mem.turns.items():
        assert mem.span_text(dia_id) == turn.text


def test_harness_arms_behave_as_designed(data_file):
    convs = data.load(data_file)
    res = harness.run(convs, ReaderConfig(), k=3)
    a = res.arrays()
    assert not res.skipped  # every arm ran, the gate's included
    by = {(arm, q): i for i, (arm, q) in enumerate(zip(res.arm, res.question))}

    def row(arm, q):
        return by[(arm, q)]

    when = "When did Ada go to the pottery workshop?"
    assert res.answer[row("scoped", when)] == "7 May 2023"
    assert a["f1_answer"][row("scoped", when)] == 1.0
    adv = "What did Ada name her puppy?"
    floor = ReaderConfig().floor
    # Scoped to Ada, Ben's puppy turn is invisible: the question is poorly covered and declined.
    assert a["confidence"][row("scoped", adv)] < floor
    # Flat retrieval finds Ben's turn, which covers the question, so the trap is answered.
    assert a["confidence"][row("flat", adv)] >= floor
    assert a["recall"][row("flat", adv)] == 1.0 and a["recall"][row("scoped", adv)] == 0.0
    # The oracle hands over the annotated evidence; an empty evidence list leaves nothing to read.
    empty = "How many years has Ada played chess?"
    assert a["confidence"][row("oracle", empty)] == 0.0
    assert a["confidence"][row("oracle", "What is the name of Ben's puppy?")] == 1.0
    # The gate arm reads the scoped arm's turns and answers the same; only the abstention differs,
    # and at the gate's threshold its confidence says exactly whether the gate passed.
    gate_rows = [i for i, arm in enumerate(res.arm) if arm == "gate"]
    assert len(gate_rows) == len(res.gate_passed) == len(SAMPLE["qa"])
    for i, passed in zip(gate_rows, res.gate_passed):
        assert res.answer[i] == res.answer[row("scoped", res.question[i])]
        assert bool(a["confidence"][i] >= GateConfig().threshold) is passed
    make = "What did Ada make at the pottery workshop?"
    assert res.gate_passed[gate_rows.index(row("gate", make))]  # "pottery" and "workshop" share a turn of Ada's


def test_report_statistics():
    assert report.roc_auc([0.9, 0.8, 0.1, 0.2], [True, True, False, False]) == 1.0
    assert report.roc_auc([0.1, 0.2, 0.9, 0.8], [True, True, False, False]) == 0.0
    assert report.roc_auc([0.5, 0.5, 0.5], [True, False, False]) == 0.5
    # one positive above one negative, tied with the other: (1 + 0.5) / 2
    assert report.roc_auc([0.7, 0.7, 0.2], [True, False, False]) == pytest.approx(0.75)


def test_command_writes_tables_json_and_plot(data_file, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["--data", str(data_file), "--out", str(out), "--bootstrap", "50"]) == 0
    printed = capsys.readouterr().out
    assert "total wall time" in printed and "| adversarial |" in printed
    rep = json.loads((out / "locomo.json").read_text())
    assert set(rep["arms"]) == {"flat", "scoped", "oracle", "gate"}
    assert 0.0 <= rep["settings"]["gate"]["passed_share"] <= 1.0
    # at the default floor (the gate's threshold) the gate arm is quiet exactly when the gate refused
    assert rep["arms"]["gate"]["overall"]["quiet"] == pytest.approx(1.0 - rep["settings"]["gate"]["passed_share"])
    assert rep["arms"]["scoped"]["adversarial"]["f1"] == 1.0
    assert rep["arms"]["flat"]["adversarial"]["f1"] == 0.0
    assert rep["always_decline"]["adversarial"] == 1.0
    assert rep["reader_ceiling"] == rep["arms"]["oracle"]["answerable"]["f1"]
    assert len(rep["sweep"]["scoped"]["floor"]) == 21
    assert (out / "floor-sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "locomo.md").read_text().startswith("F1 (official metric)")


def test_command_rejects_bad_input(tmp_path, capsys):
    assert main(["--data", str(tmp_path / "missing.json"), "--out", str(tmp_path / "o")]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["--data", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert main(["--data", str(bad), "--arms", "flat,nonsense"]) == 2
    assert "error:" in capsys.readouterr().err
    with pytest.raises(InvalidInput):
        ReaderConfig(floor=1.5)


def test_turn_facts_are_windowed_content_word_triples(data_file):
    (conv,) = data.load(data_file)
    turn = conv.sessions[0].turns[0]  # "Hi Ben! I went to a pottery workshop yesterday and made a blue vase."
    facts = turn_facts(turn, window=4)
    words = ["ben", "went", "pottery", "workshop", "yesterday", "made", "blue", "vase"]
    assert [f[1:] for f in facts[:3]] == [("ben", "went", "pottery"), ("ben", "went", "workshop"), ("ben", "pottery", "workshop")]
    for _, s, p, o in facts:
        i, j, k = words.index(s), words.index(p), words.index(o)
        assert i < j < k and k - i < 4
    # every in-window triple is there once: sum over i of C(min(3, 7 - i), 2)
    assert len(facts) == len({f[0] for f in facts}) == sum(min(3, 7 - i) * (min(3, 7 - i) - 1) // 2 for i in range(8))
    assert turn_facts(conv.sessions[1].turns[2]) == []  # "Great. Bye!": fewer than three content words


def test_margin_is_at_least_the_threshold_exactly_when_the_gate_passes():
    cfg = GateConfig()
    from semantic_rdf.hdc.memory import shared_encoder  # the encoder the answer path and the arm use

    enc = shared_encoder(cfg)
    idx = FactIndex.from_texts(
        [("f1", "pottery", "workshop", "vase"), ("f2", "violin", "lesson", "month"), ("f3", "marathon", "boston", "sunday")], enc, cfg
    )
    # subject and object matched but the predicate slot unaligned ("lesson"): blocked by the predicate floor
    for tokens, expect in (
        (("pottery", "workshop"), True),
        (("workshop", "vase"), True),
        (("violin", "month"), False),
        (("chess", "tournament"), False),
        (("pottery",), False),
    ):
        g = gate(idx, encode_query(Query(tokens=tokens), enc), cfg)
        assert (not g.blocked) is expect, tokens
        assert (margin(g) >= cfg.threshold) is expect, (tokens, margin(g))


def test_turn_gate_refuses_a_question_its_turns_do_not_hold(data_file):
    (conv,) = data.load(data_file)
    tg = TurnGate(conv, {t.dia_id: t for t in conv.turns()})
    ok = tg.judge("What did Ada make at the pottery workshop?", ["D1:1"])
    assert ok.passed and ok.confidence >= tg.config.threshold
    no = tg.judge("Which chess openings does Ada study?", ["D1:1", "D2:2"])
    assert not no.passed and no.confidence < tg.config.threshold
    assert tg.judge("Anything?", []).confidence == 0.0  # nothing retrieved: nothing to pass
    assert tg.query("What did Ada make?").entities == ("Ada",)  # the speakers are linked as the answer path links
