"""Gittins-index adaptive evaluation (Xie, He and Cao, "Efficient Cost-Aware LLM Evaluation
via Bayesian Bandit Gittins Indices"): DP against independent computations, policy properties,
baselines, simulation harness, CLI. The protocol itself: test_policy_protocol.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bayes_eval.adaptive import gittins as gp
from bayes_eval.adaptive import ucbe as ucb
from bayes_eval.adaptive.gittins import GittinsPolicy
from bayes_eval.adaptive.gittins_index import (
    brute_force_roots,
    last_stage_root,
    posterior_variances,
    root_schedule,
    stage_setup,
)
from bayes_eval.adaptive.lrf import LRFPolicy
from bayes_eval.adaptive.protocol import Proposal
from bayes_eval.adaptive.simulation import PolicySpec, default_policies, run_policy, simulate
from bayes_eval.adaptive.synthetic import BanditDataset, gsm8k_like, logistic_matrix, mmlu_like

# ----------------------------------------------------------------------------- root schedule


@pytest.mark.parametrize(
    "cost",
    [
        pytest.param(3e-5, marks=pytest.mark.slow),  # ~4 s each: the fast tier keeps one cost
        1e-3,
        pytest.param(1e-2, marks=pytest.mark.slow),
    ],
)
@pytest.mark.slow
def test_fft_roots_match_brute_force_quadrature(cost):
    # v0 = 0.04, tau^2 = 1/64 (B = 16), H = 10: the check case of gittins_notes.md
    fft = root_schedule(cost, 0.04, 1 / 64, 10).roots
    brute = brute_force_roots(cost, 0.04, 1 / 64, 10)
    # tolerance 1e-5 (the target); measured 2.4e-6 at c = 3e-5, from the Simpson
    # rule and the interpolation of the brute force, not from the FFT program
    np.testing.assert_allclose(fft, brute, atol=1e-5, rtol=0)


def test_published_check_values_and_last_stage_closed_form():
    r = root_schedule(3e-5, 0.04, 1 / 64, 10).roots
    assert r[[0, 5, 9]] == pytest.approx([-0.6346, -0.0989, -0.0309], abs=6e-5)  # notes, 4 d.p.
    v = posterior_variances(0.04, 1 / 64, 10)
    sigma2 = v[9] ** 2 / (v[9] + 1 / 64)
    assert r[9] == pytest.approx(last_stage_root(3e-5, sigma2), abs=1e-6)
    assert last_stage_root(0.0, sigma2) == -np.inf


@pytest.mark.slow
def test_granularities_reproduce_the_notes():
    # unit cost 1e-4 per example, general prior, N = 1000, B = 16
    H, tau2, per = stage_setup(1000, 16, granularity="batch")
    assert (H, tau2, per) == (63, 1 / 64, 16)
    assert root_schedule(1e-4 * per, 0.04, tau2, H).roots[0] == pytest.approx(-0.280, abs=1e-3)
    H, tau2, per = stage_setup(1000, 16, granularity="cell")
    assert (H, tau2, per) == (1000, 0.25, 1)
    r0 = root_schedule(1e-4, 0.04, tau2, H, grid_size=4096).roots[0]
    assert r0 == pytest.approx(-0.391, abs=1.5e-3)  # 2^14 points give -0.3913


def test_roots_rise_with_cost_and_tables_are_cached():
    costs = [1e-5, 1e-4, 1e-3, 1e-2]
    tables = np.array([root_schedule(c, 0.02, 1 / 16, 25).roots for c in costs])
    assert (np.diff(tables, axis=0) > 0).all()  # higher cost, higher root, lower index
    small = root_schedule(1e-6, 0.02, 1 / 16, 25).roots
    assert abs(small[-1]) < abs(small[0]) and small[-1] < 0  # roots approach 0 at the horizon
    assert root_schedule(1e-3, 0.02, 1 / 16, 25) is root_schedule(1e-3, 0.02, 1 / 16, 25)
    with pytest.raises(ValueError, match="read-only"):
        tables_ro = root_schedule(1e-3, 0.02, 1 / 16, 25).roots
        tables_ro[0] = 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cost": -1.0, "v0": 0.04, "tau2": 0.1, "H": 5}, "cost is -1.0"),
        ({"cost": 0.1, "v0": 0.0, "tau2": 0.1, "H": 5}, "v0 is 0.0"),
        ({"cost": 0.1, "v0": 0.04, "tau2": -1.0, "H": 5}, "tau2 is -1.0"),
        ({"cost": 0.1, "v0": 0.04, "tau2": 0.1, "H": 0}, "H is 0"),
    ],
)
def test_root_schedule_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        root_schedule(**kwargs)


# ----------------------------------------------------------------------------- policy

#: arguments of Policy.init (the rest of a Gittins option goes to GittinsPolicy)
INIT_ARGS = {"batch_size", "costs", "cost_scale", "seed"}


def _gittins(n_arms, n_examples, **kwargs):
    """``(policy, state)``: GittinsPolicy options and init arguments in one call."""
    policy = GittinsPolicy(**{k: v for k, v in kwargs.items() if k not in INIT_ARGS})
    init = {k: v for k, v in kwargs.items() if k in INIT_ARGS}
    return policy, policy.init(n_arms, n_examples, **init)


def _next_examples(state, arm, n):
    """A proposal of ``arm``'s next ``n`` unobserved examples (in the run's order)."""
    start = int(state.n_cells[arm])
    return Proposal(arm, state.config.order[arm, start : start + n])


def _feed(policy, state, arm, scores):
    """Observe ``scores`` on ``arm``'s next examples (the arm chosen by the test)."""
    return policy.observe(state, _next_examples(state, arm, len(scores)), scores)


