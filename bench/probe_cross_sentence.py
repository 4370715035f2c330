"""Probe (not shipped): can a document-level classifier add facts whose entities share no sentence?

    python -m semantic_rdf.pipeline.statistical.train --data ../shared/data/realtext --out /tmp/w0 --no-crossfit
    python3 bench/probe_cross_sentence.py /tmp/w0 [bags]

Fits one logistic regression per aligned property on Re-DocRED documents 0-299 (gold mentions) over the
entity pairs that never share a sentence (the topic left out: the sentence-level model pairs it with every
sentence), then reads documents 300-399 the way the extractor does (the weights in the given directory,
fitted on 0-299, tag the entities) and prints the precision/recall of the sentence-level facts at their
floor plus the cross-sentence ones at several thresholds. Documents 400-499 are not read. The result and
why it is not in the extractor: docs/extraction.md ("Alternatives measured").
"""

import json
import sys
import time
from pathlib import Path
from collections import Counter
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from semantic_rdf.pipeline import gazetteer as gz  # noqa: E402
from semantic_rdf.pipeline.statistical.alignment import alignment  # noqa: E402
from semantic_rdf.pipeline.statistical.document import DocState  # noqa: E402
from semantic_rdf.pipeline.statistical.pairs import bucket  # noqa: E402
from semantic_rdf.pipeline.statistical.text import load_redocred, tokenize  # noqa: E402
from semantic_rdf.pipeline.statistical.train import sentence_tokens, gold_spans  # noqa: E402
from semantic_rdf.pipeline.statistical.evaluate import gold_facts, gold_index, match_entity  # noqa: E402

VARIANT = set(sys.argv[2].split(",")) if len(sys.argv) > 2 else set()


def cross_features(state, sents):
    """sents: list of (mentions, lower words). -> {(h, t): features} for pairs never in one sentence."""
    ents = state.entities
    where = {}  # entity -> list of (sent, mention)
    co = set()
    for si, (ms, words) in enumerate(sents):
        exp = [m for m in ms if m.kind != "implicit"]
        for m in exp:
            where.setdefault(m.entity, []).append((si, m))
        es = {m.entity for m in exp}
        for a in es:
            for b in es:
                co.add((a, b))
    first = state.first
    cls = {i: gz.builtin_class(ents[i].name) for i in where}
    countries = [i for i in where if cls[i] == "Country"]
    locs = sorted((i for i in where if ents[i].type == "LOC"), key=lambda i: (-len(where[i]), where[i][0][0]))
    top_loc = locs[0] if locs else None
    first_country = min(countries, key=lambda i: where[i][0][0]) if countries else None
    out = {}
    ids = sorted(where)
    for h in ids:
        for t in ids:
            if h == t or (h, t) in co or h == first or t == first:
                continue
            if ents[h].type not in ("PER", "ORG", "LOC", "MISC") or ents[t].type not in ("PER", "ORG", "LOC", "MISC"):
                continue
            best = None
            for si, mh in where[h]:
                for sj, mt in where[t]:
                    d = abs(si - sj)
                    if best is None or d < best[0]:
                        best = (d, si, mh, sj, mt)
            d, si, mh, sj, mt = best
            tp = f"{ents[h].type}|{ents[t].type}"
            order = "ht" if si < sj else "th"
            db = bucket(d)
            f = [f"x_tp={tp}", f"x_d={db}", f"x_ord={order}", f"x_tp={tp}|{order}", f"x_tp={tp}|d={db}", f"x_hk={mh.kind}", f"x_tk={mt.kind}"]
            hc, tc = cls[h], cls[t]
            if hc:
                f.append(f"x_hc={hc}|{ents[t].type}")
            if tc:
                f.append(f"x_tc={tc}|{ents[h].type}")
            if hc and tc:
                f.append(f"x_hc={hc}|tc={tc}")
            f.append(f"x_hn={bucket(len(where[h]))}|{ents[h].type}")
            f.append(f"x_tn={bucket(len(where[t]))}|{ents[t].type}")
            if t == top_loc:
                f.append(f"x_t_toploc|{ents[h].type}")
            if h == top_loc:
                f.append(f"x_h_toploc|{ents[t].type}")
            if t == first_country:
                f.append(f"x_t_firstcountry|{ents[h].type}")
            if len(countries) == 1 and t in countries:
                f.append(f"x_t_onlycountry|{ents[h].type}")
            if where[t][0][0] == 0:
                f.append(f"x_t_s0|{tp}")
            if where[h][0][0] == 0:
                f.append(f"x_h_s0|{tp}")
            hw, tw = sents[si][1], sents[sj][1]
            if mh.a >= 1:
                f.append(f"x_hpre1={hw[mh.a - 1]}")
            if mh.b < len(hw):
                f.append(f"x_hpost1={hw[mh.b]}")
            if mt.a >= 1:
                f.append(f"x_tpre1={tw[mt.a - 1]}")
            if mt.b < len(tw):
                f.append(f"x_tpost1={tw[mt.b]}")
            # entities that share a sentence with both
            via = [m for m in ids if m != h and m != t and (h, m) in co and (m, t) in co]
            if via:
                f.append(f"x_via|{tp}")
                for m in sorted({ents[m].type for m in via}):
                    f.append(f"x_via={m}|{tp}")
            if "bags" in VARIANT:
                f.extend(sorted({f"x_hsw={w}" for w in hw}))
                f.extend(sorted({f"x_tsw={w}" for w in tw}))
            out[(h, t)] = f
    return out


