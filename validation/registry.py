"""The registry of validation studies: name -> config type -> run function -> result Dataset.

Every study is reached the same way, by ``bayes-eval validate NAME`` (whose options are the
fields of the study's config dataclass) and from Python:

>>> from bayes_eval.validation import registry
>>> sorted(registry.STUDIES)[:3]
['biased-coin', 'board', 'claims']
>>> cfg = registry.make_config("distinguishability", replicates=200, n_max=100)
>>> cfg.replicates, cfg.seed
(200, 0)

``registry.run_study("distinguishability", "out", replicates=200)`` runs a study: it writes
``out/distinguishability.nc`` and ``.png`` and returns a :class:`StudyResult` (the Dataset,
a JSON-ready summary, the files written).

Importing this module is cheap: the config types live in
:mod:`bayes_eval.validation.study_configs`, and a study's module (NumPy, SciPy, Dask, PyMC for
the judges) is imported when the study runs.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from bayes_eval.validation import study_configs as sc

if TYPE_CHECKING:  # pragma: no cover
    import xarray

__all__ = ["STUDIES", "Study", "StudyResult", "get_study", "make_config", "run_study"]


@dataclass(frozen=True)
class Study:
    """One validation study.

    Attributes
    ----------
    name : str
        Its command-line name (``bayes-eval validate NAME``).
    summary : str
        One line of help, citing the paper it reproduces or checks.
    config : type
        A frozen dataclass; each field is one option with a default (positional fields
        excepted), ``field.metadata["help"]`` its help, and optionally ``"positional"``
        and ``"choices"``.
    run : callable
        ``run(config, out, *, progress=True) -> StudyResult``; writes its files to ``out``.

    Examples
    --------
    >>> from bayes_eval.validation.registry import STUDIES
    >>> study = STUDIES["distinguishability"]
    >>> study.name, study.config.__name__
    ('distinguishability', 'DistinguishabilityConfig')
    """

    name: str
    summary: str
    config: type
    run: Callable[..., StudyResult]


class StudyResult(NamedTuple):
    """What a study returns after writing its files.

    Attributes
    ----------
    dataset : xarray.Dataset
        The study's results.
    summary : dict
        JSON-ready numbers (what ``bayes-eval validate`` prints), with the files and seconds.
    files : dict of str to pathlib.Path
        What was written, e.g. ``{"netcdf": ..., "plot": ...}``.

    Examples
    --------
    >>> import xarray as xr
    >>> from bayes_eval.validation.registry import StudyResult
    >>> result = StudyResult(xr.Dataset(), {"replicates": 200}, {})
    >>> result.summary["replicates"]
    200
    """

    dataset: xarray.Dataset
    #: JSON-ready numbers (what ``bayes-eval validate`` prints), with the files and seconds
    summary: dict
    #: what was written, e.g. ``{"netcdf": ..., "plot": ...}``
    files: dict[str, Path]


@dataclass(frozen=True)
class _LazyRun:
    """A study's run function, its module imported on the first call.

    The function is ``bayes_eval.validation.<module>.<func>(config, out, progress)``; its
    module is imported on the first call (so that listing the studies imports none).
    """

    module: str
    func: str = "run_study"

    def __call__(self, config, out, *, progress: bool = True) -> StudyResult:
        fn = getattr(importlib.import_module(f"bayes_eval.validation.{self.module}"), self.func)
        return fn(config, Path(out), progress=progress)


def _lazy(module: str, func: str = "run_study") -> Callable[..., StudyResult]:
    """The run function of the study in ``bayes_eval.validation.<module>``."""
    return _LazyRun(module, func)


_PAPER = 'Hariri et al., "Don\'t Pass@k: A Bayesian Framework for Large Language Model Evaluation"'
_JUDGES = 'Vossler et al., "LLMs Judging LLMs: A Simplex Perspective"'

STUDIES: dict[str, Study] = {
    s.name: s
    for s in (
        Study(
            "biased-coin",
            f"{_PAPER}, §2.7 (Fig. 2, Table 1): Kendall tau_b of every metric versus the "
            "number of trials on 11 biased-coin mimics (independent, column and row bootstrap)",
            sc.BiasedCoinConfig,
            _lazy("biased_coin_study"),
        ),
        Study(
            "prior-benefit",
            f"{_PAPER}, App. C (Fig. 5): earlier runs as an informative prior, tau versus N "
            "for each prior depth D",
            sc.PriorBenefitConfig,
            _lazy("prior_benefit"),
        ),
        Study(
            "distinguishability",
            f"{_PAPER}, App. D (Fig. 6): how many trials separate two close models (LLM10 vs LLM9)",
            sc.DistinguishabilityConfig,
            _lazy("distinguishability"),
        ),
        Study(
            "claims",
            f"the leaderboard's claims as a set, beyond the pairwise ranking confidence of "
            f"{_PAPER} (§2.5, §2.7.1): orderings at a posterior expected FDR (Müller, Parmigiani "
            "and Rice) on boards with known truth, realised FDR and power beside the rule "
            "P >= 0.95 and Benjamini-Hochberg on paired permutation p-values; ECE of P(best); "
            "joint coverage of the simultaneous rank intervals",
            sc.ClaimsConfig,
            _lazy("claims_study"),
        ),
        Study(
            "plan",
            f"does `bayes-eval plan` keep its promise ({_PAPER}, App. D, with assurance): "
            "boards with known truth, the top two models (or, --target top, the claims "
            "naming the top-k set; --target questions and top-questions, the same by more "
            "questions) planned, the plan carried out from the truth and the board "
            "refitted; the share kept against the assurance promised",
            sc.PlanConfig,
            _lazy("plan_study"),
        ),
        Study(
            "pairs",
            f"calibration of `bayes-eval pairs` (the ranking confidence of {_PAPER}, §2.5, "
            "and the paired comparison of Bowyer et al.) for the estimand each matrix names, "
            "on simulated boards with shared question difficulty: reliability diagram, ECE "
            "and its noise floor",
            sc.PairsConfig,
            _lazy("pairs_study"),
        ),
        Study(
            "clusters",
            f"the ranking of {_PAPER} for new questions with clustered questions (Miller, "
            '"Adding Error Bars to Evals"): coverage and width of the new-questions intervals '
            "of `rank` and calibration of the paired P(better) of `pairs`, with and without "
            "their cluster option, on simulated clustered boards",
            sc.ClustersConfig,
            _lazy("cluster_study"),
        ),
        Study(
            "board",
            f"what `rank` prints on a board of binary results (the joint posterior of the board "
            f"model; {_PAPER}'s Bayes@N per model and its uniform prior beside it): coverage "
            "and sharpness (sd/RMSE) of the intervals and the calibration (ECE) of P(better), "
            "on real-rate (MathArena) or simulated boards, by trials per question",
            sc.BoardConfig,
            _lazy("board_study"),
        ),
        Study(
            "graded",
            f"the Bayes@N intervals of {_PAPER} on graded scores read as fractional counts "
            "(`--fractional`, a quasi-likelihood): coverage and width (sd/RMSE) for the "
            "uniform prior and the learned one (pools model and board) on simulated graded "
            "boards, from binary grades to Beta-distributed ones",
            sc.GradedConfig,
            _lazy("graded_study"),
        ),
        Study(
            "hyperprior",
            f"the hyperprior on the concentration of the learned prior of {_PAPER}'s "
            "Bayes@N: a three-level meta-analysis over the shipped real benchmarks, checked "
            "by coverage and sd/RMSE on benchmarks it did not see (leave one source out)",
            sc.HyperpriorConfig,
            _lazy("hyperprior_study"),
        ),
        Study(
            "convergence",
            f"{_PAPER}, §3.3 (Figs. 1, 4, 9-11): convergence@n of the rankings of your results "
            "FILE, by permuting or resampling trials",
            sc.ConvergenceConfig,
            _lazy("convergence_study"),
        ),
        Study(
            "coverage",
            f"coverage of the Bayes@N intervals of {_PAPER} and of Wald, Wilson, "
            "Clopper-Pearson and bootstrap intervals (Bowyer et al., \"Position: Don't Use "
            'the CLT in LLM Evals With Fewer Than a Few Hundred Datapoints") over a grid of '
            "cells, on Dask, resumable",
            sc.CoverageStudyConfig,
            _lazy("coverage"),
        ),
        Study(
            "crossed",
            "coverage and sharpness of the crossed (Rasch) model's intervals of pi-bar (the "
            f"estimand of {_PAPER}), of every (LLM, question) rate and of the ranks, with and "
            "without its LLM x question interaction, on boards with and without one (NUTS, "
            "nutpie); resumable",
            sc.CrossedStudyConfig,
            _lazy("crossed_study"),
        ),
        Study(
            "elicit",
            f"prior elicitation for Bayes@N ({_PAPER}, eq. 6): a Beta/Dirichlet prior from a "
            "stated accuracy interval, its implied prior on pi-bar and, with FILE, the "
            "sensitivity of the ranking",
            sc.ElicitConfig,
            _lazy("elicit_study"),
        ),
        Study(
            "judges",
            f"{_JUDGES}, Table 1: Spearman correlation and rank-interval coverage of the "
            "Bayesian judges model and baselines on MT-Bench and SummEval (PyMC)",
            sc.JudgesConfig,
            _lazy("judges_study"),
        ),
        Study(
            "judges-synthetic",
            f"{_JUDGES}, App. E.3: synthetic judges with self-preference, Bayesian model with "
            "and without the same-family exclusion against baselines (PyMC)",
            sc.JudgesSyntheticConfig,
            _lazy("judges_study", "run_synthetic_study"),
        ),
        Study(
            "sbc",
            'simulation-based calibration (Talts et al., "Validating Bayesian Inference '
            f'Algorithms with Simulation-Based Calibration") of the models of {_PAPER}: rank '
            "uniformity of every parameter, pi-bar and the LLM ranks, exact for the matching "
            "model, NUTS for the PyMC models; on Dask, resumable",
            sc.SbcConfig,
            _lazy("sbc_study"),
        ),
    )
}


def get_study(name: str) -> Study:
    """The study called ``name``; ``ValueError`` listing the valid names otherwise.

    Parameters
    ----------
    name : str
        The study's command-line name, e.g. ``"coverage"``.

    Returns
    -------
    Study
        The study's name, help line, config type and run function.

    Raises
    ------
    ValueError
        No study has that name.

    Examples
    --------
    >>> from bayes_eval.validation.registry import get_study
    >>> get_study("sbc").config.__name__
    'SbcConfig'
    """
    try:
        return STUDIES[name]
    except (KeyError, TypeError):
        raise ValueError(f"study is {name!r}; expected one of {list(STUDIES)}.") from None


# ------------------------------------------------------------------------------- options

_SCALARS = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
_PLURAL = {bool: "booleans", int: "integers", float: "numbers", str: "strings"}
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


def _unwrap(tp) -> tuple[Any, bool]:
    """``(base type, accepts None)`` of a field type ``X`` or ``X | None``."""
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0], len(args) < len(typing.get_args(tp))
    return tp, False


def _expected(tp) -> str:
    base, optional = _unwrap(tp)
    if typing.get_origin(base) is tuple:
        what = f"a list of {_PLURAL[typing.get_args(base)[0]]} (comma-separated)"
    else:
        what = _SCALARS[base]
    return what + (" or None" if optional else "")


def _scalar(value, base):
    if base is bool:
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise TypeError
    if base is int:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, str):
            return int(value.strip())
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if hasattr(value, "__index__"):
            return int(value.__index__())
        raise TypeError
    if base is float:
        if isinstance(value, bool):
            raise TypeError
        out = float(value.strip()) if isinstance(value, str) else float(value)
        if math.isnan(out):
            raise TypeError
        return out
    if isinstance(value, (str, os.PathLike)):
        return str(os.fspath(value))
    raise TypeError


def _shown(value) -> str:
    """``repr`` of an option value, numpy scalars as the plain Python values they hold."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()
    return repr(value)


