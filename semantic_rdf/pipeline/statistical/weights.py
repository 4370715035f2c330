"""The shipped weights read and scored with: the CRF, the sentence and cross-sentence classifiers, their calibration
curves and the floor (`Weights`, `CrossHead`), and the manifest that names them. numpy only: training (train.py)
writes them with scikit-learn and python-crfsuite.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from itertools import chain, repeat
from pathlib import Path
from typing import cast

import numpy as np

from semantic_rdf.core.errors import InvalidInput, NotFound
from semantic_rdf.pipeline.statistical.cross import BAG_FAMILY, END_WORD_FAMILIES, CrossCandidates, CrossContext, end_words
from semantic_rdf.pipeline.statistical.mentions import SentMention

__all__ = [
    "Weights",
    "CrossHead",
    "WEIGHTS_DIR",
    "WEIGHT_FILES",
    "CROSS",
    "sha256_file",
    "load_manifest",
    "calibrated",
    "raw_floor",
    "crf_attributes",
]

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
WEIGHT_FILES = ("ner.crfsuite", "relations.npz", "features.json", "cross.npz", "cross.json", "calibration.json")
CROSS = "x:"  # calibration key prefix of the cross-sentence classifiers ("x:P131")
_MAX_SHARED = 65_536  # cross-sentence component sums kept across chunks (a few hundred in practice)
_MAX_WORDS = 262_144  # words whose cross-sentence feature columns are kept (`CrossHead._word_columns`)
_FAMILIES = (*END_WORD_FAMILIES, BAG_FAMILY)
# each end's position of a word family's column in `CrossHead._word_columns`
_END_SLOT = {side: {fam: k + len(_FAMILIES) * j for k, fam in enumerate(_FAMILIES)} for j, side in enumerate("ht")}


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_manifest(directory: Path | str | None = None) -> dict:
    path = Path(directory or WEIGHTS_DIR) / "manifest.json"
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise NotFound(f"statistical extractor weights: cannot read {path} ({exc.__class__.__name__})") from None


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _feature_ids(vocab: dict[str, int], feats: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Each row's feature count, and every feature's column in order (-1 for a name the model does not know):
    all rows' names looked up in one C-level map."""
    lens = np.fromiter(map(len, feats), dtype=np.intp, count=len(feats))
    ids = np.fromiter(map(vocab.get, chain.from_iterable(feats), repeat(-1)), dtype=np.intp, count=int(lens.sum()))
    return lens, ids


