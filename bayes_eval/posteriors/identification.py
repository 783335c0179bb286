r"""Whether the data identify the spread of the questions, and the note said when they do not.

Under a learned prior the concentration :math:`s = \sum_k a_k` of the Dirichlet prior says how
alike the questions are. With one trial per question the likelihood does not depend on it (a
single Bernoulli trial of question :math:`\alpha` has probability :math:`E[\pi_\alpha]`
whatever its spread), so it is informed by its hyperprior alone unless a board of other models
on the same questions updated that hyperprior (:mod:`~bayes_eval.posteriors.board`). The board
model's Beta dispersion (:mod:`~bayes_eval.posteriors.joint`) is likewise identified only by
repeated trials. :attr:`Posterior.concentration_unidentified
<bayes_eval.posteriors.posterior.Posterior.concentration_unidentified>` and its note read
these here.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from bayes_eval.posteriors.joint import DISPERSION_PRIOR
from bayes_eval.posteriors.priors import KAPPA_PRIOR, FittedPrior, Prior

__all__: list[str] = []


def _concentration_unidentified(
    data: NDArray[np.float64], fitted: FittedPrior, prior: Prior
) -> NDArray[np.bool_]:
    """Per model ``(L,)``: a learned concentration informed by its hyperprior alone.

    It is so when every question of the model has at most one trial (``data``, the counts
    ``(..., M, C + 1)``) and no board updated the hyperprior of the fit (``fitted``); always
    False for fixed priors.
    """
    counts = data if data.ndim == 3 else data[None]
    if not prior.learned or fitted.kappa_prior is None:
        return np.zeros(counts.shape[0], dtype=bool)
    single = (counts.sum(axis=-1) <= 1.0).all(axis=-1)  # (L,)
    given = prior.kappa_prior or KAPPA_PRIOR
    base = np.asarray(given, dtype=float)
    board = np.any(fitted.kappa_prior != base, axis=-1)  # (G,)
    return np.asarray(single & ~np.broadcast_to(board, single.shape))


def _concentration_note(lost: NDArray[np.bool_], joint: bool) -> str | None:
    """One line when ``lost`` (per model, unidentified) holds for some model, else None.

    ``joint``: the numbers come from the board model, whose dispersion is the one lost.
    """
    if not lost.any():
        return None
    if joint:
        med, sd = DISPERSION_PRIOR
        return (
            "note: with one trial per question the board model's Beta dispersion (how far "
            "a model's rate on a question strays from ability minus difficulty) is not "
            f"identified: it keeps its hyperprior (log-normal, median {med:g}, log-sd "
            f"{sd:g}, learned from real leaderboards with repeated trials), which the "
            "intervals rest on; a second trial of some questions identifies it."
        )
    who = "the model" if lost.size == 1 else f"{int(lost.sum())} of {lost.size} models"
    return (
        f"note: the prior's concentration is not identified for {who} (one trial per "
        "question, and no board of other models on the same questions informs it): the "
        "intervals rest on the weakly informative hyperprior and are likely wider than the "
        "data need (1.1-2.3 times the error on real benchmarks: bayes-eval validate "
        "hyperprior); a second trial or other models on the same questions identify it."
    )
