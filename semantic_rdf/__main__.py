from semantic_rdf.cli import console

console()
