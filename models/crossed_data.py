"""Scores of a leaderboard checked and reduced to the cells of a crossed model.

The model is :func:`~bayes_eval.models.crossed.crossed_model`.

:class:`CrossedData` validates ``R`` against the likelihood (binary 0/1, graded in ``[0, 1]``,
or on K evenly spaced levels) and keeps, per answered (model, question) cell, its number of
trials and sum of scores (and, for K levels, one entry per observed level with its count):
the sufficient statistics of the likelihoods of :mod:`bayes_eval.models.crossed`.
:func:`auto_centering` decides the parametrisation of ``parametrization="auto"``.
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from scipy.special import expit
from scipy.stats import chi2

from bayes_eval.inputs import shown

__all__ = ["AUTO_SHRINKAGE", "LIKELIHOODS", "CrossedData", "auto_centering"]

LIKELIHOODS = ("binomial", "fractional", "ordinal")
#: ``"auto"`` centres a block when its typical unit shrinks at most this much towards the
#: population mean (:func:`auto_centering`).
AUTO_SHRINKAGE = 0.5


class CrossedData:
    """Validated scores: per answered cell its model, question, trials and score sum.

    Parameters
    ----------
    R : array_like or xarray.DataArray, shape ``(M, N)`` or ``(L, M, N)``
        Scores of L models on M questions over N trials; NaN (or ``mask``, or a masked
        array's mask) marks a trial without a score. A DataArray with dims ``model``
        (optional), ``question`` and ``trial`` gives its labels to the coords.
    likelihood : {"binomial", "fractional", "ordinal"}
        What the scores are: binary 0/1, graded in [0, 1], or on ``levels`` levels.
    levels : int or None
        K >= 2 evenly spaced levels ``0, 1/(K-1), ..., 1`` for ``"ordinal"``; None otherwise.
    mask : array_like of bool or None
        True where a trial is missing, shape of ``R``.
    models : list of str or None
        Names of the L models (default: the DataArray's labels, else ``model_0``, ...).

    Attributes
    ----------
    shape : (int, int)
        L models, M questions.
    coords : dict
        ``model`` and ``question`` labels.
    K : int
        Levels of ``"ordinal"`` scores (0 otherwise).
    n_pair, sum_pair : ndarray, shape ``(L, M)``
        Trials and score sums of every pair (0 where unanswered).
    li, qi, n, S : ndarray, shape ``(cells,)``
        Model and question index, trials and score sum of every answered cell.
    complete : bool
        Every pair answered.
    entries : tuple of ndarray
        ``"ordinal"`` only: model, question, level and count of every observed
        (cell, level).

    Raises
    ------
    ValueError
        If a score does not fit ``likelihood``, a model has no observed trial, or the names,
        mask or shape do not match.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.crossed_data import CrossedData
    >>> R = np.array([[[1, 0, 1], [0, 0, np.nan]], [[1, 1, 1], [np.nan] * 3]])
    >>> data = CrossedData(R, "binomial", None, None, ["a", "b"])
    >>> data.shape, data.n.tolist(), data.S.tolist(), data.complete
    ((2, 2), [3, 2, 3], [2.0, 0.0, 3.0], False)
    >>> graded = CrossedData(np.array([[0, 0.5, 1], [1, 1, 0.5]]), "ordinal", 3, None, None)
    >>> graded.K, [e.tolist() for e in graded.entries]
    (3, [[0, 0, 0, 0, 0], [0, 0, 0, 1, 1], [0, 1, 2, 1, 2], [1, 1, 1, 1, 2]])
    """

    def __init__(self, R, likelihood, levels, mask, models):
        values, observed, labels = _values(R, mask)
        L, M, _ = values.shape
        self.shape = (L, M)
        names = models or labels.get("model") or [f"model_{i}" for i in range(L)]
        if len(names) != L:
            raise ValueError(f"models has {len(names)} names; expected {L}, one per model.")
        self.coords = {
            "model": list(names),
            "question": labels.get("question") or list(range(M)),
        }
        self.K = _check_scores(values, observed, likelihood, levels)
        n = observed.sum(axis=-1)
        empty = np.flatnonzero(n.sum(axis=1) == 0)
        if n.sum() == 0:
            raise ValueError("R has no observed trial; expected at least one answered pair.")
        if empty.size:
            raise ValueError(
                f"model {self.coords['model'][empty[0]]!r} has no observed trial; expected at "
                "least one answered question per model (drop the model)."
            )
        scores = np.where(observed, values, 0.0)
        self.n_pair = n
        self.sum_pair = scores.sum(axis=-1)
        self.li, self.qi = np.nonzero(n)
        self.n = n[self.li, self.qi].astype(np.int64)
        self.S = self.sum_pair[self.li, self.qi]
        self.complete = bool((n > 0).all())
        if self.K:  # (cell, level) entries with their counts
            k = np.rint(scores * (self.K - 1)).astype(np.int64)
            per = np.stack([((k == j) & observed).sum(-1) for j in range(self.K)], -1)
            li, qi, kk = np.nonzero(per)
            self.entries = (li, qi, kk, per[li, qi, kk].astype(np.int64))


def _values(R, mask):
    """Scores ``(L, M, N)`` as floats, ``observed`` mask, labels (NaN or mask = no trial)."""
    labels: dict = {}
    if isinstance(R, xr.DataArray):
        dims = ("model", "question", "trial") if "model" in R.dims else ("question", "trial")
        if set(R.dims) != set(dims):
            raise ValueError(f"R has dims {R.dims}; expected {dims}.")
        R = R.transpose(*dims)
        labels = {d: [str(v) for v in R[d].values] for d in dims[:-1] if d in R.coords}
        R = R.values
    if np.ma.isMaskedArray(R):
        mask = np.ma.getmaskarray(R) | (False if mask is None else np.asarray(mask, bool))
        R = np.ma.getdata(R)
    try:
        values = np.asarray(R, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("R is not numeric; expected scores of shape (L, M, N).") from None
    if values.ndim == 2:
        values = values[None]
        mask = None if mask is None else np.asarray(mask, bool)[None]
    if values.ndim != 3 or 0 in values.shape:
        raise ValueError(
            f"R has shape {np.shape(R)}; expected a non-empty (M, N) or (L, M, N) array "
            "(models x questions x trials)."
        )
    observed = ~np.isnan(values)
    if mask is not None:
        mask = np.asarray(mask, bool)
        if mask.shape != values.shape:
            raise ValueError(f"mask has shape {mask.shape}; expected {values.shape}, as R.")
        observed &= ~mask
    if np.isinf(values[observed]).any():
        raise ValueError("R contains an infinite value; expected scores in [0, 1] (NaN = none).")
    return values, observed, labels


def _check_scores(values, observed, likelihood, levels) -> int:
    """Check the observed scores against the likelihood; return K for ordinal (else 0)."""
    if likelihood not in LIKELIHOODS:
        raise ValueError(f"likelihood is {shown(likelihood)}; expected one of {list(LIKELIHOODS)}.")
    if likelihood != "ordinal" and levels is not None:
        raise ValueError(
            f"levels is {shown(levels)} but likelihood is {likelihood!r}; levels=K is for "
            "likelihood='ordinal' only."
        )
    obs = values[observed]
    if likelihood == "binomial":
        bad = obs[(obs != 0) & (obs != 1)]
        if bad.size:
            raise ValueError(
                f"R contains {shown(float(bad[0]))}; likelihood='binomial' needs binary "
                "results 0/1 (graded scores in [0, 1]: likelihood='fractional' or 'ordinal')."
            )
        return 0
    bad = obs[(obs < 0) | (obs > 1)]
    if bad.size:
        raise ValueError(
            f"R contains {shown(float(bad[0]))}; likelihood={likelihood!r} needs scores in "
            "[0, 1] (NaN for a missing trial)."
        )
    if likelihood == "fractional":
        return 0
    if isinstance(levels, bool) or not isinstance(levels, (int, np.integer)) or levels < 2:
        raise ValueError(
            f"levels is {shown(levels)}; likelihood='ordinal' needs levels=K, an integer >= 2 "
            "(scores on 0, 1/(K-1), ..., 1)."
        )
    K = int(levels)
    off = np.abs(obs * (K - 1) - np.rint(obs * (K - 1))) > 1e-9
    if off.any():
        raise ValueError(
            f"R contains {shown(float(obs[off][0]))}, not one of the {K} levels "
            f"0, 1/{K - 1}, ..., 1; expected ordinal scores on that grid (round them, or use "
            "likelihood='fractional')."
        )
    return K


def _rasch_map(n: np.ndarray, S: np.ndarray, steps: int = 50):
    """Penalised maximum-likelihood abilities and difficulties and their approximate variances.

    The penalty is a ridge N(0, 2^2), with difficulties centred; the fit alternates Newton steps per
    block (each step at most 1 logit: a full step overshoots on questions every model solved).
    """
    L, M = n.shape
    theta, b = np.zeros(L), np.zeros(M)
    ridge = 1.0 / 4.0
    for _ in range(steps):
        p = expit(theta[:, None] - b[None, :])
        info = n * p * (1 - p)
        resid = S - n * p
        theta += np.clip((resid.sum(1) - ridge * theta) / (info.sum(1) + ridge), -1, 1)
        p = expit(theta[:, None] - b[None, :])
        info = n * p * (1 - p)
        b -= np.clip(((S - n * p).sum(0) + ridge * b) / (info.sum(0) + ridge), -1, 1)
        b -= b.mean()
    p = expit(theta[:, None] - b[None, :])
    info = n * p * (1 - p)
    return theta, 1.0 / (info.sum(1) + ridge), b, 1.0 / (info.sum(0) + ridge)


def _pinned(x: np.ndarray, v: np.ndarray) -> bool:
    """Whether estimates ``x`` with sampling variances ``v`` pin their units (auto_centering)."""
    units = x.size
    if units < 3:
        return False
    tau2 = float(np.var(x, ddof=1) - np.mean(v))
    low = tau2 * chi2.ppf(0.05, units - 1) / (units - 1)
    if low <= 0:
        return False
    shrink = float(np.median(v)) / (float(np.median(v)) + low)
    return bool(shrink <= AUTO_SHRINKAGE)


def auto_centering(n: np.ndarray, S: np.ndarray) -> tuple[bool, bool]:
    r"""Which blocks ``parametrization="auto"`` centres: ``(theta, b)``.

    The abilities and difficulties are estimated by penalised maximum likelihood (a ridge
    :math:`N(0, 2^2)`, a few Newton steps per block), each with its sampling variance
    :math:`v_u = 1 / (\sum n\,\hat p(1 - \hat p) + 1/4)`; the population variance of a block of
    J units by moments, :math:`\hat\tau^2 = \mathrm{var}(\hat x) - \bar v`, lowered to its 5%
    chi-square bound :math:`\tau^2_{lo} = \hat\tau^2\chi^2_{J-1}(0.05)/(J - 1)` (few models
    leave the population sd uncertain, and a centred block has a funnel where it is small).
    A block is centred when the typical unit's shrinkage towards the population mean is small,
    :math:`\mathrm{median}(v) / (\mathrm{median}(v) + \tau^2_{lo}) \le` :data:`AUTO_SHRINKAGE`:
    the data, not the hierarchical prior, pin each unit, which is when the centred form mixes
    and the non-centred one does not (Papaspiliopoulos, Roberts and Sköld, "A general
    framework for the parametrization of hierarchical models", Statistical Science, 2007;
    Betancourt and Girolami, "Hamiltonian Monte Carlo for Hierarchical Models", 2015).

    Parameters
    ----------
    n, S : ndarray, shape ``(L, M)``
        Trials and score sums per (model, question) pair (0 where unanswered); graded scores
        count as fractional successes.

    Returns
    -------
    (bool, bool)
        Whether to centre the abilities ``theta`` and whether to centre the difficulties
        ``b`` (a block of fewer than 3 units is never centred).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.crossed_data import auto_centering
    >>> theta, b = np.array([-2.0, -0.5, 0.5, 2.0]), np.linspace(-1, 1, 6)
    >>> n = np.full((4, 6), 50)  # many trials per pair: the data pin every unit
    >>> S = np.random.default_rng(0).binomial(n, 1 / (1 + np.exp(b - theta[:, None])))
    >>> auto_centering(n, S)
    (True, True)
    >>> auto_centering(np.full((2, 3), 4), np.array([[1, 2, 3], [2, 3, 4]]))
    (False, False)
    """
    n, S = np.asarray(n, float), np.asarray(S, float)
    theta, v_theta, b, v_b = _rasch_map(n, S)
    return _pinned(theta, v_theta), _pinned(b, v_b)