def _curves(cal: dict | None, pids: tuple[str, ...], prefix: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each property's reliability curve: its own when it had enough tuning facts, else the pooled one;
    the identity when the weights are read uncalibrated."""
    xs, ys = [], []
    for pid in pids:
        c = cal["by"].get(prefix + pid, cal["pooled"]) if cal else {"x": [0.0, 1.0], "y": [0.0, 1.0]}
        xs.append(np.array(c["x"]))
        ys.append(np.array(c["y"]))
    return xs, ys


def raw_floor(cal_x: list[np.ndarray], cal_y: list[np.ndarray], cache: dict, least: float) -> np.ndarray:
    """Per property, the raw probability at or below which the calibrated one stays under `least` (the curves
    are non-decreasing: the last knot under `least`); kept in `cache`."""
    got = cache.get(least)
    if got is None:
        got = np.empty(len(cal_x))
        for j, (x, y) in enumerate(zip(cal_x, cal_y)):
            hit = np.nonzero(y >= least)[0]
            got[j] = np.inf if not len(hit) else (x[hit[0] - 1] if hit[0] > 0 else -np.inf)
        cache[least] = got
    return got


def calibrated(p: np.ndarray, cal_x: list[np.ndarray], cal_y: list[np.ndarray], cache: dict, least: float = 0.02) -> np.ndarray:
    """Raw probabilities (pairs x relations) -> calibrated. Only entries that can reach `least` are
    interpolated (the rest are left at 0): below its curve's last knot under `least`, a raw probability
    cannot calibrate to `least` or more, the curves being non-decreasing. `cache` keeps each `least`'s
    raw thresholds."""
    floor_raw = raw_floor(cal_x, cal_y, cache, least)
    out = np.zeros_like(p)
    above = p > floor_raw
    for k in np.nonzero(above.any(axis=0))[0]:  # one interp per property over its rows (elementwise: same values)
        rows = above[:, k]
        out[rows, k] = np.interp(p[rows, k], cal_x[k], cal_y[k])
    return out


@dataclass
class CrossHead:
    """The classifiers of entity pairs that share no sentence (one logistic regression per property)."""

    vocab: dict[str, int]
    coef: np.ndarray  # (features, relations) float32
    intercept: np.ndarray
    relations: tuple[str, ...]
    cal_x: list[np.ndarray]
    cal_y: list[np.ndarray]
    _raw_floor: dict = field(default_factory=dict)
    # the weights' sums of shared components (CrossContext.SHARED_KINDS) by kind and code, and the numbers
    # of type and class names their codes are made of: both kept for the head's life
    _shared: dict = field(default_factory=dict)
    _ids: dict = field(default_factory=dict)
    # the weights are shared by every extractor of the process (`_cached_weights`): two threads numbering a new
    # name at once would give two names one number, and the kept sums of one key to another
    _numbering: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _bound: dict = field(default_factory=dict)  # the best sums of document-free keys, by `bound_keys` signature
    _words: dict = field(default_factory=dict)  # a word -> its features' columns (`_word_columns`)
    _end_cols: dict = field(default_factory=dict)  # an end signature -> its features' columns (`_end_columns`)
    _end_rows: dict = field(default_factory=dict)  # an end signature -> its features' sum in float64 (`_end_row`)
    _coef64: np.ndarray | None = None  # `_padded`

    def sums(self, feats: list[list[str]]) -> np.ndarray:
        """Each row's known features' weights summed (rows x relations), in feature order."""
        return self._sums(*_feature_ids(self.vocab, feats))

    def key_sums(self, ctx: CrossContext, keys: list[tuple]) -> np.ndarray:
        """`sums` of the features of each component key (`CrossContext.render`), the same floats. A key of
        one end or of a sentence's bag is read from the columns of its words' features, looked up once per
        word (`_word_columns`) and once per document-free end signature (`_end_columns`), not from
        strings made for every mention of every chunk: those strings were the most of the bound's time."""
        lens: list[int] = []
        cols: list[int] = []
        for key in keys:
            kind = key[0]
            if kind in ("h", "t"):
                side, i, sent, a, b, mkind, other = key
                got = [*self._end_columns(ctx.end_signature(side, i, mkind, other)), *self._own_columns(side, ctx.words[sent], a, b)]
            elif kind in ("hb", "tb"):
                got = self._bag_columns(kind[0], ctx.words[key[1]])
            else:
                got = [self.vocab.get(f, -1) for f in ctx.render(key)]
            lens.append(len(got))
            cols.extend(got)
        return self._sums(np.array(lens, dtype=np.intp), np.array(cols, dtype=np.intp))

    def _word_columns(self, word: str) -> tuple[int, ...]:
        """The columns of a word's features in every family of one end and of the bags (`_END_SLOT`'s order;
        -1 where the model has none), kept for the head's life (at most `_MAX_WORDS` words)."""
        got = self._words.get(word)
        if got is None:
            if len(self._words) >= _MAX_WORDS:
                self._words.clear()
            v = self.vocab
            got = self._words[word] = tuple(v.get(f"x_{side}{fam}={word}", -1) for side in "ht" for fam in _FAMILIES)
        return got

    def _own_columns(self, side: str, words: list[str], a: int, b: int) -> list[int]:
        """The columns of the features of an end's own words (`end_words`), in their order."""
        slot = _END_SLOT[side]
        return [self._word_columns(words[j])[slot[fam]] for fam, j in end_words(len(words), a, b)]

    def _bag_columns(self, side: str, words: list[str]) -> list[int]:
        """The columns of a sentence's bag of words (`sentence_bag`), in its order."""
        col = _END_SLOT[side][BAG_FAMILY]
        return [self._word_columns(w)[col] for w in sorted(set(words))]

    def _end_columns(self, signature: tuple) -> tuple[int, ...]:
        """The columns of an end's features other than its words (`CrossContext.end_features`), by signature."""
        got = self._end_cols.get(signature)
        if got is None:
            if len(self._end_cols) >= _MAX_SHARED:
                self._end_cols.clear()
            got = self._end_cols[signature] = tuple(self.vocab.get(f, -1) for f in CrossContext.end_features(signature))
        return got

    def _sums(self, lens: np.ndarray, ids: np.ndarray) -> np.ndarray:
        n = len(lens)
        out = np.zeros((n, len(self.relations)), np.float32)
        keep = ids >= 0
        counts = np.bincount(np.repeat(np.arange(n), lens)[keep], minlength=n)
        idx = ids[keep]
        if len(idx):
            full = counts > 0
            starts = (np.cumsum(counts) - counts)[full]
            out[full] = np.add.reduceat(self.coef[idx], starts, axis=0)
        return out

    def out_of_reach(self, ctx: CrossContext, ms: list[SentMention], ss: list[int], least: float) -> bool:
        """True when no pair of these mentions (`cross_mentions`) can score `least` for any property. The
        model is linear, so a pair's raw score is the sum of its components (`CrossContext.parts`), and for
        each type its head can have it is at most: the best type-pair key of that head type (over distances,
        orders and gazetteer classes), the best head mention of that type (its end against a tail type, its
        words) plus its own sentence's bag, the best tail mention against that head type plus its own
        sentence's bag, and a third entity's types when they add (`CrossContext.bound_keys`). Most chunks of
        prose are out of reach, and their pairs are then never made. The words of every mention and every bag
        are summed in one gather; an end's other features by signature, kept (`_end_row`)."""
        got = ctx.bound_keys(ms, ss)
        if got is None or not self.relations:
            return True
        htypes, ttypes, tails, p_sig, v_sig = got
        ents = ctx.state.entities
        words = ctx.words
        coef = self._padded()
        pad = len(coef) - 1
        # rows: each mention's words as a head, each tail's words as a tail, each sentence's bag for either side
        ends = [("h", k) for k in range(len(ms))] + [("t", k) for k in tails]
        hsents, tsents = sorted(set(ss)), sorted({ss[k] for k in tails})
        bags = [("h", s) for s in hsents] + [("t", s) for s in tsents]
        starts: list[int] = []
        cols: list[int] = []
        for side, k in ends:
            starts.append(len(cols))
            cols.append(pad)  # no row is empty: reduceat needs each to hold one column at least
            cols.extend(self._own_columns(side, words[ss[k]], ms[k].a, ms[k].b))
        for side, s in bags:
            starts.append(len(cols))
            cols.append(pad)
            cols.extend(self._bag_columns(side, words[s]))
        idx = np.array(cols, dtype=np.intp)
        sums = np.add.reduceat(coef[np.where(idx >= 0, idx, pad)], np.array(starts, dtype=np.intp), axis=0)
        n_h, n_t = len(ms), len(tails)
        bag_at = {b: sums[n_h + n_t + r] for r, b in enumerate(bags)}
        rows: dict[tuple, np.ndarray] = {}

        def end(side: str, m: SentMention, other: str) -> np.ndarray:
            key = (side, m.entity, m.kind, other)
            row = rows.get(key)
            if row is None:
                row = rows[key] = self._end_row(ctx.end_signature(side, m.entity, m.kind, other))
            return row

        bag_rows = [bag_at[("h", s)] for s in ss] + [bag_at[("t", ss[k])] for k in tails]
        own = sums[: n_h + n_t] + np.stack(bag_rows)  # each end's words and its sentence's bag
        # each head mention at its best tail type: the best head of each head type
        hends = [end("h", m, ttypes[0]) for m in ms]
        for tt in ttypes[1:]:
            hends = [np.maximum(r, end("h", m, tt)) for r, m in zip(hends, ms)]
        hrows = own[:n_h] + np.stack(hends)
        htype = np.array([ents[m.entity].type for m in ms])
        type_pairs, via = self._by_head_type(ctx, p_sig), self._by_head_type(ctx, v_sig)
        top = None
        for ht in htypes:
            h = hrows[htype == ht].max(axis=0)
            t = (own[n_h:] + np.stack([end("t", ms[k], ht) for k in tails])).max(axis=0)
            z = type_pairs[ht] + h + t + np.maximum(via.get(ht, 0.0), 0.0)
            top = z if top is None else np.maximum(top, z)
        if top is None:
            return True
        # a margin over float32 rounding: the bound is summed in float64, the scores in float32
        top = top + self.intercept.astype(np.float64)
        return bool(np.all(_sigmoid(top + 1e-3) <= raw_floor(self.cal_x, self.cal_y, self._raw_floor, least)))

    def _padded(self) -> np.ndarray:
        """The weights in float64 with a row of zeros after the last (the column of an unknown feature)."""
        if self._coef64 is None:
            self._coef64 = np.vstack([self.coef.astype(np.float64), np.zeros((1, self.coef.shape[1]))])
        return self._coef64

    def _end_row(self, signature: tuple) -> np.ndarray:
        """The sum of an end's features other than its words (`CrossContext.end_features`), by signature."""
        got = self._end_rows.get(signature)
        if got is None:
            if len(self._end_rows) >= _MAX_SHARED:
                self._end_rows.clear()
            cols = [c for c in self._end_columns(signature) if c >= 0]
            got = self._end_rows[signature] = self._padded()[cols].sum(axis=0)
        return got

    def _by_head_type(self, ctx: CrossContext, signature: tuple) -> dict[str, np.ndarray]:
        """The best sums of the document-free keys a `bound_keys` signature stands for, by the head's type
        (kept for the head's life: the same in every document)."""
        got = self._bound.get(signature)
        if got is None:
            if len(self._bound) >= _MAX_SHARED:
                self._bound.clear()
            keys = ctx.shared_keys(signature)
            sums = self.sums([list(ctx.render(k)) for k in keys]).astype(np.float64)
            got = {}
            for key, row in zip(keys, sums):
                ht = key[1] if key[0] == "p" else key[1].split("|")[0]
                got[ht] = row if ht not in got else np.maximum(got[ht], row)
            self._bound[signature] = got
        return got

    def score(self, ctx: CrossContext, pairs: CrossCandidates) -> np.ndarray:
        """Calibrated probabilities (pairs x relations). The model is linear: each of the pairs' components
        (cross.CrossContext) has its weights summed once, and a pair's score is the sum of its components',
        added in the components' order (so it is the sum of all its features' weights, as in training)."""
        if not len(pairs) or not self.relations:
            return np.zeros((len(pairs), len(self.relations)), np.float32)
        with self._numbering:
            groups = ctx.components(pairs, self._ids)
        tables: list[np.ndarray] = []
        todo: list[tuple[int, int, tuple]] = []  # (group, row, key) of the sums not kept
        for g, comp in enumerate(groups):
            table = np.empty((len(comp.codes), len(self.relations)), np.float32)
            kept = self._shared.get(comp.kind) if comp.kind in ctx.SHARED_KINDS else None
            for k, code in enumerate(comp.codes.tolist()):
                row = None if kept is None else kept.get(code)
                if row is None:
                    todo.append((g, k, cast(tuple, comp.key(k))))
                    continue
                table[k] = row
            tables.append(table)
        if todo:
            sums = self.key_sums(ctx, [key for _, _, key in todo])
            for (g, k, _), row in zip(todo, sums):
                tables[g][k] = row
                if groups[g].kind in ctx.SHARED_KINDS:
                    kept = self._shared.setdefault(groups[g].kind, {})
                    if len(kept) >= _MAX_SHARED:
                        kept.clear()
                    kept[int(groups[g].codes[k])] = row
        z = tables[0][groups[0].index]  # every pair has its type pair
        for comp, table in zip(groups[1:], tables[1:]):
            has = comp.index >= 0
            if has.all():
                z += table[comp.index]
            elif has.any():
                z[has] += table[comp.index[has]]
        return calibrated(_sigmoid(z + self.intercept), self.cal_x, self.cal_y, self._raw_floor)


def _classifiers(names: Path, arrays: Path, mismatch: str) -> tuple[dict, np.ndarray, np.ndarray]:
    """One set of logistic regressions as training wrote it: its feature and property names (JSON), and its
    coefficients (features x properties) and intercepts as float32; ValueError(`mismatch`) when their shapes disagree."""
    with open(names, encoding="utf-8") as f:
        meta = json.load(f)
    with np.load(arrays, allow_pickle=False) as z:
        coef = z["coef"].astype(np.float32)
        intercept = z["intercept"].astype(np.float32)
    if coef.shape != (len(meta["features"]), len(meta["relations"])) or intercept.shape != (coef.shape[1],):
        raise ValueError(mismatch)
    return meta, coef, intercept


@dataclass
class Weights:
    """The trained parts, read from a weights directory (the shipped one by default)."""

    directory: Path
    tagger: object
    vocab: dict[str, int]
    coef: np.ndarray  # (features, relations) float32
    intercept: np.ndarray  # (relations,)
    relations: tuple[str, ...]  # Wikidata property ids, one per column
    cal_x: list[np.ndarray]  # per relation: calibration knots (a logistic curve, train.py)
    cal_y: list[np.ndarray]
    floor: float
    manifest: dict
    cross: "CrossHead"
    # the measured precision of a fact read by table or rule: a town's located_in its country (towns.py), or a birth,
    # a death, a school or a spouse the rule extractor reads (`rule_pairs`); None when uncalibrated
    towns: float | None = None
    _raw_floor: dict = field(default_factory=dict)  # least calibrated value -> per relation raw threshold
    _keep: list = field(default_factory=list)  # the CRF's attributes, once read (crf_keep)
    _reading: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def crf_keep(self) -> frozenset[str] | None:
        """The attributes the tagger has weights for (`crf_attributes`), read once per Weights (whichever
        thread asks first reads them; the others wait for that)."""
        if not self._keep:
            with self._reading:
                if not self._keep:
                    self._keep.append(crf_attributes(self.tagger))
        return self._keep[0]

    @classmethod
    def load(cls, directory: Path | str | None = None, *, calibrated: bool = True) -> "Weights":
        import pycrfsuite

        d = Path(directory or WEIGHTS_DIR)
        for name in WEIGHT_FILES[:5]:
            if not (d / name).is_file():
                raise NotFound(
                    f"statistical extractor weights: {d / name} is missing (rebuild with python -m semantic_rdf.pipeline.statistical.train)"
                )
        try:
            tagger = pycrfsuite.Tagger()
            tagger.open(str(d / "ner.crfsuite"))
            meta, coef, intercept = _classifiers(d / "features.json", d / "relations.npz", "relation weights do not match the feature list")
            xmeta, xcoef, xintercept = _classifiers(d / "cross.json", d / "cross.npz", "cross-sentence weights do not match their feature list")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"statistical extractor weights in {d} are unreadable ({exc})") from None
        rels = tuple(meta["relations"])
        xrels = tuple(xmeta["relations"])
        cal: dict | None = None
        if calibrated and (d / "calibration.json").is_file():
            with open(d / "calibration.json", encoding="utf-8") as f:
                cal = json.load(f)
        floor = float(cal["floor"]) if cal else 0.5
        cal_x, cal_y = _curves(cal, rels, "")
        manifest = load_manifest(d) if (d / "manifest.json").is_file() else {}
        vocab = {name: i for i, name in enumerate(meta["features"])}
        cross = CrossHead({name: i for i, name in enumerate(xmeta["features"])}, xcoef, xintercept, xrels, *_curves(cal, xrels, CROSS))
        towns = float(cal["towns"]) if cal and cal.get("towns") is not None else None
        return cls(d, tagger, vocab, coef, intercept, rels, cal_x, cal_y, floor, manifest, cross, towns)

    def calibrate(self, p: np.ndarray, least: float = 0.02) -> np.ndarray:
        """Raw probabilities (pairs x relations) -> calibrated (see `calibrated`)."""
        return calibrated(p, self.cal_x, self.cal_y, self._raw_floor, least)

    def score(self, feats: list[list[str]]) -> np.ndarray:
        """Raw probabilities (pairs x relations) of one sentence's pairs."""
        return self.score_sentences(feats, [len(feats)])

    def score_sentences(self, feats: list[list[str]], sizes: list[int]) -> np.ndarray:
        """Raw probabilities (pairs x relations) of the pairs of consecutive sentences (`sizes` pairs each):
        each pair's weights summed in one gather and reduce.

        Per sentence this is the sum the weights were tuned with: the features of a pair in order and,
        for a sentence's last pair (when it has any known feature), feature 0's weights added last — a
        sentinel the one-sentence reduceat always let into its last range. Kept so the scores, and so the
        calibrated floor, stay exactly as trained. The names of all pairs are looked up in one C-level
        map and the unknown ones dropped with a numpy mask."""
        n = len(feats)
        lens, ids = _feature_ids(self.vocab, feats)
        keep = ids >= 0
        counts = np.bincount(np.repeat(np.arange(n), lens)[keep], minlength=n)
        idx = ids[keep]
        if not len(idx):
            return _sigmoid(np.tile(self.intercept, (n, 1)))
        last = np.cumsum([k for k in sizes if k]) - 1  # each sentence's last pair
        last = last[counts[last] > 0]
        # feature 0 goes in after the last known feature of each sentence's last pair
        ends = np.cumsum(counts)
        idx = np.insert(idx, ends[last], 0)
        counts[last] += 1
        starts = np.cumsum(counts) - counts
        if not counts[-1]:
            idx = np.append(idx, 0)  # an empty last row still needs a start inside the array (zeroed below)
        sums = np.add.reduceat(self.coef[idx], starts, axis=0)
        sums[counts == 0] = 0.0  # reduceat copies a row for an empty range
        return _sigmoid(sums + self.intercept)


# a state feature's line in CRFsuite's model dump: "  (0) ATTRIBUTE --> LABEL: WEIGHT" (no label holds " --> ")
_STATE_FEATURE = re.compile(r"^  \(\d+\) (.+) --> [^\n]*$", re.M)


def crf_attributes(tagger) -> frozenset[str] | None:
    """The attributes the CRF model has state weights for (read from its dump: `Weights.crf_keep` keeps
    them); None (hand the CRF every feature: slower, the same tags) when the dump cannot be written to a
    temp file. The dump's STATE_FEATURES section is read with one expression: `Tagger.info()` parses every
    line of the dump into Python objects, 0.25-0.4 s that every extracting process paid before its first
    sentence (0.05 s so; the same set, tests/test_statistical_speed.py)."""
    import tempfile

    try:
        with tempfile.TemporaryDirectory(prefix="semantic-rdf-crf-") as d:
            dump = Path(d) / "model.txt"
            tagger.dump(str(dump))
            text = dump.read_text(encoding="utf-8")
    except OSError:
        return None
    start = text.find("\nSTATE_FEATURES = {\n")
    if start < 0:
        return None
    end = text.find("\n}", start + 1)
    return frozenset(_STATE_FEATURE.findall(text, start, end if end > 0 else len(text)))
