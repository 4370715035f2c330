"""IRIs of the vocabulary and the 53-predicate taxonomy, read from ontology/*.ttl.

Every IRI the library mints is built here, from fixed prefixes and validated pieces:
an untrusted name never becomes part of an IRI verbatim (see `entity_iri`).
"""

from __future__ import annotations

import re
from functools import lru_cache

import pyoxigraph as ox

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.identity import fold, term_id
from semantic_rdf.core.resources import files

BASE = "https://w3id.org/semantic-rdf/"
NS = BASE + "ns#"
PRED = BASE + "p/"
PROV = "http://www.w3.org/ns/prov#"
OA = "http://www.w3.org/ns/oa#"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
OWL = "http://www.w3.org/2002/07/owl#"

PREFIXES = {
    "m": NS,
    "p": PRED,
    "e": BASE + "e/",
    "a": BASE + "a/",
    "g": BASE + "g/",
    "doc": BASE + "doc/",
    "src": BASE + "src/",
    "run": BASE + "run/",
    "agent": BASE + "agent/",
    "rule": BASE + "rule/",
    "graph": BASE + "graph/",
    "prov": PROV,
    "oa": OA,
    "xsd": XSD,
    "rdf": RDF,
    "rdfs": RDFS,
    "skos": SKOS,
}


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


_SHOWN = 80  # characters of a refused value an error message repeats


def iri_node(value: str, what: str = "IRI") -> ox.NamedNode:
    """A caller's IRI (a selector such as `--run https://…`) as a node. pyoxigraph refuses what is not an absolute
    IRI (a space, `<`, a bad percent escape, no scheme) with a plain ValueError; this raises InvalidInput instead,
    on one line, naming `what` and the value (shortened when long)."""
    try:
        return ox.NamedNode(value)
    except (TypeError, ValueError) as exc:
        if isinstance(value, str):
            shown = repr(value[:_SHOWN]) + ("…" if len(value) > _SHOWN else "")
        else:
            shown = f"of type {type(value).__name__}"
        why = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(exc))[:120]  # its message quotes the bad character
        raise InvalidInput(f"{what} {shown} is not a valid IRI ({why})") from None


class M:
    """Terms of the project vocabulary (ontology/semantic.ttl)."""

    Assertion = _n(NS + "Assertion")
    ExtractedAssertion = _n(NS + "ExtractedAssertion")
    SuppliedAssertion = _n(NS + "SuppliedAssertion")
    DerivedAssertion = _n(NS + "DerivedAssertion")
    Tombstone = _n(NS + "Tombstone")
    claimGraph = _n(NS + "claimGraph")
    subject = _n(NS + "subject")
    predicate = _n(NS + "predicate")
    object = _n(NS + "object")
    confidence = _n(NS + "confidence")
    count = _n(NS + "count")
    validFrom = _n(NS + "validFrom")
    validUntil = _n(NS + "validUntil")
    rule = _n(NS + "rule")
    BeliefInterval = _n(NS + "BeliefInterval")
    belief = _n(NS + "belief")
    believedFrom = _n(NS + "believedFrom")
    believedUntil = _n(NS + "believedUntil")
    openedBy = _n(NS + "openedBy")
    closedBy = _n(NS + "closedBy")
    Document = _n(NS + "Document")
    reference = _n(NS + "reference")
    sha256 = _n(NS + "sha256")
    docId = _n(NS + "docId")
    mediaType = _n(NS + "mediaType")
    byteOffset = _n(NS + "byteOffset")
    byteSize = _n(NS + "byteSize")
    modified = _n(NS + "modified")
    httpStatus = _n(NS + "httpStatus")
    fetchedAt = _n(NS + "fetchedAt")
    text = _n(NS + "text")
    chunkIndex = _n(NS + "chunkIndex")
    CallerStatement = _n(NS + "CallerStatement")
    note = _n(NS + "note")
    folded = _n(NS + "folded")
    Thing = _n(NS + "Thing")
    Ingestion = _n(NS + "Ingestion")
    Statement = _n(NS + "Statement")
    Derivation = _n(NS + "Derivation")
    Retraction = _n(NS + "Retraction")
    Reinstatement = _n(NS + "Reinstatement")
    Erasure = _n(NS + "Erasure")
    Decision = _n(NS + "Decision")
    reason = _n(NS + "reason")
    choice = _n(NS + "choice")
    allowed = _n(NS + "allowed")
    because = _n(NS + "because")
    Rule = _n(NS + "Rule")
    Policy = _n(NS + "Policy")
    Extractor = _n(NS + "Extractor")
    model = _n(NS + "model")


