"""semantic-rdf entities — the entity registry: names, classes, aliases, and how many assertions use each."""

NAME = "entities"
HELP = "list the entities the store knows, with their classes, aliases and number of assertions"


def add_arguments(p) -> None:
    p.add_argument("--name", metavar="NAME", help="only the entity with this (folded) name")


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle.browse import entities, resolve_entity

    store = ctx.store(read_only=True)
    if args.name is not None:
        resolve_entity(store, args.name)  # a one-line error with suggestions when unknown
    found = entities(store, name=args.name)
    lines = [
        f"{e.label}  [{', '.join(e.types) or 'Thing'}]  {e.uses} assertion(s)" + (f"  aka {', '.join(e.aliases)}" if e.aliases else "") for e in found
    ]
    ctx.emit([e.as_dict() for e in found], "\n".join(lines) or "no entities")
    return 0
