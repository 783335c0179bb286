"""Evaluation logs from other tools as one long table and as ``R[model, question, trial]``.

Every importer in :mod:`bayes_eval.logs` returns an :class:`EvalLog`: a long table
with one row per attempt and the columns

``model, task, question, trial, score, status`` plus one column per per-attempt signal

(``score`` is the integer category used for ranking, ``NaN`` when the attempt failed;
``status`` is ``"ok"`` or ``"error"``; signals are numbers such as ``is_correct``,
``token_ratio``, ``repeated_pattern`` or scorer values, see
:data:`bayes_eval.rubrics.schema.SIGNALS`). :meth:`EvalLog.results` pivots it to a DataArray
``R[model, question, trial]`` (``NaN`` = failed or missing trial, rank with
``skipna=True``), :meth:`EvalLog.to_dataset` adds every signal alongside, and
:meth:`EvalLog.categorize` applies a rubric schema.
:func:`bayes_eval.logs.read_eval_log` reads one or several files of any supported format
(auto-detected or named) and concatenates them.

Failed attempts (an error recorded by the tool) and missing attempts (a trial one question
has and another lacks) both become masked trials; :meth:`EvalLog.summary` counts them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
import xarray as xr

from bayes_eval.inputs import shown

__all__ = ["BASE_COLUMNS", "EvalLog", "check_all_answered", "make_log"]

BASE_COLUMNS = ("model", "task", "question", "trial", "score", "status")


@dataclass(frozen=True)
class EvalLog:
    """A normalised evaluation log (see the module docstring for the columns).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per attempt (a copy is kept; methods never modify it).
    signals : tuple of str
        The signal columns.
    sources : tuple of str
        Files read.
    format : str
    meta : dict
        Importer details: category map, default weights, metric/filter/scorer chosen.
    """

    table: pd.DataFrame
    signals: tuple[str, ...]
    sources: tuple[str, ...]
    format: str
    meta: Mapping[str, object] = field(default_factory=dict)

    # ------------------------------------------------------------------ pivots
    @cached_property
    def _grid(self):
        """Sorted table, model/question/trial positions, coords, shape (computed once)."""
        df = self.table
        multi_task = df["task"].nunique() > 1
        qkey = (
            (df["task"].astype(str) + "/" + df["question"].astype(str))
            if multi_task
            else (df["question"].astype(str))
        )
        df = df.assign(_q=qkey.to_numpy())
        df = df.sort_values(["model", "_q", "trial"], kind="stable")
        pos = df.groupby(["model", "_q"], sort=False).cumcount().to_numpy()
        models = pd.unique(df["model"].astype(str))
        questions = np.array(sorted(pd.unique(df["_q"]), key=_natural_key), dtype=object)
        mi = pd.Index(models).get_indexer(df["model"].astype(str))
        qi = pd.Index(questions).get_indexer(df["_q"])
        n_trials = int(pos.max()) + 1
        task_of_q = df.drop_duplicates("_q").set_index("_q")["task"].reindex(questions)
        coords = {
            "model": np.asarray(models, dtype=str),
            "question": np.asarray(questions, dtype=str),
            "trial": np.arange(n_trials),
            "task": ("question", task_of_q.astype(str).to_numpy()),
        }
        return df, mi, qi, pos, coords, (len(models), len(questions), n_trials)

    def _pivot(self, column: str) -> xr.DataArray:
        df, mi, qi, pos, coords, shape = self._grid
        values = np.full(shape, np.nan)
        vals = pd.to_numeric(df[column], errors="coerce").to_numpy(dtype=float)
        ok = df["status"].to_numpy() == "ok"
        values[mi[ok], qi[ok], pos[ok]] = vals[ok]
        return xr.DataArray(values, dims=("model", "question", "trial"), coords=coords, name=column)

    def results(self, *, require_all_questions: bool = True) -> xr.DataArray:
        """``R[model, question, trial]``: integer categories as floats, NaN = failed/missing.

        With ``require_all_questions`` every model must have a scored attempt on every
        question (otherwise models are not ranked on one scale); the error names a pair.
        """
        if self.table["score"].isna().all():
            why = f" ({self.meta['note']})" if "note" in self.meta else ""
            raise ValueError(
                f"{', '.join(self.sources)}: the log has no score column{why}; signals "
                f"{list(self.signals)}: apply a schema (EvalLog.categorize / --schema)."
            )
        R = self._pivot("score")
        if require_all_questions:
            check_all_answered(R, self.sources)
        return R

    def signal_dataset(self) -> xr.Dataset:
        """Every signal as a ``(model, question, trial)`` variable (NaN = failed/missing)."""
        return xr.Dataset({s: self._pivot(s) for s in self.signals})

    def to_dataset(self) -> xr.Dataset:
        """``R`` and every signal on the same ``(model, question, trial)`` grid."""
        data = {"R": self._pivot("score")}
        data.update({s: self._pivot(s) for s in self.signals})
        ds = xr.Dataset(data)
        ds.attrs.update(
            {
                "format": self.format,
                "sources": list(self.sources),
                **{k: str(v) for k, v in self.meta.items()},
            }
        )
        return ds

    def categorize(self, schema, **kwargs):
        """Apply a rubric schema to the signals (:func:`bayes_eval.rubrics.schema.categorize`).

        Thresholds pool every model's attempts in this log; failed attempts are masked.
        Returns :class:`~bayes_eval.rubrics.schema.RubricCategories` with ``R`` a DataArray.
        """
        from bayes_eval.rubrics.schema import categorize

        kwargs.setdefault("present", self.present())
        return categorize(self.signal_dataset(), schema, **kwargs)

    def present(self) -> np.ndarray:
        """Boolean ``(model, question, trial)`` mask of the attempts that ran and were scored."""
        df, mi, qi, pos, _, shape = self._grid
        out = np.zeros(shape, dtype=bool)
        ok = df["status"].to_numpy() == "ok"
        out[mi[ok], qi[ok], pos[ok]] = True
        return out

    def summary(self) -> dict[str, object]:
        """Counts of attempts: scored, failed (tool error), missing (absent from the log)."""
        df, mi, _, _, coords, shape = self._grid
        failed = df["status"].to_numpy() != "ok"
        n_cells = int(np.prod(shape))
        per_model = []
        for m, name in enumerate(coords["model"]):
            rows = mi == m
            present = rows.sum()
            per_model.append(
                {
                    "model": str(name),
                    "attempts": int(present),
                    "failed": int((failed & rows).sum()),
                    "missing": int(shape[1] * shape[2] - present),
                }
            )
        return {
            "format": self.format,
            "sources": list(self.sources),
            "models": int(shape[0]),
            "tasks": int(df["task"].nunique()),
            "questions": int(shape[1]),
            "max_trials": int(shape[2]),
            "attempts": len(df),
            "scored": int((~failed).sum()),
            "failed": int(failed.sum()),
            "missing": n_cells - len(df),
            "per_model": per_model,
            **{k: v for k, v in self.meta.items() if isinstance(v, (str, int, float, list))},
        }


def _labels(col: pd.Series, name: str, src: str, locate: Callable[[int], str]) -> pd.Series:
    """Labels as text: a missing one is refused; leading or trailing spaces are stripped with
    a warning (``"a "`` and ``"a"`` would otherwise be two models that print alike)."""
    missing = col.isna().to_numpy()
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise ValueError(f"{locate(i)} has no {name}; expected a label.")
    text = col.astype(str)
    stripped = text.str.strip()
    changed = (stripped != text).to_numpy()
    if changed.any():
        warnings.warn(
            f"{src}: {int(changed.sum())} {name} label(s) had leading or trailing spaces "
            f"(e.g. {shown(text[changed].iloc[0])}); they were stripped.",
            UserWarning,
            stacklevel=3,
        )
    if name != "task" and (stripped == "").any():
        i = int(np.flatnonzero((stripped == "").to_numpy())[0])
        raise ValueError(f"{locate(i)} has an empty {name}; expected a label.")
    return stripped


def numbers(col: pd.Series) -> pd.Series:
    """``col`` as floats, NaN where a value is not a number (lists, dicts, text, ...)."""
    if col.dtype == bool:
        return col.astype(float)
    try:
        out = pd.to_numeric(col, errors="coerce")
    except (TypeError, ValueError):
        out = col.map(_number)
    if out.dtype == bool or out.dtype == object:
        out = out.map(_number)
    return out.astype(float)


def positive_int(name: str, value) -> int:
    """An option that must be an integer >= 1 (``"32768"`` from the command line is one)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} is {shown(value)}; expected an integer >= 1.")
    return int(value)


