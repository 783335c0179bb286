"""Paired comparisons against independent computations: the Beta formula written out, Monte
Carlo of the joint Dirichlet (binary, N trials, graded scores), Monte Carlo of independent
posteriors, and the symmetry P(A > B) + P(B > A) = 1."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayes_eval.ranking.paired import compare_pairs, paired_probability, question_scores

MC = 400_000
#: 4 Monte Carlo standard errors of a probability estimated from MC draws (worst case p=1/2)
TOL = 4 * 0.5 / np.sqrt(MC)


def _binary(seed=1, models=4, questions=40):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, questions)
    shift = np.linspace(-0.1, 0.1, models)[:, None, None]
    return (rng.random((models, questions, 1)) < np.clip(p[None, :, None] + shift, 0, 1)).astype(
        float
    )


def test_binary_single_trial_is_the_beta_formula():
    R = _binary()
    pc = compare_pairs(R, prior="uniform")
    x = R[..., 0]
    for i in range(4):
        for j in range(4):
            if i != j:
                n_a = np.sum(x[i] * (1 - x[j]))
                n_b = np.sum((1 - x[i]) * x[j])
                want = stats.beta(1 + n_a, 1 + n_b).sf(0.5)
                assert pc.paired[i, j] == pytest.approx(want, abs=1e-12)
    assert pc.method == {"independent": "exact", "paired": "exact"}
    assert np.isnan(np.diag(pc.paired)).all() and np.isnan(np.diag(pc.independent)).all()


def test_paired_agrees_with_monte_carlo_of_the_joint_dirichlet():
    R = _binary(seed=5)
    rng = np.random.default_rng(0)
    pc = compare_pairs(R, prior="uniform")
    a, b = R[0, :, 0], R[2, :, 0]
    n = [np.sum(a * b), np.sum(a * (1 - b)), np.sum((1 - a) * b), np.sum((1 - a) * (1 - b))]
    g = rng.dirichlet(1 + np.array(n), MC)
    assert pc.paired[0, 2] == pytest.approx(np.mean(g[:, 1] > g[:, 2]), abs=TOL)


def test_independent_binary_agrees_with_monte_carlo_of_two_betas():
    R = _binary(seed=6)
    rng = np.random.default_rng(1)
    pc = compare_pairs(R, prior="uniform")
    k = R[..., 0].sum(axis=1)
    draws = rng.beta(1 + k, 1 + 40 - k, size=(MC, 4))
    for i, j in [(0, 1), (1, 3), (3, 0)]:
        assert pc.independent[i, j] == pytest.approx(np.mean(draws[:, i] > draws[:, j]), abs=TOL)


def _bootstrap_mc(values, rng, prior_corners):
    """P(sum v pi_v > 0) for pi ~ Dir(1 per question + corner masses), by drawing."""
    vals = np.concatenate([values, list(prior_corners)])
    g = rng.standard_gamma(np.ones(vals.size), size=(MC // 4, vals.size))
    return np.mean(g @ vals > 0)


@pytest.mark.parametrize("kind", ["trials", "graded"])
def test_n_trials_and_graded_agree_with_monte_carlo(kind):
    rng = np.random.default_rng(2)
    p = rng.beta(0.8, 0.8, 25)
    if kind == "trials":
        R = rng.random((3, 25, 4)) < np.clip(p[None, :, None] + [[[0]], [[0.1]], [[-0.05]]], 0, 1)
        R, frac = R.astype(float), False
    else:
        a, b = 2 * p[None, :, None] + 0.1, 2 * (1 - p[None, :, None]) + 0.1
        R, frac = np.round(rng.beta(a, b, size=(3, 25, 1)), 2), True
    pc = compare_pairs(R, prior="uniform", fractional=frac)
    s = question_scores(R, fractional=frac)
    d = s[1] - s[0]
    assert pc.paired[1, 0] == pytest.approx(_bootstrap_mc(d, rng, (1.0, -1.0)), abs=2 * TOL)
    assert pc.paired[1, 0] + pc.paired[0, 1] == pytest.approx(1.0, abs=1e-9)
    # independent: each model's Dirichlet over its own scores plus corners 0 and 1
    th = []
    for i in (0, 1):
        v = np.concatenate([s[i], [0.0, 1.0]])
        th.append(rng.dirichlet(np.ones(v.size), MC // 4) @ v)
    assert pc.independent[1, 0] == pytest.approx(np.mean(th[1] > th[0]), abs=2 * TOL)


def test_paired_is_sharper_than_independent_when_questions_drive_the_scores():
    """Two models with nearly the same per-question success: the paired comparison sees the
    small, consistent difference; the independent one drowns it in question variance."""
    rng = np.random.default_rng(8)
    p = rng.beta(0.5, 0.5, 300)
    R = np.stack([(rng.random((300, 1)) < np.clip(p + dp, 0, 1)[:, None]) for dp in (0.04, 0.0)])
    pc = compare_pairs(R.astype(float), prior="uniform")
    assert pc.paired[0, 1] > pc.independent[0, 1] > 0.5


def test_normal_approximation_beyond_exact_levels_is_close():
    rng = np.random.default_rng(3)
    R = np.round(rng.random((2, 120, 1)), 3)
    exact = compare_pairs(R, fractional=True, prior="uniform")
    approx = compare_pairs(R, fractional=True, prior="uniform", exact_levels=4)
    assert exact.method == {"independent": "exact", "paired": "exact"}
    assert approx.method == {"independent": "normal", "paired": "normal"}
    np.testing.assert_allclose(approx.paired, exact.paired, atol=0.01)
    np.testing.assert_allclose(approx.independent, exact.independent, atol=0.01)


@pytest.mark.parametrize("prior", ["jeffreys", "empirical", "empirical-plugin", 2.0])
def test_priors_keep_the_matrices_complementary(prior):
    R = _binary(seed=9, models=5)
    pc = compare_pairs(R, prior=prior)
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_allclose((pc.paired + pc.paired.T)[off], 1.0, atol=1e-9)
    np.testing.assert_allclose((pc.independent + pc.independent.T)[off], 1.0, atol=1e-6)
    if prior == 2.0:  # a fixed Dirichlet(2, 2, 2, 2): Beta(2 + n_A, 2 + n_B)
        x = R[..., 0]
        n_a, n_b = np.sum(x[0] * (1 - x[1])), np.sum((1 - x[0]) * x[1])
        assert pc.paired[0, 1] == pytest.approx(stats.beta(2 + n_a, 2 + n_b).sf(0.5), abs=1e-12)
    if isinstance(prior, str) and prior.startswith("empirical"):
        assert "split of discordant questions" in pc.prior


def test_learned_split_prior_against_a_fine_quadrature():
    # the learned paired prior (binary, one trial): Beta(k/2, k/2) on the split of the
    # discordant questions, log k ~ N(log 5, 1.5^2), k learned from every pair's (only A,
    # only B) counts. Reference: the hyperposterior on a 4001-point grid in log k (trapezoid
    # rule) and scipy's Beta survival function; the product uses 97 nodes: agreement 1e-6
    from scipy.special import betaln, logsumexp

    R = _binary(seed=9, models=5)
    pc = compare_pairs(R, prior="empirical")
    x = R[..., 0]
    i, j = np.triu_indices(5, 1)
    n_a = ((x[i] == 1) & (x[j] == 0)).sum(1)
    n_b = ((x[i] == 0) & (x[j] == 1)).sum(1)
    log_k = np.linspace(np.log(5) - 8 * 1.5, np.log(5) + 8 * 1.5, 4001)
    h = np.exp(log_k)[:, None] / 2
    log_w = stats.norm.logpdf(log_k, np.log(5), 1.5)  # SPLIT_KAPPA_PRIOR
    log_w = log_w + (betaln(h + n_a, h + n_b) - betaln(h, h)).sum(1)
    w = np.exp(log_w - logsumexp(log_w))
    w[[0, -1]] /= 2  # trapezoid
    w /= w.sum()
    want = w @ stats.beta(h + n_a, h + n_b).sf(0.5)
    np.testing.assert_allclose(pc.paired[i, j], want, atol=1e-6)
    plug = compare_pairs(R, prior="empirical-plugin")
    assert plug.prior.startswith("empirical-plugin (split")
    # close models on these data: the learned split is concentrated, so P is nearer 1/2
    # than under the uniform Dirichlet(1, 1, 1, 1)
    uniform = compare_pairs(R, prior="uniform").paired[i, j]
    assert np.all(np.abs(pc.paired[i, j] - 0.5) <= np.abs(uniform - 0.5) + 1e-12)


def test_incomplete_design_uses_the_shared_questions():
    R = _binary(seed=4)
    R[0, :10] = np.nan  # model 0 did not answer the first 10 questions
    pc = compare_pairs(R, prior="uniform")
    assert pc.shared[0, 1] == 30 and pc.shared[1, 2] == 40
    x = R[..., 0]
    keep = ~np.isnan(x[0])
    n_a = np.sum(x[0, keep] * (1 - x[1, keep]))
    n_b = np.sum((1 - x[0, keep]) * x[1, keep])
    assert pc.paired[0, 1] == pytest.approx(stats.beta(1 + n_a, 1 + n_b).sf(0.5), abs=1e-12)


def test_paired_probability_example_and_errors():
    assert paired_probability([1] * 7 + [0] * 2, [0] * 7 + [1] * 2) == pytest.approx(
        stats.beta(8, 3).sf(0.5)
    )
    with pytest.raises(ValueError, match="scores in"):
        paired_probability([0.5, 2.0], [0.5, 0.5])
    with pytest.raises(ValueError, match="at least two models"):
        compare_pairs(np.zeros((1, 3, 1)))
    R = _binary()
    R[2] = np.nan
    with pytest.raises(ValueError, match="answered no question"):
        compare_pairs(R)


def test_rubric_scores_are_scaled_to_the_unit_interval():
    R = np.array([[[0, 2], [1, 1]], [[2, 2], [0, 0]]], dtype=float)
    s = question_scores(R, [0.0, 0.5, 1.0])
    np.testing.assert_allclose(s, [[0.5, 0.5], [1.0, 0.0]])
    assert question_scores(R, [10.0, 15.0, 20.0]).tolist() == s.tolist()


@pytest.mark.parametrize("m", [3, 30, 200])
def test_interpolated_model_cdf_is_close_to_the_exact_one(m):
    from bayes_eval.posteriors.exact import dirichlet_functional_cdf
    from bayes_eval.ranking.paired_exact import _model_cdfs

    rng = np.random.default_rng(m)
    corners = np.array([[1.0, 1.0], [0.5, 0.5], [0.2, 3.0]])
    for n in (2, 4, 10):
        s = rng.binomial(n, rng.beta(0.5, 0.5, m)) / n
        grid, cdfs = _model_cdfs(s, corners)
        levels, counts = np.unique(s, return_counts=True)
        for (right, wrong), cdf in zip(corners, cdfs, strict=True):
            v = np.concatenate([levels, [1.0, 0.0]])
            nu = np.concatenate([counts, [right, wrong]])
            assert np.abs(cdf - dirichlet_functional_cdf(grid, nu, v)).max() < 2e-4


def test_node_vectorised_imhof_equals_the_one_node_inversion():
    from bayes_eval.posteriors.exact import dirichlet_functional_cdf
    from bayes_eval.ranking.paired_exact import _imhof_nodes

    rng = np.random.default_rng(11)
    levels = np.array([-0.75, -0.5, 0.25, 0.5])
    base = rng.integers(1, 9, 4).astype(float)
    corners = np.array([[1.0, 1.0], [0.4, 2.5]])
    y = np.array([-0.3, 0.0, 0.2])
    got = _imhof_nodes(y, levels, base, np.array([1.0, -1.0]), corners)
    for j, (plus, minus) in enumerate(corners):
        v = np.concatenate([levels, [1.0, -1.0]])
        nu = np.concatenate([base, [plus, minus]])
        np.testing.assert_allclose(got[j], dirichlet_functional_cdf(y, nu, v), atol=1e-12)


def _graded_brute_force(R, power):
    """The learned normal prior on graded differences, computed apart from the package: each
    pair's mean difference as a normal likelihood N(mean, V), V = s^2/n with the sample
    variance s^2 (ddof 1) written out pair by pair, tau's posterior
    tau^power * prod_AB N(mean_AB; 0, tau^2 + V_AB)^(2/L) integrated by adaptive quadrature,
    and P(delta > 0 | tau) = Phi(mean tau / (sqrt(V) sqrt(tau^2 + V)))."""
    from scipy import integrate

    s = R.mean(axis=2)
    n_models = s.shape[0]
    mom = {}
    for a in range(n_models):
        for b in range(a + 1, n_models):
            d = s[a] - s[b]
            mom[a, b] = d.mean(), np.var(d, ddof=1) / d.size

    def density(t):
        like = np.prod([stats.norm.pdf(mu, 0, np.sqrt(t**2 + v)) for mu, v in mom.values()])
        return t**power * like ** (2.0 / n_models)

    norm = integrate.quad(density, 1e-4, 1, limit=200, epsrel=1e-10)[0]

    def shrunk(mu, v):
        f = lambda t: density(t) * stats.norm.cdf(mu * t / np.sqrt(v * (t**2 + v)))  # noqa: E731
        return integrate.quad(f, 1e-4, 1, limit=200, epsrel=1e-10)[0] / norm

    return {k: shrunk(mu, v) for k, (mu, v) in mom.items()}


@pytest.mark.parametrize("kind", ["trials", "graded"])
def test_learned_prior_on_graded_differences_matches_brute_force(kind):
    """Means of several trials and graded scores under the learned prior (``"empirical"``):
    the paired matrix equals the brute force of ``_graded_brute_force`` to 1e-4 (the package
    integrates tau on 241 log-spaced nodes by Simpson's rule), its order is the flat one's
    (the uniform corners'), and the independent matrix keeps its flat prior, said in the
    JSON."""
    from bayes_eval.ranking.difference_prior import DIFFERENCE_TAU_POWER

    rng = np.random.default_rng(5)
    p = np.clip(rng.random((1, 30, 1)) + np.array([0.0, 0.08, 0.12, 0.3])[:, None, None], 0, 1)
    if kind == "trials":
        R = (rng.random((4, 30, 3)) < p) * 1.0
        pc = compare_pairs(R, prior="empirical")
        flat = compare_pairs(R, prior="uniform")
    else:
        R = rng.beta(4 * p + 0.2, 4 * (1 - p) + 0.2)
        pc = compare_pairs(R, prior="empirical", fractional=True)
        flat = compare_pairs(R, prior="uniform", fractional=True)
    for (a, b), expected in _graded_brute_force(R, DIFFERENCE_TAU_POWER).items():
        assert pc.paired[a, b] == pytest.approx(expected, abs=1e-4)
        assert pc.paired[b, a] == pytest.approx(1 - expected, abs=1e-4)
        assert (pc.paired[a, b] > 0.5) == (flat.paired[a, b] > 0.5)
    np.testing.assert_array_equal(pc.independent, flat.independent)
    doc = pc.to_dict()["prior"]
    assert doc["paired"] == pc.prior and doc["independent"].startswith("uniform")
    assert "learned normal" not in doc["independent"]
    assert "learned normal N(0, tau^2) on each pair's difference" in pc.prior
    assert "without corners" in pc.prior and "standard error s/sqrt(n)" in pc.prior
    assert pc.method["paired"] == (
        "normal (mean difference, standard error s/sqrt(n)) with the learned prior"
    )


def test_learned_graded_prior_leaves_degenerate_pairs_flat():
    """Under the learned prior, pairs whose differences are all equal (a variance of rounding
    size) and pairs sharing fewer than five questions keep the uniform corners' probability;
    the other pairs are shrunk."""
    rng = np.random.default_rng(2)
    R = 0.2 + 0.8 * rng.random((4, 12, 1))
    R[1] = R[0] - 0.12  # model 1 trails model 0 by 0.12 on every question
    R[3, 3:] = np.nan  # model 3 answered three questions
    pc = compare_pairs(R, prior="empirical", fractional=True)
    flat = compare_pairs(R, prior="uniform", fractional=True)
    assert pc.paired[0, 1] == flat.paired[0, 1] and pc.paired[0, 1] > 0.5
    for k in range(3):
        assert pc.paired[k, 3] == flat.paired[k, 3]
    assert pc.paired[0, 2] != flat.paired[0, 2]


def test_unpaired_matrix_only_on_request():
    """The unpaired matrix is not calibrated, so ``leaderboard_pairs`` (what the commands print)
    leaves it out unless asked; asked for, it equals ``compare_pairs``' own, with or without
    clusters, and the JSON names its prior apart from the paired one's."""
    import xarray as xr

    from bayes_eval.ranking.paired import leaderboard_pairs

    rng = np.random.default_rng(3)
    p = np.array([0.7, 0.5, 0.4])[:, None, None] * np.ones((3, 24, 2))
    R = xr.DataArray(
        (rng.random(p.shape) < p) * 1.0,
        dims=("model", "question", "trial"),
        coords={"model": ["a", "b", "c"]},
    )
    plain = leaderboard_pairs(R)
    assert plain.independent is None and plain.independent_prior is None
    assert plain.difference_prior  # two trials per question: the normal prior on differences
    assert not leaderboard_pairs(R, pair_prior="uniform").difference_prior
    doc = plain.to_dict()
    assert "independent" not in doc and "independent" not in doc["prior"]
    assert set(doc["estimand"]) == {"these_questions", "paired"}
    assert set(doc["method"]) == {"paired"}
    assert all("independent" not in row for row in plain.adjacent())
    asked = leaderboard_pairs(R, independent=True)
    np.testing.assert_array_equal(asked.paired, plain.paired)
    order = [["a", "b", "c"].index(m) for m in asked.models]
    own = compare_pairs(R.values[order], prior="empirical")
    assert asked.independent is not None and own.independent is not None
    np.testing.assert_array_equal(asked.independent, own.independent)
    assert asked.to_dict()["prior"]["independent"].startswith("uniform")
    groups = np.arange(24) % 4
    clustered = compare_pairs(R.values, cluster=groups, independent=False)
    assert clustered.independent is None and set(clustered.method) == {"paired"}
    assert compare_pairs(R.values, cluster=groups, prior="empirical").difference_prior
    assert compare_pairs(R.values, cluster=groups).method["independent"] == "t (Welch)"


def test_paired_probabilities_stay_in_the_unit_interval():
    """A mixture over the split prior's nodes summed to 1 + 2.2e-16 on this board (974
    questions, decisive pairs), which fdr_claims then refused as no probability; the matrix
    is clipped to [0, 1] and its claims are made."""
    from scipy.special import expit

    from bayes_eval.ranking.claims import fdr_claims

    rng = np.random.default_rng(2)
    for _ in range(10):  # the tenth board of this stream is the one
        theta = rng.normal(0, abs(rng.normal(0, 2)), 6)
        k = int(rng.integers(30, 3000))
        b, e = rng.normal(0, 1.5, k), rng.normal(0, 0.7, (6, k))
        R = (rng.random((6, k, 1)) < expit(theta[:, None] - b + e)[..., None]).astype(float)
    pc = compare_pairs(R, prior="empirical")
    for p in (pc.paired, pc.independent):
        off = ~np.eye(6, dtype=bool)
        assert np.all((p[off] >= 0) & (p[off] <= 1))
    assert fdr_claims(np.where(np.isnan(pc.paired), 0.5, pc.paired), 0.05).better.size > 0
