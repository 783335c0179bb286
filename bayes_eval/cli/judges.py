"""``bayes-eval judges``: rank candidates from LLM-judge scores (Vossler et al.)."""

from __future__ import annotations

import argparse
import math
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, interval, progress, say, table, uncertain
from bayes_eval.cli._types import SubParsers, positive_int
from bayes_eval.files import write_file

if TYPE_CHECKING:
    from bayes_eval.judges.data import JudgeData

HELP = 'Bayesian ranking from LLM-judge scores (Vossler et al., "LLMs Judging LLMs")'
DESCRIPTION = """\
Ranks candidates from the scores of imperfect LLM judges with the Bayesian model of Vossler et
al., "LLMs Judging LLMs: A Simplex Perspective" (PyMC): posterior mean scores, ranks with 95%
credible intervals and, against a known truth, Spearman correlation and rank coverage.
FILE is a count table (candidate, judge, score, count), a per-question table (question, judge,
candidate, score[, judge_family, candidate_family]) or the SummEval CSV; or dataset:NAME."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval judges`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "judges",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.nuts_options(
                draws="1000; 16000 with --integrated",
                tune="1000; 4000 with --integrated",
                chains=4,
                sampler="pymc; nutpie with --integrated",
            ),
            opt.output_options(
                plot="ternary plot of judges and candidates (PNG)",
                netcdf="save the fit's DataTree as NetCDF",
            ),
        ],
    )
    p.add_argument("file", metavar="FILE", help="count table, per-question table or SummEval CSV")
    p.add_argument("--dim", help="SummEval dimension (default: all four)")
    p.add_argument(
        "--truth", metavar="FILE", help="CSV candidate,score of ground-truth scores (not SummEval)"
    )
    p.add_argument("--levels", type=positive_int, help="true score levels M (per-question table)")
    p.add_argument(
        "--abstain",
        action="store_true",
        help="per-question table: binary scores -1/0/1, 0 abstains",
    )
    p.add_argument("--omega", type=float, help="random-effect strength (0)")
    p.add_argument("--beta-max", type=float, help="DAG prior strength (5)")
    p.add_argument(
        "--integrated", action="store_true", help="hyperpriors on omega, beta_max (instead of them)"
    )
    p.add_argument("--keep-same-family", action="store_true", help="do not exclude self-judging")
    p.add_argument("--baselines", action="store_true", help="also simple average, bootstrap, BT")
    p.add_argument(
        "--sensitivity",
        action="store_true",
        help="the paper's §5.4 grid: omega in 0,1,2,4,8 and beta_max in 0,1,5,10,20",
    )
    p.set_defaults(func=run)


#: How every output names the judges model's prior and what its candidate scores are about.
PRIOR = "the judges model's own (weight-propagation prior on the judges, Vossler et al. §5)"
ESTIMAND = "these questions: each candidate's expected score on the judged items"


#: Options of one fit that ``--sensitivity`` (its own grid of fits) does not use.
ONE_FIT = ("omega", "beta_max", "integrated", "keep_same_family", "baselines", "plot")


def _check(args: argparse.Namespace) -> None:
    if args.sensitivity:
        opt.refuse(opt.given(args, *ONE_FIT), "with --sensitivity (its own grid of fits)")
    elif args.integrated:
        opt.refuse(opt.given(args, "omega", "beta_max"), "with --integrated (hyperpriors)")
    for name in ("omega", "beta_max"):
        value = getattr(args, name)
        if value is not None and not (math.isfinite(value) and value >= 0):
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} is {value}; expected a finite number >= 0.")


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval judges`` with the parsed ``args``; return the exit status.

    Fits the judges model to each dataset of FILE (with ``--sensitivity``, its grid of fits)
    and prints each candidate's posterior mean score and rank, or the ``--json`` document.
    Returns 0.
    """
    from bayes_eval.judges.load import load_judge_data

    _check(args)
    datasets = load_judge_data(
        args.file, truth=args.truth, dim=args.dim, levels=args.levels, abstain=args.abstain
    )
    if args.sensitivity:
        return _sensitivity(args, datasets)
    from bayes_eval.judges import report as jr
    from bayes_eval.models.judges import fit_judges, model_settings

    quiet = args.json or args.no_progress
    settings = opt.sampler_settings(args, quiet=args.json)
    own = model_settings(settings, args.integrated)  # the model's own where options left them
    start, reports, n = time.perf_counter(), [], len(datasets)
    for i, (label, data) in enumerate(datasets, 1):
        t0 = time.perf_counter()
        if not quiet:
            progress(
                f"judges: fitting {args.file} [{label}] ({i} of {n}): "
                f"{settings.chains} chains of {own.tune} + {own.draws} draws"
            )
        fit = fit_judges(
            data,
            omega=0.0 if args.omega is None else args.omega,
            beta_max=5.0 if args.beta_max is None else args.beta_max,
            integrated=args.integrated,
            exclude_same_family=not args.keep_same_family,
            nuts=settings,
        )
        if args.baselines and not quiet:
            progress(f"judges: baselines of [{label}] (bootstrap, Bradley-Terry)")
        entry = jr.fit_report(
            label,
            data,
            fit,
            seconds=time.perf_counter() - t0,
            baselines=args.baselines,
            seed=settings.seed,
        )
        if args.netcdf:
            entry["netcdf"] = jr.numbered(args.netcdf, label, n)
            write_file(
                entry["netcdf"],
                partial(_to_netcdf, fit),
                option="--netcdf",
            )
        if args.plot:
            entry["plot"] = jr.numbered(args.plot, label, n)
            jr.plot_fit(fit, data, entry["plot"], title=f"{label}: posterior means")
        reports.append(entry)
    summary: dict[str, Any] = {"prior": PRIOR, "estimand": ESTIMAND}
    summary |= {"file": args.file, "seconds": round(time.perf_counter() - start, 1)}
    summary["fits"] = reports
    mean = jr.mean_over_datasets(reports)
    if mean is not None:
        summary["mean_bayesian"] = mean
    if args.json:
        emit_json(summary)
        return 0
    say(f"prior: {PRIOR}; estimand: {ESTIMAND}")
    for e in reports:
        _print_fit(args.file, e)
    if mean is not None:
        say("", f"mean over dimensions: {_words(mean)}")
    return 0


