"""The one registry of log formats, and :func:`read_eval_log`, which reads any of them.

Each reader lives in its own module and returns a :class:`bayes_eval.logs.EvalLog`:
:mod:`.long_table` (CSV/Parquet), :mod:`.inspect_ai` (Inspect AI), :mod:`.lm_eval`
(lm-evaluation-harness), :mod:`.helm` (HELM), :mod:`.trials_json` (CRUXEval and tau-bench
result files), :mod:`.dataset` (datasets shipped in :mod:`bayes_eval.datasets`).
:data:`FORMATS` (name -> description) and :data:`READERS` (name -> reader) are the only
list of formats; the CLI's ``--format`` choices come from here. :func:`detect_format`
picks the format of a path; :func:`log_tasks` lists the tasks a log asks to rank one by one
(lm-eval's), and ``task=`` reads one task of any log.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from bayes_eval.logs.dataset import PREFIX, dataset_name, read_dataset, shipped_log_file
from bayes_eval.logs.eval_log import EvalLog, make_log
from bayes_eval.logs.helm import read_helm
from bayes_eval.logs.inspect_ai import read_inspect
from bayes_eval.logs.lm_eval import lm_eval_tasks, read_lm_eval
from bayes_eval.logs.long_table import read_csv_log, read_parquet_log
from bayes_eval.logs.trials_json import read_cruxeval, read_taubench

__all__ = [
    "FORMATS",
    "READERS",
    "detect_format",
    "input_digest",
    "log_tasks",
    "once",
    "read_eval_log",
]

#: Supported formats and what they read.
FORMATS: dict[str, str] = {
    "csv": "long table (model, [task,] question, [trial,] [score,] [status,] signals...)",
    "parquet": "long table in Parquet (needs pyarrow)",
    "inspect": "Inspect AI .eval log (zip of JSON) or .json log; epochs are trials",
    "lm-eval": "lm-evaluation-harness --output_path folder or samples_<task>_<time>.jsonl "
    "(--log_samples); tasks ranked one by one",
    "helm": "HELM per_instance_stats.json (train_trial_index is the trial)",
    "cruxeval": "CRUXEval scored samples JSON (raw_scored_generations)",
    "taubench": "tau-bench historical trajectories JSON (task_id, trial, reward)",
}


READERS = {
    "csv": read_csv_log,
    "parquet": read_parquet_log,
    "inspect": read_inspect,
    "lm-eval": read_lm_eval,
    "helm": read_helm,
    "cruxeval": read_cruxeval,
    "taubench": read_taubench,
}


def detect_format(path: str | Path) -> str:  # noqa: C901 - one branch per recognised file format
    """Format of ``path`` from its suffix, or for ``.json`` from the shape of its content.

    A folder is HELM's (``per_instance_stats.json``), lm-eval's (``samples_*.jsonl`` in it or
    its subfolders) or Inspect's (``*.eval``).

    Parameters
    ----------
    path : str or Path
        A log file or folder (only a ``.json`` file or a folder is looked into).

    Returns
    -------
    str
        One of :data:`FORMATS`.

    Raises
    ------
    ValueError
        For a name or content of no known format (the message suggests ``--format``), or
        lm-eval output without samples.

    Examples
    --------
    >>> from bayes_eval.logs.read import detect_format
    >>> detect_format("runs.csv"), detect_format("runs.parquet"), detect_format("mmlu.eval")
    ('csv', 'parquet', 'inspect')
    >>> detect_format("samples_gsm8k_2025-01-02T10-00-00.000001.jsonl")
    'lm-eval'
    """
    path = Path(path)
    if path.is_dir():
        if (path / "per_instance_stats.json").is_file():
            return "helm"
        if any(path.glob("samples_*.jsonl")) or any(path.glob("*/samples_*.jsonl")):
            return "lm-eval"
        if any(path.glob("results_*.json")) or any(path.glob("*/results_*.json")):
            raise ValueError(
                f"{path}: lm-eval output without samples (results_*.json hold aggregates "
                "only); rerun lm_eval with --log_samples to write samples_<task>_<time>.jsonl."
            )
        if any(path.glob("*.eval")):
            return "inspect"
        raise ValueError(
            f"{path}: a directory without per_instance_stats.json, samples_*.jsonl (here or in "
            "its subfolders: an lm-eval --output_path) or *.eval files; pass the log files "
            "themselves or --format."
        )
    name = path.name.lower()
    if name.endswith(".eval"):
        return "inspect"
    if name.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")):
        return "csv"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith(".jsonl"):
        return "lm-eval"
    if name.endswith(".json"):
        try:
            data = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not valid JSON ({exc}).") from exc
        if isinstance(data, dict):
            if "raw_scored_generations" in data:
                return "cruxeval"
            if "eval" in data and "samples" in data:
                return "inspect"
        if isinstance(data, list) and data and isinstance(data[0], dict):
            if "instance_id" in data[0] and "stats" in data[0]:
                return "helm"
            if "task_id" in data[0] and "reward" in data[0]:
                return "taubench"
        raise ValueError(
            f"{path}: JSON that is not a known log (Inspect, HELM per_instance_stats, CRUXEval, "
            "tau-bench); pass --format or convert it to a long CSV table."
        )
    raise ValueError(
        f"{path}: cannot tell the format from the name; pass --format (one of {sorted(READERS)})."
    )


def read_eval_log(
    paths: str | Path | Sequence[str | Path], *, format: str | None = None, **options: Any
) -> EvalLog:
    """Read evaluation logs into one :class:`~bayes_eval.logs.eval_log.EvalLog`.

    The logs are one file, a directory or several files.

    Parameters
    ----------
    paths : path or sequence of paths
        Files or directories (formats auto-detected unless given; several formats are
        joined), or ``"dataset:NAME"`` for a dataset shipped in :mod:`bayes_eval.datasets`.
    format : str, optional
        One of :data:`FORMATS`.
    **options
        Passed to the importer, e.g. ``model=`` (name the model where the file does not),
        ``metric=`` (lm-eval, HELM), ``filter=`` (lm-eval), ``scorer=`` (Inspect),
        ``value_map=`` (Inspect letter scores to categories), ``max_tokens=`` (token ratio),
        ``task=`` (read one task: the rows of that task, or for lm-eval the files of that task
        or group, :func:`bayes_eval.logs.lm_eval.read_lm_eval`).

    Returns
    -------
    EvalLog
        The log; several formats are joined into one table (format ``"csv+inspect"``, ...),
        their signals by name.

    Raises
    ------
    ValueError
        Unknown format, unreadable files, malformed records (the message names the file and
        the line or record), a task the log does not have (the message lists its tasks).

    Examples
    --------
    >>> from bayes_eval.logs.read import read_eval_log
    >>> log = read_eval_log("dataset:taubench_airline_gpt4o")
    >>> log.format, log.table.shape
    ('dataset', (200, 6))
    >>> log.table[["model", "task"]].drop_duplicates().values.tolist()
    [['gpt-4o', 'airline']]
    """
    task = options.pop("task", None)
    given = [paths] if isinstance(paths, (str, Path)) else paths
    shipped = list(dict.fromkeys(name for p in given if (name := dataset_name(p)) is not None))
    files = [Path(p) for p in given if dataset_name(p) is None]
    if not files and not shipped:
        raise ValueError("no log files given.")
    for p in files:
        if not p.exists():
            raise ValueError(f"{p}: no such file or directory.")
    files = once(files)
    if format is not None and format not in FORMATS:
        raise ValueError(f"format is {format!r}; expected one of {sorted(FORMATS)}.")
    fmts = [format or detect_format(p) for p in files]
    groups: dict[str, list[Path]] = {}
    for p, f in zip(files, fmts, strict=True):
        groups.setdefault(f, []).append(p)
    # lm-eval reads the files of the task only (and knows its groups); other logs, and the
    # shipped ones, are read whole (once per process and version of their files: ranking task
    # by task asks again) and keep the rows of the task
    logs = [
        _text_checked(ps, partial(_read_group, f, ps, options, task)) for f, ps in groups.items()
    ]
    logs += [_read_shipped(name, options) for name in shipped]
    if task is not None:
        kinds = [*groups, *["dataset"] * len(shipped)]
        logs = [
            lg if f == "lm-eval" else _one_task(lg, task) for lg, f in zip(logs, kinds, strict=True)
        ]
    if len(logs) == 1:
        return logs[0]
    # several formats: one table, signals joined by name (absent signals are NaN)
    table = pd.concat([lg.table for lg in logs], ignore_index=True)
    meta = {f"{lg.format}.{k}": v for lg in logs for k, v in lg.meta.items()}
    fmt = "+".join(dict.fromkeys(lg.format for lg in logs))
    return make_log(table, fmt=fmt, sources=[s for lg in logs for s in lg.sources], meta=meta)


def _read_group(
    fmt: str, paths: Sequence[Path], options: dict[str, Any], task: str | None
) -> EvalLog:
    """The logs of one format: lm-eval's files of ``task`` only, other formats read whole."""
    if fmt == "lm-eval" and task:
        return READERS[fmt](paths, **options, task=task)
    return _read_whole(fmt, paths, options)


