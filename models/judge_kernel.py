"""Compiled kernel of the judges model: stick-breaking, DAG confusion matrices, likelihood.

The model is :func:`bayes_eval.models.judges.judge_model` (Vossler et al., "LLMs Judging LLMs: A
Simplex Perspective", App. B.3). A Dirichlet vector is sampled as Beta sticks,
``x_i = u_i prod_{l<i} (1 - u_l)``, ``x_n = prod_{l<n} (1 - u_l)`` (Connor and Mosimann, JASA,
1969); a judge's confusion matrix is the root row ``theta_1`` and ``theta_{m+1} = A_m^T theta_m``
(the DAG's edge weights ``A_m``); the likelihood (eq. B.3) is the multinomial log pmf of the
counts with ``gamma_jk = sum_m pi^(j)_{k,m} theta^(j)_{m,:}``. ``_loglik`` computes it and its
gradient with respect to the sticks in one pass (reverse mode written out), for
:class:`~bayes_eval.models.judges.JudgeLoglik`; ``DagTheta`` and ``StickBreak`` are
Ops without gradient for the summaries ``theta``, ``pi`` and ``Z`` and for forward sampling.
Every Op is compiled by PyTensor's Numba backend under the cache key ``_VERSION``
(:func:`~bayes_eval.models.kernel_version.kernel_version` of the kernels' source), so an edited
kernel is compiled anew.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.link.numba.dispatch import basic as numba_basic

from bayes_eval.models.kernel_version import kernel_version

__all__: list[str] = []


# ----------------------------------------------------------------------------- the kernel
# Plain loops compiled once by Numba (cached on disk): the likelihood of the sticks and its
# gradient, by reverse-mode differentiation written out. tests/judges checks both against
# the multinomial log pmf and finite differences.


@numba.njit(cache=True, error_model="numpy")
def _sticks(u, out):  # pragma: no cover - compiled
    """Stick-breaking: ``out (n,)`` from sticks ``u (n - 1,)``."""
    rest = 1.0
    for i in range(u.shape[0]):
        out[i] = u[i] * rest
        rest *= 1.0 - u[i]
    out[u.shape[0]] = rest


@numba.njit(cache=True, error_model="numpy")
def _sticks_grad(u, dx, du):  # pragma: no cover - compiled
    """``du = J^T dx`` of :func:`_sticks`, without dividing by ``1 - u``.

    With ``P_i = prod_{l<i} (1 - u_l)`` and ``S_i = u_i dx_i + (1 - u_i) S_{i+1}``
    (``S_{n-1} = dx_{n-1}``), ``sum_b dx_b x_b = P_i (u_i dx_i + (1 - u_i) S_{i+1}) + ...``
    gives ``du_i = P_i (dx_i - S_{i+1})``.
    """
    n1 = u.shape[0]
    pre = np.empty(n1 + 1)
    pre[0] = 1.0
    for i in range(n1):
        pre[i + 1] = pre[i] * (1.0 - u[i])
    s = dx[n1]
    for i in range(n1 - 1, -1, -1):
        du[i] = pre[i] * (dx[i] - s)
        s = dx[i] * u[i] + (1.0 - u[i]) * s


@numba.njit(cache=True, error_model="numpy")
def _dag(sticks, pad):  # pragma: no cover - compiled
    """Stick positions ``u``, rows ``A`` (J, M, L, L) and confusion matrices ``theta``."""
    J, M, L, L1 = pad.shape
    S = sticks.shape[0]
    u = np.zeros((J, M, L, L1))
    A = np.zeros((J, M, L, L))
    for j in range(J):
        for m in range(M):
            for a in range(L):
                for i in range(L1):
                    if pad[j, m, a, i] < S:
                        u[j, m, a, i] = sticks[pad[j, m, a, i]]
                _sticks(u[j, m, a], A[j, m, a])
    theta = np.zeros((J, M, L))
    for j in range(J):
        for b in range(L):
            theta[j, 0, b] = A[j, 0, 0, b]
        for m in range(1, M):
            for a in range(L):
                for b in range(L):
                    theta[j, m, b] += theta[j, m - 1, a] * A[j, m, a, b]
    return u, A, theta


@numba.njit(cache=True, error_model="numpy")
def _simplex_rows(u):  # pragma: no cover - compiled
    out = np.zeros((u.shape[0], u.shape[1] + 1))
    for k in range(u.shape[0]):
        _sticks(u[k], out[k])
    return out


@numba.njit(cache=True, error_model="numpy")
def _loglik(sticks, pad, pi_sticks, jj, kk, counts, R, W, z_sticks, effects):  # pragma: no cover  # noqa: C901 - a Numba kernel: one fused loop over sticks, judges and effects
    """Multinomial log pmf of ``counts`` (P, L) and its gradient with respect to the sticks.

    With random effects also the gradient with respect to ``R`` and ``W``. Arguments as in
    :class:`JudgeLoglik`.
    """
    J, M, L, L1 = pad.shape
    K = pi_sticks.shape[0]
    u, A, theta = _dag(sticks, pad)
    pi = _simplex_rows(pi_sticks)
    Z = _simplex_rows(z_sticks) if effects else pi
    logp = 0.0
    d_theta = np.zeros((J, M, L))
    d_pi = np.zeros((K, M))
    d_Z = np.zeros((K, M))
    d_R = np.zeros(R.shape[0])
    d_W = np.zeros(W.shape[0])
    pi_jk = np.empty(M)
    d_pi_jk = np.empty(M)
    for p in range(jj.shape[0]):
        j, k = jj[p], kk[p]
        lam = R[j] * W[k] if effects else 0.0
        for m in range(M):
            pi_jk[m] = (1.0 - lam) * pi[k, m] + lam * Z[k, m]
            d_pi_jk[m] = 0.0
        n = 0.0
        for s in range(L):
            c = float(counts[p, s])
            if c == 0.0:
                continue
            gamma = 0.0
            for m in range(M):
                gamma += pi_jk[m] * theta[j, m, s]
            logp += c * np.log(gamma) - math.lgamma(c + 1.0)
            n += c
            g = c / gamma
            for m in range(M):
                d_pi_jk[m] += g * theta[j, m, s]
                d_theta[j, m, s] += g * pi_jk[m]
        logp += math.lgamma(n + 1.0)
        d_lam = 0.0
        for m in range(M):
            d_pi[k, m] += (1.0 - lam) * d_pi_jk[m]
            if effects:
                d_Z[k, m] += lam * d_pi_jk[m]
                d_lam += d_pi_jk[m] * (Z[k, m] - pi[k, m])
        if effects:
            d_R[j] += d_lam * W[k]
            d_W[k] += d_lam * R[j]
    d_A = np.zeros((J, M, L, L))
    for j in range(J):
        for m in range(M - 1, 0, -1):
            for a in range(L):
                acc = 0.0
                for b in range(L):
                    d_A[j, m, a, b] += theta[j, m - 1, a] * d_theta[j, m, b]
                    acc += A[j, m, a, b] * d_theta[j, m, b]
                d_theta[j, m - 1, a] += acc
        for b in range(L):
            d_A[j, 0, 0, b] += d_theta[j, 0, b]
    S = sticks.shape[0]
    g_sticks = np.zeros(S)
    du = np.empty(L1)
    for j in range(J):
        for m in range(M):
            for a in range(L):
                _sticks_grad(u[j, m, a], d_A[j, m, a], du)
                for i in range(L1):
                    if pad[j, m, a, i] < S:
                        g_sticks[pad[j, m, a, i]] += du[i]
    g_pi = np.zeros(pi_sticks.shape)
    for k in range(K):
        _sticks_grad(pi_sticks[k], d_pi[k], g_pi[k])
    g_z = np.zeros(z_sticks.shape)
    if effects:
        for k in range(K):
            _sticks_grad(z_sticks[k], d_Z[k], g_z[k])
    return logp, g_sticks, g_pi, d_R, d_W, g_z


_VERSION = kernel_version(_sticks, _sticks_grad, _dag, _simplex_rows, _loglik)


class DagTheta(Op):
    """Confusion matrices ``theta`` (J, M, L) from the DAG sticks and ``pad``.

    A summary: the likelihood differentiates through
    :class:`~bayes_eval.models.judges.JudgeLoglik`, so this Op has no gradient.
    """

    __props__ = ()

    def make_node(self, sticks, pad):
        sticks = pt.cast(pt.as_tensor_variable(sticks), "float64")
        pad = pt.cast(pt.as_tensor_variable(pad), "int64")
        return Apply(self, [sticks, pad], [pt.dtensor3()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = _dag(*inputs)[2]

    def infer_shape(self, *args):  # as judges.JudgeLoglik.infer_shape
        return [tuple(args[-1][1][:3])]


@numba_basic.register_funcify_default_op_cache_key(DagTheta)
def _numba_dag_theta(op, node=None, **kwargs):
    @numba_basic.numba_njit
    def dag_theta(sticks, pad):
        return _dag(sticks, pad)[2]

    return dag_theta, _VERSION


class StickBreak(Op):
    """Simplex rows (K, n) from stick rows (K, n - 1) (:func:`_sticks`).

    For the summaries ``pi`` and ``Z`` and for forward sampling, so no gradient.
    """

    __props__ = ()

    def make_node(self, u):
        u = pt.cast(pt.as_tensor_variable(u), "float64")
        return Apply(self, [u], [pt.dmatrix()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = _simplex_rows(inputs[0])

    def infer_shape(self, *args):  # as judges.JudgeLoglik.infer_shape
        shape = args[-1][0]
        return [(shape[0], shape[1] + 1)]


@numba_basic.register_funcify_default_op_cache_key(StickBreak)
def _numba_stick_break(op, node=None, **kwargs):
    @numba_basic.numba_njit
    def stick_break(u):
        return _simplex_rows(u)

    return stick_break, _VERSION


def _stick_break(u):
    """Simplex rows from stick rows (``StickBreak``)."""
    return StickBreak()(u)
