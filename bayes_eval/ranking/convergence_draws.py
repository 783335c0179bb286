"""The replicates of a convergence study: which trials each replicate sees.

Every replicate of :func:`bayes_eval.ranking.convergence.stability` is a draw of trial indices:
the column bootstrap resamples each model's trials (all questions together), the row bootstrap
resamples the answers of every question independently, and ``replace=False`` permutes instead
of resampling (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation", App. I.1). The running successes of the first s trials are what every scoring
path reads; the reference path takes them from here, and the packed path draws the very same
indices (``_column_draw``, the same generator calls in the same order), so both paths see
the same replicates.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import shown

#: Private engines only: the public names live in the modules that use them.
__all__: list[str] = []


def _prefix_counts(
    R: ArrayLike,
    *,
    scheme: str = "column",
    replicates: int = 1000,
    replace: bool = True,
    chunk: int = 100,
    seed: int | np.random.Generator = 0,
    totals_only: bool = False,
) -> Iterator[NDArray[np.int16]]:
    """The blocks of :func:`bayes_eval.ranking.convergence.prefix_counts` (its docstring).

    A generator: a bad ``R`` or ``scheme`` raises at the first block, as the public function
    documents.
    """
    rng = np.random.default_rng(seed)
    arr = np.asarray(R)
    if scheme == "given":
        if arr.ndim != 4:
            raise ValueError(f"R has shape {arr.shape}; scheme 'given' expects (B, L, M, N).")
        for start in range(0, arr.shape[0], chunk):
            block: NDArray[np.integer] = arr[start : start + chunk].transpose(0, 1, 3, 2)
            block = block.astype(np.int16)
            yield np.cumsum(block, axis=2, dtype=np.int16)
        return
    if arr.ndim != 3:
        raise ValueError(f"R has shape {arr.shape}; expected (L, M, N) binary results.")
    n_models, n_q, n = arr.shape
    if scheme not in ("column", "row"):
        raise ValueError(f"scheme is {shown(scheme)}; expected 'column', 'row' or 'given'.")
    t: NDArray[np.integer] = arr.transpose(0, 2, 1).astype(np.int8)  # (L, N, M)
    if totals_only:
        if scheme != "column":
            raise ValueError("totals_only needs the column scheme.")
        t = t.sum(axis=-1, keepdims=True, dtype=np.int16)
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        if scheme == "column":
            idx = _column_draw(rng, b, n_models, n, replace)
            block = t[np.arange(n_models)[None, :, None], idx]  # (b, L, N, M)
        else:
            if replace:
                idx = rng.integers(0, n, size=(b, n_models, n, n_q))
            else:
                idx = rng.permuted(
                    np.broadcast_to(np.arange(n)[:, None], (b, n_models, n, n_q)), axis=2
                )
            block = np.take_along_axis(t[None], idx, axis=2)
        yield np.cumsum(block, axis=2, dtype=np.int16)


def _column_draw(
    rng: np.random.Generator, b: int, n_models: int, n: int, replace: bool
) -> NDArray[np.int64]:
    """Trial indices of ``b`` column-bootstrap replicates, shape ``(b, L, N)``.

    Trials are resampled with replacement, or each model's trials permuted.
    """
    if replace:
        return rng.integers(0, n, size=(b, n_models, n))
    return rng.permuted(np.broadcast_to(np.arange(n), (b, n_models, n)), axis=-1)
