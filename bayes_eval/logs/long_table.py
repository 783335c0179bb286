"""Long tables (CSV, Parquet) with per-attempt signals.

Columns: ``model``, ``question`` (required); ``task``, ``trial``, ``score`` (an integer
category, or a graded score in ``[0, 1]``), ``status`` (``ok``/``error``) (optional); every
other column is a numeric per-attempt signal (e.g. ``is_correct``, ``completion_bpt``) for
rubric schemata; a table needs ``score`` or a signal column. An empty ``score`` with status
``error`` is a failed attempt. Without a ``trial`` column every row is one attempt, numbered
``0, 1, ...`` in row order within its (model, task, question): a public leaderboard export
(model, question, score, some pairs listed twice) is read as it is. When most pairs have one
row and every extra row repeats an earlier row exactly, the extra rows are duplicates,
dropped with a warning that counts them (:func:`bayes_eval.logs.make_log`); a repeated trial
number is refused.

Labels stay text (``2.1`` and ``2.10``, ``NA``, ``null`` are labels, never numbers or
missing). A CSV file is read by pyarrow with dictionary-encoded labels and numeric columns
parsed in Arrow (``_read_csv_fast``); anything it does not read cleanly (a malformed row,
a non-numeric value, an empty label, a refused value) is read again by the row-by-row reader
(``_read_csv``), which names the file line in its message. Parquet labels are read
dictionary-encoded.
"""

from __future__ import annotations

import csv
import gzip
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np
import pandas as pd

from bayes_eval.logs.eval_log import BASE_COLUMNS, EvalLog, make_log, shown

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["LONG_SUFFIXES", "read_csv_log", "read_parquet_log", "write_long_table"]


LABELS = ("model", "task", "question", "status")
#: Columns that are neither a score nor a signal.
NOT_SCORES = ("model", "task", "question", "trial", "status")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _sep(p: Path) -> str:
    return "\t" if p.name.lower().endswith((".tsv", ".tsv.gz")) else ","


def _open(p: Path) -> TextIO:
    """A table file opened as UTF-8 text (gzip-compressed when it ends in ``.gz``)."""
    opener = gzip.open if p.name.lower().endswith(".gz") else open
    return opener(p, "rt", newline="", encoding="utf-8")


def _read_csv(p: Path) -> pd.DataFrame:
    """Every cell as text; a row whose number of fields differs from the header's is refused.

    Labels such as ``2.10`` or ``NA`` stay what they are; a refused row is named by its line
    number.
    """
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
    """The file line where each of the ``n_rows`` data rows starts (line 1 is the header).

    Lines are counted as pandas does (blank lines skipped); None if that count disagrees.
    """
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


def _csv_columns(p: Path, df: pd.DataFrame, cluster: str | None = None) -> pd.DataFrame:
    """Labels (and the ``cluster`` column) stay text; every other column becomes numbers.

    An empty label is refused; an empty cell of another column becomes NaN. CSV rows are
    numbered as file lines: line 1 is the header.
    """
    out = {}
    where = _Locator([(p, len(df))])
    for c in df.columns:
        col = df[c]
        if c in LABELS or c == cluster:
            empty = col.str.strip() == ""
            if c not in ("task", "status") and empty.any():
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


def _read_csv_fast(p: Path, cluster: str | None = None) -> pd.DataFrame | None:
    """The table of a well-formed CSV file read by pyarrow, or None.

    Labels are read as categoricals, every other column as floats. None when the row-by-row
    reader must read the file (a ragged row, a non-numeric or non-finite value, an empty model
    or question, an unusual header, ...).
    """
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        return None
    sep = _sep(p)
    try:
        with _open(p) as fh:
            header = next(csv.reader(fh, delimiter=sep), [])
    except Exception:  # the row-by-row reader names what is wrong
        return None
    names = set(header)
    if not header or len(names) < len(header) or "" in names or header[0].startswith("\ufeff"):
        return None
    dictionary = pa.dictionary(pa.int32(), pa.string())
    text = (*LABELS, cluster)
    types = {c: dictionary if c in text else pa.float64() for c in header}
    try:
        table = pacsv.read_csv(
            p,
            read_options=pacsv.ReadOptions(block_size=8 << 20),
            parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types=types, null_values=[""], strings_can_be_null=False
            ),
        )
    except Exception:  # pyarrow raises ArrowInvalid, OSError, ...
        return None
    if table.column_names != header or table.num_rows == 0:
        return None
    out: dict[str, pd.Categorical | np.ndarray] = {}
    release = getattr(pa.default_memory_pool(), "release_unused", lambda: None)
    for c in header:
        col = table.column(c)
        table = table.drop_columns([c])
        if c in text:
            labels = _categorical(col.unify_dictionaries(), c)
            if labels is None:
                return None
            out[c] = labels
        else:
            values = col.to_numpy()  # an empty cell is NaN
            if np.isfinite(values).sum() != len(col) - col.null_count:
                return None  # nan or inf written out: the row-by-row reader decides
            out[c] = _integers(values) if c == "trial" and col.null_count == 0 else values
        del col
        release()  # Arrow's pool keeps freed memory otherwise
    return pd.DataFrame(out, copy=False)


