"""A resumable grid of independent cells on Dask, shared by the coverage and SBC studies.

A study is a list of hashable *cells* and a function ``run_cell(cell, config) -> Dataset``.
:func:`run_cells` writes every finished cell atomically to ``OUT/cells/NAME.nc`` (so a cell
is either complete on disk or absent), skips the cells already there, and keeps a manifest
``OUT/study.json`` (``{"digest": ..., "config": {...}}``): a folder holding a study with
another configuration is refused, naming the keys that differ, so no result is ever mixed
with one computed under other settings.

Cells run on a Dask cluster (a ``LocalCluster`` of one-thread worker processes by default, or
``scheduler="tcp://host:port"``), or one after the other in this process (``n_workers=0``).
Ctrl-C cancels the futures, closes the cluster within seconds and raises
:class:`StudyInterrupted` (``interrupted: K of N cells saved; run the same command again to
resume``).
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import xarray as xr

from bayes_eval.files import write_file

__all__ = [
    "CellRun",
    "StudyInterrupted",
    "check_manifest",
    "merge_cells",
    "run_cells",
    "write_atomic",
]


class StudyInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_cells`: the cluster is closed, the finished cells are saved.

    The message is the line to print: ``interrupted: K of N cells saved; run the same
    command again to resume``.

    Examples
    --------
    >>> from bayes_eval.validation.cell_runner import StudyInterrupted
    >>> issubclass(StudyInterrupted, KeyboardInterrupt)
    True
    >>> try:
    ...     raise StudyInterrupted("interrupted: 2 of 5 cells saved; run the same command again")
    ... except KeyboardInterrupt as e:
    ...     print(e)
    interrupted: 2 of 5 cells saved; run the same command again
    """


class CellRun(NamedTuple):
    """What :func:`run_cells` did: cells computed now, found finished, still pending.

    Attributes
    ----------
    computed : list
        The cells computed (and written) by this call.
    skipped : list
        The cells found finished in ``OUT/cells/`` and not run again.
    pending : int
        How many cells are still to run (after a ``max_cells`` stop).

    Examples
    --------
    >>> from bayes_eval.validation.cell_runner import CellRun
    >>> run = CellRun(computed=[1, 2], skipped=[0], pending=3)
    >>> run.pending, len(run.computed)
    (3, 2)
    """

    computed: list
    skipped: list
    pending: int


def write_atomic(ds: xr.Dataset, path: Path) -> None:
    """Write ``ds`` to ``path`` through a temporary file.

    String variables and coordinates are written as variable-length strings: a fixed width
    read back from the first cell (``<U8`` for ``anchored``) would truncate the longer labels
    of a merged study (``beta_mix``).

    Parameters
    ----------
    ds : xarray.Dataset
        The cell's results.
    path : pathlib.Path
        The NetCDF file to write (h5netcdf); it exists complete or not at all.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import xarray as xr
    >>> from bayes_eval.validation.cell_runner import write_atomic
    >>> ds = xr.Dataset({"scenario": ("cell", ["anchored", "beta_mix"])})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_atomic(ds, Path(tmp) / "cell.nc")
    ...     with xr.open_dataset(Path(tmp) / "cell.nc", engine="h5netcdf") as back:
    ...         print(back["scenario"].values.tolist())
    ['anchored', 'beta_mix']
    """
    ds = ds.copy()
    for var in ds.variables.values():
        if var.dtype.kind in "USO":
            var.encoding = {k: v for k, v in var.encoding.items() if k != "dtype"}
            var.encoding["dtype"] = str
    write_file(path, lambda tmp: ds.to_netcdf(tmp, engine="h5netcdf"))


def _conflict(out: Path, stored: dict, new: dict) -> str:
    keys = sorted(k for k in set(stored) | set(new) if stored.get(k) != new.get(k))
    what = ", ".join(f"{k} = {stored.get(k)!r} there, {new.get(k)!r} now" for k in keys)
    return (
        f"{out} holds a study with another configuration ({what or 'stored digest differs'}); "
        "resume it with the same configuration, or start a new study with a new --out folder."
    )


def check_manifest(out: Path, digest: str, config: dict) -> None:
    """Write ``OUT/study.json``, or check that the one there has the same ``digest``.

    Parameters
    ----------
    out : pathlib.Path
        The study folder.
    digest : str
        The digest of the study's configuration.
    config : dict
        The configuration's JSON-ready fields, stored with the digest and compared to name the
        keys that differ.

    Raises
    ------
    ValueError
        The folder holds a study with another configuration (the keys that differ named).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.cell_runner import check_manifest
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     check_manifest(Path(tmp), "d1", {"replicates": 200})
    ...     try:
    ...         check_manifest(Path(tmp), "d2", {"replicates": 400})
    ...     except ValueError as e:
    ...         print(e)
    /... holds a study with another configuration (replicates = 200 there, 400 now); ...
    """
    manifest = Path(out) / "study.json"
    if manifest.exists():
        previous = json.loads(manifest.read_text())
        if previous.get("digest") != digest:
            new = json.loads(json.dumps(config))
            raise ValueError(_conflict(Path(out), previous.get("config") or {}, new))
    else:
        text = json.dumps({"digest": digest, "config": config}, indent=2)
        write_file(manifest, lambda tmp: tmp.write_text(text))