def test_index_rises_one_for_one_with_the_posterior_mean():
    _, s = _gittins(4, 20, batch_size=4, costs=[1, 2, 1, 1], cost_scale=1e-3)
    g0 = gp.indices(s)
    shifted = s._replace(mean=s.mean + np.array([0.1, 0.0, 0.2, 0.0]))
    np.testing.assert_allclose(gp.indices(shifted) - g0, [0.1, 0.0, 0.2, 0.0], atol=1e-15)
    assert g0[1] < g0[0]  # same state, higher cost: lower index


def test_gaussian_update_is_the_conjugate_posterior():
    pol, s = _gittins(2, 30, belief_mean=0.4, belief_var=0.03, batch_size=5)
    ys = [np.array([1, 0, 1, 1, 0.0]), np.array([1, 1, 1, 0, 1.0]), np.array([0, 0, 1, 0, 0.0])]
    for y in ys:
        s = _feed(pol, s, 1, y)
    allv = np.concatenate(ys)
    prec = 1 / 0.03 + allv.size / 0.25
    assert s.var[1] == pytest.approx(1 / prec, rel=1e-12)
    assert s.mean[1] == pytest.approx((0.4 / 0.03 + allv.sum() / 0.25) / prec, rel=1e-12)
    assert s.mean[0] == 0.4 and s.n_cells.tolist() == [0, 15] and s.cells == 15


def test_state_is_immutable_and_runs_replay_from_the_seed():
    Y = np.random.default_rng(0).integers(0, 2, (6, 12)).astype(float)

    def run(seed):
        pol, s = _gittins(6, 12, batch_size=3, seed=seed, costs=np.arange(1, 7), cost_scale=1e-3)
        trail = []
        while True:
            d = pol.propose(s)
            if d.arm < 0:
                break
            ex = d.examples
            trail.append((d.arm, tuple(ex)))
            before = s.mean.copy()
            s2 = pol.observe(s, d, Y[d.arm, ex])
            np.testing.assert_array_equal(s.mean, before)  # the old state did not change
            s = s2
        return trail, s

    t1, s1 = run(5)
    t2, s2 = run(5)
    t3, _ = run(6)
    assert t1 == t2 and t1 != t3
    np.testing.assert_array_equal(s1.mean, s2.mean)
    assert s1.n_cells.tolist() == [12] * 6  # every example of every arm, each exactly once
    for arm in range(6):
        seen = [e for a, ex in t1 if a == arm for e in ex]
        assert sorted(seen) == list(range(12))
    with pytest.raises(ValueError):
        s1.mean[0] = 1.0


