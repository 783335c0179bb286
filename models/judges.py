"""Bayesian ranking of candidates from imperfect LLM judges.

After Vossler et al., "LLMs Judging LLMs: A Simplex Perspective", §5 and App. B.

The model, written out for a general number of levels ``M`` (every choice the paper leaves
open is listed, with its reason, in :data:`CHOICES`):

* **Likelihood** (eq. 5.1 / B.3). For each judge ``j`` and candidate ``k`` with
  ``mask[j, k]``, the counts ``N[j, k, :]`` are multinomial with probabilities
  ``gamma_jk = sum_m pi^(j)_{k,m} theta^(j)_{m,:}``: the latent true score is marginalised
  separately per judge (the sum over ``m`` computed in probability space, which equals
  ``exp(logsumexp_m(log pi_m + log theta_{m,s}))``).
* **Judge confusion matrices** ``theta^(j)`` (rows = true level ``m``, columns = assigned
  level ``s``) from the weight-propagation DAG prior (§5.3, App. B.3): edges
  ``(m, a) -> (m+1, b)`` only for ``b >= a``, Dirichlet edge weights
  ``1 + rho_j beta_max 1[b = t(m+1)]`` (the tail from ``a`` of a vector of ones boosted at the
  next level's correct score), ``theta_{m+1} = A_m^T theta_m``, ``rho_j ~ Beta(1, 1)``; the
  root row ``theta_1 ~ Dirichlet(1 + rho_j beta_max e_{t(1)})``. Every draw is stochastically
  ordered (``theta_1 <=_st theta_2 <=_st ...``), so label switching cannot occur.
* **Random effects** on prevalences (§5.2, App. B.2) when ``omega > 0``:
  ``Z_k ~ Dirichlet(delta)``, ``R_j ~ Beta(omega J, J)``, ``W_k ~ Beta(omega K, K)``,
  ``pi^(j)_k = (1 - W_k R_j) pi_k + W_k R_j Z_k``; ``omega = 0`` is strong constancy
  (no random effects).
* **Base prevalences** ``pi_k ~ Dirichlet(1_M)``; the ranking target is the expected true
  score ``mu_k = sum_m v_m pi_{k,m}``.
* **Integrated model**: hyperpriors ``beta_max ~ Uniform(0, 20)``, ``omega ~ Uniform(0, 8)``
  (the sensitivity ranges of §5.4), random effects always on.

**How it is sampled** (:data:`CHOICES` ``"parametrisation"``). Every Dirichlet vector above
(the root rows, the DAG edge weights, ``pi_k``, ``Z_k``) is written by stick-breaking: a
vector ``x ~ Dirichlet(c_1..c_n)`` is ``x_i = u_i prod_{l<i} (1 - u_l)``,
``x_n = prod_{l<n} (1 - u_l)`` with independent ``u_i ~ Beta(c_i, c_{i+1} + ... + c_n)``, which
is exactly the same distribution (Connor and Mosimann, "Concepts of independence for
proportions with a generalization of the Dirichlet distribution", JASA, 1969). The sampled
variables are these sticks: ``dag_sticks`` (every root and edge stick of every judge, one
flat vector over the ``dag_stick`` coordinate), ``pi_sticks`` and ``Z_sticks`` (over
``candidate`` and ``stick``); ``theta``, ``pi`` and ``Z`` are deterministic functions of them.
In the integrated model the random-effect weights are non-centred in omega: NUTS samples
``R_u_j = R_j^(omega J)`` and ``W_u_k = W_k^(omega K)``, whose densities stay spread over
(0, 1) at every omega, where ``R`` and ``W`` themselves pile up at 0 for small omega (a
funnel). The change of variables is exact, so the model is unchanged.
The likelihood, from the sticks to ``gamma`` and the multinomial log pmf, and its gradient are
one compiled kernel (:class:`JudgeLoglik`): PyTensor would otherwise build and compile a graph
of several hundred operations for every data shape, which took longer than the sampling.

:func:`fit_judges` samples with NUTS and returns an ``xarray.DataTree`` with ``posterior``
(including ``expected_score`` and ``rank``), ``sample_stats``, ``observed_data`` and a
``ranking`` group (posterior mean and 95% interval of ``mu``, point rank, 95% rank credible
interval) and convergence diagnostics in ``attrs`` (:func:`fit_diagnostics`; a
:class:`~bayes_eval.models.sampling.ConvergenceWarning` when a check fails).
:func:`judge_sensitivity` runs the §5.4 grid.
"""

from __future__ import annotations

import importlib.util
import math
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr
from pymc.distributions.transforms import logodds
from pytensor.gradient import DisconnectedType, disconnected_type, grad_undefined
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.link.numba.dispatch import basic as numba_basic

from bayes_eval.judges.data import JudgeData
from bayes_eval.models.kernel_version import kernel_version
from bayes_eval.models.sampling import (
    TRUSTED,
    Diagnostics,
    check_trace_memory,
    diagnostics,
    sampler_session,
    usable_cpus,
    warn_if_unconverged,
)
from bayes_eval.nuts import NutsSettings
from bayes_eval.ranking.ranks import rank

__all__ = [
    "CHOICES",
    "FIXED_SETTINGS",
    "INTEGRATED_SETTINGS",
    "FitSettings",
    "JudgeLoglik",
    "dag_prior_draws",
    "delta_preset",
    "fit_diagnostics",
    "fit_judges",
    "judge_model",
    "judge_sensitivity",
    "model_settings",
]

