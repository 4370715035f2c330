"""The assertion store over pyoxigraph, what its tombstones keep out, compaction, user SPARQL in a child."""
