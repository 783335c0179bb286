"""The ``bayes-eval`` command line: one module per command.

Each command module parses its options, calls the library and prints (tables through rich, or
``--json``).

Every command that reads results takes ``dataset:NAME`` for a dataset shipped with the
package (``bayes-eval datasets`` lists them) as well as files. Bad input prints one line
``bayes-eval: error: ...`` on stderr and exits with status 2 (a missing or unreadable file
too); Ctrl-C prints ``bayes-eval: interrupted`` and exits with status 130, at any moment,
the first imports included. Anything else is a bug and keeps its traceback. Warnings print
as one line ``bayes-eval: warning: ...``.

This module imports nothing heavy: the program (:mod:`bayes_eval.cli._program`, with the
numerical stack behind it) is imported by :func:`run`, where an interrupt is reported like
any other. ``main``, ``parser`` and the other names of the program are read from it on
first use.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from bayes_eval.cli._status import INTERRUPTED
from bayes_eval.interrupts import InterruptGuard

if TYPE_CHECKING:
    from types import FrameType

__all__ = ["run"]

#: Names of :mod:`bayes_eval.cli._program` readable from this module (imported on first use).
_PROGRAM = frozenset({"COMMANDS", "Parser", "UsageError", "main", "parser", "path_error"})

#: Ctrl-C noted between the import of this module and :func:`run` (the console script's
#: ``from bayes_eval.cli import run`` then ``run()``), where a raised KeyboardInterrupt would
#: end in the script's traceback.
_EARLY = {"seen": False}


def _note_early(signum: int, frame: FrameType | None) -> None:
    _EARLY["seen"] = True


def _guard_the_script() -> None:
    """Under the ``bayes-eval`` console script, note Ctrl-C until :func:`run` installs its own.

    From now until :func:`run` installs its own handler; nothing is changed when this module is
    imported by other programs.
    """
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if (
        script.startswith("bayes-eval")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        signal.signal(signal.SIGINT, _note_early)


_guard_the_script()


def run() -> int:
    """The ``bayes-eval`` program (the console script's entry point).

    Imports the program, then runs its ``main`` with warnings shown as one line each. Ctrl-C
    while the imports run prints ``bayes-eval: interrupted`` and returns 130, as it does
    later: also when the interrupt lands in a finaliser that Python reports and ignores (an
    import's weak reference callback) or is turned into another error (numpy's ImportError
    when it breaks numpy's C-level imports), since our handler notes it. The handler raises at
    most once, and only inside the ``try`` of :func:`_run`; the one before it is back when this
    returns. An interrupt that lands before the handler is installed ends the same way.
    """
    try:
        return _run()
    except KeyboardInterrupt:  # Ctrl-C before the handler was installed (or after it left)
        print("bayes-eval: interrupted", file=sys.stderr)
        return INTERRUPTED


def _run() -> int:
    status = INTERRUPTED
    with InterruptGuard(once=True) as guard:
        try:
            if _EARLY["seen"]:  # Ctrl-C since this module's import, up to the guard
                raise KeyboardInterrupt
            from bayes_eval.cli import _program

            if not guard.seen.is_set():
                status = _program.run()  # main notes interrupts itself (its own guard)
        except KeyboardInterrupt:
            guard.seen.set()
        except Exception:  # e.g. numpy's ImportError when Ctrl-C broke its C-level imports
            if not guard.seen.is_set():
                raise
        guard.stop_raising()  # from here on an interrupt is only noted
        if guard.seen.is_set():
            print("bayes-eval: interrupted", file=sys.stderr)
            status = INTERRUPTED
    return status


def __getattr__(name: str) -> Any:
    if name in _PROGRAM:
        from bayes_eval.cli import _program

        return getattr(_program, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
