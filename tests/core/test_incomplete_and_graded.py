"""Incomplete designs and graded scores in the closed form, each against an independent
computation: per-model fits on the answered questions alone, Beta posteriors written out by
hand, Monte Carlo draws, and the truth of the synthetic leaderboards."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from bayes_eval import Prior, bayes, bayes_ci
from bayes_eval import xr as bxr
from bayes_eval.inputs import fractional_tally, score_levels
from bayes_eval.logs.design import select_questions
from bayes_eval.logs.scored import graded_treatment
from bayes_eval.posteriors.intervals import mixture_moments
from bayes_eval.posteriors.posterior import DirichletPosterior, posterior
from bayes_eval.ranking.leaderboard import rank_table
from bayes_eval.synthetic.leaderboard import simulate_leaderboard


@pytest.fixture(scope="module")
def board():
    return simulate_leaderboard(
        9,
        80,
        n_trials=2,
        question_sets=(50, 80),
        subset_models=1,
        subset_size=20,
        missing=0.03,
        repeats=0.1,
        seed=7,
    )


# ------------------------------------------------------------------ generator


def test_generator_design_matches_its_description(board):
    answered = board.answered.sum(axis=1)
    assert answered.min() <= 20  # the subset model
    early = board.answered[:4, 50:]  # the first models arrived before questions 50..79
    assert not early.any()
    assert board.scores.shape == (9, 80, 3)  # 2 trials + a repeat
    assert np.isnan(board.scores[~board.answered]).all()
    assert np.allclose(board.true_mean, board.expected.mean(axis=1))
    frame = board.to_frame(trial=False)
    assert len(frame) == int((~np.isnan(board.scores)).sum())
    assert list(frame.columns) == ["model", "question", "score"]


@pytest.mark.parametrize("kind", ["binary", "graded", "levels"])
def test_generator_scores_have_the_true_expectation(kind):
    b = simulate_leaderboard(2, 4000, n_trials=3, scores=kind, levels=5, resolution=None, seed=1)
    s = np.nanmean(b.scores, axis=-1)
    err = s - b.expected  # mean 0 whatever the score kind; sd at most 0.5 / sqrt(3)
    assert np.abs(err.mean(axis=1)).max() < 4 * 0.29 / np.sqrt(4000)
    values = np.unique(b.scores[~np.isnan(b.scores)])
    if kind == "levels":
        assert set(values) <= set(np.linspace(0, 1, 5))
    if kind == "binary":
        assert set(values) <= {0.0, 1.0}


def test_generator_refuses_bad_settings():
    with pytest.raises(ValueError, match="question_sets"):
        simulate_leaderboard(4, 10, question_sets=(12, 10))
    with pytest.raises(ValueError, match=r"missing is 1\.0"):
        simulate_leaderboard(4, 10, missing=1.0)
    with pytest.raises(ValueError, match="scores is 'ordinal'"):
        simulate_leaderboard(4, 10, scores="ordinal")


# ------------------------------------------------------------------ question selection


def test_common_keeps_the_shared_questions_and_counts_the_dropped(board):
    R = board.to_dataarray()
    sel = select_questions(R, "common")
    shared = board.answered.all(axis=0)
    assert sel.kept == shared.sum() and sel.total == 80 and sel.complete
    assert list(sel.R["question"].values) == [
        q for q, k in zip(board.questions, shared, strict=True) if k
    ]
    for i, name in enumerate(board.models):
        assert sel.dropped[name] == board.answered[i].sum() - shared.sum()
        assert sel.answered[name] == board.answered[i].sum()
    assert not np.isnan(sel.R.values).all(axis=-1).any()  # every model on every kept question


def test_all_keeps_everything_and_error_names_the_choices(board):
    R = board.to_dataarray()
    sel = select_questions(R, "all")
    assert sel.R is R and not sel.complete and sel.kept == 80
    with pytest.raises(ValueError, match=r"Choose questions='common' .* or questions='all'"):
        select_questions(R, "error")
    with pytest.raises(ValueError, match=r"--questions common"):
        select_questions(R, "error", option="--questions")
    with pytest.raises(ValueError, match="expected one of"):
        select_questions(R, "some")


def test_common_without_shared_questions_is_refused():
    R = xr.DataArray([[[1.0], [np.nan]], [[np.nan], [0.0]]], dims=("model", "question", "trial"))
    with pytest.raises(ValueError, match="no question is answered by every") as err:
        select_questions(R, "common")
    assert "use questions='all'" in str(err.value)
    with pytest.raises(ValueError, match="use --questions all"):
        select_questions(R, "common", option="--questions")


def test_complete_design_passes_unchanged():
    R = xr.DataArray(np.ones((2, 3, 2)), dims=("model", "question", "trial"))
    for mode in ("error", "common", "all"):
        sel = select_questions(R, mode)
        assert sel.complete and sel.kept == 3 and sel.R.shape == (2, 3, 2)


# ------------------------------------------------------------------ answered_only


@pytest.mark.parametrize("prior", ["uniform", "empirical", "empirical-plugin"])
def test_answered_only_equals_each_model_fitted_on_its_own_questions(board, prior):
    # per model alone (pool="model"): the board-informed default shares what the board says
    R = board.scores
    pool = None if prior == "uniform" else "model"
    mu, sigma = bayes(R, prior=prior, pool=pool, mask=np.isnan(R), answered_only=True)
    for i in range(R.shape[0]):
        own = R[i, board.answered[i]]
        m_i, s_i = bayes(own, prior=prior, pool=pool, mask=np.isnan(own))
        # Newton's tolerance (1e-8) stops a joint fit of all models at a slightly different
        # point than a fit of one: the same to 1e-7 relative
        assert mu[i] == pytest.approx(m_i, rel=1e-7)
        assert sigma[i] == pytest.approx(s_i, rel=1e-7)


@pytest.mark.parametrize("prior", ["uniform", Prior("empirical", pool="model")])
def test_answered_only_exact_interval_equals_subset(board, prior):
    # the exact law of each model's own posterior (the joint posterior of the default prior
    # on a board has none)
    R = board.scores[:3]
    out = bayes_ci(R, mask=np.isnan(R), answered_only=True, interval="exact", prior=prior)
    for i in range(3):
        own = R[i, board.answered[i]]
        ref = bayes_ci(own, mask=np.isnan(own), interval="exact", prior=prior)
        assert (out.lo[i], out.hi[i]) == pytest.approx((ref.lo, ref.hi), abs=1e-12)


def test_unanswered_question_is_refused_without_answered_only(board):
    with pytest.raises(ValueError, match="no observed trial"):
        bayes(board.scores, mask=np.isnan(board.scores))


def test_rank_table_counts_questions_and_warns_nothing_on_complete(board):
    ds = rank_table(board.to_dataarray(), prior="uniform", skipna=True, answered_only=True)
    assert ds["questions"].values.tolist() == board.answered.sum(axis=1).tolist()


@pytest.mark.slow
def test_answered_only_empirical_prior_covers_the_truth():
    """Calibration on a Rasch truth with a model x question interaction (sd 1), not the
    prior's world: 90% intervals of the default (the joint posterior of the board) cover each
    model's true mean over its answered questions (20 leaderboards x 20 models; binomial sd of
    the rate 0.015, tolerance 3 sd). The uniform prior does not (about 22% measured), which is
    why the learned prior is the default. (Without any interaction, one trial per question
    cannot tell that the rates sit exactly on the Rasch curve: the board model's dispersion
    keeps its hyperprior and the 90% intervals cover 0.84-0.87, README.)"""
    hits = []
    for seed in range(20):
        b = simulate_leaderboard(
            20,
            200,
            question_sets=(150, 200),
            subset_models=2,
            subset_size=50,
            interaction_sd=1.0,
            seed=seed,
        )
        ds = bxr.bayes_ci(
            b.to_dataarray(),
            prior="empirical",
            skipna=True,
            answered_only=True,
            confidence=0.9,
        )
        t = b.true_mean_answered
        hits += list((ds.lo.values <= t) & (t <= ds.hi.values))
    assert abs(np.mean(hits) - 0.9) < 3 * np.sqrt(0.09 / len(hits))


# ------------------------------------------------------------------ learned-prior moments


def test_mixture_moments_from_distinct_count_vectors_equal_the_direct_sum(board):
    # each model's own learned prior (on a board the default's numbers are the joint posterior)
    R = board.scores
    post = posterior(
        R, prior=Prior("empirical", pool="model"), mask=np.isnan(R), answered_only=True
    )
    direct = DirichletPosterior(post.nu, post.w, None, post.answered).moments()
    want = mixture_moments(direct.mu, direct.sigma, post.weights)
    got = post.moments()
    np.testing.assert_allclose(got.mu, want[0], rtol=1e-12)
    np.testing.assert_allclose(got.sigma, want[1], rtol=1e-12)


# ------------------------------------------------------------------ graded scores


def test_fractional_counts_give_the_beta_posterior_by_hand():
    S = np.array([[0.2, 0.6], [1.0, np.nan], [0.0, 0.25]])
    # question 1: Beta(1 + 0.8, 1 + 1.2); question 2: Beta(2, 1); question 3: Beta(1.25, 2.75)
    betas = [(1.8, 2.2), (2.0, 1.0), (1.25, 2.75)]
    means = [a / (a + b) for a, b in betas]
    variances = [a * b / ((a + b) ** 2 * (a + b + 1)) for a, b in betas]
    mu, sigma = bayes(S, fractional=True, mask=np.isnan(S), prior="uniform")
    assert mu == pytest.approx(np.mean(means), rel=1e-12)
    assert sigma == pytest.approx(np.sqrt(np.sum(variances)) / 3, rel=1e-12)
    t = fractional_tally(S)
    np.testing.assert_allclose(t.counts[1], [0.0, 1.0])
    assert t.n_trials.tolist() == [2, 1, 2]


def test_fractional_on_binary_scores_is_the_categorical_closed_form():
    rng = np.random.default_rng(3)
    R = (rng.random((3, 12, 4)) < 0.6).astype(float)
    # each model's own prior: on whole binary counts the default reads the models as a board
    for prior in ("uniform", Prior("empirical", pool="model")):
        a = bayes(R, fractional=True, prior=prior)
        b = bayes(R.astype(int), prior=prior)
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_fractional_sigma_agrees_with_monte_carlo():
    rng = np.random.default_rng(4)
    S = np.round(rng.random((15, 3)), 2)
    mu, sigma = bayes(S, fractional=True, prior="uniform")
    n = float(posterior(S, fractional=True, prior="uniform").grade_trials)  # trials per grade
    a = 1 + n * S.sum(axis=1)
    b = 1 + n * (1 - S).sum(axis=1)
    draws = rng.beta(a, b, size=(200_000, 15)).mean(axis=1)
    assert abs(draws.mean() - mu) < 4 * sigma / np.sqrt(200_000)
    assert draws.std() == pytest.approx(sigma, rel=0.01)  # sd of a sd estimate ~ 0.16%


def test_fractional_refuses_scores_outside_unit_interval_and_rubric_weights():
    with pytest.raises(ValueError, match=r"contain 1.5 at index \(0, 1\)"):
        bayes([[0.5, 1.5]], fractional=True)
    with pytest.raises(ValueError, match="leave w out"):
        bayes([[0.5, 1.0]], [0, 0.5, 1], fractional=True)


def test_score_levels_round_and_weigh():
    R, w, shift = score_levels(np.array([[0.0, 0.1, 0.13, 0.5, np.nan, 1.0]]), 5)
    assert R[0, :4].tolist() == [0, 0, 1, 2] and np.isnan(R[0, 4]) and R[0, 5] == 4
    assert w.tolist() == [0, 0.25, 0.5, 0.75, 1] and shift == pytest.approx(0.12)
    on_grid = score_levels(np.array([[0.25, 0.75]]), 5)
    assert on_grid.max_shift == 0.0
    with pytest.raises(ValueError, match="expected an integer K >= 2"):
        score_levels([[0.5]], 1)


def _graded_da(values):
    return xr.DataArray(
        np.asarray(values, float)[None, :, None], dims=("model", "question", "trial")
    )


def test_graded_scores_need_a_treatment_with_an_explanation():
    R = _graded_da([0.35, 0.5, 1.0, 0.0])
    with pytest.raises(
        ValueError,
        match=r"graded \(4 distinct values.*pseudo-counts.*--score-levels K.*--fractional",
    ):
        graded_treatment(R, None)
    with pytest.raises(ValueError, match="both chosen"):
        graded_treatment(R, None, score_levels=3, fractional=True)
    with pytest.raises(ValueError, match="leave them out"):
        graded_treatment(R, [0, 1], fractional=True)
    levels, w, _, info = graded_treatment(R, None, score_levels=3)
    assert w == [0.0, 0.5, 1.0] and info["treatment"] == "levels"
    assert levels.values.ravel().tolist() == [1.0, 1.0, 2.0, 0.0]
    same, w, _, info = graded_treatment(R, None, fractional=True)
    assert same is R and w is None and info == {"treatment": "fractional", "distinct": 4}


def test_categories_refuse_graded_treatments():
    R = _graded_da([0, 1, 2, 1])
    with pytest.raises(ValueError, match="not graded scores"):
        graded_treatment(R, [0, 0.5, 1], score_levels=3)
    with pytest.raises(ValueError, match="fractional counts apply to scores in"):
        graded_treatment(R, [0, 0.5, 1], fractional=True)
    assert graded_treatment(R, [0, 0.5, 1])[3] is None


def test_levels_of_a_graded_leaderboard_match_the_rubric_closed_form():
    b = simulate_leaderboard(4, 30, n_trials=2, scores="levels", levels=5, seed=2)
    R, w, _, _ = graded_treatment(b.to_dataarray(), None, score_levels=5)
    ds = bxr.bayes_ci(R, w, prior="uniform")
    ref = bayes_ci((b.scores * 4).round().astype(int), np.linspace(0, 1, 5), prior="uniform")
    np.testing.assert_allclose(ds["mu"].values, ref.mu, rtol=1e-12)


@pytest.mark.slow
def test_fractional_quasi_likelihood_is_honest_on_graded_truth():
    """Graded scores vary less than Bernoulli ones (Beta(8 p, 8 (1 - p)) with 30%
    all-or-nothing grades: 0.38 of a Bernoulli's variance); counted as the trials their
    spread shows (the board's dispersion), the posterior sd matches the error: z-scores
    against the truth have sd near 1 (counted as one trial each they had sd 0.55 and the 90%
    intervals covered 0.995)."""
    zs = []
    for seed in range(6):
        b = simulate_leaderboard(20, 200, scores="graded", seed=seed)
        ds = bxr.bayes_ci(b.to_dataarray(), prior="empirical", fractional=True, skipna=True)
        zs += list((ds["mu"].values - b.true_mean) / ds["sigma"].values)
    assert abs(np.mean(zs)) < 0.3 and 0.8 < np.std(zs) < 1.25


@pytest.mark.parametrize("fractional", [False, True])
def test_large_leaderboard_moments_in_blocks_equal_the_direct_ones(board, monkeypatch, fractional):
    import bayes_eval.posteriors.posterior as dirichlet

    R = board.scores if not fractional else np.round(np.where(board.scores > 0.5, 0.7, 0.2), 1)
    post = posterior(R, mask=np.isnan(R), answered_only=True, fractional=fractional)
    direct = post.moments()
    monkeypatch.setattr(dirichlet, "_BLOCK_CELLS", 10)  # large: one model per block
    grouped = post.moments()
    np.testing.assert_allclose(grouped.mu, direct.mu, rtol=1e-12)
    np.testing.assert_allclose(grouped.sigma, direct.sigma, rtol=1e-12)


def test_unique_rows_is_lexicographic_with_inverse_and_counts():
    from bayes_eval.inputs import unique_rows

    a = np.array([[1.0, 0.5], [0.0, 2.0], [1.0, 0.5], [-0.0, 2.0], [0.0, 1.0]])
    rows, inverse, counts = unique_rows(a)
    assert rows.tolist() == [[0.0, 1.0], [0.0, 2.0], [1.0, 0.5]]
    assert counts.tolist() == [1, 2, 2]
    np.testing.assert_array_equal(rows[inverse], a)


def test_generator_observes_given_expected_scores():
    # real rates in place of the Rasch truth: graded scores around them, nothing of the
    # Rasch truth drawn (NaN), and the true means the rates' own
    rng = np.random.default_rng(6)
    p = rng.choice([0.0, 0.25, 0.5, 1.0], (3, 4000))
    b = simulate_leaderboard(
        3, 4000, n_trials=2, scores="graded", inflation=0.0, expected=p, seed=2
    )
    np.testing.assert_array_equal(b.expected, p)
    np.testing.assert_array_equal(b.true_mean, p.mean(axis=1))
    assert np.isnan(b.theta).all() and np.isnan(b.difficulty).all()
    assert np.isnan(b.interaction).all()
    # grades average to their rate (rates 0 and 1: Beta(0.001, 8) draws, mean 1.2e-4; the
    # others' sd of the mean ~ 0.003)
    s = b.scores
    assert s[p == 0.0].mean() < 1e-3 and s[p == 1.0].mean() > 1 - 1e-3
    assert abs(s[p == 0.25].mean() - 0.25) < 0.01 and abs(s[p == 0.5].mean() - 0.5) < 0.01
    assert not np.isin(s[p == 0.5], (0.0, 1.0)).all()  # Beta draws, not Bernoulli ones


def test_generator_refuses_bad_expected_scores():
    with pytest.raises(ValueError, match=r"expected has shape \(2, 4\); expected \(2, 5\)"):
        simulate_leaderboard(2, 5, expected=np.full((2, 4), 0.5))
    with pytest.raises(ValueError, match=r"outside \[0, 1\] or NaN"):
        simulate_leaderboard(2, 2, expected=[[0.5, np.nan], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"interaction_sd is 0.5 beside expected; expected its"):
        simulate_leaderboard(2, 2, expected=np.full((2, 2), 0.5), interaction_sd=0.5)
    with pytest.raises(ValueError, match=r"difficulty_sd is 3.0 beside expected; expected its"):
        simulate_leaderboard(2, 2, expected=np.full((2, 2), 0.5), difficulty_sd=3.0)
