r"""Coverage and calibration of interval methods, as a grid of independent cells run by Dask.

*Do these intervals cover at their nominal rate, here, for this M and N?* Each cell
``(scenario, C, M, N)`` simulates ``replicates`` benchmarks: true per-question category
probabilities :math:`\pi_\alpha` from the scenario, results ``R`` with N trials per question
(only the counts matter), and the true :math:`\bar\pi = \frac1M\sum_\alpha w\cdot\pi_\alpha`
with ``w = linspace(0, 1, C + 1)``. For every interval method it records whether the interval
covers the truth, its width, and the Monte Carlo error of the coverage
:math:`\sqrt{c(1-c)/n}`. It also simulates a second model and records how often a ranking
claim made at ``z > 1.645`` (§2.5) is wrong.

Sharpness beside coverage: ``sd_over_rmse``, the interval's sd (half-width / z; the posterior
sd for the normal intervals) over the RMSE of its midpoint (1 is honest; coverage alone rewards
wide intervals).

Scenarios: ``u_shaped`` (pi ~ Dir(1/4): most questions near an end), ``clustered`` (an ordered
logit on mu + c_g + u_q: five clusters of sd 1.5, question effects of sd 1), ``uniform`` (pi ~
Dir(1): the paper's prior, well specified), ``dirichlet``
(pi ~ Dir(alpha0), analysed with the same alpha0: well specified), ``beta_mixture``
(heterogeneous difficulty: half the questions easy, half hard; analysed with the uniform
prior), ``anchored`` (binary; per-question rates resampled from real evaluations, by default
the datasets shipped with the package: Phi-4-reasoning on AIME'25, CodeLlama-7B on CRUXEval,
gpt-4o on tau-bench airline; 80% of their questions are solved always or never).

Methods (:data:`METHODS`): ``uniform`` (mu -/+ z sigma under the uniform prior of Hariri et
al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", §2.5),
``uniform_exact`` (equal-tailed exact posterior interval), ``jeffreys`` (alpha0 = 1/2),
``oracle`` (the scenario's own Dirichlet prior), ``empirical`` / ``empirical_exact`` /
``empirical_plugin`` (the prior learned from the questions, integrated or plugged in; see
:mod:`bayes_eval.posteriors.priors`), ``peer_clipped`` (scorio's: the normal interval clipped to
[0, 1]), ``wald`` (CLT over questions: mean of per-question averages -/+ z sd/sqrt(M), as in
most leaderboards; Bowyer et al., "Position: Don't Use the CLT in LLM Evals With Fewer Than a
Few Hundred Datapoints", show it undercovers at small M), ``wilson`` and ``clopper_pearson``
(binary; all M N trials pooled as independent), ``bootstrap`` (percentile bootstrap over
questions) and, on a sub-grid, ``hierarchical_nuts`` and ``mixture_nuts`` (95% ETI of pi-bar
under :func:`bayes_eval.models.hierarchical_model` and its two-group mixture
:func:`bayes_eval.models.mixture_model`, the models of ``nuts_models``).

Scale-out: :func:`run_grid` sends pending cells to a Dask cluster (a ``LocalCluster`` by
default, or ``scheduler="tcp://host:port"``; ``n_workers=0`` runs them in this process),
writes every finished cell atomically to ``OUT/cells/`` (the generic runner
:mod:`.cell_runner`, shared with the SBC study), and merges them into
``OUT/coverage.nc``. A study started again with the same configuration skips finished cells,
so no work is lost or counted twice; a folder holding a study with another configuration is
refused (naming the keys that differ), and Ctrl-C closes the cluster within seconds and raises
:class:`~bayes_eval.validation.cell_runner.StudyInterrupted` (``interrupted: K of N cells
saved; ...``). :func:`run_study` is the registry's entry (``bayes-eval validate coverage``): a
TOML grid (:func:`load_config`) with options on top (:func:`grid_config`), then the grid, the
report and its plot.

The module in order: the grid and settings of a study (:class:`CoverageConfig`, TOML keys of
the same names, read by :func:`load_config`, which still reads the former ``reps``,
``exact_reps``, ``empirical_exact_reps`` and ``nuts_reps`` with a
:class:`RenamedKeyWarning`); one cell (:func:`run_cell`, what the Dask workers run: true
rates from a scenario, :func:`draw_pi`, :func:`anchor_rates`, simulated results and every
method's lo/hi, whose private engines are in ``validation/coverage_methods.py``); the study
(:func:`run_grid`, :func:`grid_config`, :func:`run_study`); the report (:func:`summary`:
under- and over-coverage per scenario and method, the :data:`HEADLINE` scenarios first;
:func:`report_lines`, :func:`table`, :func:`plot`; their private helpers are in
``validation/coverage_report.py``).
"""

from __future__ import annotations

import hashlib
import json
import time
import tomllib
import warnings
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import xarray as xr
from scipy.special import ndtri

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.validation import config_checks as check
from bayes_eval.validation.cell_runner import merge_cells, run_cells, write_atomic
from bayes_eval.validation.coverage_methods import (
    _claim_rates,
    _exact_intervals,
    _interval_table,
    _nuts_intervals,
)
from bayes_eval.validation.coverage_report import _method_report, _scenario_lines
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import COVERAGE_SCENARIOS, CoverageStudyConfig

__all__ = [
    "HEADLINE",
    "METHODS",
    "RENAMED_KEYS",
    "CoverageConfig",
    "RenamedKeyWarning",
    "anchor_rates",
    "draw_pi",
    "grid_config",
    "load_config",
    "plot",
    "report_lines",
    "run_cell",
    "run_grid",
    "run_study",
    "summary",
    "table",
]


