"""Which latent Pass family metric a posterior is asked for, and whether its data allow it.

The metrics (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation", App. H) are functions of each question's success probability: they need binary
results with every question answered. :meth:`Posterior.pass_metric
<bayes_eval.posteriors.posterior.Posterior.pass_metric>` checks its request here, then
computes with :func:`~bayes_eval.posteriors.latent_pass.pass_law`.
"""

from __future__ import annotations

from bayes_eval.inputs import check_tau, shown

__all__: list[str] = []

#: metric name -> the kind of :func:`~bayes_eval.posteriors.latent_pass.pass_law`
_PASS_KINDS = {
    "pass_at_k": "pass",
    "pass_hat_k": "hat",
    "g_pass_at_k_tau": "threshold",
    "mg_pass_at_k": "mg",
}


def _pass_kind(
    metric: str, tau: float | None, *, fractional: bool, n_categories: int, answered_only: bool
) -> tuple[str, float | None]:
    """The kind of ``metric`` and its checked threshold ``tau``; a ValueError when not allowed.

    ``fractional``, ``n_categories`` (the size of ``w``) and ``answered_only`` describe the
    posterior's data.
    """
    if metric not in _PASS_KINDS:
        raise ValueError(f"metric is {shown(metric)}; expected one of {sorted(_PASS_KINDS)}.")
    if fractional or n_categories != 2:
        raise ValueError(
            "the Pass family needs binary results (0/1 per trial); this posterior has "
            + ("graded scores." if fractional else f"{n_categories} categories.")
        )
    if answered_only:
        raise ValueError(
            "the Pass family needs every question answered (k trials or more each); drop "
            "answered_only or select the common questions."
        )
    if metric == "g_pass_at_k_tau":
        if tau is None:
            raise ValueError("metric 'g_pass_at_k_tau' needs tau in (0, 1].")
        tau = check_tau(tau)  # the module functions' check (one validation path)
    elif tau is not None:
        raise ValueError(f"tau is {shown(tau)}; only metric 'g_pass_at_k_tau' takes a threshold.")
    return _PASS_KINDS[metric], tau
