"""Long evaluation tables (``model, question, trial, score``) to labelled results arrays.

A long table has one row per attempt. CSV and Parquet files are read with pandas (a
dependency of xarray; Parquet also needs pyarrow). :func:`to_results` pivots the table to a
``DataArray`` ``R[model, question, trial]``: trials are numbered 0, 1, ... within each
(model, question) in the order of the ``trial`` column, and questions with fewer trials are
padded with ``NaN`` (missing trials, see ``skipna`` in :mod:`bayes_eval.xr`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

__all__ = ["REQUIRED_COLUMNS", "read_long_table", "to_results"]

REQUIRED_COLUMNS = ("model", "question", "trial", "score")


def read_long_table(path: str | Path, *, file_format: str | None = None) -> pd.DataFrame:
    """Read and validate a long table from CSV (``.csv``, ``.csv.gz``) or Parquet.

    Raises ``ValueError`` naming the file for a missing file, an unknown format, missing
    columns, empty tables, non-integer or missing scores and duplicated attempts.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    fmt = file_format or ("parquet" if path.suffix.lower() in (".parquet", ".pq") else "csv")
    if fmt == "csv":
        try:
            df = pd.read_csv(path)
        except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
            raise ValueError(f"{path}: could not be read as CSV ({exc}).") from exc
    elif fmt == "parquet":
        try:
            df = pd.read_parquet(path)
        except ImportError as exc:
            raise ValueError(
                f"{path}: reading Parquet needs pyarrow (pip install pyarrow)."
            ) from exc
        except Exception as exc:
            raise ValueError(f"{path}: could not be read as Parquet ({exc}).") from exc
    else:
        raise ValueError(f"format is {fmt!r}; expected 'csv' or 'parquet'.")
    return validate_long_table(df, source=str(path))


def validate_long_table(df: pd.DataFrame, *, source: str = "table") -> pd.DataFrame:
    """Check columns and scores of a long table; returns a copy with integer scores."""
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(
            f"{source}: missing column(s) {missing}; expected columns {list(REQUIRED_COLUMNS)} "
            f"(found {list(df.columns)})."
        )
    unknown = [c for c in df.columns if c not in REQUIRED_COLUMNS]
    if unknown:
        raise ValueError(
            f"{source}: unknown column(s) {unknown}; expected exactly the columns "
            f"{list(REQUIRED_COLUMNS)}."
        )
    if len(df) == 0:
        raise ValueError(f"{source}: the table has no rows; expected one row per attempt.")
    df = df.loc[:, list(REQUIRED_COLUMNS)].copy()
    score = pd.to_numeric(df["score"], errors="coerce")
    bad = score.isna() & df["score"].notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(
            f"{source}: row {i + 2} has the non-numeric score {df['score'].iloc[i]!r}; expected "
            "an integer category label."
        )
    if score.isna().any():
        i = int(np.flatnonzero(score.isna().to_numpy())[0])
        raise ValueError(
            f"{source}: row {i + 2} has an empty score; expected an integer category label "
            "(leave out attempts that did not run)."
        )
    frac = score != np.round(score)
    if frac.any():
        i = int(np.flatnonzero(frac.to_numpy())[0])
        raise ValueError(
            f"{source}: row {i + 2} has the non-integer score {float(score.iloc[i])!r}; "
            "expected integer "
            "category labels 0..C (give their values with --weights)."
        )
    if (score < 0).any():
        i = int(np.flatnonzero((score < 0).to_numpy())[0])
        raise ValueError(f"{source}: row {i + 2} has the negative score {float(score.iloc[i])!r}.")
    df["score"] = score.astype(np.int64)
    dup = df.duplicated(subset=["model", "question", "trial"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        row = df.iloc[i]
        raise ValueError(
            f"{source}: row {i + 2} repeats model={row['model']!r}, question={row['question']!r}, "
            f"trial={row['trial']!r}; expected one row per attempt."
        )
    return df


def to_results(df: pd.DataFrame, *, source: str = "table", require_all_questions: bool = True):
    """Pivot a validated long table to ``R[model, question, trial]`` (float, NaN = missing).

    With ``require_all_questions`` every model must have at least one attempt on every
    question (models answering different question sets cannot be ranked on one scale).
    """
    df = df.sort_values(["model", "question", "trial"], kind="stable")
    pos = df.groupby(["model", "question"], sort=False).cumcount()
    models = pd.unique(df["model"])
    questions = pd.unique(df.sort_values("question", kind="stable")["question"])
    mi = pd.Index(models).get_indexer(df["model"])
    qi = pd.Index(questions).get_indexer(df["question"])
    n_trials = int(pos.max()) + 1
    values = np.full((len(models), len(questions), n_trials), np.nan)
    values[mi, qi, pos.to_numpy()] = df["score"].to_numpy()
    if require_all_questions:
        empty = np.isnan(values).all(axis=-1)
        if empty.any():
            m, q = np.argwhere(empty)[0]
            raise ValueError(
                f"{source}: model {models[m]!r} has no attempt on question {questions[q]!r} "
                f"({int(empty.sum())} such pairs); expected every model to answer every question."
            )
    return xr.DataArray(
        values,
        dims=("model", "question", "trial"),
        coords={
            "model": np.asarray(models, dtype=object).astype(str),
            "question": np.asarray(questions).astype(str),
            "trial": np.arange(n_trials),
        },
    )
