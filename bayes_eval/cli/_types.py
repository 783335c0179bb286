"""Value types of the command-line options: number lists, counts and output paths.

The one parser of comma-separated number lists (:func:`numbers`; integers are checked, never
truncated), counts (:func:`positive_int`) and output paths checked before the work
(:func:`writable_file`, :func:`writable_folder`).

Each raises ``argparse.ArgumentTypeError`` (argparse adds the option's name) or, for
:func:`pair`, a ValueError naming the option.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import cast

__all__ = [
    "integers",
    "nonnegative_int",
    "numbers",
    "pair",
    "positive_int",
    "words",
    "writable_file",
    "writable_folder",
]

#: The subcommands of the ``bayes-eval`` parser; each command module adds its parser to them.
type SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]


def _integer(x: str) -> int:
    """``"4"`` -> 4 (``"1e3"`` -> 1000); a ValueError ``1.5 is not an integer`` otherwise."""
    try:
        return int(x)
    except ValueError:
        value = float(x)  # a ValueError of its own when x is no number at all
        if not value.is_integer():
            raise ValueError(f"{x.strip()} is not an integer") from None
        return int(value)


def numbers(text: str, *, integer: bool = False) -> list[float] | list[int]:
    """``"0,0.5,1"`` -> ``[0.0, 0.5, 1.0]``.

    With ``integer``: ``"1,2"`` -> ``[1, 2]``; a non-integer such as ``1.5`` is refused, never
    truncated.

    Raises ``argparse.ArgumentTypeError`` naming the text (argparse adds the option's name).
    """
    kind = "integers such as 1,2,4" if integer else "numbers such as 0,0.5,1"
    values = []
    for x in text.split(","):
        try:
            values.append(_integer(x) if integer else float(x))
        except ValueError as exc:
            if "is not an integer" in str(exc):
                raise argparse.ArgumentTypeError(f"{exc}; expected {kind}.") from None
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a list of numbers; expected comma-separated {kind}."
            ) from None
        except OverflowError:
            raise argparse.ArgumentTypeError(f"{x.strip()} is not a finite number.") from None
    return values


def integers(text: str) -> list[int]:
    """:func:`numbers` of integers."""
    return cast("list[int]", numbers(text, integer=True))


def _count(text: str, least: int, kind: str) -> int:
    try:
        value = _integer(text)
    except (ValueError, OverflowError):
        value = None
    if value is None or value < least:
        raise argparse.ArgumentTypeError(f"{text!r} is not a {kind}.")
    return value


def positive_int(text: str) -> int:
    """An argparse type: a count of at least 1 (``"0"``, ``"-2"`` and ``"1.5"`` are refused)."""
    return _count(text, 1, "positive integer")


def nonnegative_int(text: str) -> int:
    """An argparse type: a count of at least 0 (e.g. tuning steps)."""
    return _count(text, 0, "non-negative integer")


def fdr_level(text: str) -> float:
    """An argparse type: a false discovery rate in (0, 1) (``--fdr``)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate in (0, 1) such as 0.05.")
    return value


def _checked(text: str, *, folder: bool = False) -> str:
    from bayes_eval.files import OutputError, check_output

    try:
        check_output(text, folder=folder)
    except OutputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def writable_file(text: str) -> str:
    """An argparse type for an output file (:func:`bayes_eval.files.check_output`).

    Its folder must exist and be writable; a folder, an empty name or one too long are refused.
    """
    return _checked(text)


def writable_folder(text: str) -> str:
    """An output folder, created with its missing parents.

    The nearest existing ancestor must be a writable folder; an existing file is refused.
    """
    return _checked(text, folder=True)


def words(text: str) -> list[str]:
    """``"bayes,pass_at_k:4"`` -> ``["bayes", "pass_at_k:4"]``."""
    return [w.strip() for w in text.split(",") if w.strip()]


def pair(values: Sequence[float], name: str) -> tuple[float, float]:
    """Two numbers of a number list, else a ValueError naming the option."""
    if len(values) != 2:
        raise ValueError(f"{name} takes two numbers, e.g. 0.5,0.04; got {len(values)}.")
    return float(values[0]), float(values[1])
