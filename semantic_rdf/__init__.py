"""semantic-rdf: a memory you can check.

Documents go in; assertions come out, each carrying the span it was read from, two clocks
(valid time and record time), who produced it and every decision taken on it, stored as
plain RDF in an embedded Oxigraph store.
"""

from semantic_rdf.errors import (
    SemanticError,
    InvalidInput,
    ShapeViolation,
    NotFound,
    StoreInUse,
)
from semantic_rdf.identity import assertion_id, fold
from semantic_rdf.values import Chunk, Doc, Triple, Validity

__all__ = [
    "Chunk",
    "Doc",
    "InvalidInput",
    "NotFound",
    "SemanticError",
    "ShapeViolation",
    "StoreInUse",
    "Triple",
    "Validity",
    "assertion_id",
    "fold",
]
__version__ = "0.1.0"
