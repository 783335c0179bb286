r"""Synthetic leaderboards as real ones look: incomplete, graded, with known true scores.

Real leaderboards are not complete ``(model, question, trial)`` cubes. Models are added over
time while the question set grows, so early models never saw the newer questions; a few
models are run on a small subset only; some pairs are missing at random; some pairs were run
twice. Scores may be binary, graded in ``[0, 1]`` or on K levels. :func:`simulate_leaderboard`
generates such a leaderboard from a crossed (Rasch-type) truth with known abilities, so that
estimators can be checked against the truth: the closed form on each model's answered
questions (:attr:`SyntheticLeaderboard.true_mean_answered`) and the crossed model on the full
question set (:attr:`SyntheticLeaderboard.true_mean`).

**Truth.** Model :math:`l` has ability :math:`\theta_l \sim N(\mu_\theta, \sigma_\theta^2)`,
question :math:`q` difficulty :math:`b_q \sim N(0, \sigma_b^2)`, optionally a model x question
interaction :math:`e_{lq} \sim N(0, \tau^2)` (``interaction_sd``; question-specific strengths
of the models, 0 by default: the pure Rasch truth), and expected score
:math:`p_{lq} = \mathrm{logit}^{-1}(\theta_l - b_q + e_{lq})`. Every observed score has
expectation :math:`p_{lq}`:

* ``"binary"``: :math:`s \sim \mathrm{Bernoulli}(p)`;
* ``"graded"``: with probability ``inflation`` :math:`s \sim \mathrm{Bernoulli}(p)` (a grader
  that gives full or no credit), else :math:`s \sim \mathrm{Beta}(p\phi, (1 - p)\phi)`,
  rounded to ``resolution`` (rounding to a grid moves the mean by at most half a step);
* ``"levels"``: :math:`s = \mathrm{Binomial}(K - 1, p) / (K - 1)`, a score on K evenly
  spaced levels.

The true score of a model is the mean expected score over the questions,
:math:`\bar p_l = \frac1M \sum_q p_{lq}` (:attr:`~SyntheticLeaderboard.true_mean`), the
quantity the crossed model estimates, and over its answered questions only
(:attr:`~SyntheticLeaderboard.true_mean_answered`), the quantity of the closed form on an
incomplete design.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from bayes_eval.inputs import shown

__all__ = ["SyntheticLeaderboard", "simulate_leaderboard"]


if TYPE_CHECKING:
    import pandas as pd


ScoreKind = Literal["binary", "graded", "levels"]


class SyntheticLeaderboard(NamedTuple):
    """A simulated leaderboard and its truth (:func:`simulate_leaderboard`).

    Attributes
    ----------
    scores : ndarray, shape ``(L, M, N)``
        Observed scores; NaN where a trial was not run (unanswered pairs have no trial).
    theta : ndarray, shape ``(L,)``
        True abilities (logit scale).
    difficulty : ndarray, shape ``(M,)``
        True question difficulties (logit scale).
    interaction : ndarray, shape ``(L, M)``
        True model x question interactions :math:`e_{lq}` (logit scale; zeros when
        ``interaction_sd`` is 0).
    expected : ndarray, shape ``(L, M)``
        True expected score of every model on every question, answered or not.
    answered : ndarray of bool, shape ``(L, M)``
        Pairs with at least one trial.
    true_mean : ndarray, shape ``(L,)``
        Mean expected score over all M questions.
    true_mean_answered : ndarray, shape ``(L,)``
        Mean expected score over each model's answered questions.
    models, questions : tuple of str
        Labels (``model_00``, ``q000``, ...: indices zero-padded to the width of the largest;
        models in order of arrival).
    kind : str
        ``"binary"``, ``"graded"`` or ``"levels"``.
    levels : int or None
        K for ``"levels"``.

    Examples
    --------
    >>> board = simulate_leaderboard(3, 10, n_trials=2, scores="levels", levels=3, seed=0)
    >>> board.models, board.questions[:2], board.kind, board.levels
    (('model_0', 'model_1', 'model_2'), ('q0', 'q1'), 'levels', 3)
    >>> board.scores[0, :3].tolist()  # scores on the levels 0, 1/2, 1
    [[1.0, 0.5], [1.0, 0.5], [0.5, 0.5]]
    >>> board.to_dataarray().dims
    ('model', 'question', 'trial')
    """

    scores: NDArray[np.float64]
    theta: NDArray[np.float64]
    difficulty: NDArray[np.float64]
    expected: NDArray[np.float64]
    answered: NDArray[np.bool_]
    true_mean: NDArray[np.float64]
    true_mean_answered: NDArray[np.float64]
    models: tuple[str, ...]
    questions: tuple[str, ...]
    kind: str
    levels: int | None
    interaction: NDArray[np.float64] | None = None

    def to_dataarray(self) -> xr.DataArray:
        """The scores as ``R[model, question, trial]`` (NaN = not run), labelled."""
        return xr.DataArray(
            self.scores,
            dims=("model", "question", "trial"),
            coords={
                "model": list(self.models),
                "question": list(self.questions),
                "trial": np.arange(self.scores.shape[-1]),
            },
            name="score",
        )

    def to_frame(self, *, trial: bool = True) -> pd.DataFrame:
        """The long table a leaderboard export would be: one row per attempt.

        Columns ``model, question, [trial,] score`` (without ``trial`` a repeated pair is two rows
        with the same model and question).
        """
        import pandas as pd

        li, qi, ti = np.nonzero(~np.isnan(self.scores))
        data = {
            "model": np.asarray(self.models, dtype=object)[li],
            "question": np.asarray(self.questions, dtype=object)[qi],
        }
        if trial:
            data["trial"] = ti
        data["score"] = self.scores[li, qi, ti]
        return pd.DataFrame(data)


def _count(name: str, value: int, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} is {shown(value)}; expected an integer >= {low}.")
    return int(value)


def _fraction(name: str, value: float, *, closed: bool = False) -> float:
    ok = isinstance(value, (int, float, np.floating)) and not isinstance(value, bool)
    if not ok or not (0.0 <= value < 1.0 or (closed and value == 1.0)):
        bound = "[0, 1]" if closed else "[0, 1)"
        raise ValueError(f"{name} is {shown(value)}; expected a number in {bound}.")
    return float(value)


def _question_sets(question_sets: Sequence[int] | None, n_questions: int) -> list[int]:
    if question_sets is None:
        return [n_questions]
    sizes = [_count("question_sets entry", s) for s in question_sets]
    if not sizes or sizes != sorted(sizes) or sizes[-1] != n_questions:
        raise ValueError(
            f"question_sets is {shown(list(question_sets))}; expected increasing sizes of the "
            f"growing question set ending at n_questions = {n_questions}."
        )
    return sizes


def _observe(
    p: NDArray,
    kind: str,
    rng: np.random.Generator,
    levels: int,
    precision: float,
    inflation: float,
    res: float | None,
) -> NDArray:
    if kind == "binary":
        return (rng.random(p.shape) < p).astype(float)
    if kind == "levels":
        return rng.binomial(levels - 1, p) / (levels - 1)
    full = rng.random(p.shape) < inflation
    a = np.clip(p * precision, 1e-3, None)
    b = np.clip((1.0 - p) * precision, 1e-3, None)
    s = np.where(full, (rng.random(p.shape) < p).astype(float), rng.beta(a, b))
    return np.clip(np.round(s / res) * res, 0.0, 1.0) if res else s


#: The options that shape the Rasch truth, at their defaults (``expected`` replaces it).
_RASCH_DEFAULTS = {
    "ability_mean": 0.5,
    "ability_sd": 1.0,
    "difficulty_sd": 1.5,
    "batch_difficulty": 0.0,
    "interaction_sd": 0.0,
}


def _expected(expected: ArrayLike, n_models: int, n_questions: int, rasch: dict) -> NDArray:
    """The true expected scores a caller passed, checked (``simulate_leaderboard``)."""
    for name, value in rasch.items():
        if value != _RASCH_DEFAULTS[name]:
            raise ValueError(
                f"{name} is {shown(value)} beside expected; expected its default "
                f"{_RASCH_DEFAULTS[name]} (it shapes the Rasch truth, which expected replaces)."
            )
    p = np.array(expected, dtype=float)
    if p.shape != (n_models, n_questions):
        raise ValueError(
            f"expected has shape {p.shape}; expected ({n_models}, {n_questions}), "
            "(n_models, n_questions)."
        )
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError(
            "expected holds values outside [0, 1] or NaN; expected true expected scores in [0, 1]."
        )
    return p


def _rasch_truth(
    rng: np.random.Generator,
    n_models: int,
    sizes: list[int],
    *,
    ability_mean: float,
    ability_sd: float,
    difficulty_sd: float,
    batch_difficulty: float,
    interaction_sd: float,
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Abilities, difficulties, interactions and expected scores (``simulate_leaderboard``)."""
    n_questions = sizes[-1]
    theta = rng.normal(ability_mean, ability_sd, n_models)
    b = rng.normal(0.0, difficulty_sd, n_questions)
    if batch_difficulty:
        b = b + batch_difficulty * np.searchsorted(
            np.asarray(sizes), np.arange(n_questions), "right"
        )
    e = np.zeros((n_models, n_questions))
    if interaction_sd > 0:  # drawn only then: the default keeps the earlier random stream
        e = rng.normal(0.0, float(interaction_sd), (n_models, n_questions))
    return theta, b, e, expit(theta[:, None] - b[None, :] + e)


