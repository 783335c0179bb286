"""Worked examples printed in the scorio documentation and on the project page of Hariri et
al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", to their
digits."""

from __future__ import annotations

import numpy as np

import bayes_eval as be

R_CAT = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
W3 = np.array([0.0, 0.5, 1.0])


def test_categorical_example_scorio_docs():
    mu, sigma = be.bayes(R_CAT, W3, prior="uniform")
    assert (round(mu, 6), round(sigma, 6)) == (0.5625, 0.091998)
    mu, sigma, lo, hi = be.bayes_ci(R_CAT, W3, prior="uniform", interval="normal")
    assert (round(lo, 6), round(hi, 6)) == (0.382188, 0.742812)


def test_greedy_prior_example_scorio_docs():
    mu, sigma = be.bayes(R_CAT, W3, np.array([[2], [1]]), prior="uniform")
    assert (round(mu, 6), round(sigma, 6)) == (0.583333, 0.085165)


def test_two_prior_columns_docstring():
    mu, sigma = be.bayes(R_CAT, W3, np.array([[0, 2], [1, 2]]), prior="uniform")
    assert (round(mu, 6), round(sigma, 6)) == (0.575, 0.084275)


def test_confidence_rubric_scorio_docs():
    R_conf = np.array([[3, 2, 3, 1, 3], [2, 3, 0, 3, 1]])
    mu, sigma, lo, hi = be.bayes_ci(
        R_conf, [0.0, 0.0, 0.25, 1.0], prior="uniform", interval="normal"
    )
    assert [round(x, 6) for x in (mu, sigma, lo, hi)] == [0.444444, 0.100539, 0.247392, 0.641497]


def test_top_p_examples_project_page():
    top_p = np.array(
        [
            [1, 1, 1, 1, 0, 1, 1],
            [1, 0, 0, 1, 0, 0, 1],
            [0, 0, 0, 0, 1, 0, 0],
            [1, 1, 1, 0, 1, 1, 0],
            [0, 0, 1, 0, 0, 0, 0],
        ]
    )
    greedy = np.array([[1], [1], [0], [1], [0]])
    out = be.bayes_ci(top_p, prior="uniform", interval="normal")
    assert [round(x, 4) for x in out] == [0.4667, 0.0629, 0.3435, 0.5899]
    out = be.bayes_ci(top_p, R0=greedy, prior="uniform", interval="normal")
    assert [round(x, 4) for x in out] == [0.4800, 0.0585, 0.3654, 0.5946]


def test_binary_docstring_examples():
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
    mu, sigma, lo, hi = be.bayes_ci(R, bounds=(0.0, 1.0), prior="uniform", interval="normal")
    assert (round(mu, 6), round(sigma, 6), round(lo, 4), round(hi, 4)) == (
        0.642857,
        0.118451,
        0.4107,
        0.875,
    )
    assert [round(x, 6) for x in be.avg(R)] == [0.7, 0.165831]
    latent = be.avg_ci(
        R, bounds=(0.0, 1.0), scale="latent", prior="uniform"
    )  # the paper's eq. 20 scale
    assert [round(x, 4) for x in latent] == [0.7, 0.1658, 0.375, 1.0]
    assert round(be.pass_at_k(R, 1), 6) == 0.7
    assert round(be.pass_at_k(R, 2), 6) == 0.95
    assert round(be.pass_hat_k(R, 2), 6) == 0.45
    assert round(be.g_pass_at_k_tau(R, 2, 0.5), 6) == 0.95
    assert round(be.g_pass_at_k_tau(R, 2, 1.0), 6) == 0.45
    assert round(be.mg_pass_at_k(R, 2), 6) == 0.45
    assert round(be.mg_pass_at_k(R, 3), 6) == 0.166667
    out = be.pass_at_k_ci(R, 2, prior="uniform")
    assert (round(out[0], 6), round(out[1], 6), round(out[2], 4), round(out[3], 4)) == (
        0.839286,
        0.097263,
        0.6487,
        1.0,
    )
    out = be.pass_hat_k_ci(R, 2, prior="uniform")
    assert (round(out[0], 6), round(out[1], 6), round(out[2], 4), round(out[3], 4)) == (
        0.446429,
        0.146167,
        0.1599,
        0.7329,
    )


def test_token_ratio_example_project_page_against_scorio():
    from scorio import eval as scorio_eval

    correctness = np.array([[1, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 1], [1, 1, 0, 0]])
    token_ratio = np.array(
        [
            [0.80, 1.60, 0.90, 1.10],
            [1.40, 1.00, 1.70, 0.70],
            [1.80, 0.90, 1.40, 0.95],
            [0.85, 1.30, 1.10, 1.60],
        ]
    )
    verbose = token_ratio > 1.20
    R_cat = np.where(correctness == 1, np.where(verbose, 2, 3), np.where(verbose, 0, 1))
    w = np.array([0.0, 0.2, 0.75, 1.0])
    np.testing.assert_allclose(
        be.bayes(correctness, prior="uniform"), scorio_eval.bayes(correctness), atol=1e-14
    )
    np.testing.assert_allclose(
        be.bayes(R_cat, w, prior="uniform"), scorio_eval.bayes(R_cat, w), atol=1e-14
    )
