"""Pass family posteriors (priors, exact intervals, named results) and avg@N's interval.

Exact intervals are checked against posterior draws: with D = 10^6 draws the mass of each
tail (nominal 0.025) has a binomial standard error of 1.56e-4; we allow 5 of them
(7.8e-4). The draws compute g(p) from the binomial probabilities of the credits, not from
the closed forms of the module, and under a learned prior they draw the prior node first.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.inputs import BINARY_HINT
from bayes_eval.posteriors.latent_pass import PassPosterior, tau_threshold
from bayes_eval.posteriors.priors import resolve_prior

DRAWS = 1_000_000
TAIL = 0.025
TAIL_TOL = 5 * np.sqrt(TAIL * (1 - TAIL) / DRAWS)  # 7.8e-4


def pattern(counts: list[tuple[int, int]], n: int) -> np.ndarray:
    """Binary results with ``m`` questions solved ``c`` times out of ``n`` for each (c, m)."""
    c = np.concatenate([[c] * m for c, m in counts])
    return (np.arange(n) < c[:, None]).astype(int)


#: the audit's benchmark: M = 30, N = 4, 10 of 120 trials (8%) correct, most never solved
HARD = pattern([(0, 21), (1, 8), (2, 1)], 4)


def credit(metric: str, k: int, tau: float | None = None) -> np.ndarray:
    j = np.arange(k + 1)
    if metric == "pass_at_k":
        return (j >= 1).astype(float)
    if metric == "pass_hat_k":
        return (j == k).astype(float)
    if metric == "g_pass_at_k_tau":
        return (j >= tau_threshold(tau, k)).astype(float)
    m = (k + 1) // 2
    return 2.0 / k * np.maximum(j - m, 0)


def ci(metric: str, R, k, tau=None, **kw) -> PassPosterior:
    fn = getattr(be, metric + "_ci")
    return fn(R, k, tau, **kw) if metric == "g_pass_at_k_tau" else fn(R, k, **kw)


def tail_masses(R, k, metric, tau=None, prior="uniform", seed=0, draws=DRAWS):
    """Exact interval and the mass of the posterior draws below lo and above hi."""
    out = ci(metric, R, k, tau, prior=prior, interval="exact", bounds=None)
    rng = np.random.default_rng(seed)
    n = R.shape[1]
    c = R.sum(axis=1)
    fit = resolve_prior(prior, np.stack([n - c, c], axis=-1).astype(float))
    w = fit.weights[:, 0] / fit.weights[:, 0].sum()
    node = fit.nodes[rng.choice(w.size, size=draws, p=w), 0]  # (draws, 2): (fail, success)
    cr = credit(metric, k, tau)
    weight = np.array([comb(k, j) for j in range(k + 1)]) * cr
    total = np.zeros(draws)
    for cq in c:
        p = rng.beta(node[:, 1] + cq, node[:, 0] + n - cq)
        q = 1.0 - p
        for j in np.flatnonzero(weight):  # g(p) = sum_j A_j C(k, j) p^j (1 - p)^(k - j)
            total += weight[j] * p**j * q ** (k - j)
    mean = total / R.shape[0]
    return out, (mean < out.lo).mean(), (mean > out.hi).mean()


# --------------------------------------------------------------------------- exact intervals


def test_audit_example_pass_hat_4_one_question_all_correct():
    """p ~ Beta(5, 1) and g = p^4: the quantiles are q^(4/5); normal gives [0.015, 1]."""
    R = np.ones((1, 4), dtype=int)
    exact = be.pass_hat_k_ci(R, 4, interval="exact", prior="uniform")
    np.testing.assert_allclose([exact.lo, exact.hi], [0.025**0.8, 0.975**0.8], rtol=1e-10)
    assert (round(exact.lo, 3), round(exact.hi, 3)) == (0.052, 0.980)
    normal = be.pass_hat_k_ci(R, 4, prior="uniform")
    assert (round(normal.lo, 3), normal.hi) == (0.015, 1.0)
    # the normal interval's true mass: P(lo < p^4) = 1 - lo^(5/4)
    assert 1.0 - normal.lo**1.25 == pytest.approx(0.9946, abs=1e-4)
    assert exact.posterior_mean == normal.posterior_mean == pytest.approx(5 / 9)


@pytest.mark.parametrize(
    ("R", "k", "metric", "tau"),
    [
        (np.ones((1, 4), dtype=int), 4, "pass_hat_k", None),  # the audit's example
        (pattern([(0, 1), (1, 1), (3, 1), (4, 1)], 4), 3, "pass_at_k", None),
        (pattern([(0, 1), (1, 1), (3, 1), (4, 1)], 4), 3, "pass_hat_k", None),
        (pattern([(0, 2), (3, 1), (6, 2), (8, 1)], 8), 5, "g_pass_at_k_tau", 0.6),
        (pattern([(0, 2), (3, 1), (6, 2), (8, 1)], 8), 6, "mg_pass_at_k", None),
        (pattern([(0, 1), (8, 1)], 8), 5, "mg_pass_at_k", None),  # odd k: g(1) = 4/5
        (pattern([(0, 3)], 4), 4, "pass_hat_k", None),  # piles up against 0
        (pattern([(8, 3)], 8), 8, "pass_at_k", None),  # piles up against 1
    ],
)
def test_exact_tails_against_draws(R, k, metric, tau):
    # 2.5·10^5 draws (8 cases in the quick tier): 5 s.e. = 1.6e-3 of a 2.5% tail
    draws = 250_000
    tol = 5 * np.sqrt(TAIL * (1 - TAIL) / draws)
    out, below, above = tail_masses(R, k, metric, tau, draws=draws)
    assert abs(below - TAIL) < tol and abs(above - TAIL) < tol, (out, below, above)
    assert 0.0 <= out.lo <= out.hi <= credit(metric, k, tau)[-1]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("metric", "k", "tau", "prior"),
    [
        ("pass_at_k", 2, None, "uniform"),
        ("pass_hat_k", 4, None, "uniform"),
        ("g_pass_at_k_tau", 3, 0.5, "uniform"),
        ("mg_pass_at_k", 4, None, "uniform"),
        ("pass_at_k", 2, None, "empirical"),
        ("pass_hat_k", 4, None, "empirical"),
        ("g_pass_at_k_tau", 3, 0.5, "empirical"),
        ("mg_pass_at_k", 4, None, "empirical"),
        ("pass_hat_k", 4, None, "empirical-plugin"),
        ("pass_hat_k", 4, None, "jeffreys"),
    ],
)
def test_exact_tails_on_the_hard_benchmark(metric, k, tau, prior):
    """The audit's benchmark under fixed and learned priors (the mixture's tails)."""
    out, below, above = tail_masses(HARD, k, metric, tau, prior=prior, seed=k)
    assert abs(below - TAIL) < TAIL_TOL and abs(above - TAIL) < TAIL_TOL, (out, below, above)


@pytest.mark.slow
def test_exact_tail_far_below_the_lattice():
    """Beta(0.05, 5) posteriors and Pass^4 of two questions: the lower quantile is ~1e-68,
    reached by the nested lattices only."""
    R = pattern([(0, 2)], 4)
    out, below, above = tail_masses(R, 4, "pass_hat_k", prior=[1.0, 0.05])
    assert out.lo < 1e-60
    assert abs(below - TAIL) < TAIL_TOL and abs(above - TAIL) < TAIL_TOL


@pytest.mark.slow
def test_exact_learned_prior_tails_against_draws():
    out, below, above = tail_masses(HARD, 2, "pass_at_k", prior="empirical", seed=3)
    assert abs(below - TAIL) < TAIL_TOL and abs(above - TAIL) < TAIL_TOL, (out, below, above)


@pytest.mark.slow
def test_exact_endpoints_stay_in_the_support(rng):
    for _ in range(20):
        m, n = int(rng.integers(1, 6)), int(rng.integers(1, 9))
        R = (rng.random((m, n)) < rng.choice([0.0, 0.05, 0.5, 0.95, 1.0])).astype(int)
        k = int(rng.integers(1, n + 1))
        for metric in ("pass_at_k", "pass_hat_k", "mg_pass_at_k", "g_pass_at_k_tau"):
            out = ci(metric, R, k, 0.7, interval="exact", bounds=None, prior="uniform")
            top = credit(metric, k, 0.7)[-1]
            assert 0.0 <= out.lo <= out.hi <= top, (metric, R, k, out)


@pytest.mark.slow
def test_exact_agrees_with_normal_for_many_questions(rng):
    p = rng.beta(2, 2, size=(400, 1))
    R = (rng.random((400, 10)) < p).astype(int)
    for metric in ("pass_at_k", "pass_hat_k", "mg_pass_at_k", "g_pass_at_k_tau"):
        normal = ci(metric, R, 5, 0.5)
        exact = ci(metric, R, 5, 0.5, interval="exact")
        assert exact.posterior_mean == normal.posterior_mean
        np.testing.assert_allclose(
            [exact.lo, exact.hi], [normal.lo, normal.hi], atol=0.05 * normal.sigma
        )


@pytest.mark.slow
def test_exact_batched_masked_and_pooled_equal_the_loop(rng):
    R = (rng.random((3, 12, 6)) < rng.random((3, 12, 1))).astype(int)
    mask = rng.random(R.shape) < 0.2
    mask[..., :3] = False
    for prior in ("uniform", "empirical"):
        # per model alone: the board-informed default shares what the other models say
        pool = None if prior == "uniform" else "model"
        batch = be.pass_at_k_ci(R, 3, interval="exact", prior=prior, pool=pool, mask=mask)
        assert all(np.shape(x) == (3,) for x in batch)
        for i in range(3):
            one = be.pass_at_k_ci(R[i], 3, interval="exact", prior=prior, pool=pool, mask=mask[i])
            # a learned prior is fitted by Newton's method to a tolerance: 1e-10 relative
            rtol, atol = (0, 1e-12) if prior == "uniform" else (1e-8, 0)
            np.testing.assert_allclose([x[i] for x in batch], one, rtol=rtol, atol=atol)
    pooled = be.pass_at_k_ci(R, 3, prior="empirical", pool="benchmark")
    per_model = be.pass_at_k_ci(R, 3, prior="empirical")
    assert np.shape(pooled.posterior_mean) == (3,)
    assert not np.allclose(pooled.posterior_mean, per_model.posterior_mean)


# --------------------------------------------------------------------------- priors and results


def test_results_are_named_and_unpack_like_scorio():
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    out = be.pass_at_k_ci(R, 2, prior="uniform")
    assert isinstance(out, PassPosterior)
    assert out._fields == ("posterior_mean", "sigma", "lo", "hi")
    mu, sigma, lo, hi = out
    assert (round(mu, 6), round(sigma, 6), round(lo, 4), hi) == (0.839286, 0.097263, 0.6487, 1.0)
    assert be.pass_at_k(R, 2) == pytest.approx(0.95)  # the unbiased estimate differs


def test_alpha0_beta0_are_the_fixed_prior_success_fail():
    R = pattern([(0, 3), (2, 2), (5, 1)], 5)
    for metric in ("pass_at_k", "pass_hat_k", "mg_pass_at_k", "g_pass_at_k_tau"):
        old = ci(metric, R, 3, 0.5, alpha0=2.0, beta0=0.5)
        new = ci(metric, R, 3, 0.5, prior=[0.5, 2.0])  # categories (fail, success)
        assert tuple(old) == tuple(new)
        assert tuple(ci(metric, R, 3, 0.5, prior="jeffreys")) == tuple(
            ci(metric, R, 3, 0.5, alpha0=0.5, beta0=0.5)
        )
        assert tuple(ci(metric, R, 3, 0.5, prior=1.0)) == tuple(ci(metric, R, 3, 0.5, alpha0=1.0))
        # no prior at all is the default of every command, the learned one
        assert tuple(ci(metric, R, 3, 0.5)) == tuple(ci(metric, R, 3, 0.5, prior="empirical"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"interval": "quantile"}, r"interval is 'quantile'; expected one of 'normal', 'exact'"),
        ({"prior": "flat"}, r"prior is 'flat'; expected one of"),
        ({"prior": "empirical", "alpha0": 2.0}, r"both prior='empirical' and alpha0/beta0"),
        ({"prior": [1.0, 1.0], "beta0": 2.0}, r"both prior=\[1.0, 1.0\] and alpha0/beta0"),
        ({"pool": "all"}, r"pool is 'all'; expected one of \['board', 'model', 'benchmark'\]"),
        ({"alpha0": 0.0}, r"alpha0 is 0.0; expected a finite number > 0"),
        ({"prior": [1.0, 1.0, 1.0]}, r"prior has shape \(3,\); expected a scalar or a vector"),
    ],
)
def test_bad_options_are_clear(kwargs, message):
    R = pattern([(0, 2), (3, 2)], 4)
    for metric in ("pass_at_k", "pass_hat_k", "g_pass_at_k", "mg_pass_at_k", "g_pass_at_k_tau"):
        with pytest.raises(ValueError, match=message):
            ci(metric, R, 2, 0.5, **kwargs)


def test_non_binary_results_name_the_pass_family():
    R = np.array([[0, 1, 2, 1]])
    with pytest.raises(ValueError, match=r"expected labels within 0\.\.1") as exc:
        be.pass_at_k_ci(R, 2, interval="exact")
    assert BINARY_HINT.strip(" ()") in str(exc.value)


def test_mg_pass_of_one_attempt_is_a_point_mass():
    R = pattern([(1, 2), (3, 1)], 4)
    assert tuple(be.mg_pass_at_k_ci(R, 1, interval="exact")) == (0.0, 0.0, 0.0, 0.0)


# --------------------------------------------------------------------------- estimate vs mean


def test_learned_prior_closes_the_gap_to_the_unbiased_estimate():
    """The audit: pass_at_k 0.161 but the uniform-prior posterior mean 0.3635 with an interval
    that excludes it; the learned prior brings the mean to 0.170 and covers 0.161."""
    assert HARD.shape == (30, 4) and HARD.mean() == pytest.approx(1 / 12)  # 8% successes
    unbiased = be.pass_at_k(HARD, 2)
    uniform = be.pass_at_k_ci(HARD, 2, prior="uniform")
    assert tuple(be.pass_at_k_ci(HARD, 2)) == tuple(be.pass_at_k_ci(HARD, 2, prior="empirical"))
    jeffreys = be.pass_at_k_ci(HARD, 2, prior="jeffreys")
    assert round(unbiased, 3) == 0.161
    np.testing.assert_allclose(uniform, [0.3635, 0.0394, 0.2862, 0.4407], atol=1e-4)
    assert round(jeffreys.posterior_mean, 3) == 0.273
    assert not uniform.lo <= unbiased <= uniform.hi
    for interval in ("normal", "exact"):
        learned = be.pass_at_k_ci(HARD, 2, prior="empirical", interval=interval)
        assert learned.posterior_mean == pytest.approx(0.170, abs=0.01)
        gap = abs(learned.posterior_mean - unbiased)
        assert gap < 0.1 * abs(uniform.posterior_mean - unbiased)
        assert learned.lo <= unbiased <= learned.hi


# --------------------------------------------------------------------------- avg@N


def test_avg_ci_one_question_one_correct_answer():
    R = np.array([[1]])
    normal = be.avg_ci(R, prior="uniform", interval="normal")
    exact = be.avg_ci(R, interval="exact", prior="uniform")
    assert normal.a == exact.a == 1.0
    assert 0.0 <= normal.lo <= normal.hi <= 1.0 and 0.0 <= exact.lo <= exact.hi <= 1.0
    # pi ~ Beta(2, 1): CDF x^2
    np.testing.assert_allclose([exact.lo, exact.hi], np.sqrt([0.025, 0.975]), rtol=1e-6)
    assert normal.sigma == pytest.approx(np.sqrt(1 / 18))
    latent = be.avg_ci(R, scale="latent")  # the paper's eq. 20 interval: not about pi-bar
    assert be.avg_ci(R).lo > 0.0  # the default: the learned prior's own law, inside [0, 1]
    assert [round(x, 2) for x in latent] == [1.0, 0.71, -0.39, 2.39]


@pytest.mark.slow
def test_avg_ci_is_bayes_ci_around_the_average(rng):
    R = rng.integers(0, 3, size=(4, 9, 6))
    w = [0.0, 0.3, 1.0]
    mask = rng.random(R.shape) < 0.2
    mask[..., 0] = False
    for kw in (
        {"prior": "uniform"},
        {"prior": "uniform", "interval": "exact"},
        {"prior": "jeffreys"},
        {"prior": "empirical", "interval": "normal"},
    ):
        out = be.avg_ci(R, w, mask=mask, **kw)
        ref = be.bayes_ci(R, w, mask=mask, **kw)
        np.testing.assert_array_equal(out.sigma, ref.sigma)
        np.testing.assert_allclose(out.lo, np.clip(ref.lo, 0.0, 1.0), atol=0)
        np.testing.assert_allclose(out.hi, np.clip(ref.hi, 0.0, 1.0), atol=0)
        np.testing.assert_array_equal(out.a, be.avg(R, w, mask=mask).a)


def test_avg_ci_latent_scale_keeps_scorio_parity(scorio_cases):
    for c in scorio_cases["cases"]:
        R, w = np.array(c["R"]), c["w"]
        for e in c["avg_ci"]:
            got = be.avg_ci(R, w, confidence=e["confidence"], bounds=e["bounds"], scale="latent")
            np.testing.assert_allclose(got, e["out"], rtol=0, atol=1e-12)
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    out = be.avg_ci(R, bounds=(0.0, 1.0), scale="latent")
    assert [round(x, 4) for x in out] == [0.7, 0.1658, 0.375, 1.0]


def test_avg_ci_covers_pi_bar_like_bayes_ci():
    """Questions drawn from the uniform prior: the default interval covers pi-bar at ~95%,
    as bayes_ci's does; the latent interval (scale="latent") over-covers at 3x the width."""
    rng = np.random.default_rng(20261123)
    reps = 2000
    se = np.sqrt(0.95 * 0.05 / reps)
    for m, n in ((1, 1), (10, 5)):
        p = rng.random((reps, m, 1))
        R = (rng.random((reps, m, n)) < p).astype(int)
        truth = p[..., 0].mean(axis=-1)

        def coverage(out, truth=truth):
            return float(((out.lo <= truth) & (truth <= out.hi)).mean())

        # the replicates are independent results, not a board: each its own prior (uniform)
        ours = be.avg_ci(R, prior="uniform", interval="normal")
        assert abs(coverage(ours) - 0.95) < 3.5 * se
        assert coverage(ours) == coverage(be.bayes_ci(R, prior="uniform", interval="normal"))
        latent = be.avg_ci(R, scale="latent")
        assert coverage(latent) > 0.97
        if m == 1:
            assert coverage(latent) > 0.999
            assert np.mean(latent.hi - latent.lo) > 2.9 * np.mean(ours.hi - ours.lo)
    exact = be.avg_ci(np.array([[1], [0]])[None].repeat(3, 0), interval="exact", prior="uniform")
    assert np.all((exact.lo >= 0) & (exact.hi <= 1))


def test_avg_ci_bad_options():
    R = np.array([[0, 1, 1]])
    with pytest.raises(ValueError, match="scale is 'pibar'; expected 'pi_bar' or 'latent'"):
        be.avg_ci(R, scale="pibar")
    with pytest.raises(ValueError, match="interval is 'wide'"):
        be.avg_ci(R, interval="wide")
    with pytest.raises(ValueError, match="scale='latent' needs a fixed prior"):
        be.avg_ci(R, scale="latent", prior="empirical")
    with pytest.raises(ValueError, match="prior is 'flat'"):
        be.avg_ci(R, prior="flat")
