"""Store events (semantic_rdf/core/events.py): each kind published to the subscribers of that store object with
the right ids, after the change is durable; unsubscribe; the failure rule; and the static rule that no
module registers anything with another module at import time (no side-effect imports)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from semantic_rdf.lifecycle import erasure, reason, temporal as T
from semantic_rdf.core.events import StoreEvent
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.hdc.memory import Memory, follow
from semantic_rdf.hdc.sidetables import side_path
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Chunk, Doc, Triple

PKG = Path(__file__).resolve().parent.parent / "semantic_rdf"
TEXT = "Ada Lovelace was born in London. Alan Turing was born in Maida Vale."


def _write(store: AssertionStore) -> list[str]:
    doc = Doc("bio.txt", "bio.txt", TEXT, {"media_type": "text/plain"})
    chunk = Chunk(doc.id, 0, TEXT, 0, len(TEXT))
    cut = TEXT.index(" Alan")
    triples = [
        Triple("Ada Lovelace", "born_in", "London", chunk, start=0, end=cut),
        Triple("Alan Turing", "born_in", "Maida Vale", chunk, start=cut + 1, end=len(TEXT)),
    ]
    with store.run("ingestion", agent="test") as run:
        store.add_document(doc, run)
        store.assert_triples(triples, run=run)
    return [assertion_id(t.subject, t.predicate, t.object) for t in triples]


def test_each_kind_reaches_the_subscriber_with_its_ids(tmp_path):
    store = AssertionStore.open(tmp_path / "st")
    seen: list[StoreEvent] = []

    def on_event(ev: StoreEvent) -> None:
        # published after the change is durable: the store already shows it
        if ev.kind == "committed":
            assert all(store.exists(i) for i in ev.ids)
        elif ev.kind == "retracted":
            assert all(T.state(store, i) == "retracted" for i in ev.ids)
        elif ev.kind == "reinstated":
            assert all(T.state(store, i) == "believed" for i in ev.ids)
        elif ev.kind == "erased":
            assert all(store.get(i) is None for i in ev.ids)
        seen.append(ev)

    unsubscribe = store.subscribe(on_event)
    ada, alan = _write(store)
    doc = store.document_iri(Doc("bio.txt", "bio.txt", TEXT, {"media_type": "text/plain"})).value
    assert [e.kind for e in seen] == ["committed"]
    assert seen[0].ids == (ada, alan) and set(seen[0].observed) == {(ada, doc), (alan, doc)}
    from semantic_rdf.core.vocab import entity_iri

    # the entities whose registry rows the write added
    assert set(seen[0].entities or ()) == {entity_iri(n).value for n in ("Ada Lovelace", "London", "Alan Turing", "Maida Vale")}

    ch = T.retract(store, ada, "test: withdrawn")
    assert seen[-1] == StoreEvent("retracted", (ada,), activity=ch.activity)
    T.retract(store, ada, "test: again")  # a no-op records nothing and publishes nothing
    assert len(seen) == 2
    ch = T.reinstate(store, ada, "test: back")
    assert seen[-1] == StoreEvent("reinstated", (ada,), activity=ch.activity)
    ch = erasure.erase(store, alan, "test: erasure")
    assert seen[-1] == StoreEvent("erased", (alan,), activity=ch.activity)
    assert store.compact().quads > 0
    assert seen[-1] == StoreEvent("compacted", path=str(tmp_path / "st"))
    assert store.get(ada) is not None  # the store is open again after compaction

    unsubscribe()
    unsubscribe()  # twice: harmless
    T.retract(store, ada, "test: unheard")
    assert [e.kind for e in seen] == ["committed", "retracted", "reinstated", "erased", "compacted"]
    store.close()


def test_closing_an_on_disk_store_publishes_the_fingerprint_the_next_open_finds(tmp_path):
    from semantic_rdf.store.generation import fingerprint

    store = AssertionStore.open(tmp_path / "st")
    _write(store)
    seen: list[StoreEvent] = []
    store.subscribe(seen.append)
    store.close()
    store.close()  # twice: one event
    assert [e.kind for e in seen] == ["closed"] and seen[0].generation == fingerprint(tmp_path / "st" / "oxigraph")
    again = AssertionStore.open(tmp_path / "st")
    assert again.generation_at_open == seen[0].generation
    again.close()
    ro = AssertionStore.open(tmp_path / "st", read_only=True)
    ro.subscribe(seen.append)
    ro.close()  # a read-only store changed nothing: no event
    assert len(seen) == 1 and ro.generation_at_open is None
    mem = AssertionStore.memory()
    mem.subscribe(seen.append)
    mem.close()
    assert len(seen) == 1


def test_retract_set_derivation_cascades_and_import_publish():
    store = AssertionStore.memory()
    seen: list[StoreEvent] = []
    store.subscribe(seen.append)
    p = store.assert_("Lord Byron", "parent_of", "Ada Lovelace", agent="alice")
    assert seen[-1].kind == "committed" and seen[-1].ids == (p,)
    rep = reason.derive(store)
    inverse = assertion_id("Ada Lovelace", "child_of", "Lord Byron")
    assert inverse in rep.new and seen[-1] == StoreEvent("committed", tuple(rep.new), entities=())  # a derivation names known entities
    n = len(seen)
    ch = T.retract_set(store, reason="test: agent withdrawn", agent="alice")
    assert ch.changed == (p,) and ch.cascaded == (inverse,)
    assert seen[n:] == [StoreEvent("retracted", (p,), (inverse,), activity=ch.activity)]
    assert seen[-1].affected == (p, inverse)
    ch = T.reinstate(store, p, "test: back")
    assert seen[-1] == StoreEvent("reinstated", (p,), ch.cascaded, activity=ch.activity) and inverse in ch.cascaded
    other = AssertionStore.memory()
    got: list[StoreEvent] = []
    other.subscribe(got.append)
    other.import_(store.export("nquads"))
    assert [e.kind for e in got] == ["committed"] and set(got[0].ids) == {p, inverse}


def test_subscribers_are_per_store_object():
    a, b = AssertionStore.memory(), AssertionStore.memory()
    heard: list[str] = []
    a.subscribe(lambda ev: heard.append("a:" + ev.kind))
    b.assert_("Ada", "born_in", "London")
    assert heard == []
    a.assert_("Ada", "born_in", "London")
    assert heard == ["a:committed"]


def test_a_failing_subscriber_neither_undoes_the_change_nor_stops_the_others():
    store = AssertionStore.memory()
    aid = store.assert_("Ada", "born_in", "London")
    after: list[StoreEvent] = []

    def broken(ev: StoreEvent) -> None:
        raise RuntimeError("subscriber broke")

    store.subscribe(broken)
    store.subscribe(after.append)
    with pytest.raises(RuntimeError, match="subscriber broke"):
        T.retract(store, aid, "test: withdrawn")
    assert T.state(store, aid) == "retracted"  # the change stands
    assert [e.kind for e in after] == ["retracted"]  # the next subscriber still ran


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError):
        StoreEvent("deleted", ("x",))  # type: ignore[arg-type]


def test_memory_follows_its_store_until_closed():
    store = AssertionStore.memory()
    mem = Memory.attach(store)
    aid = store.assert_("Ada", "born_in", "London")
    assert aid in mem.side.fact_ids()  # indexed by the `committed` event
    T.retract(store, aid, "test: withdrawn")  # through the store, not the Memory wrapper
    assert aid not in mem.side.fact_ids()
    T.reinstate(store, aid, "test: back")
    assert aid in mem.side.fact_ids()
    mem.close()
    assert store.subscribers() == ()
    T.retract(store, aid, "test: after close")  # no one listening: nothing fails


def test_follow_keeps_the_side_file_in_step_without_a_memory(tmp_path):
    root = tmp_path / "st"
    with Memory.open(root) as mem:
        ada, alan = _write(mem.store)
        assert {ada, alan} <= mem.side.fact_ids()
    store = AssertionStore.open(root)
    stop = follow(store)
    erasure.erase(store, alan, "test: erasure")
    stop()
    store.close()
    with Memory.open(root) as mem:
        assert alan not in mem.side.fact_ids() and ada in mem.side.fact_ids()
    assert side_path(root).exists()


# ------------------------------------------------------------------ static: no import-time registration


def _modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if "statistical" not in p.parts or p.suffix == ".py")


def _imported_modules(tree: ast.Module) -> set[str]:
    """Local names bound to modules of the package by import statements."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("semantic_rdf"):
                    names.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("semantic_rdf"):
            for a in node.names:
                names.add(a.asname or a.name)
    return names


