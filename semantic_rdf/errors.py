"""Typed exceptions. Every error the library raises on bad input is one of these.

The command line turns any `SemanticError` into a one-line message and exit code 2.
"""


class SemanticError(Exception):
    """Base class of every error semantic-rdf raises on purpose."""


class InvalidInput(SemanticError, ValueError):
    """An argument, document, name or model output was rejected before anything was written."""


class ShapeViolation(InvalidInput):
    """A write batch failed the SHACL shapes; nothing of the batch was written."""

    def __init__(self, message: str, violations: list[str] | None = None):
        super().__init__(message)
        self.violations = violations or []


class NotFound(SemanticError, KeyError):
    """No assertion, document, run or decision has that id."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the plain message
        return str(self.args[0]) if self.args else "not found"


class StoreInUse(SemanticError):
    """Another process holds the store directory for writing."""


class SourceError(InvalidInput):
    """An ingest reference could not be read, or is outside the allowed bounds."""


class RefusedByBounds(SourceError):
    """An ingest reference points outside the allowed roots, hosts or schemes."""


class ParseError(InvalidInput):
    """A document could not be parsed (binary input, malformed structure)."""


class ModelOutputError(InvalidInput):
    """A model's output was not valid JSON for the schema or fell outside the vocabulary."""


class UnknownDriver(SemanticError, LookupError):
    """No store driver is registered under that name."""


class DriverNotBuiltIn(SemanticError, LookupError):
    """The store driver name is known, but this install does not carry an implementation."""


class SharedEvidence(InvalidInput):
    """An erasure would blank text that surviving assertions quote; `ids` names them (erase them too, or keep it)."""

    def __init__(self, message: str, ids: tuple[str, ...] = ()):
        super().__init__(message)
        self.ids = tuple(ids)


class ErasedData(InvalidInput):
    """A write (import, pull, assert, ingest) would bring back an erased assertion or document; `ids` names them."""

    def __init__(self, message: str, ids: tuple[str, ...] = ()):
        super().__init__(message)
        self.ids = tuple(ids)


class LimitExceeded(InvalidInput):
    """A user's query (or derivation) passed its time, row or memory limit and was stopped; nothing was written."""


class MissingExtra(SemanticError, ImportError):
    """An optional part of semantic-rdf is not installed; the message names the extra that installs it
    (`pip install 'semantic-rdf[NAME]'`)."""

    def __init__(self, what: str, extra: str):
        super().__init__(f"{what} needs the '{extra}' extra: pip install 'semantic-rdf[{extra}]'")
        self.extra = extra
