"""Evaluation data prepared for the PyMC builders, and read back from a built model.

Every builder accepts the same inputs as :func:`bayes_eval.bayes` (arrays of shape
``(M, N)`` or ``(L, M, N)``, or DataArrays with dims ``model, question, trial``), tallies them
with the core library, and puts the counts into the model as ``pm.Data`` so that one compiled
graph serves every dataset of the same rank (PyTensor compiles once per graph, tens of
seconds cold).

A built model is self-describing: besides its ``coords`` it holds its evaluation data in named
``pm.Data`` containers, the same in every Dirichlet-multinomial builder:

=====================  =============================  ==========================================
name                   dims                           content
=====================  =============================  ==========================================
``count_data``         model, question, category      category counts ``n`` (also observed)
``w``                  category                       rubric weights
``alpha0``             category                       base Dirichlet concentration (optional)
``prior_count_data``   model, question, category      counts ``n0`` of the prior runs (optional)
=====================  =============================  ==========================================

(the crossed model holds ``successes`` and ``n_trials`` instead). Each builder module has a
reader that recognises its models by their containers and free variables and derives a
:class:`ModelInfo` from them; :func:`bayes_eval.models.model_info` asks each reader in turn.
:func:`bayes_eval.models.sample` uses the info to add the closed-form reference and, for the
models in which ``pi`` is integrated out, to draw ``pi`` exactly from its conditional
Dirichlet. Nothing is stored on the model object, so the info follows ``pm.set_data``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import check_alpha0, prior_counts, tally

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["ModelData", "ModelInfo", "built_with", "data_value", "model_data", "stored_data"]


@dataclass(frozen=True)
class ModelData:
    """Counts of L models on M questions, ready for a PyMC model.

    Attributes
    ----------
    counts : ndarray of int, shape ``(L, M, C + 1)``
    n_trials : ndarray of int, shape ``(L, M)``
    prior_counts : ndarray of int, shape ``(L, M, C + 1)`` (zeros without ``R0``)
    w : ndarray, shape ``(C + 1,)``
    alpha0 : ndarray, shape ``(C + 1,)``
    coords : dict
        ``model``, ``question`` and ``category`` labels.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.model_data import model_data
    >>> data = model_data(np.array([[0, 1, 1], [1, 1, 0]]))
    >>> type(data).__name__, data.shape, data.counts.tolist(), data.n_trials.tolist()
    ('ModelData', (1, 2, 2), [[[1, 2], [1, 2]]], [[3, 3]])
    """

    counts: NDArray[np.int64]
    n_trials: NDArray[np.int64]
    prior_counts: NDArray[np.int64]
    w: NDArray[np.float64]
    alpha0: NDArray[np.float64]
    coords: dict = field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, int, int]:
        """The ``(L, M, C + 1)`` shape of ``counts``: models, questions, categories."""
        return self.counts.shape  # type: ignore[return-value]


@dataclass(frozen=True)
class ModelInfo:
    """What :func:`bayes_eval.models.sample` needs to know about a built model.

    Derived from the model by :func:`bayes_eval.models.model_info`, never stored on it.

    Attributes
    ----------
    kind : str
        Builder name (``matching``, ``hierarchical``, ``mixture``, ``crossed``,
        ``power_prior``).
    data : ModelData
    reference : dict of str to ndarray
        Dirichlet concentrations ``(L, M, C + 1)`` of closed-form posteriors stored in the
        ``closed_form`` group: key ``""`` gives ``mu``/``sigma``, key ``"x"`` gives
        ``mu_x``/``sigma_x``.
    reference_note : str
        What the reference is, stored as an attribute of the group.
    conditional : callable or None
        ``conditional(posterior, rng) -> pi`` draws ``pi`` given the sampled hyperparameters
        (models that integrate ``pi`` out).
    target_accept : float
        NUTS target acceptance rate :func:`~bayes_eval.models.sampling.sample` uses unless
        told otherwise (PyMC's 0.8; higher where the model's geometry needs smaller steps).
    pymc_mode : str or None
        The PyTensor mode PyMC's own sampler compiles the log density in (None: the default,
        Numba); ``"CVM"`` where the Numba backend cannot compile the model (the mixture
        model's ``pm.Mixture`` likelihood).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model, model_info
    >>> info = model_info(matching_model(np.array([[0, 1, 1], [1, 1, 0]])))
    >>> type(info).__name__, info.kind, info.data.shape, info.target_accept
    ('ModelInfo', 'matching', (1, 2, 2), 0.8)
    >>> info.reference_note
    'Bayes@N closed form with the same prior'
    """

    kind: str
    data: ModelData
    reference: dict[str, NDArray[np.float64]]
    reference_note: str
    conditional: Callable | None = None
    target_accept: float = 0.8
    pymc_mode: str | None = None


def _unwrap(R, mask):
    """Accept a DataArray (NaN = missing trial) or an array; return values, mask, labels."""
    if isinstance(R, xr.DataArray):
        dims = ("model", "question", "trial") if "model" in R.dims else ("question", "trial")
        if set(R.dims) != set(dims):
            raise ValueError(f"R has dims {R.dims}; expected {dims}.")
        R = R.transpose(*dims)
        values = R.values
        labels = {d: [str(v) for v in R[d].values] for d in dims[:-1] if d in R.coords}
        if values.dtype.kind == "f" and np.isnan(values).any():
            nan = np.isnan(values)
            mask = nan if mask is None else (np.asarray(mask) | nan)
            values = np.where(nan, 0, values)
        return values, mask, labels
    return R, mask, {}


def model_data(
    R: ArrayLike | xr.DataArray,
    w: ArrayLike | None = None,
    R0: ArrayLike | xr.DataArray | None = None,
    *,
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
) -> ModelData:
    """Validate and tally results for a builder (always with a leading model axis).

    Parameters
    ----------
    R : array_like of int or xarray.DataArray, shape ``(M, N)`` or ``(L, M, N)``
        Results, categories 0..C (see :func:`bayes_eval.bayes`); a DataArray with dims
        ``model`` (optional), ``question`` and ``trial`` may use NaN for missing trials and
        gives its labels to the coords.
    w : array_like, optional
        Rubric weights of the C + 1 categories (binary ``(0, 1)`` when omitted).
    R0 : array_like or xarray.DataArray, optional
        Prior runs on the same questions (counts ``n0``; zeros when omitted).
    alpha0 : float or array_like, keyword-only
        Dirichlet concentration of the base prior, default 1 (uniform).
    mask : array_like of bool, optional, keyword-only
        True where a trial is missing.
    models : list of str, optional, keyword-only
        Names of the L models (default: the DataArray's labels, else ``model_0``, ...).

    Returns
    -------
    ModelData
        Counts of shape ``(L, M, C + 1)`` (L = 1 for a single model), trials, prior counts,
        weights, ``alpha0`` and the coords ``model``, ``question``, ``category``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.model_data import model_data
    >>> R = np.array([[[0, 1, 2]], [[2, 2, 1]]])
    >>> data = model_data(R, w=[0, 0.5, 1], models=["a", "b"])
    >>> data.shape, data.counts.tolist(), data.w.tolist()
    ((2, 1, 3), [[[1, 1, 1]], [[0, 1, 2]]], [0.0, 0.5, 1.0])
    >>> data.coords
    {'model': ['a', 'b'], 'question': [0], 'category': [0, 1, 2]}
    """
    values, mask, labels = _unwrap(R, mask)
    t, weights = tally(values, w, mask=mask)
    if R0 is not None:
        r0_values, r0_mask, _ = _unwrap(R0, None)
        n0 = prior_counts(r0_values, t, mask=r0_mask)
    else:
        n0 = np.zeros_like(t.counts)
    counts, n_trials = t.counts, t.n_trials
    if not t.batched:
        counts, n_trials, n0 = counts[None], n_trials[None], n0[None]
    n_models, n_questions, n_cat = counts.shape
    names = models or labels.get("model") or [f"model_{i}" for i in range(n_models)]
    if len(names) != n_models:
        raise ValueError(f"models has {len(names)} names; expected {n_models}, one per model.")
    coords = {
        "model": list(names),
        "question": labels.get("question") or list(range(n_questions)),
        "category": list(range(n_cat)),
    }
    return ModelData(counts, n_trials, n0, weights, check_alpha0(alpha0, n_cat), coords)


def data_value(model: pm.Model, name: str) -> np.ndarray:
    """Current value of the ``pm.Data`` container ``name`` of ``model``.

    Parameters
    ----------
    model : pymc.Model
        A built model.
    name : str
        Name of one of its ``pm.Data`` containers (e.g. ``count_data``, ``w``).

    Returns
    -------
    numpy.ndarray
        The container's current value (what ``pm.set_data`` last put there).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model
    >>> from bayes_eval.models.model_data import data_value
    >>> model = matching_model(np.array([[0, 1, 1], [1, 1, 0]]))
    >>> data_value(model, "count_data").tolist(), data_value(model, "w").tolist()
    ([[[1, 2], [1, 2]]], [0.0, 1.0])
    """
    return np.asarray(model[name].get_value())


def built_with(model: pm.Model, *, data: Iterable[str] = (), free: Iterable[str] = ()) -> bool:
    """Whether ``model`` has all the named ``pm.Data`` containers and free variables.

    Parameters
    ----------
    model : pymc.Model
        Any PyMC model.
    data : iterable of str, keyword-only
        Names of ``pm.Data`` containers it must have (default none).
    free : iterable of str, keyword-only
        Names of free random variables it must have (default none).

    Returns
    -------
    bool
        True when every named container and variable is in ``model``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model
    >>> from bayes_eval.models.model_data import built_with
    >>> model = matching_model(np.array([[0, 1, 1], [1, 1, 0]]))
    >>> built_with(model, data=("count_data", "w"), free=("pi",))
    True
    >>> built_with(model, free=("log_kappa",))
    False
    """
    data_names = {v.name for v in model.data_vars}
    free_names = {v.name for v in model.free_RVs}
    return set(data) <= data_names and set(free) <= free_names


def stored_data(model: pm.Model) -> ModelData:
    """The :class:`ModelData` a Dirichlet-multinomial builder put into ``model``.

    Reads ``count_data`` and ``w``; ``alpha0`` defaults to ones (the uniform prior) and
    ``prior_count_data`` to zeros when the model has no such container.

    Parameters
    ----------
    model : pymc.Model
        A model with the containers ``count_data`` and ``w`` (and coords ``model`` and
        ``question``).

    Returns
    -------
    ModelData
        The counts, trials, prior counts, weights, ``alpha0`` and coords the model holds now.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model
    >>> from bayes_eval.models.model_data import stored_data
    >>> data = stored_data(matching_model(np.array([[0, 1, 1], [1, 1, 0]]), models=["gpt"]))
    >>> data.counts.tolist(), data.coords
    ([[[1, 2], [1, 2]]], {'model': ['gpt'], 'question': [0, 1], 'category': [0, 1]})
    """
    names = {v.name for v in model.data_vars}
    counts = data_value(model, "count_data").astype(np.int64)
    n_cat = counts.shape[-1]
    n0 = data_value(model, "prior_count_data") if "prior_count_data" in names else 0
    alpha0 = data_value(model, "alpha0") if "alpha0" in names else np.ones(n_cat)
    return ModelData(
        counts=counts,
        n_trials=counts.sum(axis=-1),
        prior_counts=np.broadcast_to(n0, counts.shape).astype(np.int64),
        w=data_value(model, "w").astype(np.float64),
        alpha0=np.asarray(alpha0, dtype=np.float64),
        coords={
            "model": list(model.coords["model"]),
            "question": list(model.coords["question"]),
            "category": list(range(n_cat)),
        },
    )
