r"""The refit law of a plan: future boards simulated from the board model and refitted.

A plan's assurance is a probability over the boards the plan's extra trials will give. The
normal preposterior laws of :mod:`~bayes_eval.ranking.sample_size` and
:mod:`~bayes_eval.ranking.claims_plan` hold the board's information fixed; after more
trials the board model (:mod:`~bayes_eval.posteriors.joint`) re-learns its scales (from one
trial per question its dispersion is not identified, from two it is). The refit law
simulates the future boards themselves, as ``rank`` will read them:

1. every (model, question) rate :math:`p_{lq}` of the board is drawn jointly from the board
   model's posterior (:meth:`~bayes_eval.posteriors.joint.JointPosterior.rate_draws`);
2. the planned models' questions get :math:`n - N_{lq}` extra trials, their successes
   :math:`F^{-1}_{\mathrm{Bin}(n - N_{lq},\, p_{lq})}(u_{lq})` at one uniform
   :math:`u_{lq}` per cell kept for every n (common random numbers: a cell's successes never
   fall as n grows, and the assurance is smooth in n); the board's other models keep
   their trials;
3. the whole board is refitted and the plan's decision read from the refitted means and
   covariance of the planned models' scores.

The assurance at n is the share of simulations whose refitted board decides for the plan:
:math:`A(n) = S^{-1} \sum_s 1[\text{decide}(m^{(s)}(n), C^{(s)}(n))]`, a board fit per
simulation and n (O'Hagan, Stevens and Campbell, "Assurance in clinical trial design").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy.stats import binom

from bayes_eval.inputs import check_memory, shown
from bayes_eval.posteriors.joint import joint_posterior
from bayes_eval.posteriors.posterior import Posterior

__all__ = ["PREPOSTERIORS", "RefitBoards", "check_preposterior"]

#: the laws a plan's assurance is computed under: ``"normal"`` (the plan's own normal
#: preposterior law) and ``"refit"`` (:class:`RefitBoards`)
PREPOSTERIORS = ("normal", "refit")

#: a plan's decision on one refitted board: the planned models' means ``(L,)`` and
#: covariance ``(L, L)`` in the posterior's model order -> whether the plan is reached
Decide = Callable[[NDArray[np.float64], NDArray[np.float64]], bool]


def check_preposterior(post: Posterior, preposterior: object) -> None:
    """Raise ValueError unless ``preposterior`` is a law a plan of ``post`` can be made under.

    Parameters
    ----------
    post : Posterior
        The posterior the plan starts from.
    preposterior : object
        The law asked for, one of :data:`PREPOSTERIORS`.

    Raises
    ------
    ValueError
        For an unknown law, or the refit law where the board model does not apply (results
        other than binary, or a prior other than the default learned one).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import posterior
    >>> post = posterior(np.ones((3, 5, 2), dtype=int), prior="uniform")
    >>> check_preposterior(post, "normal")
    >>> check_preposterior(post, "refit")
    Traceback (most recent call last):
    ...
    ValueError: the refit law refits the board model, which is for binary results of several \