def test_required_completion_stops_and_recommends_a_completed_arm():
    # high cost: after completing a strong arm, its mean beats every other arm's index
    pol, s = _gittins(3, 4, batch_size=2, costs=1.0, cost_scale=0.05, convention="required")
    assert pol.recommend(s) == -1
    outcomes = {0: [1.0, 1.0], 1: [0.0, 0.0], 2: [0.0, 1.0]}
    for _ in range(20):
        d = pol.propose(s)
        if d.stop:
            break
        s = pol.observe(s, d, outcomes[d.arm])
    assert d.stop
    done = s.n_cells >= 4
    assert done.any()
    rec = pol.recommend(s)
    assert done[rec] and s.mean[rec] == s.mean[done].max()
    assert gp.indices(s)[rec] == s.mean[rec]  # completed arms: index = posterior mean


def test_beta_posterior_and_prior_counts():
    pol, s = _gittins(
        3,
        10,
        belief_mean=0.5,
        belief_var=0.05,
        posterior="beta",
        batch_size=2,
        earlier_counts=[[3, 4], [0, 0], [3, 4]],
    )
    conc = 0.25 / 0.05 - 1  # a0 + b0
    assert s.beta_a[0] == pytest.approx(0.5 * conc + 3) and s.beta_b[0] == pytest.approx(
        0.5 * conc + 1
    )
    assert s.mean[1] == pytest.approx(0.5)
    assert s.config.table_of_arm[0] == s.config.table_of_arm[2] != s.config.table_of_arm[1]
    s = _feed(pol, s, 1, [1, 1])
    assert s.mean[1] == pytest.approx((0.5 * conc + 2) / (conc + 2))
    with pytest.raises(ValueError, match="0/1 scores"):
        _feed(pol, s, 1, [0.5, 1])
    _, g = _gittins(2, 10, belief_mean=0.5, belief_var=0.04, earlier_counts=[[3, 4], [0, 0]])
    prec = 1 / 0.04 + 4 / 0.25
    assert g.mean[0] == pytest.approx((0.5 / 0.04 + 3 / 0.25) / prec) and g.var[0] == pytest.approx(
        1 / prec
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 11}, r"batch_size is 11; expected an integer in \[1, N = 10\]"),
        ({"granularity": "stage"}, "granularity is 'stage'"),
        ({"convention": "maybe"}, "convention is 'maybe'"),
        ({"belief_var": [0.1, 0.1]}, r"belief_var has shape \(2,\); expected a scalar or \(3,\)"),
        ({"costs": -1.0}, "costs must be >= 0"),
        ({"earlier_counts": [[2, 1], [0, 0], [0, 0]]}, "successes <= trials"),
        ({"posterior": "beta", "belief_var": 0.3}, "belief_var < belief_mean"),
    ],
)
def test_policy_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        _gittins(3, 10, **kwargs)


def test_observe_bad_input():
    pol, s = _gittins(2, 3)
    with pytest.raises(ValueError, match="arm is 5"):
        pol.observe(s, Proposal(5, np.array([0])), [1.0])
    with pytest.raises(ValueError, match="2 unobserved examples left; got 4"):
        pol.observe(_feed(pol, s, 0, [1.0]), Proposal(0, np.arange(4)), [1, 1, 1, 1])
    with pytest.raises(ValueError, match="finite scores"):
        _feed(pol, s, 0, [np.nan])


# ----------------------------------------------------------------------------- baselines


def test_ucbe_bounds_order_and_recommendation():
    pol = ucb.UCBEPolicy()
    s = pol.init(3, 4, batch_size=2)
    seen = []
    for _ in range(3):  # unpulled arms first, in order
        p = pol.propose(s)
        seen.append(p.arm)
        s = pol.observe(s, p, [1.0, 0.0] if p.arm != 2 else [1.0, 1.0])
    assert seen == [0, 1, 2]
    np.testing.assert_allclose(ucb.bounds(s), [0.5 + np.sqrt(0.5)] * 2 + [1 + np.sqrt(0.5)])
    p = pol.propose(s)
    assert p.arm == 2 and pol.recommend(s) == 2
    s = pol.observe(s, p, [1.0, 1.0])
    assert ucb.bounds(s)[2] == -np.inf  # completed


