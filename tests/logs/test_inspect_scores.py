"""Per-epoch Inspect scores -> Bayes@N (bayes_eval.logs.inspect_scores): no Inspect needed.

The posterior moments are checked against the Dirichlet formulas written out by hand
(Hariri et al., "Don't Pass@k", eq. 15: a question with counts n under Dir(1) has posterior
Dir(1 + n); E[w.pi] = w.a / A, Var[w.pi] = (w^2.a / A - E^2) / (A + 1), and pi-bar averages
M independent questions), to 1e-12: the same arithmetic in another order.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from bayes_eval.logs.inspect_scores import (
    MAX_GRID_LEVELS,
    epoch_bayes_ci,
    epoch_results,
    score_value,
)
from bayes_eval.metrics.bayes import bayes_ci


def _by_hand(counts, w, confidence=0.95):
    """mu, sigma and the normal interval (interval="normal") clipped into [0, 1] under Dir(1):
    counts (M, K)."""
    a = np.asarray(counts, float) + 1.0
    A = a.sum(1)
    w = np.asarray(w, float)
    m = a @ w / A
    v = (a @ w**2 / A - m**2) / (A + 1)
    mu, sigma = m.mean(), np.sqrt(v.sum()) / len(m)
    z = norm.ppf(0.5 + confidence / 2)
    return mu, sigma, max(mu - z * sigma, 0.0), min(mu + z * sigma, 1.0)


def test_letters_with_a_missing_epoch_match_the_dirichlet_formulas():
    # 3 samples x 4 epochs in scrambled order; sample "b" lost an epoch (no score at all),
    # sample "c" has an unscored epoch (NaN, Inspect's sentinel): both are missing trials
    ids = ["a", "b", "c", "a", "c", "b", "a", "c", "b", "a", "c"]
    vals = ["C", "I", "C", "C", "I", "I", "I", "C", "C", "C", float("nan")]
    out = epoch_bayes_ci(ids, vals, prior="uniform", interval="normal")
    # a: 3 C 1 I; b: 1 C 2 I; c: 2 C 1 I
    expected = _by_hand([[1, 3], [2, 1], [1, 2]], [0, 1])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)
    found = epoch_results(ids, [score_value(x) for x in vals])
    assert found.questions.tolist() == ["a", "b", "c"] and not found.fractional
    assert found.R.shape == (3, 4) and found.mask.sum() == 2
    np.testing.assert_array_equal(found.w, [0, 1])


def test_partial_credit_is_three_categories_with_inspects_weights():
    ids = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    vals = ["C", "P", "P", "I", "N", "P", "C", "C", "C"]
    found = epoch_results(ids, [score_value(x) for x in vals])
    np.testing.assert_array_equal(found.w, [0, 0.5, 1])
    assert found.mask is None
    out = epoch_bayes_ci(ids, vals, prior="uniform", interval="normal", confidence=0.9)
    expected = _by_hand([[0, 2, 1], [2, 1, 0], [0, 0, 3]], [0, 0.5, 1], confidence=0.9)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)


def test_numbers_off_the_grid_are_graded_and_quarters_are_categories():
    ids = ["x", "x", "y", "y"]
    graded = [0.3, 0.8, 1.0, 0.45]
    found = epoch_results(ids, graded)
    assert found.fractional and found.w is None
    out = epoch_bayes_ci(ids, graded, prior="uniform", interval="normal")
    # fractional counts: s to the correct and 1 - s to the wrong category
    expected = _by_hand([[0.9, 1.1], [0.55, 1.45]], [0, 1])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=0)
    quarters = epoch_results(ids, [0.25, 0.75, 1.0, 0.0])
    assert not quarters.fractional and quarters.w.size == MAX_GRID_LEVELS == 5
    np.testing.assert_array_equal(quarters.R, [[1, 3], [4, 0]])
    tenths = epoch_results(ids, [0.1, 0.7, 1.0, 0.0])  # a grid finer than quarters
    assert tenths.fractional
    rounded = epoch_results(ids, [0.1, 0.7, 1.0, 0.0], levels=3)  # score_levels' rounding
    np.testing.assert_array_equal(rounded.R, [[0, 1], [2, 0]])


def test_arrangement_matches_a_brute_force_grouping(rng):
    ids = rng.integers(0, 7, size=60)
    vals = rng.integers(0, 2, size=60).astype(float)
    vals[rng.random(60) < 0.1] = np.nan
    before = vals.copy()
    found = epoch_results(ids.tolist(), vals)
    np.testing.assert_array_equal(vals, before)  # the input is not modified
    for row, q in enumerate(found.questions):
        mine = vals[(ids.astype(str) == q) & ~np.isnan(vals)]
        got = found.R[row][~found.mask[row]] if found.mask is not None else found.R[row]
        assert sorted(got.tolist()) == sorted(mine.astype(int).tolist())
    # the learned prior (the default) sees the same matrix as bayes_ci given it directly
    out = epoch_bayes_ci(ids.tolist(), vals)
    direct = bayes_ci(found.R, found.w, prior="empirical", mask=found.mask, bounds="support")
    np.testing.assert_allclose(out, direct, rtol=1e-12)
    # the order in which Inspect hands over the epochs does not matter
    order = rng.permutation(ids.size)
    np.testing.assert_allclose(epoch_bayes_ci(ids[order].tolist(), vals[order]), out, rtol=1e-12)


@pytest.mark.parametrize(
    ("value", "number"),
    [("C", 1.0), ("p", 0.5), (" I ", 0.0), ("N", 0.0), (True, 1.0), ("yes", 1.0), ("0.25", 0.25)],
)
def test_score_values_read_as_inspect_reads_them(value, number):
    assert score_value(value) == number


@pytest.mark.parametrize(
    ("ids", "values", "message"),
    [
        ([1], ["maybe"], r"score value 'maybe' is not C/P/I/N"),
        ([1], [[1, 0]], r"is a list; expected a number"),
        ([1], [{"a": 1}], r"metrics=\{key: \[bayes_at_n\(\)\]\}"),
        ([1, 2], [1.5, 0], r"contain 1.5 at index \(0,\); expected graded scores in \[0, 1\]"),
        ([1, 2], [1.0], r"2 sample ids and 1 score values"),
        ([1, 2], [float("nan")] * 2, r"no scored epoch"),
    ],
)
def test_bad_scores_are_refused_with_what_was_expected(ids, values, message):
    with pytest.raises(ValueError, match=message):
        epoch_bayes_ci(ids, values)


def test_one_run_learns_the_same_prior_whatever_the_pool():
    # bayes_at_n's docstring: one Inspect run holds one model, so every pool learns the prior
    # from that model's questions alone
    ids = np.repeat(np.arange(12), 4).tolist()
    vals = (np.arange(48) % 5 < np.repeat(np.arange(12) % 5, 4)).astype(float)
    pools = [epoch_bayes_ci(ids, vals, pool=p) for p in ("board", "model", "benchmark")]
    np.testing.assert_allclose(pools[1:], [pools[0]] * 2, rtol=1e-12)


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="prior is 'flat'"):
        epoch_bayes_ci([1], [1], prior="flat")
    with pytest.raises(ValueError, match="interval is 'wide'"):
        epoch_bayes_ci([1], [1], interval="wide")
    with pytest.raises(ValueError, match="levels is 1"):
        epoch_bayes_ci([1], [1], levels=1)
