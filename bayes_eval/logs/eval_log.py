"""Evaluation logs from other tools as one long table and as ``R[model, question, trial]``.

Every importer in :mod:`bayes_eval.logs` returns an :class:`EvalLog`: a long table
with one row per attempt and the columns

``model, task, question, trial, score, status`` plus one column per per-attempt signal

(``model``, ``task``, ``question`` are text labels held as categoricals; ``trial`` numbers
the attempts of one (model, task, question), ``0, 1, ...`` in row order when the source has
no trial column; ``score`` is an integer category ``0..C`` or a graded score in ``[0, 1]``
(:attr:`EvalLog.graded`), ``NaN`` when the attempt failed; ``status`` is ``"ok"`` or
``"error"``; signals are numbers such as ``is_correct``, ``token_ratio``,
``repeated_pattern`` or scorer values, see :data:`bayes_eval.rubrics.spec.SIGNALS`).
:meth:`EvalLog.results` pivots it to a DataArray ``R[model, question, trial]`` (``NaN`` =
failed or missing trial, rank with ``skipna=True``; what to do with graded scores is decided
downstream), :meth:`EvalLog.to_dataset` adds every signal alongside, and
:meth:`EvalLog.categorize` applies a rubric schema.
:func:`bayes_eval.logs.read_eval_log` reads one or several files of any supported format
(auto-detected or named) and concatenates them.

Failed attempts (an error recorded by the tool) and missing attempts (a trial one question
has and another lacks, e.g. a (model, question) pair listed twice beside pairs listed once)
both become masked trials; :meth:`EvalLog.summary` counts them. A repeated trial is refused,
the message saying whether the row is an exact duplicate. In a long table without a trial
column (CSV, Parquet: ``drop_duplicates``) where most (model, question) pairs have one row and
every row beyond the first of its pair repeats an earlier row exactly (same labels, score,
status and signals), those rows are duplicates, not attempts: they are dropped with a warning
that counts them. (When some pair's rows differ, the repeats are read as attempts.)
Labels are checked and pivoted as integer codes (:mod:`bayes_eval.logs.codes`), so 10^7
attempts take seconds.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from bayes_eval.inputs import shown
from bayes_eval.logs.codes import (
    Grid,
    build_grid,
    cumcount,
    group_codes,
    label_codes,
    positions,
    status_ok,
    table_grid,
    text_codes,
)

if TYPE_CHECKING:
    from bayes_eval.rubrics.categories import RubricCategories
    from bayes_eval.rubrics.spec import Schema

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
        The format's name (``"csv"``, ``"inspect"``, ``"dataset"``, ...).
    meta : dict
        Importer details: category map, default weights, metric/filter/scorer chosen.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from bayes_eval.logs import make_log
    >>> rows = pd.DataFrame({"model": ["a", "a", "a", "b", "b", "b"],
    ...                      "question": ["q1", "q1", "q2", "q1", "q2", "q2"],
    ...                      "score": [1, 0, 1, 1, 0, np.nan],
    ...                      "status": ["ok", "ok", "ok", "ok", "ok", "error"]})
    >>> log = make_log(rows, fmt="csv", sources=["runs.csv"])
    >>> log.results().values.tolist()  # one failed attempt, two missing trials
    [[[1.0, 0.0], [1.0, nan]], [[1.0, nan], [0.0, nan]]]
    >>> {k: log.summary()[k] for k in ("attempts", "scored", "failed", "missing")}
    {'attempts': 6, 'scored': 5, 'failed': 1, 'missing': 2}
    """

    table: pd.DataFrame
    signals: tuple[str, ...]
    sources: tuple[str, ...]
    format: str
    meta: Mapping[str, object] = field(default_factory=dict)

    # ------------------------------------------------------------------ pivots
    @cached_property
    def _grid(self) -> Grid:
        """Where each row goes in ``(model, question, trial)`` (computed once)."""
        return table_grid(self.table)

    def _pivot(self, column: str) -> xr.DataArray:
        index, ok, _, coords, shape = self._grid
        values = np.full(shape, np.nan)
        vals = numbers(self.table[column]).to_numpy(dtype=float)
        if ok.all():
            values.reshape(-1)[index] = vals
        else:
            values.reshape(-1)[index[ok]] = vals[ok]
        return xr.DataArray(values, dims=("model", "question", "trial"), coords=coords, name=column)

    @property
    def graded(self) -> bool:
        """Whether some scored attempt has a non-integer (graded) score.

        If so, every score lies in ``[0, 1]``.
        """
        return self._graded

    @cached_property
    def _graded(self) -> bool:
        v = self._scored()
        return bool((v != np.round(v)).any())

    def _scored(self) -> np.ndarray:
        """The scores of the attempts that ran (finite floats)."""
        v = numbers(self.table["score"]).to_numpy(dtype=float)
        return v[status_ok(self.table["status"]) & np.isfinite(v)]

    def results(self, *, require_all_questions: bool = True) -> xr.DataArray:
        """``R[model, question, trial]``: the scores as floats, NaN = failed/missing.

        The scores are integer categories, or graded scores in ``[0, 1]`` as they are when
        :attr:`graded`.

        With ``require_all_questions`` every model must have a scored attempt on every
        question (otherwise models are not ranked on one scale); the error names a pair.
        """
        if self.table["score"].isna().all():
            ok = status_ok(self.table["status"])
            if not ok.any():
                raise ValueError(
                    f"{', '.join(self.sources)}: every attempt failed ({len(ok)} of {len(ok)} "
                    "recorded an error): there is nothing to score; expected a log with at "
                    "least one attempt that ran."
                )
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

    def categorize(self, schema: Schema | str, **kwargs: Any) -> RubricCategories:
        """Apply a rubric schema to the signals (:func:`bayes_eval.rubrics.categories.categorize`).

        Thresholds pool every model's attempts in this log; failed attempts are masked.
        Returns :class:`~bayes_eval.rubrics.categories.RubricCategories` with ``R`` a DataArray.
        """
        from bayes_eval.rubrics.categories import categorize

        kwargs.setdefault("present", self.present())
        return categorize(self.signal_dataset(), schema, **kwargs)

    def present(self) -> np.ndarray:
        """Boolean ``(model, question, trial)`` mask of the attempts that ran and were scored."""
        index, ok, _, _, shape = self._grid
        out = np.zeros(shape, dtype=bool)
        out.reshape(-1)[index[ok]] = True
        return out

    def summary(self) -> dict[str, object]:
        """Counts of attempts (scored, failed, missing) and whether the scores are graded.

        Failed attempts are tool errors, missing ones are absent from the log; for graded
        scores, also how many distinct values they take.
        """
        _, ok, mi, coords, shape = self._grid
        n = len(ok)
        attempts = np.bincount(mi, minlength=shape[0])
        failed = np.bincount(mi[~ok], minlength=shape[0])
        per_model = [
            {
                "model": str(name),
                "attempts": int(attempts[m]),
                "failed": int(failed[m]),
                "missing": int(shape[1] * shape[2] - attempts[m]),
            }
            for m, name in enumerate(coords["model"])
        ]
        graded = self.graded
        return {
            "format": self.format,
            "sources": list(self.sources),
            "models": int(shape[0]),
            "tasks": len(text_codes(self.table["task"])[1]),
            "questions": int(shape[1]),
            "max_trials": int(shape[2]),
            "attempts": n,
            "scored": int(ok.sum()),
            "failed": int(n - ok.sum()),
            "missing": int(np.prod(shape)) - n,
            "graded": graded,
            **({"distinct_scores": len(pd.unique(self._scored()))} if graded else {}),
            "per_model": per_model,
            **{k: v for k, v in self.meta.items() if isinstance(v, (str, int, float, list))},
        }


