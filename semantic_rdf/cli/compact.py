"""semantic-rdf compact — rebuild the store directory so erased data is in none of its files."""

NAME = "compact"
HELP = "rebuild the store from its live quads (after erase) and swap it in atomically; vacuum side tables"


def add_arguments(p) -> None:
    pass


def run(args, ctx) -> int:
    from semantic_rdf.hdc.memory import follow

    store = ctx.store(create=False)  # refuses a missing store before anything is created
    follow(store)  # the side file beside the store is vacuumed on the `compacted` event
    r = store.compact()
    ctx.emit(r.as_dict(), f"compacted {r.quads} quads: {r.bytes_before} -> {r.bytes_after} bytes")
    return 0
