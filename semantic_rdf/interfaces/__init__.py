"""The store interfaces of HIP-0526 §4 (kv, vector, graph, text) and §7's retrieval over text units."""
