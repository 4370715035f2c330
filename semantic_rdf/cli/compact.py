"""semantic-rdf compact — rebuild the store directory so erased data is in none of its files."""

NAME = "compact"
HELP = "rebuild the store from its live quads (after erase) and swap it in atomically; vacuum side tables"


def add_arguments(p) -> None:
    pass


def run(args, ctx) -> int:
    import semantic_rdf.memory  # noqa: F401  (registers the side-table hooks for erasure and compaction)
    from semantic_rdf import erasure
    from semantic_rdf.cli._common import require_store

    require_store(ctx.store_path)
    r = erasure.compact(ctx.store_path)
    ctx.emit(r.as_dict(), f"compacted {r.quads} quads: {r.bytes_before} -> {r.bytes_after} bytes")
    return 0
