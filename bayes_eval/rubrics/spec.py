"""Rubric schemata as data: the base signals, Table 4, and the :class:`Schema` type.

Hariri et al. ("Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§3.4 and App. F) map every attempt to one of ``C + 1`` categories from base signals
(App. F.1), through rubric variables (Table 4) and a schema (Table 5). This module holds

* the base signals (:data:`SIGNALS`, aliases :data:`SIGNAL_ALIASES`), the Table 4 thresholds
  (:data:`TABLE4_THRESHOLDS`, percentiles computed **once per dataset over all models'
  attempts**), rubric variables (:data:`TABLE4_VARIABLES`) and invalid rule
  (:data:`INVALID_RULE`), all written in the rubric language of
  :mod:`bayes_eval.rubrics.expression`;
* the :class:`Schema` type, built and validated by :func:`schema_from_spec` (from a mapping)
  or :func:`load_schema` (from a TOML file).

Category 0 is reserved for *invalid* attempts (Table 4: ``repeated_pattern = 1`` or
``compass_context_C >= 0.5``) and takes precedence over every other category. Signals that
are used **only** by the invalid rule (``repeated_pattern``, ``compass_context_C``) are
optional: when a dataset has no such column the corresponding disjunct is false. Every other
signal a schema uses is required (:meth:`Schema.signals`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import SupportsFloat, cast

import numpy as np

from bayes_eval.rubrics.expression import Expression, parse_expression

__all__ = [
    "INVALID_RULE",
    "SIGNALS",
    "SIGNAL_ALIASES",
    "TABLE4_THRESHOLDS",
    "TABLE4_VARIABLES",
    "Schema",
    "Threshold",
    "load_schema",
    "schema_from_spec",
    "schema_key",
]

#: Base signals of App. F.1 (one value per attempt).
SIGNALS: dict[str, str] = {
    "is_correct": "1 if the answer is correct, else 0",
    "has_box": "1 if a final boxed answer is present, else 0",
    "token_ratio": "completion tokens / 32768",
    "repeated_pattern": "0 if finish_reason is 'stop', else 1 (degenerate output)",
    "prompt_bpt": "negative mean prompt log-prob, bits/token (lower is better)",
    "completion_bpt": "negative mean completion log-prob, bits/token (lower is better)",
    "compass_context_A": "verifier probability of 'correct'",
    "compass_context_B": "verifier probability of 'wrong'",
    "compass_context_C": "verifier probability of 'invalid / off-task'",
}

#: Other accepted column names for the base signals.
SIGNAL_ALIASES: dict[str, str] = {
    "verifier_A": "compass_context_A",
    "verifier_B": "compass_context_B",
    "verifier_C": "compass_context_C",
    "correct": "is_correct",
}


@dataclass(frozen=True)
class Threshold:
    """A dataset-level threshold: the ``percentile`` of ``signal`` over all attempts.

    ``among`` (a rubric expression over signals only) restricts the pool, e.g. Table 4's
    ``tau_low_wrong`` is the 60th percentile of ``completion_bpt`` among wrong attempts.
    Percentiles use numpy's default (linear interpolation, ``np.nanpercentile``) over the
    attempts that exist, of every model in the dataset.

    Attributes
    ----------
    signal : str
        The base signal whose percentile is taken.
    percentile : float
        The percentile, in ``[0, 100]``.
    among : str or None, optional
        A rubric expression over signals selecting the attempts pooled (default None: all).

    Examples
    --------
    >>> th = TABLE4_THRESHOLDS["tau_low_wrong"]
    >>> th.signal, th.percentile, th.among
    ('completion_bpt', 60.0, 'is_correct < 0.5')
    >>> Threshold("token_ratio", 33.0).among is None
    True
    """

    signal: str
    percentile: float
    among: str | None = None


#: Table 4 thresholds.
TABLE4_THRESHOLDS: dict[str, Threshold] = {
    "tau_high": Threshold("completion_bpt", 40.0),
    "tau_low_wrong": Threshold("completion_bpt", 60.0, "is_correct < 0.5"),
    "tau_prompt": Threshold("prompt_bpt", 90.0),
    "len_p33": Threshold("token_ratio", 33.0),
    "len_p66": Threshold("token_ratio", 66.0),
    "corr_p33": Threshold("completion_bpt", 33.0, "is_correct >= 0.5"),
    "corr_p66": Threshold("completion_bpt", 66.0, "is_correct >= 0.5"),
}

#: Table 4 rubric variables (and the three correct-confidence levels Conf-Calibrated uses).
TABLE4_VARIABLES: dict[str, str] = {
    "correct": "is_correct >= 0.5",
    "wrong": "is_correct < 0.5",
    "high_conf": "completion_bpt <= tau_high",
    "low_conf": "completion_bpt > tau_high",
    "wrong_high_conf": "wrong and completion_bpt <= tau_low_wrong",
    "ood": "prompt_bpt >= tau_prompt",
    "ind": "prompt_bpt < tau_prompt",
    "economical": "token_ratio <= len_p33",
    "moderate": "len_p33 < token_ratio and token_ratio <= len_p66",
    "verbose": "token_ratio > len_p66",
    "boxed": "has_box >= 0.5",
    "unboxed": "has_box < 0.5",
    "A_high": "compass_context_A >= 0.6",
    "correct_high_conf": "correct and completion_bpt <= corr_p33",
    "correct_mid_conf": "correct and corr_p33 < completion_bpt and completion_bpt <= corr_p66",
    "correct_low_conf": "correct and completion_bpt > corr_p66",
}

#: Table 4's invalid rule (category 0).
INVALID_RULE = "repeated_pattern >= 0.5 or compass_context_C >= 0.5"


@dataclass(frozen=True)
class Schema:
    """A categorical schema: category rules ``1..C`` over signals, category 0 = invalid.

    Build one with :func:`schema_from_spec` (or use
    :data:`~bayes_eval.rubrics.catalog.SCHEMATA`); the constructor arguments are already
    validated there.

    Attributes
    ----------
    name : str
        Display name, e.g. ``"Format Aware"``.
    key : str
        Its key (:func:`schema_key`), e.g. ``"format_aware"``.
    description : str
        One line on what the schema rewards.
    labels : tuple of str
        The C + 1 category labels, ``"invalid"`` first.
    rules : tuple of Expression
        The rules of categories ``1..C``.
    weights : tuple of float
        Default weights ``w_0..w_C``.
    invalid : Expression
        The rule of category 0 (Table 4's :data:`INVALID_RULE` by default).
    thresholds : mapping of str to Threshold
        The dataset-level thresholds by name (Table 4's and the schema's own).
    variables : mapping of str to Expression
        The rubric variables by name (Table 4's and the schema's own).
    note : str, optional
        How the schema reads Table 5 where it is not a partition as printed (default empty).
    _order : tuple of str, optional
        Internal: the variables in an order in which each comes after those it uses.

    Examples
    --------
    >>> schema = schema_from_spec(
    ...     {
    ...         "name": "Boxed Correct",
    ...         "categories": [
    ...             {"label": "wrong", "when": "wrong"},
    ...             {"label": "correct", "when": "correct"},
    ...         ],
    ...         "weights": [0, 0, 1],
    ...     }
    ... )
    >>> schema.key, schema.labels, schema.n_categories
    ('boxed_correct', ('invalid', 'wrong', 'correct'), 3)
    >>> schema.signals()  # (required, optional: the invalid rule's only)
    (('is_correct',), ('compass_context_C', 'repeated_pattern'))
    """

    name: str
    key: str
    description: str
    labels: tuple[str, ...]
    rules: tuple[Expression, ...]
    weights: tuple[float, ...]
    invalid: Expression
    thresholds: Mapping[str, Threshold]
    variables: Mapping[str, Expression]
    note: str = ""
    _order: tuple[str, ...] = field(default=(), repr=False)

    @property
    def n_categories(self) -> int:
        """``C + 1``, including the invalid category 0."""
        return len(self.labels)

    def signals(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(required signals, optional signals) this schema reads."""
        rule_names = _expand(self.rules, self)
        inv_names = _expand((self.invalid,), self)
        for name in self._used_thresholds():
            th = self.thresholds[name]
            rule_names.add(th.signal)
            if th.among:
                rule_names |= set(parse_expression(th.among).names)
        req = tuple(sorted(rule_names))
        opt = tuple(sorted(inv_names - rule_names))
        return req, opt

    def _used_thresholds(self) -> set[str]:
        names = _expand(self.rules, self, keep_thresholds=True) | _expand(
            (self.invalid,), self, keep_thresholds=True
        )
        return {n for n in names if n in self.thresholds}


def _expand(
    exprs: Iterable[Expression], schema: Schema, *, keep_thresholds: bool = False
) -> set[str]:
    """Names of signals (and thresholds if asked) reached from ``exprs`` through variables."""
    out: set[str] = set()
    stack = [n for e in exprs for n in e.names]
    seen: set[str] = set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in schema.variables:
            stack.extend(schema.variables[n].names)
        elif n in schema.thresholds:
            if keep_thresholds:
                out.add(n)
        else:
            out.add(n)
    return out


def schema_key(name: str) -> str:
    """The key of a schema name: lower case, runs of other characters as ``_``.

    Parameters
    ----------
    name : str
        A schema's display name.

    Returns
    -------
    str
        Lower-case letters and digits, each run of other characters replaced by one ``_``,
        none at either end.

    Examples
    --------
    >>> schema_key("Conf-Wrong Penalty"), schema_key("Format+Confidence")
    ('conf_wrong_penalty', 'format_confidence')
    """
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def schema_from_spec(spec: Mapping[str, object], *, source: str = "schema spec") -> Schema:  # noqa: C901 - one check per key of the spec, each with its message
    """Build and validate a schema from a mapping (the parsed form of a TOML file).

    Keys: ``name`` (str), ``description`` (str, optional), ``categories`` (list of
    ``{label, when}`` for categories ``1..C``), ``weights`` (``C + 1`` numbers, ``w_0`` for
    invalid first), ``invalid`` (rubric expression; default Table 4's rule; ``"false"`` for
    no invalid category), ``thresholds`` (``{name: {signal, percentile, among}}``, added to
    Table 4's), ``variables`` (``{name: expression}``, added to Table 4's), ``note``.

    Raises ``ValueError`` naming ``source`` and the key for a missing or malformed entry,
    unknown names, cyclic variables, redefined Table 4 names and weights of the wrong length.
    Whether the categories partition the valid attempts depends on the thresholds and is
    checked by :func:`~bayes_eval.rubrics.categories.categorize`.

    Parameters
    ----------
    spec : mapping
        The schema's keys, as above.
    source : str, optional, keyword-only
        Where the spec comes from (a file name), for error messages; default
        ``"schema spec"``.

    Returns
    -------
    Schema
        The validated schema.

    Raises
    ------
    ValueError
        A missing or malformed entry (the message names ``source`` and the key).

    Examples
    --------
    Three categories of valid attempts, one with a threshold of its own:

    >>> schema = schema_from_spec(
    ...     {
    ...         "name": "Short Correct",
    ...         "thresholds": {"len_p50": {"signal": "token_ratio", "percentile": 50}},
    ...         "variables": {"short": "token_ratio <= len_p50"},
    ...         "categories": [
    ...             {"label": "wrong", "when": "wrong"},
    ...             {"label": "long", "when": "correct and not short"},
    ...             {"label": "short", "when": "correct and short"},
    ...         ],
    ...         "weights": [0, 0, 1, 2],
    ...     }
    ... )
    >>> schema.labels, schema.weights
    (('invalid', 'wrong', 'long', 'short'), (0.0, 0.0, 1.0, 2.0))
    >>> schema.thresholds["len_p50"]
    Threshold(signal='token_ratio', percentile=50.0, among=None)
    >>> schema_from_spec({"name": "X", "categories": [{"when": "correct"}]}, source="x.toml")
    Traceback (most recent call last):
        ...
    ValueError: x.toml (schema 'X'): 'weights' is missing; expected 2 numbers (w_0..w_C).
    """
    if not isinstance(spec, Mapping):
        raise ValueError(f"{source}: expected a table/mapping, got {type(spec).__name__}.")
    known = {
        "name",
        "description",
        "categories",
        "weights",
        "invalid",
        "thresholds",
        "variables",
        "note",
        "key",
    }
    unknown = sorted(set(spec) - known)
    if unknown:
        raise ValueError(f"{source}: unknown key(s) {unknown}; expected some of {sorted(known)}.")
    name = spec.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{source}: 'name' must be a non-empty string.")
    where = f"{source} (schema {name!r})"
    thresholds = dict(TABLE4_THRESHOLDS)
    for tname, tspec in dict(cast("Mapping[str, object]", spec.get("thresholds") or {})).items():
        if tname in TABLE4_THRESHOLDS or tname in TABLE4_VARIABLES:
            raise ValueError(f"{where}: threshold {tname!r} redefines a Table 4 name.")
        if not isinstance(tspec, Mapping) or "signal" not in tspec or "percentile" not in tspec:
            raise ValueError(
                f"{where}: threshold {tname!r} must be a table with 'signal' and 'percentile' "
                "(and optionally 'among')."
            )
        pct = tspec["percentile"]
        if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not 0 <= pct <= 100:
            raise ValueError(
                f"{where}: threshold {tname!r} has percentile {pct!r}; expected 0-100."
            )
        among = tspec.get("among")
        if among is not None:
            parse_expression(str(among), where=f"{where}, threshold {tname!r} 'among'")
        thresholds[tname] = Threshold(str(tspec["signal"]), float(pct), among)
    variables = {
        k: parse_expression(v, where=f"Table 4 variable {k!r}") for k, v in TABLE4_VARIABLES.items()
    }
    for vname, text in dict(cast("Mapping[str, object]", spec.get("variables") or {})).items():
        if vname in variables or vname in thresholds:
            raise ValueError(f"{where}: variable {vname!r} redefines an existing name.")
        variables[vname] = parse_expression(str(text), where=f"{where}, variable {vname!r}")
    cats = spec.get("categories")
    if not isinstance(cats, Sequence) or isinstance(cats, str) or len(cats) == 0:
        raise ValueError(
            f"{where}: 'categories' must be a non-empty list of {{label, when}} for "
            "categories 1..C (category 0 is 'invalid')."
        )
    labels = ["invalid"]
    rules = []
    for i, c in enumerate(cats, start=1):
        if not isinstance(c, Mapping) or "when" not in c:
            raise ValueError(f"{where}: category {i} must be a table with 'label' and 'when'.")
        labels.append(str(c.get("label", c["when"])))
        rules.append(parse_expression(str(c["when"]), where=f"{where}, category {i}"))
    weights = spec.get("weights")
    if weights is None:
        raise ValueError(
            f"{where}: 'weights' is missing; expected {len(labels)} numbers (w_0..w_C)."
        )
    try:
        w = tuple(float(x) for x in cast("Iterable[SupportsFloat | str]", weights))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: 'weights' must be a list of numbers, got {weights!r}.") from exc
    if len(w) != len(labels):
        raise ValueError(
            f"{where}: 'weights' has length {len(w)} but the schema has {len(labels)} categories "
            f"(0 = invalid plus {len(labels) - 1} listed); expected len(weights) = C + 1 = "
            f"{len(labels)}."
        )
    if not all(np.isfinite(w)):
        raise ValueError(f"{where}: 'weights' contains a non-finite value.")
    invalid = parse_expression(str(spec.get("invalid", INVALID_RULE)), where=f"{where}, invalid")
    schema = Schema(
        name=name.strip(),
        key=str(spec.get("key") or schema_key(name)),
        description=str(spec.get("description", "")),
        labels=tuple(labels),
        rules=tuple(rules),
        weights=w,
        invalid=invalid,
        thresholds=thresholds,
        variables=variables,
        note=str(spec.get("note", "")),
    )
    order = _variable_order(schema, where)
    for tname, th in thresholds.items():
        if th.among is not None:
            bad = _expand((parse_expression(th.among),), schema, keep_thresholds=True) & set(
                thresholds
            )
            if bad:
                raise ValueError(
                    f"{where}: threshold {tname!r} 'among' uses threshold(s) {sorted(bad)}; "
                    "pools may depend on signals only."
                )
    return Schema(**{**schema.__dict__, "_order": order})


def _variable_order(schema: Schema, where: str) -> tuple[str, ...]:
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(n: str, path: tuple[str, ...]) -> None:
        if state.get(n) == 2:
            return
        if state.get(n) == 1:
            raise ValueError(f"{where}: variables refer to each other in a cycle {(*path, n)}.")
        state[n] = 1
        for m in schema.variables[n].names:
            if m in schema.variables:
                visit(m, (*path, n))
        state[n] = 2
        order.append(n)

    for n in schema.variables:
        visit(n, ())
    return tuple(order)


def load_schema(path: str | Path) -> Schema:
    """Read a user-defined schema from a TOML file (keys as in :func:`schema_from_spec`).

    Parameters
    ----------
    path : str or pathlib.Path
        The TOML file (a byte-order mark is skipped).

    Returns
    -------
    Schema
        The validated schema.

    Raises
    ------
    ValueError
        No such file, invalid TOML, or a spec :func:`schema_from_spec` rejects.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> text = '''
    ... name = "Boxed Correct"
    ... weights = [0, 0, 1]
    ... categories = [
    ...     {label = "other", when = "wrong or unboxed"},
    ...     {label = "boxed correct", when = "correct and boxed"},
    ... ]
    ... '''
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "boxed.toml"
    ...     _ = path.write_text(text, encoding="utf-8")
    ...     schema = load_schema(path)
    >>> schema.key, schema.labels
    ('boxed_correct', ('invalid', 'other', 'boxed correct'))
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such schema file.")
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a byte-order mark is skipped
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid TOML ({exc}).") from exc
    except RecursionError:
        raise ValueError(f"{path}: values nested too deeply to read; expected a schema.") from None
    return schema_from_spec(spec, source=str(path))
