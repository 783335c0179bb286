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
    """Simulations ``start`` to ``start + block - 1`` of the study (ranks and, for NUTS, the
    divergences of every fit)."""
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
    """The study's result (:func:`.sbc.sbc_dataset`) from the concatenated blocks."""
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
    """The printed report: one line per variable with its p-value and PASS/FAIL."""
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
    """Run (or resume) the study; writes ``OUT/study.json``, ``OUT/cells/``, and once every
    block is done ``OUT/sbc.nc`` and ``OUT/sbc.png``."""
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
