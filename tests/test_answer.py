"""The answer path over a real store: linking, gate, verification with quoted spans, Hebbian priming,
modes, decisions, retraction/erasure kept in step with the side tables, multi-hop paths, the model renderer
(against a local HTTP server speaking the OpenAI chat API), and the gate acceptance set."""

from __future__ import annotations

from contextlib import contextmanager

import json
from pathlib import Path

import pytest

from semantic_rdf.answer.answerer import (
    REFUSAL,
    AnswerConfig,
    Answerer,
    Linker,
    ModelRenderer,
    map_predicates,
    parse_question,
    sentence,
    words_of,
)
from semantic_rdf.lifecycle.decisions import Recorder
from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.values import MAX_QUESTION
from semantic_rdf.pipeline.extract import RuleExtractor
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.pipeline.load import load
from semantic_rdf.hdc.memory import Entity, Memory, after_ingest_hook
from semantic_rdf.pipeline.llm import OpenAICompatibleModel
from semantic_rdf.pipeline.stages import build_pipeline
from semantic_rdf.store.assertions import AssertionStore

from test_model import server, url  # noqa: F401  (the local OpenAI-compatible HTTP server fixture)

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "gate_corpus.txt"


def ingest(store) -> None:
    pipeline = build_pipeline([str(CORPUS)], extractor=RuleExtractor())
    load(store, pipeline, [str(CORPUS)], on_commit=after_ingest_hook(store))


@pytest.fixture(scope="module")
def shared():
    """One ingested in-memory store for the read-mostly tests."""
    store = AssertionStore.memory()
    ingest(store)
    mem = Memory.attach(store)
    yield mem
    mem.close()


@pytest.fixture()
def fresh():
    """A store of its own, for tests that retract, erase or count turns."""
    store = AssertionStore.memory()
    ingest(store)
    mem = Memory.attach(store)
    yield mem
    mem.close()


class Scripted:
    """The one allowed double: canned answers behind complete(prompt, schema)."""

    def __init__(self, *answers: str):
        self.answers = list(answers)
        self.prompts: list[str] = []

    def complete(self, prompt: str, schema: dict) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0)


def aid(s, p, o):
    return assertion_id(s, p, o)


# ------------------------------------------------------------------ linking and parsing


def E(name, cls="Thing"):
    from semantic_rdf.core.identity import fold

    return Entity("urn:x:" + name, name, fold(name), cls)


def test_linking_takes_whole_names_longest_first_never_parts():
    lk = Linker([E("New York", "Place"), E("York", "Place"), E("Ottilie Brandvold"), E("Brandvold"), E("It")])
    assert [e.name for e in lk.link(words_of("What is new in York?"))] == ["York"]  # "new" alone is not New York
    assert [e.name for e in lk.link(words_of("Where is New York?"))] == ["New York"]  # longest match, no York
    assert lk.link(words_of("Is it raining?")) == []  # stop-word names never link
    # surname <-> full name aliases for person-like names, never for places
    assert [e.name for e in lk.aliases(lk.link(words_of("Where was Ottilie Brandvold born?")))] == ["Brandvold"]
    assert [e.name for e in lk.aliases(lk.link(words_of("What did Brandvold find?")))] == ["Ottilie Brandvold"]
    assert lk.aliases(lk.link(words_of("Where is New York?"))) == []


def test_predicate_cues_map_inflections_but_not_lookalikes():
    assert map_predicates(["discoverer"]) == [("discovered",)]
    assert map_predicates(["foundry"]) == []  # not "found"
    assert ("spouse_of",) in map_predicates(["wife"])
    born = map_predicates(["born"])[0]
    assert "born_in" in born and "place_of_birth" in born
    lk = Linker([E("Kestrel Foundry", "Organization")])
    p = parse_question("Where is the Kestrel Foundry headquartered?", lk)
    assert p.groups == (("headquartered_in",),)  # no cue taken from inside the linked name
    with pytest.raises(InvalidInput):
        parse_question("   ", lk)
    with pytest.raises(InvalidInput):
        parse_question("x" * (MAX_QUESTION + 1), lk)  # the one limit of ask, ask --batch and chat


