"""Compiled stage-1 kernel of the gate: min Hamming distance over packed bit rows, XOR and
popcount fused in one pass (numba). numpy has no fused XOR+popcount: its version writes the XOR
words and their popcounts to scratch and sums them, three passes where this makes one (docs/hdc.md
has the measured scan times against a plain read of the same bytes).

The gate imports this module only for large scans, so a small store never pays numba's import or
its one-time compilation (cached on disk after the first run). The numpy version in gate.py stays
the reference: tests hold the two to identical distances.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["min_distance_blocks"]


@numba.njit(inline="always")
def _popcount(x):
    # SWAR popcount; LLVM turns the pattern into the CPU's popcount instruction (vectorised
    # along the row loop when the CPU has AVX2/AVX-512)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(nogil=True, cache=True, boundscheck=False)
def min_distance_blocks(pref, q, nrows, lo, hi, out):  # pragma: no cover - compiled; tested through the gate
    """out[i, r] = min over query rows k of popcount(pref[i, :, r] ^ q[k]) for blocks lo..hi-1
    of a block-transposed matrix pref (blocks, W, B) uint64, rows past nrows left alone.
    Releases the GIL, so disjoint block ranges can run on several threads."""
    nq, wp = q.shape
    b = pref.shape[2]
    acc = np.empty(b, dtype=np.uint32)
    for i in range(lo, hi):
        width = min(b, nrows - i * b)
        for k in range(nq):
            acc[:width] = 0
            for w in range(wp):
                qw = q[k, w]
                for r in range(width):
                    acc[r] += np.uint32(_popcount(pref[i, w, r] ^ qw))
            if k == 0:
                for r in range(width):
                    out[i, r] = acc[r]
            else:
                for r in range(width):
                    if acc[r] < out[i, r]:
                        out[i, r] = acc[r]
