"""The registry of validation studies: every study reached the same way (name -> config type ->
run function -> result Dataset), configs the command line can be generated from, bad options
refused, files written as listed, interrupted coverage studies resumed without new work."""

from __future__ import annotations

import dataclasses
import inspect
import json
import subprocess
import sys
import typing

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from bayes_eval.serialize import to_jsonable
from bayes_eval.validation import registry
from bayes_eval.validation.registry import STUDIES, StudyResult, get_study, make_config

SCALARS = (bool, int, float, str)
SIMPLE = {*SCALARS, tuple[int, ...], tuple[float, ...], tuple[str, ...]}
SIMPLE |= {t | None for t in SIMPLE}


def test_the_studies():
    assert list(STUDIES) == [
        "biased-coin",
        "prior-benefit",
        "distinguishability",
        "claims",
        "plan",
        "pairs",
        "clusters",
        "board",
        "graded",
        "hyperprior",
        "convergence",
        "coverage",
        "crossed",
        "elicit",
        "judges",
        "judges-synthetic",
        "sbc",
    ]
    for name, study in STUDIES.items():
        assert study.name == name and get_study(name) is study
        assert callable(study.run)
        assert "seed 000" not in study.summary.lower() and "\n" not in study.summary
        assert any(author in study.summary for author in ("Hariri", "Vossler"))
    with pytest.raises(ValueError, match=r"expected one of \['biased-coin'"):
        get_study("biased_coin")


@pytest.mark.parametrize("name", list(STUDIES))
def test_config_fields_are_simple_with_defaults_and_help(name):
    config = get_study(name).config
    assert dataclasses.is_dataclass(config) and config.__dataclass_params__.frozen
    hints = typing.get_type_hints(config)
    for f in dataclasses.fields(config):
        assert hints[f.name] in SIMPLE, (name, f.name, hints[f.name])
        assert f.type == hints[f.name]  # real types, not strings: the CLI reads field.type
        assert isinstance(f.metadata.get("help"), str) and f.metadata["help"], (name, f.name)
        has_default = f.default is not dataclasses.MISSING
        assert has_default or f.metadata.get("positional"), (name, f.name)
        if "choices" in f.metadata:
            assert f.default is None or f.default in f.metadata["choices"]
    assert "seed" in {f.name for f in dataclasses.fields(config)}  # every study is random


def test_defaults_are_the_study_functions_defaults():
    from bayes_eval.validation import biased_coin_study, convergence_study, prior_benefit
    from bayes_eval.validation import distinguishability as dist

    def defaults(func):
        return {k: p.default for k, p in inspect.signature(func).parameters.items()}

    bc = make_config("biased-coin")
    d = defaults(biased_coin_study.run)
    assert (bc.independent, bc.replicates, bc.n_max, bc.seed) == (1000, 10_000, 80, 0)
    assert bc.methods == tuple(d["methods"]) and bc.n_questions == d["n_questions"]
    pb, d = make_config("prior-benefit"), defaults(prior_benefit.run)
    assert (pb.replicates, pb.n_max, pb.depths) == (50_000, d["n_max"], tuple(d["depths"]))
    di, d = make_config("distinguishability"), defaults(dist.run)
    assert (di.replicates, di.n_max) == (10_000, d["n_max"])
    cv, d = make_config("convergence", file="x.csv"), defaults(convergence_study.run)
    assert (cv.replicates, cv.replace, cv.subset_size) == (10_000, False, None)
    assert (cv.subset_count, cv.confidence) == (d["subset_count"], d["confidence"])
    el = make_config("elicit", lo=0.3, hi=0.6)
    # concentration None: the default spread DEFAULT_CONCENTRATION, refused where it would
    # do nothing (question-level statements)
    assert (el.prob, el.level, el.n_questions, el.concentration) == (0.9, None, None, None)
    js = make_config("judges-synthetic")
    assert (js.replicates, js.n_questions) == (10, 400)