# ----------------------------------------------------------------------------- configuration


#: The PyMC models a coverage study can fit in its ``nuts_cells`` (method ``MODEL_nuts``).
NUTS_MODELS = ("hierarchical", "mixture")


@dataclass
class CoverageConfig:
    """Grid and settings of a coverage study (TOML keys of the same names).

    ``nuts_cells`` lists ``[scenario, C, M, N]`` cells where the PyMC models of
    ``nuts_models`` are also fitted, with ``nuts_replicates`` replicates of ``nuts_draws``
    draws each. The exact interval is computed for binary cells (Beta convolutions); for
    rubrics (C > 1) it needs Gil-Pelaez inversions, hundreds of times slower, so it runs only
    with ``exact_categorical``.

    Parameters
    ----------
    M : list of int, optional
        Questions per benchmark; default ``[5, 15, 30, 100, 500]``.
    N : list of int, optional
        Trials per question; default ``[1, 4, 16, 80]``.
    C : list of int, optional
        Rubric categories minus one (1: binary); default ``[1, 2, 4]``.
    scenarios : list of str, optional
        True-rate scenarios, some of ``uniform``, ``dirichlet``, ``beta_mixture``, ``anchored``,
        ``u_shaped`` and ``clustered``; default the first four.
    replicates : int, optional
        Simulated benchmarks per cell; default 2000.
    exact_replicates : int, optional
        The first replicates of each cell that also get the exact interval; default 2000.
    exact_categorical : bool, optional
        Compute the exact interval for rubrics (C > 1) too; default False.
    bootstrap_resamples : int, optional
        Bootstrap resamples per benchmark, 0 for no bootstrap interval; default 200.
    empirical_exact_replicates : int, optional
        Replicates that also get the exact learned-prior interval; default 0 (off).
    confidence : float, optional
        Nominal level of the intervals; default 0.95.
    alpha0 : float, optional
        Dirichlet concentration of the ``dirichlet`` scenario (and its prior); default 0.5.
    seed : int, optional
        Random seed; default 0.
    anchors : list of str, optional
        Real binary evaluations of the ``anchored`` scenario (:func:`anchor_rates`); default
        ``phi4_aime25``, ``cruxeval_codellama7b`` and ``taubench_airline_gpt4o``.
    nuts_cells : list of list, optional
        ``[scenario, C, M, N]`` cells also fitted with the hierarchical NUTS model; default none.
    nuts_replicates : int, optional
        Replicates per NUTS cell; default 20.
    nuts_draws : int, optional
        NUTS draws (and tuning steps) per fit; default 300.
    nuts_models : list of str, optional
        The PyMC models fitted in ``nuts_cells``: ``hierarchical``
        (:func:`~bayes_eval.models.hierarchical_model`, the default) and ``mixture``
        (:func:`~bayes_eval.models.mixture_model`, questions of two kinds).

    Examples
    --------
    >>> from bayes_eval.validation.coverage import CoverageConfig
    >>> cfg = CoverageConfig(M=[5, 30], N=[4], C=[1], scenarios=["uniform"], replicates=100)
    >>> cfg.validate()
    >>> cfg.cells()
    [('uniform', 1, 5, 4), ('uniform', 1, 30, 4)]
    >>> len(CoverageConfig().cells())
    200
    """

    M: list[int] = field(default_factory=lambda: [5, 15, 30, 100, 500])
    N: list[int] = field(default_factory=lambda: [1, 4, 16, 80])
    C: list[int] = field(default_factory=lambda: [1, 2, 4])
    scenarios: list[str] = field(
        default_factory=lambda: ["uniform", "dirichlet", "beta_mixture", "anchored"]
    )
    replicates: int = 2000
    exact_replicates: int = 2000
    exact_categorical: bool = False
    bootstrap_resamples: int = 200
    empirical_exact_replicates: int = 0  # off by default: each interval takes a mixture inversion
    confidence: float = 0.95
    alpha0: float = 0.5
    seed: int = 0
    anchors: list[str] = field(
        default_factory=lambda: ["phi4_aime25", "cruxeval_codellama7b", "taubench_airline_gpt4o"]
    )
    nuts_cells: list[list] = field(default_factory=list)
    nuts_replicates: int = 20
    nuts_draws: int = 300
    nuts_models: list[str] = field(default_factory=lambda: list(NUTS_MODELS[:1]))

    def validate(self) -> None:
        """Check every key by type and range.

        Raises ``ValueError`` naming the key and the value, e.g. ``M must be a list of
        positive integers, got 5``.
        """
        for name in ("M", "N", "C"):
            check.integers(name, getattr(self, name))
        check.strings("scenarios", self.scenarios, COVERAGE_SCENARIOS)
        check.integer("replicates", self.replicates, 2)
        for name in (
            "exact_replicates",
            "bootstrap_resamples",
            "empirical_exact_replicates",
            "seed",
        ):
            check.integer(name, getattr(self, name), 0)
        check.boolean("exact_categorical", self.exact_categorical)
        check.probability("confidence", self.confidence)
        check.positive_number("alpha0", self.alpha0)
        check.strings("anchors", self.anchors)
        if not isinstance(self.nuts_cells, (list, tuple)):
            raise ValueError(
                f"nuts_cells must be a list of [scenario, C, M, N] cells, got {self.nuts_cells!r}"
            )
        for cell in self.nuts_cells:
            check.nuts_cell("nuts_cells", cell, COVERAGE_SCENARIOS)
        check.integer("nuts_replicates", self.nuts_replicates)
        check.integer("nuts_draws", self.nuts_draws)
        check.strings("nuts_models", self.nuts_models, NUTS_MODELS)
        if len(set(self.nuts_models)) < len(self.nuts_models):
            raise ValueError(
                f"nuts_models is {list(self.nuts_models)!r}; expected each model at most once."
            )
        if list(self.nuts_models) != list(NUTS_MODELS[:1]) and not self.nuts_cells:
            raise ValueError(
                f"nuts_models is {list(self.nuts_models)!r} but nuts_cells is empty; expected "
                "the [scenario, C, M, N] cells to fit them in (or drop nuts_models)."
            )
        for name in ("exact_replicates", "empirical_exact_replicates", "nuts_replicates"):
            given = getattr(self, name) != self.__dataclass_fields__[name].default
            # the first ones of each cell; a default above a small `replicates` means all
            if given and getattr(self, name) > self.replicates:
                raise ValueError(
                    f"{name} is {getattr(self, name)}, more than replicates "
                    f"({self.replicates}); expected at most replicates (the first {name} "
                    "replicates of each cell get those intervals too)."
                )
        check.coverage_memory(self.M, self.N, self.C, self.replicates, self.bootstrap_resamples)

    def cells(self) -> list[tuple[str, int, int, int]]:
        """The ``(scenario, C, M, N)`` cells of the grid (``anchored`` only with ``C = 1``)."""
        out = []
        for s in self.scenarios:
            for c in self.C:
                if s == "anchored" and c != 1:
                    continue  # real per-question rates are binary
                for m in self.M:
                    for n in self.N:
                        out.append((s, int(c), int(m), int(n)))
        return out

    def digest(self) -> str:
        """First 16 hex digits of the SHA-256 of the config, checked when a study resumes."""
        # hashed under the keys' former names (RENAMED_KEYS), so that a study started before
        # ``reps`` became ``replicates`` still resumes
        former = {new: old for old, new in RENAMED_KEYS.items()}
        values = {former.get(k, k): v for k, v in asdict(self).items()}
        if list(values["nuts_models"]) == list(NUTS_MODELS[:1]):  # studies before the key
            del values["nuts_models"]
        return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16]


