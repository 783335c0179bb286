r"""Exact draws of pi-bar from the per-question Dirichlet posteriors.

Every :math:`\pi_\alpha \sim \mathrm{Dir}(\nu_\alpha)` is a vector of independent
:math:`\mathrm{Gamma}(\nu_{\alpha k}, 1)` variates divided by their sum, so
:math:`\bar\pi = \frac1M\sum_\alpha w\cdot\pi_\alpha` (over each model's answered questions) is
drawn exactly (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation", §2.3). Under a learned prior every draw first picks a node :math:`a_j` with its
posterior weight :math:`\omega_j` (one per model, or one shared by the models of a
benchmark-pooled prior), then draws from :math:`\mathrm{Dir}(n_\alpha + a_j)`.
:meth:`Posterior.draws <bayes_eval.posteriors.posterior.Posterior.draws>` and
:meth:`Posterior.to_datatree <bayes_eval.posteriors.posterior.Posterior.to_datatree>` draw
with these.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from bayes_eval.inputs import check_memory, shown

__all__: list[str] = []

#: gamma variates drawn at once by :func:`_dirichlet_draws` (memory bound)
_CHUNK = 4_000_000


def _check_draws(n: object, n_models: int, cells: int, include_pi: bool) -> int:
    """Validate the number of draws ``n`` and that they fit in memory; return it as an int.

    ``cells`` is ``M (C + 1)``, the size of one model's per-question draws (``include_pi``).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n is {shown(n)}; expected a positive integer.")
    per_draw = float(n_models)
    if include_pi:
        per_draw *= 1.0 + float(cells)
    check_memory(  # the draws returned, and the same again while they are made
        2 * 8.0 * float(n) * per_draw,
        f"n = {int(n)} draws" + (" with include_pi" if include_pi else ""),
        "fewer draws",
    )
    return int(n)


def _node_concentrations(
    data: NDArray[np.float64],
    nodes: NDArray[np.float64],
    weights: NDArray[np.float64],
    shared: bool,
    n: int,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Concentrations of ``n`` draws under a mixture prior, one node picked per draw.

    ``data`` are the counts ``(..., M, K)``, ``nodes`` ``(J, G, K)``, ``weights`` the node
    weights ``(J, L)``; ``shared``: one node per draw for every model (a benchmark-pooled
    prior). The result is ``(n, ..., M, K)``.
    """
    cdf = np.cumsum(weights, axis=0)
    cols = 1 if shared else cdf.shape[1]
    u = rng.random((n, cols)) * cdf[-1, :cols]
    j = (u[:, None, :] >= cdf[None, :, :cols]).sum(axis=1).clip(max=cdf.shape[0] - 1)
    j = np.broadcast_to(j, (n, cdf.shape[1]))
    g = np.arange(cdf.shape[1]) if nodes.shape[1] > 1 else np.zeros(cdf.shape[1], int)
    alpha = nodes[j, g[None, :]]  # (n, L, K)
    flat = data.reshape(-1, *data.shape[-2:])
    nu = flat[None] + alpha[:, :, None, :]
    return nu if data.ndim == 3 else nu[:, 0]


def _dirichlet_draws(
    nu: NDArray[np.float64],
    per_draw: bool,
    n: int,
    rng: np.random.Generator,
    w: NDArray[np.float64],
    keep_pi: bool,
    answered: NDArray[np.bool_] | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """``n`` draws of pi-bar (and pi) from ``Dir(nu)``, the mean over the answered questions.

    ``nu`` is of shape ``(..., M, K)`` shared by every draw, or ``(n, ..., M, K)`` one per draw.
    """
    one = nu[0] if per_draw else nu
    step = max(1, _CHUNK // max(one.size, 1))
    bars, pis = [], []
    for i in range(0, n, step):
        k = min(step, n - i)
        conc = nu[i : i + k] if per_draw else np.broadcast_to(nu, (k, *nu.shape))
        g = rng.standard_gamma(conc)
        pi = g / g.sum(axis=-1, keepdims=True)
        score = pi @ w
        if answered is None:
            bars.append(score.mean(axis=-1))
        else:
            bars.append(np.where(answered, score, 0.0).sum(axis=-1) / answered.sum(axis=-1))
        if keep_pi:
            pis.append(pi)
    return np.concatenate(bars), (np.concatenate(pis) if keep_pi else None)
