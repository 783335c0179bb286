r"""Study ``pairs``: whether ``bayes-eval pairs`` is calibrated for each matrix's estimand.

``bayes-eval pairs`` (:func:`bayes_eval.ranking.paired.leaderboard_pairs`) prints two
matrices of :math:`P(A \text{ better than } B)`, and the study measures a third beside them:

* ``these_questions``: :meth:`Posterior.prob_better
  <bayes_eval.posteriors.posterior.Posterior.prob_better>` under the CLI's prior
  (``--prior-kind``), the number ``rank`` and ``plan`` report: under the default learned
  prior the board's joint posterior (:func:`bayes_eval.posteriors.joint.joint_posterior`),
  under a fixed prior the models' own posteriors; estimand *these questions*, the mean of
  the true per-question success probabilities over the board's own questions,
  :math:`\bar p_l = \frac1M\sum_q p_{lq}`;
* ``paired`` and ``independent`` (the latter computed on request, not printed by the commands:
  it is not calibrated): the joint table of the pair's outcomes question by question
  (under the table prior ``pairs`` uses for ``--prior-kind``,
  :func:`~bayes_eval.ranking.paired.table_prior`: by default the learned prior of the split
  of discordant questions), or each model alone; estimand *new questions*, the expected
  score on a new question from the same source, :math:`\mu_l = E_q[p_{lq}]`.

**Boards.** As in the issue that asked for this check, question difficulty is shared across
the LLMs of a board and each LLM has question-specific strengths:
:math:`p_{lq} = \mathrm{expit}(\theta_l - b_q + e_{lq})`, :math:`\theta_l \sim N(0,
s_\theta^2)` (``ability_sd``, small: close models), :math:`b_q \sim N(0, s_b^2)`
(``difficulty_sd``), :math:`e_{lq} \sim N(0, s_e^2)` (``interaction_sd``), and ``N`` Bernoulli
trials per cell. Since :math:`b` and :math:`e` have the same law for every LLM,
:math:`\mu_l = E[\mathrm{expit}(\theta_l + X)]` is increasing in :math:`\theta_l`, so A is
better than B on new questions exactly when :math:`\theta_A > \theta_B`.

**Real rates** (``rates="matharena"``): the true rates are those of the MathArena AIME 2025 I
board (each of its 16 models' mean over 4 runs of its 15 questions): ``n_models`` of its models
on ``n_questions`` questions drawn from its 15 with replacement. The new-questions truth is then
each model's mean over the 15 (a new question is one drawn from them). These rates are not
logit-normal (many are exactly 0 or 1), so this checks the board model outside its own world.
Tied pairs (equal truths) are left out.

**The board model's own prior** (``rates="prior"``, :func:`prior_board`): every scale drawn
from its hyperprior, then the abilities, difficulties and Beta cells; the new-questions truth
orders the abilities, as on Rasch boards.

**Calibration.** Every pair of every board gives a reported probability and whether the event
is true. They are binned (``bins`` equal-width bins of the reported probability) into a
reliability diagram; the expected calibration error

.. math:: \mathrm{ECE} = \sum_b \frac{n_b}{n}\,\big|\bar P_b - \bar y_b\big|

is biased upwards by the binomial noise of the :math:`\bar y_b`, so the report also gives
its *noise floor*: the mean ECE of outcomes drawn as Bernoulli(P) from the same reported
probabilities (a calibrated forecaster's ECE with this many pairs), and the Brier score.
Pairs of one board share its questions, so they are not independent; the floor is a guide,
not a test. Pairs with no shared question are left out.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr
from scipy.special import expit

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.joint import ABILITY_SD_SCALE, DIFFICULTY_SD_SCALE, DISPERSION_PRIOR
from bayes_eval.posteriors.posterior import NEW_QUESTIONS, THESE_QUESTIONS
from bayes_eval.ranking.paired import leaderboard_pairs, table_prior
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import PairsConfig

__all__ = [
    "OUTPUTS",
    "calibration",
    "plot",
    "prior_board",
    "prior_rates",
    "real_board",
    "real_subset",
    "run",
    "run_study",
    "simulate_board",
    "summary",
]

#: The matrices the study measures and the estimand each one names (the first two are those
#: ``bayes-eval pairs`` prints).
OUTPUTS = {
    "these_questions": THESE_QUESTIONS,
    "paired": NEW_QUESTIONS,
    "independent": NEW_QUESTIONS,
}
_FLOOR_DRAWS = 200


def simulate_board(
    rng: np.random.Generator,
    *,
    n_models: int,
    n_questions: int,
    trials: int,
    ability_sd: float,
    difficulty_sd: float,
    interaction_sd: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""One simulated board (module docstring).

    Returns abilities :math:`\theta` ``(L,)``, true rates :math:`p` ``(L, M)`` and binary
    results ``(L, M, N)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random generator.
    n_models : int
        Models (LLMs) L.
    n_questions : int
        Questions M.
    trials : int
        Trials N per (model, question) cell.
    ability_sd : float
        The sd of the models' logit abilities.
    difficulty_sd : float
        The sd of the questions' logit difficulties, shared by all models.
    interaction_sd : float
        The sd of the LLM x question logit interaction.

    Returns
    -------
    theta : numpy.ndarray of shape (L,)
        The logit abilities.
    p : numpy.ndarray of shape (L, M)
        The true rates.
    R : numpy.ndarray of shape (L, M, N)
        The binary results (floats 0 and 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.pairs_study import simulate_board
    >>> theta, p, R = simulate_board(
    ...     np.random.default_rng(0), n_models=3, n_questions=5, trials=4,
    ...     ability_sd=0.5, difficulty_sd=2.0, interaction_sd=1.0,
    ... )
    >>> theta.round(4).tolist(), p.shape, R.shape
    ([0.0629, -0.0661, 0.3202], (3, 5), (3, 5, 4))
    """
    theta = rng.normal(0.0, ability_sd, n_models)
    b = rng.normal(0.0, difficulty_sd, n_questions)
    e = rng.normal(0.0, interaction_sd, (n_models, n_questions))
    p = expit(theta[:, None] - b[None, :] + e)
    R = (rng.random((n_models, n_questions, trials)) < p[..., None]).astype(np.float64)
    return theta, p, R


