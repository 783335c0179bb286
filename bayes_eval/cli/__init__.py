"""The ``bayes-eval`` command line: one module per command, each parsing its options, calling
the library and printing (tables through rich, or ``--json``).

Every command that reads results takes ``dataset:NAME`` for a dataset shipped with the
package (``bayes-eval datasets`` lists them) as well as files. Bad input prints one line
``bayes-eval: error: ...`` on stderr and exits with status 2 (a missing or unreadable file
too); Ctrl-C prints ``bayes-eval: interrupted`` and exits with status 130. Anything else is a
bug and keeps its traceback. Warnings print as one line ``bayes-eval: warning: ...``.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

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
    schemas,
    validate,
)
from bayes_eval.cli._options import HelpFormatter

__all__ = ["main", "run"]

#: The commands in the order ``bayes-eval --help`` lists them.
COMMANDS = (
    rank,
    pairs,
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

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{message.rstrip('.')}; see `{self.prog} --help`.")


def parser() -> argparse.ArgumentParser:
    """The ``bayes-eval`` parser with every command."""
    p = Parser(
        prog="bayes-eval",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for command in COMMANDS:
        command.add_parser(sub)
    return p


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``bayes-eval: warning: ...`` on stderr, instead of Python's two lines with a source path.

    Warnings of bayes_eval itself (``UserWarning`` and its own categories) show their text;
    any other category is named, e.g. ``RuntimeWarning: ...`` from a dependency.
    """
    text = " ".join(str(message).split())
    name = category.__name__
    own = category is UserWarning or category.__module__.startswith("bayes_eval")
    print(f"bayes-eval: warning: {text if own else f'{name}: {text}'}", file=file or sys.stderr)


def run() -> int:
    """The ``bayes-eval`` program: :func:`main` with warnings shown as one line each."""
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        return main()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``bayes-eval``; returns the exit status."""
    try:
        args = parser().parse_args(argv)
        return int(args.func(args))
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        return 0
    except KeyboardInterrupt as exc:  # a study's own line says what was saved
        print(f"bayes-eval: {exc}" if str(exc) else "bayes-eval: interrupted", file=sys.stderr)
        return 130
    except ValueError as exc:
        return _error(str(exc))
    except PATH_ERRORS as exc:
        return _error(path_error(exc))


#: The OS errors about a path the user gave (reported in one line, status 2).
PATH_ERRORS = (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)


def path_error(exc: OSError) -> str:
    """``missing.csv: no such file or directory`` from an OS error about a path."""
    reason = (exc.strerror or type(exc).__name__).lower()
    if exc.filename is None:
        return f"{reason}."
    return f"{exc.filename}: {reason}."


def _error(message: str) -> int:
    print(f"bayes-eval: error: {' '.join(message.split())}", file=sys.stderr)
    return 2
