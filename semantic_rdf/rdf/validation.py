"""Whole-store SHACL validation in batches of focus nodes: bounded memory, the verdicts of pyshacl over the
whole store (`semantic-rdf validate`, `AssertionStore.validate`).

Every shape in shapes/*.ttl targets nodes of one class (or the subjects of one predicate) and reads only
their own properties along single-IRI paths, plus the rdf:types of the values it asks sh:class of (and the
data's rdfs:subClassOf, of which a store written by this library has none). So a focus node's verdict
depends on its own triples and its values' types alone, and the validated graphs can be read as runs of
whole subjects: each batch is the triples of a run of subjects, checked with the types of the nodes they
point at as context. Reading is Oxigraph's own dump of each graph to a private temporary file on a thread
of its own (it runs without the GIL), consumed while it grows, so the dump and the checking overlap and
nothing holds more than one batch. A subject whose triples come in two runs (a dump that is not grouped by
subject, as an in-memory store's is not, or a node with triples in both graphs) is checked again at the end
with all its triples from index lookups, and only that check counts for it; a batch holding part of a node
can only find too few types on it, never too many, so at worst it is sent on to pyshacl, which is given
every value node's stored types. (An on-disk store dumps each graph grouped by subject.)

Each batch goes through the compiled checker (shapecheck.py, the write path's; held to pyshacl's verdicts
by tests/test_shapes.py), and a batch it finds a problem in goes through pyshacl, which words the report:
the violations are pyshacl's, for the focus nodes of that batch. `pyshacl=True` sends every batch through
pyshacl (the same verdicts, far slower: docs/layout.md). The compiled checker takes sh:targetClass as
direct rdf:type only, so a store whose validated graphs hold rdfs:subClassOf triples is validated with
pyshacl throughout.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import pyoxigraph as ox

from semantic_rdf.rdf import ntriples as N
from semantic_rdf.rdf.shapecheck import shape_check
from semantic_rdf.rdf.shapes import Report, pyshacl_results

__all__ = ["validate_store", "ValidationStats", "BATCH_QUADS"]

BATCH_QUADS = 20_000  # triples a batch holds (a run of whole subjects: one subject's triples are never cut)
_RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
_SUBCLASS = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf")
_TYPE_TEXT = str(_RDF_TYPE)


@dataclass(frozen=True)
class ValidationStats:
    quads: int  # triples validated
    batches: int
    rechecked: int  # batches the compiled checker sent on to pyshacl
    split: int  # subjects whose triples came in more than one run, checked again at the end
    seconds: float


def validate_store(
    st: ox.Store,
    graphs: Sequence[ox.NamedNode],
    *,
    batch: int = BATCH_QUADS,
    pyshacl: bool = False,
    stats: list | None = None,
    progress: Callable[[int], object] | None = None,
) -> Report:
    """Validate the union of `graphs` of `st` (graph names ignored, as pyshacl over the whole store would) in
    batches of about `batch` triples. `stats`, when given, receives one ValidationStats."""
    t0 = time.perf_counter()
    if batch < 1:
        raise ValueError("batch must be at least 1")
    supers = [q for g in graphs for q in st.quads_for_pattern(None, _SUBCLASS, None, g)]
    every = pyshacl or bool(supers)
    context = _Context(st, graphs)
    found: list[tuple[str, str, int]] = []  # (focus node, violation, batch number)
    seen: set[int] = set()
    split: set[str] = set()
    counts = {"quads": 0, "batches": 0, "rechecked": 0}

    def check(triples: list[N.NQ], number: int) -> None:
        counts["batches"] += 1
        counts["quads"] += len(triples)
        if progress is not None:
            progress(len(triples))
        if not every and shape_check().check(triples, context.types, limit=1).conforms:
            return
        counts["rechecked"] += 0 if every else 1
        subjects = {t[0] for t in triples}
        # every value node's stored types, also of nodes the batch describes: their types may sit in another run
        extra = context.type_triples({t[2] for t in triples if t[2][0] != '"'})
        _, results, _ = pyshacl_results(N.to_ox([*triples, *extra]) + supers)
        found.extend((focus, text, number) for focus, text in results if focus in subjects)

    pending: list[N.NQ] = []
    number = 0
    for run in _subject_runs(st, graphs):
        key = hash(run[0][0])
        if key in seen:
            split.add(run[0][0])
        seen.add(key)
        pending.extend(run)
        if len(pending) >= batch:
            check(pending, number)
            pending, number = [], number + 1
    if pending:
        check(pending, number)
        number += 1
    seen.clear()
    if split:  # their partial checks do not count: all their triples, by index lookup, in batches of their own
        found = [f for f in found if f[0] not in split]
        pending = []
        for node in sorted(split):
            pending.extend(context.triples_of(node))
            if len(pending) >= batch:
                check(pending, number)
                pending, number = [], number + 1
        if pending:
            check(pending, number)
    violations = sorted({text for _, text, _ in found})
    if stats is not None:
        stats.append(ValidationStats(counts["quads"], counts["batches"], counts["rechecked"], len(split), time.perf_counter() - t0))
    return Report(not violations, violations)


class _Context:
    """Index lookups into the validated graphs: a node's types (what sh:class asks of the nodes a batch points
    at) and all a node's triples."""

    def __init__(self, st: ox.Store, graphs: Sequence[ox.NamedNode]):
        self.st, self.graphs = st, list(graphs)
        self.types = lru_cache(maxsize=1 << 14)(self._types)

    @staticmethod
    def _term(text: str) -> ox.NamedNode | ox.BlankNode:
        return ox.BlankNode(text[2:]) if text.startswith("_:") else ox.NamedNode(text[1:-1])

    def _types(self, node: str) -> list[str]:
        t = self._term(node)
        return [str(q.object) for g in self.graphs for q in self.st.quads_for_pattern(t, _RDF_TYPE, None, g)]

    def type_triples(self, nodes: set[str]) -> list[N.NQ]:
        return [(n, _TYPE_TEXT, c, "") for n in sorted(nodes) for c in self.types(n)]

    def triples_of(self, node: str) -> list[N.NQ]:
        t = self._term(node)
        return [(node, str(q.predicate), str(q.object), "") for g in self.graphs for q in self.st.quads_for_pattern(t, None, None, g)]


