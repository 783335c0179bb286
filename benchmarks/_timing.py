"""Shared timing for the benchmark scripts (not a benchmark itself: ``run_all.py`` skips it).

:func:`interleaved` times several callables round by round (one call of each per round, in
turn), so a burst of load on a shared machine hits a benchmark and its reference alike, and
keeps the best round of each: the minimum measures the code, not the noise. :func:`versus`
turns a measured pair into the line every benchmark prints: the ratio against its reference
from the same run and the goal of issue 28 beside it, e.g. ``3.0x the floor (goal <= 1.5x)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def interleaved(
    fns: dict[str, Callable[[], object]], repeats: int = 5, number: int = 1, warmup: bool = True
) -> dict[str, float]:
    """Best time per call of each callable over ``repeats`` interleaved rounds of ``number``
    calls each (seconds). ``warmup`` calls each once first (caches, lazy imports)."""
    if warmup:
        for fn in fns.values():
            fn()
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeats):
        for name, fn in fns.items():
            t = time.perf_counter()
            for _ in range(number):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t) / number)
    return best


def versus(
    seconds: float,
    reference_seconds: float,
    goal: str | None,
    *,
    faster: bool = False,
    what: str = "",
) -> dict:
    """The record of one comparison: ``ratio`` is seconds / reference (or reference / seconds
    with ``faster=True``, a speed-up); ``goal`` reads ``"<= 1.5"`` or ``">= 30"``;
    ``meets_goal`` compares the two (None without a goal: a ratio for information);
    ``text`` is the printed form."""
    ratio = reference_seconds / seconds if faster else seconds / reference_seconds
    head = f"{ratio:.1f}x faster than" if faster else f"{ratio:.2f}x"
    text, meets = f"{head} {what}", None
    if goal is not None:
        op, bound = goal.split()
        meets = bool(ratio <= float(bound) if op == "<=" else ratio >= float(bound))
        text += f" (goal {op} {bound}x)"
    return {
        "seconds": seconds,
        "reference_seconds": reference_seconds,
        "ratio": ratio,
        "goal": goal,
        "meets_goal": meets,
        "text": text,
    }


def ms(seconds: float) -> str:
    """Seconds as milliseconds (or seconds when over 10 s) for the printed tables."""
    return f"{seconds:.2f} s" if seconds >= 10 else f"{seconds * 1e3:.2f} ms"
