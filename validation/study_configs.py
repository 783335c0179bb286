"""The configuration of every validation study: one frozen dataclass per study.

Each field is one option with a default (``bayes-eval validate NAME --option VALUE``,
:func:`bayes_eval.validation.registry.make_config`); ``field.metadata`` holds ``help``, and
optionally ``positional`` (a positional command-line argument) and ``choices``. Field types
are kept simple for the command line: ``bool``, ``int``, ``float``, ``str``, ``X | None`` and
tuples of ``int``/``float``/``str``. Construction checks every value (``ValueError`` naming
the option and what was expected).

This module imports no study code (and no PyMC, no xarray): the registry reads it at import
time, and each study module imports its config class from here. Annotations are real types
(no ``from __future__ import annotations``) so that ``field.type`` can be inspected directly.
"""

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, field, fields

from bayes_eval.inputs import check_memory
from bayes_eval.posteriors.priors import PRIOR_KINDS
from bayes_eval.ranking.convergence import DEFAULT_METHODS, parse_method
from bayes_eval.validation import config_checks as check

__all__ = [
    "SBC_ESTIMATORS",
    "BiasedCoinConfig",
    "BoardConfig",
    "ClaimsConfig",
    "ClustersConfig",
    "ConvergenceConfig",
    "CoverageStudyConfig",
    "CrossedStudyConfig",
    "DistinguishabilityConfig",
    "ElicitConfig",
    "GradedConfig",
    "HyperpriorConfig",
    "JudgesConfig",
    "JudgesSyntheticConfig",
    "PairsConfig",
    "PlanConfig",
    "PriorBenefitConfig",
    "SbcConfig",
]

#: Scenarios of the coverage study (see :mod:`bayes_eval.validation.coverage`).
COVERAGE_SCENARIOS = (
    "uniform",
    "dirichlet",
    "beta_mixture",
    "anchored",
    "u_shaped",
    "clustered",
)
#: ``matching-exact`` needs no MCMC; the others are NUTS fits of the PyMC models.
SBC_ESTIMATORS = (
    "matching-exact",
    "matching",
    "hierarchical",
    "crossed",
    "power-prior",
    "judges",
)
#: Options of the ``sbc`` study that say how to run, not what: they may change when a study is
#: resumed.
SBC_EXECUTION = ("scheduler", "workers", "max_cells")


def _opt(default, help: str, **extra):
    """A dataclass field with a default and its help (and ``positional``/``choices``)."""
    return field(default=default, metadata={"help": help, **extra})


def _req(help: str, **extra):
    """A required field (positional on the command line)."""
    return field(metadata={"help": help, "positional": True, **extra})


def _int(name: str, value, minimum: int = 1, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} is {value!r}; expected an integer >= {minimum}.")


