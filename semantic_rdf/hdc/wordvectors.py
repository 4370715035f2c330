"""Word vectors for the HDC semantic path, read from local files only.

Default: the `wordllama` wheel's 256-d static token embeddings (l2_supercat_256.safetensors) and
its Llama-2 BPE tokenizer (l2_supercat_tokenizer_config.json), loaded straight from the installed
package directory. `WordLlama.load()` is never called: it tries to download the tokenizer.

Optional: a GloVe text file ("word v1 v2 … vd" per line) that the user names.

A word counts as covered only if it is one whole vocabulary entry: for the tokenizer that means a
single BPE piece (in lower-case or capitalised form, whichever is one piece). Averaging the
pieces of a split word ("▁par" + "is") gives a vector unrelated to the word, so such words take
the subword path only.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from semantic_rdf.core.errors import InvalidInput, SourceError

__all__ = ["WordLlamaVectors", "TabledWords", "GloVeVectors", "default_word_vectors", "wordllama_files"]

_MAX_HEADER = 1 << 20


def wordllama_files(package_dir: str | os.PathLike | None = None) -> tuple[Path, Path]:
    """(weights .safetensors, tokenizer .json) inside the installed wordllama package."""
    if package_dir is None:
        import importlib.util

        spec = importlib.util.find_spec("wordllama")
        if spec is None or spec.origin is None:
            raise SourceError("the wordllama package is not installed (pip install wordllama)")
        package_dir = Path(spec.origin).parent
    base = Path(package_dir)
    weights = sorted((base / "weights").glob("*_256.safetensors")) or sorted((base / "weights").glob("*.safetensors"))
    toks = sorted((base / "tokenizers").glob("*.json"))
    if not weights or not toks:
        raise SourceError(f"no wordllama weights/tokenizer files under {base}")
    return weights[0], toks[0]


def _safetensors_matrix(path: Path) -> np.ndarray:
    """The single 2-D tensor of a safetensors file (a JSON header + raw data), memory-mapped read-only in its
    stored dtype: a process that looks up a few words reads a few rows, not the whole matrix."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) != 8:
            raise SourceError(f"{path}: not a safetensors file")
        (n,) = struct.unpack("<Q", head)
        if n <= 0 or n > _MAX_HEADER:
            raise SourceError(f"{path}: implausible safetensors header length {n}")
        try:
            header = json.loads(f.read(n))
        except ValueError as e:
            raise SourceError(f"{path}: bad safetensors header: {e}") from None
        size = os.fstat(f.fileno()).st_size
    tensors = {k: v for k, v in header.items() if k != "__metadata__"}
    if len(tensors) != 1:
        raise SourceError(f"{path}: expected one tensor, found {sorted(tensors)}")
    (meta,) = tensors.values()
    dtypes = {"F16": "<f2", "F32": "<f4", "BF16": None}
    dt = dtypes.get(meta.get("dtype"))
    shape = meta.get("shape")
    if dt is None or not isinstance(shape, list) or len(shape) != 2:
        raise SourceError(f"{path}: unsupported tensor {meta.get('dtype')} {shape}")
    start, end = meta["data_offsets"]
    if end - start != shape[0] * shape[1] * np.dtype(dt).itemsize or 8 + n + end > size:
        raise SourceError(f"{path}: tensor data is truncated")
    return np.memmap(path, dtype=dt, mode="r", offset=8 + n + start, shape=(shape[0], shape[1]))


