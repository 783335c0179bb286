"""``bayes-eval adaptive roots|simulate``: cost-aware adaptive evaluation with Gittins indices."""

from __future__ import annotations

import argparse
import textwrap

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table, uncertain
from bayes_eval.cli._types import SubParsers, nonnegative_int, numbers, pair, positive_int

PAPER = 'Xie, He and Cao, "Efficient Cost-Aware LLM Evaluation via Bayesian Bandit Gittins Indices"'
HELP = "cost-aware adaptive evaluation (Gittins indices, Xie et al.): roots | simulate"
DESCRIPTION = f"""\
Which model (arm) to evaluate next, on which examples, and when to stop ({PAPER}).
'roots' computes the Gittins root schedule; 'simulate' compares the policies on a response
matrix (a mimic of the paper's GSM8K, PIQA or MMLU data, or yours)."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval adaptive roots|simulate`` parsers to the subcommands ``sub``."""
    p = sub.add_parser(
        "adaptive", help=HELP, description=DESCRIPTION, formatter_class=opt.HelpFormatter
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION", title="actions")
    stages = argparse.ArgumentParser(add_help=False)
    stages.add_argument(
        "--examples", type=positive_int, help="N examples per arm (sets H and tau^2)"
    )
    stages.add_argument("--batch", type=positive_int, help="B examples per pull (4)")
    stages.add_argument(
        "--granularity",
        choices=["batch", "cell"],
        help="one DP stage per batch (the paper's text) or per cell (its experiments; default)",
    )

    r = actions.add_parser(
        "roots",
        help="the Gittins root schedule r_n (index G_n(s) = s - r_n)",
        description=textwrap.fill(
            f"Root schedule of the Gittins index by dynamic programming ({PAPER}, eqs. 3-4): "
            "give --examples (with --batch, --granularity) or --horizon and --tau2.",
            92,
            break_on_hyphens=False,
        ),
        formatter_class=opt.HelpFormatter,
        parents=[stages, opt.output_options()],
    )
    r.add_argument("--cost", type=float, default=1e-4, help="cost per example (1e-4)")
    r.add_argument("--v0", type=float, default=0.04, help="prior variance of an arm (0.04)")
    r.add_argument("--tau2", type=float, help="observation variance per stage")
    r.add_argument("--horizon", type=positive_int, help="stages H")
    r.add_argument("--grid", type=positive_int, default=2**14, help="DP grid points (16384)")
    r.set_defaults(func=_roots)
    _add_simulate(actions, stages)


def _add_simulate(actions: SubParsers, stages: argparse.ArgumentParser) -> None:
    """The ``adaptive simulate`` parser: the data, the policies' beliefs and the budget."""
    s = actions.add_parser(
        "simulate",
        help="simple regret of Gittins-G, Gittins-S and UCB-E on a response matrix",
        description=textwrap.fill(
            f"Simulate the policies of {PAPER} (§4) on a response matrix; writes adaptive.nc "
            "and adaptive_regret.png to --out.",
            92,
            break_on_hyphens=False,
        ),
        formatter_class=opt.HelpFormatter,
        parents=[
            stages,
            opt.output_options(out="output folder (adaptive_out)", out_default="adaptive_out"),
        ],
    )
    s.add_argument("--dataset", choices=["gsm8k", "piqa", "mmlu", "matrix"], default="mmlu")
    s.add_argument(
        "--seed", type=nonnegative_int, help="gsm8k/piqa/mmlu: seed of the synthetic matrix (0)"
    )
    s.add_argument(
        "--arms",
        metavar="FILE",
        help="gsm8k/piqa: arm metadata CSV (model, prompt, ..., price); "
        "default: the shipped dataset:bandit_gsm8k_arms / dataset:bandit_piqa_arms",
    )
    s.add_argument(
        "--meta",
        metavar="FILE",
        help="mmlu: subject metadata JSON (default: the shipped dataset:bandit_mmlu_meta)",
    )
    s.add_argument("--subject", help="mmlu: subject, e.g. anatomy")
    s.add_argument("--matrix", metavar="FILE", help="matrix: your response matrix (.npy, .csv)")
    s.add_argument("--costs", metavar="FILE", help="matrix: per-arm costs (.csv, one per arm)")
    s.add_argument(
        "--belief-mean",
        type=float,
        help="matrix: Gittins-S prior belief N(mean, var) of an arm's accuracy: mean (0.5)",
    )
    s.add_argument("--belief-var", type=float, help="matrix: its variance (0.04)")
    opt.deprecated(s, "--prior-mean", "--belief-mean", dest="belief_mean", type=float)
    opt.deprecated(s, "--prior-var", "--belief-var", dest="belief_var", type=float)
    opt.deprecated(
        s,
        "--prior",
        "--belief-mean/--belief-var",
        dest="belief_mean",
        type=numbers,
        convert=lambda v: dict(zip(("belief_mean", "belief_var"), pair(v, "--prior"), strict=True)),
    )
    s.add_argument("--budget", type=float, default=0.1, help="fraction of cells or of cost")
    s.add_argument("--budget-kind", choices=["cells", "cost"], default="cells")
    s.add_argument("--cost-scale", type=float, default=1e-4, help="lambda: price -> score units")
    s.add_argument("--replicates", type=positive_int, default=10, help="runs, seeded 0..N-1 (10)")
    opt.deprecated(s, "--seeds", "--replicates", dest="replicates", type=positive_int)
    opt.deprecated(s, "--data-seed", "--seed", dest="seed", type=nonnegative_int)
    s.add_argument("--lrf", action="store_true", help="also run UCB-E-LRF (slow)")
    s.set_defaults(func=_simulate)


def _stages(args: argparse.Namespace) -> tuple[int, str]:
    """``(batch, granularity)`` with their defaults."""
    return args.batch or 4, args.granularity or "cell"


def _roots(args: argparse.Namespace) -> int:
    from bayes_eval.adaptive.runs import root_table

    if args.examples is None:
        opt.refuse(opt.given(args, "batch", "granularity"), "without --examples")
    else:
        opt.refuse(opt.given(args, "horizon", "tau2"), "with --examples (which sets H, tau^2)")
    batch, granularity = _stages(args)
    rt = root_table(
        cost=args.cost,
        v0=args.v0,
        tau2=args.tau2,
        horizon=args.horizon,
        examples=args.examples,
        batch=batch,
        granularity=granularity,
        grid=args.grid,
    )
    if args.json:
        emit_json(rt)
        return 0
    say(
        f"root schedule: cost/stage {rt.cost_per_stage:g}, v0 {rt.v0:g}, tau^2 {rt.tau2:g}, "
        f"H {rt.horizon} ({rt.grid} grid points, {rt.seconds:.3f} s); index G_n(s) = s - r_n"
    )
    rows = zip(rt.posterior_variance, rt.step_variance, rt.roots, strict=True)
    table(
        ["n", uncertain("v_n"), uncertain("sigma_n^2"), "r_n"],
        ([n, f"{v:.6g}", f"{s:.6g}", f"{r:.6f}"] for n, (v, s, r) in enumerate(rows)),
    )
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from bayes_eval.adaptive.runs import load_bandit, simulate_policies
    from bayes_eval.adaptive.simulation import GENERAL_BELIEF
    from bayes_eval.inputs import exact

    batch, granularity = _stages(args)
    # checked before anything starts (the simulation's progress bar would come first)
    if not 0 < args.budget <= 1:
        raise ValueError(f"--budget is {exact(args.budget)}; expected a fraction in (0, 1].")
    if args.belief_mean is not None and not 0 <= args.belief_mean <= 1:
        raise ValueError(
            f"--belief-mean is {exact(args.belief_mean)}; expected an accuracy in [0, 1]."
        )
    if args.belief_var is not None and not args.belief_var > 0:
        raise ValueError(f"--belief-var is {exact(args.belief_var)}; expected a variance > 0.")
    data = load_bandit(
        args.dataset,
        arms=args.arms,
        meta=args.meta,
        subject=args.subject,
        examples=args.examples,
        matrix=args.matrix,
        costs=args.costs,
        belief_mean=args.belief_mean,
        belief_var=args.belief_var,
        seed=args.seed,
    )
    n_examples = int(data.matrix.shape[1])
    if batch > n_examples:
        raise ValueError(
            f"--batch is {batch}, more than the {n_examples} example(s) per arm of {data.name}; "
            f"expected a batch of 1..{n_examples}."
        )
    summary = simulate_policies(
        data,
        out=args.out,
        batch=batch,
        budget=args.budget,
        budget_kind=args.budget_kind,
        cost_scale=args.cost_scale,
        replicates=args.replicates,
        granularity=granularity,
        lrf=args.lrf,
        progress=not args.json,
    )
    mean, var = data.belief
    g_mean, g_var = GENERAL_BELIEF
    prior = (
        f"Gittins-G: N({g_mean:g}, {g_var:g}); Gittins-S: N({mean:g}, {var:g}) "
        "(belief of an arm's accuracy)"
    )
    estimand = "simple regret: best arm's accuracy on the matrix minus the recommended arm's"
    if args.json:
        emit_json({"prior": prior, "estimand": estimand, **summary})
        return 0
    unit = "cells" if args.budget_kind == "cells" else "total cost"
    say(
        f"{data.name}: {summary['arms']} arms x {summary['examples']} examples, "
        f"B = {batch}, {args.replicates} runs; simple regret (mean ± SE) at % of {unit}; "
        f"prior: {prior}; estimand: {estimand}"
    )
    table_ = summary["regret_mean_se"]
    points = [k for k in next(iter(table_.values()), {}) if k.endswith("%")]
    table(
        ["policy", *points, "Gittins stop"],
        (
            [
                p,
                *(f"{r[k][0]:.4f} ± {r[k][1]:.4f}" for k in points),
                "-"
                if r["stop_fraction_mean"] is None
                else f"{100 * r['stop_fraction_mean']:.2f}% ({r['stopped_runs']} runs)",
            ]
            for p, r in table_.items()
        ),
    )
    say(f"written: {summary['netcdf']}, {summary['plot']}")
    return 0
