"""``bayes-eval datasets``: the real evaluation data shipped with the package."""

from __future__ import annotations

import argparse

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, say, table, text

HELP = "list the real datasets shipped with the package (use one as FILE: dataset:NAME)"
DESCRIPTION = """\
The evaluation data shipped with bayes_eval, each with its source, licence and citation.
Every command that reads results takes dataset:NAME as FILE."""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "datasets",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=opt.HelpFormatter,
        parents=[opt.output_options()],
    )
    p.add_argument("name", nargs="?", help="show one dataset's source, licence, dims, files")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from bayes_eval import datasets

    if args.name is None:
        listing = datasets.list_datasets()
        if args.json:
            emit_json(listing)
            return 0
        table(["name", text("description")], listing.items())
        say("Use one as FILE with dataset:NAME, e.g. `bayes-eval rank dataset:phi4_aime25`.")
        return 0
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
