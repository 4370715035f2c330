"""From references to stored assertions: run a pipeline and write what it yields.

One extraction run (a prov:Activity associated with the extractor) covers all the references;
each document is stored with its origin and normalised text, and its screened triples are
written in one checked batch. A document that fails is reported and skipped; the rest still land.
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field
from typing import Callable, Iterable

from semantic_rdf.rdf import layout
from semantic_rdf.pipeline.ahead import Mode, ahead
from semantic_rdf.core.errors import ErasedData, SemanticError
from semantic_rdf.pipeline.screening import Screened, screen
from semantic_rdf.core.identity import assertion_id
from semantic_rdf.pipeline.stages import Pipeline, PipelineResult
from semantic_rdf.store.assertions import AssertionStore, Run, WriteReport

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
            lines.append(f"nothing new: {len(self.unchanged_documents)} document(s) unchanged since they were ingested; no run recorded")
        lines += [
            f"documents   {self.documents}   chunks {self.chunks}"
            + (f"   ({len(self.unchanged_documents)} unchanged, skipped)" if self.unchanged_documents else ""),
            f"assertions  {self.new} new, {self.repeated} repeated (new source), {self.unchanged} already recorded",
            f"rejected    {self.rejected_schema} by schema (not one of the 53 predicates), {self.below_floor} below the confidence floor",
            f"run         {self.run or '(none: nothing was written)'}",
        ]
        if self.no_assertions:
            lines.append(f"no facts    {len(self.no_assertions)} document(s) gave no assertion" + ("" if verbose else " (--verbose lists them)"))
            if verbose:
                lines += [f"            {ref}" for ref in self.no_assertions]
        for n in self.notes:
            lines.append(f"note        {n['ref']}: {n['note']}")
        for f in self.failed:
            lines.append(f"failed      {f['ref']}: {f['error']}")
        return "\n".join(lines)


def load(
    store: AssertionStore,
    pipeline: Pipeline,
    refs: Iterable[str],
    *,
    floor: float | None = None,
    agent: str | None = None,
    model: str | None = None,
    progress: Callable[[str, int], None] | None = None,
    on_commit: Callable[[WriteReport], None] | None = None,
    batch_size: int = 20_000,
    read_ahead: Mode = "auto",
    allow_erased: bool = False,
    reread: bool = False,
) -> IngestSummary:
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
    ingest = _Ingest(
        store, pipeline, floor=floor, agent=agent, model=model, on_commit=on_commit, batch_size=batch_size, allow_erased=allow_erased, reread=reread
    )
    summary = ingest.summary
    try:
        with closing(ahead(pipeline, refs, read_ahead)) as results:
            for result in results:
                if ingest.take(result) and progress:
                    progress(result.ref, summary.documents + len(ingest.pending))
        ingest.flush()
    finally:
        ingest.end()
    summary.bytes = pipeline.bytes_in
    summary.seconds = {k: round(v, 4) for k, v in pipeline.timings.items()}
    return summary


class _Ingest:
    """One `load`: the documents read and not yet stored, and the summary of what was written."""

    def __init__(
        self,
        store: AssertionStore,
        pipeline: Pipeline,
        *,
        floor: float | None,
        agent: str | None,
        model: str | None,
        on_commit: Callable[[WriteReport], None] | None,
        batch_size: int,
        allow_erased: bool,
        reread: bool,
    ) -> None:
        ex = pipeline.extractor
        self.agent = agent or getattr(ex, "agent", None) or ("no-extractor" if ex is None else type(ex).__name__)
        self.store, self.floor, self.model, self.reread = store, floor, model, reread
        self.on_commit, self.batch_size = on_commit, batch_size
        self.summary = IngestSummary()
        self.run: Run | None = None  # begun at the first readable document: an ingest that reads nothing writes nothing
        self.pending: list[tuple[PipelineResult, Screened]] = []  # read documents awaiting storage
        self.pending_triples = self.pending_chars = 0
        # What the extractor found about each pending document's entities (PipelineResult.entity_types and
        # .aliases, made where the document was read: the extractor may run in a forked child), by reference.
        # Reading `ex.entity_types` here instead would miss a child's findings, and `or {}` replaced the
        # extractor's dict, empty when the ingest begins, by a new one: no entity class ever reached the store.
        self.findings: dict[str, tuple[dict[str, str], dict[str, set[str]]]] = {}
        from semantic_rdf.store import tombstones

        # tombstones win: content whose document an erasure revoked is refused unless the caller allows it
        self.revoked = set() if allow_erased else tombstones.erased_documents(store)
        self.written: list[WriteReport] = []  # the reports of the current flush: `on_commit` gets them merged, once
        self.refused: set[str] = set()
        # Triples that make the next batch, doubling up to batch_size. On disk a batch also pays a journal fsync
        # and a flush, more than starting early gains (docs/pipeline.md, "Speed", has the figures).
        self.limit = batch_size if store.path is not None else max(1, batch_size // 8)

    def take(self, result: PipelineResult) -> bool:
        """Screen one read document and queue it for the store (or report it failed); False if it is skipped
        as unchanged, which is not reported as progress."""
        if not result.ok:
            self.fail(result.ref, result.error)  # type: ignore[arg-type]
        elif self.revoked and layout.doc_sha256(result.doc) in self.revoked:  # type: ignore[arg-type]
            self.fail(result.ref, ErasedData("this content was erased from the store (erase --document); ingest it again only with --allow-erased"))
        else:
            kept = screen(result.triples, self.floor)
            if self.unchanged(result, kept):
                self.summary.unchanged_documents.append(result.ref)
                return False
            self.queue(result, kept)
        return True

    def queue(self, result: PipelineResult, kept: Screened) -> None:
        if self.run is None:
            self.run = self.store.begin_run("ingestion", agent=self.agent, model=self.model, label="ingest")
            self.summary.run = self.run.id
        for note in result.doc.meta.get("notes") or ():  # type: ignore[union-attr]
            self.summary.notes.append({"ref": result.ref, "note": str(note)})
        self.pending.append((result, kept))
        if kept.kept and (result.entity_types or result.aliases):
            t, a = self.findings.setdefault(result.ref, ({}, {}))
            t.update(result.entity_types or {})
            for name, other in (result.aliases or {}).items():
                a.setdefault(name, set()).update(other)
        self.pending_triples += len(kept.kept)
        self.pending_chars += len(result.doc.text)  # type: ignore[union-attr]
        if self.pending_triples >= self.limit or self.pending_chars >= _DOC_CHARS:
            self.flush()
            self.limit = min(self.batch_size, self.limit * 2)

    def unchanged(self, result: PipelineResult, kept: Screened) -> bool:
        """Stored before with this very content, and every fact it gives already quotes it: a re-ingest of
        it would write nothing but a new run, so it is skipped (and an ingest of only such is no run)."""
        store = self.store
        if self.reread or not store.has_document(result.doc):  # type: ignore[arg-type]
            return False
        doc = store.document_iri(result.doc).value  # type: ignore[arg-type]
        for t in kept.kept:
            rec = store.get(assertion_id(t.subject, t.predicate, t.object))
            if rec is None or not any(src.doc_iri == doc for src in rec.sources):
                return False
        return True

    def fail(self, ref: str, exc: SemanticError) -> None:
        self.summary.failed.append({"ref": ref, "error": " ".join(str(exc).split())})

    def flush(self) -> None:
        # Assertions the store does not hold yet go in one batch, repeats of stored ones in another. Each
        # batch is atomic; a big batch of fresh quads takes the bulk loader, which a batch that changes
        # stored records (their count and confidence) cannot.
        if not self.pending:
            return
        fresh, again = self.split_known(self.store_documents())
        self.pending.clear()
        self.pending_triples = self.pending_chars = 0
        try:
            self.commit(fresh)
            self.commit([(ref, kept) for ref, kept in again if ref not in self.refused])
            self.findings.clear()
        finally:  # one call for both batches (a document's new and repeated facts), also after a failure
            if self.on_commit and self.written:
                merged = WriteReport()
                for report in self.written:
                    merged.merge(report)
                self.written.clear()
                self.on_commit(merged)

    def split_known(self, stored: list[tuple[str, tuple]]) -> tuple[list[tuple[str, list]], list[tuple[str, list]]]:
        """Each stored document's facts the store does not hold yet, and those it holds."""
        fresh: list[tuple[str, list]] = []
        again: list[tuple[str, list]] = []
        known_by_id: dict[str, bool] = {}  # the same assertion comes from many documents
        for ref, kept in stored:
            known = [
                known_by_id[a]
                if (a := assertion_id(t.subject, t.predicate, t.object)) in known_by_id
                else known_by_id.setdefault(a, self.store.exists(a))
                for t in kept
            ]
            fresh.append((ref, [t for t, k in zip(kept, known) if not k]))
            again.append((ref, [t for t, k in zip(kept, known) if k]))
        return fresh, again

    def store_documents(self) -> list[tuple[str, tuple]]:
        """Write the pending documents (one batch, or one by one if it is refused) and count the stored ones."""
        assert self.run is not None  # begun before anything is pending
        try:
            self.store.add_documents([r.doc for r, _ in self.pending if r.doc is not None], self.run)
            stored = list(self.pending)
        except SemanticError:
            stored = []
            for r, kept in self.pending:
                try:
                    self.store.add_documents([r.doc] if r.doc is not None else [], self.run)
                    stored.append((r, kept))
                except SemanticError as exc:
                    self.fail(r.ref, exc)
        summary = self.summary
        for r, kept in stored:
            if not kept.kept:
                summary.no_assertions.append(r.ref)
            summary.rejected_schema += len(kept.out_of_vocabulary)
            summary.below_floor += len(kept.below_floor)
            summary.documents += 1
            summary.chunks += len(r.chunks)
            summary.extracted += len(r.triples)
        return [(r.ref, kept.kept) for r, kept in stored if kept.kept]

    def commit(self, items: list[tuple[str, list]]) -> None:
        """Write the facts of `items` in one batch or, if it is refused, document by document, so that only
        a document whose own facts are refused is reported failed (and no longer counted as stored)."""
        triples = [t for _, kept in items for t in kept]
        if not triples:
            return
        assert self.run is not None  # begun before anything is pending
        types, aliases = self.found(ref for ref, _ in items)
        try:
            self.record(self.store.assert_triples(triples, run=self.run, entity_types=types, aliases=aliases))
        except SemanticError:
            for ref, kept in items:
                if ref in self.refused:
                    continue
                types, aliases = self.found([ref])
                try:
                    self.record(self.store.assert_triples(list(kept), run=self.run, entity_types=types, aliases=aliases))
                except SemanticError as exc:
                    self.refused.add(ref)
                    self.fail(ref, exc)
                    self.summary.documents -= 1

    def found(self, refs: Iterable[str]) -> tuple[dict[str, str], dict[str, set[str]]]:
        """The entity classes and other names the extractor found in the documents `refs`, merged."""
        types: dict[str, str] = {}
        aliases: dict[str, set[str]] = {}
        for ref in refs:
            t, a = self.findings.get(ref, ({}, {}))
            types.update(t)
            for name, other in a.items():
                aliases.setdefault(name, set()).update(other)
        return types, aliases

    def record(self, report: WriteReport) -> None:
        summary = self.summary
        summary.new += report.new
        summary.repeated += report.repeated
        summary.unchanged += report.unchanged
        summary.ids += report.ids
        self.written.append(report)

    def end(self) -> None:
        """End the run, if one was begun; one that wrote nothing is not recorded, nor named in the summary."""
        run = self.run
        if run is not None and self.store.is_open:
            if not self.store.recorded(run):
                self.summary.run = ""
            self.store.end_run(run)
