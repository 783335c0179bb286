r"""Simulation-based calibration (SBC): one result shape for every estimator, its test, its plot.

SBC (Talts et al., "Validating Bayesian Inference Algorithms with Simulation-Based
Calibration") draws :math:`\theta^\star \sim p(\theta)`, data :math:`y \sim p(y \mid
\theta^\star)`, then ``L`` posterior draws :math:`\theta_1..\theta_L` given ``y``, and records
the rank :math:`r = \#\{l : f(\theta_l) < f(\theta^\star)\}` of every scalar test quantity
``f``. If the posterior draws are exact, :math:`r` is uniform on :math:`\{0, \dots, L\}`
whatever the prior, the data size or ``f``; a wrong posterior (a bug, a wrong prior, a
sampler that has not converged) shows as a non-uniform rank histogram.

Every SBC of this package (the exact one of the matching model, :mod:`.sbc_exact`; NUTS with
simuk or on one compiled model, :mod:`.sbc_nuts`) returns the same :class:`xarray.Dataset`
(:func:`sbc_dataset`):

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
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike, NDArray
from scipy import stats

__all__ = [
    "THRESHOLD",
    "pit_values",
    "plot_sbc",
    "randomised_rank",
    "sbc_dataset",
    "sbc_summary",
    "uniformity_test",
]

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
    """
    r = np.asarray(ranks)
    if r.ndim not in (1, 2) or r.shape[0] < 2:
        raise ValueError(f"ranks has shape {r.shape}; expected (simulations >= 2[, variables]).")
    if n_draws < 1 or r.min() < 0 or r.max() > n_draws:
        raise ValueError(f"ranks span {r.min()}..{r.max()}; expected integers in 0..{n_draws}.")
    flat = r.reshape(r.shape[0], -1).astype(np.int64)
    n_sims = flat.shape[0]
    b = bins or _bins(n_draws, n_sims)
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
    """JSON-ready per-variable p-values and PASS/FAIL of an SBC result."""
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
    """Randomised PIT values ``(rank + U) / (L + 1)``, shape ``(simulation, variable)``:
    continuous uniform on (0, 1) when the ranks are uniform on ``0..L`` (:func:`plot_sbc`).
    ``U`` is seeded by the result's ``seed``."""
    rng = np.random.default_rng([int(ds.attrs.get("seed", 0)), 7])
    ranks = ds["rank"].values
    return (ranks + rng.uniform(size=ranks.shape)) / (ds.attrs["n_draws"] + 1)


def _add_simultaneous_band(pc, names: list[str], n_sims: int, *, prob: float) -> None:
    """Shade the ``prob`` simultaneous band of the ECDF difference of ``n_sims`` uniform
    values on every panel (Säilynoja, Bürkner and Vehtari, "Graphical test for discrete
    uniformity and its applications in goodness-of-fit evaluation and multiple sample
    comparison": pointwise binomial bands at the level that gives ``prob`` jointly, found by
    simulation in arviz-stats' ``ecdf_pit``). arviz-plots' own ``method="envelope"`` draws
    this band but fails in arviz-plots 1.3.2 (it passes a DataArray to ``np.linspace``)."""
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
    difference shaded (:func:`_add_simultaneous_band`). The PASS/FAIL of the study is the
    chi-square test (:func:`uniformity_test`), not the p-value printed on the panels.
    """
    import arviz_plots as azp
    from arviz_base import from_dict

    from bayes_eval.plotting.figure import pyplot

    pyplot()  # the Agg backend
    frac = pit_values(ds)
    names = [str(v) for v in ds["variable"].values]
    dt = from_dict({"prior_sbc": {n: frac[None, :, i] for i, n in enumerate(names)}})
    pc = azp.plot_ecdf_pit(
        dt, group="prior_sbc", backend="matplotlib", figure_kwargs={"sharey": False}
    )
    _add_simultaneous_band(pc, names, frac.shape[0], prob=0.95)
    pc.viz["figure"].item().tight_layout()
    path = Path(path)
    pc.savefig(path)
    pyplot().close("all")
    return path
