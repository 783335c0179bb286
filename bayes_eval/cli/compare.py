"""``bayes-eval compare``: PSIS-LOO model comparison of PyMC fits, with predictive checks."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table, uncertain
from bayes_eval.cli._types import SubParsers, words

if TYPE_CHECKING:
    import xarray as xr

    from bayes_eval.models.compare import Comparison

HELP = "compare PyMC models of the same results by leave-one-out ELPD (PSIS-LOO, PyMC)"
DESCRIPTION = """\
Fits each model (matching, hierarchical, mixture: questions of two kinds, each with its own
learned Dirichlet; crossed, crossed-interaction: the crossed model with an LLM x question
interaction; power_prior with --prior-file) to the same
results with NUTS and compares their expected log predictive density for a left-out
(LLM, question) cell, or a whole question with --unit question (PSIS-LOO, Vehtari, Gelman and
Gabry 2017, via arviz-stats). The matching model's ELPD is exact (its LOO predictive is its
prior predictive), and so is the hierarchical model's (quadrature over its hyperparameters);
their PSIS estimates and every model's Pareto k are printed too. --ppc adds
posterior predictive checks from the same fits: Bayesian mid-p values of the mean score, the
spread of per-question scores (over-dispersion), the shares of questions never and always
solved, and the agreement with the other LLMs per question."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval compare`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "compare",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[
            opt.input_options(),
            opt.data_options(),
            opt.prior_file_option(),
            opt.nuts_options(draws=1000, tune=1000, chains=4),
            opt.output_options(
                plot="PPC rootograms as PNG, one per model: FILE with -MODEL before the suffix"
            ),
        ],
    )
    p.add_argument(
        "--estimators",
        type=words,
        default=["matching", "hierarchical", "crossed"],
        metavar="A,B,..",
        help="models to compare: matching, hierarchical, mixture, crossed, crossed-interaction, "
        "power_prior (matching,hierarchical,crossed)",
    )
    p.add_argument(
        "--unit",
        choices=["cell", "question"],
        default="cell",
        help="what is left out: one (LLM, question) cell or a whole question (cell)",
    )
    p.add_argument("--ppc", action="store_true", help="print posterior predictive p-values")
    p.set_defaults(func=run)


def _plot_path(path: str, name: str) -> Path:
    p = Path(path)
    return p.with_name(f"{p.stem}-{name}{p.suffix or '.png'}")


