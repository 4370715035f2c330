"""Remote SPARQL: backends and endpoints, push/pull, servers, stores opened by data source name."""
