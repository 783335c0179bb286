"""Coverage study hardening: typed config checks, conflicting resumes refused, full string
labels in the NetCDF, a labelled summary, and Ctrl-C (StudyInterrupted, resumable)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import xarray as xr

from bayes_eval.validation import coverage
from bayes_eval.validation.cell_runner import StudyInterrupted
from bayes_eval.validation.registry import make_config
from bayes_eval.validation.study_configs import CoverageStudyConfig


def _tiny(**kw):
    base = dict(
        M=[5],
        N=[1, 2],
        C=[1],
        scenarios=["uniform"],
        replicates=20,
        exact_replicates=0,
        bootstrap_resamples=0,
        seed=7,
    )
    base.update(kw)
    return coverage.CoverageConfig(**base)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("M = 5", "M must be a list of positive integers, got 5"),
        ("N = [1, 2.5]", "N must be a list of positive integers, got [1, 2.5]"),
        ("C = []", "C must be a list of positive integers, got []"),
        ("replicates = 'many'", "replicates must be an integer >= 2, got 'many'"),
        ("replicates = 2.5", "replicates must be an integer >= 2, got 2.5"),
        ("replicates = true", "replicates must be an integer >= 2, got True"),
        ("confidence = 'high'", "confidence must be a number in (0, 1), got 'high'"),
        ("confidence = 1.5", "confidence must be a number in (0, 1), got 1.5"),
        ("seed = -1", "seed must be an integer >= 0, got -1"),
        ("exact_categorical = 1", "exact_categorical must be true or false, got 1"),
        ("alpha0 = 0", "alpha0 must be a finite number > 0, got 0"),
        ("alpha0 = inf", "alpha0 must be a finite number > 0, got inf"),
        ("scenarios = 'uniform'", "scenarios must be a non-empty list"),
        ("scenarios = ['nope']", "['nope'] are unknown"),
        ("anchors = [1]", "anchors must be a non-empty list of strings, got [1]"),
        ("nuts_cells = [['uniform', 1, 5]]", "nuts_cells must be a list of [scenario, C, M, N]"),
        ("nuts_replicates = 0", "nuts_replicates must be an integer >= 1, got 0"),
    ],
)
def test_toml_keys_checked_by_type_and_range(tmp_path, line, message):
    path = tmp_path / "c.toml"
    path.write_text(line + "\n")
    with pytest.raises(ValueError) as info:
        coverage.load_config(path)
    assert message in str(info.value) and str(path) in str(info.value)


def test_unknown_toml_keys_are_named(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("M = [5]\nrepz = 3\n")
    with pytest.raises(ValueError, match=r"unknown keys \['repz'\]"):
        coverage.load_config(path)


def test_former_key_names_are_read_with_a_warning_naming_the_new_one(tmp_path):
    """``reps``, ``exact_reps``, ``empirical_exact_reps`` and ``nuts_reps`` (the names before
    ``replicates``) are still read, each with a warning naming its new key; a study's digest
    is the one computed before the rename (so a study started then still resumes)."""
    path = tmp_path / "c.toml"
    path.write_text(
        "M = [5]\nreps = 40\nexact_reps = 10\nempirical_exact_reps = 1\nnuts_reps = 3\n"
    )
    with pytest.warns(coverage.RenamedKeyWarning) as rec:
        cfg = coverage.load_config(path)
    assert (cfg.replicates, cfg.exact_replicates) == (40, 10)
    assert (cfg.empirical_exact_replicates, cfg.nuts_replicates) == (1, 3)
    messages = sorted(str(r.message) for r in rec)
    assert len(messages) == 4 and all(str(path) in m for m in messages)
    for old, new in coverage.RENAMED_KEYS.items():
        assert any(f"the key {old} is now named {new}" in m for m in messages), (old, messages)
    new = tmp_path / "new.toml"
    new.write_text(
        "M = [5]\nreplicates = 40\nexact_replicates = 10\nempirical_exact_replicates = 1\n"
        "nuts_replicates = 3\n"
    )
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert coverage.load_config(new) == cfg
    # the digests of code from before the rename (defaults; the file above)
    assert coverage.CoverageConfig().digest() == "040433cd1d3a3f69"
    assert cfg.digest() == "67bdc3d331898499"
    # a bad value is reported under the key the file spells; both spellings are refused
    path.write_text("reps = 'many'\n")
    with pytest.warns(coverage.RenamedKeyWarning), pytest.raises(ValueError) as info:
        coverage.load_config(path)
    assert "reps must be an integer >= 2, got 'many'" in str(info.value)
    assert "now named replicates" in str(info.value)
    path.write_text("reps = 40\nreplicates = 50\n")
    with pytest.raises(ValueError, match="both reps and replicates are given"):
        coverage.load_config(path)


def test_former_option_names_are_hidden_aliases_that_warn(capsys):
    from bayes_eval.cli import parser

    argv = ["validate", "coverage", "--exact-reps", "5", "--empirical-exact-reps", "2"]
    args = parser().parse_args([*argv, "--nuts-reps", "3"])
    assert (args.exact_replicates, args.empirical_exact_replicates, args.nuts_replicates) == (
        5,
        2,
        3,
    )
    err = capsys.readouterr().err
    for old, new in [
        ("--exact-reps", "--exact-replicates"),
        ("--empirical-exact-reps", "--empirical-exact-replicates"),
        ("--nuts-reps", "--nuts-replicates"),
    ]:
        assert f"{old} is deprecated; use {new}" in err


def test_options_checked_like_the_toml():
    with pytest.raises(ValueError, match="M must be a list of positive integers, got 5"):
        CoverageStudyConfig(M=5)
    with pytest.raises(ValueError, match=r"replicates must be an integer >= 2, got 2\.5"):
        CoverageStudyConfig(replicates=2.5)
    with pytest.raises(ValueError, match=r"confidence must be a number in \(0, 1\), got 'high'"):
        CoverageStudyConfig(confidence="high")
    with pytest.raises(ValueError, match=r"validate coverage: .*seed"):
        make_config("coverage", seed="x")
    with pytest.raises(ValueError, match="M must be a list of positive integers"):
        make_config("coverage", M="5,0")
    assert make_config("coverage", M="5,30", seed="3").overrides() == {"M": [5, 30], "seed": 3}


@pytest.mark.slow
def test_resume_with_another_seed_is_refused_naming_it(tmp_path):
    out = tmp_path / "s"
    coverage.run_grid(_tiny(), out, n_workers=0, progress=False)
    with pytest.raises(ValueError, match="another configuration") as info:
        coverage.run_grid(_tiny(seed=99), out, n_workers=0, progress=False)
    msg = str(info.value)
    assert "seed = 7 there, 99 now" in msg and "--out" in msg and "replicates" not in msg
    _ds, again = coverage.run_grid(_tiny(), out, n_workers=0, progress=False)  # same: resumes
    assert again["computed"] == [] and len(again["skipped"]) == 2


@pytest.mark.slow
def test_netcdf_keeps_full_scenario_labels(tmp_path):
    cfg = _tiny(N=[1], scenarios=["anchored", "beta_mixture"])
    coverage.run_grid(cfg, tmp_path, n_workers=0, progress=False)
    with xr.open_dataset(tmp_path / "coverage.nc", engine="h5netcdf") as ds:
        assert sorted(ds["scenario"].values.tolist()) == ["anchored", "beta_mixture"]
        labels = set(ds["interval"].values.tolist())
    assert {"empirical_plugin", "clopper_pearson"} <= labels


@pytest.mark.slow
def test_summary_ranges_are_labelled(tmp_path):
    ds, _ = coverage.run_grid(_tiny(), tmp_path, n_workers=0, progress=False)
    entry = coverage.summary(ds)["scenarios"]["uniform"]["uniform"]["coverage_by_M"][5]
    assert set(entry) == {"min", "max", "over", "cells"}
    assert entry["over"] == "N, C" and entry["cells"] == 2 and entry["min"] <= entry["max"]


@pytest.mark.slow
def test_ctrl_c_in_process_saves_finished_cells_and_resumes(tmp_path, monkeypatch):
    cfg = _tiny(N=[1, 2, 3, 4])
    real = coverage.run_cell
    calls = []

    def flaky(cell, config):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(cell)
        return real(cell, config)

    monkeypatch.setattr(coverage, "run_cell", flaky)
    with pytest.raises(StudyInterrupted) as info:
        coverage.run_grid(cfg, tmp_path, n_workers=0, progress=False)
    assert isinstance(info.value, KeyboardInterrupt)
    assert str(info.value) == (
        "interrupted: 2 of 4 cells saved; run the same command again to resume"
    )
    assert len(list((tmp_path / "cells").glob("*.nc"))) == 2
    assert not list((tmp_path / "cells").glob("*.tmp"))
    monkeypatch.setattr(coverage, "run_cell", real)
    ds, info2 = coverage.run_grid(cfg, tmp_path, n_workers=0, progress=False)
    assert info2["computed"] == [c for c in cfg.cells() if c not in calls]
    assert sorted(info2["skipped"]) == sorted(calls) and info2["pending"] == 0
    assert np.isfinite(ds["coverage"].sel(interval="uniform")).all()


def test_a_long_cell_moves_the_progress_bar_from_inside(tmp_path, capsys):
    """In process, a cell reports its own progress (``report_progress``): the bar shows
    fractions of a cell while it runs, not 0% until it ends; elsewhere the call is a no-op."""
    from bayes_eval.validation.cell_runner import report_progress, run_cells

    seen = []

    def cell_fn(cell, config):
        for f in (0.25, 0.5, 2.0):  # out of range: clipped to 1
            report_progress(f)
        seen.append(cell)
        return xr.Dataset({"x": ((), float(cell))})

    run_cells(
        [1, 2],
        cell_fn,
        None,
        tmp_path,
        cell_name=str,
        digest="d",
        manifest={},
        n_workers=0,
        progress=True,
        desc="cells",
    )
    err = capsys.readouterr().err
    assert seen == [1, 2]
    for shown in ("0.25/2", "0.5/2", "1.25/2", "1.5/2", "2/2"):
        assert shown in err, err
    report_progress(0.5)  # no bar: nothing happens


_SIGINT_SCRIPT = """
import time
from bayes_eval.validation import coverage
from bayes_eval.validation.cell_runner import StudyInterrupted

