"""Hyperdimensional vectors: the subword and SimHash encoders, their fusion, and packed bit maths.

Vectors are bipolar (+1/-1, held as int8) while being computed, and bit-packed for storage and
scanning: bit 1 means +1, `np.packbits(..., bitorder="little")`, so D = 10,000 dimensions cost
1,250 bytes. The cosine of two bipolar vectors is 1 - 2 * hamming / D.

Everything random is derived from hashes, never from a global RNG: an n-gram's vector is the
SHAKE-256 expansion of MD5(salt + n-gram), and the SimHash projection's signs are the bits of a
SHAKE-256 stream. Both are byte-for-byte stable across runs, machines and numpy versions, which
matters because packed vectors are stored in the side tables.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from functools import lru_cache
from itertools import islice
from typing import Callable, Iterable, Iterator, Protocol, Sequence

import numpy as np

from semantic_rdf.core.errors import InvalidInput
from semantic_rdf.core.identity import fold

__all__ = [
    "WordVectorSource",
    "Encoder",
    "words",
    "ngrams",
    "iter_ngrams",
    "CHUNK_GRAMS",
    "ngram_bits",
    "subword_vector",
    "simhash_vector",
    "projection_matrix",
    "fuse",
    "bind",
    "permute",
    "bundle",
    "pack",
    "unpack",
    "hamming",
    "cosine",
    "cosine_packed",
    "split_words",
    "ENCODER_VERSION",
]

ENCODER_VERSION = "hdc-v2"  # v2: sign projection (v1: Gaussian); stored vectors re-encode

# A "word" for both paths: a run of letters/digits. Underscores separate words, so the
# predicate born_in and the phrase "born in" encode identically.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


class WordVectorSource(Protocol):
    """Dense word vectors for the semantic path (see semantic_rdf.hdc.wordvectors)."""

    dim: int
    signature: str

    def vector(self, word: str) -> np.ndarray | None:
        """A unit-length float32 vector for a lower-cased word, or None if not covered."""


# ---------------------------------------------------------------- bit helpers


def pack(v: np.ndarray) -> np.ndarray:
    """Bipolar (…, D) -> uint8 (…, D/8); +1 becomes bit 1."""
    v = np.asarray(v)
    if v.shape[-1] % 8:
        raise InvalidInput(f"dimension {v.shape[-1]} is not a multiple of 8")
    return np.packbits(v > 0, axis=-1, bitorder="little")


def unpack(p: np.ndarray | bytes, dim: int | None = None) -> np.ndarray:
    """uint8 (…, D/8) or bytes -> int8 bipolar (…, D)."""
    if isinstance(p, (bytes, bytearray, memoryview)):
        p = np.frombuffer(p, dtype=np.uint8)
    bits = np.unpackbits(np.asarray(p, dtype=np.uint8), axis=-1, bitorder="little")
    if dim is not None:
        if dim > bits.shape[-1]:
            raise InvalidInput(f"packed vector holds {bits.shape[-1]} bits, {dim} asked")
        bits = bits[..., :dim]
    out = bits.astype(np.int8)
    out *= 2
    out -= 1
    return out


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamming distance between packed uint8 vectors, broadcast over leading axes."""
    return np.bitwise_count(np.bitwise_xor(a, b)).sum(axis=-1, dtype=np.int64)


def cosine_packed(a: np.ndarray, b: np.ndarray, dim: int) -> np.ndarray | float:
    """Cosine of packed bipolar vectors: 1 - 2 * hamming / dim."""
    return 1.0 - 2.0 * hamming(np.asarray(a, np.uint8), np.asarray(b, np.uint8)) / dim


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine of two dense vectors (bipolar or real)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 0.0
    return float(a @ b / (na * nb))


def split_words(packed: np.ndarray, prefix_dims: int) -> tuple[np.ndarray, np.ndarray]:
    """Packed uint8 (N, D/8) -> (prefix uint64 (N, Wp), rest uint64 (N, Wr)).

    The prefix holds dimensions [0, prefix_dims) and the rest [prefix_dims, D); each part is
    zero-padded to whole 64-bit words. Zero padding on both sides of an XOR adds nothing to a
    Hamming distance, so no masking is needed later.
    """
    packed = np.atleast_2d(np.asarray(packed, dtype=np.uint8))
    if prefix_dims % 8:
        raise InvalidInput("prefix_dims must be a multiple of 8")
    cut = prefix_dims // 8
    return _to_words(packed[:, :cut]), _to_words(packed[:, cut:])