def test_lrf_recovers_a_low_rank_matrix_and_picks_unobserved_cells():
    rng = np.random.default_rng(3)
    u, v = rng.uniform(0.3, 1, 8), rng.uniform(0.3, 1, 30)
    Y = np.outer(u, v)
    pol = LRFPolicy(warmup=0.3, ensemble=8)
    s = pol.init(8, 30, batch_size=3, seed=1)
    for _ in range(40):
        p = pol.propose(s)
        arm, ex = p.arm, p.examples
        assert np.isnan(s.observed[arm, ex]).all() and len(set(ex)) == len(ex)
        s = pol.observe(s, p, Y[arm, ex])
    assert s.u is not None
    pred = np.clip(s.u[:, :, None] * s.v[:, None, :], 0, 1).mean(axis=0)
    # exact rank 1, no noise: ALS recovers the pattern; the ridge (reg = 0.1) shrinks the
    # scale by ~10% at this size, hence a relative tolerance of 15%
    assert np.corrcoef(pred.ravel(), Y.ravel())[0, 1] > 0.99
    assert np.abs(pred / Y - 1).max() < 0.15
    assert pol.recommend(s) == int(np.argmax(Y.mean(axis=1)))


# ----------------------------------------------------------------------------- simulation


def _small_dataset(seed=0):
    rng = np.random.default_rng(seed)
    theta = np.linspace(0.2, 0.8, 12)
    Y = logistic_matrix(theta, 40, rng=rng)
    return BanditDataset(
        "small", Y, np.linspace(0.1, 1.0, 12), (0.5, 0.02), tuple(map(str, range(12)))
    )


@pytest.mark.slow
def test_full_budget_finds_the_best_arm_and_curves_are_consistent():
    data = _small_dataset()
    ds = simulate(data, batch_size=4, budget=1.0, seeds=3, grid_points=51)
    assert ds["regret"].dims == ("policy", "seed", "fraction")
    assert list(ds["policy"].values) == ["Gittins-G", "Gittins-S", "UCB-E"]
    assert (ds["regret"] >= 0).all()
    np.testing.assert_array_equal(ds["final_regret"].values, 0.0)  # everything observed
    np.testing.assert_allclose(ds["regret_mean"], ds["regret"].mean("seed"))
    tr = run_policy(data, default_policies(data)[0], batch_size=4, budget=0.5, seed=1)
    assert tr.cells[-1] <= 0.5 * 12 * 40 and np.all(np.diff(tr.cells) == 4)
    theta = data.matrix.mean(axis=1)
    np.testing.assert_allclose(tr.regret, theta.max() - theta[tr.recommended])
    again = run_policy(data, default_policies(data)[0], batch_size=4, budget=0.5, seed=1)
    np.testing.assert_array_equal(tr.recommended, again.recommended)


@pytest.mark.slow
def test_cost_budget_and_stopping_signal():
    data = _small_dataset(1)
    spec = PolicySpec("G", GittinsPolicy(granularity="batch", belief_var=0.02))
    tr = run_policy(
        data, spec, batch_size=4, budget=0.5, budget_kind="cost", cost_scale=0.02, seed=0
    )
    assert tr.cost[-1] <= 0.5 * data.costs.sum() * 40 + 1e-9
    assert tr.stop_step is not None  # with an expensive evaluation the index stops early
    ds = simulate(
        data,
        [spec],
        batch_size=4,
        budget=0.5,
        budget_kind="cost",
        cost_scale=0.02,
        seeds=2,
        grid_points=11,
    )
    assert np.isfinite(ds["stop_fraction"]).all()


@pytest.mark.slow
def test_gittins_beats_ucbe_on_a_small_many_arm_matrix():
    data = mmlu_like("dataset:bandit_mmlu_meta", "anatomy", n_examples=20, seed=0)
    ds = simulate(data, batch_size=4, budget=0.05, seeds=6, grid_points=6)
    early = ds["regret_mean"].sel(fraction=[0.02, 0.05], method="nearest")
    # with 1500 arms UCB-E spends the first 1500/4 pulls on unpulled arms: Gittins-S is ahead
    assert (early.sel(policy="Gittins-S") < early.sel(policy="UCB-E")).all()


