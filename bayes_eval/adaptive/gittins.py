"""Cost-aware Gittins-index evaluation, as a :class:`~bayes_eval.adaptive.protocol.Policy`.

Algorithm 1 of Xie, He and Cao, "Efficient Cost-Aware LLM Evaluation via Bayesian Bandit
Gittins Indices".

Usage (a real evaluation loop)::

    policy = GittinsPolicy(belief_mean=0.5, belief_var=0.04)
    state = policy.init(K, N, batch_size=16, costs=prices, cost_scale=1e-4, seed=0)
    while True:
        proposal = policy.propose(state)       # arm, random unobserved examples, stop signal
        if proposal.arm < 0 or proposal.stop:  # everything observed, or Gittins says stop
            break
        scores = run_my_eval(proposal.arm, proposal.examples)  # in [0, 1]
        state = policy.observe(state, proposal, scores)
    best = policy.recommend(state)

Everything is explicit and immutable: ``observe`` returns a new state and never changes the
old one, and the only randomness (the order in which an arm's examples are drawn,
:func:`~bayes_eval.adaptive.protocol.example_order`) comes from ``seed``, so a run replays
exactly.

Model and index. Each arm's mean has the Gaussian posterior of the paper's eq. (2) with fixed
per-example noise ``cell_variance`` (1/4, the worst-case Bernoulli variance): a batch of ``b``
examples with mean ``ybar`` updates ``mu <- mu + v/(v + cell_variance/b) (ybar - mu)``,
``v <- 1/(1/v + b/cell_variance)``. The index of an unfinished arm is ``mu - r_n`` with the
root schedule of :mod:`bayes_eval.adaptive.gittins_index` for the arm's stage cost and prior
variance; a completed arm's index is ``mu`` (Algorithm 1, line 5). ``granularity`` chooses
the stage (a batch as in the paper's text, or a cell as in its experiments; see
:func:`bayes_eval.adaptive.gittins_index.stage_setup`).

Conventions (the paper's §2.2 and §3.4):

* ``convention="optional"`` (the paper's experiments): the index is an anytime allocation
  rule; ``recommend`` returns the arm with the largest posterior mean over **all** arms
  (never-pulled arms sit at their prior mean); the natural stopping signal (the top-index arm
  is completed) is reported as ``Proposal.stop`` but evaluation may go on;
* ``convention="required"`` (the paper's Theorem 3.1): ``recommend`` considers completed arms
  only, and ``Proposal.stop`` is the optimal stopping time.

Beyond the paper (documented choices):

* ``posterior="beta"``: for 0/1 scores, the arm state is an exact Beta posterior
  ``Beta(a0 + successes, b0 + failures)`` (``a0, b0`` matched to ``belief_mean, belief_var``);
  the index uses its exact mean with the Gaussian root schedule (same ``v0``), so means stay
  in [0, 1] and the recommendation is the exact posterior mean;
* ``earlier_counts``: arm-specific priors from earlier runs ``R0`` as ``(successes, trials)``
  per arm, i.e. the arm starts ``trials`` cells into the schedule; its root table is the one
  for its own prior variance (tables are cached, so arms with equal counts share one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.adaptive.gittins_index import root_schedule, stage_setup
from bayes_eval.adaptive.protocol import (
    Proposal,
    check_outcomes,
    check_proposal,
    example_order,
)

__all__ = ["GittinsCache", "GittinsConfig", "GittinsPolicy", "GittinsState", "indices"]


class GittinsConfig(NamedTuple):
    """Static part of a run, shared by every state of the run (read-only arrays).

    Attributes
    ----------
    n_arms, n_examples, batch_size : int
        ``K``, ``N`` and ``B``.
    granularity, convention, posterior : str
        As in :class:`GittinsPolicy`.
    cell_variance : float
        Per-example observation variance.
    horizon, stage_examples : int
        ``H`` stages of ``stage_examples`` examples each.
    cost_per_example : (K,) array
        Effective cost per example in score units (``cost_scale x costs``).
    roots : (tables, H + 1) array
        Root schedules, one per distinct (stage cost, prior variance); last column 0.
    table_of_arm : (K,) int array
        Row of ``roots`` used by each arm.
    order : (K, N) int array
        The order in which each arm's examples are proposed.
    seed, grid_size : int
        Seed of ``order``; grid of the root-schedule program.

    Examples
    --------
    >>> from bayes_eval.adaptive.gittins import GittinsPolicy
    >>> config = GittinsPolicy().init(3, 8, batch_size=4, cost_scale=1e-3).config
    >>> config.horizon, config.stage_examples, config.roots.shape
    (2, 4, (1, 3))
    """

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
    roots: NDArray[np.float64]
    table_of_arm: NDArray[np.int64]
    order: NDArray[np.int64]
    seed: int
    grid_size: int


class GittinsState(NamedTuple):
    """Posterior and bookkeeping after some observations (read-only arrays).

    Attributes
    ----------
    config : GittinsConfig
        Static part of the run.
    mean, var : (K,) arrays
        Posterior mean and variance of each arm's accuracy.
    n_cells : (K,) int array
        Observed examples per arm.
    beta_a, beta_b : (K,) arrays or None
        Beta parameters (``posterior="beta"`` only).
    cells, cost, steps : int, float, int
        Examples observed, cost spent (score units) and observations made so far.
    cache : GittinsCache or None
        The index for this ``mean`` and ``n_cells``, kept by :meth:`GittinsPolicy.init` and
        :meth:`GittinsPolicy.observe` (one arm changes per step), so that
        :meth:`GittinsPolicy.propose` is one ``argmax``. It is used only while it refers to
        this very ``mean`` and ``n_cells`` (an identity check, in constant time); for a state
        built by hand or with ``_replace`` the index is recomputed (:func:`indices`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive.gittins import GittinsPolicy
    >>> policy = GittinsPolicy()
    >>> state = policy.init(3, 8, batch_size=4, cost_scale=1e-3, seed=0)
    >>> proposal = policy.propose(state)
    >>> state = policy.observe(state, proposal, np.array([0.0, 0.0, 1.0, 0.0]))
    >>> state.mean.round(4).tolist(), state.n_cells.tolist(), state.cells, state.steps
    ([0.4024, 0.5, 0.5], [4, 0, 0], 4, 1)
    """

    config: GittinsConfig
    mean: NDArray[np.float64]
    var: NDArray[np.float64]
    n_cells: NDArray[np.int64]
    beta_a: NDArray[np.float64] | None
    beta_b: NDArray[np.float64] | None
    cells: int = 0
    cost: float = 0.0
    steps: int = 0
    cache: GittinsCache | None = None


class GittinsCache(NamedTuple):
    """What :meth:`GittinsPolicy.propose` needs, kept up to date by ``init`` and ``observe``.

    Attributes
    ----------
    mean, n_cells : (K,) arrays
        The very arrays (by identity) of the state the cache belongs to.
    open_index : (K,) array
        :func:`indices` of the unfinished arms, ``-inf`` for the completed ones (read-only).
    done_arm : int
        The first completed arm with the largest index (-1 while none is completed).
    done_index : float
        Its index, its posterior mean (``-inf`` while none is completed).

    Examples
    --------
    >>> from bayes_eval.adaptive.gittins import GittinsPolicy
    >>> cache = GittinsPolicy().init(3, 8, batch_size=4, cost_scale=1e-3).cache
    >>> cache.open_index.round(4).tolist(), cache.done_arm
    ([0.7146, 0.7146, 0.7146], -1)
    """

    mean: NDArray[np.float64]
    n_cells: NDArray[np.int64]
    open_index: NDArray[np.float64]
    done_arm: int
    done_index: float


def _readonly(*arrays: np.ndarray | None) -> None:
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


def _stage(state: GittinsState) -> NDArray[np.int64]:
    cfg = state.config
    if cfg.granularity == "cell":
        return state.n_cells
    return -(-state.n_cells // cfg.batch_size)


def _check_state(state: object) -> GittinsState:
    """The state, if it is a :class:`GittinsState`.

    A constant-time check: the arrays were validated by :meth:`GittinsPolicy.init` and are
    read-only.
    """
    if type(state) is not GittinsState:
        raise ValueError(
            f"state is a {type(state).__name__}; expected the GittinsState returned by "
            "GittinsPolicy.init or observe."
        )
    return state


def _cache_of(state: GittinsState) -> GittinsCache:
    """The state's cache when it belongs to the state, else one computed from the state.

    The cache is used when it belongs to this very ``mean`` and ``n_cells`` (identity: the
    arrays are read-only); otherwise it is computed from the state (:func:`indices`).
    """
    c = state.cache
    if c is not None and c.mean is state.mean and c.n_cells is state.n_cells:
        return c
    g = indices(state)
    done = state.n_cells >= state.config.n_examples
    open_index = np.where(done, -np.inf, g)
    open_index.setflags(write=False)
    done_g = np.where(done, g, -np.inf)
    j = int(done_g.argmax())
    if done_g[j] == -np.inf:
        return GittinsCache(state.mean, state.n_cells, open_index, -1, -np.inf)
    return GittinsCache(state.mean, state.n_cells, open_index, j, float(done_g[j]))


def indices(state: GittinsState) -> NDArray[np.float64]:
    """Gittins index of every arm (the paper's eq. 4).

    Parameters
    ----------
    state : GittinsState
        A state of :class:`GittinsPolicy` (from ``init`` or ``observe``).

    Returns
    -------
    numpy.ndarray of float, shape (K,)
        ``G_k = mu_k - r_{n_k}`` for unfinished arms, ``mu_k`` for completed ones.

    Examples
    --------
    >>> from bayes_eval.adaptive.gittins import GittinsPolicy, indices
    >>> state = GittinsPolicy().init(3, 8, batch_size=4, cost_scale=1e-3, seed=0)
    >>> indices(state).round(4).tolist()
    [0.7146, 0.7146, 0.7146]
    """
    cfg = state.config
    stage = np.minimum(_stage(state), cfg.horizon)
    return state.mean - cfg.roots[cfg.table_of_arm, stage]


@dataclass(frozen=True, eq=False)
class GittinsPolicy:
    """The cost-aware Gittins-index policy (module docstring).

    Follows :class:`~bayes_eval.adaptive.protocol.Policy`.

    Parameters
    ----------
    belief_mean, belief_var : float or (K,) array
        Common prior ``N(mu_0, v_0)`` (the paper's general prior is ``N(0.5, 0.04)``), or one
        per arm.
    granularity : {"batch", "cell"}
        One program stage per batch (``H = ceil(N/B)``, ``tau^2 = cell_variance/B``) or per
        cell (``H = N``, ``tau^2 = cell_variance``).
    convention : {"optional", "required"}
        Optional or required completion (module docstring).
    posterior : {"gaussian", "beta"}
        Gaussian eq. (2) (scores in [0, 1]) or exact Beta-Bernoulli (0/1 scores).
    cell_variance : float
        Fixed per-example observation variance (1/4 = worst-case Bernoulli).
    earlier_counts : (K, 2) array, optional
        ``(successes, trials)`` per arm from earlier runs (``R0``), updating the prior.
    cost_aware : bool
        Weigh the per-arm ``costs`` given to :meth:`init`; ``False`` gives every arm a unit
        cost (``cost_scale`` per example).
    grid_size : int
        Grid of the root-schedule program.

    See Also
    --------
    bayes_eval.adaptive.simulation.simulate : Simple regret of policies on a response matrix.

    Examples
    --------
    Evaluate three arms on a 0/1 response matrix ``R`` (arms x examples) until the Gittins
    stopping signal:

    >>> import numpy as np
    >>> from bayes_eval.adaptive import GittinsPolicy
    >>> rng = np.random.default_rng(0)
    >>> R = (rng.random((3, 8)) < np.array([[0.3], [0.5], [0.8]])).astype(float)
    >>> policy = GittinsPolicy(belief_mean=0.5, belief_var=0.04)
    >>> state = policy.init(3, 8, batch_size=4, costs=1.0, cost_scale=1e-3, seed=0)
    >>> while True:
    ...     proposal = policy.propose(state)
    ...     if proposal.arm < 0 or proposal.stop:
    ...         break
    ...     state = policy.observe(state, proposal, R[proposal.arm, proposal.examples])
    >>> policy.recommend(state), state.n_cells.tolist()
    (2, [4, 4, 8])
    """

    belief_mean: ArrayLike = 0.5
    belief_var: ArrayLike = 0.04
    granularity: str = "batch"
    convention: str = "optional"
    posterior: str = "gaussian"
    cell_variance: float = 0.25
    earlier_counts: ArrayLike | None = None
    cost_aware: bool = True
    grid_size: int = 2**14

    def __post_init__(self) -> None:
        if self.granularity not in ("batch", "cell"):
            raise ValueError(
                f"granularity is {str(self.granularity)!r}; expected 'batch' or 'cell'."
            )
        if self.convention not in ("optional", "required"):
            raise ValueError(
                f"convention is {str(self.convention)!r}; expected 'optional' or 'required'."
            )
        if self.posterior not in ("gaussian", "beta"):
            raise ValueError(
                f"posterior is {str(self.posterior)!r}; expected 'gaussian' or 'beta'."
            )
        if not (np.isfinite(self.cell_variance) and self.cell_variance > 0):
            raise ValueError(f"cell_variance is {self.cell_variance}; expected a number > 0.")

    def init(
        self,
        n_arms: int,
        n_examples: int,
        *,
        batch_size: int = 1,
        costs: ArrayLike = 1.0,
        cost_scale: float = 1.0,
        seed: int = 0,
    ) -> GittinsState:
        """Initial state (Algorithm 1, lines 1-3).

        Parameters
        ----------
        n_arms, n_examples : int
            ``K`` candidates and ``N`` examples per candidate (the per-arm horizon).
        batch_size : int
            ``B`` examples per proposal.
        costs : float or (K,) array
            Raw cost per example (e.g. USD per 1M tokens), scaled by ``cost_scale``
            (lambda) into score units: effective cost per example
            ``c_k = cost_scale x costs_k`` (``cost_scale`` alone if not ``cost_aware``).
        cost_scale : float
            Lambda, >= 0.
        seed : int
            Seed of the order in which each arm's examples are proposed.

        Returns
        -------
        GittinsState
        """
        K, N = int(n_arms), int(n_examples)
        if K < 1 or K != n_arms:
            raise ValueError(f"n_arms is {n_arms}; expected a positive integer.")
        H, tau2, per_stage = stage_setup(
            N, batch_size, granularity=self.granularity, cell_variance=self.cell_variance
        )
        if not (np.isfinite(cost_scale) and cost_scale >= 0):
            raise ValueError(f"cost_scale is {cost_scale}; expected a number >= 0.")
        m0 = _per_arm(self.belief_mean, K, "belief_mean")
        v0 = _per_arm(self.belief_var, K, "belief_var")
        if (v0 <= 0).any():
            raise ValueError("belief_var must be > 0 for every arm.")
        c = _per_arm(costs if self.cost_aware else 1.0, K, "costs") * float(cost_scale)
        if (c < 0).any():
            raise ValueError("costs must be >= 0.")
        mean, var, beta_a, beta_b = self._prior(m0, v0, K)
        # root tables: one per distinct (stage cost, prior variance of the new run)
        keys = np.stack([c * per_stage, var], axis=1)
        uniq, table_of_arm = np.unique(keys, axis=0, return_inverse=True)
        roots = np.zeros((len(uniq), H + 1))
        for t, (cost_t, v_t) in enumerate(uniq):
            rs = root_schedule(float(cost_t), float(v_t), tau2, H, grid_size=self.grid_size)
            roots[t, :H] = rs.roots
        config = GittinsConfig(
            n_arms=K,
            n_examples=N,
            batch_size=int(batch_size),
            granularity=self.granularity,
            convention=self.convention,
            posterior=self.posterior,
            cell_variance=float(self.cell_variance),
            horizon=H,
            stage_examples=per_stage,
            cost_per_example=c,
            roots=roots,
            table_of_arm=table_of_arm.astype(np.int64).ravel(),
            order=example_order(K, N, seed),
            seed=int(seed),
            grid_size=self.grid_size,
        )
        n_cells = np.zeros(K, dtype=np.int64)
        _readonly(c, roots, config.table_of_arm, mean, var, n_cells, beta_a, beta_b)
        state = GittinsState(config, mean, var, n_cells, beta_a, beta_b)
        return state._replace(cache=_cache_of(state))

    def _prior(
        self, m0: NDArray[np.float64], v0: NDArray[np.float64], K: int
    ) -> tuple[
        NDArray[np.float64],
        NDArray[np.float64],
        NDArray[np.float64] | None,
        NDArray[np.float64] | None,
    ]:
        """Posterior after ``earlier_counts``: ``(mean, var, beta_a, beta_b)``."""
        n0 = np.zeros(K)
        s0 = np.zeros(K)
        if self.earlier_counts is not None:
            pc = np.asarray(self.earlier_counts, dtype=np.float64)
            if pc.shape != (K, 2) or not np.isfinite(pc).all():
                raise ValueError(
                    f"earlier_counts has shape {pc.shape}; expected ({K}, 2) = "
                    "(successes, trials) per arm."
                )
            s0, n0 = pc[:, 0], pc[:, 1]
            if (n0 < 0).any() or (s0 < 0).any() or (s0 > n0).any():
                raise ValueError("earlier_counts needs 0 <= successes <= trials for every arm.")
        if self.posterior == "gaussian":
            var = 1.0 / (1.0 / v0 + n0 / self.cell_variance)
            return var * (m0 / v0 + s0 / self.cell_variance), var, None, None
        if ((m0 <= 0) | (m0 >= 1)).any() or (v0 >= m0 * (1 - m0)).any():
            raise ValueError(
                "posterior='beta' needs 0 < belief_mean < 1 and "
                "belief_var < belief_mean (1 - belief_mean)."
            )
        conc = m0 * (1 - m0) / v0 - 1.0
        beta_a, beta_b = m0 * conc + s0, (1 - m0) * conc + (n0 - s0)
        tot = beta_a + beta_b
        return beta_a / tot, beta_a * beta_b / (tot**2 * (tot + 1)), beta_a, beta_b

    def propose(self, state: GittinsState) -> Proposal:
        """The unfinished arm with the largest index and its next unobserved examples.

        Ties go to the first such arm (Algorithm 1, lines 5-13).

        One ``argmax`` over the cached index of the unfinished arms (:class:`GittinsCache`),
        compared with the best completed arm's for the stopping signal.

        Returns
        -------
        Proposal
            ``stop`` is the Gittins stopping signal (the arm with the largest index overall
            is completed); ``arm = -1`` when every arm is completed.

        Raises
        ------
        ValueError
            If ``state`` is not a :class:`GittinsState`.
        """
        cfg = _check_state(state).config
        c = _cache_of(state)
        arm = int(c.open_index.argmax())
        top = float(c.open_index[arm])
        if top == -np.inf:
            return Proposal.done(stop=True)
        # ties go to the first arm, as an argmax over every arm's index would
        stop = c.done_index > top or (c.done_index == top and c.done_arm < arm)
        start = int(state.n_cells[arm])
        b = min(cfg.batch_size, cfg.n_examples - start)
        return Proposal(arm, cfg.order[arm, start : start + b], stop)

    def observe(self, state: GittinsState, proposal: Proposal, outcomes: ArrayLike) -> GittinsState:
        """New state after the scores ``outcomes`` of ``proposal`` (conjugate update).

        Only the observed arm changes: its posterior, its cell count and its index in the
        cache (the other arms' entries are copied).

        Raises
        ------
        ValueError
            If ``state`` is not a :class:`GittinsState`, the proposal is not the arm's next
            unobserved examples (as :meth:`propose` gives them, or a prefix), or the outcomes
            are not one score in [0, 1] per example (0/1 for ``posterior="beta"``).
        """
        cfg = _check_state(state).config
        arm, ex = check_proposal(
            proposal, cfg.n_arms, cfg.n_examples, taken=state.n_cells, order=cfg.order
        )
        y = check_outcomes(outcomes, ex.size)
        b = y.size
        c = _cache_of(state)
        open_index = c.open_index.copy()
        mean, var, n_cells = state.mean.copy(), state.var.copy(), state.n_cells.copy()
        a, bb = state.beta_a, state.beta_b
        if cfg.posterior == "gaussian":
            m, v = float(mean[arm]), float(var[arm])
            tau2 = cfg.cell_variance / b
            gain = v / (v + tau2)
            mean[arm] = m + gain * (float(np.add.reduce(y)) / b - m)
            var[arm] = 1.0 / (1.0 / v + 1.0 / tau2)
        else:
            if ((y != 0) & (y != 1)).any():
                raise ValueError("posterior='beta' needs 0/1 scores.")
            assert a is not None and bb is not None  # the beta posterior keeps a and b
            a, bb = a.copy(), bb.copy()
            a[arm] += y.sum()
            bb[arm] += b - y.sum()
            tot = a[arm] + bb[arm]
            mean[arm] = a[arm] / tot
            var[arm] = a[arm] * bb[arm] / (tot**2 * (tot + 1))
        done = int(n_cells[arm]) + b
        n_cells[arm] = done
        stage = done if cfg.granularity == "cell" else -(-done // cfg.batch_size)
        g = float(mean[arm] - cfg.roots[cfg.table_of_arm[arm], min(stage, cfg.horizon)])
        done_arm, done_index = c.done_arm, c.done_index
        if done < cfg.n_examples:
            open_index[arm] = g
        else:  # completed: its index (its posterior mean) stays from now on
            open_index[arm] = -np.inf
            if g > done_index or (g == done_index and arm < done_arm):
                done_arm, done_index = arm, g
        for arr in (mean, var, n_cells, open_index):
            arr.setflags(write=False)
        if a is not state.beta_a:
            _readonly(a, bb)
        return GittinsState(
            cfg,
            mean,
            var,
            n_cells,
            a,
            bb,
            state.cells + b,
            state.cost + b * float(cfg.cost_per_example[arm]),
            state.steps + 1,
            GittinsCache(mean, n_cells, open_index, done_arm, done_index),
        )

    def recommend(self, state: GittinsState) -> int:
        """Largest posterior mean, over all arms or over the completed arms.

        Over all arms under optional completion; over the completed arms under required
        completion (-1 while none is completed).
        """
        if state.config.convention == "required":
            done = state.n_cells >= state.config.n_examples
            if not done.any():
                return -1
            return int(np.argmax(np.where(done, state.mean, -np.inf)))
        return int(np.argmax(state.mean))
