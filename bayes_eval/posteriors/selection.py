"""Selecting models of a batch: ``post["model"]``, ``post[1:]``, ``post[[0, 2]]``.

A selection is read as the positions of the models it names (``_model_index``), and the
prior's quadrature is cut to them when each model has its own nodes (``_select_fitted``);
nodes shared by the models of a benchmark-pooled prior stay those learned from every model:
nothing is refitted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from bayes_eval.inputs import shown
from bayes_eval.posteriors.priors import FittedPrior

__all__: list[str] = []


def _bool_selection(index: NDArray[Any], n_models: int) -> NDArray[np.intp]:
    """Positions of a boolean selection (one flag per model)."""
    if index.shape != (n_models,):
        raise IndexError(
            f"a boolean selection has shape {index.shape}; expected ({n_models},), one per model."
        )
    return np.flatnonzero(index)


def _model_index(
    index: object, models: tuple[str, ...] | None, n_models: int
) -> int | NDArray[np.intp]:
    """Positions of the models ``index`` selects among ``n_models`` named ``models``.

    ``index`` is a name, a position, a slice, or a list (or array) of names, positions or
    booleans. A wrong type is a TypeError, an unknown name or a position out of range a
    ValueError or IndexError, in our words.
    """
    what = "a model name, a position (int), a slice, or a list of names or positions"
    if isinstance(index, slice):
        return np.arange(n_models)[index]
    if isinstance(index, (str, np.str_)):
        index = str(index)
    if isinstance(index, (list, tuple, np.ndarray)):
        keys = list(np.asarray(index, dtype=object).ravel()) if len(index) else []
        if isinstance(index, np.ndarray) and index.dtype == np.bool_:
            return _bool_selection(index, n_models)
        return np.array([_model_index(k, models, n_models) for k in keys], dtype=np.intp)
    if isinstance(index, str):
        names = models or ()
        if index not in names:
            raise ValueError(f"model {shown(index)} is not one of {list(names)}.")
        return names.index(index)
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(
            f"models are selected by {what}; got {type(index).__name__} {shown(index)}."
        )
    if not -n_models <= int(index) < n_models:
        raise IndexError(f"model position {int(index)} is out of range for {n_models} models.")
    return int(index) % n_models


def _select_fitted(fitted: FittedPrior, idx: int | NDArray[np.intp], n_models: int) -> FittedPrior:
    """The prior of the models ``idx`` of a batch of ``n_models``.

    It is cut to them when each model has its own nodes; shared nodes are kept as they are.
    """
    nodes, wts = fitted.nodes, fitted.weights
    if not (nodes.shape[1] == n_models and n_models > 1):
        return fitted
    g = np.atleast_1d(idx)
    return fitted._replace(
        nodes=nodes[:, g],
        weights=wts[:, g],
        alpha=fitted.alpha[g],
        converged=fitted.converged[g],
        log_alpha_cov=fitted.log_alpha_cov[g],
        kappa_prior=None if fitted.kappa_prior is None else fitted.kappa_prior[g],
    )
