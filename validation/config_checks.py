"""Checks of configuration values by type and range.

The checks are shared by :class:`~bayes_eval.validation.coverage.CoverageConfig` (TOML keys)
and the registry config of the coverage study (options). Every check raises ``ValueError``
naming the key, what it must be and the value it got, e.g. ``M must be a list of positive
integers, got 5``. Integers are never truncated: ``2.5`` is refused, and so is ``True`` (a
bool is not a count).
"""

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
    """An ``int`` (not a bool, not a float) of at least ``minimum``.

    Parameters
    ----------
    name : str
        The key or option checked, as the error message names it.
    value : object
        The value to check.
    minimum : int, optional
        The smallest value allowed, default 1.
    optional : bool, optional
        Accept ``None`` as well, default False.

    Raises
    ------
    ValueError
        If ``value`` is not an integer of at least ``minimum``.

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import integer
    >>> integer("replicates", 200)
    >>> try:
    ...     integer("replicates", 2.5)
    ... except ValueError as e:
    ...     print(e)
    replicates must be an integer >= 1, got 2.5
    """
    if optional and value is None:
        return
    if not _is_int(value) or value < minimum:
        _fail(name, f"an integer >= {minimum}", value)


def integers(name: str, values, minimum: int = 1, *, optional: bool = False) -> None:
    """A non-empty list (or tuple) of integers of at least ``minimum``.

    Parameters
    ----------
    name : str
        The key or option checked, as the error message names it.
    values : object
        The value to check, a list or tuple.
    minimum : int, optional
        The smallest value allowed for each element, default 1.
    optional : bool, optional
        Accept ``None`` as well, default False.

    Raises
    ------
    ValueError
        If ``values`` is not a non-empty list of integers of at least ``minimum``.

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import integers
    >>> integers("M", [30, 100])
    >>> try:
    ...     integers("M", 5)
    ... except ValueError as e:
    ...     print(e)
    M must be a list of positive integers, got 5
    """
    if optional and values is None:
        return
    what = "a list of positive integers" if minimum == 1 else f"a list of integers >= {minimum}"
    if not isinstance(values, (list, tuple)) or not values:
        _fail(name, what, values)
    if any(not _is_int(v) or v < minimum for v in values):
        _fail(name, what, values)


def probability(name: str, value, *, optional: bool = False) -> None:
    """A number strictly between 0 and 1.

    Parameters
    ----------
    name : str
        The key or option checked, as the error message names it.
    value : object
        The value to check.
    optional : bool, optional
        Accept ``None`` as well, default False.

    Raises
    ------
    ValueError
        If ``value`` is not a number in (0, 1).

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import probability
    >>> probability("confidence", 0.95)
    >>> try:
    ...     probability("confidence", 1.5)
    ... except ValueError as e:
    ...     print(e)
    confidence must be a number in (0, 1), got 1.5
    """
    if optional and value is None:
        return
    if not _is_number(value) or not 0 < value < 1:
        _fail(name, "a number in (0, 1)", value)


def positive_number(name: str, value, *, optional: bool = False) -> None:
    """A number > 0.

    Parameters
    ----------
    name : str
        The key or option checked, as the error message names it.
    value : object
        The value to check; it must also be finite.
    optional : bool, optional
        Accept ``None`` as well, default False.

    Raises
    ------
    ValueError
        If ``value`` is not a finite number > 0.

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import positive_number
    >>> positive_number("alpha0", 2.0)
    >>> try:
    ...     positive_number("alpha0", 0)
    ... except ValueError as e:
    ...     print(e)
    alpha0 must be a finite number > 0, got 0
    """
    if optional and value is None:
        return
    if not _is_number(value) or not 0 < value < math.inf:
        _fail(name, "a finite number > 0", value)


def boolean(name: str, value, *, optional: bool = False) -> None:
    """``true`` or ``false``.

    Parameters
    ----------
    name : str
        The key or option checked, as the error message names it.
    value : object
        The value to check.
    optional : bool, optional
        Accept ``None`` as well, default False.

    Raises
    ------
    ValueError
        If ``value`` is not a bool.

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import boolean
    >>> boolean("exact_categorical", True)
    >>> try:
    ...     boolean("exact_categorical", "yes")
    ... except ValueError as e:
    ...     print(e)
    exact_categorical must be true or false, got 'yes'
    """
    if optional and value is None:
        return
    if not isinstance(value, bool):
        _fail(name, "true or false", value)


