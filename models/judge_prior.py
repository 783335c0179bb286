"""Priors of the judges model as sampled: Beta sticks of the DAG prior, non-centred effects.

After Vossler et al., "LLMs Judging LLMs: A Simplex Perspective", §5.2-5.3 and App. B.2-B.3
(the model is :func:`bayes_eval.models.judges.judge_model`). The DAG prior of a judge's
confusion matrix (edges ``(m, a) -> (m+1, b)`` only for ``b >= a``, Dirichlet edge weights
``1 + rho_j beta_max 1[b = t(m+1)]``) and the prevalences' Dirichlet vectors are written as Beta
sticks: ``x ~ Dirichlet(c_1..c_n)`` is ``x_i = u_i prod_{l<i} (1 - u_l)`` with independent
``u_i ~ Beta(c_i, c_{i+1} + ... + c_n)`` (Connor and Mosimann, JASA, 1969). ``_dag_structure``
places each stick, ``_dag_prior`` and ``_dirichlet_sticks`` declare them, and
``_effects_prior`` samples the random-effect weights ``R_j ~ Beta(omega J, J)`` and
``W_k ~ Beta(omega K, K)`` as ``R_j^(omega J)`` and ``W_k^(omega K)`` (``_power_logp``).
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pymc.distributions.transforms import logodds

from bayes_eval.judges.data import JudgeData

__all__: list[str] = []


def _dag_structure(J: int, M: int, L: int, correct: np.ndarray, root: str):
    """Where the DAG prior's sticks go, for ``JudgeLoglik`` and the Beta parameters.

    Layer ``m = 0`` row ``a = 0`` is the root row ``theta_1``; layer ``m >= 1`` row ``a`` holds
    the out-edge weights of node ``(m - 1, a)``, a vector over ``b = 0..L-1`` that is zero for
    ``b < a``. Its stick ``i`` (``i = 0..L-2``) is the share of level ``b = i`` among ``i..L-1``;
    the used sticks are ``b >= a`` (all ``b`` in the root row).

    Returns
    -------
    used : (S, 4) int array
        ``(j, m, a, b)`` of each sampled stick, in the order of ``dag_sticks``.
    pad : (J, M, L, L - 1) int array
        Index of each stick position into ``dag_sticks``; ``S`` where the position is a
        structural zero (``b < a``, unused root rows).
    hit, tail : (M, L - 1) float arrays
        ``1[b = t(m)]`` and ``1[b < t(m)]``: whether the boosted (correct) level of layer ``m``
        is this stick's own level or lies after it (all zero for a uniform root).
    """
    if root not in ("boosted", "uniform"):
        raise ValueError(f"root is {root!r}; expected 'boosted' or 'uniform'.")
    used = [
        (j, m, a, b)
        for j in range(J)
        for m in range(M)
        for a in ([0] if m == 0 else range(L - 1))
        for b in range(a, L - 1)
    ]
    used = np.array(used, dtype=np.int64).reshape(-1, 4)
    pad = np.full((J, M, L, max(L - 1, 0)), len(used), dtype=np.int64)
    pad[tuple(used.T)] = np.arange(len(used))
    hit = np.zeros((M, max(L - 1, 0)))
    tail = np.zeros((M, max(L - 1, 0)))
    for m in range(M):
        if m == 0 and root == "uniform":
            continue
        t = int(correct[m])
        if t < L - 1:
            hit[m, t] = 1.0
        tail[m, :t] = 1.0
    return used, pad, hit, tail


def _stick_labels(data: JudgeData, used: np.ndarray) -> list[str]:
    """``judge|level|from->to`` for each DAG stick (``root`` for the root row)."""
    out = []
    lv, asg = data.true_levels, data.assigned_levels
    for j, m, a, b in used:
        src = "root" if m == 0 else asg[a]
        out.append(f"{data.judges[j]}|{lv[m]}|{src}->{asg[b]}")
    return out


def _dirichlet_sticks(name: str, conc: np.ndarray, dims) -> tuple:
    """Beta sticks whose stick-breaking is ``Dirichlet(conc)`` per row of ``conc`` (K, M)."""
    tails = np.cumsum(conc[:, ::-1], axis=1)[:, ::-1]
    return pm.Beta(name, alpha=conc[:, :-1], beta=tails[:, 1:], dims=dims)


def _dag_prior(boost, J: int, M: int, L: int, correct: np.ndarray, root: str, labels=None):
    """The DAG prior as Beta sticks (``dag_sticks``) given ``boost = rho * beta_max`` (J,).

    Returns the sticks (or None when there are none) and ``pad``.
    """
    used, pad, hit, tail = _dag_structure(J, M, L, correct, root)
    if not len(used):
        return None, pad
    j, m, b = used[:, 0], used[:, 1], used[:, 3]
    alpha = 1.0 + boost[j] * hit[m, b]
    beta = (L - 1.0 - b) + boost[j] * tail[m, b]
    if labels is None:
        return pm.Beta("dag_sticks", alpha=alpha, beta=beta, shape=len(used)), pad
    return pm.Beta("dag_sticks", alpha=alpha, beta=beta, dims="dag_stick"), pad


def _power_logp(value, omega, n: float):
    """Log density of ``v = X^(omega n)`` for ``X ~ Beta(omega n, n)``.

    By change of variables, ``p(v | omega) = (1 - v^(1 / (omega n)))^(n - 1)
    Gamma(omega n + n) / (Gamma(omega n + 1) Gamma(n))`` on (0, 1): nearly uniform when
    ``omega n`` is small, where ``X`` itself piles up at 0.
    """
    a = omega * n
    norm = pt.gammaln(a + n) - pt.gammaln(a + 1.0) - pt.gammaln(n)
    return (n - 1.0) * pt.log1mexp(pt.log(value) / a) + norm


def _effects_prior(om, J: int, K: int):
    """``R`` (judge) and ``W`` (candidate) of the integrated model, non-centred in omega.

    ``R_j ~ Beta(omega J, J)`` is sampled as ``R_u_j = R_j^(omega J)`` (and ``W_k`` as
    ``W_u_k = W_k^(omega K)``) with the density of :func:`_power_logp`; ``R`` and ``W`` are
    deterministic. The same model as the centred one; but when omega is small, where the
    Beta piles every weight up at 0 and NUTS met a funnel (r-hat up to 1.56 on SummEval), the
    sampled variables stay spread over (0, 1) whatever omega is.
    """

    def dist(omega, n, size):
        return pm.Beta.dist(alpha=omega * n, beta=n, size=size) ** (omega * n)

    out = []
    for name, n, dim in (("R", float(J), "judge"), ("W", float(K), "candidate")):
        u = pm.CustomDist(
            f"{name}_u", om, n, dist=dist, logp=_power_logp, transform=logodds, dims=dim
        )
        out.append(pm.Deterministic(name, pt.exp(pt.log(u) / (om * n)), dims=dim))
    return tuple(out)