def _prob(name: str, value, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError(f"{name} is {value!r}; expected a number in (0, 1).")


def _sd(name: str, value) -> None:
    """A finite number >= 0 (a simulation's standard deviation)."""
    finite = isinstance(value, (int, float)) and math.isfinite(value)
    if isinstance(value, bool) or not finite or value < 0:
        raise ValueError(f"{name} is {value!r}; expected a finite number >= 0.")


def _ints(name: str, values, minimum: int = 1, *, optional: bool = True) -> None:
    if optional and values is None:
        return
    if not values:
        raise ValueError(f"{name} is {values!r}; expected a non-empty list of integers.")
    for v in values:
        _int(name, v, minimum)


def _methods(values, n_max: int | None = None) -> None:
    if not values:
        raise ValueError("methods is empty; expected at least one metric, e.g. bayes.")
    for name in values:
        try:
            method = parse_method(str(name))
        except ValueError as exc:
            raise ValueError(f"methods: {exc}") from None
        if n_max is not None and method.k > n_max:  # it would never be computed: all "-"
            raise ValueError(
                f"methods: {name} needs k = {method.k} trials per question, more than n_max = "
                f"{n_max}; expected k <= n_max (or a larger n_max)."
            )


def _matharena_models(n_models: int, used: bool) -> None:
    """Refuse more models than the MathArena board has, when its real rates are ``used``."""
    if used and n_models > 16:
        raise ValueError(
            f"n_models is {n_models}; the MathArena board has 16 models (rates matharena): "
            "expected at most 16."
        )


def _choice(name: str, value, choices) -> None:
    if value is not None and value not in choices:
        raise ValueError(f"{name} is {value!r}; expected one of {list(choices)}.")


def _seed(value) -> None:
    _int("seed", value, 0, optional=True)


@dataclass(frozen=True)
class BiasedCoinConfig:
    """``biased-coin``: tau_b of every metric versus n on the 11 biased-coin mimics.

    Parameters
    ----------
    independent : int, optional
        Panel a: fresh results matrices of n-max trials each; default 1000.
    replicates : int, optional
        Panels b and c: column and row bootstrap replicates; default 10000.
    methods : tuple of str, optional
        Metrics, e.g. bayes,pass_at_k:4,g_pass_at_k_tau:4:0.5; default ``('bayes',
        'pass_at_k:2', 'pass_at_k:4', 'pass_at_k:8', 'pass_hat_k:4', 'g_pass_at_k_tau:4:0.5',
        'mg_pass_at_k:4')``.
    n_max : int, optional
        Trials per question, N_max; default 80.
    n_questions : int, optional
        Questions M of the mimics; default 30.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import BiasedCoinConfig
    >>> cfg = BiasedCoinConfig(replicates=200, n_max=8, methods=("bayes", "pass_at_k:4"))
    >>> cfg.n_max, cfg.methods
    (8, ('bayes', 'pass_at_k:4'))
    """

    independent: int = _opt(1000, "panel a: fresh results matrices of n-max trials each")
    replicates: int = _opt(10_000, "panels b and c: column and row bootstrap replicates")
    methods: tuple[str, ...] = _opt(
        DEFAULT_METHODS, "metrics, e.g. bayes,pass_at_k:4,g_pass_at_k_tau:4:0.5"
    )
    n_max: int = _opt(80, "trials per question, N_max")
    n_questions: int = _opt(30, "questions M of the mimics")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("independent", self.independent)
        _int("replicates", self.replicates)
        _int("n_max", self.n_max)
        _int("n_questions", self.n_questions)
        # a metric the user named must be computable; the defaults that need more than n_max
        # trials are shown as "-" (a small n_max is a quick look)
        chosen = tuple(self.methods) != tuple(DEFAULT_METHODS)
        _methods(self.methods, self.n_max if chosen else None)
        _seed(self.seed)


@dataclass(frozen=True)
class PriorBenefitConfig:
    """``prior-benefit``: earlier runs of the original models as an informative prior.

    Parameters
    ----------
    replicates : int, optional
        Simulated model updates; default 50000.
    n_max : int, optional
        Largest N, trials of the updated model; default 30.
    depths : tuple of int, optional
        Prior depths D (0: uniform prior); default ``(0, 1, 2, 4, 8, 16)``.
    n_questions : int, optional
        Questions M; default 30.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import PriorBenefitConfig
    >>> cfg = PriorBenefitConfig(replicates=1000, depths=(0, 4))
    >>> cfg.depths, cfg.n_max
    ((0, 4), 30)
    """

    replicates: int = _opt(50_000, "simulated model updates")
    n_max: int = _opt(30, "largest N, trials of the updated model")
    depths: tuple[int, ...] = _opt((0, 1, 2, 4, 8, 16), "prior depths D (0: uniform prior)")
    n_questions: int = _opt(30, "questions M")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("replicates", self.replicates)
        _int("n_max", self.n_max)
        _ints("depths", self.depths, 0, optional=False)
        _int("n_questions", self.n_questions)
        _seed(self.seed)
        check_memory(  # per depth: float64 arrays over N = 1..n_max and M questions
            8.0 * 4 * len(self.depths) * float(self.n_max) * max(self.n_questions, 30),
            f"n_max {self.n_max} with {len(self.depths)} depths and n_questions {self.n_questions}",
            "a smaller n_max or fewer questions",
        )
        check_memory(  # one replicate's earlier runs: 8 models x M questions x the deepest D
            8.0 * 3 * 8 * self.n_questions * max(self.depths),
            f"--depths up to {max(self.depths)} with --n-questions {self.n_questions}",
            "smaller depths or fewer questions",
        )


@dataclass(frozen=True)
class DistinguishabilityConfig:
    """``distinguishability``: how many trials separate LLM10 from LLM9.

    Parameters
    ----------
    replicates : int, optional
        Simulated evaluations; default 10000.
    n_max : int, optional
        Largest N, trials per question; default 400.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import DistinguishabilityConfig
    >>> cfg = DistinguishabilityConfig(replicates=200, n_max=100)
    >>> cfg.replicates, cfg.n_max, cfg.seed
    (200, 100, 0)
    """

    replicates: int = _opt(10_000, "simulated evaluations")
    n_max: int = _opt(400, "largest N, trials per question")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("replicates", self.replicates)
        _int("n_max", self.n_max)
        _seed(self.seed)
        check_memory(  # one replicate: 2 models x 30 questions x n_max uniforms, sums, z
            8.0 * 6 * 2 * 30 * self.n_max,
            f"--n-max {self.n_max}",
            "a smaller --n-max (the paper's is 80)",
        )


#: Where a study's true rates come from (``--rates``: one choice list on every study).
_RATES = ("rasch", "matharena", "prior")
_TARGETS = ("pair", "top", "questions", "top-questions")  # what validate plan plans
#: the laws a top-K plan is computed under (those of ``bayes-eval plan --preposterior``)
_PREPOSTERIORS = ("normal", "refit")


@dataclass(frozen=True)
class PairsConfig:
    """``pairs``: calibration of ``bayes-eval pairs`` on boards with shared question difficulty.

    Parameters
    ----------
    replicates : int, optional
        Simulated leaderboards (boards); default 500.
    n_models : int, optional
        LLMs per board (every pair of them is compared); default 8.
    n_questions : int, optional
        Questions M per board; default 30.
    N : tuple of int, optional
        Trials per question (grid); default ``(1, 4)``.
    ability_sd : float, optional
        sd of the LLMs' logit abilities (small: close models); default 0.5.
    difficulty_sd : float, optional
        sd of the questions' logit difficulties, shared by all LLMs; default 2.0.
    interaction_sd : float, optional
        sd of the LLM x question logit interaction; default 1.0.
    rates : str, optional
        True rates: rasch (the sd's above), matharena (n_models of the 16 MathArena AIME 2025
        I models, each model's mean over its 4 runs, on questions resampled from its 15) or
        prior (the board model's own prior, every scale drawn from its hyperprior); default
        ``'rasch'``.
    prior_kind : str, optional
        ``--prior-kind`` of pairs: the per-question prior (these questions, as rank and plan)
        and the prior of the joint table (new questions); default ``'empirical'``.
    bins : int, optional
        Bins of the reliability diagram and of the ECE; default 10.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import PairsConfig
    >>> cfg = PairsConfig(replicates=50, N=(4,))
    >>> cfg.rates, cfg.prior_kind
    ('rasch', 'empirical')
    """

    replicates: int = _opt(500, "simulated leaderboards (boards)")
    n_models: int = _opt(8, "LLMs per board (every pair of them is compared)")
    n_questions: int = _opt(30, "questions M per board")
    N: tuple[int, ...] = _opt((1, 4), "trials per question (grid)")
    ability_sd: float = _opt(0.5, "sd of the LLMs' logit abilities (small: close models)")
    difficulty_sd: float = _opt(2.0, "sd of the questions' logit difficulties, shared by all LLMs")
    interaction_sd: float = _opt(1.0, "sd of the LLM x question logit interaction")
    rates: str = _opt(
        "rasch",
        "true rates: rasch (the sd's above), matharena (n_models of the 16 MathArena AIME "
        "2025 I models, each model's mean over its 4 runs, on questions resampled from its 15) "
        "or prior (the board model's own prior, every scale drawn from its hyperprior)",
        choices=_RATES,
    )
    prior_kind: str = _opt(
        "empirical",
        "--prior-kind of pairs: the per-question prior (these questions, as rank and plan) "
        "and the prior of the joint table (new questions)",
        choices=(*PRIOR_KINDS[2:], *PRIOR_KINDS[:2]),
    )
    bins: int = _opt(10, "bins of the reliability diagram and of the ECE")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("replicates", self.replicates)
        _int("n_models", self.n_models, 2)
        _int("n_questions", self.n_questions)
        _ints("N", self.N, optional=False)
        for name in ("ability_sd", "difficulty_sd", "interaction_sd"):
            _sd(name, getattr(self, name))
        _choice("prior_kind", self.prior_kind, PRIOR_KINDS)
        _choice("rates", self.rates, _RATES)
        _matharena_models(self.n_models, self.rates == "matharena")
        _int("bins", self.bins, 2)
        _seed(self.seed)
        pairs = self.n_models * (self.n_models - 1) / 2
        check_memory(  # one board's results (uniforms, comparison, floats) at the largest N
            8.0 * 3 * self.n_models * self.n_questions * max(self.N),
            f"--N up to {max(self.N)} with --n-models {self.n_models} and --n-questions "
            f"{self.n_questions}",
            "fewer trials, models or questions",
        )
        check_memory(  # two matrices' P(better) per pair and board, and the boards' data
            16.0 * self.replicates * pairs + 8.0 * 4 * self.n_models * self.n_questions,
            f"n_models {self.n_models} ({pairs:.0f} pairs) with n_questions "
            f"{self.n_questions} and {self.replicates} replicates",
            "fewer models, questions or replicates",
        )


#: Board scenarios of the claims study run by default (see
#: :mod:`bayes_eval.validation.claims_study`); ``prior`` may be asked for beside them.
CLAIMS_SCENARIOS = ("spread", "close", "matharena")
_CLAIMS_BOARDS = (*CLAIMS_SCENARIOS, "prior")


@dataclass(frozen=True)
class ClaimsConfig:
    """``claims``: realised FDR and power of the claims, on boards with known truth.

    Also the calibration of P(best) and the joint coverage of the simultaneous rank
    intervals.

    Parameters
    ----------
    replicates : int, optional
        Simulated leaderboards (boards) per scenario and N; default 200.
    n_models : int, optional
        LLMs per board; default 8.
    n_questions : int, optional
        Questions M per board; default 30.
    N : tuple of int, optional
        Trials per question (grid); default ``(1, 4)``.
    scenarios : tuple of str, optional
        Boards: spread and close (logit abilities of sd spread-sd or close-sd, shared question
        difficulty and an LLM x question interaction); matharena (n-models of the 16 MathArena
        AIME 2025 I models' real rates, questions resampled from its 15); prior (the board
        model's own prior, every scale drawn from its hyperprior); default
        ``('spread', 'close', 'matharena')``.
    spread_sd : float, optional
        sd of the logit abilities of the spread scenario; default 0.7.
    close_sd : float, optional
        sd of the logit abilities of the close scenario; default 0.25.
    difficulty_sd : float, optional
        sd of the questions' logit difficulties, shared by all LLMs; default 1.5.
    interaction_sd : float, optional
        sd of the LLM x question logit interaction; default 0.7.
    fdr : float, optional
        Posterior expected FDR q of the claims (and BH's level); default 0.05.
    confidence : float, optional
        Joint level of the simultaneous rank intervals; default 0.95.
    draws : int, optional
        Joint draws per board for P(best) and the rank intervals; default 4000.
    permutations : int, optional
        Sign flips of the paired permutation test (BH's p-values); default 2000.
    bins : int, optional
        Bins of the P(best) reliability diagram and its ECE; default 10.
    estimand : str, optional
        What the claims are about: these-questions (the board's own questions, as ``rank``)
        or new-questions (the source they were drawn from, as ``rank --estimand
        new-questions``); default ``'these-questions'``.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import ClaimsConfig
    >>> cfg = ClaimsConfig(replicates=20, scenarios=("close",))
    >>> cfg.scenarios, cfg.fdr, cfg.N
    (('close',), 0.05, (1, 4))
    """

    replicates: int = _opt(200, "simulated leaderboards (boards) per scenario and N")
    n_models: int = _opt(8, "LLMs per board")
    n_questions: int = _opt(30, "questions M per board")
    N: tuple[int, ...] = _opt((1, 4), "trials per question (grid)")
    scenarios: tuple[str, ...] = _opt(
        CLAIMS_SCENARIOS,
        "boards: spread and close (logit abilities of sd spread-sd or close-sd, shared question "
        "difficulty and an LLM x question interaction); matharena (n-models of the 16 MathArena "
        "AIME 2025 I models' real rates, questions resampled from its 15); prior (the board "
        "model's own prior, every scale drawn from its hyperprior)",
    )
    spread_sd: float = _opt(0.7, "sd of the logit abilities of the spread scenario")
    close_sd: float = _opt(0.25, "sd of the logit abilities of the close scenario")
    difficulty_sd: float = _opt(1.5, "sd of the questions' logit difficulties, shared by all LLMs")
    interaction_sd: float = _opt(0.7, "sd of the LLM x question logit interaction")
    fdr: float = _opt(0.05, "posterior expected FDR q of the claims (and BH's level)")
    confidence: float = _opt(0.95, "joint level of the simultaneous rank intervals")
    draws: int = _opt(4000, "joint draws per board for P(best) and the rank intervals")
    permutations: int = _opt(2000, "sign flips of the paired permutation test (BH's p-values)")
    bins: int = _opt(10, "bins of the P(best) reliability diagram and its ECE")
    estimand: str = _opt(
        "these-questions",
        "what the claims are about: these-questions (the board's own questions, as `rank`) or "
        "new-questions (the source they were drawn from, as `rank` on new questions)",
        choices=("these-questions", "new-questions"),
    )
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("replicates", self.replicates)
        _int("n_models", self.n_models, 2)
        _int("n_questions", self.n_questions)
        _ints("N", self.N, optional=False)
        _choice("estimand", self.estimand, ("these-questions", "new-questions"))
        if not self.scenarios:
            raise ValueError(f"scenarios is empty; expected some of {list(_CLAIMS_BOARDS)}.")
        for name in self.scenarios:
            _choice("scenarios", name, _CLAIMS_BOARDS)
        _matharena_models(self.n_models, "matharena" in self.scenarios)
        for name in ("spread_sd", "close_sd", "difficulty_sd", "interaction_sd"):
            _sd(name, getattr(self, name))
        _prob("fdr", self.fdr)
        _prob("confidence", self.confidence)
        _int("draws", self.draws, 100)
        _int("permutations", self.permutations, 100)
        _int("bins", self.bins, 2)
        _seed(self.seed)
        pairs = self.n_models * (self.n_models - 1) / 2
        check_memory(  # per board: the draws and their ranks; the flips against every pair
            8.0 * 6 * self.draws * self.n_models
            + 8.0 * self.permutations * (self.n_questions + pairs),
            f"--draws {self.draws} and --permutations {self.permutations} with --n-models "
            f"{self.n_models}",
            "fewer draws, permutations or models",
        )


@dataclass(frozen=True)
class PlanConfig:
    """``plan``: whether the assurance ``bayes-eval plan`` promises holds on known truth.

    The plans are carried out on simulated boards and checked against the truth they were
    drawn from.

    Parameters
    ----------
    replicates : int, optional
        Simulated boards per N (those with a plan to check count); default 300.
    n_models : int, optional
        LLMs per board (the plan separates the two with the largest means); default 6.
    n_questions : int, optional
        Questions M per board; default 30.
    N : tuple of int, optional
        Trials per question before the plan (grid); default ``(2, 4)``.
    ability_sd : float, optional
        sd of the LLMs' logit abilities (small: close models); default 0.3.
    difficulty_sd : float, optional
        sd of the questions' logit difficulties, shared by all LLMs; default 1.5.
    interaction_sd : float, optional
        sd of the LLM x question logit interaction; default 0.7.
    rates : str, optional
        True rates: rasch (the sd's above), matharena (n_models of the 16 MathArena AIME
        2025 I models' real rates, questions resampled from its 15) or prior (the board model's
        own prior, every scale drawn from its hyperprior; targets pair and top); default
        ``'rasch'``.
    ability_from_prior : bool, optional
        Rasch rates: each board's ability sd drawn from the board model's hyperprior,
        HalfNormal(2), instead of ``ability_sd`` (the difficulty sd and the logit-normal
        interaction stay fixed); default False.
    assurance : float, optional
        Assurance the plans aim at; default 0.8.
    confidence : float, optional
        Ranking confidence that counts as separated (target pair); default 0.95.
    target : str, optional
        What is planned: pair (the top two models separated at ``--confidence``, as
        ``plan A B``), top (the top ``--top`` set claimed at ``--fdr``, as ``plan --top K``),
        questions (the top two separated on new questions at ``--confidence`` by more
        questions, as ``plan A B --estimand new-questions``) or top-questions (the top
        ``--top`` set claimed on new questions at ``--fdr`` by more questions, as ``plan --top
        K --estimand new-questions``); default ``'pair'``.
    top : int, optional
        k of the top-k set (targets top and top-questions); default 1.
    fdr : float, optional
        Posterior expected FDR of the claims (targets top and top-questions); default 0.05.
    pair : str, optional
        The two models a pair or questions plan is for: top (the two with the largest means,
        picked after seeing the results) or random (two fixed before them); default ``'top'``.
    simulations : int, optional
        Simulations per plan; default 1000.
    preposterior : str, optional
        The law the plans of targets pair and top are computed under: normal or refit (boards
        refitted after simulated trials, ``plan --preposterior refit``; a board fit per
        simulation and N tried: give fewer simulations); default ``'normal'``.
    refit_check : int, optional
        Target top: also the refit law's assurance at each plan's N, over this many refitted
        boards (``top_assurance``; 0: not computed); default 0.
    max_trials : int, optional
        Largest number of trials per question a plan may ask for; default 200.
    max_questions : int, optional
        Largest number of questions a plan may ask for (targets questions and top-questions);
        default 3000.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import PlanConfig
    >>> cfg = PlanConfig(replicates=30, target="top", top=2)
    >>> cfg.target, cfg.top, cfg.fdr
    ('top', 2, 0.05)
    """

    replicates: int = _opt(300, "simulated boards per N (those with a plan to check count)")
    n_models: int = _opt(6, "LLMs per board (the plan separates the two with the largest means)")
    n_questions: int = _opt(30, "questions M per board")
    N: tuple[int, ...] = _opt((2, 4), "trials per question before the plan (grid)")
    ability_sd: float = _opt(0.3, "sd of the LLMs' logit abilities (small: close models)")
    difficulty_sd: float = _opt(1.5, "sd of the questions' logit difficulties, shared by all LLMs")
    interaction_sd: float = _opt(0.7, "sd of the LLM x question logit interaction")
    rates: str = _opt(
        "rasch",
        "true rates: rasch (the sd's above), matharena (n_models of the 16 MathArena AIME "
        "2025 I models' real rates, questions resampled from its 15) or prior (the board "
        "model's own prior, every scale drawn from its hyperprior; targets pair and top)",
        choices=_RATES,
    )
    ability_from_prior: bool = _opt(
        False,
        "rasch: draw each board's ability sd from the board model's hyperprior, HalfNormal(2), "
        "instead of --ability-sd",
    )
    assurance: float = _opt(0.8, "assurance the plans aim at")
    confidence: float = _opt(0.95, "ranking confidence that counts as separated (target pair)")
    target: str = _opt(
        "pair",
        "what is planned: pair (the top two models separated at --confidence, as `plan A B`) "
        "or top (the top --top set claimed at --fdr, as `plan --top K`) or questions (the top "
        "two separated on new questions at --confidence by more questions, as `plan A B` on "
        "new questions) or top-questions (the top --top set claimed on new questions at --fdr "
        "by more questions, as `plan --top K` on new questions)",
        choices=_TARGETS,
    )
    top: int = _opt(1, "k of the top-k set (targets top and top-questions)")
    fdr: float = _opt(0.05, "posterior expected FDR of the claims (targets top and top-questions)")
    pair: str = _opt(
        "top",
        "the two models a pair or questions plan is for: top (the two with the largest means, "
        "picked after seeing the results) or random (two fixed before them)",
        choices=("top", "random"),
    )
    simulations: int = _opt(1000, "simulations per plan")
    preposterior: str = _opt(
        "normal",
        "the law the plans of targets pair and top are computed under: normal, or refit "
        "(boards refitted after simulated trials; a board fit per simulation and N tried)",
        choices=_PREPOSTERIORS,
    )
    refit_check: int = _opt(
        0,
        "target top: also the refit law's assurance at each plan's N, over this many refitted "
        "boards (0: not computed)",
    )
    max_trials: int = _opt(200, "largest number of trials per question a plan may ask for")
    max_questions: int = _opt(
        3000, "largest number of questions a plan may ask for (targets questions, top-questions)"
    )
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("replicates", self.replicates)
        _int("n_models", self.n_models, 2)
        _int("n_questions", self.n_questions)
        _ints("N", self.N, optional=False)
        for name in ("ability_sd", "difficulty_sd", "interaction_sd"):
            _sd(name, getattr(self, name))
        _choice("rates", self.rates, _RATES)
        if self.ability_from_prior and self.rates != "rasch":
            raise ValueError(f"ability_from_prior applies to rates rasch; rates is {self.rates!r}.")
        _matharena_models(self.n_models, self.rates == "matharena")
        _prob("assurance", self.assurance)
        _prob("confidence", self.confidence)
        if self.confidence <= 0.5:
            raise ValueError(f"confidence is {self.confidence!r}; expected a level in (0.5, 1).")
        _choice("target", self.target, _TARGETS)
        questions = self.target in ("questions", "top-questions")
        if self.rates == "prior" and questions:
            raise ValueError(
                f"rates prior draws one board of questions; the {self.target} target needs a "
                "population of new questions (give rates rasch or matharena)."
            )
        _choice("pair", self.pair, ("top", "random"))
        if self.pair != "top" and self.target in ("top", "top-questions"):
            raise ValueError(
                "a random pair is for plans of two models; the top-K set's plan has none (give "
                "the pair or questions target, or leave the pair at top)."
            )
        _int("top", self.top)
        if self.top >= self.n_models:
            raise ValueError(
                f"top is {self.top}; expected fewer than the {self.n_models} models per board."
            )
        _prob("fdr", self.fdr)
        _choice("preposterior", self.preposterior, _PREPOSTERIORS)
        if self.preposterior == "refit" and self.target not in ("pair", "top"):
            raise ValueError(
                "the refit law is for the plans of targets pair and top (more trials of these "
                f"questions); target is {self.target!r}."
            )
        _int("simulations", self.simulations, 20 if self.preposterior == "refit" else 100)
        _int("refit_check", self.refit_check, 0)
        if self.refit_check and self.target != "top":
            raise ValueError(
                f"refit_check is for the top target's plans; target is {self.target!r}."
            )
        _int("max_trials", self.max_trials, 2)
        _int("max_questions", self.max_questions, 2)
        if questions and self.max_questions <= self.n_questions:
            raise ValueError(
                f"max_questions is {self.max_questions}; expected more than the "
                f"{self.n_questions} questions per board."
            )
        if max(self.N) >= self.max_trials:
            raise ValueError(
                f"max_trials is {self.max_trials}; expected more than the largest N "
                f"({max(self.N)})."
            )
        _seed(self.seed)
        check_memory(  # one board's trials up to max_trials; a plan's simulated futures
            8.0 * self.n_models * self.n_questions * self.max_trials
            + 8.0 * 8 * self.simulations * 2 * self.n_questions * 2,
            f"--max-trials {self.max_trials} and --simulations {self.simulations} with "
            f"--n-models {self.n_models} and --n-questions {self.n_questions}",
            "fewer trials, simulations, models or questions",
        )


@dataclass(frozen=True)
class HyperpriorConfig:
    """``hyperprior``: the hyperprior on the concentration.

    It is learned from real benchmarks and checked on held-out ones.

    Parameters
    ----------
    sources : tuple of str, optional
        Shipped binary datasets with repeated trials to learn from (at least two); default
        ``('matharena_aime25_i', 'phi4_aime25', 'taubench_airline_gpt4o',
        'cruxeval_codellama7b')``.
    replicates : int, optional
        Real-rate benchmarks per held-out cell; default 400.
    board_replicates : int, optional
        Boards per cell of the board table (0: skip it); default 60.
    N : tuple of int, optional
        Trials per question (grid); default ``(1, 2, 4)``.
    M : tuple of int, optional
        Questions per benchmark (grid); default ``(15, 30, 100)``.
    confidence : float, optional
        Level of the intervals; default 0.95.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import HyperpriorConfig
    >>> cfg = HyperpriorConfig(replicates=50, board_replicates=0)
    >>> cfg.sources[:2], cfg.M
    (('matharena_aime25_i', 'phi4_aime25'), (15, 30, 100))
    """

    sources: tuple[str, ...] = _opt(
        ("matharena_aime25_i", "phi4_aime25", "taubench_airline_gpt4o", "cruxeval_codellama7b"),
        "shipped binary datasets with repeated trials to learn from (at least two)",
    )
    replicates: int = _opt(400, "real-rate benchmarks per held-out cell")
    board_replicates: int = _opt(
        60, "boards per cell of the board table (0: skip it; each board takes ~0.5 s)"
    )
    N: tuple[int, ...] = _opt((1, 2, 4), "trials per question (grid)")
    M: tuple[int, ...] = _opt((15, 30, 100), "questions per benchmark (grid)")
    confidence: float = _opt(0.95, "level of the intervals")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        if not isinstance(self.sources, tuple) or len(set(self.sources)) < 2:
            raise ValueError(
                f"sources is {self.sources!r}; expected at least two distinct dataset names."
            )
        _int("replicates", self.replicates, 2)
        _int("board_replicates", self.board_replicates, 0)
        _ints("N", self.N, optional=False)
        _ints("M", self.M, optional=False)
        _prob("confidence", self.confidence)
        _seed(self.seed)
        check_memory(  # a held-out cell's benchmarks (rates, counts, posteriors) and a board
            8.0 * 6 * max(self.M) * (self.replicates + 16 * max(self.N)),
            f"--M up to {max(self.M)} with --N up to {max(self.N)} and --replicates "
            f"{self.replicates}",
            "fewer questions M, trials N or replicates",
        )


@dataclass(frozen=True)
class ClustersConfig:
    """``clusters``: the new-questions estimand with clustered questions (rank and pairs).

    Parameters
    ----------
    replicates : int, optional
        Simulated boards per cell; default 200.
    n_models : int, optional
        LLMs per board; default 6.
    n_questions : int, optional
        Questions M per board (split evenly into the clusters); default 60.
    clusters : tuple of int, optional
        Numbers of clusters G (grid); default ``(5, 10, 30)``.
    cluster_sd : tuple of float, optional
        sd s of the cluster effects c_g on the logit difficulty (grid); default
        ``(0.0, 1.0, 2.0)``.
    question_sd : float, optional
        sd of the question effects u_q within a cluster; default 1.0.
    ability_sd : float, optional
        sd of the LLMs' logit abilities (small: close models); default 0.5.
    interaction_sd : float, optional
        sd of the LLM x question logit interaction; default 1.0.
    cluster_interaction_sd : float, optional
        sd of an LLM x cluster logit interaction (models strong on some clusters); default 0.0.
    trials : int, optional
        Trials per question; default 1.
    confidence : float, optional
        Level of the population-mean intervals; default 0.95.
    draws : int, optional
        Bayesian bootstrap draws per board; default 2000.
    bins : int, optional
        Bins of the reliability diagram and of the ECE; default 10.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import ClustersConfig
    >>> cfg = ClustersConfig(replicates=20, clusters=(5,), cluster_sd=(0.0, 1.0))
    >>> cfg.clusters, cfg.cluster_sd, cfg.n_questions
    ((5,), (0.0, 1.0), 60)
    """

    replicates: int = _opt(200, "simulated boards per cell")
    n_models: int = _opt(6, "LLMs per board")
    n_questions: int = _opt(60, "questions M per board (split evenly into the clusters)")
    clusters: tuple[int, ...] = _opt((5, 10, 30), "numbers of clusters G (grid)")
    cluster_sd: tuple[float, ...] = _opt(
        (0.0, 1.0, 2.0), "sd s of the cluster effects c_g on the logit difficulty (grid)"
    )
    question_sd: float = _opt(1.0, "sd of the question effects u_q within a cluster")
    ability_sd: float = _opt(0.5, "sd of the LLMs' logit abilities (small: close models)")
    interaction_sd: float = _opt(1.0, "sd of the LLM x question logit interaction")
    cluster_interaction_sd: float = _opt(
        0.0, "sd of an LLM x cluster logit interaction (models strong on some clusters)"
    )
    trials: int = _opt(1, "trials per question")
    confidence: float = _opt(0.95, "level of the population-mean intervals")
    draws: int = _opt(2000, "Bayesian bootstrap draws per board")
    bins: int = _opt(10, "bins of the reliability diagram and of the ECE")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("replicates", self.replicates)
        _int("n_models", self.n_models, 2)
        _int("n_questions", self.n_questions, 2)
        _ints("clusters", self.clusters, 2, optional=False)
        for g in self.clusters:
            if g > self.n_questions:
                raise ValueError(
                    f"clusters has {g}; expected at most n_questions ({self.n_questions})."
                )
        if not self.cluster_sd:
            raise ValueError("cluster_sd is empty; expected a list of numbers >= 0.")
        for name, values in (
            ("cluster_sd", self.cluster_sd),
            ("question_sd", (self.question_sd,)),
            ("ability_sd", (self.ability_sd,)),
            ("interaction_sd", (self.interaction_sd,)),
            ("cluster_interaction_sd", (self.cluster_interaction_sd,)),
        ):
            for value in values:
                _sd(name, value)
        _int("trials", self.trials)
        _prob("confidence", self.confidence)
        _int("draws", self.draws, 100)
        _int("bins", self.bins, 2)
        _seed(self.seed)
        check_memory(  # a board: its results, and the bootstrap's cluster weights and means
            8.0 * 3 * self.n_models * self.n_questions * self.trials
            + 8.0 * 3 * self.draws * (max(self.clusters) + self.n_models),
            f"--draws {self.draws} and --trials {self.trials} with --n-models {self.n_models} and "
            f"--n-questions {self.n_questions}",
            "fewer draws, trials, models or questions",
        )
        pairs = self.n_models * (self.n_models - 1) / 2
        check_memory(  # per cell and board: both treatments' numbers per model and pair
            8.0
            * len(self.cluster_sd)
            * len(self.clusters)
            * self.replicates
            * (2 * (4 * self.n_models + pairs) + self.n_models + pairs),
            f"--replicates {self.replicates} with {len(self.cluster_sd)} --cluster-sd and "
            f"{len(self.clusters)} --clusters cells and --n-models {self.n_models}",
            "fewer replicates, cells or models",
        )


@dataclass(frozen=True)
class BoardConfig:
    """``board``: coverage, sharpness and calibration of what ``rank`` prints on a board.

    Parameters
    ----------
    replicates : int, optional
        Simulated boards per N; default 100.
    n_models : int, optional
        LLMs per board; default 12.
    n_questions : int, optional
        Questions M per board (every LLM answers every one); default 30.
    N : tuple of int, optional
        Trials per question (grid); default ``(1, 2, 4)``.
    rates : str, optional
        True rates: rasch (the sd's below), matharena (n_models of the 16 MathArena AIME 2025
        I models, each model's mean over its 4 runs, on questions resampled from its 15) or
        prior (the board model's own prior, every scale drawn from its hyperprior); default
        ``'matharena'``.
    ability_sd : float, optional
        Rasch: sd of the LLMs' logit abilities (0.25: close models); default 0.5.
    difficulty_sd : float, optional
        Rasch: sd of the questions' logit difficulties; default 1.5.
    interaction_sd : float, optional
        Rasch: sd of the LLM x question logit interaction; default 0.7.
    confidence : float, optional
        Level of the intervals; default 0.95.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import BoardConfig
    >>> cfg = BoardConfig(replicates=20, N=(1, 4))
    >>> cfg.N, cfg.rates, cfg.confidence
    ((1, 4), 'matharena', 0.95)
    """

    replicates: int = _opt(100, "simulated boards per N")
    n_models: int = _opt(12, "LLMs per board")
    n_questions: int = _opt(30, "questions M per board (every LLM answers every one)")
    N: tuple[int, ...] = _opt((1, 2, 4), "trials per question (grid)")
    rates: str = _opt(
        "matharena",
        "true rates: rasch (the sd's below), matharena (n_models of the 16 MathArena AIME "
        "2025 I models, each model's mean over its 4 runs, on questions resampled from its 15) "
        "or prior (the board model's own prior, every scale drawn from its hyperprior)",
        choices=_RATES,
    )
    ability_sd: float = _opt(0.5, "rasch: sd of the LLMs' logit abilities (0.25: close models)")
    difficulty_sd: float = _opt(1.5, "rasch: sd of the questions' logit difficulties")
    interaction_sd: float = _opt(0.7, "rasch: sd of the LLM x question logit interaction")
    confidence: float = _opt(0.95, "level of the intervals")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("replicates", self.replicates)
        _int("n_models", self.n_models, 2)
        _int("n_questions", self.n_questions, 2)
        _ints("N", self.N, optional=False)
        _choice("rates", self.rates, _RATES)
        _matharena_models(self.n_models, self.rates == "matharena")
        for name in ("ability_sd", "difficulty_sd", "interaction_sd"):
            _sd(name, getattr(self, name))
        _prob("confidence", self.confidence)
        _int("seed", self.seed, 0)
        L, pairs = self.n_models, self.n_models * (self.n_models - 1) / 2
        check_memory(  # per N, estimator and board: four numbers per model and P per pair
            8.0 * len(self.N) * self.replicates * (3 * (4 * L + pairs) + L)
            + 8.0 * 8 * L * self.n_questions * max(self.N),  # a board's results and its fit
            f"--replicates {self.replicates} with --n-models {L}, --n-questions "
            f"{self.n_questions} and --N up to {max(self.N)}",
            "fewer replicates, models, questions or trials",
        )


@dataclass(frozen=True)
class GradedConfig:
    """``graded``: coverage and width of the ``--fractional`` intervals on graded boards.

    Parameters
    ----------
    replicates : int, optional
        Simulated boards per cell; default 100.
    n_models : int, optional
        LLMs per board (1: one model, whose prior is then its own); default 20.
    n_questions : int, optional
        Questions M per board (every LLM answers every one); default 200.
    inflation : tuple of float, optional
        Shares of full-or-no-credit grades (grid; 1: binary, 0: every grade a Beta draw);
        default ``(1.0, 0.3, 0.0)``.
    precision : float, optional
        Beta precision phi of the other grades; default 8.0.
    difficulty_sd : float, optional
        sd of the questions' logit difficulties; default 1.5.
    interaction_sd : float, optional
        sd of the LLM x question logit interaction; default 0.0.
    rates : str, optional
        True rates, the grades' expected scores: rasch (ability N(0.5, 1) minus difficulty,
        the sd's above), matharena (n_models of the 16 MathArena AIME 2025 I models, each
        model's mean over its 4 runs, on questions resampled from its 15) or prior (the board
        model's own prior, every scale drawn from its hyperprior); default ``'rasch'``.
    trials : int, optional
        Grades per question and LLM (repeated grading); default 1.
    confidence : float, optional
        Level of the intervals; default 0.95.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import GradedConfig
    >>> cfg = GradedConfig(replicates=20, inflation=(1.0, 0.0))
    >>> cfg.inflation, cfg.precision
    ((1.0, 0.0), 8.0)
    """

    replicates: int = _opt(100, "simulated boards per cell")
    n_models: int = _opt(20, "LLMs per board")
    n_questions: int = _opt(200, "questions M per board (every LLM answers every one)")
    inflation: tuple[float, ...] = _opt(
        (1.0, 0.3, 0.0),
        "shares of full-or-no-credit grades (grid; 1: binary, 0: every grade a Beta draw)",
    )
    precision: float = _opt(8.0, "Beta precision phi of the other grades")
    difficulty_sd: float = _opt(1.5, "sd of the questions' logit difficulties")
    interaction_sd: float = _opt(0.0, "sd of the LLM x question logit interaction")
    rates: str = _opt(
        "rasch",
        "true rates, the grades' expected scores: rasch (ability N(0.5, 1) minus difficulty, "
        "the sd's above), matharena (n_models of the 16 MathArena AIME 2025 I models, each "
        "model's mean over its 4 runs, on questions resampled from its 15) or prior (the "
        "board model's own prior, every scale drawn from its hyperprior)",
        choices=_RATES,
    )
    trials: int = _opt(1, "grades per question and LLM (repeated grading)")
    confidence: float = _opt(0.95, "level of the intervals")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _int("replicates", self.replicates)
        _int("n_models", self.n_models, 1)
        _int("n_questions", self.n_questions, 2)
        _int("trials", self.trials)
        _sd("interaction_sd", self.interaction_sd)
        _choice("rates", self.rates, _RATES)
        _matharena_models(self.n_models, self.rates == "matharena")
        defaults = {f.name: f.default for f in fields(self)}
        for name in ("interaction_sd", "difficulty_sd"):
            default = defaults[name]
            if self.rates != "rasch" and getattr(self, name) != default:
                raise ValueError(
                    f"{name} is {getattr(self, name)!r} with rates {self.rates!r}; expected "
                    f"{default} (it shapes the Rasch rates only: give rates rasch)."
                )
        if not self.inflation:
            raise ValueError("inflation is empty; expected a list of numbers in [0, 1].")
        for value in self.inflation:
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not 0 <= value <= 1
            ):
                raise ValueError(f"inflation is {value!r}; expected numbers in [0, 1].")
        for name in ("precision", "difficulty_sd"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"{name} is {value!r}; expected a number > 0.")
        _prob("confidence", self.confidence)
        _seed(self.seed)
        check_memory(  # per cell, prior and board four numbers per model; a board's grades
            8.0 * len(self.inflation) * self.replicates * self.n_models * (4 * len(PRIOR_KINDS) + 1)
            + 8.0 * 6 * self.n_models * self.n_questions * self.trials,
            f"--replicates {self.replicates} with --n-models {self.n_models} and --n-questions "
            f"{self.n_questions}",
            "fewer replicates, models or questions",
        )