#: former TOML keys -> their names now; a file that uses one is read with a warning
RENAMED_KEYS = {
    "reps": "replicates",
    "exact_reps": "exact_replicates",
    "empirical_exact_reps": "empirical_exact_replicates",
    "nuts_reps": "nuts_replicates",
}


class RenamedKeyWarning(FutureWarning):
    r"""A coverage TOML file uses a former key name (:data:`RENAMED_KEYS`).

    The key is read under its new name, and the former one will stop working.

    Examples
    --------
    >>> import tempfile, warnings
    >>> from pathlib import Path
    >>> from bayes_eval.validation.coverage import RenamedKeyWarning, load_config
    >>> with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = (Path(tmp) / "grid.toml").write_text("reps = 50\n")
    ...     cfg = load_config(Path(tmp) / "grid.toml")
    >>> cfg.replicates, caught[0].category is RenamedKeyWarning
    (50, True)
    """


def load_config(path: str | Path) -> CoverageConfig:
    r"""Read a TOML configuration (any subset of :class:`CoverageConfig`'s fields).

    Parameters
    ----------
    path : str or pathlib.Path
        The TOML file; keys under a former name (:data:`RENAMED_KEYS`) are read with a
        :class:`RenamedKeyWarning`.

    Returns
    -------
    CoverageConfig
        The configuration, validated (the keys not in the file at their defaults).

    Raises
    ------
    ValueError
        The file cannot be read, has unknown keys, or a bad value (the message names the file
        and the key).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.coverage import load_config
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "grid.toml"
    ...     _ = path.write_text('M = [5, 30]\nN = [1]\nscenarios = ["anchored"]\n')
    ...     cfg = load_config(path)
    >>> cfg.M, cfg.N, cfg.scenarios, cfg.replicates
    ([5, 30], [1], ['anchored'], 2000)
    """
    path = Path(path)
    try:
        raw = check.read_toml(path)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "expected a TOML file."
        ) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the coverage configuration ({exc}).") from exc
    known = list(CoverageConfig.__dataclass_fields__)
    unknown = set(raw) - set(known) - set(RENAMED_KEYS)
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)}; expected some of {known}.")
    former = {old: new for old, new in RENAMED_KEYS.items() if old in raw}
    for old, new in former.items():
        if new in raw:
            raise ValueError(
                f"{path}: both {old} and {new} are given; {old} is the former name of {new}: "
                f"keep {new} only."
            )
        warnings.warn(
            f"{path}: the key {old} is now named {new}; rename it in the file (the old name "
            "will stop working).",
            RenamedKeyWarning,
            stacklevel=2,
        )
        raw[new] = raw.pop(old)
    config = CoverageConfig(**raw)
    try:
        config.validate()
    except ValueError as exc:
        message = str(exc)
        for old, new in former.items():  # name the key as the file spells it
            if message.startswith(f"{new} "):
                message = f"{old}{message[len(new) :]} (the key {old} is now named {new})"
        raise ValueError(f"{path}: {message}") from None
    return config


# ----------------------------------------------------------------------------- one cell: scenarios


