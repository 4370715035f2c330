"""The pipeline run ahead of the store: a forked child gives the same results as a thread, in order, with
errors, stage timings and counts carried back, and it is reaped however the caller stops."""

from __future__ import annotations

import os
import random
import re
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from semantic_rdf.pipeline import ahead
from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.pipeline.extract import RuleExtractor
from semantic_rdf.pipeline.model_extract import ModelExtractor
from semantic_rdf.pipeline.load import load
from semantic_rdf.pipeline.parse import AutoParser
from semantic_rdf.pipeline.stages import Pipeline, build_pipeline
from semantic_rdf.store.assertions import AssertionStore
from semantic_rdf.core.values import Chunk, Doc, Triple

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2, reason="a child process is used on Linux with two cores or more only"
)

SENTENCES = [
    "Ada Lovelace was born in London.",
    "Alan Turing works at Manchester University.",
    "Grace Hopper lives in Arlington.",
    "Marie Curie is married to Pierre Curie.",
]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    for i in range(12):
        text = " ".join(SENTENCES[(i + k) % 4] for k in range(3))
        (root / ("sub" if i % 3 else ".") / f"doc{i:02d}.txt").write_text(text + "\n", encoding="utf-8")
    (root / "binary.txt").write_bytes(bytes(range(256)) * 4)  # a failed result in the middle
    (root / "notes.md").write_text("# Notes\n\nAda Lovelace works at Analytical Engines.\n", encoding="utf-8")
    return root


def _pipe(root: Path, extractor=None):
    return build_pipeline([str(root)], extractor=extractor if extractor is not None else RuleExtractor())


def _shape(results) -> list[tuple]:
    return [(r.ref, r.doc, r.chunks, r.triples, type(r.error).__name__, str(r.error) if r.error else "") for r in results]


def _children() -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        out |= {int(p) for p in (task / "children").read_text().split()}
    return out


@pytest.fixture(params=[1, 2, 3], ids=lambda n: f"{n}-children")
def children(request) -> int:
    """How many children the pipeline is dealt to (`in_child(children=…)`): documents in turn, results in order."""
    return request.param


def test_a_child_yields_what_a_thread_yields_in_order(corpus, children):
    by_thread = list(ahead.in_thread(_pipe(corpus).run_all([str(corpus)])))
    before = _children()
    by_child = list(ahead.in_child(_pipe(corpus), [str(corpus)], children=children))
    assert _shape(by_child) == _shape(by_thread)
    assert sum(1 for r in by_child if not r.ok) == 1 and len(by_child) == 14
    assert _children() == before  # reaped


def test_timings_bytes_and_extractor_counts_come_back(corpus, children):
    threaded, forked = _pipe(corpus), _pipe(corpus)
    list(ahead.in_thread(threaded.run_all([str(corpus)])))
    list(ahead.in_child(forked, [str(corpus)], children=children))
    assert forked.bytes_in == threaded.bytes_in > 0
    assert forked.extractor.counts == threaded.extractor.counts and forked.extractor.counts["emitted"] > 0
    assert all(forked.timings[k] > 0 for k in ("ingest", "parse", "split", "extract"))


class _Boom(RuleExtractor):
    def extract(self, chunk: Chunk) -> list[Triple]:
        if "Turing" in chunk.text:
            raise ZeroDivisionError("boom in the child")
        return super().extract(chunk)


def test_an_exception_in_the_child_is_raised_in_the_caller(corpus, children):
    got = []
    before = _children()
    with pytest.raises(ZeroDivisionError, match="boom in the child"):
        for r in ahead.in_child(_pipe(corpus, _Boom()), [str(corpus)], children=children):
            got.append(r)
    assert _children() == before


class _Dies(RuleExtractor):
    parent = os.getpid()

    def extract(self, chunk: Chunk) -> list[Triple]:
        if os.getpid() != self.parent and "Grace" in chunk.text:
            os._exit(3)  # the child dies without a word
        return super().extract(chunk)


def test_a_child_that_dies_is_an_error_not_a_short_ingest(corpus, children):
    before = _children()
    with pytest.raises(RuntimeError, match="ended without finishing"):
        list(ahead.in_child(_pipe(corpus, _Dies()), [str(corpus)], children=children))
    assert _children() == before  # the others too


class _Fickle:
    """An ingester whose documents' sizes differ from one process to the next (files that change as they are read)."""

    process_safe = True

    def ingest(self, ref: str) -> list[Doc]:
        sizes = random.Random(os.getpid())
        return [Doc(f"d{k}", f"{ref}/d{k}", "Ada Lovelace wrote notes. " * sizes.randint(1, 50)) for k in range(40)]