@dataclass(frozen=True)
class ConvergenceConfig:
    """``convergence``: convergence@n of the rankings of a results file.

    Parameters
    ----------
    file : str
        Binary results: a long table (model, question, trial, score), any log format
        bayes_eval.logs reads, or dataset:NAME with recorded trial order (required).
    format : str or None, optional
        Log format (default: detected from the file).
    replicates : int, optional
        Permutations (or resamples) of each model's trials; default 10000.
    methods : tuple of str, optional
        Metrics, e.g. bayes,pass_at_k:4,g_pass_at_k_tau:4:0.5; default ``('bayes',
        'pass_at_k:2', 'pass_at_k:4', 'pass_at_k:8', 'pass_hat_k:4', 'g_pass_at_k_tau:4:0.5',
        'mg_pass_at_k:4')``.
    replace : bool, optional
        Resample trials with replacement instead of permuting them; default False.
    subset_size : int or None, optional
        Also study random subsets of this many models; default None.
    subset_count : int, optional
        Number of random model subsets (with subset-size); default 20.
    confidence : float, optional
        Level of the bootstrap band of the tau curves; default 0.95.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import ConvergenceConfig
    >>> cfg = ConvergenceConfig("dataset:matharena_aime25_i", replicates=200)
    >>> cfg.file, cfg.replicates, cfg.replace
    ('dataset:matharena_aime25_i', 200, False)
    """

    file: str = _req(
        "binary results: a long table (model, question, trial, score), any log format "
        "bayes_eval.logs reads, or dataset:NAME with recorded trial order"
    )
    format: str | None = _opt(None, "log format (default: detected from the file)")
    replicates: int = _opt(10_000, "permutations (or resamples) of each model's trials")
    methods: tuple[str, ...] = _opt(
        DEFAULT_METHODS, "metrics, e.g. bayes,pass_at_k:4,g_pass_at_k_tau:4:0.5"
    )
    replace: bool = _opt(False, "resample trials with replacement instead of permuting them")
    subset_size: int | None = _opt(None, "also study random subsets of this many models")
    subset_count: int = _opt(20, "number of random model subsets (with subset-size)")
    confidence: float = _opt(0.95, "level of the bootstrap band of the tau curves")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        if not isinstance(self.file, str) or not self.file:
            raise ValueError(f"file is {self.file!r}; expected a results file (long table).")
        _int("replicates", self.replicates)
        _methods(self.methods)
        _int("subset_size", self.subset_size, 2, optional=True)
        _int("subset_count", self.subset_count)
        _prob("confidence", self.confidence)
        _seed(self.seed)


