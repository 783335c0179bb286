r"""Priors of the closed-form path: fixed Dirichlet priors and a prior learned from the data.

The Bayes@N posterior (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
Model Evaluation", §2.2-2.4) gives every question the same Dirichlet prior
:math:`\pi_\alpha \sim \mathrm{Dir}(a)`, with :math:`a = (1, \dots, 1)` in the paper. On real
benchmarks most questions are solved always or never; the uniform prior pulls each of them
toward the middle, a bias that does not average out over questions while the posterior sd
shrinks like :math:`1/\sqrt M`, so its intervals undercover more as M grows. This module
learns :math:`a` from the questions themselves.

**Model.** Write :math:`a = \kappa\beta` (mean :math:`\beta` on the simplex, concentration
:math:`\kappa`). Integrating :math:`\pi_\alpha` out, the counts of question :math:`\alpha`
are Dirichlet-multinomial, and the log marginal likelihood of a group of questions is

.. math::
    \ell(a) = \sum_\alpha \Big[\log\Gamma(\kappa) - \log\Gamma(\kappa + N_\alpha)
      + \sum_k \big(\log\Gamma(a_k + n_{\alpha k}) - \log\Gamma(a_k)\big)\Big].

The hyperprior is that of :func:`bayes_eval.models.hierarchical_model`:
:math:`\beta \sim \mathrm{Dir}(1)`, :math:`\log\kappa \sim N(\log \kappa_0, s_0^2)` with
:math:`(\kappa_0, s_0)` = :data:`KAPPA_PRIOR` = (5, 1.5): weakly informative (95% in
[0.26, 95]). With one trial per question of one model the data do not identify
:math:`\kappa`, and the interval then rests on this hyperprior; on real benchmarks it errs
wide there (1.1-2.3 times the error), never narrow. A hyperprior learned from real benchmarks
(:data:`META_KAPPA_PRIOR` = (0.5, 1.26), the predictive for a new benchmark of a three-level
meta-analysis of the 20 model-benchmark pairs with repeated trials shipped with the package:
``bayes-eval validate hyperprior``, :mod:`bayes_eval.validation.hyperprior_study`) is sharper
on average but, checked on each benchmark left out, covers only 0.85-0.91 on two of four at
N = 1 (real concentrations differ tenfold between benchmarks): it is available, not the
default. In the coordinates :math:`\eta = \log a` the log density is
:math:`\sum_k \eta_k - K\log\kappa - (\log\kappa - \log\kappa_0)^2 / (2 s_0^2)` (K = C + 1
categories; the Jacobian of :math:`(\beta, \kappa) \mapsto a` is :math:`\kappa^{K-1}`).

**On a leaderboard** (``pool="board"``, the default) each model keeps its own prior, and the
hyperprior of its concentration is first updated by what the other models on the same
questions say about how different the questions are
(:mod:`bayes_eval.posteriors.board`): with one trial per question one model's results do not
identify :math:`\kappa`, a board does.

**Fit** (:mod:`bayes_eval.posteriors.prior_fit`, the objective in
:mod:`bayes_eval.posteriors.prior_likelihood`). Newton's method on
:math:`\ell(e^\eta) + \log p(\eta)` with the analytic gradient (digamma) and Hessian
(trigamma), step halving, vectorised over the groups (one per model, ``pool="model"``, or one
for the whole benchmark, ``pool="benchmark"``). The mode :math:`\hat\eta` is a penalised
maximum marginal likelihood (Minka, "Estimating a Dirichlet distribution", solves the
unpenalised problem; the weak hyperprior keeps the estimate off the boundary
:math:`\kappa \to 0` or :math:`\infty` that the plain MLE reaches when every question is
solved always or never, or all alike).

**Statistics.** The likelihood is a sum of K + 1 one-dimensional sums over the values of each
category's counts and of the totals, so it is computed from statistics of each group, not from
its questions (:mod:`bayes_eval.posteriors.prior_statistics`): for whole-number counts the
numbers of questions with more than j trials in each category (Minka, §2), sums of D
logarithms; for fractional (graded) counts the distinct values, those of each dyadic panel
replaced by its Chebyshev points when it holds more than 12 (``prior_statistics._atoms``: the
sums then agree with the sum over every question to about 3e-8; the posterior moments moved by
less than 1e-9 posterior sd on the shipped datasets and on graded boards). The posterior
moments under each node need four sums per model and total
(:func:`bayes_eval.posteriors.posterior.total_sums`, read under every node by
:func:`~bayes_eval.posteriors.posterior.sums_moments`).

**Integration.** ``"empirical-plugin"`` uses :math:`a = e^{\hat\eta}` as if it were known.
``"empirical"`` integrates over the hyperparameters: a Gauss-Hermite product grid on the
Laplace approximation :math:`N(\hat\eta, H^{-1})` (11 points per dimension for binary data, 7
where every group has 100 questions and 3 counts in each category; a Sobol sample of
:math:`N(\hat\eta, 1.5^2 H^{-1})` beyond five categories), reweighted by the exact ratio of
the posterior to the Gaussian, so
the nodes :math:`a_j` carry weights :math:`\omega_j \propto g_j\,p(\eta_j\mid n)/\phi(\eta_j)`.
At the nodes the fractional counts' atoms need not be as fine near zero as for any
:math:`a`: the panels below half the nodes' smallest :math:`a_k` merge into one
(``prior_statistics._coarsen``, the same error bound; on graded boards 120 atoms per category become
24-72, the moments moved by at most 3.3e-10 posterior sd).
Given :math:`a`, the posterior of every question is :math:`\mathrm{Dir}(a + n_\alpha)`
(closed form), so the posterior of :math:`\bar\pi` is the mixture over the nodes:
:math:`\mu = \sum_j\omega_j\mu_j`,
:math:`\sigma^2 = \sum_j\omega_j(\sigma_j^2 + \mu_j^2) - \mu^2` (law of total variance).
This is the posterior of the hierarchical model computed by quadrature instead of MCMC
(for binary results, and for rubrics before the step below).

**Rubrics** (three or more categories, weights ``w``, questions with repeated trials). The
integrated posterior's variance of :math:`\bar\pi\cdot w` is about the model's
within-question variance of one trial's score, :math:`V_\beta\,\kappa/(\kappa + 1)`, over
N M (the law of total variance over the hyperparameters; for binary results this is exact
and the likelihood's :math:`\kappa` gets it right). One Dirichlet ties every category's
spread to one :math:`\kappa`, and where the category probabilities are bimodal (questions of
two kinds) the likelihood's :math:`\hat\kappa` overstates that variance, and the intervals
are wider than the error. The questions' own sample variances of their trials' scores
estimate it without bias, and the concentration of every node moves towards the
:math:`\kappa_W` that matches them, by as much as the questions with repeated trials say
beyond their noise, each node's mean :math:`\beta` kept (``prior_fit._match_within``;
:func:`fit_prior` with ``w``, which every posterior of rubric results passes). With one trial
per question, or binary results, nothing moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from bayes_eval.inputs import shown
from bayes_eval.posteriors.prior_fit import (
    _integrate,
    _match_within,
    _newton,
)
from bayes_eval.posteriors.prior_statistics import _compress

__all__ = [
    "DEFAULT_PRIOR",
    "KAPPA_PRIOR",
    "META_KAPPA_PRIOR",
    "PRIOR_KINDS",
    "FittedPrior",
    "Prior",
    "fit_prior",
    "prior_label",
    "resolve_prior",
]


#: (median, log-sd) of the log-normal hyperprior on the concentration kappa: weakly informative
#: (95% in [0.26, 95]), so that a concentration no data identify (one trial per question of one
#: model) errs toward wide intervals.
KAPPA_PRIOR = (5.0, 1.5)
#: (median, log-sd) learned from real benchmarks: the predictive for a model on a new benchmark
#: of the meta-analysis of ``bayes-eval validate hyperprior`` (binary results). Not the default:
#: with one trial per question, held-out benchmarks cover 0.85-1.00 under it (their
#: concentrations differ tenfold); pass it as ``kappa_prior`` to accept calibration on average
#: over benchmarks.
META_KAPPA_PRIOR = (0.5, 1.26)
#: Named priors accepted by ``prior=``.
PRIOR_KINDS = ("uniform", "jeffreys", "empirical", "empirical-plugin")
Pool = Literal["board", "model", "benchmark"]
POOLS = ("board", "model", "benchmark")
PriorSpec = str | float | ArrayLike


class FittedPrior(NamedTuple):
    r"""A prior resolved against data: quadrature nodes of the Dirichlet parameter.

    Attributes
    ----------
    kind : str
        ``"uniform"``, ``"jeffreys"``, ``"fixed"``, ``"empirical"`` or ``"empirical-plugin"``.
    nodes : ndarray, shape ``(J, G, C + 1)``
        Dirichlet parameters of the J nodes for each of G groups (G = 1 for a fixed prior or
        ``pool="benchmark"``, else one per model).
    weights : ndarray, shape ``(J, G)``
        Posterior weights of the nodes (sum to 1 over J; zero for padding).
    alpha : ndarray, shape ``(G, C + 1)``
        The point value: the fixed prior, or the posterior mode :math:`e^{\hat\eta}` (for
        rubrics fitted with ``w``, moved with the nodes: module docstring, *Rubrics*).
    pool : str or None
        ``"model"`` or ``"benchmark"`` for learned priors.
    converged : ndarray of bool, shape ``(G,)``
        Whether Newton's method met its tolerance (always True for fixed priors).
    log_alpha_cov : ndarray, shape ``(G, C + 1, C + 1)``
        Laplace covariance of :math:`\log a` (the inverse negative Hessian of the log
        hyperposterior at its mode; for rubrics fitted with ``w``, carried through the move
        of the nodes); zeros for fixed priors.
    kappa_prior : ndarray, shape ``(G, 2)``, or None
        The (median, log-sd) of the hyperprior on each group's concentration the fit used
        (with ``pool="board"``, updated by the board); None for fixed priors.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[1, 3], [3, 1], [2, 2], [0, 4], [4, 0]])  # M = 5 questions
    >>> fixed = Prior.parse("uniform").fit(counts)
    >>> fixed.kind, fixed.nodes.shape, fixed.weights.tolist()
    ('uniform', (1, 1, 2), [[1.0]])
    >>> learned = Prior.parse("empirical", pool="model").fit(counts)
    >>> learned.label, learned.nodes.shape[1:], learned.alpha.shape
    ('empirical (per model, integrated)', (1, 2), (1, 2))
    >>> learned.plug_in().label
    'empirical (per model, plug-in)'
    """

    kind: str
    nodes: NDArray[np.float64]
    weights: NDArray[np.float64]
    alpha: NDArray[np.float64]
    pool: str | None
    converged: NDArray[np.bool_]
    log_alpha_cov: NDArray[np.float64]
    kappa_prior: NDArray[np.float64] | None = None

    @property
    def label(self) -> str:
        """Short description, e.g. ``empirical (per model, integrated)``."""
        return prior_label(self)

    def plug_in(self) -> FittedPrior:
        r"""The plug-in prior of the same fit: the mode :math:`e^{\hat\eta}` as the one node.

        It is what :func:`fit_prior` with ``integrated=False`` returns for the same counts (one
        fit serves both: the coverage study scores the two from it).
        """
        if self.kind not in ("empirical", "empirical-plugin"):
            raise ValueError(f"the prior {self.label!r} is not learned: it has no plug-in form.")
        ones = np.ones((1, self.alpha.shape[0]))
        return self._replace(kind="empirical-plugin", nodes=self.alpha[None], weights=ones)


def prior_label(prior: FittedPrior) -> str:
    """A one-line description of a resolved prior for tables and JSON.

    Parameters
    ----------
    prior : FittedPrior
        A prior resolved against data (:meth:`Prior.fit`, :func:`fit_prior`).

    Returns
    -------
    str
        ``"uniform"``, ``"jeffreys"``, ``"Dirichlet(a_0, ..., a_C)"`` for another fixed
        prior, or ``"empirical (<pool>, integrated)"`` / ``"empirical (<pool>, plug-in)"``.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[1, 3], [3, 1], [2, 2], [0, 4], [4, 0]])
    >>> prior_label(Prior.parse([1.0, 3.0]).fit(counts))
    'Dirichlet(1, 3)'
    >>> prior_label(fit_prior(counts, pool="benchmark", integrated=False))
    'empirical (benchmark-pooled, plug-in)'
    """
    if prior.kind in ("uniform", "jeffreys"):
        return prior.kind
    if prior.kind == "fixed":
        a = prior.alpha[0]
        return "Dirichlet(" + ", ".join(f"{x:g}" for x in a) + ")"
    how = "integrated" if prior.kind == "empirical" else "plug-in"
    return f"{prior.kind.split('-')[0]} ({_SCOPE[str(prior.pool)]}, {how})"


#: how a label names each pool
_SCOPE = {
    "board": "per model, board-informed",
    "model": "per model",
    "benchmark": "benchmark-pooled",
}


def _check_counts(counts: ArrayLike) -> NDArray:
    """The counts as (L, M, C + 1), checked finite and >= 0.

    Integer arrays stay as they are (whole counts, not copied), anything else becomes floats.
    """
    arr = np.asarray(counts)
    if arr.dtype.kind not in "iu":
        arr = np.asarray(arr, dtype=float)
    if arr.ndim not in (2, 3) or arr.shape[-1] < 2:
        raise ValueError(
            f"counts have shape {arr.shape}; expected (M, C + 1) or (L, M, C + 1) with C >= 1."
        )
    finite = arr.dtype.kind in "iu" or np.isfinite(arr).all()
    if not (finite and (arr.dtype.kind == "u" or arr.min(initial=0) >= 0)):
        raise ValueError("counts must be finite and >= 0.")
    return arr if arr.ndim == 3 else arr[None]


def fit_prior(
    counts: ArrayLike,
    *,
    pool: Pool = "model",
    integrated: bool = True,
    kappa_prior: tuple[float, float] | None = None,
    nodes_per_dim: int | None = None,
    w: ArrayLike | None = None,
) -> FittedPrior:
    r"""Learn the Dirichlet prior of the questions from their counts (see the module docstring).

    Parameters
    ----------
    counts : array_like, shape ``(M, C + 1)`` or ``(L, M, C + 1)``
        Category counts per question (and model); fractional counts are allowed. Questions
        without trials contribute nothing.
    pool : {"board", "model", "benchmark"}, keyword-only
        (default ``"model"`` here, the low-level function; :class:`Prior`, the library's
        functions and every command default to ``"board"``.)
        One prior per model (``"model"``), one per model whose concentration's hyperprior is
        first updated by the other models on the same questions (``"board"``: binary results
        of at least two models sharing questions, :mod:`bayes_eval.posteriors.board`; else as
        ``"model"``), or one for all models of the benchmark (``"benchmark"``).
    integrated : bool, keyword-only
        Integrate over the hyperparameters (``"empirical"``) or plug in their mode
        (``"empirical-plugin"``).
    kappa_prior : (float, float) or (array, array), optional, keyword-only
        Median and log-sd of the log-normal hyperprior on the concentration: numbers, or one
        each per model (``pool="model"``/``"board"``). Default: :data:`KAPPA_PRIOR`.
    nodes_per_dim : int, optional, keyword-only
        Gauss-Hermite points per dimension of :math:`\log a`. Default: 11 for binary data, 7
        for three categories, 5 for four, 3 for five (7, 5, 3, 3 when every group has at least
        100 questions with data and at least 3 counts in each category, where the
        hyperposterior is close to Gaussian), a 256-point scrambled Sobol sample (widened
        1.5 times) beyond five categories.
    w : array_like, shape ``(C + 1,)``, optional, keyword-only
        Rubric weights of the score. With three or more categories and questions of repeated
        trials, the concentration then moves towards the one that matches the score's
        within-question variance (module docstring, *Rubrics*); None (default) or binary data:
        the likelihood's alone.

    Returns
    -------
    FittedPrior
        The nodes and weights of the hyperposterior (one node, its mode, when
        ``integrated=False``), the mode ``alpha`` of each group and its Laplace covariance.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(0.3, 0.6, size=4000)
    >>> counts = np.stack([10 - (k := rng.binomial(10, p)), k], axis=-1)
    >>> fit = fit_prior(counts, integrated=False)
    >>> np.round(fit.alpha[0], 2)  # category 0 (fail) then 1 (success)
    array([0.59, 0.3 ])
    """
    arr = _check_counts(counts)
    if pool not in POOLS:
        raise ValueError(f"pool is {shown(pool)}; expected one of {list(POOLS)}.")
    if kappa_prior is None:
        kappa_prior = KAPPA_PRIOR
    if pool == "benchmark":
        arr = arr.reshape(1, -1, arr.shape[-1])
    try:
        med, sd = (
            np.broadcast_to(np.asarray(x, dtype=float), (arr.shape[0],)).copy() for x in kappa_prior
        )
    except (TypeError, ValueError):
        med = sd = np.full(1, np.nan)
    if not (
        np.all(med > 0) and np.all(sd > 0) and np.isfinite(med).all() and np.isfinite(sd).all()
    ):
        raise ValueError(
            f"kappa_prior is {shown(kappa_prior)}; expected (median > 0, log-sd > 0): numbers, "
            f"or one each per group ({arr.shape[0]})."
        )
    hyper = (med, sd)
    if pool == "board":
        from bayes_eval.posteriors.board import board_concentration

        board = board_concentration(arr.astype(np.float64, copy=False), hyper)
        if board is not None:
            hyper = (board.median, board.log_sd)
    data = _compress(arr)
    eta, neg_h, converged = _newton(data, hyper)
    alpha = np.exp(eta)
    cov = np.linalg.inv(neg_h)
    kappa = np.stack(hyper, axis=-1)
    weights_w = None if w is None else _check_weights(w, arr.shape[-1])
    if arr.shape[-1] <= 2:  # binary results: the likelihood's concentration is the moment's
        weights_w = None
    if not integrated:
        if weights_w is not None:
            alpha, _, cov = _match_within(arr, weights_w, alpha, alpha[None], cov)
        return FittedPrior(
            "empirical",
            alpha[None],
            np.ones((1, alpha.shape[0])),
            alpha,
            pool,
            converged,
            cov,
            kappa,
        ).plug_in()
    nodes, weights = _integrate(eta, neg_h, data, hyper, nodes_per_dim)
    if weights_w is not None:
        alpha, nodes, cov = _match_within(arr, weights_w, alpha, nodes, cov)
    return FittedPrior("empirical", nodes, weights, alpha, pool, converged, cov, kappa)


def _check_weights(w: ArrayLike, k: int) -> NDArray:
    """The rubric weights as ``k`` finite floats."""
    try:
        arr = np.asarray(w, dtype=float)
    except (TypeError, ValueError):
        arr = np.full(0, np.nan)
    if arr.shape != (k,) or not np.isfinite(arr).all():
        raise ValueError(f"w is {shown(w)}; expected {k} finite rubric weights, one per category.")
    return arr


def _fixed(kind: str, alpha: NDArray) -> FittedPrior:
    if kind == "fixed" and np.all(alpha == 1.0):
        kind = "uniform"
    elif kind == "fixed" and np.all(alpha == 0.5):
        kind = "jeffreys"
    a = alpha[None, None, :]
    cov = np.zeros((1, alpha.size, alpha.size))
    return FittedPrior(kind, a, np.ones((1, 1)), a[0], None, np.ones(1, dtype=bool), cov)


#: The prior of every command of the CLI (and of :func:`bayes_eval.ranking.leaderboard`):
#: learned per model and integrated over its hyperparameters (calibrated on real benchmarks).
#: The scorio-named functions keep the paper's and scorio's ``"uniform"``.
DEFAULT_PRIOR = "empirical"


def _frozen(x: ArrayLike | None, dtype: DTypeLike | None = None) -> NDArray | None:
    """A read-only copy (the prior never aliases an array the caller may change)."""
    if x is None:
        return None
    arr = np.array(x, dtype=dtype, copy=True)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Prior:
    r"""The per-question prior of the closed form, validated once and carried everywhere.

    Every question gets :math:`\pi_\alpha \sim \mathrm{Dir}(a + \lambda n^0_\alpha)`:
    :math:`a` is fixed (uniform, Jeffreys, a number or a vector) or learned from the
    questions (``"empirical"``: integrated over its hyperparameters; ``"empirical-plugin"``:
    the posterior mode plugged in; see the module docstring), and :math:`n^0_\alpha` are the
    counts of earlier runs ``R0`` of the same questions, weighted by the ``discount``
    :math:`\lambda \in (0, 1]` (the power prior of Ibrahim and Chen, "Power prior
    distributions for regression models", which for a multinomial likelihood and a
    Dirichlet prior is again a Dirichlet; :math:`\lambda = 1` is eq. 6 of Hariri et al.,
    "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation").

    Immutable: arrays are read-only copies. Build it from the user's words with
    :meth:`parse`; :attr:`label` prints the same way in every output.

    Attributes
    ----------
    kind : {"uniform", "jeffreys", "fixed", "empirical", "empirical-plugin"}
        Which prior (default ``"uniform"``); a fixed concentration of 1 or 1/2 for every
        category is named ``"uniform"`` or ``"jeffreys"``.
    alpha : ndarray or None
        ``"fixed"``: the concentration, a scalar (every category) or one per category.
    pool : {"board", "model", "benchmark"}
        Learned priors: one per model, its concentration's hyperprior updated by the other
        models on the same questions (``"board"``, the default; as ``"model"`` for one model
        or rubric data); one per model; or one shared by all models of the results.
    runs, runs_mask : ndarray or None
        Earlier runs ``R0`` (``(M, D)`` or ``(L, M, D)``, labels as ``R``) and their missing
        trials (True = missing).
    discount : float
        Weight :math:`\lambda` of the earlier runs' counts, in (0, 1].
    source : str or None
        Where the earlier runs came from (a file name), for the label.
    kappa_prior : (float, float) or None
        Median and log-sd of the hyperprior on the concentration (learned priors); None:
        :data:`KAPPA_PRIOR`.
    name : str
        The argument the user gave it as (``"prior"``, ``"alpha0"``), for messages.

    Examples
    --------
    >>> from bayes_eval.posteriors.priors import Prior
    >>> Prior().label
    'uniform'
    >>> Prior("fixed", alpha=[1.0, 3.0]).label
    'Dirichlet(1, 3)'
    >>> Prior("fixed", alpha=0.5).kind  # the named priors, named
    'jeffreys'
    """

    kind: str = "uniform"
    alpha: NDArray[np.float64] | None = None
    pool: str = "board"
    runs: NDArray | None = field(default=None, repr=False)
    runs_mask: NDArray[np.bool_] | None = field(default=None, repr=False)
    discount: float = 1.0
    source: str | None = None
    kappa_prior: tuple[float, float] | None = None
    #: the argument the user gave it as (``prior``, ``alpha0``), for messages
    name: str = field(default="prior", repr=False)

    def __post_init__(self) -> None:  # noqa: C901 - one check per field of the prior, each with its message
        kinds = (*PRIOR_KINDS, "fixed")
        if self.kind not in kinds:
            raise ValueError(f"prior kind is {shown(self.kind)}; expected one of {list(kinds)}.")
        if self.pool not in POOLS:
            raise ValueError(f"pool is {shown(self.pool)}; expected one of {list(POOLS)}.")
        if (self.kind == "fixed") != (self.alpha is not None):
            raise ValueError("alpha is given exactly for a fixed prior (kind='fixed').")
        if self.alpha is not None:
            alpha = np.asarray(self.alpha, dtype=np.float64)
            if alpha.ndim > 1 or alpha.size == 0:
                raise ValueError(
                    f"{self.name} is {shown(self.alpha)}; expected a positive number or a vector "
                    "of C + 1 positive numbers."
                )
            if not (np.isfinite(alpha).all() and (alpha > 0).all()):
                raise ValueError(f"{self.name} is {shown(self.alpha)}; expected finite values > 0.")
            if alpha.ndim == 0 and float(alpha) in (1.0, 0.5):  # the named priors, named
                object.__setattr__(self, "kind", "uniform" if alpha == 1.0 else "jeffreys")
                object.__setattr__(self, "alpha", None)
            else:
                object.__setattr__(self, "alpha", _frozen(alpha, np.float64))
        d = self.discount
        if isinstance(d, bool) or not isinstance(d, (int, float, np.floating)) or not 0 < d <= 1:
            raise ValueError(
                f"discount is {shown(d)}; expected a weight in (0, 1] for the earlier runs."
            )
        object.__setattr__(self, "discount", float(d))
        if self.kappa_prior is not None:
            try:
                med, sd = (float(x) for x in self.kappa_prior)
            except (TypeError, ValueError):
                med = sd = float("nan")
            if not (med > 0 and sd > 0):
                raise ValueError(
                    f"kappa_prior is {shown(self.kappa_prior)}; expected (median > 0, log-sd > 0)."
                )
            object.__setattr__(self, "kappa_prior", (med, sd))
        if self.runs is None and self.runs_mask is not None:
            raise ValueError("runs_mask is given without runs (R0).")
        if self.runs is not None:
            runs = self.runs
            if isinstance(runs, np.ma.MaskedArray):
                mask = np.ma.getmaskarray(runs)
                runs = np.ma.getdata(runs)
                if self.runs_mask is not None:
                    mask = mask | np.asarray(self.runs_mask, dtype=bool)
                object.__setattr__(self, "runs_mask", mask)
            object.__setattr__(self, "runs", _frozen(runs))
        if self.runs_mask is not None:
            object.__setattr__(self, "runs_mask", _frozen(self.runs_mask, bool))

    # ----------------------------------------------------------------- construction

    @classmethod
    def parse(
        cls,
        spec: PriorSpec | Prior | None = None,
        *,
        pool: Pool | None = None,
        runs: ArrayLike | None = None,
        runs_mask: ArrayLike | None = None,
        discount: float | None = None,
        source: str | None = None,
        name: str = "prior",
    ) -> Prior:
        """The prior from the user's words.

        Parameters
        ----------
        spec : str, float, array_like or Prior
            ``"uniform"`` (Dirichlet(1, ..., 1), the paper's), ``"jeffreys"``
            (Dirichlet(1/2, ..., 1/2)), ``"empirical"`` (learned, integrated),
            ``"empirical-plugin"`` (learned, plugged in), a positive number (every category),
            a vector of C + 1 positive numbers, or a :class:`Prior` (returned as it is, with
            the other options applied). ``None``: the default, ``"empirical"``.
        pool, runs, runs_mask, discount, source
            As the attributes; ``None`` keeps the default (or the given Prior's value).

        Raises
        ------
        ValueError
            For an unknown name, a non-positive concentration, ``pool`` with a fixed prior or
            a bad ``discount``.

        Examples
        --------
        >>> from bayes_eval.posteriors.priors import Prior
        >>> Prior.parse("uniform").label
        'uniform'
        >>> Prior.parse([0.5, 2]).label
        'Dirichlet(0.5, 2)'
        >>> Prior.parse("empirical", pool="model").label
        'empirical (per model, integrated)'
        """
        if isinstance(spec, Prior):
            base = spec
        elif spec is None:
            base = _NAMED[DEFAULT_PRIOR]
        elif isinstance(spec, str):
            if spec not in PRIOR_KINDS:
                raise ValueError(
                    f"prior is {shown(spec)}; expected one of {list(PRIOR_KINDS)}, a positive "
                    "number or a vector of C + 1 positive numbers."
                )
            base = _NAMED[spec]
        else:
            try:  # Python's bools kept as such, to be refused
                given = np.asarray(spec, dtype=None if isinstance(spec, np.ndarray) else object)
            except (TypeError, ValueError):  # ragged: refused below
                given = np.asarray([], dtype=object)
            given = given.ravel()
            if given.dtype == np.bool_ or any(isinstance(v, (bool, np.bool_)) for v in given):
                raise ValueError(
                    f"{name} is {shown(spec)}; expected one of {list(PRIOR_KINDS)}, a positive "
                    "number or a vector of C + 1 positive numbers (not True/False)."
                )
            try:
                alpha = np.asarray(spec, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{name} is {shown(spec)}; expected one of {list(PRIOR_KINDS)}, a positive "
                    "number or a vector of C + 1 positive numbers."
                ) from None
            base = cls("fixed", alpha=alpha, name=name)
        changes = {
            k: v
            for k, v in (("runs", runs), ("runs_mask", runs_mask), ("discount", discount))
            if v is not None
        }
        if source is not None:
            changes["source"] = source
        if pool is not None and pool not in POOLS:
            raise ValueError(f"pool is {shown(pool)}; expected one of {list(POOLS)}.")
        if pool is not None and pool != base.pool:
            if not base.learned:
                raise ValueError(
                    f"pool is {shown(pool)} with the fixed prior {base.label!r}; pool applies to "
                    "learned priors ('empirical', 'empirical-plugin') only."
                )
            changes["pool"] = pool
        if not changes:
            return base
        fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
        return cls(**{**fields, **changes})

    # ----------------------------------------------------------------- description

    @property
    def learned(self) -> bool:
        """Whether the prior is learned from the questions."""
        return self.kind in ("empirical", "empirical-plugin")

    @property
    def label(self) -> str:
        """One line naming the prior, the same in every table, header and JSON.

        For example ``uniform``, ``jeffreys``, ``Dirichlet(0.5, 2)``,
        ``empirical (per model, integrated)``, ..., followed by ``+ earlier runs`` (with their
        source and discount) when there are any.
        """
        if self.kind in ("uniform", "jeffreys"):
            text = self.kind
        elif self.kind == "fixed" and np.all(self.alpha == 1.0):
            text = "uniform"
        elif self.kind == "fixed" and np.all(self.alpha == 0.5):
            text = "jeffreys"
        elif self.kind == "fixed":
            assert self.alpha is not None  # a fixed prior has its concentration
            a = np.atleast_1d(self.alpha)
            text = "Dirichlet(" + ", ".join(f"{x:g}" for x in a) + ")"
        else:
            how = "integrated" if self.kind == "empirical" else "plug-in"
            text = f"empirical ({_SCOPE[self.pool]}, {how})"
        if self.runs is not None or self.source:
            extra = [self.source] if self.source else []
            if self.discount != 1.0:
                extra.append(f"discount {self.discount:g}")
            text += " + earlier runs" + (f" ({', '.join(extra)})" if extra else "")
        return text

    def __str__(self) -> str:
        return self.label

    def to_dict(self) -> dict[str, object]:
        """JSON-ready description of the prior.

        It holds ``label``, ``kind``, ``alpha`` (fixed priors), ``pool`` (learned),
        ``earlier_runs`` and ``discount``.
        """
        out: dict[str, object] = {"label": self.label, "kind": self.kind}
        if self.alpha is not None:
            out["alpha"] = np.atleast_1d(self.alpha).tolist()
        if self.learned:
            out["pool"] = self.pool
        out["earlier_runs"] = self.source or (None if self.runs is None else True)
        if out["earlier_runs"] is not None:
            out["discount"] = self.discount
        return out

    # ----------------------------------------------------------------- against data

    def fit(self, counts: ArrayLike, *, w: ArrayLike | None = None) -> FittedPrior:
        """Quadrature nodes of the Dirichlet parameter for the given counts.

        The counts are those of the results plus the discounted earlier runs. The nodes are one
        node for a fixed prior, the learned hyperposterior otherwise (:func:`fit_prior`).

        Parameters
        ----------
        counts : array_like, shape ``(M, C + 1)`` or ``(L, M, C + 1)``
            Category counts per question (and model).
        w : array_like, optional, keyword-only
            Rubric weights of the score (learned priors of rubrics: :func:`fit_prior`).

        Returns
        -------
        FittedPrior
            The nodes of the Dirichlet parameter and their weights.
        """
        if not self.learned:  # a fixed prior needs only the number of categories
            arr = np.asarray(counts)
            if arr.ndim not in (2, 3) or arr.shape[-1] < 2:
                _check_counts(arr)  # raises the message
            return _fixed_prior(self.kind, arr.shape[-1], self.alpha, self.name)
        return fit_prior(
            _check_counts(counts),
            pool=self.pool,  # type: ignore[arg-type]
            integrated=self.kind == "empirical",
            kappa_prior=self.kappa_prior,
            w=w,
        )


def _fixed_prior(kind: str, k: int, alpha: ArrayLike | None, name: str) -> FittedPrior:
    """The one node of a fixed prior for ``k`` categories.

    The named ones are cached: they are built on every call of the scorio-named functions.
    """
    if kind in ("uniform", "jeffreys"):
        key = (kind, k)
        if key not in _FIXED:
            fitted = _fixed(kind, np.full(k, 1.0 if kind == "uniform" else 0.5))
            for arr in fitted[1:4] + fitted[5:7]:
                arr.setflags(write=False)  # shared: nobody may change it
            _FIXED[key] = fitted
        return _FIXED[key]
    from bayes_eval.inputs import check_alpha0

    assert alpha is not None  # a fixed prior has its concentration
    try:
        values = check_alpha0(alpha, k)
    except ValueError as exc:
        raise ValueError(str(exc).replace("alpha0", name)) from None
    return _fixed("fixed", values)


_FIXED: dict[tuple[str, int], FittedPrior] = {}


#: The named priors without options, built once (``Prior.parse`` returns them).
_NAMED = {kind: Prior(kind) for kind in PRIOR_KINDS}


def resolve_prior(
    prior: PriorSpec | Prior,
    counts: ArrayLike,
    *,
    pool: Pool = "model",
    kappa_prior: tuple[float, float] | None = None,
) -> FittedPrior:
    """Quadrature nodes of ``prior`` (a :class:`Prior` or its words) for the given counts.

    This is ``Prior.parse(prior, pool=...).fit(counts)`` (``pool`` for learned priors only).

    Parameters
    ----------
    prior : str, float, array_like or Prior
        As in :meth:`Prior.parse`.
    counts : array_like, shape ``(M, C + 1)`` or ``(L, M, C + 1)``
        Category counts per question (and model), those of earlier runs included.
    pool, kappa_prior
        As in :func:`fit_prior` (learned priors only).

    Returns
    -------
    FittedPrior
        One node for a fixed prior, the hyperposterior's nodes for a learned one.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[1, 3], [3, 1], [2, 2], [0, 4], [4, 0]])
    >>> resolve_prior("jeffreys", counts).alpha.tolist()
    [[0.5, 0.5]]
    >>> resolve_prior("empirical-plugin", counts, pool="benchmark").label
    'empirical (benchmark-pooled, plug-in)'
    """
    spec = Prior.parse(prior)
    if spec.learned:
        spec = Prior.parse(spec, pool=pool)
        if kappa_prior != spec.kappa_prior:
            spec = Prior(
                **{
                    **{f: getattr(spec, f) for f in spec.__dataclass_fields__},
                    "kappa_prior": kappa_prior,
                }
            )
    return spec.fit(counts)
