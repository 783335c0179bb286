r"""Posterior-predictive futures of two models, for the assurance of :mod:`bayes_eval.sample_size`.

The assurance of O'Hagan, Stevens and Campbell, "Assurance in clinical trial design", for the
z-score of Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation" (§2.5, eq. 15), by Monte Carlo with common random numbers: each simulation is one
posterior draw of every :math:`\pi_\alpha \sim \mathrm{Dir}(\nu_\alpha)` and one infinite
sequence of future trials, shared by every ``n`` (:class:`_Futures`). Counts beyond the
largest ``n`` drawn so far are added by multinomial draws (:func:`_multinomial`), counts
between two drawn ``n`` split from their difference by multivariate hypergeometric draws
(:func:`_split`). :func:`_normal_guess` is the normal approximation of the assurance that
starts the search of :func:`bayes_eval.sample_size.trials_to_separate`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr

from bayes_eval.bayes_at_n import DirichletPosterior


def _multinomial(rng: np.random.Generator, trials, p: NDArray[np.float64]) -> NDArray[np.int64]:
    """Multinomial counts, shape ``p.shape``, by a chain of binomials (vectorised)."""
    k = p.shape[-1]
    left = np.array(np.broadcast_to(trials, p.shape[:-1]), dtype=np.int64)
    if k == 2:
        x = rng.binomial(left, p[..., 0])
        return np.stack([x, left - x], axis=-1)
    # mass of categories j..K-1, summed from the right (accurate for tiny tail masses)
    tail = np.cumsum(p[..., ::-1], axis=-1)[..., ::-1]
    out = np.empty(p.shape, dtype=np.int64)
    for j in range(k - 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(tail[..., j] > 0, p[..., j] / tail[..., j], 0.0)
        x = rng.binomial(left, np.clip(q, 0.0, 1.0))
        out[..., j] = x
        left -= x
    out[..., -1] = left
    return out


def _split(rng: np.random.Generator, counts: NDArray[np.int64], k) -> NDArray[np.int64]:
    """Categories of the first ``k`` of the trials tallied in ``counts`` (multivariate
    hypergeometric, by a chain of hypergeometrics). ``k`` broadcasts against
    ``counts.shape[:-1]``; every row of ``counts`` sums to >= its ``k``."""
    total = counts.sum(axis=-1)
    sample = np.array(np.broadcast_to(k, total.shape), dtype=np.int64)
    out = np.empty_like(counts)
    for j in range(counts.shape[-1] - 1):
        good = counts[..., j]
        x = rng.hypergeometric(good, total - good, sample)
        out[..., j] = x
        total = total - good
        sample = sample - x
    out[..., -1] = sample
    return out


class _Futures:
    """Posterior-predictive futures of the leader (index 0) and the other model (index 1).

    One posterior draw of every ``pi`` and one infinite trial sequence per simulation, shared
    by every ``n`` (common random numbers): :meth:`extra_counts` at a new ``n`` extends the
    sequence forward or splits an interval between two ``n`` already drawn.
    """

    def __init__(self, leader: DirichletPosterior, other: DirichletPosterior, draws, rng):
        self.rng = rng
        self.w = leader.w
        self.tally = leader.tally
        self.nu = np.stack([leader.nu, other.nu])  # (2, M, K)
        self.n_obs = np.stack([leader.tally.n_trials, other.tally.n_trials])  # (2, M)
        g = rng.standard_gamma(self.nu, size=(draws, *self.nu.shape))
        s = g.sum(axis=-1, keepdims=True)
        # all K gammas underflowing to 0 (only for tiny nu): fall back to the posterior mean
        mean = self.nu / self.nu.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.pi = np.where(s > 0, g / s, mean)  # (S, 2, M, K)
        self._n: list[int] = []  # evaluated n, sorted
        self._counts: list[NDArray[np.int64]] = []  # extra counts at each, (S, 2, M, K)

    def prob_leader_better(self) -> float:
        pibar = (self.pi @ self.w).mean(axis=-1)  # (S, 2)
        return float(np.mean(pibar[:, 0] > pibar[:, 1]) + 0.5 * np.mean(pibar[:, 0] == pibar[:, 1]))

    def extra_counts(self, n: int) -> NDArray[np.int64]:
        i = int(np.searchsorted(self._n, n))
        if i < len(self._n) and self._n[i] == n:
            return self._counts[i]
        if i == len(self._n):  # beyond every n drawn so far: extend the sequences
            if i == 0:
                base, add = 0, n - self.n_obs
            else:
                base, add = self._counts[-1], n - self._n[-1]
            counts = base + _multinomial(self.rng, add, self.pi)
        else:  # between two drawn n (or below the first): split the later counts
            hi = self._counts[i]
            if i == 0:  # the first n - N_alpha of the trials drawn up to the first n
                counts = _split(self.rng, hi, n - self.n_obs)
            else:
                lo = self._counts[i - 1]
                counts = lo + _split(self.rng, hi - lo, n - self._n[i - 1])
        self._n.insert(i, n)
        self._counts.insert(i, counts)
        return counts

    def z(self, n: int) -> NDArray[np.float64]:
        """Signed z of the leader over the other model after ``n`` trials, shape ``(S,)``."""
        post = DirichletPosterior(nu=self.nu + self.extra_counts(n), w=self.w, tally=self.tally)
        mu, sigma = post.moments()  # (S, 2)
        return (mu[:, 0] - mu[:, 1]) / np.sqrt(sigma[:, 0] ** 2 + sigma[:, 1] ** 2)

    def assurance(self, n: int, z_target: float) -> float:
        return float(np.mean(self.z(n) >= z_target))


def _normal_guess(fut: _Futures, n_now: int, max_trials: int, z_target: float, target: float):
    r"""Starting point of the search: the first ``n`` of a geometric grid where the normal
    approximation of the assurance reaches the target (``max_trials`` if none does).

    With :math:`d = \mu_L - \mu_O`, :math:`s_0^2 = \sigma_L^2 + \sigma_O^2` now and the plug-in
    :math:`\sigma^2(n)` of :func:`projected_z`, the posterior mean after ``n`` trials is about
    :math:`N(d, s_0^2 - \sigma^2(n))` a priori, so
    :math:`A(n) \approx \Phi\big((d - z^\ast\sigma(n)) / \sqrt{s_0^2 - \sigma^2(n)}\big)`.
    """
    grid = np.unique(np.geomspace(n_now + 1, max(max_trials, n_now + 1), 200).astype(np.int64))
    grid = grid[grid <= max_trials]
    if grid.size == 0:
        return max_trials
    post = DirichletPosterior(nu=fut.nu, w=fut.w, tally=fut.tally)
    mean, var = post.question_moments()  # (2, M)
    total = fut.nu.sum(axis=-1)
    m = mean.shape[-1]
    d = mean[0].mean() - mean[1].mean()
    s0 = var.sum() / m**2
    extra = grid[:, None, None] - fut.n_obs  # (G, 2, M)
    s_n = (var * (total + 1.0) / (total + extra + 1.0)).sum(axis=(-1, -2)) / m**2
    with np.errstate(divide="ignore", invalid="ignore"):
        a = ndtr((d - z_target * np.sqrt(s_n)) / np.sqrt(np.maximum(s0 - s_n, 0.0)))
    hit = np.flatnonzero(a >= target)
    return int(grid[hit[0]]) if hit.size else int(grid[-1])
