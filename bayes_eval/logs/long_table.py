"""Long tables (CSV, Parquet) with per-attempt signals.

Columns: ``model``, ``question``, ``trial`` (required); ``task``, ``score`` (integer
category), ``status`` (``ok``/``error``) (optional); every other column is a numeric
per-attempt signal (e.g. ``is_correct``, ``completion_bpt``) for rubric schemata. An empty
``score`` with status ``error`` is a failed attempt.
"""

from __future__ import annotations

import csv
import gzip
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from bayes_eval.logs.eval_log import EvalLog, make_log, shown

__all__ = ["read_csv_log", "read_parquet_log"]


LABELS = ("model", "task", "question", "status")


def _read_csv(p: Path) -> pd.DataFrame:
    """Every cell as text (labels such as ``2.10`` or ``NA`` stay what they are); a row whose
    number of fields differs from the header's is refused with its line number."""
    sep = "\t" if p.name.lower().endswith((".tsv", ".tsv.gz")) else ","
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            return pd.read_csv(p, sep=sep, dtype=str, keep_default_na=False, index_col=False)
        except pd.errors.ParserWarning:
            pass  # a row longer than the header: find it below
    opener = gzip.open if p.name.lower().endswith(".gz") else open
    with opener(p, "rt", newline="") as fh:
        rows = csv.reader(fh, delimiter=sep)
        width = len(next(rows))
        for line, row in enumerate(rows, start=2):
            if row and len(row) != width:
                raise ValueError(f"{p}: line {line} has {len(row)} fields; the header has {width}.")
    raise ValueError(f"{p}: rows and header have different numbers of fields.")


def _csv_columns(p: Path, df: pd.DataFrame) -> pd.DataFrame:
    """Labels stay text (an empty one is refused); every other column becomes numbers, an
    empty cell NaN (CSV rows are numbered from 2: line 1 is the header)."""
    out = {}
    for c in df.columns:
        col = df[c]
        if c in LABELS:
            empty = col.str.strip() == ""
            if c in ("model", "question") and empty.any():
                i = int(empty.to_numpy().nonzero()[0][0])
                raise ValueError(f"{p}: line {i + 2}: the {c} cell is empty; expected a label.")
            out[c] = col.where(~empty, "ok") if c == "status" else col
            continue
        text = col.str.strip()
        num = pd.to_numeric(text.where(text != ""), errors="coerce")
        bad = num.isna() & (text != "")
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise ValueError(
                f"{p}: line {i + 2}: column {c!r} has the non-numeric value "
                f"{shown(col.iloc[i])}; expected a number."
            )
        out[c] = num
    return pd.DataFrame(out)


def _read(paths: Sequence[Path], fmt: str) -> EvalLog:
    frames = []
    for p in paths:
        try:
            df = _read_csv(p) if fmt == "csv" else pd.read_parquet(p)
        except ImportError as exc:
            raise ValueError(f"{p}: reading Parquet needs pyarrow (pip install pyarrow).") from exc
        except ValueError:
            raise
        except Exception as exc:  # pandas raises many parser error types
            raise ValueError(f"{p}: could not be read as {fmt} ({exc}).") from exc
        missing = [c for c in ("model", "question", "trial") if c not in df.columns]
        if missing:
            raise ValueError(
                f"{p}: missing column(s) {missing}; expected model, question, trial and either "
                f"score or signal columns (found {list(df.columns)})."
            )
        if len(df) == 0:
            raise ValueError(f"{p}: the table has no rows; expected one row per attempt.")
        if fmt == "csv":
            df = _csv_columns(p, df)
        frames.append(df)
    table = pd.concat(frames, ignore_index=True)
    return make_log(table, fmt=fmt, sources=[str(p) for p in paths])


def read_csv_log(paths: Sequence[Path], **options) -> EvalLog:
    """Read long CSV tables (``.csv``, ``.csv.gz``, ``.tsv``)."""
    _no_options(options, "csv")
    return _read(paths, "csv")


def read_parquet_log(paths: Sequence[Path], **options) -> EvalLog:
    """Read long Parquet tables."""
    _no_options(options, "parquet")
    return _read(paths, "parquet")


def _no_options(options: dict, fmt: str) -> None:
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the {fmt} reader takes no options; got {sorted(options)}.")
