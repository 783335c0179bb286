"""Cost-aware Gittins-index evaluation as an ask/tell procedure (seed 003 §3, Algorithm 1).

Usage (a real evaluation loop)::

    state = init(n_arms=K, n_examples=N, prior_mean=0.5, prior_var=0.04, costs=prices,
                 cost_scale=1e-4, batch_size=16, seed=0)
    while budget_left(state):
        d = next(state)                       # which arm, how many examples, stop signal
        examples = examples_for(state, d.arm)  # random unobserved examples of that arm
        scores = run_my_eval(d.arm, examples)  # in [0, 1]
        state = observe(state, d.arm, scores)
    best = recommend(state)

Everything is explicit and immutable: ``observe`` returns a new state and never changes the
old one, and the only randomness (the order in which an arm's examples are drawn) comes from
``seed``, so a run replays exactly.

Model and index. Each arm's mean has the Gaussian posterior of eq. (2) with fixed per-example
noise ``cell_variance`` (1/4, the worst-case Bernoulli variance): a batch of ``b`` examples
with mean ``ybar`` updates ``mu <- mu + v/(v + cell_variance/b) (ybar - mu)``,
``v <- 1/(1/v + b/cell_variance)``. The index of an unfinished arm is ``mu - r_n`` with the
root schedule of :mod:`bayes_eval.adaptive.gittins_index` for the arm's stage cost and
prior variance; a completed arm's index is ``mu`` (Algorithm 1, line 5). ``granularity``
chooses the stage (a batch as in the paper's text, or a cell as in its experiments; see
:func:`bayes_eval.adaptive.gittins_index.stage_setup`).

Conventions (§2.2, §3.4):

* ``convention="optional"`` (the paper's experiments): the index is an anytime allocation
  rule; :func:`recommend` returns the arm with the largest posterior mean over **all** arms
  (never-pulled arms sit at their prior mean); the natural stopping signal (the top-index arm
  is completed) is reported in :class:`Decision` but evaluation may go on;
* ``convention="required"`` (Theorem 3.1): :func:`recommend` considers completed arms only,
  and ``Decision.stop`` is the optimal stopping time.

Beyond the paper (documented choices):

* ``posterior="beta"``: for 0/1 scores, the arm state is an exact Beta posterior
  ``Beta(a0 + successes, b0 + failures)`` (``a0, b0`` matched to ``prior_mean, prior_var``);
  the index uses its exact mean with the Gaussian root schedule (same ``v0``), so means stay
  in [0, 1] and the recommendation is the exact posterior mean;
* ``prior_counts``: arm-specific priors from earlier runs ``R0`` as ``(successes, trials)``
  per arm, i.e. the arm starts ``trials`` cells into the schedule; its root table is the one
  for its own prior variance (tables are cached, so arms with equal counts share one).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.adaptive.gittins_index import root_schedule, stage_setup

__all__ = [
    "Decision",
    "GittinsConfig",
    "GittinsState",
    "examples_for",
    "indices",
    "init",
    "next",
    "observe",
    "recommend",
]


@dataclass(frozen=True)
class GittinsConfig:
    """Static part of a run (shared by every state of the run)."""

    n_arms: int
    n_examples: int
    batch_size: int
    granularity: str
    convention: str
    posterior: str
    cell_variance: float
    horizon: int
    stage_examples: int
    cost_per_example: NDArray[np.float64]
    roots: NDArray[np.float64]  # (tables, horizon + 1), last column 0
    table_of_arm: NDArray[np.int64]
    seed: int
    grid_size: int


@dataclass(frozen=True)
class GittinsState:
    """Posterior and bookkeeping after some observations (read-only arrays)."""

    config: GittinsConfig
    mean: NDArray[np.float64]
    var: NDArray[np.float64]
    n_cells: NDArray[np.int64]
    beta_a: NDArray[np.float64] | None
    beta_b: NDArray[np.float64] | None
    cells: int = 0
    cost: float = 0.0
    steps: int = 0


@dataclass(frozen=True)
class Decision:
    """What :func:`next` proposes.

    ``arm`` is the unfinished arm with the largest index (ties: the first), ``n_examples``
    how many of its unobserved examples to evaluate, ``stop`` the Gittins stopping signal
    (the arm with the largest index overall is completed), ``done`` whether every arm is
    completed (then ``arm`` is -1).
    """

    arm: int
    n_examples: int
    index: float
    stop: bool
    done: bool


def _readonly(*arrays):
    for a in arrays:
        if a is not None:
            a.setflags(write=False)


def _per_arm(value: ArrayLike, K: int, name: str) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(K, float(arr))
    if arr.shape != (K,):
        raise ValueError(f"{name} has shape {arr.shape}; expected a scalar or ({K},) per arm.")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains a non-finite value.")
    return arr.copy()


def init(
    n_arms: int,
    n_examples: int,
    *,
    prior_mean: ArrayLike = 0.5,
    prior_var: ArrayLike = 0.04,
    costs: ArrayLike = 1.0,
    cost_scale: float = 1.0,
    batch_size: int = 1,
    granularity: str = "batch",
    convention: str = "optional",
    posterior: str = "gaussian",
    cell_variance: float = 0.25,
    prior_counts: ArrayLike | None = None,
    grid_size: int = 2**14,
    seed: int = 0,
) -> GittinsState:
    """Initial state of a Gittins-index evaluation (Algorithm 1, lines 1-3).

    Parameters
    ----------
    n_arms, n_examples : int
        ``K`` candidates and ``N`` examples per candidate (the per-arm horizon).
    prior_mean, prior_var : float or (K,) array
        Common prior ``N(mu_0, v_0)`` (general ``N(0.5, 0.04)``), or one per arm.
    costs : float or (K,) array
        Raw cost per example (e.g. USD per 1M tokens), scaled by ``cost_scale`` (lambda) into
        score units: effective cost per example ``c_k = cost_scale x costs_k``.
    batch_size : int
        ``B`` examples per pull.
    granularity : {"batch", "cell"}
        One DP stage per batch (``H = ceil(N/B)``, ``tau^2 = cell_variance/B``) or per cell
        (``H = N``, ``tau^2 = cell_variance``).
    convention : {"optional", "required"}
        Optional or required completion (module docstring).
    posterior : {"gaussian", "beta"}
        Gaussian eq. (2) (scores in [0, 1]) or exact Beta-Bernoulli (0/1 scores).
    cell_variance : float
        Fixed per-example observation variance (1/4 = worst-case Bernoulli).
    prior_counts : (K, 2) array, optional
        ``(successes, trials)`` per arm from earlier runs (``R0``), updating the prior.
    grid_size : int
        Grid of the root-schedule DP.
    seed : int
        Seed of the example order within each arm (:func:`examples_for`).
    """
    K, N = int(n_arms), int(n_examples)
    if K < 1 or K != n_arms:
        raise ValueError(f"n_arms is {n_arms!r}; expected a positive integer.")
    H, tau2, per_stage = stage_setup(
        N, batch_size, granularity=granularity, cell_variance=cell_variance
    )
    if convention not in ("optional", "required"):
        raise ValueError(f"convention is {convention!r}; expected 'optional' or 'required'.")
    if posterior not in ("gaussian", "beta"):
        raise ValueError(f"posterior is {posterior!r}; expected 'gaussian' or 'beta'.")
    if not (np.isfinite(cost_scale) and cost_scale >= 0):
        raise ValueError(f"cost_scale is {cost_scale!r}; expected a number >= 0.")
    m0 = _per_arm(prior_mean, K, "prior_mean")
    v0 = _per_arm(prior_var, K, "prior_var")
    if (v0 <= 0).any():
        raise ValueError("prior_var must be > 0 for every arm.")
    c = _per_arm(costs, K, "costs") * float(cost_scale)
    if (c < 0).any():
        raise ValueError("costs must be >= 0.")
    n0 = np.zeros(K)
    s0 = np.zeros(K)
    if prior_counts is not None:
        pc = np.asarray(prior_counts, dtype=np.float64)
        if pc.shape != (K, 2) or not np.isfinite(pc).all():
            raise ValueError(
                f"prior_counts has shape {pc.shape}; expected ({K}, 2) = "
                "(successes, trials) per arm."
            )
        s0, n0 = pc[:, 0], pc[:, 1]
        if (n0 < 0).any() or (s0 < 0).any() or (s0 > n0).any():
            raise ValueError("prior_counts needs 0 <= successes <= trials for every arm.")
    beta_a = beta_b = None
    if posterior == "gaussian":
        prec = 1.0 / v0 + n0 / cell_variance
        var = 1.0 / prec
        mean = var * (m0 / v0 + s0 / cell_variance)
    else:
        if ((m0 <= 0) | (m0 >= 1)).any() or (v0 >= m0 * (1 - m0)).any():
            raise ValueError(
                "posterior='beta' needs 0 < prior_mean < 1 and "
                "prior_var < prior_mean (1 - prior_mean)."
            )
        conc = m0 * (1 - m0) / v0 - 1.0
        beta_a, beta_b = m0 * conc + s0, (1 - m0) * conc + (n0 - s0)
        mean = beta_a / (beta_a + beta_b)
        tot = beta_a + beta_b
        var = beta_a * beta_b / (tot**2 * (tot + 1))
    # root tables: one per distinct (stage cost, prior variance of the new run)
    stage_cost = c * per_stage
    keys = np.stack([stage_cost, var], axis=1)
    uniq, table_of_arm = np.unique(keys, axis=0, return_inverse=True)
    roots = np.zeros((len(uniq), H + 1))
    for t, (cost_t, v_t) in enumerate(uniq):
        roots[t, :H] = root_schedule(float(cost_t), float(v_t), tau2, H, grid_size=grid_size).roots
    config = GittinsConfig(
        n_arms=K,
        n_examples=N,
        batch_size=int(batch_size),
        granularity=granularity,
        convention=convention,
        posterior=posterior,
        cell_variance=float(cell_variance),
        horizon=H,
        stage_examples=per_stage,
        cost_per_example=c,
        roots=roots,
        table_of_arm=table_of_arm.astype(np.int64).ravel(),
        seed=int(seed),
        grid_size=grid_size,
    )
    n_cells = np.zeros(K, dtype=np.int64)
    _readonly(
        config.cost_per_example,
        config.roots,
        config.table_of_arm,
        mean,
        var,
        n_cells,
        beta_a,
        beta_b,
    )
    return GittinsState(
        config=config, mean=mean, var=var, n_cells=n_cells, beta_a=beta_a, beta_b=beta_b
    )


def _stage(state: GittinsState) -> NDArray[np.int64]:
    cfg = state.config
    if cfg.granularity == "cell":
        return state.n_cells
    return -(-state.n_cells // cfg.batch_size)


def indices(state: GittinsState) -> NDArray[np.float64]:
    """``G_k = mu_k - r_{n_k}`` for unfinished arms, ``mu_k`` for completed ones (eq. 4)."""
    cfg = state.config
    stage = np.minimum(_stage(state), cfg.horizon)
    return state.mean - cfg.roots[cfg.table_of_arm, stage]


def next(state: GittinsState) -> Decision:
    """The arm to evaluate next (Algorithm 1, lines 5-13) and the stopping signal."""
    cfg = state.config
    g = indices(state)
    finished = state.n_cells >= cfg.n_examples
    top = int(np.argmax(g))
    stop = bool(finished[top])
    if finished.all():
        return Decision(arm=-1, n_examples=0, index=float(g[top]), stop=True, done=True)
    g_open = np.where(finished, -np.inf, g)
    arm = int(np.argmax(g_open))
    b = int(min(cfg.batch_size, cfg.n_examples - state.n_cells[arm]))
    return Decision(arm=arm, n_examples=b, index=float(g_open[arm]), stop=stop, done=False)


def observe(state: GittinsState, arm: int, outcome: ArrayLike) -> GittinsState:
    """New state after observing the scores ``outcome`` (one per example) of ``arm``."""
    cfg = state.config
    if not 0 <= int(arm) < cfg.n_arms or int(arm) != arm:
        raise ValueError(f"arm is {arm!r}; expected an integer in [0, {cfg.n_arms}).")
    arm = int(arm)
    y = np.atleast_1d(np.asarray(outcome, dtype=np.float64))
    b = y.size
    if b == 0 or y.ndim != 1 or not np.isfinite(y).all():
        raise ValueError("outcome must be a non-empty 1-D array of finite scores.")
    if state.n_cells[arm] + b > cfg.n_examples:
        raise ValueError(
            f"arm {arm} has {cfg.n_examples - state.n_cells[arm]} unobserved examples left; "
            f"got {b} scores."
        )
    mean, var, n_cells = state.mean.copy(), state.var.copy(), state.n_cells.copy()
    a, bb = state.beta_a, state.beta_b
    if cfg.posterior == "gaussian":
        tau2 = cfg.cell_variance / b
        gain = var[arm] / (var[arm] + tau2)
        mean[arm] += gain * (y.mean() - mean[arm])
        var[arm] = 1.0 / (1.0 / var[arm] + 1.0 / tau2)
    else:
        if ((y != 0) & (y != 1)).any():
            raise ValueError("posterior='beta' needs 0/1 scores.")
        a, bb = a.copy(), bb.copy()
        a[arm] += y.sum()
        bb[arm] += b - y.sum()
        tot = a[arm] + bb[arm]
        mean[arm] = a[arm] / tot
        var[arm] = a[arm] * bb[arm] / (tot**2 * (tot + 1))
    n_cells[arm] += b
    _readonly(mean, var, n_cells, a, bb)
    return replace(
        state,
        mean=mean,
        var=var,
        n_cells=n_cells,
        beta_a=a,
        beta_b=bb,
        cells=state.cells + b,
        cost=state.cost + b * float(cfg.cost_per_example[arm]),
        steps=state.steps + 1,
    )


def recommend(state: GittinsState) -> int:
    """Largest posterior mean: over all arms (optional completion) or completed arms
    (required completion; -1 while none is completed)."""
    if state.config.convention == "required":
        done = state.n_cells >= state.config.n_examples
        if not done.any():
            return -1
        return int(np.argmax(np.where(done, state.mean, -np.inf)))
    return int(np.argmax(state.mean))


def examples_for(state: GittinsState, arm: int, n: int | None = None) -> NDArray[np.int64]:
    """The next ``n`` (default: a batch) unobserved examples of ``arm``, in a random order
    fixed by the run's seed (each arm's examples are drawn without replacement)."""
    cfg = state.config
    n = cfg.batch_size if n is None else int(n)
    order = np.random.default_rng([cfg.seed, int(arm)]).permutation(cfg.n_examples)
    start = int(state.n_cells[arm])
    return order[start : builtins.min(start + n, cfg.n_examples)]
