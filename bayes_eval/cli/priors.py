"""``bayes-eval priors``: how mu, sigma and the ranks move with the prior."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table
from bayes_eval.cli._types import SubParsers, integers, numbers
from bayes_eval.files import write_file

if TYPE_CHECKING:
    import xarray as xr

HELP = "prior sensitivity of mu, sigma and ranks (Dirichlet, power prior, depth, kappa)"
DESCRIPTION = """\
mu, sigma and ranks of every model (estimand: these questions) over grids of prior strength:
the Dirichlet alpha0 of Hariri et al., "Don't Pass@k" (eq. 6), and with --prior-file the
power prior a0 and the prior depth D of the earlier runs; --kappa-grid adds NUTS fits of the
hierarchical model (PyMC). The first table is the reference: the prior of --prior-kind
(default: the learned one, as every command)."""

AXES = ("alpha0", "a0", "depth", "kappa")


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval priors`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "priors",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options(),
            opt.data_options(),
            opt.prior_options(),
            opt.nuts_options(draws=500, tune=500, chains=2),
            opt.output_options(
                plot="plot of mu and ranks over each grid", netcdf="save the grids as NetCDF"
            ),
        ],
    )
    g = p.add_argument_group("grids")
    g.add_argument(
        "--alpha0-grid", type=numbers, metavar="A,B,..", help="Dirichlet alpha0, e.g. 0.1,0.5,1,2,5"
    )
    g.add_argument(
        "--a0-grid",
        type=numbers,
        metavar="A,B,..",
        help="power-prior weights in [0, 1], e.g. 0,0.5,1",
    )
    g.add_argument(
        "--depth-grid", type=integers, metavar="A,B,..", help="prior depths D, e.g. 0,1,2,4"
    )
    g.add_argument(
        "--kappa-grid",
        type=numbers,
        metavar="A,B,..",
        help="medians of the kappa prior (NUTS), e.g. 1,5",
    )
    for old in ("alpha0", "a0", "depth", "kappa"):
        opt.deprecated(
            g,
            f"--{old}",
            f"--{old}-grid",
            dest=f"{old}_grid",
            type=integers if old == "depth" else numbers,
        )
    p.set_defaults(func=run)


def _print_grids(label: str, ref: dict[str, dict], out: dict[str, dict]) -> None:
    """The reference prior's scores, then one table per prior-strength axis."""
    table(
        ["model", f"reference: {label}"],
        ([m, f"{r['mu']:.4f} ± {r['sigma']:.4f} (#{r['rank']})"] for m, r in ref.items()),
    )
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


def records(ds: xr.Dataset) -> dict:
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


#: grid option -> (its values' range as a test, what it expects), checked before any work
GRID_RANGES = {
    "alpha0_grid": (lambda v: v > 0, "Dirichlet concentrations > 0"),
    "a0_grid": (lambda v: 0 <= v <= 1, "power-prior weights in [0, 1]"),
    "kappa_grid": (lambda v: v > 0, "kappa prior medians > 0"),
}


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval priors`` with the parsed ``args``; return the exit status.

    Checks the grids, then prints mu, sigma and the rank of every model under the reference
    prior and over each grid of prior strength (or the ``--json`` document). Returns 0.
    """
    from bayes_eval.inputs import exact

    for name, (fits, what) in GRID_RANGES.items():
        bad = [v for v in getattr(args, name) or () if not fits(v)]
        if bad:
            raise ValueError(
                f"--{name.replace('_', '-')} has {exact(bad[0])}; expected {what}, e.g. "
                f"--{name.replace('_', '-')} {'0,0.5,1' if name == 'a0_grid' else '0.5,1,2'}."
            )
    if args.kappa_grid is None:
        opt.refuse(opt.given(args, *opt.NUTS), "without --kappa-grid (only the kappa axis samples)")
    if not args.prior_file:
        opt.refuse(
            opt.given(args, "a0_grid", "depth_grid"), "without --prior-file (axes of prior runs)"
        )
    if args.fractional or args.questions == "all":
        raise ValueError(
            "the prior grids need categorical results on one question set: --fractional and "
            "--questions all do nothing here (use --score-levels, --questions common)."
        )
    from bayes_eval import xr as bxr
    from bayes_eval.models import prior_sensitivity
    from bayes_eval.models.sensitivity import plot_prior_sensitivity
    from bayes_eval.ranking.ranks import rank

    prior = opt.prior_from(args)
    scored = opt.load_results(args)
    reference = bxr.posterior(scored.R, scored.weights, scored.R0, skipna=True, prior=prior)
    grids = {k: getattr(args, k) for k in ("alpha0_grid", "a0_grid", "depth_grid")}
    ds = prior_sensitivity(
        scored.R,
        scored.weights,
        scored.R0,
        kappa_grid=args.kappa_grid,
        nuts=opt.sampler_settings(args, quiet=args.json),
        **{k: v for k, v in grids.items() if v is not None},
    )
    if args.netcdf:
        write_file(args.netcdf, lambda tmp: ds.to_netcdf(tmp, engine="h5netcdf"), option="--netcdf")
    if args.plot:
        plot_prior_sensitivity(ds, args.plot)
    out = records(ds)
    names = [str(m) for m in ds["model"].values]
    mu, sd = reference.mean, reference.sd
    assert not isinstance(mu, float) and not isinstance(sd, float)  # a model axis: arrays
    ranks = rank(mu)
    ref = {
        m: {"mu": float(a), "sigma": float(b), "rank": int(r)}
        for m, a, b, r in zip(names, mu, sd, ranks, strict=True)
    }
    if args.json:
        emit_json(
            {"prior": reference.prior.label, "estimand": reference.estimand, "reference": ref}
            | {"grids": out}
        )
        return 0
    say(
        f"{opt.source_name(args)}: estimand: {reference.estimand}; reference prior: "
        f"{reference.prior.label}"
    )
    _print_grids(reference.prior.label, ref, out)
    if args.plot:
        say(f"plot written to {args.plot}")
    return 0
