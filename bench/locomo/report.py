"""Tables, statistics and the floor-sweep plot for a harness run.

Everything is computed from the per-question arrays of `harness.Results` with numpy: a
question's score is `f1_answer` when its confidence reaches the floor and `f1_decline`
otherwise, so any floor can be re-applied without asking again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from bench.locomo.scorer import CATEGORIES

__all__ = ["roc_auc", "summarize", "sweep", "bootstrap", "build_report", "to_markdown", "write_outputs", "FLOORS"]

FLOORS = np.round(np.arange(0.0, 1.0001, 0.05), 2)
_ORDER = (4, 1, 2, 3, 5)  # single-hop, multi-hop, temporal, open-domain, adversarial


def roc_auc(signal: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve of `signal` for telling positives from negatives (ties count half).

    Mann–Whitney form with average ranks, so it is O(n log n). NaN when a class is empty.
    """
    signal = np.asarray(signal, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(signal, kind="mergesort")
    s = signal[order]
    ranks = np.empty(len(s))
    # average rank over runs of ties
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    ends = np.r_[starts[1:], len(s)]
    avg = (starts + ends + 1) / 2.0  # 1-based ranks
    ranks[order] = np.repeat(avg, ends - starts)
    u = ranks[positive].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def _scores(a: Mapping[str, np.ndarray], mask: np.ndarray, floor: float) -> np.ndarray:
    return np.where(a["confidence"][mask] >= floor, a["f1_answer"][mask], a["f1_decline"][mask])


def _mean(x: np.ndarray) -> float | None:
    return float(x.mean()) if x.size else None


def _nanmean(x: np.ndarray) -> float | None:
    x = x[~np.isnan(x)]
    return float(x.mean()) if x.size else None


def summarize(a: Mapping[str, np.ndarray], arm: str, floor: float) -> dict[str, Any]:
    m = a["arm"] == arm
    cat = a["category"][m]
    f = _scores(a, m, floor)
    quiet = a["confidence"][m] < floor
    rec = a["recall"][m]
    groups = {CATEGORIES[c]: cat == c for c in _ORDER}
    groups["answerable"] = cat != 5
    groups["adversarial"] = cat == 5
    groups["overall"] = np.ones_like(cat, dtype=bool)
    out: dict[str, Any] = {}
    for name, g in groups.items():
        out[name] = {
            "n": int(g.sum()),
            "f1": _mean(f[g]),
            "recall": _nanmean(rec[g]),
            "quiet": _mean(quiet[g].astype(np.float64)),
        }
    out["auc"] = roc_auc(-a["confidence"][m], cat == 5)
    return out


def sweep(a: Mapping[str, np.ndarray], arm: str, floors: np.ndarray = FLOORS) -> dict[str, list[float]]:
    """Answerable / adversarial / overall F1 and the quiet share at each floor, in one matrix pass."""
    m = a["arm"] == arm
    conf, cat = a["confidence"][m], a["category"][m]
    answered = conf[None, :] >= floors[:, None]
    f = np.where(answered, a["f1_answer"][m][None, :], a["f1_decline"][m][None, :])
    adv = cat == 5

    def col(mask: np.ndarray) -> list[float]:
        return [float(x) for x in (f[:, mask].mean(axis=1) if mask.any() else np.full(len(floors), np.nan))]

    return {
        "floor": [float(x) for x in floors],
        "answerable": col(~adv),
        "adversarial": col(adv),
        "overall": col(np.ones_like(adv)),
        "quiet": [float(x) for x in (~answered).mean(axis=1)],
    }


def bootstrap(
    a: Mapping[str, np.ndarray],
    arms: Sequence[str],
    floor: float,
    resamples: int = 2000,
    seed: int = 0,
    pair: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """95% percentile intervals over conversations (resampled with replacement, seeded).

    Each resample weighs every conversation by how often it was drawn; the metric is the
    micro-average over the drawn conversations' questions, as in the point estimate. With
    `pair`, the same draws give an interval for the difference pair[0] − pair[1].
    """
    convs = sorted(set(a["conv"].tolist()))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(convs), size=(resamples, len(convs)))
    weights = np.stack([np.bincount(d, minlength=len(convs)) for d in draws]).astype(np.float64)

    def sums(arm: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        m = a["arm"] == arm
        f = _scores(a, m, floor)
        conv, cat = a["conv"][m], a["category"][m]
        out = {}
        for name, g in (("answerable", cat != 5), ("adversarial", cat == 5)):
            s = np.array([f[g & (conv == c)].sum() for c in convs])
            n = np.array([float((g & (conv == c)).sum()) for c in convs])
            out[name] = (s, n)
        return out

    def ci(values: np.ndarray) -> list[float]:
        lo, hi = np.nanpercentile(values, [2.5, 97.5])
        return [float(lo), float(hi)]

    per = {arm: sums(arm) for arm in arms}
    result: dict[str, Any] = {"resamples": resamples, "seed": seed, "conversations": convs, "arms": {}}
    with np.errstate(invalid="ignore", divide="ignore"):
        for arm in arms:
            result["arms"][arm] = {name: ci((weights @ s) / (weights @ n)) for name, (s, n) in per[arm].items()}
        if pair and pair[0] in per and pair[1] in per:
            result["difference"] = {"arms": list(pair)}
            for name in ("answerable", "adversarial"):
                s1, n1 = per[pair[0]][name]
                s0, n0 = per[pair[1]][name]
                result["difference"][name] = ci((weights @ s1) / (weights @ n1) - (weights @ s0) / (weights @ n0))
    return result


def build_report(
    a: Mapping[str, np.ndarray],
    arms: Sequence[str],
    floor: float,
    *,
    settings: Mapping[str, Any],
    skipped: Mapping[str, str] | None = None,
    resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    arms = [x for x in arms if (a["arm"] == x).any()]
    report: dict[str, Any] = {
        "settings": dict(settings),
        "floor": floor,
        "arms": {arm: summarize(a, arm, floor) for arm in arms},
        "sweep": {arm: sweep(a, arm) for arm in arms},
        "skipped": dict(skipped or {}),
    }
    first = a["arm"] == arms[0] if arms else np.zeros(0, dtype=bool)
    report["always_decline"] = {
        "overall": _mean(a["f1_decline"][first]),
        "answerable": _mean(a["f1_decline"][first][a["category"][first] != 5]),
        "adversarial": _mean(a["f1_decline"][first][a["category"][first] == 5]),
    }
    if "oracle" in arms:
        report["reader_ceiling"] = summarize(a, "oracle", 0.0)["answerable"]["f1"]
    pair = ("scoped", "flat") if {"scoped", "flat"} <= set(arms) else None
    report["bootstrap"] = bootstrap(a, arms, floor, resamples, seed, pair)
    return report


def _f(x: float | None, d: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{d}f}"


def to_markdown(report: Mapping[str, Any]) -> str:
    arms = list(report["arms"])
    lines = [f"F1 (official metric) · evidence recall · quiet share, at floor {report['floor']:.2f}", ""]
    lines.append("| category | n | " + " | ".join(f"{arm} F1 | r | quiet" for arm in arms) + " |")
    lines.append("|---|---:|" + "---:|---:|---:|" * len(arms))
    for name in [CATEGORIES[c] for c in _ORDER if c != 5] + ["answerable", "adversarial", "overall"]:
        row = report["arms"][arms[0]][name]
        cells = []
        for arm in arms:
            r = report["arms"][arm][name]
            cells.append(f"{_f(r['f1'])} | {_f(r['recall'])} | {_f(100 * r['quiet'] if r['quiet'] is not None else None, 0)}%")
        lines.append(f"| {name} | {row['n']} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| abstention ROC AUC | " + " | ".join(f"{arm} {_f(report['arms'][arm]['auc'])}" for arm in arms) + " |")
    lines.append("|---|" + "---|" * len(arms))
    lines.append("")
    ad = report["always_decline"]
    lines.append(f"Always declining: overall {_f(ad['overall'])}, answerable {_f(ad['answerable'])}, adversarial {_f(ad['adversarial'])}.")
    if "reader_ceiling" in report:
        lines.append(f"Reader ceiling (oracle evidence, floor 0): answerable {_f(report['reader_ceiling'])}.")
    b = report["bootstrap"]
    lines.append("")
    lines.append(f"95% bootstrap intervals over {len(b['conversations'])} conversations ({b['resamples']} resamples):")
    lines.append("")
    lines.append("| arm | answerable | adversarial |")
    lines.append("|---|---|---|")
    for arm, ci in b["arms"].items():
        lines.append(f"| {arm} | [{_f(ci['answerable'][0])}, {_f(ci['answerable'][1])}] | [{_f(ci['adversarial'][0])}, {_f(ci['adversarial'][1])}] |")
    if "difference" in b:
        d = b["difference"]
        lines.append(
            f"| {d['arms'][0]} − {d['arms'][1]} | [{_f(d['answerable'][0], 3)}, {_f(d['answerable'][1], 3)}] | "
            f"[{_f(d['adversarial'][0], 3)}, {_f(d['adversarial'][1], 3)}] |"
        )
    lines.append("")
    lines.append("Floor sweep (answerable / adversarial / overall / quiet):")
    lines.append("")
    lines.append("| floor | " + " | ".join(arms) + " |")
    lines.append("|---:|" + "---|" * len(arms))
    floors = report["sweep"][arms[0]]["floor"]
    for i, fl in enumerate(floors):
        if round(fl * 100) % 10 and abs(fl - report["floor"]) > 1e-9:
            continue  # every 0.1 plus the chosen floor; the JSON holds every 0.05
        cells = []
        for arm in arms:
            s = report["sweep"][arm]
            cells.append(f"{_f(s['answerable'][i])}/{_f(s['adversarial'][i])}/{_f(s['overall'][i])}/{_f(100 * s['quiet'][i], 0)}%")
        lines.append(f"| {fl:.2f} | " + " | ".join(cells) + " |")
    for arm, why in report.get("skipped", {}).items():
        lines.append("")
        lines.append(f"Arm `{arm}` not run: {why}.")
    return "\n".join(lines) + "\n"


def plot_sweep(report: Mapping[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    colours = {"flat": "tab:blue", "scoped": "tab:red", "oracle": "tab:green", "gate": "tab:purple"}
    for arm, s in report["sweep"].items():
        c = colours.get(arm)
        ax.plot(s["floor"], s["answerable"], "-", color=c, label=f"{arm} answerable")
        ax.plot(s["floor"], s["adversarial"], "--", color=c, label=f"{arm} adversarial")
    ax.axvline(report["floor"], color="grey", lw=0.8, ls=":")
    ax.set_xlabel("confidence floor")
    ax.set_ylabel("F1 (official LoCoMo metric)")
    ax.set_title("LoCoMo: floor sweep")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _json_safe(x: Any) -> Any:
    if isinstance(x, float):
        return None if np.isnan(x) else x
    if isinstance(x, Mapping):
        return {str(k): _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    return x


def write_outputs(report: Mapping[str, Any], out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "locomo.json", "markdown": out / "locomo.md", "plot": out / "floor-sweep.png"}
    paths["json"].write_text(json.dumps(_json_safe(report), indent=2, allow_nan=False) + "\n", encoding="utf-8")
    paths["markdown"].write_text(to_markdown(report), encoding="utf-8")
    plot_sweep(report, paths["plot"])
    return paths
