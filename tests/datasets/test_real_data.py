"""Real evaluation data shipped in :mod:`bayes_eval.datasets`.

* Phi-4-reasoning on AIME'25 (30 x 80): the authors' printed Bayes@80, sigma, 95% CI and the
  pass@k / pass^k rows, to the 3 decimals they printed. Only per-question counts are known,
  which is all these order-independent quantities use.
* tau-bench airline, gpt-4o (50 tasks x 4 trials): pass^k for k = 1..4 against the definition
  (average over all k-subsets of each task's trials).
* The datasets API: names, provenance attributes, shapes, errors, size on disk.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import xarray as xr

import bayes_eval as be
from bayes_eval import datasets


@pytest.fixture(scope="module")
def phi4():
    ds = datasets.load("phi4_aime25")
    return ds["results"].isel(model=0).values.astype(int), ds


def test_phi4_bayes_ci_matches_printed_values(phi4):
    R, ds = phi4
    # the authors' numbers: the paper's uniform prior and normal interval
    mu, sigma, lo, hi = be.bayes_ci(R, confidence=0.95, prior="uniform", interval="normal")
    want = ds["published_bayes_ci"].sel(reference_model="Phi-4-reasoning").values
    np.testing.assert_array_equal(np.round([mu, sigma, lo, hi], 3), want)
    assert want.tolist() == [0.598, 0.007, 0.584, 0.613]


def test_phi4_pass_rows_match_printed_values(phi4):
    R, ds = phi4
    for k in ds["k"].values:
        assert round(be.pass_at_k(R, int(k)), 3) == ds["published_pass_at_k"].sel(k=k)
        assert round(be.pass_hat_k(R, int(k)), 3) == ds["published_pass_hat_k"].sel(k=k)


@pytest.fixture(scope="module")
def taubench():
    R = datasets.load("taubench_airline_gpt4o")["results"].isel(model=0).values
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


# ----------------------------------------------------------------------------- the API


def test_every_dataset_loads_with_provenance():
    names = datasets.list_datasets()
    assert len(names) == 11 and all(isinstance(v, str) and v for v in names.values())
    for name in names:
        ds = datasets.load(name)
        assert isinstance(ds, xr.Dataset)
        for key in ("name", "description", "source", "licence", "citation"):
            assert ds.attrs[key], (name, key)
        assert any(p.name == "SOURCE.md" for p in datasets.files(name))
        if "results" in ds:
            assert ds["results"].dims == ("model", "question", "trial")


@pytest.mark.parametrize(
    ("name", "shape", "mean"),
    [
        ("matharena_aime25_i", (16, 15, 4), None),
        ("phi4_aime25", (1, 30, 80), None),
        ("taubench_airline_gpt4o", (1, 50, 4), 0.42),
        ("cruxeval_codellama7b", (1, 1600, 10), None),  # published pass@1: test below
        ("gpt_oss_20b_aime25_q06", (1, 1, 80), 32 / 80),
        ("inspect_mmlu_log", (1, 1, 1), 0.0),
    ],
)
def test_trial_datasets_shapes_and_published_means(name, shape, mean):
    R = datasets.load(name)["results"]
    assert R.shape == shape
    if mean is not None:
        assert float(R.mean()) == pytest.approx(mean, abs=5e-6)


@pytest.mark.slow
def test_inspect_dataset_arrays_equal_what_the_reader_gives():
    """The derived ``log_arrays.json`` is exactly the Inspect reader's view of the shipped log."""
    import xarray as xr

    from bayes_eval.logs import read_eval_log

    log = datasets.files("inspect_mmlu_log", "mmlu-summary-choices.eval")
    read = read_eval_log(log).to_dataset().rename({"R": "results"})
    shipped = datasets.load("inspect_mmlu_log")
    xr.testing.assert_identical(read.drop_attrs(), shipped.drop_attrs())
    for key in ("format", "scorer", "category_map", "default_weights"):
        assert shipped.attrs[key] == read.attrs[key]