class P:
    """PROV-O terms, verbatim."""

    Entity = _n(PROV + "Entity")
    Activity = _n(PROV + "Activity")
    Agent = _n(PROV + "Agent")
    SoftwareAgent = _n(PROV + "SoftwareAgent")
    Person = _n(PROV + "Person")
    Organization = _n(PROV + "Organization")
    Plan = _n(PROV + "Plan")
    Association = _n(PROV + "Association")
    wasGeneratedBy = _n(PROV + "wasGeneratedBy")
    wasDerivedFrom = _n(PROV + "wasDerivedFrom")
    wasAttributedTo = _n(PROV + "wasAttributedTo")
    used = _n(PROV + "used")
    wasAssociatedWith = _n(PROV + "wasAssociatedWith")
    wasInformedBy = _n(PROV + "wasInformedBy")
    startedAtTime = _n(PROV + "startedAtTime")
    endedAtTime = _n(PROV + "endedAtTime")
    generatedAtTime = _n(PROV + "generatedAtTime")
    invalidatedAtTime = _n(PROV + "invalidatedAtTime")
    wasInvalidatedBy = _n(PROV + "wasInvalidatedBy")
    qualifiedAssociation = _n(PROV + "qualifiedAssociation")
    agent = _n(PROV + "agent")
    hadPlan = _n(PROV + "hadPlan")


class OA_:
    SpecificResource = _n(OA + "SpecificResource")
    TextPositionSelector = _n(OA + "TextPositionSelector")
    hasSource = _n(OA + "hasSource")
    hasSelector = _n(OA + "hasSelector")
    start = _n(OA + "start")
    end = _n(OA + "end")


RDF_TYPE = _n(RDF + "type")
RDFS_LABEL = _n(RDFS + "label")
XSD_DECIMAL = _n(XSD + "decimal")
XSD_INTEGER = _n(XSD + "integer")
XSD_NNI = _n(XSD + "nonNegativeInteger")
XSD_DATETIME = _n(XSD + "dateTime")
XSD_BOOLEAN = _n(XSD + "boolean")
XSD_STRING = _n(XSD + "string")

PROVENANCE_GRAPH = _n(BASE + "graph/provenance")
ENTITY_GRAPH = _n(BASE + "graph/entities")
DOCUMENT_GRAPH = _n(BASE + "graph/documents")

_HEX16 = re.compile(r"[0-9a-f]{16}")
_SAFE_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,199}")


def _check_id(id_: str) -> str:
    if not isinstance(id_, str) or not _HEX16.fullmatch(id_):
        raise InvalidInput(f"not an assertion id (16 lower-case hex digits): {id_!r}")
    return id_


# `*_ref` functions give the same IRIs as N-Triples text (`<...>`) for the write path (ntriples.py).
# Each is built only from fixed text and a checked hex id or safe segment, so it needs no IRI parser.


def assertion_ref(id_: str) -> str:
    return f"<{BASE}a/{_check_id(id_)}>"


def claim_graph_ref(id_: str) -> str:
    return f"<{BASE}g/{_check_id(id_)}>"


@lru_cache(maxsize=1 << 16)  # a write asks for a record's node several times (exists, state, sources)
def assertion_iri(id_: str) -> ox.NamedNode:
    return _n(BASE + "a/" + _check_id(id_))


def claim_graph(id_: str) -> ox.NamedNode:
    return _n(BASE + "g/" + _check_id(id_))


def id_of(iri: ox.NamedNode | str) -> str:
    """The FNV-1a id at the end of an assertion or claim-graph IRI."""
    value = iri.value if isinstance(iri, ox.NamedNode) else iri
    return _check_id(value.rsplit("/", 1)[-1])


@lru_cache(maxsize=65536)
def slug(name: str, limit: int = 48) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", fold(name).encode("ascii", "ignore").decode()).strip("-")
    return s[:limit].strip("-") or "x"


