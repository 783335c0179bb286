"""Sampling a bayes_eval model with NUTS, and saving/loading the result as NetCDF.

The result is an ``xarray.DataTree`` (ArviZ 1's InferenceData) with the standard groups
``posterior``, ``sample_stats``, ``observed_data`` and ``constant_data``, plus
``closed_form``: the Bayes@N ``mu`` and ``sigma`` for the same data (see each builder's
``reference_note``, stored as the group's ``note`` attribute). Models that integrate ``pi``
out get ``pi`` and ``pi_bar`` added to ``posterior``, drawn exactly from the conditional
Dirichlet with a generator seeded from ``seed``.

Every fit is checked for convergence (:func:`diagnostics`) with PyMC's own thresholds:
rank-normalised split r-hat at most 1.01, bulk and tail ESS at least 100 per chain, and no
divergence after tuning (Vehtari, Gelman, Simpson, Carpenter and Bürkner, "Rank-normalization,
folding, and localization: An improved R-hat for assessing convergence of MCMC", Bayesian
Analysis, 2021). The summary is stored in the DataTree's ``attrs`` (scalars and strings, so it
survives :func:`save`/:func:`load`), and a :class:`ConvergenceWarning` names every variable
past a threshold.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import pymc as pm
import xarray as xr

from bayes_eval.inputs import check_memory
from bayes_eval.interrupts import InterruptGuard
from bayes_eval.models.crossed import crossed_info
from bayes_eval.models.hierarchical import hierarchical_info, mixture_info
from bayes_eval.models.matching import matching_info
from bayes_eval.models.model_data import ModelInfo
from bayes_eval.models.power_prior import power_prior_info
from bayes_eval.nuts import NutsSettings
from bayes_eval.posteriors.posterior import DirichletPosterior

__all__ = [
    "ESS_PER_CHAIN_MIN",
    "MAX_CHAINS",
    "MIN_DRAWS",
    "RHAT_MAX",
    "TRUSTED",
    "ConvergenceWarning",
    "Diagnostics",
    "check_trace_memory",
    "closed_form_dataset",
    "diagnostics",
    "element_diagnostics",
    "load",
    "model_info",
    "sample",
    "sampler_session",
    "save",
    "usable_cpus",
    "warn_if_unconverged",
]

Sampler = Literal["pymc", "nutpie"]

#: ``compile_kwargs`` of PyMC's own sampler (:func:`sample`): PyTensor skips checking the
#: inputs of the compiled log density, which come from the sampler itself.
TRUSTED = {"trust_input": True}
#: Largest acceptable rank-normalised split r-hat (PyMC's ``run_convergence_checks``).
RHAT_MAX = 1.01
#: Smallest acceptable bulk and tail ESS per chain (PyMC checks bulk ESS against 100 per chain;
#: Vehtari et al. 2021 ask the same of the tail ESS).
ESS_PER_CHAIN_MIN = 100
#: Fewer draws per chain are too few to check convergence reliably (PyMC's limit).
MIN_DRAWS = 100

_ATTRS = {
    "max_rhat": float,
    "min_ess_bulk": float,
    "min_ess_tail": float,
    "divergences": int,
    "divergence_rate": float,
    "converged": bool,
}
_MESSAGES_ATTR = "convergence_messages"


#: One reader per builder: the model's :class:`ModelInfo`, or None for another kind of model.
_READERS = (matching_info, power_prior_info, mixture_info, hierarchical_info, crossed_info)


def model_info(model: pm.Model) -> ModelInfo:
    """What :func:`~bayes_eval.models.sampling.sample` needs to know about a model.

    The model is one built by :mod:`bayes_eval.models`.

    Derived from the model itself, not stored on it: its ``coords``, its named ``pm.Data``
    containers (the counts, weights and prior of :mod:`bayes_eval.models.model_data`) and its
    free variables, which tell the builders apart. Data changed with ``pm.set_data`` are
    therefore what the closed-form reference and the exact conditional draws use.

    Parameters
    ----------
    model : pymc.Model
        A model built by :func:`~bayes_eval.models.matching.matching_model`,
        :func:`~bayes_eval.models.power_prior.power_prior_model`,
        :func:`~bayes_eval.models.hierarchical.hierarchical_model`,
        :func:`~bayes_eval.models.hierarchical.mixture_model` or
        :func:`~bayes_eval.models.crossed.crossed_model`.

    Returns
    -------
    ModelInfo
        Its kind, data, closed-form reference and (where ``pi`` is integrated out) the exact
        conditional draw of ``pi``.

    Raises
    ------
    ValueError
        If no builder recognises the model.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import hierarchical_model, matching_model, model_info
    >>> R = np.array([[0, 1, 1], [1, 1, 0]])
    >>> model_info(matching_model(R)).kind, model_info(hierarchical_model(R)).kind
    ('matching', 'hierarchical')
    """
    for read in _READERS:
        info = read(model)
        if info is not None:
            return info
    raise ValueError("model was not built by bayes_eval.models; expected one of its builders.")


class ConvergenceWarning(RuntimeWarning):
    """A fit failed a convergence check of :func:`~bayes_eval.models.sampling.diagnostics`.

    The failed checks are listed in the message.

    Examples
    --------
    >>> import warnings
    >>> from bayes_eval.models.sampling import ConvergenceWarning, Diagnostics, warn_if_unconverged
    >>> issubclass(ConvergenceWarning, RuntimeWarning)
    True
    >>> diag = Diagnostics(1.2, 50.0, 40.0, 0, 0.0, False, ("r-hat of 'pi' is 1.200 > 1.01",))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", ConvergenceWarning)  # unconverged fits raise
    ...     warn_if_unconverged(diag)
    Traceback (most recent call last):
    ...
    bayes_eval.models.sampling.ConvergenceWarning: NUTS fit did not pass the convergence checks:
      r-hat of 'pi' is 1.200 > 1.01
    """


class Diagnostics(NamedTuple):
    """Convergence summary of a NUTS fit over the checked posterior variables.

    Attributes
    ----------
    max_rhat : float
        Largest rank-normalised split r-hat of any element (NaN with one chain).
    min_ess_bulk, min_ess_tail : float
        Smallest bulk and tail effective sample size of any element (over all chains).
    divergences : int
        Divergent transitions after tuning (``sample_stats.diverging``).
    divergence_rate : float
        ``divergences`` over the number of post-warm-up draws (all chains).
    converged : bool
        True when no check failed, i.e. ``messages`` is empty: at least 2 chains of at least
        ``MIN_DRAWS`` draws, ``max_rhat <= RHAT_MAX``, both ESS at least
        ``ESS_PER_CHAIN_MIN`` per chain, and no divergence.
    messages : tuple of str
        One line per failed check, naming the variable, its value and the threshold.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models.sampling import Diagnostics, diagnostics
    >>> theta = np.random.default_rng(0).normal(size=(2, 200, 3))
    >>> fit = xr.DataTree.from_dict({
    ...     "posterior": xr.Dataset({"theta": (("chain", "draw", "x"), theta)}),
    ...     "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 200)) > 0)}),
    ... })
    >>> diag = diagnostics(fit)
    >>> diag.converged, diag.divergences, round(diag.max_rhat, 3)
    (True, 0, 1.002)
    >>> Diagnostics.from_attrs(diag.to_attrs()) == diag
    True
    """

    max_rhat: float
    min_ess_bulk: float
    min_ess_tail: float
    divergences: int
    divergence_rate: float
    converged: bool
    messages: tuple[str, ...]

    def to_attrs(self) -> dict[str, int | float | str]:
        """Flat NetCDF-safe attributes (``converged`` as 0/1, messages joined by newlines)."""
        out: dict[str, int | float | str] = {
            k: int(v) if isinstance(v, bool) else v
            for k, v in self._asdict().items()
            if k in _ATTRS
        }
        out[_MESSAGES_ATTR] = "\n".join(self.messages)
        return out

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any]) -> Diagnostics:
        """Read back what :meth:`to_attrs` stored (e.g. ``load(path).attrs``).

        Raises
        ------
        KeyError
            If the attributes hold no diagnostics (a fit from before they were stored).
        """
        values = {k: kind(attrs[k]) for k, kind in _ATTRS.items()}
        text = str(attrs[_MESSAGES_ATTR])
        return cls(**values, messages=tuple(text.split("\n")) if text else ())


def closed_form_dataset(info: ModelInfo) -> xr.Dataset:
    """``mu``/``sigma`` (and ``mu_<key>``/``sigma_<key>``) over ``model`` for a built model.

    Parameters
    ----------
    info : ModelInfo
        What :func:`~bayes_eval.models.sampling.model_info` read from the model: its data
        and the Dirichlet concentrations of the closed-form posteriors (``info.reference``).

    Returns
    -------
    xarray.Dataset
        ``mu`` and ``sigma`` (plus ``mu_<key>``, ``sigma_<key>`` for every other reference)
        over ``model``, with the attribute ``note`` (``info.reference_note``): the
        ``closed_form`` group of :func:`~bayes_eval.models.sampling.sample`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model, model_info
    >>> from bayes_eval.models.sampling import closed_form_dataset
    >>> ds = closed_form_dataset(model_info(matching_model(np.array([[0, 1, 1], [1, 1, 0]]))))
    >>> ds["mu"].values.round(4).tolist(), ds["sigma"].values.round(4).tolist()
    ([0.6], [0.1414])
    >>> ds.attrs["note"]
    'Bayes@N closed form with the same prior'
    """
    data = info.data
    out = {}
    for key, nu in info.reference.items():
        post = DirichletPosterior(nu=np.asarray(nu, float), w=data.w, tally=None)  # type: ignore[arg-type]
        mu, sigma = post.moments()
        suffix = f"_{key}" if key else ""
        out[f"mu{suffix}"] = ("model", mu)
        out[f"sigma{suffix}"] = ("model", sigma)
    return xr.Dataset(
        out, coords={"model": data.coords["model"]}, attrs={"note": info.reference_note}
    )


def element_diagnostics(da: xr.DataArray) -> xr.Dataset:
    """Rank-normalised split r-hat, bulk and tail ESS of every element of one variable.

    ``da`` has dims ``chain`` and ``draw``; the result has ``r_hat``, ``ess_bulk`` and
    ``ess_tail`` over its other dims: the numbers :func:`diagnostics` checks, computed for all
    elements at once by :func:`~bayes_eval.models.rank_diagnostics.rank_diagnostics` (those of
    :func:`arviz_stats.rhat` with ``method="rank"`` and :func:`arviz_stats.ess` to rounding;
    the tail ESS at the 5% and 95% quantiles of Vehtari et al., ``prob=0.05``, where ArviZ's
    default takes 11% and 89%). Elements that never change (a fixed entry of a structured
    array) have no r-hat and say nothing about mixing: they are NaN.

    Parameters
    ----------
    da : xarray.DataArray
        Draws of one posterior variable, with dims ``chain``, ``draw`` and any others.

    Returns
    -------
    xarray.Dataset
        ``r_hat``, ``ess_bulk`` and ``ess_tail`` over the dims of ``da`` other than ``chain``
        and ``draw`` (NaN for elements that never change).

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models.sampling import element_diagnostics
    >>> draws = np.random.default_rng(0).normal(size=(2, 200, 3))
    >>> per = element_diagnostics(xr.DataArray(draws, dims=("chain", "draw", "x")))
    >>> list(per.data_vars), per["r_hat"].dims, per["r_hat"].values.round(2).tolist()
    (['r_hat', 'ess_bulk', 'ess_tail'], ('x',), [1.0, 1.0, 1.0])
    """
    from bayes_eval.models.rank_diagnostics import TAIL_PROB, rank_diagnostics

    # the same numbers as arviz_stats (to rounding), vectorised over the elements
    da = da.transpose("chain", "draw", ...)
    values = np.asarray(da.values)
    template = da.isel(chain=0, draw=0, drop=True)
    if values.shape[0] and values.shape[1]:
        moving = values.max(axis=(0, 1)) > values.min(axis=(0, 1))  # False where NaN
    else:
        moving = np.zeros(template.shape, dtype=bool)
    nan = np.full(template.shape, np.nan)
    found = (nan, nan, nan)
    if moving.any():
        found = rank_diagnostics(values, tail_prob=TAIL_PROB)
    return xr.Dataset(
        {
            name: template.copy(data=np.where(moving, v, np.nan)).drop_attrs()
            for name, v in zip(("r_hat", "ess_bulk", "ess_tail"), found, strict=True)
        }
    )


def _extremes(da: xr.DataArray) -> tuple[float, float, float]:
    """Worst r-hat, bulk ESS and tail ESS over the elements of one variable (NaN if none)."""
    per = element_diagnostics(da)

    def pick(values: xr.DataArray, worst) -> float:
        finite = np.asarray(values).ravel()
        finite = finite[np.isfinite(finite)]
        return float(worst(finite)) if finite.size else np.nan

    return pick(per["r_hat"], np.max), pick(per["ess_bulk"], np.min), pick(per["ess_tail"], np.min)


def diagnostics(idata: xr.DataTree, var_names: Sequence[str] | None = None) -> Diagnostics:
    """Convergence diagnostics of a NUTS fit, with PyMC's thresholds.

    For every element of every checked posterior variable: rank-normalised split r-hat
    (:func:`arviz_stats.rhat`, ``method="rank"``), bulk and tail ESS
    (:func:`arviz_stats.ess`); and the divergent transitions in ``sample_stats``. A check fails
    (one line in ``messages`` per variable) when r-hat exceeds :data:`RHAT_MAX` (1.01), a bulk
    or tail ESS is below :data:`ESS_PER_CHAIN_MIN` (100) times the number of chains, any
    transition diverged, there is a single chain (r-hat undefined) or fewer than
    ``MIN_DRAWS`` (100) draws per chain. These are the checks of PyMC's
    ``run_convergence_checks`` (which tests only the bulk ESS), following Vehtari, Gelman,
    Simpson, Carpenter and Bürkner, "Rank-normalization, folding, and localization: An
    improved R-hat for assessing convergence of MCMC" (Bayesian Analysis, 2021).

    Parameters
    ----------
    idata : xarray.DataTree
        With a ``posterior`` group (dims ``chain``, ``draw``) and ``sample_stats.diverging``;
        a fit from :func:`sample` or :func:`load` (computing again on a loaded fit gives the
        numbers stored in its ``attrs``).
    var_names : sequence of str, optional
        Posterior variables to check; default all of them. Non-numeric variables are skipped,
        and so are elements that never change.

    Returns
    -------
    Diagnostics
        ``max_rhat``/``min_ess_*`` are NaN when nothing could be computed (e.g. r-hat with one
        chain). Without ``sample_stats.diverging`` the divergences count as 0 and a message
        says they are unknown, so ``converged`` is False.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models.sampling import diagnostics
    >>> theta = np.random.default_rng(0).normal(size=(1, 200))
    >>> fit = xr.DataTree.from_dict({
    ...     "posterior": xr.Dataset({"theta": (("chain", "draw"), theta)}),
    ...     "sample_stats": xr.Dataset({"diverging": (("chain", "draw"), np.zeros((1, 200)) > 0)}),
    ... })
    >>> diag = diagnostics(fit)
    >>> diag.converged, diag.messages
    (False, ('1 chain: r-hat needs at least 2 chains to compare; run more chains',))
    """
    post = idata["posterior"].to_dataset()
    names = list(post.data_vars) if var_names is None else list(var_names)
    missing = [v for v in names if v not in post.data_vars]
    if missing:
        raise ValueError(f"var_names {missing} are not in the posterior.")
    chains, draws = int(post.sizes["chain"]), int(post.sizes["draw"])
    ess_min = ESS_PER_CHAIN_MIN * chains
    per_chain = f"{ESS_PER_CHAIN_MIN} per chain x {chains} chain{'s' if chains > 1 else ''}"
    messages: list[str] = []
    if chains < 2:
        messages.append("1 chain: r-hat needs at least 2 chains to compare; run more chains")
    if draws < MIN_DRAWS:
        messages.append(
            f"{draws} draws per chain < {MIN_DRAWS}: too few to check convergence reliably"
        )
    rhats, bulks, tails = [], [], []
    for name in names:
        da = post[name]
        if da.dtype.kind not in "biuf":
            continue
        rhat, bulk, tail = _extremes(da)
        rhats.append(rhat)
        bulks.append(bulk)
        tails.append(tail)
        if rhat > RHAT_MAX:
            messages.append(f"r-hat of {name!r} is {rhat:.3f} > {RHAT_MAX}")
        for kind, ess in (("bulk", bulk), ("tail", tail)):
            if ess < ess_min:
                messages.append(f"{kind} ESS of {name!r} is {ess:.0f} < {ess_min} ({per_chain})")

    def worst(values: list[float], fn) -> float:
        finite = [v for v in values if np.isfinite(v)]
        return float(fn(finite)) if finite else np.nan

    stats = idata["sample_stats"].to_dataset() if "sample_stats" in idata.children else None
    if stats is not None and "diverging" in stats:
        diverging = stats["diverging"]
        divergences = int(diverging.sum())
        rate = divergences / max(int(diverging.size), 1)
        if divergences:
            noun = "divergence" if divergences == 1 else "divergences"
            messages.append(
                f"{divergences} {noun} after tuning ({rate:.2%} of {diverging.size} draws)"
                " > 0: increase target_accept or reparametrise"
            )
    else:
        divergences, rate = 0, np.nan
        messages.append("no sample_stats.diverging: divergences unknown")
    return Diagnostics(
        max_rhat=worst(rhats, max),
        min_ess_bulk=worst(bulks, min),
        min_ess_tail=worst(tails, min),
        divergences=divergences,
        divergence_rate=float(rate),
        converged=not messages,
        messages=tuple(messages),
    )


def _package_dirs() -> tuple[str, ...]:
    """Directories of ``bayes_eval``, ``bayes_eval.models`` and ``bayes_eval.validation``."""
    dirs = [Path(__file__).parent]
    for package in ("bayes_eval", "bayes_eval.validation"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            dirs.extend(Path(d) for d in spec.submodule_search_locations)
    found = {str(d) for d in dirs} | {str(d.resolve()) for d in dirs}
    return tuple(sorted(os.path.join(d, "") for d in found))


def warn_if_unconverged(diag: Diagnostics, what: str = "NUTS fit") -> None:
    """Issue one :class:`ConvergenceWarning` listing ``diag.messages`` (if any).

    The warning is attributed to the first caller outside ``bayes_eval`` (the user's code),
    not to the library frame that sampled.

    Parameters
    ----------
    diag : Diagnostics
        The checks of a fit (:func:`~bayes_eval.models.sampling.diagnostics`).
    what : str, optional
        What was fitted, the start of the message; default ``"NUTS fit"``.

    Examples
    --------
    >>> import warnings
    >>> from bayes_eval.models.sampling import Diagnostics, warn_if_unconverged
    >>> diag = Diagnostics(1.2, 50.0, 40.0, 0, 0.0, False, ("r-hat of 'pi' is 1.200 > 1.01",))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_unconverged(diag, "toy fit")
    >>> print(caught[0].message)
    toy fit did not pass the convergence checks:
      r-hat of 'pi' is 1.200 > 1.01
    """
    if diag.messages:
        text = f"{what} did not pass the convergence checks:\n  " + "\n  ".join(diag.messages)
        warnings.warn(text, ConvergenceWarning, skip_file_prefixes=_package_dirs())


#: The most chains :func:`sample` runs (:func:`check_trace_memory`).
MAX_CHAINS = 64


def _values_per_draw(model: pm.Model) -> float:
    """How many numbers one draw of ``model`` stores.

    Its free variables (at their initial point) and its deterministics (static shapes; a
    deterministic of unknown static shape counts as the largest free variable). The trace holds
    ``draws + tune`` of them per chain while it is sampled.
    """
    sizes = [float(np.size(v)) for v in model.initial_point().values()]
    largest = max(sizes, default=1.0)
    for d in model.deterministics:
        shape = d.type.shape
        sizes.append(
            float(np.prod([float(n) for n in shape]))
            if all(n is not None for n in shape)
            else largest
        )
    return max(sum(sizes), 1.0)


def check_trace_memory(model: pm.Model, *, draws: int, tune: int, chains: int) -> None:
    """Refuse NUTS settings whose trace cannot fit in memory, before anything is compiled.

    The estimate is ``8 (draws + tune) chains V`` bytes, ``V`` the numbers one draw stores
    (free variables and deterministics): the trace holds the tuning steps too while it is
    sampled.

    Parameters
    ----------
    model : pymc.Model
        The model to sample.
    draws, tune, chains : int, keyword-only
        Draws and tuning steps per chain, and the number of chains, as given to
        :func:`~bayes_eval.models.sampling.sample`.

    Raises
    ------
    ValueError
        Above :data:`bayes_eval.inputs.MEMORY_LIMIT`, naming ``--draws``, ``--tune`` and
        ``--chains``; or more than :data:`MAX_CHAINS` chains (each is initialised, tuned
        and sampled in turn: a time bomb even when the trace fits).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model
    >>> from bayes_eval.models.sampling import check_trace_memory
    >>> model = matching_model(np.array([[0, 1, 1], [1, 1, 0]]))
    >>> check_trace_memory(model, draws=1000, tune=1000, chains=4)  # fits: returns None
    >>> check_trace_memory(model, draws=1000, tune=1000, chains=100)
    Traceback (most recent call last):
    ...
    ValueError: --chains is 100; expected at most 64 ...
    """
    if float(chains) > MAX_CHAINS:
        raise ValueError(
            f"--chains is {chains}; expected at most {MAX_CHAINS} (4 is the default: more "
            "chains cost time without sharper diagnostics; raise --draws instead)."
        )
    check_memory(
        8.0 * (float(draws) + float(tune)) * float(chains) * _values_per_draw(model),
        f"--draws {draws} and --tune {tune} x --chains {chains} of NUTS",
        "fewer draws and tuning steps (1000 of each per chain are plenty)",
    )


def sample(
    model: pm.Model,
    nuts: NutsSettings | None = None,
    *,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    seed: int | None = None,
    sampler: Sampler | None = None,
    progress: bool | None = None,
    cores: int | None = None,
    target_accept: float | None = None,
    warn: bool | None = None,
    log_likelihood: bool = False,
    log_prior: bool = False,
) -> xr.DataTree:
    """Sample a model built by :mod:`bayes_eval.models` with NUTS.

    Parameters
    ----------
    model : pymc.Model
        From :func:`~bayes_eval.models.matching.matching_model`,
        :func:`~bayes_eval.models.hierarchical.hierarchical_model`,
        :func:`~bayes_eval.models.hierarchical.mixture_model`,
        :func:`~bayes_eval.models.crossed.crossed_model` or
        :func:`~bayes_eval.models.power_prior.power_prior_model`.
    nuts : bayes_eval.nuts.NutsSettings, optional
        The settings of the run, as one value (default: ``NutsSettings()``). The keywords
        below, where given, override its fields one by one (as :func:`pymc.sample` takes
        them); a setting left unset in both is the model's own.
    draws, tune, chains : int, keyword-only
        Draws kept and tuning steps per chain (default 1000 each), and the number of chains
        (default 4).
    seed : int, keyword-only
        Seeds the sampler and the exact conditional draws; with
        ``PYTENSOR_FLAGS=numba__fastmath=False`` (set by :mod:`bayes_eval.models` unless you
        chose otherwise) the same seed gives the same draws.
    sampler : {"pymc", "nutpie"}, keyword-only
        PyMC's NUTS or nutpie's.
    progress : bool, keyword-only
        Show the sampler's progress bar (on stderr); default False.
    cores : int, optional, keyword-only
        Chains run at the same time (PyMC: worker processes; nutpie: threads). Default: the
        CPUs this process may use (:func:`os.sched_getaffinity`), at most ``chains``. PyMC's
        own default halves ``os.cpu_count()`` on the guess that half the CPUs are hyper-threads,
        which on a 2-CPU machine samples every chain one after another (and PyMC passes the
        same number to nutpie): nearly twice the wall time of the cross-check.
    target_accept : float, optional, keyword-only
        NUTS target acceptance rate in (0, 1); default: the model's own (0.8, PyMC's, except
        :func:`~bayes_eval.models.crossed.crossed_model`, 0.95; see its docstring).
    warn : bool, keyword-only
        Issue a :class:`ConvergenceWarning` when a check fails (default). Studies that run
        many fits and collect the diagnostics themselves may turn it off; the diagnostics are
        computed and stored either way.
    log_likelihood, log_prior : bool, keyword-only
        Add the ``log_likelihood`` group (pointwise log pmf per (model, question) cell,
        :func:`pymc.compute_log_likelihood`; what LOO needs) and the ``log_prior`` group
        (:func:`pymc.stats.compute_log_prior`; what ``arviz_stats.psense`` needs). Neither
        is stored by default, and nutpie never stores them
        (:mod:`bayes_eval.models.compare`).

    Returns
    -------
    xarray.DataTree
        ``attrs`` hold the model kind, sampler, seed, ``target_accept``, ``sample_seconds``
        (the wall time of the sampler call: compilation, tuning and draws; the
        ``sample_stats`` attribute ``sampling_time``, for either sampler, excludes
        compilation) and the convergence
        diagnostics (:meth:`Diagnostics.to_attrs`: ``max_rhat``, ``min_ess_bulk``,
        ``min_ess_tail``, ``divergences``, ``divergence_rate``, ``converged`` as 0/1 and
        ``convergence_messages``; :func:`diagnostics` recomputes them). They cover every
        posterior variable, including ``pi`` and ``pi_bar`` where they are drawn exactly after
        sampling: those draws are independent given each NUTS draw, so their r-hat and ESS
        follow the sampled hyperparameters' (the fresh noise only pulls r-hat towards 1 and
        ESS up), but ``pi_bar`` is the reported quantity and its ESS sets the Monte Carlo
        error of its mean; a maximum or minimum over more variables cannot hide a failure.

    Warns
    -----
    ConvergenceWarning
        When ``warn`` and a check of :func:`diagnostics` fails: r-hat above 1.01, bulk or tail
        ESS below 100 per chain, any divergence, one chain, or fewer than 100 draws per chain.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models import matching_model, sample
    >>> model = matching_model(np.array([[0, 1, 1], [1, 1, 0]]))
    >>> idata = sample(model, draws=20, tune=20, chains=1, warn=False)  # a toy run
    >>> sorted(idata.children)
    ['closed_form', 'constant_data', 'observed_data', 'posterior', 'sample_stats']
    >>> idata["posterior"]["pi_bar"].shape, idata.attrs["bayes_eval_model"]
    ((1, 20, 1), 'matching')
    >>> bool(idata.attrs["converged"])  # one chain of 20 draws cannot pass the checks
    False
    """
    info = model_info(model)
    given = {
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "seed": seed,
        "sampler": sampler,
        "progress": progress,
        "cores": cores,
        "target_accept": target_accept,
        "warn": warn,
    }
    settings = (NutsSettings() if nuts is None else nuts).replace(
        **{k: v for k, v in given.items() if v is not None}
    )
    settings = settings.resolved(
        draws=1000, tune=1000, sampler="pymc", target_accept=info.target_accept
    )
    draws, tune, chains, seed = settings.draws, settings.tune, settings.chains, settings.seed
    sampler, progress, warn = settings.sampler, settings.progress, settings.warn
    target_accept = settings.target_accept
    cores = usable_cpus() if settings.cores is None else settings.cores
    check_trace_memory(model, draws=draws, tune=tune, chains=chains)
    # nutpie compiles the model with Numba into a C callback that cannot be cached on disk:
    # with the data frozen into the graph (dims and pm.Data as constants) the compiled graph
    # is smaller and the compilation shorter (12.3 s -> 9.4 s on the 11 x 30 x 80
    # cross-check, and sampling 4.3 s -> 2.4 s). PyMC's own sampler keeps the Data
    # containers: its compiled functions are cached across datasets of the same shape.
    # PyMC's sampler: its compiled log density trusts the arrays PyMC itself passes (no input
    # validation on each of the ~10^5 calls: 12% of the sampling time of the judges model).
    own = TRUSTED if info.pymc_mode is None else {**TRUSTED, "mode": _mode(info.pymc_mode)}
    extra = {"compile_kwargs": {"freeze_model": True} if sampler == "nutpie" else own}
    with sampler_session(), warnings.catch_warnings():
        # the C backend (a model's pymc_mode) warns once that it found no BLAS: these models'
        # log densities have no matrix products, so the warning says nothing about them
        warnings.filterwarnings("ignore", message="PyTensor could not link to a BLAS")
        start = time.perf_counter()
        idata = pm.sample(
            draws=int(draws),
            tune=int(tune),
            chains=int(chains),
            cores=max(1, min(int(cores), int(chains))),
            random_seed=int(seed),
            nuts_sampler=sampler,
            progressbar=progress,
            target_accept=float(target_accept),
            model=model,
            compute_convergence_checks=False,
            **extra,
        )
        seconds = time.perf_counter() - start  # compilation, tuning and draws
        _record_sampling_time(idata)
        if info.conditional is not None:
            rng = np.random.default_rng([int(seed), 20261122])
            posterior = idata["posterior"].to_dataset()
            extra = info.conditional(posterior, rng)
            idata["posterior"] = xr.DataTree(posterior.assign(extra))
        if log_likelihood:  # compiles PyTensor functions: interruptible too
            pm.compute_log_likelihood(idata, model=model, progressbar=False)
        if log_prior:
            pm.stats.compute_log_prior(idata, model=model, progressbar=False)
    idata["closed_form"] = xr.DataTree(closed_form_dataset(info))
    diag = diagnostics(idata)
    idata.attrs.update(
        {
            "bayes_eval_model": info.kind,
            "sampler": sampler,
            "seed": int(seed),
            "target_accept": float(target_accept),
            "sample_seconds": round(seconds, 3),
            **diag.to_attrs(),
        }
    )
    if warn:
        warn_if_unconverged(diag, f"{info.kind} model fit")
    return idata


def _mode(mode: str) -> str:
    """A model's PyTensor mode, or ``FAST_COMPILE`` (Python) for ``CVM`` without a C compiler."""
    import pytensor

    return "FAST_COMPILE" if mode == "CVM" and not pytensor.config.cxx else mode