def numbers(col: pd.Series) -> pd.Series:
    """``col`` as floats, NaN where a value is not a number (lists, dicts, text, ...)."""
    if col.dtype == bool:
        return col.astype(float)
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iuf":
        return col.astype(float)  # lazy (copy on write): no copy of a float column
    try:
        out = pd.to_numeric(col, errors="coerce")
    except (TypeError, ValueError):
        out = col.map(_number)
    if out.dtype == bool or out.dtype == object:
        out = out.map(_number)
    return out.astype(float)


def positive_int(name: str, value: object) -> int:
    """An option that must be an integer >= 1 (``"32768"`` from the command line is one)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} is {shown(value)}; expected an integer >= 1.")
    return int(value)


def _missing(value: object) -> bool:
    """Whether a value is missing: None or NaN."""
    return value is None or (isinstance(value, (float, np.floating)) and np.isnan(value))


def _number(value: Any) -> float:
    """A value as a float, NaN when it is not a number."""
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return np.nan


def check_all_answered(R: xr.DataArray, sources: Sequence[str]) -> None:
    """Raise if some model has no scored attempt on some question (naming the pair).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``model``, ``question``, ``trial`` in this order (NaN = failed or
        missing).
    sources : sequence of str
        The files read, named in the message.

    Raises
    ------
    ValueError
        For a (model, question) pair without a scored trial: the first such pair and how
        many there are.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.logs import check_all_answered
    >>> R = xr.DataArray([[[1.0, 0.0], [np.nan, np.nan]]], dims=("model", "question", "trial"),
    ...                  coords={"model": ["a"], "question": ["q1", "q2"]})
    >>> try:
    ...     check_all_answered(R, ["runs.csv"])
    ... except ValueError as exc:
    ...     print(exc)
    runs.csv: model 'a' has no scored attempt on question 'q2'; expected every model to answer
    every question (failed attempts do not count).
    """
    empty = np.isnan(R.values).all(axis=-1)
    if empty.any():
        m, q = np.argwhere(empty)[0]
        n = int(empty.sum())
        more = f" ({n} such pairs)" if n > 1 else ""
        raise ValueError(
            f"{', '.join(sources)}: model {shown(R['model'].values[m])} has no scored attempt on "
            f"question {shown(R['question'].values[q])}{more}; expected "
            "every model to answer every question (failed attempts do not count)."
        )


def _check_text(
    column: str, codes: np.ndarray, labels: np.ndarray, locate: Callable[[int], str]
) -> None:
    r"""Refuse a label that is no text, naming it with its row.

    A lone surrogate (``\ud800`` in a JSON file, half of a character) cannot be printed or
    written, so it is named here.
    """
    for j, label in enumerate(labels):
        text = str(label)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            i = int(np.flatnonzero(codes == j)[0])
            bad = text[exc.start]
            raise ValueError(
                f"{locate(i)}: the {column} {ascii(text)[:80]} holds the lone surrogate "
                f"{bad!a} (half of a character, e.g. a broken \\u escape); expected "
                "valid Unicode text."
            ) from None


def make_log(
    rows: pd.DataFrame,
    *,
    fmt: str,
    sources: Sequence[str],
    meta: Mapping[str, object] | None = None,
    locate: Callable[[int], str] | None = None,
    copy: bool = True,
    drop_duplicates: bool = False,
) -> EvalLog:
    """Validate an importer's table and wrap it (importers call this; users rarely need to).

    Parameters
    ----------
    rows : pandas.DataFrame
        One row per attempt: ``model``, ``question`` (required), ``task``, ``trial``,
        ``score``, ``status`` (optional) and numeric signal columns. Without ``trial`` every
        row is one attempt, numbered ``0, 1, ...`` in row order within its (model, task,
        question). A score is an integer category ``>= 0`` or a graded score in ``[0, 1]``.
    fmt : str
        The format's name.
    sources : sequence of str
        The files read.
    meta : mapping, optional
        Importer details kept in :attr:`EvalLog.meta`.
    locate : callable, optional
        ``locate(i)`` names row ``i`` in messages, e.g. ``"t.csv: line 3"``; by default
        ``"<sources>: record <i + 1>"`` (1-based).
    copy : bool
        False when the caller hands ``rows`` over (numeric columns may then be shared with
        the log's table instead of copied).
    drop_duplicates : bool
        Without a trial column, drop the rows that repeat an earlier row exactly when most
        pairs have one row and every repeat is such a copy, with a warning (module
        docstring); otherwise repeats are attempts.

    Returns
    -------
    EvalLog
        Labels as sorted categoricals (text), ``trial`` as int64, ``score`` and signals as
        floats.

    Raises
    ------
    ValueError
        A missing column, label, trial or score, a malformed value, a repeated attempt with
        another score or status; the message names the first row concerned. (A row that
        repeats another exactly is dropped with a warning: module docstring.)

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_eval.logs import make_log
    >>> rows = pd.DataFrame({"model": ["a", "a", "b"], "question": ["q1", "q1", "q1"],
    ...                      "score": [1, 0, 1], "token_ratio": [0.5, 0.2, 0.9]})
    >>> log = make_log(rows, fmt="csv", sources=["runs.csv"])
    >>> log.signals, log.table["trial"].tolist()  # trials numbered in row order
    (('token_ratio',), [0, 1, 0])
    >>> dict(log.results(require_all_questions=False).sizes)
    {'model': 2, 'question': 1, 'trial': 2}
    """
    src = ", ".join(sources)
    if locate is None:

        def locate(i: int) -> str:
            return f"{src}: record {i + 1}"

    df = _checked_frame(rows, src)
    n = len(df)
    ok = _check_status(df["status"], locate) if "status" in df.columns else np.ones(n, bool)
    codes, labels = _label_columns(df, src, locate)

    def pair(i: int) -> str:
        return f"{labels['model'][codes['model'][i]]}, {labels['question'][codes['question'][i]]}"

    g, n_groups = group_codes(*((codes[c], len(labels[c])) for c in LABEL_COLUMNS))
    numbered = "trial" in df.columns
    trial = _trials(df["trial"], locate, pair) if numbered else cumcount(g, n_groups)
    score, graded = _scores(df.get("score"), ok, trial, locate, pair)
    if numbered:
        pos, dup = positions(g, n_groups, trial)
        if dup >= 0:
            _refuse_repeat(df, g, trial, score, ok, codes, labels, dup, locate)
    else:
        pos = trial
        repeats = _copies(df, g, n_groups, score, ok) if drop_duplicates else None
        if repeats is not None:
            keep = np.flatnonzero(~repeats)
            i = int(np.argmax(repeats))
            n_rep = int(repeats.sum())
            warnings.warn(
                f"{locate(i)} repeats an earlier row exactly ({pair(i)}, score {score[i]:g}); "
                f"{n_rep} such row{'s were' if n_rep > 1 else ' was'} dropped as "
                f"{'duplicates' if n_rep > 1 else 'a duplicate'}"
                + " (separate attempts need a trial column).",
                UserWarning,
                stacklevel=3,
            )
            kept_locate = locate
            return make_log(
                df.iloc[keep],
                fmt=fmt,
                sources=sources,
                meta=meta,
                locate=lambda j: kept_locate(int(keep[j])),
                copy=copy,
            )
    del g
    table, signals = _table(df, codes, labels, trial, score, ok, locate, copy)
    log = EvalLog(
        table=pd.DataFrame(table, copy=False),
        signals=tuple(signals),
        sources=tuple(sources),
        format=fmt,
        meta=dict(meta or {}),
    )
    model, task, question = ((codes[c], labels[c]) for c in LABEL_COLUMNS)
    log.__dict__["_grid"] = build_grid(model, task, question, trial, ok, pos)  # cached, now
    log.__dict__["_graded"] = graded
    return log


#: The label columns of a table, in the order of the grid's parts.
LABEL_COLUMNS = ("model", "task", "question")


def _checked_frame(rows: pd.DataFrame, src: str) -> pd.DataFrame:
    """``rows`` with a fresh index; no rows, no labels or a column twice are refused."""
    if len(rows) == 0:
        raise ValueError(f"{src}: no attempts found; expected at least one scored record.")
    missing = [c for c in ("model", "question") if c not in rows.columns]
    if missing:
        raise ValueError(
            f"{src}: missing column(s) {missing}; expected model, question and either score "
            "or signal columns."
        )
    if not rows.columns.is_unique:
        dup = rows.columns[rows.columns.duplicated()][0]
        raise ValueError(f"{src}: the column {shown(dup)} appears twice; expected one of each.")
    return rows.reset_index(drop=True)


def _label_columns(
    df: pd.DataFrame, src: str, locate: Callable[[int], str]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Codes and sorted labels of the model, task and question columns (``""`` when absent)."""
    n = len(df)
    codes: dict[str, np.ndarray] = {}
    labels: dict[str, np.ndarray] = {}
    for c in LABEL_COLUMNS:
        if c in df.columns:
            codes[c], labels[c] = label_codes(df[c], c, src, locate, empty_ok=c == "task")
        else:
            codes[c], labels[c] = np.zeros(n, dtype=np.int8), np.array([""], dtype=object)
        _check_text(c, codes[c], labels[c], locate)
    return codes, labels


def _copies(
    df: pd.DataFrame, g: np.ndarray, n_groups: int, score: np.ndarray, ok: np.ndarray
) -> np.ndarray | None:
    """The rows to drop as copies (no trial column), or None to keep every row as an attempt.

    Rows are dropped when most (model, task, question) have one row and every row beyond the
    first of its group repeats an earlier row exactly.
    """
    sizes = np.bincount(g, minlength=n_groups)
    single = np.count_nonzero(sizes == 1) * 2 > np.count_nonzero(sizes)
    if not (single and sizes.max(initial=0) > 1):
        return None
    repeats = _exact_repeats(df, g, None, score, ok)
    extra = int((sizes[sizes > 1] - 1).sum())  # rows beyond the first of their pair
    if repeats is None or int(repeats.sum()) != extra:  # some repeat is not a copy
        return None
    return repeats


def _refuse_repeat(
    df: pd.DataFrame,
    g: np.ndarray,
    trial: np.ndarray,
    score: np.ndarray,
    ok: np.ndarray,
    codes: dict[str, np.ndarray],
    labels: dict[str, np.ndarray],
    i: int,
    locate: Callable[[int], str],
) -> None:
    """Refuse row ``i``, which repeats an earlier row's model, task, question and trial."""
    name = {c: labels[c][codes[c][i]] for c in codes}
    exact = _exact_repeats(df, g, trial, score, ok)
    other = (
        " (an exact duplicate of an earlier row)"
        if exact is not None and exact[i]
        else " with another score, status or signal"
    )
    raise ValueError(
        f"{locate(i)} repeats model={shown(name['model'])}, task={shown(name['task'])}, "
        f"question={shown(name['question'])}, trial={shown(int(trial[i]))}{other}; "
        "expected one record per attempt."
    )


def _table(
    df: pd.DataFrame,
    codes: dict[str, np.ndarray],
    labels: dict[str, np.ndarray],
    trial: np.ndarray,
    score: np.ndarray,
    ok: np.ndarray,
    locate: Callable[[int], str],
    copy: bool,
) -> tuple[dict[str, object], list[str]]:
    """The log's columns (labels as sorted categoricals, the rest as numbers) and its signals."""
    table: dict[str, object] = {
        c: pd.Categorical.from_codes(codes[c], categories=pd.Index(labels[c], dtype=str))
        for c in LABEL_COLUMNS
    }
    table["trial"] = trial
    table["score"] = _own(score, df, "score", copy)
    table["status"] = pd.Categorical.from_codes(ok.astype(np.int8), categories=["error", "ok"])
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
        table[s] = _own(num.to_numpy(), df, s, copy)
    return table, signals


def _exact_repeats(
    df: pd.DataFrame, g: np.ndarray, trial: np.ndarray | None, score: np.ndarray, ok: np.ndarray
) -> np.ndarray | None:
    """The rows that repeat an earlier row exactly, or None if there is none.

    A repeat has the same labels ``g``, ``trial`` if given, score, status and every other
    column.
    """
    key = {"g": g, "score": score, "ok": ok}
    if trial is not None:
        key["trial"] = trial
    other = [c for c in df.columns if c not in BASE_COLUMNS]
    frame = pd.DataFrame(
        key | {f"signal {c}": numbers(df[c]).to_numpy() for c in other}, copy=False
    )
    exact = frame.duplicated().to_numpy()
    return exact if exact.any() else None


def _own(values: np.ndarray, df: pd.DataFrame, column: str, copy: bool) -> np.ndarray:
    """``values``, copied if it may share memory with ``df[column]`` and ``copy`` is asked."""
    if copy and column in df.columns and isinstance(df[column].dtype, np.dtype):
        if np.may_share_memory(values, df[column].to_numpy()):
            return values.copy()
    return values


def _check_status(col: pd.Series, locate: Callable[[int], str]) -> np.ndarray:
    """``status == "ok"`` per row (a missing status is "ok"); anything but ok/error refused."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        text = pd.Series(col.cat.categories).astype(str).to_numpy(dtype=object)
        codes = col.cat.codes.to_numpy()
        text = np.append(text, "ok")  # code -1 (missing) -> "ok"
        valid = np.isin(text, ["ok", "error"])[codes]
        is_ok = (text == "ok")[codes]
    else:
        status = col.fillna("ok").astype(str)
        valid = status.isin(["ok", "error"]).to_numpy()
        is_ok = (status == "ok").to_numpy()
    if not valid.all():
        i = int(np.flatnonzero(~valid)[0])
        raise ValueError(f"{locate(i)} has status {shown(col.iloc[i])}; expected 'ok' or 'error'.")
    return is_ok


def _trials(col: pd.Series, locate: Callable[[int], str], pair: Callable[[int], str]) -> np.ndarray:
    """Trials as int64; anything but an integer ``0 <= t < 2**53`` is refused (first row)."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu":
        t = col.to_numpy()
        bad = (t < 0) | (t >= 2**53)
        out = t.astype(np.int64, copy=False)
    else:
        t = numbers(col).to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            out = t.astype(np.int64)
            bad = ~((t >= 0) & (t < 2**53))
            bad |= out != t
    if bad.any():
        i = int(np.argmax(bad))
        raw = col.iloc[i]
        what = "no trial" if _missing(raw) else f"trial {shown(raw)}"
        raise ValueError(f"{locate(i)} ({pair(i)}) has {what}; expected an integer >= 0.")
    return out


def _scores(
    col: pd.Series | None,
    ok: np.ndarray,
    trial: np.ndarray,
    locate: Callable[[int], str],
    pair: Callable[[int], str],
) -> tuple[np.ndarray, bool]:
    """Scores as floats (NaN for failed attempts) and whether they are graded.

    All integer categories ``>= 0``, or graded scores in ``[0, 1]`` (0 and 1 among them);
    every 'ok' attempt has one, or none has.
    """
    if col is None:
        return np.full(len(ok), np.nan), False
    v = numbers(col).to_numpy(dtype=float)
    if not ok.all():
        v = np.where(ok, v, np.nan)
    has = ~np.isnan(v)

    def where(i: int) -> str:
        return f"{locate(i)} ({pair(i)}, trial {trial[i]})"

    expected = "expected an integer category 0..C or a graded score in [0, 1]."
    with np.errstate(invalid="ignore"):
        integer = v == np.round(v)
        valid = (v >= 0) & ((integer & (v < 2**31)) | (v <= 1))
    bad = has & ~valid
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{where(i)} has score {shown(col.iloc[i])}; {expected}")
    if not has.all():
        text = ok & ~has & col.notna().to_numpy()
        if text.any():  # a value that is not a number (text, a list, ...)
            i = int(np.flatnonzero(text)[0])
            raise ValueError(f"{where(i)} has score {shown(col.iloc[i])}; {expected}")
        if has.any() and (ok & ~has).any():
            i = int(np.flatnonzero(ok & ~has)[0])
            raise ValueError(
                f"{where(i)} has no score but status 'ok'; mark failed attempts with status "
                "'error'."
            )
    fractional = has & ~integer
    if fractional.any():
        big = has & (v > 1)
        if big.any():
            i, j = int(np.flatnonzero(big)[0]), int(np.flatnonzero(fractional)[0])
            raise ValueError(
                f"{where(i)} has score {shown(col.iloc[i])}, an integer category, but "
                f"{where(j)} has the graded score {shown(col.iloc[j])}; expected integer "
                "categories 0..C or graded scores in [0, 1], not both."
            )
    return v, bool(fractional.any())