def test_cue_words_are_tried_only_against_cues_of_their_first_four_letters():
    """cue_predicates looks a word up by its first four letters (every entity name's words go through it when
    the linker is built); the same predicates as trying every cue, on every cue with its inflections."""
    from semantic_rdf.answer.answerer import CUES, _cue_match, cue_predicates

    words = {c[:n] + suffix for cues in CUES.values() for c in cues for n in (3, 4, 5, len(c)) for suffix in ("", "s", "ed", "ing", "er")}
    for w in words:
        every = {p for p, cues in CUES.items() if any(_cue_match(w, c) for c in cues)} if len(w) >= 3 else set()
        assert cue_predicates(w) == every, w


def test_sentence_templates_cover_the_taxonomy():
    from semantic_rdf.core.vocab import predicate_names

    for p in predicate_names():
        s = sentence("A", p, "B")
        assert s.startswith("A") and "B" in s and s.endswith(".") and "_" not in s
    assert sentence("Tom Becker", "born_in", "Washington, D.C.") == "Tom Becker was born in Washington, D.C."
    assert sentence("Iowa", "located_in", "U.S.") == "Iowa is located in U.S."


# ------------------------------------------------------------------ answering


def test_answer_cites_document_and_exact_span_and_records_a_decision(shared):
    a = Answerer(shared).ask("Where was Lena Ostrova born?", "strict")
    assert a.allowed and [f.id for f in a.facts] == [aid("Ostrova", "born_in", "Riga")]
    f = a.facts[0]
    src = f.sources[0]
    text = shared.store.document_text(shared.store.get(f.id).sources[0].doc_iri)
    assert src.kind == "span" and src.document.endswith("gate_corpus.txt")
    assert src.quote == text[src.start : src.end] == "Ostrova was born in Riga."
    assert a.text == "Ostrova was born in Riga. [source: " + src.document + ': "Ostrova was born in Riga."]'
    d = Recorder(shared.store).get(a.decision_id)
    assert d.allowed and d.because == (f.id,) and d.rule == "hdc-gate"
    assert "passed" in d.reason and "threshold 0.55" in d.reason and d.choice.startswith("answer (strict)")
    assert a.scores["best"]["score"] >= 0.55 and a.scores["linked"] == ["Lena Ostrova"]


@pytest.mark.parametrize(
    "q",
    [
        "Where did Ottilie Brandvold die?",  # known entity, relation not stored
        "Where was Gunnar Halloway born?",  # unknown entity, stored relation word
        "Where was the father of Greta Lindqvist born?",  # a chain with a missing link
        "When was the Kestrel Foundry founded?",  # a time was asked, none stored
    ],
)
def test_unanswerable_is_a_fixed_refusal_recorded_with_the_gate_scores(shared, q):
    a = Answerer(shared).ask(q, "strict")
    assert not a.allowed and a.text == REFUSAL and a.facts == ()
    d = Recorder(shared.store).get(a.decision_id)
    assert not d.allowed and d.because == () and d.choice.startswith("refuse (strict)")
    assert "candidates" in d.reason  # the gate's account is the reason


def test_modes_and_hebbian_priming(fresh):
    ans = Answerer(fresh)
    first = ans.ask("Where was Lena Ostrova born?", "balanced")
    assert first.allowed and first.primed == ()  # nothing co-activated before
    assert fresh.side.hebbian.weight(*sorted(["Lena Ostrova", "Riga"])) == 0.0  # keys are entity ids, not names
    from semantic_rdf.hdc.gate import entity_key

    assert fresh.side.hebbian.weight(entity_key("Ostrova"), entity_key("Riga")) == pytest.approx(0.15)
    b = ans.ask("What did Ostrova design?", "balanced")
    primed = dict(b.primed)
    assert set(primed) == {"Lena Ostrova", "Riga"}  # associated last turn, not part of this answer
    assert primed["Riga"] == pytest.approx(0.15 * 0.99)  # one turn of decay
    assert "Related: " in b.text and "Riga (0.15)" in b.text
    c = ans.ask("What did Ostrova design?", "conversational")
    assert "Would you like to hear about them?" in c.text and "Riga" in c.text
    s = ans.ask("What did Ostrova design?", "strict")
    assert s.primed == () and "Related" not in s.text and "Would you" not in s.text
    r = ans.ask("What did Ostrova invent?", "conversational")
    assert not r.allowed and r.text.startswith(REFUSAL)
    with pytest.raises(InvalidInput):
        ans.ask("What did Ostrova design?", "chatty")


