r"""Compiled likelihood of the crossed model's ordinal scores (:mod:`bayes_eval.models.crossed`).

The cumulative-logit model of McCullagh ("Regression models for ordinal data", JRSS B, 1980)
gives an entry (cell, level ``k``) of a leaderboard the probability
:math:`P(Y = k) = \sigma(\eta - c_k) - \sigma(\eta - c_{k+1})`, with :math:`c_0 = -\infty`,
:math:`c_K = +\infty` and :math:`\eta = \theta_l - b_\alpha (+ e_{l\alpha})`. With
:math:`w = e^\eta` and :math:`u_k = e^{c_k}`, :math:`\sigma(\eta - c_k) = w / (w + u_k)`, so

.. math::
    \log P(Y = k) = a_k\,\eta + g_k - \log\big[(s_k w + u^{(1)}_k)(t_k w + u^{(2)}_k)\big],

where, for an interior level :math:`1 \le k \le K - 2`, :math:`a_k = s_k = t_k = 1`,
:math:`u^{(1)}_k = u_k`, :math:`u^{(2)}_k = u_{k+1}` and
:math:`g_k = \log(u_{k+1} - u_k) = c_{k+1} + \log(1 - e^{-(c_{k+1} - c_k)})`; for the lowest
level :math:`a_0 = s_0 = 0`, :math:`u^{(1)}_0 = 1`, :math:`g_0 = c_1` (:math:`P = u_1 / (w +
u_1)`); for the highest :math:`t_{K-1} = 0`, :math:`u^{(2)}_{K-1} = 1`, :math:`g_{K-1} = 0`
(:math:`P = w / (w + u_{K-1})`). One logarithm per entry (of the product; the two factors
separately only when it would overflow), against two ``log1p`` in the plain PyTensor graph,
and the gathers of :math:`\theta`, :math:`b` and the per-level constants, and their
scatter-adds in the gradient, happen in the same loop: 2.6 times less work per gradient on a
93 x 1,136 leaderboard (``benchmarks/bench_crossed.py``).

:class:`OrdinalLoglik` returns ``count * log P(Y = k)`` per entry (so that the pointwise
log-likelihood, e.g. for LOO, is the same as before); its gradient is the vector-Jacobian
product :class:`OrdinalLoglikGrad`, another loop over the entries. Both are compiled with Numba
for PyTensor's Numba backend (nutpie's and PyMC's samplers) and run as plain Numba functions
in PyTensor's Python backend.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.gradient import DisconnectedType, disconnected_type, grad_undefined
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.link.numba.dispatch import basic as numba_basic
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import Elemwise

from bayes_eval.models.kernel_version import kernel_version

__all__ = ["OrdinalLoglik", "OrdinalLoglikGrad", "ordinal_loglik"]

#: Above this product of the two factors, their logarithms are taken separately (no overflow).
_BIG = 1e300


@numba.njit(cache=True, error_model="numpy")
def _levels(c):  # pragma: no cover - compiled
    """Per-level constants ``(a, g, s, u1, t, u2)`` of the module docstring.

    They are computed from the K - 1 cutpoints ``c`` (increasing).
    """
    K = c.size + 1
    a = np.ones(K)
    g = np.zeros(K)
    s = np.ones(K)
    u1 = np.ones(K)
    t = np.ones(K)
    u2 = np.ones(K)
    a[0] = 0.0
    s[0] = 0.0
    g[0] = c[0]
    t[K - 1] = 0.0
    for k in range(1, K):
        u1[k] = math.exp(c[k - 1])
    for k in range(K - 1):
        u2[k] = math.exp(c[k])
    for k in range(1, K - 1):
        g[k] = c[k] + math.log(-math.expm1(c[k - 1] - c[k]))
    return a, g, s, u1, t, u2


@numba.njit(cache=True, error_model="numpy")
def _entry(theta_l, b_q, off, et_l, eb_q, offset):  # pragma: no cover - compiled
    """``eta`` and ``w = exp(eta)`` of one entry (no ``exp`` per entry without an offset)."""
    if offset:
        eta = theta_l - b_q + off
        return eta, math.exp(eta)
    return theta_l - b_q, et_l * eb_q


@numba.njit(cache=True, error_model="numpy")
def _ordinal_pass(theta, b, c, li, qi, kk, weight, off, offset, values):  # pragma: no cover
    """One pass over the entries: log probabilities and the gradient of their weighted sum.

    With ``values``, ``weight * log P(Y = k)`` per entry (module docstring; ``weight`` is then the
    count); always the gradient of the weighted sum with respect to ``theta``, ``b``, ``c`` and
    ``off`` (empty without an offset).
    """
    a, g, s, u1, t, u2 = _levels(c)
    K = c.size + 1
    et = np.exp(theta)
    eb = np.exp(-b)
    out = np.empty(li.size if values else 0)
    d_theta = np.zeros(theta.size)
    d_b = np.zeros(b.size)
    d_c = np.zeros(c.size)
    d_off = np.zeros(li.size if offset else 0)
    per_level = np.zeros(K)
    for i in range(li.size):
        j, q, k = li[i], qi[i], kk[i]
        m = weight[i]
        eta, w = _entry(theta[j], b[q], off[i] if offset else 0.0, et[j], eb[q], offset)
        f1 = s[k] * w + u1[k]
        f2 = t[k] * w + u2[k]
        if values:
            prod = f1 * f2
            log_prod = math.log(prod) if prod < _BIG else math.log(f1) + math.log(f2)
            out[i] = m * (a[k] * eta + g[k] - log_prod)
        r1 = u1[k] / f1
        r2 = u2[k] / f2
        # d/d eta of -log(s w + u) is -s w / (s w + u) = s (u / (s w + u) - 1)
        d_eta = m * (a[k] + s[k] * (r1 - 1.0) + t[k] * (r2 - 1.0))
        d_theta[j] += d_eta
        d_b[q] -= d_eta
        if offset:
            d_off[i] = d_eta
        if k >= 1:  # u1 = exp(c[k - 1])
            d_c[k - 1] -= m * r1
        if k <= K - 2:  # u2 = exp(c[k])
            d_c[k] -= m * r2
        per_level[k] += m
    d_c[0] += per_level[0]  # g_0 = c[0]
    for k in range(1, K - 1):  # g_k = log(exp(c[k]) - exp(c[k - 1]))
        d_c[k] -= per_level[k] / math.expm1(c[k - 1] - c[k])
        d_c[k - 1] -= per_level[k] / math.expm1(c[k] - c[k - 1])
    return out, d_theta, d_b, d_c, d_off


@numba.njit(cache=True, error_model="numpy")
def _ordinal_values(theta, b, c, li, qi, kk, count, off, offset):  # pragma: no cover
    """``count * log P(Y = k)`` per entry (module docstring), and the gradient of their sum.

    The gradient is with respect to ``theta``, ``b``, ``c`` and ``off`` (empty without an offset),
    in one pass: the gradient of a log density is what a sampler asks for with every value.
    """
    return _ordinal_pass(theta, b, c, li, qi, kk, count, off, offset, True)


@numba.njit(cache=True, error_model="numpy")
def _ordinal_vjp(theta, b, c, li, qi, kk, count, off, offset, cot):  # pragma: no cover
    """Vector-Jacobian product of :func:`_ordinal_values` with the cotangent ``cot``.

    The cotangent has one value per entry; returns the gradients with respect to ``theta``, ``b``,
    ``c`` and ``off``.
    """
    _, d_theta, d_b, d_c, d_off = _ordinal_pass(
        theta, b, c, li, qi, kk, cot * count, off, offset, False
    )
    return d_theta, d_b, d_c, d_off


_VERSION = kernel_version(_levels, _entry, _ordinal_pass, _ordinal_values, _ordinal_vjp)
_FLOATS = (0, 1, 2, 6, 7)  # theta, b, c, count, off
_INTS = (3, 4, 5)  # li, qi, kk


def _inputs(theta, b, c, li, qi, kk, count, off) -> list:
    ins = [pt.as_tensor_variable(x) for x in (theta, b, c, li, qi, kk, count, off)]
    names = ("theta", "b", "c", "li", "qi", "kk", "count", "off")
    wrong = [f"{n} ({x.ndim}-d)" for n, x in zip(names, ins, strict=True) if x.ndim != 1]
    if wrong:
        raise TypeError(f"OrdinalLoglik takes vectors; got {', '.join(wrong)}.")
    for i in _FLOATS:
        ins[i] = pt.cast(ins[i], "float64")
    for i in _INTS:
        ins[i] = pt.cast(ins[i], "int64")
    return ins


class OrdinalLoglik(Op):
    """``count * log P(Y = k)`` per (cell, level) entry of the cumulative-logit model.

    Inputs: ``theta`` (L,), ``b`` (M,), the increasing cutpoints ``c`` (K - 1,), the entries'
    model ``li``, question ``qi`` and level ``kk`` (n,), their ``count`` (n,), and ``off``
    (n,): a logit offset per entry (the interaction), read only when ``offset``. Outputs: the
    values (n,), and the gradient of their sum with respect to ``theta``, ``b``, ``c`` and
    ``off`` (empty without an offset). A log density's gradient is the cotangent of a sum: a
    scalar broadcast over the entries, and :meth:`pullback` then scales these gradients
    (computed in the same pass as the values); any other cotangent goes through
    :class:`OrdinalLoglikGrad`.

    Parameters
    ----------
    offset : bool, optional
        Whether the entries have a logit offset ``off`` (the model x question interaction);
        default False.

    Examples
    --------
    >>> import numpy as np
    >>> import pytensor
    >>> from bayes_eval.models.crossed_kernels import OrdinalLoglik
    >>> theta, b, c = np.array([0.0, 1.0]), np.array([0.5]), np.array([-1.0, 1.0])
    >>> li, qi, kk = np.array([0, 1, 1]), np.array([0, 0, 0]), np.array([0, 1, 2])
    >>> outputs = OrdinalLoglik()(theta, b, c, li, qi, kk, [2.0, 1.0, 3.0], np.zeros(0))
    >>> values, *grads = pytensor.function([], outputs)()
    >>> values.round(4).tolist()
    [-1.9482, -0.8209, -2.9222]
    >>> [g.round(4).tolist() for g in grads]  # of the sum, for theta, b, c and off
    [[-1.2449, 1.6723], [-0.4273], [0.906, -1.3333], []]
    """

    __props__ = ("offset",)

    def __init__(self, offset: bool = False):
        self.offset = bool(offset)

    def make_node(self, theta, b, c, li, qi, kk, count, off):
        """Build the node: the inputs as float64 and int64 vectors, five float64 vector outputs."""
        ins = _inputs(theta, b, c, li, qi, kk, count, off)
        return Apply(self, ins, [pt.dvector() for _ in range(5)])

    def perform(self, node, inputs, output_storage):
        """Compute the values and the gradient of their sum in one pass (``_ordinal_values``)."""
        for store, value in zip(output_storage, _ordinal_values(*inputs, self.offset), strict=True):
            store[0] = value

    def infer_shape(self, *args):  # (fgraph, node, shapes) before PyTensor 3, (node, shapes) now
        """Give the output shapes: ``(n,)``, then those of ``theta``, ``b``, ``c`` and ``off``."""
        shapes = args[-1]
        return [shapes[3], shapes[0], shapes[1], shapes[2], shapes[3] if self.offset else (0,)]

    def pullback(self, inputs, outputs, cotangents):
        """Compute the gradients of the inputs for the cotangent of the values (first derivatives).

        A scalar cotangent scales the gradient outputs; any other goes through
        ``OrdinalLoglikGrad``. The indices are disconnected, the counts undefined.
        """
        if any(not isinstance(c.type, DisconnectedType) for c in cotangents[1:]):
            why = "OrdinalLoglik computes first derivatives; NUTS needs no second ones"
            return [grad_undefined(self, i, x, why) for i, x in enumerate(inputs)]
        scalar = _broadcast_scalar(cotangents[0])
        if scalar is not None:
            grads = [scalar * g for g in outputs[1:]]
        else:
            grads = OrdinalLoglikGrad(self.offset)(*inputs, cotangents[0])
        why = "the counts are observed data"
        return [
            grads[0],
            grads[1],
            grads[2],
            disconnected_type(),
            disconnected_type(),
            disconnected_type(),
            grad_undefined(self, 6, inputs[6], why),
            grads[3] if self.offset else disconnected_type(),
        ]

    def connection_pattern(self, node):
        """Connect every output to ``theta``, ``b``, ``c``, ``count`` (and ``off`` if offset)."""
        return [[i in (0, 1, 2, 6) or (i == 7 and self.offset)] * 5 for i in range(8)]

    L_op = pullback  # PyTensor versions before `pullback`


def _broadcast_scalar(cotangent):
    """The scalar that ``cotangent`` repeats over the entries, or None when it may vary.

    That is the gradient of a sum: PyTensor writes it ``second(values, g)`` or ``alloc(g, n)``.
    """
    node = cotangent.owner
    if node is None:
        return None
    op = node.op
    if isinstance(op, Elemwise) and isinstance(op.scalar_op, ps.Second):
        source = node.inputs[1]
    elif isinstance(op, Alloc):
        source = node.inputs[0]
    else:
        return None
    if not all(source.type.broadcastable):
        return None
    return source.dimshuffle([]) if source.ndim else source


class OrdinalLoglikGrad(Op):
    """The gradient of :class:`OrdinalLoglik` against a cotangent per entry.

    With respect to ``theta``, ``b``, ``c`` and ``off`` (empty without an offset). First derivatives
    only.

    Parameters
    ----------
    offset : bool, optional
        Whether the entries have a logit offset ``off``; default False.

    Examples
    --------
    >>> import numpy as np
    >>> import pytensor
    >>> from bayes_eval.models.crossed_kernels import OrdinalLoglikGrad
    >>> theta, b, c = np.array([0.0, 1.0]), np.array([0.5]), np.array([-1.0, 1.0])
    >>> li, qi, kk = np.array([0, 1, 1]), np.array([0, 0, 0]), np.array([0, 1, 2])
    >>> cot = np.ones(3)  # the cotangent of the sum
    >>> grads = OrdinalLoglikGrad()(theta, b, c, li, qi, kk, [2.0, 1.0, 3.0], np.zeros(0), cot)
    >>> [g.round(4).tolist() for g in pytensor.function([], grads)()]
    [[-1.2449, 1.6723], [-0.4273], [0.906, -1.3333], []]
    """

    __props__ = ("offset",)

    def __init__(self, offset: bool = False):
        self.offset = bool(offset)

    def make_node(self, theta, b, c, li, qi, kk, count, off, cot):
        """Build the node: the inputs and the float64 cotangent, four float64 vector outputs."""
        ins = _inputs(theta, b, c, li, qi, kk, count, off)
        ins.append(pt.cast(pt.as_tensor_variable(cot), "float64"))
        return Apply(self, ins, [pt.dvector() for _ in range(4)])

    def perform(self, node, inputs, output_storage):
        """Compute the vector-Jacobian product with the cotangent (``_ordinal_vjp``)."""
        *args, cot = inputs
        for store, value in zip(output_storage, _ordinal_vjp(*args, self.offset, cot), strict=True):
            store[0] = value

    def infer_shape(self, *args):
        """Give the output shapes: those of ``theta``, ``b``, ``c`` and ``off`` (else ``(0,)``)."""
        shapes = args[-1]
        return [shapes[0], shapes[1], shapes[2], shapes[3] if self.offset else (0,)]

    def pullback(self, inputs, outputs, cotangents):
        """Refuse second derivatives: undefined gradients unless every cotangent is disconnected."""
        if all(isinstance(c.type, DisconnectedType) for c in cotangents):
            return [disconnected_type() for _ in inputs]
        why = "OrdinalLoglik computes first derivatives; NUTS needs no second ones"
        return [grad_undefined(self, i, x, why) for i, x in enumerate(inputs)]

    L_op = pullback


@numba_basic.register_funcify_default_op_cache_key(OrdinalLoglik)
def _numba_ordinal_loglik(op, node=None, **kwargs):
    offset = op.offset

    @numba_basic.numba_njit
    def ordinal_loglik(theta, b, c, li, qi, kk, count, off):
        return _ordinal_values(theta, b, c, li, qi, kk, count, off, offset)

    return ordinal_loglik, _VERSION


@numba_basic.register_funcify_default_op_cache_key(OrdinalLoglikGrad)
def _numba_ordinal_loglik_grad(op, node=None, **kwargs):
    offset = op.offset

    @numba_basic.numba_njit
    def ordinal_loglik_grad(theta, b, c, li, qi, kk, count, off, cot):
        return _ordinal_vjp(theta, b, c, li, qi, kk, count, off, offset, cot)

    return ordinal_loglik_grad, _VERSION


def ordinal_loglik(theta, b, c, li, qi, kk, count, off=None):
    """``count * log P(Y = k)`` per entry (:class:`OrdinalLoglik`), as a PyTensor graph.

    Parameters
    ----------
    theta : array_like or pytensor.tensor.TensorVariable, shape ``(L,)``
        Abilities of the L models.
    b : array_like or pytensor.tensor.TensorVariable, shape ``(M,)``
        Difficulties of the M questions.
    c : array_like or pytensor.tensor.TensorVariable, shape ``(K - 1,)``
        Increasing cutpoints of the K levels.
    li, qi, kk : array_like of int, shape ``(n,)``
        Model, question and level of every (cell, level) entry.
    count : array_like, shape ``(n,)``
        How many trials of the cell scored that level.
    off : array_like or pytensor.tensor.TensorVariable, shape ``(n,)``, optional
        A logit offset per entry (the model x question interaction), or None (default).

    Returns
    -------
    pytensor.tensor.TensorVariable
        The ``(n,)`` values ``count * log P(Y = k)``, differentiable in ``theta``, ``b``,
        ``c`` and ``off``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.crossed_kernels import ordinal_loglik
    >>> theta, b, c = np.array([0.0, 1.0]), np.array([0.5]), np.array([-1.0, 1.0])
    >>> li, qi, kk = np.array([0, 1, 1]), np.array([0, 0, 0]), np.array([0, 1, 2])
    >>> values = ordinal_loglik(theta, b, c, li, qi, kk, np.array([2.0, 1.0, 3.0]))
    >>> values.eval().round(4).tolist()
    [-1.9482, -0.8209, -2.9222]
    >>> from scipy.special import expit  # level 0 of model 0: 2 log(1 - expit(-0.5 + 1))
    >>> round(2 * float(np.log(1 - expit(-0.5 - c[0]))), 4)
    -1.9482
    """
    offset = off is not None
    op = OrdinalLoglik(offset)
    return op(theta, b, c, li, qi, kk, count, off if offset else np.zeros(0))[0]
