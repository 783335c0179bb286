"""Rank-normalised split r-hat, bulk ESS and tail ESS of many elements at once.

The convergence diagnostics of Vehtari, Gelman, Simpson, Carpenter and Bürkner,
"Rank-normalization, folding, and localization: An improved R-hat for assessing convergence
of MCMC" (Bayesian Analysis, 2021), computed for every element of a posterior variable in a
few vectorised passes: one sort per element and ranking, one FFT along the draws for all
elements of a block. The definitions are those of ``arviz_stats`` (``rhat(method="rank")``,
``ess(method="bulk")`` and ``ess(method="tail")``), which loops over the elements in Python;
:func:`rank_diagnostics` gives the same numbers (to rounding, tested) in a fraction of the
time. Elements are processed in blocks so that the temporaries stay under ``max_bytes``.

Definitions, for one element with draws ``x[c, t]`` of ``C`` chains and ``n`` draws each:

* **Split chains.** Each chain is cut into its first and last ``h = n // 2`` draws (the
  middle draw of an odd ``n`` is dropped), giving ``M = 2C`` chains of ``h`` draws, ``S = M h``
  values.
* **Rank normalisation.** ``z = Phi^{-1}((r - 3/8) / (S + 1/4))``, ``r`` the average rank
  (ties share the mean of their ranks) of each value among all ``S`` (Blom's offsets).
* **R-hat** of an ``M x h`` array: ``sqrt((B / W + h - 1) / h)``, ``W`` the mean of the
  within-chain variances and ``B`` ``h`` times the variance of the chain means (both with
  ``ddof=1``). The rank r-hat is the larger of the r-hat
  of ``z`` (bulk) and of the rank-normalised folded draws ``|x - median(x)|`` (tails).
* **ESS** of an ``M x h`` array ``y``: with autocovariances ``gamma_m(k)`` of each chain
  (FFT, biased, divided by ``h``), ``W = mean_m gamma_m(0) h / (h - 1)``,
  ``var+ = W (h - 1) / h + var(chain means)`` and ``rho_k = 1 - (W - mean_m gamma_m(k)) / var+``.
  Geyer's initial positive sequence sums the pairs ``P_k = rho_{2k} + rho_{2k+1}`` up to the
  first non-positive pair (at most ``k < (h - 2) / 2``), made monotone by a running minimum
  (initial monotone sequence); ``tau = -1 + 2 sum_k P_k + rho_{2L}`` (the even term of the
  pair that stopped the sum, if positive or if that pair is not negative), floored at
  ``1 / log10(M h)``, and ``ESS = M h / tau``. An array that never changes has ``ESS = M h``.
* **Bulk ESS**: the ESS of the rank-normalised split draws. **Tail ESS**: the smaller ESS of
  the split indicators ``x <= q_p`` and ``x <= q_{1-p}``, the quantiles of all draws (not
  split) by NumPy's linear interpolation (Hyndman and Fan type 7); ``p = 0.05`` in the paper.

As in ``arviz_stats``: an element with any NaN, or fewer than 4 draws per chain, gets NaN;
r-hat needs at least 2 chains (NaN with one); an element that never changes has r-hat NaN
and both ESS ``M h``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.fft import irfft, next_fast_len, rfft
from scipy.special import ndtri

__all__ = ["MAX_BYTES", "TAIL_PROB", "RankDiagnostics", "rank_diagnostics"]

#: The tail probability of the tail ESS in Vehtari et al. (2021): the 5% and 95% quantiles.
TAIL_PROB = 0.05
#: Default bound on the temporaries of one block of elements (bytes).
MAX_BYTES = 200_000_000
#: Bytes of temporaries per value of one element (sorts, ranks, spectra): a generous estimate.
_BYTES_PER_VALUE = 160
#: Fewest draws per chain (and chains for r-hat) for which the diagnostics are defined.
_MIN_DRAWS, _MIN_CHAINS_RHAT = 4, 2


class RankDiagnostics(NamedTuple):
    """Per-element diagnostics, each of the element shape of the input.

    Attributes
    ----------
    r_hat : numpy.ndarray
        Rank-normalised split r-hat: the larger of the bulk and folded (tail) r-hat.
    ess_bulk : numpy.ndarray
        ESS of the rank-normalised split draws.
    ess_tail : numpy.ndarray
        The smaller ESS of the indicators of the ``p`` and ``1 - p`` quantiles.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.rank_diagnostics import rank_diagnostics
    >>> diag = rank_diagnostics(np.random.default_rng(0).normal(size=(2, 100, 3)))
    >>> type(diag).__name__, diag._fields
    ('RankDiagnostics', ('r_hat', 'ess_bulk', 'ess_tail'))
    """

    r_hat: np.ndarray
    ess_bulk: np.ndarray
    ess_tail: np.ndarray


def rank_diagnostics(
    x: ArrayLike, *, tail_prob: float = TAIL_PROB, max_bytes: float = MAX_BYTES
) -> RankDiagnostics:
    """Rank-normalised split r-hat, bulk ESS and tail ESS of every element of ``x``.

    Vehtari, Gelman, Simpson, Carpenter and Bürkner, "Rank-normalization, folding, and
    localization: An improved R-hat for assessing convergence of MCMC", Bayesian Analysis
    (2021); the formulas are in the module docstring. With ``h = n // 2`` draws per split
    chain and ``M = 2C`` split chains::

        z = Phi^{-1}((rank - 3/8) / (M h + 1/4))
        r_hat = max(R(z), R(z_folded)),  R = sqrt((B / W + h - 1) / h)
        ESS = M h / tau,  tau = -1 + 2 sum_k P_k + rho_{2L}  (Geyer, monotone)

    Equal to ``arviz_stats.rhat(da, method="rank")``, ``arviz_stats.ess(da, method="bulk")``
    and ``arviz_stats.ess(da, method="tail", prob=tail_prob)`` to rounding, without a Python
    loop over elements.

    Parameters
    ----------
    x : array_like, shape ``(chain, draw, *element)``
        Posterior draws (numeric; booleans and integers are read as floats). Not modified.
    tail_prob : float, keyword-only
        The tail ESS uses the quantiles ``p`` and ``1 - p``, ``p = min(tail_prob,
        1 - tail_prob)``; default 0.05 (the paper's). ``arviz_stats.ess(method="tail")``
        without ``prob`` uses ``rcParams["stats.ci_prob"]`` (0.89: the 11% and 89% quantiles).
    max_bytes : float, keyword-only
        Rough bound on the temporaries of one block of elements (default 200 MB); at least
        one element is processed at a time.

    Returns
    -------
    RankDiagnostics
        ``r_hat``, ``ess_bulk``, ``ess_tail``, each of shape ``element`` (float). NaN for an
        element with a NaN or when there are fewer than 4 draws per chain; ``r_hat`` is NaN
        with a single chain and for an element that never changes.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions or is not numeric, ``tail_prob`` is not in
        (0, 1), or ``max_bytes`` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.rank_diagnostics import rank_diagnostics
    >>> draws = np.random.default_rng(0).normal(size=(2, 100, 3))  # 2 chains, 3 elements
    >>> diag = rank_diagnostics(draws)
    >>> diag.r_hat.shape, diag.r_hat.round(2).tolist()
    ((3,), [1.04, 1.0, 1.03])
    >>> bool((diag.ess_bulk > 100).all())
    True
    """
    arr = np.asarray(x)
    if arr.ndim < 2:
        raise ValueError(
            f"x has shape {arr.shape}; expected (chain, draw, *element) with at least 2 dimensions."
        )
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"x has dtype {arr.dtype}; expected numbers (bool, int or float).")
    if not (isinstance(tail_prob, (int, float)) and 0 < tail_prob < 1):
        raise ValueError(f"tail_prob is {tail_prob!r}; expected a probability in (0, 1).")
    if not (isinstance(max_bytes, (int, float)) and max_bytes > 0):
        raise ValueError(f"max_bytes is {max_bytes!r}; expected a positive number of bytes.")
    chains, draws = arr.shape[:2]
    element_shape = arr.shape[2:]
    size = int(np.prod(element_shape, dtype=np.int64))
    out = np.full((3, size), np.nan)
    if draws >= _MIN_DRAWS and chains >= 1 and size:
        flat = arr.reshape(chains, draws, size)  # a view for a C-contiguous input
        block = max(1, int(max_bytes // (_BYTES_PER_VALUE * chains * draws)))
        for start in range(0, size, block):  # blocks of elements, each vectorised
            stop = min(start + block, size)
            # a fresh float copy with the draws last: (element, chain, draw)
            values = np.array(np.moveaxis(flat[:, :, start:stop], 2, 0), dtype=float)
            out[:, start:stop] = _block(values, float(tail_prob))
    r_hat, ess_bulk, ess_tail = (v.reshape(element_shape) for v in out)
    return RankDiagnostics(r_hat=r_hat, ess_bulk=ess_bulk, ess_tail=ess_tail)


def _block(values: np.ndarray, tail_prob: float) -> np.ndarray:
    """``(3, E)`` r-hat, bulk ESS and tail ESS of ``values`` (E, chain, draw), a scratch copy."""
    n_elem, chains, _ = values.shape
    bad = np.isnan(values).any(axis=(1, 2))
    values[bad] = 0.0  # computed harmlessly, reported as NaN
    split = _split(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        z, ordered = _z_scale(split)
        # the median of the split draws (an even count): the mean of the middle two
        middle = ordered.shape[-1] // 2
        median = (ordered[:, middle - 1] + ordered[:, middle]) / 2.0
        del ordered
        folded = np.abs(split - median[:, None, None])
        bulk_rhat, tail_rhat = _rhat(z), _rhat(_z_scale(folded)[0])
        # max(bulk, tail) as Python's max: the bulk value unless the tail one is larger
        r_hat = np.where(tail_rhat > bulk_rhat, tail_rhat, bulk_rhat)
        if chains < _MIN_CHAINS_RHAT:
            r_hat[:] = np.nan
        ess_bulk = _ess(z)
        low, high = sorted((tail_prob, 1.0 - tail_prob))
        q = np.quantile(values.reshape(n_elem, -1), [low, high], axis=-1)
        ess_low = _ess(_split(values <= q[0][:, None, None]).astype(float))
        ess_high = _ess(_split(values <= q[1][:, None, None]).astype(float))
        ess_tail = np.where(ess_high < ess_low, ess_high, ess_low)
    result = np.stack([r_hat, ess_bulk, ess_tail])
    result[:, bad] = np.nan
    return result


def _split(values: np.ndarray) -> np.ndarray:
    """(E, 2C, n // 2): the first and last halves of every chain as chains of their own."""
    half = values.shape[-1] // 2
    return np.concatenate([values[..., :half], values[..., values.shape[-1] - half :]], axis=1)


def _z_scale(split: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank-normalised values and each element's values sorted, shape (E, S).

    The values are ``Phi^{-1}((r - 3/8) / (S + 1/4))`` over each element's S values, ``r`` the
    average rank (as ``scipy.stats.rankdata(method="average")``: ties share the mean of their
    ranks).
    """
    n_elem = split.shape[0]
    flat = split.reshape(n_elem, -1)
    count = flat.shape[-1]
    # flat positions of every row's values in increasing order (flat indexing is faster than
    # take/put_along_axis)
    order = np.argsort(flat, axis=-1)
    order += (np.arange(n_elem) * count)[:, None]
    ordered = flat.reshape(-1)[order]
    position = np.arange(count)
    # without ties the sorted values' ranks are 1..S: one table of normal scores for all rows
    z_sorted = np.empty(flat.shape)
    z_sorted[:] = ndtri((position + 1.0 - 3.0 / 8.0) / (count + 0.25))
    differs = ordered[:, 1:] != ordered[:, :-1]
    tied = ~differs.all(axis=-1)
    if tied.any():
        step = differs[tied]
        # first and last sorted position of the tie group of every sorted position
        first = np.zeros((step.shape[0], count), dtype=np.int64)
        first[:, 1:] = np.where(step, position[1:], 0)
        np.maximum.accumulate(first, axis=-1, out=first)
        last = np.full(first.shape, count - 1, dtype=np.int64)
        last[:, :-1] = np.where(step, position[:-1], count - 1)
        last = np.minimum.accumulate(last[:, ::-1], axis=-1)[:, ::-1]
        ranks = (first + last) / 2.0 + 1.0
        z_sorted[tied] = ndtri((ranks - 3.0 / 8.0) / (count + 0.25))
    undefined = np.isnan(ordered[:, -1])  # |inf - inf| when a median is infinite: sorted last
    if undefined.any():  # no rank, as rankdata(nan_policy="omit"): NaN
        z_sorted[undefined] = np.where(np.isnan(ordered[undefined]), np.nan, z_sorted[undefined])
    z = np.empty(flat.size)
    z[order] = z_sorted
    return z.reshape(split.shape), ordered


def _rhat(y: np.ndarray) -> np.ndarray:
    """Split r-hat ``sqrt((B / W + h - 1) / h)`` of every element of ``y`` (E, M, h)."""
    h = y.shape[-1]
    within = np.var(y, axis=-1, ddof=1).mean(axis=-1)
    between = h * np.var(y.mean(axis=-1), axis=-1, ddof=1)
    return np.sqrt((between / within + h - 1) / h)


def _ess(y: np.ndarray) -> np.ndarray:
    """Effective sample size of every element of ``y`` (E, M, h), M >= 2 chains.

    By Geyer's initial monotone sequence (see the module docstring).
    """
    n_elem, chains, h = y.shape
    total = chains * h
    constant = (y.max(axis=(1, 2)) - y.min(axis=(1, 2))) < np.finfo(float).resolution
    # mean over chains of the biased autocovariances: one inverse FFT of the mean spectrum
    length = next_fast_len(2 * h, real=True)
    padded = np.zeros((n_elem, chains, length))  # centred chains, zero-padded
    np.subtract(y, y.mean(axis=-1, keepdims=True), out=padded[..., :h])
    spectrum = rfft(padded, axis=-1, overwrite_x=True)
    del padded
    power = spectrum.real**2
    power += spectrum.imag**2
    power = power.mean(axis=1)
    acov = irfft(power, n=length, axis=-1)[:, :h] / h
    mean_var = acov[:, 0] * h / (h - 1.0)
    var_plus = mean_var * (h - 1.0) / h + np.var(y.mean(axis=-1), axis=-1, ddof=1)
    pairs_max = max((h - 3) // 2, 0)  # Geyer's pairs k = 0..pairs_max (lags up to 2k + 1)
    rho = 1.0 - (mean_var[:, None] - acov[:, : 2 * pairs_max + 2]) / var_plus[:, None]
    rho[:, 0] = 1.0
    pair = rho[:, 0::2] + rho[:, 1::2]  # (E, pairs_max + 1)
    stops = ~(pair > 0)
    # the last pair examined: the first non-positive one, else the last allowed
    last = np.where(stops.any(axis=-1), stops.argmax(axis=-1), pairs_max)
    monotone = np.minimum.accumulate(pair, axis=-1)
    summed = np.where(np.arange(pairs_max + 1) < last[:, None], monotone, 0.0).sum(axis=-1)
    rows = np.arange(n_elem)
    even, last_pair = rho[rows, 2 * last], pair[rows, last]
    extra = np.where((even > 0) | (last_pair >= 0), even, 0.0)
    tau = -1.0 + 2.0 * summed + extra
    floor = 1.0 / np.log10(total)
    tau = np.where(floor > tau, floor, tau)
    ess = total / tau
    ess[np.isnan(rho[:, 1])] = np.nan
    ess[constant] = total
    return ess