def anchor_rates(anchors: list[str]) -> np.ndarray:
    """Per-question success rates (mean over trials) of real binary evaluations.

    ``anchors`` names shipped datasets (:func:`bayes_eval.datasets.list_datasets`) or result
    files in any format :func:`bayes_eval.logs.read_eval_log` reads; every model of every
    source contributes one rate per question.

    Parameters
    ----------
    anchors : list of str
        Dataset names or result files, each of binary results.

    Returns
    -------
    numpy.ndarray
        One rate in [0, 1] per answered question of every model of every source.

    Raises
    ------
    ValueError
        ``anchors`` is empty, or a source is not binary.

    Examples
    --------
    >>> from bayes_eval.validation.coverage import anchor_rates
    >>> rates = anchor_rates(["phi4_aime25"])
    >>> rates.shape, rates[:4].round(4).tolist()
    ((30,), [0.0, 0.0, 0.025, 0.0375])
    """
    from bayes_eval import datasets
    from bayes_eval.logs import read_eval_log

    if not anchors:
        raise ValueError("anchors is empty; expected dataset names or result files.")
    rates = []
    for source in anchors:
        if source in datasets.DATASETS:
            R = datasets.load(source)["results"].values
        else:
            R = read_eval_log(source).results(require_all_questions=False).values
        if np.nanmax(R) > 1:
            raise ValueError(f"anchor {source!r} is not binary; the anchored scenario needs 0/1.")
        answered = ~np.isnan(R).all(axis=-1)
        rates.append(np.nanmean(np.where(answered[..., None], R, 0.0), axis=-1)[answered])
    return np.concatenate(rates)


def draw_pi(
    scenario: str, shape: tuple[int, int], n_cat: int, rng, config: CoverageConfig, anchors=None
):
    """True per-question probabilities, shape ``(*shape, C + 1)``.

    Parameters
    ----------
    scenario : str
        One of ``uniform``, ``dirichlet``, ``beta_mixture``, ``anchored``, ``u_shaped`` and
        ``clustered``.
    shape : tuple of int
        ``(replicates, M)``.
    n_cat : int
        Categories ``C + 1`` (2 for ``anchored``, whose rates are binary).
    rng : numpy.random.Generator
        The random generator.
    config : CoverageConfig
        Gives ``alpha0`` of the ``dirichlet`` scenario.
    anchors : numpy.ndarray, optional
        Per-question rates of the ``anchored`` scenario (:func:`anchor_rates`), which draws
        from them.

    Returns
    -------
    numpy.ndarray of shape (replicates, M, C + 1)
        Category probabilities of every question, summing to 1.

    Raises
    ------
    ValueError
        An unknown scenario.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.validation.coverage import CoverageConfig, draw_pi
    >>> pi = draw_pi("beta_mixture", (2, 3), 3, np.random.default_rng(0), CoverageConfig())
    >>> pi.shape, pi.sum(axis=-1).round(6).tolist()
    ((2, 3, 3), [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    """
    if scenario == "uniform":
        return rng.dirichlet(np.ones(n_cat), size=shape)
    if scenario == "dirichlet":
        return rng.dirichlet(np.full(n_cat, config.alpha0), size=shape)
    if scenario == "beta_mixture":
        easy = rng.random(shape) < 0.5
        lean = np.linspace(0.2, 3.0, n_cat)  # mass toward the top categories
        a_easy = 1.5 * lean / lean.sum() * n_cat
        a_hard = a_easy[::-1]
        out = np.where(
            easy[..., None], rng.dirichlet(a_easy, size=shape), rng.dirichlet(a_hard, size=shape)
        )
        return out
    if scenario == "anchored":
        p = rng.choice(anchors, size=shape)
        return np.stack([1 - p, p], axis=-1)
    if scenario == "u_shaped":
        return rng.dirichlet(np.full(n_cat, 0.25), size=shape)
    if scenario == "clustered":
        # an ordered logit on a latent location mu + c_g + u_q: questions in 5 clusters of
        # sd 1.5, question effects of sd 1, a benchmark-level mu ~ N(0, 1)
        reps, m = shape
        mu = rng.normal(0.0, 1.0, (reps, 1))
        cluster = rng.normal(0.0, 1.5, (reps, 5))[:, np.arange(m) % 5]
        loc = mu + cluster + rng.normal(0.0, 1.0, shape)
        cuts = np.linspace(-1.5, 1.5, n_cat - 1) if n_cat > 2 else np.zeros(1)
        below = 1.0 / (1.0 + np.exp(-(cuts - loc[..., None])))  # P(category <= k)
        upper = np.concatenate([below, np.ones((*shape, 1))], axis=-1)
        return np.diff(upper, axis=-1, prepend=0.0)
    raise ValueError(f"unknown scenario {scenario!r}")


# ----------------------------------------------------------------------------- one cell: methods


#: the interval methods, in the order of the result's ``interval`` coordinate
METHODS = (
    "empirical",
    "empirical_exact",
    "empirical_plugin",
    "uniform",
    "uniform_exact",
    "jeffreys",
    "oracle",
    "peer_clipped",
    "wald",
    "wilson",
    "clopper_pearson",
    "bootstrap",
    "hierarchical_nuts",
    "mixture_nuts",
)


