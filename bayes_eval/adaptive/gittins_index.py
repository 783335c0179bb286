"""Root schedule of the cost-aware Gittins index.

Xie, He and Cao, "Efficient Cost-Aware LLM Evaluation via Bayesian Bandit Gittins Indices"
(§3.3, eqs. 3-4, App. A.3).

Model (the paper's §3.1). Arm mean ``theta ~ N(mu_0, v_0)``; one *stage* observes a batch
mean ``Y | theta ~ N(theta, tau^2)`` at cost ``c``; after ``n`` stages the posterior is
``N(mu_n, v_n)`` with ``v_{n+1} = 1 / (1/v_n + 1/tau^2)`` (eq. 2) and the posterior mean moves
as a Gaussian random walk with step variance ``sigma_n^2 = v_n^2 / (v_n + tau^2)``.

Centred dynamic program (eq. 3, Corollary 3.3). With ``x = s - alpha`` the advantage of the
arm's posterior mean over the outside reward,

    W_H(x) = max(x, 0),
    q_n(x) = -c + E[W_{n+1}(x + sigma_n Z)],   W_n(x) = max(0, q_n(x)),   n = H-1, ..., 0,

and the root ``r_n`` solves ``q_n(r_n) = 0``; the index is ``G_n(s) = s - r_n`` (eq. 4).

Two granularities (the paper's text and its experiments differ; both are offered):

* **per batch** (the text): one stage = one batch of ``B`` examples, ``H = ceil(N/B)``,
  ``tau^2 = 1/(4B)`` (worst-case Bernoulli variance), stage cost ``B x cost per example``;
* **per cell** (the experiments): one stage = one matrix cell, ``H = N``, ``tau^2 = 1/4``,
  stage cost = cost per example; a batch of ``B`` cells advances ``B`` stages at once and the
  root is read at the number of observed cells.

The posterior is the same either way; the roots are not (the per-cell program may stop after
any cell, so its option value is larger).

Computation. ``W_{n+1}`` is stored on one uniform grid (``grid_size`` points from
``-5 S`` to ``1.01 c H + 5 S``, ``S^2 = sum_n sigma_n^2``) and extended linearly beyond it
(slope 0 on the left, 1 on the right, the exact asymptotes of ``W``). A piecewise-linear
function is ``W(y) = W(g_0) + sum_i Delta_i (y - g_i)_+`` with ``Delta_i`` its slope
changes, so

    E[W(x + sigma Z)] = W(g_0) + sum_i Delta_i kappa_sigma(x - g_i),
    kappa_sigma(z) = E[(z + sigma Z)_+] = z Phi(z / sigma) + sigma phi(z / sigma),

a discrete convolution of ``Delta`` with ``kappa`` evaluated by FFT. Roots are interpolated
linearly between the two grid points where ``q_n`` changes sign (not snapped to the grid).
The last stage has the closed form ``q_{H-1}(x) = -c + kappa_{sigma_{H-1}}(x)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, signal, special

__all__ = [
    "RootSchedule",
    "brute_force_roots",
    "last_stage_root",
    "posterior_variances",
    "root_schedule",
    "stage_setup",
]


def posterior_variances(v0: float, tau2: float, H: int) -> NDArray[np.float64]:
    """``v_0, ..., v_H`` of eq. (2): ``v_{n+1} = 1 / (1/v_n + 1/tau^2)``.

    Parameters
    ----------
    v0 : float
        Prior variance of the arm mean.
    tau2 : float
        Observation variance of one stage.
    H : int
        Horizon in stages.

    Returns
    -------
    numpy.ndarray of float, shape (H + 1,)
        Posterior variance of the arm mean after ``0, ..., H`` stages.

    Examples
    --------
    >>> from bayes_eval.adaptive.gittins_index import posterior_variances
    >>> posterior_variances(0.25, 0.25, 3).round(4).tolist()
    [0.25, 0.125, 0.0833, 0.0625]
    """
    n = np.arange(H + 1)
    return 1.0 / (1.0 / v0 + n / tau2)


def _step_variances(v0: float, tau2: float, H: int) -> NDArray[np.float64]:
    v = posterior_variances(v0, tau2, H)[:-1]
    return v**2 / (v + tau2)


def _kappa(z: NDArray[np.float64], sigma: float) -> NDArray[np.float64]:
    """``E[(z + sigma Z)_+] = z Phi(z/sigma) + sigma phi(z/sigma)``."""
    u = z / sigma
    return z * special.ndtr(u) + sigma * np.exp(-0.5 * u * u) / np.sqrt(2 * np.pi)


@dataclass(frozen=True)
class RootSchedule:
    """Roots ``r_0..r_{H-1}`` of the centred program for one ``(cost, v0, tau2, H)``.

    ``index(s, n) = s - roots[n]`` for ``n < H``; a completed arm (``n = H``) has index ``s``.
    Built by :func:`root_schedule` rather than directly.

    Attributes
    ----------
    roots : numpy.ndarray of float, shape (horizon,)
        Root ``r_n`` of each stage ``n = 0, ..., H-1`` (read-only).
    cost : float
        Effective cost of one stage, in score units.
    v0 : float
        Prior variance of the arm mean.
    tau2 : float
        Observation variance of one stage.
    horizon : int
        Horizon ``H`` in stages.
    grid_size : int
        Grid points of the dynamic program.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive.gittins_index import root_schedule
    >>> schedule = root_schedule(0.01, 0.25, 0.025, 3)
    >>> schedule.horizon, schedule.roots.round(4).tolist()
    (3, [-0.7829, -0.1, -0.0389])
    >>> schedule.index(np.array([0.5, 0.5]), np.array([0, 3])).round(4).tolist()
    [1.2829, 0.5]
    """

    roots: NDArray[np.float64]
    cost: float
    v0: float
    tau2: float
    horizon: int
    grid_size: int

    def index(
        self, mean: NDArray[np.float64] | float, n: NDArray[np.int64] | int
    ) -> NDArray[np.float64]:
        """Gittins index ``G_n(s) = s - r_n`` (eq. 4); ``s`` itself once ``n = H``."""
        r = np.append(self.roots, 0.0)[np.minimum(np.asarray(n), self.horizon)]
        return np.asarray(mean) - r


def _checked(
    cost: float, v0: float, tau2: float, H: int, grid_size: int
) -> tuple[float, float, float, int, int]:
    if not (np.isfinite(cost) and cost >= 0):
        raise ValueError(f"cost is {cost}; expected a finite number >= 0 (per stage).")
    if not (np.isfinite(v0) and v0 > 0):
        raise ValueError(f"v0 is {v0}; expected a prior variance > 0.")
    if not (np.isfinite(tau2) and tau2 > 0):
        raise ValueError(f"tau2 is {tau2}; expected an observation variance > 0.")
    if int(H) != H or H < 1:
        raise ValueError(f"H is {H}; expected a horizon of at least 1 stage.")
    if int(grid_size) != grid_size or grid_size < 65:
        raise ValueError(f"grid_size is {grid_size}; expected an integer >= 65 (e.g. 2**14).")
    return float(cost), float(v0), float(tau2), int(H), int(grid_size)


def root_schedule(
    cost: float, v0: float, tau2: float, H: int, *, grid_size: int = 2**14
) -> RootSchedule:
    """Root schedule ``{r_n}`` of eqs. (3)-(4) by FFT convolution on a uniform grid.

    Parameters
    ----------
    cost : float
        Effective cost of one stage (``lambda x`` raw cost, in score units).
    v0 : float
        Prior variance of the arm mean.
    tau2 : float
        Observation variance of one stage (``1/(4B)`` per batch, ``1/4`` per cell).
    H : int
        Horizon in stages.
    grid_size : int
        Grid points (``2**14`` by default; the roots are interpolated between points).

    Returns
    -------
    RootSchedule
        Cached by ``(cost, v0, tau2, H, grid_size)``; the arrays are read-only.

    See Also
    --------
    brute_force_roots : The same roots by quadrature, as an independent check.

    Examples
    --------
    >>> from bayes_eval.adaptive.gittins_index import root_schedule
    >>> root_schedule(0.01, v0=0.25, tau2=0.025, H=3).roots.round(4).tolist()
    [-0.7829, -0.1, -0.0389]
    """
    return _root_schedule_cached(*_checked(cost, v0, tau2, H, grid_size))


@lru_cache(maxsize=256)
def _root_schedule_cached(cost: float, v0: float, tau2: float, H: int, G: int) -> RootSchedule:
    s2 = _step_variances(v0, tau2, H)
    S = np.sqrt(s2.sum())
    lo, hi = -5.0 * S, 1.01 * cost * H + 5.0 * S
    grid = np.linspace(lo, hi, G)
    h = grid[1] - grid[0]
    offsets = np.arange(-(G - 1), G) * h  # x_m - g_i for m - i = -(G-1)..(G-1)
    W = np.maximum(grid, 0.0)  # W_H
    roots = np.empty(H)
    for n in range(H - 1, -1, -1):
        slopes = np.diff(W) / h
        delta = np.diff(np.concatenate(([0.0], slopes, [1.0])))  # slope changes at g_0..g_{G-1}
        kern = _kappa(offsets, np.sqrt(s2[n]))
        conv = signal.fftconvolve(delta, kern, mode="full")[G - 1 : 2 * G - 1]
        q = W[0] + conv - cost
        roots[n] = _interpolated_root(grid, q, n)
        W = np.maximum(q, 0.0)
    roots.setflags(write=False)
    return RootSchedule(roots=roots, cost=cost, v0=v0, tau2=tau2, horizon=H, grid_size=G)


def _interpolated_root(grid: NDArray[np.float64], q: NDArray[np.float64], n: int) -> float:
    above = np.flatnonzero(q >= 0.0)
    if above.size == 0 or above[0] == 0:  # pragma: no cover - the grid covers the root
        raise RuntimeError(f"stage {n}: the root of q_n is outside the grid; widen it.")
    j = above[0]
    x0, x1, q0, q1 = grid[j - 1], grid[j], q[j - 1], q[j]
    return float(x0 - q0 * (x1 - x0) / (q1 - q0))


def last_stage_root(cost: float, sigma2: float) -> float:
    """Closed form of the last stage: the root of ``-c + kappa_sigma(x)``.

    For ``cost = 0`` the root is ``-inf`` (observing is free); otherwise the unique root of
    the increasing function ``x Phi(x/sigma) + sigma phi(x/sigma) - c`` (solved by brentq).

    Parameters
    ----------
    cost : float
        Effective cost ``c`` of the last stage, in score units.
    sigma2 : float
        Step variance ``sigma_{H-1}^2`` of the posterior mean at the last stage.

    Returns
    -------
    float
        The root ``r_{H-1}``; ``-inf`` when ``cost <= 0``.

    Examples
    --------
    The closed form agrees with the last root of :func:`root_schedule`:

    >>> from bayes_eval.adaptive.gittins_index import (
    ...     last_stage_root, posterior_variances, root_schedule)
    >>> v = posterior_variances(0.25, 0.025, 3)[2]
    >>> round(last_stage_root(0.01, v**2 / (v + 0.025)), 4)
    -0.0389
    >>> round(float(root_schedule(0.01, 0.25, 0.025, 3).roots[-1]), 4)
    -0.0389
    """
    if cost <= 0:
        return -np.inf
    sigma = np.sqrt(sigma2)
    f = lambda x: float(_kappa(np.asarray(x), sigma) - cost)  # noqa: E731
    lo = -10 * sigma
    while f(lo) >= 0:
        lo *= 2
    hi = cost + 10 * sigma
    return float(optimize.brentq(f, lo, hi, xtol=1e-14, rtol=1e-14))


def brute_force_roots(
    cost: float, v0: float, tau2: float, H: int, *, points: int = 3001, nodes: int = 4001
) -> NDArray[np.float64]:
    """Independent check of :func:`root_schedule` by quadrature with interpolation.

    ``E[W_{n+1}(x + sigma_n Z)]`` is integrated with Simpson's rule over ``z`` in
    ``[-12, 12]`` (``nodes`` points), ``W_{n+1}`` linearly interpolated on a non-uniform grid
    of ``points`` values (denser near 0) and extended with slopes 0 and 1; each root is found by
    ``brentq`` on the interpolated ``q_n``. No FFT and no closed-form kernel, so it checks
    both the convolution and the extension. Slow (``O(H x points x nodes)``); for tests.

    Parameters
    ----------
    cost : float
        Effective cost of one stage, in score units.
    v0 : float
        Prior variance of the arm mean.
    tau2 : float
        Observation variance of one stage.
    H : int
        Horizon in stages.
    points : int, optional
        Points of the grid on which ``W_{n+1}`` is stored, default 3001.
    nodes : int, optional
        Simpson nodes in ``z`` (made odd), default 4001.

    Returns
    -------
    numpy.ndarray of float, shape (H,)
        The roots ``r_0, ..., r_{H-1}``.

    Examples
    --------
    >>> from bayes_eval.adaptive.gittins_index import brute_force_roots
    >>> brute_force_roots(0.01, 0.25, 0.025, 3, points=301, nodes=401).round(3).tolist()
    [-0.783, -0.1, -0.039]
    """
    cost, v0, tau2, H, _ = _checked(cost, v0, tau2, H, 65)
    s2 = _step_variances(v0, tau2, H)
    S = np.sqrt(s2.sum())
    u = np.linspace(-1.0, 1.0, points)
    grid = np.sinh(3.0 * u) / np.sinh(3.0) * (8 * S + 1.01 * cost * H)
    z = np.linspace(-12.0, 12.0, nodes | 1)
    wz = np.ones_like(z)
    wz[1:-1:2], wz[2:-1:2] = 4.0, 2.0
    wz *= (z[1] - z[0]) / 3.0 * np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)

    def extend(y: NDArray[np.float64], W: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.interp(y, grid, W)
        return np.where(y > grid[-1], W[-1] + (y - grid[-1]), out)

    W = np.maximum(grid, 0.0)
    roots = np.empty(H)
    for n in range(H - 1, -1, -1):
        sigma = np.sqrt(s2[n])

        def q_of(
            x: ArrayLike, W_next: NDArray[np.float64] = W, sigma: float = sigma
        ) -> NDArray[np.float64]:
            xs = np.atleast_1d(np.asarray(x, dtype=float))
            return extend(xs[:, None] + sigma * z[None, :], W_next) @ wz - cost

        q = q_of(grid)
        j = int(np.flatnonzero(q >= 0)[0])
        roots[n] = optimize.brentq(
            lambda x, f=q_of: float(f(x)[0]), grid[j - 1], grid[j], xtol=1e-13
        )
        W = np.maximum(q, 0.0)
    return roots


def stage_setup(
    n_examples: int,
    batch_size: int,
    *,
    granularity: str = "batch",
    cell_variance: float = 0.25,
) -> tuple[int, float, int]:
    """``(H, tau2, examples per stage)`` for a granularity (see the module docstring).

    ``granularity="batch"``: ``H = ceil(N/B)``, ``tau2 = cell_variance / B``, ``B`` examples per
    stage. ``granularity="cell"``: ``H = N``, ``tau2 = cell_variance``, one example per stage.
    ``cell_variance`` is ``1/4`` (worst-case Bernoulli) by default.

    Parameters
    ----------
    n_examples : int
        Number ``N`` of examples per arm.
    batch_size : int
        Number ``B`` of examples per proposal, in ``[1, N]``.
    granularity : {"batch", "cell"}, optional
        One stage per batch (the paper's text) or per cell (its experiments), default
        ``"batch"``.
    cell_variance : float, optional
        Observation variance of one cell, default 0.25.

    Returns
    -------
    H : int
        Horizon in stages.
    tau2 : float
        Observation variance of one stage.
    per_stage : int
        Examples per stage.

    Examples
    --------
    >>> from bayes_eval.adaptive.gittins_index import stage_setup
    >>> stage_setup(100, 10)
    (10, 0.025, 10)
    >>> stage_setup(100, 10, granularity="cell")
    (100, 0.25, 1)
    """
    if int(n_examples) != n_examples or n_examples < 1:
        raise ValueError(f"n_examples is {n_examples}; expected a positive integer.")
    if int(batch_size) != batch_size or not 1 <= batch_size <= n_examples:
        raise ValueError(
            f"batch_size is {batch_size}; expected an integer in [1, N = {n_examples}]."
        )
    if granularity == "batch":
        return -(-int(n_examples) // int(batch_size)), cell_variance / batch_size, int(batch_size)
    if granularity == "cell":
        return int(n_examples), float(cell_variance), 1
    raise ValueError(f"granularity is {str(granularity)!r}; expected 'batch' or 'cell'.")