class WordLlamaVectors:
    """Static token embeddings of the installed wordllama wheel, mean-centred and unit-normalised.

    The matrix is memory-mapped, so only the rows looked up are read; the tokenizer loads when a word is
    first split into pieces, the mean row when a vector is first read."""

    def __init__(self, weights: str | os.PathLike | None = None, tokenizer: str | os.PathLike | None = None, *, max_pieces: int = 1):
        if weights is None or tokenizer is None:
            w, t = wordllama_files()
            weights = weights or w
            tokenizer = tokenizer or t
        self._weights, self._tokenizer = Path(weights), Path(tokenizer)
        self._tok = None
        self._emb = _safetensors_matrix(self._weights)  # mapped, not read
        self._centre: np.ndarray | None = None
        self._max_chars = 0
        self.max_pieces = int(max_pieces)
        self.dim = int(self._emb.shape[1])
        st = os.stat(weights)
        self.signature = f"wordllama:{self._weights.name}:{st.st_size}:pieces={self.max_pieces}"

    @property
    def tokenizer(self):
        if self._tok is None:
            from tokenizers import Tokenizer  # a wordllama dependency

            self._tok = Tokenizer.from_file(str(self._tokenizer))
            # each piece spells at most as many characters as its vocabulary string holds (byte tokens
            # such as <0x41> spell fewer), so a longer word never fits in max_pieces pieces
            longest = max((len(t) for t in self._tok.get_vocab()), default=0)
            self._max_chars = longest * self.max_pieces
        return self._tok

    @property
    def max_chars(self) -> int:
        self.tokenizer  # noqa: B018 (loading it measures the longest entry)
        return self._max_chars

    @property
    def centre(self) -> np.ndarray:
        """The mean row (1, dim), float32: removed from every row looked up (unrelated words then score ~0)."""
        if self._centre is None:
            self._centre = self._emb.mean(axis=0, keepdims=True, dtype=np.float32)
        return self._centre

    def use_centre(self, centre: np.ndarray) -> None:
        """Take `centre` as computed before for these weights (a cache of it, e.g. the side tables') instead
        of reading every row to compute it. Ignored once the centre is known."""
        c = np.asarray(centre, dtype=np.float32).reshape(1, -1)
        if c.shape[1] != self.dim or not np.all(np.isfinite(c)):
            raise ValueError(f"a centre of {c.shape[1]} components for {self.dim}-d vectors")
        if self._centre is None:
            self._centre = c

    def _rows(self, ids: list[int]) -> np.ndarray:
        # rows are unit-normalised when a word is looked up, not all 32,000 up front: a process that asks
        # one question reads a few rows
        return self._emb[ids].astype(np.float32) - self.centre

    def pieces(self, word: str) -> list[int]:
        """Token ids of the variant (as given, or capitalised) that splits into the fewest pieces."""
        best: list[int] | None = None
        for variant in (word, word[:1].upper() + word[1:]):
            ids = self.tokenizer.encode(variant, add_special_tokens=False).ids
            if ids and (best is None or len(ids) < len(best)):
                best = ids
        return best or []

    def one_piece_words(self) -> Iterator[tuple[str, int]]:
        """(word, piece id) for every alphanumeric word the tokenizer reads as exactly one piece: for those,
        `piece_vector(id)` is `vector(word)`, so a table of them answers one-piece lookups without the tokenizer.
        (A one-piece reading of a word is the vocabulary entry "▁" + word, but not every such entry is one
        piece when the word is encoded, so each is checked by encoding it.)"""
        tok = self.tokenizer
        found = [(t[1:], i) for t, i in tok.get_vocab().items() if t[:1] == "\u2581" and t[1:].isalnum()]
        for (word, i), enc in zip(found, tok.encode_batch([w for w, _ in found], add_special_tokens=False)):
            if enc.ids == [i]:
                yield word, i

    def piece_vector(self, piece: int) -> np.ndarray | None:
        """`vector(word)` for a word read as the one piece `piece`; LookupError for an id the vocabulary
        does not have (a damaged table of pieces)."""
        if not isinstance(piece, int) or not 0 <= piece < self._emb.shape[0]:
            raise LookupError(f"no piece {piece!r} in the vocabulary")
        return self._mean_unit((piece,))

    def vector(self, word: str) -> np.ndarray | None:
        # A word longer than max_pieces of the longest vocabulary entries cannot be covered; it is not
        # tokenized (BPE over a 120,000-letter word) nor kept as a cache key.
        if not word or not word.isalnum():
            return None
        if len(word) > self.max_chars:
            return None
        return self._vector(word)

    @lru_cache(maxsize=65536)
    def _vector(self, word: str) -> np.ndarray | None:
        ids = self.pieces(word)
        if not ids or len(ids) > self.max_pieces:
            return None
        return self._mean_unit(tuple(ids))

    @lru_cache(maxsize=65536)
    def _mean_unit(self, ids: tuple[int, ...]) -> np.ndarray | None:
        rows = self._rows(list(ids))
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        v = (rows / norms).mean(axis=0)
        n = float(np.linalg.norm(v))
        return None if n == 0 else (v / n).astype(np.float32)


