"""Ranking-stability kernels (Kendall tau_b, convergence@n, bootstraps) and the studies of
Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation" (§2.7),
on small seeded sizes. Statistical assertions use the Monte Carlo standard errors the
functions return (4 SE unless stated)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import kendalltau

import bayes_eval as be
from bayes_eval.ranking.convergence import (
    convergence_at_n,
    convergence_pmf,
    kendall_tau_b,
    parse_method,
    prefix_counts,
    random_subsets,
    ranking_matches,
    score_table,
    stability,
    step_scores,
    tau_interval,
)
from bayes_eval.synthetic.biased_coin import PAPER_PI_BAR, mimic_probabilities, simulate_results


def test_kendall_tau_b_matches_scipy_with_ties(rng):
    x = rng.integers(0, 4, size=(200, 7)).astype(float)
    gold = np.array([1.0, 2, 2, 3, 4, 5, 0])
    want = np.array([kendalltau(r, gold).statistic for r in x])
    got = kendall_tau_b(x, gold)
    np.testing.assert_allclose(got, want, atol=1e-14, equal_nan=True)
    assert np.isnan(kendall_tau_b(np.full(7, 3.0), gold))  # constant ranking: undefined
    assert np.isnan(kendall_tau_b(np.r_[np.nan, gold[1:]], gold))


def test_float_noise_does_not_break_ties():
    gold = np.array([0.1, 0.2, 0.3])
    a = np.array([0.1 + 0.2, 0.3, 0.9])  # 0.30000000000000004 vs 0.3: a tie
    assert ranking_matches(np.array([0.3, 0.3, 0.9]), np.array([1.0, 1.0, 2.0]))
    assert ranking_matches(a, np.array([1.0, 1.0, 2.0]))
    assert not ranking_matches(a, gold)


def test_convergence_at_n_follows_appendix_i1():
    m = np.array(
        [
            [0, 1, 0, 1, 1, 1],  # matches from s = 4 on
            [1, 1, 1, 1, 1, 1],  # from the start
            [0, 0, 0, 0, 0, 1],  # only at N_max: s <= N_max - 1 fails -> none
            [1, 1, 1, 1, 1, 0],  # final ranking differs -> none
        ],
        dtype=bool,
    )
    np.testing.assert_array_equal(convergence_at_n(m), [4, 1, -1, -1])
    pmf, none = convergence_pmf(convergence_at_n(m), 6)
    assert none == 0.5 and pmf[0] == 0.25 and pmf[3] == 0.25 and pmf.sum() == 0.5


def test_score_table_equals_the_point_estimators():
    for name, fn in [
        ("pass_at_k:3", lambda R: be.pass_at_k(R, 3)),
        ("pass_hat_k:2", lambda R: be.pass_hat_k(R, 2)),
        ("g_pass_at_k_tau:4:0.5", lambda R: be.g_pass_at_k_tau(R, 4, 0.5)),
        ("mg_pass_at_k:4", lambda R: be.mg_pass_at_k(R, 4)),
    ]:
        method = parse_method(name)
        table = score_table(method, 9)
        for s in range(method.k, 10):
            for c in range(s + 1):
                R = np.array([[1] * c + [0] * (s - c)])
                assert table[s, c] == pytest.approx(fn(R), abs=1e-14), (name, s, c)
        assert np.isnan(table[method.k - 1]).all() if method.k > 1 else True


def test_step_scores_by_brute_force(rng):
    R = (rng.random((3, 5, 6)) < 0.5).astype(np.int8)
    block = next(prefix_counts(R, scheme="column", replicates=4, replace=True, seed=1))
    # rebuild replicate 0's resampled matrix from the counts and score it directly
    first = np.diff(np.concatenate([np.zeros((4, 3, 1, 5), np.int16), block], axis=2), axis=2)
    for name in ("bayes", "pass_at_k:2", "mg_pass_at_k:3"):
        method = parse_method(name)
        got = step_scores(block, method)
        for s in (3, 6):
            Rs = first[0, :, :s, :].transpose(0, 2, 1)  # (L, M, s)
            if name == "bayes":
                want = Rs.sum(axis=(1, 2))
            else:
                fn = be.pass_at_k if method.kind == "pass_at_k" else be.mg_pass_at_k
                want = fn(Rs, method.k) * Rs.shape[1]
            np.testing.assert_allclose(got[0, :, s - 1], want, atol=1e-12)


def test_bootstraps_resample_the_right_axes(rng):
    R = np.zeros((1, 3, 5), np.int8)
    R[0, 0] = 1  # question 0 always passes
    R[0, :, 4] = 1  # trial 4 passes on every question
    col = next(prefix_counts(R, scheme="column", replicates=50, seed=2))[:, 0, -1]  # (50, M)
    assert (col[:, 0] == 5).all()
    assert (col[:, 1] == col[:, 2]).all()  # whole trials move together
    row = next(prefix_counts(R, scheme="row", replicates=200, seed=2))[:, 0, -1]
    assert (row[:, 1] != row[:, 2]).any()  # answers of different questions move separately
    perm = next(prefix_counts(R, scheme="column", replicates=20, replace=False, seed=3))
    np.testing.assert_array_equal(perm[:, 0, -1], np.broadcast_to(R[0].sum(-1), (20, 3)))


def test_stability_given_matches_direct_computation():
    p = mimic_probabilities(seed=0)
    fresh = simulate_results(np.broadcast_to(p, (40, *p.shape)), 12, seed=5)
    st = stability(fresh, ["bayes", "pass_at_k:4"], PAPER_PI_BAR, scheme="given")
    for n in (1, 6, 12):
        # mu of equal totals differ in the last bit; round as the kernel does (ties are ties).
        # The kernel ranks by total successes: Bayes@N under the paper's uniform prior
        want = np.mean(
            [
                kendalltau(
                    PAPER_PI_BAR, np.round(be.bayes(r[..., :n], prior="uniform")[0], 12)
                ).statistic
                for r in fresh
            ]
        )
        assert st.tau_mean[0, n - 1] == pytest.approx(want, abs=1e-12)
    want = np.mean(
        [
            kendalltau(PAPER_PI_BAR, np.round(be.pass_at_k(r[..., :8], 4), 12)).statistic
            for r in fresh
        ]
    )
    assert st.tau_mean[1, 7] == pytest.approx(want, abs=1e-12)
    assert np.isnan(st.tau_mean[1, :3]).all()


@pytest.mark.slow
def test_biased_coin_study_small():
    from bayes_eval.validation import biased_coin_study as study

    ds = study.run(independent=200, bootstrap=300, progress=False, seed=1)
    tau, se = ds["tau_mean"], ds["tau_se"]
    # Bayes@N's mean tau is at least Pass@8's at every n >= 8 (within 4 MC SE) in panel a
    a = tau.sel(panel="independent")
    diff = a.sel(metric="bayes") - a.sel(metric="pass_at_k:8")
    err = np.hypot(
        se.sel(panel="independent", metric="bayes"),
        se.sel(panel="independent", metric="pass_at_k:8"),
    )
    assert (diff.sel(n=slice(8, None)) >= -4 * err.sel(n=slice(8, None))).all()
    assert float(diff.sel(n=80)) > 0.1
    # the bootstrap panels track the independent panel (the paper's "nearly identical")
    assert float(ds["max_gap_vs_independent"].sel(metric="bayes").max()) < 0.08
    # Table 1: LLM4 and LLM5 tie in the gold standard; CI-aware ranks never split a model
    assert int(ds["gold_rank"].sel(model="LLM4")) == int(ds["gold_rank"].sel(model="LLM5")) == 7
    assert (ds["rank_with_ci"] <= ds["rank_without_ci"]).all()
    json.dumps(study.summary(ds))


def test_prior_benefit_reproduces_appendix_c_qualitatively():
    from bayes_eval.validation import prior_benefit

    ds = prior_benefit.run(replicates=1500, n_max=25, progress=False, seed=2)
    d = ds["delta_tau"]
    se = ds["tau_se"]
    # small depths help at N = 1 (App. C: "already at N = 1 tau starts higher")
    for depth in (1, 2, 4):
        assert float(d.sel(depth=depth, n=1)) > 4 * float(se.sel(depth=0, n=1))
    # a deep prior hurts once N is larger
    assert float(d.sel(depth=16, n=25)) < -2 * float(se.sel(depth=16, n=25))
    # Fig. 5a: original and updated rankings agree only partly (paper: mean tau 0.88)
    assert 0.8 < float(ds["tau_original_vs_updated"].mean()) < 0.95


def test_distinguishability_study():
    from bayes_eval.validation import distinguishability

    ds = distinguishability.run(replicates=400, n_max=300, progress=False)
    p = ds["p_correct"].values
    assert p[-1] > p[79] > 0.6
    z = ds["z_expected"].values
    assert (np.diff(z) > 0).all()
    n95 = ds.attrs["n_expected_z_1.645"]
    n975 = ds.attrs["n_expected_z_1.96"]
    # z grows like sqrt(N): the two thresholds are (1.96/1.645)^2 apart
    assert n975 / n95 == pytest.approx((1.96 / 1.645) ** 2, rel=0.03)
    assert 150 < n95 < 260  # paper: about 199 for its own mimics


def test_convergence_study_and_intervals(rng):
    from bayes_eval.validation import convergence_study

    p = mimic_probabilities(seed=0)[[0, 5, 10]]
    R = simulate_results(p, 20, seed=4)
    ds = convergence_study.run(
        R,
        ["a", "b", "c"],
        methods=["bayes", "pass_at_k:2"],
        replicates=300,
        subset_size=2,
        subset_count=3,
        progress=False,
    )
    pmf = ds["pmf"].sel(metric="bayes").values
    assert pmf.sum() + float(ds["p_no_convergence"].sel(metric="bayes")) == pytest.approx(1.0)
    assert (ds["tau_lo"] <= ds["tau_hi"]).sel(n=slice(2, None)).all()
    assert ds["worst_ranks"].dims == ("metric", "n", "model")
    np.testing.assert_array_equal(ds["gold_rank"].values, [3, 2, 1])
    json.dumps(convergence_study.summary(ds))
    lo, hi = tau_interval(np.array([[[0.1], [0.5], [0.9]]]), 0.5)
    assert lo[0, 0] == pytest.approx(0.3) and hi[0, 0] == pytest.approx(0.7)
    subs = random_subsets(6, 3, 5, seed=1)
    assert len({tuple(s) for s in subs}) == 5 and all(len(s) == 3 for s in subs)


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("pass", "not understood"),
        ("pass_at_k:0", "not understood"),
        ("g_pass_at_k_tau:4:0", "not understood"),
    ],
)
def test_bad_methods(name, match):
    with pytest.raises(ValueError, match=match):
        parse_method(name)


def test_stability_rejects_non_binary():
    with pytest.raises(ValueError, match="binary"):
        stability(np.full((2, 3, 4), 2), ["bayes"])


@pytest.mark.slow
def test_cli_validate_convergence(tmp_path, capsys):
    import pandas as pd

    from bayes_eval.cli import main

    R = simulate_results(mimic_probabilities(seed=0)[[0, 5, 10]], 12, seed=1)
    rows = [
        {"model": f"m{m}", "question": q, "trial": t, "score": int(R[m, q, t])}
        for m in range(3)
        for q in range(30)
        for t in range(12)
    ]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    code = main(
        [
            "validate",
            "convergence",
            str(path),
            "--replicates",
            "200",
            "--methods",
            "bayes,pass_at_k:2",
            "--out",
            str(tmp_path / "out"),
            "--json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["methods"]) == {"bayes", "pass_at_k:2"}
    assert (tmp_path / "out" / "convergence.nc").exists() and (
        tmp_path / "out" / "convergence.png"
    ).exists()
    assert main(["validate", "convergence", "--out", str(tmp_path)]) == 2


def test_pair_lookups_single_lookups_and_the_rounded_path_agree(monkeypatch):
    """The questions two by two (pair tables, an odd number of questions padded with one
    that never succeeds), one by one, and the rounded float tables give the same numbers."""
    from bayes_eval.ranking import convergence as cv
    from bayes_eval.ranking import convergence_packed as cp

    R = simulate_results(mimic_probabilities(seed=0)[::2, :7], 12, seed=4)  # 6 x 7 x 12
    R[3] = R[1]  # two tied models: gold ties
    methods = ["bayes", "pass_at_k:1", "pass_at_k:3", "g_pass_at_k_tau:5:0.6", "mg_pass_at_k:4"]
    pair_tables, built = cp._pair_tables, []

    def run(path, **kw):
        with monkeypatch.context() as mp:
            mp.setattr(cp, "_pair_tables", lambda *a: built.append(pair_tables(*a)) or built[-1])
            if path == "pairs":
                mp.setattr(cp, "_PAIR_PAYBACK", 0)  # pairs even on this short run
            elif path == "single":
                mp.setattr(cp, "_PAIR_BYTES", 0)
            else:
                mp.setattr(cp, "_packed_tables", lambda *a: None)  # rounded float tables
            return cv.stability(R, methods, replicates=90, chunk=40, seed=7, **kw)

    for kw in (
        dict(scheme="column", replace=False),
        dict(scheme="column", replace=True),
        dict(scheme="row", replace=True),
    ):
        pairs, single, rounded = run("pairs", **kw), run("single", **kw), run("rounded", **kw)
        assert built[0] is not None and built[1] is None and len(built) == 2
        built.clear()
        for other in (single, rounded):
            np.testing.assert_array_equal(pairs.convergence, other.convergence)
            np.testing.assert_array_equal(pairs.tau, other.tau)
            np.testing.assert_array_equal(pairs.worst_replicate, other.worst_replicate)
        np.testing.assert_array_equal(pairs.worst_scores, single.worst_scores)
        np.testing.assert_allclose(pairs.worst_scores, rounded.worst_scores, rtol=1e-14)
        assert (pairs.convergence > 0).any() and (pairs.convergence < 0).any()


def test_pair_tables_sum_to_the_exact_integers():
    """At 80 trials and 31 questions (12 methods in six words, two look-up groups, fields of
    up to 40 bits, one padded question): the sums of the pair tables over the pairs, less
    the padded question's share, are the exact integer sums of every method, Python
    integers as the reference, with every question at its largest count too."""
    from bayes_eval.ranking import convergence as cv
    from bayes_eval.ranking import convergence_packed as cp

    extra = [
        "pass_at_k:6",
        "pass_hat_k:2",
        "pass_hat_k:6",
        "mg_pass_at_k:6",
        "g_pass_at_k_tau:6:0.3",
    ]
    parsed = [cv.parse_method(n) for n in (*cv.DEFAULT_METHODS, *extra)]
    n_max, n_q = 80, 31
    packed = cp._packed_tables(parsed, n_max, n_q)
    assert [g.shape[-1] for g in packed.groups] == [4, 2]  # six words: one look-up each
    for w, word in enumerate(packed.words):
        np.testing.assert_array_equal(packed.groups[w // cp._GROUP][..., w % cp._GROUP], word)
    pairs = cp._pair_tables(packed, n_max, lookups=2**62)
    rng = np.random.default_rng(3)
    counts = rng.integers(0, n_max + 1, (n_q, 300))
    counts[:, 0] = n_max  # every question at its largest entry
    counts[:, 1] = 0
    padded = np.concatenate([counts, np.zeros((1, 300), int)])  # a question never passed
    codes = padded[0::2] * (n_max + 1) + padded[1::2]  # the running codes of the pairs
    for i, m in enumerate(parsed):
        table, _ = cp._integer_table(m, n_max)
        want = [sum(int(table[n_max, c]) for c in col) for col in counts.T]
        group = packed.word[i] // cp._GROUP
        word = pairs[group][n_max][codes].sum(axis=0) - packed.groups[group][n_max, 0]
        field = (word[:, packed.word[i] % cp._GROUP] >> packed.shift[i]) & (
            (1 << packed.bits[i]) - 1
        )
        assert field.tolist() == want, m.name
    assert cp._pair_tables(packed, n_max, lookups=10) is None  # not repaid: one by one


def test_distinguishability_study_does_not_depend_on_its_chunk():
    """``chunk`` only bounds the memory: the same seed gives the same study."""
    from bayes_eval.validation import distinguishability

    a = distinguishability.run(replicates=60, n_max=12, chunk=60, progress=False)
    b = distinguishability.run(replicates=60, n_max=12, chunk=7, progress=False)
    np.testing.assert_array_equal(a["p_correct"].values, b["p_correct"].values)
    np.testing.assert_allclose(a["z_mean"].values, b["z_mean"].values, rtol=1e-12)
