r"""Pointwise log-likelihood, PSIS-LOO and model comparison for the bayes_eval models.

**The unit of observation** is one (LLM, question) cell: the :math:`N_{l\alpha}` trials of
LLM ``l`` on question :math:`\alpha`, summarised by its count vector :math:`n_{l\alpha}`. The
pointwise log-likelihood of every model is the log pmf *of that count vector*, so all models
live on the same units and the same scale and ELPD differences are meaningful:

* matching: :math:`\log\mathrm{Mult}(n_{l\alpha}\mid N_{l\alpha}, \pi_{l\alpha})`;
* hierarchical and learned power prior: :math:`\log\mathrm{DirMult}(n_{l\alpha}\mid
  N_{l\alpha}, a_{l\alpha})` (``pi`` integrated out);
* mixture: :math:`\log\sum_g \lambda_{lg}\,\mathrm{DirMult}(n_{l\alpha}\mid N_{l\alpha},
  \kappa_{lg}\beta_{lg})` (``pi`` and the question's group integrated out);
* crossed (binary): :math:`\log\mathrm{Bin}(s_{l\alpha}\mid N_{l\alpha}, p_{l\alpha})`, which
  for two categories *is* the multinomial pmf of :math:`(N - s, s)`.

All three pmfs include the multinomial coefficient :math:`N!/\prod_c n_c!` (PyMC's
``Multinomial``, ``DirichletMultinomial`` and ``Binomial`` log-probabilities do; checked
against SciPy in ``tests/models/test_compare.py``). The likelihood of the *ordered* trial
sequence would omit it; the constant is the same in every model, so it cancels in any ELPD
difference, but the absolute ELPDs here are those of the count vectors.

**Exact LOO for the matching model.** Each cell has its own :math:`\pi_{l\alpha}` and no
other cell informs it, so leaving cell :math:`(l,\alpha)` out leaves :math:`\pi_{l\alpha}` at
its prior and the exact LOO predictive is the prior predictive,

.. math:: p(n_{l\alpha} \mid n_{-l\alpha}) = \mathrm{DirMult}(n_{l\alpha} \mid N_{l\alpha},
   \alpha_0 + a_0 n^0_{l\alpha}),

in closed form (:func:`exact_matching_loo`). PSIS-LOO (Vehtari, Gelman and Gabry, "Practical
Bayesian model evaluation using leave-one-out cross-validation and WAIC", Statistics and
Computing, 2017) must then importance-sample from the posterior to the prior of one cell, and
its Pareto :math:`\hat k` is typically high.

**Exact LOO for the hierarchical model.** Given its hyperparameters :math:`a_l =
\kappa_l\beta_l` the cells of LLM ``l`` are independent Dirichlet-multinomials, so

.. math:: p(n_{l\alpha} \mid n_{-l\alpha})
   = \Big(\int \frac{p(a_l \mid n_l)}{\mathrm{DirMult}(n_{l\alpha} \mid a_l)}\,da_l\Big)^{-1},

an integral over the hyperposterior of two to a few dimensions. :func:`exact_hierarchical_loo`
computes it on the quadrature nodes of the learned prior
(:func:`bayes_eval.posteriors.priors.fit_prior`, whose hyperprior is this model's: the same
:math:`\beta \sim \mathrm{Dir}(1)` and log-normal :math:`\kappa`), deterministic where
PSIS has Monte Carlo error; it agrees with refitting the hyperposterior without the cell and
with a brute-force grid (``tests/models/test_compare.py``).

:func:`compare_models` reports both and **uses the exact values** for the matching and the
hierarchical model; PSIS is used for the others, with their Pareto :math:`\hat k` reported
(counts above the sample-size threshold ``good_k`` and above 0.7).

**The crossed model with interaction** (``crossed-interaction``). Each cell has its own
interaction :math:`e_{l\alpha}`, so leaving a cell out moves :math:`e_{l\alpha}` back to its
prior and PSIS on the conditional log-likelihood fails (on the 16 x 15 MathArena board, 85 of
240 cells had Pareto :math:`\hat k > 0.7`). Its pointwise log-likelihood is therefore the
cell's likelihood with :math:`e_{l\alpha}` *integrated out* given the other parameters,

.. math:: \log p(s_{l\alpha} \mid \theta, b, \sigma_e) = \log\int
   \mathrm{Bin}\big(s_{l\alpha} \mid N_{l\alpha}, \mathrm{logit}^{-1}(\theta_l - b_\alpha
   + \sigma_e c\,x)\big)\,\phi(x)\,dx, \qquad c = \sqrt{(1 - 1/L)(1 - 1/M)},

by the trapezoidal rule (:func:`integrated_interaction_loglik`; :math:`\sigma_e^2c^2` is
the marginal prior variance of one zero-sum :math:`e_{l\alpha}`), and PSIS then reweights
only :math:`(\theta, b, \sigma_e)`: the integrated importance sampling of Vehtari, Mononen,
Tolvanen, Sivula and Winther ("Bayesian leave-one-out cross-validation approximations for
Gaussian latent variable models", JMLR, 2016) and of Li, Qiu, Zhang and Feng
("Approximating cross-validatory predictive evaluation in Bayesian latent variable models
with integrated IS and WAIC", Statistics and Computing, 2016). It treats the left-out
:math:`e_{l\alpha}` as a fresh draw given :math:`\sigma_e` (the zero-sum constraint ties it
to its row and column only through their sums); its ELPD is of the same count vectors as the
other models'.

**Which LOO.** ``unit="cell"`` (default) asks "how well does the model predict a new run of
this LLM on a question whose other LLMs' results are known", the natural question when
re-running or adding an LLM to a benchmark. ``unit="question"`` leaves out a whole question
(all LLMs' cells, their log-likelihoods summed): "how well does it predict a new question".
The two differ only for the crossed model, whose difficulty :math:`b_\alpha` is shared across
LLMs; for it the question-level PSIS weights move :math:`b_\alpha` back to its prior and
:math:`\hat k` is often high. In the matching and hierarchical models the LLMs are independent
given the hyperparameters, so a question's ELPD is the sum of its cells'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np
import pymc as pm
import xarray as xr
from numpy.typing import ArrayLike
from scipy.special import gammaln, logsumexp

from bayes_eval.models.model_data import stored_data
from bayes_eval.nuts import NutsSettings

__all__ = [
    "ESTIMATORS",
    "Comparison",
    "LooSummary",
    "add_log_likelihood",
    "add_log_prior",
    "compare_models",
    "exact_hierarchical_loo",
    "exact_matching_loo",
    "integrated_interaction_loglik",
    "loo",
    "verdict",
]

Unit = Literal["cell", "question"]
#: Estimators :func:`compare_models` can fit.
ESTIMATORS = (
    "matching",
    "hierarchical",
    "mixture",
    "crossed",
    "crossed-interaction",
    "power_prior",
)
#: Pareto k above which PSIS is unreliable whatever the sample size (Vehtari et al. 2024).
K_BAD = 0.7
#: Posterior variables drawn exactly after sampling: excluded from the relative efficiency.
_DRAWN_AFTER = {
    "hierarchical": ("pi", "pi_bar"),
    "mixture": ("pi", "pi_bar"),
    "power_prior": ("pi", "pi_bar"),
}


def add_log_likelihood(idata: xr.DataTree, model: pm.Model) -> xr.DataTree:
    """``idata`` with a ``log_likelihood`` group: the pointwise log pmf of every cell.

    :func:`pymc.compute_log_likelihood` on the posterior; needed after nutpie, which stores
    none. The variable has the observed variable's name and dims ``(chain, draw, model,
    question)`` (module docstring for its scale). The input is not changed.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of ``model`` (its ``posterior`` group is used).
    model : pymc.Model
        The model it was sampled from.

    Returns
    -------
    xarray.DataTree
        A copy of ``idata`` with a ``log_likelihood`` group.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models import matching_model
    >>> model = matching_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> pi = np.random.default_rng(0).dirichlet([2, 4], size=(2, 200, 1, 3))  # made-up draws
    >>> dims = ("chain", "draw", "model", "question", "category")
    >>> fit = xr.DataTree.from_dict({"posterior": xr.Dataset({"pi": (dims, pi)})})
    >>> from bayes_eval.models import add_log_likelihood
    >>> ll = add_log_likelihood(fit, model)["log_likelihood"]["counts"]
    >>> ll.dims, ll.shape
    (('chain', 'draw', 'model', 'question'), (2, 200, 1, 3))
    """
    out = idata.copy()
    pm.compute_log_likelihood(out, model=model, progressbar=False)
    return out


def add_log_prior(idata: xr.DataTree, model: pm.Model) -> xr.DataTree:
    """``idata`` with a ``log_prior`` group (:func:`pymc.stats.compute_log_prior`).

    The group holds the prior log-density of every free variable per draw, as power-scaling
    sensitivity (:func:`arviz_stats.psense`) needs. The input is not changed.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of ``model`` (its ``posterior`` group is used).
    model : pymc.Model
        The model it was sampled from.

    Returns
    -------
    xarray.DataTree
        A copy of ``idata`` with a ``log_prior`` group (one variable per free variable).

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models import matching_model
    >>> model = matching_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> pi = np.random.default_rng(0).dirichlet([2, 4], size=(2, 200, 1, 3))  # made-up draws
    >>> dims = ("chain", "draw", "model", "question", "category")
    >>> fit = xr.DataTree.from_dict({"posterior": xr.Dataset({"pi": (dims, pi)})})
    >>> from bayes_eval.models import add_log_prior
    >>> with_prior = add_log_prior(fit, model)
    >>> sorted(with_prior.children), with_prior["log_prior"]["pi"].dims
    (['log_prior', 'posterior'], ('chain', 'draw', 'model', 'question'))
    """
    out = idata.copy()
    pm.stats.compute_log_prior(out, model=model, progressbar=False)
    return out


class LooSummary(NamedTuple):
    r"""Leave-one-out ELPD of one fit, with its diagnostics.

    Attributes
    ----------
    elpd, se, p : float
        ELPD, its standard error :math:`\sqrt{n\,\mathrm{var}(\mathrm{elpd}_i)}` and the
        effective number of parameters (lpd minus elpd).
    n_units : int
        Left-out units (cells or questions).
    method : str
        ``"psis"`` or ``"exact"``.
    unit : str
        ``"cell"`` or ``"question"``.
    good_k : float
        PSIS threshold :math:`\min(1 - 1/\log_{10} S, 0.7)` for S draws (NaN for exact).
    n_k_high : int
        Units with Pareto :math:`\hat k` above ``good_k`` (0 for exact).
    n_k_bad : int
        Units with :math:`\hat k` above 0.7.
    max_k : float
        Largest :math:`\hat k` (NaN for exact).
    elpd_data : arviz_stats ELPDData
        The pointwise result (``elpd_i``, ``pareto_k``) as :func:`arviz_stats.compare` takes it.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import exact_matching_loo, matching_model
    >>> summary = exact_matching_loo(matching_model(np.array([[0, 1, 1], [1, 1, 0]])))
    >>> type(summary).__name__, summary.method, summary.unit, summary.n_units
    ('LooSummary', 'exact', 'cell', 2)
    >>> sorted(summary.to_dict())[:4]
    ['elpd', 'good_k', 'max_k', 'method']
    """

    elpd: float
    se: float
    p: float
    n_units: int
    method: str
    unit: str
    good_k: float
    n_k_high: int
    n_k_bad: int
    max_k: float
    elpd_data: Any

    def to_dict(self) -> dict:
        """Everything but ``elpd_data``, JSON-ready."""
        return {k: v for k, v in self._asdict().items() if k != "elpd_data"}


def _check_unit(unit: str) -> None:
    if unit not in ("cell", "question"):
        raise ValueError(f"unit is {unit!r}; expected 'cell' or 'question'.")


def _pointwise(da: xr.DataArray, unit: str) -> xr.DataArray:
    """Cells as they are, or summed over LLMs per question."""
    return da.sum("model") if unit == "question" else da


def loo(idata: xr.DataTree, *, unit: Unit = "cell") -> LooSummary:
    r"""PSIS-LOO of a fit with a ``log_likelihood`` group (:func:`arviz_stats.loo`).

    The relative efficiency ``reff`` is the mean ESS over the *sampled* posterior variables
    (``pi`` drawn exactly after sampling would inflate it). Pareto :math:`\hat k` counts are
    always part of the result.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit with ``posterior`` and a ``log_likelihood`` group holding one variable
        (:func:`~bayes_eval.models.compare.add_log_likelihood`, or
        ``sample(..., log_likelihood=True)``).
    unit : {"cell", "question"}, keyword-only
        What is left out: one (model, question) cell (default) or a whole question (module
        docstring).

    Returns
    -------
    LooSummary
        The PSIS-LOO ELPD, its standard error, ``p`` and the Pareto :math:`\hat k` counts.

    Examples
    --------
    Made-up draws of a matching model's ``pi``: leaving a cell out moves its ``pi`` back to
    the prior, and PSIS flags it with a high Pareto k (module docstring):

    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models import matching_model
    >>> model = matching_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> pi = np.random.default_rng(0).dirichlet([2, 4], size=(2, 200, 1, 3))  # made-up draws
    >>> dims = ("chain", "draw", "model", "question", "category")
    >>> fit = xr.DataTree.from_dict({"posterior": xr.Dataset({"pi": (dims, pi)})})
    >>> from bayes_eval.models import add_log_likelihood, loo
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # arviz-stats warns of the high Pareto k
    ...     summary = loo(add_log_likelihood(fit, model))
    >>> summary.method, summary.unit, summary.n_units, summary.max_k > summary.good_k
    ('psis', 'cell', 3, True)
    """
    import arviz_stats

    _check_unit(unit)
    if "log_likelihood" not in idata.children:
        raise ValueError("idata has no log_likelihood group; call add_log_likelihood first.")
    ll_ds = idata["log_likelihood"].to_dataset()
    if len(ll_ds.data_vars) != 1:
        raise ValueError(f"log_likelihood has {list(ll_ds.data_vars)}; expected one variable.")
    name = next(iter(ll_ds.data_vars))
    ll = _pointwise(ll_ds[name], unit)
    post = idata["posterior"].to_dataset()
    post = post.drop_vars(
        [v for v in _DRAWN_AFTER.get(idata.attrs.get("bayes_eval_model", ""), ()) if v in post]
    )
    n_samples = ll.sizes["chain"] * ll.sizes["draw"]
    if post.sizes["chain"] > 1:
        ess = arviz_stats.ess(post, method="mean")
        reff = float(np.nanmean(np.hstack([ess[v].values.ravel() for v in ess.data_vars])))
        reff /= n_samples
    else:
        reff = 1.0
    tree = xr.DataTree.from_dict({"posterior": post, "log_likelihood": xr.Dataset({name: ll})})
    res = arviz_stats.loo(tree, pointwise=True, var_name=name, reff=reff)
    k = np.asarray(res.pareto_k).ravel()
    return LooSummary(
        elpd=float(res.elpd),
        se=float(res.se),
        p=float(res.p),
        n_units=int(res.n_data_points),
        method="psis",
        unit=unit,
        good_k=float(res.good_k),
        n_k_high=int(np.sum(k > res.good_k)),
        n_k_bad=int(np.sum(k > K_BAD)),
        max_k=float(np.max(k)),
        elpd_data=res,
    )


#: Step and half-width of the trapezoidal grid of :func:`integrated_interaction_loglik`.
QUADRATURE_GRID = (0.1, 9.0)


def integrated_interaction_loglik(idata: xr.DataTree, model: pm.Model) -> xr.DataTree:
    r"""``idata`` with the interaction-integrated ``log_likelihood`` of a binomial crossed model.

    The model is a binomial :func:`~bayes_eval.models.crossed_model` fitted with
    ``interaction=True`` (module docstring); the log likelihood is per draw and cell, by the
    trapezoidal rule on :math:`x \in [-9, 9]` with step 0.1 (``QUADRATURE_GRID``; 181 points). For
    an integrand analytic in a strip, as the logistic is (poles at imaginary distance
    :math:`\pi / (c\sigma_e)`), the rule's error falls geometrically with the step (Trefethen and
    Weideman, "The exponentially convergent trapezoidal rule", SIAM Review, 2014): measured against
    adaptive quadrature, 4e-15 at :math:`c\sigma_e = 3` and 3e-10 at 6 (Gauss-Hermite with 40 nodes
    erred by 4e-3 at 3). Same variable name, dims and binomial-coefficient convention as the
    observed variable (dense layout: with it; cell layout: without). The input is not changed.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of ``model``: ``posterior`` with ``theta``, ``b`` and ``sigma_e`` (and
        ``chain``/``draw`` coords); an existing ``log_likelihood`` lends its coords.
    model : pymc.Model
        The binomial :func:`~bayes_eval.models.crossed.crossed_model` with
        ``interaction=True`` it was sampled from.

    Returns
    -------
    xarray.DataTree
        A copy of ``idata`` whose ``log_likelihood`` group holds the integrated pointwise
        log-likelihood under the observed variable's name.

    Raises
    ------
    ValueError
        For a model without ``sigma_e`` or not binomial.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models import crossed_model
    >>> from bayes_eval.models.compare import integrated_interaction_loglik
    >>> R = np.array([[[1, 0, 1], [0, 0, 1], [1, 1, 1]], [[1, 1, 1], [0, 1, 0], [0, 0, 0]]])
    >>> model = crossed_model(R, interaction=True)
    >>> rng = np.random.default_rng(0)  # made-up draws in place of a fit
    >>> posterior = xr.Dataset(
    ...     {
    ...         "theta": (("chain", "draw", "model"), rng.normal(size=(1, 50, 2))),
    ...         "b": (("chain", "draw", "question"), rng.normal(size=(1, 50, 3))),
    ...         "sigma_e": (("chain", "draw"), np.abs(rng.normal(size=(1, 50)))),
    ...     },
    ...     coords={"chain": [0], "draw": np.arange(50)},
    ... )
    >>> fit = integrated_interaction_loglik(xr.DataTree.from_dict({"posterior": posterior}), model)
    >>> ll = fit["log_likelihood"]["successes_obs"]
    >>> ll.dims, ll.shape
    (('chain', 'draw', 'model', 'question'), (1, 50, 2, 3))
    """
    from scipy.special import log_expit

    from bayes_eval.models.crossed import crossed_likelihood
    from bayes_eval.models.model_data import data_value

    names = {v.name for v in model.data_vars}
    if "sigma_e" not in model.named_vars or crossed_likelihood(names) != "binomial":
        raise ValueError(
            "integrated_interaction_loglik needs a binomial crossed_model with interaction=True."
        )
    L, M = len(model.coords["model"]), len(model.coords["question"])
    post = idata["posterior"]
    theta = post["theta"].transpose("chain", "draw", "model").values
    b = post["b"].transpose("chain", "draw", "question").values
    sd = post["sigma_e"].transpose("chain", "draw").values * np.sqrt((1 - 1 / L) * (1 - 1 / M))
    s = data_value(model, "successes").astype(float)
    n = data_value(model, "n_trials").astype(float)
    dense = "cell_model" not in names
    if dense:
        eta, dims = theta[..., :, None] - b[..., None, :], ("model", "question")
        coef = gammaln(n + 1) - gammaln(s + 1) - gammaln(n - s + 1)
    else:
        li, qi = data_value(model, "cell_model"), data_value(model, "cell_question")
        eta, dims, coef = theta[..., li] - b[..., qi], ("cell",), 0.0
    step, half = QUADRATURE_GRID
    x = np.linspace(-half, half, round(2 * half / step) + 1)
    log_w = -0.5 * x**2 - 0.5 * np.log(2 * np.pi) + np.log(x[1] - x[0])
    extra = (None,) * len(dims)
    out = np.full(eta.shape, -np.inf)
    for xk, lw in zip(x, log_w, strict=True):  # 181 vectorised passes over (chain, draw, cells)
        e = eta + (sd * xk)[(..., *extra)]
        out = np.logaddexp(out, lw + s * log_expit(e) + (n - s) * log_expit(-e))
    obs = model.observed_RVs[0].name
    da = xr.DataArray(
        out + coef,
        dims=("chain", "draw", *dims),
        coords={"chain": post["chain"].values, "draw": post["draw"].values},
    )
    if "log_likelihood" in idata.children and obs in idata["log_likelihood"].data_vars:
        template = idata["log_likelihood"][obs].transpose("chain", "draw", *dims)
        da = template.copy(data=da.values)  # the conditional one's coords
    result = idata.copy()
    result["log_likelihood"] = xr.DataTree(xr.Dataset({obs: da}))
    return result


def _log_multinomial_coef(n: np.ndarray) -> np.ndarray:
    return gammaln(n.sum(-1) + 1) - gammaln(n + 1).sum(-1)


def _log_beta(a: np.ndarray) -> np.ndarray:
    return gammaln(a).sum(-1) - gammaln(a.sum(-1))


def exact_matching_loo(model: pm.Model, *, unit: Unit = "cell") -> LooSummary:
    r"""Exact leave-one-out ELPD of a matching model (or a fixed-``a0`` power prior).

    .. math::
        \mathrm{elpd}_{l\alpha} = \log\mathrm{DirMult}(n_{l\alpha}\mid a)
        = \log\binom{N}{n_{l\alpha}} + \log B(a + n_{l\alpha}) - \log B(a), \quad
        a = \alpha_0 + a_0 n^0_{l\alpha},

    the prior predictive of the cell (module docstring). ``p`` is the exact in-sample lpd
    minus the elpd, with :math:`\mathrm{lpd}_{l\alpha} = \log\binom{N}{n} + \log B(a + 2n) -
    \log B(a + n)`, the posterior mean of the multinomial pmf under
    :math:`\mathrm{Dir}(a + n)`. ``unit="question"`` sums the cells of each question (the
    cells are independent). ``se`` follows ArviZ: :math:`\sqrt{n\,\mathrm{var}(\mathrm{elpd}_i)}`.

    Parameters
    ----------
    model : pymc.Model
        A :func:`~bayes_eval.models.matching.matching_model` (any fixed ``a0``); no fit is
        needed.
    unit : {"cell", "question"}, keyword-only
        Leave out one (model, question) cell (default) or a whole question.

    Returns
    -------
    LooSummary
        ``method="exact"``, no Pareto k (``good_k`` and ``max_k`` NaN).

    Raises
    ------
    ValueError
        For another kind of model (a learned ``a0`` included) or an unknown ``unit``.

    Examples
    --------
    Under the uniform prior every count vector of N trials has prior predictive
    :math:`1/(N + 1)`, so each of these cells of 4 trials contributes :math:`\log(1/5)`:

    >>> import numpy as np
    >>> from bayes_eval.models import exact_matching_loo, matching_model
    >>> model = matching_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> summary = exact_matching_loo(model)
    >>> round(summary.elpd, 4), round(3 * float(np.log(1 / 5)), 4), summary.n_units
    (-4.8283, -4.8283, 3)
    >>> round(summary.p, 4)
    1.3861
    """
    from bayes_eval.models.sampling import model_info

    _check_unit(unit)
    info = model_info(model)
    if info.kind not in ("matching", "power_prior") or info.conditional is not None:
        raise ValueError(f"exact LOO needs a matching model (a fixed a0); got a {info.kind} model.")
    data = stored_data(model)
    a0 = float(np.asarray(model["a0"].get_value()))
    a = data.alpha0 + a0 * data.prior_counts
    n = data.counts
    coef = _log_multinomial_coef(n)
    elpd_i = coef + _log_beta(a + n) - _log_beta(a)
    lpd_i = coef + _log_beta(a + 2 * n) - _log_beta(a + n)
    coords = {k: data.coords[k] for k in ("model", "question")}
    return _exact_summary(elpd_i, lpd_i, coords, unit)


def _exact_summary(elpd_i, lpd_i, coords, unit: Unit) -> LooSummary:
    """A :class:`LooSummary` from exact pointwise ``elpd`` and ``lpd`` of the cells."""
    from arviz_stats.utils import ELPDDataLOO

    elpd_da = _pointwise(xr.DataArray(elpd_i, dims=("model", "question"), coords=coords), unit)
    lpd = float(_pointwise(xr.DataArray(lpd_i, dims=("model", "question")), unit).sum())
    values = elpd_da.values.ravel()
    n_units = values.size
    se = float(np.sqrt(n_units * np.var(values, ddof=1))) if n_units > 1 else 0.0
    elpd = float(values.sum())
    res = ELPDDataLOO(
        elpd=elpd,
        se=se,
        p=lpd - elpd,
        n_samples=0,
        n_data_points=n_units,
        scale="log",
        warning=False,
        good_k=np.nan,
        elpd_i=elpd_da,
        pareto_k=None,
    )
    return LooSummary(elpd, se, lpd - elpd, n_units, "exact", unit, np.nan, 0, 0, np.nan, res)


def exact_hierarchical_loo(model: pm.Model, *, unit: Unit = "cell") -> LooSummary:
    r"""Leave-one-out ELPD of a hierarchical model by quadrature over its hyperparameters.

    With the nodes :math:`a_{g}` and posterior weights :math:`W_{g}` of the hyperposterior of
    LLM ``l`` (:func:`bayes_eval.posteriors.priors.fit_prior` with the model's
    ``kappa_median`` and ``kappa_log_sd``; its hyperprior is the model's; without ``w``: the
    hierarchical model's own hyperposterior, before the within-question variance step the
    closed form takes for rubrics),

    .. math::
        \mathrm{elpd}_{l\alpha} = -\log\sum_g W_g\,
        \mathrm{DirMult}(n_{l\alpha}\mid a_g)^{-1}, \qquad
        \mathrm{lpd}_{l\alpha} = \log\sum_g W_g\,\mathrm{DirMult}(n_{l\alpha}\mid a_g),

    the first because :math:`p(a \mid n_{-l\alpha}) \propto p(a \mid n)/\mathrm{DirMult}
    (n_{l\alpha}\mid a)` (module docstring). ``p`` is lpd minus elpd; cells without trials
    contribute 0; ``unit="question"`` sums the cells of each question; ``se`` as ArviZ.

    Parameters
    ----------
    model : pymc.Model
        A :func:`~bayes_eval.models.hierarchical.hierarchical_model`; no fit is needed.
    unit : {"cell", "question"}, keyword-only
        Leave out one (model, question) cell (default) or a whole question.

    Returns
    -------
    LooSummary
        ``method="exact"``, no Pareto k (``good_k`` and ``max_k`` NaN).

    Raises
    ------
    ValueError
        For another kind of model or an unknown ``unit``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import hierarchical_model
    >>> from bayes_eval.models.compare import exact_hierarchical_loo
    >>> model = hierarchical_model(np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]]))
    >>> summary = exact_hierarchical_loo(model)
    >>> summary.method, summary.n_units, round(summary.elpd, 4), round(summary.p, 4)
    ('exact', 3, -5.1859, 0.7512)
    """
    from bayes_eval.models.model_data import data_value
    from bayes_eval.models.sampling import model_info
    from bayes_eval.posteriors.priors import fit_prior

    _check_unit(unit)
    info = model_info(model)
    if info.kind != "hierarchical":
        raise ValueError(f"exact hierarchical LOO needs a hierarchical model; got {info.kind}.")
    data = stored_data(model)
    n = data.counts.astype(np.float64)
    # numbers, or one per model (a hierarchical model built for the board-informed prior)
    kappa = (
        np.asarray(data_value(model, "kappa_median"), dtype=float),
        np.asarray(data_value(model, "kappa_log_sd"), dtype=float),
    )
    fit = fit_prior(n, kappa_prior=kappa)  # per model, integrated: nodes (J, L, K)
    a = fit.nodes
    with np.errstate(divide="ignore"):
        log_w = np.log(fit.weights)[:, :, None]  # (J, L, 1); padding nodes have weight 0
    log_dm = (
        _log_multinomial_coef(n)[None]
        + _log_beta(a[:, :, None, :] + n[None])
        - _log_beta(a)[:, :, None]
    )  # (J, L, M)
    elpd_i = -logsumexp(log_w - log_dm, axis=0)
    lpd_i = logsumexp(log_w + log_dm, axis=0)
    coords = {k: data.coords[k] for k in ("model", "question")}
    return _exact_summary(elpd_i, lpd_i, coords, unit)


class Comparison(NamedTuple):
    """Result of :func:`~bayes_eval.models.compare.compare_models`.

    Attributes
    ----------
    table : pandas.DataFrame
        :func:`arviz_stats.compare` (best first; ``elpd``, ``se``, ``elpd_diff``, ``dse``,
        ``p``, ``weight``, ...) plus ``method`` (``exact`` or ``psis``: what ``elpd`` is),
        ``psis_k_high``, ``psis_k_bad`` (PSIS units with Pareto k above ``good_k`` and 0.7)
        and ``elpd_psis`` (the PSIS estimate, also for the matching model).
    loo : dict of str to LooSummary
        PSIS-LOO of every fit (the matching model's included, with its Pareto k).
    exact : dict of str to LooSummary
        The exact ELPDs (``matching``, ``hierarchical``: :func:`exact_matching_loo`,
        :func:`exact_hierarchical_loo`), which the table uses for those models.
    verdict : str
        Which model the data support, in words (:func:`verdict`).
    fits : dict of str to xarray.DataTree
        The fits, with ``log_likelihood`` groups (and ``posterior_predictive`` with ``ppc``).
    models : dict of str to pymc.Model
        The built models, by estimator name.
    ppc : dict of str to xarray.Dataset
        :func:`bayes_eval.models.predictive.ppc_statistics` per model (empty without ``ppc``).

    Examples
    --------
    >>> from bayes_eval.models import Comparison
    >>> Comparison._fields
    ('table', 'loo', 'exact', 'verdict', 'fits', 'models', 'ppc')

    :func:`~bayes_eval.models.compare.compare_models` returns one (its example fits a model).
    """

    table: Any
    loo: dict
    exact: dict
    verdict: str
    fits: dict
    models: dict
    ppc: dict


def verdict(table) -> str:
    """One sentence on the comparison table.

    It names the best model, its ELPD lead over the second with the standard error of the
    difference, and whether the lead is decisive (at least 2 SE; differences under about 2 SE are
    not: Sivula, Magnusson, Matamoros and Vehtari, "Uncertainty in Bayesian leave-one-out
    cross-validation based model comparison").

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`~bayes_eval.models.compare.compare_models`, best model first,
        indexed by estimator, with columns ``elpd_diff``, ``dse``, ``method`` and
        ``psis_k_bad`` (and ``attrs`` ``n_units``).

    Returns
    -------
    str
        The verdict; it warns where a PSIS estimate is unreliable (Pareto k above 0.7) and
        says which models use their exact LOO.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_eval.models.compare import verdict
    >>> table = pd.DataFrame(
    ...     {"elpd_diff": [0.0, -6.2], "dse": [2.1, 2.1], "method": ["psis", "psis"],
    ...      "psis_k_bad": [0, 0]},
    ...     index=["hierarchical", "crossed"],
    ... )
    >>> print(verdict(table))
    The data support hierarchical: elpd difference hierarchical - crossed = 6.2 ± 2.1 (SE of
    the difference), 3.0 SE.
    """
    names = list(table.index)
    best = names[0]  # columns: compare's plus method, psis_k_bad (compare_models)
    if len(names) < 2:
        return f"Only {best} was fitted: nothing to compare."
    second = names[1]
    d = -float(table.loc[second, "elpd_diff"])
    se = float(table.loc[second, "dse"])
    z = d / se if se > 0 else np.inf
    head = f"elpd difference {best} - {second} = {d:.1f} ± {se:.1f} (SE of the difference)"
    if z >= 2:
        text = f"The data support {best}: {head}, {z:.1f} SE."
    else:
        text = (
            f"Not decisive: {best} leads, {head}, {z:.1f} SE; "
            "differences under ~2 SE are not decisive."
        )
    bad = {n: int(table.loc[n, "psis_k_bad"]) for n in names}
    flagged = [n for n in names if bad[n] and table.loc[n, "method"] == "psis"]
    if flagged:
        parts = ", ".join(f"{n} ({bad[n]} units)" for n in flagged)
        text += f" PSIS unreliable where Pareto k > 0.7: {parts}."
        if {best, second} & set(flagged):
            text = (
                "Provisional (a PSIS estimate it rests on is unreliable; refit-based K-fold "
                "CV would settle it): " + text
            )
    exact = [n for n in names if table.loc[n, "method"] == "exact"]
    if exact:
        text += (
            f" {exact[0]} uses its exact LOO (its PSIS estimate has {bad[exact[0]]} of "
            f"{int(table.attrs.get('n_units', 0)) or 'the'} units with k > 0.7)."
        )
    return text


def _build(name: str, R, w, R0) -> pm.Model:
    from bayes_eval.models.crossed import crossed_model
    from bayes_eval.models.hierarchical import hierarchical_model, mixture_model
    from bayes_eval.models.matching import matching_model
    from bayes_eval.models.power_prior import power_prior_model

    if name == "matching":
        return matching_model(R, w, R0)
    if name == "hierarchical":
        return hierarchical_model(R, w)
    if name == "mixture":
        return mixture_model(R, w)
    if name in ("crossed", "crossed-interaction"):
        return crossed_model(R, interaction=name == "crossed-interaction")
    if R0 is None:
        raise ValueError("estimator 'power_prior' needs the prior runs R0 (--prior-file).")
    return power_prior_model(R, w, R0)


#: The fewest posterior draws (``draws x chains``) :func:`compare_models` accepts: PSIS needs
#: at least 5 draws in the Pareto tail (Vehtari et al., "Pareto Smoothed Importance
#: Sampling"), and a tail of about a fifth of 100 draws is 20.
LOO_MIN_DRAWS = 100


def compare_models(
    R: ArrayLike | xr.DataArray,
    estimators: Sequence[str] = ("matching", "hierarchical", "crossed"),
    *,
    w: ArrayLike | None = None,
    R0: ArrayLike | xr.DataArray | None = None,
    unit: Unit = "cell",
    nuts: NutsSettings | None = None,
    ppc: bool = False,
    **legacy: Any,
) -> Comparison:
    """Fit several models to the same results and compare their leave-one-out ELPD.

    Every model is fitted with :func:`bayes_eval.models.sample` (same ``seed``, draws and
    chains), its pointwise log-likelihood added and its PSIS-LOO computed
    (:func:`loo`); the matching and hierarchical models' ELPDs in the table are the exact
    ones (:func:`exact_matching_loo`, :func:`exact_hierarchical_loo`), their PSIS estimates
    stay in ``elpd_psis`` and ``loo``.
    :func:`arviz_stats.compare` (stacking weights) ranks them.

    Parameters
    ----------
    R : array_like or DataArray
        Results, as for the builders (the crossed model needs binary results).
    estimators : sequence of str
        Among :data:`ESTIMATORS` (``power_prior`` learns ``a0`` and needs ``R0``).
    w, R0 : array_like, keyword-only
        Rubric weights; prior runs (matching and power prior only).
    unit : {"cell", "question"}, keyword-only
        What is left out (module docstring).
    nuts : bayes_eval.nuts.NutsSettings, optional, keyword-only
        The NUTS settings of every fit (:func:`bayes_eval.models.sample`; unset values are
        each model's own: 1,000 draws and tuning steps, PyMC's sampler). Raise
        ``target_accept`` when a fit diverges.
    ppc : bool, keyword-only
        Also draw the posterior predictive of every fit (seed ``seed + 1``) and compute its
        test statistics (:mod:`bayes_eval.models.predictive`): the same fits serve both.
    **legacy : Any
        Deprecated: the NUTS settings one by one (``draws=...``), as before ``nuts``.

    Returns
    -------
    Comparison
        The table (best model first, ``method`` saying which ELPD it holds), the PSIS and
        exact LOO summaries, the verdict, the fits and models, and the predictive checks.

    Raises
    ------
    ValueError
        Before any fit: unknown estimators or unit, a single unit to leave out, or fewer than
        ``LOO_MIN_DRAWS`` posterior draws (``draws x chains``).

    Examples
    --------
    A toy run fitting a single model (so there is nothing to compare; its convergence
    warning is silenced here):

    >>> import warnings
    >>> import numpy as np
    >>> from bayes_eval.models import compare_models
    >>> from bayes_eval.nuts import NutsSettings
    >>> R = np.array([[0, 1, 1, 1], [1, 1, 0, 1], [0, 0, 0, 1]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     nuts = NutsSettings(draws=100, tune=50, chains=1)
    ...     result = compare_models(R, ("matching",), nuts=nuts)
    >>> list(result.table.index), result.table["method"].tolist()
    (['matching'], ['exact'])
    >>> result.verdict
    'Only matching was fitted: nothing to compare.'
    """
    import arviz_stats

    from bayes_eval.models.sampling import sample

    _check_unit(unit)
    settings = NutsSettings.from_call(nuts, legacy, owner="compare_models")
    settings = settings.resolved(draws=1000, tune=1000, sampler="pymc")
    draws, chains, seed = settings.draws, settings.chains, settings.seed
    names = list(dict.fromkeys(estimators))
    bad = [n for n in names if n not in ESTIMATORS]
    if bad or not names:
        raise ValueError(f"estimators {bad or names!r}; expected some of {list(ESTIMATORS)}.")
    shape = np.shape(R)
    units = int(np.prod(shape[:-1])) if unit == "cell" else int(shape[-2]) if shape else 0
    if len(shape) >= 2 and units < 2:
        left = "(model, question) cell" if unit == "cell" else "question"
        raise ValueError(
            f"the results have 1 {left}; leave-one-out leaves it out and nothing is left to fit "
            f"it to: expected 2 or more {left}s."
        )
    if float(draws) * float(chains) < LOO_MIN_DRAWS:  # checked before any fit
        raise ValueError(
            f"--draws {draws} x --chains {chains} is {draws * chains} posterior draws; PSIS-LOO "
            f"needs at least {LOO_MIN_DRAWS} (its Pareto tail takes about a fifth of them, at "
            "least 5): expected more draws."
        )
    models, fits, loos = {}, {}, {}
    for name in names:
        model = _build(name, R, w, R0)
        fit = sample(model, settings, log_likelihood=True)
        if name == "crossed-interaction":
            fit = integrated_interaction_loglik(fit, model)
        models[name], fits[name], loos[name] = model, fit, loo(fit, unit=unit)
    checks = {}
    if ppc:
        from bayes_eval.models.predictive import posterior_predictive, ppc_statistics

        for name in names:
            fits[name] = posterior_predictive(fits[name], models[name], seed=seed + 1)
            checks[name] = ppc_statistics(fits[name])
    exact_fns = {"matching": exact_matching_loo, "hierarchical": exact_hierarchical_loo}
    exact = {n: exact_fns[n](models[n], unit=unit) for n in names if n in exact_fns}
    used = {n: exact.get(n, loos[n]) for n in names}
    if len(names) > 1:
        table = arviz_stats.compare({n: s.elpd_data for n, s in used.items()}, round_to="none")
    else:
        import pandas as pd

        s = used[names[0]]
        table = pd.DataFrame(
            {"rank": [0], "elpd_diff": [0.0], "dse": [0.0], "p": [s.p], "elpd": [s.elpd]},
            index=names,
        ).assign(se=s.se, weight=1.0)
    table["method"] = [used[n].method for n in table.index]
    table["psis_k_high"] = [loos[n].n_k_high for n in table.index]
    table["psis_k_bad"] = [loos[n].n_k_bad for n in table.index]
    table["elpd_psis"] = [loos[n].elpd for n in table.index]
    table.attrs["n_units"] = loos[names[0]].n_units
    table.attrs["unit"] = unit
    return Comparison(table, loos, exact, verdict(table), fits, models, checks)