def run_cell(cell: tuple[str, int, int, int], config: CoverageConfig) -> xr.Dataset:
    """Simulate one grid cell; returns coverage, its MC error and mean width per method.

    Parameters
    ----------
    cell : tuple of (str, int, int, int)
        ``(scenario, C, M, N)``.
    config : CoverageConfig
        The study's settings (replicates, confidence, which optional intervals run, seed).

    Returns
    -------
    xarray.Dataset
        ``coverage``, ``coverage_mc_se``, ``width``, ``sd_over_rmse`` and ``n_reps`` per
        ``interval`` (method), the share and error rate of ranking claims (Bayes@N and Wald),
        and the NUTS diagnostics of a NUTS cell; dims ``scenario``, ``C``, ``M``, ``N`` of
        length 1.

    Examples
    --------
    >>> from bayes_eval.validation.coverage import CoverageConfig, run_cell
    >>> cfg = CoverageConfig(replicates=50, exact_replicates=0, bootstrap_resamples=0)
    >>> ds = run_cell(("uniform", 1, 5, 4), cfg)
    >>> ds["interval"].values.tolist()
    ['empirical', 'empirical_plugin', 'uniform', 'jeffreys', 'peer_clipped', 'wald', 'wilson',
     'clopper_pearson']
    >>> ds["coverage"].sel(interval=["uniform", "wald"]).values.ravel().round(3).tolist()
    [0.94, 0.94]
    """
    scenario, c, m, n = cell
    seed = zlib.crc32(f"{config.seed}|{scenario}|{c}|{m}|{n}".encode())
    rng = np.random.default_rng(seed)
    w = np.linspace(0.0, 1.0, c + 1)
    anchors = anchor_rates(config.anchors) if scenario == "anchored" else None
    prior = config.alpha0 if scenario == "dirichlet" else 1.0
    reps = config.replicates
    pi = draw_pi(scenario, (reps, m), c + 1, rng, config, anchors)
    truth = (pi @ w).mean(-1)
    counts = rng.multinomial(n, pi)
    exact_wanted = config.exact_replicates and (c == 1 or config.exact_categorical)
    intervals, mu, sigma = _interval_table(  # the progress bar: to 50% if exact ones follow
        counts,
        w,
        n,
        config,
        prior,
        rng,
        config.bootstrap_resamples,
        share=0.5 if exact_wanted else 1.0,
    )
    if exact_wanted:
        k = min(config.exact_replicates, reps)
        intervals["uniform_exact"] = _exact_intervals(counts[:k], w, config.confidence)
    nuts_diag = {}
    if [scenario, c, m, n] in [list(x) for x in config.nuts_cells]:
        for name in config.nuts_models:
            intervals[f"{name}_nuts"], diag = _nuts_intervals(
                counts[: config.nuts_replicates], w, config, name
            )
            nuts_diag |= diag
    # ranking claims at z > 1.645 between this model and an independent second one
    pi_b = draw_pi(scenario, (reps, m), c + 1, rng, config, anchors)
    claims = _claim_rates(
        counts, mu, sigma, truth, rng.multinomial(n, pi_b), (pi_b @ w).mean(-1), w
    )
    names = [mth for mth in METHODS if mth in intervals]
    cov, used, width, sharp = [], [], [], []
    z = float(ndtri(0.5 + config.confidence / 2))
    for name in names:
        lo, hi = intervals[name]
        t = truth[: lo.size]
        cov.append(float(np.mean((lo <= t) & (t <= hi))))
        used.append(lo.size)
        width.append(float(np.mean(hi - lo)))
        # sharpness: the interval's sd (half-width / z) over the RMSE of its midpoint
        rmse = float(np.sqrt(np.mean(((lo + hi) / 2 - t) ** 2)))
        sharp.append(float(np.mean(hi - lo)) / (2 * z) / rmse if rmse > 0 else np.nan)
    cov = np.asarray(cov)
    used = np.asarray(used)
    ds = xr.Dataset(
        {
            "coverage": ("interval", cov),
            "coverage_mc_se": ("interval", np.sqrt(cov * (1 - cov) / used)),
            "width": ("interval", np.asarray(width)),
            "sd_over_rmse": ("interval", np.asarray(sharp)),
            "n_reps": ("interval", used),
            **{key: ((), value) for key, value in claims.items()},
            **{key: ((), value) for key, value in nuts_diag.items()},
        },
        coords={"interval": names},
    )
    return ds.expand_dims(scenario=[scenario], C=[c], M=[m], N=[n])


# ----------------------------------------------------------------------------- study


def _cell_name(cell) -> str:
    scenario, c, m, n = cell
    return f"{scenario}_C{c}_M{m}_N{n}"


def run_grid(
    config: CoverageConfig,
    out_dir: str | Path,
    *,
    scheduler: str | None = None,
    n_workers: int | None = None,
    max_cells: int | None = None,
    progress: bool = True,
) -> tuple[xr.Dataset | None, dict]:
    """Run (or resume) the grid of a coverage study on Dask and merge the cells.

    The cells run through :func:`bayes_eval.validation.cell_runner.run_cells` (atomic cell
    files, the ``study.json`` manifest, Dask or in-process, Ctrl-C handling).

    Parameters
    ----------
    config : CoverageConfig
        The grid and its settings (validated first).
    out_dir : str or pathlib.Path
        Holds ``study.json`` (the configuration), ``cells/*.nc`` and ``coverage.nc``.
    scheduler : str, optional
        Address of an existing Dask scheduler; default an in-process ``LocalCluster``.
    n_workers : int, optional
        Workers of the local cluster (default: the machine's cores); 0 runs the cells one
        after the other in this process, without Dask.
    max_cells : int, optional
        Stop after this many new cells (a controlled interruption; resume later).
    progress : bool, optional
        Show a progress bar over the cells, default True.

    Returns
    -------
    dataset, info
        The merged cells so far (``None`` before the first cell), and ``{"computed": [...],
        "skipped": [...], "pending": n}``. ``coverage.nc`` is written once every cell is done.

    Raises
    ------
    ValueError
        ``out_dir`` holds a study with another configuration (the message names the keys
        that differ): it is never resumed with different settings.
    StudyInterrupted
        Ctrl-C (a ``KeyboardInterrupt`` subclass): the futures are cancelled, the cluster
        closed, finished cells kept; running the same call again resumes.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.coverage import CoverageConfig, run_grid
    >>> cfg = CoverageConfig(M=[5], N=[4], C=[1], scenarios=["uniform"], replicates=50,
    ...                      exact_replicates=0, bootstrap_resamples=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ds, info = run_grid(cfg, tmp, n_workers=0, progress=False)
    ...     files = sorted(p.name for p in Path(tmp).iterdir())
    >>> info["computed"], info["pending"], files
    ([('uniform', 1, 5, 4)], 0, ['cells', 'coverage.nc', 'study.json'])
    """
    config.validate()
    out = Path(out_dir)
    cells = config.cells()
    done = run_cells(
        cells,
        run_cell,  # this module's, read now: a replaced run_cell is the one that runs
        config,
        out,
        cell_name=_cell_name,
        digest=config.digest(),
        manifest=asdict(config),
        scheduler=scheduler,
        n_workers=n_workers,
        max_cells=max_cells,
        progress=progress,
        desc="coverage cells",
    )
    merged = merge_cells(out)
    if merged is not None and done.pending == 0:
        write_atomic(merged, out / "coverage.nc")
    info = {"computed": done.computed, "skipped": done.skipped, "pending": done.pending}
    return merged, info