def _integers(values: np.ndarray) -> np.ndarray:
    """Whole numbers ``0 <= v < 2**53`` as int64 (as pandas parses a column of integers).

    Anything else stays as it is, for :func:`bayes_eval.logs.make_log` to refuse.
    """
    if values.size and values.min() >= 0 and values.max() < 2**53:
        whole = values.astype(np.int64)
        if np.array_equal(whole, values):
            return whole
    return values


def _categorical(col: pa.ChunkedArray, name: str) -> pd.Categorical | None:
    """A dictionary-encoded Arrow column as a categorical, or None.

    None where the row-by-row reader must decide (an empty model or question cell).
    """
    labels = np.asarray(col.chunk(0).dictionary.to_pylist() if col.num_chunks else [], object)
    empty = np.array([not t.strip() for t in labels], dtype=bool)
    if name not in ("task", "status") and empty.any():  # model, question, a cluster
        return None
    kind = np.int8 if len(labels) < 2**7 else np.int16 if len(labels) < 2**15 else np.int32
    codes = np.concatenate(
        [c.indices.to_numpy(zero_copy_only=False) for c in col.chunks], dtype=kind
    )
    if name == "status" and empty.any():  # an empty status is "ok"
        labels = np.where(empty, "ok", labels).astype(object)
        labels, lut = np.unique(labels, return_inverse=True)
        codes = lut.astype(kind)[codes]
    dtype = pd.CategoricalDtype(pd.Index(labels, dtype=object))
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _read(paths: Sequence[Path], fmt: str, cluster: str | None = None) -> EvalLog:
    if cluster is not None and cluster in NOT_SCORES:
        raise ValueError(
            f"the cluster column is {shown(cluster)}, one of the columns {list(NOT_SCORES)}; "
            "expected a column of its own holding each question's group."
        )
    if fmt == "csv":  # the fast reader; on any doubt, the row-by-row one gives the message
        frames = []
        for p in paths:
            frames.append(_read_csv_fast(p) if cluster is None else _read_csv_fast(p, cluster))
            if frames[-1] is None or _missing_columns(frames[-1], cluster):
                break
        else:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    log = _make(paths, frames, fmt, cluster)
                except ValueError:
                    log = None
            if log is not None:
                for w in caught:
                    warnings.warn(w.message, w.category, stacklevel=3)
                return log
        del frames
    frames = []
    for p in paths:
        if fmt == "csv":
            df = _read_csv(p)
        else:
            df = _read_parquet(p)
        if cluster is not None and cluster not in df.columns:
            raise ValueError(
                f"{p}: no column {shown(cluster)} to take the question clusters from; the "
                f"columns are {[str(c) for c in df.columns]}."
            )
        missing = _missing_columns(df, cluster)
        if missing:
            raise ValueError(
                f"{p}: missing column(s) {missing}; expected model, question and either score "
                f"or signal columns (found {[str(c) for c in df.columns]})."
            )
        if len(df) == 0:
            raise ValueError(f"{p}: the table has no rows; expected one row per attempt.")
        if fmt == "csv":
            df = _csv_columns(p, df, cluster)
        frames.append(df)
    return _make(paths, frames, fmt, cluster)


def _missing_columns(df: pd.DataFrame, cluster: str | None = None) -> list[str]:
    missing = [c for c in ("model", "question") if c not in df.columns]
    if cluster is not None and cluster not in df.columns:
        missing.append(cluster)
    if all(c in (*NOT_SCORES, cluster) for c in df.columns):
        missing.append("score")
    return missing


def _make(
    paths: Sequence[Path], frames: list[pd.DataFrame], fmt: str, cluster: str | None = None
) -> EvalLog:
    table = frames[0] if len(frames) == 1 else _concat(frames)
    where = _Locator([(p, len(df)) for p, df in zip(paths, frames, strict=True)])

    def made(rows: pd.DataFrame) -> EvalLog:
        sources = [str(p) for p in paths]
        return make_log(
            rows, fmt=fmt, sources=sources, locate=where, copy=False, drop_duplicates=True
        )

    if cluster is None:
        return made(table)
    values = table[cluster]
    empty = values.isna().to_numpy() | (values.astype(str).str.strip() == "").to_numpy()
    if empty.any():
        row = int(np.argmax(empty))
        raise ValueError(
            f"the cluster column {cluster!r} is empty in row {row + 1} (question "
            f"{table['question'].iloc[row]!r}); expected a cluster label for every row."
        )
    codes, labels = pd.factorize(values.astype(str), sort=True)
    log = made(table.drop(columns=[cluster]))
    return _with_clusters(log, cluster, codes, np.asarray(labels, dtype=object))


