"""How many examples a Hypothesis property test draws.

All of them in ``make test``; a quarter (at least 10) in the quick loop, ``make test-fast``,
which sets ``BAYES_EVAL_QUICK_TESTS=1``. The properties are the same, checked on fewer random
inputs; ``make test`` (and CI) always draws the full number.
"""

from __future__ import annotations

import os

QUICK = os.environ.get("BAYES_EVAL_QUICK_TESTS", "") not in ("", "0")


def examples(n: int) -> int:
    """``n`` examples in the full suite, ``max(10, n // 4)`` in the quick loop."""
    return max(10, n // 4) if QUICK and n > 10 else n


def property_settings(n: int, **extra):
    """The settings of the property tests: ``examples(n)`` examples, reproducible (derandomised,
    no database), no deadline, the size and speed health checks off; ``extra`` adds to them."""
    from hypothesis import HealthCheck, settings

    checks = [HealthCheck.too_slow, HealthCheck.data_too_large, *extra.pop("suppress", [])]
    return settings(
        max_examples=examples(n),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=checks,
        **extra,
    )
