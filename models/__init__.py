"""PyMC models matching the closed-form Bayes@N posterior (installed as ``bayes_eval.models``).

Builders take evaluation data and return a ``pm.Model`` with named coords (``model``,
``question``, ``category``) and the data in named ``pm.Data`` containers, vectorised over L
models (:func:`model_info` reads what a built model is back from the model itself):

* :func:`matching_model`: the Dirichlet-multinomial model whose posterior is the closed form;
  the NUTS cross-check of mu, sigma and the Gaussian ranking confidence (:func:`crosscheck`).
* :func:`hierarchical_model`: per-question Dirichlet prior with pooled ``kappa``, ``beta``;
  :func:`mixture_model`: a mixture of such priors (questions of two or more kinds).
* :func:`joint_model`: the board model behind the default leaderboard (ability minus a
  shared question difficulty, Beta dispersion), for NUTS; :func:`joint_pi_bar` draws pi-bar.
* :func:`crossed_model`: abilities and question difficulties shared across models, for
  incomplete leaderboards with binary, graded (fractional) or K-level (ordinal) scores;
  :func:`crossed_rank_table` ranks its fits from the posterior draws.
* :func:`power_prior_model`: prior runs ``R0`` discounted by a fixed or learned ``a0``.

Checking and comparing fits: :func:`prior_predictive`, :func:`posterior_predictive`,
:func:`ppc_statistics` (Bayesian mid-p values of test statistics for evaluation data) and
:func:`plot_ppc`; for the judges model :func:`judge_ppc_statistics` (leniency, level
shares, agreement with the other judges, held-out self-preference); :func:`add_log_likelihood`,
:func:`add_log_prior`, :func:`loo` (PSIS with
Pareto k), :func:`exact_matching_loo` and :func:`compare_models` (ELPD table and verdict).

:func:`sample` returns an ``xarray.DataTree`` (ArviZ 1's InferenceData) with a
``closed_form`` group; :func:`save`/:func:`load` use NetCDF. :func:`prior_sensitivity` maps
mu, sigma and ranks over prior strengths. PyMC and ArviZ are imported only here and in
``bayes_eval.validation``, never by ``import bayes_eval``.

Importing this package sets ``PYTENSOR_FLAGS=numba__fastmath=False`` (unless the flag is
already given) so that a seeded run repeats exactly, cold or warm compile cache.
"""

import os as _os

if "numba__fastmath" not in _os.environ.get("PYTENSOR_FLAGS", ""):
    _flags = _os.environ.get("PYTENSOR_FLAGS", "")
    _os.environ["PYTENSOR_FLAGS"] = ",".join(f for f in (_flags, "numba__fastmath=False") if f)
    try:  # pytensor may already be imported: set the live config too
        import pytensor as _pytensor

        _pytensor.config.numba__fastmath = False
    except Exception:  # pragma: no cover - pytensor missing or config frozen
        pass

from bayes_eval.models.compare import (
    Comparison,
    LooSummary,
    add_log_likelihood,
    add_log_prior,
    compare_models,
    exact_matching_loo,
    loo,
)
from bayes_eval.models.crosscheck import CrossCheck, crosscheck
from bayes_eval.models.crossed import crossed_model
from bayes_eval.models.crossed_rank import crossed_rank_table
from bayes_eval.models.hierarchical import hierarchical_model, mixture_model
from bayes_eval.models.joint import joint_model, joint_pi_bar
from bayes_eval.models.judge_predictive import judge_posterior_predictive, judge_ppc_statistics
from bayes_eval.models.matching import matching_model
from bayes_eval.models.power_prior import power_prior_model
from bayes_eval.models.predictive import (
    plot_ppc,
    posterior_predictive,
    ppc_statistics,
    prior_predictive,
)
from bayes_eval.models.psense import power_scale_sensitivity
from bayes_eval.models.sampling import (
    ConvergenceWarning,
    Diagnostics,
    diagnostics,
    load,
    model_info,
    sample,
    save,
)
from bayes_eval.models.sensitivity import SensitivityReport, prior_sensitivity, sensitivity_report

__all__ = [
    "Comparison",
    "ConvergenceWarning",
    "CrossCheck",
    "Diagnostics",
    "LooSummary",
    "SensitivityReport",
    "add_log_likelihood",
    "add_log_prior",
    "compare_models",
    "crosscheck",
    "crossed_model",
    "crossed_rank_table",
    "diagnostics",
    "exact_matching_loo",
    "hierarchical_model",
    "joint_model",
    "joint_pi_bar",
    "judge_posterior_predictive",
    "judge_ppc_statistics",
    "load",
    "loo",
    "matching_model",
    "mixture_model",
    "model_info",
    "plot_ppc",
    "posterior_predictive",
    "power_prior_model",
    "power_scale_sensitivity",
    "ppc_statistics",
    "prior_predictive",
    "prior_sensitivity",
    "sample",
    "save",
    "sensitivity_report",
]