def _with_clusters(log: EvalLog, column: str, codes: np.ndarray, labels: np.ndarray) -> EvalLog:
    """``log`` with ``meta["clusters"]`` and ``meta["cluster_column"]``.

    ``meta["clusters"]`` maps question -> cluster label, the questions as
    :meth:`EvalLog.results` labels them. A question in two clusters is refused, naming it.
    """
    index, _, _, coords, shape = log._grid
    question = (index // shape[2]) % shape[1]  # every row's question, failed attempts too
    lo = np.full(shape[1], np.iinfo(np.int64).max)
    hi = np.full(shape[1], -1)
    np.minimum.at(lo, question, codes)
    np.maximum.at(hi, question, codes)
    names = [str(q) for q in coords["question"]]
    split = np.flatnonzero(lo != hi)
    if split.size:
        q = int(split[0])
        raise ValueError(
            f"{', '.join(log.sources)}: question {shown(names[q])} is in two clusters of column "
            f"{shown(column)} ({shown(str(labels[lo[q]]))} and {shown(str(labels[hi[q]]))}); "
            "expected exactly one cluster per question."
        )
    meta = dict(log.meta) | {
        "cluster_column": column,
        "clusters": {q: str(labels[c]) for q, c in zip(names, lo.tolist(), strict=True)},
    }
    out = EvalLog(log.table, log.signals, log.sources, log.format, meta)
    out.__dict__.update({k: v for k, v in log.__dict__.items() if k.startswith("_")})
    return out


def _concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Tables one after the other; label columns categorical in every table stay so."""
    table = pd.concat(frames, ignore_index=True)
    for c in LABELS:
        cols = [df[c] for df in frames if c in df.columns]
        if len(cols) == len(frames) and all(isinstance(x.dtype, pd.CategoricalDtype) for x in cols):
            table[c] = pd.api.types.union_categoricals(cols, ignore_order=True)
    return table


def _read_parquet(p: Path) -> pd.DataFrame:
    """A Parquet table; text label columns are read dictionary-encoded (as categoricals)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ValueError(f"{p}: reading Parquet needs pyarrow (pip install pyarrow).") from exc
    try:
        schema = pq.read_schema(p)
        text = [
            c
            for c in LABELS
            if schema.names.count(c) == 1
            and (
                pa.types.is_string(schema.field(c).type)
                or pa.types.is_large_string(schema.field(c).type)
            )
        ]
        # one file, read as a file: Arrow's dataset reader would add its own columns
        # (__fragment_index, __filename, ...) and trip over a table that has one of them
        table = pq.ParquetFile(p, read_dictionary=text).read()
        df = table.to_pandas(split_blocks=True, self_destruct=True)
    except Exception as exc:  # pyarrow raises many error types
        raise ValueError(f"{p}: could not be read as parquet ({_one_line(exc)}).") from exc
    del table
    getattr(pa.default_memory_pool(), "release_unused", lambda: None)()
    return df


def read_csv_log(paths: Sequence[Path], *, cluster: str | None = None, **options: Any) -> EvalLog:
    """Read long CSV tables (``.csv``, ``.csv.gz``, ``.tsv``).

    ``cluster`` names a column holding each question's group (read as text, one group per
    question); the log then carries ``meta["clusters"]`` (question -> group) and
    ``meta["cluster_column"]``.

    Parameters
    ----------
    paths : sequence of Path
        The tables, read one after the other as one log.
    cluster : str, optional
        The column of each question's group (not a signal); default none.
    **options
        The reader options of the other formats: refused unless ``None``.

    Returns
    -------
    EvalLog
        One row per attempt (module docstring), of format ``"csv"``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from bayes_eval.logs.long_table import read_csv_log
    >>> rows = pd.DataFrame({"model": ["a", "a", "a", "b", "b"],
    ...                      "question": ["q1", "q1", "q2", "q1", "q2"], "score": [1, 0, 1, 0, 1],
    ...                      "subject": ["algebra", "algebra", "geometry", "algebra", "geometry"]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     rows.to_csv(Path(folder) / "runs.csv", index=False)
    ...     log = read_csv_log([Path(folder) / "runs.csv"], cluster="subject")
    >>> log.results(require_all_questions=False).values.tolist()  # a answered q1 twice
    [[[1.0, 0.0], [1.0, nan]], [[0.0, nan], [1.0, nan]]]
    >>> log.meta["clusters"]
    {'q1': 'algebra', 'q2': 'geometry'}
    """
    _no_options(options, "csv")
    return _read(paths, "csv", cluster)


def read_parquet_log(
    paths: Sequence[Path], *, cluster: str | None = None, **options: Any
) -> EvalLog:
    """Read long Parquet tables (``cluster`` as for :func:`read_csv_log`).

    Parameters
    ----------
    paths : sequence of Path
        The tables (``.parquet``, ``.pq``; reading needs pyarrow, the ``parquet`` extra).
    cluster : str, optional
        The column of each question's group (not a signal); default none.
    **options
        The reader options of the other formats: refused unless ``None``.

    Returns
    -------
    EvalLog
        One row per attempt (module docstring), of format ``"parquet"``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.logs.dataset import read_dataset
    >>> from bayes_eval.logs.long_table import read_parquet_log, write_long_table
    >>> log = read_dataset("taubench_airline_gpt4o")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     back = read_parquet_log([write_long_table(log, Path(folder) / "tau.parquet")])
    >>> back.format, len(back.table), back.results().equals(log.results())
    ('parquet', 200, True)
    """
    _no_options(options, "parquet")
    return _read(paths, "parquet", cluster)


def _no_options(options: dict[str, Any], fmt: str) -> None:
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the {fmt} reader takes no options; got {sorted(options)}.")


#: File endings :func:`write_long_table` writes (and the csv and parquet readers read).
LONG_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".parquet", ".pq")


