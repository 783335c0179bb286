"""``bayes-eval datasets``: the real evaluation data shipped with the package."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import cast

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table, text
from bayes_eval.cli._types import SubParsers

HELP = "list the real datasets shipped with the package (use one as FILE: dataset:NAME)"
DESCRIPTION = """\
The evaluation data shipped with bayes_eval, each with its source, licence and citation.
Every command that reads results takes dataset:NAME as FILE. `--export FILE` writes a trial
dataset as the long table every command reads (model, task, question, trial, score, status and
one column per signal; .csv, .csv.gz, .tsv, .tsv.gz or .parquet), e.g.
`bayes-eval datasets matharena_aime25_i --export runs.csv && bayes-eval rank runs.csv`."""


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval datasets`` parser to the subcommands ``sub``."""
    p = sub.add_parser(
        "datasets",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[opt.output_options()],
    )
    p.add_argument("name", nargs="?", help="show one dataset's source, licence, dims, files")
    p.add_argument(
        "--export",
        metavar="FILE",
        help="write the trial dataset NAME as a long table (.csv, .csv.gz, .tsv, .tsv.gz, "
        ".parquet) that every command reads as FILE",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval datasets`` with the parsed ``args``; return the exit status.

    Without NAME lists the shipped datasets; with NAME prints its attributes, dims, variables
    and files, or with ``--export FILE`` writes it as a long table. Returns 0.
    """
    from bayes_eval import datasets

    if args.name is None:
        if args.export is not None:
            raise ValueError(
                "--export needs a dataset NAME, e.g. `bayes-eval datasets "
                "matharena_aime25_i --export runs.csv`."
            )
        listing = datasets.list_datasets()
        if args.json:
            emit_json(listing)
            return 0
        table(["name", text("description")], listing.items())
        say("Use one as FILE with dataset:NAME, e.g. `bayes-eval rank dataset:phi4_aime25`.")
        return 0
    if args.export is not None:
        return _export(args)
    ds = datasets.load(args.name)
    info = {
        **{k: str(v) for k, v in ds.attrs.items()},
        "dims": dict(ds.sizes),
        "variables": {str(k): list(map(str, v.dims)) for k, v in ds.data_vars.items()},
        "files": [str(p) for p in datasets.files(args.name)],
    }
    if args.json:
        emit_json(info)
        return 0
    for key, value in info.items():
        say(f"{key}: {value}")
    return 0


def _export(args: argparse.Namespace) -> int:
    """Write the dataset as a long table; say what was written and how to read it."""
    from bayes_eval.logs import read_eval_log
    from bayes_eval.logs.long_table import write_long_table

    log = read_eval_log(f"dataset:{args.name}")
    path = write_long_table(log, args.export, option="--export")
    summary = log.summary()
    weights = log.meta.get("default_weights")
    read_with = f"bayes-eval rank {path}"
    if weights is not None:
        read_with += " --weights " + ",".join(
            f"{float(w):g}" for w in cast("Sequence[float]", weights)
        )
    info = {
        "dataset": args.name,
        "file": str(path),
        "rows": len(log.table),
        "models": summary.get("models"),
        "questions": summary.get("questions"),
        "max_trials": summary.get("max_trials"),
        "signals": list(log.signals),
        "read_with": read_with,
    }
    if args.json:
        emit_json(info)
        return 0
    say(
        f"wrote {path}: {info['rows']} attempts of {args.name} (one row per attempt"
        + (f"; signals {', '.join(log.signals)}" if log.signals else "")
        + f"); read it with `{read_with}`."
    )
    return 0
