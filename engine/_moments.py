"""Per-row count, mean and variance of a systems × examples array, in bounded blocks.

Below the score matrix (:attr:`engine._matrix.ScoreMatrix.moments` reads it) and the
statistics' kernels (:mod:`engine.stats._kernels` re-exports it), so that the matrix,
which every folder uses, depends on no folder above it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BLOCK_CELLS", "row_blocks", "row_moments"]

# Working memory: blocks of about this many cells (8 bytes each: 16 MB), whatever the size
# of the systems × examples matrix, so no step holds a full-size temporary.
BLOCK_CELLS = 2_000_000


def row_blocks(n_rows: int, n_cols: int, cells: int) -> list[slice]:
    """Slices of rows holding at most ``cells`` cells each (at least one row)."""
    height = max(1, min(n_rows, cells // max(n_cols, 1)))
    return [slice(start, min(start + height, n_rows)) for start in range(0, n_rows, height)]


def row_moments(x: np.ndarray, *,
                cells: int = BLOCK_CELLS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-row count, mean and variance (ddof=1) ignoring NaN, in blocks of rows.

    Same numbers as ``(~isnan).sum``, ``nanmean`` and ``nanvar(ddof=1)`` (variance 0
    below 2 values), without their full-size temporaries: blocks of at most ``cells``
    cells.
    """
    n = np.empty(len(x))
    mean = np.empty(len(x))
    var = np.empty(len(x))
    for rows in row_blocks(x.shape[0], x.shape[1], cells):
        block = x[rows]
        total = block.sum(axis=1)
        if np.isfinite(total).all():  # no NaN (nor inf): the same sums without the masks
            count = np.full(len(block), float(block.shape[1]))
            centre = total / np.maximum(count, 1)
            dev = block - centre[:, None]
            sq = np.multiply(dev, dev, out=dev).sum(axis=1)  # in place: one temporary, same sums
        else:
            has = ~np.isnan(block)
            count = has.sum(axis=1).astype(float)
            centre = np.where(has, block, 0.0).sum(axis=1) / np.maximum(count, 1)
            sq = (np.where(has, block - centre[:, None], 0.0) ** 2).sum(axis=1)
        n[rows], mean[rows], var[rows] = count, centre, sq / np.maximum(count - 1, 1)
    return n, mean, var