def write_long_table(log: EvalLog, path: str | Path, *, option: str | None = None) -> Path:
    """Write a log as the long table every command reads.

    The table (read by :func:`read_csv_log`, :func:`read_parquet_log`) has one row per attempt
    with the columns ``model``, ``task``, ``question``, ``trial``, ``score``, ``status`` and one
    per signal.

    The format follows the file ending (``.csv``, ``.csv.gz``, ``.tsv``, ``.tsv.gz``,
    ``.parquet``, ``.pq``; Parquet needs pyarrow, the ``parquet`` extra). Integer categories
    are written as integers, graded scores as the shortest decimal that reads back to the same
    float (so reading the file gives the same log: tested); a failed attempt has an empty
    ``score`` and the status ``error``. Labels are written as text. The file is written beside
    its final name and renamed into place, so an interrupted export leaves no partial table.

    Parameters
    ----------
    log : EvalLog
        The log to write (not modified).
    path : str or Path
        The file to write (replaced whole if it exists; its folder must exist).
    option : str, optional
        The option that named ``path`` (``--export``), for the message of an error.

    Returns
    -------
    Path
        The file written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.logs.dataset import read_dataset
    >>> from bayes_eval.logs.long_table import read_csv_log, write_long_table
    >>> log = read_dataset("taubench_airline_gpt4o")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_long_table(log, Path(folder) / "tau.csv")
    ...     header = path.read_text().splitlines()[:2]
    ...     same = read_csv_log([path]).results().equals(log.results())
    >>> header, same
    (['model,task,question,trial,score,status', 'gpt-4o,airline,0,0,0,ok'], True)
    """
    from bayes_eval.files import check_output, write_file

    p = Path(path)
    name = p.name.lower()
    suffix = next((s for s in LONG_SUFFIXES if name.endswith(s)), None)
    if suffix is None:
        raise ValueError(
            f"{p}: cannot tell the format from the file name; expected one of "
            f"{', '.join(LONG_SUFFIXES)}."
        )
    p = check_output(p, option=option)
    columns = [c for c in (*BASE_COLUMNS, *log.signals) if c in log.table.columns]
    df = log.table[columns].copy()
    score = pd.to_numeric(df["score"], errors="coerce")
    finite = score[np.isfinite(score)]
    if len(finite) and bool((finite == np.round(finite)).all()):
        df["score"] = score.astype("Int64")  # categories as integers, a failed attempt empty
    if suffix in (".parquet", ".pq"):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(
                f"{p}: writing Parquet needs pyarrow (pip install 'bayes_eval[parquet]'); "
                "or export to .csv."
            ) from None
        for c in ("model", "task", "question", "status"):
            df[c] = df[c].astype(str)
        return write_file(p, lambda tmp: df.to_parquet(tmp, index=False), option=option)
    return write_file(
        p,
        lambda tmp: df.to_csv(
            tmp,
            index=False,
            sep="\t" if suffix.startswith(".tsv") else ",",
            compression="gzip" if suffix.endswith(".gz") else None,
            float_format=None,
        ),
        option=option,
    )