@lru_cache(maxsize=65536)
def entity_ref(name: str) -> str:
    """Deterministic, injection-proof IRI of an entity: a readable ASCII slug ([a-z0-9-]) plus the FNV-1a
    id (hex) of its folded name. Nothing of the name but those characters reaches the IRI."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("an entity name is empty")
    return f"<{BASE}e/{slug(name)}-{term_id(name)}>"


@lru_cache(maxsize=65536)
def entity_iri(name: str) -> ox.NamedNode:
    return _n(entity_ref(name)[1:-1])


def segment_ref(kind: str, segment: str) -> str:
    """IRI text under one of the minted kinds (doc, src, run, agent, rule, decision) from a safe segment."""
    if kind not in {"doc", "src", "run", "agent", "rule", "decision", "belief", "policy"}:
        raise ValueError(kind)
    if not _SAFE_SEGMENT.fullmatch(segment):
        raise InvalidInput(f"unsafe {kind} identifier {segment!r}")
    return f"<{BASE}{kind}/{segment}>"


def segment_iri(kind: str, segment: str) -> ox.NamedNode:
    return _n(segment_ref(kind, segment)[1:-1])


def agent_iri(name: str) -> ox.NamedNode:
    """An agent IRI from a free-form name (e.g. 'rules-extractor', 'alice@example.org')."""
    return segment_iri("agent", f"{slug(name)}-{term_id(name)[:8]}")


@lru_cache(maxsize=1)
def taxonomy() -> dict[str, ox.NamedNode]:
    """name -> predicate IRI for the 53 taxonomy predicates, read from ontology/taxonomy.ttl."""
    name_p = _n(NS + "name")
    out: dict[str, ox.NamedNode] = {}
    for path in files("ontology", "*.ttl"):
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            if t.predicate == name_p:
                out[t.object.value] = t.subject  # type: ignore[assignment]
    return out


@lru_cache(maxsize=1)
def entity_classes() -> frozenset[str]:
    """The local names of the entity classes of ontology/semantic.ttl: m:Thing and every class below it. Only
    these type an entity: a caller's "Decision" or "Run" would make it one of the store's own records."""
    sub = RDFS + "subClassOf"
    below: dict[str, set[str]] = {}
    for path in files("ontology", "semantic.ttl"):
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            if t.predicate.value == sub and isinstance(t.object, ox.NamedNode):
                below.setdefault(t.object.value, set()).add(t.subject.value)
    found, todo = set(), [NS + "Thing"]
    while todo:
        c = todo.pop()
        if c not in found:
            found.add(c)
            todo.extend(below.get(c, ()))
    return frozenset(c[len(NS) :] for c in found if c.startswith(NS))


@lru_cache(maxsize=1)
def functional_predicates() -> frozenset[str]:
    """The names of the taxonomy predicates the ontology declares owl:FunctionalProperty: one object per subject
    in the world (born_in, died_in, …). The answer path and `validate` report disagreeing facts of these as
    conflicts (lifecycle/conflicts.py); the statistical extractor keeps one object per subject of them in a
    document."""
    out = set()
    for path in files("ontology", "*.ttl"):
        for t in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            if t.predicate.value == RDF + "type" and t.object.value == OWL + "FunctionalProperty":
                out.add(predicate_name(t.subject))  # type: ignore[arg-type]
    return frozenset(out)


@lru_cache(maxsize=1)
def predicate_names() -> frozenset[str]:
    return frozenset(taxonomy())


@lru_cache(maxsize=4096)
def predicate_iri(name: str) -> ox.NamedNode:
    """The IRI of a taxonomy predicate; the name is folded first. Unknown names raise InvalidInput."""
    key = fold(name)
    tax = taxonomy()
    if key not in tax:
        raise InvalidInput(
            f"predicate {name!r} is not one of the {len(tax)} taxonomy predicates{_suggest(key, tax)} (`semantic-rdf predicates` lists them)"
        )
    return tax[key]


def _suggest(key: str, tax: dict[str, ox.NamedNode]) -> str:
    """ "; did you mean born_in?" for 'born in', 'born-in', 'bornin', 'borne_in'…, or ""."""
    spelled = re.sub(r"[\s\-]+", "_", key)
    if spelled in tax:
        return f"; did you mean {spelled}?"
    import difflib  # here: only a misspelt predicate needs it, and every verb's start-up imports this module

    close = difflib.get_close_matches(spelled, list(tax), n=3, cutoff=0.7)
    return f"; did you mean {' or '.join(close)}?" if close else ""


@lru_cache(maxsize=4096)
def predicate_ref(name: str) -> str:
    return str(predicate_iri(name))


def predicate_name(iri: ox.NamedNode) -> str:
    return iri.value[len(PRED) :] if iri.value.startswith(PRED) else iri.value
