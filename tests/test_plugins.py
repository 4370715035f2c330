"""The one registry of parts (semantic_rdf/core/plugins.py): every built-in part it names loads, a plug-in
package adds parts through entry points without forking (found in a real installed-distribution layout on
sys.path, read by importlib.metadata), a broken plug-in fails alone and by name, and the command line takes
a plug-in's splitter and extractor by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from semantic_rdf.core.errors import DriverNotBuiltIn, InvalidInput, PluginError, UnknownDriver
from semantic_rdf.core.plugins import BUILT_IN, KINDS, Registry, default_registry
from semantic_rdf.core.values import Doc
from semantic_rdf.pipeline.parse import AutoParser
from semantic_rdf.pipeline.split import Sentences, splitter_from_spec
from semantic_rdf.pipeline.stages import build_pipeline

ROOT = Path(__file__).resolve().parents[1]


def test_every_built_in_part_loads_and_is_callable():
    r = Registry(entry_points=False)
    for (kind, name), ref in BUILT_IN.items():
        if ref is None:
            assert not r.has(kind, name)
            with pytest.raises(DriverNotBuiltIn):
                r.get(kind, name)
        else:
            assert callable(r.get(kind, name)), (kind, name)
    assert {k for k, _ in BUILT_IN} == set(KINDS)


def test_unknown_names_and_kinds_are_typed_errors():
    r = Registry(entry_points=False)
    with pytest.raises(UnknownDriver, match="no splitter named 'lines'; known: .*sentences"):
        r.get("splitter", "lines")
    with pytest.raises(InvalidInput, match="kind"):
        r.get("splitters", "sentences")
    with pytest.raises(InvalidInput):
        r.register("parser", "not a media type", lambda d: d)
    with pytest.raises(InvalidInput):
        r.register("splitter", "sentences", lambda: None)  # no silent replacement of a built-in
    mine = Sentences()
    r.register("splitter", "sentences", lambda *n: mine, replace=True)
    assert splitter_from_spec("sentences", r) is mine
    r.register("splitter", "junk", lambda *n: 42)
    with pytest.raises(InvalidInput, match="no split"):
        splitter_from_spec("junk", r)
    assert isinstance(splitter_from_spec("sentences"), Sentences)  # the default registry is untouched
    assert default_registry() is default_registry()


def test_a_registered_name_that_cannot_be_imported_fails_alone_and_by_name():
    r = Registry(entry_points=False)
    r.register("parser", "text/x-missing", "no_such_module_anywhere:parse")
    with pytest.raises(PluginError, match="text/x-missing.*no_such_module_anywhere.*ModuleNotFoundError"):
        r.get("parser", "text/x-missing")
    assert callable(r.get("parser", "text/plain"))


def _plugin_package(root: Path) -> Path:
    """A plug-in as pip installs one: its module and a .dist-info with entry points, on a path of its own."""
    site = root / "site"
    site.mkdir()
    (site / "lineplug.py").write_text(
        textwrap.dedent(
            '''
            from semantic_rdf.core.values import Chunk, Doc, Triple


            class Lines:
                """One chunk per non-empty line."""

                process_safe = True

                def __init__(self, *numbers):
                    self.numbers = numbers

                def split(self, doc):
                    out, at = [], 0
                    for n, line in enumerate(doc.text.split("\\n")):
                        if line.strip():
                            out.append(Chunk(doc_id=doc.id, index=len(out), text=line, start=at, end=at + len(line)))
                        at += len(line) + 1
                    return out


            class Colon:
                """"A: B" lines read as (A, worked_with, B)."""

                process_safe = True

                def extract(self, chunk):
                    if ":" not in chunk.text:
                        return []
                    a, b = (x.strip() for x in chunk.text.split(":", 1))
                    return [Triple(a, "worked_with", b, chunk=chunk, score=0.9)]


            def make_colon():
                return Colon()


            def parse_org(doc):
                return doc
            '''
        )
    )
    info = site / "lineplug-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lineplug\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[semantic_rdf.plugins]\n"
        "splitter:lines = lineplug:Lines\n"
        "extractor:colon = lineplug:make_colon\n"
        "parser:text/x-org = lineplug:parse_org\n"
        "parser:text/x-broken = lineplug_missing:parse\n"
        "splitter:sentences = lineplug:Lines\n"  # a plug-in does not shadow a built-in
        "nokind = lineplug:Lines\n"  # not KIND:NAME: left out
        "[console_scripts]\n"
        "lineplug = lineplug:Lines\n"
    )
    return site


def test_a_plug_in_package_adds_parts_through_entry_points(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(_plugin_package(tmp_path)))
    r = Registry()
    assert "lines" in r.names("splitter") and "colon" in r.names("extractor") and "text/x-org" in r.names("parser")
    assert type(splitter_from_spec("lines", r)).__name__ == "Lines"
    assert isinstance(splitter_from_spec("sentences", r), Sentences)
    with pytest.raises(PluginError, match="entry point 'parser:text/x-broken' of lineplug"):
        r.get("parser", "text/x-broken")
    doc = Doc(id="d1", text="#+TITLE: x", source="n.org", meta={"media_type": "text/x-org"})
    parser = AutoParser(registry=r)
    assert parser.parse(doc) is doc  # the plug-in's parser, by media type
    broken = Doc(id="d2", text="x", source="n.broken", meta={"media_type": "text/x-broken"})
    with pytest.raises(PluginError):
        parser.parse(broken)  # fails for its own media type only
    assert parser.parse(Doc(id="d3", text="plain", source="n.txt", meta={"media_type": "text/plain"})).text == "plain"
    pipe = build_pipeline(splitter="lines", extractor="colon", registry=r, roots=[str(tmp_path)])
    (tmp_path / "notes.txt").write_text("Ada Lovelace: Charles Babbage\n\nno colon here\n")
    (res,) = pipe.run(str(tmp_path / "notes.txt"))
    assert [c.text for c in res.chunks] == ["Ada Lovelace: Charles Babbage", "no colon here"]
    assert [(t.subject, t.predicate, t.object) for t in res.triples] == [("Ada Lovelace", "worked_with", "Charles Babbage")]
    assert Registry(entry_points=False).names("extractor") == ["model", "none", "rules", "statistical"]


def test_the_command_line_takes_a_plug_ins_parts_by_name(tmp_path):
    site = _plugin_package(tmp_path)
    (tmp_path / "notes.txt").write_text("Ada Lovelace: Charles Babbage\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    store = str(tmp_path / "store")

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "semantic_rdf", "--store", store, *args], env=env, capture_output=True, text=True, timeout=120)

    r = cli("ingest", str(tmp_path / "notes.txt"), "--splitter", "lines", "--extractor", "colon", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["new"] == 1
    listed = cli("list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "Charles Babbage" in listed.stdout
    bad = cli("ingest", str(tmp_path / "notes.txt"), "--extractor", "nosuch")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "no extractor named 'nosuch'" in bad.stderr
    assert "colon" in bad.stderr and "statistical" in bad.stderr
    extra = cli("ingest", str(tmp_path / "notes.txt"), "--extractor", "colon", "--floor", "0.5")
    assert extra.returncode == 2 and "--extractor colon does not take --floor" in extra.stderr