def test_pronouns_resolve_through_the_conversation_reservoir(fresh):
    ans = Answerer(fresh)
    assert ans.ask("Who did Marchetti marry?", conversation="c1").allowed
    a = ans.ask("Where was she born?", conversation="c1")
    assert a.allowed and a.facts[0].object == "Riga"
    # another conversation has its own reservoir: nothing to refer to
    assert not ans.ask("Where was she born?", conversation="c2").allowed


def test_multihop_probes_path_memory_and_confirms_every_hop(fresh):
    ans = Answerer(fresh)
    a = ans.ask("Where is the company founded by Ivo Marchetti headquartered?", "strict")
    assert a.allowed and a.path == ("Ivo Marchetti", "founded", "Kestrel Foundry", "headquartered_in", "Sheffield")
    assert [f.id for f in a.facts] == [aid("Ivo Marchetti", "founded", "Kestrel Foundry"), aid("Kestrel Foundry", "headquartered_in", "Sheffield")]
    assert "confirmed hop by hop" in a.reason
    # withdraw one hop: the path memory still proposes it, the claims refuse it
    fresh.retract(aid("Ivo Marchetti", "founded", "Kestrel Foundry"), "test: hop withdrawn")
    b = ans.ask("Where is the company founded by Ivo Marchetti headquartered?", "strict")
    assert not b.allowed and b.path == ()


def test_a_multi_relation_question_is_not_answered_by_facts_about_the_named_entity_alone():
    """ "Where was the teacher of X born?" with X's teacher and X's birthplace stored, the teacher's not:
    both relations are covered by passing facts, but not as a chain, so the answer is a refusal."""
    with _stated([("Ada Lovelace", "student_of", "Augustus De Morgan"), ("Ada Lovelace", "born_in", "London")]) as mem:
        ans = Answerer(mem)
        a = ans.ask("Where was the teacher of Ada Lovelace born?", "strict")
        assert not a.allowed and a.text == REFUSAL and "do not chain" in a.reason
        assert ans.ask("Where was Ada Lovelace born?", "strict").allowed  # the one-relation question still is


@contextmanager
def _stated(triples):
    """A Memory over an in-memory store holding `triples`, stated by a caller."""
    store = AssertionStore.memory()
    for s, p, o in triples:
        store.assert_(s, p, o, note="test")
    mem = Memory.attach(store)
    try:
        yield mem
    finally:
        mem.close()


def test_a_where_question_is_not_answered_by_what_has_the_named_entity_as_its_place():
    """ "Where is Scotland located?" with only "Mull located_in Scotland" stored is refused (that fact says
    where Mull is); once Scotland's own place is stored, only that fact answers."""
    with _stated([("Mull", "located_in", "Scotland"), ("Ross", "located_in", "Scotland"), ("Ada Lovelace", "born_in", "London")]) as mem:
        store, ans = mem.store, Answerer(mem)
        a = ans.ask("Where is Scotland located?", "strict")
        assert not a.allowed and a.text == REFUSAL and "another's place" in a.reason
        assert not ans.ask("Where was London born?", "strict").allowed
        assert [(f.subject, f.object) for f in ans.ask("Where is Mull located?", "strict").facts] == [("Mull", "Scotland")]
        store.assert_("Scotland", "located_in", "United Kingdom", note="test")
        a = ans.ask("Where is Scotland located?", "strict")
        assert a.allowed and [(f.subject, f.object) for f in a.facts] == [("Scotland", "United Kingdom")]
        assert ans.ask("What is located in Scotland?", "strict").allowed  # not a where-question: Mull and Ross answer


