"""Categorising attempts with a schema: thresholds, the partition check, :func:`categorize`.

:func:`categorize` resolves a schema's dataset-level thresholds (Table 4 of Hariri et al.,
"Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation"; percentiles over
all models' attempts), checks that the categories partition the valid attempts and returns
the category array, the weights and the thresholds used. Categories ``1..C`` must be
**mutually exclusive and exhaustive over the valid attempts** (category 0, invalid, takes
precedence). This is checked twice: on a grid that visits every cell of the
piecewise-constant rule set (so the check is complete for the thresholds in use, not only for
the data at hand), and on the data.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.rubrics.catalog import get_schema
from bayes_eval.rubrics.expression import parse_expression
from bayes_eval.rubrics.spec import SIGNAL_ALIASES, Schema

if TYPE_CHECKING:
    import xarray as xr

#: Base signals: arrays of one shape by name, or the variables of an xarray Dataset.
type _Signals = Mapping[str, ArrayLike] | xr.Dataset

__all__ = ["RubricCategories", "categorize", "rubric_thresholds"]


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
        The schema the attempts were categorised with.
    counts : ndarray
        Number of attempts per category over the whole dataset.
    missing_signals : tuple of str
        Optional signals that were absent (their part of the invalid rule was false).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> signals = {
    ...     "is_correct": rng.integers(0, 2, (2, 5, 4)),  # (model, question, trial)
    ...     "has_box": rng.integers(0, 2, (2, 5, 4)),
    ... }
    >>> cats = categorize(signals, "format_aware")
    >>> cats.R.shape, cats.counts.tolist(), cats.weights.tolist()
    ((2, 5, 4), [0, 8, 9, 9, 14], [0.0, 0.0, 1.0, 2.0, 3.0])
    >>> cats.schema.name, cats.missing_signals
    ('Format Aware', ('compass_context_C', 'repeated_pattern'))
    """

    R: object
    weights: NDArray[np.float64]
    thresholds: dict[str, float]
    schema: Schema
    counts: NDArray[np.int64]
    missing_signals: tuple[str, ...]


def _signal_arrays(
    signals: _Signals, schema: Schema, present: ArrayLike | None
) -> tuple[
    dict[str, NDArray[np.float64]],
    NDArray[np.bool_],
    tuple[int, ...],
    tuple[str, ...],
    xr.Dataset | None,
]:
    """Canonical-named float arrays, all of one shape; raises for absent required signals."""
    items: dict[Hashable, object]
    coords_like: xr.Dataset | None
    try:
        items = dict(cast("xr.Dataset", signals).data_vars.items())  # xarray.Dataset
        coords_like = cast("xr.Dataset", signals)
    except AttributeError:
        items = dict(cast("Mapping[Hashable, object]", signals))
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
    out: dict[str, NDArray[np.float64]] = {}
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
    mask: NDArray[np.bool_]
    if present is None:
        req = [out[s] for s in required]
        mask = ~np.all([np.isnan(a) for a in req], axis=0) if req else np.ones(shape, bool)
    else:
        mask = np.asarray(present, dtype=bool)
        if mask.shape != shape:
            raise ValueError(f"present has shape {mask.shape}; expected {shape}.")
    for s in required:
        gap = mask & np.isnan(out[s])
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
    return out, mask, shape, missing_opt, coords_like


def rubric_thresholds(
    signals: _Signals, schema: Schema | str, *, present: ArrayLike | None = None
) -> dict[str, float]:
    """The dataset-level thresholds a schema uses (Table 4), over all attempts present.

    ``signals`` maps signal names to arrays of one shape, e.g. ``(model, question, trial)``:
    percentiles pool every model's attempts, so all models are scored on one scale.

    Parameters
    ----------
    signals : mapping of str to array, or xarray.Dataset
        Base signals, one value per attempt, as in :func:`categorize`.
    schema : Schema or str
        A :class:`~bayes_eval.rubrics.spec.Schema` or the key/name of a built-in one.
    present : array_like of bool, optional, keyword-only
        Which attempts exist; default: those where some required signal is not NaN.

    Returns
    -------
    dict of str to float
        The value of every threshold the schema uses, by name (empty when it uses none).

    Raises
    ------
    ValueError
        Absent required signals, or a threshold with no attempts to pool.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> signals = {
    ...     "is_correct": rng.integers(0, 2, (2, 5, 4)),
    ...     "completion_bpt": rng.random((2, 5, 4)),
    ... }
    >>> th = rubric_thresholds(signals, "conf_calibrated")
    >>> {name: round(value, 3) for name, value in th.items()}
    {'corr_p33': 0.313, 'corr_p66': 0.661, 'tau_low_wrong': 0.62}
    """
    schema = get_schema(schema)
    arrays, present_, _, _, _ = _signal_arrays(signals, schema, present)
    return _resolve_thresholds(arrays, present_, schema)