def _answered(
    available: np.ndarray,
    subset_models: int,
    subset_size: int,
    missing: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Which (model, question) pairs are answered: the available ones, less the subsets and gaps.

    ``subset_models`` models evenly spread over the board answer ``subset_size`` of their
    questions; then each pair goes missing with probability ``missing``, and a model left with
    no question answers one at random.
    """
    n_models, n_questions = available.shape
    answered = available.copy()
    if subset_models:
        size = _count("subset_size", subset_size)
        picks = np.linspace(0, n_models - 1, subset_models + 2)[1:-1].round().astype(int)
        for i in np.unique(picks):  # a handful of models: not a hot path
            pool = np.flatnonzero(available[i])
            keep = rng.choice(pool, size=min(size, pool.size), replace=False)
            answered[i] = False
            answered[i, keep] = True
    if missing:
        answered &= rng.random(answered.shape) >= missing
        empty = ~answered.any(axis=1)
        answered[empty, rng.integers(0, n_questions, empty.sum())] = True  # every model answers
    return answered


def simulate_leaderboard(
    n_models: int = 20,
    n_questions: int = 200,
    *,
    n_trials: int = 1,
    scores: ScoreKind = "binary",
    levels: int = 5,
    precision: float = 8.0,
    inflation: float = 0.3,
    resolution: float | None = 0.001,
    question_sets: Sequence[int] | None = None,
    subset_models: int = 0,
    subset_size: int = 50,
    missing: float = 0.0,
    repeats: float = 0.0,
    ability_mean: float = 0.5,
    ability_sd: float = 1.0,
    difficulty_sd: float = 1.5,
    batch_difficulty: float = 0.0,
    interaction_sd: float = 0.0,
    expected: ArrayLike | None = None,
    seed: int | np.random.Generator = 0,
) -> SyntheticLeaderboard:
    r"""Simulate an incomplete leaderboard with known true scores (module docstring).

    Parameters
    ----------
    n_models, n_questions : int
        L models (in order of arrival) and M questions.
    n_trials : int, keyword-only
        Trials of every answered pair (before ``repeats``).
    scores : {"binary", "graded", "levels"}, keyword-only
        How a score is observed given its expectation :math:`p_{lq}`.
    levels : int, keyword-only
        K >= 2 for ``"levels"``.
    precision, inflation, resolution : keyword-only
        ``"graded"`` only: the Beta precision :math:`\phi`, the share of full-or-no-credit
        scores, and the grid the scores are rounded to (None: no rounding).
    question_sets : sequence of int, optional, keyword-only
        Sizes of the growing question set, e.g. ``(1000, 1136)``: the models are split in
        order of arrival into as many equal groups, and group v answers the first
        ``question_sets[v]`` questions. Default: every model sees all questions.
    subset_models, subset_size : int, keyword-only
        The last ``subset_models`` models (spread over the arrival order) answer only a
        random ``subset_size`` of the questions of their time.
    missing : float, keyword-only
        Share of the remaining pairs dropped at random (missing completely at random).
    repeats : float, keyword-only
        Share of answered pairs run once more (``N + 1`` trials; the last trial is NaN
        elsewhere).
    ability_mean, ability_sd, difficulty_sd : float, keyword-only
        :math:`\mu_\theta`, :math:`\sigma_\theta`, :math:`\sigma_b`.
    batch_difficulty : float, keyword-only
        Added to the logit difficulty of every question of the v-th later question set, v
        times (benchmarks often add harder questions as models improve; then the models that
        saw only the early sets look better on their own questions than on all).
    interaction_sd : float, keyword-only
        :math:`\tau`, the sd of the model x question interaction :math:`e_{lq}` on the logit
        scale (default 0: none, and the random stream of earlier versions, so a seed gives
        the same board as before).
    expected : array_like, shape ``(n_models, n_questions)``, optional, keyword-only
        True expected scores in [0, 1] to observe instead of the Rasch truth (real rates,
        for example); then nothing of the Rasch truth is drawn, ``theta``, ``difficulty``
        and ``interaction`` are NaN, and the options that shape it (``ability_mean``,
        ``ability_sd``, ``difficulty_sd``, ``batch_difficulty``, ``interaction_sd``) must
        keep their defaults.
    seed : int or numpy.random.Generator, keyword-only
        Seed of every draw, or a generator to draw from (default 0).

    Returns
    -------
    SyntheticLeaderboard
        The observed scores with the truth that generated them (abilities, difficulties,
        expected scores, answered pairs and true means).

    Raises
    ------
    ValueError
        For a count below 1, a share outside [0, 1), unknown ``scores``, question sets that
        do not grow to ``n_questions``, a negative or non-finite ``interaction_sd``, or
        ``expected`` of another shape, outside [0, 1] or with a Rasch option beside it.

    Examples
    --------
    >>> board = simulate_leaderboard(6, 40, question_sets=(30, 40), seed=1)
    >>> board.scores.shape, int(board.answered.sum(axis=1).min())
    ((6, 40, 1), 30)
    >>> board.true_mean_answered.round(3).tolist()  # the first 3 models saw 30 questions
    [0.649, 0.727, 0.646, 0.377, 0.771, 0.702]
    """
    n_models = _count("n_models", n_models)
    n_questions = _count("n_questions", n_questions)
    n_trials = _count("n_trials", n_trials)
    if scores not in ("binary", "graded", "levels"):
        raise ValueError(f"scores is {shown(scores)}; expected 'binary', 'graded' or 'levels'.")
    levels = _count("levels", levels, 2)
    inflation = _fraction("inflation", inflation, closed=True)
    missing, repeats = _fraction("missing", missing), _fraction("repeats", repeats, closed=True)
    if not (np.isfinite(precision) and precision > 0):
        raise ValueError(f"precision is {shown(precision)}; expected a number > 0.")
    if resolution is not None and not (0 < resolution <= 0.5):
        raise ValueError(f"resolution is {shown(resolution)}; expected None or a step in (0, 0.5].")
    subset_models = _count("subset_models", subset_models, 0)
    if subset_models > n_models:
        raise ValueError(
            f"subset_models is {subset_models}; expected at most n_models = {n_models}."
        )
    sizes = _question_sets(question_sets, n_questions)
    ok = isinstance(interaction_sd, (int, float, np.floating)) and not isinstance(
        interaction_sd, bool
    )
    if not ok or not (np.isfinite(interaction_sd) and interaction_sd >= 0):
        raise ValueError(
            f"interaction_sd is {shown(interaction_sd)}; expected a finite number >= 0 (the sd "
            "of the model x question interaction on the logit scale)."
        )
    rng = np.random.default_rng(seed)
    rasch = {
        "ability_mean": ability_mean,
        "ability_sd": ability_sd,
        "difficulty_sd": difficulty_sd,
        "batch_difficulty": batch_difficulty,
        "interaction_sd": interaction_sd,
    }
    if expected is not None:
        p = _expected(expected, n_models, n_questions, rasch)
        theta, b = np.full(n_models, np.nan), np.full(n_questions, np.nan)
        e = np.full((n_models, n_questions), np.nan)
    else:
        theta, b, e, p = _rasch_truth(rng, n_models, sizes, **rasch)

    version = np.arange(n_models) * len(sizes) // n_models
    available = np.arange(n_questions)[None, :] < np.asarray(sizes)[version][:, None]
    answered = _answered(available, subset_models, subset_size, missing, rng)

    extra = answered & (rng.random(answered.shape) < repeats) if repeats else None
    width = n_trials + (1 if extra is not None and extra.any() else 0)
    out = np.full((n_models, n_questions, width), np.nan)
    obs = _observe(
        np.broadcast_to(p[..., None], out.shape),
        scores,
        rng,
        levels,
        precision,
        inflation,
        resolution,
    )
    run = np.zeros(out.shape, dtype=bool)
    run[..., :n_trials] = answered[..., None]
    if width > n_trials:
        run[..., n_trials] = extra
    out[run] = obs[run]

    with np.errstate(invalid="ignore"):
        mean_answered = np.where(answered, p, 0.0).sum(axis=1) / answered.sum(axis=1)
    return SyntheticLeaderboard(
        scores=out,
        theta=theta,
        difficulty=b,
        expected=p,
        answered=answered,
        true_mean=p.mean(axis=1),
        true_mean_answered=mean_answered,
        models=tuple(f"model_{i:0{len(str(n_models - 1))}d}" for i in range(n_models)),
        questions=tuple(f"q{j:0{len(str(n_questions - 1))}d}" for j in range(n_questions)),
        kind=scores,
        levels=levels if scores == "levels" else None,
        interaction=e,
    )
