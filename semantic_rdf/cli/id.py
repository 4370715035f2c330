"""semantic-rdf id S P O — print the FNV-1a identity of a triple."""

from semantic_rdf.cli._common import add_triple_arguments
from semantic_rdf.core.identity import assertion_id, fold

NAME = "id"
HELP = "print the assertion id (FNV-1a of the folded triple) of SUBJECT PREDICATE OBJECT"


def add_arguments(p) -> None:
    add_triple_arguments(p)


def run(args, ctx) -> int:
    i = assertion_id(args.subject, args.predicate, args.object)
    ctx.emit({"id": i, "subject": fold(args.subject), "predicate": fold(args.predicate), "object": fold(args.object)}, i)
    return 0
