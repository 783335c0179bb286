r"""Simulation-based calibration (SBC).

The exact and the NUTS runs, their one result shape, the uniformity test and the plot.

SBC (Talts et al., "Validating Bayesian Inference Algorithms with Simulation-Based
Calibration") draws :math:`\theta^\star \sim p(\theta)`, data :math:`y \sim p(y \mid
\theta^\star)`, then ``L`` posterior draws :math:`\theta_1..\theta_L` given ``y``, and records
the rank :math:`r = \#\{l : f(\theta_l) < f(\theta^\star)\}` of every scalar test quantity
``f``. If the posterior draws are exact, :math:`r` is uniform on :math:`\{0, \dots, L\}`
whatever the prior, the data size or ``f``; a wrong posterior (a bug, a wrong prior, a
sampler that has not converged) shows as a non-uniform rank histogram.

Every SBC of this package (the exact one of the matching model, :func:`exact_sbc`; NUTS with
simuk, :func:`simuk_sbc`, or on one compiled model, :func:`run_block`; both described below)
returns the same :class:`xarray.Dataset` (:func:`sbc_dataset`):

* ``rank`` (``simulation``, ``variable``): integer ranks in ``0..L``;
* ``p_value`` and ``passed`` (``variable``): the uniformity test below;
* attrs ``n_draws`` (``L``), ``estimator``, ``seed``, ``test``, ``bins``, ``threshold``,
  ``threshold_per_variable`` and ``passed_all``.

*Ties.* Discrete test quantities (the rank of an LLM among L models) tie the truth with many
posterior draws; the rank is then randomised, :math:`r = \#\{f(\theta_l) < f^\star\} + U`
with :math:`U` uniform on :math:`\{0, \dots, \#\{f(\theta_l) = f^\star\}\}`, which is again
uniform on ``0..L`` under a correct posterior (Talts et al., §4.1 on discrete parameters).
:func:`randomised_rank` does this for every variable (continuous ones almost never tie).

*Uniformity test* (:func:`uniformity_test`): Pearson's chi-square test on ``B`` bins of equal
width over ``0..L``, as in Talts et al. (§4: the rank histogram). The expected count of a
bin is ``S`` times the share of the ``L + 1`` rank values it holds (exact when ``L + 1`` is
not a multiple of ``B``), and the statistic is referred to :math:`\chi^2_{B-1}`. ``B`` is
at most 20, at most ``L + 1``, and at least 5 expected simulations per bin
(``B = min(20, L + 1, S // 5)``). A variable FAILS when :math:`p < 0.01 / V` over ``V``
variables (Bonferroni: the probability that a correct posterior fails any variable is at
most 1%); the p-values of the variables are correlated (the same simulations), which
Bonferroni allows. arviz-stats' ``uniformity_test`` (``pot_c``) tests continuous PIT values
and is not calibrated for ties of discrete ranks, hence the histogram test here.

:func:`plot_sbc` draws the ECDF difference of the fractional ranks
(:func:`arviz_plots.plot_ecdf_pit`).

**Exact SBC of the matching model** (:func:`exact_sbc`: ranks among closed-form posterior
draws, no MCMC). The matching model (:func:`bayes_eval.models.matching_model`) is the
Dirichlet-multinomial

.. math::
    \pi_{l\alpha} \sim \mathrm{Dir}(\alpha_0), \qquad
    n_{l\alpha} \mid \pi_{l\alpha} \sim \mathrm{Multinomial}(N, \pi_{l\alpha}), \qquad
    \bar\pi_l = \frac1M \sum_\alpha w\cdot\pi_{l\alpha},

whose posterior is :math:`\pi_{l\alpha} \mid n \sim \mathrm{Dir}(\alpha_0 + n_{l\alpha})`
(Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
App. A). :func:`exact_sbc` runs SBC on the package's own posterior code: for every
simulation a true :math:`\pi` from the prior, counts from the likelihood, written out as the
results table ``R`` a user would pass (``M x N`` category labels per model), then
:func:`bayes_eval.posterior` (the function behind ``bayes``, ``bayes_ci`` and every command)
under the fixed prior :math:`\alpha_0'`, and ``L`` draws of :math:`\bar\pi` and of every
:math:`\pi_\alpha` from :meth:`~bayes_eval.posteriors.posterior.Posterior.draws`; the ranks of
the true test quantities among them. So the tally, the prior's resolution, the posterior's
concentrations and its sampler are all under test. With :math:`\alpha_0' = \alpha_0`
(default) the ranks are exactly uniform if that code is right; ``posterior_alpha0``
different from ``alpha0`` is a deliberately mis-specified posterior (the wrong prior) that
must fail.

What SBC cannot check: the learned prior (``prior="empirical"``). Its prior is fitted to the
very data it is then updated with, so there is no fixed prior to draw the truth from, and the
ranks need not be uniform even when the code is right. Its calibration is a frequentist
claim about real-rate scenarios, checked by the coverage study
(:mod:`bayes_eval.validation.coverage`), not by SBC.

Test quantities: ``pi_bar[model-l]`` for every model; ``w.pi[model-0,question-q]`` for the
first two questions; and, with two or more models, ``rank[model-l]`` (the competition rank of
model ``l`` by ``pi_bar``, 1 = best; discrete, so ties are randomised as in
:func:`randomised_rank`). Everything is vectorised over chunks of simulations (one
posterior for a chunk's ``S x L`` models; its speed: ``benchmarks/bench_sbc.py``). The
mis-specified variant (truth from Dir(1), posterior with Dir(5)) gives
p-values below 1e-7 for every test quantity, p = 0 to double precision for ``pi_bar``.

**NUTS SBC of the PyMC models**, with simuk and on one compiled model per worker. For every
estimator (:data:`ESTIMATORS`) a *template* model is built on ``n_models`` x ``M`` questions x
``N`` binary trials (the data values do not matter: each simulation replaces them). Prior
SBC (Talts et al., "Validating Bayesian Inference Algorithms with Simulation-Based
Calibration") then draws the parameters and data from the prior predictive, refits, and ranks
the true test quantities among the posterior draws.

Two runners:

* :func:`simuk_sbc` calls :class:`simuk.SBC` (it rebuilds and recompiles the model for every
  simulation) and converts the ranks to the result shape of :func:`sbc_dataset`; only
  the test quantities the model itself holds are ranked (``pi_bar`` of the models that
  integrate ``pi`` out needs the simulated counts, which simuk does not keep).
* :func:`run_block` is the fast path: one block of simulations on a model compiled once per
  worker process (:func:`nutpie.compile_pymc_model`; each simulation swaps the observed
  counts with ``.with_data(...)``, no recompilation). :mod:`.sbc_study` runs the blocks as
  cells of the resumable Dask runner (:mod:`.cell_runner`).

The observed counts of the Dirichlet-multinomial models are ``pm.Data`` (``count_data``) and
the number of trials per question is derived from it (``count_data.sum(-1)``): the prior
predictive draws of ``counts`` keep the template's ``N`` per question, so setting
``count_data`` to them keeps the model consistent. The crossed model observes
``successes`` with a separate ``n_trials``.

Test quantities (binary results, ``w = (0, 1)``):

* ``matching``: ``pi_bar[model-l]``, ``w.pi[model-0,question-q]`` (q = 0, 1), ``rank[model-l]``;
* ``hierarchical``: ``kappa[model-l]``, ``beta_top[model-l]``, ``pi_bar[model-l]``,
  ``rank[model-l]``; ``pi`` is drawn from its exact conditional
  :math:`\mathrm{Dir}(\kappa\beta + n)`, for the truth as for every posterior draw, so the
  joint (kappa, beta, pi, n) has the model's distribution;
* ``power-prior`` (learned ``a0``; the prior runs ``R0`` are 4 fixed trials per question,
  drawn once from ``seed``): ``a0[model-l]``, ``pi_bar``, ``rank`` (``pi`` from
  :math:`\mathrm{Dir}(1 + a_0 n^0 + n)`);
* ``crossed``: ``mu_theta``, ``sigma_theta``, ``sigma_b``, ``theta[model-l]``,
  ``b[question-0]``, ``pi_bar[model-l]``, ``rank[model-l]``;
* ``judges`` (:func:`bayes_eval.models.judges.judge_model` of Vossler et al., "LLMs Judging
  LLMs: A Simplex Perspective", at its defaults: strong constancy, ``beta_max`` 5; 3 judges
  score the ``n_models`` candidates' answers to ``M`` questions as wrong/right, ``N`` is
  unused): ``rho[judge-j]``, ``expected_score[model-l]``, ``rank[model-l]``.

``rank[model-l]`` is the competition rank of model ``l`` by ``pi_bar`` (1 = best), with ties
randomised (:func:`randomised_rank`). The ``draws x chains`` posterior draws are thinned by
``thin`` before ranking: SBC assumes near-independent draws, and autocorrelated draws give
non-uniform ranks even for a correct sampler (Talts et al., §5.1). NUTS runs at the
``target_accept`` of :func:`bayes_eval.models.model_info` (0.95 for the crossed model).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from bayes_eval.inputs import check_alpha0, shown
from bayes_eval.posteriors.posterior import posterior
from bayes_eval.posteriors.priors import Prior
from bayes_eval.ranking.ranks import rank

__all__ = [
    "ESTIMATORS",
    "THRESHOLD",
    "exact_sbc",
    "exact_variables",
    "pit_values",
    "plot_sbc",
    "quantities",
    "randomised_rank",
    "run_block",
    "sbc_dataset",
    "sbc_summary",
    "simuk_sbc",
    "template_model",
    "uniformity_test",
]

# ----------------------------------------------------------------------------- ranks and their test


#: Family-wise level: a variable fails when its p-value is below THRESHOLD / V.
THRESHOLD = 0.01
#: Largest number of histogram bins of the uniformity test.
MAX_BINS = 20


def randomised_rank(
    truth: ArrayLike, draws: ArrayLike, rng: np.random.Generator, *, axis: int = -1
) -> NDArray[np.int64]:
    """Rank of ``truth`` among ``draws`` along ``axis``, ties broken uniformly at random.

    ``#{draws < truth} + U`` with ``U`` uniform on ``0..#{draws == truth}`` (module
    docstring). ``truth`` has the shape of ``draws`` without ``axis``.

    Parameters
    ----------
    truth : array_like
        The true test quantities.
    draws : array_like
        The posterior draws of the same quantities, along ``axis``.
    rng : numpy.random.Generator
        Breaks the ties.
    axis : int, optional
        The axis of ``draws`` holding the draws, default -1.

    Returns
    -------
    numpy.ndarray of int
        The ranks, in ``0..L`` for ``L`` draws, of the shape of ``truth``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.sbc import randomised_rank
    >>> rng = np.random.default_rng(0)
    >>> randomised_rank([0.5, 2.0], [[0.1, 0.7, 0.3], [2.0, 2.0, 1.0]], rng).tolist()
    [2, 3]
    """
    draws = np.moveaxis(np.asarray(draws), axis, -1)
    truth = np.asarray(truth)[..., None]
    less = (draws < truth).sum(axis=-1)
    equal = (draws == truth).sum(axis=-1)
    return less + rng.integers(0, equal + 1)


def _bins(n_draws: int, n_sims: int) -> int:
    return int(max(2, min(MAX_BINS, n_draws + 1, n_sims // 5)))


def uniformity_test(ranks: ArrayLike, n_draws: int, *, bins: int | None = None) -> NDArray:
    r"""Chi-square p-value of discrete-uniform ranks on ``0..n_draws``, per column.

    Parameters
    ----------
    ranks : array_like of int, shape ``(S,)`` or ``(S, V)``
        The ranks of ``S`` simulations (of ``V`` variables), integers in ``0..n_draws``.
    n_draws : int
        ``L``; ranks take the ``L + 1`` values ``0..L``.
    bins : int, optional
        ``B`` (default ``min(20, L + 1, S // 5)``, at least 2).

    Returns
    -------
    ndarray
        :math:`P(\chi^2_{B-1} \ge X^2)` with :math:`X^2 = \sum_b (O_b - E_b)^2 / E_b`, where
        bin ``b`` holds ranks ``floor(r B / (L + 1)) = b`` and :math:`E_b = S \cdot
        |\{r : r \in b\}| / (L + 1)` (Talts et al., "Validating Bayesian Inference
        Algorithms with Simulation-Based Calibration").

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.sbc import uniformity_test
    >>> ranks = np.random.default_rng(0).integers(0, 11, size=(200, 2))
    >>> uniformity_test(ranks, 10).round(4).tolist()
    [0.692, 0.2079]
    >>> bool(uniformity_test(np.full(100, 10), 10) < 1e-6)  # every truth above every draw
    True
    """
    r = np.asarray(ranks)
    if r.ndim not in (1, 2) or r.shape[0] < 2:
        raise ValueError(f"ranks has shape {r.shape}; expected (simulations >= 2[, variables]).")
    if n_draws < 1 or r.min() < 0 or r.max() > n_draws:
        raise ValueError(f"ranks span {r.min()}..{r.max()}; expected integers in 0..{n_draws}.")
    flat = r.reshape(r.shape[0], -1).astype(np.int64)
    n_sims = flat.shape[0]
    b = _bins(n_draws, n_sims) if bins is None else bins
    if not 2 <= b <= n_draws + 1:
        raise ValueError(f"bins is {b}; expected 2..{n_draws + 1} (L + 1 rank values).")
    which = flat * b // (n_draws + 1)
    observed = np.stack([(which == k).sum(axis=0) for k in range(b)])
    share = np.bincount(np.arange(n_draws + 1) * b // (n_draws + 1), minlength=b)
    expected = n_sims * share / (n_draws + 1)
    x2 = ((observed - expected[:, None]) ** 2 / expected[:, None]).sum(axis=0)
    p = stats.chi2.sf(x2, b - 1)
    return p.reshape(r.shape[1:]) if r.ndim == 2 else p[0]


def sbc_dataset(
    ranks: ArrayLike,
    variables: list[str],
    *,
    n_draws: int,
    estimator: str,
    seed: int | None,
    threshold: float = THRESHOLD,
    attrs: dict | None = None,
) -> xr.Dataset:
    """The SBC result of ``ranks`` ``(S, V)`` of ``variables``, with the uniformity test.

    See the module docstring for the variables and attributes.

    Parameters
    ----------
    ranks : array_like of int, shape ``(S, V)``
        The ranks of ``S`` simulations of ``V`` test quantities, in ``0..n_draws``.
    variables : list of str
        The names of the ``V`` test quantities.
    n_draws : int
        ``L``, the posterior draws each truth was ranked among.
    estimator : str
        What was calibrated, e.g. ``"matching-exact"``.
    seed : int or None
        The run's seed (stored as -1 when None).
    threshold : float, optional
        The family-wise level, default :data:`THRESHOLD` (0.01), split over the variables
        (Bonferroni).
    attrs : dict, optional
        More attributes to store.

    Returns
    -------
    xarray.Dataset
        ``rank`` (``simulation``, ``variable``), ``p_value`` and ``passed`` (``variable``), and
        the attributes of the test.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.sbc import sbc_dataset
    >>> ranks = np.random.default_rng(0).integers(0, 11, size=(200, 2))
    >>> ds = sbc_dataset(ranks, ["theta", "pi_bar"], n_draws=10, estimator="demo", seed=0)
    >>> ds["p_value"].values.round(4).tolist(), ds.attrs["passed_all"]
    ([0.692, 0.2079], 1)
    >>> ds.attrs["test"]
    'chi-square on 11 equal-width bins of the ranks 0..10'
    """
    r = np.asarray(ranks, dtype=np.int64)
    if r.ndim != 2 or r.shape[1] != len(variables):
        raise ValueError(f"ranks has shape {r.shape}; expected (simulations, {len(variables)}).")
    bins = _bins(n_draws, r.shape[0])
    p = uniformity_test(r, n_draws, bins=bins)
    level = threshold / len(variables)
    ds = xr.Dataset(
        {
            "rank": (("simulation", "variable"), r),
            "p_value": ("variable", p),
            "passed": ("variable", p >= level),
        },
        coords={"simulation": np.arange(r.shape[0]), "variable": list(variables)},
    )
    ds.attrs = {
        "n_draws": int(n_draws),
        "estimator": estimator,
        "seed": -1 if seed is None else int(seed),
        "test": f"chi-square on {bins} equal-width bins of the ranks 0..{n_draws}",
        "bins": bins,
        "threshold": threshold,
        "threshold_per_variable": level,
        "multiplicity": f"Bonferroni over {len(variables)} variables",
        "passed_all": int(bool((p >= level).all())),
        **(attrs or {}),
    }
    return ds


def sbc_summary(ds: xr.Dataset) -> dict:
    """JSON-ready per-variable p-values and PASS/FAIL of an SBC result.

    Parameters
    ----------
    ds : xarray.Dataset
        An SBC result (:func:`sbc_dataset`).

    Returns
    -------
    dict
        ``estimator``, ``simulations``, ``n_draws``, ``test``, ``threshold`` (in words),
        ``passed_all`` and ``variables`` (``{name: {"p_value": ..., "result": ...}}``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.sbc import sbc_dataset, sbc_summary
    >>> ranks = np.random.default_rng(0).integers(0, 11, size=(200, 2))
    >>> ds = sbc_dataset(ranks, ["theta", "pi_bar"], n_draws=10, estimator="demo", seed=0)
    >>> s = sbc_summary(ds)
    >>> s["threshold"], s["variables"]["pi_bar"]["result"]
    ('FAIL if p < 0.01 / 2 = 0.005 (Bonferroni)', 'PASS')
    """
    rows = {
        str(v): {"p_value": float(p), "result": "PASS" if ok else "FAIL"}
        for v, p, ok in zip(
            ds["variable"].values, ds["p_value"].values, ds["passed"].values, strict=True
        )
    }
    return {
        "estimator": ds.attrs["estimator"],
        "simulations": int(ds.sizes["simulation"]),
        "n_draws": int(ds.attrs["n_draws"]),
        "test": ds.attrs["test"],
        "threshold": f"FAIL if p < {ds.attrs['threshold']:g} / {ds.sizes['variable']} "
        f"= {ds.attrs['threshold_per_variable']:.3g} (Bonferroni)",
        "passed_all": bool(ds.attrs["passed_all"]),
        "variables": rows,
    }


def pit_values(ds: xr.Dataset) -> NDArray:
    """Randomised PIT values ``(rank + U) / (L + 1)``, shape ``(simulation, variable)``.

    They are continuous uniform on (0, 1) when the ranks are uniform on ``0..L``
    (:func:`plot_sbc`).
    ``U`` is seeded by the result's ``seed``.

    Parameters
    ----------
    ds : xarray.Dataset
        An SBC result (:func:`sbc_dataset`).

    Returns
    -------
    numpy.ndarray of shape (S, V)
        The PIT values, in (0, 1).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.sbc import pit_values, sbc_dataset
    >>> ranks = np.random.default_rng(0).integers(0, 11, size=(200, 2))
    >>> ds = sbc_dataset(ranks, ["theta", "pi_bar"], n_draws=10, estimator="demo", seed=0)
    >>> pit = pit_values(ds)
    >>> pit.shape, bool(((pit > 0) & (pit < 1)).all())
    ((200, 2), True)
    """
    rng = np.random.default_rng([int(ds.attrs.get("seed", 0)), 7])
    ranks = ds["rank"].values
    return (ranks + rng.uniform(size=ranks.shape)) / (ds.attrs["n_draws"] + 1)


def _add_simultaneous_band(pc, names: list[str], n_sims: int, *, prob: float) -> None:
    """Shade the ``prob`` simultaneous band of the ECDF difference on every panel.

    The band is that of ``n_sims`` uniform values (Säilynoja, Bürkner and Vehtari,
    "Graphical test for discrete uniformity and its applications in goodness-of-fit
    evaluation and multiple sample comparison": pointwise binomial bands at the level that
    gives ``prob`` jointly, found by simulation in arviz-stats' ``ecdf_pit``). arviz-plots'
    own ``method="envelope"`` draws this band but fails in arviz-plots 1.3.2 (it passes a
    DataArray to ``np.linspace``).
    """
    from arviz_stats.ecdf_utils import ecdf_pit

    rng = np.random.default_rng(20261123)
    x, _, lower, upper = ecdf_pit(np.linspace(0, 1, n_sims), prob, 1000, rng=rng)
    for name in names:
        ax = pc.viz["plot"][name].item()
        ax.fill_between(x, lower - x, upper - x, color="0.5", alpha=0.25, lw=0, zorder=0)
        ax.text(0.02, 0.02, f"{prob:.0%} simultaneous band", transform=ax.transAxes, fontsize=7)


def plot_sbc(ds: xr.Dataset, path: str | Path) -> Path:
    """ECDF difference of the fractional ranks with arviz-plots' simultaneous bands, as PNG.

    The ranks ``0..L`` become randomised PIT values ``(rank + U) / (L + 1)`` with ``U``
    uniform on (0, 1) (seeded by the result's seed): uniform ranks then give exactly
    continuous uniform PIT values, which the ECDF bands and arviz-stats' tests assume (the
    mid-points ``(rank + 1/2) / (L + 1)`` would tie in blocks, draw a saw-tooth of height
    ``1 / (L + 1)`` and make the ``pot_c`` test reject a calibrated posterior). They go to
    :func:`arviz_plots.plot_ecdf_pit` (its default
    ``pot_c`` test: Tesso & Vehtari's pointwise tests with a Cauchy combination, suspicious
    points highlighted), one panel per variable, with the 95% simultaneous band of the ECDF
    difference shaded (``_add_simultaneous_band``). Each panel states the study's own
    result, the chi-square test (:func:`uniformity_test`) at the Bonferroni level, as the
    table does (arviz-plots' own p-value text is switched off: it is a different test at a
    different level).

    Parameters
    ----------
    ds : xarray.Dataset
        An SBC result (:func:`sbc_dataset`).
    path : str or pathlib.Path
        The image file to write (its suffix gives the format, PNG by default).

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.sbc import exact_sbc, plot_sbc
    >>> ds = exact_sbc(5, 4, simulations=200, draws=20, seed=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     print(plot_sbc(ds, Path(tmp) / "sbc.png").name)
    sbc.png
    """
    import arviz_plots as azp
    from arviz_base import from_dict

    from bayes_eval.plotting.figure import pyplot

    pyplot()  # the Agg backend
    frac = pit_values(ds)
    names = [str(v) for v in ds["variable"].values]
    dt = from_dict({"prior_sbc": {n: frac[None, :, i] for i, n in enumerate(names)}})
    pc = azp.plot_ecdf_pit(
        dt,
        group="prior_sbc",
        backend="matplotlib",
        figure_kwargs={"sharey": False},
        visuals={"p_value_text": False},  # the study's own test is written instead
    )
    _add_simultaneous_band(pc, names, frac.shape[0], prob=0.95)
    level = float(ds.attrs["threshold_per_variable"])
    for name, p, ok in zip(names, ds["p_value"].values, ds["passed"].values, strict=True):
        pc.viz["plot"][name].item().text(
            0.02,
            0.93,
            f"chi-square p = {p:.3g} {'>=' if ok else '<'} {level:.3g} (Bonferroni): "
            f"{'PASS' if ok else 'FAIL'}",
            transform=pc.viz["plot"][name].item().transAxes,
            fontsize=7,
            va="top",
        )
    pc.viz["figure"].item().tight_layout()
    from bayes_eval.files import write_file

    kind = Path(path).suffix.lstrip(".").lower() or "png"
    path = write_file(path, lambda tmp: pc.savefig(tmp, format=kind))
    pyplot().close("all")
    return path


# ------------------------------------------------------------------ exact SBC of the matching model


#: Gamma draws per chunk (memory: 8 bytes each, plus temporaries).
CHUNK_ELEMENTS = 4_000_000


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} is {shown(value)}; expected an integer >= {minimum}.")
    return int(value)


def exact_variables(M: int, n_models: int) -> list[str]:
    """Names of the test quantities of :func:`exact_sbc` (module docstring).

    Parameters
    ----------
    M : int
        Questions per simulated benchmark (the first two get a ``w.pi`` quantity).
    n_models : int
        LLMs per simulated benchmark (ranks with two or more).

    Returns
    -------
    list of str
        ``pi_bar[model-l]``, ``w.pi[model-0,question-q]`` and ``rank[model-l]``.

    Examples
    --------
    >>> from bayes_eval.validation.sbc import exact_variables
    >>> exact_variables(30, 2)
    ['pi_bar[model-0]', 'pi_bar[model-1]', 'w.pi[model-0,question-0]',
     'w.pi[model-0,question-1]', 'rank[model-0]', 'rank[model-1]']
    >>> exact_variables(1, 1)
    ['pi_bar[model-0]', 'w.pi[model-0,question-0]']
    """
    names = [f"pi_bar[model-{i}]" for i in range(n_models)]
    names += [f"w.pi[model-0,question-{q}]" for q in range(min(M, 2))]
    if n_models >= 2:
        names += [f"rank[model-{i}]" for i in range(n_models)]
    return names


def _quantities(
    per_question: np.ndarray, n_q: int, with_rank: bool, pi_bar: np.ndarray | None = None
) -> np.ndarray:
    """Test quantities of ``w . pi`` ``(..., L, M)`` stacked on a last axis.

    ``pi_bar`` ``(..., L)`` is the mean over the questions, when not given.
    """
    pi_bar = per_question.mean(axis=-1) if pi_bar is None else pi_bar
    parts = [pi_bar, per_question[..., 0, :n_q]]
    if with_rank:
        parts.append(rank(pi_bar, axis=-1).astype(float))
    return np.concatenate(parts, axis=-1)


def exact_sbc(
    M: int,
    N: int,
    *,
    n_models: int = 2,
    C: int = 1,
    alpha0: ArrayLike = 1.0,
    simulations: int = 10_000,
    draws: int = 100,
    posterior_alpha0: ArrayLike | None = None,
    w: ArrayLike | None = None,
    seed: int = 0,
    on_progress: Callable[[float], None] | None = None,
) -> xr.Dataset:
    """Exact SBC of the matching model (module docstring).

    Parameters
    ----------
    M, N : int
        Questions and trials per question.
    n_models : int, keyword-only
        LLMs ``L`` evaluated on the same questions (ranks need two or more).
    C : int, keyword-only
        Categories ``0..C`` (1: binary results).
    alpha0 : float or array_like of length C + 1, keyword-only
        Dirichlet prior the truth is drawn from.
    simulations : int, keyword-only
        ``S``.
    draws : int, keyword-only
        Posterior draws per simulation (``n_draws``; ranks take values ``0..draws``).
    posterior_alpha0 : float or array_like, keyword-only
        Prior of the posterior (default ``alpha0``: well specified; another value is the
        mis-specified variant, which must fail).
    w : array_like of length C + 1, keyword-only
        Rubric weights (default ``linspace(0, 1, C + 1)``).
    seed : int, keyword-only
        Seeds the truth, the data, the posterior draws and the tie-breaking; default 0.
    on_progress : callable, keyword-only
        Called with the fraction of the simulations done after each chunk (a progress bar).

    Returns
    -------
    xarray.Dataset
        :func:`sbc_dataset` with estimator ``matching-exact`` and attrs ``M``, ``N``,
        ``n_models``, ``C``, ``alpha0``, ``posterior_alpha0``.

    Examples
    --------
    >>> from bayes_eval.validation.sbc import exact_sbc
    >>> ds = exact_sbc(5, 4, simulations=200, draws=20, seed=0)
    >>> dict(ds["rank"].sizes), ds.attrs["passed_all"]
    ({'simulation': 200, 'variable': 6}, 1)
    >>> bad = exact_sbc(5, 4, simulations=200, draws=20, posterior_alpha0=5.0, seed=0)
    >>> bad["passed"].values.tolist()
    [False, False, False, False, True, True]
    """
    M = _check_int("M", M, 1)
    N = _check_int("N", N, 1)
    n_models = _check_int("n_models", n_models, 1)
    C = _check_int("C", C, 1)
    simulations = _check_int("simulations", simulations, 2)
    draws = _check_int("draws", draws, 1)
    seed = _check_int("seed", seed, 0)
    k = C + 1
    a_true = check_alpha0(alpha0, k)
    a_post = a_true if posterior_alpha0 is None else check_alpha0(posterior_alpha0, k)
    w = np.linspace(0.0, 1.0, k) if w is None else np.asarray(w, dtype=float)
    if w.shape != (k,) or not np.isfinite(w).all():
        raise ValueError(f"w has shape {w.shape}; expected {k} finite weights (C + 1).")
    rng = np.random.default_rng(seed)
    prior = Prior.parse(a_post)
    n_q = min(M, 2)
    with_rank = n_models >= 2
    names = exact_variables(M, n_models)
    chunk = max(1, CHUNK_ELEMENTS // (draws * n_models * M * k))
    ranks = []
    for start in range(0, simulations, chunk):
        s = min(chunk, simulations - start)
        g = rng.standard_gamma(a_true, size=(s, n_models, M, k))
        pi = g / g.sum(axis=-1, keepdims=True)
        counts = rng.multinomial(N, pi)  # (s, L, M, k)
        # the results table of each simulated model, then the package's own posterior
        R = (counts.cumsum(axis=-1)[..., None, :] <= np.arange(N)[:, None]).sum(axis=-1)
        post = posterior(R.reshape(s * n_models, M, N), w, prior=prior)
        bar, pis = post.draws(draws, rng=rng, include_pi=True)  # (draws, sL), (draws, sL, M, k)
        per_q = np.moveaxis((pis @ w).reshape(draws, s, n_models, M), 0, 1)
        bar = np.moveaxis(bar.reshape(draws, s, n_models), 0, 1)
        truth = _quantities(pi @ w, n_q, with_rank)  # (s, V)
        sampled = _quantities(per_q, n_q, with_rank, pi_bar=bar)  # (s, draws, V)
        ranks.append(randomised_rank(truth, sampled, rng, axis=1))
        if on_progress is not None:
            on_progress((start + s) / simulations)
    attrs = {
        "M": M,
        "N": N,
        "n_models": n_models,
        "C": C,
        "alpha0": a_true,
        "posterior_alpha0": a_post,
        "method": "exact draws of bayes_eval.posterior under the fixed prior (no MCMC)",
    }
    return sbc_dataset(
        np.concatenate(ranks),
        names,
        n_draws=draws,
        estimator="matching-exact",
        seed=seed,
        attrs=attrs,
    )


# ---------------------------------------------------------------------- NUTS SBC of the PyMC models


ESTIMATORS = ("matching", "hierarchical", "crossed", "power-prior", "judges")
#: Observed variable and the ``pm.Data`` container holding its values, per estimator.
OBSERVED = {
    "matching": ("counts", "count_data"),
    "hierarchical": ("counts", "count_data"),
    "power-prior": ("counts", "count_data"),
    "crossed": ("successes_obs", "successes"),
    "judges": ("scores", "counts"),
}
PRIOR_TRIALS = 4
#: Judges of the template judge model (its candidates are the ``n_models`` LLMs).
JUDGES = 3
_COMPILED: dict = {}


def template_model(estimator: str, M: int, N: int, n_models: int = 2, *, seed: int = 0):
    """The model of ``estimator`` on ``n_models x M x N`` binary trials (all failures).

    Parameters
    ----------
    estimator : str
        One of :data:`ESTIMATORS`.
    M : int
        Questions.
    N : int
        Trials per question (not used by ``judges``).
    n_models : int, optional
        LLMs (candidates for ``judges``), default 2.
    seed : int, optional
        Seeds the prior runs ``R0`` of ``power-prior``, default 0.

    Returns
    -------
    pymc.Model
        The estimator's model; each simulation replaces its observed data.

    Examples
    --------
    >>> from bayes_eval.validation.sbc import template_model
    >>> model = template_model("matching", 3, 4)
    >>> [v.name for v in model.free_RVs], {k: len(v) for k, v in model.coords.items()}
    (['pi'], {'model': 2, 'question': 3, 'category': 2})
    """
    from bayes_eval import models

    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator is {estimator!r}; expected one of {list(ESTIMATORS)}.")
    R = np.zeros((n_models, M, N), dtype=int)
    names = [f"model-{i}" for i in range(n_models)]
    if estimator == "matching":
        return models.matching_model(R, models=names)
    if estimator == "hierarchical":
        return models.hierarchical_model(R, models=names)
    if estimator == "crossed":
        return models.crossed_model(R, models=names)
    if estimator == "judges":
        return _judge_template(M, n_models)
    rng = np.random.default_rng([seed, 7])
    R0 = (rng.random((n_models, M, PRIOR_TRIALS)) < rng.random((n_models, M, 1))).astype(int)
    return models.power_prior_model(R, None, R0, models=names)


def _judge_template(M: int, n_models: int):
    """Judge model, strong constancy, ``beta_max`` 5.

    These are the defaults of :func:`bayes_eval.models.judges.judge_model`: :data:`JUDGES`
    judges score the answers of ``n_models`` candidates to ``M`` questions as wrong/right
    (values 0, 1).
    """
    from bayes_eval.judges.data import JudgeData
    from bayes_eval.models.judges import judge_model

    counts = np.zeros((JUDGES, n_models, 2), dtype=np.int64)
    counts[..., 0] = M
    data = JudgeData(
        counts=counts,
        mask=np.ones((JUDGES, n_models), dtype=bool),
        same_family=np.zeros((JUDGES, n_models), dtype=bool),
        candidates=tuple(f"model-{k}" for k in range(n_models)),
        judges=tuple(f"judge-{j}" for j in range(JUDGES)),
        true_levels=("0", "1"),
        assigned_levels=("0", "1"),
        values=np.array([0.0, 1.0]),
        correct_level=np.arange(2),
    )
    return judge_model(data)


def _conditional_pi_bar(a1, a0, successes, n, rng):
    """``pi_bar`` with ``pi_alpha ~ Beta(a1 + s, a0 + n - s)`` (binary Dirichlet)."""
    return rng.beta(a1 + successes, a0 + n - successes).mean(axis=-1)


def quantities(
    estimator: str, values: dict, successes, n_trials, rng, *, prior_counts=None
) -> tuple[np.ndarray, list[str]]:
    """Test quantities ``(..., V)`` and their names from draws ``values[name]`` ``(..., dims)``.

    ``successes`` ``(..., L, M)`` are the simulated data the draws condition on (broadcast
    against the draws' leading axes); ``None`` skips the quantities that need them.

    Parameters
    ----------
    estimator : str
        One of :data:`ESTIMATORS`.
    values : dict of str to numpy.ndarray
        The draws of the model's variables, leading axes first (``pi`` for ``matching``,
        ``kappa`` and ``beta`` for ``hierarchical``, ...).
    successes : numpy.ndarray or None
        The simulated successes ``(..., L, M)``, or None.
    n_trials : int
        Trials per question ``N``.
    rng : numpy.random.Generator
        Draws ``pi`` from its conditional (``hierarchical``, ``power-prior``).
    prior_counts : numpy.ndarray, optional
        The successes of the prior runs ``R0`` (``power-prior`` only).

    Returns
    -------
    quantities : numpy.ndarray of shape (..., V)
        The test quantities.
    names : list of str
        Their names, e.g. ``pi_bar[model-0]``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.sbc import quantities
    >>> pi = np.random.default_rng(0).dirichlet([1, 1], size=(50, 2, 3))  # draws, L, M, 2
    >>> q, names = quantities("matching", {"pi": pi}, None, 4, np.random.default_rng(0))
    >>> q.shape, names[:3]
    ((50, 6), ['pi_bar[model-0]', 'pi_bar[model-1]', 'w.pi[model-0,question-0]'])
    """
    parts: list = []
    names: list[str] = []

    def add(label, arr):
        arr = np.asarray(arr, dtype=float)
        if "{}" in label:
            parts.append(arr)
            names.extend(label.format(i) for i in range(arr.shape[-1]))
        else:
            parts.append(arr[..., None])
            names.append(label)

    pi_bar = None
    if estimator == "matching":
        pq = values["pi"][..., 1]
        pi_bar = pq.mean(axis=-1)
        add("pi_bar[model-{}]", pi_bar)
        for q in range(min(pq.shape[-1], 2)):
            add(f"w.pi[model-0,question-{q}]", pq[..., 0, q])
    elif estimator in ("hierarchical", "power-prior"):
        if estimator == "hierarchical":
            add("kappa[model-{}]", values["kappa"])
            add("beta_top[model-{}]", values["beta"][..., 1])
            conc = values["kappa"][..., None] * values["beta"]  # (..., L, 2)
            a0_, a1_ = conc[..., 0, None], conc[..., 1, None]
        else:
            add("a0[model-{}]", values["a0"])
            a = values["a0"][..., None]
            a0_ = 1 + a * (PRIOR_TRIALS - prior_counts)
            a1_ = 1 + a * prior_counts
        if successes is not None:
            pi_bar = _conditional_pi_bar(a1_, a0_, successes, n_trials, rng)
            add("pi_bar[model-{}]", pi_bar)
    elif estimator == "judges":
        add("rho[judge-{}]", values["rho"])
        pi_bar = values["expected_score"]
        add("expected_score[model-{}]", pi_bar)
    else:
        for name in ("mu_theta", "sigma_theta", "sigma_b"):
            add(name, values[name])
        add("theta[model-{}]", values["theta"])
        add("b[question-0]", values["b"][..., 0])
        pi_bar = values["pi_bar"]
        add("pi_bar[model-{}]", pi_bar)
    if pi_bar is not None and pi_bar.shape[-1] >= 2:
        add("rank[model-{}]", rank(pi_bar, axis=-1))
    shape = np.broadcast_shapes(*(p.shape[:-1] for p in parts))
    return np.concatenate([np.broadcast_to(p, (*shape, p.shape[-1])) for p in parts], -1), names


def _target_accept(estimator: str, model) -> float:
    """The sampler setting the package uses for this model."""
    if estimator == "judges":
        from bayes_eval.models.judges import FIXED_SETTINGS

        return FIXED_SETTINGS["target_accept"]
    from bayes_eval.models import model_info

    return model_info(model).target_accept


def _compiled(estimator, M, N, n_models, seed):
    """``(model, compiled, target_accept)``, built once per worker process and kept."""
    key = (estimator, M, N, n_models, seed if estimator == "power-prior" else 0)
    if key not in _COMPILED:
        import nutpie

        model = template_model(estimator, M, N, n_models, seed=seed)
        target = _target_accept(estimator, model)
        _COMPILED[key] = (model, nutpie.compile_pymc_model(model), target)
    return _COMPILED[key]


def _values(ds: xr.Dataset, names, lead: tuple[str, ...]) -> dict:
    out = {}
    for name in names:
        da = ds[name]
        out[name] = da.transpose(*lead, *[d for d in da.dims if d not in lead]).values
    return out


_VARS = {
    "matching": ("pi",),
    "hierarchical": ("kappa", "beta"),
    "power-prior": ("a0",),
    "crossed": ("mu_theta", "sigma_theta", "sigma_b", "theta", "b", "pi_bar"),
    "judges": ("rho", "expected_score"),
}


def run_block(
    estimator: str,
    M: int,
    N: int,
    *,
    n_models: int = 2,
    start: int = 0,
    size: int = 10,
    draws: int = 200,
    tune: int = 200,
    chains: int = 2,
    thin: int = 4,
    seed: int = 0,
    on_progress: Callable[[float], None] | None = None,
) -> xr.Dataset:
    """Simulations ``start`` to ``start + size - 1`` of a NUTS SBC on one compiled model.

    The prior predictive draws, the sampler seeds and the tie-breaking are seeded by
    ``(seed, start)``, so a block gives the same ranks on any worker, in any order.
    ``on_progress``, if given, is called with the fraction of the block done after each fit.

    Parameters
    ----------
    estimator : str
        One of :data:`ESTIMATORS`.
    M : int
        Questions per simulated benchmark.
    N : int
        Trials per question.
    n_models : int, optional
        LLMs per simulated benchmark, default 2.
    start : int, optional
        The global number of the block's first simulation, default 0.
    size : int, optional
        Simulations in the block, default 10.
    draws : int, optional
        NUTS draws per chain, default 200.
    tune : int, optional
        NUTS tuning steps per chain, default 200.
    chains : int, optional
        Chains per fit, default 2.
    thin : int, optional
        Keep every ``thin``-th draw for the ranks, default 4.
    seed : int, optional
        The study's seed, default 0.
    on_progress : callable, optional
        Called with the fraction of the block done after each fit.

    Returns
    -------
    xarray.Dataset
        ``rank`` (simulation, variable) with global simulation numbers, ``divergences``
        (simulation), and attrs ``n_draws`` (``chains * draws // thin``) and ``variable``
        names.

    Examples
    --------
    The model is compiled with nutpie (once per process) and fitted ``size`` times, so
    the example is shown, not run::

        from bayes_eval.validation.sbc import run_block
        kw = dict(size=2, draws=20, tune=20, chains=1, thin=2)
        ds = run_block("matching", 3, 4, **kw)
        dict(ds["rank"].sizes), ds.attrs["n_draws"]  # ({'simulation': 2, 'variable': 6}, 10)
    """
    import nutpie
    import pymc as pm

    model, compiled, target_accept = _compiled(estimator, M, N, n_models, seed)
    obs, container = OBSERVED[estimator]
    ss = np.random.SeedSequence([seed, start])
    prior_seed, sampler_seed, rank_seed = (int(s.generate_state(1)[0]) for s in ss.spawn(3))
    rng = np.random.default_rng(rank_seed)
    with model:
        pp = pm.sample_prior_predictive(draws=size, random_seed=prior_seed)
    prior = pp["prior"].to_dataset().isel(chain=0)
    data = pp["prior_predictive"][obs].isel(chain=0).values  # (size, L, M[, 2])
    succ = data if estimator == "crossed" else data[..., 1]
    n0 = None
    if estimator == "power-prior":
        n0 = model["prior_count_data"].get_value()[..., 1]
    truth, names = quantities(
        estimator, _values(prior, _VARS[estimator], ("draw",)), succ, N, rng, prior_counts=n0
    )
    seeds = np.random.default_rng(sampler_seed).integers(0, 2**31, size)
    ranks, divergent = [], []
    for i in range(size):
        fit = nutpie.sample(
            compiled.with_data(**{container: data[i]}),
            draws=draws,
            tune=tune,
            chains=chains,
            seed=int(seeds[i]),
            target_accept=target_accept,
            progress_bar=False,
        )
        post = fit["posterior"].to_dataset().stack(sample=("chain", "draw"))
        post = post.isel(sample=slice(None, None, thin))
        values = _values(post, _VARS[estimator], ("sample",))
        sampled, _ = quantities(estimator, values, succ[i], N, rng, prior_counts=n0)
        ranks.append(randomised_rank(truth[i], sampled, rng, axis=0))
        divergent.append(int(fit["sample_stats"]["diverging"].sum()))
        if on_progress is not None:
            on_progress((i + 1) / size)
    sims = np.arange(start, start + size)
    return xr.Dataset(
        {
            "rank": (("simulation", "variable"), np.array(ranks)),
            "divergences": ("simulation", np.array(divergent)),
        },
        coords={"simulation": sims, "variable": names},
        attrs={"n_draws": len(range(0, chains * draws, thin))},
    )


def simuk_sbc(
    estimator: str,
    M: int,
    N: int,
    *,
    n_models: int = 2,
    simulations: int = 20,
    draws: int = 200,
    tune: int = 200,
    chains: int = 2,
    thin: int = 4,
    seed: int = 0,
    sample_kwargs: dict | None = None,
) -> xr.Dataset:
    """NUTS SBC with :class:`simuk.SBC` (one model rebuilt per simulation), our result shape.

    simuk ranks against every posterior draw (its own ``prior_sbc`` group); here the
    posterior fits it keeps are thinned by ``thin`` and the test quantities of
    :func:`quantities` are ranked (ties randomised), those needing the simulated counts
    excepted. ``sample_kwargs`` go to ``pymc.sample`` (nutpie by default when installed).

    Parameters
    ----------
    estimator : str
        One of :data:`ESTIMATORS`.
    M : int
        Questions per simulated benchmark.
    N : int
        Trials per question.
    n_models : int, optional
        LLMs per simulated benchmark, default 2.
    simulations : int, optional
        SBC simulations, default 20.
    draws : int, optional
        NUTS draws per chain, default 200.
    tune : int, optional
        NUTS tuning steps per chain, default 200.
    chains : int, optional
        Chains per fit, default 2.
    thin : int, optional
        Keep every ``thin``-th draw for the ranks, default 4.
    seed : int, optional
        Seeds simuk and the tie-breaking, default 0.
    sample_kwargs : dict, optional
        More arguments of ``pymc.sample``.

    Returns
    -------
    xarray.Dataset
        :func:`sbc_dataset` with attrs ``M``, ``N``, ``n_models`` and ``method``.

    Raises
    ------
    RuntimeError
        simuk finished fewer simulations than asked.

    Examples
    --------
    Each simulation rebuilds and samples the model, so the example is shown, not run::

        from bayes_eval.validation.sbc import simuk_sbc
        ds = simuk_sbc("matching", 3, 4, simulations=20, draws=100, chains=2)
        ds.attrs["method"]  # 'simuk.SBC (NUTS)'
    """
    import simuk

    model = template_model(estimator, M, N, n_models, seed=seed)
    kwargs = {"draws": draws, "tune": tune, "chains": chains}
    kwargs |= {"target_accept": _target_accept(estimator, model), **(sample_kwargs or {})}
    sbc = simuk.SBC(
        model, num_simulations=simulations, sample_kwargs=kwargs, seed=seed, progress_bar=False
    )
    sbc.run_simulations()
    if len(sbc.posteriors) < simulations:
        raise RuntimeError(f"simuk finished {len(sbc.posteriors)} of {simulations} simulations.")
    rng = np.random.default_rng([seed, 1])
    n0 = None
    if estimator == "power-prior":
        n0 = model["prior_count_data"].get_value()[..., 1]
    truth, names = quantities(
        estimator,
        _values(sbc.ref_params, _VARS[estimator], ("sample",)),
        None,
        N,
        rng,
        prior_counts=n0,
    )
    ranks = []
    for i, post in enumerate(sbc.posteriors):
        post = post.isel(sample=slice(None, None, thin))
        values = _values(post, _VARS[estimator], ("sample",))
        sampled, _ = quantities(estimator, values, None, N, rng, prior_counts=n0)
        ranks.append(randomised_rank(truth[i], sampled, rng, axis=0))
    n_draws = len(range(0, chains * draws, thin))
    return sbc_dataset(
        np.array(ranks),
        names,
        n_draws=n_draws,
        estimator=estimator,
        seed=seed,
        attrs={"M": M, "N": N, "n_models": n_models, "method": "simuk.SBC (NUTS)"},
    )
