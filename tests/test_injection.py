"""Injection: hostile names and ids through every verb that takes them, checked on the raw quads.

A name may carry any SPARQL / IRI / N-Quads metacharacter (`>`, `"`, `}`, `#`, newline, NUL,
U+202E …). It must either be refused with a one-line error (exit 2, nothing written) or land as
data: a label literal of an entity whose IRI is minted from its hash, inside the graphs the verb is
meant to touch, and nowhere else. A static test keeps string-built queries out of the package.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pyoxigraph as ox
import pytest

from semantic_rdf.core.identity import assertion_id
from semantic_rdf.core.vocab import (
    DOCUMENT_GRAPH,
    ENTITY_GRAPH,
    PROVENANCE_GRAPH,
    RDFS_LABEL,
    claim_graph,
    entity_iri,
    predicate_iri,
)

from _security import HOSTILE, assert_refused, quads, run_cli

PKG = Path(__file__).resolve().parent.parent / "semantic_rdf"
CLAIM_PREFIX = "https://w3id.org/semantic-rdf/g/"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("inj") / "store"
    assert run_cli(root, "assert", "Alice", "parent_of", "Bob").rc == 0
    assert run_cli(root, "assert", "Bob", "spouse_of", "Carol").rc == 0
    return root


def _graph(q: ox.Quad) -> str:
    return q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else ""


def _delta(before: set, after: set) -> tuple[set, set]:
    return after - before, before - after


def _label(name: str) -> str:
    return " ".join(name.split())


def _acceptable(name: str) -> bool:
    """Names the store accepts: not blank (white space and format characters only), valid Unicode, at most
    MAX_NAME characters."""
    from semantic_rdf.core.values import MAX_NAME, is_blank

    return not is_blank(name) and len(name) <= MAX_NAME


# ---------------------------------------------------------------- assert


CASES = [(n, "subject") for n in HOSTILE] + [(n, "object") for n in HOSTILE[:10]]


@pytest.mark.parametrize("name,pos", CASES, ids=[f"h{i}" for i in range(len(CASES))])
def test_assert_hostile_name_lands_as_data_in_its_own_graphs(store, name, pos):
    s, o = (name, "Bob") if pos == "subject" else ("Alice", name)
    before = quads(store)
    r = run_cli(store, "--json", "assert", s, "parent_of", o)
    after = quads(store)
    if not _acceptable(name):
        assert_refused(r)
        assert after == before
        return
    assert r.rc == 0, r.err
    aid = assertion_id(s, "parent_of", o)
    assert json.loads(r.out)["id"] == aid
    added, removed = _delta(before, after)
    assert not removed, "a new assertion removes nothing"
    allowed = {PROVENANCE_GRAPH.value, ENTITY_GRAPH.value, claim_graph(aid).value}
    assert {_graph(q) for q in added} <= allowed
    # the claim graph holds exactly the claimed triple, with minted IRIs
    claim = [q for q in after if _graph(q) == claim_graph(aid).value]
    assert [(q.subject, q.predicate, q.object) for q in claim] == [(entity_iri(s), predicate_iri("parent_of"), entity_iri(o))]
    # the hostile name is a literal (label) of the minted entity, never part of an IRI
    e = entity_iri(name)
    labels = {q.object.value for q in after if q.subject == e and q.predicate == RDFS_LABEL}
    assert labels == {_label(name)}
    for q in added:
        for t in (q.subject, q.predicate, q.object, q.graph_name):
            if isinstance(t, ox.NamedNode):
                assert t.value.isascii() and not re.search(r'[\s<>"{}|^`\\]', t.value), t.value


@pytest.mark.parametrize("name", HOSTILE[:12], ids=[f"h{i}" for i in range(12)])
def test_assert_hostile_source_and_agent_stay_in_the_provenance_graph(store, name):
    before = quads(store)
    r = run_cli(store, "assert", "Dora", "employed_by", "Acme", "--source", name, "--agent", name)
    after = quads(store)
    assert r.rc == 0, r.err
    added, removed = _delta(before, after)
    aid = assertion_id("Dora", "employed_by", "Acme")
    assert {_graph(q) for q in added} <= {PROVENANCE_GRAPH.value, ENTITY_GRAPH.value, claim_graph(aid).value}
    assert {_graph(q) for q in removed} <= {PROVENANCE_GRAPH.value}  # count / confidence updated in place
    literals = {q.object.value for q in added if isinstance(q.object, ox.Literal)}
    assert name in literals or _label(name) in literals


# ---------------------------------------------------------------- query --bind


def test_query_bind_matches_only_the_literal_value(store, tmp_path):
    rq = tmp_path / "by-label.rq"
    rq.write_text(
        "SELECT ?e WHERE { GRAPH <https://w3id.org/semantic-rdf/graph/entities> { ?e <http://www.w3.org/2000/01/rdf-schema#label> ?name } }"
    )
    before = quads(store)
    labels = {q.object.value: q.subject.value for q in before if _graph(q) == ENTITY_GRAPH.value and q.predicate == RDFS_LABEL}
    for name in HOSTILE:
        value = _label(name)
        r = run_cli(store, "--json", "query", str(rq), "--bind", f'name="{value}"')  # "…": a literal
        assert r.rc == 0, (name, r.err)
        got = [f"<{row['e']['value']}>" for row in json.loads(r.out)["results"]["bindings"]]
        want = [f"<{labels[value]}>"] if value in labels else []
        assert got == want, name
    assert quads(store) == before


@pytest.mark.parametrize("bad", ["name", "=x", "9x=1", "n-m=1", "x y=1", "s=<a b>", "s=<urn:x> } ; <urn:y>"])
def test_query_bad_bindings_are_refused(store, tmp_path, bad):
    rq = tmp_path / "q.rq"
    rq.write_text("SELECT * WHERE { ?s ?p ?o } LIMIT 1")
    before = quads(store)
    assert_refused(run_cli(store, "query", str(rq), "--bind", bad))
    assert quads(store) == before


@pytest.mark.parametrize(
    "text",
    [
        "DELETE WHERE { GRAPH ?g { ?s ?p ?o } }",
        "DROP ALL",
        "INSERT DATA { GRAPH <urn:x> { <urn:a> <urn:b> <urn:c> } }",
        "CLEAR DEFAULT ; LOAD <http://169.254.169.254/latest/meta-data/>",
        "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }",
    ],
)
def test_query_verb_never_writes(store, tmp_path, text):
    rq = tmp_path / "upd.rq"
    rq.write_text(text)
    before = quads(store)
    r = run_cli(store, "query", str(rq))
    assert_refused(r)
    assert quads(store) == before


# ---------------------------------------------------------------- ids: trace, retract, erase, export, decisions

BAD_IDS = [
    HOSTILE[0],
    HOSTILE[2],
    HOSTILE[4],
    HOSTILE[9],
    HOSTILE[10],
    "",
    "0123456789ABCDEF",
    "0123456789abcdef0",
    "../0123456789abcdef",
    "0123456789abcdef\n",
    "-0123456789abcde",
]


@pytest.mark.parametrize(
    "verb",
    [
        ["trace"],
        ["retract", "--reason", "r"],
        ["erase", "--reason", "r"],
        ["reinstate", "--reason", "r"],
        ["decisions", "show"],
        ["decisions", "chain"],
    ],
)
def test_hostile_ids_are_refused_and_write_nothing(store, verb):
    before = quads(store)
    for bad in BAD_IDS:
        argv = [verb[0], *verb[1:], bad] if verb[0] == "decisions" else [verb[0], bad, *verb[1:]]
        if bad.startswith("-"):
            argv = [verb[0], *verb[1:], "--", bad] if verb[0] != "decisions" else argv
        r = run_cli(store, *argv)
        assert_refused(r)
    assert quads(store) == before


def test_retract_and_erase_with_hostile_reason_touch_only_their_graphs(store):
    target = assertion_id("Alice", "parent_of", "Bob")
    for name in HOSTILE[:10]:
        before = quads(store)
        r = run_cli(store, "retract", target, "--reason", name, "--by", name)
        after = quads(store)
        if not name.strip():
            assert_refused(r)
            continue
        assert r.rc == 0, r.err
        added, removed = _delta(before, after)
        assert {_graph(q) for q in added | removed} <= {PROVENANCE_GRAPH.value, ENTITY_GRAPH.value}
    # erase a claim with a hostile reason: only its claim graph goes, other claim graphs stay
    victim = assertion_id("Bob", "spouse_of", "Carol")
    before = quads(store)
    r = run_cli(store, "erase", victim, "--reason", HOSTILE[2], "--by", HOSTILE[4])
    assert r.rc == 0, r.err
    after = quads(store)
    added, removed = _delta(before, after)
    assert {_graph(q) for q in added} <= {PROVENANCE_GRAPH.value, DOCUMENT_GRAPH.value}
    touched_claims = {_graph(q) for q in removed if _graph(q).startswith(CLAIM_PREFIX)}
    assert touched_claims == {claim_graph(victim).value}
    assert {_graph(q) for q in removed} <= {PROVENANCE_GRAPH.value, ENTITY_GRAPH.value, DOCUMENT_GRAPH.value, claim_graph(victim).value}


@pytest.mark.parametrize("flag", ["--agent", "--source", "--run"])
def test_retract_set_with_hostile_selector_touches_only_provenance(store, flag):
    for name in HOSTILE[12:22]:  # never used as an agent, source or run name in this module
        before = quads(store)
        r = run_cli(store, "retract", flag, name, "--reason", "sweep")
        after = quads(store)
        if r.rc == 2:
            assert_refused(r)
            assert after == before
            continue
        assert r.rc == 0, (name, r.err)
        added, removed = _delta(before, after)
        assert {_graph(q) for q in added | removed} <= {PROVENANCE_GRAPH.value, ENTITY_GRAPH.value}
        # nothing was supported by a run, agent or document with that name: no claim closed
        assert not [q for q in added if q.predicate.value.endswith("believedUntil")], name


def test_export_graph_with_hostile_name_returns_only_that_graph(store):
    before = quads(store)
    for name in HOSTILE[:12] + ["urn:x", "https://w3id.org/semantic-rdf/graph/provenance>"]:
        r = run_cli(store, "export", "--format", "nquads", "--graph", name)
        if r.rc == 2:
            assert_refused(r)
            continue
        assert r.rc == 0, (name, r.err)
        got = list(ox.parse(r.out.encode(), format=ox.RdfFormat.N_QUADS))
        assert all(isinstance(q.graph_name, ox.NamedNode) and q.graph_name.value == name for q in got), name
    assert quads(store) == before


def test_decisions_by_hostile_agent_reads_only(store):
    before = quads(store)
    for name in HOSTILE[:12]:
        r = run_cli(store, "--json", "decisions", "--agent", name)
        if r.rc == 2:
            assert_refused(r)
            continue
        assert r.rc == 0, r.err
        assert json.loads(r.out) == []
    assert quads(store) == before


def test_id_verb_never_opens_the_store(tmp_path):
    root = tmp_path / "never"
    for name in HOSTILE:
        r = run_cli(root, "id", name, "parent_of", "x")
        assert r.rc == 0 and r.out.strip() == assertion_id(name, "parent_of", "x")
    assert not root.exists()


def test_ask_with_hostile_question_writes_nothing_outside_memory(store):
    from semantic_rdf.cli import build_parser

    _, verbs = build_parser()
    assert "ask" in verbs, "the ask verb (issue 5) is not installed"
    before = quads(store)
    for name in HOSTILE[:12]:
        r = run_cli(store, "ask", f"who is the parent of {name}?")
        assert r.rc in (0, 2), (name, r.err)
        if r.rc == 2:
            assert_refused(r)
    added, removed = _delta(before, quads(store))
    assert not removed and {_graph(q) for q in added} <= {PROVENANCE_GRAPH.value}


# ---------------------------------------------------------------- static: no string-built queries

_QUERY_TEXT = re.compile(
    r"\b(SERVICE|SELECT|INSERT|DELETE|WHERE|GRAPH|VALUES|FILTER|ASK|CONSTRUCT|DESCRIBE|PREFIX|BIND|OPTIONAL|DROP|CLEAR|LOAD)\b"
    r"|(?<![(\\])\?[A-Za-z_]\w*|<https?://"
)
_MESSAGE_CALL = re.compile(r"(Error|Exception|Input|Violation|NotFound|InUse|Unavailable|warn|note|print|emit)$")

# (module, function): why the interpolation is safe
ALLOWED = {
    ("ntriples.py", "update"): "DELETE DATA / INSERT DATA around ntriples.sparql_data output",
    ("ntriples.py", "sparql_data"): "N-Triples terms: ntriples.literal/iri (escaped, checked) or str(term) of pyoxigraph terms",
    ("queries.py", "bind"): "the binder: substitutes str(term) of pyoxigraph terms",
    ("temporal.py", "bind_rows"): "multi-row VALUES binder over str(term) of pyoxigraph terms",
    ("shapes.py", "_compile"): "shapes compiler over the packaged shapes/ (no caller text)",
    ("shapes.py", "queries_for"): "one SELECT per compiled packaged-shape check",
    ("shapes.py", "_instance"): "class test over packaged shape terms",
    ("sparql.py", "_data_block"): "terms serialised by pyoxigraph",
    ("sparql.py", "drop"): "term(iri(...)): a validated IRI term",
    ("sparql.py", "_virtuoso_loader"): "isql loader script: a uuid file name and the operator's load dir",
    ("sparql.py", "_check_sql"): "isql load-list check: a uuid hex stem",
    ("sparql.py", "_forget_sql"): "isql load-list cleanup: a uuid hex stem",
    ("sparql.py", "_closure_pattern"): "Virtuoso path rewriter: the query's own variables and str(term) of server terms",
    ("sync.py", "_delete_molecules"): "term(iri(...)): validated IRI terms",
    ("servers.py", "start"): "a constant ASK{} health check URL",
    ("hebbian.py", "step"): "SQL placeholders only ('(a = ? AND b = ?)' repeated)",
    ("sidetables.py", "_ensure_terms"): "SQL placeholders only ('?' repeated)",
    ("memory.py", "facts_touching"): "SQL placeholders only ('?' repeated)",
    ("servers.py", "bulk_dsn"): "an endpoint name (DSN), not a query",
}


def _string_built_queries(root: Path = PKG) -> list[tuple[str, str, int, str]]:
    hits = []
    for f in sorted(root.rglob("*.py")):
        src = f.read_text(encoding="utf-8")
        tree = ast.parse(src)
        parents = {ch: node for node in ast.walk(tree) for ch in ast.iter_child_nodes(node)}

        def func_of(n):
            while n in parents:
                n = parents[n]
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    return n.name
            return "<module>"

        def is_message(n) -> bool:
            p = parents.get(n)
            while isinstance(p, (ast.BinOp, ast.JoinedStr, ast.FormattedValue)):
                p = parents.get(p)
            if isinstance(p, ast.Call):
                fn = p.func
                name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                return bool(_MESSAGE_CALL.search(name))
            return False

        for node in ast.walk(tree):
            kind = None
            if isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.FormattedValue) for v in node.values):
                const = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
                if _QUERY_TEXT.search(const):
                    kind = "f-string"
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "format"
                and isinstance(node.func.value, ast.Constant)
                and isinstance(node.func.value.value, str)
                and _QUERY_TEXT.search(node.func.value.value)
            ):
                kind = "str.format"
            elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
                sides = [s for s in (node.left, node.right) if isinstance(s, ast.Constant) and isinstance(s.value, str)]
                others = [s for s in (node.left, node.right) if not isinstance(s, ast.Constant)]
                if others and any(_QUERY_TEXT.search(s.value) for s in sides):
                    kind = "concatenation"
            if kind and not is_message(node):
                hits.append((str(f.relative_to(root)), func_of(node), node.lineno, kind))
    return hits


def test_no_query_is_built_by_pasting_text():
    hits = _string_built_queries()
    bad = [h for h in hits if (Path(h[0]).name, h[1]) not in ALLOWED]
    assert not bad, "query text built from values outside the allowed binders (use queries.bind): " + "; ".join(
        f"{m}:{line} in {fn} ({k})" for m, fn, line, k in bad
    )


def test_the_static_scan_finds_a_pasted_query(tmp_path):
    # the scanner must catch the patterns it is there for, and not flag error messages
    probe = tmp_path / "probe.py"
    probe.write_text(
        'def q(name):\n    return f"SELECT ?s WHERE {{ ?s ?p \\"{name}\\" }}"\n'
        'def r(name):\n    return "DELETE WHERE { <" + name + "> ?p ?o }"\n'
        'def s(name):\n    return "ASK {{ <{}> ?p ?o }}".format(name)\n'
        'def t(name):\n    raise ValueError(f"{name}: a rule is a CONSTRUCT query")\n'
    )
    kinds = {(fn, k) for m, fn, _, k in _string_built_queries(tmp_path)}
    assert kinds == {("q", "f-string"), ("r", "concatenation"), ("s", "str.format")}