def _module_level(tree: ast.Module):
    """Statements that run at import time: the module body, and bodies of if/try at module level."""
    todo = list(tree.body)
    while todo:
        st = todo.pop()
        yield st
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo += [x for x in getattr(st, field, []) if isinstance(x, ast.stmt)]
        if isinstance(st, ast.ExceptHandler):
            todo += st.body


_MUTATORS = {"append", "extend", "add", "update", "insert", "setdefault", "register", "__setitem__"}


def test_no_module_mutates_another_modules_globals_at_import_time():
    bad = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        others = _imported_modules(tree)
        top_level_calls = {
            st.value.func.id
            for st in _module_level(tree)
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name)
        }
        for st in _module_level(tree):
            for node in ast.walk(st) if not isinstance(st, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) else ():
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
                    target = node.func.value
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in others:
                        bad.append(f"{path.name}:{node.lineno} {target.value.id}.{target.attr}.{node.func.attr}(…)")
                if isinstance(node, (ast.Assign, ast.AugAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        if isinstance(t, (ast.Attribute, ast.Subscript)):
                            base = t.value
                            while isinstance(base, (ast.Attribute, ast.Subscript)):
                                base = base.value
                            if isinstance(base, ast.Name) and base.id in others:
                                bad.append(f"{path.name}:{node.lineno} assigns into {base.id}")
        # a function called at module level that registers with another module (the old memory._register)
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in top_level_calls):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
                    t = node.func.value
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in others | {"erasure"}:
                        bad.append(f"{path.name}:{node.lineno} {fn.name}() run at import registers with {t.value.id}")
    assert bad == []


def test_no_side_effect_imports_and_no_hook_lists():
    bad = []
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            s = line.strip()
            if s.startswith(("import semantic_rdf", "from semantic_rdf")) and "# noqa: F401" in s:
                bad.append(f"{path.name}:{n}: {s}")
        if "ERASE_HOOKS" in text or "COMPACT_HOOKS" in text:
            bad.append(f"{path.name}: hook list")
    assert bad == []
    assert not hasattr(erasure, "ERASE_HOOKS") and not hasattr(erasure, "COMPACT_HOOKS")
    import semantic_rdf.hdc.memory as memory

    assert not hasattr(memory, "_OPEN")
