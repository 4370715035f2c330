"""The hyperdimensional memory beside the store: vectors, the gate, paths, reservoir, Hebbian weights,
word vectors, the side tables and the glue that keeps them in step with the store."""