def grid_config(options: CoverageStudyConfig) -> CoverageConfig:
    """The grid of a registry config.

    The TOML file ``options.config`` (if any), with every option that is set (not ``None``)
    on top, else :class:`CoverageConfig`'s defaults.

    Parameters
    ----------
    options : CoverageStudyConfig
        The options of ``bayes-eval validate coverage``
        (:class:`bayes_eval.validation.study_configs.CoverageStudyConfig`).

    Returns
    -------
    CoverageConfig
        The grid, validated.

    Raises
    ------
    ValueError
        A bad value, or an option that would do nothing for this grid.

    Examples
    --------
    >>> from bayes_eval.validation.coverage import grid_config
    >>> from bayes_eval.validation.study_configs import CoverageStudyConfig
    >>> grid = grid_config(CoverageStudyConfig(M=(30,), replicates=100))
    >>> grid.M, grid.N, grid.replicates, grid.exact_replicates
    ([30], [1, 4, 16, 80], 100, 100)
    """
    values = asdict(load_config(options.config)) if options.config else {}
    overrides = options.overrides()
    if options.config:
        _warn_overridden(options.config, values, overrides, options.replicates)
    values.update(overrides)
    config = CoverageConfig(**values)
    config.validate()
    _refuse_unused(options, config)
    return config


def _warn_overridden(path, values: dict, overrides: dict, replicates) -> None:
    """Say which keys of the TOML file the command-line options replace (never silently)."""
    in_file = {RENAMED_KEYS.get(k, k) for k in check.read_toml(path)}
    changed = []
    for key, new in overrides.items():
        old = values.get(key)
        if key in in_file and (list(old) if isinstance(old, tuple) else old) != new:
            option = "--" + key.replace("_", "-")
            if key == "exact_replicates" and replicates is not None and new == replicates:
                option = (
                    "--replicates (exact_replicates follows it unless --exact-replicates is given)"
                )
            changed.append(f"{key} = {old!s} -> {new!s} ({option})")
    if changed:
        warnings.warn(
            f"{path}: options given on the command line replace keys of the file: "
            + "; ".join(changed)
            + ".",
            UserWarning,
            stacklevel=3,
        )


def _refuse_unused(options: CoverageStudyConfig, grid: CoverageConfig) -> None:
    """Options that would do nothing for this grid are refused, not ignored."""
    if not grid.nuts_cells:
        given = [o for o in ("nuts_replicates", "nuts_draws") if getattr(options, o) is not None]
        if given:
            names = " and ".join("--" + o.replace("_", "-") for o in given)
            raise ValueError(
                f"{names} set the NUTS sub-grid, but no --nuts-cells are given "
                "(nor nuts_cells in the TOML): give the cells or drop the option."
            )
    if options.scheduler is not None and options.workers is not None:
        raise ValueError(
            "--workers sizes the local Dask cluster, but --scheduler connects to a running "
            "one whose workers are set where it was started: give one of them."
        )
    if options.alpha0 is not None and "dirichlet" not in grid.scenarios:
        raise ValueError(
            "--alpha0 is the prior of the dirichlet scenario, which this grid does not run "
            f"(scenarios {', '.join(grid.scenarios)}): add dirichlet or drop --alpha0."
        )


