"""From references to stored assertions: run a pipeline and write what it yields.

One extraction run (a prov:Activity associated with the extractor) covers all the references;
each document is stored with its origin and normalised text, and its screened triples are
written in one checked batch. A document that fails is reported and skipped; the rest still land.
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field
from typing import Callable, Iterable

from semantic_rdf.ahead import Mode, ahead
from semantic_rdf.errors import ErasedData, SemanticError
from semantic_rdf.extract import Screened, screen
from semantic_rdf.identity import assertion_id
from semantic_rdf.stages import Pipeline, PipelineResult
from semantic_rdf.store import AssertionStore, Run, WriteReport

__all__ = ["IngestSummary", "load"]

_DOC_CHARS = 4_000_000  # pending document text that forces a write even before `batch_size` triples


@dataclass
class IngestSummary:
    documents: int = 0
    chunks: int = 0
    extracted: int = 0
    new: int = 0
    repeated: int = 0
    unchanged: int = 0
    rejected_schema: int = 0
    below_floor: int = 0
    failed: list[dict] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)  # what a parser cut or replaced (a cap reached, a charset)
    no_assertions: list[str] = field(default_factory=list)  # stored documents that gave no assertion
    unchanged_documents: list[str] = field(default_factory=list)  # stored before, same content, nothing new
    run: str = ""
    ids: list[str] = field(default_factory=list)
    bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["ids"] = sorted(set(self.ids))
        return d

    def text(self, verbose: bool = False) -> str:
        lines = []
        if not self.run and self.unchanged_documents and not self.failed:
            lines.append(f"nothing new: {len(self.unchanged_documents)} document(s) unchanged since they were "
                         "ingested; no run recorded")
        lines += [
            f"documents   {self.documents}   chunks {self.chunks}"
            + (f"   ({len(self.unchanged_documents)} unchanged, skipped)" if self.unchanged_documents else ""),
            f"assertions  {self.new} new, {self.repeated} repeated (new source), {self.unchanged} already recorded",
            f"rejected    {self.rejected_schema} by schema (not one of the 53 predicates), {self.below_floor} below the confidence floor",
            f"run         {self.run or '(none: nothing was written)'}",
        ]
        if self.no_assertions:
            lines.append(f"no facts    {len(self.no_assertions)} document(s) gave no assertion"
                         + ("" if verbose else " (--verbose lists them)"))
            if verbose:
                lines += [f"            {ref}" for ref in self.no_assertions]
        for n in self.notes:
            lines.append(f"note        {n['ref']}: {n['note']}")
        for f in self.failed:
            lines.append(f"failed      {f['ref']}: {f['error']}")
        return "\n".join(lines)


def load(store: AssertionStore, pipeline: Pipeline, refs: Iterable[str], *, floor: float | None = None,
         agent: str | None = None, model: str | None = None,
         progress: Callable[[str, int], None] | None = None,
         on_commit: Callable[[WriteReport], None] | None = None, batch_size: int = 20_000,
         read_ahead: Mode = "auto", allow_erased: bool = False, reread: bool = False) -> IngestSummary:
    """Run `pipeline` over `refs` and write every document and its screened assertions to `store`.

    Documents and their assertions are written in checked batches of about `batch_size` triples (a
    batch pays a fixed cost for its shape checks, so one per small document would dominate; in memory the
    first batches are smaller, an eighth of it doubling, so the store's writes start early): first the
    documents, then their assertions. If a batch is refused, its documents are retried one by one so
    that only the offending document is reported and skipped. The pipeline runs ahead of the store in
    a worker thread or, for a big local input on Linux, a forked child process (`read_ahead`, see
    ahead.py); the store is written from this thread only, in order. A document stored before with the same
    content whose facts all quote it already is skipped (`summary.unchanged_documents`), so an unchanged
    re-ingest writes nothing, not even a run; `reread` reads it again (its facts count as unchanged)."""
    ex = pipeline.extractor
    agent = agent or getattr(ex, "agent", None) or ("no-extractor" if ex is None else type(ex).__name__)
    summary = IngestSummary()
    run: Run | None = None  # begun at the first readable document: an ingest that reads nothing writes nothing
    pending: list[tuple[PipelineResult, Screened]] = []  # read documents awaiting storage
    pending_triples = pending_chars = 0
    # What the extractor found about each pending document's entities (PipelineResult.entity_types and
    # .aliases, made where the document was read: the extractor may run in a forked child), by reference.
    # Reading `ex.entity_types` here instead would miss a child's findings, and `or {}` replaced the
    # extractor's dict, empty when the ingest begins, by a new one: no entity class ever reached the store.
    findings: dict[str, tuple[dict[str, str], dict[str, set[str]]]] = {}
    from semantic_rdf import erasure, layout

    # tombstones win: content whose document an erasure revoked is refused unless the caller allows it
    revoked = set() if allow_erased else erasure.erased_documents(store)

    written: list[WriteReport] = []  # the reports of the current flush: `on_commit` gets them merged, once

    def record(report: WriteReport) -> None:
        summary.new += report.new
        summary.repeated += report.repeated
        summary.unchanged += report.unchanged
        summary.ids += report.ids
        written.append(report)

    refused: set[str] = set()

    def unchanged(result: PipelineResult, kept: Screened) -> bool:
        """Stored before with this very content, and every fact it gives already quotes it: a re-ingest of
        it would write nothing but a new run, so it is skipped (and an ingest of only such is no run)."""
        if reread or not store.has_document(result.doc):  # type: ignore[arg-type]
            return False
        doc = store.document_iri(result.doc).value  # type: ignore[arg-type]
        for t in kept.kept:
            rec = store.get(assertion_id(t.subject, t.predicate, t.object))
            if rec is None or not any(src.doc_iri == doc for src in rec.sources):
                return False
        return True

    def fail(ref: str, exc: SemanticError) -> None:
        summary.failed.append({"ref": ref, "error": " ".join(str(exc).split())})

    def found(refs: Iterable[str]) -> tuple[dict[str, str], dict[str, set[str]]]:
        types: dict[str, str] = {}
        aliases: dict[str, set[str]] = {}
        for ref in refs:
            t, a = findings.get(ref, ({}, {}))
            types.update(t)
            for name, other in a.items():
                aliases.setdefault(name, set()).update(other)
        return types, aliases

    def commit(items: list[tuple[str, list]]) -> None:
        triples = [t for _, kept in items for t in kept]
        if not triples:
            return
        assert run is not None  # begun before anything is pending
        types, aliases = found(ref for ref, _ in items)
        try:
            record(store.assert_triples(triples, run=run, entity_types=types, aliases=aliases))
        except SemanticError:
            for ref, kept in items:
                if ref in refused:
                    continue
                types, aliases = found([ref])
                try:
                    record(store.assert_triples(list(kept), run=run, entity_types=types, aliases=aliases))
                except SemanticError as exc:
                    refused.add(ref)
                    fail(ref, exc)
                    summary.documents -= 1

    def store_documents() -> list[tuple[str, tuple]]:
        """Write the pending documents (one batch, or one by one if it is refused) and count the stored ones."""
        assert run is not None  # begun before anything is pending
        try:
            store.add_documents([r.doc for r, _ in pending if r.doc is not None], run)
            stored = list(pending)
        except SemanticError:
            stored = []
            for r, kept in pending:
                try:
                    store.add_documents([r.doc] if r.doc is not None else [], run)
                    stored.append((r, kept))
                except SemanticError as exc:
                    fail(r.ref, exc)
        for r, kept in stored:
            if not kept.kept:
                summary.no_assertions.append(r.ref)
            summary.rejected_schema += len(kept.out_of_vocabulary)
            summary.below_floor += len(kept.below_floor)
            summary.documents += 1
            summary.chunks += len(r.chunks)
            summary.extracted += len(r.triples)
        return [(r.ref, kept.kept) for r, kept in stored if kept.kept]

    def flush() -> None:
        # Assertions the store does not hold yet go in one batch, repeats of stored ones in another. Each
        # batch is atomic; a big batch of fresh quads takes the bulk loader, which a batch that changes
        # stored records (their count and confidence) cannot.
        nonlocal pending_triples, pending_chars
        if not pending:
            return
        fresh: list[tuple[str, list]] = []
        again: list[tuple[str, list]] = []
        stored: dict[str, bool] = {}  # the same assertion comes from many documents
        for ref, kept in store_documents():
            known = [stored[a] if (a := assertion_id(t.subject, t.predicate, t.object)) in stored
                     else stored.setdefault(a, store.exists(a)) for t in kept]
            fresh.append((ref, [t for t, k in zip(kept, known) if not k]))
            again.append((ref, [t for t, k in zip(kept, known) if k]))
        pending.clear()
        pending_triples = pending_chars = 0
        try:
            commit(fresh)
            commit([(ref, kept) for ref, kept in again if ref not in refused])
            findings.clear()
        finally:  # one call for both batches (a document's new and repeated facts), also after a failure
            if on_commit and written:
                merged = WriteReport()
                for report in written:
                    merged.merge(report)
                written.clear()
                on_commit(merged)

    # Triples that make the next batch, doubling up to batch_size. On disk a batch also pays a journal fsync
    # and a flush, more than starting early gains (an ingest of 1 MB: 0.15 s a batch, 25 % slower ramped).
    limit = batch_size if store.path is not None else max(1, batch_size // 8)
    try:
        with closing(ahead(pipeline, refs, read_ahead)) as results:
            for result in results:
                if not result.ok:
                    fail(result.ref, result.error)  # type: ignore[arg-type]
                elif revoked and layout.doc_sha256(result.doc) in revoked:  # type: ignore[arg-type]
                    fail(result.ref, ErasedData("this content was erased from the store (erase --document); "
                                                "ingest it again only with --allow-erased"))
                else:
                    kept = screen(result.triples, floor)
                    if unchanged(result, kept):
                        summary.unchanged_documents.append(result.ref)
                        continue
                    if run is None:
                        run = store.begin_run("ingestion", agent=agent, model=model, label="ingest")
                        summary.run = run.id
                    for note in result.doc.meta.get("notes") or ():  # type: ignore[union-attr]
                        summary.notes.append({"ref": result.ref, "note": str(note)})
                    pending.append((result, kept))
                    if kept.kept and (result.entity_types or result.aliases):
                        t, a = findings.setdefault(result.ref, ({}, {}))
                        t.update(result.entity_types or {})
                        for name, other in (result.aliases or {}).items():
                            a.setdefault(name, set()).update(other)
                    pending_triples += len(kept.kept)
                    pending_chars += len(result.doc.text)  # type: ignore[union-attr]
                    if pending_triples >= limit or pending_chars >= _DOC_CHARS:
                        flush()
                        limit = min(batch_size, limit * 2)
                if progress:
                    progress(result.ref, summary.documents + len(pending))
        flush()
    finally:
        if run is not None and store.ox is not None:
            if not store.recorded(run):
                summary.run = ""  # nothing was written: the run is not recorded either
            store.end_run(run)
    summary.bytes = pipeline.bytes_in
    summary.seconds = {k: round(v, 4) for k, v in pipeline.timings.items()}
    return summary