@dataclass(frozen=True)
class CoverageStudyConfig:
    """``coverage``: coverage of interval methods over a grid of cells, run on Dask.

    Options left at ``None`` take the value of the TOML file ``config`` if it sets it,
    else the default of :class:`bayes_eval.validation.coverage.CoverageConfig`; an option
    given explicitly overrides the TOML.

    Parameters
    ----------
    config : str or None, optional
        TOML grid (keys: M, N, C, scenarios, replicates, ...); an option given here replaces the
        file's key, with a warning; default None.
    M : tuple of int or None, optional
        Questions per benchmark (default 5,15,30,100,500).
    N : tuple of int or None, optional
        Trials per question (default 1,4,16,80).
    C : tuple of int or None, optional
        Rubric categories minus one (default 1,2,4).
    scenarios : tuple of str or None, optional
        True-rate scenarios, some of uniform,dirichlet,beta_mixture,anchored,u_shaped,clustered
        (default all).
    replicates : int or None, optional
        Simulated benchmarks per cell (default 2000).
    exact_replicates : int or None, optional
        Replicates with the exact interval (default replicates).
    exact_categorical : bool or None, optional
        Exact interval for rubrics too (slow; default no).
    bootstrap_resamples : int or None, optional
        Bootstrap resamples, 0 = off (default 200).
    empirical_exact_replicates : int or None, optional
        Replicates with the exact learned-prior interval (default 0: off).
    confidence : float or None, optional
        Nominal level of the intervals (default 0.95).
    alpha0 : float or None, optional
        Dirichlet alpha0 of the dirichlet scenario (default 0.5).
    anchors : tuple of str or None, optional
        Real evaluations of the anchored scenario: dataset names or result files; default None.
    nuts_cells : tuple of str or None, optional
        Cells also fitted with the hierarchical NUTS model, SCENARIO:C:M:N each; default None.
    nuts_replicates : int or None, optional
        Replicates per NUTS cell (default 20).
    nuts_draws : int or None, optional
        NUTS draws (and tuning steps) per fit (default 300).
    seed : int or None, optional
        Random seed (default 0).
    scheduler : str or None, optional
        Address of a running Dask scheduler, tcp://HOST:PORT; default None.
    workers : int or None, optional
        Workers of the local Dask cluster (default: the cores; 0: no Dask, in-process).
    max_cells : int or None, optional
        Stop after this many new cells (resume later); default None.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import CoverageStudyConfig
    >>> cfg = CoverageStudyConfig(M=(30, 100), replicates=100)
    >>> cfg.M, cfg.N
    ((30, 100), None)
    >>> cfg.overrides()
    {'M': [30, 100], 'replicates': 100, 'exact_replicates': 100}
    """

    config: str | None = _opt(
        None,
        "TOML grid (keys: M, N, C, scenarios, replicates, ...); an option given here replaces the "
        "file's key, with a warning",
    )
    M: tuple[int, ...] | None = _opt(None, "questions per benchmark (default 5,15,30,100,500)")
    N: tuple[int, ...] | None = _opt(None, "trials per question (default 1,4,16,80)")
    C: tuple[int, ...] | None = _opt(None, "rubric categories minus one (default 1,2,4)")
    scenarios: tuple[str, ...] | None = _opt(
        None, f"true-rate scenarios, some of {','.join(COVERAGE_SCENARIOS)} (default all)"
    )
    replicates: int | None = _opt(None, "simulated benchmarks per cell (default 2000)")
    exact_replicates: int | None = _opt(
        None, "replicates with the exact interval (default replicates)"
    )
    exact_categorical: bool | None = _opt(None, "exact interval for rubrics too (slow; default no)")
    bootstrap_resamples: int | None = _opt(None, "bootstrap resamples, 0 = off (default 200)")
    empirical_exact_replicates: int | None = _opt(
        None,
        "replicates with the exact learned-prior interval (default 0: off; 10-50 ms a model)",
    )
    confidence: float | None = _opt(None, "nominal level of the intervals (default 0.95)")
    alpha0: float | None = _opt(None, "Dirichlet alpha0 of the dirichlet scenario (default 0.5)")
    anchors: tuple[str, ...] | None = _opt(
        None, "real evaluations of the anchored scenario: dataset names or result files"
    )
    nuts_cells: tuple[str, ...] | None = _opt(
        None, "cells also fitted with the hierarchical NUTS model, SCENARIO:C:M:N each"
    )
    nuts_replicates: int | None = _opt(None, "replicates per NUTS cell (default 20)")
    nuts_draws: int | None = _opt(None, "NUTS draws (and tuning steps) per fit (default 300)")
    seed: int | None = _opt(None, "random seed (default 0)")
    scheduler: str | None = _opt(None, "address of a running Dask scheduler, tcp://HOST:PORT")
    workers: int | None = _opt(
        None, "workers of the local Dask cluster (default: the cores; 0: no Dask, in-process)"
    )
    max_cells: int | None = _opt(None, "stop after this many new cells (resume later)")

    def __post_init__(self):
        # the checks (and messages) of the TOML keys, CoverageConfig.validate
        if self.config is not None and not isinstance(self.config, str):
            raise ValueError(f"config must be a path to a TOML file, got {self.config!r}")
        for name in ("M", "N", "C"):
            check.integers(name, getattr(self, name), optional=True)
        check.strings("scenarios", self.scenarios, COVERAGE_SCENARIOS, optional=True)
        check.integer("replicates", self.replicates, 2, optional=True)
        for name in (
            "exact_replicates",
            "bootstrap_resamples",
            "empirical_exact_replicates",
            "seed",
        ):
            check.integer(name, getattr(self, name), 0, optional=True)
        check.boolean("exact_categorical", self.exact_categorical, optional=True)
        check.integer("nuts_replicates", self.nuts_replicates, optional=True)
        check.integer("nuts_draws", self.nuts_draws, optional=True)
        check.probability("confidence", self.confidence, optional=True)
        check.positive_number("alpha0", self.alpha0, optional=True)
        check.strings("anchors", self.anchors, optional=True)
        if self.nuts_cells is not None and not isinstance(self.nuts_cells, (list, tuple)):
            raise ValueError(
                f"nuts_cells must be a list of SCENARIO:C:M:N cells, got {self.nuts_cells!r}"
            )
        for cell in self.nuts_cells or ():
            parts = str(cell).split(":")
            ok = len(parts) == 4 and parts[0] in COVERAGE_SCENARIOS
            ok = ok and all(p.isdigit() and int(p) >= 1 for p in parts[1:])
            if not ok:
                raise ValueError(
                    f"nuts_cells has {cell!r}; expected SCENARIO:C:M:N, e.g. anchored:1:30:4."
                )
        check.integer("workers", self.workers, 0, optional=True)
        check.integer("max_cells", self.max_cells, optional=True)

    def overrides(self) -> dict:
        """The grid keys set by options (the TOML keys of the same names).

        ``replicates`` also sets ``exact_replicates`` unless that is given.
        """
        grid = {f.name for f in dataclasses.fields(self)} - {
            "config",
            "scheduler",
            "workers",
            "max_cells",
        }
        out = {k: getattr(self, k) for k in sorted(grid) if getattr(self, k) is not None}
        if self.replicates is not None:
            out.setdefault("exact_replicates", self.replicates)
        if "nuts_cells" in out:
            out["nuts_cells"] = [
                [p[0], *map(int, p[1:])] for p in (c.split(":") for c in out["nuts_cells"])
            ]
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


