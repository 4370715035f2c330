"""The five stages (HIP-0526 §3) and the pipeline that composes them.

    Ingester   ingest(ref)      -> list[Doc]     the only stage that touches the world
    Parser     parse(doc)       -> Doc           text made plain, structure into meta
    Normalizer normalize(text)  -> str           one transform; a chain is a composition
    Splitter   split(doc)       -> list[Chunk]   chunks that tile the text
    Extractor  extract(chunk)   -> list[Triple]  the chunk travels with every triple

A pipeline is their composition and nothing else. A missing stage is skipped, except the
ingester. The normaliser runs on the parsed text, and the document a result carries has the
normalised text — the text every chunk offset and every span counts code points in, and the
text the store keeps. A document that fails (a parse error, a bad record, a refused file in
a directory) yields a result with `error` set and no document, so the caller reports it and
goes on with the rest.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Iterable, Iterator, Mapping, Protocol, Sequence, runtime_checkable

from semantic_rdf.pipeline.codespans import mask, regions_for
from semantic_rdf.core.errors import InvalidInput, ParseError, SemanticError, SourceError
from semantic_rdf.core.plugins import Registry
from semantic_rdf.core.values import MAX_NAME, Chunk, Doc, Triple, check_text

__all__ = [
    "Ingester",
    "Parser",
    "Normalizer",
    "Splitter",
    "Extractor",
    "Pipeline",
    "PipelineResult",
    "build_pipeline",
]


@runtime_checkable
class Ingester(Protocol):
    def ingest(self, ref: str) -> list[Doc]: ...


@runtime_checkable
class Parser(Protocol):
    def parse(self, doc: Doc) -> Doc: ...


@runtime_checkable
class Normalizer(Protocol):
    def normalize(self, text: str) -> str: ...


@runtime_checkable
class Splitter(Protocol):
    def split(self, doc: Doc) -> list[Chunk]: ...


@runtime_checkable
class Extractor(Protocol):
    def extract(self, chunk: Chunk) -> list[Triple]: ...


@dataclass(frozen=True, slots=True)
class PipelineResult:
    """One document's way through the pipeline. `doc` is None exactly when `error` is set."""

    doc: Doc | None
    chunks: tuple[Chunk, ...] = ()
    triples: tuple[Triple, ...] = ()
    error: SemanticError | None = None
    ref: str = ""  # the reference (or, inside a directory, the file) this result came from
    # The extractor's findings about this document's entities, carried with the result (it may come from a
    # forked child, ahead.py, whose extractor state the parent never sees): name -> ontology class local
    # name, for the names of its triples, and name -> the entity's other names in the document.
    entity_types: Mapping[str, str] | None = None
    aliases: Mapping[str, tuple[str, ...]] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


_STAGES = ("ingest", "parse", "normalize", "split", "extract")


def _need(obj: object, method: str, role: str) -> None:
    if obj is not None and not callable(getattr(obj, method, None)):
        raise InvalidInput(f"the {role} must have a .{method}() method, got {type(obj).__name__}")


