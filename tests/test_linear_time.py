"""Linear time under the size cap (issue 21, item 2).

Every regular expression the pipeline applies to document text is fed adversarial strings of about
1 MB (each under a second), the hostile documents of the issue are parsed in linear time, and each
is ingested or refused by the command line in under 5 s. All inputs are generated here.

The regex test enumerates the module-level compiled patterns of the text modules, so a new pattern
is tested without being listed. Its inputs are runs of one or two characters (the pattern's own
punctuation and a fixed alphabet) after a few prefixes (the pattern's literal words among them):
what makes a backtracking engine retry a run from each of its characters. Each string is tried at
8 K characters; the slowest few go on to 64 K (a quadratic pattern shows there, before it could hang
the suite at 1 MB) and then to 1 MB.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from semantic_rdf.pipeline import codespans, dates, extract, gazetteer, model_extract, sources as ingest, normalize, parse, split
from semantic_rdf.pipeline.statistical import definitions, extractor as statistical, names, tagging, text as tokens
from semantic_rdf.core.bounds import Bounds, ParseLimits
from semantic_rdf.core.errors import ParseError
from semantic_rdf.pipeline.sources import Ingest, IngestConfig, ingest_bytes
from semantic_rdf.pipeline.parse import html_to_text, parse as parse_doc, parse_markdown, render_json
from semantic_rdf.pipeline.split import Sentences, heading_spans, paragraph_spans, sentence_spans
from semantic_rdf.core.values import Chunk, Doc

ROOT = Path(__file__).resolve().parents[1]
MB = 1 << 20
MODULES = (split, parse, normalize, ingest, extract, dates, model_extract, gazetteer, codespans, tokens, names, tagging, definitions, statistical)


# ------------------------------------------------------------------ every module-level pattern


def _patterns(obj, out: list, depth: int = 0) -> None:
    if isinstance(obj, re.Pattern):
        out.append(obj)
    elif depth < 2 and isinstance(obj, dict):
        for v in obj.values():
            _patterns(v, out, depth + 1)
    elif depth < 2 and isinstance(obj, (list, tuple, set, frozenset)):
        for v in obj:
            _patterns(v, out, depth + 1)


def _all_patterns() -> list[tuple[str, re.Pattern]]:
    found = []
    for mod in MODULES:
        for name, value in vars(mod).items():
            pats: list[re.Pattern] = []
            _patterns(value, pats)
            seen = set()
            for i, p in enumerate(pats):
                if id(p) in seen:
                    continue
                seen.add(id(p))
                found.append((f"{mod.__name__.rsplit('.', 1)[1]}.{name}" + (f"[{i}]" if len(pats) > 1 else ""), p))
    return found


PATTERNS = _all_patterns()
BASE = " \t\n.!?#<>-'\"()[]`~=:,;/&aA1_*\u3002\u2019\ue000\ue001"


def _adversarial(p: re.Pattern) -> list[tuple[str, str]]:
    """(prefix, unit) pairs: the string is the prefix, the unit repeated, and a NUL that matches nothing."""
    src = p.pattern if isinstance(p.pattern, str) else p.pattern.decode("latin-1")
    own = sorted({c for c in src if not c.isalnum() and c not in "\\^$|{}+()?*"})[:16]  # the pattern's literals
    alpha = sorted(set(BASE) | set(own))
    words = sorted(set(re.findall(r"[A-Za-z]{2,}", src)), key=len, reverse=True)[:4]
    prefixes = ["", "a", "# a", "A ", "\n"] + words + ["<" + w for w in words] + [w + ":" for w in words]
    out = [(pre, c) for c in alpha for pre in prefixes]
    pair = sorted(set(own) | set(" \n.a"))
    out += [("", c + d) for c in pair for d in pair if c < d]
    return out


def _build(prefix: str, unit: str, n: int) -> str:
    return prefix + unit * (n // len(unit)) + "\x00"


def _cost(p: re.Pattern, s: str) -> float:
    data = s.encode("utf-8") if isinstance(p.pattern, bytes) else s
    t = time.perf_counter()
    p.findall(data)
    return time.perf_counter() - t


def test_the_enumeration_finds_the_patterns_that_were_quadratic():
    names = {n for n, _ in PATTERNS}
    assert {"split._END", "split._PARA", "parse._ATX", "normalize._TRAILING", "sources._META_CHARSET"} <= names
    # and four of the statistical extractor's, quadratic until 2026-12-07 (seventeenth session): its modules were not read
    assert {"names._TRAIL_STRIP", "names._NICKNAME", "tagging._LETTER_WORDS", "extractor._WHERE"} <= names
    assert len(PATTERNS) > 40


@pytest.mark.parametrize("name,pattern", PATTERNS, ids=[n for n, _ in PATTERNS])
def test_pattern_is_linear_on_adversarial_strings(name, pattern):
    cases = _adversarial(pattern)
    slowest = sorted(cases, key=lambda c: _cost(pattern, _build(*c, 8_000)), reverse=True)[:3]
    for prefix, unit in slowest:
        small = _cost(pattern, _build(prefix, unit, 64_000))
        assert small < 0.25, f"{name} took {small:.2f} s on 64,000 characters: {prefix!r} + {unit!r} x 64000"
        big = _cost(pattern, _build(prefix, unit, MB))
        # 16 times the text: a linear pattern takes about 16 times as long, a quadratic one 256 times. Under one second
        # passes outright; a loaded machine that slows both (text._WEB took 0.6 s idle and 1.27 s beside a training run)
        # passes on the ratio
        assert big < 1.0 or big < 40 * max(small, 0.005), (
            f"{name} took {big:.2f} s on {MB} characters ({small:.3f} s on 64,000): {prefix!r} + {unit!r}"
        )


@pytest.mark.parametrize(
    "unit",
    [
        "Anna Berg (12 May 1950{sp}x) met Bob Smith.\n",
        "Anna Berg (12 May 1950 in Oslo{sp}– 3 June 2001,{sp}x) met Bob Smith.\n",
        "Anna Berg (Oslo, Norway,{sp}12 May 1950{sp}–{sp}x) met Bob Smith.\n",
        "Anna Berg (born 12 May 1950,{sp}died{sp}3 June 2001{sp}x) met Bob Smith.\n",
        # the rules of a death after its date or age, and of a life in a relative clause (2026-12-08)
        "Anna Berg died in 1950,{sp}at his home{sp}x in Oslo.\n",
        "Anna Berg died in 1950{sp}at the age of 80{sp},{sp}x Oslo.\n",
        "Anna Berg died of{sp}a heart{sp}attack{sp}x in Oslo.\n",
        "Anna Berg was an old{sp}actor{sp}x who{sp}died{sp}x.\n",
        "Anna Berg is married to the{sp}actor{sp}x actor Tom.\n",
    ],
)
def test_a_life_in_parentheses_is_read_in_linear_time(unit):
    # the rules that read a birth or a death from a life's parenthesis (extract._LIFE) are compiled inside rules(), where
    # the enumeration above does not look; a run of spaces after a date had cost each sentence quadratic time (16.8 s
    # for 100 KB of such sentences, found by a helper's review). 100 KB either way: a few long runs take no longer than
    # many short ones. The long runs share 1,900 spaces: a sentence over 2,000 characters is not read at all (until
    # 2026-12-08 three of these four units had runs of 1,900 each, and their long sentences were never read)
    ex = extract.RuleExtractor()
    runs = unit.count("{sp}")

    def cost(spaces: int) -> float:
        one = unit.replace("{sp}", " " * spaces)
        assert len(one) <= ex.max_sentence
        text = one * (100_000 // len(one) + 1)
        chunk = Chunk("d", 0, text, 0, len(text))
        t = time.perf_counter()
        ex.extract(chunk)
        return time.perf_counter() - t

    short, long_ = cost(100 // runs), cost(1_900 // runs)
    assert long_ < 3 * short + 0.1, f"{long_:.2f} s with runs of {1_900 // runs:,} spaces against {short:.2f} s with runs of {100 // runs}"


# ------------------------------------------------------------------ the strings, through the functions


def _timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


@pytest.mark.parametrize("ch", [".", "!", "?", "\u2026"])
def test_sentence_end_run_is_linear(ch):
    text = "Ada Lovelace was born in London" + ch * MB
    spans, dt = _timed(sentence_spans, text)
    assert dt < 1.0, dt
    assert spans == [(0, len(text))]
    assert len(Sentences(1000).spans(text)) > 1000  # the splitter still cuts the long unit


def test_sentence_ends_after_long_words_and_title_lines_are_linear():
    # a "." after a token of more than 16 characters read the token from the text's start: each lower-cased all the
    # text before it (1.5 MB took 10 s)
    text = ("Title\n" + "x" * 70 + ".\n") * 20_000
    spans, dt = _timed(sentence_spans, text)
    assert dt < 1.0 and len(spans) == 20_000, dt
    text = "Ab\nCdef ghij.\n" * (MB // 16)  # every other line a title line
    spans, dt = _timed(sentence_spans, text)
    assert dt < 1.0 and len(spans) == MB // 8, dt
    spans, dt = _timed(sentence_spans, "A\n" + " " * MB + "B c.")
    assert dt < 1.0 and len(spans) == 2, dt


def test_other_names_are_read_back_a_few_tokens_only():
    """ "also known as" is read back from each name over a few dozen tokens: a sentence of many names, each after the
    phrase and closed brackets, costs each name the same (a name once read every token before it)."""
    from semantic_rdf.pipeline.statistical.names import before_known_as
    from semantic_rdf.pipeline.statistical.text import tokenize

    def read(n: int) -> tuple[int, float]:
        toks = tokenize("Ann Lee (born ( ( ) ) ), also known as " * n)
        return _timed(lambda: sum(toks[k].text == "Lee" for a in range(len(toks)) if (k := before_known_as(toks, a)) >= 0))

    (small, t1), (big, t2) = read(2_000), read(16_000)
    assert small == 2_000 - 1 and big == 16_000 - 1  # each name after the first renames the one before it
    assert t2 < max(1.0, 20 * t1), (t1, t2)


def test_blank_lines_and_fences_are_linear():
    spans, dt = _timed(paragraph_spans, "a\n" + " " * MB + "x")
    assert dt < 1.0 and spans == [(0, MB + 3)]
    text = "```\n" * (MB // 4)
    spans, dt = _timed(heading_spans, text)
    assert dt < 1.0 and spans == [(0, len(text))]  # a copy of the rest per fence line was quadratic


def test_markdown_heading_with_a_long_blank_run_is_linear():
    doc = Doc("d", "h.md", "# a" + " " * MB + "x\n", {"media_type": "text/markdown"})
    out, dt = _timed(parse_markdown, doc)
    assert dt < 1.0, dt
    assert out.meta["title"] == "a" + " " * MB + "x"
    assert parse_markdown(Doc("d", "h.md", "# Field notes ##  \n", {})).meta["title"] == "Field notes"
    assert parse_markdown(Doc("d", "h.md", "#\n# \n## Real\n", {})).meta["title"] == "Real"


def test_trailing_blanks_are_linear():
    text = "a" + " " * MB + "x \nend"
    out, dt = _timed(normalize.normalize, text)
    assert dt < 1.0, dt
    assert out == "a x\nend"


def test_html_drop_list_is_counted_not_scanned():
    html = "<svg>" * 100_000 + "</b>" * 100_000 + "</svg>" * 100_000 + "<p>Visible.</p>"
    (text, _), dt = _timed(html_to_text, html)
    assert text == "Visible."
    benign = "<p>Ada.</p>" * (len(html) // 11)
    _, base = _timed(html_to_text, benign)
    assert dt < 3 * base + 0.5, f"{dt:.2f} s against {base:.2f} s for benign HTML of the same size"


def test_unfinished_tags_at_the_end_are_text_in_linear_time():
    html = "<p>Ada Lovelace.</p>" + "<a" * 40_000
    (text, _), dt = _timed(html_to_text, html)
    assert dt < 1.0, dt
    assert text.startswith("Ada Lovelace.") and text.count("<a") == 40_000
    (text, _), dt = _timed(html_to_text, "<p>x</p>" + "<!--x>" * 100_000)
    assert dt < 1.0 and text.startswith("x") and text.count("<!--x>") == 100_000


def test_html_the_parser_cannot_do_linearly_is_cut_by_the_clock():
    html = "<p>a</p>" + "<![if x>" * 100_000 + ">"  # marked sections without a close: rescanned each time
    limits = ParseLimits(parse_seconds=0.5, seconds_per_mb=0)
    t = time.perf_counter()
    with pytest.raises(ParseError, match="not parsed within 0.5 s"):
        html_to_text(html, limits)
    assert time.perf_counter() - t < 2.0


def test_json_rendering_is_capped():
    value = {"k" * 10_000: [{"a": 1}] * 1000}  # each line repeats the 10,000-character path
    with pytest.raises(ParseError, match="text cap"):
        render_json(value, "x.json", max_text=1_000_000)
    assert render_json({"a": [{"b": 1}, {"c": [1, 2]}]}) == "a[0].b: 1\na[1].c: 1, 2"


# ------------------------------------------------------------------ glob


def test_glob_never_follows_symlinked_folders(tmp_path):
    g = tmp_path / "g"
    (g / "sub").mkdir(parents=True)
    (g / "a.txt").write_text("Ada Lovelace was born in London.\n")
    (g / "sub" / "b.txt").write_text("Alan Turing was born in London.\n")
    for i in range(3):
        os.symlink("..", g / f"up{i}")
    os.symlink(g / "sub", g / "link")
    os.chdir(tmp_path)
    cfg = IngestConfig(Bounds.make([tmp_path]))
    docs, dt = _timed(Ingest(cfg).ingest, "g/**/*.txt")
    assert dt < 1.0, dt
    assert [d.source for d in docs] == ["g/a.txt", "g/sub/b.txt"]


def test_glob_stops_at_the_file_cap_while_walking(tmp_path):
    g = tmp_path / "g"
    for i in range(30):
        (g / f"d{i:02d}").mkdir(parents=True)
        for j in range(10):
            (g / f"d{i:02d}" / f"f{j}.txt").write_text("x")
    cfg = IngestConfig(Bounds.make([tmp_path]), max_files=5)
    docs = Ingest(cfg).ingest(f"{tmp_path}/g/**/*.txt")
    assert len(docs) == 6 and "more than 5 files" in str(docs[-1].meta["error"])


def test_glob_keeps_globs_rules(tmp_path):
    g = tmp_path / "g"
    (g / ".hidden").mkdir(parents=True)
    (g / "x" / "y").mkdir(parents=True)
    for p in ("a.txt", "b.md", ".c.txt", ".hidden/d.txt", "x/e.txt", "x/y/f.txt", "x/y/g.md"):
        (g / p).write_text("x")
    cfg = IngestConfig(Bounds.make([tmp_path]), exclude=())
    names = lambda pat: [d.source for d in Ingest(cfg).ingest(f"{tmp_path}/g/{pat}")]  # noqa: E731
    assert names("*.txt") == ["g/a.txt"]
    assert names("**/*.txt") == ["g/a.txt", "g/x/e.txt", "g/x/y/f.txt"]
    assert names("*/*/*.md") == ["g/x/y/g.md"]
    assert names(".*") == ["g/.c.txt"]
    assert names("x/**") == ["x/e.txt", "x/y/f.txt", "x/y/g.md"]  # named by the fixed folder, as before


# ------------------------------------------------------------------ PDF


LINE = b"BT /F1 12 Tf 72 712 Td (Ada Lovelace was born in London. ) Tj ET\n"


def hostile_pdf(pages: int, stream_bytes: int, shared: bool = True) -> bytes:
    """A PDF whose `pages` pages all draw one content stream of `stream_bytes` of text (or each its own)."""
    comp = zlib.compress(LINE * max(1, stream_bytes // len(LINE)), 9)
    streams = 1 if shared else pages
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % (4 + streams + i) for i in range(pages)) + b"] /Count %d >>" % pages,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    objs += [b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(comp) + comp + b"\nendstream"] * streams
    for i in range(pages):
        objs.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>"
            b" /Contents %d 0 R >>" % (4 + (0 if shared else i))
        )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def test_pdf_pages_sharing_one_huge_stream_are_cut_quickly():
    data = hostile_pdf(2000, 1_000_000)
    assert len(data) < 400_000  # about the 317 KB
    t = time.perf_counter()
    with pytest.raises(ParseError) as e:
        parse_doc(ingest_bytes(data, "h.pdf")[0])
    assert time.perf_counter() - t < 5.0
    msg = str(e.value)
    assert "page cap: read the first 1000 of 2000 pages" in msg and "content over 524288 bytes" in msg
    assert "999 page(s) repeat an earlier page's content" in msg


def test_pdf_shared_stream_is_read_once_and_reported():
    doc = parse_doc(ingest_bytes(hostile_pdf(50, 20_000), "s.pdf")[0])
    assert doc.meta["pages"] == 1 and doc.meta["pages_total"] == 50
    assert doc.text.count("Ada Lovelace") == 20_000 // len(LINE)
    assert any("49 page(s) repeat" in n for n in doc.meta["notes"])


def test_pdf_page_and_text_caps():
    data = hostile_pdf(6, 3_000, shared=False)
    doc = parse.AutoParser(limits=ParseLimits(max_pages=4)).parse(ingest_bytes(data, "p.pdf")[0])
    assert doc.meta["pages"] == 4 and doc.meta["notes"] == ("page cap: read the first 4 of 6 pages",)
    doc = parse.AutoParser(limits=ParseLimits(max_text=2_500)).parse(ingest_bytes(data, "p.pdf")[0])
    assert len(doc.text) <= 2_500 + 2 and doc.meta["pages"] == 2
    assert "text cap of 2500 characters reached at page 2 of 6" in doc.meta["notes"][0]


# ------------------------------------------------------------------ end to end, through the command line


def _cli(store: Path, *args: str, cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "semantic_rdf", "--store", str(store), "ingest", *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd
    )
    return proc, time.monotonic() - t


def _hostile_files(d: Path) -> dict[str, str]:
    (d / "dots.txt").write_text("Ada Lovelace was born in London" + "." * 64_000)
    (d / "bangs.txt").write_text("Ada Lovelace was born in London" + "!" * 64_000)
    (d / "heading.md").write_text("# a" + " " * 200_000 + "x")
    (d / "drop.html").write_text("<svg>" * 100_000 + "</b>" * 100_000)
    (d / "tags.html").write_text("<html>" + "<a" * 40_000)
    (d / "shared.pdf").write_bytes(hostile_pdf(2000, 1_000_000))
    g = d / "g"
    g.mkdir()
    (g / "a.txt").write_text("Ada Lovelace was born in London.\n")
    for i in range(3):
        os.symlink("..", g / f"up{i}")
    return {
        "dots.txt": "dots.txt",
        "bangs.txt": "bangs.txt",
        "heading.md": "heading.md",
        "drop.html": "drop.html",
        "tags.html": "tags.html",
        "shared.pdf": "shared.pdf",
        "glob": "g/**/*.txt",
    }


def test_each_hostile_document_is_ingested_or_refused_in_under_5_s(tmp_path):
    docs = tmp_path / "in"
    docs.mkdir()
    refs = _hostile_files(docs)
    (docs / "plain.txt").write_text("Ada Lovelace was born in London.\n")
    # interpreter start-up and opening a store cost the same for every run; on a busy machine they are
    # seconds, so each hostile run is measured against a run over a one-line file
    base, base_t = _cli(tmp_path / "s0", "plain.txt", cwd=docs)
    assert base.returncode == 0, base.stderr
    for name, ref in refs.items():
        proc, dt = _cli(tmp_path / f"s-{name}", ref, cwd=docs)
        assert proc.returncode in (0, 2), f"{name}: {proc.stderr}"
        if proc.returncode == 2:
            assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert dt - base_t < 5.0, f"{name}: {dt:.1f} s, a one-line file {base_t:.1f} s"


def test_csv_with_a_huge_column_name_is_refused_in_linear_time():
    data = b"h" * 100_000 + b"\n" + b"x\n" * 500_000  # every row would render the long name again (50 G chars)
    t = time.perf_counter()
    [failed] = ingest_bytes(data, "wide.csv")
    assert time.perf_counter() - t < 2.0
    assert isinstance(failed.meta["error"], ParseError) and "CSV renders to more than" in str(failed.meta["error"])
    rows = ingest_bytes(b"name,city\n" + b"Ada,London\n" * 20_000, "people.csv")
    assert len(rows) == 20_000 and len({d.id for d in rows}) == 1  # same bytes, same id, as before