@dataclass(frozen=True)
class ElicitConfig:
    """``elicit``: a prior from a statement about accuracy, its implied prior on pi-bar.

    Parameters
    ----------
    file : str or None, optional
        Results (any log format) for the sensitivity of mu, sigma and ranks to the prior;
        default None.
    format : str or None, optional
        Log format of FILE (default: detected).
    lo : float or None, optional
        Lower end of the stated accuracy interval; default None.
    hi : float or None, optional
        Upper end of the stated accuracy interval; default None.
    prob : float, optional
        Probability of the stated interval(s); default 0.9.
    method : str, optional
        Beta fit of the stated interval: equal-tailed (prob/2 below lo and above hi) or maxent
        (PreliZ: the maximum-entropy Beta with mass prob in [lo, hi]); default
        ``'equal-tailed'``.
    level : str or None, optional
        The statement is about the model's accuracy on the benchmark (default) or about every
        single question.
    categories : tuple of str or None, optional
        Per-category lo:hi pairs for a rubric, e.g. 0.1:0.4,0.1:0.3,0.4:0.7 (level question);
        default None.
    weights : tuple of float or None, optional
        Rubric weights w_0..w_C (default 0..1).
    score_levels : int or None, optional
        Graded scores in [0, 1] of FILE: round to K evenly spaced levels, whose values are the
        weights; default None.
    n_questions : int or None, optional
        M for the implied prior (default: FILE's, else 30).
    concentration : float or None, optional
        Benchmark level: spread s of accuracies across questions (default 1.0).
    simulations : int, optional
        Monte Carlo simulations of the prior predictive; default 20000.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import ElicitConfig
    >>> cfg = ElicitConfig(lo=0.3, hi=0.6, prob=0.9)
    >>> cfg.method, cfg.simulations
    ('equal-tailed', 20000)
    >>> rubric = ElicitConfig(categories=("0.1:0.4", "0.1:0.3", "0.4:0.7"), level="question")
    >>> rubric.category_intervals()
    [[0.1, 0.4], [0.1, 0.3], [0.4, 0.7]]
    """

    file: str | None = _opt(
        None,
        "results (any log format) for the sensitivity of mu, sigma and ranks to the prior",
        positional=True,
    )
    format: str | None = _opt(None, "log format of FILE (default: detected)")
    lo: float | None = _opt(None, "lower end of the stated accuracy interval")
    hi: float | None = _opt(None, "upper end of the stated accuracy interval")
    prob: float = _opt(0.9, "probability of the stated interval(s)")
    method: str = _opt(
        "equal-tailed",
        "Beta fit of the stated interval: equal-tailed (prob/2 below lo and above hi) or maxent "
        "(PreliZ: the maximum-entropy Beta with mass prob in [lo, hi])",
        choices=("equal-tailed", "maxent"),
    )
    level: str | None = _opt(
        None,
        "the statement is about the model's accuracy on the benchmark (default) or about "
        "every single question",
        choices=("benchmark", "question"),
    )
    categories: tuple[str, ...] | None = _opt(
        None, "per-category lo:hi pairs for a rubric, e.g. 0.1:0.4,0.1:0.3,0.4:0.7 (level question)"
    )
    weights: tuple[float, ...] | None = _opt(None, "rubric weights w_0..w_C (default 0..1)")
    score_levels: int | None = _opt(
        None,
        "graded scores in [0, 1] of FILE: round to K evenly spaced levels, whose values are the "
        "weights",
    )
    n_questions: int | None = _opt(None, "M for the implied prior (default: FILE's, else 30)")
    concentration: float | None = _opt(
        None, "benchmark level: spread s of accuracies across questions (default 1.0)"
    )
    simulations: int = _opt(20_000, "Monte Carlo simulations of the prior predictive")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        _choice("level", self.level, ("benchmark", "question"))
        _choice("method", self.method, ("equal-tailed", "maxent"))
        if self.method != "equal-tailed" and self.categories is not None:
            raise ValueError(
                "method chooses the Beta fit of lo and hi; categories are fitted by least "
                "squares on every category's interval: drop --method."
            )
        _prob("prob", self.prob)
        _int("n_questions", self.n_questions, optional=True)
        _int("score_levels", self.score_levels, 2, optional=True)
        _int("simulations", self.simulations, 100)
        check_memory(  # the prior predictive's draws (a few float64 arrays of them)
            8.0 * 6 * self.simulations,
            f"--simulations {self.simulations}",
            "fewer simulations (20,000 give the percentiles to about 0.005)",
        )
        if self.score_levels is not None and self.file is None:
            raise ValueError(
                "score_levels treats the graded scores of FILE, but no FILE is given: give the "
                "results file or drop --score-levels."
            )
        _seed(self.seed)
        if self.concentration is not None and not 0 < self.concentration < float("inf"):
            raise ValueError(
                f"concentration is {self.concentration}; expected a finite number > 0."
            )
        if self.format is not None and self.file is None:
            raise ValueError(
                "format names the log format of FILE, but no FILE is given: give the results "
                "file or drop --format."
            )
        if self.concentration is not None and (
            self.categories is not None or self.level == "question"
        ):
            raise ValueError(
                "concentration is the spread of accuracies across questions under a "
                "benchmark-level statement; with a question-level statement (--level question "
                "or --categories) every question has the stated prior: drop --concentration."
            )
        if self.categories is not None and (self.lo is not None or self.hi is not None):
            raise ValueError(
                "categories states a rubric's per-category intervals, lo and hi a binary "
                "accuracy interval: give one of them (--categories, or --lo and --hi)."
            )
        if self.categories is not None:
            if (self.level or "benchmark") == "benchmark":
                raise ValueError(
                    "categories states the category shares of every single question; "
                    "benchmark-level rubric statements are not supported: pass level "
                    "'question' (--level question)."
                )
            self.category_intervals()
        elif self.lo is None or self.hi is None:
            raise ValueError(
                "lo and hi are required (the stated accuracy interval, --lo/--hi), or "
                "categories for a rubric."
            )

    def category_intervals(self) -> list[list[float]]:
        """``categories`` as ``[[lo, hi], ...]``."""
        try:
            rows = [[float(x) for x in str(part).split(":")] for part in self.categories]
        except ValueError:
            rows = []
        if not rows or any(len(r) != 2 for r in rows):
            raise ValueError(
                f"categories is {self.categories!r}; expected lo:hi pairs, e.g. "
                "0.1:0.4,0.1:0.3,0.4:0.7."
            )
        return rows