def test_children_that_deal_the_documents_differently_are_an_error_not_a_short_ingest():
    before = _children()
    with pytest.raises(RuntimeError, match="disagree"):
        list(ahead.in_child(Pipeline(_Fickle(), extractor=RuleExtractor()), ["mem"], children=2))
    assert _children() == before


def test_stopping_early_kills_and_reaps_the_child(corpus, children):
    before = _children()
    ahead.in_child(_pipe(corpus), [str(corpus)], children=children).close()  # never started: nothing forked
    assert _children() == before
    gen = ahead.in_child(_pipe(corpus), [str(corpus)], depth=1, children=children)
    first = next(gen)
    assert first.ref
    assert len(_children() - before) == children  # still running (or finished but not yet reaped)
    gen.close()
    assert _children() == before


class _Collector(RuleExtractor):
    """Counts, in its `counts` (which come back from a child), the young-generation threshold it ran under."""

    def extract(self, chunk: Chunk) -> list[Triple]:
        import gc

        self.counts[f"gc{gc.get_threshold()[0]}"] += 1
        return super().extract(chunk)


def test_a_child_collects_garbage_less_often_and_the_caller_keeps_its_setting(corpus, children):
    import gc

    before = gc.get_threshold()
    pipe = _pipe(corpus, _Collector())
    list(ahead.in_child(pipe, [str(corpus)], children=children))
    assert {k for k in pipe.extractor.counts if k.startswith("gc")} == {f"gc{ahead.CHILD_GC_YOUNG}"}
    assert gc.get_threshold() == before


class _OddMeta(AutoParser):
    def parse(self, doc):
        doc = super().parse(doc)
        return doc.with_(meta={"hook": lambda: 0}) if doc.id and "doc03" in str(doc.meta.get("ref", "")) else doc


def test_a_result_that_cannot_be_sent_back_is_a_failed_document(corpus, children):
    pipe = build_pipeline([str(corpus)], parser=_OddMeta(), extractor=RuleExtractor())
    results = list(ahead.in_child(pipe, [str(corpus)], children=children))
    bad = [r for r in results if not r.ok and "cannot hand the result over" in str(r.error)]
    assert [r.ref for r in bad] == [r for r in (r.ref for r in results) if "doc03" in r]
    assert sum(1 for r in results if r.ok) == 12


