"""`semantic-rdf demo`, the README's first command: the rule extractor on the bundled corpus, then the default
(statistical) extractor on a Wikipedia-style page, whose resolved facts quote the sentence and the name the pronoun
stands for, and a question answered from them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_demo_shows_both_extractors_and_the_default_ones_evidence(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "-m", "semantic_rdf", "--json", "--store", str(tmp_path / "st"), "demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    rules = {tuple(a["triple"]) for a in out["assertions"]}
    assert ("Ada Lovelace", "born_in", "London") in rules
    assert not any("Achebe" in s for s, _, _ in rules)  # the page is the default extractor's alone
    default = {tuple(a["triple"]): a for a in out["default_extractor"]["assertions"]}
    born = default[("Chinua Achebe", "born_in", "Ogidi")]
    texts = [span[3] for span in born["spans"]]
    assert len(texts) == 2 and texts[0].startswith("He was born in Ogidi") and texts[1] == "Chinua Achebe"
    assert ("Ogidi", "located_in", "Nigeria") in default and ("Chinua Achebe", "country_of_citizenship", "Nigeria") in default
    assert all(a["confidence"] >= 0.6 for a in default.values())
    answer = out["default_extractor"]
    assert answer["allowed"] and "Ogidi" in answer["answer"]
    assert out["validate"]["conforms"]
