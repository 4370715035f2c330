"""Tokens with offsets, and Re-DocRED documents turned back into plain text.

The run-time tokenizer and the training data share one tokenisation: a Re-DocRED document is
detokenised into ordinary text (gold mentions become character spans) and tokenised again with
`tokenize`, so the model never sees a token boundary it could not see at run time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Token", "tokenize", "web_address", "latin", "Mention", "GoldDoc", "load_redocred", "detokenize"]

# A web address or an e-mail address whole (a name is never read into one: `web_address`); a word
# (letters/digits, inner hyphens and apostrophes of names like O'Neill), an abbreviation with dots ("U.S.",
# "D.C."), a possessive or contraction tail, or any other single non-space character. A web address ends
# before the punctuation after it ("see https://example.org/x, or"). An e-mail address's parts are bounded
# (64 characters before the "@", as the standard allows, 63 a label): tried at each word of a run of words
# and symbols, an unbounded part would read to the run's end each time.
_URL = r"(?:[Hh][Tt][Tt][Pp][Ss]?://|[Ww][Ww][Ww]\.)[^\s<>\"'()\[\]{}]*[^\s<>\"'()\[\]{}.,;:!?]"
_EMAIL = r"[^\W_][\w.+-]{0,63}@[^\W_][\w-]{0,62}(?:\.[^\W_][\w-]{0,62}){1,8}"
_WEB = re.compile(f"{_URL}|{_EMAIL}")
_WORDS = (
    r"(?:[^\W\d_]\.){2,}"
    r"|[^\W_]+(?:['’](?![sS]\b)[^\W_]+)*(?:[-‐][^\W_]+(?:['’](?![sS]\b)[^\W_]+)*)*"
    r"|['’][sS]\b|n['’]t\b"
    r"|\S"
)
_TOKEN_RX = re.compile(_WORDS)
_TOKEN_WEB_RX = re.compile(f"{_URL}|{_EMAIL}|{_WORDS}")  # for text that may hold an address (most holds none)
_WEB_MARKS = ("@", "://", "www.", "WWW.")


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int


def latin(ch: str) -> bool:
    """Whether a letter is of the Latin script (Basic Latin to Latin Extended-B: "ō", "Ł", not "一", "М").

    >>> [latin(c) for c in "ōŁ一М"]
    [True, True, False, False]
    """
    return ord(ch) < 0x250


def web_address(token: str) -> bool:
    """Whether a token is a web or an e-mail address (`tokenize` keeps one whole).

    >>> [web_address(t) for t in ("https://example.org/Anna_Weiss", "anna.weiss@example.com", "Anna", "U.S.")]
    [True, True, False, False]
    """
    return _WEB.fullmatch(token) is not None


def tokenize(text: str, start: int = 0, end: int | None = None, offset: int = 0) -> list[Token]:
    """Tokens of text[start:end] with offsets into `text`, plus `offset` (a chunk's start in its document)."""
    end = len(text) if end is None else end
    rx = _TOKEN_WEB_RX if any(text.find(mark, start, end) >= 0 for mark in _WEB_MARKS) else _TOKEN_RX
    return [Token(m.group(), m.start() + offset, m.end() + offset) for m in rx.finditer(text, start, end)]


@dataclass(frozen=True, slots=True)
class Mention:
    start: int  # character offsets into the document text
    end: int
    type: str
    entity: int  # index into the document's vertexSet
    sent: int


@dataclass(frozen=True, slots=True)
class GoldDoc:
    title: str
    text: str
    sentences: tuple[tuple[int, int], ...]  # character spans
    mentions: tuple[Mention, ...]
    labels: tuple[tuple[int, int, str, tuple[int, ...]], ...]  # (head, tail, Wikidata property, evidence)
    entity_types: tuple[str, ...]


_NO_SPACE_BEFORE = {",", ".", ";", ":", "!", "?", ")", "]", "}", "%", "'s", "’s", "n't", "'", "''"}
_NO_SPACE_AFTER = {"(", "[", "{", "``", "$"}


def detokenize(sents: list[list[str]]) -> tuple[str, list[list[tuple[int, int]]], list[tuple[int, int]]]:
    """Text, each token's character span, each sentence's character span."""
    out: list[str] = []
    pos = 0
    spans: list[list[tuple[int, int]]] = []
    sent_spans: list[tuple[int, int]] = []
    for si, toks in enumerate(sents):
        row = []
        quote_open = False
        glue = False  # no space before the next token
        s0 = None
        for ti, tok in enumerate(toks):
            tok = tok.replace("\u00a0", " ").strip() or "_"
            space = bool(out)
            if tok in _NO_SPACE_BEFORE or glue:
                space = False
            if tok == '"':
                if quote_open:
                    space = False
                quote_open = not quote_open
            if (
                tok in ("-", "–")
                and ti > 0
                and ti + 1 < len(toks)
                and toks[ti - 1][-1:].isalnum()
                and toks[ti + 1][:1].isalnum()
                and toks[ti - 1][:1].isupper() == toks[ti + 1][:1].isupper()
                and not toks[ti + 1][:1].isdigit()
            ):
                space = False  # "Jean - Pierre" was one hyphenated word
                glue = True
            else:
                glue = tok in _NO_SPACE_AFTER or (tok == '"' and quote_open)
            if space:
                out.append(" ")
                pos += 1
            if s0 is None:
                s0 = pos
            out.append(tok)
            row.append((pos, pos + len(tok)))
            pos += len(tok)
        spans.append(row)
        sent_spans.append((s0 if s0 is not None else pos, pos))
    return "".join(out), spans, sent_spans


def load_redocred(path: str | Path, start: int = 0, stop: int | None = None) -> list[GoldDoc]:
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    docs = []
    for d in raw[start:stop]:
        text, tspans, sspans = detokenize(d["sents"])
        mentions = []
        types = []
        for ei, ent in enumerate(d["vertexSet"]):
            types.append(ent[0]["type"])
            for m in ent:
                row = tspans[m["sent_id"]]
                a, b = m["pos"]
                if not (0 <= a < b <= len(row)):
                    continue
                mentions.append(Mention(row[a][0], row[b - 1][1], m["type"], ei, m["sent_id"]))
        mentions.sort(key=lambda m: (m.start, -m.end))
        labels = tuple((lab["h"], lab["t"], lab["r"], tuple(lab.get("evidence", ()))) for lab in d["labels"])
        docs.append(GoldDoc(d["title"], text, tuple(sspans), tuple(mentions), labels, tuple(types)))
    return docs