def prior_rates(
    rng: np.random.Generator, *, n_models: int, n_questions: int
) -> tuple[np.ndarray, np.ndarray]:
    r"""True rates drawn from the board model's own prior, every scale from its hyperprior.

    The world of :func:`bayes_eval.posteriors.joint.joint_posterior`:
    :math:`s \sim \mathrm{HalfNormal}(3)`, :math:`\sigma \sim \mathrm{HalfNormal}(2)`,
    :math:`\log\kappa \sim N(\log 7, 1)`, :math:`\theta_l \sim N(0, \sigma^2)`,
    :math:`b_q \sim N(0, s^2)` and :math:`p_{lq} \sim \mathrm{Beta}(\kappa m_{lq},
    \kappa(1 - m_{lq}))` with :math:`m_{lq} = \mathrm{expit}(\theta_l - b_q)` (logits clipped
    at 30). Where a check fails here, the approximation fails; where it holds here and fails on
    :func:`simulate_board`, the model's world is the cause. A model's mean over new questions
    of the same law, :math:`E[\mathrm{expit}(\theta_l - b)]`, increases with
    :math:`\theta_l`.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random generator.
    n_models : int
        Models (LLMs) L.
    n_questions : int
        Questions M.

    Returns
    -------
    theta : numpy.ndarray of shape (L,)
        The logit abilities.
    p : numpy.ndarray of shape (L, M)
        The true rates, inside (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.pairs_study import prior_rates
    >>> theta, p = prior_rates(np.random.default_rng(0), n_models=3, n_questions=5)
    >>> theta.shape, p.shape, bool(((p > 0) & (p < 1)).all())
    ((3,), (3, 5), True)
    """
    sigma = abs(rng.normal(0.0, ABILITY_SD_SCALE))
    s = abs(rng.normal(0.0, DIFFICULTY_SD_SCALE))
    kappa = np.exp(np.log(DISPERSION_PRIOR[0]) + DISPERSION_PRIOR[1] * rng.normal())
    theta = rng.normal(0.0, sigma, n_models)
    b = rng.normal(0.0, s, n_questions)
    m = expit(np.clip(theta[:, None] - b[None, :], -30.0, 30.0))
    p = rng.beta(kappa * m, kappa * (1.0 - m))
    return theta, np.clip(p, np.finfo(float).tiny, 1.0 - np.finfo(float).eps)


