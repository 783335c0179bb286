"""``bayes-eval crosscheck``: NUTS and exact Monte Carlo against the closed form."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table, uncertain
from bayes_eval.cli._types import SubParsers, positive_int

if TYPE_CHECKING:
    import xarray as xr

HELP = "check the closed-form Bayes@N against NUTS and exact Monte Carlo (PyMC)"
DESCRIPTION = """\
Fits the PyMC model that matches the closed form under the prior the header names (the
matching model for a fixed prior, the hierarchical model for the learned one) with NUTS,
draws the exact posterior by Monte Carlo, and compares both with the closed form of Hariri et
al., "Don't Pass@k" (eq. 15): means, sds, r-hat, ESS and pairwise P(a > b) for these
questions. Exit status 1 if a check fails."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval crosscheck`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "crosscheck",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options(),
            opt.data_options(),
            opt.prior_options(),
            opt.nuts_options(draws=1000, tune=1000, chains=4),
            opt.output_options(
                netcdf="save the DataTree as NetCDF",
                plot="forest plot of pi-bar, closed form (exact draws) beside NUTS (arviz-plots)",
            ),
        ],
    )
    p.add_argument(
        "--mc-draws",
        type=positive_int,
        default=200_000,
        help="exact Dirichlet draws per model (200000)",
    )
    p.set_defaults(func=run)


def _pm(mean: float, sd: float) -> str:
    return f"{float(mean):.4f} ± {float(sd):.4f}"


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval crosscheck`` with the parsed ``args``; return the exit status.

    Compares the closed form with NUTS and exact Monte Carlo, per model and per pair, and
    prints the verdicts (or the ``--json`` document). Returns 1 if a check fails, else 0.
    """
    from bayes_eval.models import crosscheck, save

    prior = opt.prior_from(args)
    if args.fractional or args.questions == "all":
        raise ValueError(
            "crosscheck fits categorical results on one question set: --fractional and "
            "--questions all do nothing here (use --score-levels, --questions common)."
        )
    nuts = opt.sampler_settings(args, quiet=args.json)
    scored = opt.load_results(args)
    result = crosscheck(
        scored.R,
        scored.weights,
        scored.R0,
        prior=prior,
        nuts=nuts,
        mc_draws=args.mc_draws,
    )
    if args.netcdf:
        save(result.idata, args.netcdf)
    if args.plot:
        from bayes_eval.plotting.arviz import plot_forest
        from bayes_eval.xr import posterior_tree

        exact = posterior_tree(
            scored.R, scored.weights, scored.R0, prior=prior, seed=nuts.seed, skipna=True
        )
        plot_forest(
            {"closed form": exact, "NUTS": result.idata},
            args.plot,
            title=f"pi-bar: closed form and NUTS ({args.file})",
        )
    status = 0 if result.passed else 1
    if args.json:
        emit_json(result.to_dict() | {"netcdf": args.netcdf})
        return status
    m = result.models
    say(
        f"Cross-check of {args.file}: {m.sizes['model']} models; prior: {m.attrs['prior']} "
        f"({m.attrs['pymc_model']} model); estimand: {m.attrs['estimand']}; sampler "
        f"{m.attrs['sampler']}, {m.attrs['chains']} x {m.attrs['draws']} draws, "
        f"{int(m.attrs['divergences'])} divergences"
    )
    _print_models(m)
    _print_pairs(result.pairs)
    say(
        f"overall: {'PASS' if result.passed else 'FAIL'}"
        + (f"; saved {args.netcdf}" if args.netcdf else "")
        + (f"; plot {args.plot}" if args.plot else "")
    )
    return status


def _print_models(m: xr.Dataset) -> None:
    """The table of the models: closed form, NUTS, exact Monte Carlo and each verdict."""
    rows = []
    for name in m["model"].values:
        r = m.sel(model=name)
        rows.append(
            [
                str(name),
                _pm(r.mu, r.sigma),
                _pm(r.nuts_mean, r.nuts_sd),
                f"{float(r.z_mean):+.2f} / {float(r.z_sd):+.2f}",
                _pm(r.mc_mean, r.mc_sd),
                f"{float(r.r_hat):.3f}",
                f"{float(r.ess_bulk):.0f}/{float(r.ess_tail):.0f}",
                "pass" if bool(r.passed) else f"FAIL ({r.failed_checks.item()})",
            ]
        )
    table(
        [
            "model",
            "closed form",
            "NUTS",
            uncertain("z mean/sd"),
            "exact MC",
            "r-hat",
            "ESS b/t",
            "verdict",
        ],
        rows,
    )


def _print_pairs(p: xr.Dataset) -> None:
    """The table of the pairs: P(better) by the normal approximation, NUTS and exactly."""
    names = list(p["model"].values)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            c = p.sel(model=a, model_bis=b)
            pairs.append(
                [
                    f"{a} > {b}",
                    f"{float(c.rho_normal):.4f}",
                    _pm(c.p_nuts, c.mcse_p_nuts),
                    f"{float(c.p_exact):.4f}",
                    "pass" if bool(c.passed) else "FAIL",
                ]
            )
    if pairs:
        table(["pair", "rho (normal)", "P NUTS", "P exact", "verdict"], pairs)
