"""Option groups shared by the commands, each defined once as an argparse parent parser.

A command lists the groups it takes (``parents=[...]``); the factories take the defaults
that differ between commands (e.g. the number of NUTS draws). The value types (the one
parser of number lists :func:`numbers`, counts, output paths) live in
:mod:`bayes_eval.cli._types` and are re-exported here.
"""

from __future__ import annotations

import argparse
import sys

from bayes_eval.cli._types import (
    nonnegative_int,
    numbers,
    positive_int,
    writable_file,
    writable_folder,
)

__all__ = [
    "HelpFormatter",
    "deprecated",
    "given",
    "input_options",
    "nuts_options",
    "output_options",
    "prior_file_options",
    "refuse",
    "seed_options",
    "weights_options",
]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the layout of descriptions; the command list gets room for long names."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=24, width=100)

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if action.help is not argparse.SUPPRESS and isinstance(action, argparse._SubParsersAction):
            # argparse measures subcommands without their extra indent: count it
            names = [len(self._format_action_invocation(a)) for a in action._get_subactions()]
            longest = max(names, default=0) + self._current_indent + self._indent_increment
            self._action_max_length = max(self._action_max_length, longest)


def _parent() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(add_help=False)


def input_options(
    nargs: str | None = None, help: str = "results: a log file or directory, or dataset:NAME"
) -> argparse.ArgumentParser:
    """The results ``file`` (positional, ``nargs``) and ``--format``."""
    from bayes_eval.logs import FORMATS

    p = _parent()
    p.add_argument("file", nargs=nargs, metavar="FILE", help=help)
    p.add_argument(
        "--format",
        choices=list(FORMATS),
        metavar="FORMAT",
        help="log format, one of " + ", ".join(FORMATS) + " (default: detected from the file)",
    )
    return p


def weights_options() -> argparse.ArgumentParser:
    """``--weights`` w_0..w_C of a rubric."""
    p = _parent()
    p.add_argument(
        "--weights",
        type=numbers,
        metavar="W0,W1,..",
        help="rubric weights w_0..w_C, e.g. 0,0.5,1 (default: the log's, else binary 0,1)",
    )
    return p


def prior_file_options() -> argparse.ArgumentParser:
    """``--prior-file``: prior runs R0 (counts added to the posterior)."""
    p = _parent()
    p.add_argument(
        "--prior-file",
        metavar="FILE",
        help="prior runs R0 in the same format (same models and questions): their counts join "
        'the posterior (Hariri et al., "Don\'t Pass@k", eq. 15)',
    )
    deprecated(p, "--prior", "--prior-file", dest="prior_file")
    return p


def seed_options(help: str = "random seed (0)") -> argparse.ArgumentParser:
    """``--seed``."""
    p = _parent()
    p.add_argument("--seed", type=int, default=0, help=help)
    return p


def nuts_options(
    draws: int = 1000, tune: int = 1000, chains: int = 4, sampler: str = "pymc"
) -> argparse.ArgumentParser:
    """NUTS settings: ``--draws``, ``--tune``, ``--chains``, ``--seed``, ``--sampler``,
    ``--no-progress``. Their defaults are applied by :func:`sampler_settings`, so that
    :func:`given` tells the options the user gave (a command may refuse them where nothing
    samples)."""
    p = _parent()
    g = p.add_argument_group("NUTS sampler")
    g.add_argument("--draws", type=positive_int, help=f"draws per chain ({draws})")
    g.add_argument("--tune", type=nonnegative_int, help=f"tuning steps per chain ({tune})")
    g.add_argument("--chains", type=positive_int, help=f"chains ({chains})")
    g.add_argument("--seed", type=int, help="random seed (0)")
    g.add_argument("--sampler", choices=["pymc", "nutpie"], help=f"({sampler})")
    g.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(
        nuts_defaults={
            "draws": draws,
            "tune": tune,
            "chains": chains,
            "seed": 0,
            "sampler": sampler,
        }
    )
    return p


#: The options of :func:`nuts_options`, as ``args`` names.
NUTS = ("draws", "tune", "chains", "seed", "sampler", "no_progress")


def sampler_settings(args: argparse.Namespace) -> dict:
    """The keyword arguments that :func:`nuts_options` collected, as the samplers take them
    (defaults filled in)."""
    return {
        key: default if getattr(args, key) is None else getattr(args, key)
        for key, default in args.nuts_defaults.items()
    }


def given(args: argparse.Namespace, *names: str) -> list[str]:
    """The options among ``names`` (``args`` names) that the command line gave: those whose
    value is not their unset default (None, or False for a switch)."""
    return [
        "--" + name.replace("_", "-")
        for name in names
        if getattr(args, name, None) is not None and getattr(args, name) is not False
    ]


def refuse(options: list[str], why: str) -> None:
    """Raise a one-line error when ``options`` (from :func:`given`) is not empty: they would
    do nothing, or be overridden, ``why``."""
    if options:
        verb = "does" if len(options) == 1 else "do"
        raise ValueError(f"{', '.join(options)} {verb} nothing {why}.")


def output_options(
    *,
    json: bool = True,
    plot: str | None = None,
    out: str | None = None,
    out_default: str | None = None,
) -> argparse.ArgumentParser:
    """``--json`` (machine-readable output), ``--plot FILE`` and ``--out`` when given their
    help text. The paths are checked before the work: their folder must exist and be
    writable."""
    p = _parent()
    if json:
        p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    if plot is not None:
        p.add_argument("--plot", metavar="FILE", type=writable_file, help=plot)
    if out is not None:
        folder = out_default is not None
        kind = writable_folder if folder else writable_file
        p.add_argument(
            "--out", metavar="DIR" if folder else "FILE", type=kind, default=out_default, help=out
        )
    return p


class _Deprecated(argparse.Action):
    def __init__(self, option_strings, dest, new: str, convert=None, **kwargs):
        self.new, self.convert = new, convert
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(
            f"bayes-eval: warning: {option_string} is deprecated; use {self.new}", file=sys.stderr
        )
        if self.convert is None:
            setattr(namespace, self.dest, values)
        else:
            for key, value in self.convert(values).items():
                setattr(namespace, key, value)


def deprecated(
    parser: argparse.ArgumentParser,
    old: str,
    new: str,
    *,
    dest: str,
    convert=None,
    type=None,
) -> None:
    """A hidden alias ``old`` of ``new`` that warns on stderr. ``convert(value)`` returns the
    ``{dest: value}`` to set when one old option maps to several new ones."""
    parser.add_argument(
        old,
        dest=dest,
        new=new,
        convert=convert,
        type=type,
        action=_Deprecated,
        default=argparse.SUPPRESS,
    )