real = coverage.run_cell

def slow(cell, config):
    time.sleep(0.5 if cell[3] == 1 else 60)
    return real(cell, config)

coverage.run_cell = slow
cfg = coverage.CoverageConfig(M=[5], N=[1, 2, 3, 4], C=[1], scenarios=["uniform"], replicates=20,
                              exact_replicates=0, bootstrap_resamples=0, seed=1)
try:
    coverage.run_grid(cfg, {out!r}, n_workers=2, progress=False)
except StudyInterrupted as exc:
    print(exc, flush=True)
    raise SystemExit(130)
"""


@pytest.mark.slow
def test_sigint_to_the_process_group_stops_a_local_cluster(tmp_path):
    out = tmp_path / "s"
    script = textwrap.dedent(_SIGINT_SCRIPT.format(out=str(out)))
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not list((out / "cells").glob("*.nc")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no cell saved in 120 s"
            time.sleep(0.1)
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)
        start = time.monotonic()
        stdout, stderr = proc.communicate(timeout=30)
        elapsed = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stderr
    assert elapsed < 10, elapsed
    assert "interrupted: 1 of 4 cells saved; run the same command again to resume" in stdout
    # and nothing else: no Dask warnings about the cancelled cells, no traceback
    assert "distributed" not in stderr and "Traceback" not in stderr, stderr


def _toml(tmp_path, text: str):
    path = tmp_path / "grid.toml"
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_options_that_replace_toml_keys_say_so(tmp_path):
    path = _toml(
        tmp_path,
        "M = [5]\nreplicates = 40\nexact_replicates = 10\nseed = 7\nscenarios = ['uniform']\n",
    )
    cfg = make_config("coverage", config=path, seed=99, replicates=20)
    with pytest.warns(UserWarning, match="replace keys of the file") as rec:
        grid = coverage.grid_config(cfg)
    msg = str(rec[0].message)
    assert "seed = 7 -> 99 (--seed)" in msg and "replicates = 40 -> 20 (--replicates)" in msg
    assert "exact_replicates = 10 -> 20" in msg
    assert (grid.seed, grid.replicates, grid.exact_replicates) == (99, 20, 20)
    # an option equal to the file's key, or a key the file does not set: nothing to say
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        coverage.grid_config(make_config("coverage", config=path, seed=7, N=[2]))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"nuts_replicates": 5},
            "--nuts-replicates set the NUTS sub-grid, but no --nuts-cells",
        ),
        ({"nuts_draws": 50}, "--nuts-draws set the NUTS sub-grid"),
        ({"workers": 1, "scheduler": "tcp://127.0.0.1:1"}, "give one of them"),
        ({"alpha0": 2.0}, "--alpha0 is the prior of the dirichlet scenario"),
    ],
)
def test_options_that_would_do_nothing_are_refused(tmp_path, options, message):
    path = _toml(tmp_path, "M = [5]\nscenarios = ['uniform']\n")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        coverage.grid_config(make_config("coverage", config=path, **options))


@pytest.mark.slow
def test_a_scheduler_that_does_not_answer_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    from bayes_eval.cli import main
    from bayes_eval.validation import cell_runner

    monkeypatch.setattr(cell_runner, "SCHEDULER_TIMEOUT", 1)
    config = tmp_path / "tiny.toml"
    config.write_text('scenarios = ["uniform"]\nM = [5]\nN = [2]\nC = [1]\nreplicates = 20\n')
    argv = ["validate", "coverage", "--config", str(config), "--out", str(tmp_path / "out")]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("bayes-eval: error: no Dask scheduler answered at tcp://127.0.0.1:1")
    assert "Traceback" not in "\n".join(err)
