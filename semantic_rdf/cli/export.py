"""semantic-rdf export — write the store as RDF (or its provenance in PROV formats)."""

import sys

from semantic_rdf.core.errors import InvalidInput

NAME = "export"
HELP = "export the store: nquads, trig, jsonld (whole dataset) or one graph; PROV formats for the provenance"

PROV_FORMATS = ("prov-o-trig", "prov-o-turtle", "prov-json", "prov-n", "svg", "png")
# the keys of store.FORMATS, spelled here so that building --help needs neither pyoxigraph nor the store
# (tests/test_public_api.py holds the two in step)
STORE_FORMATS = ("jsonld", "nquads", "ntriples", "trig", "turtle")


def add_arguments(p) -> None:
    p.add_argument("--format", default="nquads", choices=list(STORE_FORMATS) + list(PROV_FORMATS))
    p.add_argument("--graph", default=None, help="provenance | entities | documents | an assertion id (its claim graph) | an IRI")
    p.add_argument("--id", default=None, help="with svg/png/prov-*: only this assertion's provenance")
    p.add_argument("--output", "-o", default=None, help="file to write (default: standard output)")


def _graph(name: str | None):
    import pyoxigraph as ox

    from semantic_rdf.core.vocab import DOCUMENT_GRAPH, ENTITY_GRAPH, PROVENANCE_GRAPH, claim_graph

    graphs = {"provenance": PROVENANCE_GRAPH, "entities": ENTITY_GRAPH, "documents": DOCUMENT_GRAPH}
    if name is None:
        return None
    if name in graphs:
        return graphs[name]
    if len(name) == 16 and all(c in "0123456789abcdef" for c in name):
        return claim_graph(name)
    try:
        return ox.NamedNode(name)
    except ValueError:
        raise InvalidInput(f"--graph: not a graph name or IRI: {name!r}") from None


def run(args, ctx) -> int:
    store = ctx.store(read_only=True)
    if args.format in PROV_FORMATS:
        try:
            from semantic_rdf.lifecycle import provenance
        except ImportError:
            raise InvalidInput(f"format {args.format} needs the provenance module, missing from this install") from None
        data = provenance.export(store, args.format, id=args.id)
    else:
        data = store.export(args.format, _graph(args.graph))
    if args.output:
        try:
            with open(args.output, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise InvalidInput(f"cannot write {args.output!r}: {exc.strerror}") from None
        ctx.note(f"wrote {len(data)} bytes to {args.output}")
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0