def strings(
    name: str, values, choices: Iterable[str] | None = None, *, optional: bool = False
) -> None:
    """A non-empty list of strings, each one of ``choices`` if given.

    Parameters
    ----------
    name : str
        The key or option checked, as the error message names it.
    values : object
        The value to check, a list or tuple.
    choices : iterable of str, optional
        The strings allowed; any string when None (the default).
    optional : bool, optional
        Accept ``None`` as well, default False.

    Raises
    ------
    ValueError
        If ``values`` is not a non-empty list of strings, or names one not in ``choices``.

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import strings
    >>> strings("scenarios", ["anchored"], ["anchored", "uniform"])
    >>> try:
    ...     strings("scenarios", ["anchored", "foo"], ["anchored", "uniform"])
    ... except ValueError as e:
    ...     print(e)
    scenarios must be a non-empty list of some of ['anchored', 'uniform']; ['foo'] are unknown, ...
    """
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
    """One ``[scenario, C, M, N]`` cell with positive integers.

    Parameters
    ----------
    name : str
        The key checked, as the error message names it.
    cell : object
        The cell to check: a scenario, then categories ``C``, questions ``M`` and trials ``N``.
    scenarios : iterable of str
        The scenarios allowed.

    Raises
    ------
    ValueError
        If ``cell`` is not such a cell.

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import nuts_cell
    >>> nuts_cell("nuts_cells", ["anchored", 1, 30, 4], ["anchored", "uniform"])
    >>> try:
    ...     nuts_cell("nuts_cells", ["anchored", 1, 30], ["anchored"])
    ... except ValueError as e:
    ...     print(e)
    nuts_cells must be a list of [scenario, C, M, N] cells, ... got ['anchored', 1, 30]
    """
    ok = isinstance(cell, (list, tuple)) and len(cell) == 4 and cell[0] in list(scenarios)
    ok = ok and all(_is_int(v) and v >= 1 for v in cell[1:])
    if not ok:
        _fail(name, "a list of [scenario, C, M, N] cells, e.g. ['anchored', 1, 30, 4]", cell)


def _largest(values) -> int:
    return max((v for v in values if _is_int(v)), default=1)


def coverage_memory(M, N, C, replicates: int, bootstrap_resamples: int) -> None:
    """Refuse a coverage grid whose largest cell needs too much memory, before it is simulated.

    The limit is :data:`bayes_eval.inputs.MEMORY_LIMIT`. A cell holds the true
    probabilities and counts of ``replicates`` benchmarks of ``M`` questions and ``C + 1``
    categories for two models (8 arrays of 8 bytes with the working copies), and the
    bootstrap's index of 200 replicates x ``bootstrap_resamples`` x ``M`` (twice):
    ``64 R M (C + 1) + 3200 B M`` bytes. ``N`` (trials) only enters through the counts' values.

    Parameters
    ----------
    M : list of int
        The numbers of questions of the grid; the largest is checked.
    N : list of int
        The numbers of trials per question (not used: counts are stored per category).
    C : list of int
        The numbers of categories above 0 of the grid; the largest is checked.
    replicates : int
        The simulated benchmarks per cell.
    bootstrap_resamples : int
        The bootstrap resamples per benchmark (0 for none).

    Raises
    ------
    ValueError
        If the largest cell needs more memory than the limit.

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import coverage_memory
    >>> coverage_memory([30, 100], [1, 4], [1, 2], replicates=200, bootstrap_resamples=1000)
    >>> try:
    ...     coverage_memory([10**6], [4], [1], replicates=10**6, bootstrap_resamples=0)
    ... except ValueError as e:
    ...     print(e)
    M = 1000000 (with C = 1, 1000000 replicates, 0 bootstrap resamples) needs about ...
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
    """Refuse an SBC study whose single simulation needs too much memory, before it runs.

    The limit is :data:`bayes_eval.inputs.MEMORY_LIMIT`. The memory counted: the posterior
    draws of every question's binary probabilities
    (``chains x draws x n_models x n_questions x 2``) and the results
    (``n_models x n_questions x trials``), 8 bytes each, times 4 for working copies:
    ``32 L M (2 D c + N)`` bytes.

    Parameters
    ----------
    n_questions : int
        Questions ``M`` per simulated benchmark.
    n_models : int
        Models ``L`` per simulated benchmark.
    trials : int
        Trials ``N`` per question.
    draws : int
        Posterior draws ``D`` per chain.
    chains : int
        MCMC chains ``c``.

    Raises
    ------
    ValueError
        If one simulation needs more memory than the limit.

    Examples
    --------
    >>> from bayes_eval.validation.config_checks import sbc_memory
    >>> sbc_memory(n_questions=30, n_models=2, trials=4, draws=500, chains=2)
    >>> try:
    ...     sbc_memory(n_questions=10**5, n_models=10, trials=4, draws=10**4, chains=4)
    ... except ValueError as e:
    ...     print(e)
    --n-questions 100000 with --n-models 10, --draws 10000 per chain and --chains 4 needs ...
    """
    nbytes = 32.0 * n_models * n_questions * (2.0 * draws * chains + trials)
    check_memory(
        nbytes,
        f"--n-questions {n_questions} with --n-models {n_models}, --draws {draws} per chain and "
        f"--chains {chains}",
        "fewer questions, models or draws per simulation",
    )


def read_toml(path) -> dict:
    r"""A TOML file as a dict.

    A UTF-8 byte-order mark (as some editors on Windows write) is skipped.

    Parameters
    ----------
    path : str or pathlib.Path
        The TOML file.

    Returns
    -------
    dict
        The file's tables and keys.

    Raises
    ------
    UnicodeDecodeError, OSError, tomllib.TOMLDecodeError
        As :func:`tomllib.loads` and :meth:`pathlib.Path.read_text` raise them.
    ValueError
        For values nested too deeply to read (tomllib's recursion).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.validation.config_checks import read_toml
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "coverage.toml"
    ...     _ = path.write_text("M = [30, 100]\nconfidence = 0.9\n", encoding="utf-8-sig")
    ...     read_toml(path)
    {'M': [30, 100], 'confidence': 0.9}
    """
    import tomllib
    from pathlib import Path

    text = Path(path).read_text(encoding="utf-8-sig")
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise ValueError(
            f"{path}: values nested too deeply to read; expected numbers or lists of numbers."
        ) from None