@dataclass(frozen=True)
class JudgesConfig:
    """``judges``: Table 1 of Vossler et al. on MT-Bench and SummEval (NUTS fits).

    Parameters
    ----------
    mtbench : str, optional
        MT-Bench count table (Table D.2 layout); default ``'dataset:mtbench_judges'``.
    summeval : str, optional
        SummEval table; default ``'dataset:summeval_judges'``.
    integrated : bool, optional
        Also fit the integrated model (hyperpriors on beta_max, omega); default True.
    draws : int or None, optional
        NUTS draws per chain (default the model's own: 1000; 16000 for the integrated fits).
    tune : int or None, optional
        NUTS tuning steps per chain (default the model's own: 1000; 4000 for integrated).
    chains : int, optional
        NUTS chains; default 4.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import JudgesConfig
    >>> cfg = JudgesConfig(integrated=False, draws=500)
    >>> cfg.draws, cfg.tune, cfg.chains
    (500, None, 4)
    """

    mtbench: str = _opt("dataset:mtbench_judges", "MT-Bench count table (Table D.2 layout)")
    summeval: str = _opt("dataset:summeval_judges", "SummEval table")
    integrated: bool = _opt(True, "also fit the integrated model (hyperpriors on beta_max, omega)")
    draws: int | None = _opt(
        None, "NUTS draws per chain (default the model's own: 1000; 16000 for the integrated fits)"
    )
    tune: int | None = _opt(
        None, "NUTS tuning steps per chain (default the model's own: 1000; 4000 for integrated)"
    )
    chains: int = _opt(4, "NUTS chains")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        for name in ("draws", "tune", "chains"):
            if getattr(self, name) is not None:
                _int(name, getattr(self, name))
        _seed(self.seed)


