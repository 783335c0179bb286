"""What :func:`~bayes_eval.models.judges.fit_judges` keeps between fits and makes of the draws.

Models built for one data structure are kept (the ``_BUILT_MAX`` most recent,
``_reused``) and each is sampled through a frozen copy that compiles its functions once
(``_frozen``), so repeated fits (the SummEval dimensions, a sensitivity grid, study
replicates) spend their time sampling. ``_ranking_dataset`` summarises the draws of the
expected true score ``mu_k = sum_m v_m pi_{k,m}`` and of its ranks (Vossler et al., "LLMs
Judging LLMs: A Simplex Perspective", §5).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
import pymc as pm
import xarray as xr

from bayes_eval.judges.data import JudgeData
from bayes_eval.ranking.ranks import rank

__all__: list[str] = []


#: Models built by :func:`~bayes_eval.models.judges.fit_judges`, by structure
#: (``judges._structure_key``); most recent last.
_BUILT: OrderedDict[tuple, pm.Model] = OrderedDict()
_BUILT_MAX = 8
#: The frozen copy each model is sampled through (:func:`_frozen`).
_FROZEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _reused(key: tuple, build: Callable[[], pm.Model]) -> pm.Model:
    """The model kept under ``key``, or ``build()`` kept there (at most ``_BUILT_MAX`` kept)."""
    if key not in _BUILT:
        _BUILT[key] = build()
        while len(_BUILT) > _BUILT_MAX:
            _BUILT.popitem(last=False)
    _BUILT.move_to_end(key)
    return _BUILT[key]


def _frozen(model: pm.Model) -> pm.Model:
    """A copy of ``model`` that PyMC samples without recompiling.

    A ``FrozenModel`` (:func:`pymc.model.transform.optimization.freeze_model`) caches its compiled
    log density, initial point and trace functions across ``pm.sample`` calls.

    Unlike ``freeze_model``, which also freezes the data that free variables depend on, every
    ``pm.Data`` stays settable here: ``beta_max`` and ``omega`` enter the priors only as
    values read by the compiled functions at each call, so one compiled model serves a whole
    sensitivity grid. Falls back to ``model`` itself where PyMC lacks frozen models.
    """
    if model in _FROZEN:
        return _FROZEN[model]
    try:
        from pymc.model.core import FrozenModel
        from pymc.model.transform.optimization import freeze_dims_and_data

        frozen = freeze_dims_and_data(model, data=[])
        frozen.check_bounds = model.check_bounds  # not carried over by the copy
        frozen.__class__ = FrozenModel  # as freeze_model does
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - older PyMC
        frozen = model
    _FROZEN[model] = frozen
    return frozen


def _ranking_dataset(post: xr.Dataset, data: JudgeData, prob: float = 0.95) -> xr.Dataset:
    mu = post["expected_score"].stack(sample=("chain", "draw")).transpose("sample", "candidate")
    ranks = post["rank"].stack(sample=("chain", "draw")).transpose("sample", "candidate").values
    lo_q, hi_q = (1 - prob) / 2, 1 - (1 - prob) / 2
    mean = mu.mean("sample").values
    point = rank(mean)
    ds = xr.Dataset(
        {
            "mu_mean": ("candidate", mean),
            "mu_sd": ("candidate", mu.std("sample").values),
            "mu_lo": ("candidate", np.quantile(mu.values, lo_q, axis=0)),
            "mu_hi": ("candidate", np.quantile(mu.values, hi_q, axis=0)),
            "rank": ("candidate", point),
            "rank_lo": ("candidate", np.quantile(ranks, lo_q, axis=0, method="inverted_cdf")),
            "rank_hi": ("candidate", np.quantile(ranks, hi_q, axis=0, method="inverted_cdf")),
            "rank_mean": ("candidate", ranks.mean(axis=0)),
        },
        coords={"candidate": list(data.candidates)},
        attrs={"interval_prob": prob},
    )
    if data.truth is not None:
        ds["truth"] = ("candidate", data.truth)
    return ds
