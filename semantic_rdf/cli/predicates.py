"""semantic-rdf predicates — the taxonomy predicates, by category, with their Wikidata alignments."""

NAME = "predicates"
HELP = "list the taxonomy predicates by category, with their Wikidata alignments"


def add_arguments(p) -> None:
    pass


def run(args, ctx) -> int:
    from semantic_rdf.lifecycle.browse import predicates

    preds = predicates()
    lines, category = [], None
    for p in preds:
        if p.category != category:
            category = p.category
            lines.append(f"{category}:")
        wd = ", ".join(f"{pid} ({kind})" for kind, pid in p.wikidata)
        lines.append(f"  {p.name:<26} {p.comment}" + (f"  [Wikidata {wd}]" if wd else ""))
    ctx.emit([p.as_dict() for p in preds], "\n".join(lines))
    return 0