@dataclass(frozen=True)
class JudgesSyntheticConfig:
    """``judges-synthetic``: the self-preference protocol of Vossler et al., App. E.3.

    Parameters
    ----------
    replicates : int, optional
        Synthetic data sets; default 10.
    n_questions : int, optional
        Questions n per data set; default 400.
    candidates : int, optional
        Candidates K; default 8.
    judges : int, optional
        Judges J (judge j favours candidate j); default 3.
    levels : int, optional
        Score levels M; default 3.
    self_preference : float, optional
        Probability a judge raises its own family's score; default 0.8.
    beta_max : float, optional
        Strength of the judges' confusion-matrix diagonal; default 10.0.
    draws : int, optional
        NUTS draws per chain; default 1000.
    tune : int, optional
        NUTS tuning steps per chain; default 1000.
    chains : int, optional
        NUTS chains; default 4.
    seed : int, optional
        Random seed; default 0.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import JudgesSyntheticConfig
    >>> cfg = JudgesSyntheticConfig(replicates=2, n_questions=100)
    >>> cfg.candidates, cfg.judges, cfg.self_preference
    (8, 3, 0.8)
    """

    replicates: int = _opt(10, "synthetic data sets")
    n_questions: int = _opt(400, "questions n per data set")
    candidates: int = _opt(8, "candidates K")
    judges: int = _opt(3, "judges J (judge j favours candidate j)")
    levels: int = _opt(3, "score levels M")
    self_preference: float = _opt(0.8, "probability a judge raises its own family's score")
    beta_max: float = _opt(10.0, "strength of the judges' confusion-matrix diagonal")
    draws: int = _opt(1000, "NUTS draws per chain")
    tune: int = _opt(1000, "NUTS tuning steps per chain")
    chains: int = _opt(4, "NUTS chains")
    seed: int = _opt(0, "random seed")

    def __post_init__(self):
        for name in ("replicates", "n_questions", "draws", "tune", "chains"):
            _int(name, getattr(self, name))
        _int("candidates", self.candidates, 2)
        _int("judges", self.judges)
        _int("levels", self.levels, 2)
        if self.judges > self.candidates:
            raise ValueError(
                f"judges is {self.judges}; expected at most candidates = {self.candidates} "
                "(judge j belongs to the family of candidate j)."
            )
        if not 0 <= self.self_preference <= 1:
            raise ValueError(
                f"self_preference is {self.self_preference!r}; expected a probability in [0, 1]."
            )
        if not 0 < self.beta_max < float("inf"):
            raise ValueError(f"beta_max is {self.beta_max!r}; expected a finite number > 0.")
        _seed(self.seed)
        check_memory(  # a data set's scores and cumulative confusion rows, and the NUTS trace
            8.0 * 3 * self.n_questions * self.candidates * (self.judges + self.levels)
            + 8.0 * (self.draws + self.tune) * self.chains * self.candidates * self.levels,
            f"--n-questions {self.n_questions} with --candidates {self.candidates}, --judges "
            f"{self.judges} and --levels {self.levels}, --draws {self.draws} and --tune "
            f"{self.tune} x --chains {self.chains}",
            "fewer questions or draws",
        )


