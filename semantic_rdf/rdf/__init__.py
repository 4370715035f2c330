"""RDF: the record layout, N-Triples text, the packaged queries and shapes, validation, result formats."""