def _subject_runs(st: ox.Store, graphs: Sequence[ox.NamedNode]) -> Iterator[list[N.NQ]]:
    """The triples of each graph, as N-Triples text, in runs of one subject, in dump order."""
    for g in graphs:
        run: list[N.NQ] = []
        for line in _dump_lines(st, g):
            s, p, rest = line.split(" ", 2)
            if run and run[0][0] != s:
                yield run
                run = []
            run.append((s, p, rest[:-2], ""))  # "o ." -> "o": the graph name is ignored, as pyshacl's is
        if run:
            yield run


def _dump_lines(st: ox.Store, graph: ox.NamedNode, size: int = 1 << 20) -> Iterator[str]:
    """The lines of Oxigraph's N-Triples dump of one graph, read from a private temporary file while a thread
    of its own writes it (ntriples.follow_dump)."""
    fd, path = tempfile.mkstemp(prefix="semantic-rdf-validate-", suffix=".nt")
    os.close(fd)
    try:
        tail = b""
        for chunk in N.follow_dump(st, path, size, fmt=ox.RdfFormat.N_TRIPLES, from_graph=graph):
            cut = chunk.rfind(b"\n") + 1
            if cut:
                block, tail = tail + chunk[:cut], chunk[cut:]
                # "\n" only: a literal may hold other line separators (U+2028, \x0c) unescaped
                yield from block.decode("utf-8").split("\n")[:-1]
            else:
                tail += chunk
        if tail.strip():
            yield tail.decode("utf-8").rstrip("\n")
    finally:
        os.unlink(path)
