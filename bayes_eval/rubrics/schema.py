"""Rubric schemata: per-attempt base signals -> categories 0..C -> weights (seed 000 App. F).

Seed 000 §3.4 and Appendix F map every attempt to one of ``C + 1`` categories from base
signals (App. F.1), through rubric variables (Table 4) and a schema (Table 5); Bayes@N then
scores the categories with a weight vector ``w``. This module holds

* the base signals (:data:`SIGNALS`), the Table 4 thresholds (:data:`TABLE4_THRESHOLDS`,
  percentiles computed **once per dataset over all models' attempts**) and rubric variables
  (:data:`TABLE4_VARIABLES`), all written in the rubric language of
  :mod:`bayes_eval.rubrics.expression`;
* the twelve schemata of Table 5 (:data:`SCHEMATA`) with default weights;
* user-defined schemata (:func:`schema_from_spec`, :func:`load_schema` for TOML files);
* :func:`categorize`, which resolves the thresholds, checks that the categories partition the
  valid attempts and returns the category array, the weights and the thresholds used.

Category 0 is reserved for *invalid* attempts (Table 4: ``repeated_pattern = 1`` or
``compass_context_C >= 0.5``) and takes precedence over every other category; categories
``1..C`` must be **mutually exclusive and exhaustive over the valid attempts**. This is
checked twice: on a grid that visits every cell of the piecewise-constant rule set (so the
check is complete for the thresholds in use, not only for the data at hand), and on the data.

Where Table 5 is not a partition as printed, the built-in schema uses the reading below
(each is also in the schema's ``note``):

* *Conf-Calibrated*, *Conf-Wrong Penalty*: "wrong ∧ low_conf" is read as
  "wrong ∧ ¬wrong_high_conf" (``wrong_high_conf`` uses ``tau_low_wrong``, ``low_conf`` uses
  ``tau_high``; as printed, some wrong attempts would be in both or neither category).
  The three correct levels of Conf-Calibrated use ``corr_p33``/``corr_p66`` (Table 4's
  percentiles of ``completion_bpt`` among correct attempts): high = ``<= corr_p33``,
  mid = ``(corr_p33, corr_p66]``, low = ``> corr_p66``.
* *Verifier-Only*: "high C" / "high B" are read as "not A_high and C > B" / "not A_high and
  B >= C" (the larger of the two remaining verifier probabilities).
* *Concision-High-Conf*: category 4 is "correct ∧ economical ∧ low_conf" so that it excludes
  category 5.
* *Exact Match* and *Length-Robust* have the same categories (as printed in Table 5).

Only Format Aware's weights ``[0, 0, 1, 2, 3]`` are given in the paper; the other default
weights are ours (each schema's ``weights``), chosen so that the weight order follows the
schema's description. Pass ``weights=`` to :func:`categorize` (or ``--weights``) to override.

Signals that are used **only** by the invalid rule (``repeated_pattern``,
``compass_context_C``) are optional: when a dataset has no such column the corresponding
disjunct is false. Every other signal a schema uses is required.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.rubrics.expression import Expression, parse_expression

__all__ = [
    "INVALID_RULE",
    "SCHEMATA",
    "SIGNALS",
    "SIGNAL_ALIASES",
    "TABLE4_THRESHOLDS",
    "TABLE4_VARIABLES",
    "RubricCategories",
    "Schema",
    "Threshold",
    "categorize",
    "describe_schemata",
    "get_schema",
    "load_schema",
    "rubric_thresholds",
    "schema_from_spec",
]

#: Base signals of seed 000 App. F.1 (one value per attempt).
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

    Build one with :func:`schema_from_spec` (or use :data:`SCHEMATA`); the constructor
    arguments are already validated there.
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


def _expand(exprs, schema: Schema, *, keep_thresholds: bool = False) -> set[str]:
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


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def schema_from_spec(spec: Mapping[str, object], *, source: str = "schema spec") -> Schema:
    """Build and validate a schema from a mapping (the parsed form of a TOML file).

    Keys: ``name`` (str), ``description`` (str, optional), ``categories`` (list of
    ``{label, when}`` for categories ``1..C``), ``weights`` (``C + 1`` numbers, ``w_0`` for
    invalid first), ``invalid`` (rubric expression; default Table 4's rule; ``"false"`` for
    no invalid category), ``thresholds`` (``{name: {signal, percentile, among}}``, added to
    Table 4's), ``variables`` (``{name: expression}``, added to Table 4's), ``note``.

    Raises ``ValueError`` naming ``source`` and the key for a missing or malformed entry,
    unknown names, cyclic variables, redefined Table 4 names and weights of the wrong length.
    Whether the categories partition the valid attempts depends on the thresholds and is
    checked by :func:`categorize`.
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
    for tname, tspec in dict(spec.get("thresholds") or {}).items():
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
    for vname, text in dict(spec.get("variables") or {}).items():
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
        w = tuple(float(x) for x in weights)  # type: ignore[union-attr]
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
        key=str(spec.get("key") or _key(name)),
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
    """Read a user-defined schema from a TOML file (keys as in :func:`schema_from_spec`)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such schema file.")
    try:
        spec = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid TOML ({exc}).") from exc
    return schema_from_spec(spec, source=str(path))


def _builtin(name, description, categories, weights, note=""):
    return schema_from_spec(
        {
            "name": name,
            "description": description,
            "weights": weights,
            "note": note,
            "categories": [{"label": c, "when": c} for c in categories],
        },
        source="built-in schema",
    )


_NOT_WHC = "wrong and not wrong_high_conf"
#: The twelve schemata of seed 000 Table 5, by key.
SCHEMATA: dict[str, Schema] = {
    s.key: s
    for s in (
        _builtin(
            "Exact Match",
            "Correctness only; ignores formatting, confidence and length.",
            ["wrong", "correct"],
            [0, 0, 1],
        ),
        _builtin(
            "Format Aware",
            "Rewards boxed answers; distinguishes boxed/unboxed even when "
            "wrong (weights from App. F).",
            ["wrong and unboxed", "wrong and boxed", "correct and unboxed", "correct and boxed"],
            [0, 0, 1, 2, 3],
        ),
        _builtin(
            "Conf-Calibrated",
            "Penalises confidently wrong; grades correct answers by confidence (low/mid/high).",
            [
                _NOT_WHC,
                "wrong_high_conf",
                "correct_low_conf",
                "correct_mid_conf",
                "correct_high_conf",
            ],
            [0, 1, 0, 2, 3, 4],
            "wrong and low_conf read as wrong and not wrong_high_conf; correct levels from "
            "corr_p33/corr_p66.",
        ),
        _builtin(
            "OOD Robustness",
            "Separates in-distribution and OOD prompts; checks "
            "correctness under both (correct on an OOD prompt weighs more).",
            ["ood and wrong", "ind and wrong", "ood and correct", "ind and correct"],
            [0, 0, 0, 2, 1],
        ),
        _builtin(
            "Strict Compliance",
            "Requires boxed final answers; unboxed-correct is non-compliant.",
            ["wrong or (correct and unboxed)", "correct and boxed"],
            [0, 0, 1],
        ),
        _builtin(
            "Conf-Wrong Penalty",
            "Heavier penalty for wrong answers at high confidence.",
            ["wrong_high_conf", _NOT_WHC, "correct"],
            [0, -1, 0, 1],
            "wrong and low_conf read as wrong and not wrong_high_conf.",
        ),
        _builtin(
            "Verifier-Only",
            "Verifier signals alone (model-agnostic).",
            [
                "not A_high and compass_context_C > compass_context_B",
                "not A_high and compass_context_B >= compass_context_C",
                "A_high",
            ],
            [0, 0, 0, 1],
            "high C / high B read as the larger of C and B when A is not high.",
        ),
        _builtin(
            "Format+Confidence",
            "(boxed/unboxed) x (low/high confidence) for wrong and "
            "correct; rewards boxed high-confidence correct, penalises confidently wrong.",
            [
                "wrong and unboxed",
                "wrong and boxed and low_conf",
                "wrong and boxed and high_conf",
                "correct and unboxed and low_conf",
                "correct and unboxed and high_conf",
                "correct and boxed and low_conf",
                "correct and boxed and high_conf",
            ],
            [0, 0, 1, 0, 2, 3, 4, 5],
        ),
        _builtin(
            "Length-Robust",
            "Correctness irrespective of verbosity (same categories as Exact Match).",
            ["wrong", "correct"],
            [0, 0, 1],
        ),
        _builtin(
            "Verifier Prob",
            "Agreement with the verifier: wrong with high A is "
            "inconsistent; distinguishes under/over-confidence on correct.",
            [
                "wrong and A_high",
                "wrong and not A_high",
                "correct and not A_high",
                "correct and A_high",
            ],
            [0, 0, 1, 2, 3],
        ),
        _builtin(
            "Efficiency-Adjusted",
            "Rewards short correct completions; penalises verbose outputs, especially wrong ones.",
            [
                "wrong and economical",
                "wrong and moderate",
                "wrong and verbose",
                "correct and economical",
                "correct and moderate",
                "correct and verbose",
            ],
            [0, 0, -1, -2, 3, 2, 1],
        ),
        _builtin(
            "Concision-High-Conf",
            "Prefers concise, high-confidence correct answers; downweights verbose correctness.",
            [
                "wrong",
                "correct and verbose",
                "correct and moderate",
                "correct and economical and low_conf",
                "correct and economical and high_conf",
            ],
            [0, 0, 1, 2, 3, 4],
            "category 4 is correct and economical and low_conf (excludes category 5).",
        ),
    )
}


def get_schema(name: str | Schema) -> Schema:
    """A built-in schema by key or display name (case, spaces and punctuation ignored)."""
    if isinstance(name, Schema):
        return name
    key = _key(str(name))
    if key in SCHEMATA:
        return SCHEMATA[key]
    aliases = {"verifier_probe": "verifier_prob", "format_confidence": "format_confidence"}
    if key in aliases and aliases[key] in SCHEMATA:
        return SCHEMATA[aliases[key]]
    raise ValueError(
        f"unknown schema {name!r}; expected one of {sorted(SCHEMATA)} (see `bayes-eval schemas`)."
    )


@dataclass(frozen=True)
class RubricCategories:
    """Result of :func:`categorize`.

    Attributes
    ----------
    R : ndarray or xarray.DataArray
        Category labels ``0..C`` as floats, ``NaN`` where the attempt is missing (use
        ``skipna=True`` with :mod:`bayes_eval.xr`). Same shape (and dims) as the signals.
    weights : ndarray
        ``w_0..w_C`` (the schema's defaults unless overridden).
    thresholds : dict
        Every threshold value the schema used, computed over all attempts of the dataset.
    schema : Schema
    counts : ndarray
        Number of attempts per category over the whole dataset.
    missing_signals : tuple of str
        Optional signals that were absent (their part of the invalid rule was false).
    """

    R: object
    weights: NDArray[np.float64]
    thresholds: dict[str, float]
    schema: Schema
    counts: NDArray[np.int64]
    missing_signals: tuple[str, ...]


def _signal_arrays(signals, schema: Schema, present: NDArray[np.bool_] | None):
    """Canonical-named float arrays, all of one shape; raises for absent required signals."""
    try:
        items = dict(signals.data_vars.items())  # xarray.Dataset
        coords_like = signals
    except AttributeError:
        items = dict(signals)
        coords_like = None
    arrays: dict[str, np.ndarray] = {}
    for k, v in items.items():
        canon = SIGNAL_ALIASES.get(str(k), str(k))
        if canon in arrays and str(k) != canon:
            continue
        arrays[canon] = np.asarray(getattr(v, "values", v))
    required, optional = schema.signals()
    absent = [s for s in required if s not in arrays]
    if absent:
        raise ValueError(
            f"schema {schema.name!r} needs the signal(s) {absent}, which the data do not have "
            f"(signals present: {sorted(arrays)}); see `bayes-eval schemas` for what each "
            "schema reads."
        )
    used = [s for s in (*required, *optional) if s in arrays]
    if not used:
        raise ValueError(f"schema {schema.name!r}: the data have none of its signals.")
    shape = arrays[used[0]].shape
    out = {}
    for s in used:
        a = arrays[s]
        if a.shape != shape:
            raise ValueError(
                f"signal {s!r} has shape {a.shape} but {used[0]!r} has {shape}; expected one "
                "value per attempt for every signal."
            )
        if a.dtype.kind not in "biuf":
            raise ValueError(f"signal {s!r} has dtype {a.dtype}; expected numbers.")
        out[s] = a.astype(np.float64)
    if present is None:
        req = [out[s] for s in required]
        present = ~np.all([np.isnan(a) for a in req], axis=0) if req else np.ones(shape, bool)
    else:
        present = np.asarray(present, dtype=bool)
        if present.shape != shape:
            raise ValueError(f"present has shape {present.shape}; expected {shape}.")
    for s in required:
        gap = present & np.isnan(out[s])
        if gap.any():
            idx = tuple(int(i) for i in np.argwhere(gap)[0])
            raise ValueError(
                f"signal {s!r} is missing (NaN) for an attempt that exists, at index {idx} "
                f"({int(gap.sum())} such attempts); schema {schema.name!r} needs it for every "
                "attempt. Drop or mask those attempts (present=...) first."
            )
    missing_opt = tuple(s for s in optional if s not in arrays)
    for s in missing_opt:
        out[s] = np.full(shape, np.nan)
    return out, present, shape, missing_opt, coords_like


def rubric_thresholds(
    signals, schema: Schema | str, *, present: ArrayLike | None = None
) -> dict[str, float]:
    """The dataset-level thresholds a schema uses (Table 4), over all attempts present.

    ``signals`` maps signal names to arrays of one shape, e.g. ``(model, question, trial)``:
    percentiles pool every model's attempts, so all models are scored on one scale.
    """
    schema = get_schema(schema)
    arrays, present_, _, _, _ = _signal_arrays(signals, schema, present)
    return _resolve_thresholds(arrays, present_, schema)


def _resolve_thresholds(arrays, present, schema: Schema) -> dict[str, float]:
    out = {}
    for name in sorted(schema._used_thresholds()):
        th = schema.thresholds[name]
        pool = present.copy()
        if th.among:
            expr = parse_expression(th.among)
            ns = _namespace(arrays, {}, schema)
            pool &= expr.evaluate(ns)
        values = arrays[th.signal][pool]
        values = values[~np.isnan(values)]
        if values.size == 0:
            raise ValueError(
                f"threshold {name!r} ({th.percentile:g}th percentile of {th.signal!r}"
                f"{' among ' + th.among if th.among else ''}) has no attempts to pool; schema "
                f"{schema.name!r} cannot be applied to these data (pass thresholds=...)."
            )
        out[name] = float(np.percentile(values, th.percentile))
    return out


def _namespace(arrays, thresholds, schema: Schema) -> dict[str, object]:
    ns: dict[str, object] = {**arrays, **thresholds}
    for v in schema._order:
        try:
            ns[v] = schema.variables[v].evaluate(ns)
        except KeyError:
            continue  # refers to a signal or threshold this schema does not use
    return ns


def _classify(ns, schema: Schema) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    invalid = schema.invalid.evaluate(ns)
    hits = np.stack([r.evaluate(ns) for r in schema.rules])
    hits = np.broadcast_to(hits, (len(schema.rules), *np.broadcast(invalid, hits[0]).shape))
    return np.broadcast_to(invalid, hits.shape[1:]), hits, hits.sum(axis=0)


def _cut_points(schema: Schema, thresholds: dict[str, float], signals: Sequence[str]):
    """Per signal, the values it is compared with (constants and thresholds)."""
    import ast

    cuts: dict[str, set[float]] = {s: set() for s in signals}
    links: list[tuple[str, str]] = []
    texts = [schema.invalid.text, *(r.text for r in schema.rules)]
    texts += [schema.variables[v].text for v in schema._order]
    for text in texts:
        for node in ast.walk(ast.parse(text, mode="eval")):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, node.comparators[0]]
            names = [s.id for s in sides if isinstance(s, ast.Name)]
            consts = [float(s.value) for s in sides if isinstance(s, ast.Constant)]
            sig = [n for n in names if n in cuts]
            other = [thresholds[n] for n in names if n in thresholds] + consts
            for s in sig:
                cuts[s].update(other)
            if len(sig) == 2:
                links.append((sig[0], sig[1]))
    linked = {s for pair in links for s in pair}
    for a, b in links:  # signals compared with each other share their cut points
        merged = cuts[a] | cuts[b]
        cuts[a] = cuts[b] = merged
    reps = {}
    for s, c in cuts.items():
        c = sorted(c) or [0.0]
        # one point in every open interval and on every cut; signals compared with each other
        # get two points per interval so that <, = and > between them all occur in each cell
        fracs = (1 / 3, 2 / 3) if s in linked else (1 / 2,)
        inner = [x + f * (y - x) for x, y in pairwise(c) for f in fracs]
        ends = [c[0] - 1.0, c[-1] + 1.0] + ([c[0] - 2.0, c[-1] + 2.0] if s in linked else [])
        reps[s] = np.array(sorted({*ends, *c, *inner}))
    return reps


def _check_partition(schema: Schema, thresholds: dict[str, float], signals: Sequence[str]):
    reps = _cut_points(schema, thresholds, signals)
    names = list(reps)
    size = int(np.prod([len(reps[n]) for n in names]))
    if size > 4_000_000:  # pragma: no cover - only for very large user schemata
        return
    grids = np.meshgrid(*(reps[n] for n in names), indexing="ij")
    arrays = {n: g.ravel() for n, g in zip(names, grids, strict=True)}
    ns = _namespace(arrays, thresholds, schema)
    invalid, hits, n_hit = _classify(ns, schema)
    bad = ~invalid & (n_hit != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        point = ", ".join(f"{n}={arrays[n][i]:.6g}" for n in names)
        which = [j + 1 for j in range(len(schema.rules)) if hits[j, i]]
        th = ", ".join(f"{k}={v:.6g}" for k, v in sorted(thresholds.items())) or "none"
        if not which:
            what = "no category holds"
        else:
            what = "categories " + " and ".join(f"{j} ({schema.labels[j]!r})" for j in which)
            what += " all hold"
        raise ValueError(
            f"schema {schema.name!r}: categories 1..{len(schema.rules)} must be mutually "
            f"exclusive and exhaustive over valid attempts, but {what} when {point} "
            f"(thresholds: {th})."
        )


def categorize(
    signals,
    schema: Schema | str,
    *,
    weights: ArrayLike | None = None,
    thresholds: Mapping[str, float] | None = None,
    present: ArrayLike | None = None,
) -> RubricCategories:
    """Map every attempt to a category of ``schema`` (seed 000 App. F, Tables 4-5).

    Parameters
    ----------
    signals : mapping of str to array, or xarray.Dataset
        Base signals (:data:`SIGNALS`; aliases :data:`SIGNAL_ALIASES`), one value per attempt,
        all of one shape, usually ``(model, question, trial)``. ``NaN`` in every required
        signal marks a missing attempt.
    schema : Schema or str
        A :class:`Schema` or the key/name of a built-in one (:data:`SCHEMATA`).
    weights : array_like, optional
        ``w_0..w_C`` replacing the schema's default weights (length checked).
    thresholds : mapping, optional
        Fixed threshold values (e.g. from an earlier dataset, to score a new model on the same
        scale). By default every threshold is computed from ``signals``: the given percentile
        over **all** attempts present, pooled over models.
    present : array_like of bool, optional
        Which attempts exist; default: those where some required signal is not NaN.

    Returns
    -------
    RubricCategories
        ``R`` (float labels, NaN = missing; a DataArray when ``signals`` is a Dataset), the
        weights, the thresholds used, per-category counts and the absent optional signals.

    Raises
    ------
    ValueError
        Absent required signals, NaN in a required signal of an existing attempt, thresholds
        with an empty pool, categories that are not a partition of the valid attempts (the
        message gives a signal assignment where the rules overlap or leave a gap), weights of
        the wrong length.
    """
    schema = get_schema(schema)
    arrays, present_, shape, missing_opt, coords_like = _signal_arrays(signals, schema, present)
    if present_.size == 0 or not present_.any():
        raise ValueError("the signals contain no attempts; expected at least one.")
    used = schema._used_thresholds()
    if thresholds is None:
        th = _resolve_thresholds(arrays, present_, schema)
    else:
        th = {}
        for name in sorted(used):
            if name not in thresholds:
                raise ValueError(
                    f"thresholds has no value for {name!r}; schema {schema.name!r} needs "
                    f"{sorted(used)}."
                )
            th[name] = float(thresholds[name])
    if weights is None:
        w = np.asarray(schema.weights, dtype=np.float64)
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or w.size != schema.n_categories or not np.isfinite(w).all():
            raise ValueError(
                f"weights has shape {w.shape}; schema {schema.name!r} has "
                f"{schema.n_categories} categories ({', '.join(schema.labels)}), so expected "
                f"{schema.n_categories} finite numbers."
            )
    _check_partition(schema, th, list(arrays))
    ns = _namespace(arrays, th, schema)
    invalid, hits, n_hit = _classify(ns, schema)
    bad = present_ & ~invalid & (n_hit != 1)
    if bad.any():  # unreachable after the grid check unless signals hold NaN
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"schema {schema.name!r}: the attempt at index {idx} falls in {int(n_hit[idx])} "
            "categories; expected exactly one."
        )
    labels = np.where(invalid, 0, np.argmax(hits, axis=0) + 1).astype(np.float64)
    labels = np.where(present_, labels, np.nan).reshape(shape)
    counts = np.bincount(labels[present_].astype(np.int64), minlength=schema.n_categories)
    R: object = labels
    if coords_like is not None:
        first = next(iter(coords_like.data_vars.values()))
        R = first.copy(data=labels).rename(f"category ({schema.key})")
    return RubricCategories(
        R=R,
        weights=w,
        thresholds=th,
        schema=schema,
        counts=counts.astype(np.int64),
        missing_signals=missing_opt,
    )


def describe_schemata() -> list[dict[str, object]]:
    """One record per built-in schema: key, name, categories, weights, signals, note."""
    out = []
    for s in SCHEMATA.values():
        req, opt = s.signals()
        out.append(
            {
                "key": s.key,
                "name": s.name,
                "description": s.description,
                "categories": list(s.labels),
                "weights": list(s.weights),
                "required_signals": list(req),
                "optional_signals": list(opt),
                "thresholds": sorted(s._used_thresholds()),
                "note": s.note,
            }
        )
    return out