def prior_board(
    rng: np.random.Generator, *, n_models: int, n_questions: int, trials: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""One board drawn from the board model's own prior (:func:`prior_rates`).

    Returns abilities :math:`\theta` ``(L,)``, true rates :math:`p` ``(L, M)`` and binary
    results ``(L, M, N)``: ``trials`` Bernoulli trials per cell.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random generator.
    n_models : int
        Models (LLMs) L.
    n_questions : int
        Questions M.
    trials : int
        Trials N per (model, question) cell.

    Returns
    -------
    theta : numpy.ndarray of shape (L,)
        The logit abilities.
    p : numpy.ndarray of shape (L, M)
        The true rates.
    R : numpy.ndarray of shape (L, M, N)
        The binary results (floats 0 and 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.pairs_study import prior_board
    >>> theta, p, R = prior_board(np.random.default_rng(0), n_models=3, n_questions=5, trials=4)
    >>> theta.shape, p.shape, R.shape
    ((3,), (3, 5), (3, 5, 4))
    """
    theta, p = prior_rates(rng, n_models=n_models, n_questions=n_questions)
    R = (rng.random((n_models, n_questions, trials)) < p[..., None]).astype(np.float64)
    return theta, p, R


def real_board(
    rng: np.random.Generator, rates: np.ndarray, *, n_models: int, n_questions: int, trials: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One board on real rates ``(L0, M0)``.

    ``n_models`` of the L0 models (without replacement) on ``n_questions`` questions drawn
    from the M0 with replacement. Returns each model's mean over the M0 questions (the
    new-questions truth: a question drawn from them), the board's rates ``(L, M)`` and binary
    results ``(L, M, N)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random generator.
    rates : numpy.ndarray of shape (L0, M0)
        The real rates of L0 models on M0 questions.
    n_models : int
        Models L drawn from the L0 (at most L0).
    n_questions : int
        Questions M drawn from the M0.
    trials : int
        Trials N per (model, question) cell.

    Returns
    -------
    mean : numpy.ndarray of shape (L,)
        Each drawn model's mean rate over the M0 questions.
    p : numpy.ndarray of shape (L, M)
        The board's rates.
    R : numpy.ndarray of shape (L, M, N)
        The binary results (floats 0 and 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.pairs_study import real_board
    >>> rates = np.array([[0.9, 0.5, 0.1], [0.8, 0.2, 0.0], [1.0, 0.6, 0.3], [0.4, 0.4, 0.4]])
    >>> rng = np.random.default_rng(0)
    >>> mean, p, R = real_board(rng, rates, n_models=2, n_questions=4, trials=3)
    >>> mean.round(4).tolist(), p.tolist(), R.shape
    ([0.6333, 0.4], [[1.0, 1.0, 1.0, 1.0], [0.4, 0.4, 0.4, 0.4]], (2, 4, 3))
    """
    models, p = real_subset(rng, rates, n_models=n_models, n_questions=n_questions)
    R = (rng.random((n_models, n_questions, trials)) < p[..., None]).astype(np.float64)
    return rates[models].mean(axis=1), p, R


def real_subset(
    rng: np.random.Generator, rates: np.ndarray, *, n_models: int, n_questions: int
) -> tuple[np.ndarray, np.ndarray]:
    """``n_models`` of the real rates' models on ``n_questions`` of their questions.

    The models are drawn without replacement, the questions with replacement (the board of
    :func:`real_board`, before its trials).

    Parameters
    ----------
    rng : numpy.random.Generator
        The random generator.
    rates : numpy.ndarray of shape (L0, M0)
        The real rates of L0 models on M0 questions.
    n_models : int
        Models L drawn from the L0 (at most L0).
    n_questions : int
        Questions M drawn from the M0.

    Returns
    -------
    models : numpy.ndarray of int, shape (L,)
        The rows drawn.
    p : numpy.ndarray of shape (L, M)
        The board's rates.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.pairs_study import real_subset
    >>> rates = np.array([[0.9, 0.5, 0.1], [0.8, 0.2, 0.0], [1.0, 0.6, 0.3], [0.4, 0.4, 0.4]])
    >>> models, p = real_subset(np.random.default_rng(0), rates, n_models=2, n_questions=4)
    >>> models.tolist(), p.tolist()
    ([2, 3], [[1.0, 1.0, 1.0, 1.0], [0.4, 0.4, 0.4, 0.4]])
    """
    models = rng.choice(rates.shape[0], n_models, replace=False)
    return models, rates[np.ix_(models, rng.integers(0, rates.shape[1], n_questions))]


def _real_rates() -> np.ndarray:
    """The MathArena AIME 2025 I board's rates: each model's mean over its 4 runs (16, 15)."""
    from bayes_eval import datasets

    return np.nanmean(datasets.load("matharena_aime25_i")["results"].values, axis=-1)


def _one_board(
    config: PairsConfig, trials: int, rng: np.random.Generator, rates: np.ndarray | None
) -> dict:
    if config.rates == "prior":  # the board model's own world; theta orders new questions
        theta, p, R = prior_board(
            rng, n_models=config.n_models, n_questions=config.n_questions, trials=trials
        )
    elif rates is None:
        theta, p, R = simulate_board(
            rng,
            n_models=config.n_models,
            n_questions=config.n_questions,
            trials=trials,
            ability_sd=config.ability_sd,
            difficulty_sd=config.difficulty_sd,
            interaction_sd=config.interaction_sd,
        )
    else:  # theta: the models' means over the real questions, the new-questions truth
        theta, p, R = real_board(
            rng, rates, n_models=config.n_models, n_questions=config.n_questions, trials=trials
        )
    names = [f"m{i}" for i in range(config.n_models)]
    da = xr.DataArray(R, dims=("model", "question", "trial"), coords={"model": names})
    pc = leaderboard_pairs(
        da, prior=config.prior_kind, pair_prior=table_prior(config.prior_kind), independent=True
    )
    idx = np.array([names.index(m) for m in pc.models])
    i, j = np.triu_indices(config.n_models, 1)
    a, b = idx[i], idx[j]
    p_bar = p.mean(axis=1)
    out = {name: getattr(pc, name)[i, j] for name in OUTPUTS}
    # a tie (real rates only) has no better model: left out, as pairs without a probability
    for name, estimand in OUTPUTS.items():
        truth = p_bar if estimand == THESE_QUESTIONS else theta
        out[name] = np.where(np.isclose(truth[a], truth[b], rtol=0, atol=1e-12), np.nan, out[name])
    out["truth_these"] = p_bar[a] > p_bar[b]
    out["truth_new"] = theta[a] > theta[b]
    out["prior_these"] = pc.these_from  # the board model, or the models' prior
    out["prior_new"] = pc.prior
    out["prior_independent"] = pc.independent_prior or pc.prior
    return out


def run(config: PairsConfig, *, progress: bool = True) -> xr.Dataset:
    """Every pair of ``replicates`` boards for each N: reported probabilities and truths.

    Parameters
    ----------
    config : PairsConfig
        The study's options (``bayes_eval.validation.study_configs.PairsConfig``): boards per
        N, models, questions, the grid ``N``, the sd's or real ``rates``, the prior kind and
        the bins.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    xarray.Dataset
        Over ``(N, board, pair)``: ``p_these_questions``, ``p_paired`` and
        ``p_independent`` (NaN for ties), ``truth_these`` and ``truth_new``; over ``N``: the
        priors used, ``prior_these_questions``, ``prior_new_questions`` (of ``paired``) and
        ``prior_independent``.

    Examples
    --------
    >>> from bayes_eval.validation.pairs_study import run
    >>> from bayes_eval.validation.study_configs import PairsConfig
    >>> config = PairsConfig(replicates=3, n_models=3, n_questions=10, N=(2,))
    >>> ds = run(config, progress=False)
    >>> dict(ds.sizes)
    {'N': 1, 'board': 3, 'pair': 3}
    >>> ds["p_paired"].round(4).values.tolist()
    [[[0.7256, 0.729, 0.5894], [0.6786, 0.8602, 0.7652], [0.6683, 0.68, 0.5738]]]
    """
    n_pairs = config.n_models * (config.n_models - 1) // 2
    shape = (len(config.N), config.replicates, n_pairs)
    values = {name: np.full(shape, np.nan) for name in OUTPUTS}
    truth_these = np.zeros(shape, dtype=bool)
    truth_new = np.zeros(shape, dtype=bool)
    priors: dict[str, list[str]] = {"these_questions": [], "new_questions": [], "independent": []}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=shape[0] * shape[1], desc="pairs boards", unit="board")
    rates = _real_rates() if config.rates == "matharena" else None
    for k, trials in enumerate(config.N):
        rng = np.random.default_rng([config.seed, trials])
        for r in range(config.replicates):
            one = _one_board(config, trials, rng, rates)
            if r == 0:  # the labels depend on N (graded differences use the uniform corners)
                priors["these_questions"].append(one["prior_these"])
                priors["new_questions"].append(one["prior_new"])
                priors["independent"].append(one["prior_independent"])
            for name in OUTPUTS:
                values[name][k, r] = one[name]
            truth_these[k, r], truth_new[k, r] = one["truth_these"], one["truth_new"]
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    dims = ("N", "board", "pair")
    data = {f"p_{name}": (dims, values[name]) for name in OUTPUTS}
    data["truth_these"] = (dims, truth_these)
    data["truth_new"] = (dims, truth_new)
    data["prior_these_questions"] = ("N", np.array(priors["these_questions"], dtype=str))
    data["prior_new_questions"] = ("N", np.array(priors["new_questions"], dtype=str))
    data["prior_independent"] = ("N", np.array(priors["independent"], dtype=str))
    attrs = {f: getattr(config, f) for f in ("replicates", "n_models", "n_questions", "seed")}
    attrs |= {f: float(getattr(config, f)) for f in ("ability_sd", "difficulty_sd")}
    attrs |= {"interaction_sd": float(config.interaction_sd), "bins": config.bins}
    attrs["prior_kind"] = config.prior_kind
    attrs["rates"] = config.rates
    return xr.Dataset(data, coords={"N": list(config.N)}, attrs=attrs)


def calibration(p: np.ndarray, truth: np.ndarray, bins: int, *, seed: int = 0) -> dict:
    r"""Reliability of probabilities ``p`` for binary outcomes ``truth`` (NaN ``p`` dropped).

    Returns ``ece`` (module docstring), ``ece_floor`` (mean ECE of Bernoulli(p) outcomes:
    what a calibrated forecaster scores with these pairs), ``brier``, ``n``, and per bin the
    ``count``, ``mean_p`` and ``frequency`` (NaN for empty bins).

    Parameters
    ----------
    p : numpy.ndarray
        Reported probabilities (any shape; NaN dropped).
    truth : numpy.ndarray of bool
        Whether each event is true, same shape as ``p``.
    bins : int
        Equal-width bins of the reported probability.
    seed : int, optional
        Random seed of the noise floor's draws, default 0.

    Returns
    -------
    dict
        ``ece``, ``ece_floor``, ``brier`` (floats), ``n`` (the pairs kept), and
        ``count``, ``mean_p`` and ``frequency`` (arrays of length ``bins``).

    Raises
    ------
    ValueError
        When every probability is NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.pairs_study import calibration
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0, 1, 2000)
    >>> c = calibration(p, rng.random(2000) < p, bins=10)
    >>> round(c["ece"], 4), round(c["ece_floor"], 4), round(c["brier"], 4), c["n"]
    (0.0296, 0.0242, 0.1633, 2000)
    >>> c["count"].tolist()
    [210, 209, 185, 211, 192, 202, 185, 194, 213, 199]
    """
    p = np.asarray(p, dtype=float).ravel()
    y = np.asarray(truth, dtype=float).ravel()
    keep = np.isfinite(p)
    p, y = p[keep], y[keep]
    if p.size == 0:
        raise ValueError("no reported probabilities to calibrate (every pair was NaN).")
    which = np.clip((p * bins).astype(int), 0, bins - 1)
    count = np.bincount(which, minlength=bins)
    sum_p = np.bincount(which, weights=p, minlength=bins)

    def ece(outcomes: np.ndarray) -> np.ndarray:
        """ECE of outcomes ``(..., n)`` against ``p``."""
        hits = np.stack([np.bincount(which, weights=o, minlength=bins) for o in outcomes])
        return np.abs(sum_p - hits).sum(axis=-1) / p.size

    rng = np.random.default_rng(seed)
    floor = ece(rng.random((_FLOOR_DRAWS, p.size)) < p).mean()
    hits = np.bincount(which, weights=y, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p, freq = sum_p / count, hits / count
    return {
        "ece": float(ece(y[None])[0]),
        "ece_floor": float(floor),
        "brier": float(np.mean((p - y) ** 2)),
        "n": int(p.size),
        "count": count,
        "mean_p": mean_p,
        "frequency": freq,
    }


def _truth(ds: xr.Dataset, name: str) -> xr.DataArray:
    return ds["truth_these" if OUTPUTS[name] == THESE_QUESTIONS else "truth_new"]


def summary(ds: xr.Dataset) -> dict:
    """ECE, its noise floor and the Brier score of every matrix at every N.

    Each with the estimand and prior it names; and the largest gap between reported and
    observed frequency among the bins holding at least 2% of the pairs.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.pairs_study.run`.

    Returns
    -------
    dict
        ``settings`` (the dataset's attributes) and ``calibration``: per ``"N=N MATRIX"``,
        ``estimand``, ``prior``, ``ece``, ``ece_floor``, ``brier``, ``max_bin_gap`` and
        ``pairs``.

    Examples
    --------
    >>> from bayes_eval.validation.pairs_study import run, summary
    >>> from bayes_eval.validation.study_configs import PairsConfig
    >>> config = PairsConfig(replicates=3, n_models=3, n_questions=10, N=(2,))
    >>> s = summary(run(config, progress=False))
    >>> list(s["calibration"])
    ['N=2 these_questions', 'N=2 paired', 'N=2 independent']
    >>> row = s["calibration"]["N=2 paired"]
    >>> row["estimand"], row["ece"], row["ece_floor"], row["pairs"]
    ('new questions', 0.2773, 0.2268, 9)
    """
    bins = int(ds.attrs["bins"])
    rows = {}
    for n in ds["N"].values:
        for name, estimand in OUTPUTS.items():
            c = calibration(ds[f"p_{name}"].sel(N=n).values, _truth(ds, name).sel(N=n).values, bins)
            big = c["count"] >= 0.02 * c["n"]
            gap = np.abs(c["mean_p"] - c["frequency"])[big]
            which = "these_questions" if estimand == THESE_QUESTIONS else "new_questions"
            if name == "independent" and "prior_independent" in ds:  # its own prior
                which = "independent"
            rows[f"N={int(n)} {name}"] = {
                "estimand": estimand,
                "prior": str(ds[f"prior_{which}"].sel(N=n).values),
                "ece": round(c["ece"], 4),
                "ece_floor": round(c["ece_floor"], 4),
                "brier": round(c["brier"], 4),
                "max_bin_gap": round(float(gap.max()), 4) if gap.size else None,
                "pairs": c["n"],
            }
    return {"settings": dict(ds.attrs), "calibration": rows}


def run_study(config: PairsConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run the study with ``config`` and write ``OUT/pairs.nc`` and ``OUT/pairs.png``.

    Parameters
    ----------
    config : PairsConfig
        The study's options (``bayes_eval.validation.study_configs.PairsConfig``).
    out : str or pathlib.Path
        Folder to write into (created when missing).
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The dataset of :func:`bayes_eval.validation.pairs_study.run`,
        the summary of :func:`bayes_eval.validation.pairs_study.summary`
        with the files written and the seconds taken, and the files (``netcdf``, ``plot``).

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.pairs_study import run_study
    >>> from bayes_eval.validation.study_configs import PairsConfig
    >>> config = PairsConfig(replicates=3, n_models=3, n_questions=10, N=(2,))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(config, tmp, progress=False)
    ...     print(sorted(result.files), result.files["netcdf"].name)
    ['netcdf', 'plot'] pairs.nc
    >>> result.summary["calibration"]["N=2 these_questions"]["pairs"]
    9
    """
    from bayes_eval.validation.study_output import finish

    start = time.perf_counter()
    ds = run(config, progress=progress)
    return finish(ds, out, "pairs", plot, summary(ds), start)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Reliability diagrams: observed frequency against reported probability.

    One panel per N, one line per matrix, with the ECE in the legend.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`bayes_eval.validation.pairs_study.run`.
    path : str or pathlib.Path
        The PNG file to write.

    Returns
    -------
    pathlib.Path
        The PNG written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.pairs_study import plot, run
    >>> from bayes_eval.validation.study_configs import PairsConfig
    >>> config = PairsConfig(replicates=3, n_models=3, n_questions=10, N=(2,))
    >>> ds = run(config, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "pairs.png")
    ...     print(png.name, png.exists())
    pairs.png True
    """
    plt = pyplot()
    bins = int(ds.attrs["bins"])
    n_values = ds["N"].values
    fig, axes = plt.subplots(1, len(n_values), figsize=(5 * len(n_values), 4.5), squeeze=False)
    for ax, n in zip(axes[0], n_values, strict=True):
        ax.plot([0, 1], [0, 1], color="0.6", lw=0.8)
        for name, estimand in OUTPUTS.items():
            c = calibration(ds[f"p_{name}"].sel(N=n).values, _truth(ds, name).sel(N=n).values, bins)
            ok = c["count"] > 0
            ax.plot(
                c["mean_p"][ok],
                c["frequency"][ok],
                "o-",
                ms=3,
                label=f"{name} ({estimand}): ECE {c['ece']:.3f} (floor {c['ece_floor']:.3f})",
            )
        ax.set_title(f"N = {int(n)} trial(s), {ds.attrs['n_questions']} questions")
        ax.set_xlabel("reported P(A better than B)")
        ax.set_ylabel("observed frequency")
        ax.legend(fontsize=7, loc="upper left")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return save_png(fig, path)