@pytest.mark.slow  # about 2 s: the quick tier stays under a minute
def test_synthetic_mimics_match_the_shipped_metadata():
    from bayes_eval import datasets

    meta = datasets.load("bandit_mmlu_meta").sel(subject="virology")
    n_q, bucket = int(meta["n_questions"]), str(meta["prior_bucket"].values)
    mean, sd = float(meta["arm_accuracy_mean"]), float(meta["arm_accuracy_sd"])
    d = mmlu_like("dataset:bandit_mmlu_meta", "virology", seed=2)
    rows = d.matrix.mean(axis=1)
    assert d.matrix.shape == (1500, n_q)
    assert rows.mean() == pytest.approx(mean, abs=0.01) and rows.std() == pytest.approx(
        sd, abs=0.01
    )
    buckets = datasets.load("bandit_mmlu_meta").sel(bucket=bucket)
    assert d.belief == (float(buckets["prior_mean"]), float(buckets["prior_variance"]))
    assert d.costs[0] == 0.05 and d.costs[-1] == 1.25  # Llama-3-8B ... Falcon-180B input prices
    g = gsm8k_like(n_examples=200, seed=0)  # the shipped dataset:bandit_gsm8k_arms
    assert g.matrix.shape == (122, 200) and g.belief == (0.2, 0.01)
    llemma = [i for i, a in enumerate(g.arms) if a.startswith("llemma")]
    assert np.all(g.costs[llemma] == 3.2)  # 0.80 input + 2 x 1.20 output (the paper's Table 2)
    assert g.matrix.mean(axis=1).std() == pytest.approx(0.1, abs=0.01)


# ----------------------------------------------------------------------------- CLI


@pytest.mark.slow
def test_cli_roots_and_simulate(tmp_path, capsys):
    from bayes_eval.cli import main

    assert (
        main(
            [
                "adaptive",
                "roots",
                "--cost",
                "3e-5",
                "--v0",
                "0.04",
                "--tau2",
                "0.015625",
                "--horizon",
                "10",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["roots"][0] == pytest.approx(-0.6346, abs=1e-4)
    data = _small_dataset()
    np.save(tmp_path / "m.npy", data.matrix)
    assert (
        main(
            [
                "adaptive",
                "simulate",
                "--dataset",
                "matrix",
                "--matrix",
                str(tmp_path / "m.npy"),
                "--batch",
                "4",
                "--budget",
                "0.2",
                "--replicates",
                "2",
                "--out",
                str(tmp_path / "o"),
                "--belief-mean",
                "0.5",
                "--belief-var",
                "0.02",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert set(out["regret_mean_se"]) == {"Gittins-G", "Gittins-S", "UCB-E"}
    assert (tmp_path / "o" / "adaptive.nc").is_file() and (
        tmp_path / "o" / "adaptive_regret.png"
    ).is_file()
    assert main(["adaptive", "simulate", "--dataset", "mmlu"]) == 2
    assert "needs --subject" in capsys.readouterr().err
    bad = ["adaptive", "simulate", "--dataset", "gsm8k", "--arms", str(tmp_path / "none.csv")]
    assert main(bad) == 2
    assert "none.csv: no such file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("source", "options", "phrase"),
    [
        ("matrix", {"matrix": "m.npy", "seed": 1}, "--dataset matrix does not use --seed"),
        ("matrix", {"matrix": "m.npy", "examples": 5}, "does not use --examples"),
        ("gsm8k", {"subject": "anatomy"}, "--dataset gsm8k does not use --subject"),
        ("mmlu", {"subject": "anatomy", "costs": "c.csv"}, "does not use --costs"),
    ],
)
def test_load_bandit_refuses_options_the_source_ignores(source, options, phrase):
    from bayes_eval.adaptive.runs import load_bandit

    with pytest.raises(ValueError, match=phrase):
        load_bandit(source, **options)
