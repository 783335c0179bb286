"""Command line: ``bayes-eval rank | schemas | plan | crosscheck | priors | validate | adaptive |
judges | datasets | demo``.

Every command that reads results takes ``dataset:NAME`` for a dataset shipped with the
package (``bayes-eval datasets`` lists them) as well as files.

Every command takes ``--json``. Bad input prints one line ``bayes-eval: error: ...`` on
stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

import numpy as np
import xarray as xr

__all__ = ["main"]


class _UsageError(ValueError):
    pass


def _weights(text: str | None):
    if text is None:
        return None
    try:
        return [float(x) for x in text.split(",")]
    except ValueError as exc:
        raise ValueError(
            f"--weights is {text!r}; expected comma-separated numbers such as 0,0.5,1."
        ) from exc


def _load(path: str, file_format: str | None) -> xr.DataArray:
    from bayes_eval.logs import read_eval_log

    return read_eval_log(path, format=file_format).results()


def _load_ranked(args: argparse.Namespace):
    """(R, w, R0, log summary, schema info) for ``rank``: logs of any format, optional schema."""
    from bayes_eval.logs import check_all_answered, read_eval_log

    options = {
        "model": args.model,
        "metric": args.metric,
        "filter": args.filter,
        "scorer": args.scorer,
    }
    log = read_eval_log(args.file, format=args.format, **options)
    prior = read_eval_log(args.prior, format=args.format, **options) if args.prior else None
    w = _weights(args.weights)
    info = None
    if args.schema and args.schema_file:
        raise ValueError("give --schema or --schema-file, not both.")
    if args.schema or args.schema_file:
        from bayes_eval.rubrics.schema import get_schema, load_schema

        schema = load_schema(args.schema_file) if args.schema_file else get_schema(args.schema)
        cats = log.categorize(schema, weights=w)
        R, w = cats.R, cats.weights
        R0 = None
        if prior is not None:  # the prior runs are scored on the same scale (same thresholds)
            R0 = prior.categorize(schema, weights=w, thresholds=cats.thresholds).R
        info = {
            "schema": schema.name,
            "categories": list(schema.labels),
            "weights": [float(x) for x in w],
            "thresholds": cats.thresholds,
            "counts": [int(c) for c in cats.counts],
            "absent_optional_signals": list(cats.missing_signals),
        }
        check_all_answered(R, args.file)
    else:
        R = log.results()
        R0 = prior.results() if prior is not None else None
        if w is None and "default_weights" in log.meta:
            w = list(log.meta["default_weights"])
    return R, w, R0, log.summary(), info


def _fmt(x: float) -> str:
    return f"{x:.4f}"


def _print_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def _table_records(table: xr.Dataset) -> list[dict]:
    order = np.argsort(-table["mu"].values, kind="stable")
    out = []
    for i in order:
        out.append(
            {
                "model": str(table["model"].values[i]),
                "mu": float(table["mu"].values[i]),
                "sigma": float(table["sigma"].values[i]),
                "lo": float(table["lo"].values[i]),
                "hi": float(table["hi"].values[i]),
                "rank": int(table["rank"].values[i]),
                "rank_ci": int(table["rank_ci"].values[i]),
                "rank_interval": [
                    int(table["rank_lower"].values[i]),
                    int(table["rank_upper"].values[i]),
                ],
                "prior": str(table["prior"].values[i]),
                "prior_alpha": [float(a) for a in table["prior_alpha"].values[i]],
            }
        )
    return out


def _prior_cell(alpha: Sequence[float]) -> str:
    """The per-question Dirichlet parameter a row used, e.g. ``(0.21, 0.13)``."""
    return "(" + ", ".join(f"{a:.3g}" for a in alpha) + ")"


def _cmd_rank(args: argparse.Namespace) -> int:
    from bayes_eval.xr import rank_table

    R, w, R0, summary, schema_info = _load_ranked(args)
    table = rank_table(
        R,
        w,
        R0,
        confidence=args.confidence,
        interval=args.interval,
        prior=args.prior_kind,
        pool=args.pool,
        skipna=True,
    )
    n_missing = int(np.isnan(R.values).sum())
    records = _table_records(table)
    name = args.file[0] if len(args.file) == 1 else f"{len(args.file)} files"
    if args.plot:
        from bayes_eval.plotting.forest import forest_plot

        forest_plot(table, args.plot, title=f"Bayes@N leaderboard: {name}")
    if args.json:
        json.dump(
            {
                "file": name,
                "files": list(args.file),
                "log": summary,
                "schema": schema_info,
                "models": records,
                "confidence": args.confidence,
                "interval": args.interval,
                "prior": table.attrs["prior"],
                "pool": args.pool,
                "z_threshold": table.attrs["z_threshold"],
                "questions": int(R.sizes["question"]),
                "max_trials": int(R.sizes["trial"]),
                "missing_trials": n_missing,
            },
            sys.stdout,
            indent=2,
        )
        print()
        return 0
    pct = f"{100 * args.confidence:g}%"
    print(
        f"{name} ({summary['format']}): {R.sizes['model']} models, {R.sizes['question']} "
        f"questions, up to {R.sizes['trial']} trials; {summary['scored']} scored attempts, "
        f"{summary['failed']} failed and {summary['missing']} missing (masked); "
        f"{args.interval} {pct} intervals; prior: {table.attrs['prior']}"
    )
    for key in ("scorer", "metric", "filter", "category_map"):
        if key in summary:
            print(f"  {key}: {summary[key]}")
    if schema_info is not None:
        th = ", ".join(f"{k} = {v:.4g}" for k, v in schema_info["thresholds"].items())
        print(
            f"  schema {schema_info['schema']!r}: categories "
            + ", ".join(
                f"{i} {lab} (w={wt:g}, n={n})"
                for i, (lab, wt, n) in enumerate(
                    zip(
                        schema_info["categories"],
                        schema_info["weights"],
                        schema_info["counts"],
                        strict=True,
                    )
                )
            )
        )
        print(f"  thresholds (pooled over all models): {th or 'none'}")
    rows = [
        [
            r["model"],
            _fmt(r["mu"]),
            _fmt(r["sigma"]),
            f"[{_fmt(r['lo'])}, {_fmt(r['hi'])}]",
            str(r["rank"]),
            str(r["rank_ci"]),
            f"{r['rank_interval'][0]}-{r['rank_interval'][1]}",
            _prior_cell(r["prior_alpha"]),
        ]
        for r in records
    ]
    _print_table(
        ["model", "mu", "sigma", f"{pct} CI", "rank", "rank w/ CI", "rank range", "prior a"],
        rows,
    )
    print(
        f"rank w/ CI: consecutive models tie when z < {table.attrs['z_threshold']:.3f} "
        "(Hariri et al., §2.7.1); rank range: from all pairwise decisions (no chaining)."
    )
    if args.plot:
        print(f"forest plot written to {args.plot}")
    return 0


def _cmd_datasets(args: argparse.Namespace) -> int:
    from bayes_eval import datasets

    if args.name is None:
        listing = datasets.list_datasets()
        if args.json:
            print(json.dumps(listing, indent=2))
            return 0
        _print_table(["name", "description"], [[k, v] for k, v in listing.items()])
        print("Use one as FILE with dataset:NAME, e.g. `bayes-eval rank dataset:phi4_aime25`.")
        return 0
    ds = datasets.load(args.name)
    info = {
        **{k: str(v) for k, v in ds.attrs.items()},
        "dims": {str(k): int(v) for k, v in ds.sizes.items()},
        "variables": {str(k): list(map(str, v.dims)) for k, v in ds.data_vars.items()},
        "files": [str(p) for p in datasets.files(args.name)],
    }
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    for key, value in info.items():
        print(f"{key}: {value}")
    return 0


def _cmd_schemas(args: argparse.Namespace) -> int:
    from bayes_eval.rubrics.schema import TABLE4_THRESHOLDS, describe_schemata

    if args.file:
        return _compare_schemata(args)
    records = describe_schemata()
    if args.json:
        json.dump(records, sys.stdout, indent=2)
        print()
        return 0
    print("Built-in rubric schemata (Hariri et al., App. F, Table 5); category 0 is invalid:")
    for r in records:
        print(f"\n{r['key']}  ({r['name']}): {r['description']}")
        for i, (lab, wt) in enumerate(zip(r["categories"], r["weights"], strict=True)):
            print(f"  {i}  w={wt:<5g} {lab}")
        print(
            f"  signals: {', '.join(r['required_signals'])}"
            f" (optional: {', '.join(r['optional_signals']) or '-'})"
        )
        if r["thresholds"]:
            desc = [
                f"{t} = p{TABLE4_THRESHOLDS[t].percentile:g}({TABLE4_THRESHOLDS[t].signal}"
                + (f" | {TABLE4_THRESHOLDS[t].among}" if TABLE4_THRESHOLDS[t].among else "")
                + ")"
                for t in r["thresholds"]
            ]
            print(f"  thresholds: {'; '.join(desc)}")
        if r["note"]:
            print(f"  note: {r['note']}")
    return 0


def _compare_schemata(args: argparse.Namespace) -> int:
    from bayes_eval.logs import read_eval_log
    from bayes_eval.rubrics.comparison import compare_schemata, plot_schema_ranks

    log = read_eval_log(args.file, format=args.format)
    chosen = args.only.split(",") if args.only else None
    table = compare_schemata(
        log.signal_dataset(), chosen, present=log.present(), confidence=args.confidence
    )
    if args.plot:
        plot_schema_ranks(table, args.plot)
    models = [str(m) for m in table["model"].values]
    if args.json:
        json.dump(
            {
                "schemata": [str(x) for x in table["schema"].values],
                "models": models,
                "mu": table["mu"].values.tolist(),
                "sigma": table["sigma"].values.tolist(),
                "rank": table["rank"].values.tolist(),
                "rank_ci": table["rank_ci"].values.tolist(),
                "skipped": table.attrs["skipped"],
                "log": log.summary(),
            },
            sys.stdout,
            indent=2,
        )
        print()
        return 0
    header = ["schema", *models]
    rows = [
        [
            str(sc),
            *(
                f"{int(r)} ({int(rc)})"
                for r, rc in zip(table["rank"].values[i], table["rank_ci"].values[i], strict=True)
            ),
        ]
        for i, sc in enumerate(table["schema"].values)
    ]
    _print_table(header, rows)
    print("rank (CI-aware rank); thresholds pooled over all models, per schema.")
    if table.attrs["skipped"] != "[]":
        print(f"skipped (signals missing): {table.attrs['skipped']}")
    if args.plot:
        print(f"bump chart written to {args.plot}")
    return 0


def _cmd_plan(args: argparse.Namespace) -> int:
    from bayes_eval.sample_size import trials_to_separate

    R = _load(args.file, args.format)
    names = [str(m) for m in R["model"].values]
    for name in (args.model_a, args.model_b):
        if name not in names:
            raise ValueError(f"model {name!r} is not in {args.file}; expected one of {names}.")
    if args.model_a == args.model_b:
        raise ValueError(f"model_a and model_b are both {args.model_a!r}; expected two models.")
    mask_a = np.isnan(R.sel(model=args.model_a).values)
    mask_b = np.isnan(R.sel(model=args.model_b).values)
    if mask_a.any() or mask_b.any():
        raise ValueError("plan needs complete results (no missing trials) for both models.")
    plan = trials_to_separate(
        R.sel(model=args.model_a).values.astype(np.int64),
        R.sel(model=args.model_b).values.astype(np.int64),
        _weights(args.weights),
        z_target=args.z,
        assurance=args.assurance,
        draws=args.draws,
        max_trials=args.max_trials,
        seed=args.seed,
    )
    leader, other = (
        (args.model_a, args.model_b) if plan.leader == "a" else (args.model_b, args.model_a)
    )
    result = {
        "model_a": args.model_a,
        "model_b": args.model_b,
        "leader": leader,
        "z_now": plan.z_now,
        "n_now": plan.n_now,
        "z_target": plan.z_target,
        "assurance_target": plan.assurance_target,
        "n_required": plan.n_required,
        "extra_trials": plan.extra_trials,
        "assurance_at_required": plan.assurance_at_required,
        "prob_leader_better": plan.prob_leader_better,
        "reason": plan.reason,
        "draws": plan.draws,
        "max_trials": plan.max_trials,
        "seed": args.seed,
    }
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    print(
        f"{leader} leads {other}: z = {plan.z_now:.3f} with N = {plan.n_now}; "
        f"P({leader} better) = {plan.prob_leader_better:.3f}."
    )
    if plan.extra_trials == 0:
        print(f"already separated at z >= {plan.z_target}.")
    elif plan.n_required is None:
        print(f"no plan reaches assurance {plan.assurance_target}: {plan.reason}")
    else:
        print(
            f"z >= {plan.z_target} in {leader}'s favour with probability "
            f"{plan.assurance_at_required:.3f} (target {plan.assurance_target}, posterior "
            f"predictive, {plan.draws} simulations) needs N = {plan.n_required} trials per "
            f"question ({plan.extra_trials} more)."
        )
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from scipy.stats import kendalltau

    from bayes_eval.biased_coin import PAPER_PI_BAR, mimic_probabilities, simulate_results
    from bayes_eval.datasets import load
    from bayes_eval.ranking import rank
    from bayes_eval.sample_size import trials_to_separate
    from bayes_eval.xr import rank_table, results_array

    start = time.perf_counter()
    arena = load("matharena_aime25_i")
    board = rank_table(arena["results"], confidence=0.95)
    leaderboard = _table_records(board)
    cost = dict(zip(arena["model"].values.astype(str), arena["cost_usd"].values, strict=True))
    for r in leaderboard:
        r["cost_usd_per_run"] = None if np.isnan(cost[r["model"]]) else float(cost[r["model"]])
    names = [f"LLM{i + 1}" for i in range(len(PAPER_PI_BAR))]
    p = mimic_probabilities(n_questions=args.questions, seed=args.seed)
    R = simulate_results(p, args.trials, seed=args.seed + 1)
    # the paper's Table 1 uses its uniform prior
    table = rank_table(results_array(R, models=names), confidence=0.95, prior="uniform")
    gold = rank(np.asarray(PAPER_PI_BAR), method="dense")
    tau = kendalltau(-np.asarray(PAPER_PI_BAR), -table["mu"].values).statistic
    plan = trials_to_separate(R[9], R[8], z_target=1.645)
    elapsed = time.perf_counter() - start
    order = np.argsort(-np.asarray(PAPER_PI_BAR), kind="stable")
    rank_no_ci = rank(table["mu"].values, method="dense")
    records = [
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
        for i in order
    ]
    coin_plot = None
    if args.plot:
        from pathlib import Path

        from bayes_eval.plotting.forest import forest_plot

        forest_plot(board, args.plot, title="MathArena AIME 2025 I: Bayes@4 (16 models)")
        plot = Path(args.plot)
        coin_plot = plot.with_name(f"{plot.stem}_biased_coin{plot.suffix or '.png'}")
        forest_plot(table, coin_plot, title=f"Biased-coin mimics, Bayes@{args.trials}")
    if args.json:
        json.dump(
            {
                "leaderboard": {
                    "dataset": "matharena_aime25_i",
                    "M": int(arena.sizes["question"]),
                    "N": int(arena.sizes["trial"]),
                    "models": leaderboard,
                },
                "models": records,
                "kendall_tau_b": float(tau),
                "seconds": elapsed,
                "plan_llm10_vs_llm9": {"z_now": plan.z_now, "n_required_z1.645": plan.n_required},
                "M": args.questions,
                "N": args.trials,
                "seed": args.seed,
            },
            sys.stdout,
            indent=2,
        )
        print()
        return 0
    print(
        f"MathArena AIME 2025 I leaderboard (shipped dataset matharena_aime25_i): "
        f"{arena.sizes['model']} models, {arena.sizes['question']} questions, "
        f"{arena.sizes['trial']} runs each; Bayes@4 with 95% credible intervals; prior: "
        f"{board.attrs['prior']} (--prior-kind uniform in `bayes-eval rank` gives the paper's)."
    )
    _print_table(
        ["model", "Bayes@4", "sigma", "95% CI", "rank w/ CI", "rank range", "USD/run"],
        [
            [
                r["model"],
                _fmt(r["mu"]),
                _fmt(r["sigma"]),
                f"[{_fmt(r['lo'])}, {_fmt(r['hi'])}]",
                str(r["rank_ci"]),
                f"{r['rank_interval'][0]}-{r['rank_interval'][1]}",
                "-" if r["cost_usd_per_run"] is None else f"{r['cost_usd_per_run']:.2f}",
            ]
            for r in leaderboard
        ],
    )
    groups = len({r["rank_ci"] for r in leaderboard})
    print(
        "rank w/ CI: consecutive models tie when z < 1.645 (Hariri et al., §2.7.1); the rule "
        f"chains ties, and with 15 questions x 4 runs it leaves {groups} rank group(s). "
        "rank range: every rank the pairwise z-tests (no chaining) leave open.\n"
    )
    n = args.trials
    print(
        f"Biased-coin LLM mimics (Hariri et al., §2.7): {len(names)} models, M = {args.questions} "
        f"questions, N = {n} trials, seed {args.seed}.\nRanks are dense (1, 2, 2, 3) as in "
        "the paper's Table 1; 'w/ CI' ties consecutive models with z < 1.645."
    )
    rows = [
        [
            r["model"],
            f"{r['pi_bar']:.4f}",
            str(r["gold_rank"]),
            _fmt(r["mu"]),
            _fmt(r["sigma"]),
            f"[{_fmt(r['lo'])}, {_fmt(r['hi'])}]",
            str(r["rank"]),
            str(r["rank_ci"]),
        ]
        for r in records
    ]
    _print_table(
        ["model", "true pi-bar", "gold rank", f"Bayes@{n}", "sigma", "95% CI", "w/o CI", "w/ CI"],
        rows,
    )
    print(f"Kendall tau_b(Bayes@{n}, gold standard) = {tau:.4f}")
    pair = "LLM10 vs LLM9" if plan.leader == "a" else "LLM9 vs LLM10"
    if plan.extra_trials == 0:
        print(f"{pair}: z = {plan.z_now:.2f} at N = {n}, already separated at z >= 1.645.")
    elif plan.n_required is not None:
        print(
            f"{pair}: z = {plan.z_now:.2f} at N = {n}; z >= 1.645 with 80% assurance needs "
            f"N = {plan.n_required} (App. D's plug-in projection reports about 199)."
        )
    else:
        print(f"{pair}: z = {plan.z_now:.2f} at N = {n}; no plan: {plan.reason}.")
    if args.plot:
        print(f"forest plots written to {args.plot} (leaderboard) and {coin_plot} (mimics)")
    print(f"time: {elapsed:.3f} s")
    return 0


def _floats(text: str | None, name: str) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(x) for x in text.split(",")]
    except ValueError as exc:
        raise ValueError(f"{name} is {text!r}; expected comma-separated numbers.") from exc


def _cmd_crosscheck(args: argparse.Namespace) -> int:
    from bayes_eval.models import crosscheck, save

    R = _load(args.file, args.format)
    R0 = _load(args.prior, args.format) if args.prior else None
    result = crosscheck(
        R,
        _weights(args.weights),
        R0,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        seed=args.seed,
        sampler=args.sampler,
        mc_draws=args.mc_draws,
        progressbar=not (args.json or args.no_progress),
    )
    if args.out:
        save(result.idata, args.out)
    if args.json:
        json.dump(result.to_dict() | {"out": args.out}, sys.stdout, indent=2)
        print()
        return 0 if result.passed else 1
    m = result.models
    print(
        f"Cross-check of {args.file}: {m.sizes['model']} models, sampler {args.sampler}, "
        f"{args.chains} x {args.draws} draws, {int(m.attrs['divergences'])} divergences"
    )
    rows = []
    for name in m["model"].values:
        r = m.sel(model=name)
        rows.append(
            [
                str(name),
                f"{float(r.mu):.4f} ± {float(r.sigma):.4f}",
                f"{float(r.nuts_mean):.4f} ± {float(r.nuts_sd):.4f}",
                f"{float(r.z_mean):+.2f} / {float(r.z_sd):+.2f}",
                f"{float(r.mc_mean):.4f} ± {float(r.mc_sd):.4f}",
                f"{float(r.r_hat):.3f}",
                f"{float(r.ess_bulk):.0f}/{float(r.ess_tail):.0f}",
                "pass" if bool(r.passed) else f"FAIL ({r.failed_checks.item()})",
            ]
        )
    _print_table(
        ["model", "closed form", "NUTS", "z mean/sd", "exact MC", "r-hat", "ESS b/t", "verdict"],
        rows,
    )
    p = result.pairs
    names = list(p["model"].values)
    prow = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            c = p.sel(model=a, model_bis=b)
            prow.append(
                [
                    f"{a} > {b}",
                    f"{float(c.rho_normal):.4f}",
                    f"{float(c.p_nuts):.4f} ± {float(c.mcse_p_nuts):.4f}",
                    f"{float(c.p_exact):.4f}",
                    "pass" if bool(c.passed) else "FAIL",
                ]
            )
    if prow:
        print()
        _print_table(["pair", "rho (normal)", "P NUTS", "P exact", "verdict"], prow)
    print(
        f"\noverall: {'PASS' if result.passed else 'FAIL'}"
        + (f"; saved {args.out}" if args.out else "")
    )
    return 0 if result.passed else 1


def _cmd_priors(args: argparse.Namespace) -> int:
    from bayes_eval.models import prior_sensitivity
    from bayes_eval.models.sensitivity import plot_prior_sensitivity

    R = _load(args.file, args.format)
    R0 = _load(args.prior, args.format) if args.prior else None
    kw = {}
    for key, text in (("alpha0_grid", args.alpha0), ("a0_grid", args.a0)):
        values = _floats(text, "--" + key.split("_")[0])
        if values is not None:
            kw[key] = values
    if args.depth:
        kw["depth_grid"] = [int(x) for x in _floats(args.depth, "--depth")]
    ds = prior_sensitivity(
        R,
        _weights(args.weights),
        R0,
        kappa_grid=_floats(args.kappa, "--kappa"),
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        seed=args.seed,
        sampler=args.sampler,
        progressbar=not args.json,
        **kw,
    )
    if args.out:
        ds.to_netcdf(args.out, engine="h5netcdf")
    if args.plot:
        plot_prior_sensitivity(ds, args.plot)
    if args.json:
        out = {}
        for axis in ("alpha0", "a0", "depth", "kappa"):
            if f"mu_{axis}" in ds:
                out[axis] = {"grid": ds[axis].values.tolist()} | {
                    var: {
                        str(m): ds[f"{var}_{axis}"].sel(model=m).values.tolist()
                        for m in ds["model"].values
                    }
                    for var in ("mu", "sigma", "rank")
                }
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    for axis in ("alpha0", "a0", "depth", "kappa"):
        if f"mu_{axis}" not in ds:
            continue
        grid = ds[axis].values
        print(f"\n{axis}: " + ", ".join(f"{g:g}" for g in grid))
        rows = [
            [str(m)]
            + [
                f"{mu:.4f} ± {sd:.4f} (#{rk})"
                for mu, sd, rk in zip(
                    ds[f"mu_{axis}"].sel(model=m).values,
                    ds[f"sigma_{axis}"].sel(model=m).values,
                    ds[f"rank_{axis}"].sel(model=m).values,
                    strict=True,
                )
            ]
            for m in ds["model"].values
        ]
        _print_table(["model"] + [f"{axis}={g:g}" for g in grid], rows)
    if args.plot:
        print(f"\nplot written to {args.plot}")
    return 0


_STUDIES = (
    "biased-coin",
    "prior-benefit",
    "distinguishability",
    "convergence",
    "coverage",
    "elicit",
    "judges",
    "judges-synthetic",
)


def _cmd_coverage(args: argparse.Namespace) -> int:
    from pathlib import Path

    from bayes_eval.validation import coverage

    config = coverage.load_config(args.config) if args.config else coverage.CoverageConfig()
    if args.config is None and args.replicates:
        config.reps = config.exact_reps = args.replicates
    ds, info = coverage.run_study(
        config, args.out, scheduler=args.scheduler, n_workers=args.workers, progress=not args.json
    )
    png = Path(args.out) / "coverage.png"
    coverage.plot(ds, png, config.confidence)
    summary = coverage.summary(ds, config.confidence) | {
        "cells_computed": len(info["computed"]),
        "cells_resumed": len(info["skipped"]),
        "netcdf": str(Path(args.out) / "coverage.nc"),
        "plot": str(png),
    }
    print(json.dumps(summary, indent=2, default=_json_default))
    return 0


def _cmd_elicit(args: argparse.Namespace) -> int:
    import warnings

    from bayes_eval.validation import elicitation

    level = args.level or "benchmark"
    names: list[str] = []
    if args.file:
        R, names = _binary_or_categorical(args.file, args.format)
    # M: --questions, else the results file's, else 30
    n_q = args.questions or (R.shape[1] if args.file else 30)
    w = _weights(args.weights)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", elicitation.ElicitationWarning)
        if args.categories:
            if level == "benchmark":
                raise ValueError(
                    "--categories states the category shares of every single question; "
                    "benchmark-level rubric statements are not supported: pass --level question."
                )
            try:
                rows = [[float(x) for x in part.split(":")] for part in args.categories.split(",")]
            except ValueError as exc:
                raise ValueError(
                    "--categories expects lo:hi pairs, e.g. 0.1:0.4,0.1:0.3,0.4:0.7"
                ) from exc
            prior = elicitation.elicit_dirichlet(rows, args.prob, level=level, n_questions=n_q, w=w)
        else:
            if args.lo is None or args.hi is None:
                raise ValueError("elicit needs --lo and --hi (accuracy interval) or --categories.")
            prior = elicitation.elicit_beta(
                args.lo, args.hi, args.prob, level=level, n_questions=n_q, seed=args.seed
            )
    mismatch = [
        str(c.message).replace("level='benchmark'", "--level benchmark")
        for c in caught
        if c.category is elicitation.ElicitationWarning
    ]
    for c in caught:
        if c.category is not elicitation.ElicitationWarning:
            warnings.showwarning(c.message, c.category, c.filename, c.lineno)
    if args.level is None:
        note = (
            "level: benchmark (default): the statement is read as a prior on the model's "
            "accuracy over the benchmark (pi-bar); --level question applies it to every "
            "single question instead."
        )
    elif level == "benchmark":
        note = "level: benchmark: the statement is a prior on the model's benchmark accuracy."
    else:
        note = "level: question: the statement holds for every single question, independently."
    pred = elicitation.prior_predictive(prior, w, n_questions=n_q, seed=args.seed)
    out = {
        "level": level,
        "n_questions": n_q,
        "stated": prior.stated.tolist(),
        "implied_pi_bar": prior.implied.tolist(),
        "width_ratio": prior.width_ratio,
        "warning": mismatch[0] if mismatch else None,
        "prior": prior.as_dict(),
        "prior_predictive": pred,
    }
    if args.file:
        ds = elicitation.sensitivity(R, prior, w, models=names)
        out["sensitivity"] = {
            m: {
                p: {v: ds[v].sel(prior=p, model=m).item() for v in ("mu", "sigma", "rank")}
                for p in ("uniform", "elicited")
            }
            for m in names
        }
    if args.json:
        for msg in ([note] if args.level is None else []) + [f"warning: {m}" for m in mismatch]:
            print(msg, file=sys.stderr)
        print(json.dumps(out, indent=2, default=_json_default))
        return 0
    print(note)
    if prior.level == "benchmark":
        b, a = prior.hyper_alpha
        print(
            f"prior: benchmark mean accuracy m ~ Beta({a:.3f}, {b:.3f}); each question "
            f"Beta(s m, s (1 - m)) with s = {prior.concentration:g} (depth D = {prior.depth:.2f})"
        )
    else:
        alpha = ", ".join(f"{x:.3f}" for x in prior.alpha)
        print(f"prior: every question Dir({alpha}) (depth D = {prior.depth:.2f} trials)")
    pct = f"{prior.prob:.0%}"
    lo, hi = prior.stated
    what = "interval of one question's score" if args.categories else "interval"
    print(f"stated {pct} {what}: [{lo:.3f}, {hi:.3f}]")
    lo, hi = prior.implied
    print(
        f"implied {pct} interval of pi-bar for M = {n_q} questions: [{lo:.3f}, {hi:.3f}] "
        f"(width ratio {prior.width_ratio:.3f}; {prior.implied_method})"
    )
    for msg in mismatch:
        print(f"warning: {msg}")
    qs = pred["pi_bar_quantiles"]
    print(
        f"prior predictive of pi-bar: mean {pred['pi_bar_mean']}, sd {pred['pi_bar_sd']}, "
        f"95% [{qs['0.025']}, {qs['0.975']}]"
    )
    if names:
        print()
        _print_table(
            ["model", "uniform", "elicited"],
            [
                [m]
                + [
                    "{mu:.4f} ± {sigma:.4f} (#{rank})".format(**out["sensitivity"][m][p])
                    for p in ("uniform", "elicited")
                ]
                for m in names
            ],
        )
    return 0


def _binary_or_categorical(path: str, file_format: str | None):
    R = _load(path, file_format)
    if np.isnan(R.values).any():
        raise ValueError(
            f"{path}: the sensitivity report needs complete results (no missing trials)."
        )
    return R.values.astype(np.int64), [str(m) for m in R["model"].values]


def _cmd_validate(args: argparse.Namespace) -> int:
    from pathlib import Path

    if args.study == "coverage":
        return _cmd_coverage(args)
    if args.study == "elicit":
        return _cmd_elicit(args)
    if args.study.startswith("judges"):
        return _cmd_judges_study(args)
    from bayes_eval.validation import (
        biased_coin_study,
        convergence_study,
        distinguishability,
        prior_benefit,
    )

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress = not args.json
    start = time.perf_counter()
    methods = args.methods.split(",") if args.methods else None
    if args.study == "biased-coin":
        module = biased_coin_study
        kw = {"methods": methods} if methods else {}
        ds = module.run(
            independent=args.independent,
            bootstrap=args.replicates or 10_000,
            seed=args.seed,
            progress=progress,
            **kw,
        )
    elif args.study == "prior-benefit":
        module = prior_benefit
        ds = module.run(replicates=args.replicates or 50_000, seed=args.seed, progress=progress)
    elif args.study == "distinguishability":
        module = distinguishability
        ds = module.run(replicates=args.replicates or 10_000, seed=args.seed, progress=progress)
    else:
        module = convergence_study
        if not args.file:
            raise ValueError("the convergence study needs a results FILE (long table).")
        R, names = convergence_study.from_file(args.file, args.format)
        kw = {"methods": methods} if methods else {}
        ds = module.run(
            R,
            names,
            replicates=args.replicates or 10_000,
            replace=args.replace,
            subset_size=args.subset_size,
            seed=args.seed,
            progress=progress,
            **kw,
        )
    stem = args.study.replace("-", "_")
    nc = out_dir / f"{stem}.nc"
    png = out_dir / f"{stem}.png"
    ds.to_netcdf(nc, engine="h5netcdf" if _has_h5netcdf() else None)
    module.plot(ds, png)
    summary = module.summary(ds) | {
        "netcdf": str(nc),
        "plot": str(png),
        "seconds": round(time.perf_counter() - start, 2),
    }
    if args.json:
        json.dump(summary, sys.stdout, indent=2, default=_json_default)
        print()
    else:
        print(json.dumps(summary, indent=2, default=_json_default))
    return 0


def _cmd_adaptive(args: argparse.Namespace) -> int:
    if args.action == "roots":
        return _adaptive_roots(args)
    return _adaptive_simulate(args)


def _adaptive_roots(args: argparse.Namespace) -> int:
    from bayes_eval.adaptive.gittins_index import posterior_variances, root_schedule, stage_setup

    if args.examples is not None:
        H, tau2, per_stage = stage_setup(args.examples, args.batch, granularity=args.granularity)
    else:
        if args.horizon is None or args.tau2 is None:
            raise ValueError(
                "give --examples (with --batch, --granularity) or --horizon and --tau2."
            )
        H, tau2, per_stage = args.horizon, args.tau2, 1
    cost = args.cost * per_stage if args.examples is not None else args.cost
    start = time.perf_counter()
    rs = root_schedule(cost, args.v0, tau2, H, grid_size=args.grid)
    seconds = time.perf_counter() - start
    v = posterior_variances(args.v0, tau2, H)
    step = v[:-1] ** 2 / (v[:-1] + tau2)
    if args.json:
        json.dump(
            {
                "cost_per_stage": cost,
                "v0": args.v0,
                "tau2": tau2,
                "horizon": H,
                "grid": args.grid,
                "seconds": seconds,
                "roots": rs.roots.tolist(),
                "posterior_variance": v[:-1].tolist(),
                "step_variance": step.tolist(),
            },
            sys.stdout,
            indent=2,
        )
        print()
        return 0
    print(
        f"root schedule: cost/stage {cost:g}, v0 {args.v0:g}, tau^2 {tau2:g}, H {H} "
        f"({args.grid} grid points, {seconds:.3f} s); index G_n(s) = s - r_n"
    )
    rows = [[str(n), f"{v[n]:.6g}", f"{step[n]:.6g}", f"{rs.roots[n]:.6f}"] for n in range(H)]
    _print_table(["n", "v_n", "sigma_n^2", "r_n"], rows)
    return 0


def _adaptive_simulate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from bayes_eval.adaptive import synthetic as sb
    from bayes_eval.adaptive.simulation import default_policies, plot_regret, simulate

    if args.dataset in ("gsm8k", "piqa"):
        make = sb.gsm8k_like if args.dataset == "gsm8k" else sb.piqa_like
        arms = args.arms or f"dataset:bandit_{args.dataset}_arms"
        data = make(arms, n_examples=args.examples or 1000, seed=args.data_seed)
    elif args.dataset == "mmlu":
        if not args.subject:
            raise ValueError("--dataset mmlu needs --subject (an MMLU subject, e.g. anatomy).")
        meta = args.meta or "dataset:bandit_mmlu_meta"
        data = sb.mmlu_like(meta, args.subject, n_examples=args.examples, seed=args.data_seed)
    else:
        if not args.matrix:
            raise ValueError("--dataset matrix needs --matrix FILE (.npy or .csv).")
        costs = np.loadtxt(args.costs, delimiter=",", ndmin=1) if args.costs else None
        prior = tuple(_floats(args.prior, "--prior") or (0.5, 0.04))
        if len(prior) != 2:
            raise ValueError("--prior is MEAN,VARIANCE, e.g. 0.5,0.04.")
        data = sb.from_matrix(args.matrix, costs=costs, prior=prior)
    policies = default_policies(data, granularity=args.granularity, lrf=args.lrf)
    start = time.perf_counter()
    ds = simulate(
        data,
        policies,
        batch_size=args.batch,
        budget=args.budget,
        budget_kind=args.budget_kind,
        cost_scale=args.cost_scale,
        seeds=args.seeds,
        progress=not args.json,
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    nc, png = out / "adaptive.nc", out / "adaptive_regret.png"
    ds.to_netcdf(nc, engine="h5netcdf" if _has_h5netcdf() else None)
    plot_regret(ds, png)
    checkpoints = [f for f in (0.01, 0.02, 0.05, 0.1) if f <= args.budget + 1e-12]
    table = {}
    for p in ds["policy"].values:
        row = {}
        for f in checkpoints:
            sel = ds.sel(policy=p).sel(fraction=f, method="nearest")
            row[f"{100 * f:g}%"] = [float(sel["regret_mean"]), float(sel["regret_se"])]
        stops = ds["stop_fraction"].sel(policy=p).values
        row["stop_fraction_mean"] = float(np.nanmean(stops)) if np.isfinite(stops).any() else None
        row["stopped_runs"] = int(np.isfinite(stops).sum())
        table[str(p)] = row
    summary = {
        "dataset": data.name,
        "arms": int(data.matrix.shape[0]),
        "examples": int(data.matrix.shape[1]),
        "batch": args.batch,
        "budget": args.budget,
        "budget_kind": args.budget_kind,
        "seeds": args.seeds,
        "granularity": args.granularity,
        "regret_mean_se": table,
        "netcdf": str(nc),
        "plot": str(png),
        "seconds": round(time.perf_counter() - start, 2),
    }
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        print()
        return 0
    unit = "cells" if args.budget_kind == "cells" else "total cost"
    print(
        f"{data.name}: {summary['arms']} arms x {summary['examples']} examples, "
        f"B = {args.batch}, {args.seeds} seeds; simple regret (mean +- SE) at % of "
        f"{unit}"
    )
    rows = [
        [
            p,
            *(f"{v[0]:.4f} +- {v[1]:.4f}" for k, v in r.items() if k.endswith("%")),
            "-"
            if r["stop_fraction_mean"] is None
            else f"{100 * r['stop_fraction_mean']:.2f}% ({r['stopped_runs']} runs)",
        ]
        for p, r in table.items()
    ]
    _print_table(["policy", *(f"{100 * f:g}%" for f in checkpoints), "Gittins stop"], rows)
    print(f"written: {nc}, {png}")
    return 0


def _judge_datasets(args: argparse.Namespace):
    """[(label, JudgeData)] from a count table, the SummEval CSV or a per-question table."""
    import pandas as pd

    from bayes_eval.datasets import load, table_path
    from bayes_eval.judges import data as jd

    path = table_path(args.file)
    try:
        head = pd.read_csv(path, nrows=5)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{args.file}: could not be read as CSV ({exc}).") from exc
    truth = None
    if args.file == "dataset:mtbench_judges" and not args.truth:  # the shipped human order
        ranks = load("mtbench_judges")["human_rank"]
        n = ranks.sizes["candidate"]
        names = ranks["candidate"].values
        truth = {str(c): float(n + 1 - r) for c, r in zip(names, ranks.values, strict=True)}
    if args.truth:
        t = pd.read_csv(args.truth)
        if not {"candidate", "score"} <= set(t.columns):
            raise ValueError(f"{args.truth}: expected columns candidate, score.")
        truth = dict(zip(t["candidate"].astype(str), t["score"].astype(float), strict=True))
    cols = set(head.columns)
    if {"doc_id", "system", "dim"} <= cols:
        dims = [args.dim] if args.dim else sorted(pd.read_csv(path)["dim"].unique())
        return [(d, jd.summeval(path, d)) for d in dims]
    if {"candidate", "judge", "score", "count"} <= cols:
        return [("all", jd.from_count_table(path, truth=truth))]
    if {"question", "judge", "candidate", "score"} <= cols:
        df = pd.read_csv(path)
        qs = pd.unique(df["question"])
        js = list(pd.unique(df["judge"].astype(str)))
        ks = list(pd.unique(df["candidate"].astype(str)))
        cube = np.full((len(qs), len(js), len(ks)), np.nan)
        qi = pd.Index(qs).get_indexer(df["question"])
        ji = pd.Index(js).get_indexer(df["judge"].astype(str))
        ki = pd.Index(ks).get_indexer(df["candidate"].astype(str))
        cube[qi, ji, ki] = pd.to_numeric(df["score"])
        fam = None
        if {"judge_family", "candidate_family"} <= cols:
            jf = dict(zip(df["judge"].astype(str), df["judge_family"], strict=True))
            kf = dict(zip(df["candidate"].astype(str), df["candidate_family"], strict=True))
            fam = np.array([[jf[j] == kf[k] for k in ks] for j in js])
        levels = args.levels or (2 if args.abstain else int(np.nanmax(cube)))
        tr = None if truth is None else [truth[k] for k in ks]
        data = jd.from_scores(
            cube,
            candidates=ks,
            judges=js,
            n_levels=levels,
            same_family=fam,
            abstain=args.abstain,
            truth=tr,
        )
        return [("all", data)]
    raise ValueError(
        f"{args.file}: expected a count table (candidate, judge, score, count), a per-question "
        "table (question, judge, candidate, score) or the SummEval CSV (doc_id, system, dim)."
    )


def _cmd_judges(args: argparse.Namespace) -> int:
    from pathlib import Path

    from bayes_eval.judges import baselines as jb
    from bayes_eval.models.judges import FitSettings, fit_judges

    datasets = _judge_datasets(args)
    if args.sensitivity:
        return _judge_sensitivity(args, datasets)
    settings = FitSettings(
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        seed=args.seed,
        progressbar=not args.json,
        sampler=args.sampler,
    )
    report = []
    start = time.perf_counter()
    for label, data in datasets:
        t0 = time.perf_counter()
        fit = fit_judges(
            data,
            omega=args.omega,
            beta_max=args.beta_max,
            integrated=args.integrated,
            exclude_same_family=not args.keep_same_family,
            settings=settings,
        )
        r = fit["ranking"].to_dataset()
        entry = {
            "dataset": label,
            "seconds": round(time.perf_counter() - t0, 1),
            "settings": {k: fit.attrs[k] for k in ("omega", "beta_max", "exclude_same_family")},
            "diagnostics": {
                k: fit.attrs[k] for k in ("max_rhat", "min_ess_bulk", "divergences", "converged")
            },
            "candidates": [
                {
                    "candidate": c,
                    "mu": float(r["mu_mean"][i]),
                    "mu_interval": [float(r["mu_lo"][i]), float(r["mu_hi"][i])],
                    "rank": int(r["rank"][i]),
                    "rank_interval": [int(r["rank_lo"][i]), int(r["rank_hi"][i])],
                }
                for i, c in enumerate(data.candidates)
            ],
        }
        if data.truth is not None:
            cov = jb.rank_coverage(r["rank_lo"].values, r["rank_hi"].values, data.truth)
            entry["bayesian"] = {
                "spearman": jb.spearman(r["mu_mean"].values, data.truth),
                "coverage": cov,
            }
            if args.baselines:
                boot = jb.bootstrap_rank_intervals(data, seed=args.seed)
                bt = jb.bradley_terry_ties(data, seed=args.seed)
                single = jb.single_judge_scores(data)
                avg = jb.simple_average(data)
                entry["baselines"] = {
                    "simple_average": {"spearman": jb.spearman(avg, data.truth)},
                    "single_judge": {
                        "spearman": float(np.nanmean([jb.spearman(s, data.truth) for s in single]))
                    },
                    "bootstrap": {
                        "spearman": jb.spearman(boot.scores, data.truth),
                        "coverage": jb.rank_coverage(boot.lo, boot.hi, data.truth),
                    },
                    "bradley_terry": {
                        "spearman": jb.spearman(bt.scores, data.truth),
                        "coverage": jb.rank_coverage(bt.lo, bt.hi, data.truth),
                    },
                }
        if args.out:
            out = Path(args.out)
            path = out.with_name(f"{out.stem}_{label}{out.suffix}") if len(datasets) > 1 else out
            fit.to_netcdf(path, engine="h5netcdf")
            entry["netcdf"] = str(path)
        if args.plot:
            entry["plot"] = _judge_plot(fit, data, args.plot, label, len(datasets))
        report.append(entry)
    summary = {"file": args.file, "seconds": round(time.perf_counter() - start, 1), "fits": report}
    if len(report) > 1 and all("bayesian" in e for e in report):
        summary["mean_bayesian"] = {
            k: float(np.mean([e["bayesian"][k] for e in report])) for k in ("spearman", "coverage")
        }
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        print()
        return 0
    for e in report:
        print(f"\n{args.file} [{e['dataset']}]: {e['seconds']} s, diagnostics {e['diagnostics']}")
        rows = [
            [
                c["candidate"],
                f"{c['mu']:.3f}",
                f"[{c['mu_interval'][0]:.3f}, {c['mu_interval'][1]:.3f}]",
                str(c["rank"]),
                f"{c['rank_interval'][0]}-{c['rank_interval'][1]}",
            ]
            for c in sorted(e["candidates"], key=lambda c: c["rank"])
        ]
        _print_table(["candidate", "E[true score]", "95% interval", "rank", "95% rank CrI"], rows)
        if "bayesian" in e:
            print(
                f"vs truth: Spearman {e['bayesian']['spearman']:.3f}, rank coverage "
                f"{e['bayesian']['coverage']:.3f}"
            )
        for name, m in e.get("baselines", {}).items():
            print(f"  {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in m.items()))
    if "mean_bayesian" in summary:
        print(f"\nmean over dimensions: {summary['mean_bayesian']}")
    return 0


def _judge_sensitivity(args: argparse.Namespace, datasets) -> int:
    from bayes_eval.models.judges import FitSettings, judge_sensitivity

    settings = FitSettings(
        draws=args.draws, tune=args.tune, chains=args.chains, seed=args.seed, sampler=args.sampler
    )
    out = {}
    for label, data in datasets:
        ds = judge_sensitivity(data, settings=settings, progress=not args.json)
        out[label] = {
            str(k): float(v)
            for k, v in zip(ds["setting"].values, ds["spearman_vs_base"].values, strict=True)
        }
        if args.out:
            from pathlib import Path

            o = Path(args.out)
            ds.to_netcdf(
                o if len(datasets) == 1 else o.with_name(f"{o.stem}_{label}{o.suffix}"),
                engine="h5netcdf",
            )
    if args.json:
        json.dump({"base": "omega=0, beta_max=5", "spearman_vs_base": out}, sys.stdout, indent=2)
        print()
        return 0
    for label, row in out.items():
        print(f"{args.file} [{label}]: Spearman with the base fit (omega=0, beta_max=5)")
        _print_table(["setting", "Spearman"], [[k, f"{v:.3f}"] for k, v in row.items()])
    return 0


def _judge_plot(fit, data, plot: str, label: str, n: int) -> str:
    from pathlib import Path

    from bayes_eval.judges.simplex import plot_simplex

    post = fit["posterior"].to_dataset()
    theta = post["theta"].mean(("chain", "draw")).values  # (J, M, L)
    pi = post["pi"].mean(("chain", "draw")).values  # (K, M)
    if theta.shape[1] == 5 and theta.shape[2] == 5:  # collapse 1-5 to {1,2}, {3}, {4,5}
        groups = [[0, 1], [2], [3, 4]]
        theta = np.stack(
            [np.stack([theta[:, g].mean(1)[:, h].sum(-1) for h in groups], -1) for g in groups], 1
        )
        pi = np.stack([pi[:, g].sum(-1) for g in groups], -1)
        levels = ("1-2", "3", "4-5")
    elif theta.shape[1:] == (3, 3):
        levels = tuple(data.assigned_levels)
    else:
        raise ValueError("the simplex plot needs 3 levels, or 5 levels (collapsed to 3).")
    gamma = np.einsum("km,jms->jks", pi, theta)
    path = Path(plot) if n == 1 else Path(plot).with_name(f"{Path(plot).stem}_{label}.png")
    plot_simplex(
        theta,
        gamma,
        path,
        candidates=data.candidates,
        judges=data.judges,
        levels=levels,
        title=f"{label}: posterior means",
    )
    return str(path)


def _cmd_judges_study(args: argparse.Namespace) -> int:
    from pathlib import Path

    from bayes_eval.models.judges import FitSettings
    from bayes_eval.validation import judges_study

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    settings = FitSettings(seed=args.seed, progressbar=not args.json)
    if args.study == "judges":
        if args.file:
            raise ValueError(
                "validate judges runs on the shipped datasets mtbench_judges and "
                "summeval_judges and takes no FILE; rank your own judge scores with "
                "`bayes-eval judges FILE`."
            )
        ds = judges_study.run_table1(settings=settings, seed=args.seed)
    else:
        ds = judges_study.run_synthetic(
            replicates=args.replicates or 10,
            settings=settings,
            progress=not args.json,
            seed=args.seed,
            n=args.questions or 400,
        )
    stem = args.study.replace("-", "_")
    nc, png = out_dir / f"{stem}.nc", out_dir / f"{stem}.png"
    ds.to_netcdf(nc, engine="h5netcdf" if _has_h5netcdf() else None)
    judges_study.plot(ds, png)
    seconds = round(time.perf_counter() - start, 1)
    result = judges_study.summary(ds) | {"netcdf": str(nc), "plot": str(png), "seconds": seconds}
    print(json.dumps(result, indent=2, default=_json_default))
    return 0


def _has_h5netcdf() -> bool:
    import importlib.util

    return importlib.util.find_spec("h5netcdf") is not None


def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return None if np.isnan(value) else float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_FORMATS = ["csv", "parquet", "inspect", "lm-eval", "helm", "cruxeval", "taubench"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bayes-eval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    r = sub.add_parser("rank", help="rank models from evaluation logs or a long table")
    r.add_argument("file", nargs="+", help="log files or directories (same format)")
    r.add_argument("--weights", help="rubric weights w_0..w_C, e.g. 0,0.5,1 (default: binary 0,1)")
    r.add_argument("--prior", help="prior runs R0 in the same format (same models and questions)")
    r.add_argument("--confidence", type=float, default=0.95, help="credibility level (0.95)")
    r.add_argument("--interval", choices=["normal", "exact"], default="normal")
    r.add_argument(
        "--prior-kind",
        choices=["empirical", "empirical-plugin", "uniform", "jeffreys"],
        default="empirical",
        help="per-question prior: learned from the questions and integrated over its "
        "uncertainty (empirical, default: calibrated on real benchmarks), learned and plugged "
        "in, or the paper's uniform Dirichlet (reproduces Hariri et al.), or Jeffreys",
    )
    r.add_argument(
        "--pool",
        choices=["model", "benchmark"],
        default="model",
        help="learned prior: one per model (default) or one for all models",
    )
    r.add_argument("--format", choices=_FORMATS, help="log format (default: auto-detected)")
    r.add_argument("--schema", help="built-in rubric schema (see `bayes-eval schemas`)")
    r.add_argument("--schema-file", help="user-defined rubric schema (TOML)")
    r.add_argument("--model", help="model name where the log does not give one")
    r.add_argument("--metric", help="lm-eval / HELM metric used as the 0/1 score")
    r.add_argument("--filter", help="lm-eval filter (default: the first in the file)")
    r.add_argument("--scorer", help="Inspect scorer giving the category (default: the first)")
    r.add_argument("--plot", metavar="FILE.png", help="write a forest plot")
    r.add_argument("--json", action="store_true", help="print JSON")
    r.set_defaults(func=_cmd_rank)

    sc = sub.add_parser(
        "schemas", help="list the rubric schemata (Table 5), or rank logs under each of them"
    )
    sc.add_argument("file", nargs="*", help="logs with signals: ranks under every schema")
    sc.add_argument("--only", help="comma-separated schema keys (default: all that apply)")
    sc.add_argument("--format", choices=_FORMATS)
    sc.add_argument("--confidence", type=float, default=0.95)
    sc.add_argument("--plot", metavar="FILE.png", help="bump chart of ranks (Fig. 7)")
    sc.add_argument("--json", action="store_true")
    sc.set_defaults(func=_cmd_schemas)

    p = sub.add_parser("plan", help="trials needed to separate two models with assurance (App. D)")
    p.add_argument("file")
    p.add_argument("model_a")
    p.add_argument("model_b")
    p.add_argument("--z", type=float, default=1.645, help="target z (1.645 = 95%% confidence)")
    p.add_argument(
        "--assurance",
        type=float,
        default=0.8,
        help="target probability of reaching z (posterior predictive); default 0.8",
    )
    p.add_argument("--draws", type=int, default=2000, help="Monte Carlo simulations")
    p.add_argument("--max-trials", type=int, default=10_000, help="largest N per question")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--weights")
    p.add_argument("--format", choices=_FORMATS)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_plan)

    c = sub.add_parser("crosscheck", help="NUTS and exact Monte Carlo against the closed form")
    c.add_argument("file")
    c.add_argument("--weights")
    c.add_argument("--prior", help="prior runs R0 (same format)")
    c.add_argument("--sampler", choices=["pymc", "nutpie"], default="pymc")
    c.add_argument("--draws", type=int, default=1000)
    c.add_argument("--tune", type=int, default=1000)
    c.add_argument("--chains", type=int, default=4)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--mc-draws", type=int, default=200_000, help="exact Dirichlet draws per model")
    c.add_argument("--out", metavar="results.nc", help="save the DataTree as NetCDF")
    c.add_argument("--format", choices=_FORMATS)
    c.add_argument("--no-progress", action="store_true")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_cmd_crosscheck)

    s = sub.add_parser("priors", help="prior sensitivity of mu, sigma and ranks")
    s.add_argument("file")
    s.add_argument("--weights")
    s.add_argument("--prior", help="prior runs R0 (enables the a0 and depth axes)")
    s.add_argument("--alpha0", help="grid, e.g. 0.1,0.5,1,2,5")
    s.add_argument("--a0", help="power-prior grid in [0, 1], e.g. 0,0.5,1")
    s.add_argument("--depth", help="prior depths D, e.g. 0,1,2,4")
    s.add_argument("--kappa", help="medians of the kappa prior (NUTS fits), e.g. 1,5,25")
    s.add_argument("--sampler", choices=["pymc", "nutpie"], default="pymc")
    s.add_argument("--draws", type=int, default=500)
    s.add_argument("--tune", type=int, default=500)
    s.add_argument("--chains", type=int, default=2)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--plot", metavar="FILE.png")
    s.add_argument("--out", metavar="FILE.nc")
    s.add_argument("--format", choices=_FORMATS)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_priors)

    v = sub.add_parser("validate", help="validation studies (NetCDF + PNG)")
    v.add_argument("study", choices=_STUDIES)
    v.add_argument("file", nargs="?", help="results file (convergence study)")
    v.add_argument("--out", default="validation_out", help="output folder")
    v.add_argument("--replicates", type=int, help="bootstrap/simulation replicates")
    v.add_argument("--independent", type=int, default=1000, help="biased-coin: fresh matrices")
    v.add_argument(
        "--methods", help="comma-separated, e.g. bayes,pass_at_k:4,g_pass_at_k_tau:4:0.5"
    )
    v.add_argument("--replace", action="store_true", help="convergence: resample with replacement")
    v.add_argument("--subset-size", type=int, help="convergence: random model subsets (Fig. 4)")
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--config", help="coverage: TOML grid (M, N, C, scenarios, reps, ...)")
    v.add_argument("--scheduler", help="coverage: address of a Dask scheduler, tcp://HOST:PORT")
    v.add_argument("--workers", type=int, help="coverage: workers of the local Dask cluster")
    v.add_argument("--lo", type=float, help="elicit: lower end of the accuracy interval")
    v.add_argument("--hi", type=float, help="elicit: upper end of the accuracy interval")
    v.add_argument("--prob", type=float, default=0.9, help="elicit: probability of the interval")
    v.add_argument(
        "--level",
        choices=["benchmark", "question"],
        help="elicit: the statement is about the model's accuracy on the benchmark (default) "
        "or about every single question",
    )
    v.add_argument(
        "--categories", help="elicit: per-category lo:hi pairs for a rubric (--level question)"
    )
    v.add_argument("--weights", help="elicit: rubric weights")
    v.add_argument(
        "--questions",
        type=int,
        help="elicit: M for the prior predictive (30); judges-synthetic: n (400)",
    )
    v.add_argument("--format", choices=_FORMATS)
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=_cmd_validate)

    a = sub.add_parser(
        "adaptive", help="cost-aware adaptive evaluation (Gittins indices, Xie et al.)"
    )
    a.add_argument("action", choices=["roots", "simulate"])
    a.add_argument("--cost", type=float, default=1e-4, help="roots: cost per example")
    a.add_argument("--v0", type=float, default=0.04, help="roots: prior variance")
    a.add_argument("--tau2", type=float, help="roots: observation variance per stage")
    a.add_argument("--horizon", type=int, help="roots: stages H")
    a.add_argument("--grid", type=int, default=2**14, help="roots: DP grid points")
    a.add_argument("--examples", type=int, help="N examples per arm (sets H and tau^2)")
    a.add_argument("--batch", type=int, default=4, help="B examples per pull")
    a.add_argument(
        "--granularity",
        choices=["batch", "cell"],
        default="cell",
        help="one DP stage per batch (paper text) or per cell (experiments)",
    )
    a.add_argument("--dataset", choices=["gsm8k", "piqa", "mmlu", "matrix"], default="mmlu")
    a.add_argument(
        "--arms",
        help="gsm8k/piqa: arm metadata CSV (model, prompt, ..., price); "
        "default: the shipped dataset:bandit_gsm8k_arms / dataset:bandit_piqa_arms",
    )
    a.add_argument(
        "--meta", help="mmlu: subject metadata JSON (default: the shipped dataset:bandit_mmlu_meta)"
    )
    a.add_argument("--subject", help="mmlu: subject, e.g. anatomy")
    a.add_argument("--matrix", help="matrix: your response matrix (.npy or .csv, arms x examples)")
    a.add_argument("--costs", help="matrix: per-arm costs (.csv, one per arm)")
    a.add_argument("--prior", help="matrix: dataset prior MEAN,VARIANCE for Gittins-S")
    a.add_argument("--data-seed", type=int, default=0, help="seed of the synthetic matrix")
    a.add_argument("--budget", type=float, default=0.1, help="fraction of cells or of cost")
    a.add_argument("--budget-kind", choices=["cells", "cost"], default="cells")
    a.add_argument("--cost-scale", type=float, default=1e-4, help="lambda: price -> score units")
    a.add_argument("--seeds", type=int, default=10)
    a.add_argument("--lrf", action="store_true", help="also run UCB-E-LRF (slow)")
    a.add_argument("--out", default="adaptive_out")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=_cmd_adaptive)

    jg = sub.add_parser("judges", help="Bayesian ranking from LLM-judge scores (Vossler et al.)")
    jg.add_argument("file", help="count table, per-question table or the SummEval CSV")
    jg.add_argument("--dim", help="SummEval dimension (default: all four)")
    jg.add_argument("--truth", help="CSV candidate,score with ground-truth scores")
    jg.add_argument("--levels", type=int, help="true levels M (per-question table)")
    jg.add_argument("--abstain", action="store_true", help="binary scores -1/0/1 with abstention")
    jg.add_argument("--omega", type=float, default=0.0, help="random-effect strength (0)")
    jg.add_argument("--beta-max", type=float, default=5.0, help="DAG prior strength (5)")
    jg.add_argument("--integrated", action="store_true", help="hyperpriors on omega, beta_max")
    jg.add_argument("--keep-same-family", action="store_true", help="do not exclude self-judging")
    jg.add_argument("--baselines", action="store_true", help="also simple average, bootstrap, BT")
    jg.add_argument(
        "--sensitivity",
        action="store_true",
        help="the §5.4 grid: omega in 0,1,2,4,8 and beta_max in 0,1,5,10,20",
    )
    jg.add_argument("--draws", type=int, default=1000)
    jg.add_argument("--tune", type=int, default=1000)
    jg.add_argument("--chains", type=int, default=4)
    jg.add_argument("--seed", type=int, default=0)
    jg.add_argument("--sampler", choices=["pymc", "nutpie"], default="pymc")
    jg.add_argument("--out", metavar="results.nc", help="save the DataTree (NetCDF)")
    jg.add_argument("--plot", metavar="simplex.png", help="ternary plot of judges and candidates")
    jg.add_argument("--json", action="store_true")
    jg.set_defaults(func=_cmd_judges)

    ds = sub.add_parser("datasets", help="list the real datasets shipped with the package")
    ds.add_argument("name", nargs="?", help="show one dataset's source, licence, dims, files")
    ds.add_argument("--json", action="store_true")
    ds.set_defaults(func=_cmd_datasets)

    d = sub.add_parser(
        "demo", help="rank the shipped MathArena leaderboard; the paper's biased-coin mimics"
    )
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--trials", type=int, default=80)
    d.add_argument("--questions", type=int, default=30)
    d.add_argument("--plot", metavar="FILE.png")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``bayes-eval``; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        return 0
    except ValueError as exc:
        print(f"bayes-eval: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