def usable_cpus() -> int:
    """The number of CPUs this process may run on; at least 1.

    Its affinity mask where the platform has one, else :func:`os.cpu_count`.

    Returns
    -------
    int
        The number of usable CPUs, the default ``cores`` of
        :func:`~bayes_eval.models.sampling.sample` (at most its ``chains``).

    Examples
    --------
    >>> from bayes_eval.models.sampling import usable_cpus
    >>> usable_cpus() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _record_sampling_time(idata: xr.DataTree) -> None:
    """Put the sampler's own time in ``sample_stats.attrs["sampling_time"]`` for both samplers.

    The sampler's own time is tuning and draws, without compilation. PyMC stores it there, while for
    nutpie PyMC stamps it on the ``posterior`` group.
    """
    if "sample_stats" not in idata.children:
        return
    stats, posterior = idata["sample_stats"], idata["posterior"]
    if "sampling_time" not in stats.attrs and "sampling_time" in posterior.attrs:
        stats.attrs["sampling_time"] = float(posterior.attrs["sampling_time"])


#: Seconds after a Ctrl-C before :func:`sampler_session` delivers it again to the main thread
#: (in case compiled code it interrupted swallowed the first one).
REDELIVER_SECONDS = 1.0


@contextlib.contextmanager
def sampler_session() -> Iterator[None]:
    """Run NUTS so that Ctrl-C stops it and nothing it prints goes to stdout.

    Running NUTS here means compilation, tuning and sampling.

    Inside the block, ``sys.stdout`` is ``sys.stderr``: PyMC's progress table (rich) and any
    other text the samplers print reach the terminal while stdout stays free for the caller's
    results (e.g. JSON redirected to a file). nutpie draws its own bar on stderr.

    SIGINT (Ctrl-C) is handled by :class:`bayes_eval.interrupts.InterruptGuard`, installed
    when the block is entered in the main thread: it records the interrupt and raises
    :class:`KeyboardInterrupt`. The samplers do not let that through as it is: PyMC catches it
    and returns the draws so far, nutpie aborts and returns a partial trace, and an interrupt
    inside Numba-compiled code surfaces as ``SystemError``. A partial trace is not a finished
    fit, so when the block ends after an interrupt, whether normally or by any exception, it
    raises :class:`KeyboardInterrupt` (from None). If the block is still running
    ``REDELIVER_SECONDS`` after an interrupt (compiled code swallowed it), the signal is
    delivered again to the main thread, once a second, until the block ends.

    Elsewhere than in the main thread (where Python cannot install signal handlers) only
    stdout is redirected.

    Raises
    ------
    KeyboardInterrupt
        When SIGINT arrived while the block ran.

    Examples
    --------
    >>> from bayes_eval.models.sampling import sampler_session
    >>> with sampler_session():
    ...     print("sampler chatter")  # goes to stderr, not stdout
    >>> print("results")
    results
    """
    guard = InterruptGuard(redeliver=REDELIVER_SECONDS)
    with guard, contextlib.redirect_stdout(sys.stderr):
        try:
            yield
        except BaseException:
            if not guard.seen.is_set():
                raise
    if guard.seen.is_set():
        raise KeyboardInterrupt from None


def save(idata: xr.DataTree, path: str | Path) -> Path:
    """Write a DataTree to NetCDF (h5netcdf).

    Parameters
    ----------
    idata : xarray.DataTree
        A fit (e.g. from :func:`~bayes_eval.models.sampling.sample`); its ``attrs`` must be
        NetCDF-safe.
    path : str or pathlib.Path
        The file to write.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models import load, save
    >>> fit = xr.DataTree.from_dict(
    ...     {"posterior": xr.Dataset({"mu": (("chain", "draw"), np.zeros((1, 5)))})}
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = save(fit, os.path.join(tmp, "fit.nc"))
    ...     print(path.name, load(path)["posterior"]["mu"].shape)
    fit.nc (1, 5)
    """
    from bayes_eval.files import write_file

    return write_file(path, lambda tmp: idata.to_netcdf(tmp, engine="h5netcdf"))


def load(path: str | Path) -> xr.DataTree:
    """Read a DataTree written by :func:`~bayes_eval.models.sampling.save` into memory.

    Parameters
    ----------
    path : str or pathlib.Path
        A NetCDF file written by :func:`~bayes_eval.models.sampling.save`.

    Returns
    -------
    xarray.DataTree
        The fit, loaded into memory (the file is closed).

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.models import load, save
    >>> fit = xr.DataTree.from_dict(
    ...     {"posterior": xr.Dataset({"mu": (("chain", "draw"), np.zeros((1, 5)))})}
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     loaded = load(save(fit, os.path.join(tmp, "fit.nc")))
    >>> sorted(loaded.children), loaded["posterior"]["mu"].shape
    (['posterior'], (1, 5))
    """
    with xr.open_datatree(Path(path), engine="h5netcdf") as tree:
        return tree.load()
