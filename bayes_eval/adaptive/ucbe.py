"""UCB-E baseline for adaptive evaluation, as a :class:`~bayes_eval.adaptive.protocol.Policy`.

UCB-E (Audibert, Bubeck and Munos, "Best Arm Identification in Multi-Armed Bandits"), as
run by Xie, He and Cao ("Efficient Cost-Aware LLM Evaluation via Bayesian Bandit Gittins
Indices", §4): the bound of arm ``k`` is ``mean_k + sqrt(a / n_k)`` with ``n_k`` counted in
cells and ``a = 1`` (``exploration``); arms never pulled come first (bound ``+inf``, ties to
the first), completed arms are excluded; a proposal is the next ``B`` examples of the arm in
a random order fixed by the seed (:func:`~bayes_eval.adaptive.protocol.example_order`); the
recommendation is the best empirical mean among observed arms. Costs are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.adaptive.protocol import (
    Proposal,
    check_outcomes,
    check_proposal,
    example_order,
)

__all__ = ["UCBEPolicy", "UCBEState", "bounds"]


class UCBEState(NamedTuple):
    """Per-arm sums and counts of observed cells (read-only arrays).

    Attributes
    ----------
    n_examples, batch_size : int
        ``N`` examples per arm and ``B`` examples per proposal.
    exploration : float
        ``a`` of the bound.
    order : (K, N) int array
        The order in which each arm's examples are proposed.
    sums, counts : (K,) arrays
        Sum of the observed scores and number of observed examples per arm.
    cells, steps : int
        Examples observed and observations made so far.

    Examples
    --------
    >>> from bayes_eval.adaptive.ucbe import UCBEPolicy
    >>> state = UCBEPolicy().init(3, 8, batch_size=2, seed=0)
    >>> state.counts.tolist(), state.order.shape
    ([0, 0, 0], (3, 8))
    """

    n_examples: int
    batch_size: int
    exploration: float
    order: NDArray[np.int64]
    sums: NDArray[np.float64]
    counts: NDArray[np.int64]
    cells: int = 0
    steps: int = 0


def bounds(state: UCBEState) -> NDArray[np.float64]:
    """Upper confidence bounds of every arm.

    Parameters
    ----------
    state : UCBEState
        A state of :class:`UCBEPolicy` (from ``init`` or ``observe``).

    Returns
    -------
    numpy.ndarray of float, shape (K,)
        ``mean + sqrt(a / n)``; ``+inf`` for unpulled arms, ``-inf`` for completed ones.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive.ucbe import UCBEPolicy, bounds
    >>> policy = UCBEPolicy()
    >>> state = policy.init(3, 8, batch_size=2, seed=0)
    >>> bounds(state).tolist()
    [inf, inf, inf]
    >>> state = policy.observe(state, policy.propose(state), np.array([1.0, 0.0]))
    >>> bounds(state).round(4).tolist()
    [1.2071, inf, inf]
    """
    n = state.counts
    with np.errstate(divide="ignore", invalid="ignore"):
        b = state.sums / n + np.sqrt(state.exploration / n)
    b = np.where(n == 0, np.inf, b)
    return np.where(n >= state.n_examples, -np.inf, b)


@dataclass(frozen=True)
class UCBEPolicy:
    """UCB-E (module docstring); follows :class:`~bayes_eval.adaptive.protocol.Policy`.

    Parameters
    ----------
    exploration : float
        ``a > 0``, the exploration parameter of the bound (per cell), default 1.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive import UCBEPolicy
    >>> rng = np.random.default_rng(0)
    >>> R = (rng.random((3, 8)) < np.array([[0.3], [0.5], [0.8]])).astype(float)
    >>> policy = UCBEPolicy()
    >>> state = policy.init(3, 8, batch_size=2, seed=0)
    >>> for _ in range(4):
    ...     proposal = policy.propose(state)
    ...     state = policy.observe(state, proposal, R[proposal.arm, proposal.examples])
    >>> state.counts.tolist(), policy.recommend(state)
    ([2, 4, 2], 1)
    """

    exploration: float = 1.0

    def __post_init__(self) -> None:
        if not self.exploration > 0:
            raise ValueError(f"exploration is {self.exploration}; expected a > 0.")

    def init(
        self,
        n_arms: int,
        n_examples: int,
        *,
        batch_size: int = 1,
        costs: ArrayLike = 1.0,
        cost_scale: float = 1.0,
        seed: int = 0,
    ) -> UCBEState:
        """Initial state: nothing observed.

        Parameters
        ----------
        n_arms, n_examples, batch_size : int
            ``K``, ``N`` and ``B`` (``1 <= B <= N``).
        costs, cost_scale : float or array
            Ignored (UCB-E does not weigh costs).
        seed : int
            Seed of the order in which each arm's examples are proposed.

        Returns
        -------
        UCBEState
        """
        if n_arms < 1 or n_examples < 1 or not 1 <= batch_size <= n_examples:
            raise ValueError("need n_arms >= 1, n_examples >= 1 and 1 <= batch_size <= n_examples.")
        sums = np.zeros(n_arms)
        counts = np.zeros(n_arms, dtype=np.int64)
        sums.setflags(write=False)
        counts.setflags(write=False)
        order = example_order(n_arms, n_examples, seed)
        return UCBEState(
            int(n_examples), int(batch_size), float(self.exploration), order, sums, counts
        )

    def propose(self, state: UCBEState) -> Proposal:
        """The arm with the largest bound and its next unobserved examples.

        ``arm = -1`` when every arm is completed.
        """
        b = bounds(state)
        arm = int(np.argmax(b))
        if b[arm] == -np.inf:
            return Proposal.done(stop=False)
        start = int(state.counts[arm])
        n = min(state.batch_size, state.n_examples - start)
        return Proposal(arm, state.order[arm, start : start + n])

    def observe(self, state: UCBEState, proposal: Proposal, outcomes: ArrayLike) -> UCBEState:
        """New state after the scores ``outcomes`` of ``proposal``.

        Raises
        ------
        ValueError
            If the proposal is not the arm's next unobserved examples (or a prefix of them),
            or the outcomes are not one score in [0, 1] per example.
        """
        arm, ex = check_proposal(
            proposal, state.counts.size, state.n_examples, taken=state.counts, order=state.order
        )
        y = check_outcomes(outcomes, ex.size)
        sums, counts = state.sums.copy(), state.counts.copy()
        sums[arm] += y.sum()
        counts[arm] += y.size
        sums.setflags(write=False)
        counts.setflags(write=False)
        return state._replace(
            sums=sums, counts=counts, cells=state.cells + y.size, steps=state.steps + 1
        )

    def recommend(self, state: UCBEState) -> int:
        """Best empirical mean among observed arms (arm 0 before any observation)."""
        n = state.counts
        if not (n > 0).any():
            return 0
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.where(n > 0, state.sums / n, -np.inf)
        return int(np.argmax(m))