def _missing(value) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and np.isnan(value))


def _number(value) -> float:
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return np.nan


def _natural_key(text: object):
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def check_all_answered(R: xr.DataArray, sources: Sequence[str]) -> None:
    """Raise if some model has no scored attempt on some question (naming the pair)."""
    empty = np.isnan(R.values).all(axis=-1)
    if empty.any():
        m, q = np.argwhere(empty)[0]
        raise ValueError(
            f"{', '.join(sources)}: model {shown(R['model'].values[m])} has no scored attempt on "
            f"question {shown(R['question'].values[q])} ({int(empty.sum())} such pairs); expected "
            "every model to answer every question (failed attempts do not count)."
        )


def make_log(
    rows: pd.DataFrame,
    *,
    fmt: str,
    sources: Sequence[str],
    meta: Mapping[str, object] | None = None,
    locate: Callable[[int], str] | None = None,
) -> EvalLog:
    """Validate an importer's table and wrap it (importers call this; users rarely need to).

    ``locate(i)`` names row ``i`` in messages, e.g. ``"t.csv: line 3"``; by default
    ``"<sources>: record <i + 1>"`` (1-based).
    """
    src = ", ".join(sources)
    if locate is None:

        def locate(i: int) -> str:
            return f"{src}: record {i + 1}"

    if len(rows) == 0:
        raise ValueError(f"{src}: no attempts found; expected at least one scored record.")
    missing = [c for c in ("model", "question", "trial") if c not in rows.columns]
    if missing:
        raise ValueError(f"{src}: missing column(s) {missing}.")
    if not rows.columns.is_unique:
        dup = rows.columns[rows.columns.duplicated()][0]
        raise ValueError(f"{src}: the column {shown(dup)} appears twice; expected one of each.")
    df = rows.reset_index(drop=True)
    if "task" not in df.columns:
        df["task"] = ""
    if "status" not in df.columns:
        df["status"] = "ok"
    if "score" not in df.columns:
        df["score"] = np.nan
    df["status"] = df["status"].fillna("ok").astype(str)
    bad_status = ~df["status"].isin(["ok", "error"])
    if bad_status.any():
        i = int(np.flatnonzero(bad_status.to_numpy())[0])
        raise ValueError(
            f"{locate(i)} has status {shown(df['status'].iloc[i])}; expected 'ok' or 'error'."
        )
    for c in ("model", "task", "question"):
        df[c] = _labels(df[c], c, src, locate)
    trial = numbers(df["trial"])
    t = trial.to_numpy()
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(t) & (t >= 0) & (t < 2**53) & (t == np.round(t)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raw = df["trial"].iloc[i]
        what = "no trial" if _missing(raw) else f"trial {shown(raw)}"
        raise ValueError(
            f"{locate(i)} ({df['model'].iloc[i]}, {df['question'].iloc[i]}) has {what}; "
            "expected an integer >= 0."
        )
    df["trial"] = trial.astype(np.int64)
    df.loc[df["status"] != "ok", "score"] = np.nan
    score = numbers(df["score"])
    ok = (df["status"] == "ok").to_numpy()
    has_score = score.notna().to_numpy()
    if has_score.any():
        v = score.to_numpy()
        with np.errstate(invalid="ignore"):
            bad = ok & has_score & ~((v >= 0) & (v < 2**31) & (v == np.round(v)))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{locate(i)} ({df['model'].iloc[i]}, {df['question'].iloc[i]}, trial "
                f"{df['trial'].iloc[i]}) has score {shown(df['score'].iloc[i])}; expected an "
                "integer category 0..C (non-integer values belong in a signal column and a "
                "schema)."
            )
    no_score = ok & ~has_score & df["score"].notna().to_numpy()
    if no_score.any():  # a value that is not a number (text, a list, ...)
        i = int(np.flatnonzero(no_score)[0])
        raise ValueError(
            f"{locate(i)} ({df['model'].iloc[i]}, {df['question'].iloc[i]}, trial "
            f"{df['trial'].iloc[i]}) has score {shown(df['score'].iloc[i])}; expected an "
            "integer category 0..C."
        )
    if has_score.any():
        no_score = ok & ~has_score
        if no_score.any():
            i = int(np.flatnonzero(no_score)[0])
            raise ValueError(
                f"{locate(i)} ({df['model'].iloc[i]}, {df['question'].iloc[i]}, trial "
                f"{df['trial'].iloc[i]}) has no score but status 'ok'; mark failed attempts "
                "with status 'error'."
            )
    df["score"] = score
    dup = df.duplicated(subset=["model", "task", "question", "trial"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        r = df.iloc[i]
        raise ValueError(
            f"{locate(i)} repeats model={shown(r['model'])}, task={shown(r['task'])}, "
            f"question={shown(r['question'])}, trial={shown(r['trial'])}; expected one record "
            "per attempt."
        )
    signals = [c for c in df.columns if c not in BASE_COLUMNS]
    for s in signals:
        col = df[s]
        num = numbers(col)
        bad = (num.isna() & col.notna()).to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{locate(i)} has the non-numeric value {shown(col.iloc[i])} in signal "
                f"column {shown(s)}; expected numbers (signals) or one of the columns "
                f"{list(BASE_COLUMNS)}."
            )
        df[s] = num
    df = df.loc[:, [*BASE_COLUMNS, *signals]].reset_index(drop=True)
    return EvalLog(
        table=df, signals=tuple(signals), sources=tuple(sources), format=fmt, meta=dict(meta or {})
    )