@pytest.mark.parametrize("q", ["Tell me about Lena Ostrova.", "What do you know about Lena Ostrova?", "Who is Lena Ostrova?", "Lena Ostrova"])
def test_a_question_about_an_entity_and_nothing_else_lists_its_believed_facts(fresh, q):
    """The gate scores facts against the relation a question asks; a question that asks none ("Tell me about X")
    had been refused though the store held cited facts about X. It now lists them, as subject first, surest first,
    each verified and quoted; a retracted one is not among them, and a question with another word ("How tall is
    the Marrow Tower?") or an unknown name is still refused."""
    ans = Answerer(fresh)
    a = ans.ask(q, "strict")
    assert a.allowed, a.reason
    got = {(f.subject, f.predicate, f.object) for f in a.facts}
    assert {("Ostrova", "born_in", "Riga"), ("Ostrova", "designed", "Harrow Bridge")} <= got, got
    assert all("Ostrova" in (f.subject + " " + f.object) for f in a.facts)
    assert all(c.quote for f in a.facts for c in f.sources if c.kind == "span")
    assert [f.subject for f in a.facts][0] in ("Ostrova", "Lena Ostrova")  # its own facts before others' about it
    fresh.retract(aid("Ostrova", "designed", "Harrow Bridge"), "test: withdrawn")
    again = {(f.subject, f.predicate, f.object) for f in ans.ask(q, "strict").facts}
    assert ("Ostrova", "designed", "Harrow Bridge") not in again and ("Ostrova", "born_in", "Riga") in again
    for other in ("How tall is the Marrow Tower?", "Tell me about quantum chromodynamics.", "Tell me about Otilie Brandvold."):
        assert not ans.ask(other, "strict").allowed, other


def test_a_question_about_a_name_with_quotes_in_it_reads_its_words_as_the_question_does():
    with _stated([('Tom "Tommy" Becker', "born_in", "Rochester")]) as mem:
        a = Answerer(mem).ask('Tell me about Tom "Tommy" Becker', "strict")
        assert a.allowed and [(f.subject, f.object) for f in a.facts] == [('Tom "Tommy" Becker', "Rochester")], a.reason


def test_retraction_reinstatement_and_as_of(fresh):
    ans = Answerer(fresh)
    fid = aid("Ostrova", "designed", "Harrow Bridge")
    before = fresh.store.now()
    assert ans.ask("What did Ostrova design?").allowed
    fresh.retract(fid, "test: withdrawn")
    assert fid not in fresh.side.fact_ids() and fid not in fresh.fact_index()
    assert not ans.ask("What did Ostrova design?").allowed
    past = ans.ask("What did Ostrova design?", as_of=before)  # what was believed then
    assert past.allowed and [f.id for f in past.facts] == [fid]
    fresh.reinstate(fid, "test: back")
    assert ans.ask("What did Ostrova design?").allowed


def test_erasure_reaches_side_tables_and_hebbian_weights(fresh):
    from semantic_rdf.hdc.gate import entity_key

    ans = Answerer(fresh)
    ans.ask("What did Greta Lindqvist write?")
    k = entity_key("Winter Ledger")
    assert fresh.side.hebbian.priming(entity_key("Greta Lindqvist"))  # associated
    fid = aid("Greta Lindqvist", "wrote", "Winter Ledger")
    fresh.erase(fid, "test: erase")
    assert fid not in fresh.side.fact_ids()
    assert fresh.side.term_vector("Winter Ledger") is None
    assert all(k not in pair for pair in fresh.side.hebbian.weights())  # the erased entity is forgotten
    assert not ans.ask("What did Greta Lindqvist write?").allowed


