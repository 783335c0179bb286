"""Simulation harness for adaptive evaluation on response matrices.

The protocol of Xie, He and Cao ("Efficient Cost-Aware LLM Evaluation via Bayesian Bandit
Gittins Indices", §4 and App. C): a completed matrix (arms x examples) is the oracle; a
policy sees only the cells it asks for, and after every step its recommendation ``k_t`` is
scored by the simple regret ``SR_t = max_k theta_k - theta_{k_t}`` with ``theta_k`` the row
means (eq. 1). Runs stop at the budget: a fraction of all cells (unit cost) or of the cost of
evaluating everything (cost-aware; per-example cost = arm price). Curves are averaged over
seeds with standard errors; where a policy raises its stopping signal (``Proposal.stop``,
the Gittins policy's) the first such step is kept.

The harness runs any object that follows :class:`~bayes_eval.adaptive.protocol.Policy`
(the policies of :mod:`~bayes_eval.adaptive.gittins`, :mod:`~bayes_eval.adaptive.ucbe` and
:mod:`~bayes_eval.adaptive.lrf`, or your own), in the same loop: ``init`` is told the cost of
one example of each arm as the budget counts it (1 per cell, or the arm's price) and the
``cost_scale``; the policy chooses both the arm and the examples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from bayes_eval.adaptive.gittins import GittinsPolicy
from bayes_eval.adaptive.lrf import LRFPolicy
from bayes_eval.adaptive.protocol import Policy, check_proposal
from bayes_eval.adaptive.synthetic import BanditDataset
from bayes_eval.adaptive.ucbe import UCBEPolicy

if TYPE_CHECKING:
    from tqdm.auto import tqdm

__all__ = [
    "GENERAL_BELIEF",
    "PolicySpec",
    "RunTrace",
    "default_policies",
    "plot_regret",
    "run_policy",
    "simulate",
]

#: Gittins-G's belief of an arm's accuracy, ``N(mean, var)``: the general prior of Xie, He
#: and Cao (§4), the same for every dataset.
GENERAL_BELIEF = (0.5, 0.04)


@dataclass(frozen=True)
class PolicySpec:
    """A named policy to simulate.

    Parameters
    ----------
    name : str
        Label of the policy in the results.
    policy : Policy
        Any object following :class:`~bayes_eval.adaptive.protocol.Policy`, e.g.
        ``GittinsPolicy(granularity="cell")``.

    Raises
    ------
    ValueError
        If ``policy`` lacks one of the four methods of the protocol.

    Examples
    --------
    >>> from bayes_eval.adaptive import GittinsPolicy
    >>> from bayes_eval.adaptive.simulation import PolicySpec
    >>> spec = PolicySpec("Gittins-cell", GittinsPolicy(granularity="cell"))
    >>> spec.name, type(spec.policy).__name__
    ('Gittins-cell', 'GittinsPolicy')
    """

    name: str
    policy: Policy

    def __post_init__(self) -> None:
        if not isinstance(self.policy, Policy):
            raise ValueError(
                f"policy {str(self.name)!r} is a {type(self.policy).__name__}; expected an "
                "object with init, propose, observe and recommend methods "
                "(bayes_eval.adaptive.protocol.Policy)."
            )


def default_policies(
    dataset: BanditDataset, *, granularity: str = "cell", lrf: bool = False
) -> list[PolicySpec]:
    """The comparison of Xie, He and Cao (§4).

    Gittins-G (general prior N(0.5, 0.04)), Gittins-S (the dataset's prior), UCB-E and,
    with ``lrf=True``, UCB-E-LRF.

    Parameters
    ----------
    dataset : BanditDataset
        Supplies the dataset-specific prior of Gittins-S.
    granularity : {"cell", "batch"}
        Stage of the Gittins policies' program.
    lrf : bool
        Add UCB-E-LRF (slow: an ensemble fit per step).

    Returns
    -------
    list of PolicySpec
        Named ``"Gittins-G"``, ``"Gittins-S"``, ``"UCB-E"`` (and ``"UCB-E-LRF"``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive.synthetic import BanditDataset
    >>> from bayes_eval.adaptive.simulation import default_policies
    >>> data = BanditDataset("toy", np.eye(3), np.ones(3), (0.4, 0.02), ("a", "b", "c"))
    >>> [spec.name for spec in default_policies(data)]
    ['Gittins-G', 'Gittins-S', 'UCB-E']
    >>> default_policies(data)[1].policy.belief_mean
    0.4
    """
    specs = [
        PolicySpec(
            "Gittins-G",
            GittinsPolicy(
                belief_mean=GENERAL_BELIEF[0],
                belief_var=GENERAL_BELIEF[1],
                granularity=granularity,
            ),
        ),
        PolicySpec(
            "Gittins-S",
            GittinsPolicy(
                belief_mean=dataset.belief[0], belief_var=dataset.belief[1], granularity=granularity
            ),
        ),
        PolicySpec("UCB-E", UCBEPolicy()),
    ]
    if lrf:
        specs.append(PolicySpec("UCB-E-LRF", LRFPolicy()))
    return specs


def _specs(
    policies: Sequence[PolicySpec | Policy] | Mapping[str, Policy],
) -> list[PolicySpec]:
    """PolicySpecs from a sequence of PolicySpecs or a mapping of names to policies."""
    if isinstance(policies, Mapping):
        return [PolicySpec(str(name), p) for name, p in policies.items()]
    return [p if isinstance(p, PolicySpec) else PolicySpec(type(p).__name__, p) for p in policies]


@dataclass(frozen=True)
class RunTrace:
    """One run, step by step (index 0 = before any step).

    Attributes
    ----------
    cells, cost : arrays
        Cumulative examples evaluated and cost spent (raw prices).
    regret : array
        Simple regret of the recommendation (NaN while the policy recommends none).
    recommended : int array
        The recommended arm (-1 = none).
    stop_step : int or None
        First step at which the policy's stopping signal was raised.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive import UCBEPolicy
    >>> from bayes_eval.adaptive.synthetic import BanditDataset, logistic_matrix
    >>> from bayes_eval.adaptive.simulation import run_policy
    >>> R = logistic_matrix([0.3, 0.5, 0.7], 20, rng=np.random.default_rng(0))
    >>> data = BanditDataset("toy", R, np.ones(3), (0.5, 0.04), ("a", "b", "c"))
    >>> trace = run_policy(data, UCBEPolicy(), batch_size=2, budget=0.5, seed=0)
    >>> int(trace.cells[-1]), int(trace.recommended[-1]), float(trace.regret[-1])
    (30, 2, 0.0)
    """

    cells: NDArray[np.int64]
    cost: NDArray[np.float64]
    regret: NDArray[np.float64]
    recommended: NDArray[np.int64]
    stop_step: int | None


def run_policy(
    dataset: BanditDataset,
    spec: PolicySpec | Policy,
    *,
    batch_size: int,
    budget: float = 0.1,
    budget_kind: str = "cells",
    cost_scale: float = 1e-4,
    seed: int = 0,
) -> RunTrace:
    """Run one policy on one matrix until the budget (see the module docstring).

    Parameters
    ----------
    dataset : BanditDataset
        The oracle matrix and the arms' prices.
    spec : PolicySpec or Policy
        The policy (any object following :class:`~bayes_eval.adaptive.protocol.Policy`).
    batch_size : int
        Examples per proposal, passed to ``init``.
    budget : float
        Fraction in (0, 1] of all cells or of the total cost.
    budget_kind : {"cells", "cost"}
        What the budget counts (also the costs passed to ``init``).
    cost_scale : float
        Lambda, passed to ``init``.
    seed : int
        Seed of the run, passed to ``init``.

    Returns
    -------
    RunTrace
        The cells, cost, recommendation and simple regret after every step.

    Raises
    ------
    ValueError
        For a bad budget, or a proposal that is invalid (see
        :func:`~bayes_eval.adaptive.protocol.check_proposal`) or asks for a cell already
        evaluated.

    Examples
    --------
    Half of the cells of a 3 x 20 matrix, two examples per proposal:

    >>> import numpy as np
    >>> from bayes_eval.adaptive import GittinsPolicy
    >>> from bayes_eval.adaptive.synthetic import BanditDataset, logistic_matrix
    >>> from bayes_eval.adaptive.simulation import run_policy
    >>> R = logistic_matrix([0.3, 0.5, 0.7], 20, rng=np.random.default_rng(0))
    >>> data = BanditDataset("toy", R, np.ones(3), (0.5, 0.04), ("a", "b", "c"))
    >>> policy = GittinsPolicy(granularity="cell")
    >>> trace = run_policy(data, policy, batch_size=2, budget=0.5, seed=0)
    >>> trace.cells.tolist()[-3:], trace.recommended.tolist()[-3:], float(trace.regret[-1])
    ([26, 28, 30], [2, 2, 2], 0.0)
    """
    policy = spec.policy if isinstance(spec, PolicySpec) else spec
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
        raise ValueError(f"budget_kind is {str(budget_kind)!r}; expected 'cells' or 'cost'.")
    if not 0 < budget <= 1:
        raise ValueError(f"budget is {budget}; expected a fraction in (0, 1].")
    state = policy.init(K, N, batch_size=batch_size, costs=unit, cost_scale=cost_scale, seed=seed)
    seen = np.zeros((K, N), dtype=bool)
    cells, cost, regret, rec = [0], [0.0], [], []
    stop_step = None
    spent = 0.0
    k = policy.recommend(state)
    while True:
        rec.append(k)
        regret.append(best - theta[k] if k >= 0 else np.nan)
        proposal = policy.propose(state)
        if proposal.arm < 0:
            break
        if getattr(proposal, "stop", False) and stop_step is None:
            stop_step = len(regret) - 1
        arm, ex = check_proposal(proposal, K, N)
        if seen[arm, ex].any():
            raise ValueError(
                f"the policy proposed arm {arm}'s example {int(ex[seen[arm, ex]][0])} again; "
                "each cell is evaluated once."
            )
        b = ex.size
        step = b * unit[arm]
        if spent + step > total + 1e-9:
            break
        spent += step
        seen[arm, ex] = True
        state = policy.observe(state, proposal, Y[arm, ex])
        cells.append(cells[-1] + b)
        cost.append(cost[-1] + b * price[arm])
        k = policy.recommend(state)
    return RunTrace(
        np.asarray(cells), np.asarray(cost), np.asarray(regret), np.asarray(rec), stop_step
    )


def _progress(total: int, enabled: bool) -> tqdm | None:
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is in the [validation] extra
        return None
    return tqdm(total=total, desc="simulating", unit="run")


def simulate(
    dataset: BanditDataset,
    policies: Sequence[PolicySpec | Policy] | Mapping[str, Policy] | None = None,
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

    Parameters
    ----------
    dataset : BanditDataset
        The oracle matrix, prices and prior.
    policies : sequence of PolicySpec or Policy, or mapping of names to Policy, optional
        The policies to compare (default: :func:`default_policies`); a bare policy is named
        after its class.
    batch_size, budget, budget_kind, cost_scale
        As in :func:`run_policy`.
    seeds : int or sequence of int
        ``n`` (seeds ``0..n-1``) or the seeds themselves.
    grid_points : int
        Points of the ``fraction`` grid.
    progress : bool
        Show a progress bar (needs tqdm).

    Returns
    -------
    xarray.Dataset
        ``regret`` over ``(policy, seed, fraction)`` where ``fraction`` is the share of all
        cells (``budget_kind="cells"``) or of the total cost (``"cost"``) spent, from 0 to
        ``budget``; ``regret_mean`` and ``regret_se`` (standard error over seeds);
        ``stop_fraction`` (policy, seed): where the policy's stopping signal
        (``Proposal.stop``) first fired, NaN if it did not; ``final_regret``; ``theta`` per
        arm.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive import GittinsPolicy, UCBEPolicy
    >>> from bayes_eval.adaptive.synthetic import BanditDataset, logistic_matrix
    >>> from bayes_eval.adaptive.simulation import simulate
    >>> R = logistic_matrix([0.3, 0.5, 0.7], 20, rng=np.random.default_rng(0))
    >>> data = BanditDataset("toy", R, np.ones(3), (0.5, 0.04), ("a", "b", "c"))
    >>> policies = {"Gittins": GittinsPolicy(granularity="cell"), "UCB-E": UCBEPolicy()}
    >>> ds = simulate(data, policies, batch_size=2, budget=0.5, seeds=2, grid_points=11)
    >>> dict(ds["regret"].sizes)
    {'policy': 2, 'seed': 2, 'fraction': 11}
    >>> ds["regret_mean"].sel(fraction=0.5).values.tolist()
    [0.0, 0.0]
    """
    policies = _specs(default_policies(dataset) if policies is None else policies)
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
    """Mean simple regret +- 2 SE per policy; dashed lines at the mean stopping point.

    Parameters
    ----------
    ds : xarray.Dataset
        The result of :func:`simulate`.
    path : str or Path
        Where to write the PNG.

    Returns
    -------
    pathlib.Path
        The path of the PNG written.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from bayes_eval.adaptive import UCBEPolicy
    >>> from bayes_eval.adaptive.synthetic import BanditDataset, logistic_matrix
    >>> from bayes_eval.adaptive.simulation import plot_regret, simulate
    >>> R = logistic_matrix([0.3, 0.5, 0.7], 20, rng=np.random.default_rng(0))
    >>> data = BanditDataset("toy", R, np.ones(3), (0.5, 0.04), ("a", "b", "c"))
    >>> ds = simulate(data, [UCBEPolicy()], batch_size=2, budget=0.5, seeds=2, grid_points=11)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = plot_regret(ds, folder + "/regret.png")
    ...     png.name, png.is_file()
    ('regret.png', True)
    """
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
