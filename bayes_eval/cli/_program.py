"""The ``bayes-eval`` program: the parser of every command, :func:`main` and its exit statuses.

Imported by :func:`bayes_eval.cli.run`, which reports an interrupt during the import in one
line (the numerical stack takes seconds to import on a cold cache).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn, TextIO

from bayes_eval.cli import (
    adaptive,
    compare,
    crosscheck,
    datasets,
    demo,
    judges,
    pairs,
    plan,
    priors,
    rank,
    report,
    schemas,
    validate,
)
from bayes_eval.cli._options import HelpFormatter
from bayes_eval.cli._status import BAD_INPUT, INTERRUPTED
from bayes_eval.interrupts import InterruptGuard

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = ["COMMANDS", "main", "parser", "path_error", "run"]

#: The commands in the order ``bayes-eval --help`` lists them.
COMMANDS = (
    rank,
    pairs,
    report,
    schemas,
    plan,
    crosscheck,
    compare,
    priors,
    validate,
    adaptive,
    judges,
    datasets,
    demo,
)

DESCRIPTION = """\
Bayesian evaluation and ranking of LLMs: Bayes@N with credible intervals and CI-aware ranks
(Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation").
FILE may be dataset:NAME for a shipped dataset (see `bayes-eval datasets`)."""

EPILOG = "Run `bayes-eval COMMAND --help` for the options of a command."


class UsageError(ValueError):
    """A command line argparse rejects (reported like bad input: one line, status 2)."""


class Parser(argparse.ArgumentParser):
    """argparse with errors raised as :class:`UsageError` instead of printing usage."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message.rstrip('.')}; see `{self.prog} --help`.")