def test_choose(corpus, tmp_path):
    small = _pipe(corpus)
    assert ahead.choose(small, [str(corpus)], "auto") == "thread"  # too little to be worth a child
    assert ahead.choose(small, [str(corpus)], "child") == "child"
    assert ahead.choose(small, [str(corpus)], "thread") == "thread"
    big = tmp_path / "big"
    big.mkdir()
    (big / "a.txt").write_text(" ".join(SENTENCES) * (ahead.CHILD_MIN_BYTES // 100), encoding="utf-8")
    assert ahead.choose(_pipe(big), [str(big)], "auto") == "child"
    assert ahead.choose(_pipe(big), [str(big / "*.txt")], "auto") == "child"

    class Model:
        def complete(self, prompt, schema):
            return "{}"

    modelled = _pipe(big, ModelExtractor(Model()))
    assert ahead.choose(modelled, [str(big)], "auto") == "thread"
    assert "not marked process_safe" in ahead.why_not_child(modelled, [str(big)])
    with pytest.raises(InvalidInput, match="ModelExtractor"):
        ahead.choose(modelled, [str(big)], "child")
    for ref in ("-", "https://example.org/a.txt"):
        assert ahead.why_not_child(_pipe(big), [ref])
    with pytest.raises(InvalidInput, match="read-ahead mode"):
        ahead.choose(small, [str(corpus)], "fork")  # type: ignore[arg-type]


def _masked_dump(store: AssertionStore) -> list[str]:
    text = store.export("nquads").decode()
    text = re.sub(r'"\d{4}-\d\d-\d\dT[0-9:.]+Z"', '"T"', text)
    return sorted(set(re.sub(r"/run/[0-9a-f]+", "/run/X", text).splitlines()))


@pytest.mark.parametrize("on_disk", [False, True])
def test_load_stores_the_same_quads_either_way(corpus, tmp_path, on_disk):
    dumps, summaries = [], []
    for mode in ("thread", "child"):
        store = AssertionStore.open(tmp_path / f"store-{mode}") if on_disk else AssertionStore.memory()
        summary = load(store, _pipe(corpus), [str(corpus)], read_ahead=mode, batch_size=4)  # repeats across batches
        again = load(store, _pipe(corpus), [str(corpus)], read_ahead=mode)  # idempotent either way
        assert again.new == again.repeated == again.documents == 0 and not again.run
        assert len(again.unchanged_documents) == 13  # every readable file (12 texts and notes.md), skipped
        reread = load(store, _pipe(corpus), [str(corpus)], read_ahead=mode, reread=True)
        assert reread.new == reread.repeated == 0 and reread.unchanged == reread.extracted > 0
        dumps.append(_masked_dump(store))
        d = summary.as_dict()
        summaries.append({k: v for k, v in d.items() if k not in ("run", "seconds")})
        assert store.validate().conforms
        store.close()
    assert dumps[0] == dumps[1]
    assert summaries[0] == summaries[1]
    assert summaries[0]["new"] > 0 and summaries[0]["repeated"] > 0 and len(summaries[0]["failed"]) == 1


KILLED_PARENT = r"""
import os, signal, sys
from pathlib import Path
from semantic_rdf.pipeline import ahead
from semantic_rdf.pipeline.extract import RuleExtractor
from semantic_rdf.pipeline.stages import Pipeline, build_pipeline
root = sys.argv[1]
for i in range(3000):  # enough that the child is still at work when its parent dies
    Path(root, f"more{i:04d}.txt").write_text("Ada Lovelace was born in London. Alan Turing works at Acme. " * 3)
gen = ahead.in_child(build_pipeline([root], extractor=RuleExtractor()), [root], depth=1)
next(gen)
kids = set()
for task in Path(f"/proc/{os.getpid()}/task").iterdir():
    kids |= set((task / "children").read_text().split())
running = [k for k in kids if Path(f"/proc/{k}/stat").read_text().split(")")[-1].split()[0] != "Z"]
print(" ".join(running), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_parent_killed_outright_takes_its_child_with_it(corpus):
    import subprocess
    import time

    proc = subprocess.run([sys.executable, "-c", KILLED_PARENT, str(corpus)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    kids = [int(p) for p in proc.stdout.split()]
    assert kids, "the child must still have been running when its parent was killed"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{k}").exists() for k in kids):
        time.sleep(0.05)
    alive = [k for k in kids if Path(f"/proc/{k}").exists() and "Z" not in Path(f"/proc/{k}/stat").read_text().split(")")[-1].split()[:1]]
    assert not alive


def test_results_ahead_are_bounded_by_count_and_by_text():
    def result(chars: int):
        return SimpleNamespace(doc=SimpleNamespace(text="x" * chars))

    q = ahead._Ahead(depth=3, chars=100)
    assert q.put(result(500))  # the first result always gets in, however big
    blocked = []

    def producer() -> None:
        for n in (10, 60, 60, 1, 1, 1):
            blocked.append(n)
            if not q.put(result(n)):
                return

    t = threading.Thread(target=producer)
    t.start()
    time.sleep(0.3)
    assert blocked == [10]  # 500 held: nothing more until it is taken
    it = q.results()
    assert len(next(it).doc.text) == 500
    time.sleep(0.3)
    assert blocked == [10, 60, 60]  # 10 + 60 fit in 100; the second 60 waits
    assert len(next(it).doc.text) == 10 and len(next(it).doc.text) == 60
    time.sleep(0.3)
    assert blocked == [10, 60, 60, 1, 1, 1]  # 60 + 1 + 1 held: three, the count bound
    q.stop.set()
    t.join(5)
    assert not t.is_alive()  # a stopped queue releases a waiting producer


def test_run_all_deals_the_documents_by_size(corpus, tmp_path):
    whole = _shape(_pipe(corpus).run_all([str(corpus)]))
    for n in (1, 2, 3, 5):
        shares = [list(_pipe(corpus).dealt([str(corpus)], (k, n))) for k in range(n)]
        merged = sorted((i, _shape([r])[0]) for share in shares for i, r in share)
        assert [i for i, _ in merged] == list(range(len(whole)))  # each position once, in one share
        assert [x for _, x in merged] == whole  # a failed reference keeps its place too
        assert [_shape(_pipe(corpus).run_all([str(corpus)], (k, n))) for k in range(n)] == [_shape(r for _, r in s) for s in shares]
    # one big document and ten small ones: the big one is a share of its own (by count each would get five
    # small ones, and one of them the big one too: 75,000 characters against 25,000)
    uneven = tmp_path / "uneven"
    uneven.mkdir()
    (uneven / "a.txt").write_text("Ada Lovelace wrote notes. " * 2_000, encoding="utf-8")
    for k in range(10):
        (uneven / f"b{k}.txt").write_text("Grace Hopper wrote code. " * 200, encoding="utf-8")
    shares = [list(_pipe(uneven).dealt([str(uneven)], (k, 2))) for k in range(2)]
    assert [[Path(r.ref).name for _, r in s] for s in shares] == [["a.txt"], [f"b{k}.txt" for k in range(10)]]
    for bad in ((2, 2), (-1, 2), (0, 0)):
        with pytest.raises(InvalidInput, match="share"):
            list(_pipe(corpus).run_all([str(corpus)], bad))
    assert 1 <= ahead.children() <= ahead.MAX_CHILDREN