#: Each estimator's prior, as the outputs name it.
PRIORS = {
    "matching": "uniform (the closed form's Dirichlet(1, ..., 1))",
    "hierarchical": "empirical (per model, integrated): the learned prior as a PyMC model",
    "mixture": "two-group learned prior: a mixture of two Dirichlet hierarchies, each group's "
    "kappa with the learned prior's hyperprior",
    "crossed": "crossed model's own (abilities and difficulties on the logit scale)",
    "crossed-interaction": "crossed model's own, with an LLM x question interaction of sd "
    "sigma_e ~ HalfNormal(1) on the logit scale",
    "power_prior": "uniform + earlier runs weighted by a learned a0",
}
#: What the expected log predictive density is about, per ``--unit``.
ESTIMANDS = {
    "cell": "predictive: the trials of a left-out (LLM, question) cell",
    "question": "predictive: a left-out question (new questions from the same source)",
}


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval compare`` with the parsed ``args``; return the exit status.

    Fits each model of ``--estimators`` to the same results by NUTS and prints their
    leave-one-out ELPD table (with ``--ppc`` the posterior predictive checks, with ``--plot``
    one rootogram per model), or the ``--json`` document. Returns 0.
    """
    from bayes_eval.models import compare_models, plot_ppc

    if args.fractional:
        raise ValueError("compare fits categorical models: --fractional does nothing here.")
    nuts = opt.sampler_settings(args, quiet=args.json)
    scored = opt.load_results(args)
    result = compare_models(
        scored.R,
        args.estimators,
        w=scored.weights,
        R0=scored.R0,
        unit=args.unit,
        nuts=nuts,
        ppc=bool(args.ppc or args.plot),
    )
    plots: dict[str, str] = {}
    if args.plot:
        for name, fit in result.fits.items():
            plots[name] = str(plot_ppc(fit, _plot_path(args.plot, name)))
    t = result.table
    if args.json:
        emit_json(_json_document(result, args.unit, plots))
        return 0
    say(
        f"LOO comparison of {args.file}: estimand: {ESTIMANDS[args.unit]}; sampler "
        f"{nuts.sampler}, {nuts.chains} x {nuts.draws} draws; priors: "
        + "; ".join(f"{n}: {PRIORS.get(str(n), str(n))}" for n in t.index)
    )
    _print_table(result, args.unit)
    say(result.verdict)
    for name, ds in result.ppc.items():
        _print_ppc(name, ds)
    for name, path in plots.items():
        say(f"wrote {path} ({name})")
    return 0


def _json_document(result: Comparison, unit: str, plots: dict[str, str]) -> dict:
    """The ``--json`` document: the table, verdict, LOO summaries, diagnostics and checks."""
    t = result.table
    return {
        "prior": {str(n): PRIORS.get(str(n), str(n)) for n in t.index},
        "estimand": ESTIMANDS[unit],
        "table": {
            str(n): {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for n, row in t.to_dict("index").items()
        },
        "verdict": result.verdict,
        "unit": unit,
        "psis": {n: s.to_dict() for n, s in result.loo.items()},
        "exact": {n: s.to_dict() for n, s in result.exact.items()},
        "diagnostics": {n: dict(f.attrs) for n, f in result.fits.items()},
        "ppc": {n: _ppc_records(d) for n, d in result.ppc.items()},
        "plots": plots,
    }


def _print_table(result: Comparison, unit: str) -> None:
    """The ELPD table, best model first, with its caption."""
    t = result.table
    rows = [
        [
            str(n),
            f"{r.elpd:.1f}",
            f"{r.se:.1f}",
            f"{r.elpd_diff:.1f}",
            f"{r.dse:.1f}",
            f"{r.p:.1f}",
            f"{r.weight:.2f}",
            r.method,
            f"{r.elpd_psis:.1f}",
            f"{int(r.psis_k_high)}/{int(r.psis_k_bad)}",
            str(int(result.fits[n].attrs["divergences"])),
        ]
        for n, r in t.iterrows()
    ]
    table(
        [
            "model",
            "elpd",
            uncertain("se"),
            "elpd_diff",
            uncertain("dse"),
            "p_loo",
            "weight",
            "elpd by",
            "elpd PSIS",
            "k>good/k>0.7",
            "divergences",
        ],
        rows,
        caption=f"k>good: PSIS Pareto k above {_good_k(result):.2f}; "
        f"{int(t.attrs['n_units'])} {unit}s",
    )


def _good_k(result: Comparison) -> float:
    return min(s.good_k for s in result.loo.values())


def _ppc_records(ds: xr.Dataset) -> list[dict]:
    return [
        {
            "statistic": str(s),
            "model": str(m),
            **{k: float(ds[k].sel(statistic=s, model=m)) for k in _PPC_COLS},
        }
        for s in ds["statistic"].values
        for m in ds["model"].values
    ]


_PPC_COLS = ("observed", "rep_mean", "rep_lo", "rep_hi", "p_value")


def _print_ppc(name: str, ds: xr.Dataset) -> None:
    rows = [
        [
            r["statistic"],
            r["model"],
            f"{r['observed']:.3f}",
            f"{r['rep_mean']:.3f}",
            f"[{r['rep_lo']:.3f}, {r['rep_hi']:.3f}]",
            f"{r['p_value']:.3f}",
        ]
        for r in _ppc_records(ds)
    ]
    table(
        ["statistic", "LLM", "observed", "replicated", uncertain("95% interval"), "mid-p"],
        rows,
        title=f"posterior predictive check: {name}",
        caption="mid-p = P(T_rep > T_obs) + P(T_rep = T_obs)/2; near 0 or 1 flags misfit",
    )
