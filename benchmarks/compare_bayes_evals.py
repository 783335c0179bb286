"""Paired comparisons: bayes_eval's exact joint-table posterior against the bivariate-Gaussian
copula model of Bowyer, Aitchison and Ivanova ("Position: Don't use the Central Limit Theorem
in LLM evaluations with fewer than a few hundred datapoints"; their package ``bayes_evals``).

Public example: the LangChain tool-use benchmark results that ``bayes_evals`` ships as its
example (9 LLMs x 20 questions, binary; reproduced below as data). Their paired model: a
latent bivariate normal per question with margins ``Phi^-1(theta_A)``, ``Phi^-1(theta_B)`` and
correlation rho; priors theta ~ U(0, 1), rho ~ U(-1, 1); the posterior P(theta_A > theta_B)
estimated by importance sampling from the prior (10,000 draws). Here that model is computed
by quadrature on a 240 x 240 x 120 grid (probit scale for theta) (the value their importance sampler estimates; our own
code, written from the paper's description) and by importance sampling with their sample size
over 20 seeds (its Monte Carlo spread), beside our exact Dirichlet(1, 1, 1, 1) formula
P(Beta(1 + n_A, 1 + n_B) > 1/2).

Run: ``.venv/bin/python benchmarks/compare_bayes_evals.py``; ``--smoke``: a 60 x 60 x 30 grid
and 2 importance-sampling seeds (seconds); ``--json``: the same numbers as JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np
from scipy.special import ndtr, ndtri, owens_t

from bayes_eval.ranking.paired import compare_pairs

MODELS = [
    "claude-2.1",
    "mixtral-8x7b-instruct",
    "mistral-7b-instruct",
    "gpt-3.5-turbo-0613",
    "gpt-3.5-turbo-1106",
    "gpt-4-0613",
    "gpt-4-1106-preview",
    "llama-v2-13b-chat",
    "llama-v2-70b-chat",
]
# rows: questions; columns: MODELS (1 = correct)
DATA = """
101101100 110111100 110110100 100011000 110110100 110101100 110101100 110000100 100101100
110001100 100001100 110000101 110100101 110000100 110100100 100000000 110000100 100000100
100010100 100100100
"""


def table() -> np.ndarray:
    rows = DATA.split()
    return np.array([[int(c) for c in r] for r in rows], dtype=float).T  # (models, questions)


def both_wrong(mu_a, mu_b, rho):
    """P(Z_A <= 0, Z_B <= 0) for a bivariate normal with means mu, unit variances, corr rho:
    Phi2(h, k; rho) with h = -mu_a, k = -mu_b, through Owen's T function."""
    h, k = -mu_a, -mu_b
    s = np.sqrt(1.0 - rho * rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = owens_t(h, (k - rho * h) / (h * s)) + owens_t(k, (h - rho * k) / (k * s))
    corr = np.where((h * k < 0) | ((h * k == 0) & (h + k < 0)), 0.5, 0.0)
    return 0.5 * (ndtr(h) + ndtr(k)) - t - corr


def cells(theta_a, theta_b, rho):
    v = both_wrong(ndtri(theta_a), ndtri(theta_b), rho)
    return theta_a + theta_b + v - 1.0, 1.0 - theta_b - v, 1.0 - theta_a - v, v  # S, T, U, V


def copula_quadrature(n, grid=240, grid_rho=120):
    """P(theta_A > theta_B) under the copula model by a midpoint rule in the probit scale
    (theta = Phi(z), prior density phi(z): resolves theta near 0 or 1) and in rho."""
    z = -7.0 + (np.arange(grid) + 0.5) * 14.0 / grid
    rho = -1.0 + (np.arange(grid_rho) + 0.5) * 2.0 / grid_rho
    za, zb, r = np.meshgrid(z, z, rho, indexing="ij")
    a, b = ndtr(za), ndtr(zb)
    s, t, u, v = cells(a, b, r)
    with np.errstate(divide="ignore", invalid="ignore"):
        loglik = n[0] * np.log(s) + n[1] * np.log(t) + n[2] * np.log(u) + n[3] * np.log(v)
        loglik += -0.5 * (za**2 + zb**2)  # the uniform prior of theta in the probit scale
    loglik = np.where(np.isfinite(loglik), loglik, -np.inf)
    w = np.exp(loglik - loglik.max())
    # cells on the diagonal (same theta for A and B) count half
    return float((w[za > zb].sum() + 0.5 * w[za == zb].sum()) / w.sum())


def copula_importance(n, rng, draws=10_000):
    """Their estimator: importance sampling from the prior (weights = likelihood)."""
    a, b = rng.random(draws), rng.random(draws)
    r = rng.uniform(-1, 1, draws)
    s, t, u, v = cells(a, b, r)
    with np.errstate(divide="ignore", invalid="ignore"):
        loglik = n[0] * np.log(s) + n[1] * np.log(t) + n[2] * np.log(u) + n[3] * np.log(v)
    loglik = np.where(np.isfinite(loglik), loglik, -np.inf)
    w = np.exp(loglik - loglik.max())
    return float(w[a > b].sum() / w.sum())


def main(argv: list[str] | None = None) -> int:
    from scipy.stats import multivariate_normal

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a coarse grid, 2 seeds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    grid, grid_rho, seeds = (60, 30, 2) if args.smoke else (240, 120, 20)
    say = (lambda *a: None) if args.json else print
    check = multivariate_normal([0.3, -0.2], [[1, 0.6], [0.6, 1]]).cdf([0.0, 0.0])
    assert abs(both_wrong(np.array(0.3), np.array(-0.2), np.array(0.6)) - check) < 1e-6
    x = table()
    t0 = time.perf_counter()
    ours = compare_pairs(x[..., None], prior="uniform", models=MODELS)
    seconds = time.perf_counter() - t0
    order = np.argsort(-x.mean(axis=1), kind="stable")
    rng = np.random.default_rng(0)
    say(
        f"{len(MODELS)} models x {x.shape[1]} questions; ours (all pairs) in {seconds * 1e3:.1f} ms"
    )
    say(f"{'A':>22} {'B':>22}  nA nB  exact(Dir)  copula(quad)  copula IS mean +- sd  indep")
    diffs, rows = [], []
    for i, j in itertools.pairwise(order):
        a, b = x[i], x[j]
        n = np.array([a @ b, a @ (1 - b), (1 - a) @ b, (1 - a) @ (1 - b)])
        quad = copula_quadrature(n, grid, grid_rho)
        isamp = [copula_importance(n, rng) for _ in range(seeds)]
        diffs.append(ours.paired[i, j] - quad)
        rows.append(
            {
                "A": MODELS[i],
                "B": MODELS[j],
                "exact_dirichlet": float(ours.paired[i, j]),
                "copula_quadrature": quad,
                "copula_is_mean": float(np.mean(isamp)),
                "copula_is_sd": float(np.std(isamp)),
            }
        )
        say(
            f"{MODELS[i]:>22} {MODELS[j]:>22}  {int(n[1]):2d} {int(n[2]):2d}  "
            f"{ours.paired[i, j]:10.4f}  {quad:12.4f}  {np.mean(isamp):9.4f} +- {np.std(isamp):.4f}"
            f"  {ours.independent[i, j]:.4f}"
        )
    worst = float(np.max(np.abs(diffs)))
    say(f"largest |ours - copula| over adjacent pairs: {worst:.4f}")
    if args.json:
        doc = {"ours_seconds": seconds, "pairs": rows, "largest_abs_difference": worst}
        print(json.dumps(doc, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
