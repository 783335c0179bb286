"""Clustered questions for the new-questions estimand: the cluster labels, the cluster-level
t model against hand computations (Miller's clustered standard error, Student's t), the
paired draws against their exact laws, the unclustered bootstrap against the Beta law it
reduces to, calibration on simulated clustered boards, and the loader and CLI paths
(``--cluster``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats
from scipy.special import expit

from bayes_eval.cli import main
from bayes_eval.logs.scored import load_scored
from bayes_eval.ranking.paired import (
    cluster_codes,
    cluster_sums,
    cluster_values,
    compare_pairs,
    leaderboard_pairs,
)
from bayes_eval.ranking.population import (
    cluster_draws,
    population_draws,
    population_leaderboard,
)

# ---------------------------------------------------------------- labels


def test_cluster_codes_from_labels_and_mapping():
    codes, labels = cluster_codes(["b", "a", "b", "c"])
    assert labels == ("a", "b", "c") and codes.tolist() == [1, 0, 1, 2]
    codes2, labels2 = cluster_codes(
        {"q1": "b", "q0": "a", "q2": "b", "q3": "c"}, ["q1", "q0", "q2", "q3"]
    )
    assert labels2 == labels and codes2.tolist() == codes.tolist()
    # numbers are labels compared as text
    assert cluster_codes([1, 2, 1])[0].tolist() == [0, 1, 0]


@pytest.mark.parametrize(
    ("cluster", "questions", "phrase"),
    [
        (["a", "a", "a"], None, "one cluster"),
        (["a", None, "b"], None, "no cluster label"),
        (["a", np.nan, "b"], None, "no cluster label"),
        ({"q0": "a", "q1": "b"}, ["q0", "q1", "q2"], "'q2' has no cluster"),
        ({"q0": "a"}, None, "pass the questions"),
        (["a", "b"], ["q0", "q1", "q2"], "2 labels; expected one per question (3)"),
        ([["a", "b"]], None, "one label per question"),
    ],
)
def test_cluster_codes_refuse_bad_input(cluster, questions, phrase):
    with pytest.raises(ValueError, match=phrase.replace("(", r"\(").replace(")", r"\)")):
        cluster_codes(cluster, questions)


# ---------------------------------------------------------------- the t model


def _miller_se(s: np.ndarray, g: np.ndarray) -> float:
    """Miller's clustered standard error of the mean of s, written out loop by loop."""
    xbar, M = s.mean(), s.size
    clusters = np.unique(g)
    G = clusters.size
    total = sum((s[g == c] - xbar).sum() ** 2 for c in clusters)
    return float(np.sqrt(G / (G - 1) * total / M**2))