#: seconds to wait for a Dask scheduler named by ``scheduler=`` before giving up
SCHEDULER_TIMEOUT = 10


def _submit_to_dask(todo, run_cell, config, path_of, scheduler, n_workers, bar, computed):
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError(
            "this study runs on Dask: pip install 'bayes_eval[validation]' "
            "(or workers=0 to run the cells in this process)."
        ) from exc
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:  # nothing there, or not Dask
            raise ValueError(
                f"no Dask scheduler answered at {scheduler} within {SCHEDULER_TIMEOUT} s "
                f"({type(exc).__name__}); expected the address of a running scheduler, e.g. "
                "tcp://127.0.0.1:8786 (or leave --scheduler out to start a local cluster)."
            ) from None
    else:
        cluster = LocalCluster(
            n_workers=n_workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            # a free port: None still tries 8787 and warns when another cluster holds it
            dashboard_address=":0",
            # no worker chatter on stderr: a cell's error reaches us through its future, and
            # after Ctrl-C a worker whose scheduler closed first logs a failed heartbeat at
            # ERROR (seen once in a full test run)
            silence_logs=logging.CRITICAL,
        )
        client = Client(cluster)
    futures: dict = {}
    try:
        futures = {client.submit(run_cell, cell, config, pure=False): cell for cell in todo}
        for future in as_completed(futures):
            cell = futures[future]
            write_atomic(future.result(), path_of(cell))
            computed.append(cell)
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        # Ctrl-C reaches the workers too (one process group): nothing waits for them, and
        # Dask's own complaints about the cancelled work are not shown
        for name in ("distributed", "tornado", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        _close_quietly(client, cluster, list(futures))
        raise
    else:
        _close_quietly(client, cluster, [])


def _close_quietly(client, cluster, futures, timeout: float = 3.0) -> None:
    """Cancel ``futures`` and close the client and the local cluster, without raising.

    Closing takes a few seconds at most and never raises (the workers may be gone already).
    After an interruption the local workers are killed half a second into the close: a cell
    computing for minutes would otherwise hold the close (and the exit) until it finishes.
    """
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


#: While a cell runs in this process under a progress bar: ``hook(fraction)`` moves the bar
#: within the cell (:func:`report_progress`).
_CELL_PROGRESS: contextvars.ContextVar[Callable[[float], None] | None] = contextvars.ContextVar(
    "cell_progress", default=None
)


def report_progress(fraction: float) -> None:
    """Say how much of the running cell is done (0..1), for the study's progress bar.

    A long cell (one of few, or a slow one) then moves the bar from its first seconds instead
    of showing 0% until it ends. A no-op where no bar follows the cell (Dask workers, no
    progress, direct calls), so cell functions call it freely.
    """
    hook = _CELL_PROGRESS.get()
    if hook is not None:
        hook(min(max(float(fraction), 0.0), 1.0))


def _within(bar, done: int) -> Callable[[float], None]:
    """The hook of :data:`_CELL_PROGRESS` for the cell after ``done`` finished ones."""

    def hook(fraction: float) -> None:
        bar.n = round(done + fraction, 3)
        bar.refresh()

    return hook


def run_cells(
    cells: Sequence[Hashable],
    run_cell: Callable[[Any, Any], xr.Dataset],
    config: Any,
    out_dir: str | Path,
    *,
    cell_name: Callable[[Any], str],
    digest: str,
    manifest: dict,
    scheduler: str | None = None,
    n_workers: int | None = None,
    max_cells: int | None = None,
    progress: bool = True,
    desc: str = "cells",
) -> CellRun:
    """Run (or resume) ``run_cell(cell, config)`` for every cell not yet in ``OUT/cells/``.

    Parameters
    ----------
    cells : sequence
        The grid, in a fixed order.
    run_cell : callable
        ``run_cell(cell, config) -> xarray.Dataset``; picklable for Dask.
    config : object
        Passed to every cell.
    out_dir : str or pathlib.Path
        Holds ``study.json`` and ``cells/NAME.nc``.
    cell_name : callable
        ``cell_name(cell) -> str``, the file stem of a cell (unique per cell).
    digest, manifest : str, dict
        The configuration's digest and its JSON-ready fields (:func:`check_manifest`).
    scheduler : str, optional
        Address of an existing Dask scheduler; default an in-process ``LocalCluster``.
    n_workers : int, optional
        Workers of the local cluster (default: the machine's cores); 0 runs the cells one
        after the other in this process, without Dask.
    max_cells : int, optional
        Stop after this many new cells (a controlled interruption; resume later).
    progress : bool, optional
        Show a progress bar (tqdm), default True.
    desc : str, optional
        The progress bar's label, default ``"cells"``.

    Returns
    -------
    CellRun
        The cells computed now, those found finished, and how many are still pending.

    Raises
    ------
    ValueError
        ``out_dir`` holds a study with another configuration.
    StudyInterrupted
        Ctrl-C (a ``KeyboardInterrupt`` subclass); running the same call again resumes.

    Examples
    --------
    >>> import tempfile
    >>> import xarray as xr
    >>> from bayes_eval.validation.cell_runner import merge_cells, run_cells
    >>> def square(cell, config):
    ...     return xr.Dataset({"y": ("x", [cell**config])}, coords={"x": [cell]})
    >>> kw = dict(cell_name=str, digest="d1", manifest={"power": 2}, n_workers=0, progress=False)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(run_cells([1, 2, 3], square, 2, tmp, max_cells=2, **kw))
    ...     print(run_cells([1, 2, 3], square, 2, tmp, **kw))
    ...     print(merge_cells(tmp)["y"].values.tolist())
    CellRun(computed=[1, 2], skipped=[], pending=1)
    CellRun(computed=[3], skipped=[1, 2], pending=0)
    [1.0, 4.0, 9.0]
    """
    out = Path(out_dir)
    (out / "cells").mkdir(parents=True, exist_ok=True)
    check_manifest(out, digest, manifest)

    def path_of(cell) -> Path:
        return out / "cells" / f"{cell_name(cell)}.nc"

    done = [c for c in cells if path_of(c).exists()]
    pending = [c for c in cells if not path_of(c).exists()]
    todo = pending if max_cells is None else pending[:max_cells]
    computed: list = []
    if todo:
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(todo), desc=desc, unit="cell")
        try:
            if n_workers == 0 and not scheduler:
                for i, cell in enumerate(todo):
                    token = _CELL_PROGRESS.set(None if bar is None else _within(bar, i))
                    try:
                        ds = run_cell(cell, config)
                    finally:
                        _CELL_PROGRESS.reset(token)
                    write_atomic(ds, path_of(cell))
                    computed.append(cell)
                    if bar is not None:
                        bar.n = i + 1
                        bar.refresh()
            else:
                _submit_to_dask(
                    todo, run_cell, config, path_of, scheduler, n_workers, bar, computed
                )
        except KeyboardInterrupt:
            saved = sum(path_of(c).exists() for c in cells)
            raise StudyInterrupted(
                f"interrupted: {saved} of {len(cells)} cells saved; "
                "run the same command again to resume"
            ) from None
        finally:
            if bar is not None:
                bar.close()
    return CellRun(computed, done, len(cells) - len(done) - len(computed))


