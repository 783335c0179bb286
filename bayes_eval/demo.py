"""The demo behind ``bayes-eval demo`` and ``make demo``: a real leaderboard and mimics.

The mimics are the biased-coin mimics of Hariri et al., "Don't Pass@k: A Bayesian Framework
for Large Language Model Evaluation" (§2.7, Table 1).

:func:`run_demo` ranks the shipped MathArena AIME 2025 I leaderboard (Bayes@4, 16 models,
the learned prior) and the paper's eleven simulated LLMs (its uniform prior), compares the
latter with their true ranks and plans the trials that separate LLM10 from LLM9 (App. D).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from bayes_eval.ranking.sample_size import SeparationPlan

__all__ = ["DATASET", "Demo", "run_demo"]

#: The shipped leaderboard the demo ranks first.
DATASET = "matharena_aime25_i"


class Demo(NamedTuple):
    """Result of :func:`run_demo` (JSON-ready through :func:`bayes_eval.serialize.dumps`).

    ``prior`` and ``estimand``: of the leaderboard (the CLI's default prior; these
    questions); ``mimics_prior``: the paper's uniform prior of its Table 1, which the mimics
    reproduce.
    ``leaderboard``: dataset, ``M`` questions, ``N`` runs, the prior, ``rank_groups`` (the
    number of distinct CI-aware ranks) and ``models`` (records of
    :func:`bayes_eval.ranking.leaderboard.rank_records` with ``cost_usd_per_run``).
    ``models``: one record per mimic, best true accuracy first, with ``pi_bar``,
    ``gold_rank`` (dense), ``mu``, ``sigma``, ``lo``, ``hi``, ``rank`` (dense, without
    intervals) and ``rank_ci``. ``plan_llm10_vs_llm9``: the separation plan at z 1.645 with
    80% assurance under the paper's uniform prior, as App. D
    (:class:`bayes_eval.ranking.sample_size.SeparationPlan`).

    Attributes
    ----------
    prior : str
        The leaderboard's prior (the CLI's default, the learned one).
    estimand : str
        The leaderboard's estimand (``"these questions"``).
    leaderboard : dict
        ``dataset``, ``M``, ``N``, ``prior``, ``rank_groups`` and ``models`` of the
        MathArena leaderboard, as above.
    mimics_prior : str
        The prior of the mimics' table (``"uniform"``).
    models : list of dict
        One record per simulated LLM, best true accuracy first, as above.
    kendall_tau_b : float
        Kendall's tau-b between the mimics' posterior means and their true accuracies.
    plan_llm10_vs_llm9 : SeparationPlan
        The trials that separate LLM10 from LLM9.
    M, N : int
        The mimics' questions and trials (``n_questions`` and ``trials`` of
        :func:`bayes_eval.demo.run_demo`).
    seed : int
        The seed of the simulation.
    plots : list of Path
        The forest plots written (empty without ``plot``).
    seconds : float
        The wall time of the run.

    Examples
    --------
    >>> from bayes_eval.demo import Demo
    >>> Demo._fields
    ('prior', 'estimand', 'leaderboard', 'mimics_prior', 'models', 'kendall_tau_b',
     'plan_llm10_vs_llm9', 'M', 'N', 'seed', 'plots', 'seconds')
    """

    prior: str
    estimand: str
    leaderboard: dict
    mimics_prior: str
    models: list[dict]
    kendall_tau_b: float
    plan_llm10_vs_llm9: SeparationPlan
    M: int
    N: int
    seed: int
    plots: list[Path]
    seconds: float


def run_demo(
    n_questions: int = 30, trials: int = 80, seed: int = 0, plot: str | Path | None = None
) -> Demo:
    """Run the demo, and write its forest plots when ``plot`` is given.

    With ``plot``, the leaderboard's forest plot is written there and the mimics' next to it
    (``<stem>_biased_coin<suffix>``).

    Parameters
    ----------
    n_questions : int, optional
        Questions of the simulated LLMs, default 30.
    trials : int, optional
        Trials per question of the simulated LLMs, default 80.
    seed : int, optional
        Seed of the mimics' accuracies (``seed``) and their results (``seed + 1``), default 0.
    plot : str or Path, optional
        Where to write the leaderboard's forest plot (the mimics' goes next to it); default
        no plot.

    Returns
    -------
    Demo
        The leaderboard, the mimics' table against their true ranks, Kendall's tau-b and the
        LLM10-versus-LLM9 plan.

    Examples
    --------
    >>> from bayes_eval.demo import run_demo
    >>> demo = run_demo(n_questions=30, trials=80, seed=0)
    >>> [(m["model"], m["gold_rank"], m["rank_ci"]) for m in demo.models[:3]]
    [('LLM11', 1, 1), ('LLM10', 2, 2), ('LLM9', 3, 3)]
    >>> round(demo.kendall_tau_b, 4), demo.plan_llm10_vs_llm9.extra_trials
    (0.9542, 0)
    >>> demo.leaderboard["dataset"], demo.leaderboard["M"], demo.leaderboard["N"]
    ('matharena_aime25_i', 15, 4)
    >>> demo.leaderboard["models"][0]["model"], demo.plots
    ('o3-mini (high)', [])
    """
    from bayes_eval.datasets import load
    from bayes_eval.ranking.convergence import kendall_tau_b
    from bayes_eval.ranking.leaderboard import rank_records, rank_table
    from bayes_eval.ranking.ranks import rank
    from bayes_eval.ranking.sample_size import trials_to_separate
    from bayes_eval.synthetic.biased_coin import PAPER_PI_BAR, mimic_probabilities, simulate_results
    from bayes_eval.xr import results_array

    start = time.perf_counter()
    arena = load(DATASET)
    board = rank_table(arena["results"], confidence=0.95)
    records = rank_records(board)
    cost = dict(zip(arena["model"].values.astype(str), arena["cost_usd"].values, strict=True))
    for r in records:
        c = cost[r["model"]]
        r["cost_usd_per_run"] = None if np.isnan(c) else float(c)

    names = [f"LLM{i + 1}" for i in range(len(PAPER_PI_BAR))]
    p = mimic_probabilities(n_questions=n_questions, seed=seed)
    R = simulate_results(p, trials, seed=seed + 1)
    # the paper's Table 1 uses its uniform prior
    table = rank_table(results_array(R, models=names), confidence=0.95, prior="uniform")
    gold = rank(np.asarray(PAPER_PI_BAR), method="dense")
    tau = float(kendall_tau_b(table["mu"].values, np.asarray(PAPER_PI_BAR)))
    plan = trials_to_separate(R[9], R[8], z_target=1.645, prior="uniform")  # App. D's
    rank_no_ci = rank(table["mu"].values, method="dense")
    mimics = [
        {
            "model": names[i],
            "pi_bar": PAPER_PI_BAR[i],
            "gold_rank": int(gold[i]),
            "mu": float(table["mu"][i]),
            "sigma": float(table["sigma"][i]),
            "lo": float(table["lo"][i]),
            "hi": float(table["hi"][i]),
            "rank": int(rank_no_ci[i]),
            "rank_ci": int(table["rank_ci"][i]),
        }
        for i in np.argsort(-np.asarray(PAPER_PI_BAR), kind="stable")
    ]
    plots: list[Path] = []
    if plot:
        from bayes_eval.plotting.forest import forest_plot

        path = Path(plot)
        coin = path.with_name(f"{path.stem}_biased_coin{path.suffix or '.png'}")
        forest_plot(board, path, title="MathArena AIME 2025 I: Bayes@4 (16 models)")
        forest_plot(table, coin, title=f"Biased-coin mimics, Bayes@{trials}")
        plots = [path, coin]
    return Demo(
        prior=str(board.attrs["prior"]),
        estimand=str(board.attrs["estimand"]),
        leaderboard={
            "dataset": DATASET,
            "M": int(arena.sizes["question"]),
            "N": int(arena.sizes["trial"]),
            "prior": str(board.attrs["prior"]),
            "rank_groups": len({r["rank_ci"] for r in records}),
            "models": records,
        },
        mimics_prior=str(table.attrs["prior"]),
        models=mimics,
        kendall_tau_b=tau,
        plan_llm10_vs_llm9=plan,
        M=n_questions,
        N=trials,
        seed=seed,
        plots=plots,
        seconds=time.perf_counter() - start,
    )
