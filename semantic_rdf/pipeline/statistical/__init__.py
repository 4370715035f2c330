"""A statistical extractor trained by the project (see docs/extraction.md).

A CRF (python-crfsuite) finds typed entity mentions, a small rule layer groups a document's
mentions into entities (a surname to the full name seen earlier, a demonym to its country, a
pronoun or a definite nominal to a salient antecedent of compatible type), and one logistic
regression per Wikidata-aligned predicate (scikit-learn at training time, numpy at run time)
scores every entity pair in a sentence. `train.py` rebuilds the weights in `weights/` from the
corpora; the manifest there records their sha256 and the training data's, which name the agent.
"""

__all__ = ["StatisticalExtractor", "load_manifest", "make_extractor"]


def make_extractor(*, floor: float | None = None):
    """The registry's "statistical" extractor (semantic_rdf/core/plugins.py): the shipped weights, kept at `floor`."""
    from semantic_rdf.pipeline.statistical.extractor import StatisticalExtractor

    return StatisticalExtractor(floor)


def __getattr__(name: str):  # lazy: training imports the text helpers without loading the weights
    if name == "load_manifest":
        from semantic_rdf.pipeline.statistical import weights

        return weights.load_manifest
    if name in __all__:
        from semantic_rdf.pipeline.statistical import extractor

        return getattr(extractor, name)
    raise AttributeError(name)
