"""Typed exceptions: every exception semantic-rdf raises on purpose is defined here.

The command line turns any `SemanticError` into a one-line message and exit code 2.

    SemanticError
    ├── InvalidInput (ValueError)        bad argument, document, name or model output; nothing written
    │   ├── ShapeViolation               a write batch failed the SHACL shapes
    │   ├── SourceError                  an ingest reference could not be read
    │   │   └── RefusedByBounds          … or points outside the allowed roots, hosts or schemes
    │   ├── ParseError                   a document could not be parsed
    │   ├── ModelOutputError             a model's output broke the schema or the vocabulary
    │   ├── SharedEvidence               an erasure would blank text surviving assertions quote
    │   ├── ErasedData                   a write would bring back something erased
    │   └── LimitExceeded                a query passed its time, row or memory limit
    ├── NotFound (KeyError)              no assertion, document, run or decision has that id
    ├── StoreInUse                       another process holds the store for writing
    ├── UnknownDriver (LookupError)      no part (store driver, ingest driver, parser, …) of that name
    ├── DriverNotBuiltIn (LookupError)   a known part this install does not carry
    ├── PluginError                      a registered part (a plug-in's entry point) cannot be loaded
    ├── MissingExtra (ImportError)       an optional part is not installed; names its extra
    ├── ModelUnavailable                 the model endpoint failed
    ├── RemoteError                      a remote SPARQL endpoint refused or failed a request
    │   ├── TruncatedResult              … capped the result rows
    │   └── PathTooDeep                  … a stepwise transitive path did not close
    ├── PushMismatch                     after a push the endpoint's count differs
    └── ServerError                      a server binary is missing or did not come up

tests/test_public_api.py holds this tree to the classes below and to the package's other modules (none
defines an exception of its own).
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
    """Nothing is registered under that name: no store driver, ingest driver, parser, splitter or extractor
    (semantic_rdf/core/plugins.py)."""


class DriverNotBuiltIn(SemanticError, LookupError):
    """The name is known (e.g. the vector driver `qdrant`), but this install does not carry an implementation."""


class PluginError(SemanticError):
    """A registered part cannot be loaded: its "module:attribute" (a plug-in package's entry point) fails to
    import or is not callable. The message names the entry point and the failure."""


class SharedEvidence(InvalidInput):
    """An erasure would blank text that surviving assertions quote; `ids` names every assertion that erasing them too
    would take (those quoting the text, and those quoting the text they would lose, and so on): erase them too, or keep it."""

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


class ModelUnavailable(SemanticError):
    """The model endpoint could not be reached, refused the request, or answered with an HTTP error."""


class RemoteError(SemanticError):
    """A remote SPARQL endpoint refused or failed a request (HTTP status and the server's message)."""


class TruncatedResult(RemoteError):
    """The server capped the result rows (Virtuoso ResultSetMaxRows); the answer would be incomplete."""


class PathTooDeep(RemoteError):
    """A transitive path evaluated step by step (for Virtuoso) did not close within the depth bound."""


class PushMismatch(SemanticError):
    """After a push the endpoint does not hold the same number of quads as the store."""


class ServerError(SemanticError):
    """A server binary is missing, or the server did not come up."""
