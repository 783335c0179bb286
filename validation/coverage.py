r"""Coverage and calibration of interval methods, as a grid of independent cells run by Dask.

*Do these intervals cover at their nominal rate, here, for this M and N?* Each cell
``(scenario, C, M, N)`` simulates ``reps`` benchmarks: true per-question category
probabilities :math:`\pi_\alpha` from the scenario, results ``R`` with N trials per question
(only the counts matter), and the true :math:`\bar\pi = \frac1M\sum_\alpha w\cdot\pi_\alpha`
with ``w = linspace(0, 1, C + 1)``. For every interval method it records whether the interval
covers the truth, its width, and the Monte Carlo error of the coverage
:math:`\sqrt{c(1-c)/n}`. It also simulates a second model and records how often a ranking
claim made at ``z > 1.645`` (§2.5) is wrong.

Scenarios: ``uniform`` (pi ~ Dir(1): the paper's prior, well specified), ``dirichlet``
(pi ~ Dir(alpha0), analysed with the same alpha0: well specified), ``beta_mixture``
(heterogeneous difficulty: half the questions easy, half hard; analysed with the uniform
prior), ``anchored`` (binary; per-question rates resampled from real evaluations, by default
the datasets shipped with the package: Phi-4-reasoning on AIME'25, CodeLlama-7B on CRUXEval,
gpt-4o on tau-bench airline; 80% of their questions are solved always or never).

Methods (:data:`METHODS`): ``uniform`` (mu -/+ z sigma under the uniform prior of Hariri et
al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", §2.5),
``uniform_exact`` (equal-tailed exact posterior interval), ``jeffreys`` (alpha0 = 1/2),
``oracle`` (the scenario's own Dirichlet prior), ``empirical`` / ``empirical_exact`` /
``empirical_plugin`` (the prior learned from the questions, integrated or plugged in; see
:mod:`bayes_eval.posteriors.priors`), ``peer_clipped`` (scorio's: the normal interval clipped to
[0, 1]), ``wald`` (CLT over questions: mean of per-question averages -/+ z sd/sqrt(M), as in
most leaderboards; Bowyer et al., "Position: Don't Use the CLT in LLM Evals With Fewer Than a
Few Hundred Datapoints", show it undercovers at small M), ``wilson`` and ``clopper_pearson``
(binary; all M N trials pooled as independent), ``bootstrap`` (percentile bootstrap over
questions) and, on a sub-grid, ``hierarchical_nuts`` (95% ETI of pi-bar under
:func:`bayes_eval.models.hierarchical_model`).

Scale-out: :func:`run_grid` sends pending cells to a Dask cluster (a ``LocalCluster`` by
default, or ``scheduler="tcp://host:port"``; ``n_workers=0`` runs them in this process),
writes every finished cell atomically to ``OUT/cells/`` (the generic runner
:mod:`.cell_runner`, shared with the SBC study), and merges them into
``OUT/coverage.nc``. A study started again with the same configuration skips finished cells,
so no work is lost or counted twice; a folder holding a study with another configuration is
refused (naming the keys that differ), and Ctrl-C closes the cluster within seconds and raises
:class:`StudyInterrupted` (``interrupted: K of N cells saved; ...``). :func:`run_study` is
the registry's entry (``bayes-eval validate coverage``): a TOML grid (:func:`load_config`)
with options on top (:func:`grid_config`), then the grid, the report
(:mod:`.coverage_report`) and its plot. The grid is a :class:`CoverageConfig`
(:mod:`.coverage_config`); cells are simulated in :mod:`.coverage_cells`.
"""

from __future__ import annotations

import time
import tomllib
import warnings
from dataclasses import asdict
from pathlib import Path

import xarray as xr

from bayes_eval.validation.cell_runner import (
    merge_cells,
    run_cells,
    write_atomic,
)
from bayes_eval.validation.coverage_cells import run_cell
from bayes_eval.validation.coverage_config import CoverageConfig, load_config
from bayes_eval.validation.coverage_report import plot, report_lines, summary
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import CoverageStudyConfig as Config

__all__ = ["grid_config", "run_grid", "run_study"]


# --------------------------------------------------------------------------- study


def _cell_name(cell) -> str:
    scenario, c, m, n = cell
    return f"{scenario}_C{c}_M{m}_N{n}"


