"""UCB-E and UCB-E-LRF baselines for adaptive evaluation (seed 003 §4), as ask/tell procedures.

* **UCB-E** (Audibert & Bubeck 2010): bound ``mean_k + sqrt(a / n_k)`` with ``n_k`` counted in
  cells and ``a = 1``; arms never pulled come first (bound ``+inf``), completed arms are
  excluded; the recommendation is the best empirical mean among observed arms.
* **UCB-E-LRF** (Zhou et al. 2025, as run by seed 003's experiments): the first
  ``warmup`` fraction of cells (5%) is sampled uniformly at random; afterwards an ensemble of
  ``ensemble`` (64) rank-1 factorisations ``Y ~ u v^T`` is fitted by alternating least squares
  (``iterations`` = 10, ridge ``reg`` = 0.1, each member on the observed cells with a random
  ``drop`` = 5% left out). Each arm's estimate is its row mean with unobserved cells filled
  by the member's prediction; the bound is the ensemble mean of that estimate plus
  ``bonus`` (5) ensemble standard deviations; the chosen arm's examples are the unobserved
  ones with the largest predictive standard deviation. Simplifications (documented): the
  ensemble is refitted every ``refit_every`` decisions (1 = every decision, as in the
  paper; larger values warm-start from the last fit) and predictions are clipped to [0, 1].

Both follow :mod:`bayes_eval.adaptive.gittins`: ``init``, ``next``, ``observe``, ``recommend``,
with immutable states and explicit seeds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "LRFState",
    "UCBEState",
    "lrf_init",
    "lrf_next",
    "lrf_observe",
    "lrf_recommend",
    "ucbe_init",
    "ucbe_next",
    "ucbe_observe",
    "ucbe_recommend",
]


@dataclass(frozen=True)
class UCBEState:
    """Per-arm sums and counts of observed cells."""

    n_examples: int
    batch_size: int
    exploration: float
    sums: NDArray[np.float64]
    counts: NDArray[np.int64]
    cells: int = 0
    steps: int = 0


def ucbe_init(n_arms: int, n_examples: int, *, batch_size: int = 1, exploration: float = 1.0):
    """UCB-E with exploration parameter ``a`` (``exploration``, per cell)."""
    if n_arms < 1 or n_examples < 1 or not 1 <= batch_size <= n_examples:
        raise ValueError("need n_arms >= 1, n_examples >= 1 and 1 <= batch_size <= n_examples.")
    if not exploration > 0:
        raise ValueError(f"exploration is {exploration!r}; expected a > 0.")
    sums = np.zeros(n_arms)
    counts = np.zeros(n_arms, dtype=np.int64)
    sums.setflags(write=False)
    counts.setflags(write=False)
    return UCBEState(int(n_examples), int(batch_size), float(exploration), sums, counts)


def ucbe_bounds(state: UCBEState) -> NDArray[np.float64]:
    """``mean + sqrt(a / n)``; ``+inf`` for unpulled arms, ``-inf`` for completed ones."""
    n = state.counts
    with np.errstate(divide="ignore", invalid="ignore"):
        b = state.sums / n + np.sqrt(state.exploration / n)
    b = np.where(n == 0, np.inf, b)
    return np.where(n >= state.n_examples, -np.inf, b)


def ucbe_next(state: UCBEState) -> tuple[int, int]:
    """``(arm, number of examples)``; ``(-1, 0)`` when every arm is completed."""
    b = ucbe_bounds(state)
    arm = int(np.argmax(b))
    if b[arm] == -np.inf:
        return -1, 0
    return arm, int(min(state.batch_size, state.n_examples - state.counts[arm]))


def ucbe_observe(state: UCBEState, arm: int, outcome: ArrayLike) -> UCBEState:
    """New state after the scores ``outcome`` of ``arm``."""
    y = np.atleast_1d(np.asarray(outcome, dtype=np.float64))
    sums, counts = state.sums.copy(), state.counts.copy()
    sums[arm] += y.sum()
    counts[arm] += y.size
    sums.setflags(write=False)
    counts.setflags(write=False)
    return replace(
        state, sums=sums, counts=counts, cells=state.cells + y.size, steps=state.steps + 1
    )


def ucbe_recommend(state: UCBEState) -> int:
    """Best empirical mean among observed arms (arm 0 before any observation)."""
    n = state.counts
    if not (n > 0).any():
        return 0
    with np.errstate(divide="ignore", invalid="ignore"):
        m = np.where(n > 0, state.sums / n, -np.inf)
    return int(np.argmax(m))


@dataclass(frozen=True)
class LRFState:
    """Observed cells (NaN = unobserved) and the last ensemble fit."""

    observed: NDArray[np.float64]  # (K, N)
    batch_size: int
    warmup_cells: int
    ensemble: int
    iterations: int
    reg: float
    drop: float
    bonus: float
    refit_every: int
    seed: int
    u: NDArray[np.float64] | None = None  # (E, K)
    v: NDArray[np.float64] | None = None  # (E, N)
    fitted_at: int = -1
    cells: int = 0
    steps: int = 0


def lrf_init(
    n_arms: int,
    n_examples: int,
    *,
    batch_size: int = 1,
    warmup: float = 0.05,
    ensemble: int = 64,
    iterations: int = 10,
    reg: float = 0.1,
    drop: float = 0.05,
    bonus: float = 5.0,
    refit_every: int = 1,
    seed: int = 0,
) -> LRFState:
    """UCB-E-LRF state (parameters as in the module docstring)."""
    if n_arms < 1 or n_examples < 1 or not 1 <= batch_size <= n_examples:
        raise ValueError("need n_arms >= 1, n_examples >= 1 and 1 <= batch_size <= n_examples.")
    if not 0 <= warmup < 1 or ensemble < 2 or iterations < 1 or refit_every < 1:
        raise ValueError("need 0 <= warmup < 1, ensemble >= 2, iterations >= 1, refit_every >= 1.")
    obs = np.full((n_arms, n_examples), np.nan)
    obs.setflags(write=False)
    return LRFState(
        obs,
        int(batch_size),
        int(np.ceil(warmup * n_arms * n_examples)),
        int(ensemble),
        int(iterations),
        float(reg),
        float(drop),
        float(bonus),
        int(refit_every),
        int(seed),
    )


def _fit(state: LRFState) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    rng = np.random.default_rng([state.seed, state.steps])
    seen = ~np.isnan(state.observed)
    E, (K, N) = state.ensemble, state.observed.shape
    mask = seen[None] & (rng.random((E, K, N)) >= state.drop)
    y = np.where(seen, state.observed, 0.0)
    my = mask * y[None]
    if state.u is None:
        u = rng.uniform(0.3, 0.9, (E, K))
        v = rng.uniform(0.3, 0.9, (E, N))
    else:  # warm start from the previous fit
        u, v = state.u.copy(), state.v.copy()
    for _ in range(state.iterations):
        u = np.einsum("ekn,en->ek", my, v) / (np.einsum("ekn,en->ek", mask, v * v) + state.reg)
        v = np.einsum("ekn,ek->en", my, u) / (np.einsum("ekn,ek->en", mask, u * u) + state.reg)
    return u, v


def _estimates(state: LRFState):
    """Per member: predicted cells (E, K, N) and arm estimates (E, K)."""
    pred = np.clip(state.u[:, :, None] * state.v[:, None, :], 0.0, 1.0)
    seen = ~np.isnan(state.observed)
    filled = np.where(seen[None], np.nan_to_num(state.observed)[None], pred)
    return pred, filled.mean(axis=2)


def lrf_next(state: LRFState) -> tuple[LRFState, int, NDArray[np.int64]]:
    """``(state with the current fit, arm, examples)``; arm -1 when everything is observed.

    The returned state only caches the ensemble fit (a deterministic function of the old
    state); pass it to :func:`lrf_observe`.
    """
    seen = ~np.isnan(state.observed)
    open_arms = ~seen.all(axis=1)
    if not open_arms.any():
        return state, -1, np.zeros(0, dtype=np.int64)
    rng = np.random.default_rng([state.seed, state.steps, 1])
    if state.cells < state.warmup_cells:
        arm = int(rng.choice(np.flatnonzero(open_arms)))
        free = np.flatnonzero(~seen[arm])
        ex = rng.choice(free, size=min(state.batch_size, free.size), replace=False)
        return state, arm, np.sort(ex)
    if state.u is None or state.steps - state.fitted_at >= state.refit_every:
        u, v = _fit(state)
        state = replace(state, u=u, v=v, fitted_at=state.steps)
    pred, est = _estimates(state)
    bound = est.mean(axis=0) + state.bonus * est.std(axis=0, ddof=1)
    bound = np.where(open_arms, bound, -np.inf)
    arm = int(np.argmax(bound))
    sd = pred[:, arm, :].std(axis=0, ddof=1)
    sd = np.where(seen[arm], -np.inf, sd)
    k = min(state.batch_size, int((~seen[arm]).sum()))
    ex = np.argsort(-sd, kind="stable")[:k]
    return state, arm, np.sort(ex)


def lrf_observe(state: LRFState, arm: int, examples: ArrayLike, outcome: ArrayLike) -> LRFState:
    """New state after the scores ``outcome`` of ``arm`` on ``examples``."""
    obs = state.observed.copy()
    ex = np.asarray(examples, dtype=np.int64)
    y = np.asarray(outcome, dtype=np.float64)
    if ex.shape != y.shape:
        raise ValueError("examples and outcome must have the same length.")
    obs[arm, ex] = y
    obs.setflags(write=False)
    return replace(state, observed=obs, cells=state.cells + ex.size, steps=state.steps + 1)


def lrf_recommend(state: LRFState) -> int:
    """Largest ensemble-mean estimate (observed cells plus predictions); before the first
    fit, the best observed row mean."""
    seen = ~np.isnan(state.observed)
    if state.u is None:
        n = seen.sum(axis=1)
        if not (n > 0).any():
            return 0
        with np.errstate(invalid="ignore", divide="ignore"):
            m = np.where(n > 0, np.nansum(state.observed, axis=1) / n, -np.inf)
        return int(np.argmax(m))
    return int(np.argmax(_estimates(state)[1].mean(axis=0)))
