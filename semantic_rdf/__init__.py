"""semantic-rdf: a memory you can check.

Documents go in; assertions come out, each carrying the span it was read from, two clocks
(valid time and record time), who produced it and every decision taken on it, stored as
plain RDF in an embedded Oxigraph store.

The public names below are loaded on first use (PEP 562 module `__getattr__`), so `import semantic_rdf`
and the command line's start-up do not pay for pyoxigraph, numpy, rdflib or pyshacl until a name that
needs them is touched. README.md's Library section lists the same names (tests/test_public_api.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> the module that defines it
_PUBLIC: dict[str, str] = {
    # stores, memory and answers
    "AssertionStore": "semantic_rdf.store.assertions",
    "Memory": "semantic_rdf.hdc.memory",
    "Answerer": "semantic_rdf.answer.answerer",
    "Answer": "semantic_rdf.answer.answerer",
    # ingestion: a pipeline of stages, and loading documents through it into a store
    "Pipeline": "semantic_rdf.pipeline.stages",
    "build_pipeline": "semantic_rdf.pipeline.stages",
    "load": "semantic_rdf.pipeline.load",
    # values
    "Doc": "semantic_rdf.core.values",
    "Chunk": "semantic_rdf.core.values",
    "Triple": "semantic_rdf.core.values",
    "Validity": "semantic_rdf.core.values",
    # identity
    "assertion_id": "semantic_rdf.core.identity",
    "fold": "semantic_rdf.core.identity",
    # errors (semantic_rdf.core.errors holds the whole tree)
    "SemanticError": "semantic_rdf.core.errors",
    "InvalidInput": "semantic_rdf.core.errors",
    "ShapeViolation": "semantic_rdf.core.errors",
    "NotFound": "semantic_rdf.core.errors",
    "StoreInUse": "semantic_rdf.core.errors",
    "SourceError": "semantic_rdf.core.errors",
    "RefusedByBounds": "semantic_rdf.core.errors",
    "ParseError": "semantic_rdf.core.errors",
    "ModelOutputError": "semantic_rdf.core.errors",
    "SharedEvidence": "semantic_rdf.core.errors",
    "ErasedData": "semantic_rdf.core.errors",
    "LimitExceeded": "semantic_rdf.core.errors",
    "UnknownDriver": "semantic_rdf.core.errors",
    "DriverNotBuiltIn": "semantic_rdf.core.errors",
    "MissingExtra": "semantic_rdf.core.errors",
    "ModelUnavailable": "semantic_rdf.core.errors",
    "RemoteError": "semantic_rdf.core.errors",
    "TruncatedResult": "semantic_rdf.core.errors",
    "PathTooDeep": "semantic_rdf.core.errors",
    "PushMismatch": "semantic_rdf.core.errors",
    "ServerError": "semantic_rdf.core.errors",
}

__all__ = sorted(_PUBLIC)
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'semantic_rdf' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


if TYPE_CHECKING:  # type checkers and IDEs see the names eagerly
    from semantic_rdf.answer.answerer import Answer, Answerer
    from semantic_rdf.core.errors import (
        DriverNotBuiltIn,
        ErasedData,
        InvalidInput,
        LimitExceeded,
        ModelOutputError,
        NotFound,
        ParseError,
        RefusedByBounds,
        SemanticError,
        ShapeViolation,
        SharedEvidence,
        SourceError,
        StoreInUse,
        UnknownDriver,
    )
    from semantic_rdf.core.identity import assertion_id, fold
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.hdc.memory import Memory
    from semantic_rdf.pipeline.stages import Pipeline, build_pipeline
    from semantic_rdf.store.assertions import AssertionStore
    from semantic_rdf.core.values import Chunk, Doc, Triple, Validity
