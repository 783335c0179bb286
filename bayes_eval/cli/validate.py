"""``bayes-eval validate STUDY``: the validation studies, one nested command per study.

The commands are built from the registry :mod:`bayes_eval.validation.registry`: each field of
a study's config dataclass is one option (``n_max`` -> ``--n-max``), a field marked
``positional`` an argument. Nothing here knows a particular study.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import textwrap
import typing
from pathlib import Path

from bayes_eval.cli import _options as opt
from bayes_eval.cli._output import emit_json, summary
from bayes_eval.cli._types import (
    SubParsers,
    fdr_level,
    integers,
    nonnegative_int,
    numbers,
    positive_int,
    words,
)

HELP = "validation studies of the papers' claims (coverage, elicit, judges, ...)"
DESCRIPTION = """\
Validation studies: each reproduces or checks a claim of a paper, writes NetCDF and a PNG to
--out and prints its summary (tables, or --json). `bayes-eval validate STUDY --help` lists a
study's options."""


METAVARS: dict[object, str] = {int: "N", float: "X", str: "TEXT"}

#: Options shared with other commands take their type (one flag, one meaning).
SHARED_TYPES = {
    "fdr": fdr_level,
    "top": positive_int,
    "draws": positive_int,
    "chains": positive_int,
    "tune": nonnegative_int,
    "replicates": positive_int,
    "simulations": positive_int,
    "max_trials": positive_int,
    "max_questions": positive_int,
    "trials": positive_int,
    "n_questions": positive_int,
    "levels": positive_int,
    "score_levels": positive_int,
    "seed": nonnegative_int,
}

#: (study, old option) -> field: earlier spellings kept as hidden aliases that warn.
RENAMED = {
    ("elicit", "--questions"): "n_questions",
    ("elicit", "--draws"): "simulations",
    ("sbc", "--questions"): "n_questions",
    ("judges-synthetic", "--questions"): "n_questions",
    ("coverage", "--exact-reps"): "exact_replicates",
    ("coverage", "--empirical-exact-reps"): "empirical_exact_replicates",
    ("coverage", "--nuts-reps"): "nuts_replicates",
}


def _base(tp: object) -> tuple[object, bool]:
    """``(type, optional)`` of ``X`` or ``X | None``."""
    args = typing.get_args(tp)
    if type(None) in args:
        return next(a for a in args if a is not type(None)), True
    return tp, False


def _shown(value: object) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return str(value)


def _add_field(p: argparse.ArgumentParser, field: dataclasses.Field[object], tp: object) -> None:
    meta = field.metadata
    base, _ = _base(tp)
    default = field.default
    has_default = default is not dataclasses.MISSING
    help_text = meta.get("help", "")
    if has_default and default is not None and not isinstance(default, bool):
        help_text += f" ({_shown(default)})"
    kw: dict = {"help": help_text}
    if "choices" in meta:
        kw["choices"] = list(meta["choices"])
    elif field.name == "format":  # the one registry of log formats
        from bayes_eval.logs import FORMATS

        kw["choices"] = list(FORMATS)
    if typing.get_origin(base) is tuple:
        item = typing.get_args(base)[0]
        kw["type"] = {int: integers, float: numbers}.get(item, words)
        kw["metavar"] = "A,B,.."
    elif base is not bool:
        kw["type"] = SHARED_TYPES.get(field.name, base) if base in (int, float) else base
        if "choices" not in kw:
            kw["metavar"] = METAVARS.get(base, "VALUE")
    if meta.get("positional"):
        kw["metavar"] = field.name.upper()
        nargs = "?" if has_default else None
        p.add_argument(field.name, nargs=nargs, default=argparse.SUPPRESS, **kw)
        return
    flag = "--" + field.name.replace("_", "-")
    if base is bool:
        kw.pop("type", None)
        if default is True:
            flag, kw["action"] = "--no-" + field.name.replace("_", "-"), "store_false"
            kw["help"] = "turn off (on by default): " + kw["help"]
        elif default is False:
            kw["action"] = "store_true"
        else:
            kw["action"] = argparse.BooleanOptionalAction
    p.add_argument(flag, dest=field.name, default=argparse.SUPPRESS, **kw)


def as_flags(message: str, config: type) -> str:
    """A study's message with its config's field names written as the command line's options.

    For example ``n_models is 20`` -> ``--n-models is 20``: a name with an underscore wherever
    it stands as a word, a one-word name where it is quoted or followed by ``is``, ``=`` or
    ``:``. Positional fields keep their names (the usage line shows them in capitals).
    """
    head, sep, rest = message.partition(": ")  # "validate NAME: ..." keeps its NAME
    if not head.startswith("validate "):
        head, sep, rest = "", "", message
    message = rest
    for field in dataclasses.fields(config):
        if field.metadata.get("positional"):
            continue
        name, flag = field.name, "--" + field.name.replace("_", "-")
        message = re.sub(rf"'{re.escape(name)}'", flag, message)
        if "_" in name:
            message = re.sub(rf"(?<![\w-]){re.escape(name)}(?!\w)", flag, message)
        else:
            message = re.sub(rf"(?<![\w-]){re.escape(name)}(?= is | = |: )", flag, message)
    return head + sep + message


def add_parser(sub: SubParsers) -> None:
    """Add the ``bayes-eval validate STUDY`` parsers, one per study, to the subcommands ``sub``.

    Each field of a study's config dataclass is one option (``n_max`` -> ``--n-max``), a field
    marked ``positional`` an argument.
    """
    from bayes_eval.validation.registry import STUDIES

    v = sub.add_parser(
        "validate", help=HELP, description=DESCRIPTION, formatter_class=opt.HelpFormatter
    )
    studies = v.add_subparsers(dest="study", required=True, metavar="STUDY", title="studies")
    for study in STUDIES.values():
        p = studies.add_parser(
            study.name,
            help=study.summary,
            description=textwrap.fill(study.summary, 92, break_on_hyphens=False),
            formatter_class=opt.HelpFormatter,
            parents=[
                opt.output_options(
                    out="output folder (validation_out)", out_default="validation_out"
                )
            ],
        )
        hints = typing.get_type_hints(study.config)
        for field in dataclasses.fields(study.config):
            _add_field(p, field, hints[field.name])
        for (name, old), dest in RENAMED.items():
            if name == study.name:
                new = "--" + dest.replace("_", "-")
                opt.deprecated(p, old, new, dest=dest, type=SHARED_TYPES.get(dest, int))
        p.set_defaults(func=run, options=[f.name for f in dataclasses.fields(study.config)])


def run(args: argparse.Namespace) -> int:
    """Run ``bayes-eval validate STUDY`` with the parsed ``args``; return the exit status.

    Builds the study's config from the options given, runs the study into ``--out`` and prints
    its summary (with ``--json``: the summary on stdout, its note and warning on stderr).
    Returns 0; a config error is raised with the fields named as options.
    """
    from bayes_eval.validation.registry import get_study, make_config

    study = get_study(args.study)
    given = {k: getattr(args, k) for k in args.options if hasattr(args, k)}
    try:
        config = make_config(study.name, **given)
    except ValueError as exc:
        raise ValueError(as_flags(str(exc), study.config)) from None
    result = study.run(config, Path(args.out), progress=not args.json)
    if args.json:  # JSON for machines on stdout; what a person must read on stderr
        notes = [result.summary.get("note")]
        notes += [f"warning: {w}" for w in [result.summary.get("warning")] if w]
        for note in filter(None, notes):
            print(note, file=sys.stderr)
        emit_json(result.summary)
    else:
        summary(result.summary, title=f"validate {study.name}")
    return 0
