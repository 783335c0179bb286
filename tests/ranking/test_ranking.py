"""Ranking with uncertainty: z, rho, competition/dense ranks, the paper's CI-aware rule (Table 1)
and the non-chaining rank interval."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import erf

from bayes_eval.ranking.ranks import (
    confidence_to_z,
    pairwise_confidence,
    pairwise_z,
    rank,
    rank_interval,
    rank_with_ci,
    ranking_confidence,
    z_score,
)


def test_z_and_rho_section_2_5():
    assert z_score(0.6, 0.03, 0.5, 0.04) == pytest.approx(0.1 / 0.05)
    assert ranking_confidence(1.645) == pytest.approx(0.95, abs=1e-4)
    z = np.linspace(0, 4, 9)
    np.testing.assert_allclose(ranking_confidence(z), 0.5 * (1 + erf(z / np.sqrt(2))), atol=1e-15)
    assert confidence_to_z(0.95) == pytest.approx(1.6448536269514722)
    assert z_score(0.5, 0.0, 0.4, 0.0) == np.inf
    assert z_score(0.5, 0.0, 0.5, 0.0) == 0.0


def test_competition_and_dense_ranks():
    mu = [0.5, 0.7, 0.5, 0.2]
    np.testing.assert_array_equal(rank(mu), [2, 1, 2, 4])
    np.testing.assert_array_equal(rank(mu, method="dense"), [2, 1, 2, 3])


def test_table_1_logic():
    """Hariri et al., "Don't Pass@k", Table 1: with the Bayes@80 order 11, 9, 10, 7, 8, 6, 5, 4,
    3, 2, 1 and the consecutive z-scores implied by the table (ties: 9~10, 7~8, 5~4~3), the
    CI-aware ranks are 1 2 2 3 3 4 5 5 5 6 7 and the ranks without CI are 1..11."""
    # means in the Bayes@80 order, sd 0.01: gaps of 0.03 separate (z = 2.1), 0.01 tie (z = 0.7)
    names = [
        "LLM11",
        "LLM9",
        "LLM10",
        "LLM7",
        "LLM8",
        "LLM6",
        "LLM5",
        "LLM4",
        "LLM3",
        "LLM2",
        "LLM1",
    ]
    gaps = [0.03, 0.01, 0.03, 0.01, 0.03, 0.03, 0.01, 0.01, 0.03, 0.03]
    mu = 0.8 - np.concatenate([[0], np.cumsum(gaps)])
    sigma = np.full(11, 0.01)
    want_ci = dict(zip(names, [1, 2, 2, 3, 3, 4, 5, 5, 5, 6, 7], strict=True))
    got = rank_with_ci(mu, sigma, z_threshold=1.645)
    assert dict(zip(names, got.tolist(), strict=True)) == want_ci
    np.testing.assert_array_equal(rank(mu, method="dense"), np.arange(1, 12))
    # input order does not matter
    perm = np.random.default_rng(0).permutation(11)
    np.testing.assert_array_equal(rank_with_ci(mu[perm], sigma[perm]), got[perm])


def test_chaining_versus_rank_intervals():
    """Means .70/.66/.62/.58, sd .02: neighbours have z = 1.41 < 1.645, so the paper's rule
    ties all four (chaining) although .70 vs .62 has z = 2.83; the rank interval does not chain."""
    mu = np.array([0.70, 0.66, 0.62, 0.58])
    sigma = np.full(4, 0.02)
    np.testing.assert_array_equal(rank_with_ci(mu, sigma), [1, 1, 1, 1])
    assert pairwise_z(mu, sigma)[0, 2] == pytest.approx(2.828427, abs=1e-6)
    lower, upper = rank_interval(mu, sigma)
    np.testing.assert_array_equal(lower, [1, 1, 2, 3])
    np.testing.assert_array_equal(upper, [2, 3, 4, 4])
    point = rank(mu)
    assert ((lower <= point) & (point <= upper)).all()
    np.testing.assert_array_equal(rank_with_ci(mu, sigma, method="competition"), [1, 1, 1, 1])


def test_pairwise_confidence_is_complementary():
    mu = np.array([0.6, 0.5, 0.55])
    sigma = np.array([0.02, 0.03, 0.0])
    p = pairwise_confidence(mu, sigma)
    np.testing.assert_allclose(p + p.T, 1.0, atol=1e-15)
    np.testing.assert_allclose(np.diag(p), 0.5)


@pytest.mark.parametrize(
    ("mu", "sigma", "match"),
    [
        ([], None, "non-empty"),
        ([0.5, np.nan], None, "non-finite"),
        ([0.5, 0.4], [0.1], "shape"),
        ([0.5, 0.4], [0.1, -1.0], ">= 0"),
    ],
)
def test_bad_ranking_input(mu, sigma, match):
    with pytest.raises(ValueError, match=match):
        rank_with_ci(mu, sigma if sigma is not None else np.zeros(len(mu)))


def test_rank_of_draws_is_the_rank_of_every_row():
    """``rank`` on a draws array ranks each row (vectorised) exactly as row-by-row calls, with
    competition ties 'min' (1 + #strictly higher) and dense ties; ``axis`` picks the model axis."""
    rng = np.random.default_rng(3)
    draws = rng.integers(0, 4, size=(2, 50, 6)).astype(float)  # many ties
    for method in ("competition", "dense"):
        got = rank(draws, method=method)
        want = np.array([[rank(row, method=method) for row in chain] for chain in draws])
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(
            rank(np.moveaxis(draws, -1, 0), method=method, axis=0), np.moveaxis(want, -1, 0)
        )
    np.testing.assert_array_equal(
        rank(draws), 1 + (draws[..., None, :] > draws[..., :, None]).sum(-1)
    )
    np.testing.assert_array_equal(rank([[3.0, 1.0, 3.0, 2.0]]), [[1, 4, 1, 3]])
    np.testing.assert_array_equal(rank([[3.0, 1.0, 3.0, 2.0]], method="dense"), [[1, 3, 1, 2]])
    assert rank(draws).dtype == np.int64


@pytest.mark.parametrize(
    ("mu", "match"),
    [
        ([], "non-empty"),
        (np.zeros((3, 0)), "non-empty"),
        (0.5, "non-empty"),
        ([0.5, np.nan], "non-finite"),
        ([[0.5, 0.4], [np.inf, 0.1]], "non-finite"),
    ],
)
def test_rank_rejects_empty_and_non_finite_values(mu, match):
    with pytest.raises(ValueError, match=match):
        rank(mu)
