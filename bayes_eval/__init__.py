"""bayes_eval: Bayesian evaluation and ranking of LLMs.

The core (this package) needs numpy, scipy and xarray only. One object answers every
question about a score: ``posterior(R, w, prior=...)`` returns a :class:`Posterior` (mean,
sd, credible intervals, P(better), draws, the Pass family, a DataTree) under a
:class:`Prior` (uniform, Jeffreys, a fixed Dirichlet, or learned from the questions; earlier
runs and their discount). The closed-form estimators keep the names, argument order and
return conventions of the peer package scorio, so ``from bayes_eval import bayes_ci``
replaces ``from scorio.eval import bayes_ci``; they are thin wrappers over the posterior.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from bayes_eval.metrics.avg import avg, avg_ci
from bayes_eval.metrics.bayes import bayes, bayes_ci, dirichlet_posterior
from bayes_eval.metrics.passk import (
    g_pass_at_k,
    g_pass_at_k_ci,
    g_pass_at_k_tau,
    g_pass_at_k_tau_ci,
    mg_pass_at_k,
    mg_pass_at_k_ci,
    pass_at_k,
    pass_at_k_ci,
    pass_hat_k,
    pass_hat_k_ci,
)
from bayes_eval.posteriors.posterior import Posterior, posterior
from bayes_eval.posteriors.priors import Prior

try:  # one source of truth: the version in pyproject.toml, as installed
    __version__ = _version("bayes_eval")
except PackageNotFoundError:  # pragma: no cover - running from a tree that is not installed
    __version__ = "0+unknown"

__all__ = [
    "Posterior",
    "Prior",
    "avg",
    "avg_ci",
    "bayes",
    "bayes_ci",
    "dirichlet_posterior",
    "g_pass_at_k",
    "g_pass_at_k_ci",
    "g_pass_at_k_tau",
    "g_pass_at_k_tau_ci",
    "mg_pass_at_k",
    "mg_pass_at_k_ci",
    "pass_at_k",
    "pass_at_k_ci",
    "pass_hat_k",
    "pass_hat_k_ci",
    "posterior",
]