#: Choices where Vossler et al. leave the model open, as implemented, each with its reason.
CHOICES = {
    "likelihood": "marginal per judge (eq. B.3), the paper's own likelihood: the counts are "
    "then sufficient statistics, so a count table such as Table D.2 is complete data (a "
    "latent truth shared across judges would need per-question scores)",
    "pi_prior": "Dirichlet(1_M): uniform over a candidate's prevalences, no level favoured",
    "root_prior": "Dirichlet(1 + rho_j beta_max e_t(1)): the first row is boosted at its "
    "correct level like every DAG edge, so all rows get the same kind of prior "
    "(switch: root='uniform')",
    "dag_rule": "tail-of-boosted-vector rule: reproduces the M = 3 matrices of App. B.3.2 "
    "exactly, is defined for every M, and keeps every draw stochastically ordered",
    "delta": "inflation delta_m = 10^((m-1)/(M-1)): geometric from 1 to 10, the endpoints of "
    "the paper's M = 3 example [1, 4, 10] (M = 3 gives [1, 3.2, 10]), defined for every M",
    "hyperpriors": "beta_max ~ U(0, 20), omega ~ U(0, 8): uniform over the ranges of the "
    "paper's sensitivity grid (§5.4), so the integrated model averages over what it varied",
    "omega_zero": "no random-effect block: omega = 0 makes R_j ~ Beta(0, J) a point mass at 0, "
    "so the effects vanish (and a degenerate Beta cannot be sampled)",
    "abstention": "M = 2 true levels, L = 3 ordered assigned levels incorrect < abstain < "
    "correct: abstaining is better than a wrong answer and worse than a right one",
    "missing": "unparseable scores are missing (imputing a level would invent data); "
    "fractional scores are rounded half up, the same way for every judge",
    "self_preference": "same-family (judge, candidate) pairs excluded from the likelihood "
    "(footnote 1 of the paper): a judge's self-preference would bias its family's score",
    "ranks": "1 + #{k': mu_k' > mu_k} per draw (competition ranks); point rank = rank of the "
    "posterior mean mu",
    "sensitivity_base": "omega = 0, beta_max = 5, the paper's base setting",
    "rho": "one rho_j per judge, shared by its DAG nodes: reliability is a trait of the judge, "
    "and per-node strengths are not identified from counts",
    "parametrisation": "every Dirichlet vector sampled as Beta sticks (stick-breaking; the same "
    "distribution, Connor and Mosimann 1969) and the likelihood with its gradient as one "
    "compiled kernel: the model compiles in seconds instead of minutes for each data shape; "
    "in the integrated model R and W sampled as R^(omega J) and W^(omega K) (non-centred: "
    "the centred weights made a funnel with omega that NUTS did not cross on SummEval)",
}


def delta_preset(name: str | Sequence[float], M: int) -> np.ndarray:
    """Concentration ``delta`` of ``Z_k`` (App. B.2.3).

    ``"inflation"`` (default, ``10^((m-1)/(M-1))``), ``"deflation"`` (its reverse), ``"uniform"``
    (ones), ``"central"`` (peaked in the middle), or explicit values.

    Parameters
    ----------
    name : str or sequence of float
        ``"inflation"``, ``"deflation"``, ``"uniform"`` or ``"central"``, or M positive
        numbers.
    M : int
        Number of true levels.

    Returns
    -------
    numpy.ndarray of shape (M,)
        The concentrations.

    Examples
    --------
    >>> from bayes_eval.models.judges import delta_preset
    >>> delta_preset("inflation", 3).round(4).tolist()
    [1.0, 3.1623, 10.0]
    >>> delta_preset("central", 3).tolist(), delta_preset("uniform", 2).tolist()
    ([1.0, 10.0, 1.0], [1.0, 1.0])
    """
    if not isinstance(name, str):
        d = np.asarray(name, dtype=float)
        if d.shape != (M,) or (d <= 0).any():
            raise ValueError(f"delta must be {M} positive numbers.")
        return d
    grid = np.arange(M) / max(M - 1, 1)
    if name == "inflation":
        return 10.0**grid
    if name == "deflation":
        return (10.0**grid)[::-1].copy()
    if name == "uniform":
        return np.ones(M)
    if name == "central":
        return 10.0 ** (1 - np.abs(2 * grid - 1))
    raise ValueError(
        f"delta is {name!r}; expected inflation, deflation, uniform, central or values."
    )


