"""semantic-rdf demo — the whole path on a small bundled corpus, in a fresh store.

Ingests the corpus (three short documents written for this project) with the rule extractor, which reads
their explicit statements of many predicates, shows assertions with the exact spans they were read from,
asks answerable and unanswerable questions in each mode, then reads a Wikipedia-style page with the default
extractor (the statistical one `ingest` uses: a pronoun's fact quotes the sentence and the name it stands
for), retracts one claim, erases another, shows a provenance trace and as-of reads before and after.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

NAME = "demo"
HELP = "run the whole path on a bundled corpus in a fresh store (a temporary one unless --store is given)"

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
DEFAULT_READ = CORPUS / "statistical"  # a page for the default extractor (the rules read the files beside it)
DEFAULT_QUESTION = "Where was Chinua Achebe born?"
QUESTIONS = [
    "Where was Marie Curie born?",
    "Who designed the Analytical Engine?",
    "What did Alan Turing crack?",
    "Where was Charles Babbage born?",
    "Who discovered penicillin?",
]


def add_arguments(p) -> None:
    p.add_argument("--keep", action="store_true", help="keep the temporary store and print its path")


def _say(ctx, lines: list[str], text: str = "") -> None:
    lines.append(text)
    if not ctx.json:
        ctx.stdout.write(text + "\n")


def run(args, ctx) -> int:
    from semantic_rdf.pipeline.extract import RuleExtractor
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.pipeline.stages import build_pipeline
    from semantic_rdf.store.assertions import AssertionStore

    explicit = "store" in vars(args) or os.environ.get("SEMANTIC_RDF_STORE")
    root = Path(ctx.store_path) if explicit else Path(tempfile.mkdtemp(prefix="semantic-rdf-demo-"))
    if explicit and (root / "oxigraph").exists():
        from semantic_rdf.core.errors import InvalidInput

        raise InvalidInput(f"demo wants a fresh store, and {str(root)!r} already holds one")
    out: dict = {"store": str(root)}
    lines: list[str] = []
    store = AssertionStore.open(root)
    try:
        _say(ctx, lines, f"== store: {root}")
        refs = [str(p) for p in sorted(CORPUS.iterdir()) if p.is_file()]
        pipeline = build_pipeline(refs, extractor=RuleExtractor())
        summary = load(store, pipeline, refs)
        out["ingest"] = summary.as_dict()
        _say(
            ctx,
            lines,
            f"== ingested {summary.documents} documents: {summary.new} assertions, "
            f"{summary.rejected_schema} rejected by schema, {summary.below_floor} below floor",
        )
        records = [store.require(i) for i in sorted(set(summary.ids))]
        out["assertions"] = []
        for r in records:
            src = r.sources[0]
            span = store.span_text(src)
            out["assertions"].append(
                {
                    "id": r.id,
                    "triple": [r.subject, r.predicate, r.object],
                    "confidence": r.confidence,
                    "source": src.reference,
                    "span": [src.start, src.end],
                    "text": span,
                }
            )
            _say(ctx, lines, f"  {r.id}  {r.subject} —{r.predicate}→ {r.object}  ({r.confidence:.2f})")
            _say(ctx, lines, f"      {Path(src.reference or '').name}[{src.start}:{src.end}] “{span}”")

        out["answers"] = []
        from semantic_rdf.answer.answerer import Answerer
        from semantic_rdf.hdc.memory import Memory

        memory = Memory.attach(store)
        memory.sync()
        answerer = Answerer(memory)
        _say(ctx, lines, "== questions (the HDC gate refuses what no stored fact supports)")
        for mode in ("strict", "balanced", "conversational"):
            for q in QUESTIONS:
                a = answerer.ask(q, mode=mode)
                out["answers"].append({"mode": mode, "question": q, "answer": a.text, "allowed": a.allowed})
                _say(ctx, lines, f"  [{mode}] {q}\n      " + a.text.replace("\n", "\n      "))

        out["default_extractor"] = _default_extractor(ctx, lines, store, memory, answerer)

        from semantic_rdf.lifecycle import erasure, provenance, temporal

        by_triple = {(r.subject, r.predicate): r for r in records}
        target = by_triple.get(("Marie Curie", "moved_to")) or records[0]
        victim = by_triple.get(("Alan Turing", "proposed")) or records[-1]
        before = store.now()
        change = temporal.retract(store, target.id, reason="demo: the move date is disputed", agent="demo-user")
        after = store.now()
        _say(ctx, lines, f"== retracted {target.id} ({target.subject} {target.predicate} {target.object})")
        for label, t in (("before the retraction", before), ("after it", after)):
            claims = temporal.as_of(store, target.subject, at=t)
            _say(ctx, lines, f"  as of {label}: " + "; ".join(f"{c.predicate} {c.object}" for c in claims))
        out["retraction"] = change.as_dict()
        er = erasure.erase(store, victim.id, reason="demo: a source was revoked", agent="demo-user")
        out["erasure"] = er.as_dict()
        _say(ctx, lines, f"== erased {victim.id}: record, claim graph and span text gone, tombstone left (get → {store.get(victim.id)})")
        tr = provenance.trace(store, records[0].id)
        out["trace"] = tr.as_dict() if hasattr(tr, "as_dict") else str(tr)
        _say(ctx, lines, f"== trace {records[0].id}")
        _say(ctx, lines, tr.text())
        rep = store.validate()
        out["validate"] = {"conforms": rep.conforms, "violations": rep.violations}
        _say(ctx, lines, f"== validate: {'conforms' if rep.conforms else rep.violations[:3]}")
        out["stats"] = store.stats()
    finally:
        store.close()
        if not explicit and not args.keep:
            shutil.rmtree(root, ignore_errors=True)
            for side in root.parent.glob(root.name + ".side.sqlite*"):
                side.unlink(missing_ok=True)
    if ctx.json:
        ctx.emit(out)
    return 0


def _default_extractor(ctx, lines: list[str], store, memory, answerer) -> dict:
    """The page under corpus/statistical read as `semantic-rdf ingest` reads it (the statistical extractor), each
    assertion with every span it quotes, then a question about it."""
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.pipeline.stages import build_pipeline

    refs = [str(DEFAULT_READ)]
    summary = load(store, build_pipeline(refs, extractor="statistical"), refs)
    _say(
        ctx,
        lines,
        f"== the default extractor (statistical: trained on Wikipedia text, what `ingest` runs) read {summary.documents} "
        f"page: {summary.new} assertions, {summary.below_floor} below its floor",
    )
    got = []
    for r in [store.require(i) for i in sorted(set(summary.ids))]:
        spans = [(Path(src.reference or "").name, src.start, src.end, store.span_text(src)) for src in r.sources]
        got.append({"id": r.id, "triple": [r.subject, r.predicate, r.object], "confidence": r.confidence, "spans": spans})
        _say(ctx, lines, f"  {r.id}  {r.subject} —{r.predicate}→ {r.object}  ({r.confidence:.2f})")
        for name, start, end, text in spans:
            _say(ctx, lines, f"      {name}[{start}:{end}] “{text}”")
    memory.sync()
    a = answerer.ask(DEFAULT_QUESTION, mode="balanced")
    _say(ctx, lines, f"  [balanced] {DEFAULT_QUESTION}\n      " + a.text.replace("\n", "\n      "))
    return {"assertions": got, "question": DEFAULT_QUESTION, "answer": a.text, "allowed": a.allowed}