models under the default prior; this posterior's prior is 'uniform'.
    """
    if preposterior not in PREPOSTERIORS:
        raise ValueError(
            f"preposterior is {shown(preposterior)}; expected one of "
            + ", ".join(f"{x!r}" for x in PREPOSTERIORS)
            + "."
        )
    if preposterior == "refit" and post.joint is None:
        what = (
            f"these results have {post.data.shape[-1]} score categories"
            if post.data.shape[-1] != 2
            else f"this posterior's prior is {post.prior_label!r}"
        )
        raise ValueError(
            "the refit law refits the board model, which is for binary results of several "
            f"models under the default prior; {what}."
        )


class RefitBoards:
    r"""Simulated future boards of a board's posterior, refitted at each n (the refit law).

    Per simulation every cell's rate is drawn from the board model's joint posterior and the
    extra trials of the posterior's models at those rates by common random numbers; the
    whole board is refitted at each n asked and the plan's ``decide`` read from it (module
    docstring).

    Parameters
    ----------
    post : Posterior
        A board's posterior under the board model (binary results, the default prior), or a
        selection of its models: the selected models get the extra trials, the board's
        other models keep theirs, and ``decide`` reads the selected models in their order.
    draws : int
        Simulations (each a board fit per n).
    rng : numpy.random.Generator
        The random generator of the rates and uniforms.
    decide : callable
        ``decide(mean, cov) -> bool`` on the refitted means ``(L,)`` and covariance ``(L, L)``
        of the posterior's models.
    progress : callable, optional
        Called with a line after each n (None: silent).

    Raises
    ------
    ValueError
        Where the board model does not apply, or the simulations would not fit in memory.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval import posterior
    >>> rng = np.random.default_rng(0)
    >>> R = rng.binomial(1, [[[0.8]], [[0.6]], [[0.5]]], size=(3, 20, 1))
    >>> post = posterior(R)
    >>> law = RefitBoards(post, 8, np.random.default_rng(1), decide=lambda m, c: m[0] > m[1])
    >>> law.rates.shape
    (8, 3, 20)
    >>> 0.0 <= law.assurance(5) <= 1.0
    True
    """

    def __init__(
        self,
        post: Posterior,
        draws: int,
        rng: np.random.Generator,
        *,
        decide: Decide,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        check_preposterior(post, "refit")
        joint, link = post.joint, post.board
        assert joint is not None and link is not None  # a board model has its board
        counts = np.asarray(link.counts)
        check_memory(  # the rates and uniforms, the rate draws' work, one future board
            8.0 * 6 * draws * counts.shape[0] * counts.shape[1],
            f"{draws} simulated boards of {counts.shape[0]} x {counts.shape[1]} cells",
            "fewer simulations",
        )
        self.answered = link.answered
        self.k_now, self.n_now = counts[..., 1], counts.sum(axis=-1)
        # the posterior's models among the board's (a selection gets the trials, the rest
        # of the board is refitted with it as it is)
        self.index = np.atleast_1d(np.asarray(link.index))
        self.mine = np.zeros(counts.shape[0], dtype=bool)
        self.mine[self.index] = True
        self.rates = joint.rate_draws(draws, rng)
        self.u = np.clip(rng.random(self.rates.shape), 1e-12, 1.0 - 1e-12)
        self.decide, self.progress = decide, progress

    def assurance(self, n: int) -> float:
        """The share of the simulated boards whose refit at ``n`` trials decides for the plan.

        Parameters
        ----------
        n : int
            Trials per question of the posterior's models after the extra trials.

        Returns
        -------
        float
            A multiple of ``1 / draws``.
        """
        extra = np.where(self.mine[:, None], np.maximum(n - self.n_now, 0), 0)
        trials = self.n_now + extra
        hits = 0
        pick = np.ix_(self.index, self.index)
        for rates, u in zip(self.rates, self.u, strict=True):
            k = self.k_now + binom.ppf(u, extra, rates)
            fit = joint_posterior(np.stack([trials - k, k], axis=-1), self.answered, keep=False)
            assert fit is not None  # the board the posterior came from, with more trials
            hits += bool(self.decide(fit.mean[self.index], fit.cov[pick]))
        a = hits / self.rates.shape[0]
        if self.progress is not None:
            self.progress(
                f"plan (refit law): {n} trials per question: assurance {a:.3f} over "
                f"{self.rates.shape[0]} refitted boards"
            )
        return a

    def prob_better(self) -> NDArray[np.float64]:
        r"""Per pair of the posterior's models, the share of the rate draws in which i beats j.

        The limit of a pair plan's assurance under this law as :math:`n \to \infty` (every
        rate then known): :math:`P(\bar p_i > \bar p_j)` over the draws, each model's mean
        rate over the questions it answered.

        Returns
        -------
        ndarray of float, shape ``(L, L)``
            Multiples of ``1 / draws``; 0 on the diagonal.
        """
        rates = self.rates[:, self.index]
        if self.answered is None:
            means = rates.mean(axis=-1)
        else:
            mask = np.asarray(self.answered)[self.index]
            means = (rates * mask).sum(axis=-1) / mask.sum(axis=-1)
        return (means[:, :, None] > means[:, None, :]).mean(axis=0)
