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
:mod:`bayes_eval.priors`), ``peer_clipped`` (scorio's: the normal interval clipped to
[0, 1]), ``wald`` (CLT over questions: mean of per-question averages -/+ z sd/sqrt(M), as in
most leaderboards; Bowyer et al., "Position: Don't Use the CLT in LLM Evals With Fewer Than a
Few Hundred Datapoints", show it undercovers at small M), ``wilson`` and ``clopper_pearson``
(binary; all M N trials pooled as independent), ``bootstrap`` (percentile bootstrap over
questions) and, on a sub-grid, ``hierarchical_nuts`` (95% ETI of pi-bar under
:func:`bayes_eval.models.hierarchical_model`).

Scale-out: :func:`run_grid` sends pending cells to a Dask cluster (a ``LocalCluster`` by
default, or ``scheduler="tcp://host:port"``; ``n_workers=0`` runs them in this process),
writes every finished cell atomically to ``OUT/cells/``, and merges them into
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

import json
import os
import time
from dataclasses import asdict
from pathlib import Path

import xarray as xr

from bayes_eval.validation.coverage_cells import (
    METHODS,
    SCENARIOS,
    anchor_rates,
    draw_pi,
    run_cell,
)
from bayes_eval.validation.coverage_config import CoverageConfig, load_config
from bayes_eval.validation.coverage_report import HEADLINE, plot, report_lines, summary, table
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import CoverageStudyConfig as Config

__all__ = [
    "HEADLINE",
    "METHODS",
    "SCENARIOS",
    "Config",
    "CoverageConfig",
    "StudyInterrupted",
    "anchor_rates",
    "draw_pi",
    "grid_config",
    "load_config",
    "merge_cells",
    "plot",
    "run_cell",
    "run_grid",
    "run_study",
    "summary",
    "table",
]


# --------------------------------------------------------------------------- study


def _cell_path(out: Path, cell) -> Path:
    scenario, c, m, n = cell
    return out / "cells" / f"{scenario}_C{c}_M{m}_N{n}.nc"


def _write_atomic(ds: xr.Dataset, path: Path) -> None:
    """Write ``ds`` to ``path`` through a temporary file. String variables and coordinates are
    written as variable-length strings: a fixed width read back from the first cell (``<U8``
    for ``anchored``) would truncate the longer labels of a merged study (``beta_mix``)."""
    ds = ds.copy()
    for var in ds.variables.values():
        if var.dtype.kind in "USO":
            var.encoding = {k: v for k, v in var.encoding.items() if k != "dtype"}
            var.encoding["dtype"] = str
    tmp = path.with_suffix(".tmp")
    ds.to_netcdf(tmp, engine="h5netcdf")
    os.replace(tmp, path)


def _submit_to_dask(todo, config, out, scheduler, n_workers, bar, computed) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError(
            "the coverage study runs on Dask: pip install 'bayes_eval[validation]' "
            "(or workers=0 to run the cells in this process)."
        ) from exc
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(
            n_workers=n_workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        client = Client(cluster)
    futures: dict = {}
    try:
        futures = {client.submit(run_cell, cell, config, pure=False): cell for cell in todo}
        for future in as_completed(futures):
            cell = futures[future]
            _write_atomic(future.result(), _cell_path(out, cell))
            computed.append(cell)
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        # Ctrl-C reaches the workers too (one process group): nothing waits for them
        _close_quietly(client, cluster, list(futures))
        raise
    else:
        _close_quietly(client, cluster, [])


def _close_quietly(client, cluster, futures, timeout: float = 3.0) -> None:
    """Cancel ``futures`` and close the client and the local cluster within a few seconds,
    without raising (the workers may be gone already). After an interruption the local
    workers are killed half a second into the close: a cell computing for minutes would
    otherwise hold the close (and the exit) until it finishes."""
    import signal
    import threading

    steps = [lambda: client.close(timeout=timeout)]
    if futures:
        steps.insert(0, lambda: client.cancel(futures, force=True))
    killer = None
    if cluster is not None:
        if futures:
            pids = [getattr(w, "pid", None) for w in dict(cluster.workers).values()]
            killer = threading.Timer(0.5, _kill, [[p for p in pids if p], signal])
            killer.daemon = True
            steps.append(killer.start)
        steps.append(lambda: cluster.close(timeout=timeout))
    for step in steps:
        try:
            step()
        except BaseException:
            pass
    if killer is not None:
        killer.cancel()


def _kill(pids, signal) -> None:
    for pid in pids:
        try:
            os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        except OSError:
            pass


class StudyInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_grid`: the cluster is closed, the finished cells are saved.
    The message is the line to print: ``interrupted: K of N cells saved; run the same
    command again to resume``."""


def _conflict(out: Path, stored: dict, new: dict) -> str:
    keys = sorted(k for k in set(stored) | set(new) if stored.get(k) != new.get(k))
    what = ", ".join(f"{k} = {stored.get(k)!r} there, {new.get(k)!r} now" for k in keys)
    return (
        f"{out} holds a study with another configuration ({what or 'stored digest differs'}); "
        "resume it with the same configuration, or start a new study with a new --out folder."
    )


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
    (out / "cells").mkdir(parents=True, exist_ok=True)
    manifest = out / "study.json"
    if manifest.exists():
        previous = json.loads(manifest.read_text())
        if previous.get("digest") != config.digest():
            new = json.loads(json.dumps(asdict(config)))
            raise ValueError(_conflict(out, previous.get("config") or {}, new))
    else:
        manifest.write_text(
            json.dumps({"digest": config.digest(), "config": asdict(config)}, indent=2)
        )
    cells = config.cells()
    done = [c for c in cells if _cell_path(out, c).exists()]
    pending = [c for c in cells if not _cell_path(out, c).exists()]
    todo = pending if max_cells is None else pending[:max_cells]
    computed: list = []
    if todo:
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(todo), desc="coverage cells", unit="cell")
        try:
            if n_workers == 0 and not scheduler:
                for cell in todo:
                    _write_atomic(run_cell(cell, config), _cell_path(out, cell))
                    computed.append(cell)
                    if bar is not None:
                        bar.update(1)
            else:
                _submit_to_dask(todo, config, out, scheduler, n_workers, bar, computed)
        except KeyboardInterrupt:
            saved = sum(_cell_path(out, c).exists() for c in cells)
            raise StudyInterrupted(
                f"interrupted: {saved} of {len(cells)} cells saved; "
                "run the same command again to resume"
            ) from None
        finally:
            if bar is not None:
                bar.close()
    merged = merge_cells(out)
    if merged is not None and len(computed) + len(done) == len(cells):
        _write_atomic(merged, out / "coverage.nc")
    info = {
        "computed": computed,
        "skipped": done,
        "pending": len(cells) - len(done) - len(computed),
    }
    return merged, info


def grid_config(options: Config) -> CoverageConfig:
    """The grid of a registry config: the TOML file ``options.config`` (if any), with every
    option that is set (not ``None``) on top, else :class:`CoverageConfig`'s defaults."""
    values = asdict(load_config(options.config)) if options.config else {}
    values.update(options.overrides())
    config = CoverageConfig(**values)
    config.validate()
    return config


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


def merge_cells(out_dir: str | Path) -> xr.Dataset | None:
    """Merge every finished cell of a study folder into one Dataset."""
    files = sorted((Path(out_dir) / "cells").glob("*.nc"))
    if not files:
        return None
    parts = []
    for f in files:
        with xr.open_dataset(f, engine="h5netcdf") as ds:
            parts.append(ds.load())
    return xr.merge(parts, join="outer", compat="no_conflicts")
