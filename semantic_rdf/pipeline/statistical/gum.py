"""GUM's coreference chains as a check on the run-time pronoun and nominal resolution.

Each GUM document is read sentence by sentence; its named mentions (proper-noun spans of a person,
organisation or place entity) go to `DocState` with their GUM entity ids, exactly as Re-DocRED's
gold mentions do in training, and every pronoun or nominal that DocState resolves is checked
against the chain GUM puts that word in. Precision is the share of resolutions whose antecedent is
in the word's own chain.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from semantic_rdf.pipeline.statistical.document import DocState
from semantic_rdf.pipeline.statistical.text import Token

__all__ = ["read_gum", "resolution_scores"]

_OPEN = re.compile(r"\((\d+)-([a-z]+)")
_CLOSE = re.compile(r"(\d+)\)")
_TYPES = {"person": "PER", "organization": "ORG", "place": "LOC"}


def read_gum(path: Path):
    """Sentences of one file as (tokens, named spans (a, b, type, id), {token index: set of entity ids})."""
    sents = []
    words: list[str] = []
    upos: list[str] = []
    misc: list[str] = []

    def flush():
        if not words:
            return
        toks, pos = [], 0
        for w in words:
            toks.append(Token(w, pos, pos + len(w)))
            pos += len(w) + 1
        open_: dict[str, list[tuple[int, str]]] = {}
        spans = []
        member: dict[int, set[int]] = {}
        for i, m in enumerate(misc):
            ent = next((x[7:] for x in m.split("|") if x.startswith("Entity=")), "")
            for eid, etype in _OPEN.findall(ent):
                open_.setdefault(eid, []).append((i, etype))
            # a mention opening and closing on one token is written "(id-type-…-…)"
            singles = re.findall(r"\((\d+)-([a-z]+)[^()]*\)", ent)
            closes = _CLOSE.findall(re.sub(r"\((\d+)-[a-z]+[^()]*\)", "", ent))
            for eid, _ in singles:
                closes.append(eid)
            for eid in closes:
                if open_.get(eid):
                    a, etype = open_[eid].pop()
                    for k in range(a, i + 1):
                        member.setdefault(k, set()).add(int(eid))
                    if etype in _TYPES and all(upos[k] == "PROPN" for k in range(a, i + 1)) and words[a][:1].isupper():
                        spans.append((a, i + 1, _TYPES[etype], int(eid)))
        sents.append((toks, sorted(spans), member))

    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                flush()
                words, upos, misc = [], [], []
                continue
            if line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) < 10 or "-" in cols[0] or "." in cols[0]:
                continue
            words.append(cols[1])
            upos.append(cols[3])
            misc.append(cols[9])
    flush()
    return sents


def resolution_scores(gum_dir: Path, genres: tuple[str, ...] = ("bio", "news", "voyage", "interview", "academic", "court")) -> dict:
    """Precision and count of resolved pronouns/nominals per genre, against GUM's chains."""
    res: dict[str, Counter] = {}
    for path in sorted(Path(gum_dir).glob("GUM_*.conllu")):
        genre = path.name.split("_")[1]
        if genre not in genres:
            continue
        c = res.setdefault(genre, Counter())
        state = DocState(definitions=False)  # GUM's own types
        for toks, spans, member in read_gum(path):
            # overlapping named spans: keep the outermost
            kept, last = [], -1
            for a, b, t, eid in spans:
                if a >= last:
                    kept.append((a, b, t, eid))
                    last = b
            mentions = state.add_sentence(toks, kept)
            to_gold = {i: int(k[5:]) for k, i in state.by_key.items() if k.startswith("#gold")}
            for m in mentions:
                if m.kind not in ("pron", "nominal"):
                    continue
                c["resolved"] += 1
                c["correct"] += to_gold.get(m.entity) in member.get(m.b - 1, set())
            c["pronouns"] += sum(1 for t in toks if t.text.lower() in ("he", "she", "his", "her", "him", "it", "its"))
    out = {}
    tot: Counter[str] = Counter()
    for g, c in sorted(res.items()):
        tot.update(c)
        out[g] = {"resolved": c["resolved"], "precision": round(c["correct"] / max(1, c["resolved"]), 3), "pronouns": c["pronouns"]}
    out["all"] = {"resolved": tot["resolved"], "precision": round(tot["correct"] / max(1, tot["resolved"]), 3), "pronouns": tot["pronouns"]}
    return out