def _coerce(value, tp):
    base, optional = _unwrap(tp)
    if value is None:
        if optional:
            return None
        raise TypeError
    if typing.get_origin(base) is tuple:
        item = typing.get_args(base)[0]
        if isinstance(value, str):
            value = [v for v in value.split(",") if v.strip()]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            value = [value]
        if not hasattr(value, "__iter__"):
            raise TypeError
        return tuple(_scalar(v, item) for v in value)
    return _scalar(value, base)


def make_config(name: str, **options):
    """The config of study ``name`` with ``options`` (the others at their defaults).

    Values are checked against the field types (strings such as ``"200"`` or ``"5,30"``
    are converted, as from the command line) and then by the config itself.

    Parameters
    ----------
    name : str
        The study's command-line name.
    **options
        Fields of the study's config dataclass, as values or command-line strings.

    Returns
    -------
    object
        An instance of the study's config dataclass (``Study.config``).

    Raises
    ------
    ValueError
        An unknown study or option, a missing positional option, or a bad value (the
        message names the option and what was expected).

    Examples
    --------
    >>> from bayes_eval.validation.registry import make_config
    >>> cfg = make_config("distinguishability", replicates="200", n_max=100)
    >>> cfg.replicates, cfg.n_max, cfg.seed
    (200, 100, 0)
    """
    study = get_study(name)
    fields = {f.name: f for f in dataclasses.fields(study.config)}
    unknown = sorted(set(options) - set(fields))
    if unknown:
        raise ValueError(
            f"validate {name}: unknown option(s) {unknown}; expected some of {list(fields)}."
        )
    hints = typing.get_type_hints(study.config)
    values = {}
    for key, value in options.items():
        try:
            values[key] = _coerce(value, hints[key])
        except (TypeError, ValueError):
            raise ValueError(
                f"validate {name}: option {key!r} is {_shown(value)}; expected "
                f"{_expected(hints[key])}."
            ) from None
    for key, value in values.items():  # no study reads an infinite or NaN setting
        items = value if isinstance(value, (list, tuple)) else (value,)
        if any(isinstance(v, float) and not math.isfinite(v) for v in items):
            raise ValueError(f"validate {name}: {key} is {_shown(value)}; expected finite numbers.")
    for key, f in fields.items():
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if required and key not in values:
            raise ValueError(
                f"validate {name}: the option {key!r} is required; expected "
                f"{f.metadata.get('help', _expected(hints[key]))}."
            )
    try:
        return study.config(**values)
    except ValueError as exc:
        raise ValueError(f"validate {name}: {exc}") from exc


def run_study(name: str, out, *, progress: bool = True, **options) -> StudyResult:
    """Run study ``name`` with ``options`` (:func:`make_config`), writing its files to ``out``.

    Parameters
    ----------
    name : str
        The study's command-line name.
    out : str or pathlib.Path
        The output folder.
    progress : bool, optional
        Show progress bars, default True.
    **options
        Fields of the study's config dataclass (:func:`make_config`).

    Returns
    -------
    StudyResult
        The Dataset, a JSON-ready summary and the files written.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.registry import run_study
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study("distinguishability", tmp, progress=False, replicates=20, n_max=10)
    ...     print(sorted(result.files), dict(result.dataset.sizes))
    ['netcdf', 'plot'] {'n': 10}
    """
    config = make_config(name, **options)
    return get_study(name).run(config, Path(out), progress=progress)
