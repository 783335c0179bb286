"""The ask/tell protocol shared by every adaptive-evaluation policy.

A policy decides which candidate (an *arm*: a model, a prompt, a decoding setting) to
evaluate next, on which of its examples, and which arm to recommend. Every policy of
:mod:`bayes_eval.adaptive` (the Gittins index of Xie, He and Cao, "Efficient Cost-Aware LLM
Evaluation via Bayesian Bandit Gittins Indices"; UCB-E of Audibert, Bubeck and Munos, "Best
Arm Identification in Multi-Armed Bandits"; UCB-E-LRF of Zhou et al., "On Speeding Up
Language Model Evaluation") has the same four methods, in the style of BlackJAX's
``init``/``step`` pairs::

    state = policy.init(n_arms, n_examples, batch_size=4, costs=prices, cost_scale=1e-4, seed=0)
    while True:
        proposal = policy.propose(state)        # Proposal(arm, examples, stop)
        if proposal.arm < 0:                    # every example of every arm is observed
            break
        scores = run_my_eval(proposal.arm, proposal.examples)   # one score in [0, 1] each
        state = policy.observe(state, proposal, scores)
    best = policy.recommend(state)

States are immutable :class:`typing.NamedTuple` s whose arrays are read-only: ``observe``
returns a new state and never changes the one it is given, so every intermediate state can be
kept and compared. Randomness is explicit: a policy's random choices are drawn from
generators keyed by ``(seed, ...)`` stored in the state (for example the step counter), never
from a generator that drawing would mutate, so a run replays exactly from its seed.

Any object with these four methods is a :class:`Policy` (a structural,
:func:`typing.runtime_checkable` protocol) and runs in the harness of
:mod:`bayes_eval.adaptive.simulation`; nothing needs to be registered.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Policy", "Proposal", "check_outcomes", "check_proposal", "example_order"]

StateT = TypeVar("StateT")

_NO_EXAMPLES = np.zeros(0, dtype=np.int64)
_NO_EXAMPLES.setflags(write=False)


class Proposal(NamedTuple):
    """What a policy asks to evaluate next.

    Attributes
    ----------
    arm : int
        The arm to evaluate, or ``-1`` when nothing is left to evaluate (then ``examples`` is
        empty).
    examples : numpy.ndarray of int
        Indices (in ``[0, n_examples)``) of the arm's examples to evaluate, unobserved and
        distinct.
    stop : bool
        The policy's own stopping signal (the Gittins policy: the arm with the largest index
        is completed). Evaluation may go on regardless; policies without a stopping rule
        leave it ``False``.

    See Also
    --------
    check_proposal : Validate a proposal against the problem's size.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive.protocol import Proposal
    >>> p = Proposal(1, np.array([3, 0]))
    >>> p.arm, p.examples.tolist(), p.stop
    (1, [3, 0], False)
    >>> Proposal.done().arm
    -1
    """

    arm: int
    examples: NDArray[np.int64]
    stop: bool = False

    @classmethod
    def done(cls, stop: bool = True) -> Proposal:
        """The proposal of a policy with nothing left to evaluate (``arm = -1``)."""
        return cls(-1, _NO_EXAMPLES, bool(stop))


@runtime_checkable
class Policy(Protocol[StateT]):
    """An adaptive-evaluation policy: ``init``, ``propose``, ``observe``, ``recommend``.

    The protocol is structural: any object with these four methods follows it (checked by
    ``isinstance(obj, Policy)``, which tests that the methods exist, not their signatures).

    Parameters
    ----------
    *args, **kwargs
        Not used: a protocol is not instantiated (``Policy()`` raises ``TypeError``); a policy
        is any object with the four methods.

    Examples
    --------
    >>> from bayes_eval.adaptive import GittinsPolicy, Policy
    >>> isinstance(GittinsPolicy(), Policy)
    True
    >>> isinstance(object(), Policy)
    False
    """

    def init(
        self,
        n_arms: int,
        n_examples: int,
        *,
        batch_size: int = 1,
        costs: ArrayLike = 1.0,
        cost_scale: float = 1.0,
        seed: int = 0,
    ) -> StateT:
        """Initial state.

        Parameters
        ----------
        n_arms, n_examples : int
            ``K`` arms and ``N`` examples per arm.
        batch_size : int
            How many examples a proposal asks for (fewer when an arm has fewer left).
        costs : float or (K,) array
            Cost of one example of each arm, as the budget counts it (1 per cell, or a price).
            Policies that do not weigh costs ignore it.
        cost_scale : float
            Factor (lambda) turning ``costs`` into score units.
        seed : int
            Key of every random choice of the run.
        """
        ...

    def propose(self, state: StateT) -> Proposal:
        """The next arm and examples to evaluate (``arm = -1`` when nothing is left)."""
        ...

    def observe(self, state: StateT, proposal: Proposal, outcomes: ArrayLike) -> StateT:
        """New state after the scores ``outcomes`` (one per example of ``proposal``)."""
        ...

    def recommend(self, state: StateT) -> int:
        """The arm recommended as the best now (``-1`` if the policy has none yet)."""
        ...


def example_order(n_arms: int, n_examples: int, seed: int) -> NDArray[np.int64]:
    """A uniformly random order of each arm's examples, fixed by ``seed`` (read-only).

    Row ``k`` is a permutation of ``range(n_examples)``; policies that evaluate random
    unobserved examples take each arm's examples in this order (without replacement).

    Parameters
    ----------
    n_arms : int
        Number ``K`` of arms.
    n_examples : int
        Number ``N`` of examples per arm.
    seed : int
        Key of the random orders: the same seed gives the same orders.

    Returns
    -------
    numpy.ndarray of int, shape (n_arms, n_examples)
        Row ``k``: the order in which arm ``k``'s examples are taken.

    Examples
    --------
    >>> from bayes_eval.adaptive.protocol import example_order
    >>> example_order(2, 5, seed=0).tolist()
    [[0, 3, 1, 2, 4], [1, 3, 2, 4, 0]]
    """
    rng = np.random.default_rng([int(seed), 7])
    order = np.argsort(rng.random((int(n_arms), int(n_examples))), axis=1)
    order.setflags(write=False)
    return order


def check_proposal(
    proposal: Any,
    n_arms: int,
    n_examples: int,
    *,
    taken: NDArray[np.int64] | None = None,
    order: NDArray[np.int64] | None = None,
) -> tuple[int, NDArray[np.int64]]:
    """Validate a proposal to evaluate: ``(arm, examples)`` as an int and an int array.

    Parameters
    ----------
    proposal : Proposal
        What :meth:`Policy.propose` returned (or any object with ``arm`` and ``examples``).
    n_arms, n_examples : int
        Size of the problem.
    taken : (n_arms,) int array, optional
        Examples already observed per arm; a proposal may not ask for more than are left.
    order : (n_arms, n_examples) int array, optional
        With ``taken``: each arm's examples in the order the policy takes them
        (:func:`example_order`); the examples must then be the arm's next ones,
        ``order[arm, taken[arm]:]`` or a prefix of it.

    Returns
    -------
    arm : int
        The proposed arm, as a Python ``int``.
    examples : numpy.ndarray of int
        The proposed examples, as a 1-D integer array.

    Raises
    ------
    ValueError
        If ``arm`` is not an integer in ``[0, n_arms)``, or ``examples`` is not a non-empty
        1-D array of distinct integers in ``[0, n_examples)``, asks for more examples than the
        arm has left, or (with ``order``) is not the arm's next examples.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive.protocol import Proposal, check_proposal
    >>> arm, examples = check_proposal(Proposal(1, np.array([3, 0])), n_arms=2, n_examples=5)
    >>> arm, examples.tolist()
    (1, [3, 0])
    """
    try:
        arm, examples = proposal.arm, proposal.examples
    except AttributeError:
        raise ValueError(
            f"proposal is a {type(proposal).__name__}; expected a Proposal(arm, examples) "
            "from propose."
        ) from None
    if isinstance(arm, bool) or not isinstance(arm, int | np.integer) or not 0 <= arm < n_arms:
        raise ValueError(f"proposal arm is {arm}; expected an integer in [0, {n_arms}).")
    arm = int(arm)
    if order is not None and taken is not None and type(examples) is np.ndarray:
        # the usual case, in constant Python work: the examples are the arm's next ones in
        # ``order`` (a prefix of a permutation: distinct and in range); compared as bytes
        start = int(taken[arm])
        nxt = order[arm, start : start + examples.size]
        if (
            examples.ndim == 1
            and 0 < examples.size == nxt.size
            and examples.dtype == nxt.dtype
            and examples.tobytes() == nxt.tobytes()
        ):
            return arm, examples
    ex = np.asarray(examples)
    if ex.ndim != 1 or ex.size == 0 or ex.dtype.kind not in "iu":
        raise ValueError(
            f"proposal examples of arm {arm} are {ex}; expected a non-empty 1-D array "
            "of example indices."
        )
    start = 0 if taken is None else int(taken[arm])
    if ex.size > n_examples - start:
        raise ValueError(
            f"arm {arm} has {n_examples - start} unobserved examples left; got {ex.size} examples."
        )
    if order is not None and np.array_equal(ex, order[arm, start : start + ex.size]):
        return arm, ex  # a prefix of a permutation: distinct and in range
    if ex.min() < 0 or ex.max() >= n_examples:
        raise ValueError(
            f"proposal examples of arm {arm} include {int(ex.min())}..{int(ex.max())}; "
            f"expected indices in [0, {n_examples})."
        )
    if np.unique(ex).size != ex.size:
        raise ValueError(f"proposal examples of arm {arm} repeat an example.")
    if order is not None:
        raise ValueError(
            f"proposal examples of arm {arm} are not its next unobserved examples; pass the "
            "Proposal returned by propose (or a prefix of its examples)."
        )
    return arm, ex.astype(np.int64, copy=False)


def check_outcomes(outcomes: ArrayLike, n: int) -> NDArray[np.float64]:
    """Validate the scores of ``n`` proposed examples: a 1-D float array in [0, 1].

    Parameters
    ----------
    outcomes : array_like of float
        The scores observed, one per proposed example, each in [0, 1].
    n : int
        Number of proposed examples.

    Returns
    -------
    numpy.ndarray of float, shape (n,)
        The scores as a float array.

    Raises
    ------
    ValueError
        If ``outcomes`` is not 1-D, does not hold ``n`` scores, or has a score that is not a
        finite number in [0, 1].

    Examples
    --------
    >>> from bayes_eval.adaptive.protocol import check_outcomes
    >>> check_outcomes([1, 0, 0.5], 3).tolist()
    [1.0, 0.0, 0.5]
    """
    y = np.asarray(outcomes, dtype=np.float64)
    if y.ndim != 1:
        y = np.atleast_1d(y)
    if y.ndim != 1 or y.size != n:
        raise ValueError(
            f"outcomes has shape {y.shape}; expected one score per proposed example ({n},)."
        )
    if not (np.minimum.reduce(y) >= 0 and np.maximum.reduce(y) <= 1):  # False for NaN
        raise ValueError("outcomes must be finite scores in [0, 1].")
    return y