def _text_checked(paths: Sequence[Path], read: Callable[[], EvalLog]) -> EvalLog:
    r"""``read()``, refusing a text that is no Unicode in one line naming the files and the text.

    Such a text is a lone surrogate such as ``\ud800``, which a JSON file can spell as an
    escape. The one-line refusal comes instead of the encoder's error deep in the table's
    construction.
    """
    try:
        return read()
    except UnicodeEncodeError as exc:
        where = ", ".join(map(str, paths[:3])) + (", ..." if len(paths) > 3 else "")
        text = exc.object if isinstance(exc.object, str) else ""
        raise ValueError(
            f"{where}: the text {ascii(text)[:80]} (a model, task or question name) holds the "
            f"lone surrogate {text[exc.start : exc.start + 1]!a} (half of a character, "
            "e.g. a broken \\u escape); expected valid Unicode text."
        ) from None


#: The last logs read whole: (format, files and their versions, options) -> EvalLog
_READ: OrderedDict = OrderedDict()
_READ_SIZE = 2


def _version(p: Path) -> tuple:
    """A path and what tells its version: sizes and modification times.

    They are those of the path and, for a folder, of everything under it (a log written into
    the folder is a new version).
    """
    stat = p.stat()
    out: list = [str(p.resolve()), stat.st_size, stat.st_mtime_ns]
    if p.is_dir():
        for q in sorted(p.rglob("*")):
            st = q.stat()
            out += [str(q), st.st_size, st.st_mtime_ns]
    return tuple(out)


