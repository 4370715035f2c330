"""The public API: semantic_rdf.__all__ is exactly the list README.md's Library section documents, every
name imports, `import semantic_rdf` stays cheap (names load on first use), and the package is typed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import semantic_rdf

ROOT = Path(__file__).resolve().parent.parent


def documented() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- public-api:.*?-->(.*?)<!-- /public-api -->", text, re.S)
    assert m, "README.md's Library section lost its public-api block"
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", m.group(1)))


def test_all_matches_the_readme():
    names = documented()
    assert len(names) >= 20
    assert set(semantic_rdf.__all__) == names
    assert len(semantic_rdf.__all__) == len(set(semantic_rdf.__all__))


def test_the_entry_points_a_user_needs_are_public():
    for name in (
        "AssertionStore",
        "Memory",
        "Answerer",
        "build_pipeline",
        "load",
        "Doc",
        "Chunk",
        "Triple",
        "Validity",
        "SemanticError",
        "InvalidInput",
        "NotFound",
    ):
        assert name in semantic_rdf.__all__


def test_every_name_imports_and_is_the_defining_modules_object():
    from semantic_rdf.core import errors, values
    from semantic_rdf.store import assertions as store

    for name in semantic_rdf.__all__:
        assert getattr(semantic_rdf, name) is not None
    ns: dict = {}
    exec("from semantic_rdf import *", ns)  # star-import honours __all__
    assert set(semantic_rdf.__all__) <= set(ns)
    assert semantic_rdf.AssertionStore is store.AssertionStore
    assert semantic_rdf.Doc is values.Doc
    assert issubclass(semantic_rdf.ShapeViolation, semantic_rdf.SemanticError)
    for name in semantic_rdf.__all__:
        obj = getattr(semantic_rdf, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert obj is getattr(errors, name) and issubclass(obj, errors.SemanticError)


def test_unknown_names_raise_attribute_error():
    try:
        semantic_rdf.no_such_thing  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("an unknown attribute was answered")


def test_import_is_cheap():
    # in a fresh interpreter: importing the package (and the CLI's parser) loads none of the heavy libraries
    code = (
        "import sys, semantic_rdf; from semantic_rdf.cli import build_parser; build_parser(); "
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'numpy', 'pyoxigraph', 'rdflib', 'pyshacl', 'numba', 'httpx', 'tokenizers'}); print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    )
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_py_typed_ships():
    assert (Path(semantic_rdf.__file__).parent / "py.typed").is_file()
    # hatch's wheel target takes the whole package directory, so the marker goes into the wheel
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'\[tool\.hatch\.build\.targets\.wheel\]\s*packages = \["semantic_rdf"\]', pyproject)


def test_export_lists_the_stores_formats():
    from semantic_rdf.cli import export
    from semantic_rdf.store.assertions import FORMATS

    assert sorted(export.STORE_FORMATS) == sorted(FORMATS)


def test_reading_a_store_loads_no_shape_checker(tmp_path):
    # the write path's shape checker (rdflib) loads on the first write; opening and reading never need it
    from semantic_rdf.store.assertions import AssertionStore

    store = AssertionStore.open(tmp_path / "s")
    aid = store.assert_("Marie Curie", "born_in", "Warsaw")
    store.close()
    code = (
        "import sys; from semantic_rdf import AssertionStore; "
        f"s = AssertionStore.open({str(tmp_path / 's')!r}, read_only=True); "
        f"print(s.require({aid!r}).object, 'rdflib' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    )
    assert out.stdout.split() == ["Warsaw", "False"], out.stderr


def test_the_error_tree_in_errors_docstring_is_the_class_tree():
    """Each line of the drawn tree names a class, its parent is the nearest less-indented line above it, and
    every exception class of errors.py is drawn."""
    from semantic_rdf.core import errors

    drawn: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in errors.__doc__.splitlines():
        m = re.match(r"^ {4}((?:[│ ] {3})*)(?:[├└]── )?([A-Z][A-Za-z]+)\b", line)
        if not m or not hasattr(errors, m.group(2)):
            continue
        depth = len(m.group(1)) // 4 + (1 if "──" in line else 0)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        drawn[m.group(2)] = stack[-1][1] if stack else None
        stack.append((depth, m.group(2)))
    classes = {n: c for n, c in vars(errors).items() if isinstance(c, type) and issubclass(c, Exception) and c.__module__ == errors.__name__}
    assert set(drawn) == set(classes)
    for name, parent in drawn.items():
        if parent is None:
            assert name == "SemanticError"
        else:
            assert classes[name].__bases__[0] is classes[parent], (name, parent)


def test_no_other_module_defines_a_public_exception():
    import ast

    for path in sorted((ROOT / "semantic_rdf").rglob("*.py")):
        if path.name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                assert not any(b.endswith(("Error", "Exception")) or b in {"SemanticError", "InvalidInput"} for b in bases), (
                    f"{path.relative_to(ROOT)}: class {node.name}({', '.join(bases)})"
                )
