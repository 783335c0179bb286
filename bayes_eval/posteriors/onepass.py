r"""Bayes@N moments in one pass over the results, from integer sufficient statistics.

Under a fixed Dirichlet prior :math:`\alpha` and rubric weights affine in the category,
:math:`w_k = w_0 + d\,k` (binary results, and every evenly spaced rubric), the posterior mean
and variance of a question's score depend on its N trials only through

.. math:: r_q = \sum_i R_{qi}, \qquad u_q = \sum_i R_{qi}^2 .

With :math:`A = N + \sum_k \alpha_k`, :math:`a_1 = \sum_k k\,\alpha_k` and
:math:`a_2 = \sum_k k^2 \alpha_k`, the Dirichlet posterior :math:`\nu = n_q + \alpha` gives
(Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
Algorithm 1 and eq. 15, with :math:`\sum_k k\,\nu_k = r_q + a_1`,
:math:`\sum_k k^2 \nu_k = u_q + a_2`)

.. math::
    E[w\cdot\pi_q] = w_0 + d\,\frac{r_q + a_1}{A}, \qquad
    \mathrm{Var}[w\cdot\pi_q] = d^2\,\frac{A\,(u_q + a_2) - (r_q + a_1)^2}{A^2 (A + 1)},

hence, over the M questions of a model,

.. math::
    \mu = w_0 + d\,\frac{S_1 + M a_1}{M A}, \qquad
    \sigma^2 = d^2\,\frac{A\,(U + M a_2) - (S_2 + 2 a_1 S_1 + M a_1^2)}{A^2 (A + 1) M^2},

with the integer sums :math:`S_1 = \sum_q r_q`, :math:`S_2 = \sum_q r_q^2`,
:math:`U = \sum_q u_q` (exact in 64-bit integers; the last subtraction is exact in floating
point for the uniform and Jeffreys priors up to :math:`2^{53}`).

The sums are read from the labels as ``uint8`` in blocks of models (bounded memory), without
the ``(L, M, C + 1)`` category counts that :func:`bayes_eval.inputs.tally` builds: a row's
labels are added eight at a time as one 64-bit word (multiplying a word by
``0x0101010101010101`` adds its eight bytes into the top byte, exact while their sum is at
most 255, i.e. labels up to 31), and :math:`U` is the sum of the squared labels (equal to
:math:`S_1` for 0/1 labels, to :math:`S_2` for one trial per question).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from bayes_eval.posteriors.posterior import BayesResult

__all__ = ["affine_step", "one_pass_moments", "question_sums"]

#: Adds the eight bytes of a 64-bit word into its top byte (mod 2^64).
_BYTE_SUM = np.uint64(0x0101010101010101)
_TOP_BYTE = np.uint64(56)
#: Labels read per block of models (4 MiB of uint8: the block's temporaries stay small).
_BLOCK = 1 << 22
#: The dtypes the sums dispatch on (a dtype compares faster with a dtype than with a type).
_INT8, _UINT8, _INT64, _FLOAT64 = map(np.dtype, (np.int8, np.uint8, np.int64, np.float64))
#: ``sum(a * b, axis=-1)``: the ufunc ``numpy.vecdot`` (numpy >= 2; half the call cost of
#: ``einsum`` on a small batch), else ``einsum``; exact on integers either way.
_vecdot = getattr(np, "vecdot", None) or (lambda a, b: np.einsum("...i,...i->...", a, b))


def affine_step(w: NDArray[np.float64]) -> float | None:
    r"""``d`` if the weights are :math:`w_k = w_0 + d\,k`, else None.

    Equality is to 16 ulps of the largest :math:`|w_k|`. At least two weights.

    Parameters
    ----------
    w : numpy.ndarray of shape (C + 1,)
        Rubric weights, one per category ``0..C``.

    Returns
    -------
    float or None
        The step ``d`` (always defined for binary weights), or None when the weights are
        not evenly spaced or fewer than two.

    Examples
    --------
    >>> affine_step([0.0, 0.5, 1.0]), affine_step([0.0, 0.3, 1.0]), affine_step([0.0, 1.0])
    (0.5, None, 1.0)
    """
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 1 or w.size < 2:
        return None
    if w.size == 2:  # binary results: always affine
        return float(w[1] - w[0])
    d = (w[-1] - w[0]) / (w.size - 1)
    fitted = w[0] + d * np.arange(w.size)
    tol = 16 * np.finfo(np.float64).eps * max(1.0, float(np.abs(w).max()))
    return float(d) if bool(np.all(np.abs(w - fitted) <= tol)) else None


def _prior_sums(alpha: NDArray[np.float64]) -> tuple[float, float, float]:
    r""":math:`(\sum_k \alpha_k, \sum_k k\,\alpha_k, \sum_k k^2 \alpha_k)`, in Python floats.

    ``alpha`` has one entry per category (at most 2^15 + 1, usually 2-5), where numpy's
    per-call cost would dominate.
    """
    a = alpha.tolist()
    return sum(a), sum(k * x for k, x in enumerate(a)), sum(k * k * x for k, x in enumerate(a))


def question_sums(labels: NDArray[np.uint8], top: int) -> NDArray[np.unsignedinteger]:
    r""":math:`r_q = \sum_i R_{qi}` of each row of ``labels``.

    ``labels`` has shape ``(rows, N)``, ``uint8``, largest label ``top``; the sums are
    ``uint64``, or the labels themselves (``uint8``) for N = 1.

    Eight labels are summed at once as a 64-bit word (``word * 0x0101010101010101 >> 56``)
    when ``8 * top <= 255``; the trials beyond the last whole word, and every trial for
    larger labels, are added column by column (or by :meth:`numpy.ndarray.sum` for many).

    Parameters
    ----------
    labels : numpy.ndarray of uint8, shape (rows, N)
        Category labels, one row per question (of every model), C-contiguous rows.
    top : int
        The largest label, which decides whether eight labels fit in one word.

    Returns
    -------
    numpy.ndarray of shape (rows,)
        :math:`r_q`, ``uint64`` (``uint8``, the labels themselves, for N = 1).

    Examples
    --------
    >>> import numpy as np
    >>> labels = np.array([[1, 1, 1, 0, 1, 1, 1, 1, 0, 1], [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]])
    >>> r = question_sums(labels.astype(np.uint8), top=1)
    >>> r.tolist(), r.dtype.name
    ([8, 1], 'uint64')
    """
    rows, n = labels.shape
    if n == 1:
        return labels[:, 0]
    words = n // 8 if 8 * top <= 255 else 0
    if words == 0 and n > 8:
        return labels.sum(axis=1, dtype=np.uint64)
    if words:
        packed = labels[:, : 8 * words].view(np.uint64)  # (rows, words), byte order irrelevant
        sums = (packed * _BYTE_SUM) >> _TOP_BYTE
        r = sums[:, 0] if words == 1 else sums.sum(axis=1, dtype=np.uint64)
    else:
        r = np.zeros(rows, dtype=np.uint64)
    for j in range(8 * words, n):  # at most 7 columns (or N <= 8 of large labels)
        r += labels[:, j]
    return r


def _squares(x: np.ndarray, top: int | None) -> np.ndarray:
    """``x * x`` without overflow.

    Labels (``uint8``, largest ``top``) squared in ``uint8`` up to 15 and in ``uint16`` above;
    ``top=None``: ``x`` is ``uint64``.
    """
    if top is None:
        return x * x
    wide = x.astype(np.uint16) if top > 15 else x
    return wide * wide


def one_pass_moments(
    values: np.ndarray, w: NDArray[np.float64], alpha: NDArray[np.float64], top: int
) -> BayesResult | None:
    r"""Posterior mean and sd of pi-bar (module docstring) of validated labels ``values``.

    The labels have shape ``(M, N)`` or ``(L, M, N)`` (integers in ``0..top``, no missing
    trial), the prior is the fixed Dirichlet prior ``alpha`` (shape ``(C + 1,)``). None when
    the formula does not apply: weights not affine in the category (or labels above 2^15,
    whose sums could overflow).

    Parameters
    ----------
    values : numpy.ndarray of int, shape (M, N) or (L, M, N)
        Validated labels ``R`` (as :func:`bayes_eval.inputs.labels` returns them).
    w : numpy.ndarray of shape (C + 1,)
        Rubric weights.
    alpha : numpy.ndarray of shape (C + 1,)
        The fixed Dirichlet prior of every question.
    top : int
        The largest label in ``values``.

    Returns
    -------
    BayesResult or None
        Floats for ``(M, N)``, arrays of shape ``(L,)`` for ``(L, M, N)``; equal to
        ``posterior(values, w, prior=alpha).moments()`` to rounding.

    Examples
    --------
    The example of :func:`bayes_eval.bayes` under the uniform prior:

    >>> import numpy as np
    >>> R = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
    >>> mu, sigma = one_pass_moments(R, np.array([0.0, 0.5, 1.0]), np.ones(3), top=2)
    >>> round(mu, 6), round(sigma, 6)
    (0.5625, 0.091998)
    >>> one_pass_moments(R, np.array([0.0, 0.3, 1.0]), np.ones(3), top=2) is None
    True
    """
    d = affine_step(w)
    ndim = values.ndim
    if d is None or ndim not in (2, 3) or top > 2**15:  # int64 sums stay exact
        return None
    dtype = values.dtype
    if dtype == _INT8:  # labels >= 0 (validated): the same bytes as uint8
        values, dtype = values.view(np.uint8), _UINT8
    elif dtype.kind == "u" and dtype.itemsize == 8:  # numpy will not sum uint64 as int64:
        values = values.view(dtype.str.replace("u", "i"))  # labels <= 2^15, the same bytes
        dtype = values.dtype
    v3 = values if ndim == 3 else values[None]
    _, m, n = v3.shape
    a_sum, a1, a2 = _prior_sums(alpha)
    if dtype == _UINT8:
        s1, s2, u = _byte_sums(v3, top)
    else:  # wider integers: sums in int64, without a uint8 copy
        # einsum's sum over the last axis is about twice as fast as ndarray.sum on a short
        # axis; for other dtypes it would sum in their own width (overflow), hence .sum
        r = np.einsum("lmn->lm", v3) if dtype == _INT64 else v3.sum(axis=-1, dtype=np.int64)
        s1 = np.add.reduce(r, axis=-1)  # r.sum without its Python wrapper
        s2 = _vecdot(r, r)
        u = s1 if top <= 1 else np.einsum("lmn,lmn->l", v3, v3, dtype=np.int64)
    big_a = n + a_sum
    # mu = w0 + d (S1 + M a1) / (M A); A (U + M a2) - (S2 + 2 a1 S1 + M a1^2) as few array
    # operations (a batch of 20 models is overhead-bound). The integer sums are converted
    # once: the same rounding as each mixed int64-float operation's own cast, at half the cost
    same_u = u is s1
    s1, s2 = s1.astype(np.float64), s2.astype(np.float64)
    mu = s1 * (d / (m * big_a)) + (float(w[0]) + d * a1 / big_a)
    const = m * (big_a * a2 - a1 * a1)
    if same_u:
        spread = s1 * (big_a - 2.0 * a1) - s2 + const
    else:
        u = u.astype(np.float64)
        spread = u * big_a - s2 - s1 * (2.0 * a1) + const
    sigma = np.sqrt(np.maximum(spread, 0.0)) * (abs(d) / (big_a * math.sqrt(big_a + 1.0) * m))
    if ndim == 2:
        return BayesResult(float(mu[0]), float(sigma[0]))
    return BayesResult(mu, sigma)


def _byte_sums(v3: NDArray[np.uint8], top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(S1, S2, U)`` per model of ``uint8`` labels ``(L, M, N)``, in blocks of models."""
    n_models, m, n = v3.shape
    s1, s2, u = (np.empty(n_models, dtype=np.int64) for _ in range(3))
    per = max(1, _BLOCK // (m * n))
    for start in range(0, n_models, per):
        block = np.ascontiguousarray(v3[start : start + per])
        b = block.shape[0]
        r = question_sums(block.reshape(b * m, n), top).reshape(b, m)
        s1[start : start + b] = r.sum(axis=1, dtype=np.uint64)
        s2[start : start + b] = _squares(r, top if n == 1 else None).sum(axis=1, dtype=np.uint64)
        if n == 1:  # u_q = r_q^2
            u[start : start + b] = s2[start : start + b]
        elif top <= 1:  # 0/1 labels: u_q = r_q
            u[start : start + b] = s1[start : start + b]
        else:
            u[start : start + b] = _squares(block, top).reshape(b, -1).sum(axis=1, dtype=np.uint64)
    return s1, s2, u
