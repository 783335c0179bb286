"""Checks of configuration values by type and range, shared by
:class:`~bayes_eval.validation.coverage.CoverageConfig` (TOML keys) and the registry config
of the coverage study (options). Every check raises
``ValueError`` naming the key, what it must be and the value it got, e.g. ``M must be a list
of positive integers, got 5``. Integers are never truncated: ``2.5`` is refused, and so is
``True`` (a bool is not a count)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from bayes_eval.inputs import check_memory, shown

__all__ = [
    "boolean",
    "coverage_memory",
    "integer",
    "integers",
    "nuts_cell",
    "positive_number",
    "probability",
    "read_toml",
    "sbc_memory",
    "strings",
]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fail(name: str, what: str, value) -> None:
    raise ValueError(f"{name} must be {what}, got {shown(value, 80)}")


def integer(name: str, value, minimum: int = 1, *, optional: bool = False) -> None:
    """An ``int`` (not a bool, not a float) of at least ``minimum``."""
    if optional and value is None:
        return
    if not _is_int(value) or value < minimum:
        _fail(name, f"an integer >= {minimum}", value)


def integers(name: str, values, minimum: int = 1, *, optional: bool = False) -> None:
    """A non-empty list (or tuple) of integers of at least ``minimum``."""
    if optional and values is None:
        return
    what = "a list of positive integers" if minimum == 1 else f"a list of integers >= {minimum}"
    if not isinstance(values, (list, tuple)) or not values:
        _fail(name, what, values)
    if any(not _is_int(v) or v < minimum for v in values):
        _fail(name, what, values)


def probability(name: str, value, *, optional: bool = False) -> None:
    """A number strictly between 0 and 1."""
    if optional and value is None:
        return
    if not _is_number(value) or not 0 < value < 1:
        _fail(name, "a number in (0, 1)", value)


def positive_number(name: str, value, *, optional: bool = False) -> None:
    """A number > 0."""
    if optional and value is None:
        return
    if not _is_number(value) or not 0 < value < math.inf:
        _fail(name, "a finite number > 0", value)


def boolean(name: str, value, *, optional: bool = False) -> None:
    """``true`` or ``false``."""
    if optional and value is None:
        return
    if not isinstance(value, bool):
        _fail(name, "true or false", value)


def strings(
    name: str, values, choices: Iterable[str] | None = None, *, optional: bool = False
) -> None:
    """A non-empty list of strings, each one of ``choices`` if given."""
    if optional and values is None:
        return
    what = "a non-empty list of strings"
    if choices is not None:
        choices = list(choices)
        what = f"a non-empty list of some of {choices}"
    if not isinstance(values, (list, tuple)) or not values:
        _fail(name, what, values)
    if any(not isinstance(v, str) for v in values):
        _fail(name, what, values)
    if choices is not None:
        bad = [v for v in values if v not in choices]
        if bad:
            raise ValueError(
                f"{name} must be {what}; {bad} are unknown, got {shown(list(values), 80)}"
            )


def nuts_cell(name: str, cell, scenarios: Iterable[str]) -> None:
    """One ``[scenario, C, M, N]`` cell with positive integers."""
    ok = isinstance(cell, (list, tuple)) and len(cell) == 4 and cell[0] in list(scenarios)
    ok = ok and all(_is_int(v) and v >= 1 for v in cell[1:])
    if not ok:
        _fail(name, "a list of [scenario, C, M, N] cells, e.g. ['anchored', 1, 30, 4]", cell)


def _largest(values) -> int:
    return max((v for v in values if _is_int(v)), default=1)


def coverage_memory(M, N, C, replicates: int, bootstrap_resamples: int) -> None:
    """Refuse a coverage grid whose largest cell needs more than
    :data:`bayes_eval.inputs.MEMORY_LIMIT`, before it is simulated. A cell holds the true
    probabilities and counts of ``replicates`` benchmarks of ``M`` questions and ``C + 1``
    categories for two models (8 arrays of 8 bytes with the working copies), and the
    bootstrap's index of 200 replicates x ``bootstrap_resamples`` x ``M`` (twice):
    ``64 R M (C + 1) + 3200 B M`` bytes. ``N`` (trials) only enters through the counts' values.
    """
    del N  # counts are stored per category, whatever the number of trials
    m, k = _largest(M), _largest(C) + 1
    reps = replicates if _is_int(replicates) else 1
    boot = bootstrap_resamples if _is_int(bootstrap_resamples) else 0
    nbytes = 64.0 * reps * m * k + 3200.0 * boot * m
    check_memory(
        nbytes,
        f"M = {m} (with C = {k - 1}, {reps} replicates, {boot} bootstrap resamples)",
        "fewer questions M, replicates or categories per cell",
    )


def sbc_memory(n_questions: int, n_models: int, trials: int, draws: int, chains: int) -> None:
    """Refuse an SBC study whose single simulation needs more than
    :data:`bayes_eval.inputs.MEMORY_LIMIT`, before it runs: the posterior draws of every
    question's binary probabilities (``chains x draws x n_models x n_questions x 2``) and the
    results (``n_models x n_questions x trials``), 8 bytes each, times 4 for working copies:
    ``32 L M (2 D c + N)`` bytes."""
    nbytes = 32.0 * n_models * n_questions * (2.0 * draws * chains + trials)
    check_memory(
        nbytes,
        f"--n-questions {n_questions} with --n-models {n_models}, --draws {draws} per chain and "
        f"--chains {chains}",
        "fewer questions, models or draws per simulation",
    )


def read_toml(path) -> dict:
    """A TOML file as a dict; a UTF-8 byte-order mark (as some editors on Windows write) is
    skipped. Raises ``UnicodeDecodeError``, ``OSError`` and ``tomllib.TOMLDecodeError`` as
    :func:`tomllib.loads` and :meth:`pathlib.Path.read_text` do; a ``ValueError`` for values
    nested too deeply to read (tomllib's recursion)."""
    import tomllib
    from pathlib import Path

    text = Path(path).read_text(encoding="utf-8-sig")
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ValueError(
            f"{path}: values nested too deeply to read; expected numbers or lists of numbers."
        ) from None
