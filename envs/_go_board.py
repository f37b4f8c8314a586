"""What Go's rules (`holdemjax.envs.go`) and its record (`holdemjax.envs._go_record`) share:
the default komi, and the Zobrist keys that tell positions apart (the rules hash every
position with them; the record reads a move off the hash when the board does not show it)."""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["KOMI", "zobrist"]

KOMI = 7.5
_ZOBRIST_SEED = 0x60_9E37_79B9  # fixed: the same table in every process


@functools.cache
def zobrist(size: int) -> np.ndarray:
    """[2 (colour), size², 2 (words)] uint32: the Zobrist keys of a stone of each colour on each
    point, drawn by splitmix64 from a fixed seed (computed on first use, the same every time)."""
    n = 2 * size * size
    x = (np.uint64(_ZOBRIST_SEED) + np.uint64(0x9E3779B97F4A7C15)
         * np.arange(1, n + 1, dtype=np.uint64))
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    words = np.stack([x & np.uint64(0xFFFFFFFF), x >> np.uint64(32)], axis=-1).astype(np.uint32)
    return words.reshape(2, size * size, 2)
