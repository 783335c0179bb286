"""The exact kernels behind ``stability`` (issue 28): integer score tables against exact
rational arithmetic, the packed fast path (``convergence_packed``) against the rounded float
reference path (``convergence``), the pair-counting agreement against scipy's Kendall tau_b,
and the trial blocks against ``prefix_counts`` (same random draws)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import kendalltau

from bayes_eval.ranking import convergence as cv
from bayes_eval.ranking import convergence_agreement as ca
from bayes_eval.ranking import convergence_packed as cp
from bayes_eval.synthetic.biased_coin import mimic_probabilities, simulate_results

METHODS = (
    "bayes",
    "pass_at_k:1",
    "pass_at_k:3",
    "pass_hat_k:4",
    "g_pass_at_k_tau:5:0.6",
    "mg_pass_at_k:5",
)


@pytest.mark.parametrize("name", METHODS[1:])
def test_integer_table_is_the_exact_unbiased_estimate(name):
    m = cv.parse_method(name)
    n_max = 12
    table, scale = cp._integer_table(m, n_max)
    credit = [Fraction(float(a)).limit_denominator(1000) for a in m.credit]
    for s in range(n_max + 1):
        for c in range(s + 1):
            if s < m.k:
                assert table[s, c] == 0 and np.isnan(scale[s])
                continue
            # App. H eqs. 21-24 of Hariri et al. in exact rationals: sum_j A_j Hyp(j; s, c, k)
            want = sum(
                a * math.comb(c, j) * math.comb(s - c, m.k - j) for j, a in enumerate(credit)
            ) / math.comb(s, m.k)
            assert Fraction(int(table[s, c])) / Fraction(scale[s]) == want, (s, c)
    # and the float table of the rounded path, to the last bits (c <= s)
    valid = np.tril(np.ones((n_max + 1, n_max + 1), dtype=bool))
    np.testing.assert_allclose(
        (table / scale[:, None])[valid], cv.score_table(m, n_max)[valid], rtol=1e-15, equal_nan=True
    )


def test_packing_keeps_every_sum_apart():
    pass_family = [cv.parse_method(n) for n in cv.DEFAULT_METHODS[1:]]
    # 17, 26, 40, 26, 26 and 27 bits for 30 questions and 80 trials: three 63-bit words
    assert len(cp._packed_tables(pass_family, 80, 30).words) == 3
    parsed = [cv.parse_method(n) for n in cv.DEFAULT_METHODS]
    packed = cp._packed_tables(parsed, 80, 30)
    rng = np.random.default_rng(0)
    counts = np.sort(rng.integers(0, 81, (30, 500)), axis=0)  # questions x draws, step 80
    for i, m in enumerate(parsed):
        table, _ = cp._integer_table(m, 80)
        want = table[80][counts].sum(axis=0)
        got = (packed.words[packed.word[i]][80][counts].sum(axis=0) >> packed.shift[i]) & (
            (1 << packed.bits[i]) - 1
        )
        np.testing.assert_array_equal(got, want)
    assert cp._packed_tables([cv.parse_method("pass_at_k:40")], 200, 30) is None  # too wide
    assert cp._integer_table(cv.parse_method("pass_at_k:99"), 100) is None  # C(100, 50) > 2^62


def test_agreement_is_kendall_tau_b_and_the_exact_match(rng):
    gold = np.array([3.0, 1, 4, 1, 5, 9, 2, 6])  # a tie in gold
    x = rng.integers(0, 5, size=(400, 8)).astype(float)
    x[:3] = np.round(gold * 7)  # exact matches
    x[3] = np.nan
    gk = cv._gold(gold)
    tau, match = ca._agreement(np.ascontiguousarray(x[:, gk.order].T), gk)
    want = np.array([kendalltau(r, gold).statistic if not np.isnan(r).any() else np.nan for r in x])
    np.testing.assert_allclose(tau, want, atol=1e-14, equal_nan=True)
    np.testing.assert_array_equal(match, cv.ranking_matches(x, gold))
    assert match[:3].all() and not match[3]


def test_trial_blocks_are_the_draws_of_prefix_counts():
    R = (np.random.default_rng(1).random((3, 4, 7)) < 0.5).astype(np.int8)
    for scheme, replace in (("column", False), ("column", True), ("row", True)):
        kw = dict(scheme=scheme, replicates=9, replace=replace, chunk=4, seed=5)
        for trials, counts in zip(
            cp._trial_blocks(R, **kw), cv.prefix_counts(R, **kw), strict=True
        ):
            np.testing.assert_array_equal(np.cumsum(trials, axis=0).transpose(3, 2, 0, 1), counts)


def test_packed_path_gives_the_numbers_of_the_rounded_path(monkeypatch):
    R = simulate_results(mimic_probabilities(seed=0)[::2], 16, seed=2)
    kw = dict(scheme="column", replicates=150, replace=False, seed=3, chunk=40)
    fast = cv.stability(R, METHODS, **kw)
    monkeypatch.setattr(cp, "_packed_tables", lambda *a: None)  # the float tables instead
    slow = cv.stability(R, METHODS, **kw)
    np.testing.assert_array_equal(fast.convergence, slow.convergence)
    np.testing.assert_array_equal(fast.tau, slow.tau)
    np.testing.assert_array_equal(fast.tau_mean, slow.tau_mean)
    np.testing.assert_array_equal(fast.worst_replicate, slow.worst_replicate)
    np.testing.assert_allclose(fast.worst_scores, slow.worst_scores, rtol=1e-14, equal_nan=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lookup", ["pairs", "single"])
def test_fast_path_equals_the_reference_on_random_boards(seed, lookup, monkeypatch):
    """The packed path and the float reference path, block by block, on random boards (sizes,
    success rates, gold ties, schemes): the same taus and exact matches, bit for bit, and the
    same scores of every replicate up to the float tables' rounding."""
    rng = np.random.default_rng(seed)
    L, M, N = int(rng.integers(3, 9)), int(rng.integers(1, 12)), int(rng.integers(6, 15))
    scheme = ("column", "row", "given")[seed % 3]
    shape = (5, L, M, N) if scheme == "given" else (L, M, N)
    R = (rng.random(shape) < rng.beta(0.7, 0.7, size=(*shape[:-1], 1))).astype(np.int8)
    R[..., 1, :, :] = R[..., 0, :, :]  # two tied models: gold ties
    parsed = [cv.parse_method(n) for n in (*METHODS, "pass_at_k:2", "g_pass_at_k_tau:4:0.3")]
    base = R if R.ndim == 3 else R[0]
    gold = cv._gold(base.sum(axis=(1, 2)).astype(float))
    draws = dict(scheme=scheme, replicates=37, replace=bool(seed % 2), chunk=16, seed=seed)
    packed = cp._packed_tables(parsed, N, M)
    assert packed is not None
    monkeypatch.setattr(cp, "_PAIR_PAYBACK" if lookup == "pairs" else "_PAIR_BYTES", 0)
    fast = cp._packed_blocks(R, parsed, gold, packed, draws)
    reference = cv._float_blocks(R, parsed, gold, False, draws)
    blocks = 0
    for (tau_f, match_f, scores_f), (tau_r, match_r, scores_r) in zip(fast, reference, strict=True):
        np.testing.assert_array_equal(tau_f, tau_r)
        np.testing.assert_array_equal(match_f, match_r)
        for i in range(len(parsed)):
            for j in range(tau_f.shape[1]):
                np.testing.assert_allclose(
                    scores_f[i](j), scores_r[i](j), rtol=1e-13, equal_nan=True
                )
        blocks += 1
    assert blocks == (1 if scheme == "given" else 3)