def _resolve_thresholds(
    arrays: Mapping[str, NDArray[np.float64]], present: NDArray[np.bool_], schema: Schema
) -> dict[str, float]:
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


def _namespace(
    arrays: Mapping[str, np.ndarray], thresholds: Mapping[str, float], schema: Schema
) -> dict[str, object]:
    ns: dict[str, object] = {**arrays, **thresholds}
    for v in schema._order:
        try:
            ns[v] = schema.variables[v].evaluate(ns)
        except KeyError:
            continue  # refers to a signal or threshold this schema does not use
    return ns


def _classify(
    ns: Mapping[str, object], schema: Schema
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    invalid = schema.invalid.evaluate(ns)
    hits = np.stack([r.evaluate(ns) for r in schema.rules])
    hits = np.broadcast_to(hits, (len(schema.rules), *np.broadcast(invalid, hits[0]).shape))
    return np.broadcast_to(invalid, hits.shape[1:]), hits, hits.sum(axis=0)


def _cut_points(
    schema: Schema, thresholds: dict[str, float], signals: Sequence[str]
) -> dict[str, NDArray[np.float64]]:
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
            consts = [float(cast(float, s.value)) for s in sides if isinstance(s, ast.Constant)]
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
    reps: dict[str, NDArray[np.float64]] = {}
    for s, points in cuts.items():
        c = sorted(points) or [0.0]
        # one point in every open interval and on every cut; signals compared with each other
        # get two points per interval so that <, = and > between them all occur in each cell
        fracs = (1 / 3, 2 / 3) if s in linked else (1 / 2,)
        inner = [x + f * (y - x) for x, y in pairwise(c) for f in fracs]
        ends = [c[0] - 1.0, c[-1] + 1.0] + ([c[0] - 2.0, c[-1] + 2.0] if s in linked else [])
        reps[s] = np.array(sorted({*ends, *c, *inner}))
    return reps


def _check_partition(schema: Schema, thresholds: dict[str, float], signals: Sequence[str]) -> None:
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
    signals: _Signals,
    schema: Schema | str,
    *,
    weights: ArrayLike | None = None,
    thresholds: Mapping[str, float] | None = None,
    present: ArrayLike | None = None,
) -> RubricCategories:
    """Map every attempt to a category of ``schema`` (Hariri et al., App. F, Tables 4-5).

    Parameters
    ----------
    signals : mapping of str to array, or xarray.Dataset
        Base signals (:data:`~bayes_eval.rubrics.spec.SIGNALS`; aliases
        :data:`~bayes_eval.rubrics.spec.SIGNAL_ALIASES`), one value per attempt, all of one
        shape, usually ``(model, question, trial)``. ``NaN`` in every required
        signal marks a missing attempt.
    schema : Schema or str
        A :class:`Schema` or the key/name of a built-in one
        (:data:`~bayes_eval.rubrics.catalog.SCHEMATA`).
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

    Examples
    --------
    Conf-Wrong Penalty: wrong at high confidence (``completion_bpt`` at most its 60th
    percentile among wrong attempts), other wrong, and correct attempts:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> signals = {
    ...     "is_correct": rng.integers(0, 2, (2, 5, 4)),  # (model, question, trial)
    ...     "completion_bpt": rng.random((2, 5, 4)),
    ... }
    >>> cats = categorize(signals, "conf_wrong_penalty")
    >>> cats.schema.labels
    ('invalid', 'wrong_high_conf', 'wrong and not wrong_high_conf', 'correct')
    >>> cats.counts.tolist(), cats.weights.tolist()
    ([0, 10, 7, 23], [0.0, -1.0, 0.0, 1.0])
    >>> categorize(signals, "conf_wrong_penalty", thresholds={"tau_low_wrong": 0.5}).counts.tolist()
    [0, 8, 9, 23]
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
