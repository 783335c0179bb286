r"""Power priors: let the data decide how much earlier runs ``R0`` count.

The normalised power prior (Ibrahim & Chen 2000; Duan et al. 2006) raises the likelihood of
the earlier runs to a power :math:`a_0 \in [0, 1]`. For the Dirichlet-multinomial this is

.. math:: \pi_{l\alpha} \mid a_{0l} \sim \mathrm{Dirichlet}(\alpha_0 + a_{0l}\, n^0_{l\alpha}),

a proper density for every :math:`a_0`, so learning :math:`a_{0l} \sim \mathrm{Beta}(a, b)` needs
no extra normalising constant. ``a0 = 1`` is the paper's fixed-count prior (eq. 6) and
``a0 = 0`` ignores ``R0``. Hariri et al. ("Don't Pass@k", App. C) show that a large prior
depth D can slow convergence when the earlier model differs; a learned ``a0`` shrinks the
weight of conflicting earlier runs.

With a fixed ``a0`` the posterior is conjugate and the model is
:func:`bayes_eval.models.matching_model` (same compiled graph). With a learned ``a0`` the
sampler sees :math:`n_{l\alpha} \sim \mathrm{DirichletMultinomial}(N_{l\alpha}, \alpha_0 + a_{0l}
n^0_{l\alpha})` and ``pi`` is drawn exactly from :math:`\mathrm{Dir}(\alpha_0 + a_{0l}n^0 + n)`.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.models.hierarchical import DIMS, dirichlet_conditional
from bayes_eval.models.matching import matching_model
from bayes_eval.models.model_data import ModelInfo, built_with, model_data, stored_data

__all__ = ["power_prior_info", "power_prior_model"]

#: ``pm.Data`` containers that identify a learned power prior (with its free variable ``a0``).
DATA = ("count_data", "prior_count_data", "alpha0", "w")


def power_prior_model(
    R: ArrayLike,
    w: ArrayLike | None = None,
    R0: ArrayLike | None = None,
    *,
    a0: float | None = None,
    a0_prior: tuple[float, float] = (1.0, 1.0),
    alpha0: ArrayLike = 1.0,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
) -> pm.Model:
    """Dirichlet-multinomial model with the prior runs discounted by ``a0``.

    Parameters
    ----------
    R, w, R0, alpha0, mask, models
        As in :func:`bayes_eval.models.matching_model`; ``R0`` is required.
    a0 : float in [0, 1] or None, keyword-only
        Fixed discount, or ``None`` to learn one ``a0`` per model.
    a0_prior : (float, float), keyword-only
        Beta prior of a learned ``a0`` (default uniform).

    Returns
    -------
    pymc.Model
        Fixed ``a0``: the matching model. Learned: ``a0`` (model) and observed ``counts``;
        :func:`bayes_eval.models.sample` adds ``pi`` and ``pi_bar``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import power_prior_model
    >>> R = np.array([[0, 1, 1], [1, 1, 0]])
    >>> R0 = np.array([[1, 1], [0, 1]])
    >>> [v.name for v in power_prior_model(R, R0=R0).free_RVs]
    ['a0']
    >>> [v.name for v in power_prior_model(R, R0=R0, a0=0.5).free_RVs]
    ['pi']
    """
    if R0 is None:
        raise ValueError("power_prior_model needs the prior runs R0; expected an array, got None.")
    if a0 is not None:
        return matching_model(R, w, R0, alpha0=alpha0, a0=a0, mask=mask, models=models)
    a, b = (float(x) for x in a0_prior)
    if not (a > 0 and b > 0):
        raise ValueError(f"a0_prior is {a0_prior!r}; expected Beta parameters > 0.")
    data = model_data(R, w, R0, alpha0=alpha0, mask=mask, models=models)
    with pm.Model(coords=data.coords) as model:
        counts = pm.Data("count_data", data.counts, dims=DIMS)
        n0 = pm.Data("prior_count_data", data.prior_counts.astype(float), dims=DIMS)
        base = pm.Data("alpha0", data.alpha0, dims="category")
        pm.Data("w", data.w, dims="category")
        weight = pm.Beta("a0", alpha=a, beta=b, dims="model")
        conc = base + weight[:, None, None] * n0
        pm.DirichletMultinomial("counts", n=counts.sum(axis=-1), a=conc, observed=counts, dims=DIMS)
    return model


def power_prior_info(model: pm.Model) -> ModelInfo | None:
    """The :class:`ModelInfo` of a learned power prior, else ``None``.

    A fixed ``a0`` gives a matching model, read by :func:`bayes_eval.models.matching.matching_info`.

    ``pi`` is drawn from ``Dir(alpha0 + a0 n0 + n)`` per draw; the references are the closed
    forms with ``a0 = 1`` (``mu``, ``sigma``) and ``a0 = 0`` (``*_without_R0``).

    Parameters
    ----------
    model : pymc.Model
        Any PyMC model; recognised by its ``pm.Data`` containers and free variable ``a0``.

    Returns
    -------
    ModelInfo or None
        Kind ``power_prior``, the stored data, the references (keys ``""`` and
        ``"without_R0"``) and the exact conditional draw of ``pi``; ``None`` for another
        kind of model.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model, power_prior_model
    >>> from bayes_eval.models.power_prior import power_prior_info
    >>> R = np.array([[0, 1, 1], [1, 1, 0]])
    >>> R0 = np.array([[1, 1], [0, 1]])
    >>> info = power_prior_info(power_prior_model(R, R0=R0))
    >>> info.kind, sorted(info.reference)
    ('power_prior', ['', 'without_R0'])
    >>> power_prior_info(matching_model(R)) is None
    True
    """
    if not built_with(model, data=DATA, free=("a0",)):
        return None
    data = stored_data(model)

    def concentration(posterior: xr.Dataset) -> np.ndarray:
        a0_draws = posterior["a0"].transpose("chain", "draw", "model").values
        return data.alpha0 + a0_draws[..., None, None] * data.prior_counts[None, None]

    return ModelInfo(
        kind="power_prior",
        data=data,
        reference={
            "": data.alpha0 + data.prior_counts + data.counts,
            "without_R0": data.alpha0 + data.counts,
        },
        reference_note="Bayes@N closed form with a0 = 1 (mu, sigma) and a0 = 0 (*_without_R0)",
        conditional=dirichlet_conditional(concentration, data.counts, data.w),
    )
