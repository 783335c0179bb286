r"""The PyMC model whose posterior *is* the closed-form Bayes@N posterior.

After Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
App. A.

For every model ``l`` and question ``alpha``:

.. math::
    \pi_{l\alpha} \sim \mathrm{Dirichlet}(\alpha_0 + a_0\, n^0_{l\alpha}), \qquad
    n_{l\alpha} \mid \pi_{l\alpha} \sim \mathrm{Multinomial}(N_{l\alpha}, \pi_{l\alpha}), \qquad
    \bar\pi_l = \frac1M \sum_\alpha w\cdot\pi_{l\alpha}

(``pi_bar`` is a Deterministic). By conjugacy the posterior of each :math:`\pi_{l\alpha}` is
:math:`\mathrm{Dir}(\nu_{l\alpha})`, so NUTS draws of ``pi_bar`` must reproduce ``mu`` and
``sigma`` of :func:`bayes_eval.bayes` within Monte Carlo error: that is the cross-check.
``a0 = 1`` (default) uses the prior runs ``R0`` as fixed counts (eq. 6); any fixed
``a0`` in [0, 1] is the power prior with a fixed discount, in the same compiled graph.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
from numpy.typing import ArrayLike

from bayes_eval.models.model_data import ModelInfo, built_with, data_value, model_data, stored_data

__all__ = ["matching_info", "matching_model"]

DIMS = ("model", "question", "category")
#: ``pm.Data`` containers that identify a matching model (with its free variable ``pi``).
DATA = ("count_data", "prior_count_data", "alpha0", "a0", "w")


def matching_model(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    alpha0: ArrayLike = 1.0,
    a0: float = 1.0,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
) -> pm.Model:
    r"""PyMC model matching the closed-form Bayes@N posterior.

    Parameters
    ----------
    R : array_like of int or DataArray, shape ``(M, N)`` or ``(L, M, N)``
        Results (see :func:`bayes_eval.bayes`); a DataArray may use NaN for missing trials.
    w : array_like, optional
        Rubric weights (binary ``(0, 1)`` when omitted).
    R0 : array_like, optional
        Prior runs on the same questions.
    alpha0 : float or array_like, keyword-only
        Dirichlet concentration of the base prior (1: uniform).
    a0 : float in [0, 1], keyword-only
        Weight of the prior runs (1: fixed counts as in the paper; 0: ignore ``R0``).
    mask : array_like of bool, keyword-only
        Missing trials.
    models : list of str, keyword-only
        Model names for the ``model`` coordinate.

    Returns
    -------
    pymc.Model
        Variables ``pi`` (model, question, category), observed ``counts`` and the
        Deterministic ``pi_bar`` (model); data ``count_data``, ``prior_count_data``,
        ``alpha0``, ``a0`` (a scalar) and ``w`` (:mod:`bayes_eval.models.model_data`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model
    >>> R = np.array([[0, 1, 1], [1, 1, 0]])
    >>> model = matching_model(R, models=["gpt"])
    >>> dict(model.coords)
    {'model': ('gpt',), 'question': (0, 1), 'category': (0, 1)}
    >>> [v.name for v in model.free_RVs], [v.name for v in model.deterministics]
    (['pi'], ['pi_bar'])
    """
    if not (np.isfinite(a0) and 0.0 <= a0 <= 1.0):
        raise ValueError(f"a0 is {a0!r}; expected a weight in [0, 1] for the prior runs R0.")
    data = model_data(R, w, R0, alpha0=alpha0, mask=mask, models=models)
    with pm.Model(coords=data.coords) as model:
        counts = pm.Data("count_data", data.counts, dims=DIMS)
        n0 = pm.Data("prior_count_data", data.prior_counts, dims=DIMS)
        base = pm.Data("alpha0", data.alpha0, dims="category")
        weight = pm.Data("a0", float(a0))
        w_ = pm.Data("w", data.w, dims="category")
        pi = pm.Dirichlet("pi", a=base + weight * n0, dims=DIMS)
        pm.Multinomial("counts", n=counts.sum(axis=-1), p=pi, observed=counts, dims=DIMS)
        pm.Deterministic("pi_bar", (pi * w_).sum(axis=-1).mean(axis=-1), dims="model")
    return model


def matching_info(model: pm.Model) -> ModelInfo | None:
    """The :class:`ModelInfo` of a model built by :func:`matching_model` (else ``None``).

    The reference is the closed form with the model's own prior,
    ``Dir(alpha0 + a0 n0 + n)``; the kind is ``matching``, or ``power_prior`` for ``a0 < 1``.

    Parameters
    ----------
    model : pymc.Model
        Any PyMC model; recognised by its ``pm.Data`` containers and free variable ``pi``.

    Returns
    -------
    ModelInfo or None
        The kind, the stored data and the closed-form concentrations ``alpha0 + a0 n0 + n``
        (key ``""``); ``None`` if ``model`` is not a matching model.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model
    >>> from bayes_eval.models.matching import matching_info
    >>> info = matching_info(matching_model(np.array([[0, 1, 1], [1, 1, 0]])))
    >>> info.kind, info.reference[""].tolist()
    ('matching', [[[2.0, 3.0], [2.0, 3.0]]])
    >>> R0 = np.array([[1, 1], [0, 1]])
    >>> matching_info(matching_model(np.array([[0, 1, 1], [1, 1, 0]]), R0=R0, a0=0.5)).kind
    'power_prior'
    """
    if not built_with(model, data=DATA, free=("pi",)):
        return None
    data = stored_data(model)
    a0 = float(data_value(model, "a0"))
    note = "Bayes@N closed form with the same prior" + (
        f" (R0 counts weighted by a0 = {a0:g})" if data.prior_counts.any() else ""
    )
    return ModelInfo(
        kind="matching" if a0 == 1.0 else "power_prior",
        data=data,
        reference={"": data.alpha0 + a0 * data.prior_counts + data.counts},
        reference_note=note,
    )
