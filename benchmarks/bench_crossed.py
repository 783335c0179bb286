"""The crossed model at leaderboard scale: wall time, convergence and coverage with nutpie.

The leaderboard shape of the brief: 93 models x 1,136 questions, the question set growing from
1,000 to 1,136, 3 models on 50 questions only, 1% of the other pairs missing at random, 2% of
the pairs run twice (about 9.8% of the pairs missing), simulated by
:func:`bayes_eval.synthetic.leaderboard.simulate_leaderboard` with known true mean scores over all
questions. For every (scores, parametrisation) asked for, the model is built, compiled with
nutpie (timed), sampled with 4 chains x 1,000 draws after 1,000 tuning steps on 2 cores
(timed), and checked: max r-hat, min bulk/tail ESS over every posterior variable
(:func:`bayes_eval.models.diagnostics`), divergences, and the share of models whose true mean
lies in the 90% equal-tailed interval of ``pi_bar``.

Run::

    .venv/bin/python benchmarks/bench_crossed.py                     # binary, graded, levels
    .venv/bin/python benchmarks/bench_crossed.py --scores binary --parametrization centered
    .venv/bin/python benchmarks/bench_crossed.py --via-sample        # through models.sample
    .venv/bin/python benchmarks/bench_crossed.py --scores binary --interaction-sd 1 --interaction

``--interaction-sd TAU`` gives the simulated LLMs question-specific strengths (an LLM x
question logit interaction of sd TAU); ``--interaction`` fits the crossed model with its
interaction option (93 x 1,136 more parameters; not measured at this scale yet).

Targets: under 5 minutes per fit, r-hat <= 1.01, no divergence. Issue 28: the ordinal fit
(``levels``) under 4 minutes, against the binomial fit (``binary``) of the same run, printed as
a ratio of their compile + sampling times when both ran.

``--smoke``: binary only on a 10 x 60 board (the smoke board of ``bench_leaderboard.py``),
1 chain of 40 draws after 40 tuning steps on 1 core (the nutpie compilation dominates).
The results are printed as JSON (progress goes to stderr); ``--json FILE`` also writes
them to FILE (``--json`` alone is accepted and changes nothing).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from _timing import versus
from bench_leaderboard import SHAPE as _GAPS  # the closed-form benchmark's design
from bench_leaderboard import SMOKE_SHAPE as _SMOKE_GAPS

SHAPE = dict(n_models=93, n_questions=1136, **_GAPS)
SMOKE_SHAPE = dict(n_models=10, n_questions=60, **_SMOKE_GAPS)
LIKELIHOOD = {"binary": "binomial", "graded": "fractional", "levels": "ordinal"}


def _say(text: str) -> None:
    """Progress on stderr (stdout carries the JSON)."""
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def run_one(
    scores: str,
    parametrization: str,
    *,
    draws: int,
    tune: int,
    chains: int,
    cores: int,
    seed: int,
    via_sample: bool = False,
    target_accept: float | None = None,
    interaction_sd: float = 0.0,
    interaction: bool = False,
    shape: dict | None = None,
) -> dict:
    """One fit; returns its timings, diagnostics and coverage."""
    import nutpie

    from bayes_eval.models import crossed_model, diagnostics, model_info, sample
    from bayes_eval.models.sampling import element_diagnostics
    from bayes_eval.synthetic.leaderboard import simulate_leaderboard

    board = simulate_leaderboard(
        **(shape or SHAPE), scores=scores, interaction_sd=interaction_sd, seed=seed
    )
    R = board.to_dataarray()
    likelihood = LIKELIHOOD[scores]
    t0 = time.perf_counter()
    model = crossed_model(
        R,
        likelihood=likelihood,
        parametrization=parametrization,
        levels=board.levels if likelihood == "ordinal" else None,
        interaction=interaction,
    )
    build = time.perf_counter() - t0
    free = sorted(v.name for v in model.free_RVs)
    accept = target_accept or model_info(model).target_accept
    missing = 1 - board.answered.mean()
    _say(
        f"{scores}/{parametrization}: built in {build:.1f} s ({missing:.1%} pairs missing; "
        f"free {free}; target_accept {accept})"
    )
    if via_sample:
        t0 = time.perf_counter()
        idata = sample(
            model,
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            seed=seed,
            sampler="nutpie",
            target_accept=accept,
            warn=False,
        )
        compile_s, sample_s, cpu_s = np.nan, time.perf_counter() - t0, np.nan
        _say(f"models.sample (compile + sampling + diagnostics) took {sample_s:.1f} s")
    else:
        t0 = time.perf_counter()
        compiled = nutpie.compile_pymc_model(model)
        compile_s = time.perf_counter() - t0
        _say(f"compiled in {compile_s:.1f} s; sampling {chains} x ({tune} + {draws})")
        t0, c0 = time.perf_counter(), time.process_time()
        idata = nutpie.sample(
            compiled,
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            seed=seed,
            target_accept=accept,
            progress_bar=False,
            save_warmup=False,
        )
        sample_s, cpu_s = time.perf_counter() - t0, time.process_time() - c0
        _say(f"sampled in {sample_s:.1f} s (CPU {cpu_s:.1f} s over {cores} cores)")
    t0 = time.perf_counter()
    diag = diagnostics(idata)
    diag_s = time.perf_counter() - t0
    worst = {}
    for name, da in idata["posterior"].data_vars.items():
        per = element_diagnostics(da)
        worst[name] = [
            round(float(per["r_hat"].max()), 4),
            round(float(per["ess_bulk"].min())),
            round(float(per["ess_tail"].min())),
        ]
    post = idata["posterior"]
    steps = idata["sample_stats"]["n_steps"]
    pi = post["pi_bar"].transpose("chain", "draw", "model").values.reshape(-1, board.theta.size)
    lo, hi = np.quantile(pi, [0.05, 0.95], axis=0)
    covered = (lo <= board.true_mean) & (board.true_mean <= hi)
    out = {
        "scores": scores,
        "likelihood": likelihood,
        "parametrization": parametrization,
        "interaction_sd": interaction_sd,
        "interaction": interaction,
        "free": free,
        "target_accept": accept,
        "compile_s": round(compile_s, 1),
        "sample_s": round(sample_s, 1),
        "sample_cpu_s": round(cpu_s, 1),
        "diagnostics_s": round(diag_s, 1),
        "steps_per_draw": round(float(steps.mean()), 1),
        "max_rhat": round(diag.max_rhat, 4),
        "min_ess_bulk": round(diag.min_ess_bulk),
        "min_ess_tail": round(diag.min_ess_tail),
        "divergences": diag.divergences,
        "coverage90": round(float(covered.mean()), 3),
        "n_models": int(covered.size),
        "pi_bar_abs_error": round(float(np.abs(pi.mean(0) - board.true_mean).mean()), 4),
        "per_variable": worst,
    }
    _say(
        f"{scores}/{parametrization}: r-hat {out['max_rhat']}, ESS bulk {out['min_ess_bulk']} "
        f"tail {out['min_ess_tail']}, divergences {out['divergences']}, "
        f"{out['steps_per_draw']} steps/draw, coverage90 {out['coverage90']} of "
        f"{out['n_models']}, diagnostics {out['diagnostics_s']} s\n    per variable "
        f"[max r-hat, min bulk ESS, min tail ESS]: {worst}"
    )
    return out


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scores", nargs="+", default=["binary", "graded", "levels"])
    parser.add_argument(
        "--parametrization", nargs="+", default=["centered"], help="noncentered centered auto"
    )
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target-accept", type=float, default=None)
    parser.add_argument("--via-sample", action="store_true", help="time models.sample instead")
    parser.add_argument("--interaction-sd", type=float, default=0.0, help="true interaction sd")
    parser.add_argument("--interaction", action="store_true", help="fit the interaction option")
    parser.add_argument(
        "--json",
        nargs="?",
        const="",
        default=None,
        metavar="FILE",
        help="the JSON is printed in every case; with FILE, also written to FILE",
    )
    parser.add_argument("--smoke", action="store_true", help="binary, a 10 x 60 board, 1 chain")
    args = parser.parse_args(argv)
    shape = SHAPE
    if args.smoke:
        shape = SMOKE_SHAPE
        args.scores, args.draws, args.tune, args.chains, args.cores = ["binary"], 40, 40, 1, 1
    results = []
    for scores in args.scores:
        for par in args.parametrization:
            results.append(
                run_one(
                    scores,
                    par,
                    draws=args.draws,
                    tune=args.tune,
                    chains=args.chains,
                    cores=args.cores,
                    seed=args.seed,
                    via_sample=args.via_sample,
                    target_accept=args.target_accept,
                    interaction_sd=args.interaction_sd,
                    interaction=args.interaction,
                    shape=shape,
                )
            )
    fit = {r["scores"]: r["compile_s"] + r["sample_s"] for r in results}
    cpu = {r["scores"]: r.get("sample_cpu_s") for r in results}
    if "levels" in fit and not args.smoke:
        row = {"ordinal_seconds": fit["levels"], "goal": "< 240 s"}
        row["meets_goal"] = bool(fit["levels"] < 240.0)
        text = f"ordinal: {fit['levels']:.0f} s (goal < 240 s)"
        if "binary" in fit:
            row["ordinal_vs_binomial"] = versus(
                fit["levels"], fit["binary"], None, what="the binomial crossed fit"
            )
            text += f", {row['ordinal_vs_binomial']['text']}"
            if (
                cpu["levels"] and cpu["binary"] and np.isfinite(cpu["levels"] + cpu["binary"])
            ):  # the sampler's CPU time: steadier under load
                row["ordinal_vs_binomial_cpu"] = cpu["levels"] / cpu["binary"]
                text += f" ({row['ordinal_vs_binomial_cpu']:.2f}x its sampling CPU time)"
        row["text"] = text
        results.append(row)
        _say(text)
    print(json.dumps(results, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return results


if __name__ == "__main__":
    main()