def _read_whole(fmt: str, paths: Sequence[Path], options: dict) -> EvalLog:
    """``READERS[fmt](paths, **options)``, kept for the next call with the same inputs.

    The same inputs are the same files, unchanged, and options (an :class:`EvalLog` is
    immutable).
    """
    options = {k: v for k, v in options.items() if v is not None}  # None: the reader's default
    try:
        key = (fmt, tuple(_version(p) for p in paths), repr(sorted(options.items())))
    except (OSError, TypeError):  # a path that vanished or an option that does not print
        return READERS[fmt](paths, **options)
    if key in _READ:
        _READ.move_to_end(key)
        return _READ[key]
    log = READERS[fmt](paths, **options)
    _READ[key] = log
    if len(_READ) > _READ_SIZE:
        _READ.popitem(last=False)
    return log


def once(paths: Sequence[Path]) -> list[Path]:
    """``paths`` with every file reached once.

    A path given twice (under any spelling: its resolved form) or lying inside a folder also
    given is dropped, so that no log is read twice and its attempts counted as more trials.

    Parameters
    ----------
    paths : sequence of Path
        Files and folders, as given.

    Returns
    -------
    list of Path
        The paths kept, in their order and spelling.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.logs.read import once
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     runs = Path(folder) / "runs.csv"
    ...     print(once([runs, Path(folder) / "." / "runs.csv"]) == [runs])  # one file twice
    ...     print(once([runs, Path(folder)]) == [Path(folder)])  # a file inside a folder given
    True
    True
    """
    out: list[Path] = []
    resolved: list[Path] = []
    for p in paths:
        r = p.resolve()
        if r in resolved:
            continue
        out.append(p)
        resolved.append(r)
    keep = []
    for p, r in zip(out, resolved, strict=True):
        inside = any(r != d and d.is_dir() and r.is_relative_to(d) for d in resolved)
        if not inside:
            keep.append(p)
    return keep


def _read_shipped(name: str, options: dict) -> EvalLog:
    """A shipped dataset, read as a log file or as a trial dataset.

    One shipped as a log file is read as that file (same result as reading the file itself), a
    trial dataset through :func:`.dataset.read_dataset`.
    """
    log_file = shipped_log_file(name)
    if log_file is None:
        return read_dataset(name, **options)
    log = READERS[detect_format(log_file)]([log_file], **options)
    return EvalLog(log.table, log.signals, (PREFIX + name,), log.format, log.meta)