@dataclass(frozen=True)
class SbcConfig:
    """``sbc``: simulation-based calibration of one estimator, in resumable blocks on Dask.

    Parameters
    ----------
    estimator : str, optional
        What to calibrate: matching-exact (closed-form posterior, no MCMC) or a PyMC model
        fitted with NUTS; default ``'matching-exact'``.
    simulations : int or None, optional
        SBC simulations (default 10000 for matching-exact, 200 with NUTS).
    n_questions : int, optional
        Questions M per simulated benchmark; default 30.
    trials : int or None, optional
        Trials N per question (default 8; not for judges).
    n_models : int, optional
        LLMs evaluated on the same questions (ranks need 2 or more); default 2.
    draws : int or None, optional
        Posterior draws: ranked draws for matching-exact (default 100), NUTS draws per chain
        otherwise (default 200).
    tune : int or None, optional
        NUTS tuning steps per chain (default 200).
    chains : int or None, optional
        NUTS chains (default 2).
    thin : int or None, optional
        Keep every THIN-th NUTS draw for the ranks (near-independent draws; default 4).
    posterior_alpha0 : float or None, optional
        Matching-exact only: the prior of the posterior (default the true alpha0 = 1; another
        value is the deliberately mis-specified check, which must fail).
    block : int or None, optional
        Simulations per cell (default 2000 for matching-exact, 10 with NUTS).
    seed : int, optional
        Random seed; default 0.
    scheduler : str or None, optional
        Address of a running Dask scheduler, tcp://HOST:PORT; default None.
    workers : int or None, optional
        Workers of the local Dask cluster (default: the cores, or 0 for matching-exact; 0: no
        Dask, in-process).
    max_cells : int or None, optional
        Stop after this many new cells (resume later); default None.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import SbcConfig
    >>> cfg = SbcConfig(simulations=40, block=20)
    >>> cfg.n_draws, cfg.cells()
    (100, [0, 20])
    >>> SbcConfig(estimator="matching").n_draws
    200
    """

    estimator: str = _opt(
        "matching-exact",
        "what to calibrate: matching-exact (closed-form posterior, no MCMC) or a PyMC model "
        "fitted with NUTS",
        choices=SBC_ESTIMATORS,
    )
    simulations: int | None = _opt(
        None, "SBC simulations (default 10000 for matching-exact, 200 with NUTS)"
    )
    n_questions: int = _opt(30, "questions M per simulated benchmark")
    trials: int | None = _opt(None, "trials N per question (default 8; not for judges)")
    n_models: int = _opt(2, "LLMs evaluated on the same questions (ranks need 2 or more)")
    draws: int | None = _opt(
        None,
        "posterior draws: ranked draws for matching-exact (default 100), NUTS draws per "
        "chain otherwise (default 200)",
    )
    tune: int | None = _opt(None, "NUTS tuning steps per chain (default 200)")
    chains: int | None = _opt(None, "NUTS chains (default 2)")
    thin: int | None = _opt(
        None, "keep every THIN-th NUTS draw for the ranks (near-independent draws; default 4)"
    )
    posterior_alpha0: float | None = _opt(
        None,
        "matching-exact only: the prior of the posterior (default the true alpha0 = 1; "
        "another value is the deliberately mis-specified check, which must fail)",
    )
    block: int | None = _opt(
        None, "simulations per cell (default 2000 for matching-exact, 10 with NUTS)"
    )
    seed: int = _opt(0, "random seed")
    scheduler: str | None = _opt(None, "address of a running Dask scheduler, tcp://HOST:PORT")
    workers: int | None = _opt(
        None,
        "workers of the local Dask cluster (default: the cores, or 0 for matching-exact; "
        "0: no Dask, in-process)",
    )
    max_cells: int | None = _opt(None, "stop after this many new cells (resume later)")

    def __post_init__(self):
        if self.estimator not in SBC_ESTIMATORS:
            raise ValueError(
                f"estimator is {self.estimator!r}; expected one of {list(SBC_ESTIMATORS)}."
            )
        check.integer("simulations", self.simulations, 2, optional=True)
        for name in ("n_questions", "n_models"):
            check.integer(name, getattr(self, name))
        for name in ("trials", "tune", "chains", "thin"):
            check.integer(name, getattr(self, name), optional=True)
        given = [n for n in ("tune", "chains", "thin") if getattr(self, n) is not None]
        if given and self.estimator == "matching-exact":
            raise ValueError(
                f"{', '.join(given)} set NUTS, but matching-exact draws its posterior in closed "
                "form (no MCMC): drop them, or choose a NUTS estimator."
            )
        if self.estimator == "judges" and self.trials is not None:
            raise ValueError(
                "trials is not used by the judges estimator (one judgement per judge, question "
                "and candidate); expected it unset."
            )
        check.integer("draws", self.draws, optional=True)
        check.integer("block", self.block, optional=True)
        check.positive_number("posterior_alpha0", self.posterior_alpha0, optional=True)
        if self.posterior_alpha0 is not None and self.estimator != "matching-exact":
            raise ValueError(
                "posterior_alpha0 is a check of matching-exact only; expected it unset for "
                f"estimator {self.estimator!r}."
            )
        check.integer("seed", self.seed, 0)
        check.integer("workers", self.workers, 0, optional=True)
        check.integer("max_cells", self.max_cells, optional=True)
        exact = self.estimator == "matching-exact"
        check.sbc_memory(
            self.n_questions,
            self.n_models,
            self.n_trials,
            self.n_draws,
            1 if exact else self.n_chains,
        )
        if not exact and self.n_chains * self.n_draws < 2 * self.n_thin:
            raise ValueError(
                f"chains x draws / thin keeps fewer than 2 draws; expected more draws or a "
                f"smaller thin than {self.n_thin}."
            )

    @property
    def exact(self) -> bool:
        """Whether the estimator is ``matching-exact`` (closed-form posterior, no MCMC)."""
        return self.estimator == "matching-exact"

    @property
    def n_simulations(self) -> int:
        """SBC simulations: ``simulations``, or 10000 (exact) or 200 (NUTS)."""
        return (10_000 if self.exact else 200) if self.simulations is None else self.simulations

    @property
    def n_draws(self) -> int:
        """Posterior draws: ranked draws (exact) or NUTS draws per chain."""
        return (100 if self.exact else 200) if self.draws is None else self.draws

    @property
    def n_trials(self) -> int:
        """Trials N per question: ``trials``, or 8."""
        return 8 if self.trials is None else self.trials

    @property
    def n_tune(self) -> int:
        """NUTS tuning steps per chain: ``tune``, or 200 when it is None."""
        return 200 if self.tune is None else self.tune

    @property
    def n_chains(self) -> int:
        """NUTS chains: ``chains``, or 2."""
        return 2 if self.chains is None else self.chains

    @property
    def n_thin(self) -> int:
        """Thinning of the NUTS draws for the ranks: ``thin``, or 4."""
        return 4 if self.thin is None else self.thin

    @property
    def block_size(self) -> int:
        """Simulations per cell: ``block``, or 2000 (exact) or 10 (NUTS)."""
        return (2000 if self.exact else 10) if self.block is None else self.block

    def cells(self) -> list[int]:
        """First simulation of every block."""
        return list(range(0, self.n_simulations, self.block_size))

    def study_fields(self) -> dict:
        """The fields that define the results (not how they are run), defaults resolved."""
        out = {k: v for k, v in dataclasses.asdict(self).items() if k not in SBC_EXECUTION}
        out |= {"simulations": self.n_simulations, "draws": self.n_draws, "trials": self.n_trials}
        if not self.exact:
            out |= {"tune": self.n_tune, "chains": self.n_chains, "thin": self.n_thin}
        out["block"] = self.block_size
        return out

    def digest(self) -> str:
        """First 16 hex digits of the SHA-256 of ``study_fields()``, checked on resuming a study."""
        return hashlib.sha256(json.dumps(self.study_fields(), sort_keys=True).encode()).hexdigest()[
            :16
        ]


#: Options of the ``crossed`` study that say how to run, not what.
CROSSED_EXECUTION = ("max_cells",)


@dataclass(frozen=True)
class CrossedStudyConfig:
    """``crossed``: coverage of the crossed model with and without its interaction option.

    Parameters
    ----------
    replicates : int, optional
        Simulated boards per (N, interaction sd), each fitted twice; default 50.
    n_models : int, optional
        LLMs per board; default 6.
    n_questions : int, optional
        Questions M per board; default 30.
    N : tuple of int, optional
        Trials per (LLM, question) cell (grid); default ``(4, 1)``.
    interaction_sds : tuple of float, optional
        True sd tau of the LLM x question logit interaction (grid); default ``(0.0, 1.0)``.
    ability_sd : float, optional
        sd of the LLMs' logit abilities; default 0.5.
    difficulty_sd : float, optional
        sd of the questions' logit difficulties; default 2.0.
    confidence : float, optional
        Credible level of the intervals checked; default 0.9.
    draws : int, optional
        NUTS draws per chain; default 500.
    tune : int, optional
        NUTS tuning steps per chain; default 500.
    chains : int, optional
        NUTS chains; default 4.
    block : int, optional
        Boards per saved cell (the unit of resumption); default 10.
    seed : int, optional
        Random seed; default 0.
    max_cells : int or None, optional
        Stop after this many new cells (resume later); default None.

    Examples
    --------
    >>> from bayes_eval.validation.study_configs import CrossedStudyConfig
    >>> cfg = CrossedStudyConfig(replicates=20, N=(4,))
    >>> cfg.N, cfg.interaction_sds, cfg.chains
    ((4,), (0.0, 1.0), 4)
    """

    replicates: int = _opt(50, "simulated boards per (N, interaction sd), each fitted twice")
    n_models: int = _opt(6, "LLMs per board")
    n_questions: int = _opt(30, "questions M per board")
    N: tuple[int, ...] = _opt((4, 1), "trials per (LLM, question) cell (grid)")
    interaction_sds: tuple[float, ...] = _opt(
        (0.0, 1.0), "true sd tau of the LLM x question logit interaction (grid)"
    )
    ability_sd: float = _opt(0.5, "sd of the LLMs' logit abilities")
    difficulty_sd: float = _opt(2.0, "sd of the questions' logit difficulties")
    confidence: float = _opt(0.9, "credible level of the intervals checked")
    draws: int = _opt(500, "NUTS draws per chain")
    tune: int = _opt(500, "NUTS tuning steps per chain")
    chains: int = _opt(4, "NUTS chains")
    block: int = _opt(10, "boards per saved cell (the unit of resumption)")
    seed: int = _opt(0, "random seed")
    max_cells: int | None = _opt(None, "stop after this many new cells (resume later)")

    def __post_init__(self):
        for name in ("replicates", "n_questions", "draws", "tune", "block"):
            _int(name, getattr(self, name))
        _int("n_models", self.n_models, 2)
        _int("chains", self.chains, 2)
        _ints("N", self.N, optional=False)
        if not self.interaction_sds or any(
            isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t < float("inf")
            for t in self.interaction_sds
        ):
            raise ValueError(
                f"interaction_sds is {self.interaction_sds!r}; expected finite numbers >= 0."
            )
        for name in ("ability_sd", "difficulty_sd"):
            _sd(name, getattr(self, name))
        _prob("confidence", self.confidence)
        _seed(self.seed)
        _int("max_cells", self.max_cells, optional=True)
        values = self.n_models * (self.n_questions + 1) + self.n_questions + 4  # per draw
        check_memory(  # the NUTS trace of one fit: theta, b, the interaction and the scales
            8.0 * (self.draws + self.tune) * self.chains * values,
            f"--draws {self.draws} and --tune {self.tune} x --chains {self.chains} of the crossed "
            f"model (--n-models {self.n_models} x --n-questions {self.n_questions})",
            "fewer draws, chains, models or questions",
        )

    def study_fields(self) -> dict:
        """The fields that define the results (not how they are run)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in CROSSED_EXECUTION}

    def digest(self) -> str:
        """First 16 hex digits of the SHA-256 of ``study_fields()``, checked on resuming a study."""
        text = json.dumps(self.study_fields(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]
