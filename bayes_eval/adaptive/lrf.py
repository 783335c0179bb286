"""UCB-E-LRF baseline for adaptive evaluation, as a :class:`~bayes_eval.adaptive.protocol.Policy`.

UCB-E-LRF (Zhou et al., "On Speeding Up Language Model Evaluation"), as run in the
experiments of Xie, He and Cao ("Efficient Cost-Aware LLM Evaluation via Bayesian Bandit
Gittins Indices", §4): the first ``warmup`` fraction of cells (5%) is sampled uniformly at
random; afterwards an ensemble of ``ensemble`` (64) rank-1 factorisations ``Y ~ u v^T`` is
fitted by alternating least squares (``iterations`` = 10, ridge ``reg`` = 0.1, each member on
the observed cells with a random ``drop`` = 5% left out). Each arm's estimate is its row mean
with unobserved cells filled by the member's prediction; the bound is the ensemble mean of
that estimate plus ``bonus`` (5) ensemble standard deviations; the chosen arm's examples are
the unobserved ones with the largest predictive standard deviation. The recommendation is the
largest ensemble-mean estimate.

Documented choices: the ensemble is fitted when a state is made (by ``init`` or ``observe``),
so ``propose`` and ``recommend`` read the fit of the state's own observations; it is
refitted every ``refit_every`` observations (1 = every one, as in the paper; larger values
warm-start from the last fit); predictions are clipped to [0, 1]. Randomness is keyed by
``(seed, steps)`` (the warm-up choices and each fit's initial values and left-out cells), so
the state never holds a generator and a run replays exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.adaptive.protocol import Proposal, check_outcomes, check_proposal

__all__ = ["LRFPolicy", "LRFState"]


class LRFState(NamedTuple):
    """Observed cells (NaN = unobserved) and the ensemble fit (read-only arrays).

    Attributes
    ----------
    observed : (K, N) array
        Observed scores, NaN where unobserved.
    batch_size, warmup_cells, ensemble, iterations : int
        ``B``; cells sampled at random before the first fit; ensemble size; ALS sweeps.
    reg, drop, bonus : float
        Ridge penalty, share of cells each member leaves out, bonus in standard deviations.
    refit_every, seed : int
        Observations between fits; key of every random choice.
    u, v : (E, K) and (E, N) arrays or None
        The last fit (None before the first).
    fitted_at, cells, steps : int
        Step of the last fit; examples observed and observations made so far.

    Examples
    --------
    >>> from bayes_eval.adaptive.lrf import LRFPolicy
    >>> state = LRFPolicy(ensemble=8).init(3, 8, batch_size=2, seed=0)
    >>> state.observed.shape, state.warmup_cells, state.u is None
    ((3, 8), 2, True)
    """

    observed: NDArray[np.float64]
    batch_size: int
    warmup_cells: int
    ensemble: int
    iterations: int
    reg: float
    drop: float
    bonus: float
    refit_every: int
    seed: int
    u: NDArray[np.float64] | None = None
    v: NDArray[np.float64] | None = None
    fitted_at: int = -1
    cells: int = 0
    steps: int = 0


def _fit(state: LRFState) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Alternating least squares of every member at once (einsum over the ensemble)."""
    rng = np.random.default_rng([state.seed, state.steps])
    seen = ~np.isnan(state.observed)
    E, (K, N) = state.ensemble, state.observed.shape
    mask = seen[None] & (rng.random((E, K, N)) >= state.drop)
    y = np.where(seen, state.observed, 0.0)
    my = mask * y[None]
    if state.u is None:
        u = rng.uniform(0.3, 0.9, (E, K))
        v = rng.uniform(0.3, 0.9, (E, N))
    else:  # warm start from the previous fit
        assert state.v is not None  # fitted together with u
        u, v = state.u, state.v
    for _ in range(state.iterations):
        u = np.einsum("ekn,en->ek", my, v) / (np.einsum("ekn,en->ek", mask, v * v) + state.reg)
        v = np.einsum("ekn,ek->en", my, u) / (np.einsum("ekn,ek->en", mask, u * u) + state.reg)
    u.setflags(write=False)
    v.setflags(write=False)
    return u, v


def _with_fit(state: LRFState) -> LRFState:
    """The state with a fresh fit if one is due (after the warm-up, every ``refit_every``)."""
    if state.cells < state.warmup_cells:
        return state
    if state.u is not None and state.steps - state.fitted_at < state.refit_every:
        return state
    u, v = _fit(state)
    return state._replace(u=u, v=v, fitted_at=state.steps)


