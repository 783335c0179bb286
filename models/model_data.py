"""Evaluation data prepared for the PyMC builders, and what a built model remembers about it.

Every builder accepts the same inputs as :func:`bayes_eval.bayes` (arrays of shape
``(M, N)`` or ``(L, M, N)``, or DataArrays with dims ``model, question, trial``), tallies them
with the core library, and puts the counts into the model as ``pm.Data`` so that one compiled
graph serves every dataset of the same rank (PyTensor compiles once per graph, ~35 s cold).
The builder then records a :class:`ModelInfo` on the model (``model.bayes_eval_info``) that
:func:`bayes_eval.models.sample` uses to add the closed-form reference and, for the models in
which ``pi`` is integrated out, to draw ``pi`` exactly from its conditional Dirichlet.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import check_alpha0, prior_counts, tally

__all__ = ["ModelData", "ModelInfo", "model_data"]


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
    """

    counts: NDArray[np.int64]
    n_trials: NDArray[np.int64]
    prior_counts: NDArray[np.int64]
    w: NDArray[np.float64]
    alpha0: NDArray[np.float64]
    coords: dict = field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.counts.shape  # type: ignore[return-value]


@dataclass
class ModelInfo:
    """What :func:`bayes_eval.models.sample` needs to know about a built model.

    Attributes
    ----------
    kind : str
        Builder name (``matching``, ``hierarchical``, ``crossed``, ``power_prior``).
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
        NUTS target acceptance rate :func:`sample` uses unless told otherwise (PyMC's 0.8;
        higher where the model's geometry needs smaller steps).
    """

    kind: str
    data: ModelData
    reference: dict[str, NDArray[np.float64]]
    reference_note: str
    conditional: Callable | None = None
    target_accept: float = 0.8


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
    """Validate and tally results for a builder (always with a leading model axis)."""
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
