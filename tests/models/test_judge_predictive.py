"""Posterior predictive checks of the judges model: the statistics against a plain-Python hand
computation on a tiny count table (exact arithmetic on a handful of numbers, tolerance 1e-12;
Spearman from scipy.stats.spearmanr), the mid-p summary by hand, and one small seeded fit of
the shipped MT-Bench table (machine-independent checks only)."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from scipy import stats

from bayes_eval.models.judge_predictive import JUDGE_STATISTICS, _summary, judge_statistics

VALUES = [1.0, 2.0, 3.0]
OBS = np.array(  # (judge, candidate, level)
    [
        [[0, 1, 3], [2, 1, 1], [1, 2, 1], [0, 0, 4]],
        [[1, 2, 1], [3, 1, 0], [1, 1, 2], [0, 2, 2]],
        [[2, 2, 0], [1, 2, 1], [0, 3, 1], [0, 0, 0]],  # judge 2 never scored candidate 3
    ]
)
FAMILY = np.zeros((3, 4), bool)
FAMILY[0, 0] = FAMILY[1, 3] = True
MASK = ~FAMILY & (OBS.sum(2) > 0)


def _hand(c: np.ndarray) -> dict[str, np.ndarray]:
    """The statistics of one (J, K, L) table with plain Python loops."""
    J, K, L = c.shape
    n = [[int(sum(c[j][k])) for k in range(K)] for j in range(J)]
    mean = [
        [
            sum(VALUES[s] * c[j][k][s] for s in range(L)) / n[j][k] if n[j][k] else None
            for k in range(K)
        ]
        for j in range(J)
    ]
    out = {k: np.full(J, np.nan) for k in JUDGE_STATISTICS}
    out["level_share"] = np.zeros((J, L))
    out["pair_mean"] = np.array([[np.nan if m is None else m for m in row] for row in mean])
    for j in range(J):
        fit = [k for k in range(K) if MASK[j, k]]
        tot = [sum(c[j][k][s] for k in fit) for s in range(L)]
        out["level_share"][j] = [t / sum(tot) for t in tot]
        out["mean_score"][j] = sum(VALUES[s] * tot[s] for s in range(L)) / sum(tot)
        xs, ys, ovs = [], [], []
        for k in fit:
            others = [i for i in range(J) if i != j and MASK[i, k]]
            if not others:
                continue
            xs.append(mean[j][k])
            ys.append(statistics.fmean(mean[i][k] for i in others))
            pbar = [statistics.fmean(c[i][k][s] / n[i][k] for i in others) for s in range(L)]
            ovs.append(sum(min(c[j][k][s] / n[j][k], pbar[s]) for s in range(L)))
        out["overlap_others"][j] = statistics.fmean(ovs)
        if len(xs) >= 3 and len(set(xs)) > 1 and len(set(ys)) > 1:
            out["spearman_others"][j] = stats.spearmanr(xs, ys).statistic
        own, rest = [], []
        for k in range(K):
            ref = [i for i in range(J) if i != j and n[i][k] and not FAMILY[i, k]]
            if not n[j][k] or not ref:
                continue
            d = mean[j][k] - statistics.fmean(mean[i][k] for i in ref)
            (own if FAMILY[j, k] else rest).append(d)
        if own and rest:
            out["self_preference"][j] = statistics.fmean(own) - statistics.fmean(rest)
    return out


def test_statistics_match_a_hand_computation():
    got = judge_statistics(OBS, VALUES, MASK, FAMILY)
    want = _hand(OBS)
    assert set(got) == set(want)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=1e-12, err_msg=name)
    # spot values: judge 0 gives its own family's candidate 0 a 2.75, the other judges 2.0 and
    # 1.5, so D = 2.75 - 1.75 = 1.0; on candidates 1 and 2 its D are 1.75 - (1.25 + 2) / 2 =
    # 0.125 and 2 - 2.25 = -0.25 (candidate 3 has no reference: judge 1 is its family, judge 2
    # never scored it), so self-preference = 1.0 - (0.125 - 0.25) / 2 = 1.0625
    assert got["self_preference"][0] == pytest.approx(1.0625, abs=1e-12)
    # judge 0 shares only candidates 1 and 2 with another fit judge: no Spearman
    assert np.isnan(got["spearman_others"][0]) and np.isfinite(got["spearman_others"][1:]).all()
    assert np.isnan(got["pair_mean"][2, 3]) and got["pair_mean"][0, 0] == 2.75


def test_replicates_are_computed_one_by_one_and_totals_must_agree():
    rng = np.random.default_rng(0)
    n = OBS.sum(2)
    reps = np.stack(
        [
            np.stack(
                [[rng.multinomial(n[j, k], [0.3, 0.3, 0.4]) for k in range(4)] for j in range(3)]
            )
            for _ in range(5)
        ]
    ).reshape(1, 5, 3, 4, 3)
    got = judge_statistics(reps, VALUES, MASK, FAMILY)
    for i in range(5):
        want = _hand(reps[0, i])
        for name in want:
            np.testing.assert_allclose(got[name][0, i], want[name], atol=1e-12, err_msg=name)
    bad = reps.copy()
    bad[0, 1, 2, 3] = [0, 0, 1]  # a pair scored in one replicate only
    with pytest.raises(ValueError, match="totals differ"):
        judge_statistics(bad, VALUES, MASK, FAMILY)
    with pytest.raises(ValueError, match=r"values has shape \(2,\)"):
        judge_statistics(OBS, [1.0, 2.0], MASK)
    assert np.isnan(judge_statistics(OBS, VALUES, MASK)["self_preference"]).all()


def test_mid_p_summary_by_hand():
    rep = np.array([[0.2, 1.0], [0.5, 1.0], [0.7, 1.0], [np.nan, 1.0]])  # 4 draws, 2 stats
    out = _summary(np.array([0.5, np.nan]), rep, 0.025)
    # defined draws 0.2, 0.5, 0.7: P(rep > 0.5) + P(rep == 0.5) / 2 = 1/3 + 1/6
    assert out["p_value"][0] == pytest.approx(0.5, abs=1e-12)
    assert np.isnan(out["p_value"][1])  # observed undefined
    assert out["rep_mean"][0] == pytest.approx(1.4 / 3, abs=1e-12)
    assert out["rep_sd"][0] == pytest.approx(statistics.pstdev([0.2, 0.5, 0.7]), abs=1e-12)


@pytest.fixture(scope="module")
def mtbench_fit():
    from bayes_eval.judges.data import from_count_table
    from bayes_eval.models.judges import fit_judges, judge_model
    from bayes_eval.nuts import NutsSettings

    data = from_count_table("dataset:mtbench_judges")
    model = judge_model(data)
    fit = fit_judges(
        data, model=model, nuts=NutsSettings(draws=150, tune=200, chains=2, seed=1, warn=False)
    )
    return data, model, fit


@pytest.mark.pymc
@pytest.mark.slow
def test_mtbench_posterior_predictive_check(mtbench_fit):
    from bayes_eval.models.judge_predictive import judge_posterior_predictive, judge_ppc_statistics

    data, model, fit = mtbench_fit
    before = {g: fit[g].to_dataset().copy(deep=True) for g in fit.children}
    ds = judge_ppc_statistics(fit, model, data=data, seed=3)
    assert set(fit.children) == set(before) and "posterior_predictive" not in fit.children
    for g, d in before.items():
        assert fit[g].to_dataset().identical(d), g
    J, K, L = data.counts.shape
    assert ds["p_value"].dims == ("statistic", "judge") and ds["p_value"].shape == (4, J)
    assert ds["share_p_value"].shape == (J, L) and ds["pair_p_value"].shape == (J, K)
    assert ds.attrs["draws"] == 300 and ds.attrs["held_out_pairs"] == 3
    for v in ("p_value", "share_p_value", "pair_p_value"):
        p = ds[v].values
        assert ((p >= 0) & (p <= 1) | np.isnan(p)).all()
    # pooled counts: observed level shares sum to one; every scored pair has a p-value
    np.testing.assert_allclose(ds["share_observed"].sum("assigned"), 1.0, atol=1e-12)
    assert np.isfinite(ds["pair_p_value"].values).all()
    assert int((~ds["in_likelihood"]).sum()) == 3  # the same-family pairs, predicted
    assert np.isfinite(ds["p_value"].sel(statistic="self_preference")).all()
    assert ((ds["rep_lo"] <= ds["rep_hi"]) | ds["rep_lo"].isnull()).all()
    pp = judge_posterior_predictive(fit, model, data=data, seed=3)
    rep = pp["posterior_predictive"].to_dataset()
    assert rep["held_out_scores"].shape == (2, 150, 3, L)
    # replicates keep every pair's total (the questions a judge scored)
    np.testing.assert_array_equal(
        rep["held_out_scores"].sum("assigned").values[0, 0],
        rep["held_out_observed"].sum("assigned"),
    )
    np.testing.assert_array_equal(
        rep["scores"].sum("assigned").values[1, 7], fit["observed_data"]["scores"].sum("assigned")
    )
