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
    "AssertionStore": "semantic_rdf.store",
    "Memory": "semantic_rdf.memory",
    "Answerer": "semantic_rdf.answer",
    "Answer": "semantic_rdf.answer",
    # ingestion: a pipeline of stages, and loading documents through it into a store
    "Pipeline": "semantic_rdf.stages",
    "build_pipeline": "semantic_rdf.stages",
    "load": "semantic_rdf.loader",
    # values
    "Doc": "semantic_rdf.values",
    "Chunk": "semantic_rdf.values",
    "Triple": "semantic_rdf.values",
    "Validity": "semantic_rdf.values",
    # identity
    "assertion_id": "semantic_rdf.identity",
    "fold": "semantic_rdf.identity",
    # errors (semantic_rdf.errors holds the whole tree)
    "SemanticError": "semantic_rdf.errors",
    "InvalidInput": "semantic_rdf.errors",
    "ShapeViolation": "semantic_rdf.errors",
    "NotFound": "semantic_rdf.errors",
    "StoreInUse": "semantic_rdf.errors",
    "SourceError": "semantic_rdf.errors",
    "RefusedByBounds": "semantic_rdf.errors",
    "ParseError": "semantic_rdf.errors",
    "ModelOutputError": "semantic_rdf.errors",
    "SharedEvidence": "semantic_rdf.errors",
    "ErasedData": "semantic_rdf.errors",
    "LimitExceeded": "semantic_rdf.errors",
    "UnknownDriver": "semantic_rdf.errors",
    "DriverNotBuiltIn": "semantic_rdf.errors",
    "MissingExtra": "semantic_rdf.errors",
    "ModelUnavailable": "semantic_rdf.errors",
    "RemoteError": "semantic_rdf.errors",
    "TruncatedResult": "semantic_rdf.errors",
    "PathTooDeep": "semantic_rdf.errors",
    "PushMismatch": "semantic_rdf.errors",
    "ServerError": "semantic_rdf.errors",
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
    from semantic_rdf.answer import Answer, Answerer
    from semantic_rdf.errors import (
        DriverNotBuiltIn, ErasedData, InvalidInput, LimitExceeded, ModelOutputError, NotFound, ParseError,
        RefusedByBounds, SemanticError, ShapeViolation, SharedEvidence, SourceError, StoreInUse, UnknownDriver,
    )
    from semantic_rdf.identity import assertion_id, fold
    from semantic_rdf.loader import load
    from semantic_rdf.memory import Memory
    from semantic_rdf.stages import Pipeline, build_pipeline
    from semantic_rdf.store import AssertionStore
    from semantic_rdf.values import Chunk, Doc, Triple, Validity
