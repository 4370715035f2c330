"""The base install carries what the main job needs; numba (`fast`), prov's picture libraries (`pictures`) and
nltk (`locomo`) are extras. Without one, the rest works, and what needs it is a one-line error naming it."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# a child interpreter in which the named top-level packages cannot be imported, as on a base install
_BLOCK = """
import sys, importlib.abc
class _Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Missing())
"""


def _without(blocked: set[str], code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    return subprocess.run(
        [sys.executable, "-c", _BLOCK.format(blocked=sorted(blocked)) + code], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


def _cli(*argv: str) -> str:
    return f"from semantic_rdf.cli import main; sys.exit(main({list(argv)!r}))"


EXTRAS = {"numba", "llvmlite", "nltk", "networkx", "pydot"}


def test_base_dependencies_leave_the_extras_out():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = {d.split(">")[0].split("[")[0].split("=")[0].strip().lower() for d in project["dependencies"]}
    assert not base & EXTRAS, base & EXTRAS
    assert not any("[graph]" in d for d in project["dependencies"])
    extras = project["optional-dependencies"]
    assert extras["fast"] == ["numba>=0.60"] and any(d.startswith("nltk") for d in extras["locomo"])
    assert "semantic-rdf[fast,pictures,locomo]" in extras["test"]  # the tests exercise every extra


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("extras")
    r = _without(EXTRAS, _cli("demo", "--store", str(d / "st")), d)
    assert r.returncode == 0, r.stderr  # the main job runs without any extra
    return d


def test_ask_and_erase_run_without_the_extras(demo_store):
    r = _without(EXTRAS, _cli("--store", "st", "ask", "Where was Ada Lovelace born?"), demo_store)
    assert r.returncode == 0, r.stderr
    assert "London" in r.stdout
    r = _without(EXTRAS, _cli("--store", "st", "erase", "--entity", "Alan Turing", "--reason", "request"), demo_store)
    assert r.returncode == 0, r.stderr  # erasure's stop-word list comes from retrieval, which no longer needs nltk


def test_a_picture_without_the_pictures_extra_names_it(demo_store):
    from semantic_rdf.core.identity import assertion_id

    aid = assertion_id("Ada Lovelace", "born_in", "London")
    r = _without({"networkx", "pydot"}, _cli("--store", "st", "export", "--format", "svg", "--id", aid), demo_store)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().count("\n") == 0 and "pip install 'semantic-rdf[pictures]'" in r.stderr
    assert r.stdout == ""
    r = _without({"networkx", "pydot"}, _cli("--store", "st", "export", "--format", "prov-json", "--id", aid), demo_store)
    assert r.returncode == 0 and r.stdout.startswith("{")  # PROV itself needs no extra


def test_the_large_scan_falls_back_to_numpy_without_numba(tmp_path):
    code = """
import numpy as np
from semantic_rdf.hdc import gate as G
from semantic_rdf.hdc.vectors import split_words
assert G._compiled_kernel() is None
cfg = G.Config(); rng = np.random.default_rng(1); n = G._KERNEL_MIN_ROWS + 5
packed = rng.integers(0, 256, (n, cfg.packed_bytes), dtype=np.uint8)
e = G.FactIndex(cfg).entities
e.intern([str(i) for i in range(n)], packed, cfg.prefix_dims)
qw, _ = split_words(packed[[12_345]], cfg.prefix_dims)
d = G._min_hamming_blocks(e.pref, qw, e.used, 2)[:n]
print("numba" in sys.modules, int(d[e.rows["12345"]]), int(d.min()), int(np.sort(d)[1]) > 0)
"""
    r = _without({"numba", "llvmlite"}, code, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "0", "0", "True"]  # numpy found the one row equal to the query


def test_stemming_without_nltk_names_the_locomo_extra(tmp_path):
    code = (
        "from semantic_rdf.interfaces import retrieval as R; assert 'the' in R.STOPWORDS\n"
        "try:\n    R.terms('Ada wrote notes')\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
    )
    r = _without({"nltk"}, code, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("MissingExtra") and "semantic-rdf[locomo]" in r.stdout
