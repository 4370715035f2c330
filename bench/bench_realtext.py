"""Extraction on real Wikipedia text: Re-DocRED dev documents 400-499 (held out from training).

    python3 bench/bench_realtext.py [--data ../shared/data/realtext] [--extractor statistical|rules]
                                    [--docs 400:500] [--floor F] [--curve] [--failures N] [--json]

Each document (Re-DocRED's tokens joined back into plain text) goes through the pipeline `ingest`
runs — normaliser, sentence splitter, extractor — and every triple is scored at (entity pair,
Wikidata property) level over the properties aligned with the 53 predicates (ontology/taxonomy.ttl;
an inverse alignment is undone first). A triple's entity is the gold entity with a mention of the
same folded text as its name or one of its aliases. Prints precision/recall/F1 per property and
overall, span fidelity (the evidence span holds the surface form of subject and object), precision
by how the subject was found (named, pronoun, nominal, topic), assertions per document, a
reliability table (calibrated confidence against observed precision), throughput, failures by kind,
with --curve the precision/recall at other floors, and with --questions a question set generated
from the documents' gold facts (and unanswerable ones) asked through the real `ask` path.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from semantic_rdf.core.identity import fold  # noqa: E402
from semantic_rdf.pipeline import gazetteer as gz  # noqa: E402
from semantic_rdf.pipeline.normalize import DEFAULT as NORMALIZER  # noqa: E402
from semantic_rdf.pipeline.split import splitter_from_spec  # noqa: E402
from semantic_rdf.pipeline.statistical.evaluate import (  # noqa: E402
    gold_facts,
    gold_index,
    match_entity,
    predicate_property,
)
from semantic_rdf.pipeline.statistical.names import clean_name  # noqa: E402
from semantic_rdf.pipeline.statistical.text import load_redocred  # noqa: E402
from semantic_rdf.pipeline.statistical.towns import canonical_country  # noqa: E402
from semantic_rdf.core.values import Doc  # noqa: E402

# ../shared/data/realtext beside the checkout (or beside a worktree's parent)
DEFAULT_DATA = next(
    (b / "shared" / "data" / "realtext" for b in (ROOT.parent, ROOT.parent.parent) if (b / "shared" / "data" / "realtext").is_dir()),
    ROOT.parent / "shared" / "data" / "realtext",
)


WEIGHTS = None  # --weights: another weights directory (experiments); the shipped one by default


def make(kind: str, floor: float | None):
    if kind == "rules":
        from semantic_rdf.pipeline.extract import RuleExtractor

        return RuleExtractor(floor=floor)
    from semantic_rdf.pipeline.statistical import StatisticalExtractor

    return StatisticalExtractor(floor=floor, weights=WEIGHTS)


def run(docs, kind: str, floor: float | None) -> dict:
    ex = make(kind, floor)
    splitter = splitter_from_spec("sentences")
    prop = predicate_property()
    per_doc = []
    seconds = 0.0
    nbytes = 0
    for i, g in enumerate(docs):
        text = NORMALIZER.normalize(g.text)
        if text != g.text:  # offsets of the gold mentions are into the unnormalised text
            text = g.text
        doc = Doc(f"redocred-{i}", f"redocred:{i}", text)
        t0 = time.perf_counter()
        triples = []
        for c in splitter.split(doc):
            triples.extend(ex.extract(c))
        seconds += time.perf_counter() - t0
        nbytes += len(text.encode("utf-8"))
        aliases = ex.aliases(doc.id) if hasattr(ex, "aliases") else {}
        per_doc.append((g, doc, triples, aliases))
    return {"ex": ex, "docs": per_doc, "seconds": seconds, "bytes": nbytes, "prop": prop}


def one_country(g) -> dict[int, int]:
    """Gold entity -> the first gold entity naming the same country. Re-DocRED keeps a country's name and its
    demonym apart ("France" and "French" are two entities of one document) and often labels a fact with both; a
    name the scorer matches goes to one of them only (gold_index), so an extractor that names the country finds one of the two facts only."""
    first: dict[str, int] = {}
    rep: dict[int, int] = {}
    named: dict[int, set[str]] = defaultdict(set)
    for m in g.mentions:
        s = clean_name(g.text[m.start : m.end])
        c = gz.country_of_demonym(s) or canonical_country(s) or (s if s in gz.COUNTRIES else None)
        if c:
            named[m.entity].add(fold(c))
    for e in sorted(named):
        if len(named[e]) == 1:
            rep[e] = first.setdefault(next(iter(named[e])), e)
    return rep


def score(res: dict) -> dict:
    ex, prop = res["ex"], res["prop"]
    tp_by, fp_by, fn_by = Counter(), Counter(), Counter()
    fidelity_ok = fidelity_n = 0
    by_kind = defaultdict(lambda: [0, 0])  # subject found as -> [correct, total]
    bins = defaultdict(lambda: [0, 0])
    failures = defaultdict(list)
    n_assert = 0
    merged = [0, 0]  # gold facts and those found, a country's gold entities read as one (one_country)
    surfaces = getattr(ex, "surfaces", {})
    for g, doc, triples, aliases in res["docs"]:
        gold = gold_facts(g)
        idx = gold_index(g)
        found: dict[tuple, float] = {}
        for t in triples:
            n_assert += 1
            if t.predicate not in prop:
                continue
            pid, inv = prop[t.predicate]
            h, tl = (t.object, t.subject) if inv else (t.subject, t.object)
            gh, gt = match_entity(h, aliases.get(h, ()), idx), match_entity(tl, aliases.get(tl, ()), idx)
            key = (gh, gt, pid) if gh is not None and gt is not None else (h, tl, pid)
            ok = key in gold
            found[key] = max(found.get(key, 0.0), t.confidence)
            ev = doc.text[t.start : t.end] if t.start is not None else ""
            rec = surfaces.get((doc.id, t.start, t.end, t.subject, t.predicate, t.object))
            if rec is not None:
                sh, so, kh, ko = rec
                fidelity_n += 1
                fidelity_ok += (sh in ev) and (so in ev)
                if kh not in ("", "antecedent") and ko != "antecedent":  # a second selector repeats its triple
                    by_kind[kh][0] += ok  # how the triple's subject was found
                    by_kind[kh][1] += 1
            b = min(9, int(t.confidence * 10))
            bins[b][0] += ok
            bins[b][1] += 1
            if not ok:
                if gh is None or gt is None:
                    kind = "entity not in gold"
                elif any((gh, gt) == (a, b_) for a, b_, _ in gold):
                    kind = "wrong property for a related pair"
                elif any((gt, gh) == (a, b_) for a, b_, _ in gold):
                    kind = "direction reversed"
                else:
                    kind = "pair not related"
                failures[kind].append(f"{t.subject} {t.predicate} {t.object}  «{ev[:140]}»")
        for key in found:
            if key in gold:
                tp_by[key[2]] += 1
            else:
                fp_by[key[2]] += 1
        rep = one_country(g)
        one = {(rep.get(h, h), rep.get(t, t), pid) for h, t, pid in gold}
        merged[0] += len(one)
        found_one = {(rep.get(h, h), rep.get(t, t), pid) for h, t, pid in found}
        merged[1] += len(one & found_one)
        for key in gold - set(found):
            fn_by[key[2]] += 1
            h, tl, pid = key
            sents = lambda e: {m.sent for m in g.mentions if m.entity == e}  # noqa: E731
            kind = "missed, same sentence" if sents(h) & sents(tl) else "missed, across sentences"
            if (rep.get(h, h), rep.get(tl, tl), pid) in found_one:
                kind = "missed, a country's other gold entity (the fact found under its twin)"
            names = {m.entity: g.text[m.start : m.end] for m in g.mentions}
            failures[kind].append(f"{names.get(h)} {pid} {names.get(tl)}")
    tp, fp, fn = sum(tp_by.values()), sum(fp_by.values()), sum(fn_by.values())
    p = tp / max(1, tp + fp)
    r = tp / max(1, tp + fn)
    return {
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "precision": p,
        "recall": r,
        "f1": 2 * p * r / max(1e-9, p + r),
        "by": (tp_by, fp_by, fn_by),
        "fidelity": (fidelity_ok, fidelity_n),
        "by_kind": dict(by_kind),
        "bins": dict(bins),
        "failures": failures,
        "assertions": n_assert,
        "merged": tuple(merged),
    }


# Question templates per Wikidata property, asked about the head (the predicate's subject after alignment).
_ASK = {
    "P19": "Where was {h} born?",
    "P20": "Where did {h} die?",
    "P27": "What country is {h} a citizen of?",
    "P69": "Where was {h} educated?",
    "P108": "Who employed {h}?",
    "P26": "Who was {h} married to?",
    "P131": "Where is {h} located?",
    "P463": "What is {h} a member of?",
    "P361": "What is {h} part of?",
    "P166": "What award did {h} receive?",
    "P159": "Where is {h} headquartered?",
    "P40": "Who is a child of {h}?",
}
_INVENTED = [
    "Zorvath Quellineux",
    "Ambrosine Tekkelvard",
    "Ossian Prellwitz-Drummond",
    "Yaretzi Oblomkina",
    "Haldor Vinterskjold",
    "Corisande Mbeki-Laurent",
    "Tavish Oyelaran",
    "Lucinde Marrowgate",
]


def question_set(docs) -> list[dict]:
    """Answerable questions from the gold facts (one per property and head per document), and unanswerable
    ones: the same property asked about a person of the document who has no such fact, and invented names."""
    items = []
    for i, g in enumerate(docs):
        names = {}
        for m in g.mentions:
            names.setdefault(m.entity, g.text[m.start : m.end])
        gold = gold_facts(g)
        idx = gold_index(g)
        seen = set()
        for h, t, pid in sorted(gold):
            if pid not in _ASK or (h, pid) in seen:
                continue
            seen.add((h, pid))
            # an answer is right when a cited fact names a gold tail of this head, matched as the extraction
            # score matches names (gold_index: a mention's text, without a leading article, a demonym as its country;
            # then the names the extractor found for it in this document: "United States" for the document's "U.S.")
            tails = {t2 for h2, t2, p2 in gold if h2 == h and p2 == pid}
            items.append({"question": _ASK[pid].format(h=names[h]), "answerable": True, "tails": tails, "index": idx, "doc": i})
        persons = [e for e, ty in enumerate(g.entity_types) if ty == "PER" and e in names]
        for pid in ("P19", "P69", "P26"):
            free = [e for e in persons if not any(h == e and p == pid for h, _, p in gold)]
            if free:
                items.append({"question": _ASK[pid].format(h=names[free[0]]), "answerable": False})
                break
    for k, n in enumerate(_INVENTED):
        pid = sorted(_ASK)[k % len(_ASK)]
        items.append({"question": _ASK[pid].format(h=n), "answerable": False})
    return items


def ask_questions(docs, kind: str) -> dict:
    """Ingest the documents into an in-memory store as `ingest` does (loader, side tables), then ask."""
    from semantic_rdf.answer.answerer import Answerer, AnswerConfig
    from semantic_rdf.pipeline.load import load
    from semantic_rdf.hdc.memory import Memory, after_ingest_hook
    from semantic_rdf.pipeline.stages import Pipeline
    from semantic_rdf.store.assertions import AssertionStore

    texts = {f"redocred-{400 + i}.txt": g.text for i, g in enumerate(docs)}

    class _Texts:
        def ingest(self, ref: str):
            return [Doc(ref, ref, texts[ref], {"ref": ref})]

    store = AssertionStore.memory()
    ex = make(kind, None)
    pipe = Pipeline(_Texts(), normalizer=NORMALIZER, splitter=splitter_from_spec("sentences"), extractor=ex)
    load(store, pipe, list(texts), on_commit=after_ingest_hook(store), read_ahead="thread")
    ans = Answerer(Memory.attach(store), options=AnswerConfig(record=False))
    res = Counter()
    wrong = []
    for it in question_set(docs):
        a = ans.ask(it["question"], "balanced")
        if not it["answerable"]:
            res["unanswerable refused" if not a.allowed else "unanswerable answered"] += 1
            continue
        aliases = ex.aliases(f"redocred-{400 + it['doc']}.txt") if hasattr(ex, "aliases") else {}
        got = {match_entity(x, aliases.get(x, ()), it["index"]) for f in a.facts for x in (f.subject, f.object)}
        if not a.allowed:
            res["answerable refused"] += 1
        elif got & it["tails"]:
            res["answerable correct"] += 1
        else:
            res["answerable wrong"] += 1
            wrong.append(f"{it['question']} -> {[f'{f.subject} {f.predicate} {f.object}' for f in a.facts][:2]}")
    store.close()
    return {"counts": res, "wrong": wrong}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--extractor", default="statistical", choices=["statistical", "rules"])
    ap.add_argument("--docs", default="400:500")
    ap.add_argument("--floor", type=float, default=None)
    ap.add_argument("--curve", action="store_true", help="precision/recall at other floors too")
    ap.add_argument("--questions", action="store_true", help="also ingest the documents into a store and ask generated questions through `ask`")
    ap.add_argument("--failures", type=int, default=5, help="examples printed per failure kind")
    ap.add_argument("--weights", default=None, help="a weights directory other than the shipped one")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    global WEIGHTS
    WEIGHTS = args.weights
    a, b = (int(x) for x in args.docs.split(":"))
    docs = load_redocred(Path(args.data) / "redocred" / "dev_revised.json", a, b)
    res = run(docs, args.extractor, args.floor)
    s = score(res)
    tp_by, fp_by, fn_by = s["by"]
    floor = getattr(res["ex"], "floor", None)
    out = {
        "extractor": args.extractor,
        "documents": f"{a}-{b - 1}",
        "floor": floor,
        "precision": round(s["precision"], 4),
        "recall": round(s["recall"], 4),
        "f1": round(s["f1"], 4),
        "tp": s["tp"],
        "fp": s["fp"],
        "fn": s["fn"],
        "assertions_per_document": round(s["assertions"] / len(docs), 2),
        "span_fidelity": f"{s['fidelity'][0]}/{s['fidelity'][1]}",
        "mb_per_s": round(res["bytes"] / 1e6 / max(1e-9, res["seconds"]), 3),
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"Re-DocRED dev documents {a}-{b - 1}, extractor {args.extractor}, floor {floor}")
    print(f"overall   P {s['precision']:.3f}  R {s['recall']:.3f}  F1 {s['f1']:.3f}   (tp {s['tp']}, fp {s['fp']}, fn {s['fn']})")
    mg, mf = s["merged"]
    print(f"          recall {mf / max(1, mg):.3f} with a country's gold entities read as one ({mf} of {mg} gold facts; one_country)")
    print(
        f"assertions per document {out['assertions_per_document']}   span fidelity {out['span_fidelity']}"
        f"   throughput {out['mb_per_s']} MB/s (extraction only, one core)"
    )
    print("\nper property          P      R      F1    tp   fp   fn")
    from semantic_rdf.pipeline.statistical.alignment import alignment

    al = alignment()
    for pid in sorted(set(tp_by) | set(fp_by) | set(fn_by), key=lambda k: -(tp_by[k] + fn_by[k])):
        tp, fp, fn = tp_by[pid], fp_by[pid], fn_by[pid]
        p = tp / max(1, tp + fp)
        r = tp / max(1, tp + fn)
        f = 2 * p * r / max(1e-9, p + r)
        print(f"{pid:>6} {al.get(pid, ('?',))[0]:<14} {p:.3f}  {r:.3f}  {f:.3f} {tp:4d} {fp:4d} {fn:4d}")
    print("\nsubject found as   precision   (correct/total; antecedent = the second selector of a resolved subject)")
    for k, (c, n) in sorted(s["by_kind"].items()):
        print(f"  {k:<10}       {c / max(1, n):.3f}      ({c}/{n})")
    print("\nreliability: confidence bin -> observed precision (triples)")
    for bi in sorted(s["bins"]):
        c, n = s["bins"][bi]
        print(f"  [{bi / 10:.1f}, {(bi + 1) / 10:.1f})  {c / max(1, n):.3f}  ({c}/{n})")
    print("\nfailures by kind")
    for kind, items in sorted(s["failures"].items(), key=lambda kv: -len(kv[1])):
        print(f"  {kind}: {len(items)}")
        for x in items[: args.failures]:
            print(f"      {x}")
    if args.questions:
        q = ask_questions(docs, args.extractor)
        c = q["counts"]
        na = c["answerable correct"] + c["answerable wrong"] + c["answerable refused"]
        nu = c["unanswerable refused"] + c["unanswerable answered"]
        print(
            f"\nquestions through ask (balanced): answerable {na}: {c['answerable correct']} correct, "
            f"{c['answerable wrong']} wrong, {c['answerable refused']} refused "
            f"({c['answerable correct'] / max(1, na):.1%} correct); unanswerable {nu}: "
            f"{c['unanswerable refused']} refused ({c['unanswerable refused'] / max(1, nu):.1%})"
        )
        for x in q["wrong"][: args.failures]:
            print(f"      wrong: {x}")
    if args.curve and args.extractor == "statistical":
        print("\nprecision/recall by floor")
        for f in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
            sc = score(run(docs, args.extractor, f))
            print(f"  floor {f:.1f}   P {sc['precision']:.3f}  R {sc['recall']:.3f}  F1 {sc['f1']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
