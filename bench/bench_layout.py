"""The same real documents laid out several ways: do the extracted facts depend on the line breaks?

    python3 bench/bench_layout.py [--data ../shared/data/realtext] [--show N]

Each GUM document (its sentences' text, in its blocks as GUM marks them: a heading, a paragraph, an infobox
line) is written with a blank line between blocks; with a single line break between them, as text copied
from a web page often is; and hard-wrapped at 72, 40 and 30 columns, as e-mail and plain-text files are.
Each layout is read by the default (statistical) extractor through the sentence splitter `ingest` uses,
and its facts (document, subject, predicate, object) are compared with the blank-line layout's: how many
are in both, in this layout only, in that one only (N examples of the single-line-break layout's). A title
or heading read into the line below it makes names such as "Phoenix Phoenix"; a wrapped line cut as a title
breaks a sentence (docs/pipeline.md, "A title line").
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from semantic_rdf.core.values import Doc  # noqa: E402
from semantic_rdf.pipeline.split import splitter_from_spec  # noqa: E402

DEFAULT_DATA = next(
    (b / "shared" / "data" / "realtext" for b in (ROOT.parent, ROOT.parent.parent) if (b / "shared" / "data" / "realtext").is_dir()),
    ROOT.parent / "shared" / "data" / "realtext",
)


def blocks(path: Path) -> list[str]:
    """A GUM file's blocks (`# newpar` starts one), each its sentences' text joined by spaces."""
    out: list[str] = []
    cur: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# newpar") and not line.startswith("# newpar_block"):
            if cur:
                out.append(" ".join(cur))
            cur = []
        elif line.startswith("# text = "):
            cur.append(line[len("# text = ") :].strip())
    if cur:
        out.append(" ".join(cur))
    return out


def facts(files: list[Path], sep: str, width: int = 0) -> set[tuple[str, str, str, str]]:
    """The facts of every file with its blocks apart by `sep`, each wrapped at `width` columns (0: a line each)."""
    from semantic_rdf.pipeline.statistical import StatisticalExtractor

    ex = StatisticalExtractor()
    splitter = splitter_from_spec("sentences")
    out = set()
    for path in files:
        name = path.stem.removeprefix("GUM_")
        text = sep.join(textwrap.fill(b, width) if width else b for b in blocks(path)) + "\n"
        for chunk in splitter.split(Doc(name, name, text)):
            out.update((name, t.subject, t.predicate, t.object) for t in ex.extract(chunk))
    return out


LAYOUTS = (
    ("single line breaks", "\n", 0),
    ("wrapped at 72, blank lines", "\n\n", 72),
    ("wrapped at 40, blank lines", "\n\n", 40),
    ("wrapped at 30, blank lines", "\n\n", 30),
    ("wrapped at 72, single line breaks", "\n", 72),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--show", type=int, default=10, help="examples printed of the single-line-break layout's own facts")
    args = ap.parse_args(argv)
    files = sorted((Path(args.data) / "gum").glob("GUM_*.conllu"))
    if not files:
        print(f"no GUM files under {args.data}/gum", file=sys.stderr)
        return 2
    blank = facts(files, "\n\n")
    print(f"{len(files)} GUM documents; the blank-line layout: {len(blank)} facts")
    print(f"{'layout':36s} {'facts':>6s} {'in both':>8s} {'here only':>10s} {'there only':>11s}")
    for label, sep, width in LAYOUTS:
        got = facts(files, sep, width)
        print(f"{label:36s} {len(got):6d} {len(got & blank):8d} {len(got - blank):10d} {len(blank - got):11d}")
        if width == 0:
            for f in sorted(got - blank)[: args.show]:
                print("   ", " | ".join(f))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