class TabledWords:
    """`base`'s vectors for one-piece words, found through `piece_of` (a table built from
    `base.one_piece_words()`, e.g. the side tables') instead of the tokenizer: what `base.vector` gives when
    max_pieces is 1, without loading the tokenizer. `piece_of` returns None for a word not in the table, or
    raises LookupError when it has no table (then `base` answers)."""

    def __init__(self, base: WordLlamaVectors, piece_of: Callable[[str], int | None]):
        if base.max_pieces != 1:
            raise ValueError("a table of one-piece words stands in only for max_pieces=1")
        self.base, self._piece_of = base, piece_of
        self.dim, self.signature = base.dim, base.signature
        self._known: dict[str, np.ndarray | None] = {}  # an ingest looks the same words up again and again

    def vector(self, word: str) -> np.ndarray | None:
        if word in self._known:
            return self._known[word]
        v = self._lookup(word)
        if len(self._known) < 1 << 16 and len(word) <= 64:
            self._known[word] = v
        return v

    def _lookup(self, word: str) -> np.ndarray | None:
        if not word or not word.isalnum():
            return None
        try:
            for variant in (word, word[:1].upper() + word[1:]):
                piece = self._piece_of(variant)
                if piece is not None:
                    return self.base.piece_vector(piece)
        except LookupError:
            return self.base.vector(word)
        return None


class GloVeVectors:
    """Vectors from a GloVe-format text file the user names (first `max_vocab` lines)."""

    def __init__(self, path: str | os.PathLike, *, max_vocab: int = 50_000):
        p = Path(path)
        if not p.is_file():
            raise SourceError(f"GloVe file not found: {p}")
        vocab: dict[str, int] = {}
        rows: list[np.ndarray] = []
        dim = None
        h = hashlib.sha256()
        with open(p, "r", encoding="utf-8", errors="strict") as f:
            for lineno, line in enumerate(f, 1):
                if len(vocab) >= max_vocab:
                    break
                h.update(line.encode("utf-8"))
                parts = line.rstrip("\n").split(" ")
                if len(parts) < 2:
                    raise InvalidInput(f"{p}:{lineno}: expected 'word v1 v2 …'")
                try:
                    vec = np.asarray(parts[1:], dtype=np.float32)
                except ValueError:
                    raise InvalidInput(f"{p}:{lineno}: non-numeric vector component") from None
                if dim is None:
                    dim = vec.shape[0]
                elif vec.shape[0] != dim:
                    raise InvalidInput(f"{p}:{lineno}: {vec.shape[0]} components, expected {dim}")
                if not np.all(np.isfinite(vec)):
                    raise InvalidInput(f"{p}:{lineno}: non-finite vector component")
                word = parts[0].lower()
                if word not in vocab:
                    vocab[word] = len(rows)
                    rows.append(vec)
        if not rows:
            raise InvalidInput(f"{p}: no vectors")
        emb = np.vstack(rows)
        emb -= emb.mean(axis=0, keepdims=True)
        norms = np.linalg.norm(emb, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self._emb = emb / norms
        self._vocab = vocab
        assert dim is not None  # set with the first row
        self.dim = int(dim)
        self.signature = f"glove:{p.name}:{len(vocab)}:{h.hexdigest()[:16]}"

    def vector(self, word: str) -> np.ndarray | None:
        i = self._vocab.get(word)
        return None if i is None else self._emb[i]


@lru_cache(maxsize=1)
def default_word_vectors() -> WordLlamaVectors:
    """The shipped default (one per process; its parts load on first use)."""
    return WordLlamaVectors()
