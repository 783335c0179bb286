"""The labelled layer: results as ``xarray.DataArray`` in, labelled posteriors out.

Results have the core dims ``("question", "trial")``; every other dim (``model``, and any
other one a study adds: ``seed``, ``benchmark``, ...) passes through: it is stacked into the
batch axis of the numpy core, and the outputs come back over it with their coordinates. Prior
runs ``R0`` have the same dims and are aligned to ``R`` by label. Missing trials are ``NaN``:
an error unless ``skipna=True`` says NaN marks a missing trial.

As in arviz-stats, each function here is a thin wrapper: it unpacks the labels, calls the
numpy core (:func:`bayes_eval.posterior` and the metrics) with the options it was given, and
labels the result; the options and their meaning are those of the core function named in
its docstring. Outputs carry the prior's label and the estimand in their ``attrs``.

Examples
--------
>>> import numpy as np, xarray as xr
>>> from bayes_eval import xr as bxr
>>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
>>> ds = bxr.bayes_ci(R, prior="uniform")  # the paper's prior (default: the learned one)
>>> [round(float(v), 4) for v in ds["mu"]]
[0.6, 0.7]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple, cast

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.inputs import shown
from bayes_eval.metrics import avg as _avg
from bayes_eval.metrics import passk as _passk
from bayes_eval.metrics.bayes import prior_of
from bayes_eval.posteriors.intervals import Estimate
from bayes_eval.posteriors.posterior import Posterior
from bayes_eval.posteriors.posterior import posterior as _posterior
from bayes_eval.posteriors.priors import DEFAULT_PRIOR

__all__ = [
    "Batch",
    "align_runs",
    "avg_ci",
    "bayes",
    "bayes_ci",
    "pass_family_ci",
    "posterior",
    "posterior_tree",
    "prior_table",
    "results_array",
    "unpack",
]

#: The core dims of results; every other dim is a batch dim.
CORE_DIMS = ("question", "trial")
_DIMS = ("model", "question", "trial")
#: Options of :func:`bayes_eval.posterior` (the rest go to the method asked).
_POSTERIOR_OPTIONS = ("prior", "pool", "alpha0", "fractional", "answered_only")


class Batch(NamedTuple):
    """Results unpacked for the numpy core.

    ``values`` of shape ``(L, M, N)`` (or ``(M, N)`` without batch dims), the missing-trial ``mask``
    (or None), the batch dims and their shape, and ``R`` transposed to
    ``(*dims, "question", "trial")``.

    Attributes
    ----------
    R : xarray.DataArray
        The results, transposed to ``(*dims, "question", "trial")``.
    values : numpy.ndarray
        Their values with the batch dims stacked into one axis: shape ``(L, M, N)``, or
        ``(M, N)`` without batch dims.
    mask : numpy.ndarray of bool or None
        ``True`` where a trial is missing (NaN); None when none is.
    dims : tuple of str
        The batch dims (``model`` first when present).
    shape : tuple of int
        Their sizes.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.zeros((2, 3, 4)), dims=("model", "question", "trial"),
    ...                  coords={"model": ["a", "b"]})
    >>> batch = unpack(R)
    >>> batch.values.shape, batch.mask, batch.dims, batch.shape, batch.names
    ((2, 3, 4), None, ('model',), (2,), ['a', 'b'])
    """

    R: xr.DataArray
    values: np.ndarray
    mask: np.ndarray | None
    dims: tuple[str, ...]
    shape: tuple[int, ...]

    def label(self, value: ArrayLike, *extra: tuple[str, ArrayLike]) -> xr.DataArray:
        """A per-batch result (``(L, *extra)`` or scalar) back over the batch dims."""
        arr = np.asarray(value)
        extra_dims = tuple(name for name, _ in extra)
        arr = arr.reshape((*self.shape, *arr.shape[1 if self.dims else 0 :]))
        coords = {d: self.R[d].values for d in self.dims if d in self.R.coords}
        coords.update({name: np.asarray(vals) for name, vals in extra})
        return xr.DataArray(arr, dims=(*self.dims, *extra_dims), coords=coords)

    @property
    def names(self) -> list[str] | None:
        """Model names when the only batch dim is ``model``."""
        if self.dims != ("model",):
            return None
        return [str(m) for m in self.R["model"].values]


def results_array(
    R: ArrayLike,
    *,
    models: Sequence[str] | None = None,
    questions: Sequence[Hashable] | None = None,
) -> xr.DataArray:
    """Wrap a ``(L, M, N)`` or ``(M, N)`` array as a DataArray with the standard dims.

    Parameters
    ----------
    R : array_like of shape (L, M, N) or (M, N)
        Results of L models (or of one) on M questions with N trials.
    models : sequence of str, optional
        Labels of the ``model`` dim (for a 3-d ``R``); default None, no coordinate.
    questions : sequence, optional
        Labels of the ``question`` dim; default None, no coordinate.

    Returns
    -------
    xarray.DataArray
        ``R`` with dims ``("model", "question", "trial")`` (or ``("question", "trial")``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.xr import results_array
    >>> R = results_array(np.zeros((2, 3, 4)), models=["a", "b"])
    >>> R.dims, R["model"].values.tolist()
    (('model', 'question', 'trial'), ['a', 'b'])
    """
    arr = np.asarray(R)
    dims = _DIMS if arr.ndim == 3 else _DIMS[1:]
    coords: dict[str, list] = {}
    if models is not None and arr.ndim == 3:
        coords["model"] = list(models)
    if questions is not None:
        coords["question"] = list(questions)
    return xr.DataArray(arr, dims=dims, coords=coords)


def unpack(R: xr.DataArray, *, skipna: bool = False, name: str = "R") -> Batch:
    """Check ``R`` and unpack it for the numpy core.

    Every non-core dim is stacked into one batch axis.

    Parameters
    ----------
    R : xarray.DataArray
        Results with the core dims ``("question", "trial")`` and any batch dims.
    skipna : bool, optional
        NaN marks a missing trial (default False: NaN is an error).
    name : str, optional
        How error messages name ``R``; default ``"R"``.

    Returns
    -------
    Batch
        The transposed results, their values for the core, the missing-trial mask and the
        batch dims and shape.

    Raises
    ------
    ValueError
        If ``R`` is not a DataArray, lacks a core dim, or holds NaN without ``skipna``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray([[[1.0, np.nan], [0.0, 1.0]]], dims=("model", "question", "trial"))
    >>> batch = unpack(R, skipna=True)
    >>> batch.values.shape, batch.dims, batch.mask.tolist()
    ((1, 2, 2), ('model',), [[[False, True], [False, False]]])
    """
    if not isinstance(R, xr.DataArray):
        raise ValueError(f"{name} is a {type(R).__name__}; expected an xarray.DataArray.")
    if not set(CORE_DIMS) <= set(R.dims):
        raise ValueError(
            f"{name} has dims {R.dims}; expected 'question' and 'trial' (and any batch dims "
            "such as 'model')."
        )
    dims = tuple(d for d in R.dims if d not in CORE_DIMS)
    if "model" in dims:  # model first: a model axis stays the leading one
        dims = ("model", *(d for d in dims if d != "model"))
    R = R.transpose(*dims, *CORE_DIMS)
    values = R.values
    shape = values.shape[:-2]
    if dims:
        values = values.reshape(-1, *values.shape[-2:])
    mask = None
    if values.dtype.kind == "f" and np.isnan(values).any():
        if not skipna:
            raise ValueError(
                f"{name} contains NaN ({int(np.isnan(values).sum())} entries); expected integer "
                "labels. If NaN marks missing trials, pass skipna=True."
            )
        mask = np.isnan(values)
    return Batch(R, values, mask, cast("tuple[str, ...]", dims), shape)


def align_runs(
    R0: xr.DataArray | None, batch: Batch
) -> tuple[np.ndarray, np.ndarray | None] | tuple[None, None]:
    """Earlier runs ``R0`` aligned to the batch's labels.

    ``(values, mask)`` for the core, or ``(None, None)``. Absent (batch, question) entries get no
    trials.

    Parameters
    ----------
    R0 : xarray.DataArray or None
        Earlier runs with the dims of ``R`` (trials aside); their questions a subset of
        ``R``'s.
    batch : Batch
        The unpacked results ``R`` (:func:`unpack`).

    Returns
    -------
    values : numpy.ndarray or None
        The runs as floats in the batch's order (0 where missing), shape ``(L, M, N0)``.
    mask : numpy.ndarray of bool or None
        ``True`` where a run's trial is missing; None when none is.

    Raises
    ------
    ValueError
        For dims other than those of ``R``, or questions ``R`` does not have.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> dims = ("model", "question", "trial")
    >>> R = xr.DataArray(np.ones((2, 2, 3)), dims=dims,
    ...                  coords={"model": ["a", "b"], "question": [0, 1]})
    >>> R0 = xr.DataArray([[[0, 1]], [[1, 1]]], dims=dims,
    ...                   coords={"model": ["b", "a"], "question": [1]})
    >>> values, mask = align_runs(R0, unpack(R))
    >>> values.tolist()
    [[[0.0, 0.0], [1.0, 1.0]], [[0.0, 0.0], [0.0, 1.0]]]
    >>> mask[:, :, 0].tolist()
    [[True, False], [True, False]]
    """
    if R0 is None:
        return None, None
    r0 = unpack(R0, skipna=True, name="R0").R
    if set(r0.dims) - {"trial"} != set(batch.R.dims) - {"trial"}:
        raise ValueError(
            f"R0 has dims {r0.dims}; expected those of R, {batch.R.dims} (trial aside)."
        )
    extra_q = np.setdiff1d(r0["question"].values, batch.R["question"].values)
    if extra_q.size:
        raise ValueError(
            f"R0 has questions that R does not have ({extra_q[:5].tolist()}); expected R0's "
            "questions to be a subset of R's."
        )
    indexers = {d: batch.R[d].values for d in (*batch.dims, "question") if d in batch.R.coords}
    aligned = r0.astype(float).reindex(indexers).transpose(*batch.dims, *CORE_DIMS)
    values = aligned.values
    if batch.dims:
        values = values.reshape(-1, *values.shape[-2:])
    mask = np.isnan(values)
    # floats: integer labels are checked (and cast) by the tally, graded scores kept as they are
    return np.where(mask, 0.0, values), mask if mask.any() else None


def _split(options: dict) -> tuple[dict, dict]:
    post = {k: options.pop(k) for k in _POSTERIOR_OPTIONS if k in options}
    return post, options


def _build(batch: Batch, w: ArrayLike | None, R0: xr.DataArray | None, options: dict) -> Posterior:
    r0, r0_mask = align_runs(R0, batch)
    prior = prior_of(
        options.pop("prior", None),
        pool=options.pop("pool", None),
        alpha0=options.pop("alpha0", None),
        R0=r0,
        R0_mask=r0_mask,
    )
    return _posterior(batch.values, w, prior=prior, mask=batch.mask, models=batch.names, **options)


def _attrs(post: Posterior, **extra: object) -> dict:
    return {"prior": post.prior_label, "estimand": post.estimand, **extra}


def posterior(
    R: xr.DataArray,
    w: ArrayLike | None = None,
    R0: xr.DataArray | None = None,
    *,
    skipna: bool = False,
    **options: Any,
) -> Posterior:
    """The :class:`~bayes_eval.posteriors.posterior.Posterior` of labelled results.

    It carries the model names of ``R`` (options of :func:`bayes_eval.posterior`: ``prior``,
    ``pool``, ``fractional``, ``answered_only``; default prior ``"empirical"``).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("question", "trial")`` and any batch dims (``model``, ...).
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    skipna : bool, optional
        NaN in ``R`` marks a missing trial (default False: NaN is an error).
    **options
        ``prior``, ``pool``, ``alpha0``, ``fractional``, ``answered_only``, as in
        :func:`bayes_eval.posterior`.

    Returns
    -------
    Posterior
        The posterior of every batch entry, named by ``model`` when that is the only batch
        dim.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> post = posterior(R, prior="uniform")
    >>> post.mean.round(4).tolist(), post.prior_label
    ([0.6, 0.7], 'uniform')
    """
    return _build(unpack(R, skipna=skipna), w, R0, dict(options))


def bayes(
    R: xr.DataArray,
    w: ArrayLike | None = None,
    R0: xr.DataArray | None = None,
    *,
    skipna: bool = False,
    **options: Any,
) -> xr.Dataset:
    """Bayes@N ``mu`` and ``sigma`` over the batch dims (:func:`bayes_eval.bayes`).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("question", "trial")`` and any batch dims (``model``, ...).
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    skipna : bool, optional
        NaN in ``R`` marks a missing trial (default False: NaN is an error).
    **options
        The posterior's options (``prior``, ``pool``, ``alpha0``, ``fractional``,
        ``answered_only``; :func:`bayes_eval.posterior`).

    Returns
    -------
    xarray.Dataset
        ``mu`` and ``sigma`` over the batch dims; ``attrs`` name the prior, the estimand and
        the estimator.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> ds = bayes(R, prior="uniform")
    >>> ds["mu"].round(4).values.tolist(), ds["sigma"].round(4).values.tolist()
    ([0.6, 0.7], [0.1414, 0.1291])
    """
    batch = unpack(R, skipna=skipna)
    post = _build(batch, w, R0, dict(options))
    data = {"mu": batch.label(post.mean), "sigma": batch.label(post.sd)}
    return xr.Dataset(data, attrs=_attrs(post, estimator="Bayes@N"))


def bayes_ci(
    R: xr.DataArray,
    w: ArrayLike | None = None,
    R0: xr.DataArray | None = None,
    *,
    skipna: bool = False,
    **options: Any,
) -> xr.Dataset:
    """Bayes@N ``mu``, ``sigma``, ``lo``, ``hi`` over the batch dims.

    See :func:`bayes_eval.bayes_ci`: ``confidence``, ``bounds``, ``interval`` and the posterior
    options.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("question", "trial")`` and any batch dims (``model``, ...).
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    skipna : bool, optional
        NaN in ``R`` marks a missing trial (default False: NaN is an error).
    **options
        ``confidence`` (default 0.95), ``interval`` (default ``"auto"``), ``bounds`` and the
        posterior's options (``prior``, ``pool``, ``alpha0``, ``fractional``,
        ``answered_only``).

    Returns
    -------
    xarray.Dataset
        ``mu``, ``sigma``, ``lo``, ``hi`` over the batch dims; ``attrs`` name the prior, the
        estimand, the confidence and the interval.

    Raises
    ------
    ValueError
        For an option that is neither an interval's nor the posterior's.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> ds = bayes_ci(R, prior="uniform", confidence=0.9)
    >>> ds["lo"].round(4).values.tolist(), ds["hi"].round(4).values.tolist()
    ([0.3573, 0.473], [0.824, 0.8954])
    """
    batch = unpack(R, skipna=skipna)
    post_opts, rest = _split(dict(options))
    confidence = rest.pop("confidence", 0.95)
    interval = rest.pop("interval", "auto")
    bounds = rest.pop("bounds", None)
    if rest:
        raise ValueError(f"unknown option {sorted(rest)[0]!r} of bayes_ci.")
    post = _build(batch, w, R0, post_opts)
    lo, hi = post.interval(confidence, kind=interval, bounds=bounds)
    data = {
        "mu": batch.label(post.mean),
        "sigma": batch.label(post.sd),
        "lo": batch.label(lo),
        "hi": batch.label(hi),
    }
    attrs = _attrs(post, estimator="Bayes@N", confidence=confidence, interval=interval)
    return xr.Dataset(data, attrs=attrs)


def avg_ci(
    R: xr.DataArray, w: ArrayLike | None = None, *, skipna: bool = False, **options: Any
) -> xr.Dataset:
    """avg@N ``a`` with ``sigma``, ``lo``, ``hi`` over the batch dims.

    See :func:`bayes_eval.avg_ci`: the posterior of pi-bar, or the paper's latent scale with
    ``scale="latent"``.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("question", "trial")`` and any batch dims (``model``, ...).
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    skipna : bool, optional
        NaN in ``R`` marks a missing trial (default False: NaN is an error).
    **options
        The options of :func:`bayes_eval.avg_ci`: ``confidence``, ``bounds``, ``interval``,
        ``scale``, ``prior``, ``pool``, ``alpha0``.

    Returns
    -------
    xarray.Dataset
        ``a``, ``sigma``, ``lo``, ``hi`` over the batch dims; ``attrs`` name the estimator,
        the prior, the estimand, the confidence, the interval and the scale.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> ds = avg_ci(R, prior="uniform")
    >>> ds["a"].round(4).values.tolist(), ds["lo"].round(4).values.tolist()
    ([0.6667, 0.8333], [0.3122, 0.4251])
    """
    batch = unpack(R, skipna=skipna)
    prior_options = {k: options.pop(k) for k in ("prior", "pool", "alpha0") if k in options}
    scale = options.get("scale", "pi_bar")
    post = _avg.avg_posterior(batch.values, w, scale=scale, mask=batch.mask, **prior_options)
    out = _avg.avg_interval(post, **options)
    data = {n: batch.label(v) for n, v in zip(("a", "sigma", "lo", "hi"), out, strict=True)}
    attrs = {
        "estimator": "avg@N",
        "prior": post.prior_label,
        "estimand": Posterior.estimand,
        "confidence": options.get("confidence", 0.95),
        "interval": options.get("interval", "auto"),
        "scale": options.get("scale", "pi_bar"),
    }
    return xr.Dataset(data, attrs=attrs)


_POINT: dict[str, Callable[..., Estimate]] = {
    "pass_at_k": _passk.pass_at_k,
    "pass_hat_k": _passk.pass_hat_k,
    "mg_pass_at_k": _passk.mg_pass_at_k,
    "g_pass_at_k_tau": _passk.g_pass_at_k_tau,
}


def pass_family_ci(
    R: xr.DataArray,
    k: int | Sequence[int],
    *,
    metric: str = "pass_at_k",
    tau: float | None = None,
    skipna: bool = False,
    **options: Any,
) -> xr.Dataset:
    """A Pass family metric for one or several ``k`` over the batch dims and ``k``.

    Variables: ``estimate`` (the unbiased point estimate of the trials), ``posterior_mean`` (the
    posterior mean of the latent metric: a different quantity, see :mod:`bayes_eval.metrics.passk`),
    ``sigma``, ``lo``, ``hi``.

    ``metric`` is one of ``pass_at_k``, ``pass_hat_k``, ``g_pass_at_k_tau`` (needs ``tau``),
    ``mg_pass_at_k``; the options are those of :func:`bayes_eval.pass_at_k_ci`.

    Parameters
    ----------
    R : xarray.DataArray
        Binary results with dims ``("question", "trial")`` and any batch dims.
    k : int or sequence of int
        The ``k`` of the metric, at most the number of trials.
    metric : str, optional
        ``"pass_at_k"`` (default), ``"pass_hat_k"``, ``"g_pass_at_k_tau"`` or
        ``"mg_pass_at_k"``.
    tau : float, optional
        The threshold of ``g_pass_at_k_tau``, in (0, 1]; default None.
    skipna : bool, optional
        NaN in ``R`` marks a missing trial (default False: NaN is an error).
    **options
        The options of :func:`bayes_eval.pass_at_k_ci`: ``confidence``, ``bounds``,
        ``interval``, ``prior``, ``pool``, ``alpha0``, ``beta0``.

    Returns
    -------
    xarray.Dataset
        ``estimate``, ``posterior_mean``, ``sigma``, ``lo``, ``hi`` over the batch dims and
        ``k``; ``attrs`` name the metric, the prior, the estimand, the confidence and the
        interval.

    Raises
    ------
    ValueError
        For an unknown ``metric``, or ``g_pass_at_k_tau`` without ``tau``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> ds = pass_family_ci(R, [1, 2], prior="uniform")
    >>> dict(ds.sizes), ds["estimate"].round(4).values.tolist()
    ({'model': 2, 'k': 2}, [[0.6667, 1.0], [0.8333, 1.0]])
    >>> ds["posterior_mean"].round(4).values.tolist()
    [[0.6, 0.8], [0.7, 0.8667]]
    """
    if metric not in _POINT:
        raise ValueError(f"metric is {shown(metric)}; expected one of {sorted(_POINT)}.")
    if metric == "g_pass_at_k_tau" and tau is None:
        raise ValueError("metric 'g_pass_at_k_tau' needs tau in (0, 1].")
    batch = unpack(R, skipna=skipna)
    ks = np.atleast_1d(np.asarray(k))
    extra = (tau,) if metric == "g_pass_at_k_tau" else ()
    ci = getattr(_passk, metric + "_ci")
    cols: dict[str, list] = {"estimate": [], "posterior_mean": [], "sigma": [], "lo": [], "hi": []}
    for kk in ks:
        kk = int(kk)
        cols["estimate"].append(_POINT[metric](batch.values, kk, *extra, mask=batch.mask))
        out = ci(batch.values, kk, *extra, mask=batch.mask, **options)
        for name, v in zip(("posterior_mean", "sigma", "lo", "hi"), out, strict=True):
            cols[name].append(v)
    data = {
        n: batch.label(np.moveaxis(np.asarray(v, dtype=float), 0, -1), ("k", ks))
        for n, v in cols.items()
    }
    prior = _passk.pass_prior(**options)
    attrs = {
        "metric": metric,
        "prior": prior.label,
        "estimand": Posterior.estimand,
        "confidence": options.get("confidence", 0.95),
        "interval": options.get("interval", "normal"),
        **({"tau": tau} if tau else {}),
    }
    return xr.Dataset(data, attrs=attrs)


def prior_table(
    R: xr.DataArray,
    w: ArrayLike | None = None,
    R0: xr.DataArray | None = None,
    *,
    skipna: bool = False,
    **options: Any,
) -> xr.Dataset:
    r"""The per-question prior each model's posterior used.

    The default is ``prior="empirical"``, the CLI's. Variables: ``prior`` (label), ``prior_alpha``
    over ``(..., category)`` (the fixed prior, or the mode of a learned one), ``prior_kappa`` (its
    concentration :math:`\kappa = \sum_k a_k`: small means questions are solved always or never) and
    ``prior_converged``. See :mod:`bayes_eval.posteriors.priors`.

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``("question", "trial")`` and any batch dims (``model``, ...).
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    skipna : bool, optional
        NaN in ``R`` marks a missing trial (default False: NaN is an error).
    **options
        The posterior's options (``prior``, ``pool``, ``alpha0``, ``fractional``,
        ``answered_only``).

    Returns
    -------
    xarray.Dataset
        ``prior``, ``prior_alpha``, ``prior_kappa`` and ``prior_converged`` over the batch
        dims (``prior_alpha`` also over ``category``).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> pt = prior_table(R, prior="uniform")
    >>> pt["prior_alpha"].values.tolist(), pt["prior_kappa"].values.tolist()
    ([[1.0, 1.0], [1.0, 1.0]], [2.0, 2.0])
    >>> sorted(pt.data_vars)
    ['prior', 'prior_alpha', 'prior_converged', 'prior_kappa']
    """
    options = {"prior": DEFAULT_PRIOR, **options}
    batch = unpack(R, skipna=skipna)
    return prior_dataset(batch, _build(batch, w, R0, options))


def prior_dataset(batch: Batch, post: Posterior) -> xr.Dataset:
    """The variables of :func:`prior_table` from a built posterior.

    On a board: of each model's own closed form, whose prior ``fitted`` is, and labelled so.
    """
    post = post.closed_form
    fitted = post.fitted
    n = int(np.prod(batch.shape)) if batch.dims else 1
    alpha = np.broadcast_to(fitted.alpha, (n, fitted.alpha.shape[-1]))
    conv = np.broadcast_to(fitted.converged, (n,))
    label = np.full(n, post.prior.label, dtype=object).astype(str)
    ds = xr.Dataset(
        {
            "prior": batch.label(label if batch.dims else label[0]),
            "prior_alpha": batch.label(
                alpha if batch.dims else alpha[0], ("category", np.arange(alpha.shape[-1]))
            ),
            "prior_kappa": batch.label(alpha.sum(axis=-1) if batch.dims else alpha[0].sum()),
            "prior_converged": batch.label(conv if batch.dims else conv[0]),
        }
    )
    ds = ds.drop_vars("category")
    ds.attrs["prior"] = post.prior.label
    return ds


def posterior_tree(
    R: xr.DataArray | ArrayLike,
    w: ArrayLike | None = None,
    R0: xr.DataArray | None = None,
    *,
    draws: int = 1000,
    chains: int = 4,
    seed: int = 0,
    include_pi: bool = False,
    include_prior: bool = True,
    models: Sequence[str] | None = None,
    skipna: bool = False,
    **options: Any,
) -> xr.DataTree:
    """Exact draws of the closed-form posterior as an ArviZ-style ``DataTree``.

    See :meth:`Posterior.to_datatree <bayes_eval.posteriors.posterior.Posterior.to_datatree>`.

    ``R`` is a DataArray with dims ``("model", "question", "trial")`` (one model without a
    ``model`` dim gets a model dim of length 1), or an array labelled with ``models``. The
    options are those of :func:`bayes_eval.posterior` (``prior``, ``pool``, ...).

    Parameters
    ----------
    R : xarray.DataArray or array_like
        Results with dims ``("model", "question", "trial")`` or ``("question", "trial")``, or
        an array of shape ``(L, M, N)`` or ``(M, N)``.
    w : array_like of float, shape ``(C + 1,)``, optional
        Rubric weights; default None, binary results with ``w = (0, 1)``.
    R0 : xarray.DataArray, optional
        Earlier runs with the dims of ``R``, aligned to it by label; they join the prior.
    draws : int, optional
        Draws per chain; default 1000.
    chains : int, optional
        Number of chains; default 4.
    seed : int, optional
        Seed of the draws; default 0.
    include_pi : bool, optional
        Also store the per-question ``pi`` draws; default False.
    include_prior : bool, optional
        Also store draws of the prior (group ``prior``); default True.
    models : sequence of str, optional
        Model names of an array ``R``; default None.
    skipna : bool, optional
        NaN in ``R`` marks a missing trial (default False: NaN is an error).
    **options
        The posterior's options (``prior``, ``pool``, ``alpha0``, ``fractional``,
        ``answered_only``).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (and ``prior``) with ``pi_bar`` over ``(chain, draw, model)``.

    Raises
    ------
    ValueError
        For batch dims other than ``model``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> tree = posterior_tree(R, prior="uniform", draws=100, chains=2)
    >>> sorted(tree.children), dict(tree["posterior"]["pi_bar"].sizes)
    (['posterior', 'prior'], {'chain': 2, 'draw': 100, 'model': 2})
    """
    if not isinstance(R, xr.DataArray):
        R = results_array(R, models=models)
    if "model" not in R.dims:
        R = R.expand_dims(model=["model_0"])
        R0 = None if R0 is None else R0.expand_dims(model=["model_0"])
    batch = unpack(R, skipna=skipna)
    if batch.dims != ("model",):
        raise ValueError(f"R has dims {R.dims}; expected ('model', 'question', 'trial').")
    post = _build(batch, w, R0, dict(options))
    return post.to_datatree(
        draws=draws,
        chains=chains,
        seed=seed,
        include_pi=include_pi,
        include_prior=include_prior,
        questions=batch.R["question"].values,
    )