class Pipeline:
    """Ingester, then optional parser, normaliser, splitter and extractor.

    `timings` accumulates seconds spent in each stage over every `run` (for benchmarks and
    progress reports); `bytes_in` the source bytes of the documents processed."""

    def __init__(
        self,
        ingester: Ingester,
        parser: Parser | None = None,
        normalizer: Normalizer | None = None,
        splitter: Splitter | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        if ingester is None:
            raise InvalidInput("a pipeline needs an ingester: there is nothing to read without one")
        _need(ingester, "ingest", "ingester")
        _need(parser, "parse", "parser")
        _need(normalizer, "normalize", "normalizer")
        _need(splitter, "split", "splitter")
        _need(extractor, "extract", "extractor")
        self.ingester = ingester
        self.parser = parser
        self.normalizer = normalizer
        self.splitter = splitter
        self.extractor = extractor
        self.timings: dict[str, float] = dict.fromkeys(_STAGES, 0.0)
        self.bytes_in = 0

    def run(self, ref: str) -> Iterator[PipelineResult]:
        """Every document of `ref`, one result each. A reference that cannot be read at all
        yields one failed result."""
        return self.run_all([ref])

    def run_all(self, refs: Iterable[str], share: tuple[int, int] = (0, 1)) -> Iterator[PipelineResult]:
        """`run` of each reference in turn. `share` (k, n) deals the documents to n workers (`dealt`): this one
        yields the k-th worker's; the others' documents are read but go no further."""
        for _, r in self.dealt(refs, share):
            yield r

    def dealt(self, refs: Iterable[str], share: tuple[int, int] = (0, 1)) -> Iterator[tuple[int, PipelineResult]]:
        """The k-th of n workers' results, each with its position among every worker's, for `share` (k, n).
        Each document, read in order, goes to the worker with the fewest characters dealt so far (the first
        such; a reference that cannot be read counts one): every worker reads every reference and deals
        alike, so each knows its own without a word from the others, and big documents do not pile up on
        one of them, as they may when dealt by count."""
        k, n = share
        if not 0 <= k < n:
            raise InvalidInput(f"share {k} of {n} workers")
        loads = [0] * n
        i = 0
        for ref in refs:
            for item in self._read(ref):
                worker = loads.index(min(loads))
                loads[worker] += 1 + (len(item.text) if isinstance(item, Doc) else 0)
                if worker == k:
                    yield i, item if isinstance(item, PipelineResult) else self.process(item)
                i += 1

    def _read(self, ref: str) -> Iterator[Doc | PipelineResult]:
        """The documents of `ref` (the ingest stage), or the one failed result of a reference that cannot be read."""
        t0 = time.perf_counter()
        try:
            docs = self.ingester.ingest(ref)
            if not docs:
                raise SourceError(f"{ref}: the ingester returned no documents")
        except SemanticError as e:
            self.timings["ingest"] += time.perf_counter() - t0
            yield PipelineResult(None, error=e, ref=ref)
            return
        except RecursionError:
            self.timings["ingest"] += time.perf_counter() - t0
            yield PipelineResult(None, error=ParseError(f"{ref}: nested too deeply"), ref=ref)
            return
        except OSError as e:  # a third-party driver that let an I/O error through
            self.timings["ingest"] += time.perf_counter() - t0
            yield PipelineResult(None, error=SourceError(f"{ref}: {e}"), ref=ref)
            return
        self.timings["ingest"] += time.perf_counter() - t0
        yield from docs

    def process(self, doc: Doc) -> PipelineResult:
        """The stages after ingest, for one document."""
        ref = str(doc.meta.get("ref", doc.source))
        err = doc.meta.get("error")
        if isinstance(err, SemanticError):
            return PipelineResult(None, error=err, ref=ref)
        size = doc.meta.get("size")
        if isinstance(size, int):
            self.bytes_in += size
        tm = self.timings
        stage = "parse"
        try:
            t = time.perf_counter()
            if self.parser is not None:
                doc = self.parser.parse(doc)
            stage = "normalize"
            t1 = time.perf_counter()
            tm["parse"] += t1 - t
            if self.normalizer is not None:
                text = self.normalizer.normalize(doc.text)
                if text != doc.text:
                    doc = doc.with_(text=text)
            if not doc.text.strip():
                raise ParseError(f"{ref}: no text to read (empty document)")
            stage = "split"
            t2 = time.perf_counter()
            tm["normalize"] += t2 - t1
            chunks: tuple[Chunk, ...] = tuple(self.splitter.split(doc)) if self.splitter is not None else ()
            stage = "extract"
            t3 = time.perf_counter()
            tm["split"] += t3 - t2
            triples: list[Triple] = []
            if self.extractor is not None:
                masked = _without_code(doc, chunks)
                for seen in masked:
                    got = self.extractor.extract(seen)
                    # the extractor read the chunks with their code blanked; its triples cite the real ones (a triple
                    # may cite an earlier chunk of the document too: a second selector in it)
                    triples.extend(_real_chunk(t, chunks, masked) for t in got)
            tm["extract"] += time.perf_counter() - t3
        except SemanticError as e:
            return PipelineResult(None, error=e, ref=ref)
        except RecursionError:
            return PipelineResult(None, error=ParseError(f"{ref}: nested too deeply ({stage})"), ref=ref)
        types, aliases = _entity_findings(self.extractor, doc.id, triples)
        return PipelineResult(doc, chunks, tuple(triples), None, ref, types, aliases)


def _real_chunk(t: Triple, chunks: Sequence[Chunk], masked: Sequence[Chunk]) -> Triple:
    """`t` citing the document's chunk where it cites the copy with code blanked that the extractor read (a triple
    may cite an earlier chunk than the one being read: a second selector, docs/extraction.md step 7)."""
    i = t.chunk.index if t.chunk is not None else -1
    if 0 <= i < len(chunks) and masked[i] is not chunks[i] and t.chunk == masked[i]:
        return replace(t, chunk=chunks[i])
    return t


def _without_code(doc: Doc, chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks as extractors see them: code (codespans.py) blanked, offsets unchanged; the same objects
    where a chunk holds no code."""
    regions = regions_for(doc.text, doc.meta.get("parser"))
    if not regions:
        return list(chunks)
    masked = mask(doc.text, regions)
    return [c if masked[c.start : c.end] == c.text else Chunk(c.doc_id, c.index, masked[c.start : c.end], c.start, c.end) for c in chunks]


def _entity_findings(ex: object, doc_id: str, triples: list[Triple]) -> tuple[dict[str, str] | None, dict[str, tuple[str, ...]] | None]:
    """The classes (`ex.entity_types`) and other names (`ex.aliases(doc_id)`) the extractor found for the
    entities its triples name, read right after it read the document."""
    if ex is None or not triples:
        return None, None
    names = {n for t in triples for n in ((t.subject,) if t.datatype else (t.subject, t.object))}
    known = getattr(ex, "entity_types", None)
    types = {n: c for n in names if isinstance(c := known.get(n) if isinstance(known, Mapping) else None, str)}
    found = getattr(ex, "aliases", None)
    aliases: dict[str, tuple[str, ...]] = {}
    if callable(found):
        got = found(doc_id)
        if isinstance(got, Mapping):
            for n, other in got.items():
                if n in names and other:
                    aliases[n] = tuple(sorted(a for a in other if isinstance(a, str)))
    return types or None, aliases or None


def build_pipeline(
    refs: Iterable[str] = (),
    *,
    roots: Iterable[str] | None = None,
    allow_hosts: Iterable[str] = (),
    max_bytes: int | None = None,
    timeout: float | None = None,
    max_redirects: int | None = None,
    include: Iterable[str] = (),
    exclude: Iterable[str] | None = None,
    parser: Parser | None | str = "auto",
    normalizer: Normalizer | None | str = "default",
    splitter: Splitter | None | str = "sentences",
    extractor: Extractor | None | str = None,
    stdin=None,
    stdin_name: str = "stdin",
    registry: Registry | None = None,
) -> Pipeline:
    """The pipeline the command line runs over `refs` (then call ``run_all(refs)``).

    Local roots default to the paths named in `refs` (a glob's fixed leading folder);
    `allow_hosts` trusts host names or addresses/networks that the bounds would refuse;
    `splitter` is a Splitter or a spec ``NAME[:SIZE[:OVERLAP]]`` (see split.py);
    ``parser=None`` / ``normalizer=None`` / ``splitter=None`` skip that stage. The ingest drivers, the
    parsers, a splitter named by its spec and an extractor named by a string come from `registry`
    (semantic_rdf/core/plugins.py; the default one unless given)."""
    from semantic_rdf.core import bounds as _b
    from semantic_rdf.pipeline.sources import Ingest, IngestConfig, default_roots

    refs = tuple(refs)
    b = _b.Bounds.make(
        default_roots(refs) if roots is None else roots,
        allow_hosts,
        max_bytes=_b.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes,
        timeout=_b.DEFAULT_TIMEOUT if timeout is None else timeout,
        max_redirects=_b.DEFAULT_MAX_REDIRECTS if max_redirects is None else max_redirects,
    )
    cfg = IngestConfig(
        bounds=b,
        include=tuple(include),
        exclude=IngestConfig.exclude if exclude is None else tuple(exclude),
        stdin=stdin,
        stdin_name=check_text("the name of standard input", stdin_name, MAX_NAME),
    )
    if parser == "auto":
        from semantic_rdf.pipeline.parse import AutoParser

        parser = AutoParser(registry=registry)
    elif isinstance(parser, str):
        raise InvalidInput(f"unknown parser {parser!r} (use 'auto', None or a Parser)")
    if normalizer == "default":
        from semantic_rdf.pipeline.normalize import DEFAULT

        normalizer = DEFAULT
    elif isinstance(normalizer, str):
        raise InvalidInput(f"unknown normalizer {normalizer!r} (use 'default', None or a Normalizer)")
    split: Splitter | None
    if isinstance(splitter, str):
        from semantic_rdf.pipeline.split import splitter_from_spec

        split = splitter_from_spec(splitter, registry)
    else:
        split = splitter
    extract: Extractor | None
    if isinstance(extractor, str):
        from semantic_rdf.core.plugins import default_registry

        extract = (registry or default_registry()).get("extractor", extractor)()
    else:
        extract = extractor
    return Pipeline(Ingest(cfg, registry), parser, normalizer, split, extract)