def _installed_version() -> str:
    """The version pip installed (pyproject.toml's), as ``bayes_eval.__version__`` gives it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bayes_eval")
    except PackageNotFoundError:  # pragma: no cover - a tree that is not installed
        return "0+unknown"


def command_name(module: ModuleType) -> str:
    """A command's name: its module's (``bayes_eval.cli.rank`` -> ``rank``)."""
    return module.__name__.rsplit(".", 1)[1]


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``bayes-eval`` parser with every command, or with command ``only`` in full.

    With ``only``, the other commands are named by their one-line help (what
    ``bayes-eval --help`` lists): building a command's options imports what its options need
    (the log formats, the studies' configs), so running one command builds only its own.
    """
    p = Parser(
        prog="bayes-eval",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    p.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {_installed_version()}",
        help="print the installed version of bayes_eval and exit",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for command in COMMANDS:
        if only is None or command_name(command) == only:
            command.add_parser(sub)
        else:
            sub.add_parser(command_name(command), help=command.HELP, add_help=False)
    return p


def _command_of(argv: Sequence[str]) -> str | None:
    """The command a command line names (its first word that is not an option), or None."""
    names = {command_name(c) for c in COMMANDS}
    for word in argv:
        if not word.startswith("-"):
            return word if word in names else None
        if word in ("-h", "--help", "--version"):
            return None
    return None


def _no_dask_probe() -> None:
    """Spare xarray's imports of dask (over a second of CPU) when dask is not imported yet.

    xarray asks whether each array it wraps is a dask array or collection, importing
    ``dask.array`` and ``dask.base`` to know (``xarray.namedarray.pycompat`` and
    ``xarray.namedarray.utils.module_available``, both cached). The commands hand xarray
    NumPy arrays only, so while no dask module is loaded the answer is no, and both cached
    answers are set to it. A command that uses dask (the studies' clusters: ``validate``)
    is not run this way; an xarray whose internals differ is left alone.
    """
    if "dask" in sys.modules:
        return
    try:
        from xarray.namedarray import pycompat, utils
    except ImportError:  # pragma: no cover - another xarray layout
        return
    cache = getattr(pycompat, "_cached_duck_array_modules", None)
    probe = getattr(pycompat, "DuckArrayModule", None)
    if isinstance(cache, dict) and probe is not None and "dask" not in cache:
        from packaging.version import Version

        absent = probe.__new__(probe)
        absent.module, absent.type, absent.available = None, (), False
        absent.version = Version("0.0.0")
        cache["dask"] = absent
    available = getattr(utils, "module_available", None)
    if available is None or not hasattr(available, "cache_info"):
        return
    import importlib.util

    find_spec = importlib.util.find_spec

    def without_dask(name: str, package: str | None = None) -> ModuleSpec | None:
        return None if name == "dask" else find_spec(name, package)

    importlib.util.find_spec = without_dask  # the cached answer for "dask" is computed once
    try:
        available.cache_clear()  # xarray's import asked already; the others are asked again
        available("dask")
    finally:
        importlib.util.find_spec = find_spec


#: Failed convergence checks listed by a :class:`~bayes_eval.models.ConvergenceWarning`; more
#: are counted, not listed.
CONVERGENCE_LINES = 6

#: What a command line can do about a fit that failed its convergence checks.
CONVERGENCE_ADVICE = (
    "rerun with more --draws and --tune (r-hat, ESS) or a higher --target-accept, e.g. 0.95 "
    "or 0.99 (divergences)"
)


def _convergence_warning(text: str) -> str:
    """A ConvergenceWarning for the terminal: a header line, then one failed check per line.

    Says the numbers are not to be trusted, lists the first :data:`CONVERGENCE_LINES` checks
    and names the options that help (the library's words say ``target_accept``).
    """
    head, *checks = [" ".join(line.split()) for line in text.strip().splitlines()]
    head = head.rstrip(":") + ": its numbers are not to be trusted"
    checks = [c.replace("increase target_accept", "raise --target-accept") for c in checks]
    if len(checks) > CONVERGENCE_LINES:
        more = len(checks) - CONVERGENCE_LINES
        checks = [*checks[:CONVERGENCE_LINES], f"... and {more} more failed check(s)"]
    return "\n".join([head, *(f"  {c}" for c in checks), f"  {CONVERGENCE_ADVICE}"])


def _one_line_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """``bayes-eval: warning: ...`` on stderr, instead of Python's two lines with a source path.

    Warnings of bayes_eval itself (``UserWarning`` and its own categories) show their text;
    any other category is named, e.g. ``RuntimeWarning: ...`` from a dependency. A sampler's
    ConvergenceWarning keeps one failed check per line (:func:`_convergence_warning`).
    """
    name = category.__name__
    own = category is UserWarning or category.__module__.startswith("bayes_eval")
    if own and name == "ConvergenceWarning":
        text = _convergence_warning(str(message))
    else:
        text = " ".join(str(message).split())
    print(f"bayes-eval: warning: {text if own else f'{name}: {text}'}", file=file or sys.stderr)


def run() -> int:
    """The ``bayes-eval`` program: :func:`main` with warnings shown as one line each."""
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        return main()


def _interrupted(exc: KeyboardInterrupt | None = None) -> int:
    text = str(exc) if exc is not None else ""  # a study's own line says what was saved
    print(f"bayes-eval: {text}" if text else "bayes-eval: interrupted", file=sys.stderr)
    return INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``bayes-eval``; returns the exit status.

    The statuses are those of :mod:`bayes_eval.cli._status`: 0 on success; 1 when a check a
    command reports failed (its help says which); 2 for bad input (one line on stderr; also a
    request too large for the memory, where no estimate refused it first); 130 after Ctrl-C
    (one line, ``bayes-eval: interrupted``, whatever the interrupted library raised instead).
    Other exceptions are bugs and keep their traceback.
    """
    args: argparse.Namespace | None = None
    with InterruptGuard() as guard:
        try:
            words = list(sys.argv[1:] if argv is None else argv)
            args = parser(_command_of(words) or None).parse_args(words)
            check_outputs(args)
            if args.command not in ("validate",):
                _no_dask_probe()
            status = int(args.func(args))
        except BrokenPipeError:  # output piped into `head` and closed early
            sys.stderr.close()
            return 0
        except KeyboardInterrupt as exc:
            return _interrupted(exc)
        except Exception as exc:
            if guard.seen.is_set():
                return _interrupted()
            if isinstance(exc, ValueError):
                return _error(_with_option(str(exc), args))
            if isinstance(exc, MemoryError):  # a size no check of ours estimated beforehand
                return _error(
                    f"not enough memory for this request ({exc or 'MemoryError'}); expected "
                    "smaller sizes (questions, trials, draws, replicates)."
                )
            if isinstance(exc, OSError):  # no space, read-only, name too long, ...
                return _error(path_error(exc))
            if isinstance(exc, RecursionError):  # an input nested beyond any real file's depth
                return _error(
                    "an input is nested too deeply to read (a recursion limit was hit); "
                    "expected a flat table or log."
                )
            raise
        return _interrupted() if guard.seen.is_set() else status


#: The options that name output paths (dest -> option).
OUTPUTS = {"html": "--html", "plot": "--plot", "netcdf": "--netcdf", "export": "--export"}
#: The options that name input paths (dest -> option), besides FILE.
INPUTS = ("file", "prior_file", "schema_file", "matrix", "costs", "config", "real")


def _paths(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in _paths(item)]
    text = str(value)
    return [] if text.startswith("dataset:") else [text]


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work, an output path that names an input or another output.

    An output path (``--html``, ``--plot``, ``--netcdf``, ``--export``) that names an input of
    the same command (FILE, ``--prior-file``, ...) or another output: writing it would destroy
    what was read.
    """
    from bayes_eval.files import OutputError, check_output, same_file

    inputs = [p for dest in INPUTS for p in _paths(getattr(args, dest, None))]
    seen: dict[str, str] = {}
    for dest, option in OUTPUTS.items():
        value = getattr(args, dest, None)
        if not isinstance(value, str):
            continue
        check_output(value, option=option, inputs=inputs)
        for other, path in seen.items():
            if same_file(value, path):
                raise OutputError(
                    f"{option} and {other} name the same file {value!r}; expected two files."
                )
        seen[option] = value


def _with_option(message: str, args: argparse.Namespace | None) -> str:
    """A message about an output path, naming the option the path came from.

    For a message that names no option (a library function wrote the file):
    ``'x.png': ...`` -> ``--plot 'x.png': ...``.
    """
    if args is None:
        return message
    for dest, option in OUTPUTS.items():
        value = getattr(args, dest, None)
        if isinstance(value, str) and message.startswith(repr(value) + ":"):
            return f"{option} {message}"
    return message


def path_error(exc: OSError) -> str:
    """``missing.csv: no such file or directory`` from an OS error about a path."""
    from bayes_eval.files import describe_os_error

    return describe_os_error(exc)


def _error(message: str) -> int:
    print(f"bayes-eval: error: {' '.join(message.split())}", file=sys.stderr)
    return BAD_INPUT