def _estimates(state: LRFState) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per member: predicted cells (E, K, N) and arm estimates (E, K)."""
    assert state.u is not None and state.v is not None  # called on a fitted state only
    pred = np.clip(state.u[:, :, None] * state.v[:, None, :], 0.0, 1.0)
    seen = ~np.isnan(state.observed)
    filled = np.where(seen[None], np.nan_to_num(state.observed)[None], pred)
    return pred, filled.mean(axis=2)


@dataclass(frozen=True)
class LRFPolicy:
    """UCB-E-LRF (module docstring); follows :class:`~bayes_eval.adaptive.protocol.Policy`.

    Parameters
    ----------
    warmup : float
        Share of all cells sampled uniformly at random before the first fit, in [0, 1).
    ensemble : int
        Members of the ensemble (>= 2).
    iterations : int
        Alternating-least-squares sweeps per fit.
    reg : float
        Ridge penalty of each least-squares step.
    drop : float
        Share of the observed cells each member leaves out.
    bonus : float
        Ensemble standard deviations added to the ensemble mean in the bound.
    refit_every : int
        Observations between fits (1 = every observation).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive import LRFPolicy
    >>> rng = np.random.default_rng(0)
    >>> R = (rng.random((3, 8)) < np.array([[0.3], [0.5], [0.8]])).astype(float)
    >>> policy = LRFPolicy(ensemble=8)
    >>> state = policy.init(3, 8, batch_size=2, seed=0)
    >>> for _ in range(8):
    ...     proposal = policy.propose(state)
    ...     state = policy.observe(state, proposal, R[proposal.arm, proposal.examples])
    >>> state.cells, state.u.shape, policy.recommend(state)
    (16, (8, 3), 2)
    """

    warmup: float = 0.05
    ensemble: int = 64
    iterations: int = 10
    reg: float = 0.1
    drop: float = 0.05
    bonus: float = 5.0
    refit_every: int = 1

    def __post_init__(self) -> None:
        if (
            not 0 <= self.warmup < 1
            or self.ensemble < 2
            or self.iterations < 1
            or self.refit_every < 1
        ):
            raise ValueError(
                "need 0 <= warmup < 1, ensemble >= 2, iterations >= 1, refit_every >= 1."
            )

    def init(
        self,
        n_arms: int,
        n_examples: int,
        *,
        batch_size: int = 1,
        costs: ArrayLike = 1.0,
        cost_scale: float = 1.0,
        seed: int = 0,
    ) -> LRFState:
        """Initial state: nothing observed (fitted at once if ``warmup`` is 0).

        Parameters
        ----------
        n_arms, n_examples, batch_size : int
            ``K``, ``N`` and ``B`` (``1 <= B <= N``).
        costs, cost_scale : float or array
            Ignored (UCB-E-LRF does not weigh costs).
        seed : int
            Key of the warm-up choices and of the fits.

        Returns
        -------
        LRFState
        """
        if n_arms < 1 or n_examples < 1 or not 1 <= batch_size <= n_examples:
            raise ValueError("need n_arms >= 1, n_examples >= 1 and 1 <= batch_size <= n_examples.")
        obs = np.full((n_arms, n_examples), np.nan)
        obs.setflags(write=False)
        state = LRFState(
            obs,
            int(batch_size),
            int(np.ceil(self.warmup * n_arms * n_examples)),
            int(self.ensemble),
            int(self.iterations),
            float(self.reg),
            float(self.drop),
            float(self.bonus),
            int(self.refit_every),
            int(seed),
        )
        return _with_fit(state)

    def propose(self, state: LRFState) -> Proposal:
        """A random open arm during the warm-up, afterwards the arm with the largest bound.

        During the warm-up: a random open arm and random unobserved examples; afterwards: the
        arm with the largest bound and its most uncertain unobserved examples (``arm = -1``
        when every cell is observed).
        """
        seen = ~np.isnan(state.observed)
        open_arms = ~seen.all(axis=1)
        if not open_arms.any():
            return Proposal.done(stop=False)
        if state.u is None:  # warm-up
            rng = np.random.default_rng([state.seed, state.steps, 1])
            arm = int(rng.choice(np.flatnonzero(open_arms)))
            free = np.flatnonzero(~seen[arm])
            ex = rng.choice(free, size=min(state.batch_size, free.size), replace=False)
            return Proposal(arm, np.sort(ex))
        pred, est = _estimates(state)
        bound = est.mean(axis=0) + state.bonus * est.std(axis=0, ddof=1)
        arm = int(np.argmax(np.where(open_arms, bound, -np.inf)))
        sd = pred[:, arm, :].std(axis=0, ddof=1)
        sd = np.where(seen[arm], -np.inf, sd)
        k = min(state.batch_size, int((~seen[arm]).sum()))
        return Proposal(arm, np.sort(np.argsort(-sd, kind="stable")[:k]))

    def observe(self, state: LRFState, proposal: Proposal, outcomes: ArrayLike) -> LRFState:
        """New state after the scores ``outcomes`` of ``proposal``, refitted if due.

        Raises
        ------
        ValueError
            If the proposal asks for an observed example, or the outcomes are not one score
            in [0, 1] per example.
        """
        K, N = state.observed.shape
        arm, ex = check_proposal(proposal, K, N)
        if not np.isnan(state.observed[arm, ex]).all():
            raise ValueError(
                f"proposal examples of arm {arm} include an observed example; propose only "
                "unobserved ones."
            )
        y = check_outcomes(outcomes, ex.size)
        obs = state.observed.copy()
        obs[arm, ex] = y
        obs.setflags(write=False)
        new = state._replace(observed=obs, cells=state.cells + ex.size, steps=state.steps + 1)
        return _with_fit(new)

    def recommend(self, state: LRFState) -> int:
        """Largest ensemble-mean estimate (observed cells plus predictions).

        Before the first fit, the best observed row mean (arm 0 before any observation).
        """
        seen = ~np.isnan(state.observed)
        if state.u is None:
            n = seen.sum(axis=1)
            if not (n > 0).any():
                return 0
            with np.errstate(invalid="ignore", divide="ignore"):
                m = np.where(n > 0, np.nansum(state.observed, axis=1) / n, -np.inf)
            return int(np.argmax(m))
        return int(np.argmax(_estimates(state)[1].mean(axis=0)))