def _dag_structure(J: int, M: int, L: int, correct: np.ndarray, root: str):
    """Where the DAG prior's sticks go, for :class:`JudgeLoglik` and the Beta parameters.

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


class JudgeLoglik(Op):
    """Log-likelihood of the judges model (eq. B.3) and its gradient, from the sticks.

    Inputs: ``sticks`` (S,) of the DAG prior, ``pad`` (J, M, L, L - 1) from
    ``_dag_structure``, ``pi_sticks`` (K, M - 1), the pairs ``jj``, ``kk`` (P,), ``counts``
    (P, L), and ``R`` (J,), ``W`` (K,), ``z_sticks`` (K, M - 1) (read only with
    ``random_effects``). Outputs: the log pmf (scalar; the sum over pairs of the multinomial
    log pmf) and its gradient with respect to ``sticks``, ``pi_sticks``, ``R``, ``W`` and
    ``z_sticks``, which :meth:`pullback` returns (first derivatives only; NUTS needs no more).

    Parameters
    ----------
    random_effects : bool, optional
        Whether the prevalences have random effects (``R``, ``W`` and ``z_sticks`` are read);
        default False. :func:`~bayes_eval.models.judges.judge_model` sets it when
        ``omega > 0`` or ``integrated``.

    Examples
    --------
    >>> from bayes_eval.models.judges import JudgeLoglik
    >>> op = JudgeLoglik(random_effects=True)
    >>> op.random_effects, op == JudgeLoglik(True), op == JudgeLoglik()
    (True, True, False)
    """

    __props__ = ("random_effects",)
    _FLOAT = (0, 2, 6, 7, 8)

    def __init__(self, random_effects: bool = False):
        self.random_effects = bool(random_effects)

    def make_node(self, sticks, pad, pi_sticks, jj, kk, counts, R, W, z_sticks):
        """Build the node: the inputs cast, outputs the log pmf and one gradient per float input."""
        ins = [pt.as_tensor_variable(x) for x in (sticks, pad, pi_sticks, jj, kk, counts, R, W)]
        ins.append(pt.as_tensor_variable(z_sticks))
        for i in self._FLOAT:
            ins[i] = pt.cast(ins[i], "float64")
        for i in (1, 3, 4):
            ins[i] = pt.cast(ins[i], "int64")
        outs = [pt.dscalar(), *(ins[i].type() for i in self._FLOAT)]
        return Apply(self, ins, outs)

    def perform(self, node, inputs, output_storage):
        """Compute the log pmf and its gradient in one pass (``_loglik``)."""
        out = _loglik(*inputs, self.random_effects)
        output_storage[0][0] = np.asarray(out[0])
        for store, value in zip(output_storage[1:], out[1:], strict=True):
            store[0] = value

    def infer_shape(self, *args):  # (fgraph, node, shapes) before PyTensor 3, (node, shapes) now
        """Give the output shapes: a scalar, then those of the float inputs."""
        return [(), *(args[-1][i] for i in self._FLOAT)]

    def connection_pattern(self, node):
        """Connect every output to the float inputs (``sticks``, ``pi_sticks``, ``R``, ``W``...)."""
        return [[i in self._FLOAT] * 6 for i in range(9)]

    def pullback(self, inputs, outputs, cotangents):
        """Compute the input gradients: the cotangent of the log pmf times its gradient outputs.

        The integer inputs are disconnected; second derivatives are undefined.
        """
        if any(not isinstance(c.type, DisconnectedType) for c in cotangents[1:]):
            # a gradient of the gradient outputs: undefined (an error only if it is used)
            why = "JudgeLoglik computes first derivatives; NUTS needs no second ones"
            return [grad_undefined(self, i, x, why) for i, x in enumerate(inputs)]
        g = cotangents[0]
        grads = dict(zip(self._FLOAT, outputs[1:], strict=True))
        return [g * grads[i] if i in grads else disconnected_type() for i in range(9)]

    L_op = pullback  # PyTensor versions before `pullback`


class DagTheta(Op):
    """Confusion matrices ``theta`` (J, M, L) from the DAG sticks and ``pad``.

    A summary: the likelihood differentiates through :class:`JudgeLoglik`, so this Op has no
    gradient.
    """

    __props__ = ()

    def make_node(self, sticks, pad):
        sticks = pt.cast(pt.as_tensor_variable(sticks), "float64")
        pad = pt.cast(pt.as_tensor_variable(pad), "int64")
        return Apply(self, [sticks, pad], [pt.dtensor3()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = _dag(*inputs)[2]

    def infer_shape(self, *args):  # as JudgeLoglik.infer_shape
        return [tuple(args[-1][1][:3])]


@numba_basic.register_funcify_default_op_cache_key(JudgeLoglik)
def _numba_judge_loglik(op, node=None, **kwargs):
    effects = op.random_effects

    @numba_basic.numba_njit
    def judge_loglik(sticks, pad, pi_sticks, jj, kk, counts, R, W, z_sticks):
        out = _loglik(sticks, pad, pi_sticks, jj, kk, counts, R, W, z_sticks, effects)
        return (np.asarray(out[0]), out[1], out[2], out[3], out[4], out[5])

    return judge_loglik, _VERSION


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

    def infer_shape(self, *args):  # as JudgeLoglik.infer_shape
        shape = args[-1][0]
        return [(shape[0], shape[1] + 1)]


@numba_basic.register_funcify_default_op_cache_key(StickBreak)
def _numba_stick_break(op, node=None, **kwargs):
    @numba_basic.numba_njit
    def stick_break(u):
        return _simplex_rows(u)

    return stick_break, _VERSION


def _stick_break(u):
    """Simplex rows from stick rows (:class:`StickBreak`)."""
    return StickBreak()(u)


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


#: Upper end of omega's uniform hyperprior in the integrated model (the §5.4 grid's range).
OMEGA_MAX = 8.0


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


def _stick_labels(data: JudgeData, used: np.ndarray) -> list[str]:
    """``judge|level|from->to`` for each DAG stick (``root`` for the root row)."""
    out = []
    lv, asg = data.true_levels, data.assigned_levels
    for j, m, a, b in used:
        src = "root" if m == 0 else asg[a]
        out.append(f"{data.judges[j]}|{lv[m]}|{src}->{asg[b]}")
    return out


def _model_coords(data: JudgeData, root: str) -> dict[str, list]:
    """The coords of :func:`judge_model` for ``data`` (masked), after checking what is left.

    Raises ``ValueError`` when no (judge, candidate) pair or some candidate has no
    admissible score left after the exclusions.
    """
    J, K, L = data.counts.shape
    if not data.mask.any():
        raise ValueError("no (judge, candidate) pair is left to fit after the exclusions.")
    unjudged = [data.candidates[k] for k in range(K) if not data.mask[:, k].any()]
    if unjudged:
        raise ValueError(f"candidate(s) {unjudged} have no admissible judge scores.")
    used = _dag_structure(J, data.n_true, L, data.correct_level, root)[0]
    return {
        "candidate": list(data.candidates),
        "judge": list(data.judges),
        "level": list(data.true_levels),
        "assigned": list(data.assigned_levels),
        "pair": _pairs(data),
        "stick": list(data.true_levels[:-1]),
        "dag_stick": _stick_labels(data, used),
    }


def judge_model(
    data: JudgeData,
    *,
    omega: float = 0.0,
    beta_max: float = 5.0,
    integrated: bool = False,
    delta: str | Sequence[float] = "inflation",
    root: str = "boosted",
    exclude_same_family: bool = True,
) -> pm.Model:
    """Build the judges model (module docstring) for ``data``.

    The sampled variables are ``rho``, the sticks ``dag_sticks`` and ``pi_sticks`` and, with
    random effects, ``Z_sticks``, ``R``, ``W`` (module docstring); ``theta``, ``pi``, ``Z`` and
    ``expected_score`` are deterministic. The observed ``scores`` (pair, assigned) are the
    multinomial counts.

    Parameters
    ----------
    data : JudgeData
        Counts per judge, candidate and assigned level
        (:class:`bayes_eval.judges.data.JudgeData`).
    omega : float, keyword-only
        Random-effect strength (0 = strong constancy, no random effects). A ``pm.Data``
        variable, so fits over an ``omega`` grid (> 0) reuse one compiled graph.
    beta_max : float, keyword-only
        DAG prior strength (0 = all Dirichlet parameters 1); ``pm.Data``.
    integrated : bool, keyword-only
        Hyperpriors on ``omega`` and ``beta_max`` instead of fixed values.
    delta : str or sequence, keyword-only
        Concentration of ``Z_k`` (:func:`delta_preset`).
    root : {"boosted", "uniform"}, keyword-only
        Prior of the root row ``theta_1``.
    exclude_same_family : bool, keyword-only
        Drop same-family pairs from the likelihood (footnote 1 of Vossler et al.).

    Returns
    -------
    pymc.Model
        With coords ``candidate``, ``judge``, ``level``, ``assigned``, ``pair``, ``stick``
        and ``dag_stick``, and the data ``counts``, ``values``, ``omega`` and ``beta_max``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judges import judge_model
    >>> model = judge_model(data)
    >>> [v.name for v in model.free_RVs], [v.name for v in model.deterministics]
    (['rho', 'dag_sticks', 'pi_sticks'], ['theta', 'pi', 'expected_score'])
    >>> [v.name for v in judge_model(data, omega=1.0).free_RVs]
    ['rho', 'dag_sticks', 'pi_sticks', 'Z_sticks', 'R', 'W']
    """
    if not (np.isfinite(omega) and omega >= 0):
        raise ValueError(f"omega is {omega!r}; expected a number >= 0.")
    if not (np.isfinite(beta_max) and beta_max >= 0):
        raise ValueError(f"beta_max is {beta_max!r}; expected a number >= 0.")
    data = data.with_mask(exclude_same_family)
    J, K, L = data.counts.shape
    M = data.n_true
    jj, kk = np.nonzero(data.mask)
    coords = _model_coords(data, root)
    effects = bool(integrated or omega > 0)
    loglik = JudgeLoglik(effects)
    # every Beta parameter is positive by construction (omega > 0 wherever R, W exist), so
    # PyMC's parameter checks would only add operations to the compiled graph
    with pm.Model(coords=coords, check_bounds=False) as model:
        counts = pm.Data("counts", data.counts[jj, kk], dims=("pair", "assigned"))
        values = pm.Data("values", data.values, dims="level")
        if integrated:
            bmax = pm.Uniform("beta_max", 0.0, 20.0)
            om = pm.Uniform("omega", 0.0, OMEGA_MAX)
        else:
            bmax = pm.Data("beta_max", float(beta_max))
            om = pm.Data("omega", float(omega))
        rho = pm.Beta("rho", 1.0, 1.0, dims="judge")
        sticks, pad = _dag_prior(rho * bmax, J, M, L, data.correct_level, root, labels=True)
        if sticks is None:
            sticks = pt.zeros(0)
        pm.Deterministic("theta", DagTheta()(sticks, pad), dims=("judge", "level", "assigned"))
        if M > 1:
            pi_sticks = _dirichlet_sticks("pi_sticks", np.ones((K, M)), ("candidate", "stick"))
            pi = pm.Deterministic("pi", _stick_break(pi_sticks), dims=("candidate", "level"))
        else:
            pi_sticks, pi = pt.zeros((K, 0)), pt.ones((K, 1))
        if effects:
            conc = np.broadcast_to(delta_preset(delta, M), (K, M))
            if M > 1:
                z_sticks = _dirichlet_sticks("Z_sticks", conc, ("candidate", "stick"))
                pm.Deterministic("Z", _stick_break(z_sticks), dims=("candidate", "level"))
            else:
                z_sticks = pt.zeros((K, 0))
            if integrated:
                R, W = _effects_prior(om, J, K)
            else:
                R = pm.Beta("R", alpha=om * J, beta=float(J), dims="judge")
                W = pm.Beta("W", alpha=om * K, beta=float(K), dims="candidate")
        else:
            z_sticks, R, W = pt.zeros((K, max(M - 1, 0))), pt.zeros(J), pt.zeros(K)

        def scores_dist(sticks, pi_sticks, R, W, z_sticks, n, size):
            theta = DagTheta()(sticks, pad)
            pi_p = _stick_break(pi_sticks)[kk] if M > 1 else pt.ones((len(kk), 1))
            if effects:
                lam = (R[jj] * W[kk])[:, None]
                z_p = _stick_break(z_sticks)[kk] if M > 1 else pi_p
                pi_p = (1 - lam) * pi_p + lam * z_p
            gamma = (pi_p[:, :, None] * theta[jj]).sum(axis=1)
            return pm.Multinomial.dist(n=n, p=gamma)

        def scores_logp(value, sticks, pi_sticks, R, W, z_sticks, n):
            return loglik(sticks, pad, pi_sticks, jj, kk, value, R, W, z_sticks)[0]

        pm.CustomDist(
            "scores",
            sticks,
            pi_sticks,
            R,
            W,
            z_sticks,
            counts.sum(axis=1),
            dist=scores_dist,
            logp=scores_logp,
            signature="(s),(k,m),(j),(k),(k,m),(p)->(p,l)",
            dtype="int64",
            observed=counts,
            dims=("pair", "assigned"),
        )
        pm.Deterministic("expected_score", (pi * values[None, :]).sum(axis=1), dims="candidate")
    return model


def _pairs(data: JudgeData) -> list[str]:
    """Labels ``judge|candidate`` of the pairs in the likelihood (``pair`` coordinate)."""
    jj, kk = np.nonzero(data.mask)
    return [f"{data.judges[j]}|{data.candidates[k]}" for j, k in zip(jj, kk, strict=True)]


def dag_prior_draws(
    M: int,
    L: int | None = None,
    *,
    J: int = 1,
    beta_max: float = 5.0,
    draws: int = 1000,
    correct_level: Sequence[int] | None = None,
    root: str = "boosted",
    seed: int = 0,
) -> np.ndarray:
    """Prior draws ``(draws, J, M, L)`` of the confusion matrices (for checks and plots).

    The draws come from the model's own prior graph (:func:`judge_model`), drawn by PyTensor's
    Python backend (a few thousand draws of a small graph need no compiled code).

    Parameters
    ----------
    M : int
        Number of true levels (rows).
    L : int, optional
        Number of assigned levels (columns); default ``M``.
    J : int, keyword-only
        Number of judges, default 1.
    beta_max : float, keyword-only
        DAG prior strength, default 5.
    draws : int, keyword-only
        Number of draws, default 1000.
    correct_level : sequence of int, optional, keyword-only
        The correct assigned level of each true level; default ``0, 1, ..., M - 1``.
    root : {"boosted", "uniform"}, keyword-only
        Prior of the root row ``theta_1`` (default ``"boosted"``).
    seed : int, keyword-only
        Random seed, default 0.

    Returns
    -------
    numpy.ndarray of shape (draws, J, M, L)
        Confusion matrices, each row a distribution over the assigned levels.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.judges import dag_prior_draws
    >>> theta = dag_prior_draws(3, draws=200, seed=0)
    >>> theta.shape, bool(np.allclose(theta.sum(-1), 1.0))
    ((200, 1, 3, 3), True)
    >>> theta.mean(0)[0].round(2).tolist()  # mass near the diagonal: a reliable judge
    [[0.61, 0.2, 0.19], [0.11, 0.53, 0.36], [0.02, 0.14, 0.83]]
    """
    L = M if L is None else L
    correct = np.arange(M) if correct_level is None else np.asarray(correct_level)
    with pm.Model():
        rho = pm.Beta("rho", 1.0, 1.0, shape=J)
        sticks, pad = _dag_prior(rho * beta_max, J, M, L, correct, root)
        theta = DagTheta()(pt.zeros(0) if sticks is None else sticks, pad)
    return pm.draw(theta, draws=draws, random_seed=seed, mode="FAST_COMPILE")


#: NUTS settings of the integrated model where :func:`model_settings` fills in unset values: long
#: enough for a posterior with two modes of the overall score level, between which NUTS moves
#: only every few hundred draws (SummEval's coherence, where judges that give most summaries
#: a 5 leave true levels 2 and 3 apart only through the prior; 1,000 tuning steps left the
#: mass matrix too poor for r-hat <= 1.01 there, and a target acceptance of 0.65 diverged).
INTEGRATED_SETTINGS = {"draws": 16000, "tune": 4000, "target_accept": 0.8, "sampler": "nutpie"}
#: The same for a model with fixed omega and beta_max (the paper's 4 x (1000 + 1000)).
FIXED_SETTINGS = {"draws": 1000, "tune": 1000, "target_accept": 0.9, "sampler": "pymc"}


def model_settings(settings: NutsSettings | None, integrated: bool) -> NutsSettings:
    """NUTS settings for :func:`fit_judges` with every unset value the judges model's own.

    Filled in from :data:`INTEGRATED_SETTINGS` for the integrated model, from
    :data:`FIXED_SETTINGS` for one with fixed omega and beta_max (the paper: 4 chains x
    1000 + 1000); nutpie falls back to PyMC's NUTS where it is not installed.

    Parameters
    ----------
    settings : bayes_eval.nuts.NutsSettings or None
        The settings given (None: ``NutsSettings()``, all the model's own).
    integrated : bool
        Whether the model has hyperpriors on omega and beta_max.

    Returns
    -------
    bayes_eval.nuts.NutsSettings
        The settings with draws, tuning steps, target acceptance rate and sampler filled in.

    Examples
    --------
    >>> from bayes_eval.models.judges import model_settings
    >>> from bayes_eval.nuts import NutsSettings
    >>> s = model_settings(NutsSettings(draws=50, tune=50, chains=1), integrated=False)
    >>> s.draws, s.target_accept, s.sampler
    (50, 0.9, 'pymc')
    """
    own = dict(INTEGRATED_SETTINGS if integrated else FIXED_SETTINGS)
    if own["sampler"] == "nutpie" and importlib.util.find_spec("nutpie") is None:
        own["sampler"] = "pymc"  # pragma: no cover - nutpie ships with the pymc extra
    return (NutsSettings() if settings is None else settings).resolved(**own)


class FitSettings(NutsSettings):
    """Deprecated: the NUTS settings of :func:`fit_judges` (:class:`~bayes_eval.nuts.NutsSettings`).

    Making one issues a ``DeprecationWarning``; it is a :class:`~bayes_eval.nuts.NutsSettings`
    in every other way, and :meth:`resolved` with ``integrated`` fills in the judges model's own
    values (:func:`model_settings`).

    Parameters
    ----------
    draws, tune : int or None
        Draws kept and tuning steps per chain (None: the model's own).
    chains : int
        Number of chains, default 4.
    seed : int
        Random seed, default 0.
    sampler : {"pymc", "nutpie"} or None
        The NUTS implementation (None: the model's own).
    target_accept : float or None
        NUTS target acceptance rate (None: the model's own).
    progress : bool
        Show the sampler's progress bar; default False.
    cores : int or None
        Chains run at the same time (None: the usable CPUs, at most ``chains``).
    warn : bool
        Issue a ConvergenceWarning when a check fails; default True.

    Examples
    --------
    >>> import warnings
    >>> from bayes_eval.models.judges import FitSettings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     settings = FitSettings(draws=50, tune=50, chains=1).resolved(integrated=False)
    >>> settings.draws, settings.target_accept, settings.sampler
    (50, 0.9, 'pymc')
    """

    def __post_init__(self) -> None:
        warnings.warn(
            "FitSettings is deprecated; use bayes_eval.nuts.NutsSettings (the same fields).",
            DeprecationWarning,
            stacklevel=3,
        )
        super().__post_init__()

    def resolved(self, integrated: bool = False, **own: Any) -> NutsSettings:  # type: ignore[override]
        """These settings with every unset value the judges model's own (:func:`model_settings`).

        Parameters
        ----------
        integrated : bool
            Whether the model has hyperpriors on omega and beta_max.
        **own : Any
            Values that win over the model's own where these settings leave them unset.

        Returns
        -------
        bayes_eval.nuts.NutsSettings
            The filled-in settings.
        """
        plain = NutsSettings(**self.kwargs())
        return model_settings(plain.resolved(**own) if own else plain, integrated)


def fit_diagnostics(idata: xr.DataTree) -> Diagnostics:
    """Convergence diagnostics of a judges fit (:func:`bayes_eval.models.sampling.diagnostics`).

    Every variable NUTS produced is checked (``rho``, the sticks, ``theta``, ``pi``, the random
    effects, the hyperparameters and ``expected_score``), not ``rank``, which is
    computed from ``expected_score`` afterwards and is discrete. ``converged`` requires r-hat
    at most 1.01, bulk and tail ESS at least 100 per chain and *no* divergence (PyMC's
    thresholds): a divergence means NUTS could not explore part of the posterior, which can
    bias every estimate, so no rate of them is treated as negligible.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of :func:`~bayes_eval.models.judges.fit_judges` (``posterior`` and ``sample_stats``).

    Returns
    -------
    Diagnostics
        The convergence summary (:class:`bayes_eval.models.sampling.Diagnostics`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judges import fit_diagnostics, fit_judges
    >>> from bayes_eval.nuts import NutsSettings
    >>> fit = fit_judges(data, settings=NutsSettings(draws=20, tune=20, chains=1, warn=False))
    >>> diag = fit_diagnostics(fit)
    >>> diag.converged, diag.messages[0]
    (False, '1 chain: r-hat needs at least 2 chains to compare; run more chains')
    """
    names = [v for v in idata["posterior"].to_dataset().data_vars if v != "rank"]
    return diagnostics(idata, var_names=names)


def _ranking_dataset(post: xr.Dataset, data: JudgeData, prob: float = 0.95) -> xr.Dataset:
    mu = post["expected_score"].stack(sample=("chain", "draw")).transpose("sample", "candidate")
    ranks = post["rank"].stack(sample=("chain", "draw")).transpose("sample", "candidate").values
    lo_q, hi_q = (1 - prob) / 2, 1 - (1 - prob) / 2
    mean = mu.mean("sample").values
    point = rank(mean)
    ds = xr.Dataset(
        {
            "mu_mean": ("candidate", mean),
            "mu_sd": ("candidate", mu.std("sample").values),
            "mu_lo": ("candidate", np.quantile(mu.values, lo_q, axis=0)),
            "mu_hi": ("candidate", np.quantile(mu.values, hi_q, axis=0)),
            "rank": ("candidate", point),
            "rank_lo": ("candidate", np.quantile(ranks, lo_q, axis=0, method="inverted_cdf")),
            "rank_hi": ("candidate", np.quantile(ranks, hi_q, axis=0, method="inverted_cdf")),
            "rank_mean": ("candidate", ranks.mean(axis=0)),
        },
        coords={"candidate": list(data.candidates)},
        attrs={"interval_prob": prob},
    )
    if data.truth is not None:
        ds["truth"] = ("candidate", data.truth)
    return ds


#: Models built by :func:`fit_judges`, by structure (:func:`_structure_key`); most recent last.
_BUILT: OrderedDict[tuple, pm.Model] = OrderedDict()
_BUILT_MAX = 8
#: The frozen copy each model is sampled through (:func:`_frozen`).
_FROZEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _structure_key(data: JudgeData, *, effects: bool, integrated: bool, delta, root) -> tuple:
    """What :func:`judge_model` builds into the graph, besides its ``pm.Data``.

    The ``pm.Data`` are counts, values, omega, beta_max; the rest is names, levels, pairs and prior
    options.
    """
    d = tuple(delta_preset(delta, data.n_true)) if effects else None
    return (
        tuple(data.candidates),
        tuple(data.judges),
        tuple(data.true_levels),
        tuple(data.assigned_levels),
        tuple(int(t) for t in data.correct_level),
        tuple(_pairs(data)),
        bool(integrated),
        bool(effects),
        d,
        root,
    )


def _built_model(data: JudgeData, *, omega, integrated, delta, root, exclude_same_family):
    """:func:`judge_model` for ``data``, or the model built earlier for the same structure."""
    used = data.with_mask(exclude_same_family)
    effects = bool(integrated or omega > 0)
    key = _structure_key(used, effects=effects, integrated=integrated, delta=delta, root=root)
    if key not in _BUILT:
        _BUILT[key] = judge_model(
            data,
            omega=omega,
            integrated=integrated,
            delta=delta,
            root=root,
            exclude_same_family=exclude_same_family,
        )
        while len(_BUILT) > _BUILT_MAX:
            _BUILT.popitem(last=False)
    _BUILT.move_to_end(key)
    return _BUILT[key]


def _frozen(model: pm.Model) -> pm.Model:
    """A copy of ``model`` that PyMC samples without recompiling.

    A ``FrozenModel`` (:func:`pymc.model.transform.optimization.freeze_model`) caches its compiled
    log density, initial point and trace functions across ``pm.sample`` calls.

    Unlike ``freeze_model``, which also freezes the data that free variables depend on, every
    ``pm.Data`` stays settable here: ``beta_max`` and ``omega`` enter the priors only as
    values read by the compiled functions at each call, so one compiled model serves a whole
    sensitivity grid. Falls back to ``model`` itself where PyMC lacks frozen models.
    """
    if model in _FROZEN:
        return _FROZEN[model]
    try:
        from pymc.model.core import FrozenModel
        from pymc.model.transform.optimization import freeze_dims_and_data

        frozen = freeze_dims_and_data(model, data=[])
        frozen.check_bounds = model.check_bounds  # not carried over by the copy
        frozen.__class__ = FrozenModel  # as freeze_model does
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - older PyMC
        frozen = model
    _FROZEN[model] = frozen
    return frozen


def fit_judges(
    data: JudgeData,
    *,
    omega: float = 0.0,
    beta_max: float = 5.0,
    integrated: bool = False,
    delta: str | Sequence[float] = "inflation",
    root: str = "boosted",
    exclude_same_family: bool = True,
    settings: NutsSettings | None = None,
    model: pm.Model | None = None,
) -> xr.DataTree:
    """Fit the judges model with NUTS and summarise the ranking.

    ``model`` may be a model built earlier by :func:`~bayes_eval.models.judges.judge_model`
    for the same data and structure; then only its ``counts``, ``values``, ``omega`` and
    ``beta_max`` data are set (no new graph). Without it, a model built by an earlier fit of
    the same structure (the same candidates, judges, levels, pairs and prior options) is
    reused the same way. Each model is sampled through a frozen copy (``_frozen``) that
    compiles its functions once, so repeated fits (the SummEval dimensions, a sensitivity
    grid, study replicates) spend their time sampling.

    Parameters
    ----------
    data : JudgeData
        Counts per judge, candidate and assigned level.
    omega, beta_max, integrated, delta, root, exclude_same_family : keyword-only
        The model, as in :func:`~bayes_eval.models.judges.judge_model` (defaults
        ``omega=0``, ``beta_max=5``, ``integrated=False``, ``delta="inflation"``,
        ``root="boosted"``, ``exclude_same_family=True``).
    settings : bayes_eval.nuts.NutsSettings, optional, keyword-only
        NUTS settings; unset values are the model's own (:func:`model_settings`).
    model : pymc.Model, optional, keyword-only
        A model built earlier by :func:`~bayes_eval.models.judges.judge_model` for the same
        pairs, to reuse.

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (with ``expected_score`` and ``rank`` over ``candidate``),
        ``sample_stats``, ``observed_data``, ``constant_data`` and ``ranking`` (posterior mean,
        sd and 95% equal-tailed interval of ``mu``; point rank; 95% rank credible interval;
        ``truth`` if known). ``attrs`` hold the settings and the convergence diagnostics of
        :func:`fit_diagnostics` (``max_rhat``, ``min_ess_bulk``, ``min_ess_tail``,
        ``divergences``, ``divergence_rate``, ``converged`` as 0/1 and
        ``convergence_messages``; read them back with
        :meth:`bayes_eval.models.sampling.Diagnostics.from_attrs`). ``converged`` is 1 only
        without divergences and with every checked variable within PyMC's r-hat and ESS
        thresholds.

    Examples
    --------
    A toy fit (one short chain, so it does not pass the convergence checks; ``warn=False``
    keeps it quiet):

    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judges import fit_judges
    >>> from bayes_eval.nuts import NutsSettings
    >>> fit = fit_judges(data, settings=NutsSettings(draws=20, tune=20, chains=1, warn=False))
    >>> sorted(fit.children)
    ['constant_data', 'observed_data', 'posterior', 'ranking', 'sample_stats']
    >>> list(fit["ranking"].data_vars)
    ['mu_mean', 'mu_sd', 'mu_lo', 'mu_hi', 'rank', 'rank_lo', 'rank_hi', 'rank_mean']
    >>> fit["posterior"]["expected_score"].dims, bool(fit.attrs["converged"])
    (('chain', 'draw', 'candidate'), False)
    """
    s = model_settings(settings, integrated)
    used = data.with_mask(exclude_same_family)
    if model is None:
        model = _built_model(
            data,
            omega=omega,
            integrated=integrated,
            delta=delta,
            root=root,
            exclude_same_family=exclude_same_family,
        )
    else:  # reuse a built model: same pairs, new counts and prior settings
        built = model.coords.get("pair"), model.coords.get("candidate")
        if built != (tuple(_pairs(used)), tuple(used.candidates)):
            raise ValueError("model was built for other (judge, candidate) pairs; rebuild it.")
        if not integrated and omega == 0 and "R" in model.named_vars:
            raise ValueError("omega is 0 but model has random effects; build it with omega=0.")
    jj, kk = np.nonzero(used.mask)
    new = {"counts": used.counts[jj, kk], "values": np.asarray(used.values, dtype=float)}
    if not integrated:
        new.update({"omega": float(omega), "beta_max": float(beta_max)})
    with model:
        pm.set_data(new)
    sampled = _frozen(model)
    if sampled is not model:
        with sampled:
            pm.set_data(new)
    cores = s.cores or min(s.chains, usable_cpus())
    # Only the log density and its gradient (evaluated ~10^5 times) are compiled with Numba;
    # the functions evaluated once per draw (the initial point, the deterministics stored in
    # the trace) run on PyTensor's Python backend, whose compilation takes no time.
    # (inside the model's context, where PyMC's compiler reads its ``check_bounds``)
    check_trace_memory(sampled, draws=s.draws, tune=s.tune, chains=s.chains)
    with sampled, pytensor.config.change_flags(mode="FAST_COMPILE"), sampler_session():
        idata = pm.sample(
            draws=s.draws,
            tune=s.tune,
            chains=s.chains,
            cores=cores,
            random_seed=s.seed,
            target_accept=s.target_accept,
            model=sampled,
            progressbar=s.progress,
            compute_convergence_checks=False,
            nuts_sampler=s.sampler,
            compile_kwargs={"mode": "NUMBA", **(TRUSTED if s.sampler == "pymc" else {})},
        )
    post = idata["posterior"].to_dataset()
    post["rank"] = (("chain", "draw", "candidate"), rank(post["expected_score"].values))
    idata["posterior"] = xr.DataTree(post)
    idata["ranking"] = xr.DataTree(_ranking_dataset(post, used))
    diag = fit_diagnostics(idata)
    idata.attrs.update(
        {
            "omega": "integrated" if integrated else float(omega),
            "beta_max": "integrated" if integrated else float(beta_max),
            "exclude_same_family": int(exclude_same_family),
            **diag.to_attrs(),
        }
    )
    if s.warn:
        warn_if_unconverged(diag, "judges model fit")
    return idata


def judge_sensitivity(
    data: JudgeData,
    *,
    omegas: Sequence[float] = (0, 1, 2, 4, 8),
    beta_maxes: Sequence[float] = (0, 1, 5, 10, 20),
    base: tuple[float, float] = (0.0, 5.0),
    settings: NutsSettings | None = None,
    progress: bool = False,
) -> xr.Dataset:
    """§5.4's sensitivity analysis.

    Spearman correlation of each setting's point ranking with the base fit
    (``omega = 0, beta_max = 5``), and the rank intervals of each fit.

    The omega grid runs at the base ``beta_max``, the beta_max grid at the base ``omega``.
    Fits with ``omega = 0`` share one compiled model and fits with ``omega > 0`` another
    (also with earlier fits of the same data structure, :func:`fit_judges`).

    Parameters
    ----------
    data : JudgeData
        Counts per judge, candidate and assigned level.
    omegas : sequence of float, keyword-only
        The omega grid (at the base ``beta_max``); default 0, 1, 2, 4, 8.
    beta_maxes : sequence of float, keyword-only
        The beta_max grid (at the base ``omega``); default 0, 1, 5, 10, 20.
    base : (float, float), keyword-only
        The base ``(omega, beta_max)``, default ``(0, 5)``.
    settings : bayes_eval.nuts.NutsSettings, optional, keyword-only
        NUTS settings of every fit (default 2 chains x (500 + 500)).
    progress : bool, keyword-only
        Show a progress bar over the fits; default False.

    Returns
    -------
    xarray.Dataset
        Over ``setting`` (coords ``axis`` and ``value``): ``spearman_vs_base``; over
        ``(setting, candidate)``: ``rank``, ``rank_lo`` and ``rank_hi``.

    Examples
    --------
    A toy grid of two fits (one short chain each; convergence warnings silenced here):

    >>> import warnings
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judges import judge_sensitivity
    >>> from bayes_eval.nuts import NutsSettings
    >>> settings = NutsSettings(draws=20, tune=20, chains=1, warn=False)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     grid = judge_sensitivity(data, omegas=(0,), beta_maxes=(1, 5), settings=settings)
    >>> grid["setting"].values.tolist(), dict(grid.sizes)
    (['omega=0', 'beta_max=1', 'beta_max=5'], {'setting': 3, 'candidate': 3})
    """
    from scipy import stats

    settings = settings or NutsSettings(draws=500, tune=500, chains=2)
    grid = [("omega", o, float(o), base[1]) for o in omegas]
    grid += [("beta_max", b, base[0], float(b)) for b in beta_maxes]
    if (base[0], base[1]) not in [(g[2], g[3]) for g in grid]:
        grid.insert(0, ("base", 0, base[0], base[1]))
    fits: dict[tuple[float, float], xr.Dataset] = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len({(g[2], g[3]) for g in grid}), desc="sensitivity fits")
    for _, _, om, bm in grid:
        if (om, bm) in fits:
            continue
        # fit_judges reuses the model built for this structure (one with omega = 0, one with)
        fit = fit_judges(data, omega=om, beta_max=bm, settings=settings)
        fits[(om, bm)] = fit["ranking"].to_dataset()
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    base_rank = fits[(base[0], base[1])]["mu_mean"].values
    rows = []
    for axis, value, om, bm in grid:
        r = fits[(om, bm)]
        rho = float(stats.spearmanr(base_rank, r["mu_mean"].values).statistic)
        rows.append(
            (axis, float(value), rho, r["rank"].values, r["rank_lo"].values, r["rank_hi"].values)
        )
    setting = [f"{a}={v:g}" for a, v, *_ in rows]
    return xr.Dataset(
        {
            "spearman_vs_base": ("setting", [r[2] for r in rows]),
            "rank": (("setting", "candidate"), np.array([r[3] for r in rows])),
            "rank_lo": (("setting", "candidate"), np.array([r[4] for r in rows])),
            "rank_hi": (("setting", "candidate"), np.array([r[5] for r in rows])),
        },
        coords={
            "setting": setting,
            "axis": ("setting", [r[0] for r in rows]),
            "value": ("setting", [r[1] for r in rows]),
            "candidate": list(data.candidates),
        },
        attrs={"base": f"omega={base[0]:g}, beta_max={base[1]:g}"},
    )