def merge_cells(out_dir: str | Path, combine: str = "merge") -> xr.Dataset | None:
    """The finished cells of a study folder as one Dataset (``None`` before the first).

    Parameters
    ----------
    out_dir : str or pathlib.Path
        The study folder (its ``cells/*.nc`` are read).
    combine : str, optional
        ``"merge"`` (the default) merges the cells (on disjoint coordinates, as coverage's);
        ``"concat:DIM"`` concatenates them along ``DIM`` in file-name order.

    Returns
    -------
    xarray.Dataset or None
        The cells combined, or ``None`` when no cell is finished.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import xarray as xr
    >>> from bayes_eval.validation.cell_runner import merge_cells, write_atomic
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(merge_cells(tmp))
    ...     (Path(tmp) / "cells").mkdir()
    ...     for i in range(3):
    ...         write_atomic(xr.Dataset({"y": ("block", [i])}), Path(tmp) / "cells" / f"b{i}.nc")
    ...     print(merge_cells(tmp, combine="concat:block")["y"].values.tolist())
    None
    [0, 1, 2]
    """
    files = sorted((Path(out_dir) / "cells").glob("*.nc"))
    if not files:
        return None
    parts = []
    for f in files:
        with xr.open_dataset(f, engine="h5netcdf") as ds:
            parts.append(ds.load())
    if combine.startswith("concat:"):
        return xr.concat(parts, dim=combine.split(":", 1)[1])
    return xr.merge(parts, join="outer", compat="no_conflicts")
