r"""The crossed (model x question) model: abilities and shared question difficulties.

Questions are shared by all models of a benchmark, so difficulty is shared too (the Rasch
model: Rasch, "Probabilistic Models for Some Intelligence and Attainment Tests", 1960),

.. math::
    \eta_{l\alpha} = \theta_l - b_\alpha, \quad \theta_l \sim N(\mu_\theta, \sigma_\theta^2),
    \quad b \sim \mathrm{ZeroSumNormal}(\sigma_b), \quad
    \bar\pi_l = \frac1M \sum_{\alpha=1}^M E[s \mid \eta_{l\alpha}],

with :math:`\mu_\theta \sim N(0, 1.5^2)`, :math:`\sigma_\theta \sim N^+(1)`,
:math:`\sigma_b \sim N^+(2)` (a difficulty sd of 2 on the logit scale spans questions solved
2% to 98% of the time). ``pi_bar`` averages over **all** M questions, answered or not: every
model is scored as if on the full question set (a leaderboard's models answered different
subsets; the crossed model puts them on one scale through the shared difficulties).

**Likelihoods** (``likelihood=``), each over the *observed* cells only:

* ``"binomial"``: binary results, :math:`S_{l\alpha} \sim \mathrm{Bin}(n_{l\alpha},
  \mathrm{logit}^{-1}\eta_{l\alpha})`; :math:`E[s] = \mathrm{logit}^{-1}\eta`.
* ``"fractional"``: graded scores :math:`s \in [0, 1]`, the quasi-likelihood of Wedderburn
  ("Quasi-likelihood functions, generalized linear models, and the Gauss-Newton method",
  1974): each score adds :math:`s\log p + (1 - s)\log(1 - p)`, a cell
  :math:`S\log p + (n - S)\log(1 - p)` with :math:`S` its sum of scores (the closed form's
  fractional counts, :mod:`bayes_eval.inputs`). Only the mean :math:`E[s] = p` is modelled,
  with the Bernoulli variance :math:`p(1 - p)` per score; every score in ``[0, 1]`` with mean
  ``p`` has at most that variance (:math:`s^2 \le s`), so the intervals are conservative
  when graded scores vary less than all-or-nothing ones, and exact for binary scores.
* ``"ordinal"``: scores on K levels :math:`0, \tfrac1{K-1}, \dots, 1`, the cumulative-logit
  model of McCullagh ("Regression models for ordinal data", 1980),
  :math:`P(Y \ge k) = \mathrm{logit}^{-1}(\eta - c_k)` with ordered cutpoints
  :math:`c_1 < \dots < c_{K-1}` shared by all models and questions, so
  :math:`E[s] = \frac1{K-1}\sum_k P(Y \ge k)`. The cutpoints sum to zero (``theta`` keeps the
  overall level, as the zero-sum difficulties leave it) and their gaps have the prior
  :math:`c_{k+1} - c_k \sim \mathrm{LogNormal}(\log 1.5, 1)` (median 1.5 logits, 95% in
  [0.2, 10.7]: binomial scores on 5 levels have gaps near 1.8, near 1.5 on 11). With K = 2
  the model is the binomial one.

**Layout.** A leaderboard is incomplete, so the likelihood runs over long vectors: one entry
per answered (model, question) cell (``cell_model``, ``cell_question`` and the cell's
sufficient statistics, dim ``cell``; for ``"ordinal"`` one entry per cell and observed level,
dim ``cell_level``), and an unanswered pair costs nothing. The likelihood of a cell is
written with :math:`e^{\eta} = e^{\theta_l} e^{-b_\alpha}`, one ``log1p`` per cell (an
``exp`` per cell is as dear as the rest of the gradient on these machines), and without the
binomial/multinomial coefficient (constant in the parameters; zero for the single-trial cells
that make up a leaderboard): the pointwise log-likelihood is that of the ordered trials. The
ordinal entries go through one compiled kernel (:mod:`bayes_eval.models.crossed_kernels`:
one logarithm per entry, the value and its gradient in one pass), which made an ordinal
gradient cheaper than a binomial one (``benchmarks/README.md``). A
*small complete binary* input (every cell answered, :math:`LM \le` :data:`SMALL_CELLS`) keeps
the dense layout the rest of :mod:`bayes_eval.models` reads: ``successes`` and ``n_trials``
over (model, question), observed ``successes_obs`` :math:`\sim \mathrm{Bin}` with its
coefficient (predictive checks, LOO by question, NUTS SBC).

**Parametrisations** (``parametrization=``). ``"noncentered"``: :math:`\theta = \mu_\theta +
\sigma_\theta z`, :math:`b = \sigma_b u` (free ``z_theta``, ``z_b``); ``"centered"``: free
``theta`` and ``b``; ``"auto"``: each block by how much data pins it
(:func:`~bayes_eval.models.crossed_data.auto_centering`).
*Toy sizes (5 models x 30 questions x 8 trials), PyMC's NUTS, 2 chains x 800 draws:* with
non-centred abilities PyMC's default target_accept 0.8 diverged in 9 of 24 runs and 0.95 in
none (:func:`crossed_info` sets 0.95 when ``theta`` is non-centred). The cause is not a funnel
neck: each ``theta_l`` is pinned by 240 trials (se about 0.15) while 5 models leave
``sigma_theta`` wide, so ``z_l`` has scale :math:`\mathrm{se}/\sigma_\theta`, varying
five-fold across its posterior. Centring the abilities removed that (0 divergences in 24 runs
at 0.8) but has the classic funnel when the models are close and ``sigma_theta`` reaches
towards 0 (5 equal models, 6 runs: 1,005 divergences centred, 1 non-centred at 0.95), and
with one or two trials per question (9 and 108 in 6 runs; 0 non-centred). Hence the
default stays non-centred, and ``"auto"`` centres a block only when the data clearly pin it.
*Leaderboard scale* (93 models x 1,136 questions, 9.8% of pairs missing, nutpie, 4 chains x
1,000 draws after 1,000 tuning steps on two cores, ``benchmarks/bench_crossed.py``): each
ability is pinned by about 1,000 answers and each difficulty by about 84, so ``"auto"`` centres
both blocks, at PyMC's target_accept 0.8 (run times in ``benchmarks/README.md``): 15 gradient
evaluations per draw; no divergence; max r-hat over every variable 1.0105 (one of the 1,136
difficulties; ``pi_bar`` 1.0056), 1.0094 and 1.0078; min bulk ESS 4,793, 5,873 and 3,029. The
share of the 93 true mean scores inside the 90% intervals of ``pi_bar``: 0.90 (binomial), 0.99
(fractional: conservative, as above) and 0.84 (ordinal, on scores drawn as Binomial(K - 1, p) /
(K - 1), which the cumulative-logit model fits only approximately). With only two models
``sigma_theta`` is barely identified and every form diverges; raise ``target_accept`` there and
check.

**Interaction** (``interaction=True``). LLMs have question-specific strengths: one solves a
question that its ability and the question's difficulty say it should not. The option adds a
model x question random effect on the logit scale,

.. math::
    \eta_{l\alpha} = \theta_l - b_\alpha + e_{l\alpha}, \quad e = \sigma_e z, \quad
    z \sim \mathrm{ZeroSumNormal}(1) \text{ over both axes}, \quad \sigma_e \sim N^+(1),

non-centred (``z_e`` over (model, question), ``sigma_e``), in every layout and likelihood;
``p`` and ``pi_bar`` include it, so ``pi_bar`` stays the mean expected score over *these*
questions (the data say nothing about the :math:`e_{l\alpha}` of an unanswered pair beyond
the zero-sum constraint: its draws follow the prior). The rows and
columns of ``z_e`` sum to zero, so ``theta_l`` keeps its meaning (the mean logit of model
``l`` over the questions) and ``b_alpha`` its own, without a ridge between them and the
interaction's means (the zero-sum constraint shrinks the marginal prior variance of each
:math:`e_{l\alpha}` by :math:`(1 - 1/L)(1 - 1/M)`). The half-normal scale 1 is weakly
informative on the scale of the difficulties (:math:`\sigma_b \sim N^+(2)`): an interaction
as wide as the spread of difficulties is unlikely a priori. This is the over-dispersion of
the binomial cells (a logistic-normal-binomial model: Williams, "Extra-binomial variation in
logistic linear models", Applied Statistics, 1982; the crossed random effects of Baayen,
Davidson and Bates, "Mixed-effects modeling with crossed random effects for subjects and
items", Journal of Memory and Language, 2008). With several trials per cell the spread of a
cell's successes beyond the binomial identifies :math:`\sigma_e`. *With one trial per cell
it is only weakly identified*: a single Bernoulli has no over-dispersion, and the marginal
success probability :math:`E[\mathrm{logit}^{-1}(\eta + e)]` is a flatter logistic curve in
:math:`\eta`, which the abilities and difficulties can mimic by shrinking; :math:`\sigma_e`
is then learned mostly from its prior, and the intervals of ``p`` carry that prior
uncertainty. *Measured* (``bayes-eval validate crossed``: 6 LLMs x 30 questions,
:math:`\theta \sim N(0, 0.5^2)`, :math:`b \sim N(0, 2^2)`, 90% intervals, nutpie 4 x 500
draws): with N = 4 trials and a true interaction sd of 1 the posterior mean of
:math:`\sigma_e` was 0.94 (its interval held 1 on 86% of 50 boards) and the per-cell
intervals covered 0.88 (sd/RMSE 0.91) where the Rasch model's covered 0.61 (sd/RMSE 0.51);
with no interaction the option costs little (0.94 against 0.91). With N = 1 the posterior
mean of :math:`\sigma_e` was 0.80 whether the truth was 0 or 1 (the prior's mean is
:math:`\sqrt{2/\pi} = 0.80`), yet the per-cell intervals covered 0.89 at :math:`\tau = 1`
(Rasch 0.75) and 0.96 at :math:`\tau = 0` (wider than needed, sd/RMSE 1.11; 30 boards);
there the sampler mixes worse (r-hat up to 1.05 over ``theta``, ``pi_bar`` and the sds with
4 x 500 draws, against 1.02 at N = 4): run longer chains. ``pi_bar`` covered 0.87-0.93 with
or without the option in every case (sd/RMSE 0.92-1.06): averaging over M questions the
cell-level misfit mostly cancels. Cost: :math:`LM` more parameters (and ``z_e`` in the
trace, :math:`LM` values per draw).

*Identification.* The likelihood sees only :math:`\theta_l - b_\alpha`. The difficulties sum
to zero exactly (a ``ZeroSumNormal``; every draw, to rounding), so ``theta_l`` is the mean over
this benchmark's questions of model ``l``'s logit (abilities compare across models on the
same question set only) and ``b_alpha`` has marginal prior sd :math:`\sigma_b\sqrt{1 - 1/M}`;
with only a prior centring ``b``, ``mu_theta`` and the mean difficulty trade off along a ridge
(r-hat 1.03 on ``mu_theta``). The ordinal cutpoints sum to zero for the same reason.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from numpy.typing import ArrayLike
from scipy.special import expit

from bayes_eval.inputs import shown
from bayes_eval.models.crossed_data import CrossedData, auto_centering
from bayes_eval.models.crossed_kernels import ordinal_loglik
from bayes_eval.models.model_data import ModelData, ModelInfo, data_value

__all__ = [
    "INTERACTION_PRIOR_SD",
    "PARAMETRIZATIONS",
    "SMALL_CELLS",
    "crossed_info",
    "crossed_likelihood",
    "crossed_model",
]

Likelihood = Literal["binomial", "fractional", "ordinal"]
Parametrization = Literal["noncentered", "centered", "auto"]
PARAMETRIZATIONS = ("noncentered", "centered", "auto")
#: Inputs with at most this many (model, question) pairs store ``p`` by default and, when
#: binary and complete, keep the dense layout (4,000 draws of 5,000 cells are 160 MB).
SMALL_CELLS = 5000
#: Scale of the half-normal prior on the interaction sd ``sigma_e`` (logits; module docstring).
INTERACTION_PRIOR_SD = 1.0
#: Median gap (logits) of the log-normal prior on the ordinal cutpoint gaps, and its log-sd.
GAP_PRIOR = (1.5, 1.0)
_FREE = ("mu_theta", "sigma_theta", "sigma_b")
_NO_POOLING = "Bayes@N closed form with the uniform prior (no pooling), for comparison"
_NOTES = {
    "binomial": _NO_POOLING,
    "fractional": "Bayes@N closed form with fractional counts Beta(1 + S, 1 + n - S) per cell "
    "(no pooling), for comparison",
    "ordinal": "Bayes@N closed form, Dirichlet over the K levels with the uniform prior "
    "(no pooling), for comparison",
}


def _bernoulli_logp(value, n, eta, w):
    r""":math:`S\eta - n\log(1 + e^\eta)` per cell, with ``w`` = :math:`e^\eta`."""
    return value * eta - n * pt.log1p(w)


def _binomial_random(n, eta, w, rng=None, size=None):
    return rng.binomial(n, expit(eta), size=size)


def _ordinal_logp(value, theta, b, c, li, qi, kk, off=None):
    """``count * log P(Y = k)`` per (cell, level) entry (module docstring).

    It is computed by the compiled kernel :func:`~bayes_eval.models.crossed_kernels.ordinal_loglik`.
    ``theta``, ``b`` and ``c`` arrive with a leading batch axis of length 1 (their core dims in the
    distribution's signature): the first row is the vector itself.
    """
    theta, b, c = (x[(0,) * (x.ndim - 1)] for x in (theta, b, c))
    return ordinal_loglik(theta, b, c, li, qi, kk, value, off)


def _abilities(centred: tuple[bool, bool]):
    """The priors (module docstring): ``theta``, ``b``, in today's order of creation."""
    mu_theta = pm.Normal("mu_theta", 0.0, 1.5)
    sigma_theta = pm.HalfNormal("sigma_theta", 1.0)
    sigma_b = pm.HalfNormal("sigma_b", 2.0)
    z = None if centred[0] else pm.Normal("z_theta", 0.0, 1.0, dims="model")
    u = None if centred[1] else pm.ZeroSumNormal("z_b", sigma=1.0, dims="question")
    if centred[0]:
        theta = pm.Normal("theta", mu_theta, sigma_theta, dims="model")
    else:
        theta = pm.Deterministic("theta", mu_theta + sigma_theta * z, dims="model")
    if centred[1]:
        b = pm.ZeroSumNormal("b", sigma=sigma_b, dims="question")
    else:
        b = pm.Deterministic("b", sigma_b * u, dims="question")
    return theta, b


def _interaction():
    """The model x question interaction ``e`` (module docstring), non-centred."""
    sigma_e = pm.HalfNormal("sigma_e", INTERACTION_PRIOR_SD)
    z_e = pm.ZeroSumNormal("z_e", sigma=1.0, n_zerosum_axes=2, dims=("model", "question"))
    return sigma_e * z_e


def _cutpoints(K: int):
    """Zero-sum ordered cutpoints from log-normal gaps."""
    if K > 2:
        median, log_sd = GAP_PRIOR
        gap = pm.LogNormal("cut_gap", mu=np.log(median), sigma=log_sd, dims="gap")
        raw = pt.concatenate([pt.zeros(1), pt.cumsum(gap)])
    else:
        raw = pt.zeros(1)
    return pm.Deterministic("cutpoints", raw - raw.mean(), dims="cutpoint")


def crossed_model(  # noqa: C901 - one branch per likelihood and option of the model
    R: ArrayLike | xr.DataArray,
    *,
    likelihood: Likelihood = "binomial",
    parametrization: Parametrization = "noncentered",
    levels: int | None = None,
    mask: ArrayLike | None = None,
    models: list[str] | None = None,
    store_p: bool | None = None,
    interaction: bool = False,
) -> pm.Model:
    r"""Abilities and shared question difficulties on a (possibly incomplete) leaderboard.

    :math:`\mathrm{logit}` scale :math:`\eta_{l\alpha} = \theta_l - b_\alpha`, the likelihood
    over the answered cells, and :math:`\bar\pi_l`, the mean expected score over all M
    questions (module docstring for the model, likelihoods and parametrisations).

    Parameters
    ----------
    R : array_like or DataArray, shape ``(L, M, N)`` or ``(M, N)``
        Scores per (model, question, trial); NaN (or ``mask``) where a trial was not run. A
        DataArray has dims ``model, question, trial`` (labels become coords).
    likelihood : {"binomial", "fractional", "ordinal"}, keyword-only
        Binary 0/1 results; graded scores in ``[0, 1]`` (Wedderburn's quasi-likelihood);
        scores on ``levels`` evenly spaced levels (McCullagh's cumulative logits).
    parametrization : {"noncentered", "centered", "auto"}, keyword-only
        ``"auto"``: :func:`~bayes_eval.models.crossed_data.auto_centering` per block.
    levels : int, optional, keyword-only
        K >= 2, for ``likelihood="ordinal"`` only.
    mask : array_like of bool, optional, keyword-only
        True where a trial is missing (same shape as ``R``).
    models : list of str, optional, keyword-only
        Model names (default: the DataArray's labels or ``model_0``, ...).
    store_p : bool, optional, keyword-only
        Keep the (model, question) expected scores ``p`` in the trace. Default: when
        :math:`LM \le` :data:`SMALL_CELLS` (at 93 x 1,136 and 4,000 draws ``p`` is 3.4 GB).
    interaction : bool, keyword-only
        Add the model x question interaction :math:`e_{l\alpha} = \sigma_e z_{l\alpha}`
        (module docstring; ``sigma_e`` and ``z_e``). Default False: the Rasch model.

    Returns
    -------
    pymc.Model
        ``theta`` (model), ``b`` (question), ``pi_bar`` (model), ``p`` (model, question) if
        stored; ``cutpoints`` for ``"ordinal"``; ``sigma_e`` and ``z_e`` (model, question)
        with ``interaction``. Observed ``successes_obs`` (binomial),
        ``scores_obs`` (fractional, the score sums) or ``levels_obs`` (ordinal, counts).

    Raises
    ------
    ValueError
        For an unknown option, scores that do not fit the likelihood (not 0/1, outside
        ``[0, 1]``, off the K-level grid), no observed trial, a model without any, a
        ``mask``/``models`` of the wrong size, or ``interaction`` with a single model or
        question.

    Examples
    --------
    Two models, model ``b`` without trials on question 1:

    >>> import numpy as np
    >>> from bayes_eval.models import crossed_model
    >>> R = np.array([[[1, 0, 1], [0, 0, np.nan]], [[1, 1, 1], [np.nan] * 3]])
    >>> model = crossed_model(R, models=["a", "b"])
    >>> [v.name for v in model.free_RVs]
    ['mu_theta', 'sigma_theta', 'sigma_b', 'z_theta', 'z_b']
    >>> [v.name for v in model.deterministics], [v.name for v in model.observed_RVs]
    (['theta', 'b', 'p', 'pi_bar'], ['successes_obs'])
    >>> graded = np.array([[0, 0.5, 1], [1, 1, 0.5]])  # one model, scores on 3 levels
    >>> ordinal = crossed_model(graded, likelihood="ordinal", levels=3)
    >>> [v.name for v in ordinal.deterministics]
    ['theta', 'b', 'cutpoints', 'p', 'pi_bar']
    """
    if parametrization not in PARAMETRIZATIONS:
        raise ValueError(
            f"parametrization is {shown(parametrization)}; expected one of "
            f"{list(PARAMETRIZATIONS)}."
        )
    if store_p is not None and not isinstance(store_p, (bool, np.bool_)):
        raise ValueError(f"store_p is {shown(store_p)}; expected True, False or None.")
    if not isinstance(interaction, (bool, np.bool_)):
        raise ValueError(f"interaction is {shown(interaction)}; expected True or False.")
    data = CrossedData(R, likelihood, levels, mask, models)
    L, M = data.shape
    if interaction and min(L, M) < 2:
        raise ValueError(
            f"interaction=True with {L} model(s) and {M} question(s); expected at least 2 of "
            "each (the interaction sums to zero over models and over questions, so with one "
            "it is zero)."
        )
    small = L * M <= SMALL_CELLS
    store = small if store_p is None else bool(store_p)
    if parametrization == "auto":
        centred = auto_centering(data.n_pair, data.sum_pair)
    else:
        centred = (parametrization == "centered",) * 2
    coords = dict(data.coords)
    if likelihood == "binomial" and data.complete and small:
        return _dense(data, coords, centred, store, bool(interaction))
    if likelihood == "ordinal":
        coords["cell_level"] = np.arange(data.entries[0].size)
        coords["cutpoint"] = np.arange(data.K - 1)
        if data.K > 2:
            coords["gap"] = np.arange(data.K - 2)
    else:
        coords["cell"] = np.arange(data.li.size)
    with pm.Model(coords=coords) as model:
        if likelihood == "ordinal":
            li, qi, kk, count = data.entries
            dim = "cell_level"
            pm.Data("level_index", kk, dims=dim)
            pm.Data("level_count", count, dims=dim)
        else:
            li, qi, dim = data.li, data.qi, "cell"
        cm = pm.Data("cell_model", li, dims=dim)
        cq = pm.Data("cell_question", qi, dims=dim)
        if likelihood == "binomial":
            obs = pm.Data("successes", np.rint(data.S).astype(np.int64), dims=dim)
        elif likelihood == "fractional":
            obs = pm.Data("score_sum", data.S, dims=dim)
        if likelihood != "ordinal":
            n_trials = pm.Data("n_trials", data.n, dims=dim)
        theta, b = _abilities(centred)
        w = pt.exp(theta)[cm] * pt.exp(-b)[cq]
        eta = theta[:, None] - b[None, :]
        eta_cell = theta[cm] - b[cq]
        if interaction:
            e = _interaction()
            e_cell = e[cm, cq]
            w, eta, eta_cell = w * pt.exp(e_cell), eta + e, eta_cell + e_cell
        if likelihood == "ordinal":
            c = _cutpoints(data.K)
            params = [theta, b, c, cm, cq, model["level_index"]]
            if interaction:
                params.append(e_cell)
            pm.CustomDist(
                "levels_obs",
                *params,
                logp=_ordinal_logp,
                observed=model["level_count"],
                dims=dim,
                dtype="int64",
                signature="(l),(m),(k)" + ",()" * (len(params) - 3) + "->()",
            )
            p = pm.math.invlogit(eta[:, :, None] - c[None, None, :]).mean(axis=-1)
        else:
            pm.CustomDist(
                "successes_obs" if likelihood == "binomial" else "scores_obs",
                n_trials,
                eta_cell,
                w,
                logp=_bernoulli_logp,
                random=_binomial_random if likelihood == "binomial" else None,
                observed=obs,
                dims=dim,
                dtype="int64" if likelihood == "binomial" else "floatX",
            )
            p = pm.math.invlogit(eta)
        if store:
            p = pm.Deterministic("p", p, dims=("model", "question"))
        pm.Deterministic("pi_bar", p.mean(axis=-1), dims="model")
    return model


def _dense(
    data: CrossedData, coords: dict, centred: tuple[bool, bool], store: bool, interaction: bool
) -> pm.Model:
    """Today's layout for small complete binary input: ``Binomial`` over (model, question)."""
    successes = np.rint(data.sum_pair).astype(np.int64)
    with pm.Model(coords=coords) as model:
        s = pm.Data("successes", successes, dims=("model", "question"))
        n_trials = pm.Data("n_trials", data.n_pair.astype(np.int64), dims=("model", "question"))
        theta, b = _abilities(centred)
        eta = theta[:, None] - b[None, :]
        p = pm.math.invlogit(eta + _interaction() if interaction else eta)
        if store:
            p = pm.Deterministic("p", p, dims=("model", "question"))
        pm.Binomial("successes_obs", n=n_trials, p=p, observed=s, dims=("model", "question"))
        pm.Deterministic("pi_bar", p.mean(axis=-1), dims="model")
    return model


def crossed_likelihood(names) -> str | None:
    """The likelihood of a crossed model from the names of its data, or None.

    The names are those of its ``pm.Data`` containers, or of a fit's ``constant_data`` and
    ``observed_data`` variables; None if they are not a crossed model's.

    Parameters
    ----------
    names : iterable of str
        Names of the model's ``pm.Data`` containers, or of the variables of a fit's
        ``constant_data`` and ``observed_data`` groups.

    Returns
    -------
    str or None
        ``"binomial"``, ``"fractional"`` or ``"ordinal"``; None if the names are not those of
        a crossed model.

    Examples
    --------
    >>> from bayes_eval.models.crossed import crossed_likelihood
    >>> crossed_likelihood(["successes", "n_trials"])
    'binomial'
    >>> crossed_likelihood(["level_count", "level_index", "cell_model", "cell_question"])
    'ordinal'
    >>> crossed_likelihood(["count_data", "w"]) is None
    True
    """
    names = set(names)
    if {"scores_obs"} <= names or {"score_sum", "n_trials", "cell_model"} <= names:
        return "fractional"
    if {"levels_obs"} <= names or {"level_count", "level_index", "cell_model"} <= names:
        return "ordinal"
    if {"successes_obs"} <= names or {"successes", "n_trials"} <= names:
        return "binomial"
    return None


def crossed_info(model: pm.Model) -> ModelInfo | None:
    """The :class:`ModelInfo` of a model built by :func:`crossed_model` (else ``None``).

    The closed-form reference, per cell without pooling: binary results, Beta(1 + S,
    1 + n - S) (unanswered cells at the uniform prior); fractional, the same with the
    fractional counts; ordinal, the Dirichlet over the K levels with the uniform prior. NUTS
    runs at ``target_accept`` 0.95 when ``theta`` is non-centred (module docstring), at
    PyMC's 0.8 when it is centred.

    Parameters
    ----------
    model : pymc.Model
        Any PyMC model; recognised by its ``pm.Data`` containers and free variables.

    Returns
    -------
    ModelInfo or None
        Kind ``crossed``, the counts per (model, question, category), the unpooled
        closed-form reference and the ``target_accept``; ``None`` for another kind of model.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import crossed_model
    >>> from bayes_eval.models.crossed import crossed_info
    >>> R = np.array([[[1, 0, 1], [0, 0, np.nan]], [[1, 1, 1], [np.nan] * 3]])
    >>> info = crossed_info(crossed_model(R))
    >>> info.kind, info.target_accept
    ('crossed', 0.95)
    >>> info.reference[""].tolist()  # Beta(1 + failures, 1 + successes) per cell
    [[[2.0, 3.0], [3.0, 1.0]], [[1.0, 4.0], [1.0, 1.0]]]
    """
    free = {v.name for v in model.free_RVs}
    likelihood = crossed_likelihood(v.name for v in model.data_vars)
    if likelihood is None or not set(_FREE) <= free:
        return None
    L, M = len(model.coords["model"]), len(model.coords["question"])
    if "cell_model" not in {v.name for v in model.data_vars}:  # dense binary layout
        s = data_value(model, "successes").astype(np.int64)
        counts = np.stack([data_value(model, "n_trials").astype(np.int64) - s, s], -1)
        w = np.array([0.0, 1.0])
    else:
        li, qi = data_value(model, "cell_model"), data_value(model, "cell_question")
        if likelihood == "ordinal":
            K = len(model.coords["cutpoint"]) + 1
            counts = np.zeros((L, M, K))
            kk = data_value(model, "level_index")
            np.add.at(counts, (li, qi, kk), data_value(model, "level_count"))
            w = np.arange(K) / (K - 1)
        else:
            S = data_value(model, "successes" if likelihood == "binomial" else "score_sum")
            counts = np.zeros((L, M, 2))
            np.add.at(counts, (li, qi, 1), S)
            np.add.at(counts, (li, qi, 0), data_value(model, "n_trials") - S)
            w = np.array([0.0, 1.0])
        if likelihood == "binomial":
            counts = counts.astype(np.int64)
    data = ModelData(
        counts=counts,
        n_trials=counts.sum(axis=-1),
        prior_counts=np.zeros_like(counts),
        w=w,
        alpha0=np.ones(w.size),
        coords={
            "model": list(model.coords["model"]),
            "question": list(model.coords["question"]),
            "category": list(range(w.size)),
        },
    )
    return ModelInfo(
        kind="crossed",
        data=data,
        reference={"": data.alpha0 + data.counts},
        reference_note=_NOTES[likelihood],
        target_accept=0.95 if "z_theta" in free else 0.8,
    )