def test_matharena_counts_and_costs():
    ds = datasets.load("matharena_aime25_i")
    R = ds["results"]
    assert R.dtype == float and set(np.unique(R.values)) == {0.0, 1.0}
    assert str(R["model"].values[0]) == "o3-mini (high)"
    # the site's cost row: 14 priced models, two without a price
    assert int(np.isfinite(ds["cost_usd"].values).sum()) == 14
    assert float(ds["cost_usd"].sel(model="o1 (medium)")) == pytest.approx(44.396805)
    # correct counts are multiples of 1 out of 4; every model answered every question
    assert not np.isnan(R.values).any()


def test_cruxeval_tasks_reproduce_the_published_pass_at_1():
    R = datasets.load("cruxeval_codellama7b")["results"]
    by_task = R.groupby("task").mean(...)
    assert float(by_task.sel(task="input")) == pytest.approx(0.3595, abs=5e-5)
    assert float(by_task.sel(task="output")) == pytest.approx(0.3421, abs=5e-5)


def test_judge_datasets_natural_dims():
    mt = datasets.load("mtbench_judges")
    assert mt["count"].dims == ("candidate", "judge", "score") and mt["count"].shape == (6, 2, 5)
    assert int(mt["same_family"].sum()) == 3  # gpt-4o-mini judging gpt-4 / gpt-3.5, haiku claude
    assert sorted(mt["human_rank"].values.tolist()) == [1, 2, 3, 4, 5, 6]
    se = datasets.load("summeval_judges")
    assert se["judge_score"].shape == (100, 12, 4, 5)
    assert list(se["candidate"].values[:3]) == ["M8", "M9", "M10"]
    assert int(np.isnan(se["judge_score"]).sum()) == 1  # one unparseable llama-2-70b score
    assert set(np.unique(se["expert_score"])) == {1.0, 2.0, 3.0, 4.0, 5.0}


def test_bandit_metadata():
    g = datasets.load("bandit_gsm8k_arms")
    assert g.sizes["arm"] == 122 and datasets.load("bandit_piqa_arms").sizes["arm"] == 103
    m = datasets.load("bandit_mmlu_meta")
    assert m.sizes["subject"] == 57 and m.sizes["model"] == 15
    assert float(m["prior_mean"].sel(bucket="high")) == 0.75


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(
        ValueError, match=r"unknown dataset 'nope'; expected one of \[.*phi4_aime25"
    ):
        datasets.load("nope")
    with pytest.raises(ValueError, match="unknown dataset"):
        datasets.files(3)  # type: ignore[arg-type]


def test_loads_are_independent_copies():
    a = datasets.load("taubench_airline_gpt4o")
    a["results"][:] = 0
    assert float(datasets.load("taubench_airline_gpt4o")["results"].mean()) == 0.42


def test_shipped_folder_stays_compact():
    from bayes_eval.datasets.registry import DATA_DIR

    size = sum(p.stat().st_size for p in DATA_DIR.rglob("*") if p.is_file())
    assert size < 1.5e6, f"bayes_eval/datasets/data is {size / 1e6:.2f} MB (target < 1.5 MB)"


@pytest.mark.slow
def test_a_built_wheel_carries_every_shipped_file(tmp_path):
    """An editable install reads the source tree; a wheel must carry the data itself."""
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    from bayes_eval.datasets.registry import DATA_DIR

    root = Path(__file__).resolve().parents[2]
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(root), "--no-deps", "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("bayes_eval-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {
        "bayes_eval/datasets/data/" + p.relative_to(DATA_DIR).as_posix()
        for p in DATA_DIR.rglob("*")
        if p.is_file()
    }
    assert shipped <= names, sorted(shipped - names)
    assert "bayes_eval/py.typed" in names


@pytest.mark.slow
def test_shipped_files_match_the_raw_sources():
    """scripts/build_datasets.py --check rebuilds every file from the raw sources, where the
    team's raw reference files sit beside the checkout."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    raw = root.parent / "shared"
    if not (raw / "data" / "trials").is_dir():
        pytest.skip("the raw source files (../shared/data) are not beside the checkout")
    done = subprocess.run(
        [
            sys.executable,
            str(root / "scripts" / "build_datasets.py"),
            "--source",
            str(raw),
            "--check",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
