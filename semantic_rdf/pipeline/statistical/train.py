"""Rebuild the statistical extractor's weights from the corpora, reproducibly.

    python -m semantic_rdf.pipeline.statistical.train --data ../shared/data/realtext --out semantic_rdf/pipeline/statistical/weights

Re-DocRED dev documents 0-399 (file order) fit the entity tagger (a CRF, python-crfsuite) and the
relation classifiers (one logistic regression per aligned Wikidata property, scikit-learn). The
calibration (Platt scaling: a logistic curve of correctness on the classifiers' log-odds) and the
default floor (the lowest calibrated confidence at which precision is at least --target-precision)
come from out-of-fold facts: models fitted on 0-299 read 300-399, models fitted on 100-399 read 0-99.
With --no-crossfit, --fit documents (0-299) fit and --tune documents (300-399) calibrate.
Documents 400-499 are never read.
Fixed seeds and single-threaded solvers: the same data gives the same weights. The manifest
records the sha256 of each weight file, of the training data and of the code that made them (`source_sha256`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from semantic_rdf.pipeline.statistical.alignment import alignment
from semantic_rdf.pipeline.statistical.cross import CrossContext, cross_features, cross_pairs, together_in
from semantic_rdf.pipeline.statistical.document import DocState
from semantic_rdf.pipeline.statistical.mentions import SentenceMemo
from semantic_rdf.pipeline.statistical.pairs import candidate_pairs
from semantic_rdf.pipeline.statistical.tagging import ner_features
from semantic_rdf.pipeline.statistical.text import GoldDoc, Token, load_redocred, tokenize
from semantic_rdf.pipeline.statistical.towns import load_towns, town_pairs

REDOCRED = "redocred/dev_revised.json"
SEED = 17
TOWN = "t:"  # calibration key prefix of a town's located_in its country (calibrate)

# The code that decides what training writes: features, tokens, lexicons, sentence cuts, the alignment, and the
# extraction the calibration is fitted on. Weights made before a change to any of it are weights the training
# command no longer rebuilds (their calibration was fitted on facts the extractor no longer gives), so the
# manifest records this hash and a test compares it with the code's.
SOURCE_FILES = (
    "core/identity.py",
    "pipeline/dates.py",
    "pipeline/extract.py",
    "pipeline/gazetteer.py",
    "pipeline/screening.py",
    "pipeline/statistical/alignment.py",
    "pipeline/statistical/cross.py",
    "pipeline/statistical/definitions.py",
    "pipeline/statistical/document.py",
    "pipeline/statistical/evaluate.py",  # which tuning facts count right, so the calibration
    "pipeline/statistical/extractor.py",
    "pipeline/statistical/mentions.py",
    "pipeline/statistical/names.py",
    "pipeline/statistical/pairs.py",
    "pipeline/statistical/tagging.py",
    "pipeline/statistical/text.py",
    "pipeline/statistical/towns.py",
    "pipeline/statistical/towns.tsv.gz",
    "pipeline/statistical/train.py",
    "pipeline/statistical/weights.py",
)


def source_sha256() -> str:
    """sha256 over the (name, sha256) of SOURCE_FILES and ontology/taxonomy.ttl, as this install has them."""
    from semantic_rdf.core.resources import data_dir

    pkg = Path(__file__).resolve().parents[2]
    paths = {name: pkg / name for name in SOURCE_FILES} | {"ontology/taxonomy.ttl": data_dir("ontology") / "taxonomy.ttl"}
    return sha256_bytes("".join(f"{n}:{sha256_bytes(p.read_bytes())}\n" for n, p in sorted(paths.items())).encode())


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ entity tagger


def sentence_tokens(doc: GoldDoc, si: int) -> list[Token]:
    a, b = doc.sentences[si]
    return tokenize(doc.text, a, b)


def gold_spans(doc: GoldDoc, si: int, tokens: list[Token]) -> list[tuple[int, int, str, int | None]]:
    """The gold mentions of sentence si as token spans (a token belongs to a mention it lies inside), as
    DocState.add_sentence reads them: (token a, token b, type, gold entity)."""
    out: list[tuple[int, int, str, int | None]] = []
    used = [False] * len(tokens)
    for m in doc.mentions:
        if m.sent != si:
            continue
        idx = [k for k, t in enumerate(tokens) if t.start >= m.start and t.end <= m.end]
        if not idx or any(used[k] for k in idx):
            continue
        a, b = idx[0], idx[-1] + 1
        for k in range(a, b):
            used[k] = True
        out.append((a, b, m.type, m.entity))
    out.sort()
    return out


def bio(tokens: list[Token], spans) -> list[str]:
    tags = ["O"] * len(tokens)
    for a, b, typ, _ in spans:
        tags[a] = "B-" + typ
        for k in range(a + 1, b):
            tags[k] = "I-" + typ
    return tags


def train_tagger(docs: list[GoldDoc], path: Path, iterations: int) -> None:
    import pycrfsuite

    trainer = pycrfsuite.Trainer(verbose=False)
    n = 0
    for d in docs:
        for si in range(len(d.sentences)):
            toks = sentence_tokens(d, si)
            if toks:
                trainer.append(ner_features([t.text for t in toks]), bio(toks, gold_spans(d, si, toks)))
                n += 1
    # L-BFGS with L1+L2: deterministic (no shuffling); the L1 term keeps the model file small
    trainer.set_params({"c1": 0.05, "c2": 0.01, "max_iterations": iterations, "feature.possible_transitions": True})
    log(f"tagger: {n} sentences, {iterations} iterations")
    trainer.train(str(path))


def tagger_scores(docs: list[GoldDoc], path: Path) -> dict[str, float]:
    """Exact-span precision/recall/F1 of the tagger on entity types PER/ORG/LOC/MISC."""
    import pycrfsuite

    from semantic_rdf.pipeline.statistical.extractor import tag_spans

    tagger = pycrfsuite.Tagger()
    tagger.open(str(path))
    tp = fp = fn = 0
    for d in docs:
        for si in range(len(d.sentences)):
            toks = sentence_tokens(d, si)
            if not toks:
                continue
            gold = {(a, b, t) for a, b, t, _ in gold_spans(d, si, toks) if t in ("PER", "ORG", "LOC", "MISC")}
            pred = {s for s in tag_spans(tagger, [t.text for t in toks]) if s[2] in ("PER", "ORG", "LOC", "MISC")}
            tp += len(gold & pred)
            fp += len(pred - gold)
            fn += len(gold - pred)
    p = tp / max(1, tp + fp)
    r = tp / max(1, tp + fn)
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / max(1e-9, p + r), 4)}


# ------------------------------------------------------------------ relations


Tagged = dict[tuple[int, int], list[tuple[int, int, str, int | None]]]


def tagged_spans(docs: list[GoldDoc], where: Path, iterations: int) -> Tagged:
    """(document index, sentence) -> the mentions a tagger finds there that was fitted on the other half of
    `docs` (so it errs there as it errs on unseen text), as DocState.add_sentence reads them, with no gold entity
    yet (`relation_samples` gives each the one it overlaps). A one-word sentence gets none, as at run time."""
    import pycrfsuite

    from semantic_rdf.pipeline.statistical.extractor import tag_spans

    out: Tagged = {}
    for half in (0, 1):
        path = where / f".half{half}.crfsuite"
        train_tagger([d for i, d in enumerate(docs) if i % 2 != half], path, iterations)
        tagger = pycrfsuite.Tagger()
        tagger.open(str(path))
        try:
            for di in range(half, len(docs), 2):
                d = docs[di]
                for si in range(len(d.sentences)):
                    toks = sentence_tokens(d, si)
                    if len(toks) < 2:
                        continue
                    out[(di, si)] = [(a, b, typ, None) for a, b, typ in tag_spans(tagger, [t.text for t in toks])]
        finally:
            tagger.close()
            path.unlink()
    return out


def overlapped(gold: list[tuple[int, int, str, int | None]], a: int, b: int) -> int | None:
    """The gold entity whose mention (of `gold_spans`) shares the most tokens with tokens a..b, if any does
    (the first of equals)."""
    best, most = None, 0
    for ga, gb, _, g in gold:
        n = min(b, gb) - max(a, ga)
        if n > most:
            best, most = g, n
    return best


def relation_samples(docs: list[GoldDoc], pids: list[str], tagged: Tagged | None = None):
    """Per sentence and ordered entity pair (gold mentions, the run-time grouping and pronoun resolution):
    features, the properties it states (the sentence is among the fact's evidence), and the properties
    that hold but that this sentence is not evidence for (left out of that property's training).

    `tagged` (from `tagged_spans`): the mentions a tagger found instead of the gold ones, with the types it gave
    them, so the classifiers also learn from the entities they will meet at run time, mistyped or cut short. A
    tagged mention stands for the gold entity whose mention it overlaps most ("Paul Desmarais Sr." for the gold
    "Paul Desmarais Sr"): with exact spans only, a boundary the tagger drew a word off made a stated fact a
    negative example (measured: docs/extraction.md)."""
    from semantic_rdf.pipeline.statistical.extractor import features_of

    want = set(pids)
    feats, pos, masked = [], [], []
    for di, d in enumerate(docs):
        gold: dict[tuple[int, int], dict[str, set[int]]] = {}
        for h, t, r, ev in d.labels:
            if r == "P150":
                h, t, r = t, h, "P131"
            if r in want:
                gold.setdefault((h, t), {}).setdefault(r, set()).update(ev)
        state = DocState(definitions=tagged is not None)  # the tagger's types, as at run time
        for si in range(len(d.sentences)):
            toks = sentence_tokens(d, si)
            if not toks:
                continue
            if tagged is None:
                spans = gold_spans(d, si, toks)
            else:  # and, as at run time, the runs of words the document named before
                gold_here = gold_spans(d, si, toks)
                found = state.known_spans([t.text for t in toks], tagged.get((di, si), []))
                spans = [(a, b, typ, overlapped(gold_here, a, b)) for a, b, typ, _ in found]
            mentions = state.add_sentence(toks, spans)
            to_gold = {i: int(k[5:]) for k, i in state.by_key.items() if k.startswith("#gold")}
            lower = [t.text.lower() for t in toks]
            memo = SentenceMemo()
            for hm, tm in candidate_pairs(mentions):
                gh, gt = to_gold.get(hm.entity), to_gold.get(tm.entity)
                rels = gold.get((gh, gt), {}) if gh is not None and gt is not None else {}
                p = {r for r, ev in rels.items() if si in ev or not ev}
                feats.append(features_of(state, lower, hm, tm, mentions, memo))
                pos.append(p)
                masked.append(set(rels) - p)
    return feats, pos, masked


def cross_samples(docs: list[GoldDoc], pids: list[str]):
    """Per document and ordered pair of entities that share no sentence of it (gold mentions, the run-time
    grouping and pronoun resolution, the topic left out): features, and the properties that hold."""
    want = set(pids)
    feats, pos = [], []
    for d in docs:
        gold: dict[tuple[int, int], set[str]] = {}
        for h, t, r, _ in d.labels:
            if r == "P150":
                h, t, r = t, h, "P131"
            if r in want:
                gold.setdefault((h, t), set()).add(r)
        state = DocState(definitions=False)
        sents, words = [], []
        together: set[tuple[int, int]] = set()
        for si in range(len(d.sentences)):
            toks = sentence_tokens(d, si)
            mentions = state.add_sentence(toks, gold_spans(d, si, toks)) if toks else []
            together |= together_in(mentions)
            sents.append(mentions)
            words.append([t.text.lower() for t in toks])
        to_gold = {i: int(k[5:]) for k, i in state.by_key.items() if k.startswith("#gold")}
        ctx = CrossContext(state, together, words)
        for p in cross_pairs(state, sents, together):
            feats.append(cross_features(ctx, p))
            gh, gt = to_gold.get(p.h.entity), to_gold.get(p.t.entity)
            pos.append(gold.get((gh, gt), set()) if gh is not None and gt is not None else set())
    return feats, pos, [set() for _ in feats]


def fit_relations(feats, pos, masked, pids: list[str], min_count: int, C: float, min_positive: int = 5):
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    counts = Counter(f for fs in feats for f in set(fs))
    vocab_list = sorted(f for f, c in counts.items() if c >= min_count)
    vocab = {f: i for i, f in enumerate(vocab_list)}
    rows, cols = [], []
    for r, fs in enumerate(feats):
        for i in sorted({vocab[f] for f in fs if f in vocab}):
            rows.append(r)
            cols.append(i)
    X = csr_matrix((np.ones(len(rows), dtype=np.float64), (rows, cols)), shape=(len(feats), len(vocab_list)))
    kept, coefs, intercepts = [], [], []
    for pid in pids:
        y = np.array([pid in p for p in pos])
        keep = np.array([pid not in m for m in masked])
        npos = int(y[keep].sum())
        if npos < min_positive:
            continue
        clf = LogisticRegression(C=C, solver="liblinear", max_iter=200, random_state=SEED)
        clf.fit(X[keep], y[keep])
        kept.append(pid)
        coefs.append(clf.coef_[0].astype(np.float32))
        intercepts.append(float(clf.intercept_[0]))
        log(f"relation {pid} ({alignment()[pid][0]}): {npos} positive of {int(keep.sum())}")
    coef = np.stack(coefs, axis=1) if coefs else np.zeros((len(vocab_list), 0), np.float32)
    # features with no weight for any property are dropped from the shipped vocabulary
    used = np.nonzero(np.abs(coef).max(axis=1) > 1e-6)[0] if coef.size else np.array([], int)
    return [vocab_list[i] for i in used], coef[used], np.array(intercepts, np.float32), kept


FEWREL = "fewrel/val_wiki.json"
# FewRel properties that state a mapped one from the other end: (head, P25 mother, tail) = (tail, P40 child, head)
_FEWREL_IMPLIES = {"P25": ("P40", True), "P26": ("P26", True)}


def fewrel_samples(path: Path, pids: list[str], tagger_path: Path):
    """Sentence-level samples from FewRel: the labelled (head, tail) pair in both directions, the other names
    of the sentence tagged by the trained tagger so that the features see them as at run time. A pair is
    positive for its property if that property is mapped (or implies a mapped one), negative otherwise."""
    import pycrfsuite

    from semantic_rdf.pipeline.statistical.extractor import features_of, tag_spans
    from semantic_rdf.pipeline.statistical.text import detokenize

    tagger = pycrfsuite.Tagger()
    tagger.open(str(tagger_path))
    want = set(pids)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    feats, pos = [], []
    masked: list[set[str]] = []
    for rel in sorted(data):
        for inst in data[rel]:
            text, tspans, _ = detokenize([inst["tokens"]])
            toks = tokenize(text)
            words = [t.text for t in toks]

            def span(idx: list[int]) -> tuple[int, int] | None:
                a, b = tspans[0][min(idx)][0], tspans[0][max(idx)][1]
                got = [k for k, t in enumerate(toks) if t.start >= a and t.end <= b]
                return (got[0], got[-1] + 1) if got else None

            hs, ts = span(inst["h"][2][0]), span(inst["t"][2][0])
            if hs is None or ts is None or (hs[0] < ts[1] and ts[0] < hs[1]):
                continue
            tagged = tag_spans(tagger, words)

            def typ(sp: tuple[int, int]) -> str:
                for a, b, ty in tagged:
                    if a < sp[1] and sp[0] < b and ty in ("PER", "ORG", "LOC", "MISC"):
                        return ty
                return "MISC"

            spans: list[tuple[int, int, str, int | None]] = [(hs[0], hs[1], typ(hs), 0), (ts[0], ts[1], typ(ts), 1)]
            spans += [(a, b, ty, 2 + k) for k, (a, b, ty) in enumerate(tagged) if not any(a < sb and sa < b for sa, sb, _, _ in spans[:2])]
            spans.sort()
            state = DocState(definitions=False)
            mentions = state.add_sentence(toks, spans)
            to_gold = {i: int(k[5:]) for k, i in state.by_key.items() if k.startswith("#gold")}
            facts = set()
            if rel in want:
                facts.add((0, 1, rel))
            if rel in _FEWREL_IMPLIES:
                r2, flip = _FEWREL_IMPLIES[rel]
                if r2 in want:
                    facts.add((1, 0, r2) if flip else (0, 1, r2))
            lower = [w.lower() for w in words]
            memo = SentenceMemo()
            for h, t in candidate_pairs(mentions):
                gh, gt = to_gold.get(h.entity), to_gold.get(t.entity)
                if {gh, gt} != {0, 1}:
                    continue
                feats.append(features_of(state, lower, h, t, mentions, memo))
                pos.append({r for a, b, r in facts if (a, b) == (gh, gt)})
                masked.append(set())
    return feats, pos, masked


# ------------------------------------------------------------------ tuning


def scored_facts(docs: list[GoldDoc], weights) -> list[tuple[float, bool, str]]:
    """(best raw probability, correct?, property) for each distinct predicted (entity pair, property)
    over `docs`, read the way the extractor reads text (sentence splitter, tagger, grouping); a town's
    located_in its country (towns.py), and a birth, a death, a school, a spouse or a citizenship the rule extractor reads
    (`extractor.rule_pairs`), as (its pair's raw probability or 0, correct?, TOWN + the pair's key or TOWN), in
    place of the pair's own."""
    from semantic_rdf.core.values import Chunk
    from semantic_rdf.pipeline.extract import RuleExtractor, sentence_spans
    from semantic_rdf.pipeline.statistical.evaluate import gold_facts, gold_index, match_entity
    from semantic_rdf.pipeline.statistical.extractor import Annotator, by_sentence, rule_pairs, rule_predicates, rule_properties, score_cross
    from semantic_rdf.pipeline.statistical.weights import CROSS

    ann = Annotator(weights)
    pid_of = rule_properties(weights.relations)  # as the extractor reads them
    out = []
    for n, d in enumerate(docs):
        state = DocState()
        best: dict[tuple[int, int, str], float] = {}
        sents, words, spans = [], [], []
        together: set[tuple[int, int]] = set()
        for a, b in sentence_spans(d.text):
            toks = tokenize(d.text, a, b)
            if toks:
                mentions, scored = ann.sentence(state, toks)
                together |= together_in(mentions)
                sents.append(mentions)
                words.append([t.text.lower() for t in toks])
                spans.append((a, b))
                for s in scored:
                    k = (s.h.entity, s.t.entity, s.pid)
                    best[k] = max(best.get(k, 0.0), s.p)
        # the whole document is one scope here; the extractor's is a chunk (most documents are one)
        for c in score_cross(weights, state, sents, words, together):
            k = (c.pair.h.entity, c.pair.t.entity, CROSS + c.pid)
            best[k] = max(best.get(k, 0.0), c.p)
        gold = gold_facts(d)
        idx = gold_index(d)
        seen: dict[tuple, float] = {}
        for (h, t, pid), p in best.items():
            eh, et = state.entities[h], state.entities[t]
            gh, gt = match_entity(eh.name, eh.aliases, idx), match_entity(et.name, et.aliases, idx)
            key = (gh, gt, pid) if gh is not None and gt is not None else (eh.name, et.name, pid)
            seen[key] = max(seen.get(key, 0.0), p)
        for gh, gt, pid in [k for k in seen if k[2].startswith(CROSS)]:
            if (gh, gt, pid.removeprefix(CROSS)) in seen:  # the sentence-level fact stands for it
                del seen[(gh, gt, pid)]
        # a town's located_in its country (towns.py): the pair's own candidate, if any, becomes the town fact
        ents = state.entities
        placed: set[tuple] = set()
        for town, country in town_pairs(load_towns(), [(e.name, e.type) for e in ents]):
            eh, et = ents[town], ents[country]
            gh, gt = match_entity(eh.name, eh.aliases, idx), match_entity(et.name, et.aliases, idx)
            pair: tuple = (gh, gt) if gh is not None and gt is not None else (eh.name, et.name)
            if pair not in placed:  # two entities of one gold name are one fact
                placed.add(pair)
                own = next((pid for pid in ("P131", CROSS + "P131") if (*pair, pid) in seen), "")
                seen[(*pair, TOWN + own)] = seen.pop((*pair, own)) if own else 0.0
        # a birth, a death, a school, a spouse or a citizenship the rule extractor reads: the same, under its own property
        rules = RuleExtractor(predicates=rule_predicates(pid_of))  # one per document, as the extractor's
        found = rules.extract(Chunk(f"tuning-{n}", 0, d.text, 0, len(d.text))) if d.text.strip() and pid_of else []
        said = by_sentence(found, spans)
        ruled: set[tuple] = set()
        for mh, mt, pred in (x for k, ms in enumerate(sents) for x in rule_pairs(said.get(k, ()), state, ms, rules.pronouns_of)):
            eh, et = ents[mh.entity], ents[mt.entity]
            gh, gt = match_entity(eh.name, eh.aliases, idx), match_entity(et.name, et.aliases, idx)
            pair = (gh, gt) if gh is not None and gt is not None else (eh.name, et.name)
            rel = pid_of.get(pred)
            if rel is not None and (*pair, rel) not in ruled:
                ruled.add((*pair, rel))
                own = next((k for k in (rel, CROSS + rel) if (*pair, k) in seen), "")
                out.append((seen.pop((*pair, own)) if own else 0.0, (*pair, rel) in gold, TOWN + own))
        for key, p in seen.items():
            # a cross-sentence fact is right when its property holds; it is calibrated on its own curve
            pid = key[2].removeprefix(TOWN).removeprefix(CROSS) or "P131"
            out.append((p, (key[0], key[1], pid) in gold, key[2]))
    return out


def _sigmoid_curve(x: np.ndarray, y: np.ndarray) -> dict:
    """Platt scaling: correctness as a logistic function of the raw probability's log-odds (scikit-learn),
    written as knots the extractor interpolates (0; 99 evenly from 0.02 to 1; the data's ends). The curve goes
    to 0 with the raw probability, so the first knot is (0, 0): interpolation would hold the value at 0.02 below it.

    Not isotonic regression: with tens to hundreds of facts per property its steps follow the few facts of
    each block, and a floor chosen on those facts keeps facts less precise than it promises (docs/extraction.md)."""
    from sklearn.linear_model import LogisticRegression

    def logit(v: np.ndarray) -> np.ndarray:
        v = np.clip(v, 1e-6, 1 - 1e-6)
        return np.log(v / (1 - v))

    gx = np.unique(np.concatenate([np.linspace(0.02, 1.0, 99), [x.min(), x.max()]]))
    gx = gx[gx > 0]
    if y.min() == y.max():  # facts all right or all wrong (a tiny training run): that share, flat
        gy = np.full(len(gx), float(y[0]))
    else:
        fit = LogisticRegression(C=1e4).fit(logit(x)[:, None], y.astype(int))
        gy = np.maximum.accumulate(fit.predict_proba(logit(gx)[:, None])[:, 1])  # non-decreasing, as the extractor assumes
    return {"x": [0.0] + [float(v) for v in gx], "y": [0.0] + [float(v) for v in gy]}


def calibrate(facts: list[tuple[float, bool, str]], target: float, min_facts: int = 80, min_correct: int = 15, min_towns: int = 30) -> dict:
    """A logistic curve of correctness on the raw probability (`_sigmoid_curve`): one per property with
    enough tuning facts, one pooled for the rest; then the floor, the lowest calibrated confidence at which
    the tuning facts kept are at least `target` precise.

    A town's located_in its country, or a fact the rules read (`scored_facts`, key TOWN + the key its pair's own
    score is calibrated on, or TOWN alone) has its pair's score calibrated as any fact's (so the curves are those of
    the classifiers alone), and "towns", the share right of the town facts that the classifiers' own floor would not keep, is
    what such a fact is stated with when its pair scores less (`None` under `min_towns` of them). The floor is
    then chosen over every fact as the extractor states it: a town fact at the better of the two."""
    if not facts:  # nothing predicted on the tuning documents (a tiny training run): the identity, floor 0.5
        return {"pooled": {"x": [0.0, 1.0], "y": [0.0, 1.0]}, "by": {}, "floor": 0.5, "towns": None}
    scored = [(p, c, r.removeprefix(TOWN)) for p, c, r in facts if r.removeprefix(TOWN)]
    x = np.array([p for p, _, _ in scored])
    y = np.array([c for _, c, _ in scored], dtype=float)
    pids = np.array([r for _, _, r in scored])
    pooled = _sigmoid_curve(x, y)
    by = {}
    for pid in sorted(set(pids)):
        sel = pids == pid
        if sel.sum() >= min_facts and y[sel].sum() >= min_correct:
            by[pid] = _sigmoid_curve(x[sel], y[sel])

    curves = {"pooled": pooled, "by": by, "towns": None}
    cal = np.array([stated(curves, p, r) for p, _, r in facts])
    right = np.array([c for _, c, _ in facts], dtype=float)
    town = np.array([r.startswith(TOWN) for _, _, r in facts], dtype=bool)
    scored_pair = np.array([r != TOWN for _, _, r in facts], dtype=bool)
    floor = _floor(cal[scored_pair], right[scored_pair], target)  # the classifiers' own
    added = town & (cal < floor)
    towns = round(float(right[added].mean()), 4) if added.sum() >= min_towns else None
    if towns is not None:
        cal = np.where(town, np.maximum(cal, towns), cal)
        floor = _floor(cal, right, target)
    return {"pooled": pooled, "by": by, "floor": floor, "towns": towns}


def stated(cal: dict, p: float, r: str) -> float:
    """The confidence the extractor states a tuning fact (`scored_facts`) with under calibration `cal`."""
    key = r.removeprefix(TOWN)
    v = float(np.interp(p, *(lambda c: (c["x"], c["y"]))(cal["by"].get(key, cal["pooled"])))) if key else 0.0
    return max(v, cal["towns"]) if r.startswith(TOWN) and cal.get("towns") is not None else v


def _floor(cal: np.ndarray, right: np.ndarray, target: float) -> float:
    """The lowest calibrated confidence at which the facts kept are at least `target` precise (1.0 if none is)."""
    floor = 1.0
    for thr in sorted(set(np.round(cal, 4)), reverse=True):
        sel = cal >= thr
        if sel.sum() and right[sel].mean() >= target:
            floor = float(thr)
    return floor


# ------------------------------------------------------------------ main


def document_ranges(spec: str) -> list[tuple[int, int]]:
    """Ranges of Re-DocRED documents, "start:stop" or several in order ("0:100,200:400": every block but one, to
    read that block with models that never saw it); SystemExit for a range past 400 (documents 400-499 are held
    out), an empty one, or ranges out of order or overlapping.

    >>> document_ranges("0:100,200:400"), document_ranges("300:400")
    ([(0, 100), (200, 400)], [(300, 400)])
    """
    out: list[tuple[int, int]] = []
    for part in spec.split(","):
        try:
            first, last = part.split(":")
            a, b = int(first), int(last)
        except ValueError:
            raise SystemExit(f"range {part!r}: use start:stop, e.g. 0:300") from None
        if b > 400:
            raise SystemExit(f"range {part!r}: documents 400-499 are held out; use start:stop within 0:400")
        if not 0 <= a < b:
            raise SystemExit(f"range {part!r}: use start:stop with 0 <= start < stop")
        if out and a < out[-1][1]:
            raise SystemExit(f"ranges {spec!r}: in order and not overlapping")
        out.append((a, b))
    return out


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m semantic_rdf.pipeline.statistical.train", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="the realtext folder (redocred/dev_revised.json …)")
    ap.add_argument("--out", required=True, help="weights directory to (re)write")
    ap.add_argument("--fit", default="0:300", help="Re-DocRED documents that fit the models: start:stop, or ranges in order (0:100,200:400)")
    ap.add_argument("--tune", default="300:400", help="documents that fit calibration and the floor")
    ap.add_argument("--iterations", type=int, default=200, help="CRF L-BFGS iterations")
    ap.add_argument("--C", type=float, default=0.5, help="inverse L2 strength of the relation classifiers")
    ap.add_argument("--min-count", type=int, default=2, help="a feature must occur this often to be kept")
    ap.add_argument("--target-precision", type=float, default=0.82)
    ap.add_argument(
        "--fewrel",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="add FewRel's sentences to the relation training data (measured: lowers recall at the floor; docs/extraction.md)",
    )
    ap.add_argument(
        "--crossfit",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fit on all of 0-399 and calibrate on two folds' out-of-fold facts (the shipped weights);"
        " --no-crossfit: fit on --fit, calibrate on --tune",
    )
    ap.add_argument("--crossfit-docs", type=int, default=400, help="with --crossfit: documents 0..N-1 (tests use few)")
    args = ap.parse_args(argv)
    np.random.seed(SEED)

    fits = document_ranges(args.fit)
    tunes = document_ranges(args.tune)
    if len(tunes) != 1:
        raise SystemExit(f"--tune {args.tune!r}: one range of documents")
    ta, tb = tunes[0]
    if not args.crossfit and any(a < tb and ta < b for a, b in fits):
        raise SystemExit(f"--tune {args.tune!r} overlaps --fit {args.fit!r}: the tuning documents must be unseen")
    src = Path(args.data) / REDOCRED
    raw = src.read_bytes()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pids = sorted(alignment())
    fewrel = Path(args.data) / FEWREL if args.fewrel and (Path(args.data) / FEWREL).is_file() else None

    def fit_models(fit: list[GoldDoc], where: Path) -> list[str]:
        """The tagger and the relation classifiers of `fit`, written to `where`; the properties kept."""
        where.mkdir(parents=True, exist_ok=True)
        train_tagger(fit, where / "ner.crfsuite", args.iterations)
        feats, pos, masked = relation_samples(fit, pids)
        log(f"relation samples: {len(feats)} from Re-DocRED")
        # and the same documents again as a tagger fitted on their other half reads them (docs/extraction.md,
        # "Trained on the mentions the tagger finds")
        f2, p2, m2 = relation_samples(fit, pids, tagged_spans(fit, where, args.iterations))
        feats, pos, masked = feats + f2, pos + p2, masked + m2
        log(f"relation samples: {len(f2)} from the same documents' tagged mentions")
        if fewrel is not None:
            f2, p2, m2 = fewrel_samples(fewrel, pids, where / "ner.crfsuite")
            feats, pos, masked = feats + f2, pos + p2, masked + m2
            log(f"relation samples: {len(f2)} from FewRel")
        vocab, coef, intercept, kept = fit_relations(feats, pos, masked, pids, args.min_count, args.C)
        np.savez(where / "relations.npz", coef=coef.astype(np.float32), intercept=intercept)
        with open(where / "features.json", "w", encoding="utf-8") as f:
            json.dump({"relations": kept, "features": vocab}, f, ensure_ascii=False, separators=(",", ":"))
        xf, xp, xm = cross_samples(fit, pids)
        log(f"cross-sentence samples: {len(xf)} pairs, {sum(map(bool, xp))} holding a property")
        vocab, coef, intercept, xkept = fit_relations(xf, xp, xm, pids, args.min_count, args.C, min_positive=10)
        np.savez(where / "cross.npz", coef=coef.astype(np.float32), intercept=intercept)
        with open(where / "cross.json", "w", encoding="utf-8") as f:
            json.dump({"relations": xkept, "features": vocab}, f, ensure_ascii=False, separators=(",", ":"))
        (where / "calibration.json").unlink(missing_ok=True)
        return kept

    from semantic_rdf.pipeline.statistical.weights import Weights

    if args.crossfit:
        # two folds over documents 0-399, each calibrated on the documents it did not see; the shipped models
        # are then fitted on all 400 and take the calibration of the pooled out-of-fold facts
        n = args.crossfit_docs
        if not 8 <= n <= 400:
            raise SystemExit("--crossfit-docs must be within 8..400: documents 400-499 are held out")
        docs = load_redocred(src, 0, n)
        q = n // 4
        folds = [((0, n - q), (n - q, n)), ((q, n), (0, q))]
        facts: list[tuple[float, bool, str]] = []
        ner_scores = []
        for k, ((a, b), (c, d)) in enumerate(folds):
            where = out / f".fold{k}"
            log(f"fold {k}: fit on documents {a}-{b - 1}, tune on {c}-{d - 1}")
            fit_models(docs[a:b], where)
            ner_scores.append(tagger_scores(docs[c:d], where / "ner.crfsuite"))
            facts += scored_facts(docs[c:d], Weights.load(where, calibrated=False))
            for name in ("ner.crfsuite", "relations.npz", "features.json", "cross.npz", "cross.json"):
                (where / name).unlink()
            where.rmdir()
        ner = {key: round(sum(x[key] for x in ner_scores) / len(ner_scores), 4) for key in ner_scores[0]}
        log(f"tagger out of fold: {ner}; fitting on documents 0-{n - 1}")
        kept = fit_models(docs, out)
        fits, ta, tb = [(0, n)], 0, n
    else:
        docs = load_redocred(src, 0, max(tb, fits[-1][1]))  # the file parsed once, then sliced
        fit = [d for a, b in fits for d in docs[a:b]]
        tune = docs[ta:tb]
        log(f"fit on documents {', '.join(f'{a}-{b - 1}' for a, b in fits)} ({len(fit)}), tune on {ta}-{tb - 1} ({len(tune)})")
        kept = fit_models(fit, out)
        ner = tagger_scores(tune, out / "ner.crfsuite")
        log(f"tagger on tuning documents: {ner}")
        facts = scored_facts(tune, Weights.load(out, calibrated=False))
    cal = calibrate(facts, args.target_precision)
    kept_ok = [c for p, c, r in facts if stated(cal, p, r) >= cal["floor"]]
    towns_ok = [c for p, c, r in facts if r.startswith(TOWN) and stated(cal, p, r) >= cal["floor"]]
    log(
        f"calibration: {len(facts)} tuning facts, floor {cal['floor']}: {len(kept_ok)} kept, "
        f"{sum(kept_ok)} correct (precision {sum(kept_ok) / max(1, len(kept_ok)):.3f}); "
        f"towns at {cal['towns']}: {len(towns_ok)} kept, {sum(towns_ok)} correct"
    )
    with open(out / "calibration.json", "w", encoding="utf-8") as f:
        json.dump(cal, f, separators=(",", ":"))

    from semantic_rdf.pipeline.statistical.weights import WEIGHT_FILES, sha256_file

    files = {name: sha256_file(out / name) for name in WEIGHT_FILES}
    combined = sha256_bytes("".join(f"{n}:{h}\n" for n, h in sorted(files.items())).encode())
    used = {REDOCRED: sha256_bytes(raw)}
    if fewrel is not None:
        used[FEWREL] = sha256_bytes(fewrel.read_bytes())
    manifest = {
        "weights_sha256": combined,
        "files": files,
        "source_sha256": source_sha256(),
        # one hash over every training file's (name, sha256), and each file's
        "training_data_sha256": sha256_bytes("".join(f"{n}:{h}\n" for n, h in sorted(used.items())).encode()),
        "training_data": {
            "files": used,
            "redocred_fit_documents": [list(r) for r in fits],
            "redocred_tune_documents": [ta, tb],
            "crossfit_folds": folds if args.crossfit else None,
            "held_out_documents": [400, 500],
        },
        "params": {
            "iterations": args.iterations,
            "C": args.C,
            "min_count": args.min_count,
            "target_precision": args.target_precision,
            "seed": SEED,
            "crossfit": args.crossfit,
        },
        "tagger_on_tuning_documents": ner,
        "relations": kept,
        "cross_relations": json.loads((out / "cross.json").read_text(encoding="utf-8"))["relations"],
        "floor": cal["floor"],
    }
    with open(out / "manifest.json", "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    log(f"wrote {out}: weights sha256 {combined}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
