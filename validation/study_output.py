"""How a study writes its results: NetCDF (h5netcdf when installed), a PNG plot, and the
summary with the files and the seconds it took."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from pathlib import Path

import xarray as xr

from bayes_eval.validation.registry import StudyResult

__all__ = ["finish", "interval_scores", "netcdf_engine", "write_netcdf"]


def interval_scores(hit, err, mean_sd: float) -> dict:
    """A coverage study's row for one cell: ``coverage`` of the intervals (``hit``, booleans)
    with its Monte Carlo standard error, mean posterior sd over the RMSE of the posterior
    means (errors ``err``), and the RMSE, rounded as the studies print them."""
    import numpy as np

    hit, err = np.asarray(hit, bool), np.asarray(err, float)
    cover = float(hit.mean())
    rmse = float(np.sqrt(np.mean(err**2)))
    return {
        "coverage": round(cover, 4),
        "coverage_se": round(float(np.sqrt(cover * (1 - cover) / hit.size)), 4),
        "sd_over_rmse": round(float(mean_sd) / rmse, 3),
        "rmse": round(rmse, 5),
    }


def netcdf_engine() -> str | None:
    """``"h5netcdf"`` when it is installed, else xarray's default engine."""
    return "h5netcdf" if importlib.util.find_spec("h5netcdf") is not None else None


def write_netcdf(ds: xr.Dataset, path: Path) -> Path:
    """Write ``ds`` to ``path`` (NetCDF) and return the path."""
    from bayes_eval.files import write_file

    return write_file(path, lambda tmp: ds.to_netcdf(tmp, engine=netcdf_engine()))


def finish(
    ds: xr.Dataset,
    out: str | Path,
    stem: str,
    plot: Callable[[xr.Dataset, Path], object],
    summary: dict,
    start: float,
) -> StudyResult:
    """Write ``OUT/STEM.nc`` and ``OUT/STEM.png``; the summary gains ``netcdf``, ``plot`` and
    ``seconds`` (since ``start``, a :func:`time.perf_counter` value)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    nc = write_netcdf(ds, out / f"{stem}.nc")
    png = out / f"{stem}.png"
    plot(ds, png)
    summary = summary | {
        "netcdf": str(nc),
        "plot": str(png),
        "seconds": round(time.perf_counter() - start, 2),
    }
    return StudyResult(ds, summary, {"netcdf": nc, "plot": png})