def run_study(
    config: CoverageStudyConfig, out: str | Path, *, progress: bool = True
) -> StudyResult:
    """Run (or resume) the study of a registry config.

    Writes ``OUT/study.json``, ``OUT/cells/``, ``OUT/coverage.nc`` (once complete) and
    ``OUT/coverage.png``.

    The summary is :func:`summary` of the cells so far, with ``cells_computed``,
    ``cells_resumed`` (finished earlier, not recomputed) and ``cells_pending``.

    Parameters
    ----------
    config : CoverageStudyConfig
        The options of ``bayes-eval validate coverage``
        (:class:`bayes_eval.validation.study_configs.CoverageStudyConfig`).
    out : str or pathlib.Path
        The output folder; running again with the same settings resumes it.
    progress : bool, optional
        Show a progress bar over the cells, default True.

    Returns
    -------
    StudyResult
        The merged cells, the summary (with ``report``, the files and seconds) and the files
        written.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.validation.coverage import run_study
    >>> from bayes_eval.validation.study_configs import CoverageStudyConfig
    >>> cfg = CoverageStudyConfig(M=(5,), N=(4,), C=(1,), scenarios=("uniform",), replicates=50,
    ...                           exact_replicates=0, bootstrap_resamples=0, workers=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     result = run_study(cfg, tmp, progress=False)
    >>> sorted(result.files), result.summary["cells_computed"], result.summary["cells_pending"]
    (['cells', 'manifest', 'netcdf', 'plot'], 1, 0)
    """
    start = time.perf_counter()
    grid = grid_config(config)
    out = Path(out)
    ds, info = run_grid(
        grid,
        out,
        scheduler=config.scheduler,
        n_workers=config.workers,
        max_cells=config.max_cells,
        progress=progress,
    )
    files = {"manifest": out / "study.json", "cells": out / "cells"}
    report: dict = {}
    if ds is None:
        ds = xr.Dataset()
    else:
        files["plot"] = plot(ds, out / "coverage.png", grid.confidence)
        report = summary(ds, grid.confidence)
        report["report"] = report_lines(report)
    if info["pending"] == 0:
        files["netcdf"] = out / "coverage.nc"
    report |= {
        "cells_computed": len(info["computed"]),
        "cells_resumed": len(info["skipped"]),
        "cells_pending": info["pending"],
        "netcdf": str(files["netcdf"]) if "netcdf" in files else None,
        "plot": str(files["plot"]) if "plot" in files else None,
        "seconds": round(time.perf_counter() - start, 2),
    }
    return StudyResult(ds, report, files)


# ----------------------------------------------------------------------------- report

HEADLINE = ("anchored", "beta_mixture")


def summary(ds: xr.Dataset, confidence: float = 0.95, *, min_m: int = 15) -> dict:
    """The coverage report: headline scenarios first, under- and over-coverage apart.

    For every scenario and method: the range of coverage per M over the cells of other N and
    C (``coverage_by_M``: ``{M: {"min", "max", "over": "N, C", "cells"}}``), the largest
    undercoverage and the largest overcoverage in percentage points over the cells with
    ``M >= min_m`` (``under_pp``, ``over_pp``; a method can do both), the cells outside
    +-2 points there (``misses``: ``[C, M, N, coverage]``) and whether the +-2 point target
    holds (``within_2pp``). ``headline`` repeats this for the anchored (real per-question
    rates) and beta-mixture scenarios, where the uniform prior is misspecified. Cells whose
    coverage is within 2 Monte Carlo s.e. of the target band are not counted as misses.

    Parameters
    ----------
    ds : xarray.Dataset
        The merged cells (:func:`run_grid`).
    confidence : float, optional
        The nominal level of the intervals, default 0.95.
    min_m : int, optional
        The smallest M whose cells count for ``under_pp``, ``over_pp`` and ``misses``,
        default 15.

    Returns
    -------
    dict
        ``nominal``, ``min_M``, ``scenarios`` (the report per scenario and method),
        ``headline``, and the largest wrong-sign claim rates ``claim_error_bayes_max`` and
        ``claim_error_wald_max``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.coverage import summary
    >>> from bayes_eval.validation.coverage import CoverageConfig, run_grid
    >>> cfg = CoverageConfig(M=[5], N=[4], C=[1], scenarios=["uniform"], replicates=50,
    ...                      exact_replicates=0, bootstrap_resamples=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ds, info = run_grid(cfg, tmp, n_workers=0, progress=False)
    >>> report = summary(ds, min_m=5)
    >>> wald = report["scenarios"]["uniform"]["wald"]
    >>> wald["coverage_by_M"][5]["min"], wald["under_pp"], wald["within_2pp"]
    (0.94, 1.0, True)
    """
    out: dict = {"nominal": confidence, "min_M": min_m, "scenarios": {}}
    for s in ds["scenario"].values:
        cell = ds.sel(scenario=s)
        report = {}
        for m in ds["interval"].values:
            rep = _method_report(cell, m, ds["M"].values, confidence, min_m)
            if rep is not None:
                report[str(m)] = rep
        out["scenarios"][str(s)] = report
    out["headline"] = {s: out["scenarios"][s] for s in HEADLINE if s in out["scenarios"]}
    out["claim_error_bayes_max"] = round(float(np.nanmax(ds["claim_error_bayes"].values)), 4)
    out["claim_error_wald_max"] = round(float(np.nanmax(ds["claim_error_wald"].values)), 4)
    return out


def report_lines(out: dict) -> list[str]:
    """The human-readable coverage report of :func:`summary`: one aligned table per scenario.

    A row per method: coverage per M (the range over the cells of other N and C), the largest
    under- and overcoverage in points over ``M >= min_M`` and the misses (cells outside
    +-2 points by more than 2 Monte Carlo s.e.) out of the cells there.

    Parameters
    ----------
    out : dict
        The report of :func:`summary`.

    Returns
    -------
    list of str
        The lines to print: the legend, a table per scenario, and the claim error rates.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.coverage import report_lines, summary
    >>> from bayes_eval.validation.coverage import CoverageConfig, run_grid
    >>> cfg = CoverageConfig(M=[5], N=[4], C=[1], scenarios=["uniform"], replicates=50,
    ...                      exact_replicates=0, bootstrap_resamples=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ds, info = run_grid(cfg, tmp, n_workers=0, progress=False)
    >>> lines = report_lines(summary(ds, min_m=5))
    >>> print(lines[4]); print(lines[5].split())
    scenario uniform
    ['method', 'M=5', 'under', 'over', 'misses', 'sd/RMSE']
    """
    nominal, min_m = out["nominal"], out["min_M"]
    lines = [
        f"coverage of the {nominal:.0%} intervals per M (a range a-b spans the cells of other N "
        "and C);",
        f"under/over: the largest gap in points over the cells with M >= {min_m}; misses: those "
        "cells outside +-2 points by more than 2 Monte Carlo s.e.;",
        "sd/RMSE: the interval's sd (half-width / z) over the RMSE of its midpoint, range over "
        "those cells (1 is honest, above 1.25 wasteful, below 0.9 overconfident)",
    ]
    for scen, methods in out["scenarios"].items():
        if not methods:
            continue
        tag = " (headline: real or misspecified rates)" if scen in HEADLINE else ""
        lines += _scenario_lines(scen, methods, min_m, tag)
    lines += [
        "",
        "largest share of wrong-sign ranking claims (|z| > 1.645 between two simulated "
        f"models) over the cells: Bayes@N (uniform prior) {out['claim_error_bayes_max']}, "
        f"Wald {out['claim_error_wald_max']}",
    ]
    return lines


