r"""The moments of pi-bar under every node of a prior, from four sums of the counts.

Under a Dirichlet node :math:`a` a question with counts :math:`n` (total N) has
:math:`\nu = n + a`, :math:`T = N + s` (:math:`s = \sum_k a_k`), mean
:math:`E_\alpha = \nu\cdot d/T` and variance :math:`V_\alpha = (\nu\cdot d^2 - (\nu\cdot
d)^2/T)/(T(T + 1))` (:math:`d = w - w_0`; eq. 15 of Hariri et al., "Don't Pass@k: A Bayesian
Framework for Large Language Model Evaluation", summed by totals). Over the questions of one
total N they need only the sums :math:`Q, S_1, S_2, S_{11}` of 1, :math:`n\cdot d`,
:math:`n\cdot d^2` and :math:`(n\cdot d)^2`: with :math:`A_1 = a\cdot d`,
:math:`A_2 = a\cdot d^2`,

.. math::
    \sum E = (S_1 + Q A_1)/T, \qquad
    \sum V = \big(S_2 + Q A_2 - (S_{11} + 2A_1S_1 + QA_1^2)/T\big)/(T(T + 1)).

``_total_sums`` makes the sums in one pass over the counts (one row per model and distinct
total), ``_sums_moments`` the moments of every node from them. They are the engines of
:func:`~bayes_eval.posteriors.posterior.total_sums` and
:func:`~bayes_eval.posteriors.posterior.sums_moments`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from bayes_eval.inputs import unique_rows

__all__: list[str] = []


def _total_sums(
    data: NDArray, w: NDArray[np.float64], answered: NDArray[np.bool_] | None = None
) -> tuple[
    NDArray[np.int64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.int64],
]:
    """The rows ``(owner, total, Q, S_1, S_2, S_11)`` of the counts and the questions per model.

    ``data`` are the counts ``(M, C + 1)`` or ``(L, M, C + 1)`` (integer ones are not copied
    to floats), ``answered`` the questions each model's pi-bar averages over (None: all).
    """
    d3 = data if data.ndim == 3 else data[None]
    n_models, m, _ = d3.shape
    ans = np.ones((n_models, m), bool) if answered is None else answered.reshape(n_models, m)
    per_model = ans.sum(axis=1)
    d = w - w[0]
    whole = np.issubdtype(d3.dtype, np.integer)
    # the category axis is short: slices of it, not reductions over it (d[0] = 0)
    tot = d3[..., 0].astype(np.int64 if whole else np.float64)
    x1, x2 = np.zeros(d3.shape[:-1]), np.zeros(d3.shape[:-1])
    for k in range(1, d.size):
        tot += d3[..., k]
        if d[k] != 0.0:
            x1 += d[k] * d3[..., k]
            x2 += d[k] * d[k] * d3[..., k]
    if answered is None and m > 0 and (tot == tot[:, :1]).all():
        # every question of a model has the same total (N trials each): one row per model,
        # its sums along the questions (no keys, no bincount)
        q = np.full(n_models, float(m))
        s1, s2, s11 = x1.sum(axis=-1), x2.sum(axis=-1), np.einsum("lm,lm->l", x1, x1)
        n_tot = tot[:, 0].astype(np.float64)
        return np.arange(n_models), n_tot, q, s1, s2, s11, per_model
    if answered is None:
        owner = np.repeat(np.arange(n_models), m)
        tot, x1, x2 = tot.ravel(), x1.ravel(), x2.ravel()
    else:
        owner = np.broadcast_to(np.arange(n_models)[:, None], ans.shape)[ans]
        tot, x1, x2 = tot[ans], x1[ans], x2[ans]
    span = int(tot.max(initial=0)) + 1
    if span <= 4096 and (whole or np.all(tot == np.floor(tot))):
        # whole totals: direct codes, no hashing
        code = owner * span + tot.astype(np.int64, copy=False)
        by_code = [
            np.bincount(code, weights=v, minlength=n_models * span) for v in (None, x1, x2, x1 * x1)
        ]
        used = np.flatnonzero(by_code[0])
        q, s1, s2, s11 = (v[used].astype(np.float64) for v in by_code)
        own, n_tot = used // span, (used % span).astype(np.float64)
    else:
        keys, inverse, _ = unique_rows(np.stack([owner, tot], axis=1), sort=False)
        size = keys.shape[0]
        q, s1, s2, s11 = (
            np.bincount(inverse, weights=v, minlength=size)
            for v in (np.ones_like(x1), x1, x2, x1 * x1)
        )
        own, n_tot = keys[:, 0].astype(np.int64), keys[:, 1]
    return own, n_tot, q, s1, s2, s11, per_model


def _sums_moments(
    rows: Sequence[NDArray],
    per_model: NDArray[np.int64],
    lead: tuple[int, ...],
    nodes: NDArray[np.float64],
    w: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mean and sd of pi-bar under each node ``(J, G, C + 1)``, shape ``(J, *lead)``.

    ``rows`` are the six rows of :func:`_total_sums`, ``per_model`` its questions per model,
    ``lead`` the leading (model) shape of the data.
    """
    own, n_tot, q, s1, s2, s11 = rows
    n_models, size = per_model.size, own.size
    d = w - w[0]
    # A_1, A_2 and s of every node (J, G), by slices of the short category axis, then the
    # rows' (J, P): one row per model (every question N trials) needs no gather
    a1, a2, s = np.zeros(nodes.shape[:2]), np.zeros(nodes.shape[:2]), nodes[..., 0].copy()
    for k in range(1, d.size):
        s += nodes[..., k]
        if d[k] != 0.0:
            a1 += d[k] * nodes[..., k]
            a2 += d[k] * d[k] * nodes[..., k]
    if nodes.shape[1] == 1:
        a1, a2, s = a1[:, :1], a2[:, :1], s[:, :1]  # (J, 1): broadcast over the rows
    elif not (size == nodes.shape[1] and np.array_equal(own, np.arange(size))):
        a1, a2, s = a1[:, own], a2[:, own], s[:, own]
    t = s + n_tot
    mean = (s1 + q * a1) / t
    var = (s2 + q * a2 - (s11 + 2.0 * a1 * s1 + q * a1 * a1) / t) / (t * (t + 1.0))
    shape = (nodes.shape[0], *lead)
    if size == n_models and np.array_equal(own, np.arange(n_models)):
        # one total per model (every question N trials): the rows are the models
        mu, var_sum = mean, var
    else:
        # the sums per model: a sparse (models x keys) indicator (a dense one is quadratic)
        from scipy.sparse import csr_matrix

        member = csr_matrix((np.ones(size), (own, np.arange(size))), shape=(n_models, size))
        mu, var_sum = (member @ mean.T).T, (member @ var.T).T
    mu = (w[0] + mu / per_model).reshape(shape)
    return mu, (np.sqrt(np.maximum(var_sum, 0.0)) / per_model).reshape(shape)
