"""How a study writes its results.

NetCDF (h5netcdf when installed), a PNG plot, and the summary with the files and the
seconds it took.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from pathlib import Path

import xarray as xr

from bayes_eval.validation.registry import StudyResult

__all__ = ["finish", "interval_scores", "netcdf_engine", "write_netcdf"]


def interval_scores(hit, err, mean_sd: float) -> dict:
    """A coverage study's row for one cell.

    ``coverage`` of the intervals (``hit``, booleans) with its Monte Carlo standard error,
    mean posterior sd over the RMSE of the posterior means (errors ``err``), and the RMSE,
    rounded as the studies print them.

    Parameters
    ----------
    hit : array_like of bool
        Whether each interval covered the truth.
    err : array_like of float
        The errors of the posterior means (estimate minus truth).
    mean_sd : float
        The mean posterior standard deviation.

    Returns
    -------
    dict
        ``coverage`` and ``coverage_se`` (4 decimals), ``sd_over_rmse`` (3) and ``rmse`` (5).

    Examples
    --------
    >>> from bayes_eval.validation.study_output import interval_scores
    >>> interval_scores([True, True, False, True], [0.1, -0.2, 0.05, 0.0], mean_sd=0.12)
    {'coverage': 0.75, 'coverage_se': 0.2165, 'sd_over_rmse': 1.047, 'rmse': 0.11456}
    """
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
    """``"h5netcdf"`` when it is installed, else xarray's default engine.

    Returns
    -------
    str or None
        ``"h5netcdf"``, or ``None`` (xarray's default) when it is not installed.

    Examples
    --------
    >>> from bayes_eval.validation.study_output import netcdf_engine
    >>> netcdf_engine() in ("h5netcdf", None)
    True
    """
    return "h5netcdf" if importlib.util.find_spec("h5netcdf") is not None else None


def write_netcdf(ds: xr.Dataset, path: Path) -> Path:
    """Write ``ds`` to ``path`` (NetCDF) and return the path.

    Parameters
    ----------
    ds : xarray.Dataset
        The study's results.
    path : pathlib.Path
        The file to write, through a temporary file (:func:`netcdf_engine`).

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import xarray as xr
    >>> from bayes_eval.validation.study_output import write_netcdf
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_netcdf(xr.Dataset({"coverage": ("N", [0.93, 0.95])}), Path(tmp) / "s.nc")
    ...     print(path.name, path.exists())
    s.nc True
    """
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
    """Write ``OUT/STEM.nc`` and ``OUT/STEM.png``.

    The summary gains ``netcdf``, ``plot`` and ``seconds`` (since ``start``, a
    :func:`time.perf_counter` value).

    Parameters
    ----------
    ds : xarray.Dataset
        The study's results.
    out : str or pathlib.Path
        The output folder (created if needed).
    stem : str
        The files' name without suffix, e.g. the study's name.
    plot : callable
        ``plot(ds, path)`` draws the figure to the PNG ``path``.
    summary : dict
        The study's JSON-ready numbers.
    start : float
        The :func:`time.perf_counter` value when the study started.

    Returns
    -------
    StudyResult
        The Dataset, the summary with the files and seconds, and the files written.

    Examples
    --------
    >>> import tempfile, time
    >>> import xarray as xr
    >>> from bayes_eval.validation.study_output import finish
    >>> def plot(ds, path):
    ...     path.write_bytes(b"")  # a real study draws its figure here
    >>> ds = xr.Dataset({"coverage": ("N", [0.93, 0.95])})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = finish(ds, tmp, "demo", plot, {"replicates": 200}, time.perf_counter())
    ...     print(sorted(result.summary), result.files["netcdf"].name)
    ['netcdf', 'plot', 'replicates', 'seconds'] demo.nc
    """
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