def _one_task(log: EvalLog, task: str) -> EvalLog:
    """The rows of ``log`` whose task is ``task``.

    A task it lacks is refused, listing its tasks.
    """
    tasks = log.table["task"].astype(str)
    keep = (tasks == task).to_numpy()
    if not keep.any():
        known = sorted(set(tasks))
        raise ValueError(
            f"{', '.join(log.sources)}: no task {task!r}; expected one of {known[:12]}"
            + (f" ({len(known)} tasks)." if len(known) > 12 else ".")
        )
    if keep.all():
        return log
    table = log.table.loc[keep].reset_index(drop=True)
    for c in ("model", "task", "question"):
        table[c] = table[c].astype(str)
    meta = dict(log.meta) | {"task": task}
    clusters = meta.get("clusters")
    out = make_log(table, fmt=log.format, sources=log.sources, meta=meta)
    if isinstance(clusters, dict):  # questions lose their task prefix when one task is left
        prefix = f"{task}/"
        meta["clusters"] = {
            q.removeprefix(prefix): c for q, c in clusters.items() if q.startswith(prefix)
        }
        out = EvalLog(out.table, out.signals, out.sources, out.format, meta)
    return out


def log_tasks(
    paths: str | Path | Sequence[str | Path], *, format: str | None = None, **options: Any
) -> list[str]:
    """The tasks of a log, each its own benchmark to analyse on its own, sorted.

    Empty when the log holds one task (or none is named). lm-eval's are its outermost groups
    and the tasks outside any group (:func:`bayes_eval.logs.lm_eval.lm_eval_tasks`, from the
    file names and results JSONs only); any other log's are the values of its task column,
    read once (:func:`read_eval_log` keeps what it read for the next call).

    Parameters
    ----------
    paths : str, Path or sequence of them
        The log's files or folders; a ``dataset:NAME`` among them gives no tasks.
    format : str, optional
        One of :data:`FORMATS`; default detected from each path.
    **options
        The reader's options, as for :func:`read_eval_log`.

    Returns
    -------
    list of str
        The tasks, each a valid ``task=`` of :func:`read_eval_log`; empty for a log of one
        task, a shipped dataset, or a path that does not exist.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from bayes_eval.logs.read import log_tasks
    >>> rows = pd.DataFrame({"model": "m", "task": ["math", "math", "code", "code"],
    ...                      "question": ["q1", "q2", "q1", "q2"], "score": [1, 0, 1, 1]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     rows.to_csv(Path(folder) / "runs.csv", index=False)
    ...     tasks = log_tasks(Path(folder) / "runs.csv")
    >>> tasks
    ['code', 'math']
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    files = [Path(p) for p in paths if dataset_name(p) is None]
    if len(files) < len(paths) or not files or not all(p.exists() for p in files):
        return []
    files = once(files)
    fmts = {format or detect_format(p) for p in files}
    if fmts == {"lm-eval"}:
        tasks = lm_eval_tasks(files)
    else:
        log = read_eval_log(files, format=format, **options)
        tasks = sorted(str(t) for t in log.table["task"].astype(str).unique() if str(t))
    return tasks if len(tasks) > 1 else []


def input_digest(sources: Sequence[str]) -> str:
    """SHA-256 of the inputs a page was computed from: every file read, as its name and bytes.

    A folder counts as every file under it, in name order; ``dataset:NAME`` as the shipped
    files. With it a reader can check that the inputs hold the same data.

    Parameters
    ----------
    sources : sequence of str
        The files, folders and ``dataset:NAME`` read, in order.

    Returns
    -------
    str
        The digest in hexadecimal (64 characters).

    Examples
    --------
    >>> from bayes_eval.logs.read import input_digest
    >>> digest = input_digest(["dataset:taubench_airline_gpt4o"])
    >>> len(digest), digest == input_digest(["dataset:taubench_airline_gpt4o"])
    (64, True)
    """
    import hashlib

    digest = hashlib.sha256()
    for source in sources:
        name = dataset_name(source)
        if name is not None:
            from bayes_eval.datasets.registry import files as shipped

            files = list(shipped(name))
            root = files[0].parent
        else:
            root = Path(source)
            files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for f in files:
            digest.update(str(f.relative_to(root) if f != root else f.name).encode())
            digest.update(f.read_bytes())
    return digest.hexdigest()
