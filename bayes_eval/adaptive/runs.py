"""The runs behind ``bayes-eval adaptive``: root schedules and policy simulations.

After Xie, He and Cao, "Efficient Cost-Aware LLM Evaluation via Bayesian Bandit Gittins
Indices": a root schedule as a table, and a simulation of the policies on a response matrix
with its regret summary.

Thin workflows over :mod:`bayes_eval.adaptive` (whose functions they call unchanged):
:func:`root_table`, :func:`load_bandit` and :func:`simulate_policies`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from bayes_eval.files import write_file

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from bayes_eval.adaptive.synthetic import BanditDataset

__all__ = [
    "BANDIT_SOURCES",
    "ROOTS_WORK_LIMIT",
    "RootTable",
    "load_bandit",
    "read_costs",
    "root_table",
    "simulate_policies",
]

#: Response matrices :func:`load_bandit` builds: mimics of the paper's data sets, or yours.
BANDIT_SOURCES = ("gsm8k", "piqa", "mmlu", "matrix")

#: The options of :func:`load_bandit` each source uses.
_TAKES = {
    "gsm8k": {"arms", "examples", "seed"},
    "piqa": {"arms", "examples", "seed"},
    "mmlu": {"meta", "subject", "examples", "seed"},
    "matrix": {"matrix", "costs", "belief_mean", "belief_var"},
}

#: Budget fractions at which :func:`simulate_policies` reports the regret.
CHECKPOINTS = (0.01, 0.02, 0.05, 0.1)


class RootTable(NamedTuple):
    """Root schedule ``r_n`` (index ``G_n(s) = s - r_n``) with its variances per stage.

    With the posterior variance ``v_n`` and the variance of the posterior-mean step
    ``sigma_n^2 = v_n^2 / (v_n + tau^2)`` at each stage ``n = 0..H-1``.

    Attributes
    ----------
    cost_per_stage : float
        Effective cost of one stage, in score units.
    v0 : float
        Prior variance of the arm mean.
    tau2 : float
        Observation variance of one stage.
    horizon : int
        Horizon ``H`` in stages.
    grid : int
        Grid points of the dynamic program.
    seconds : float
        Wall-clock time of the dynamic program.
    roots : list of float
        The roots ``r_0, ..., r_{H-1}``.
    posterior_variance : list of float
        The posterior variances ``v_0, ..., v_{H-1}``.
    step_variance : list of float
        The step variances ``sigma_0^2, ..., sigma_{H-1}^2``.

    Examples
    --------
    >>> from bayes_eval.adaptive.runs import root_table
    >>> table = root_table(cost=1e-3, v0=0.25, tau2=0.025, horizon=3)
    >>> table.horizon, [round(r, 4) for r in table.roots]
    (3, [-1.2216, -0.2367, -0.1085])
    >>> [round(s, 4) for s in table.step_variance]
    [0.2273, 0.0108, 0.0038]
    """

    cost_per_stage: float
    v0: float
    tau2: float
    horizon: int
    grid: int
    seconds: float
    roots: list[float]
    posterior_variance: list[float]
    step_variance: list[float]


#: The largest ``H x grid`` of :func:`root_table`: 2^28 cells (its cost is measured in
#: ``benchmarks/README.md``).
ROOTS_WORK_LIMIT = 2**28


def root_table(
    *,
    cost: float = 1e-4,
    v0: float = 0.04,
    tau2: float | None = None,
    horizon: int | None = None,
    examples: int | None = None,
    batch: int = 4,
    granularity: str = "cell",
    grid: int = 2**14,
) -> RootTable:
    """Roots of :func:`bayes_eval.adaptive.gittins_index.root_schedule`.

    Either ``examples`` (with ``batch`` and ``granularity``: the stages, observation
    variance and cost per stage of :func:`~bayes_eval.adaptive.gittins_index.stage_setup`)
    or ``horizon`` and ``tau2`` (one stage costs ``cost``). A ``batch`` larger than
    ``examples``, or more than :data:`ROOTS_WORK_LIMIT` stages x grid points, is refused
    (ValueError naming the options) before any work.

    Parameters
    ----------
    cost : float, optional
        Effective cost of one example (with ``examples``) or of one stage (with
        ``horizon``), in score units; default ``1e-4``.
    v0 : float, optional
        Prior variance of the arm mean, default 0.04.
    tau2 : float, optional
        Observation variance of one stage (with ``horizon``).
    horizon : int, optional
        Horizon in stages (with ``tau2``).
    examples : int, optional
        Examples per arm; the stages follow from ``batch`` and ``granularity``.
    batch : int, optional
        Examples per proposal (with ``examples``), default 4.
    granularity : {"cell", "batch"}, optional
        One stage per cell or per batch (with ``examples``), default ``"cell"``.
    grid : int, optional
        Grid points of the dynamic program, default ``2**14``.

    Returns
    -------
    RootTable
        The roots, posterior variances and step variances of every stage.

    Raises
    ------
    ValueError
        If neither ``examples`` nor both ``horizon`` and ``tau2`` are given, ``batch`` is
        larger than ``examples``, or the work exceeds :data:`ROOTS_WORK_LIMIT`.

    Examples
    --------
    >>> from bayes_eval.adaptive.runs import root_table
    >>> table = root_table(cost=1e-3, examples=20, batch=4)
    >>> table.horizon, table.tau2, len(table.roots)
    (20, 0.25, 20)
    >>> [round(r, 4) for r in table.roots[:3]]
    [-0.2722, -0.2357, -0.2069]
    """
    from bayes_eval.adaptive.gittins_index import posterior_variances, root_schedule, stage_setup

    if examples is not None:
        if not 1 <= batch <= examples:
            raise ValueError(
                f"--batch is {batch}, more than the {examples} examples per arm (--examples); "
                f"expected a batch of 1..{examples}."
            )
        H, tau2, per_stage = stage_setup(examples, batch, granularity=granularity)
        cost = cost * per_stage
    elif horizon is None or tau2 is None:
        raise ValueError("give --examples (with --batch, --granularity) or --horizon and --tau2.")
    else:
        H = horizon
    if float(H) * float(grid) > ROOTS_WORK_LIMIT:  # about 4 ms a stage at 2^14 points
        given = "--horizon" if examples is None else "--examples with --batch and --granularity"
        raise ValueError(
            f"{H} stages ({given}) x {grid} grid points (--grid) is about "
            f"{float(H) * grid * 2.5e-7 / 60:.3g} minutes of dynamic programming, above the "
            f"limit of H x grid = 2^28; expected at most {ROOTS_WORK_LIMIT // grid} stages at "
            "this grid (fewer examples, a larger --batch, --granularity batch or a coarser "
            "--grid)."
        )
    start = time.perf_counter()
    rs = root_schedule(cost, v0, tau2, H, grid_size=grid)
    seconds = time.perf_counter() - start
    v = posterior_variances(v0, tau2, H)[:-1]
    step = v**2 / (v + tau2)
    return RootTable(cost, v0, tau2, H, grid, seconds, rs.roots.tolist(), v.tolist(), step.tolist())


def load_bandit(
    source: str = "mmlu",
    *,
    arms: str | None = None,
    meta: str | None = None,
    subject: str | None = None,
    examples: int | None = None,
    matrix: str | None = None,
    costs: str | None = None,
    belief_mean: float | None = None,
    belief_var: float | None = None,
    seed: int | None = None,
) -> BanditDataset:
    """A :class:`~bayes_eval.adaptive.synthetic.BanditDataset` from ``source``.

    ``gsm8k``/``piqa``: mimics from arm metadata (``arms``, default the shipped
    ``dataset:bandit_<source>_arms``), ``examples`` per arm (1000); ``mmlu``: a subject's
    mimic from ``meta`` (default ``dataset:bandit_mmlu_meta``); ``matrix``: your ``.npy`` or
    ``.csv`` matrix, per-arm ``costs`` (CSV) and the dataset prior ``N(belief_mean,
    belief_var)`` for Gittins-S (default ``N(0.5, 0.04)``). ``seed`` seeds the synthetic
    matrices (0). An option the source does not use is refused (ValueError), not ignored.

    Parameters
    ----------
    source : {"mmlu", "gsm8k", "piqa", "matrix"}, optional
        Where the matrix comes from (:data:`BANDIT_SOURCES`), default ``"mmlu"``.
    arms : str, optional
        Arm metadata CSV (``gsm8k``, ``piqa``).
    meta : str, optional
        MMLU metadata JSON (``mmlu``).
    subject : str, optional
        MMLU subject (``mmlu``; required there).
    examples : int, optional
        Examples per arm of a mimic (``gsm8k``, ``piqa``, ``mmlu``).
    matrix : str, optional
        Your ``.npy`` or ``.csv`` matrix (``matrix``; required there).
    costs : str, optional
        File of per-arm costs read by :func:`read_costs` (``matrix``).
    belief_mean : float, optional
        Mean of the dataset prior (``matrix``), default 0.5.
    belief_var : float, optional
        Variance of the dataset prior (``matrix``), default 0.04.
    seed : int, optional
        Seed of a mimic (``gsm8k``, ``piqa``, ``mmlu``), default 0.

    Returns
    -------
    bayes_eval.adaptive.synthetic.BanditDataset
        The matrix, per-arm costs, dataset prior and arm labels.

    Raises
    ------
    ValueError
        For an unknown source, an option the source does not use, or a missing file.

    Examples
    --------
    >>> from bayes_eval.adaptive.runs import load_bandit
    >>> data = load_bandit("piqa", examples=50, seed=0)
    >>> data.name, data.matrix.shape
    ('piqa-like', (103, 50))
    """
    from bayes_eval.adaptive import synthetic as sb

    if source not in BANDIT_SOURCES:
        raise ValueError(f"source is {str(source)!r}; expected one of {list(BANDIT_SOURCES)}.")
    options: dict[str, object] = dict(
        arms=arms, meta=meta, subject=subject, examples=examples, matrix=matrix
    )
    options |= dict(costs=costs, belief_mean=belief_mean, belief_var=belief_var, seed=seed)
    unused = [k for k, v in options.items() if v is not None and k not in _TAKES[source]]
    if unused:
        flags = ", ".join("--" + k.replace("_", "-") for k in unused)
        raise ValueError(f"--dataset {source} does not use {flags}.")
    seed = 0 if seed is None else seed

    if source in ("gsm8k", "piqa"):
        make = sb.gsm8k_like if source == "gsm8k" else sb.piqa_like
        return make(
            arms or f"dataset:bandit_{source}_arms",
            n_examples=1000 if examples is None else examples,
            seed=seed,
        )
    if source == "mmlu":
        if not subject:
            raise ValueError("--dataset mmlu needs --subject (an MMLU subject, e.g. anatomy).")
        return sb.mmlu_like(
            meta or "dataset:bandit_mmlu_meta", subject, n_examples=examples, seed=seed
        )
    if not matrix:
        raise ValueError("--dataset matrix needs --matrix FILE (.npy or .csv).")
    cost_values: ArrayLike | None = costs
    if costs:
        if not Path(costs).is_file():
            raise ValueError(f"{costs}: no such file.")
        cost_values = read_costs(costs)
    belief = (
        0.5 if belief_mean is None else belief_mean,
        0.04 if belief_var is None else belief_var,
    )
    return sb.from_matrix(matrix, costs=cost_values, belief=(float(belief[0]), float(belief[1])))


def simulate_policies(
    data: BanditDataset,
    *,
    out: str | Path,
    batch: int = 4,
    budget: float = 0.1,
    budget_kind: str = "cells",
    cost_scale: float = 1e-4,
    replicates: int = 10,
    granularity: str = "cell",
    lrf: bool = False,
    progress: bool = False,
) -> dict:
    """Simulate the adaptive policies on ``data``, write the results and return a summary.

    Simulates Gittins-G, Gittins-S and UCB-E (and UCB-E-LRF with ``lrf``)
    (:func:`bayes_eval.adaptive.simulation.simulate`, seeds ``0..replicates-1``), writes
    ``adaptive.nc`` and ``adaptive_regret.png`` to ``out`` and returns a JSON-ready summary:
    per policy the simple regret (mean, SE) at 1, 2, 5 and 10% of the budget and where the
    Gittins stopping signal fired.

    Parameters
    ----------
    data : bayes_eval.adaptive.synthetic.BanditDataset
        The oracle matrix, prices and prior (e.g. from :func:`load_bandit`).
    out : str or pathlib.Path
        Output folder, created if needed.
    batch : int, optional
        Examples per proposal, default 4.
    budget : float, optional
        Fraction in (0, 1] of all cells or of the total cost, default 0.1.
    budget_kind : {"cells", "cost"}, optional
        What the budget counts, default ``"cells"``.
    cost_scale : float, optional
        Lambda turning costs into score units, default ``1e-4``.
    replicates : int, optional
        Number of seeds, default 10.
    granularity : {"cell", "batch"}, optional
        Stage of the Gittins policies' program, default ``"cell"``.
    lrf : bool, optional
        Add UCB-E-LRF, default ``False``.
    progress : bool, optional
        Show a progress bar, default ``False``.

    Returns
    -------
    dict
        The data set's name and size, the options, ``regret_mean_se`` (per policy: regret
        ``[mean, SE]`` per budget checkpoint, ``stop_fraction_mean`` and ``stopped_runs``),
        the paths ``netcdf`` and ``plot`` written and the wall-clock ``seconds``.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from bayes_eval.adaptive.synthetic import BanditDataset, logistic_matrix
    >>> from bayes_eval.adaptive.runs import simulate_policies
    >>> R = logistic_matrix([0.3, 0.5, 0.7], 20, rng=np.random.default_rng(0))
    >>> data = BanditDataset("toy", R, np.ones(3), (0.5, 0.04), ("a", "b", "c"))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     summary = simulate_policies(data, out=folder, batch=2, budget=0.5, replicates=2)
    >>> list(summary["regret_mean_se"])
    ['Gittins-G', 'Gittins-S', 'UCB-E']
    >>> summary["regret_mean_se"]["UCB-E"]["10%"]
    [0.4, 0.0]
    """
    from bayes_eval.adaptive.simulation import default_policies, plot_regret, simulate

    integer = isinstance(replicates, (int, np.integer)) and not isinstance(replicates, bool)
    if not integer or replicates < 1:
        raise ValueError(f"replicates is {replicates}; expected a positive integer.")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder}: a file, not a folder (the output folder --out).")
    folder.mkdir(parents=True, exist_ok=True)  # before the work: a path error shows at once
    policies = default_policies(data, granularity=granularity, lrf=lrf)
    start = time.perf_counter()
    ds = simulate(
        data,
        policies,
        batch_size=batch,
        budget=budget,
        budget_kind=budget_kind,
        cost_scale=cost_scale,
        seeds=replicates,
        progress=progress,
    )
    nc, png = folder / "adaptive.nc", folder / "adaptive_regret.png"
    write_file(nc, lambda tmp: ds.to_netcdf(tmp, engine="h5netcdf" if _has_h5netcdf() else None))
    plot_regret(ds, png)
    checkpoints = [f for f in CHECKPOINTS if f <= budget + 1e-12]
    table = {}
    for p in ds["policy"].values:
        row: dict[str, object] = {}
        for f in checkpoints:
            sel = ds.sel(policy=p).sel(fraction=f, method="nearest")
            row[f"{100 * f:g}%"] = [float(sel["regret_mean"]), float(sel["regret_se"])]
        stops = ds["stop_fraction"].sel(policy=p).values
        row["stop_fraction_mean"] = float(np.nanmean(stops)) if np.isfinite(stops).any() else None
        row["stopped_runs"] = int(np.isfinite(stops).sum())
        table[str(p)] = row
    return {
        "dataset": data.name,
        "arms": int(data.matrix.shape[0]),
        "examples": int(data.matrix.shape[1]),
        "batch": batch,
        "budget": budget,
        "budget_kind": budget_kind,
        "replicates": replicates,
        "granularity": granularity,
        "regret_mean_se": table,
        "netcdf": str(nc),
        "plot": str(png),
        "seconds": round(time.perf_counter() - start, 2),
    }


def _has_h5netcdf() -> bool:
    import importlib.util

    return importlib.util.find_spec("h5netcdf") is not None


def read_costs(path: str | Path) -> np.ndarray:
    """Per-arm costs from a text file, in the order of the matrix's rows (arms).

    One number per line (``np.savetxt`` of the cost vector) or one line of comma-separated
    numbers, with or without a header line (e.g. ``cost_usd``); a table with several columns
    must name its cost column ``cost`` or ``cost_*`` in the header.

    Parameters
    ----------
    path : str or pathlib.Path
        The text file of costs.

    Returns
    -------
    numpy.ndarray of float, shape (K,)
        One cost per arm.

    Raises
    ------
    ValueError
        For an empty file, a cell that is not a number, or several columns and no header
        naming the cost column; the message names the file and the line.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from bayes_eval.adaptive.runs import read_costs
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     np.savetxt(folder + "/costs.csv", [0.5, 1, 2], header="cost_usd", comments="")
    ...     read_costs(folder + "/costs.csv").tolist()
    [0.5, 1.0, 2.0]
    """
    p = Path(path)
    bad = f"{p}: could not read the per-arm costs"
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{bad}: not UTF-8 text; expected one cost per line.") from None
    rows = [
        (i + 1, [c.strip() for c in ln.split(",")])
        for i, ln in enumerate(text.splitlines())
        if ln.strip()
    ]
    if not rows:
        raise ValueError(f"{bad}: the file is empty; expected one cost per arm, one per line.")
    column = None  # None: every cell (one cost per line, or one line of costs)
    if not all(map(_is_number, rows[0][1])):  # a header names the columns
        header = [h.lower() for h in rows[0][1]]
        named = [j for j, h in enumerate(header) if h == "cost" or h.startswith("cost_")]
        if len(header) > 1 and len(named) != 1:
            raise ValueError(
                f"{bad}: the header {rows[0][1]} names no single cost column; expected one cost "
                "per line, or a column named cost or cost_* (e.g. cost_usd)."
            )
        column, rows = (named[0] if named else 0), rows[1:]
        if not rows:
            raise ValueError(f"{bad}: a header without costs; expected one cost per arm.")
    elif len(rows) > 1 and any(len(cells) > 1 for _, cells in rows):
        raise ValueError(
            f"{bad}: several lines of several numbers; expected one cost per line (or a header "
            "naming the cost column)."
        )
    values = []
    for line_no, cells in rows:
        for cell in cells if column is None else cells[column : column + 1] or [""]:
            if not _is_number(cell):
                raise ValueError(f"{bad}: line {line_no} has {cell!r}; expected a number (a cost).")
            values.append(float(cell))
    return np.asarray(values, dtype=np.float64)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
