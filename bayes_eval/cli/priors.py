"""``bayes-eval priors``: how mu, sigma and the ranks move with the prior."""

from __future__ import annotations

import argparse

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table
from bayes_eval.cli._types import integers, numbers

HELP = "prior sensitivity of mu, sigma and ranks (Dirichlet, power prior, depth, kappa)"
DESCRIPTION = """\
mu, sigma and ranks of every model over grids of prior strength: the Dirichlet alpha0 of
Hariri et al., "Don't Pass@k" (eq. 6), and with --prior-file the power prior a0 and the prior
depth D of the earlier runs; --kappa adds NUTS fits of the hierarchical model (PyMC)."""

AXES = ("alpha0", "a0", "depth", "kappa")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "priors",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options(),
            opt.weights_options(),
            opt.prior_file_options(),
            opt.nuts_options(draws=500, tune=500, chains=2),
            opt.output_options(plot="plot of mu and ranks over each grid", out="save as NetCDF"),
        ],
    )
    g = p.add_argument_group("grids")
    g.add_argument("--alpha0", type=numbers, help="Dirichlet alpha0 grid, e.g. 0.1,0.5,1,2,5")
    g.add_argument("--a0", type=numbers, help="power-prior grid in [0, 1], e.g. 0,0.5,1")
    g.add_argument("--depth", type=integers, help="prior depths D, e.g. 0,1,2,4")
    g.add_argument("--kappa", type=numbers, help="medians of the kappa prior (NUTS), e.g. 1,5")
    p.set_defaults(func=run)


def records(ds) -> dict:
    """``{axis: {"grid": [...], "mu"|"sigma"|"rank": {model: [...]}}}`` of the axes present."""
    return {
        axis: {"grid": ds[axis].values}
        | {
            var: {str(m): ds[f"{var}_{axis}"].sel(model=m).values for m in ds["model"].values}
            for var in ("mu", "sigma", "rank")
        }
        for axis in AXES
        if f"mu_{axis}" in ds
    }


def run(args: argparse.Namespace) -> int:
    if args.kappa is None:
        opt.refuse(opt.given(args, *opt.NUTS), "without --kappa (only the kappa axis samples)")
    if not args.prior_file:
        opt.refuse(opt.given(args, "a0", "depth"), "without --prior-file (axes of prior runs)")
    from bayes_eval.logs.complete import read_results
    from bayes_eval.models import prior_sensitivity
    from bayes_eval.models.sensitivity import plot_prior_sensitivity

    grids = {"alpha0_grid": args.alpha0, "a0_grid": args.a0, "depth_grid": args.depth}
    ds = prior_sensitivity(
        read_results(args.file, args.format),
        args.weights,
        read_results(args.prior_file, args.format) if args.prior_file else None,
        kappa_grid=args.kappa,
        **opt.sampler_settings(args),
        progressbar=not (args.json or args.no_progress),
        **{k: v for k, v in grids.items() if v is not None},
    )
    if args.out:
        ds.to_netcdf(args.out, engine="h5netcdf")
    if args.plot:
        plot_prior_sensitivity(ds, args.plot)
    out = records(ds)
    if args.json:
        emit_json(out)
        return 0
    for axis, rec in out.items():
        grid = [f"{g:g}" for g in rec["grid"]]
        table(
            ["model", *(f"{axis}={g}" for g in grid)],
            (
                [
                    m,
                    *(
                        f"{mu:.4f} ± {sd:.4f} (#{rk})"
                        for mu, sd, rk in zip(
                            rec["mu"][m], rec["sigma"][m], rec["rank"][m], strict=True
                        )
                    ),
                ]
                for m in rec["mu"]
            ),
            title=f"{axis}: " + ", ".join(grid),
        )
    if args.plot:
        say(f"plot written to {args.plot}")
    return 0
