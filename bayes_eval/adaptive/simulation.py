"""Simulation harness for adaptive evaluation on response matrices (seed 003 §4, App. C).

A completed matrix (arms x examples) is the oracle: a policy sees only the cells it asks
for, and after every step its recommendation ``k_t`` is scored by the simple regret
``SR_t = max_k theta_k - theta_{k_t}`` with ``theta_k`` the row means (eq. 1). Runs stop at
the budget: a fraction of all cells (unit cost) or of the cost of evaluating everything
(cost-aware; per-example cost = arm price). Curves are averaged over seeds with standard
errors; for Gittins policies the first step at which the stopping signal fires is kept.

Example selection: Gittins and UCB-E evaluate ``B`` random unobserved examples of the chosen
arm (a per-run random order of each row, from the run's seed); UCB-E-LRF chooses its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from bayes_eval.adaptive import gittins as gp
from bayes_eval.adaptive import ucbe as ucb
from bayes_eval.adaptive.synthetic import BanditDataset

__all__ = ["PolicySpec", "RunTrace", "default_policies", "plot_regret", "run_policy", "simulate"]


@dataclass(frozen=True)
class PolicySpec:
    """A policy to simulate: ``kind`` in {"gittins", "ucb-e", "ucb-e-lrf"} with options.

    Gittins options are those of :func:`bayes_eval.adaptive.gittins.init` (``prior_mean``,
    ``prior_var``, ``granularity``, ``convention``, ``posterior``, ``grid_size``);
    ``cost_aware=False`` makes a Gittins policy ignore prices (unit stage cost). UCB-E-LRF
    options are those of :func:`bayes_eval.adaptive.ucbe.lrf_init`.
    """

    name: str
    kind: str
    options: Mapping[str, object] = field(default_factory=dict)


def default_policies(dataset: BanditDataset, *, granularity: str = "cell", lrf: bool = False):
    """Gittins-G (general prior N(0.5, 0.04)), Gittins-S (dataset prior), UCB-E
    [, UCB-E-LRF]: the comparison of seed 003 §4."""
    specs = [
        PolicySpec(
            "Gittins-G",
            "gittins",
            {"prior_mean": 0.5, "prior_var": 0.04, "granularity": granularity},
        ),
        PolicySpec(
            "Gittins-S",
            "gittins",
            {
                "prior_mean": dataset.prior[0],
                "prior_var": dataset.prior[1],
                "granularity": granularity,
            },
        ),
        PolicySpec("UCB-E", "ucb-e"),
    ]
    if lrf:
        specs.append(PolicySpec("UCB-E-LRF", "ucb-e-lrf"))
    return specs


@dataclass(frozen=True)
class RunTrace:
    """One run: cumulative cells and cost, regret and recommendation after each step
    (index 0 = before any step), and the first step with the Gittins stopping signal."""

    cells: NDArray[np.int64]
    cost: NDArray[np.float64]
    regret: NDArray[np.float64]
    recommended: NDArray[np.int64]
    stop_step: int | None


def run_policy(
    dataset: BanditDataset,
    spec: PolicySpec,
    *,
    batch_size: int,
    budget: float = 0.1,
    budget_kind: str = "cells",
    cost_scale: float = 1e-4,
    seed: int = 0,
) -> RunTrace:
    """Run one policy on one matrix until the budget (see the module docstring)."""
    Y = dataset.matrix
    K, N = Y.shape
    theta = Y.mean(axis=1)
    best = theta.max()
    price = np.asarray(dataset.costs, dtype=np.float64)
    if budget_kind == "cells":
        total = budget * K * N
        unit = np.ones(K)
    elif budget_kind == "cost":
        total = budget * price.sum() * N
        unit = price
    else:
        raise ValueError(f"budget_kind is {budget_kind!r}; expected 'cells' or 'cost'.")
    if not 0 < budget <= 1:
        raise ValueError(f"budget is {budget!r}; expected a fraction in (0, 1].")
    rng = np.random.default_rng([seed, 7])
    order = np.argsort(rng.random((K, N)), axis=1)
    taken = np.zeros(K, dtype=np.int64)
    cells, cost, regret, rec = [0], [0.0], [], []
    stop_step = None

    if spec.kind == "gittins":
        opts = dict(spec.options)
        aware = bool(opts.pop("cost_aware", budget_kind == "cost"))
        state = gp.init(
            K,
            N,
            costs=price if aware else 1.0,
            cost_scale=cost_scale,
            batch_size=batch_size,
            seed=seed,
            **opts,
        )
        recommend = gp.recommend
    elif spec.kind == "ucb-e":
        state = ucb.ucbe_init(K, N, batch_size=batch_size, **dict(spec.options))
        recommend = ucb.ucbe_recommend
    elif spec.kind == "ucb-e-lrf":
        state = ucb.lrf_init(K, N, batch_size=batch_size, seed=seed, **dict(spec.options))
        recommend = ucb.lrf_recommend
    else:
        raise ValueError(f"policy kind is {spec.kind!r}; expected gittins, ucb-e or ucb-e-lrf.")
    k0 = recommend(state)
    regret.append(best - theta[k0] if k0 >= 0 else np.nan)
    rec.append(k0)
    spent = 0.0
    while True:
        if spec.kind == "gittins":
            d = gp.next(state)
            if d.done:
                break
            if d.stop and stop_step is None:
                stop_step = len(regret) - 1
            arm, b = d.arm, d.n_examples
            ex = order[arm, taken[arm] : taken[arm] + b]
        elif spec.kind == "ucb-e":
            arm, b = ucb.ucbe_next(state)
            if arm < 0:
                break
            ex = order[arm, taken[arm] : taken[arm] + b]
        else:
            state, arm, ex = ucb.lrf_next(state)
            if arm < 0:
                break
            b = ex.size
        step = b * unit[arm]
        if spent + step > total + 1e-9:
            break
        spent += step
        y = Y[arm, ex]
        if spec.kind == "gittins":
            state = gp.observe(state, arm, y)
        elif spec.kind == "ucb-e":
            state = ucb.ucbe_observe(state, arm, y)
        else:
            state = ucb.lrf_observe(state, arm, ex, y)
        taken[arm] += b
        cells.append(cells[-1] + b)
        cost.append(cost[-1] + b * price[arm])
        k = recommend(state)
        rec.append(k)
        regret.append(best - theta[k] if k >= 0 else np.nan)
    return RunTrace(
        np.asarray(cells), np.asarray(cost), np.asarray(regret), np.asarray(rec), stop_step
    )


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is in the [validation] extra
        return None
    return tqdm(total=total, desc="simulating", unit="run")


def simulate(
    dataset: BanditDataset,
    policies: Sequence[PolicySpec] | None = None,
    *,
    batch_size: int = 4,
    budget: float = 0.1,
    budget_kind: str = "cells",
    cost_scale: float = 1e-4,
    seeds: int | Sequence[int] = 10,
    grid_points: int = 201,
    progress: bool = False,
) -> xr.Dataset:
    """Simple regret of each policy versus evaluations (or cost), averaged over seeds.

    Returns
    -------
    xarray.Dataset
        ``regret`` over ``(policy, seed, fraction)`` where ``fraction`` is the share of all
        cells (``budget_kind="cells"``) or of the total cost (``"cost"``) spent, from 0 to
        ``budget``; ``regret_mean`` and ``regret_se`` (standard error over seeds);
        ``stop_fraction`` (policy, seed): where the Gittins stopping signal first fired (NaN
        if it did not, or for other policies); ``final_regret``; ``theta`` per arm.
    """
    policies = list(policies or default_policies(dataset))
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seed_list:
        raise ValueError("seeds is empty; expected at least one seed.")
    K, N = dataset.matrix.shape
    whole = K * N if budget_kind == "cells" else float(np.sum(dataset.costs) * N)
    grid = np.linspace(0.0, budget, grid_points)
    regret = np.full((len(policies), len(seed_list), grid_points), np.nan)
    stop = np.full((len(policies), len(seed_list)), np.nan)
    final = np.full((len(policies), len(seed_list)), np.nan)
    bar = _progress(len(policies) * len(seed_list), progress)
    for i, spec in enumerate(policies):
        for j, s in enumerate(seed_list):
            tr = run_policy(
                dataset,
                spec,
                batch_size=batch_size,
                budget=budget,
                budget_kind=budget_kind,
                cost_scale=cost_scale,
                seed=s,
            )
            used = (tr.cells if budget_kind == "cells" else tr.cost) / whole
            idx = np.searchsorted(used, grid + 1e-12, side="right") - 1
            regret[i, j] = tr.regret[idx]
            final[i, j] = tr.regret[-1]
            if tr.stop_step is not None:
                stop[i, j] = used[tr.stop_step]
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()
    n = len(seed_list)
    coords = {"policy": [p.name for p in policies], "seed": seed_list, "fraction": grid}
    ds = xr.Dataset(
        {
            "regret": (("policy", "seed", "fraction"), regret),
            "regret_mean": (("policy", "fraction"), regret.mean(axis=1)),
            "regret_se": (
                ("policy", "fraction"),
                regret.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else regret[:, 0] * 0,
            ),
            "stop_fraction": (("policy", "seed"), stop),
            "final_regret": (("policy", "seed"), final),
            "theta": (("arm",), dataset.matrix.mean(axis=1)),
        },
        coords=coords,
    )
    ds.attrs.update(
        {
            "dataset": dataset.name,
            "batch_size": batch_size,
            "budget": budget,
            "budget_kind": budget_kind,
            "cost_scale": cost_scale,
            "arms": K,
            "examples": N,
        }
    )
    return ds


def plot_regret(ds: xr.Dataset, path: str | Path) -> Path:
    """Mean simple regret +- 2 SE per policy; dashed lines at the mean Gittins stop."""
    from bayes_eval.plotting.figure import pyplot, save_png

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    x = 100 * ds["fraction"].values
    for p in ds["policy"].values:
        m = ds["regret_mean"].sel(policy=p).values
        se = ds["regret_se"].sel(policy=p).values
        (line,) = ax.plot(x, m, label=str(p), lw=1.8)
        ax.fill_between(x, m - 2 * se, m + 2 * se, color=line.get_color(), alpha=0.2, lw=0)
        stops = ds["stop_fraction"].sel(policy=p).values
        stops = stops[np.isfinite(stops)]
        if stops.size:
            ax.axvline(100 * stops.mean(), color=line.get_color(), ls="--", lw=1)
    unit = "cells" if ds.attrs["budget_kind"] == "cells" else "total cost"
    ax.set_xlabel(f"% of {unit} evaluated")
    ax.set_ylabel("simple regret (mean +- 2 SE)")
    ax.set_title(f"{ds.attrs['dataset']}: B = {ds.attrs['batch_size']}, {ds.sizes['seed']} seeds")
    ax.legend()
    fig.tight_layout()
    return save_png(fig, path)
