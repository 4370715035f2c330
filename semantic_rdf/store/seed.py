"""The Hillock seed knowledge: 10 entities and 7 triples, inserted only on request (`semantic-rdf seed`).

They are caller-supplied assertions (HIP-0526 §2.1): no document stands behind them. Four of the seven
overlap common evaluation questions, so benchmarks run with the seed off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for annotations only: the store module is not loaded by importing this one
    from semantic_rdf.store.assertions import AssertionStore

ENTITIES = {  # display name -> class (ontology/semantic.ttl)
    "France": "Country",
    "Paris": "City",
    "London": "City",
    "United Kingdom": "Country",
    "Marie Curie": "Person",
    "Poland": "Country",
    "Radioactivity": "Field",
    "Nobel Prize": "Award",
    "Alan Turing": "Person",
    "Enigma Machine": "Artifact",
}

TRIPLES = [
    ("Paris", "capital_of", "France"),
    ("London", "capital_of", "United Kingdom"),
    ("Marie Curie", "born_in", "Poland"),
    ("Marie Curie", "discovered", "Radioactivity"),
    ("Marie Curie", "won", "Nobel Prize"),
    ("Alan Turing", "born_in", "London"),
    ("Alan Turing", "cracked", "Enigma Machine"),
]


def seed(store: AssertionStore) -> list[str]:
    """Insert the seed into `store` as one statement run; returns the 7 assertion ids."""
    from semantic_rdf.core.values import Triple

    with store.run("statement", agent="hillock-seed", agent_kind="software") as run:
        report = store.assert_triples([Triple(s, p, o) for s, p, o in TRIPLES], run=run, note="hillock seed", entity_types=ENTITIES)
    return report.ids
