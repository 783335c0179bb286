"""The claims study (``bayes-eval validate claims``): its frequentist rules against exact
enumeration and Benjamini-Hochberg by hand, and a small run end to end."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from bayes_eval.cli import main
from bayes_eval.validation import claims_study
from bayes_eval.validation.registry import STUDIES, make_config


def test_permutation_pvalues_match_full_enumeration():
    """With every one of the 2^8 sign vectors as the flips, the p-value is the exact one of
    the sign-flip test plus its +1 correction: (1 + #{|s.d| >= |sum d|}) / (2^8 + 1)."""
    rng = np.random.default_rng(0)
    scores = rng.random((3, 8)).round(1)
    flips = np.array(list(itertools.product([-1.0, 1.0], repeat=8)))
    a, b, p = claims_study.permutation_pvalues(scores, flips)
    for x, y, got in zip(a, b, p, strict=True):
        d = scores[x] - scores[y]
        count = sum(abs(np.dot(s, d)) >= abs(d.sum()) - 1e-12 for s in flips)
        assert got == pytest.approx((1 + count) / (flips.shape[0] + 1))


def test_bh_rejects_the_step_up_set():
    """p = (0.001, 0.02, 0.03, 0.5) at q = 0.05 over 4 pairs: thresholds 0.0125, 0.025,
    0.0375, 0.05, so the step-up rule rejects the three smallest (0.03 <= 0.0375), each
    claiming the order of its observed means."""
    scores = np.array([[1.0, 1.0], [0.0, 0.5], [0.5, 0.5], [0.2, 0.2]])
    a, b = np.array([0, 1, 0, 2]), np.array([1, 2, 2, 3])
    better, worse = claims_study.bh_claims(scores, np.array([0.001, 0.02, 0.03, 0.5]), a, b, 0.05)
    assert sorted(zip(better.tolist(), worse.tolist(), strict=True)) == [(0, 1), (0, 2), (2, 1)]


def test_joint_coverage_takes_tied_places():
    truth = np.array([0.5, 0.5, 0.2])
    assert claims_study._joint_covered(truth, np.array([2, 1, 3]), np.array([2, 1, 3]))
    assert not claims_study._joint_covered(truth, np.array([1, 1, 2]), np.array([1, 1, 2]))


def test_a_small_study_runs_end_to_end(tmp_path, capsys):
    assert "claims" in STUDIES
    argv = ["validate", "claims", "--replicates", "2", "--N", "1", "--scenarios", "close"]
    argv += ["--n-models", "4", "--draws", "200", "--permutations", "200", "--json"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    cell = doc["cells"]["close N=1"]
    assert set(cell["rules"]) == {"bayes_fdr", "naive", "bh"}
    for rule in cell["rules"].values():
        assert 0.0 <= rule["realised_fdr"] <= 1.0 and 0.0 <= rule["power"] <= 1.0
    assert 0.0 <= cell["joint_coverage"] <= 1.0 and cell["expected_fdr"] <= 0.05
    assert (tmp_path / "claims.nc").exists() and (tmp_path / "claims.png").exists()
    # the naive rule's claims are among the FDR rule's (P >= 0.95 keeps the mean of 1 - P low)
    import xarray as xr

    ds = xr.open_dataset(tmp_path / "claims.nc")
    assert np.all(ds["claims"].sel(rule="naive") <= ds["claims"].sel(rule="bayes_fdr"))
    assert np.all(ds["false_claims"] <= ds["claims"])


@pytest.mark.parametrize("estimand", ["these-questions", "new-questions"])
def test_boards_from_the_board_models_prior(estimand):
    """``--scenarios prior`` (not a default): board 0's stored truth (mean rates, or abilities
    on new questions) is prior_board's, rebuilt from the cell's seed."""
    from bayes_eval.validation.pairs_study import prior_board

    config = make_config(
        "claims",
        replicates=2,
        N=(1,),
        scenarios=("prior",),
        n_models=4,
        draws=200,
        permutations=200,
        estimand=estimand,
    )
    assert "prior" not in make_config("claims").scenarios
    ds = claims_study.run(config, progress=False)
    assert list(ds["scenario"].values) == ["prior"]
    cell = claims_study.summary(ds)["cells"]["prior N=1"]
    assert 0.0 <= cell["rules"]["bayes_fdr"]["realised_fdr"] <= 1.0
    assert np.all(ds["false_claims"] <= ds["claims"])
    theta, p, _ = prior_board(
        np.random.default_rng([0, 0, 1]), n_models=4, n_questions=30, trials=1
    )
    stored = ds["truth"].sel(scenario="prior", N=1, board=0).values
    np.testing.assert_allclose(stored, p.mean(1) if estimand == "these-questions" else theta)
    if estimand == "these-questions":  # P(best)'s event is the truth's best
        best = ds["is_best"].sel(scenario="prior", N=1, board=0).values
        np.testing.assert_array_equal(best > 0, p.mean(1) == p.mean(1).max())


def test_config_refuses_bad_values():
    with pytest.raises(ValueError, match="scenarios"):
        make_config("claims", scenarios=("nowhere",))
    with pytest.raises(ValueError, match="fdr"):
        make_config("claims", fdr=1.0)
    with pytest.raises(ValueError, match="n_models"):
        make_config("claims", n_models=20)


@pytest.mark.slow
def test_claims_keep_their_fdr_and_the_intervals_cover_jointly():
    """The headline of ``validate claims`` on 50 boards of each of three cells (close abilities
    at N = 1, MathArena's real rates at N = 4, the board model's own prior at N = 1; 400 boards
    of the last: realised FDR 0.033, P(best) ECE 0.011, joint coverage 0.973): the claims'
    realised FDR within three Monte
    Carlo standard errors of q = 0.05, more power than the rule P >= 0.95, the simultaneous
    rank intervals covering jointly within three standard errors of 95%. (The full study,
    200 boards per cell: realised FDR 0.023-0.039, ECE of P(best) 0.003-0.021, joint coverage
    0.965-0.995.)"""
    for scenario, n in (("close", 1), ("matharena", 4), ("prior", 1)):
        config = make_config("claims", replicates=50, N=(n,), scenarios=(scenario,), draws=2000)
        summary = claims_study.summary(claims_study.run(config, progress=False))
        key = f"{scenario} N={n}"
        cell = summary["cells"][key]
        ours, naive = cell["rules"]["bayes_fdr"], cell["rules"]["naive"]
        assert ours["realised_fdr"] <= 0.05 + 3 * ours["fdr_se"], (key, ours)
        assert ours["power"] >= naive["power"], (key, ours, naive)
        assert cell["joint_coverage"] >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / 50), (key, cell)
        assert cell["p_best_ece"] <= 0.06, (key, cell)  # 0.003-0.022 over 200 boards


def test_new_questions_claims_run_without_whole_board_probabilities(tmp_path, capsys):
    """``--estimand new-questions``: the claims of ``rank --estimand new-questions`` scored
    against the population; no P(best) and no rank intervals to measure (None, not a number)."""
    argv = ["validate", "claims", "--estimand", "new-questions", "--replicates", "3", "--N", "1"]
    argv += ["--scenarios", "spread", "--n-models", "4", "--permutations", "200", "--json"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["estimand"] == "new-questions"
    for cell in doc["cells"].values():
        assert cell["joint_coverage"] is None and cell["p_best_ece"] is None
        assert 0.0 <= cell["rules"]["bayes_fdr"]["realised_fdr"] <= 1.0
        assert cell["expected_fdr"] <= 0.05
    assert doc["verdict"]["largest_p_best_ece"] is None
    assert (tmp_path / "claims.png").exists()
    with pytest.raises(ValueError, match="estimand"):
        make_config("claims", estimand="both")


@pytest.mark.slow
def test_new_questions_claims_keep_their_fdr():
    """Claims on new questions on 150 boards of two cells (close abilities at N = 4, where the
    realised FDR is nearest q, and MathArena's real rates at N = 1): within three Monte Carlo
    standard errors of q = 0.05, with more power than the rule P >= 0.95 (400 boards per cell
    in the docs: realised FDR 0.024-0.051, s.e. 0.002-0.006)."""
    for scenario, n in (("close", 4), ("matharena", 1)):
        config = make_config(
            "claims",
            estimand="new-questions",
            replicates=150,
            N=(n,),
            scenarios=(scenario,),
            permutations=500,
        )
        cell = claims_study.summary(claims_study.run(config, progress=False))["cells"]
        rules = cell[f"{scenario} N={n}"]["rules"]
        ours, naive = rules["bayes_fdr"], rules["naive"]
        assert ours["realised_fdr"] <= 0.05 + 3 * ours["fdr_se"], (scenario, ours)
        assert ours["power"] >= naive["power"], (scenario, ours, naive)
