"""From references to stored assertions: sources, parsers, normalizers, splitters, extractors, stages,
the loader and the read-ahead."""