def run_grid(
    config: CoverageConfig,
    out_dir: str | Path,
    *,
    scheduler: str | None = None,
    n_workers: int | None = None,
    max_cells: int | None = None,
    progress: bool = True,
) -> tuple[xr.Dataset | None, dict]:
    """Run (or resume) the grid of a coverage study on Dask and merge the cells.

    The cells run through :func:`bayes_eval.validation.cell_runner.run_cells` (atomic cell
    files, the ``study.json`` manifest, Dask or in-process, Ctrl-C handling).

    Parameters
    ----------
    config : CoverageConfig
    out_dir : path
        Holds ``study.json`` (the configuration), ``cells/*.nc`` and ``coverage.nc``.
    scheduler : str, optional
        Address of an existing Dask scheduler; default an in-process ``LocalCluster``.
    n_workers : int, optional
        Workers of the local cluster (default: the machine's cores); 0 runs the cells one
        after the other in this process, without Dask.
    max_cells : int, optional
        Stop after this many new cells (a controlled interruption; resume later).

    Raises
    ------
    ValueError
        ``out_dir`` holds a study with another configuration (the message names the keys
        that differ): it is never resumed with different settings.
    StudyInterrupted
        Ctrl-C (a ``KeyboardInterrupt`` subclass): the futures are cancelled, the cluster
        closed, finished cells kept; running the same call again resumes.

    Returns
    -------
    dataset, info
        The merged cells so far (``None`` before the first cell), and ``{"computed": [...],
        "skipped": [...], "pending": n}``. ``coverage.nc`` is written once every cell is done.
    """
    config.validate()
    out = Path(out_dir)
    cells = config.cells()
    done = run_cells(
        cells,
        run_cell,  # this module's, read now: a replaced run_cell is the one that runs
        config,
        out,
        cell_name=_cell_name,
        digest=config.digest(),
        manifest=asdict(config),
        scheduler=scheduler,
        n_workers=n_workers,
        max_cells=max_cells,
        progress=progress,
        desc="coverage cells",
    )
    merged = merge_cells(out)
    if merged is not None and done.pending == 0:
        write_atomic(merged, out / "coverage.nc")
    info = {"computed": done.computed, "skipped": done.skipped, "pending": done.pending}
    return merged, info


def grid_config(options: Config) -> CoverageConfig:
    """The grid of a registry config: the TOML file ``options.config`` (if any), with every
    option that is set (not ``None``) on top, else :class:`CoverageConfig`'s defaults."""
    values = asdict(load_config(options.config)) if options.config else {}
    overrides = options.overrides()
    if options.config:
        _warn_overridden(options.config, values, overrides, options.replicates)
    values.update(overrides)
    config = CoverageConfig(**values)
    config.validate()
    _refuse_unused(options, config)
    return config


#: option names of the TOML keys that differ (``reps`` is ``--replicates``)
_OPTION = {"reps": "replicates"}


def _warn_overridden(path, values: dict, overrides: dict, replicates) -> None:
    """Say which keys of the TOML file the command-line options replace (never silently)."""
    with open(path, "rb") as fh:
        in_file = set(tomllib.load(fh))
    changed = []
    for key, new in overrides.items():
        old = values.get(key)
        if key in in_file and (list(old) if isinstance(old, tuple) else old) != new:
            option = "--" + _OPTION.get(key, key).replace("_", "-")
            if key == "exact_reps" and replicates is not None and new == replicates:
                option = "--replicates (exact_reps follows it unless --exact-reps is given)"
            changed.append(f"{key} = {old!s} -> {new!s} ({option})")
    if changed:
        warnings.warn(
            f"{path}: options given on the command line replace keys of the file: "
            + "; ".join(changed)
            + ".",
            UserWarning,
            stacklevel=3,
        )


def _refuse_unused(options: Config, grid: CoverageConfig) -> None:
    """Options that would do nothing for this grid are refused, not ignored."""
    if not grid.nuts_cells:
        given = [o for o in ("nuts_reps", "nuts_draws") if getattr(options, o) is not None]
        if given:
            names = " and ".join("--" + o.replace("_", "-") for o in given)
            raise ValueError(
                f"{names} set the hierarchical NUTS sub-grid, but no --nuts-cells are given "
                "(nor nuts_cells in the TOML): give the cells or drop the option."
            )
    if options.scheduler is not None and options.workers is not None:
        raise ValueError(
            "--workers sizes the local Dask cluster, but --scheduler connects to a running "
            "one whose workers are set where it was started: give one of them."
        )
    if options.alpha0 is not None and "dirichlet" not in grid.scenarios:
        raise ValueError(
            "--alpha0 is the prior of the dirichlet scenario, which this grid does not run "
            f"(scenarios {', '.join(grid.scenarios)}): add dirichlet or drop --alpha0."
        )


def run_study(config: Config, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run (or resume) the study of a registry config; writes ``OUT/study.json``,
    ``OUT/cells/``, ``OUT/coverage.nc`` (once complete) and ``OUT/coverage.png``.

    The summary is :func:`summary` of the cells so far, with ``cells_computed``,
    ``cells_resumed`` (finished earlier, not recomputed) and ``cells_pending``.
    """
    start = time.perf_counter()
    grid = grid_config(config)
    out = Path(out)
    ds, info = run_grid(
        grid,
        out,
        scheduler=config.scheduler,
        n_workers=config.workers,
        max_cells=config.max_cells,
        progress=progress,
    )
    files = {"manifest": out / "study.json", "cells": out / "cells"}
    report: dict = {}
    if ds is None:
        ds = xr.Dataset()
    else:
        files["plot"] = plot(ds, out / "coverage.png", grid.confidence)
        report = summary(ds, grid.confidence)
        report["report"] = report_lines(report)
    if info["pending"] == 0:
        files["netcdf"] = out / "coverage.nc"
    report |= {
        "cells_computed": len(info["computed"]),
        "cells_resumed": len(info["skipped"]),
        "cells_pending": info["pending"],
        "netcdf": str(files["netcdf"]) if "netcdf" in files else None,
        "plot": str(files["plot"]) if "plot" in files else None,
        "seconds": round(time.perf_counter() - start, 2),
    }
    return StudyResult(ds, report, files)
