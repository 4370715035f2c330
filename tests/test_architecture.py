"""The architecture's rules, checked on the code (docs/architecture.md):

- the layer contract in pyproject.toml ([tool.importlinter]) holds: no import goes up a layer (import-linter
  reads every import, function-level ones included), and every module of the package is in a layer;
- no module uses another module's private (`_underscore`) names;
- nothing outside `store/` touches the pyoxigraph handle (`AssertionStore.ox`).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "semantic_rdf"


def _layers() -> list[list[str]]:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in conf["contracts"] if c["type"] == "layers"]
    return [[m.strip() for m in layer.split(":")] for layer in contract["layers"]]


def _lint(config: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "lint-imports"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([str(exe), "--config", str(config), "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_layer_contract_is_kept():
    r = _lint(ROOT / "pyproject.toml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 kept, 0 broken" in r.stdout


def test_every_module_of_the_package_is_in_a_layer_folder():
    listed = {m for layer in _layers() for m in layer}
    present = {p.stem for p in PKG.glob("*.py") if p.stem != "__init__"}
    present |= {p.name for p in PKG.iterdir() if (p / "__init__.py").is_file()}
    assert listed == present
    assert {p.name for p in PKG.glob("*.py")} == {"__init__.py", "__main__.py"}  # the rest lives in a layer


def test_the_contract_catches_an_upward_import(tmp_path):
    # the same layers with the bottom one (errors, values, …) moved to the top: every module imports it
    layers = _layers()
    swapped = [layers[-1], *layers[:-1]]
    lines = [
        "[importlinter]",
        "root_package = semantic_rdf",
        "",
        "[importlinter:contract:swapped]",
        "name = swapped",
        "type = layers",
        "containers = semantic_rdf",
        "layers =",
    ]
    lines += ["    " + " : ".join(layer) for layer in swapped]
    cfg = tmp_path / "swapped.ini"
    cfg.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = _lint(cfg)
    assert r.returncode == 1 and "BROKEN" in r.stdout
    assert "semantic_rdf.store.assertions -> semantic_rdf.core.errors" in r.stdout


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_uses(source: str, module: str) -> list[str]:
    """Another module's private names that `source` (the text of `module`) uses: imported by name
    (`from m import _x`), read through an imported module or class (`m._x`), or called on a store
    (`store._x`, outside the store's own module)."""
    tree = ast.parse(source)
    imported: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("semantic_rdf"):
            for a in node.names:
                private = a.name.startswith("_") and not a.name.startswith("__")
                if private and node.module != module:
                    found.append(f"from {node.module} import {a.name}")
                imported[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("semantic_rdf"):
                    imported[a.asname or a.name.split(".")[0]] = a.name
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        if not node.attr.startswith("_") or node.attr.startswith("__"):
            continue
        owner = imported.get(node.value.id)
        if owner is not None and not owner.startswith(module):
            found.append(f"{node.value.id}.{node.attr} ({owner})")
        elif node.value.id == "store" and module != "semantic_rdf.store.assertions":
            found.append(f"store.{node.attr}")
    for node in ast.walk(tree):  # getattr(x, "_name"): the same reach, spelled as a string
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr", "hasattr"):
            arg = node.args[1] if len(node.args) > 1 else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("_") and not arg.value.startswith("__"):
                found.append(f"{node.func.id}(…, {arg.value!r})")
    return found


def test_no_module_uses_another_modules_private_names():
    bad = {}
    for path in sorted(PKG.rglob("*.py")):
        module = _module_name(path)
        uses = private_uses(path.read_text(encoding="utf-8"), module)
        if uses:
            bad[module] = uses
    assert bad == {}


def test_the_private_name_check_finds_each_kind():
    src = (
        "from semantic_rdf.lifecycle import temporal as T\nfrom semantic_rdf.pipeline.extract import _check\n"
        "def f(store):\n    T._close(1)\n    store._has(2)\n    T.retract(3)\n    getattr(store, '_known', None)\n"
    )
    assert private_uses(src, "semantic_rdf.lifecycle.erasure") == [
        "from semantic_rdf.pipeline.extract import _check",
        "T._close (semantic_rdf.lifecycle.temporal)",
        "store._has",
        "getattr(…, '_known')",
    ]


def handle_uses(source: str) -> list[int]:
    """Lines of `source` that read an `.ox` attribute: the pyoxigraph handle of an AssertionStore."""
    return sorted(node.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Attribute) and node.attr == "ox")


def test_nothing_outside_the_store_layer_touches_the_pyoxigraph_handle():
    """The layers above read through the store's own API (quads, query, select, named_graphs, dump, …)."""
    bad = {}
    for path in sorted(PKG.rglob("*.py")):
        if path.relative_to(PKG).parts[0] == "store":
            continue
        lines = handle_uses(path.read_text(encoding="utf-8"))
        if lines:
            bad[_module_name(path)] = lines
    assert bad == {}


def test_the_handle_check_finds_a_use():
    assert handle_uses("def f(store):\n    return store.ox.query('ASK {}')\n") == [2]
    assert handle_uses("def f(store):\n    return store.query('ASK {}')\n") == []
