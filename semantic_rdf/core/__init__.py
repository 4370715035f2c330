"""The core: values, identity, IRIs of the vocabulary, limits on input, store events, the error tree."""
