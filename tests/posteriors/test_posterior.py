"""The posterior object against independent computations.

Its answers (moments, intervals, P(better), draws, the Pass family, the DataTree, selection)
are checked against the scorio-named wrappers it replaces (identical numbers), against Monte
Carlo of the model written out here with numpy (Gamma draws per question, a node per draw
for a learned prior), and against the Gaussian formula of Hariri et al., §2.5. Monte Carlo
tolerances are 5 standard errors of the estimate (stated at each check).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtr

import bayes_eval as be
from bayes_eval.posteriors.posterior import (
    JOINT_PRIOR,
    NEW_QUESTIONS,
    THESE_QUESTIONS,
    Posterior,
)
from bayes_eval.posteriors.priors import Prior

RNG = np.random.default_rng(20261126)


def _board(n_models=3, m=12, n=4, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.6, 0.5, size=(n_models, m, 1)) * np.linspace(0.7, 1.0, n_models)[:, None, None]
    return (rng.random((n_models, m, n)) < p).astype(int)


def _mc_pibar(post: Posterior, n: int, rng) -> np.ndarray:
    """Draws of pi-bar written out independently of the package: a node per draw (per model,
    or shared by a pooled prior) by its weight, then Gamma draws per question."""
    nodes, wts = post.fitted.nodes, post.weights.reshape(post.n_nodes, -1)
    data = post.data.reshape(-1, *post.data.shape[-2:])
    L = data.shape[0]
    shared = nodes.shape[1] == 1
    if shared:
        j = rng.choice(nodes.shape[0], p=wts[:, 0] / wts[:, 0].sum(), size=n)
        j = np.repeat(j[:, None], L, axis=1)
    else:
        j = np.stack(
            [rng.choice(nodes.shape[0], p=wts[:, i] / wts[:, i].sum(), size=n) for i in range(L)],
            axis=1,
        )
    g = np.arange(L) if nodes.shape[1] > 1 else np.zeros(L, int)
    nu = data[None] + nodes[j, g[None, :]][:, :, None, :]
    x = rng.standard_gamma(nu)
    pi = x / x.sum(-1, keepdims=True)
    return (pi @ post.w).mean(-1)  # (n, L)


# ---------------------------------------------------------------- the wrappers are thin


@pytest.mark.parametrize("prior", ["uniform", "jeffreys", 0.3, "empirical", "empirical-plugin"])
def test_wrappers_give_the_posteriors_numbers(prior):
    R = _board()
    w = None
    post = be.posterior(R, w, prior=prior)
    # the wrappers sum integer statistics in one pass (bayes_eval.posteriors.onepass), the
    # posterior its per-question terms: the same closed form, equal to rounding
    mu, sigma = be.bayes(R, prior=prior)
    np.testing.assert_allclose(post.mean, mu, rtol=1e-14)
    np.testing.assert_allclose(post.sd, sigma, rtol=1e-14)
    lo, hi = post.interval(0.9)
    ref = be.bayes_ci(R, confidence=0.9, prior=prior)
    np.testing.assert_allclose([lo, hi], [ref.lo, ref.hi], rtol=1e-14)
    assert post.estimand == THESE_QUESTIONS
    assert post.prior.label == Prior.parse(prior).label


@pytest.mark.parametrize(
    "prior",
    # the learned prior's exact interval inverts a mixture of ~40 exact laws: seconds per model
    # (each model's own learned prior: the joint posterior of a board has no exact law)
    [
        "jeffreys",
        pytest.param(
            Prior.parse("empirical", pool="model"), marks=pytest.mark.slow, id="empirical"
        ),
    ],
)
def test_exact_interval_matches_bayes_ci_and_lies_in_the_support(prior):
    R = _board(2, 6, 2, seed=1)
    post = be.posterior(R, prior=prior)
    lo, hi = post.interval(kind="exact")
    ref = be.bayes_ci(R, prior=prior, interval="exact")
    np.testing.assert_allclose([lo, hi], [ref.lo, ref.hi], rtol=0, atol=0)
    assert np.all((0 <= lo) & (lo < hi) & (hi <= 1))


def test_a_board_has_no_exact_interval():
    # the joint posterior's intervals are its marginals; the exact law is each model's own
    R = _board(2, 6, 2, seed=1)
    board = be.posterior(R)
    assert board.has_board
    with pytest.raises(ValueError, match=r"no exact law.*closed_form"):
        board.interval(kind="exact")
    with pytest.raises(ValueError, match="no exact law"):
        be.bayes_ci(R, interval="exact")
    assert not board.closed_form.has_board
    assert board.closed_form.prior.label == Prior.parse("empirical", pool="board").label
    # the closed form is the per-model path with the board-informed prior (whole binary
    # counts read fractionally take that path and give the same counts)
    own = be.posterior(R.astype(float), prior=board.closed_form.prior, fractional=True)
    assert not own.has_board
    np.testing.assert_allclose(board.closed_form.mean, own.mean, rtol=1e-12)


def test_moments_and_prob_better_are_computed_once():
    post = be.posterior(_board(), prior="empirical")
    first = post.node_moments
    assert post.node_moments is first  # cached, not recomputed
    post.interval(kind="normal")
    assert ("interval", 0.95, "normal") in post._cache


# ---------------------------------------------------------------- P(better)


@pytest.mark.parametrize(
    "prior", ["uniform", Prior.parse("empirical", pool="model")], ids=["fixed", "learned"]
)
def test_prob_better_normal_is_phi_of_z_for_independent_posteriors(prior):
    # each model's own prior: the posteriors are independent and the default method is §2.5's
    R = _board()
    post = be.posterior(R, prior=prior)
    assert not post.has_board and post.prob_method() == "normal"
    mu, sd = post.mean, post.sd
    z = (mu[:, None] - mu[None]) / np.sqrt(sd[:, None] ** 2 + sd[None] ** 2)
    np.testing.assert_allclose(post.prob_better(), ndtr(z), atol=1e-15)
    m = post.prob_better()
    np.testing.assert_allclose(m + m.T, 1.0)
    assert np.all(np.diag(m) == 0.5)


def test_prob_better_on_a_board_is_phi_of_the_joint_difference():
    # the default prior on a board: P = Phi(E[D] / sd[D]) with D's variance from the joint
    # covariance (the shared questions make the models dependent)
    post = be.posterior(_board())
    assert post.has_board and post.prob_method() == "board"
    mu, cov = post.joint.mean, post.joint.cov
    np.testing.assert_allclose(post.mean, mu, rtol=1e-14)
    var_d = np.diag(cov)[:, None] + np.diag(cov)[None] - 2 * cov
    off = ~np.eye(mu.size, dtype=bool)
    z = (mu[:, None] - mu[None])[off] / np.sqrt(var_d[off])
    m = post.prob_better()
    np.testing.assert_allclose(m[off], ndtr(z), atol=1e-12)
    np.testing.assert_allclose(m + m.T, 1.0)
    assert np.all(np.diag(m) == 0.5)
    # the larger mean has P >= 1/2
    assert np.all((m >= 0.5) == (mu[:, None] >= mu[None]))


@pytest.mark.parametrize(
    "prior, draws",
    [
        ("uniform", 100_000),
        # each model's own learned prior (on a board the default is the joint posterior)
        pytest.param(Prior.parse("empirical", pool="model"), 400_000, marks=pytest.mark.slow),
        pytest.param(Prior.parse("empirical", pool="benchmark"), 400_000, marks=pytest.mark.slow),
    ],
    ids=["fixed", "learned-per-model", "learned-pooled"],
)
@pytest.mark.slow
def test_prob_better_against_monte_carlo(prior, draws):
    # n draws: the s.e. of a probability is at most 0.5/sqrt(n); exact within 5 s.e. + the
    # lattice accuracy (2e-3); the normal method within 0.03 of the truth (an approximation)
    R = _board(3, 15, 4, seed=2)
    post = be.posterior(R, prior=prior)
    x = _mc_pibar(post, draws, np.random.default_rng(3))
    mc = (x[:, :, None] > x[:, None, :]).mean(0)
    exact = post.prob_better(method="exact")
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(exact[off], mc[off], atol=5 * 0.5 / np.sqrt(draws) + 2e-3)
    np.testing.assert_allclose(post.prob_better()[off], mc[off], atol=0.03)


@pytest.mark.slow  # about 2 s: the quick tier stays under a minute
def test_exact_prob_better_of_a_learned_prior_is_a_proper_probability():
    # the fast check of the mixture paths (Monte Carlo above, slow): complementary, in [0, 1],
    # close to the normal approximation
    R = _board(2, 6, 2, seed=21)
    for prior in ("empirical", Prior.parse("empirical", pool="benchmark")):
        post = be.posterior(R, prior=prior)
        e = post.prob_better(method="exact")
        assert e[0, 1] + e[1, 0] == pytest.approx(1.0, abs=1e-9) and 0 < e[0, 1] < 1
        assert e[0, 1] == pytest.approx(post.prob_better(method="normal")[0, 1], abs=0.03)


@pytest.mark.slow
def test_pooled_prior_comparison_includes_the_shared_nodes_covariance():
    # models sharing a learned prior are dependent through it: the difference's variance is
    # below the sum of the marginal variances, and the normal P uses the former
    R = _board(2, 6, 2, seed=4)
    post = be.posterior(R, prior=Prior.parse("empirical", pool="benchmark"))
    assert post.shared_nodes
    draws = _mc_pibar(post, 300_000, np.random.default_rng(5))
    d = draws[:, 0] - draws[:, 1]
    var_marginal = draws.var(0).sum()
    assert d.var() < var_marginal
    mean = d.mean()
    expected = ndtr(mean / d.std())
    # same Gaussian of the difference, up to Monte Carlo error of its moments (~1e-3)
    assert post.prob_better()[0, 1] == pytest.approx(expected, abs=5e-3)


def test_prob_better_between_two_posteriors_and_errors():
    R = _board(2, 12, 4, seed=6)
    # a fixed prior: two posteriors built apart are the batch's two models
    a, b = be.posterior(R[0], prior="uniform"), be.posterior(R[1], prior="uniform")
    both = be.posterior(R, prior="uniform")
    assert a.prob_better(b) == pytest.approx(both.prob_better()[0, 1], abs=1e-14)
    assert a.prob_better(b, method="exact") == pytest.approx(
        both.prob_better(method="exact")[0, 1], abs=1e-9
    )
    # the default prior: a model alone has its own learned prior (method "normal"); the batch
    # is a board (its P from the joint posterior), whose "normal" method asks each model's own
    # closed form: Phi of their z (the paper's rho, §2.5)
    a, b = be.posterior(R[0]), be.posterior(R[1])
    board = be.posterior(R)
    assert a.prob_method() == "normal" and board.prob_method() == "board"
    mu, sd = board.closed_form.mean, board.closed_form.sd
    z = (mu[0] - mu[1]) / np.hypot(sd[0], sd[1])
    assert board.prob_better(method="normal")[0, 1] == pytest.approx(ndtr(z), rel=1e-12)
    za = (a.mean - b.mean) / np.hypot(a.sd, b.sd)
    assert a.prob_better(b) == pytest.approx(ndtr(za), rel=1e-12)
    assert board[0].prob_better(board[1]) == board.prob_better()[0, 1]  # one board
    with pytest.raises(ValueError, match="needs the joint posterior of a board"):
        a.prob_better(b, method="board")
    with pytest.raises(ValueError, match="one model"):
        a.prob_better()
    with pytest.raises(ValueError, match="expected a Posterior"):
        a.prob_better(R[1])
    with pytest.raises(ValueError, match="same rubric"):
        a.prob_better(be.posterior(np.array([[0, 2], [1, 2]]), [0, 0.5, 1]))
    with pytest.raises(ValueError, match="method is 'bayes'"):
        both.prob_better(method="bayes")


# ---------------------------------------------------------------- draws and selection


@pytest.mark.parametrize("prior", ["uniform", "empirical"])
def test_draws_have_the_posterior_moments(prior):
    # 5e4 draws: s.e. of the mean sd/224, of the sd about sd/316; 5 s.e.
    # (the learned prior on this board: draws of the joint posterior)
    post = be.posterior(_board(2, 10, 3, seed=7), prior=prior)
    assert post.has_board == (prior == "empirical")
    x = post.draws(50_000, rng=8)
    assert x.shape == (50_000, 2)
    np.testing.assert_allclose(x.mean(0), post.mean, atol=5 * post.sd.max() / 224)
    np.testing.assert_allclose(x.std(0), post.sd, rtol=5 / 316)
    np.testing.assert_array_equal(post.draws(5, rng=1), post.draws(5, rng=1))  # seeded
    # per-question draws: each model's own posterior (the joint draws pi-bar only)
    own = post.closed_form
    if post.has_board:
        with pytest.raises(ValueError, match="draws pi-bar only"):
            post.draws(3, rng=1, include_pi=True)
    bar, pi = own.draws(3, rng=1, include_pi=True)
    assert pi.shape == (3, 2, 10, 2)
    np.testing.assert_allclose(bar, (pi @ own.w).mean(-1))


def test_selecting_models_keeps_each_models_posterior():
    R = _board(4, 10, 3, seed=9)
    # the default on a board: a selected model keeps its numbers of the board's joint posterior
    board = be.posterior(R, prior="empirical", models=list("abcd"))
    assert board["c"].mean == pytest.approx(board.mean[2], rel=1e-12)
    # per model alone: a selected model is the model fitted alone
    post = be.posterior(R, prior=Prior.parse("empirical", pool="model"), models=list("abcd"))
    one = post["c"]
    assert not one.batched and one.mean == pytest.approx(post.mean[2], rel=1e-12)
    alone = be.posterior(R[2], prior=Prior.parse("empirical", pool="model"))
    assert one.mean == pytest.approx(alone.mean, rel=1e-9)
    two = post[["d", "a"]]
    assert two.models == ("d", "a")
    np.testing.assert_allclose(two.prob_better()[0, 1], post.prob_better()[3, 0])
    with pytest.raises(ValueError, match="not one of"):
        post["z"]


def test_posterior_does_not_mutate_its_input_and_is_immutable():
    R = _board()
    R0 = _board(seed=11)[:, :, :2]
    keep, keep0 = R.copy(), R0.copy()
    prior = Prior.parse("uniform", runs=R0, discount=0.5)
    post = be.posterior(R, prior=prior)
    np.testing.assert_array_equal(R, keep)
    np.testing.assert_array_equal(R0, keep0)
    assert not prior.runs.flags.writeable
    R0[:] = 0  # the prior holds its own copy
    assert be.posterior(R, prior=prior).mean == pytest.approx(post.mean)
    with pytest.raises(AttributeError):
        post.w = np.zeros(2)  # type: ignore[misc]


def test_discounted_earlier_runs_are_a_power_prior():
    R = _board(1, 8, 4, seed=12)[0]
    R0 = _board(1, 8, 6, seed=13)[0]
    post = be.posterior(R, prior=Prior.parse("uniform", runs=R0, discount=0.25))
    n = np.stack([(R == 0).sum(1), (R == 1).sum(1)], -1)
    n0 = np.stack([(R0 == 0).sum(1), (R0 == 1).sum(1)], -1)
    nu = 1.0 + 0.25 * n0 + n
    p = nu[:, 1] / nu.sum(1)
    assert post.mean == pytest.approx(p.mean(), rel=1e-12)
    var = (p * (1 - p) / (nu.sum(1) + 1)).sum() / 64
    assert post.sd == pytest.approx(np.sqrt(var), rel=1e-12)
    assert post.prior.label == "uniform + earlier runs (discount 0.25)"


# ---------------------------------------------------------------- Pass family, DataTree


@pytest.mark.slow
def test_pass_family_is_the_wrappers_and_refuses_non_binary():
    R = _board()
    post = be.posterior(R, prior="empirical")
    np.testing.assert_array_equal(post.pass_at_k(2), be.pass_at_k_ci(R, 2, prior="empirical"))
    np.testing.assert_array_equal(
        be.posterior(R).g_pass_at_k_tau(4, 0.5, interval="exact"),
        be.g_pass_at_k_tau_ci(R, 4, 0.5, interval="exact"),
    )
    with pytest.raises(ValueError, match="binary"):
        be.posterior(np.array([[0, 2], [1, 2]]), [0, 0.5, 1]).pass_at_k(1)
    with pytest.raises(ValueError, match="needs tau"):
        post.pass_metric("g_pass_at_k_tau", 2)


def test_to_datatree_names_prior_and_estimand():
    post = be.posterior(_board(), prior="uniform", models=["x", "y", "z"])
    dt = post.to_datatree(draws=50, chains=2, seed=1, include_pi=True)
    assert dt.attrs["prior"] == "uniform" and dt.attrs["estimand"] == THESE_QUESTIONS
    assert dt["posterior"]["pi_bar"].dims == ("chain", "draw", "model")
    assert list(dt["posterior"]["model"].values) == ["x", "y", "z"]
    assert "prior" in dt.children
    learned = be.posterior(_board(), prior="empirical").to_datatree(draws=10, chains=1)
    assert "prior" not in learned.children


def test_estimands_are_named():
    assert THESE_QUESTIONS == "these questions" and NEW_QUESTIONS == "new questions"
    post = be.posterior(_board(), prior="uniform", models=["x", "y", "z"])
    doc = post.to_dict(0.9)
    assert doc["prior"] == "uniform" and doc["estimand"] == THESE_QUESTIONS
    assert doc["confidence"] == 0.9 and doc["models"] == ["x", "y", "z"]
    np.testing.assert_allclose([doc["lo"], doc["hi"]], post.interval(0.9))
    frame = post.summary(0.9)
    assert frame.attrs == {"prior": "uniform", "estimand": THESE_QUESTIONS, "confidence": 0.9}
    assert list(frame.columns) == ["mean", "sd", "lo", "hi", "interval"]
    assert frame.index.name == "model" and list(frame.index) == ["x", "y", "z"]
    np.testing.assert_allclose(frame["mean"], post.mean)
    np.testing.assert_allclose(frame["sd"], post.sd)
    np.testing.assert_allclose(frame["lo"], doc["lo"])
    assert list(frame["interval"]) == doc["interval_kind"]
    # the default on a board: the numbers (and the prior named) are the joint posterior's
    board = be.posterior(_board())
    frame = board.summary(0.9)
    assert frame.attrs["prior"] == board.prior_label == JOINT_PRIOR
    assert board.to_dict(0.9)["prior"] == JOINT_PRIOR
    assert (frame["interval"] == "joint").all()
    assert "these questions" in repr(board) and JOINT_PRIOR in repr(board)


# ---------------------------------------------------------------- the prior value


def test_prior_parse_and_label():
    assert Prior.parse(None) is Prior.parse("empirical")  # the one default
    assert Prior.parse(1.0).kind == "uniform" and Prior.parse(0.5).kind == "jeffreys"
    assert Prior.parse([0.5, 2]).label == "Dirichlet(0.5, 2)"
    assert Prior.parse([1, 1]).label == "uniform"
    assert Prior.parse("empirical").label == "empirical (per model, board-informed, integrated)"
    pooled = Prior.parse("empirical-plugin", pool="benchmark", source="r0.csv", discount=0.5)
    assert (
        pooled.label
        == "empirical (benchmark-pooled, plug-in) + earlier runs (r0.csv, discount 0.5)"
    )
    assert pooled.to_dict() == {
        "label": pooled.label,
        "kind": "empirical-plugin",
        "pool": "benchmark",
        "earlier_runs": "r0.csv",
        "discount": 0.5,
    }
    p = Prior.parse("empirical")
    assert Prior.parse(p) is p


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: Prior.parse("flat"), "expected one of"),
        (lambda: Prior.parse(-1.0), "finite values > 0"),
        (lambda: Prior.parse([[1, 2]]), "positive number or a vector"),
        (lambda: Prior.parse("uniform", pool="benchmark"), "learned priors"),
        (
            lambda: Prior.parse("empirical", pool="all"),
            r"expected one of \['board', 'model', 'benchmark'\]",
        ),
        (lambda: Prior.parse("uniform", discount=0), r"in \(0, 1\]"),
        (lambda: Prior.parse("uniform", discount=True), r"in \(0, 1\]"),
        (lambda: Prior(kind="fixed"), "alpha is given exactly"),
        (lambda: be.posterior(np.array([[0, 1]]), prior=[1, 1, 1]), "C \\+ 1 = 2"),
    ],
)
def test_prior_errors_are_clear(call, match):
    with pytest.raises(ValueError, match=match):
        call()
