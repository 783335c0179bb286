"""The exact posterior of pi-bar against exact Dirichlet draws and closed forms.

Tolerances. With n draws (10^6 by default; 2.5-4·10^5 where a test says so) the Monte Carlo
standard error of an empirical CDF value or tail mass F is sqrt(F (1 - F) / n): 1.56e-4 at
F = 0.025 and at most 5e-4 for n = 10^6 (2.5e-4 and 7.9e-4 for 4·10^5). Tail masses are
checked to 5 standard errors (a false alarm has probability 6e-7 per comparison, and the draws
are seeded, so a run cannot flake), CDF values to 4 standard errors plus 2e-4. The method
itself is far more accurate than these bounds (95% endpoints within 1e-4 posterior sd, tail
masses within 4e-6 of 0.025: ``test_accuracy_against_independent_references`` on
representative cases, marked slow; the whole sweep is ``benchmarks/bench_exact_accuracy.py``);
the closed-form tests below check it to 1e-5 or better where an exact answer is known.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import beta as beta_fn
from scipy.special import betainc, gamma, hyp2f1

import bayes_eval as be
import bayes_eval.posteriors.exact as ep
import bayes_eval.posteriors.lattice as el
import bayes_eval.posteriors.refinements as et
from bayes_eval.posteriors.exact import (
    dirichlet_functional_cdf,
    exact_interval,
    exact_posterior,
)
from bayes_eval.posteriors.imhof import _imhof_cdf, _imhof_exact
from bayes_eval.ranking.ranks import prob_better

N_DRAWS = 1_000_000
TAIL_SE = np.sqrt(0.025 * 0.975 / N_DRAWS)  # 1.56e-4: s.e. of a 2.5% tail mass
BINARY = np.array([0.0, 1.0])
RUBRIC = np.array([0.0, 0.5, 1.0])


def _draw_pi_bar(nu, w, rng, n=N_DRAWS, chunk=200_000):
    out = []
    for start in range(0, n, chunk):
        g = rng.gamma(nu[None], size=(min(chunk, n - start), *nu.shape))
        out.append(((g / g.sum(-1, keepdims=True)) @ w).mean(-1))
    return np.concatenate(out)


def _check_against_draws(dist, draws):
    xs = np.quantile(draws, [0.005, 0.025, 0.1, 0.3, 0.5, 0.7, 0.9, 0.975, 0.995])
    emp = np.searchsorted(np.sort(draws), xs, side="right") / draws.size
    se = np.sqrt(emp * (1 - emp) / draws.size)
    np.testing.assert_array_less(np.abs(dist.cdf(xs) - emp), 4 * se + 2e-4)
    assert abs(dist.mean - draws.mean()) < 5 * draws.std() / np.sqrt(draws.size)
    assert abs(dist.sd / draws.std() - 1) < 5 * np.sqrt(2 / draws.size)


def test_imhof_inversion_matches_beta_cdf():
    """Two weight levels: the Gil-Pelaez integral reproduces the regularised beta (1e-9), also
    at distances down to 1e-250 from a level, where a CDF like y^0.05 is still 1e-13; the
    interpolated path used on long lattices (exact values at Chebyshev points and around the
    levels, a cubic spline between) stays within 1e-6 over +-20 sd."""
    y = np.linspace(0.001, 0.999, 201)
    tiny = 10.0 ** -np.arange(1.0, 251.0, 7.0)
    for a, b in [(1.0, 1.0), (2.0, 7.0), (40.0, 3.0), (0.5, 0.7), (81.0, 1.0), (0.05, 16.05)]:
        levels, nu = np.array([0.0, 1.0]), np.array([b, a])
        np.testing.assert_allclose(_imhof_exact(y, levels, nu), betainc(a, b, y), atol=1e-9)
        np.testing.assert_allclose(_imhof_exact(tiny, levels, nu), betainc(a, b, tiny), atol=1e-9)
        mean, sd = a / (a + b), np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        window = np.linspace(max(mean - 20 * sd, 1e-6), min(mean + 20 * sd, 1 - 1e-6), 1600)
        got = _imhof_cdf(window, levels, nu)
        np.testing.assert_allclose(got, betainc(a, b, window), atol=1e-6)


@pytest.mark.slow
def test_binary_exact_posterior_against_draws(rng):
    R = (rng.random((12, 6)) < rng.random((12, 1))).astype(int)
    post = be.dirichlet_posterior(R)
    dist = exact_posterior(post.nu, post.w)
    _check_against_draws(dist, _draw_pi_bar(post.nu, post.w, rng, n=400_000))
    mu, sigma = be.bayes(R, prior="uniform")  # dirichlet_posterior's alpha0 = 1
    assert dist.mean == pytest.approx(mu, abs=1e-14)
    assert dist.sd == pytest.approx(sigma, abs=1e-14)


@pytest.mark.slow
def test_categorical_exact_posterior_against_draws(rng):
    R = rng.integers(0, 4, size=(8, 5))
    w = np.array([0.0, 0.2, 0.7, 1.0])
    post = be.dirichlet_posterior(R, w)
    dist = exact_posterior(post.nu, post.w)
    draws = _draw_pi_bar(post.nu, w, rng, n=400_000)
    _check_against_draws(dist, draws)
    lo, hi = be.bayes_ci(R, w, interval="exact", prior="uniform")[2:]
    # quantile tolerance: CDF tolerance / density at the quantile (~ 0.058 / sd at 2.5%)
    q_tol = (4 * np.sqrt(0.025 * 0.975 / draws.size) + 2e-4) / (0.058 / dist.sd)
    assert lo == pytest.approx(np.quantile(draws, 0.025), abs=q_tol)
    assert hi == pytest.approx(np.quantile(draws, 0.975), abs=q_tol)


@pytest.mark.parametrize("alpha0", [0.05, 0.5, 1.0], ids=["alpha0=0.05", "jeffreys", "uniform"])
@pytest.mark.parametrize("w", [BINARY, RUBRIC], ids=["binary", "rubric"])
@pytest.mark.parametrize("data", ["all_wrong", "mixed"])
def test_tail_masses_against_draws(alpha0, w, data, rng):
    """The defect of the audit: with alpha0 <= 0.5 and all-wrong questions each question's
    density is infinite at 0 (like y^(alpha0 C - 1)) and the 2.5% point of pi-bar lies a tiny
    distance above 0 (9e-8 for M = 5 binary questions under alpha0 = 0.05); the interval used
    to start below 0 and to leave 1.7% instead of 2.5% below it. Here the masses below ``lo``
    and above ``hi`` of 2.5·10^5 exact draws must be 0.025 within 5 standard errors (1.6e-3,
    five times smaller than the defect's 8e-3; 12 cases, so fewer draws than elsewhere)."""
    m, n = 5, (1 if data == "all_wrong" else 4)
    R = np.zeros((m, n), dtype=int)
    if data == "mixed":  # one all-wrong question, the others random
        R[1:] = rng.integers(0, w.size, size=(m - 1, n))
    post = be.dirichlet_posterior(R, w, alpha0=alpha0)
    lo, hi = be.bayes_ci(R, w, alpha0=alpha0, interval="exact")[2:]
    assert 0.0 < lo < hi < 1.0
    n_draws = 250_000
    draws = _draw_pi_bar(post.nu, w, rng, n=n_draws)
    se = np.sqrt(0.025 * 0.975 / n_draws)
    assert abs((draws < lo).mean() - 0.025) < 5 * se
    assert abs((draws > hi).mean() - 0.025) < 5 * se


@pytest.mark.parametrize("alpha0", [0.05, 0.5, 1.0, 2.0])
@pytest.mark.parametrize(("correct", "n"), [(0, 1), (1, 1), (0, 16), (16, 16), (5, 16), (1, 3)])
def test_single_binary_question_is_the_beta_quantile(alpha0, correct, n):
    """M = 1: pi-bar is Beta(alpha0 + correct, alpha0 + wrong); the interval inverts its CDF."""
    R = np.zeros((1, n), dtype=int)
    R[0, :correct] = 1
    post = be.dirichlet_posterior(R, alpha0=alpha0)
    a, b = alpha0 + correct, alpha0 + n - correct
    for confidence in (0.5, 0.95, 0.999):
        tail = 0.5 * (1 - confidence)
        expected = stats.beta.ppf([tail, 1 - tail], a, b)
        lo, hi = exact_interval(post.nu, post.w, confidence)
        np.testing.assert_allclose([lo, hi], expected, rtol=1e-8, atol=0)
        dist = exact_posterior(post.nu, post.w)  # the lattice object inverts the same CDF
        np.testing.assert_allclose(dist.ppf([tail, 1 - tail]), expected, rtol=1e-8, atol=0)
        # at the float nearest to a quantile 1e-13 below 1 the CDF is not exactly 1 - tail
        np.testing.assert_allclose(dist.cdf(expected), stats.beta.cdf(expected, a, b), rtol=1e-8)


def test_jeffreys_all_wrong_interval_of_the_audit():
    """Jeffreys prior, one binary question answered wrongly once: Beta(0.5, 1.5), whose 2.5%
    point is 3.856e-4 (the lattice used to give -8.5e-4)."""
    lo, hi = be.bayes_ci(np.zeros((1, 1), dtype=int), alpha0=0.5, interval="exact")[2:]
    assert lo == pytest.approx(stats.beta.ppf(0.025, 0.5, 1.5), rel=1e-10)
    assert lo == pytest.approx(3.8558e-4, rel=1e-4)
    assert hi == pytest.approx(stats.beta.ppf(0.975, 0.5, 1.5), rel=1e-10)


@pytest.mark.parametrize("m", [2, 3, 5])
@pytest.mark.parametrize("n", [1, 16])
def test_binary_lower_endpoint_matches_the_power_law(m, n):
    """All-wrong binary data under alpha0 = a = 0.05: near 0 each question has the CDF
    y^a / (a B(a, b)) (1 + O(y)), b = n + a, so the mean of m of them has the Dirichlet-integral
    CDF P(pi-bar <= s) = (Gamma(1 + a) / (a B(a, b)))^m (m s)^(m a) / Gamma(1 + m a) (1 + O(s)).
    The 2.5% points are 2e-18 to 8e-8, where the O(s) terms are below 1e-7 relative."""
    a = 0.05
    R = np.zeros((m, n), dtype=int)
    lo = be.bayes_ci(R, alpha0=a, interval="exact")[2]
    c = gamma(1 + a) / (a * beta_fn(a, n + a))
    mass = c**m * (m * lo) ** (m * a) / gamma(1 + m * a)
    assert mass == pytest.approx(0.025, rel=1e-6)


@pytest.mark.parametrize("m", [1, 2])
@pytest.mark.parametrize("n", [1, 16])
def test_rubric_lower_endpoint_matches_the_power_law(m, n):
    """All-wrong rubric w = (0, 1/2, 1) under alpha0 = a = 0.05: w.pi = U L with
    U = pi_1 + pi_2 ~ Beta(A, b), A = 2a, b = n + a, independent of L = (1 + V) / 2,
    V ~ Beta(a, a), so near 0 the CDF is y^A E[L^-A] / (A B(A, b)) (1 + O(y)) with
    E[L^-A] = 2^A 2F1(A, a; 2a; -1) (Euler's integral), and the mean of m questions follows as
    in the binary test. Checks the Imhof inversion at distances ~1e-17 from a level (m = 1,
    1e-9 relative) and the tail lattice of three-level questions (m = 2, ~1e-6 relative)."""
    a = 0.05
    big_a = 2 * a
    R = np.zeros((m, n), dtype=int)
    lo = be.bayes_ci(R, RUBRIC, alpha0=a, interval="exact")[2]
    c = 2**big_a * hyp2f1(big_a, a, 2 * a, -1.0) / (big_a * beta_fn(big_a, n + a))
    mass = (c * gamma(1 + big_a)) ** m * (m * lo) ** (m * big_a) / gamma(1 + m * big_a)
    assert mass == pytest.approx(0.025, rel=1e-5)


@pytest.mark.parametrize("w", [BINARY, RUBRIC], ids=["binary", "rubric"])
def test_upper_end_mirrors_the_lower_end(w):
    """All-correct data is all-wrong data reflected (w is symmetric): the upper endpoint near
    1 is 1 minus the lower endpoint near 0, computed on the lattice of distances from 1."""
    m, n, a = 5, 2, 0.05
    wrong = np.zeros((m, n), dtype=int)
    right = np.full((m, n), w.size - 1)
    _, sd, lo_w, hi_w = be.bayes_ci(wrong, w, alpha0=a, interval="exact")
    _, _, lo_r, hi_r = be.bayes_ci(right, w, alpha0=a, interval="exact")
    assert 0 < 1 - hi_r == pytest.approx(lo_w, rel=1e-6)
    assert lo_r == pytest.approx(1 - hi_w, abs=1e-4 * sd)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
def test_quantiles_next_to_an_interior_concentration():
    """One all-wrong and one all-correct binary question under alpha0 = 0.05, N = 16: with
    probability ~0.2 both lie within 1e-8 of their ends, so pi-bar concentrates at 1/2 and its
    25%, 40% and 45% points lie 1.7e-5, 1.8e-9 and 1.7e-12 below it, all within one lattice
    step (1.7e-4). Against numerical convolution of the two Beta laws, to 1e-6 in probability."""
    R = np.zeros((2, 16), dtype=int)
    R[1] = 1
    nu = be.dirichlet_posterior(R, alpha0=0.05).nu
    cdf, _ = _two_binary_questions(nu)
    dist = exact_posterior(nu, BINARY)
    for p in (0.25, 0.4, 0.45, 0.55, 0.6, 0.75):
        x = float(dist.ppf(p))
        assert cdf(x) == pytest.approx(p, abs=1e-6)
        assert float(dist.cdf(x)) == pytest.approx(p, abs=1e-6)
    assert 0.5 - float(dist.ppf(0.45)) == pytest.approx(1.72e-12, rel=0.01)


@pytest.mark.slow
def test_all_middle_rubric_quartiles(rng):
    """All-middle rubric data: pi-bar concentrates at 1/2 from both sides (a level inside the
    rubric); the law is symmetric about 1/2 and the quartiles leave 25% of 10^6 draws on each
    side (5 standard errors: 2.2e-3)."""
    R = np.ones((2, 16), dtype=int)
    nu = be.dirichlet_posterior(R, RUBRIC, alpha0=0.05).nu
    lo, hi = exact_interval(nu, RUBRIC, 0.5)
    assert lo + hi == pytest.approx(1.0, abs=1e-9)
    draws = _draw_pi_bar(nu, RUBRIC, rng)
    se = np.sqrt(0.25 * 0.75 / N_DRAWS)
    assert abs((draws < lo).mean() - 0.25) < 5 * se
    assert abs((draws > hi).mean() - 0.25) < 5 * se


def test_lattice_moments_match_eq15():
    """The lattice law (linear within cells) has the exact mean and sd of eq. 15, also for
    questions whose densities are infinite at a level."""
    for R, w, alpha0 in [
        (np.zeros((5, 1), dtype=int), BINARY, 0.05),
        (np.zeros((30, 16), dtype=int), RUBRIC, 0.05),
        (np.ones((4, 16), dtype=int), RUBRIC, 0.05),
        (np.arange(24).reshape(8, 3) % 3, RUBRIC, 0.5),
    ]:
        post = be.dirichlet_posterior(R, w, alpha0=alpha0)
        dist = exact_posterior(post.nu, post.w)
        mu, sigma = be.bayes(R, w, alpha0=alpha0)
        mean = dist.pmf @ dist.x
        sd = np.sqrt(dist.pmf @ (dist.x - mean) ** 2 + dist.step**2 / 12)
        assert mean == pytest.approx(mu, abs=1e-5 * sigma)
        assert sd == pytest.approx(sigma, rel=1e-10)


def test_cdf_and_ppf_agree_near_the_ends():
    """Near an end both are computed on the lattice of distances from it."""
    post = be.dirichlet_posterior(np.zeros((5, 1), dtype=int), RUBRIC, alpha0=0.05)
    dist = exact_posterior(post.nu, post.w)
    p = np.array([1e-3, 0.025, 0.2])
    x = dist.ppf(p)
    assert np.all(x > 0) and np.all(np.diff(x) > 0)
    np.testing.assert_allclose(dist.cdf(x), p, rtol=1e-4)
    assert dist.ppf(0.0) == dist.support[0] == 0.0
    assert dist.ppf(1.0) == dist.support[1] == 1.0
    assert dist.cdf(-1e-12) == 0.0


def _check_support(alpha0, rubric, m, n, confidence, seed):
    rng = np.random.default_rng(seed)
    w = RUBRIC if rubric else BINARY
    kind = rng.integers(0, 4, size=m)  # 0 all wrong, 1 all correct, 2 all middle, 3 random
    R = np.where(kind[:, None] == 3, rng.integers(0, w.size, size=(m, n)), 0)
    R[kind == 1] = w.size - 1
    R[kind == 2] = w.size // 2
    lo, hi = be.bayes_ci(R, w, alpha0=alpha0, confidence=confidence, interval="exact")[2:]
    assert w[0] <= lo <= hi <= w[-1]
    post = be.dirichlet_posterior(R, w, alpha0=alpha0)
    # per kind of question, as avg@N's T/N varies with the number of observed trials only
    scale = rng.uniform(0.5, 2.0, size=4)[kind]
    shift = rng.uniform(-0.5, 0.5, size=4)[kind]
    lo, hi = exact_interval(post.nu, w, confidence, scale=scale, shift=shift)
    assert (scale * w[0] + shift).mean() <= lo <= hi <= (scale * w[-1] + shift).mean()


_ANY_DATA = {
    "alpha0": st.floats(0.05, 3.0),
    "rubric": st.booleans(),
    "m": st.integers(1, 30),
    "n": st.integers(1, 16),
    "confidence": st.sampled_from([0.5, 0.9, 0.95, 0.99, 0.999]),
    "seed": st.integers(0, 2**32 - 1),
}


@pytest.mark.slow  # ~2 s: the fast tier's budget (issue 29 added tests beside it)
@settings(max_examples=12, deadline=None)
@given(**_ANY_DATA)
def test_interval_lies_in_the_support(alpha0, rubric, m, n, confidence, seed):
    """Endpoints never leave [min w, max w] (nor, with an affine map per question as avg@N
    uses, the image of it), for any data: all-wrong, all-correct, all-middle or random
    questions, alpha0 from 0.05. ``benchmarks/bench_exact_accuracy.py --support 200`` runs the
    same check on 200 random data sets."""
    _check_support(alpha0, rubric, m, n, confidence, seed)


def test_exact_interval_is_skewed_near_the_boundary(rng):
    """Few questions near 100%: the exact interval is asymmetric and stays below 1,
    where the normal interval overshoots."""
    R = np.ones((3, 4), dtype=int)
    R[0, 0] = 0
    mu, _sigma, _lo_n, hi_n = be.bayes_ci(R, confidence=0.99, prior="uniform", interval="normal")
    _, _, lo_e, hi_e = be.bayes_ci(R, confidence=0.99, prior="uniform", interval="exact")
    assert hi_e < 1.0 < hi_n + 0.05
    assert (hi_e - mu) < (mu - lo_e)
    # the default interval ("auto") is the exact one this close to the end of the support
    _, _, lo_a, hi_a = be.bayes_ci(R, confidence=0.99, prior="uniform")
    assert (lo_a, hi_a) == (lo_e, hi_e)
    post = be.dirichlet_posterior(R)
    draws = _draw_pi_bar(post.nu, post.w, rng)
    np.testing.assert_allclose([lo_e, hi_e], np.quantile(draws, [0.005, 0.995]), atol=4e-3)


def test_functional_cdf_three_levels_against_draws(rng):
    nu = np.array([2.0, 3.0, 1.5, 4.0])
    w = np.array([0.0, 0.5, 0.5, 1.0])  # repeated weight: categories 1 and 2 merge
    g = rng.gamma(nu, size=(N_DRAWS, 4))
    y = (g / g.sum(1, keepdims=True)) @ w
    xs = np.linspace(0.2, 0.9, 15)
    emp = (y[:, None] <= xs).mean(0)
    np.testing.assert_array_less(
        np.abs(dirichlet_functional_cdf(xs, nu, w) - emp),
        4 * np.sqrt(emp * (1 - emp) / N_DRAWS) + 1e-6,
    )


@pytest.mark.slow
def test_exact_avg_interval_with_missing_trials(rng):
    """avg@N's latent quantity (Hariri et al., App. B, eq. 20): an affine map per question,
    ``(T/N) w.pi - sum_j alpha0_j w_j / N``, with N varying through missing trials."""
    R = rng.integers(0, 2, size=(10, 8))
    mask = rng.random(R.shape) < 0.3
    mask[:, 0] = False
    post = be.dirichlet_posterior(R, mask=mask)
    n = post.tally.n_trials
    t = post.total
    scale, shift = t / n, -1.0 / n  # sum_j alpha0_j w_j = 1 for w = (0, 1)
    dist = exact_posterior(post.nu, post.w, scale=scale, shift=shift)
    lo, hi = exact_interval(post.nu, post.w, 0.95, scale=scale, shift=shift)
    g = rng.gamma(post.nu[None], size=(400_000, *post.nu.shape))
    y = (g / g.sum(-1, keepdims=True)) @ post.w
    latent = (scale * y + shift).mean(-1)
    assert latent.mean() == pytest.approx(dist.mean, abs=5 * latent.std() / np.sqrt(latent.size))
    assert dist.mean == pytest.approx(((post.tally.counts[:, 1]) / n).mean(), abs=1e-14)
    # 4e5 draws: quantile Monte Carlo error ~ 0.004 sd
    np.testing.assert_allclose([lo, hi], np.quantile(latent, [0.025, 0.975]), atol=0.015 * dist.sd)


@pytest.mark.slow
def test_prob_better_exact_against_draws_and_normal(rng):
    Ra = (rng.random((15, 10)) < 0.55).astype(int)
    Rb = (rng.random((15, 10)) < 0.5).astype(int)
    exact = prob_better(Ra, Rb, prior="uniform", method="exact")
    normal = prob_better(Ra, Rb, prior="uniform", method="normal")
    pa, pb = be.dirichlet_posterior(Ra), be.dirichlet_posterior(Rb)
    n_draws = 250_000  # MC s.e. of P ~ 1e-3: 4 s.e. + 5e-4 < 0.005
    da = _draw_pi_bar(pa.nu, pa.w, rng, n=n_draws)
    db = _draw_pi_bar(pb.nu, pb.w, rng, n=n_draws)
    mc = float((da > db).mean())
    assert exact == pytest.approx(mc, abs=4 * np.sqrt(mc * (1 - mc) / n_draws) + 5e-4)
    mu_a, s_a = be.bayes(Ra, prior="uniform")
    mu_b, s_b = be.bayes(Rb, prior="uniform")
    assert normal == pytest.approx(stats.norm.cdf((mu_a - mu_b) / np.hypot(s_a, s_b)), abs=1e-14)
    # symmetry
    assert prob_better(Rb, Ra, prior="uniform", method="exact") == pytest.approx(
        1 - exact, abs=1e-6
    )
    # the default: the learned prior of each model, the normal method of §2.5
    mu_a, s_a = be.bayes(Ra)
    mu_b, s_b = be.bayes(Rb)
    assert prob_better(Ra, Rb) == pytest.approx(
        stats.norm.cdf((mu_a - mu_b) / np.hypot(s_a, s_b)), abs=1e-14
    )


def _two_beta_lower(s2, a1, b1, a2, b2):
    """P(Y1 + Y2 <= s2), s2 <= 1, Y_i ~ Beta(a_i, b_i), by adaptive quadrature of
    int_0^s2 I_{s2-y}(a1, b1) f2(y) dy, the singular factors y^(a2-1) and (s2-y)^a1 taken as
    weights (I_z(a, b) / z^a is smooth)."""
    if s2 <= 0.0:
        return 0.0
    c1, c2 = 1.0 / (a1 * beta_fn(a1, b1)), 1.0 / beta_fn(a2, b2)

    def left(y):
        return betainc(a1, b1, s2 - y) * (1 - y) ** (b2 - 1) * c2

    def right(y):
        z = s2 - y
        za = z**a1 if z > 0 else 0.0
        ratio = c1 if za == 0 else betainc(a1, b1, z) / za  # I_z(a, b) / z^a -> c1 at 0
        return ratio * (1.0 if s2 == 1 else (1 - y) ** (b2 - 1)) * y ** (a2 - 1) * c2

    opts = {"epsabs": 1e-16, "epsrel": 1e-12, "limit": 400}
    v1 = quad(left, 0.0, s2 / 2, weight="alg", wvar=(a2 - 1, 0), **opts)[0]
    wvar = (0, a1 + b2 - 1) if s2 == 1 else (0, a1)
    v2 = quad(right, s2 / 2, s2, weight="alg", wvar=wvar, **opts)[0]
    return v1 + v2


def _two_binary_questions(nu):
    """Exact CDF and quantiles of the mean of two binary questions (quadrature)."""
    (b1, a1), (b2, a2) = nu

    def cdf(s):
        if 2 * s <= 1:
            return _two_beta_lower(2 * s, a1, b1, a2, b2)
        return 1 - _two_beta_lower(2 - 2 * s, b1, a1, b2, a2)

    def sf(s):
        if 2 * s >= 1:
            return _two_beta_lower(2 - 2 * s, b1, a1, b2, a2)
        return 1 - _two_beta_lower(2 * s, a1, b1, a2, b2)

    def ppf(p):  # in log-distance from the nearer end: quantiles can be 1e-17 from it
        if p < 0.5:
            u = brentq(lambda u: cdf(np.exp(u) / 2) - p, -600, np.log(2.0), xtol=1e-14)
            return np.exp(u) / 2
        u = brentq(lambda u: sf(1 - np.exp(u) / 2) - (1 - p), -600, np.log(2.0), xtol=1e-14)
        return 1 - np.exp(u) / 2

    return cdf, ppf


def _fine_reference(nu, w):
    """CDF and quantile function on a 16 times finer lattice, a 4 times finer lattice of
    distances from the ends and 1024 exact CDF values per spline window."""
    h = ep.lattice_step([nu], w) / 16
    cells, cell_means = et._ZOOM_CELLS, et._cell_means

    def finer_cell_means(edges, c, b, window, n_cheb=1024):
        return cell_means(edges, c, b, window, n_cheb=1024)

    def finer(method):
        def call(x):  # the lattice laws (lattice) and the refinements (refinements)
            et._ZOOM_CELLS, et._cell_means = 4 * cells, finer_cell_means
            el._cell_means = finer_cell_means
            try:
                return method(x)
            finally:
                et._ZOOM_CELLS, et._cell_means = cells, cell_means
                el._cell_means = cell_means

        return call

    dist = finer(lambda step: exact_posterior(nu, w, step=step))(h)
    return finer(dist.cdf), finer(dist.ppf)


# confidence: (bound on the endpoint errors in posterior sd, bound on the tail-mass errors)
_ACCURACY = {0.5: (2e-4, 1e-4), 0.95: (2e-4, 1e-5), 0.999: (1e-3, 1e-6)}
DATA_KINDS = ("wrong", "right", "half", "middle", "random")


def accuracy_case(alpha0, w, m, n, data, rng, confidences=tuple(_ACCURACY)):
    """The interval of one data set against an independent reference, at every level of
    ``confidences`` (one reference for all of them): ``[(confidence, reference kind, lo, hi,
    |endpoint error| / posterior sd, |tail-mass error|), ...]``.

    ``data`` is all-wrong, all-correct, half-and-half, all-middle (rubrics) or random answers.
    References: scipy's beta quantiles (M = 1 binary), numerical convolution by quadrature
    (M = 2 binary, alpha0 < 10: not concentrated), otherwise a 16 times finer computation. The
    tail-mass error is not taken for an endpoint within 1e-8 of 1, where the spacing of
    floats (1e-16) is not small against the distance: all-correct data under alpha0 = 0.05
    has 97.5% points 1 - 1e-17 and closer. Also used by ``benchmarks/bench_exact_accuracy.py``
    (the whole sweep)."""
    R = np.zeros((m, n), dtype=int)
    if data == "right":
        R[:] = w.size - 1
    elif data == "half":
        R[m // 2 :] = w.size - 1
    elif data == "middle":
        R[:] = 1
    elif data == "random":
        R = rng.integers(0, w.size, size=(m, n))
    nu = be.dirichlet_posterior(R, w, alpha0=alpha0).nu
    if m == 1 and w.size == 2:
        kind = "beta"
        a, b = nu[0, 1], nu[0, 0]
        cdf = lambda x: stats.beta.cdf(x, a, b)  # noqa: E731
        ppf = lambda p: stats.beta.ppf(p, a, b)  # noqa: E731
    elif m == 2 and w.size == 2 and alpha0 < 10:
        kind = "quadrature"
        cdf, ppf1 = _two_binary_questions(nu)
        ppf = lambda p: np.array([ppf1(x) for x in p])  # noqa: E731
    else:
        kind = "16x finer"
        cdf, ppf = _fine_reference(nu, w)
    sd = exact_posterior(nu, w).sd
    out = []
    for confidence in confidences:
        tail = 0.5 * (1 - confidence)
        lo, hi = exact_interval(nu, w, confidence)
        assert 0.0 <= lo <= hi <= 1.0
        q = ppf(np.array([tail, 1 - tail]))
        err_q = max(abs(lo - q[0]), abs(hi - q[1])) / sd
        err_mass = max(  # near 1 only if float spacing 1e-16 << 1 - hi
            abs(float(cdf(lo)) - tail) if lo > 0 else 0.0,
            abs(1 - float(cdf(hi)) - tail) if hi < 1 - 1e-8 else 0.0,
        )
        out.append((confidence, kind, lo, hi, err_q, err_mass))
    return out


#: (alpha0, rubric, M, N, data): every case with a closed-form (scipy beta) or quadrature
#: reference (binary, M = 1 or 2; milliseconds each) and a few of each kind against the 16
#: times finer computation: binary M = 5 and 30 (all-wrong tail at 0, all-correct at 1,
#: large alpha0); rubric all-wrong near 0 with alpha0 = 0.05 (the audit's tail), all-correct
#: near 1, all-middle and half-and-half (the interior concentration), random answers at
#: M = 5 and 30.
_REPRESENTATIVE = [
    (a0, False, m, n, data)
    for a0 in (0.05, 0.5, 1.0, 10.0)
    for m in (1, 2)
    for n in (1, 16)
    for data in ("wrong", "right", "half", "random")
] + [
    (0.05, False, 5, 1, "wrong"),
    (0.5, False, 30, 16, "right"),
    (10.0, False, 30, 16, "random"),
    (0.05, True, 5, 1, "wrong"),
    (0.5, True, 5, 16, "right"),
    (0.05, True, 2, 16, "middle"),
    (0.05, True, 2, 16, "half"),
    (10.0, True, 5, 1, "random"),
    (1.0, True, 30, 1, "random"),
]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
def test_accuracy_against_independent_references():
    """The accuracy stated in the module docstring, on the representative cases above, at
    the 50%, 95% and 99.9% levels: endpoint errors in posterior sd and tail-mass errors within
    ``_ACCURACY``. The full sweep of the docstring's table (288 cases per level) is
    ``benchmarks/bench_exact_accuracy.py``."""
    rng = np.random.default_rng(7)
    for alpha0, rubric, m, n, data in _REPRESENTATIVE:
        w = RUBRIC if rubric else BINARY
        for confidence, kind, *_, err_q, err_mass in accuracy_case(alpha0, w, m, n, data, rng):
            case = (alpha0, w.size - 1, m, n, data, confidence, kind, err_q, err_mass)
            assert err_q < _ACCURACY[confidence][0], case
            assert err_mass < _ACCURACY[confidence][1], case
