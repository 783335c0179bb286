"""The small Boolean language in which rubric variables and categories are written.

A rubric expression is a Python-syntax expression over *names* (base signals, thresholds
and rubric variables) built from

* comparisons ``signal <= tau_high``, ``is_correct >= 0.5``, ``a < b`` (one operator each),
* ``and`` / ``&``, ``or`` / ``|``, ``not`` / ``~`` and parentheses,
* the constants ``true`` / ``false`` (also ``True`` / ``False``) and numbers.

Table 4 of Hariri et al. ("Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation") is written in this language (see :mod:`bayes_eval.rubrics.spec`), so the
built-in schemata and user-defined ones go through the same parser and evaluator. Nothing is
passed to ``eval``: the expression is parsed with ``ast`` and only the node types
above are accepted, so a spec file cannot run code.

Evaluation is vectorised: names are looked up in a mapping of numpy arrays (or scalars) and
the result is a Boolean array. A comparison with ``NaN`` is ``False`` (numpy semantics),
which is how absent optional signals drop out of the *invalid* rule.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["Expression", "parse_expression"]

_COMPARE = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
#: An expression compiled: the namespace of signals -> its value (array or scalar).
_Fn = Callable[[Mapping[str, object]], object]

_CONSTANTS = {"true": True, "false": False, "True": True, "False": False}


@dataclass(frozen=True)
class Expression:
    """A parsed rubric expression.

    Attributes
    ----------
    text : str
        The source text.
    names : frozenset of str
        Every name the expression refers to (signals, thresholds or variables).
    _fn : callable
        Internal: the compiled evaluator, from a namespace of arrays to the result.

    Examples
    --------
    >>> import numpy as np
    >>> expr = parse_expression("correct and not boxed")
    >>> expr.text, sorted(expr.names)
    ('correct and not boxed', ['boxed', 'correct'])
    >>> expr.evaluate({"correct": np.array([1.0, 1.0, 0.0]), "boxed": np.array([0.0, 1.0, 0.0])})
    array([ True, False, False])
    """

    text: str
    names: frozenset[str]
    _fn: Callable[[Mapping[str, object]], object]

    def evaluate(self, namespace: Mapping[str, object]) -> np.ndarray:
        """Evaluate to a Boolean array; every name must be in ``namespace``."""
        return np.asarray(self._fn(namespace), dtype=bool)

    def evaluate_value(self, namespace: Mapping[str, object]) -> object:
        """Evaluate without casting (used for comparisons of numeric terms)."""
        return self._fn(namespace)


def parse_expression(text: str, *, where: str = "expression") -> Expression:
    """Parse ``text`` into an :class:`Expression`.

    Raises ``ValueError`` naming ``where`` (for example ``"schema 'X', category 2"``) and the
    offending construct for a syntax error or an unsupported construct.

    Parameters
    ----------
    text : str
        A rubric expression (module docstring), e.g. ``"completion_bpt <= tau_high"``.
    where : str, optional, keyword-only
        What the expression is, for error messages (default ``"expression"``).

    Returns
    -------
    Expression
        The parsed expression, ready to evaluate on arrays.

    Raises
    ------
    ValueError
        Empty text, a syntax error or a construct outside the language.

    Examples
    --------
    >>> import numpy as np
    >>> expr = parse_expression("completion_bpt <= tau_high")
    >>> expr.evaluate({"completion_bpt": np.array([0.5, 2.0]), "tau_high": 1.0})
    array([ True, False])
    >>> parse_expression("a + b", where="category 1")
    Traceback (most recent call last):
        ...
    ValueError: category 1: 'a + b' contains the unsupported construct 'a + b'; ...
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where}: expected a non-empty rubric expression, got {text!r}.")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"{where}: {text!r} is not a valid expression ({exc.msg}).") from exc
    names: set[str] = set()
    fn = _compile(tree.body, text, where, names, boolean=True)
    return Expression(text=text.strip(), names=frozenset(names), _fn=fn)


def _compile(node: ast.AST, text: str, where: str, names: set[str], *, boolean: bool) -> _Fn:
    if isinstance(node, ast.BoolOp):
        parts = [_compile(v, text, where, names, boolean=True) for v in node.values]
        combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        return _reduce(parts, combine)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
        parts = [
            _compile(node.left, text, where, names, boolean=True),
            _compile(node.right, text, where, names, boolean=True),
        ]
        combine = np.logical_and if isinstance(node.op, ast.BitAnd) else np.logical_or
        return _reduce(parts, combine)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.Invert)):
        inner = _compile(node.operand, text, where, names, boolean=True)
        return lambda ns: np.logical_not(_as_bool(inner(ns)))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not boolean:
        inner = _compile(node.operand, text, where, names, boolean=False)
        return lambda ns: -np.asarray(inner(ns), dtype=float)
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
            raise ValueError(
                f"{where}: {text!r} uses a chained or unsupported comparison; write one of "
                "<, <=, >, >=, ==, != per comparison and join them with 'and'."
            )
        op = _COMPARE[type(node.ops[0])]
        left = _compile(node.left, text, where, names, boolean=False)
        right = _compile(node.comparators[0], text, where, names, boolean=False)
        return lambda ns: op(np.asarray(left(ns), dtype=float), np.asarray(right(ns), dtype=float))
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            value = _CONSTANTS[node.id]
            return lambda ns: value
        names.add(node.id)
        key = node.id
        if boolean:
            return lambda ns: _as_bool(ns[key])
        return lambda ns: ns[key]
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            value = node.value
            return lambda ns: value
        if isinstance(node.value, (int, float)) and not boolean:
            number = float(node.value)
            return lambda ns: number
    raise ValueError(
        f"{where}: {text!r} contains the unsupported construct {ast.unparse(node)!r}; "
        "expected names, numbers, one comparison at a time, and/or/not (&, |, ~), parentheses."
    )


def _as_bool(value: object) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == bool:
        return arr
    return arr.astype(float) >= 0.5 if arr.dtype.kind in "iuf" else arr.astype(bool)


def _reduce(
    parts: list[_Fn], combine: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> Callable[[Mapping[str, object]], np.ndarray]:
    def fn(ns: Mapping[str, object]) -> np.ndarray:
        out = _as_bool(parts[0](ns))
        for p in parts[1:]:
            out = combine(out, _as_bool(p(ns)))
        return out

    return fn