def test_cluster_values_are_millers_clustered_standard_error():
    rng = np.random.default_rng(3)
    g = np.repeat(np.arange(7), [3, 5, 2, 8, 4, 4, 6])  # unequal sizes
    s = rng.random((2, g.size)).round(2)
    T, n = cluster_sums(s, np.ones_like(s, bool), g)
    mean, scale, df = cluster_values(T, n)
    np.testing.assert_allclose(mean, s.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(scale, [_miller_se(x, g) for x in s], rtol=1e-12)
    assert df.tolist() == [6.0, 6.0]
    # equal sizes: the values are the cluster means, the scale their sd / sqrt(G)
    g2 = np.arange(12) % 4
    T, n = cluster_sums(s[:, :12], np.ones((2, 12), bool), g2)
    means = np.stack([[x[g2 == c].mean() for c in range(4)] for x in s[:, :12]])
    np.testing.assert_allclose(cluster_values(T, n)[1], means.std(axis=1, ddof=1) / 2)


def test_clustered_paired_probability_is_students_t_of_the_cluster_differences():
    rng = np.random.default_rng(0)
    g = np.arange(40) % 8  # 8 clusters of 5
    R = (rng.random((3, 40, 2)) < np.array([0.7, 0.5, 0.45])[:, None, None]).astype(float)
    before = R.copy()
    pc = compare_pairs(R, cluster=g, prior="uniform")  # the flat prior: Jeffreys on (delta, sd)
    np.testing.assert_array_equal(R, before)  # input untouched
    s = R.mean(axis=2)
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        d = np.array([(s[i] - s[j])[g == c].mean() for c in range(8)])
        expected = stats.t.cdf(d.mean() / (d.std(ddof=1) / np.sqrt(8)), 7)
        assert pc.paired[i, j] == pytest.approx(expected, abs=1e-12)
        assert pc.paired[i, j] + pc.paired[j, i] == pytest.approx(1.0)
    assert pc.clusters == 8 and "t model" in pc.cluster_treatment
    doc = pc.to_dict()
    assert doc["clusters"]["count"] == 8 and doc["estimand"]["paired"] == "new questions"
    assert np.isnan(np.diag(pc.independent)).all() and np.isfinite(pc.independent[0, 1])


def _learned_pair_probabilities(d, power, plugin=False):
    """Brute force of the learned normal prior on clustered differences (independent of the
    package's mixture over the cluster-level sd): each pair's posterior of delta under
    N(0, tau^2) times its Student-t likelihood by Simpson's rule in delta, on a grid dense
    near 0 (log spaced down to 1e-8, for small tau) and around the pair's mean, split at 0;
    tau's posterior density tau^power * prod m_ab(tau)^(2 / L) by Simpson's rule on 1,201
    log-spaced nodes of (1e-4, 1] (five times the package's), or maximised (plug-in)."""
    from scipy import integrate

    n_models = d.shape[0]
    i, j = np.triu_indices(n_models, 1)
    rows = d[i] - d[j]  # (pairs, G): the cluster means of the differences
    G = rows.shape[1]
    mean, scale = rows.mean(axis=1), rows.std(axis=1, ddof=1) / np.sqrt(G)
    tau = np.geomspace(1e-4, 1.0, 1201)[:, None]
    side = np.geomspace(1e-8, 10.0, 2000)
    point = scale <= 1e-12  # every cluster says the same: a point mass, not in tau's posterior
    m, up = [], []
    for mu, sc in zip(mean[~point], scale[~point], strict=True):
        x = np.concatenate([-side, side, [0.0], mu + sc * np.linspace(-60, 60, 2401)])
        x = np.unique(x[np.abs(x) <= 10])
        f = np.exp(-0.5 * (x / tau) ** 2) / tau * stats.t.pdf(x, G - 1, mu, sc)  # (tau, x)
        below = integrate.simpson(f[:, x <= 0], x=x[x <= 0], axis=1)
        above = integrate.simpson(f[:, x >= 0], x=x[x >= 0], axis=1)
        m.append(below + above)
        up.append(above / (below + above))
    log_post = power * np.log(tau[:, 0]) + (2.0 / n_models) * np.log(np.array(m)).sum(axis=0)
    out = 0.5 + 0.5 * np.sign(mean)
    if plugin:
        out[~point] = np.array(up)[:, int(np.argmax(log_post))]
        return out
    w = np.exp(log_post - log_post.max()) * tau[:, 0]  # d tau = tau d log tau
    top = integrate.simpson(w[None] * np.array(up), x=np.log(tau[:, 0]), axis=1)
    out[~point] = top / integrate.simpson(w, x=np.log(tau[:, 0]))
    return out


def _clustered_board(case):
    """Binary results, one trial, and the cluster of every question for a brute-force case."""
    rng = np.random.default_rng(3)
    if case == "far":  # one model far ahead of the others, 30 clusters: a pair's |t| is large
        p = np.array([0.99, 0.55, 0.5, 0.4])
        return (rng.random((4, 60, 1)) < p[:, None, None]) * 1.0, np.arange(60) % 30
    g = int(case)
    p = np.array([0.75, 0.6, 0.55, 0.35])
    return (rng.random((4, 36, 1)) < p[:, None, None]) * 1.0, np.arange(36) % g


@pytest.mark.parametrize(
    ("case", "plugin"), [("6", False), ("6", True), ("2", False), ("3", False), ("far", False)]
)
def test_learned_prior_on_clustered_differences_matches_brute_force(case, plugin):
    """The learned prior (``prior="empirical"``): every pair's P(better) equals a brute-force
    double quadrature of the same posterior to 2e-5 (the package integrates tau on 241
    log-spaced nodes and the cluster-level sd on 161; measured 3e-7), with 6, 2 and 3
    clusters (1 and 2 degrees of freedom: Cauchy-like tails) and with a model far ahead (|t| up to about 40,
    where the prior pulls the sd's posterior far into its tail); plugged in
    (``"empirical-plugin"``) at tau's posterior mode, to 2e-3 (the mode is read off the grid,
    whose nodes are 4% apart)."""
    from bayes_eval.ranking.difference_prior import DIFFERENCE_TAU_POWER

    R, g = _clustered_board(case)
    kind = "empirical-plugin" if plugin else "empirical"
    pc = compare_pairs(R, cluster=g, prior=kind)
    flat = compare_pairs(R, cluster=g, prior="uniform")
    d = np.stack([R[:, g == c, 0].mean(axis=1) for c in range(g.max() + 1)], axis=1)  # (L, G)
    expected = _learned_pair_probabilities(d, DIFFERENCE_TAU_POWER, plugin=plugin)
    i, j = np.triu_indices(4, 1)
    tol = 2e-3 if plugin else 2e-5
    np.testing.assert_allclose(pc.paired[i, j], expected, atol=tol)
    np.testing.assert_allclose(pc.paired[j, i], 1 - expected, atol=tol)
    assert np.all((pc.paired[i, j] > 0.5) == (flat.paired[i, j] > 0.5))  # the order kept
    assert "tau learned over the board's pairs" in pc.prior
    assert pc.method["paired"] == "t with a learned normal prior on the difference"
    assert flat.method["paired"] == "t" and "Jeffreys" in flat.prior


def test_learned_cluster_prior_leaves_point_masses_out():
    """A pair whose difference is the same in every cluster (scale 0) keeps its point mass and
    stays out of tau's posterior; a pair sharing one cluster gets NaN; constant graded scores
    (a scale of rounding size) and a model far ahead (a likelihood that underflows at small
    tau) give finite probabilities; with no pair left to learn from, the flat prior is used
    and said."""
    g = np.arange(12) // 2  # 6 clusters of 2
    R = np.zeros((3, 12, 1))
    R[0] = 1.0  # model 0 beats model 1 by 1 in every cluster: scale 0
    R[2] = (np.arange(12) % 4 == 0)[:, None]  # model 2 varies
    pc = compare_pairs(R, cluster=g, prior="empirical")
    assert pc.paired[0, 1] == 1.0 and pc.paired[1, 0] == 0.0
    assert 0.5 < pc.paired[0, 2] < 1.0 and "tau learned" in pc.prior
    lone = R.copy()
    lone[1, 2:] = np.nan  # model 1 answered cluster 0 only
    one = compare_pairs(lone, cluster=g, prior="empirical")
    assert np.isnan(one.paired[0, 1]) and np.isfinite(one.paired[0, 2])
    graded = np.stack([np.full((12, 1), 0.7), np.full((12, 1), 0.1), np.full((12, 1), 0.4)])
    flat = compare_pairs(graded, cluster=g, prior="empirical", fractional=True)
    assert flat.paired[0, 1] == 1.0 and flat.paired[0, 2] == 1.0
    assert flat.prior == compare_pairs(graded, cluster=g, prior="uniform", fractional=True).prior
    far = np.zeros((2, 600, 1))
    far[0] = 1.0
    far[1, ::300] = 1.0  # model 1 right twice in 600 questions
    with np.errstate(invalid="raise", divide="raise"):  # no log(0), no 0 / 0
        p = compare_pairs(far, cluster=np.arange(600) % 30, prior="empirical").paired[0, 1]
    assert 0.999 < p <= 1.0


def test_unclustered_comparison_is_unchanged():
    # without clusters the Beta formula of the module docstring, the learned split prior aside
    a = np.array([1] * 7 + [0] * 2 + [1] * 5, float)
    b = np.array([0] * 7 + [1] * 2 + [1] * 5, float)
    pc = compare_pairs(np.stack([a, b])[..., None], prior="uniform")
    assert pc.paired[0, 1] == pytest.approx(stats.beta.sf(0.5, 8, 3), abs=1e-12)
    assert pc.clusters is None and "no clusters" in pc.to_dict()["clusters"]["treatment"]


def test_a_pair_sharing_one_cluster_gets_nan():
    R = np.ones((2, 4, 1))
    R[1, 2:] = np.nan  # model 1 answered cluster "a" only
    pc = compare_pairs(R, cluster=["a", "a", "b", "b"])
    assert np.isnan(pc.paired[0, 1])


# ---------------------------------------------------------------- draws


def test_cluster_draws_have_the_exact_t_laws():
    rng = np.random.default_rng(1)
    g = np.arange(30) % 6
    s = rng.random((3, 30))
    T, n = cluster_sums(s, np.ones_like(s, bool), g)
    d = cluster_draws(T, n, draws=40_000, seed=2)
    mean, scale, df = cluster_values(T, n)
    for p in (0.05, 0.5, 0.95):  # quantile of a t_5 from 40,000 draws: within ~0.03 scale
        q = np.quantile(d, p, axis=0)
        np.testing.assert_allclose((q - mean) / scale, stats.t.ppf(p, df), atol=0.06)
    # paired: the draws of a difference follow the t of the cluster differences
    dm, ds_, _ = cluster_values(*cluster_sums(s[[0]] - s[[1]], np.ones((1, 30), bool), g))
    p_draws = (d[:, 0] > d[:, 1]).mean()
    assert p_draws == pytest.approx(stats.t.cdf(dm[0] / ds_[0], 5), abs=0.01)
    np.testing.assert_array_equal(d, cluster_draws(T, n, draws=40_000, seed=2))  # seeded


def test_unclustered_bootstrap_is_the_uniform_beta_for_one_trial():
    # binary, one trial, k of M right: Dir(1 per question, 1 at score 1, 1 at 0) gives
    # Beta(1 + k, 1 + M - k) for the mean
    s = np.array([[1.0] * 13 + [0.0] * 7])
    d = population_draws(s, np.ones_like(s), draws=40_000, seed=0)[:, 0]
    law = stats.beta(14, 8)
    assert d.mean() == pytest.approx(law.mean(), abs=3 * law.std() / 200)
    assert d.std() == pytest.approx(law.std(), rel=0.02)
    for p in (0.025, 0.975):
        assert np.quantile(d, p) == pytest.approx(law.ppf(p), abs=0.006)


@pytest.mark.parametrize(
    ("kwargs", "phrase"),
    [
        ({"totals": [[1.0]], "sizes": [[1.0, 1.0]]}, "expected two arrays"),
        ({"totals": [[2.0]], "sizes": [[1.0]]}, "totals in"),
        ({"totals": [[0.0]], "sizes": [[0.0]]}, "answered no question"),
        ({"totals": [[1.0]], "sizes": [[1.0]], "draws": 0}, "draws is 0"),
    ],
)
def test_population_draws_refuse_bad_input(kwargs, phrase):
    with pytest.raises(ValueError, match=phrase):
        population_draws(**kwargs)


# ---------------------------------------------------------------- the leaderboard


def _board(seed=0, L=4, M=40, G=8, s=1.5, N=2):
    rng = np.random.default_rng(seed)
    g = np.arange(M) % G
    theta = np.linspace(0.6, -0.6, L)
    b = rng.normal(0, s, G)[g] + rng.normal(0, 1, M)
    R = (rng.random((L, M, N)) < expit(theta[:, None] - b)[..., None]).astype(float)
    names = [f"m{i}" for i in range(L)]
    da = xr.DataArray(
        R,
        dims=("model", "question", "trial"),
        coords={"model": names, "question": [f"q{q}" for q in range(M)]},
    )
    return da, g


def test_population_leaderboard_clustered_interval_is_the_t_interval():
    da, g = _board()
    before = da.copy(deep=True)
    board = population_leaderboard(da, cluster=g, confidence=0.9, draws=2000, seed=4)
    xr.testing.assert_identical(da, before)
    s = da.values.mean(axis=2)
    for i in range(4):
        means = np.array([s[i][g == c].mean() for c in range(8)])
        half = stats.t.ppf(0.95, 7) * means.std(ddof=1) / np.sqrt(8)
        row = board.table.sel(model=f"m{i}")
        assert float(row["lo"]) == pytest.approx(means.mean() - half, abs=1e-12)
        assert float(row["hi"]) == pytest.approx(means.mean() + half, abs=1e-12)
    assert board.estimand == "new questions" and board.table.attrs["clustered"]
    # the same clusters as a mapping question -> label
    mapping = {f"q{q}": f"c{g[q]}" for q in range(40)}
    again = population_leaderboard(da, cluster=mapping, confidence=0.9, draws=2000, seed=4)
    np.testing.assert_allclose(again.table["lo"], board.table["lo"])
    # P(better) is the paired comparison `pairs` prints
    pc = leaderboard_pairs(da, cluster=g)
    order = list(pc.models)
    np.testing.assert_allclose(
        board.table["prob_better"].sel(model=order, model_bis=order).values, pc.paired
    )
    # the rank range is every rank the pairwise statements at 0.9 leave open (no chaining),
    # and P(> next) is the paired P of the next model listed
    names = [r["model"] for r in board.models]
    p = board.table["prob_better"].sel(model=names, model_bis=names).values
    credible = np.nan_to_num(p, nan=0.0) >= 0.9
    for k, r in enumerate(board.models):
        assert r["rank_range"] == [1 + int(credible[:, k].sum()), 4 - int(credible[k].sum())]
        assert r["rank_range"][0] <= r["rank"] <= r["rank_range"][1]
        assert r["rank_draws"][0] <= r["rank_draws"][1]
        assert r["prob_next"] == (None if k == 3 else pytest.approx(p[k, k + 1], abs=1e-15))


def test_population_leaderboard_refuses_bad_input():
    da, _ = _board()
    with pytest.raises(ValueError, match="one cluster"):
        population_leaderboard(da, cluster=np.zeros(40))
    with pytest.raises(ValueError, match="confidence"):
        population_leaderboard(da, confidence=1.5)
    with pytest.raises(ValueError, match="ranking needs two"):
        population_leaderboard(da.isel(model=[0]))


def test_clusters_matter_for_coverage_and_the_t_model_holds_it():
    # 3,000 clustered samples of one model's per-question scores (5 clusters of 12, cluster sd
    # 2 on the logit scale): the cluster-level t interval covers 0.931 here (Monte Carlo sd
    # 0.005; the cluster means of 0/1 answers are skewed when clusters differ this much, so
    # the t model holds to about 2 points, not exactly: bounds 0.92-0.97), the interval that
    # takes the questions as independent covers far less (0.6)
    rng = np.random.default_rng(7)
    reps, G, per = 3000, 5, 12
    c = rng.normal(0, 2, (reps, G, 1))
    p = expit(c + rng.normal(0, 1, (reps, G, per)))
    x = (rng.random(p.shape) < p).astype(float).reshape(reps, G * per)
    x_pop = rng.normal(0, 1, 400_000) * np.sqrt(5)
    truth = expit(x_pop).mean()
    g = np.repeat(np.arange(G), per)
    T, n = cluster_sums(x, np.ones_like(x, bool), g)
    mean, scale, df = cluster_values(T, n)
    q = stats.t.ppf(0.975, df)
    clustered = np.mean(np.abs(mean - truth) <= q * scale)
    naive_se = x.std(axis=1, ddof=1) / np.sqrt(G * per)
    naive = np.mean(np.abs(mean - truth) <= 1.96 * naive_se)
    assert 0.92 <= clustered <= 0.97
    assert naive < 0.8


# ---------------------------------------------------------------- files and the CLI


@pytest.fixture
def clustered_csv(tmp_path):
    da, g = _board(seed=2, L=3, M=24, G=6, N=1)
    rows = [
        (m, q, 0, int(da.values[i, k, 0]), f"topic {g[k]}")
        for i, m in enumerate(da["model"].values)
        for k, q in enumerate(da["question"].values)
    ]
    df = pd.DataFrame(rows, columns=["model", "question", "trial", "score", "topic"])
    path = tmp_path / "clustered.csv"
    df.to_csv(path, index=False)
    return path, df


def test_loader_reads_the_cluster_column(clustered_csv, tmp_path):
    path, df = clustered_csv
    scored = load_scored(str(path), cluster="topic")
    assert scored.clusters["q0"] == "topic 0" and scored.clusters["q7"] == "topic 1"
    assert "topic" not in scored.R.coords and scored.log["cluster_column"] == "topic"
    pq = tmp_path / "clustered.parquet"
    df.to_parquet(pq)
    assert load_scored(str(pq), cluster="topic").clusters == scored.clusters


def test_loader_refuses_bad_clusters(clustered_csv, tmp_path):
    path, df = clustered_csv
    with pytest.raises(ValueError, match="no column 'subject'"):
        load_scored(str(path), cluster="subject")
    bad = df.copy()
    bad.loc[(bad.question == "q3") & (bad.model == "m1"), "topic"] = "topic 5"
    bad.to_csv(tmp_path / "two.csv", index=False)
    with pytest.raises(ValueError, match="question 'q3' is in two clusters"):
        load_scored(str(tmp_path / "two.csv"), cluster="topic")
    with pytest.raises(ValueError, match="one of the columns"):
        load_scored(str(path), cluster="question")
    with pytest.raises(ValueError, match="shipped dataset"):
        load_scored("dataset:aime25", cluster="topic")
    # a missing label (Parquet null) is refused, not put in some cluster
    gap = df.copy().astype({"topic": object})
    gap.loc[gap.question == "q5", "topic"] = None
    gap.to_parquet(tmp_path / "gap.parquet")
    with pytest.raises(ValueError, match="cluster column 'topic' is empty"):
        load_scored(str(tmp_path / "gap.parquet"), cluster="topic")


def test_a_model_in_one_cluster_is_refused():
    da, g = _board(seed=5, L=3, M=24, G=6, N=1)
    da = da.copy()
    da[1, g != 0, :] = np.nan  # model 1 answered the questions of cluster 0 only
    with pytest.raises(ValueError, match="1 cluster"):
        population_leaderboard(da, cluster=g)


@pytest.mark.slow
def test_cli_rank_and_pairs_with_clusters(clustered_csv, capsys):
    path, _ = clustered_csv
    argv = ["rank", str(path), "--estimand", "new-questions", "--cluster", "topic", "--json"]
    assert main([*argv, "--draws", "500"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["estimand"] == "new questions"
    assert doc["clusters"] == {
        "column": "topic",
        "count": 6,
        "treatment": "questions drawn in 6 clusters (t model over clusters)",
    }
    assert len(doc["models"]) == 3 and doc["draws"] == 500
    assert main(["pairs", str(path), "--cluster", "topic", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["clusters"]["column"] == "topic"
    assert doc["method"]["paired"] == "t with a learned normal prior on the difference"
    assert "tau learned over the board's pairs" in doc["prior_detail"]["paired"]
    assert main(["rank", str(path), "--estimand", "new-questions", "--cluster", "topic"]) == 0
    assert "questions drawn in 6 clusters" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "phrase"),
    [
        (["--cluster", "nope"], "no column 'nope'"),
        (["--cluster", "trial"], "one of the columns"),
    ],
)
def test_cli_refuses_bad_clusters_in_one_line(clustered_csv, capsys, extra, phrase):
    path, _ = clustered_csv
    assert main(["pairs", str(path), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert phrase in err and "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize("clustered", [False, True])
def test_new_questions_claims_are_the_fdr_rule_on_the_paired_matrix(clustered):
    """The claims of the new-questions board: ``fdr_claims`` on its own P(better) matrix (the
    paired comparisons, with or without clusters), their tie groups partition the models, and
    no whole-board probability is stated."""
    from bayes_eval.ranking.claims import fdr_claims
    from bayes_eval.ranking.population import population_leaderboard

    rng = np.random.default_rng(12)
    p = np.clip(rng.random((1, 40, 1)) + np.linspace(-0.3, 0.3, 5)[:, None, None], 0, 1)
    R = xr.DataArray(
        (rng.random((5, 40, 1)) < p) * 1.0,
        dims=("model", "question", "trial"),
        coords={"model": list("abcde")},
    )
    cluster = np.repeat(np.arange(8), 5) if clustered else None
    board = population_leaderboard(R, cluster=cluster, draws=400, fdr=0.1)
    prob = board.table["prob_better"].values.copy()
    np.fill_diagonal(prob, 0.5)
    expected = fdr_claims(prob, 0.1)
    t = board.table
    assert t.attrs["claims_estimand"] == "new questions" and t.attrs["fdr"] == 0.1
    names = np.array(list("abcde"))
    assert t["claim_better"].values.tolist() == names[expected.better].tolist()
    assert t["claim_worse"].values.tolist() == names[expected.worse].tolist()
    assert t["claim_prob"].values == pytest.approx(expected.prob)
    assert t.attrs["claims_fdr"] == pytest.approx(expected.expected_fdr)
    assert sorted(set(t["tie_group"].values.tolist())) == list(range(1, len(expected.groups) + 1))
    assert "p_best" not in t and "rank_joint_lo" not in t
