"""Results ready to rank: logs of any format, optionally scored under a rubric schema.

:func:`load_scored` reads evaluation logs (and the prior runs ``R0``), applies a rubric
schema when one is named (Hariri et al., "Don't Pass@k", App. F) and returns ``R``, the
weights, ``R0`` and what was read, the input of :func:`bayes_eval.xr.rank_table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import xarray as xr

__all__ = ["ScoredResults", "load_scored"]


class ScoredResults(NamedTuple):
    """Results ``R[model, question, trial]`` (NaN = failed or missing), rubric weights, prior
    runs ``R0`` (or None), the log's summary (:meth:`EvalLog.summary`) and, under a schema,
    its categories, weights, thresholds and counts (else None)."""

    R: xr.DataArray
    weights: list[float] | None
    R0: xr.DataArray | None
    log: dict
    schema: dict | None


def load_scored(
    files: str | Sequence[str],
    *,
    format: str | None = None,
    weights: Sequence[float] | None = None,
    prior_files: str | Sequence[str] | None = None,
    schema: str | None = None,
    schema_file: str | None = None,
    model: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
    scorer: str | None = None,
) -> ScoredResults:
    """Read logs (one format, auto-detected unless ``format`` is given) into results to rank.

    Parameters
    ----------
    files
        Log files or directories, or ``dataset:NAME`` (:mod:`bayes_eval.datasets`).
    format
        One of :data:`bayes_eval.logs.FORMATS`; None detects it.
    weights
        Rubric weights ``w_0..w_C``; None takes the log's default weights (else binary).
    prior_files
        Prior runs ``R0`` in the same format (same models and questions); under a schema
        they are scored with the thresholds of ``files``.
    schema, schema_file
        A built-in rubric schema (:func:`bayes_eval.rubrics.schema.get_schema`) or a TOML
        file (:func:`~bayes_eval.rubrics.schema.load_schema`); at most one.
    model, metric, filter, scorer
        Passed to the importer (:func:`bayes_eval.logs.read_eval_log`).

    Raises
    ------
    ValueError
        For unreadable input, both ``schema`` and ``schema_file``, or a question some model
        did not answer.
    """
    from bayes_eval.logs import check_all_answered, read_eval_log

    options = {"model": model, "metric": metric, "filter": filter, "scorer": scorer}
    if schema and schema_file:
        raise ValueError("give a built-in schema or a schema file, not both.")
    log = read_eval_log(files, format=format, **options)
    prior = read_eval_log(prior_files, format=format, **options) if prior_files else None
    w = None if weights is None else [float(x) for x in weights]
    if not (schema or schema_file):
        R = log.results()
        R0 = prior.results() if prior is not None else None
        if w is None and "default_weights" in log.meta:
            w = [float(x) for x in log.meta["default_weights"]]
        return ScoredResults(R, w, R0, log.summary(), None)

    from bayes_eval.rubrics.schema import get_schema, load_schema

    rubric = load_schema(schema_file) if schema_file else get_schema(schema)
    cats = log.categorize(rubric, weights=w)
    w = [float(x) for x in cats.weights]
    R0 = None
    if prior is not None:  # the prior runs are scored on the same scale (same thresholds)
        R0 = prior.categorize(rubric, weights=w, thresholds=cats.thresholds).R
    info = {
        "schema": rubric.name,
        "categories": list(rubric.labels),
        "weights": w,
        "thresholds": dict(cats.thresholds),
        "counts": [int(c) for c in cats.counts],
        "absent_optional_signals": list(cats.missing_signals),
    }
    check_all_answered(cats.R, [files] if isinstance(files, str) else list(files))
    return ScoredResults(cats.R, w, R0, log.summary(), info)
