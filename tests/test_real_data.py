"""Real evaluation data in ../shared/data/trials.

* Phi-4-reasoning on AIME'25 (30 x 80): the authors' printed Bayes@80, sigma, 95% CI and the
  pass@k / pass^k rows, to the 3 decimals they printed. Only per-question counts are known,
  which is all these order-independent quantities use.
* tau-bench airline, gpt-4o (50 tasks x 4 trials): pass^k for k = 1..4 against the definition
  (average over all k-subsets of each task's trials).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

import bayes_eval as be


@pytest.fixture(scope="module")
def phi4(shared):
    folder = shared / "data" / "trials" / "phi4_reasoning_aime25"
    df = pd.read_csv(folder / "phi4_reasoning_aime25_per_question.csv")
    counts = np.round(df["acc"].to_numpy() * 80).astype(int)
    assert np.abs(df["acc"].to_numpy() * 80 - counts).max() < 0.05  # acc printed to 3 decimals
    R = (np.arange(80)[None, :] < counts[:, None]).astype(np.int8)
    ref = json.loads((folder / "phi4_reasoning_aime25_reference_metrics.json").read_text())
    return R, ref


def test_phi4_bayes_ci_matches_printed_values(phi4):
    R, ref = phi4
    mu, sigma, lo, hi = be.bayes_ci(R, confidence=0.95)
    want = ref["bayes_ci_full"]
    assert [round(x, 3) for x in (mu, sigma, lo, hi)] == [
        want["mu"],
        want["sigma"],
        want["lo"],
        want["hi"],
    ]


def test_phi4_pass_rows_match_printed_values(phi4):
    R, ref = phi4
    table = ref["table_by_k"]
    for k, p_at, p_hat in zip(table["k"], table["pass@k"], table["pass^k"], strict=True):
        assert round(be.pass_at_k(R, k), 3) == p_at
        assert round(be.pass_hat_k(R, k), 3) == p_hat


@pytest.fixture(scope="module")
def taubench(shared):
    records = json.loads(
        (shared / "data" / "trials" / "taubench_gpt4o_airline" / "gpt-4o-airline.json").read_text()
    )
    df = pd.DataFrame([{k: r[k] for k in ("task_id", "trial", "reward")} for r in records])
    R = df.pivot(index="task_id", columns="trial", values="reward").to_numpy()
    assert R.shape == (50, 4) and set(np.unique(R)) <= {0.0, 1.0}
    return R.astype(int)


def test_taubench_pass_hat_k_by_enumeration(taubench):
    R = taubench
    got = [be.pass_hat_k(R, k) for k in range(1, 5)]
    want = [
        np.mean([np.mean([all(s) for s in itertools.combinations(row, k)]) for row in R])
        for k in range(1, 5)
    ]
    np.testing.assert_allclose(got, want, atol=1e-14)
    assert got == sorted(got, reverse=True)  # pass^k cannot increase with k
    # posterior version agrees to first order and has an interval inside [0, 1]
    mu, sigma, lo, hi = be.pass_hat_k_ci(R, 4)
    assert 0.0 <= lo <= mu <= hi <= 1.0
    assert abs(mu - got[3]) < 3 * sigma