def train_samples(docs, pids):
    want = set(pids)
    feats, pos = [], []
    for d in docs:
        gold = {}
        for h, t, r in gold_facts(d):
            if r in want:
                gold.setdefault((h, t), set()).add(r)
        state = DocState(definitions=False)  # the gold mentions' types, as training reads them
        sents = []
        for si in range(len(d.sentences)):
            toks = sentence_tokens(d, si)
            if not toks:
                sents.append(([], []))
                continue
            ms = state.add_sentence(toks, gold_spans(d, si, toks))
            sents.append((ms, [t.text.lower() for t in toks]))
        to_gold = {i: int(k[5:]) for k, i in state.by_key.items() if k.startswith("#gold")}
        for (h, t), f in cross_features(state, sents).items():
            feats.append(f)
            pos.append(gold.get((to_gold.get(h), to_gold.get(t)), set()))
    return feats, pos


def fit(feats, pos, pids, C=0.5, min_count=2):
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    counts = Counter(f for fs in feats for f in set(fs))
    vocab = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= min_count))}
    rows, cols = [], []
    for r, fs in enumerate(feats):
        for i in sorted({vocab[f] for f in fs if f in vocab}):
            rows.append(r)
            cols.append(i)
    X = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(feats), len(vocab)))
    models = {}
    for pid in pids:
        y = np.array([pid in p for p in pos])
        if y.sum() < 10:
            continue
        clf = LogisticRegression(C=C, solver="liblinear", max_iter=300, random_state=17)
        clf.fit(X, y)
        models[pid] = clf
        print(pid, alignment()[pid][0], int(y.sum()), "of", len(y), file=sys.stderr)
    return vocab, models


def vec(vocab, feats):
    from scipy.sparse import csr_matrix

    rows, cols = [], []
    for r, fs in enumerate(feats):
        for i in sorted({vocab[f] for f in fs if f in vocab}):
            rows.append(r)
            cols.append(i)
    return csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(feats), len(vocab)))


def run_test(docs, weights_dir, vocab, models, floor_sent):
    from semantic_rdf.pipeline.extract import sentence_spans
    from semantic_rdf.pipeline.statistical.extractor import Annotator
    from semantic_rdf.pipeline.statistical.weights import Weights

    w = Weights.load(weights_dir)
    ann = Annotator(w)
    sent_facts = []  # (gold key or None, p)
    cross = []
    ngold = 0
    for d in docs:
        state = DocState()
        sents = []
        best = {}
        for a, b in sentence_spans(d.text):
            toks = tokenize(d.text, a, b)
            if not toks:
                continue
            ms, scored = ann.sentence(state, toks)
            sents.append((ms, [t.text.lower() for t in toks]))
            for s in scored:
                k = (s.h.entity, s.t.entity, s.pid)
                best[k] = max(best.get(k, 0.0), s.p)
        gold = gold_facts(d)
        ngold += len(gold)
        idx = gold_index(d)

        def key(h, t, pid):
            eh, et = state.entities[h], state.entities[t]
            gh, gt = match_entity(eh.name, eh.aliases, idx), match_entity(et.name, et.aliases, idx)
            return (gh, gt, pid) if gh is not None and gt is not None else (eh.name, et.name, pid)

        seen = {}
        for (h, t, pid), p in best.items():
            if p >= floor_sent:
                k = key(h, t, pid)
                seen[k] = max(seen.get(k, 0), p)
        sent_facts.append((d, seen, gold))
        cf = cross_features(state, sents)
        if cf:
            pairs = list(cf)
            X = vec(vocab, [cf[p] for p in pairs])
            cs = {}
            for pid, clf in models.items():
                pr = clf.predict_proba(X)[:, 1]
                for (h, t), p in zip(pairs, pr):
                    k = key(h, t, pid)
                    cs[k] = max(cs.get(k, 0), p)
            cross.append((seen, cs, gold))
        else:
            cross.append((seen, {}, gold))
    tp0 = 0
    n0 = 0
    for seen, cs, gold in cross:
        n0 += len(seen)
        tp0 += sum(k in gold for k in seen)
    print(f"sentence-level: {tp0}/{n0} P {tp0 / max(1, n0):.3f} R {tp0 / ngold:.3f} (gold {ngold})")
    for thr in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        tp, n = tp0, n0
        per = Counter()
        perok = Counter()
        for seen, cs, gold in cross:
            for k, p in cs.items():
                if p >= thr and k not in seen:
                    n += 1
                    ok = k in gold
                    tp += ok
                    per[k[2]] += 1
                    perok[k[2]] += ok
        print(
            f"cross thr {thr}: total P {tp / max(1, n):.3f} R {tp / ngold:.3f} ({tp}/{n}); added {n - n0} ok {tp - tp0}; "
            + " ".join(f"{r}:{perok[r]}/{per[r]}" for r in sorted(per))
        )


if __name__ == "__main__":
    src = str(ROOT.parent / "shared/data/realtext/redocred/dev_revised.json")
    wdir = sys.argv[1]
    t0 = time.time()
    train = load_redocred(src, 0, 300)
    test = load_redocred(src, 300, 400)
    pids = sorted(alignment())
    feats, pos = train_samples(train, pids)
    print("samples", len(feats), sum(bool(p) for p in pos), time.time() - t0, file=sys.stderr)
    vocab, models = fit(feats, pos, pids)
    print("fit", time.time() - t0, file=sys.stderr)
    man = json.load(open(f"{wdir}/manifest.json"))
    run_test(test, wdir, vocab, models, man["floor"])