def _print_fit(file: str, e: dict[str, Any]) -> None:
    """One fit's report: the candidates' scores and ranks, the checks against the truth."""
    say("", f"{file} [{e['dataset']}]: {e['seconds']} s; {_words(e['diagnostics'])}")
    table(
        [
            "candidate",
            "E[true score]",
            uncertain("95% interval"),
            "rank",
            uncertain("95% rank CrI"),
        ],
        (
            [
                c["candidate"],
                f"{c['mu']:.3f}",
                interval(c["mu_interval"][0], c["mu_interval"][1], digits=3),
                c["rank"],
                "{}-{}".format(*c["rank_interval"]),
            ]
            for c in sorted(e["candidates"], key=lambda c: c["rank"])
        ),
    )
    if "bayesian" in e:
        b = e["bayesian"]
        say(f"vs truth: Spearman {b['spearman']:.3f}, rank coverage {b['coverage']:.3f}")
    for name, m in e.get("baselines", {}).items():
        say(f"  {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()))
    if "plot" in e:
        say(f"ternary plot written to {e['plot']}")


def _words(values: dict) -> str:
    """``{"max_rhat": 1.004, "divergences": 0}`` as ``max r-hat 1.004, divergences 0``.

    A summary in words, not a Python dict.
    """
    names = {
        "max_rhat": "max r-hat",
        "min_ess_bulk": "min bulk ESS",
        "min_ess_tail": "min tail ESS",
    }

    def value(k: str, v: object) -> str:
        if isinstance(v, bool) or (k == "converged" and v in (0, 1)):  # 0/1 in the DataTree
            return "yes" if v else "no"
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    return ", ".join(
        f"{names.get(k, k.replace('_', ' '))} {value(k, v)}" for k, v in values.items()
    )


def _to_netcdf(obj: Any, tmp: Path) -> None:
    """Write a fit's DataTree or a Dataset to ``tmp`` (for :func:`bayes_eval.files.write_file`)."""
    obj.to_netcdf(tmp, engine="h5netcdf")


def _sensitivity(args: argparse.Namespace, datasets: list[tuple[str, JudgeData]]) -> int:
    from bayes_eval.judges import report as jr
    from bayes_eval.models.judges import judge_sensitivity

    settings = opt.sampler_settings(args, quiet=True)  # the grid shows its own progress
    out = {}
    for label, data in datasets:
        ds = judge_sensitivity(data, nuts=settings, progress=not (args.json or args.no_progress))
        out[label] = jr.sensitivity_table(ds)
        if args.netcdf:
            write_file(
                jr.numbered(args.netcdf, label, len(datasets)),
                partial(_to_netcdf, ds),
                option="--netcdf",
            )
    if args.json:
        emit_json({"base": "omega=0, beta_max=5", "spearman_vs_base": out})
        return 0
    for label, row in out.items():
        table(
            ["setting", "Spearman"],
            ([k, f"{v:.3f}"] for k, v in row.items()),
            title=f"{args.file} [{label}]: Spearman with the base fit (omega=0, beta_max=5)",
        )
    return 0
