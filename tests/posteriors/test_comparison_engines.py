"""The comparison engines: the vectorised normal matrix against the per-pair reference, and
the exact mixture comparison one number for a pair and for a batch."""

from __future__ import annotations

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.posteriors import comparisons
from bayes_eval.posteriors.priors import Prior


def _board(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, size=(1, 30, 1)) * np.array([0.6, 0.7, 0.8, 0.95])[:, None, None]
    return (rng.random((4, 30, 3)) < p).astype(int)


@pytest.mark.parametrize("pool", ["model", "benchmark"])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_normal_matrix_is_the_per_pair_formula(pool, seed):
    post = be.posterior(_board(seed), prior=Prior.parse("empirical", pool=pool))
    assert post.n_nodes > 1 and post.shared_nodes == (pool == "benchmark")
    matrix = comparisons._normal_matrix(post)
    n = post.n_models
    pairs = np.array(
        [
            [
                0.5 if i == j else comparisons._pair_normal(post, i, post, j, post.shared_nodes)
                for j in range(n)
            ]
            for i in range(n)
        ]
    )
    # the same formula, vectorised: equal to rounding
    np.testing.assert_allclose(matrix, pairs, rtol=0, atol=1e-12)


@pytest.mark.slow  # exact mixture laws of four models: about 5 s on two cores
def test_the_exact_mixture_comparison_is_one_number_for_a_pair_and_a_batch():
    post = be.posterior(_board(2), prior=Prior.parse("empirical", pool="model"))
    assert post.n_nodes > 1 and not post.shared_nodes
    batch = np.asarray(post.prob_better(method="exact"))
    for i, j in ((0, 1), (1, 3), (3, 0)):
        pair = float(np.asarray(post[[i]].prob_better(post[[j]], method="exact"))[0])
        # one grid rule (steps at most sd / 100): the grids differ only in their span, so the
        # two trapezoid sums agree far below the printed 3-4 digits
        assert pair == pytest.approx(batch[i, j], abs=1e-6)
    np.testing.assert_allclose(batch + batch.T, 1.0, atol=1e-12)  # exactly complementary
