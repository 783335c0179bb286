"""Ctrl-C, noted even where a library swallows it: the one SIGINT guard of the package.

Long work (imports of compiled libraries, NUTS through PyMC or nutpie, Numba code) does not
always let a :class:`KeyboardInterrupt` through: PyMC catches it and returns the draws so far,
nutpie returns a partial trace, Numba turns it into ``SystemError``, and an interrupt that
lands in a finaliser is reported by Python as "Exception ignored in ..." and dropped.
:class:`InterruptGuard` installs a SIGINT handler that raises :class:`KeyboardInterrupt` and
also records the interrupt, so that the caller can tell a finished result from an interrupted
one whatever the library made of the exception. The command line (``bayes_eval.cli``) and the
samplers (``bayes_eval.models.sampling.sampler_session``) both use it.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import TracebackType

__all__ = ["InterruptGuard"]


class InterruptGuard:
    """A context manager that raises and records Ctrl-C (SIGINT) while its block runs.

    On entry, in the main thread and where SIGINT is not ignored, it installs a handler that
    sets ``seen`` and raises :class:`KeyboardInterrupt`, and an unraisable-exception hook
    that keeps quiet about a :class:`KeyboardInterrupt` landing in a finaliser once one was
    noted. On exit it puts the previous handler and hook back, whatever ended the block; it
    never suppresses an exception. Elsewhere (another thread, Ctrl-C ignored, a handler
    installed outside Python) it changes nothing and ``installed`` is false.

    Parameters
    ----------
    once : bool, optional, keyword-only
        Raise :class:`KeyboardInterrupt` for the first interrupt only; later ones are only
        noted (default False: raise every time).
    redeliver : float, optional, keyword-only
        If the block is still running this many seconds after an interrupt (compiled code
        swallowed it), deliver SIGINT to the main thread again, every ``redeliver`` seconds,
        until the block ends (default None: never).

    Attributes
    ----------
    seen : threading.Event
        Set when SIGINT arrived while the guard was installed.
    installed : bool
        Whether the handler is installed (set on entry).

    Examples
    --------
    >>> from bayes_eval.interrupts import InterruptGuard
    >>> with InterruptGuard() as guard:
    ...     pass  # long work here; Ctrl-C raises KeyboardInterrupt and sets guard.seen
    >>> guard.seen.is_set()
    False
    """

    def __init__(self, *, once: bool = False, redeliver: float | None = None) -> None:
        if redeliver is not None and not redeliver > 0:
            raise ValueError(f"redeliver must be a positive number of seconds, got {redeliver!r}")
        self.once = once
        self.redeliver = redeliver
        self.seen = threading.Event()
        self.installed = False
        self._raising = True
        self._leaving = threading.Event()
        self._previous: object = None
        self._hook = sys.unraisablehook

    def __enter__(self) -> InterruptGuard:
        main = threading.current_thread() is threading.main_thread()
        previous = signal.getsignal(signal.SIGINT) if main else None
        if previous in (None, signal.SIG_IGN):
            return self
        self._previous, self._hook = previous, sys.unraisablehook
        signal.signal(signal.SIGINT, self._handle)
        sys.unraisablehook = self._quiet
        self.installed = True
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self.installed:
            return
        self._leaving.set()
        signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]
        sys.unraisablehook = self._hook
        self.installed = False

    def stop_raising(self) -> None:
        """From now on an interrupt is only noted in ``seen``, never raised.

        Returns
        -------
        None

        Examples
        --------
        >>> from bayes_eval.interrupts import InterruptGuard
        >>> with InterruptGuard() as guard:
        ...     guard.stop_raising()  # e.g. while printing the final message
        """
        self._raising = False

    def _handle(self, signum: int, frame: object) -> None:
        if self._leaving.is_set():
            return
        first = not self.seen.is_set()
        self.seen.set()
        if first and self.redeliver is not None:
            threading.Thread(target=self._redeliver, daemon=True).start()
        if self._raising:
            if self.once:
                self._raising = False
            raise KeyboardInterrupt

    def _redeliver(self) -> None:
        while not self._leaving.wait(self.redeliver):
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # type: ignore[arg-type]

    def _quiet(self, unraisable: sys.UnraisableHookArgs) -> None:
        # an interrupt that landed in a finaliser or a weak-reference callback: noted already
        if not (self.seen.is_set() and isinstance(unraisable.exc_value, KeyboardInterrupt)):
            self._hook(unraisable)
