"""bayes_eval: Bayesian evaluation and ranking of LLMs.

The core (this package) needs numpy, scipy and xarray only. One object answers every
question about a score: ``posterior(R, w, prior=...)`` returns a :class:`Posterior` (mean,
sd, credible intervals, P(better), draws, the Pass family, a DataTree) under a
:class:`Prior` (uniform, Jeffreys, a fixed Dirichlet, or learned from the questions; earlier
runs and their discount). The closed-form estimators keep the names, argument order and
return conventions of the peer package scorio, so ``from bayes_eval import bayes_ci``
replaces ``from scorio.eval import bayes_ci``; they are thin wrappers over the posterior.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers: True)

if TYPE_CHECKING:  # the names below, imported on first use (``import bayes_eval`` stays light)
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

#: The modules that define the public names (``__all__``), in the order they are searched. The
#: names are imported when first read, so that the command line can report Ctrl-C during its
#: first (slow) imports of numpy, scipy and xarray.
_MODULES = (
    "bayes_eval.metrics.avg",
    "bayes_eval.metrics.bayes",
    "bayes_eval.metrics.passk",
    "bayes_eval.posteriors.posterior",
    "bayes_eval.posteriors.priors",
)


def __getattr__(name: str) -> Any:
    if name == "__version__":  # one source of truth: pyproject.toml's, as installed
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("bayes_eval")
        except PackageNotFoundError:  # pragma: no cover - a tree that is not installed
            value = "0+unknown"
        globals()[name] = value
        return value
    if name in __all__:
        for module in map(import_module, _MODULES):
            if name in getattr(module, "__all__", ()):
                globals()[name] = value = getattr(module, name)  # read once
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
