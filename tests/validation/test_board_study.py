"""The ``board`` study (bayes_eval.validation.board_study): what it stores is what ``rank``
prints, its summary recomputes from what it stores, and its ECE is the textbook one."""

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.validation import board_study
from bayes_eval.validation.registry import make_config


def test_ece_by_hand():
    # two bins: folded P 0.6 (two pairs, one right) and 0.9 (two pairs, both right)
    p = np.array([0.6, 0.4, 0.9, 0.95])
    hit = np.array([True, True, True, False])  # 0.4 folds to 0.6 with hit False -> right
    # bin of 0.6: P's 0.6, 0.6, right: True, False -> |0.6 - 0.5| = 0.1, share 1/2
    # bin of 0.9 (0.9 and 0.95 share it): mean 0.925, right: True, False -> 0.425, share 1/2
    assert board_study.ece(p, hit) == pytest.approx(0.5 * 0.1 + 0.5 * 0.425)


@pytest.mark.slow
def test_the_study_stores_ranks_numbers_and_summarises_them():
    cfg = make_config("board", replicates=3, n_models=4, n_questions=10, N=(1, 2), seed=3)
    ds = board_study.run(cfg, progress=False)
    # the first board of N = 1, rebuilt: the stored numbers are bayes_eval.posterior's
    rng = np.random.default_rng([3, 1])
    p = board_study._rates(cfg, rng, board_study._real_rates())
    R = (rng.random((4, 10, 1)) < p[..., None]).astype(np.int8)
    post = be.posterior(R)
    one = ds.sel(N=1, board=0)
    np.testing.assert_allclose(one["mean"].sel(estimator="joint"), post.mean)
    np.testing.assert_allclose(one["sd"].sel(estimator="closed form"), post.closed_form.sd)
    np.testing.assert_allclose(one["truth"], p.mean(1))
    lo, _ = be.posterior(R, prior="uniform").interval(0.95)
    np.testing.assert_allclose(one["lo"].sel(estimator="uniform"), lo)
    # the summary from the stored intervals
    rows = board_study.summary(ds)["cells"]
    cell = ds.sel(N=2, estimator="joint")
    t = ds["truth"].sel(N=2).values
    hit = (cell["lo"].values <= t) & (t <= cell["hi"].values)
    assert rows["N=2 joint"]["coverage"] == pytest.approx(hit.mean(), abs=1e-4)
    rmse = np.sqrt(np.mean((cell["mean"].values - t) ** 2))
    assert rows["N=2 joint"]["rmse"] == pytest.approx(rmse, abs=1e-5)
    assert set(rows) == {f"N={n} {e}" for n in (1, 2) for e in board_study.ESTIMATORS}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_models": 20}, "the MathArena board has 16 models"),
        ({"N": ()}, "N is"),
        ({"ability_sd": float("inf"), "rates": "rasch"}, "ability_sd is inf"),
        ({"confidence": 1.0}, "confidence is 1.0"),
        ({"rates": "uniform"}, "rates"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_config("board", **kwargs)


def test_boards_from_the_board_models_prior():
    """``rates="prior"``: the rates stored as truth are prior_rates' draws, in (0, 1)."""
    cfg = make_config("board", rates="prior", replicates=2, n_models=3, n_questions=8, N=(2,))
    ds = board_study.run(cfg, progress=False)
    rng = np.random.default_rng([0, 2])
    p = board_study._rates(cfg, rng, None)
    np.testing.assert_allclose(ds["truth"].sel(N=2, board=0), p.mean(1))
    assert ((p > 0) & (p < 1)).all() and ds.attrs["rates"] == "prior"
    rows = board_study.summary(ds)["cells"]
    assert 0.0 <= rows["N=2 joint"]["coverage"] <= 1.0


@pytest.mark.slow
def test_the_joint_is_calibrated_in_the_board_models_own_world():
    """Boards drawn from the board model's whole prior, 12 LLMs x 30 questions, 100 boards per
    N (here: coverage 0.948 / 0.950, sd/RMSE 0.95 / 0.94, ECE 0.010 / 0.013 at N = 1 / 4;
    300 boards of the Validation page: 0.947 / 0.954, 0.96 / 0.98). Bounds: coverage within
    three of its s.e. (0.0064) of 0.95, sd/RMSE within 0.15 of 1 (its spread between seeds is
    about 0.04), P(better) ECE at most 0.03 (floors 0.008-0.009)."""
    cfg = make_config("board", rates="prior", replicates=100, N=(1, 4), seed=5)
    cells = board_study.summary(board_study.run(cfg, progress=False))["cells"]
    for n in (1, 4):
        cell = cells[f"N={n} joint"]
        assert 0.93 <= cell["coverage"] <= 0.97, (n, cell)
        assert 0.85 <= cell["sd_over_rmse"] <= 1.15, (n, cell)
        assert cell["ece"] <= 0.03, (n, cell)