def _to_words(b: np.ndarray) -> np.ndarray:
    n, nbytes = b.shape
    words = -(-nbytes // 8)
    out = np.zeros((n, words * 8), dtype=np.uint8)
    out[:, :nbytes] = b
    return out.view("<u8").astype(np.uint64, copy=False)


# ---------------------------------------------------------------- algebra


def bind(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise product of bipolar vectors (self-inverse: bind(bind(a, b), b) == a)."""
    return (np.asarray(a, np.int8) * np.asarray(b, np.int8)).astype(np.int8)


def permute(a: np.ndarray, k: int = 1) -> np.ndarray:
    """Cyclic shift by k positions (Π^k); breaks commutativity of binding."""
    return np.roll(a, k, axis=-1)


def bundle(vectors: Sequence[np.ndarray] | np.ndarray, tie: np.ndarray | None = None) -> np.ndarray:
    """Majority vote of bipolar vectors.

    Ties (even counts) are broken by `tie`, by default the first vector. A fixed pattern (all +1,
    or one seeded pattern shared by every bundle) would make unrelated bundles agree on every
    tied dimension; a member of the bundle carries no such shared bias.
    """
    m = np.asarray(vectors, dtype=np.int32)
    if m.ndim != 2 or m.shape[0] == 0:
        raise InvalidInput("bundle needs a non-empty 2-D stack of vectors")
    s = m.sum(axis=0)
    t = m[0] if tie is None else np.asarray(tie)
    return np.where(s > 0, 1, np.where(s < 0, -1, np.where(t > 0, 1, -1))).astype(np.int8)


# ---------------------------------------------------------------- subword path


def words(text: str) -> list[str]:
    """Folded (Go-exact lower-case) words of a string; a string with none is kept whole."""
    if not isinstance(text, str):
        raise InvalidInput(f"expected text, got {type(text).__name__}")
    f = fold(text)
    if not f:
        raise InvalidInput("cannot encode an empty string")
    found = _WORD.findall(f)
    return found or [f]


def ngrams(word: str, sizes: Iterable[int] = (3, 4, 5)) -> list[str]:
    """Character n-grams of the boundary-marked word "#word#", in order, for every size."""
    return list(iter_ngrams(word, sizes))


def iter_ngrams(word: str, sizes: Iterable[int] = (3, 4, 5)) -> Iterator[str]:
    """`ngrams`, one at a time (a long word's n-grams are never all held at once)."""
    marked = f"#{word}#"
    for n in sizes:
        for i in range(len(marked) - n + 1):
            yield marked[i : i + n]


def _ngram_count(word: str, sizes: Sequence[int]) -> int:
    return sum(max(0, len(word) + 3 - n) for n in sizes)


def _raw_ngram_bits(gram: str, dim: int, salt: str) -> bytes:
    digest = hashlib.md5((salt + "\x00" + gram).encode("utf-8")).digest()
    return hashlib.shake_256(digest).digest(dim // 8)


@lru_cache(maxsize=65536)
def ngram_bits(gram: str, dim: int, salt: str) -> bytes:
    """The packed bipolar vector of one n-gram: SHAKE-256 expansion of MD5(salt, n-gram)."""
    return _raw_ngram_bits(gram, dim, salt)


# n-grams unpacked at a time: a (CHUNK_GRAMS, D) uint8 block, 5 MB at D = 10,000, whatever the length
# of the text. Unpacking all of them at once made a 120,000-character name a 360,000 x 10,000 matrix
# (3.6 GB) during `ask`.
CHUNK_GRAMS = 512  # at most 65,535: a chunk's counts are summed in 16 bits
# texts longer than this are keys of the encoding cache by their SHA-256 digest, so the cache's size does
# not grow with the length of the names it holds
CACHE_MAX_CHARS = 1024


def _cache_key(text: str) -> str | bytes:
    if len(text) <= CACHE_MAX_CHARS:
        return text
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def subword_vector(text: str, dim: int, sizes: Sequence[int], salt: str) -> np.ndarray:
    """Superpose the n-gram vectors of every word and binarise.

    With an even number of n-grams a dimension can tie; the first n-gram decides it (it counts
    1.5). That keeps the tie rule deterministic and specific to the string, so unrelated strings
    share no bias.

    The n-grams are generated lazily and unpacked CHUNK_GRAMS at a time into a running count of
    ones per dimension, so memory is bounded whatever the length of the text; the counts are
    integers, so the result is exactly that of unpacking them all at once. A text of more than one
    chunk of n-grams bypasses the shared n-gram cache (its n-grams would evict those of the short
    names that recur) for a cache of its own, capped at CHUNK_GRAMS entries (a repetitive name
    is hashed once per distinct n-gram).
    """
    ws = words(text)
    total = sum(_ngram_count(w, sizes) for w in ws)
    if total:
        grams: Iterable[str] = (g for w in ws for g in iter_ngrams(w, sizes))
    else:
        grams, total = [f"#{fold(text)}#"], 1
    bits_of: Callable[[str, int, str], bytes] = ngram_bits
    if total > CHUNK_GRAMS:
        seen: dict[str, bytes] = {}  # this text's own n-grams, the first CHUNK_GRAMS distinct ones

        def own_bits(g: str, dim: int, salt: str) -> bytes:
            b = seen.get(g)
            if b is None:
                b = _raw_ngram_bits(g, dim, salt)
                if len(seen) < CHUNK_GRAMS:
                    seen[g] = b
            return b

        bits_of = own_bits
    nb = dim // 8
    ones = np.zeros(dim, dtype=np.int64)
    first: np.ndarray | None = None
    it = iter(grams)
    while chunk := list(islice(it, CHUNK_GRAMS)):
        raw = np.frombuffer(b"".join(bits_of(g, dim, salt) for g in chunk), dtype=np.uint8)
        bits = np.unpackbits(raw.reshape(len(chunk), nb), axis=1, bitorder="little")
        if first is None:
            first = bits[0].astype(np.int32) * 2 - 1
        ones += np.add.reduce(bits, axis=0, dtype=np.uint16)  # a chunk's counts fit 16 bits, summed faster than int64
    s = 2 * ones - total
    assert first is not None  # there is always at least one n-gram
    return np.where(s > 0, 1, np.where(s < 0, -1, first)).astype(np.int8)


# ---------------------------------------------------------------- semantic path


@lru_cache(maxsize=4)
def projection_matrix(dim: int, in_dim: int, seed: int) -> np.ndarray:
    """A fixed (dim, in_dim) matrix of random signs (+1/-1), float32, one bit each from a SHAKE-256 stream.

    Signs rather than Gaussians: for the dense unit vectors projected here, a sign projection estimates
    angles as well, and the matrix costs one bit of stream per entry instead of two 32-bit draws and a
    Box-Muller transform, which every process that encodes a question pays (docs/hdc.md has the figures).
    """
    n = dim * in_dim
    raw = hashlib.shake_256(f"semantic-rdf/simhash-signs/{seed}/{dim}/{in_dim}".encode()).digest((n + 7) // 8)
    signs = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")[:n].astype(np.float32)
    signs *= 2.0  # in place: one matrix allocated, not three (a fresh process pays for each page it touches)
    signs -= 1.0
    return signs.reshape(dim, in_dim)


def simhash_vector(x: np.ndarray, dim: int, seed: int) -> np.ndarray:
    """Sign random projection of a dense vector: cos of outputs ~ 1 - 2*angle/pi of inputs."""
    x = np.asarray(x, dtype=np.float32)
    r = projection_matrix(dim, x.shape[0], seed)
    y = r @ x
    return np.where(y >= 0, 1, -1).astype(np.int8)


def fuse(h_sim: np.ndarray, h_sub: np.ndarray) -> np.ndarray:
    """sign(h_sim + h_sub); where the two disagree (sum 0) the tie goes to Π¹(h_sub).

    Why not a fixed tie pattern: roughly half the dimensions tie, so any pattern shared by all
    strings (all +1 in the original, or one seeded ±1 pattern) makes two unrelated fused vectors
    agree on a quarter of the dimensions, cos ≈ 0.25. The shifted subword vector is specific to
    the string and independent of both summands dimension by dimension, so unrelated strings stay
    at cos ≈ 0 while near-identical spellings still agree on their tied dimensions.
    """
    h_sim = np.asarray(h_sim, np.int8)
    h_sub = np.asarray(h_sub, np.int8)
    return np.where(h_sim == h_sub, h_sub, np.roll(h_sub, 1)).astype(np.int8)


# ---------------------------------------------------------------- the encoder


class Encoder:
    """Text -> bipolar hypervector, fusing the subword path with SimHash'd word vectors.

    Entities, predicates and query words all go through the same pure function of the string,
    so equal strings give equal vectors everywhere. Results are cached (LRU, packed).
    """

    def __init__(
        self,
        *,
        dim: int = 10_000,
        ngram_sizes: Sequence[int] = (3, 4, 5),
        subword_salt: str = "semantic-rdf/subword/v1",
        simhash_seed: int = 42,
        word_vectors: WordVectorSource | None = None,
        cache_size: int = 16384,
    ):
        if dim <= 0 or dim % 8:
            raise InvalidInput(f"dimension must be a positive multiple of 8, got {dim}")
        sizes = tuple(int(n) for n in ngram_sizes)
        if not sizes or min(sizes) < 1:
            raise InvalidInput(f"bad n-gram sizes {ngram_sizes!r}")
        self.dim = dim
        self.ngram_sizes = sizes
        self.subword_salt = subword_salt
        self.simhash_seed = int(simhash_seed)
        self.word_vectors = word_vectors
        self._cache: OrderedDict[str | bytes, bytes] = OrderedDict()
        self._cache_size = cache_size

    @property
    def signature(self) -> str:
        """Changes whenever the same text could encode differently (stored vectors then go stale)."""
        wv = self.word_vectors.signature if self.word_vectors is not None else "none"
        return f"{ENCODER_VERSION}|D={self.dim}|n={','.join(map(str, self.ngram_sizes))}|salt={self.subword_salt}|seed={self.simhash_seed}|wv={wv}"

    def subword(self, text: str) -> np.ndarray:
        return subword_vector(text, self.dim, self.ngram_sizes, self.subword_salt)

    def semantic(self, text: str) -> np.ndarray | None:
        """SimHash of the mean of the covered words' unit vectors; None if no word is covered.

        The vectors are summed CHUNK_GRAMS words at a time, so a text of many words holds one chunk
        of them; a text of up to one chunk takes the plain mean (as it always did)."""
        if self.word_vectors is None:
            return None
        acc: np.ndarray | None = None
        count = 0
        vecs: list[np.ndarray] = []
        for w in words(text):
            v = self.word_vectors.vector(w)
            if v is None:
                continue
            vecs.append(v)
            if len(vecs) == CHUNK_GRAMS:
                part = np.asarray(vecs, dtype=np.float32).sum(axis=0, dtype=np.float64)
                acc = part if acc is None else acc + part
                count += len(vecs)
                vecs = []
        if acc is None:
            if not vecs:
                return None
            x = np.mean(np.asarray(vecs, dtype=np.float32), axis=0)
        else:
            if vecs:
                acc = acc + np.asarray(vecs, dtype=np.float32).sum(axis=0, dtype=np.float64)
                count += len(vecs)
            x = (acc / count).astype(np.float32)
        n = float(np.linalg.norm(x))
        if n == 0.0:
            return None
        return simhash_vector(x / n, self.dim, self.simhash_seed)

    def encode(self, text: str) -> np.ndarray:
        """Bipolar int8 (D,)."""
        return unpack(self.encode_packed(text), self.dim)

    def encode_packed(self, text: str) -> bytes:
        """Packed (D/8 bytes)."""
        key = _cache_key(text)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        h_sub = self.subword(text)
        h_sim = self.semantic(text)
        v = h_sub if h_sim is None else fuse(h_sim, h_sub)
        out = pack(v).tobytes()
        self._cache[key] = out
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return out

    def encode_many(self, texts: Iterable[str]) -> np.ndarray:
        """Packed uint8 (n, D/8)."""
        rows = [self.encode_packed(t) for t in texts]
        if not rows:
            return np.zeros((0, self.dim // 8), dtype=np.uint8)
        return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), self.dim // 8)