@pytest.mark.parametrize(
    ("name", "options", "match"),
    [
        ("biased-coin", {"bogus": 1}, r"unknown option\(s\) \['bogus'\]"),
        ("biased-coin", {"replace": True}, r"unknown option\(s\) \['replace'\]"),
        ("biased-coin", {"replicates": "many"}, r"'replicates' is 'many'; expected an integer"),
        ("biased-coin", {"replicates": 2.5}, r"'replicates' is 2.5; expected an integer"),
        ("biased-coin", {"replicates": 0}, r"replicates is 0; expected an integer >= 1"),
        ("biased-coin", {"seed": True}, r"'seed' is True; expected an integer"),
        ("biased-coin", {"methods": "bayes,pass@k"}, r"method 'pass@k' is not understood"),
        ("prior-benefit", {"depths": (0, -1)}, r"depths is -1; expected an integer >= 0"),
        ("convergence", {}, r"'file' is required"),
        ("convergence", {"file": "r.csv", "replace": "maybe"}, r"expected true or false"),
        ("convergence", {"file": "r.csv", "confidence": 1.5}, r"confidence is 1.5"),
        ("coverage", {"M": "5,x"}, r"'M' is '5,x'; expected a list of integers"),
        (
            "coverage",
            {"scenarios": ("uniform", "nope")},
            r"scenarios must be a non-empty list of some of .*\['nope'\] are unknown",
        ),
        ("coverage", {"nuts_cells": ("uniform:1:5",)}, r"expected SCENARIO:C:M:N"),
        ("coverage", {"workers": -1}, r"workers must be an integer >= 0, got -1"),
        ("elicit", {}, r"lo and hi are required"),
        ("elicit", {"lo": 0.3, "hi": 0.6, "level": "model"}, r"level is 'model'; expected one"),
        ("elicit", {"categories": "0.1:0.4,0.1:0.3,0.4:0.7"}, r"--level question"),
        ("elicit", {"categories": "a,b", "level": "question"}, r"expected lo:hi pairs"),
        ("judges-synthetic", {"judges": 9}, r"judges is 9; expected at most candidates = 8"),
    ],
)
def test_make_config_rejects_unknown_options_and_bad_values(name, options, match):
    with pytest.raises(ValueError, match=match):
        make_config(name, **options)


def test_make_config_converts_command_line_strings():
    cfg = make_config("coverage", M="5,30", replicates="100", exact_categorical="true")
    assert cfg.M == (5, 30) and cfg.replicates == 100 and cfg.exact_categorical is True
    assert cfg.overrides() == {
        "M": [5, 30],
        "replicates": 100,
        "exact_replicates": 100,
        "exact_categorical": True,
    }
    cfg = make_config("biased-coin", methods=["bayes", "pass_at_k:4"], replicates=np.int64(7))
    assert cfg.methods == ("bayes", "pass_at_k:4") and cfg.replicates == 7


def test_importing_the_registry_is_light():
    code = (
        "import sys, bayes_eval.validation.registry as r; r.make_config('coverage');"
        "print(','.join(m for m in ('pymc', 'dask', 'matplotlib', 'xarray', 'pandas',"
        " 'bayes_eval.validation.coverage') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _check_result(result: StudyResult, files: set[str]) -> None:
    assert isinstance(result, StudyResult) and isinstance(result.dataset, xr.Dataset)
    assert set(result.files) == files
    for path in result.files.values():
        assert path.exists()
    text = json.dumps(to_jsonable(result.summary), allow_nan=False)
    assert "seconds" in json.loads(text)
    if "netcdf" in result.files:
        with xr.open_dataset(result.files["netcdf"]) as ds:
            assert set(ds.data_vars) == set(result.dataset.data_vars)


@pytest.mark.slow
def test_run_study_writes_the_files_it_lists(tmp_path):
    result = registry.run_study(
        "distinguishability", tmp_path / "d", progress=False, replicates=50, n_max=90
    )
    _check_result(result, {"netcdf", "plot"})
    assert result.files["netcdf"].name == "distinguishability.nc"
    assert result.summary["netcdf"] == str(result.files["netcdf"])
    assert set(result.summary["p_correct"]) == {80}
    result = registry.run_study(
        "prior-benefit", tmp_path / "p", progress=False, replicates=200, n_max=6, depths=(0, 2)
    )
    _check_result(result, {"netcdf", "plot"})
    assert result.dataset.sizes["depth"] == 2


@pytest.mark.slow
def test_convergence_reads_trials_in_order_and_refuses_count_only_data(tmp_path):
    rng = np.random.default_rng(3)
    R = (rng.random((3, 12, 6)) < 0.5).astype(int)
    rows = [
        {"model": f"m{m}", "question": f"q{q}", "trial": t, "score": int(R[m, q, t])}
        for m in range(3)
        for q in range(12)
        for t in range(6)
    ]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).sample(frac=1, random_state=0).to_csv(path, index=False)  # rows shuffled
    from bayes_eval.validation.convergence_study import from_file

    values, names = from_file(str(path))
    assert names == ["m0", "m1", "m2"]
    np.testing.assert_array_equal(values, R)  # q0..q11 in natural order, trials by `trial`
    result = registry.run_study(
        "convergence",
        tmp_path / "out",
        progress=False,
        file=str(path),
        replicates=50,
        methods="bayes,pass_at_k:2",
    )
    _check_result(result, {"netcdf", "plot"})
    assert set(result.summary["methods"]) == {"bayes", "pass_at_k:2"}
    with pytest.raises(ValueError, match="publishes correct counts only"):
        from_file("dataset:phi4_aime25")
    with pytest.raises(ValueError, match="not trial results"):
        from_file("dataset:mtbench_judges")
    bad = tmp_path / "gap.csv"
    pd.DataFrame(rows[:-1]).to_csv(bad, index=False)
    with pytest.raises(ValueError, match="1 missing trials"):
        from_file(str(bad))
    pd.DataFrame([{**r, "score": 2 * r["score"]} for r in rows]).to_csv(bad, index=False)
    with pytest.raises(ValueError, match="scores must be 0/1"):
        from_file(str(bad))


