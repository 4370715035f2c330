import pytest

from semantic_rdf.lifecycle import temporal as T
from semantic_rdf.cli import main
from semantic_rdf.lifecycle.decisions import AllowAgents, DenyChoices, Recorder, RequireBelieved
from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.vocab import agent_iri


def test_a_refusal_is_recorded_with_rule_and_reason_and_found_by_agent_and_chain():
    s = AssertionStore.memory()
    a = s.assert_("Ada Lovelace", "born_in", "London")
    rec = Recorder(s)
    d1 = rec.record("planner", "look up Ada", [a])
    refused = rec.record(
        "planner", "delete the archive", [a], informed_by=[d1.id], policy=DenyChoices({"delete the archive"}, "destructive actions need a person")
    )
    assert refused.allowed is False and refused.rule == "deny-choices"  # returned, not raised
    d3 = rec.record("planner", "ask a person", informed_by=[refused.id])
    mine = rec.by("planner")
    assert [r.id for r in mine] == [d1.id, refused.id, d3.id]
    got = mine[1]
    assert (got.allowed, got.rule, got.reason, got.because) == (False, "deny-choices", "destructive actions need a person", (a,))
    assert [r.id for r in rec.chain(d3.id)] == [d1.id, refused.id]  # the walk, oldest first
    assert rec.chain(d1.id) == []
    rows = s.run_query("decisions-by-agent", agent=agent_iri("planner"))
    assert [r["allowed"].value for r in rows] == ["true", "false", "true"]
    assert rows[1]["reason"].value == "destructive actions need a person"
    assert s.validate().conforms


def test_policies_and_bad_input():
    s = AssertionStore.memory()
    a = s.assert_("x", "born_in", "y")
    rec = Recorder(s, AllowAgents({"alice"}))
    assert rec.record("alice", "go").allowed
    r = rec.record("mallory", "go")
    assert not r.allowed and "mallory" in r.reason
    pol = RequireBelieved(s).citing([a])
    assert rec.record("alice", "act on x", [a], policy=pol).allowed
    T.retract(s, a, "doubtful")
    r = rec.record("alice", "act on x", [a], policy=pol)
    assert not r.allowed and a in r.reason and r.rule == "require-believed-evidence"
    with pytest.raises(NotFound):
        rec.record("alice", "go", ["0123456789abcdef"])
    with pytest.raises(NotFound):
        rec.record("alice", "go", informed_by=["0123456789abcdef"])
    with pytest.raises(InvalidInput):
        rec.record("alice", "  ")
    with pytest.raises(NotFound):
        rec.chain("0123456789abcdef")


def test_decisions_cli(tmp_path, capsys):
    root = tmp_path / "st"
    s = AssertionStore.open(root)
    rec = Recorder(s)
    d1 = rec.record("bot", "first")
    d2 = rec.record("bot", "second", informed_by=[d1.id], policy=DenyChoices({"second"}, "no"))
    s.close()
    assert main(["--store", str(root), "decisions", "--agent", "bot"]) == 0
    out = capsys.readouterr().out
    assert "REFUSED by deny-choices (no)" in out and d1.id in out
    assert main(["--store", str(root), "--json", "decisions", "chain", d2.id]) == 0
    assert d1.id in capsys.readouterr().out
    assert main(["--store", str(root), "decisions", "bogus"]) == 2
