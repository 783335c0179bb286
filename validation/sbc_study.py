"""The ``sbc`` study: simulation-based calibration of one estimator, resumable, on Dask.

``bayes-eval validate sbc --estimator NAME --simulations S --n-questions M --trials N``: the
simulations run in blocks of ``block`` (the cells of :mod:`.cell_runner`: one NetCDF file per
finished block under ``OUT/cells/``, a ``study.json`` manifest, Ctrl-C saves the finished
blocks and the same command resumes). ``matching-exact`` is :func:`.sbc.exact_sbc`
(closed-form posterior, no MCMC; in this process unless ``--workers`` is given); the PyMC
estimators are :func:`.sbc.run_block` (NUTS with nutpie on one model compiled per
worker). The blocks are concatenated into the result of :func:`.sbc.sbc_dataset`
(``OUT/sbc.nc``), tested for uniform ranks (chi-square on the rank histogram, Talts et al.,
"Validating Bayesian Inference Algorithms with Simulation-Based Calibration"; FAIL below
0.01 / V with V variables, Bonferroni) and plotted (``OUT/sbc.png``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.validation.cell_runner import merge_cells, report_progress, run_cells
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.sbc import exact_sbc, plot_sbc, run_block, sbc_dataset, sbc_summary
from bayes_eval.validation.study_configs import SbcConfig
from bayes_eval.validation.study_output import write_netcdf

__all__ = ["report_lines", "run_cell", "run_study", "sbc_result"]


def _block_seed(seed: int, start: int) -> int:
    return int(np.random.SeedSequence([seed, start]).generate_state(1)[0])


def run_cell(start: int, config: SbcConfig) -> xr.Dataset:
    """Simulations ``start`` to ``start + block - 1`` of the study.

    Their ranks and, for NUTS, the divergences of every fit.

    Parameters
    ----------
    start : int
        The index of the block's first simulation.
    config : SbcConfig
        The study's settings (:class:`bayes_eval.validation.study_configs.SbcConfig`).

    Returns
    -------
    xarray.Dataset
        ``rank`` (dims ``simulation``, ``variable``) and ``divergences`` (``simulation``; zeros
        for ``matching-exact``), with the number of ranked draws in ``attrs["n_draws"]``.

    Examples
    --------
    >>> from bayes_eval.validation.sbc_study import run_cell
    >>> from bayes_eval.validation.study_configs import SbcConfig
    >>> cfg = SbcConfig(simulations=40, n_questions=5, trials=4, draws=20, block=20)
    >>> ds = run_cell(20, cfg)
    >>> dict(ds["rank"].sizes), ds["simulation"].values[[0, -1]].tolist()
    ({'simulation': 20, 'variable': 6}, [20, 39])
    """
    size = min(config.block_size, config.n_simulations - start)
    if config.exact:
        ds = exact_sbc(
            config.n_questions,
            config.n_trials,
            n_models=config.n_models,
            simulations=max(size, 2),
            draws=config.n_draws,
            posterior_alpha0=config.posterior_alpha0,
            seed=_block_seed(config.seed, start),
            on_progress=report_progress,
        )
        ds = ds[["rank"]].isel(simulation=slice(0, size))
        ds = ds.assign_coords(simulation=np.arange(start, start + size))
        ds["divergences"] = ("simulation", np.zeros(size, dtype=np.int64))
        ds.attrs = {"n_draws": config.n_draws}
        return ds
    return run_block(
        config.estimator,
        config.n_questions,
        config.n_trials,
        n_models=config.n_models,
        start=start,
        size=size,
        draws=config.n_draws,
        tune=config.n_tune,
        chains=config.n_chains,
        thin=config.n_thin,
        seed=config.seed,
        on_progress=report_progress,
    )


def sbc_result(blocks: xr.Dataset, config: SbcConfig) -> xr.Dataset:
    """The study's result (:func:`.sbc.sbc_dataset`) from the concatenated blocks.

    Parameters
    ----------
    blocks : xarray.Dataset
        The blocks of :func:`run_cell` concatenated along ``simulation`` (in any order).
    config : SbcConfig
        The study's settings.

    Returns
    -------
    xarray.Dataset
        The ranks with the uniformity test of every variable (``p_value``, ``passed``), the
        ``divergences`` per simulation, and the study's settings in ``attrs``.

    Examples
    --------
    >>> import xarray as xr
    >>> from bayes_eval.validation.sbc_study import run_cell, sbc_result
    >>> from bayes_eval.validation.study_configs import SbcConfig
    >>> cfg = SbcConfig(simulations=40, n_questions=5, trials=4, draws=20, block=20)
    >>> blocks = xr.concat([run_cell(20, cfg), run_cell(0, cfg)], dim="simulation")
    >>> ds = sbc_result(blocks, cfg)
    >>> ds.sizes["simulation"], ds.attrs["method"]
    (40, 'exact Dirichlet posterior draws (no MCMC)')
    """
    blocks = blocks.sortby("simulation")
    fits = 0 if config.exact else blocks.sizes["simulation"] * config.n_chains
    attrs = {
        "M": config.n_questions,
        "N": config.n_trials,
        "n_models": config.n_models,
        "method": "exact Dirichlet posterior draws (no MCMC)"
        if config.exact
        else f"NUTS (nutpie), {config.n_chains} chains x {config.n_draws} draws after "
        f"{config.n_tune} tuning steps, every {config.n_thin}th draw ranked",
        "divergences": int(blocks["divergences"].sum()),
        "divergent_share": float(blocks["divergences"].sum()) / max(fits * config.n_draws, 1),
    }
    if config.posterior_alpha0 is not None:
        attrs["posterior_alpha0"] = config.posterior_alpha0
    ds = sbc_dataset(
        blocks["rank"].values,
        [str(v) for v in blocks["variable"].values],
        n_draws=int(blocks.attrs.get("n_draws", config.n_draws)),
        estimator=config.estimator,
        seed=config.seed,
        attrs=attrs,
    )
    ds["divergences"] = ("simulation", blocks["divergences"].values)
    return ds


def report_lines(summary: dict) -> list[str]:
    """The printed report: one line per variable with its p-value and PASS/FAIL.

    Parameters
    ----------
    summary : dict
        :func:`bayes_eval.validation.sbc.sbc_summary` with ``method`` (and optionally
        ``divergences`` and ``cells_pending``), as :func:`run_study` builds it.

    Returns
    -------
    list of str
        The lines to print: the header, the test, one line per variable and the verdict.

    Examples
    --------
    >>> from bayes_eval.validation.sbc import sbc_summary
    >>> from bayes_eval.validation.sbc_study import report_lines, run_cell, sbc_result
    >>> from bayes_eval.validation.study_configs import SbcConfig
    >>> cfg = SbcConfig(simulations=20, n_questions=5, trials=4, draws=20, block=20)
    >>> ds = sbc_result(run_cell(0, cfg), cfg)
    >>> lines = report_lines(sbc_summary(ds) | {"method": ds.attrs["method"]})
    >>> lines[2].split(), lines[-1]
    (['variable', 'p-value', 'result'], 'overall: PASS')
    """
    width = max(len(v) for v in summary["variables"])
    lines = [
        f"SBC of {summary['estimator']}: {summary['simulations']} simulations, ranks among "
        f"{summary['n_draws']} posterior draws ({summary['method']})",
        f"test: {summary['test']}; {summary['threshold']}",
        f"{'variable':<{width}}  {'p-value':>9}  result",
    ]
    for name, row in summary["variables"].items():
        lines.append(f"{name:<{width}}  {row['p_value']:>9.3g}  {row['result']}")
    verdict = "PASS" if summary["passed_all"] else "FAIL"
    lines.append(f"overall: {verdict}")
    if summary.get("divergences"):
        lines.append(f"divergent transitions: {summary['divergences']}")
    if summary.get("cells_pending"):
        lines.append(f"partial: {summary['cells_pending']} blocks pending; run again to resume")
    return lines


def run_study(config: SbcConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run (or resume) the study.

    Writes ``OUT/study.json``, ``OUT/cells/``, and once every block is done ``OUT/sbc.nc``
    and ``OUT/sbc.png``.

    Parameters
    ----------
    config : SbcConfig
        The study's settings (:class:`bayes_eval.validation.study_configs.SbcConfig`).
    out : str or pathlib.Path
        The output folder; running again with the same settings resumes it.
    progress : bool, optional
        Show a progress bar over the blocks, default True.

    Returns
    -------
    StudyResult
        The Dataset of :func:`sbc_result` (empty before the first block), the summary
        (:func:`bayes_eval.validation.sbc.sbc_summary`, the cells computed, resumed and pending,
        ``report``, the files and seconds) and the files written.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.sbc_study import run_study
    >>> from bayes_eval.validation.study_configs import SbcConfig
    >>> cfg = SbcConfig(simulations=40, n_questions=5, trials=4, draws=20, block=20)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(cfg, tmp, progress=False)
    >>> result.summary["cells_computed"], result.summary["passed_all"]
    (2, True)
    >>> print(result.summary["report"][-1])
    overall: PASS
    """
    start = time.perf_counter()
    out = Path(out)
    workers = config.workers
    if workers is None and config.exact and not config.scheduler:
        workers = 0  # seconds of NumPy: a cluster would cost more than it saves
    done = run_cells(
        config.cells(),
        run_cell,
        config,
        out,
        cell_name=lambda s: f"sims_{s:07d}",
        digest=config.digest(),
        manifest=config.study_fields(),
        scheduler=config.scheduler,
        n_workers=workers,
        max_cells=config.max_cells,
        progress=progress,
        desc=f"sbc {config.estimator} blocks",
    )
    blocks = merge_cells(out, combine="concat:simulation")
    files: dict = {"manifest": out / "study.json", "cells": out / "cells"}
    ds = xr.Dataset() if blocks is None else sbc_result(blocks, config)
    report: dict = {}
    if blocks is not None:
        report = sbc_summary(ds) | {
            "method": ds.attrs["method"],
            "divergences": ds.attrs["divergences"],
        }
    if done.pending == 0 and blocks is not None:
        files["netcdf"] = write_netcdf(ds, out / "sbc.nc")
        files["plot"] = plot_sbc(ds, out / "sbc.png")
    report |= {
        "cells_computed": len(done.computed),
        "cells_resumed": len(done.skipped),
        "cells_pending": done.pending,
    }
    if blocks is not None:
        report["report"] = report_lines(report)
    report |= {
        "netcdf": str(files["netcdf"]) if "netcdf" in files else None,
        "plot": str(files["plot"]) if "plot" in files else None,
        "seconds": round(time.perf_counter() - start, 2),
    }
    return StudyResult(ds, report, files)
