"""Distinct rows of count arrays: the compression behind the closed form's moments and the
learned prior's fit on large leaderboards (each distinct count vector computed once, weighted
by how often it occurs)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["distinct_rows_by_group", "unique_rows"]


def unique_rows(arr: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Distinct rows of a 2-D array in lexicographic order, the index of each row's distinct
    row, and how often each occurs: every column is coded by its distinct values and the
    codes are combined into one integer key (a byte view of the rows when the key would not
    fit in 62 bits); several times faster than :func:`numpy.unique` with ``axis=0``."""
    a = np.ascontiguousarray(arr, dtype=np.float64) + 0.0  # -0.0 and 0.0 are one value
    key = np.zeros(a.shape[0], dtype=np.int64)
    span = 1
    for j in range(a.shape[1]):
        values, codes = np.unique(a[:, j], return_inverse=True)
        span *= values.size
        if span >= 2**62:
            view = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
            _, first, inverse, counts = np.unique(
                view, return_index=True, return_inverse=True, return_counts=True
            )
            return a[first], inverse.ravel(), counts
        key = key * values.size + codes.ravel()
    _, first, inverse, counts = np.unique(
        key, return_index=True, return_inverse=True, return_counts=True
    )
    return a[first], inverse.ravel(), counts


def distinct_rows_by_group(
    arr: NDArray, keep: NDArray | None = None, *, block: int = 1 << 20
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    """The distinct rows of each group of ``arr`` (shape ``(G, U, K)``; rows where ``keep`` is
    False left out), sorted by group: ``(group, rows, multiplicity)``. Groups are processed
    in blocks of about ``block`` rows, so the memory is bounded whatever G."""
    g, u, _ = arr.shape
    per = max(1, block // max(u, 1))
    groups, rows, mults = [], [], []
    for start in range(0, g, per):  # blocks of groups: a handful for any real leaderboard
        part = arr[start : start + per]
        sel = np.ones(part.shape[:2], bool) if keep is None else keep[start : start + per]
        owner = np.broadcast_to(
            np.arange(start, start + part.shape[0], dtype=np.float64)[:, None], part.shape[:2]
        )[sel]
        r, _, c = unique_rows(np.concatenate([owner[:, None], part[sel]], axis=1))
        groups.append(r[:, 0].astype(np.int64))
        rows.append(r[:, 1:])
        mults.append(c)
    group = np.concatenate(groups)
    order = np.argsort(group, kind="stable")
    return group[order], np.concatenate(rows)[order], np.concatenate(mults)[order]