@pytest.mark.slow  # about 2 s: the quick tier stays under a minute
def test_elicit_study(tmp_path):
    result = registry.run_study(
        "elicit", tmp_path / "e", progress=False, lo=0.3, hi=0.6, level="question"
    )
    _check_result(result, {"netcdf", "plot"})
    s = result.summary
    assert s["level"] == "question" and s["n_questions"] == 30
    assert "5.5 times narrower" in s["warning"] and s["prior"]["depth"] > 0
    text = "\n".join(s["report"])
    assert "implied 90% interval of pi-bar for M = 30 questions: [0.421, 0.475]" in text
    assert "warning: question-level prior" in text and "--level benchmark" in text
    result = registry.run_study(
        "elicit",
        tmp_path / "f",
        progress=False,
        file="dataset:taubench_airline_gpt4o",
        lo=0.3,
        hi=0.6,
    )
    s = result.summary
    assert s["level"] == "benchmark" and s["warning"] is None and s["n_questions"] == 50
    assert "level: benchmark (default)" in s["note"]
    assert set(s["sensitivity"]["gpt-4o"]) == {"uniform", "elicited"}
    assert result.dataset["mu"].dims == ("prior", "model")


def _coverage_options(tmp_path):
    toml = tmp_path / "grid.toml"
    toml.write_text(
        'M = [5]\nN = [1]\nC = [1]\nscenarios = ["uniform"]\nreplicates = 40\n'
        "exact_replicates = 40\nempirical_exact_replicates = 0\nbootstrap_resamples = 0\nseed = 3\n"
    )
    return {"config": str(toml), "N": (1, 3)}  # an option overrides the TOML


@pytest.mark.slow  # three studies, each with its plot (the quick tier resumes in
# tests/validation/test_coverage_hardening.py)
@pytest.mark.filterwarnings("ignore:.*replace keys of the file")  # the override is the point
def test_coverage_resumed_run_computes_nothing_new(tmp_path):
    options = _coverage_options(tmp_path)
    out = tmp_path / "cov"
    first = registry.run_study("coverage", out, progress=False, workers=0, max_cells=1, **options)
    assert first.summary["cells_computed"] == 1 and first.summary["cells_pending"] == 1
    assert first.summary["netcdf"] is None and "netcdf" not in first.files
    done = {p.name: p.stat().st_mtime_ns for p in (out / "cells").glob("*.nc")}
    second = registry.run_study("coverage", out, progress=False, workers=0, **options)
    assert (second.summary["cells_computed"], second.summary["cells_resumed"]) == (1, 1)
    _check_result(second, {"netcdf", "plot", "manifest", "cells"})
    assert second.dataset.sizes["N"] == 2 and int(second.dataset["M"][0]) == 5
    third = registry.run_study("coverage", out, progress=False, workers=0, **options)
    assert third.summary["cells_computed"] == 0 and third.summary["cells_resumed"] == 2
    for name, mtime in done.items():
        assert (out / "cells" / name).stat().st_mtime_ns == mtime
    xr.testing.assert_equal(third.dataset, second.dataset)
    with pytest.raises(ValueError, match="another configuration"):
        registry.run_study("coverage", out, progress=False, workers=0, **options, seed=4)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*replace keys of the file")
def test_coverage_study_on_a_local_dask_cluster(tmp_path):
    options = _coverage_options(tmp_path)
    out = tmp_path / "cov"
    first = registry.run_study("coverage", out, progress=False, workers=2, max_cells=1, **options)
    assert first.summary["cells_computed"] == 1
    second = registry.run_study("coverage", out, progress=False, workers=2, **options)
    assert (second.summary["cells_computed"], second.summary["cells_resumed"]) == (1, 1)
    # the same cells in-process: identical numbers
    again = registry.run_study("coverage", tmp_path / "seq", progress=False, workers=0, **options)
    xr.testing.assert_equal(again.dataset, second.dataset)


@pytest.mark.slow
def test_biased_coin_study(tmp_path):
    result = registry.run_study(
        "biased-coin",
        tmp_path,
        progress=False,
        independent=20,
        replicates=20,
        n_max=8,
        methods=("bayes", "pass_at_k:2"),
    )
    _check_result(result, {"netcdf", "plot"})
    assert set(result.summary["table1"]) == {f"LLM{i}" for i in range(1, 12)}


@pytest.mark.pymc
@pytest.mark.slow
def test_judges_synthetic_study(tmp_path):
    # 3 candidates and 2 judges: the shapes of README's `validate judges-synthetic` run, whose
    # compiled judges models this study reuses
    result = registry.run_study(
        "judges-synthetic",
        tmp_path,
        progress=False,
        replicates=1,
        n_questions=60,
        candidates=3,
        judges=2,
        draws=100,
        tune=100,
        chains=2,
    )
    _check_result(result, {"netcdf", "plot"})
    assert result.files["netcdf"].name == "judges_synthetic.nc"
    assert set(result.summary) >= {"bayes_adjusted", "single_judge", "seconds"}