def table(ds: xr.Dataset, scenario: str, methods=None):
    """Coverage of ``methods`` in one scenario as a ``pandas.DataFrame`` over (C, M, N).

    Parameters
    ----------
    ds : xarray.Dataset
        The merged cells (:func:`run_grid`).
    scenario : str
        The scenario shown.
    methods : list of str, optional
        The intervals shown, in this order (those not in ``ds`` left out); default all.

    Returns
    -------
    pandas.DataFrame
        One row per cell (index ``C``, ``M``, ``N``), one column per method.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.coverage import table
    >>> from bayes_eval.validation.coverage import CoverageConfig, run_grid
    >>> cfg = CoverageConfig(M=[5], N=[4], C=[1], scenarios=["uniform"], replicates=50,
    ...                      exact_replicates=0, bootstrap_resamples=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ds, info = run_grid(cfg, tmp, n_workers=0, progress=False)
    >>> frame = table(ds, "uniform", ["uniform", "wald"])
    >>> frame.columns.tolist(), list(frame.index.names), frame.values.tolist()
    (['uniform', 'wald'], ['C', 'M', 'N'], [[0.94, 0.94]])
    """
    cov = ds["coverage"].sel(scenario=scenario)
    if methods is not None:
        cov = cov.sel(interval=[m for m in methods if m in ds["interval"].values])
    frame = cov.to_dataframe()["coverage"].unstack("interval").dropna(how="all")
    return frame[[m for m in (methods or frame.columns) if m in frame.columns]]


def plot(ds: xr.Dataset, path: str | Path, confidence: float = 0.95) -> Path:
    """Plot coverage versus M per method, and width versus coverage over all cells.

    Coverage versus M per method is the worst over N and C, one panel per scenario; width
    versus coverage is over all cells. The M axis is ticked at the study's M values only, the
    titles are two short lines, and one legend sits below the panels (never over a line).

    Parameters
    ----------
    ds : xarray.Dataset
        The merged cells (:func:`run_grid`).
    path : str or pathlib.Path
        The PNG file to write.
    confidence : float, optional
        The nominal level, drawn as a line; default 0.95.

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.coverage import plot
    >>> from bayes_eval.validation.coverage import CoverageConfig, run_grid
    >>> cfg = CoverageConfig(M=[5], N=[4], C=[1], scenarios=["uniform"], replicates=50,
    ...                      exact_replicates=0, bootstrap_resamples=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     ds, info = run_grid(cfg, tmp, n_workers=0, progress=False)
    ...     print(plot(ds, Path(tmp) / "coverage.png").name)
    coverage.png
    """
    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

    plt = pyplot()
    scen = list(ds["scenario"].values)
    m_values = [int(m) for m in ds["M"].values]
    fig, axes = plt.subplots(
        1,
        len(scen) + 1,
        figsize=(3.6 * (len(scen) + 1), 4.2),
        squeeze=False,
        layout="constrained",
    )
    finite = ds["coverage"].values[np.isfinite(ds["coverage"].values)]
    bottom = min(0.5, float(finite.min()) - 0.02) if finite.size else 0.5
    handles: dict[str, object] = {}
    for ax, s in zip(axes[0], scen, strict=False):
        for m in ds["interval"].values:
            cov = ds["coverage"].sel(scenario=s, interval=m)
            worst = cov.min(dim=[d for d in cov.dims if d != "M"], skipna=True)
            if np.isfinite(worst).any():
                (line,) = ax.plot(ds["M"], worst, marker="o", label=str(m))
                handles.setdefault(str(m), line)
        ax.axhline(confidence, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xticks(m_values, [str(m) for m in m_values])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(bottom, 1.0)
        ax.set_title(f"{s}\nworst coverage over N, C", fontsize=9)
        ax.set_xlabel("M questions")
    axes[0][0].set_ylabel("coverage")
    ax = axes[0][-1]
    for m in ds["interval"].values:
        c = ds["coverage"].sel(interval=m).values.ravel()
        wdt = ds["width"].sel(interval=m).values.ravel()
        keep = np.isfinite(c)
        points = ax.scatter(wdt[keep], c[keep], s=8, label=str(m))
        handles.setdefault(str(m), points)
    ax.axhline(confidence, color="k", lw=0.8)
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels of a log axis collide
    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.set_ylim(bottom, 1.0)
    ax.set_xlabel("mean width")
    ax.set_title("width versus coverage\n(all cells)", fontsize=9)
    fig.legend(
        list(handles.values()),
        list(handles),
        loc="outside lower center",
        ncol=min(len(handles), 4),
        fontsize=8,
        title="interval",
    )
    return save_png(fig, path)
