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


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _sep(p: Path) -> str:
    return "\t" if p.name.lower().endswith((".tsv", ".tsv.gz")) else ","


def _open(p: Path):
    opener = gzip.open if p.name.lower().endswith(".gz") else open
    return opener(p, "rt", newline="", encoding="utf-8")


def _read_csv(p: Path) -> pd.DataFrame:
    """Every cell as text (labels such as ``2.10`` or ``NA`` stay what they are); a row whose
    number of fields differs from the header's is refused with its line number."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            try:
                df = pd.read_csv(p, sep=_sep(p), dtype=str, keep_default_na=False, index_col=False)
            except pd.errors.ParserWarning:
                df = None  # a row longer than the header: found below
            except pd.errors.EmptyDataError:
                raise ValueError(f"{p}: the file is empty; expected a header line.") from None
        if df is None:
            _check_widths(p)
        with _open(p) as fh:
            header = next(csv.reader(fh, delimiter=_sep(p)), [])
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{p}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "expected a UTF-8 CSV file."
        ) from None
    except ValueError as exc:
        if str(exc).startswith(f"{p}: "):
            raise
        raise ValueError(f"{p}: could not be read as csv ({_one_line(exc)}).") from exc
    except Exception as exc:  # pandas, csv, gzip and zlib raise many error types
        raise ValueError(f"{p}: could not be read as csv ({_one_line(exc)}).") from exc
    if df is None:
        raise ValueError(f"{p}: rows and header have different numbers of fields.")
    dup = next((c for c in header if header.count(c) > 1), None)
    if dup is not None:
        raise ValueError(
            f"{p}: the column {shown(dup)} appears more than once in the header; expected each "
            "column once."
        )
    return df


def _check_widths(p: Path) -> None:
    with _open(p) as fh:
        rows = csv.reader(fh, delimiter=_sep(p))
        width = len(next(rows, []))
        for row in rows:
            if row and len(row) > width:
                raise ValueError(
                    f"{p}: line {rows.line_num} has {len(row)} fields; the header has {width}."
                )


def _line_numbers(p: Path, n_rows: int) -> list[int] | None:
    """The file line where each of the ``n_rows`` data rows starts (line 1 is the header),
    counting as pandas does (blank lines skipped); None if that count disagrees."""
    lines = []
    try:
        with _open(p) as fh:
            rows = csv.reader(fh, delimiter=_sep(p))
            next(rows, None)
            end = rows.line_num
            for row in rows:
                if row and not (len(row) == 1 and not row[0].strip()):
                    lines.append(end + 1)
                end = rows.line_num
    except Exception:  # the message falls back to record numbers
        return None
    return lines if len(lines) == n_rows else None


class _Locator:
    """``"<file>: line <n>"`` of a row of the joined tables (computed when an error needs it)."""

    def __init__(self, parts: list[tuple[Path, int]]):
        self.parts = parts  # (file, rows) in order

    def __call__(self, i: int) -> str:
        for p, n in self.parts:
            if i < n:
                if p.name.lower().endswith((".parquet", ".pq")):
                    return f"{p}: row {i + 1}"
                lines = _line_numbers(p, n)
                return f"{p}: line {lines[i]}" if lines else f"{p}: record {i + 1}"
            i -= n
        return f"record {i + 1}"


def _csv_columns(p: Path, df: pd.DataFrame) -> pd.DataFrame:
    """Labels stay text (an empty one is refused); every other column becomes numbers, an
    empty cell NaN (CSV rows are numbered as file lines: line 1 is the header)."""
    out = {}
    where = _Locator([(p, len(df))])
    for c in df.columns:
        col = df[c]
        if c in LABELS:
            empty = col.str.strip() == ""
            if c in ("model", "question") and empty.any():
                i = int(empty.to_numpy().nonzero()[0][0])
                raise ValueError(f"{where(i)}: the {c} cell is empty; expected a label.")
            out[c] = col.where(~empty, "ok") if c == "status" else col
            continue
        text = col.str.strip()
        num = pd.to_numeric(text.where(text != ""), errors="coerce")
        bad = num.isna() & (text != "")
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise ValueError(
                f"{where(i)}: column {shown(c)} has the non-numeric value "
                f"{shown(col.iloc[i])}; expected a number."
            )
        out[c] = num
    return pd.DataFrame(out)


def _read(paths: Sequence[Path], fmt: str) -> EvalLog:
    frames = []
    for p in paths:
        if fmt == "csv":
            df = _read_csv(p)
        else:
            try:
                df = pd.read_parquet(p)
            except ImportError as exc:
                raise ValueError(
                    f"{p}: reading Parquet needs pyarrow (pip install pyarrow)."
                ) from exc
            except Exception as exc:  # pyarrow raises many error types
                raise ValueError(f"{p}: could not be read as parquet ({_one_line(exc)}).") from exc
        missing = [c for c in ("model", "question", "trial") if c not in df.columns]
        if missing:
            raise ValueError(
                f"{p}: missing column(s) {missing}; expected model, question, trial and either "
                f"score or signal columns (found {[str(c) for c in df.columns]})."
            )
        if len(df) == 0:
            raise ValueError(f"{p}: the table has no rows; expected one row per attempt.")
        if fmt == "csv":
            df = _csv_columns(p, df)
        frames.append(df)
    table = pd.concat(frames, ignore_index=True)
    where = _Locator([(p, len(df)) for p, df in zip(paths, frames, strict=True)])
    return make_log(table, fmt=fmt, sources=[str(p) for p in paths], locate=where)


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
