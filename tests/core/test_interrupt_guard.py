"""The SIGINT guard (``bayes_eval.interrupts.InterruptGuard``): raised and noted, restored."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from bayes_eval.interrupts import InterruptGuard


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # the handler runs between bytecodes of the main thread


def test_an_interrupt_is_raised_noted_and_the_handler_restored():
    before, hook = signal.getsignal(signal.SIGINT), sys.unraisablehook
    with pytest.raises(KeyboardInterrupt), InterruptGuard() as guard:
        assert guard.installed
        _ctrl_c()
    assert guard.seen.is_set() and not guard.installed
    assert signal.getsignal(signal.SIGINT) is before and sys.unraisablehook is hook


def test_a_swallowed_interrupt_is_still_noted():
    with InterruptGuard() as guard:
        try:
            _ctrl_c()
        except KeyboardInterrupt:
            pass  # what PyMC does with it
    assert guard.seen.is_set()


def test_once_raises_the_first_interrupt_only():
    with InterruptGuard(once=True) as guard:
        with pytest.raises(KeyboardInterrupt):
            _ctrl_c()
        _ctrl_c()  # noted, not raised
    assert guard.seen.is_set()


def test_stop_raising_only_notes():
    with InterruptGuard() as guard:
        guard.stop_raising()
        _ctrl_c()
    assert guard.seen.is_set()


def test_no_interrupt_leaves_seen_unset():
    with InterruptGuard() as guard:
        pass
    assert not guard.seen.is_set()


def test_redeliver_repeats_a_swallowed_interrupt_until_the_block_ends():
    caught = 0
    with InterruptGuard(redeliver=0.05) as guard:
        deadline = time.monotonic() + 5
        while caught < 3 and time.monotonic() < deadline:
            try:
                time.sleep(0.01)
                if caught == 0:
                    _ctrl_c()
            except KeyboardInterrupt:
                caught += 1  # compiled code swallowing it, three times
    assert caught == 3 and guard.seen.is_set()
    time.sleep(0.15)  # no redelivery after the block: the default handler would raise here


def test_an_interrupt_in_a_finaliser_is_not_reported_twice(capsys):
    class Finalised:
        def __del__(self):
            raise KeyboardInterrupt

    with InterruptGuard() as guard:
        guard.seen.set()  # as if SIGINT had arrived
        obj = Finalised()
        del obj  # Python sends the exception to sys.unraisablehook
    assert "Exception ignored" not in capsys.readouterr().err


def test_outside_the_main_thread_nothing_is_installed():
    found = {}

    def work():
        with InterruptGuard() as guard:
            found["installed"] = guard.installed

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert found == {"installed": False}


def test_where_ctrl_c_is_ignored_nothing_is_installed():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with InterruptGuard() as guard:
            assert not guard.installed
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("value", [0, -1.0, float("nan")])
def test_redeliver_must_be_positive(value):
    with pytest.raises(ValueError, match="redeliver must be a positive number of seconds"):
        InterruptGuard(redeliver=value)
