"""Helpers shared by the time / provenance / reasoning / decision tests (not a test module)."""

from __future__ import annotations

from pathlib import Path

from semantic_rdf.core.values import Chunk, Doc, Triple


def ingest(store, doc_id: str, text: str, claims, agent: str = "rules-extractor"):
    """Store a document and assert (s, p, o, start, end[, score]) claims read from it; returns (ids, run id)."""
    doc = Doc(doc_id, doc_id, text, {"media_type": "text/plain"})
    chunk = Chunk(doc.id, 0, text, 0, len(text))
    triples = []
    for c in claims:
        s, p, o, start, end = c[:5]
        assert text[start:end], (start, end)
        triples.append(Triple(s, p, o, chunk, c[5] if len(c) > 5 else None, start=start, end=end))
    with store.run("ingestion", agent=agent) as run:
        store.add_document(doc, run)
        report = store.assert_triples(triples, run=run)
    return report.ids, run.id


def span(text: str, sentence: str) -> tuple[int, int]:
    i = text.index(sentence)
    return i, i + len(sentence)


def files_containing(root: str | Path, needle: str) -> list[str]:
    """Every file under root whose raw bytes contain needle (UTF-8)."""
    data = needle.encode("utf-8")
    return sorted(str(f) for f in Path(root).rglob("*") if f.is_file() and data in f.read_bytes())
