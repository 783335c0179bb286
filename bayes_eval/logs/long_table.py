"""Long tables (CSV, Parquet) with per-attempt signals.

Columns: ``model``, ``question``, ``trial`` (required); ``task``, ``score`` (integer
category), ``status`` (``ok``/``error``) (optional); every other column is a numeric
per-attempt signal (e.g. ``is_correct``, ``completion_bpt``) for rubric schemata. An empty
``score`` with status ``error`` is a failed attempt.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from bayes_eval.logs.eval_log import EvalLog, make_log, shown

__all__ = ["read_csv_log", "read_parquet_log"]


def _read(paths: Sequence[Path], fmt: str) -> EvalLog:
    frames = []
    for p in paths:
        try:
            if fmt == "csv":
                df = pd.read_csv(p, sep="\t" if p.name.lower().endswith(".tsv") else ",")
            else:
                df = pd.read_parquet(p)
        except ImportError as exc:
            raise ValueError(f"{p}: reading Parquet needs pyarrow (pip install pyarrow).") from exc
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
            for c in df.columns:  # CSV rows are numbered from 2 (line 1 is the header)
                if c in ("model", "task", "question", "trial", "status"):
                    continue
                num = pd.to_numeric(df[c], errors="coerce")
                bad = num.isna() & df[c].notna()
                if bad.any():
                    i = int(bad.to_numpy().nonzero()[0][0])
                    raise ValueError(
                        f"{p}: line {i + 2}: column {c!r} has the non-numeric value "
                        f"{shown(df[c].iloc[i])}; expected a number."
                    )
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
