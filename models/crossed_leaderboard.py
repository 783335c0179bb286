"""The leaderboard of ``bayes-eval rank --estimator crossed``.

The crossed model fitted by NUTS and its posterior turned into the rank table of the closed form.

The crossed model (:func:`bayes_eval.models.crossed_model`) puts model ability and question
difficulty on one logit scale, so a model's score is the posterior of its mean expected score
over *all* questions of the benchmark, answered or not: the sound comparison for an
incomplete design, where the closed form can only score each model on the questions it
answered (:mod:`bayes_eval.logs.design`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayes_eval.inputs import check_memory, shown
from bayes_eval.nuts import NutsSettings
from bayes_eval.ranking.leaderboard import Leaderboard, rank_records

__all__ = ["crossed_leaderboard", "crossed_likelihood_for"]


def crossed_likelihood_for(
    R: xr.DataArray, w: Sequence[float] | None, *, fractional: bool = False
) -> tuple[str, xr.DataArray, int | None]:
    """The likelihood of the crossed model for results as loaded, and the data it takes.

    Results as :func:`bayes_eval.logs.scored.load_scored` returns them:
    ``("fractional", scores, None)`` for graded scores counted fractionally,
    ``("binomial", R, None)`` for binary results, ``("ordinal", values, K)`` for K evenly spaced
    levels (``--score-levels K``; the level indices become their values ``k / (K - 1)``).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``model``, ``question``, ``trial`` (NaN = no trial): 0/1, level
        indices 0..K-1, or graded scores in [0, 1] with ``fractional``.
    w : sequence of float or None
        Rubric weights of the levels (None or ``(0, 1)``: binary results).
    fractional : bool, keyword-only
        The scores are graded and counted fractionally (``--fractional``); default False.

    Returns
    -------
    (str, xarray.DataArray, int or None)
        The likelihood of :func:`bayes_eval.models.crossed_model`, the scores it takes and the
        number of levels K (None unless ``"ordinal"``).

    Raises
    ------
    ValueError
        For rubric weights that are not K evenly spaced levels from 0 to 1.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models.crossed_leaderboard import crossed_likelihood_for
    >>> R = xr.DataArray(np.array([[[0, 1, 2], [2, 2, 1]]]), dims=("model", "question", "trial"))
    >>> likelihood, scores, K = crossed_likelihood_for(R, [0, 0.5, 1])
    >>> likelihood, K, scores.values.tolist()
    ('ordinal', 3, [[[0.0, 0.5, 1.0], [1.0, 1.0, 0.5]]])
    >>> crossed_likelihood_for(R / 2, None, fractional=True)[0]
    'fractional'
    """
    if fractional:
        return "fractional", R, None
    if w is None or np.array_equal(np.asarray(w, dtype=float), [0.0, 1.0]):
        return "binomial", R, None
    weights = np.asarray(w, dtype=float)
    k = weights.size
    if k >= 2 and np.allclose(weights, np.linspace(0.0, 1.0, k)):
        return "ordinal", R / (k - 1), k
    raise ValueError(
        f"weights {shown(list(weights))} are not evenly spaced levels from 0 to 1; the crossed "
        "model takes binary results, graded scores (--fractional) or K evenly spaced levels "
        "(--score-levels K). Use the closed form for this rubric."
    )


def crossed_leaderboard(
    R: xr.DataArray,
    w: Sequence[float] | None = None,
    *,
    fractional: bool = False,
    confidence: float = 0.95,
    nuts: NutsSettings | None = None,
    parametrization: str = "auto",
    interaction: bool = False,
    **legacy: Any,
) -> Leaderboard:
    r"""Fit the crossed model to ``R[model, question, trial]`` by NUTS and rank the models.

    NaN in ``R`` means no trial. The models are ranked by the posterior of their mean expected score
    over all questions.

    Parameters
    ----------
    R, w, fractional
        As :func:`bayes_eval.logs.scored.load_scored` returns them (see
        :func:`crossed_likelihood_for`).
    confidence : float
        Level of the credible intervals and of the pairwise decisions behind the ranks.
    nuts : bayes_eval.nuts.NutsSettings, optional
        The NUTS settings (:func:`bayes_eval.models.sample`); unset values are the crossed
        model's own: 1,000 draws and tuning steps, nutpie's sampler, and the target acceptance
        rate below.
    parametrization : str
        Of :func:`bayes_eval.models.crossed_model` (``"auto"``: centred where the data pin
        the abilities and difficulties).
    interaction : bool
        Add the LLM x question interaction of :func:`bayes_eval.models.crossed_model`
        (question-specific strengths; :math:`L \times M` more parameters).
    **legacy : Any
        Deprecated: the NUTS settings one by one (``draws=...``), as before ``nuts``. The
        crossed model's own target acceptance rate is 0.95 with non-centred abilities, 0.8
        otherwise (:func:`bayes_eval.models.crossed_model`).

    Returns
    -------
    Leaderboard
        With ``estimator="crossed"``; the table is
        :func:`~bayes_eval.models.crossed_rank.crossed_rank_table`'s (variables of
        :func:`bayes_eval.ranking.leaderboard.rank_table`, the rank's credible interval, and
        ``questions``: how many questions each model answered) and its ``attrs`` hold the
        likelihood and the convergence diagnostics.

    Examples
    --------
    A toy fit (far too short to converge, so its convergence warning is silenced here):

    >>> import warnings
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models.crossed_leaderboard import crossed_leaderboard
    >>> from bayes_eval.nuts import NutsSettings
    >>> R = xr.DataArray(
    ...     np.array([[[1, 0, 1], [0, 0, np.nan]], [[1, 1, 1], [np.nan] * 3]]),
    ...     dims=("model", "question", "trial"),
    ...     coords={"model": ["a", "b"]},
    ... )
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     nuts = NutsSettings(draws=20, tune=20, chains=1, sampler="pymc")
    ...     board = crossed_leaderboard(R, nuts=nuts)
    >>> board.estimator, board.table.attrs["likelihood"], board.missing_trials
    ('crossed', 'binomial', 4)
    >>> sorted(board.table["model"].values.tolist()), board.table["questions"].values.tolist()
    (['a', 'b'], [2, 1])
    """
    from bayes_eval.models.crossed import crossed_model
    from bayes_eval.models.crossed_rank import crossed_rank_table
    from bayes_eval.models.sampling import sample

    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence is {shown(confidence)}; expected a number in (0, 1).")
    settings = NutsSettings.from_call(nuts, legacy, owner="crossed_leaderboard")
    settings = settings.resolved(draws=1000, tune=1000, sampler="nutpie")
    draws, chains = settings.draws, settings.chains
    R = R.transpose("model", "question", "trial")
    n_models, n_questions = int(R.sizes["model"]), int(R.sizes["question"])
    # the stored draws: abilities, difficulties (and the interaction's cells), pi-bar per model,
    # a few scalars, 8 bytes each, and about as much again for the rank table built from them
    per_draw = 2 * n_models + n_questions + 8 + (n_models * n_questions if interaction else 0)
    check_memory(
        16.0 * float(draws) * float(chains) * per_draw,
        f"--draws {draws} x --chains {chains} of the crossed model ({n_models} models x "
        f"{n_questions} questions)",
        "fewer draws (1000-4000 per chain are plenty for these summaries)",
    )
    likelihood, data, levels = crossed_likelihood_for(R, w, fractional=fractional)
    model = crossed_model(
        data,
        likelihood=likelihood,
        levels=levels,
        parametrization=parametrization,
        store_p=False,
        interaction=interaction,
    )
    idata = sample(model, settings)
    table = crossed_rank_table(idata, confidence=confidence)
    seen = ~np.isnan(R.values.astype(float))
    answered = xr.DataArray(
        seen.any(axis=-1).sum(axis=-1), dims="model", coords={"model": R["model"].values}
    )
    table["questions"] = answered.sel(model=table["model"].values)
    table.attrs.setdefault("likelihood", likelihood)
    table.attrs["sampler"] = settings.sampler
    table.attrs["interaction"] = int(bool(interaction))
    return Leaderboard(
        table=table,
        models=rank_records(table),
        questions=int(R.sizes["question"]),
        max_trials=int(R.sizes["trial"]),
        missing_trials=int((~seen).sum()),
        estimator="crossed",
    )