def test_reconcile_on_open_restores_and_prunes(tmp_path):
    root = tmp_path / "st"
    with AssertionStore.open(root) as st:
        pipeline = build_pipeline([str(CORPUS)], extractor=RuleExtractor())
        load(st, pipeline, [str(CORPUS)])  # no hook: the side tables know nothing yet
    with Memory.open(root) as mem:
        n = len(mem.side)
        assert n == len(mem.store.ids()) == 52 and mem.side.path_documents()
        mem.side.remove_facts([aid("Ostrova", "born_in", "Riga")])  # a lost row
        mem.side.put_facts([("0123456789abcdef", "Nobody", "born_in", "Nowhere")])  # an orphan
    with Memory.open(root) as mem:
        ids = mem.side.fact_ids()
        assert len(ids) == n and aid("Ostrova", "born_in", "Riga") in ids and "0123456789abcdef" not in ids
        assert Answerer(mem).ask("Where was Ostrova born?").allowed


# ------------------------------------------------------------------ model renderer


def test_strict_never_calls_the_model_and_refusals_never_do(shared):
    m = Scripted()
    ans = Answerer(shared, renderer=ModelRenderer(m))
    assert ans.ask("Where was Lena Ostrova born?", "strict").renderer == "template"
    assert not ans.ask("Where was Gunnar Halloway born?", "balanced").allowed
    assert m.prompts == []


def test_model_renderer_over_http_gets_only_verified_facts_and_is_never_stored(shared, server):  # noqa: F811
    fid = aid("Ostrova", "born_in", "Riga")
    content = json.dumps({"answer": "Lena Ostrova was born in the city of Riga.", "cited": [fid]})
    server.reply = (200, {"choices": [{"message": {"role": "assistant", "content": content}}]})
    before = set(shared.store.ids())
    ans = Answerer(shared, renderer=ModelRenderer(OpenAICompatibleModel(url(server), "m", timeout=5)))
    a = ans.ask("Where was Lena Ostrova born?", "balanced")
    assert a.renderer == "model" and a.text.startswith("Lena Ostrova was born in the city of Riga.")
    assert '"Ostrova was born in Riga."' in a.text  # sources appended by us
    prompt = server.seen[0]["body"]["messages"][-1]["content"]
    payload = json.loads(prompt.splitlines()[-1])  # the data follows the instructions
    assert [f["id"] for f in payload["verified_facts"]] == [fid]
    assert server.seen[0]["body"]["response_format"]["json_schema"]["schema"]["required"] == ["answer", "cited"]
    assert set(shared.store.ids()) == before
    assert b"city of Riga" not in shared.store.export("nquads")  # the model's words are not stored anywhere
    # a reply citing a fact it was not given falls back to the deterministic rendering
    bad = json.dumps({"answer": "Made up.", "cited": ["ffffffffffffffff"]})
    server.reply = (200, {"choices": [{"message": {"role": "assistant", "content": bad}}]})
    b = ans.ask("Where was Lena Ostrova born?", "balanced")
    assert b.allowed and "Made up" not in b.text and b.renderer.startswith("template (model reply rejected")
    server.reply = (500, {"error": "down"})
    c = ans.ask("Where was Lena Ostrova born?", "conversational")
    assert c.allowed and c.text.startswith("Ostrova was born in Riga.")


# ------------------------------------------------------------------ the acceptance set


def test_gate_acceptance_set(shared):
    items = [json.loads(x) for x in (DATA / "gate_questions.jsonl").read_text(encoding="utf-8").splitlines() if x]
    answerable = [i for i in items if i["answerable"]]
    unanswerable = [i for i in items if not i["answerable"]]
    assert len(answerable) >= 40 and len(unanswerable) >= 40
    ans = Answerer(shared, options=AnswerConfig(record=False))
    ok_a = sum(aid(*i["expect"]) in [f.id for f in ans.ask(i["question"], "strict", conversation=i["id"]).facts] for i in answerable)
    ok_u = sum(not ans.ask(i["question"], "strict", conversation=i["id"]).allowed for i in unanswerable)
    assert ok_a / len(answerable) >= 0.9, ok_a
    assert ok_u / len(unanswerable) >= 0.9, ok_u
