"""From references to stored assertions: run a pipeline and write what it yields.

One extraction run (a prov:Activity associated with the extractor) covers all the references;
each document is stored with its origin and normalised text, and its screened triples are
written in one checked batch. A document that fails is reported and skipped; the rest still land.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from semantic_rdf.errors import SemanticError
from semantic_rdf.extract import screen
from semantic_rdf.identity import assertion_id
from semantic_rdf.stages import Pipeline
from semantic_rdf.store import AssertionStore, WriteReport

__all__ = ["IngestSummary", "load"]


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
    run: str = ""
    ids: list[str] = field(default_factory=list)
    bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["ids"] = sorted(set(self.ids))
        return d

    def text(self) -> str:
        lines = [
            f"documents   {self.documents}   chunks {self.chunks}",
            f"assertions  {self.new} new, {self.repeated} repeated (new source), {self.unchanged} already recorded",
            f"rejected    {self.rejected_schema} by schema (not one of the 53 predicates), {self.below_floor} below the confidence floor",
            f"run         {self.run}",
        ]
        for f in self.failed:
            lines.append(f"failed      {f['ref']}: {f['error']}")
        return "\n".join(lines)


def load(store: AssertionStore, pipeline: Pipeline, refs: Iterable[str], *, floor: float | None = None,
         agent: str | None = None, model: str | None = None,
         progress: Callable[[str, int], None] | None = None,
         on_commit: Callable[[WriteReport], None] | None = None, batch_size: int = 5000) -> IngestSummary:
    """Run `pipeline` over `refs` and write every document and its screened assertions to `store`.

    Documents are stored as they come; their assertions are written in checked batches of about
    `batch_size` triples (a batch pays a fixed cost for its shape checks, so one per small document
    would dominate). If a batch is refused, its documents are retried one by one so that only the
    offending document is reported and skipped."""
    ex = pipeline.extractor
    agent = agent or getattr(ex, "agent", None) or ("no-extractor" if ex is None else type(ex).__name__)
    summary = IngestSummary()
    run = None  # begun at the first readable document: an ingest that reads nothing writes nothing
    pending: list[tuple[str, tuple]] = []  # (ref, kept triples) of stored documents awaiting their assertions
    types = getattr(ex, "entity_types", None) or {}

    def record(report: WriteReport) -> None:
        summary.new += report.new
        summary.repeated += report.repeated
        summary.unchanged += report.unchanged
        summary.ids += report.ids
        if on_commit:
            on_commit(report)

    refused: set[str] = set()

    def commit(items: list[tuple[str, list]]) -> None:
        triples = [t for _, kept in items for t in kept]
        if not triples:
            return
        try:
            record(store.assert_triples(triples, run=run, entity_types=types))
        except SemanticError:
            for ref, kept in items:
                if ref in refused:
                    continue
                try:
                    record(store.assert_triples(list(kept), run=run, entity_types=types))
                except SemanticError as exc:
                    refused.add(ref)
                    summary.failed.append({"ref": ref, "error": " ".join(str(exc).split())})
                    summary.documents -= 1

    def flush() -> None:
        # Assertions the store does not hold yet go in one batch, repeats of stored ones in another. Each
        # batch is atomic; a big batch of fresh quads takes the bulk loader, which a batch that changes
        # stored records (their count and confidence) cannot.
        fresh: list[tuple[str, list]] = []
        again: list[tuple[str, list]] = []
        for ref, kept in pending:
            known = [store.exists(assertion_id(t.subject, t.predicate, t.object)) for t in kept]
            fresh.append((ref, [t for t, k in zip(kept, known) if not k]))
            again.append((ref, [t for t, k in zip(kept, known) if k]))
        commit(fresh)
        commit([(ref, kept) for ref, kept in again if ref not in refused])
        pending.clear()

    try:
        for result in pipeline.run_all(refs):
            if not result.ok:
                summary.failed.append({"ref": result.ref, "error": " ".join(str(result.error).split())})
                if progress:
                    progress(result.ref, summary.documents)
                continue
            if run is None:
                run = store.begin_run("ingestion", agent=agent, model=model, label="ingest")
                summary.run = run.id
            try:
                store.add_document(result.doc, run)
            except SemanticError as exc:
                summary.failed.append({"ref": result.ref, "error": " ".join(str(exc).split())})
                continue
            kept = screen(result.triples, floor)
            summary.rejected_schema += len(kept.out_of_vocabulary)
            summary.below_floor += len(kept.below_floor)
            summary.documents += 1
            summary.chunks += len(result.chunks)
            summary.extracted += len(result.triples)
            if kept.kept:
                pending.append((result.ref, kept.kept))
                if sum(len(k) for _, k in pending) >= batch_size:
                    flush()
            if progress:
                progress(result.ref, summary.documents)
        flush()
    finally:
        if run is not None and store.ox is not None:
            store.end_run(run)
    summary.bytes = pipeline.bytes_in
    summary.seconds = {k: round(v, 4) for k, v in pipeline.timings.items()}
    return summary
