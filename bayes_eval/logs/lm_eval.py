r"""lm-evaluation-harness output: an ``--output_path`` folder, a model's folder, or samples.

The samples are ``--log_samples`` files (``samples_<task>_<time>.jsonl``).

Layout (lm-evaluation-harness 0.4, ``EvaluationTracker``): ``lm_eval --output_path OUT
--log_samples`` writes, per run, ``OUT/<model>/results_<time>.json`` (the aggregated results)
and one ``OUT/<model>/samples_<task>_<time>.jsonl`` per task, where ``<model>`` is the model
name with every run of ``"<>:/|\?*[]`` replaced by ``__`` and ``<time>`` the run's start as
``2025-01-02T10-00-00.000001`` (an ``--output_path`` ending in ``.json`` writes
``<stem>_<time>.json`` and the samples beside it instead). A run again writes new files with a
new time beside the old ones. The results JSON holds ``model_name`` (the model as given:
``pretrained=``, ``model=``, ...), ``config`` (``model``, ``model_args``...), ``configs`` (each
task's configuration, with its ``metadata``), ``versions``, ``n-samples`` and
``group_subtasks`` (each group's subtasks, e.g. ``mmlu`` -> ``mmlu_stem`` -> the subjects).

Each line of a samples file is one document under one filter: ``doc_id``, ``doc``,
``target``, ``arguments``, ``resps``, ``filtered_resps``, ``filter``, ``metrics`` (the metric
names), the hashes, and one field per metric with its value.

Mapping:

* **files**: a path is a samples file, a folder holding samples files (a model's folder), or
  an ``--output_path`` folder whose subfolders hold them; every model and task found is read;
* **model**: ``model_name`` from the run's ``results_<time>.json`` (the same time as the
  samples file; a samples file without one takes the name the folder's other results files
  agree on), else the folder's name as lm-eval wrote it (``org__name``: not turned back into
  ``org/name``, since ``__`` stands for any of ``"<>:/|\?*[]``); ``model=`` names the model
  of a log that holds one model only;
* **task**: from the file name ``samples_<task>_<time>.jsonl``. A task that lm-eval ran as a
  subtask of a group (``group_subtasks`` of the results JSON, e.g. the 57 subjects of
  ``mmlu``) belongs to its outermost group: :func:`lm_eval_tasks` lists the tasks to rank (the
  outermost groups and the tasks outside any group), and ``task=`` reads one of them (a group:
  its subtasks' questions pooled, each question named ``subtask/doc_id``), or any subtask or
  intermediate group by its name;
* **clusters** (``meta["clusters"]``, for the clustered new-questions estimand):
  ``cluster="task"`` gives each question the subtask it belongs to, the grouping lm-eval
  itself has (the subjects of MMLU, the languages of a multilingual group);
  ``cluster="doc.FIELD"`` the value of a field of the document (``doc``), where the dataset
  has one (``doc.category`` in MMLU-Pro, ``doc.activity_label`` in HellaSwag). A task's
  ``metadata`` holds its version and free fields, not a per-document group, so lm-eval gives
  no other cluster id;
* the metric (``metric=``, default the first name in ``metrics``) gives the category: it
  must be 0/1 (or ``true``/``false``) per attempt, e.g. ``exact_match`` or ``acc``; other
  numeric metric fields become signals, and ``is_correct`` is the chosen metric;
* one filter is read per file (``filter=``, default the first filter in the file, e.g.
  ``none`` or ``strict-match``); the filters chosen are reported;
* **trials**: several files for the same model and task (repeated runs, ordered by their
  times), repeated lines for the same ``doc_id`` within a file, and list-valued metric
  fields (one value per repeat) all become successive trials;
* ``has_box`` is 1 when the filtered response contains ``\boxed{``;
* a line with ``null`` metric value is a failed trial. A line that is not JSON or lacks a
  field is an error naming the file and the line number.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from bayes_eval.inputs import shown
from bayes_eval.logs.eval_log import BASE_COLUMNS, EvalLog, make_log
from bayes_eval.logs.long_table import _with_clusters

__all__ = ["lm_eval_files", "lm_eval_tasks", "read_lm_eval"]

_NAME = re.compile(r"^samples_(?P<task>.+?)_(?P<time>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl$")


#: Columns a metric's name must not overwrite (such a metric is not kept as a signal).
RESERVED = frozenset({*BASE_COLUMNS, "is_correct", "has_box"})


def _lines(f: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of a JSONL file; bytes that are not UTF-8 are refused."""
    try:
        with f.open(encoding="utf-8") as fh:
            yield from enumerate(fh, start=1)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{f}: not UTF-8 text (byte {exc.object[exc.start]:#04x}); expected a JSONL file."
        ) from None


def _text(resp: object) -> str:
    """The first text of a (nested) response list, else ``""``."""
    while isinstance(resp, list) and resp:
        resp = resp[0]
    return resp if isinstance(resp, str) else ""


def _binary(value: object, where: str, metric: str) -> float:
    """A 0/1 (or boolean) metric value as a float; any other value is refused."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and float(value) in (0.0, 1.0):
        return float(value)
    raise ValueError(
        f"{where}: metric {metric!r} is {value!r}; expected 0/1 per attempt to use it as the "
        "category (choose another with metric=... or rank a schema over the signal)."
    )


def lm_eval_files(paths: Sequence[Path]) -> list[Path]:
    r"""The samples files under ``paths``.

    Each path gives a file itself, the ``samples_*.jsonl`` of a folder (a model's folder), else
    those of its subfolders (an ``--output_path`` folder).

    Parameters
    ----------
    paths : sequence of Path
        Samples files, model folders or ``--output_path`` folders.

    Returns
    -------
    list of Path
        The samples files, each once, in the order of ``paths`` (sorted within a folder).

    Raises
    ------
    ValueError
        A folder with no samples file in it or in its subfolders (the message says whether
        lm-eval wrote results without ``--log_samples``).

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> lines = [{"doc_id": q, "filter": "none", "metrics": ["exact_match"],
    ...           "exact_match": float(q % 2), "filtered_resps": ["2"]} for q in range(3)]
    >>> text = "".join(json.dumps(line) + "\n" for line in lines)
    >>> with tempfile.TemporaryDirectory() as out:
    ...     folder = Path(out) / "org__model"  # OUT/<model>/samples_<task>_<time>.jsonl
    ...     folder.mkdir()
    ...     _ = (folder / "samples_arith_2025-01-02T10-00-00.000001.jsonl").write_text(text)
    ...     found = lm_eval_files([Path(out)])
    >>> [f.name for f in found]
    ['samples_arith_2025-01-02T10-00-00.000001.jsonl']
    """
    files: list[Path] = []
    for p in map(Path, paths):
        if not p.is_dir():
            files.append(p)
            continue
        found = sorted(p.glob("samples_*.jsonl")) or sorted(p.glob("*/samples_*.jsonl"))
        if not found:
            aggregated = any(p.glob("results_*.json")) or any(p.glob("*/results_*.json"))
            why = (
                "lm-eval's results_*.json hold aggregates only: rerun lm_eval with "
                "--log_samples to write the per-question samples"
                if aggregated
                else "expected an lm-eval --output_path folder (OUT/<model>/samples_<task>_"
                "<time>.jsonl) or a model's folder"
            )
            raise ValueError(
                f"{p}: no samples_<task>_<time>.jsonl file here or in its subfolders; {why}."
            )
        files.extend(found)
    seen: set[Path] = set()
    unique = []
    for f in files:  # a file reached twice (two spellings of a folder) is read once
        r = f.resolve()
        if r not in seen:
            seen.add(r)
            unique.append(f)
    return unique


def _name(f: Path) -> tuple[str, str]:
    """``(task, time)`` of a samples file's name (the whole stem and no time otherwise)."""
    m = _NAME.match(f.name)
    return (m["task"], m["time"]) if m else (f.stem.removeprefix("samples_"), "")


def _results_json(f: Path) -> dict:
    """A results JSON as a dict (a file that is not one is refused, naming it)."""
    try:
        data = json.loads(f.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(
            f"{f}: not a readable lm-eval results JSON ({type(exc).__name__}); expected the "
            "results_<time>.json lm-eval wrote (or remove it to name the model by its folder)."
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{f}: a JSON {type(data).__name__}; expected lm-eval's results object.")
    return data


#: The settings of a run that make it another variant of a model on a task: a 0-shot and a
#: 5-shot run, or runs with other generation settings or model arguments, are never trials of
#: one model (besides the filter and the metric read, which every file reports).
SETTINGS = ("num_fewshot", "generation_kwargs", "model_args", "gen_kwargs")


@lru_cache(maxsize=4096)
def _results_info(path: str, mtime_ns: int, size: int) -> tuple[str, tuple, tuple]:
    """The model name, groups and task settings of a results JSON, read once per file version.

    The result is ``(model_name or "", ((group, (subtask, ...)), ...), ((task, settings), ...))``
    (settings: :data:`SETTINGS` as JSON text). It is read once per version of the file since
    ranking task by task asks again.
    """
    data = _results_json(Path(path))
    name = data.get("model_name")
    groups = data.get("group_subtasks")
    pairs = tuple(
        (str(g), tuple(str(t) for t in subs))
        for g, subs in (groups.items() if isinstance(groups, dict) else ())
        if isinstance(subs, list)
    )
    config = data.get("config")
    config = config if isinstance(config, dict) else {}
    configs = data.get("configs")
    configs = configs if isinstance(configs, dict) else {}
    settings = []
    for t, c in configs.items():
        c = c if isinstance(c, dict) else {}
        one = {k: c.get(k) for k in SETTINGS[:2] if c.get(k) not in (None, {}, [], "")}
        for key in ("model_args", "gen_kwargs"):
            if config.get(key) not in (None, {}, ""):
                one[key] = config.get(key)
        settings.append((str(t), json.dumps(one, sort_keys=True, default=str)))
    return (name.strip() if isinstance(name, str) else ""), pairs, tuple(settings)


class _Folder:
    """What a folder's results JSONs say: each run's model name and the groups' subtasks."""

    def __init__(self, folder: Path) -> None:
        self.models: dict[str, str] = {}  # time -> model_name
        self.subtasks: dict[str, list[str]] = {}
        self.settings: dict[tuple[str, str], str] = {}  # (time, task) -> settings (JSON)
        for f in sorted(folder.glob("*.json")):
            m = re.match(r"^(?!samples_).*_(\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.json$", f.name)
            if m is None:
                continue
            stat = f.stat()
            name, groups, settings = _results_info(str(f), stat.st_mtime_ns, stat.st_size)
            for task, text in settings:
                self.settings[(m[1], task)] = text
            if name:
                self.models[m[1]] = name
            for group, subs in groups:
                known = self.subtasks.setdefault(group, [])
                known += [t for t in subs if t not in known]
        names = set(self.models.values())
        self.default = names.pop() if len(names) == 1 else None

    def model(self, stamp: str) -> str | None:
        return self.models.get(stamp, self.default)


def _ancestors(subtasks: dict[str, list[str]]) -> dict[str, list[str]]:
    """Every task's groups from the innermost out (``group_subtasks``).

    A task in two groups belongs to none of them (it is its own task to rank).
    """
    parents: dict[str, list[str]] = defaultdict(list)
    for group, subs in subtasks.items():
        for t in subs:
            if t != group and group not in parents[t]:
                parents[t].append(group)
    out: dict[str, list[str]] = {}
    for t in list(parents):
        chain, seen, cur = [], {t}, t
        while len(parents.get(cur, [])) == 1 and parents[cur][0] not in seen:
            cur = parents[cur][0]
            chain.append(cur)
            seen.add(cur)
        out[t] = chain
    return out


def _catalog(
    files: Sequence[Path],
) -> tuple[list[tuple[str | None, str, str, Path, str | None]], dict[str, list[str]]]:
    """Every samples file with its model, task, time and settings, and every task's groups.

    ``(model from the results JSON or None, task, time, file, settings)`` of every samples file
    (settings: its run's :data:`SETTINGS` for its task, JSON text; None without its run's
    results JSON), and the groups of every task (:func:`_ancestors`), from the folders' results
    JSONs.
    """
    folders: dict[Path, _Folder] = {}
    out = []
    for f in files:
        info = folders.get(f.parent)
        if info is None:
            info = folders[f.parent] = _Folder(f.parent)
        task, stamp = _name(f)
        out.append((info.model(stamp), task, stamp, f, info.settings.get((stamp, task))))
    subtasks: dict[str, list[str]] = {}
    for info in folders.values():
        for g, subs in info.subtasks.items():
            known = subtasks.setdefault(g, [])
            known += [t for t in subs if t not in known]
    return out, _ancestors(subtasks)


def _unit(task: str, groups: dict[str, list[str]]) -> str:
    """The task to rank that ``task`` belongs to: its outermost group, else itself."""
    chain = groups.get(task, [])
    return chain[-1] if chain else task


def lm_eval_tasks(paths: Sequence[Path]) -> list[str]:
    r"""The tasks to rank under ``paths``, sorted.

    They are the outermost groups lm-eval ran (their subtasks pooled) and the tasks outside any
    group. Reads the file names and the results JSONs only.

    Parameters
    ----------
    paths : sequence of Path
        Samples files, model folders or ``--output_path`` folders.

    Returns
    -------
    list of str
        The task names, each a valid ``task=`` of :func:`read_lm_eval`.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> lines = [{"doc_id": q, "filter": "none", "metrics": ["exact_match"],
    ...           "exact_match": float(q % 2), "filtered_resps": ["2"]} for q in range(3)]
    >>> text = "".join(json.dumps(line) + "\n" for line in lines)
    >>> with tempfile.TemporaryDirectory() as out:
    ...     folder = Path(out) / "org__model"  # OUT/<model>/samples_<task>_<time>.jsonl
    ...     folder.mkdir()
    ...     _ = (folder / "samples_arith_2025-01-02T10-00-00.000001.jsonl").write_text(text)
    ...     tasks = lm_eval_tasks([Path(out)])
    >>> tasks
    ['arith']
    """
    catalog, groups = _catalog(lm_eval_files(paths))
    return sorted({_unit(c[1], groups) for c in catalog})


def read_lm_eval(
    paths: Sequence[Path],
    *,
    model: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
    task: str | None = None,
    cluster: str | None = None,
    **options: Any,
) -> EvalLog:
    r"""Read lm-eval output (see the module docstring).

    Parameters
    ----------
    paths : sequence of Path
        Samples files, model folders or ``--output_path`` folders.
    model : str, optional
        The model's name, for a log of one model.
    metric, filter : str, optional
        The 0/1 metric and the filter read (default: the record's first metric, the file's
        first filter).
    task : str, optional
        Read this task only: a task of :func:`lm_eval_tasks`, a subtask or a group.
    cluster : str, optional
        ``"task"`` (each question's subtask) or ``"doc.FIELD"`` (a field of the document)
        gives each question its cluster (``meta["clusters"]``).
    **options
        The reader options of the other formats: refused unless ``None``.

    Returns
    -------
    EvalLog
        One row per attempt, of format ``"lm-eval"``; ``meta`` names the metric and filter
        read (and the clusters).

    Raises
    ------
    ValueError
        No samples file, an unknown task, ``model=`` for several models, a ``cluster``
        other than ``"task"`` or ``"doc.FIELD"``, a document without that field or a question
        in two clusters, unreadable files or records (naming the file and line).

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> lines = [{"doc_id": q, "filter": "none", "metrics": ["exact_match"],
    ...           "exact_match": float(q % 2), "filtered_resps": ["2"]} for q in range(3)]
    >>> text = "".join(json.dumps(line) + "\n" for line in lines)
    >>> with tempfile.TemporaryDirectory() as out:
    ...     folder = Path(out) / "org__model"  # OUT/<model>/samples_<task>_<time>.jsonl
    ...     folder.mkdir()
    ...     _ = (folder / "samples_arith_2025-01-02T10-00-00.000001.jsonl").write_text(text)
    ...     log = read_lm_eval([Path(out)])
    >>> log.table["model"][0], log.table["task"][0], log.meta
    ('org__model', 'arith', {'metric': 'exact_match', 'filter': 'none'})
    >>> log.results().values.tolist()
    [[[0.0], [1.0], [0.0]]]
    """
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the lm-eval reader does not take {sorted(options)}.")
    field = _cluster_field(cluster)
    keyed = _chosen_files(paths, task, model)
    runs = [  # parse and validate, file by file
        _Run(name, file_task, settings, *_read_file(f, filter, metric, field))
        for name, file_task, _, f, settings in keyed
    ]
    _same_scoring(runs)
    rows, wheres, labels = _assemble(runs, _variants(runs))
    meta = {
        "metric": ", ".join(sorted({m for run in runs for m in run.metrics})),
        "filter": ", ".join(sorted({run.filter for run in runs})),
    }
    if task is not None:
        meta["task"] = task
    log = make_log(
        pd.DataFrame(rows),
        fmt="lm-eval",
        sources=[str(k[3]) for k in keyed],
        meta=meta,
        locate=wheres.__getitem__,
    )
    if cluster is None:
        return log
    per_row = log.table["task"].astype(str).to_numpy() if field is None else labels
    codes, names = pd.factorize(np.asarray(per_row, dtype=object), sort=True)
    return _with_clusters(log, cluster, codes, np.asarray(names, dtype=object))


def _cluster_field(cluster: str | None) -> str | None:
    """The document field of ``cluster="doc.FIELD"`` (None for ``"task"`` or no cluster)."""
    field = cluster.removeprefix("doc.") if cluster and cluster.startswith("doc.") else None
    if cluster is not None and cluster != "task" and not field:
        raise ValueError(
            f"cluster is {cluster!r}; lm-eval output groups questions by their subtask "
            "('task') or by a field of their document ('doc.FIELD', e.g. doc.category): "
            "expected one of those."
        )
    return field


def _chosen_files(
    paths: Sequence[Path], task: str | None, model: str | None
) -> list[tuple[str, str, str, Path, str | None]]:
    """``(model, task, time, file, settings)`` of the samples files to read, sorted.

    The files of ``task`` only (a task, subtask or group) when it is given; ``model`` names
    the model of a log of one model.
    """
    catalog, groups = _catalog(lm_eval_files(paths))
    if task is not None:
        chosen = [c for c in catalog if task == c[1] or task in groups.get(c[1], [])]
        if not chosen:
            known = sorted({_unit(c[1], groups) for c in catalog})
            raise ValueError(
                f"no task {task!r} in {', '.join(map(str, paths))}; expected one of {known} "
                "(or a subtask of a group)."
            )
        catalog = chosen
    keyed: list[tuple[str, str, str, Path, str | None]] = [
        (named or f.parent.name or "model", t, stamp, f, settings)
        for named, t, stamp, f, settings in catalog
    ]
    if model is not None:
        found = sorted({k[0] for k in keyed})
        if len(found) > 1:
            raise ValueError(
                f"model= / --model names the model of a log of one model; this one holds "
                f"{len(found)}: {found[:6]}."
            )
        keyed = [(model, *k[1:]) for k in keyed]
    keyed.sort(key=lambda t: (t[0], t[1], t[2], str(t[3])))
    return keyed


@dataclass(frozen=True)
class _Record:
    """One checked sample line: its document, the metric's values and the other signals."""

    where: str
    question: str
    metric: str
    values: list[float | None]  # 0/1 per attempt, None for a failed one
    signals: dict[str, float]
    has_box: float
    label: str | None  # the document field clustered on (cluster="doc.FIELD")


class _Run(NamedTuple):
    """One samples file read: its model, task, settings, records, filter and metrics."""

    name: str
    task: str
    settings: str | None
    records: list[_Record]
    filter: str
    metrics: set[str]


def _read_file(
    f: Path, filter: str | None, metric: str | None, field: str | None
) -> tuple[list[_Record], str, set[str]]:
    """Parse and validate a samples file: its records under one filter, the filter, metrics.

    The filter is ``filter``, else the first line's.
    """
    file_filter, seen = filter, set()
    records = []
    for lineno, line in _lines(f):
        if not line.strip():
            continue
        where = f"{f}: line {lineno}"
        rec = _parse_line(line, where)
        rec_filter = str(rec.get("filter", "none"))
        seen.add(rec_filter)
        if file_filter is None:
            file_filter = rec_filter
        if rec_filter != file_filter:
            continue
        records.append(_check_record(rec, where, metric, field))
    if not records:
        if file_filter is not None and seen:
            raise ValueError(
                f"{f}: no record with filter {file_filter!r}; this file's filters: "
                f"{sorted(seen)} (a filter of one task: rank that task alone, task= / "
                "--task)."
            )
        raise ValueError(f"{f}: no sample records; expected lm-eval's --log_samples lines.")
    assert file_filter is not None  # set by the first record kept
    met_seen = {r.metric for r in records}
    if len(met_seen) > 1:
        raise ValueError(
            f"{f}: its records score by different first metrics ({sorted(met_seen)}), which "
            "are not one score; name one with metric=... / --metric."
        )
    return records, file_filter, met_seen


def _parse_line(line: str, where: str) -> dict[str, Any]:
    """Parse: a samples line as a JSON object with a ``doc_id`` (a string or an integer)."""
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not valid JSON ({exc.msg}).") from exc
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply to read.") from None
    if not isinstance(rec, dict) or "doc_id" not in rec:
        raise ValueError(f"{where}: record has no 'doc_id'.")
    doc_id = rec["doc_id"]
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
        raise ValueError(f"{where}: doc_id is {doc_id!r:.40}; expected a string or an integer.")
    return rec


def _check_record(
    rec: dict[str, Any], where: str, metric: str | None, field: str | None
) -> _Record:
    """Validate: a record's metric (``metric``, else its first listed) and its other fields."""
    names = rec.get("metrics")
    names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    met = metric or (names[0] if names else None)
    if met is None:
        raise ValueError(
            f"{where}: the record lists no metric ('metrics' is "
            f"{shown(rec.get('metrics'))}); name the score's key with metric=... / "
            "--metric."
        )
    if met not in rec:
        raise ValueError(
            f"{where}: no metric {met!r} in the record (metrics listed: {names}); "
            "choose one with metric=... / --metric."
        )
    values = rec[met] if isinstance(rec[met], list) else [rec[met]]
    if not values:
        raise ValueError(
            f"{where}: metric {met!r} holds an empty list; expected a score per "
            "attempt (a number, or a list of them for repeated attempts)."
        )
    signals = {
        k: float(rec[k])
        for k in names
        if k != met and k not in RESERVED and isinstance(rec.get(k), (int, float, bool))
    }
    has_box = float("\\boxed{" in _text(rec.get("filtered_resps", rec.get("resps"))))
    label = None if field is None else _doc_field(rec, field, where)
    checked = [None if v is None else _binary(v, where, met) for v in values]
    return _Record(where, str(rec["doc_id"]), met, checked, signals, has_box, label)


def _assemble(
    runs: list[_Run], run_labels: list[str]
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Assemble: one row per attempt, its line, and its cluster label (``doc.FIELD``).

    A model's attempts at a question are its trials, in the order of its files and lines.
    """
    next_trial: dict[tuple[str, str, str], int] = defaultdict(int)
    rows: list[dict[str, Any]] = []
    wheres: list[str] = []
    labels: list[str] = []
    for label, run in zip(run_labels, runs, strict=True):
        for rec in run.records:
            if rec.label is not None:
                labels.extend([rec.label] * len(rec.values))
            for v in rec.values:
                row: dict[str, Any] = {
                    "task": run.task,
                    "question": rec.question,
                    **rec.signals,
                    "has_box": rec.has_box,
                }
                if v is None:
                    row.update(status="error", score=np.nan, is_correct=np.nan)
                else:
                    row.update(status="ok", score=int(v), is_correct=v)
                key = (label, run.task, rec.question)
                row["model"] = label
                row["trial"] = next_trial[key]
                next_trial[key] += 1
                rows.append(row)
                wheres.append(rec.where)
    return rows, wheres, labels


def _same_scoring(runs: list[_Run]) -> None:
    """Refuse a task whose models were scored under different filters or metrics.

    Their scores are not one quantity (name one with ``--filter`` / ``--metric``).
    """
    by_task: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
    for run in runs:
        by_task[run.task].setdefault(f"{run.name}", (run.filter, ", ".join(sorted(run.metrics))))
    for task, per_model in by_task.items():
        for what, pos, option in (("filters", 0, "--filter"), ("metrics", 1, "--metric")):
            values = {v[pos] for v in per_model.values()}
            if len(values) > 1:
                shown_ = "; ".join(f"{m}: {v[pos]}" for m, v in sorted(per_model.items())[:4])
                raise ValueError(
                    f"task {task!r}: the models were scored under different {what} ({shown_}"
                    f"{'; ...' if len(per_model) > 4 else ''}), which are not one score; name "
                    f"one with {option} (= {sorted(values)[0]!r}, ...)."
                )


def _variants(runs: list[_Run]) -> list[str]:
    """Each run's model label: its model, or ``model [setting=value, ...]`` for a variant.

    Runs of one model on one task that differ in their settings (:data:`SETTINGS`) are
    variants of the model, not trials of it.
    """
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, run in enumerate(runs):
        groups[(run[0], run[1])].append(i)
    labels = [run[0] for run in runs]
    for members in groups.values():
        known = {i: s for i in members if (s := runs[i].settings) is not None}  # results JSON
        if len(set(known.values())) < 2:
            continue  # one setting (runs without results JSON join it): repeated runs
        settings = {i: json.loads(text) for i, text in known.items()}
        fields = sorted({k for one in settings.values() for k in one})
        differ = [
            k for k in fields if len({json.dumps(one.get(k)) for one in settings.values()}) > 1
        ]
        for i in members:
            if i in settings:
                text = ", ".join(f"{k}={json.dumps(settings[i].get(k))}" for k in differ)
            else:
                text = "settings unknown: no results JSON"
            labels[i] = f"{runs[i][0]} [{text}]"
    return labels


def _doc_field(rec: dict, field: str, where: str) -> str:
    """The text of ``rec["doc"][field]`` (a number or text), naming the line without it."""
    doc = rec.get("doc")
    value = doc.get(field) if isinstance(doc, dict) else None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) or value == "":
        fields = sorted(doc)[:12] if isinstance(doc, dict) else []
        raise ValueError(
            f"{where}: the document has no field {field!r} to cluster on (or it is not a "
            f"label: {value!r:.40}); its fields: {fields}."
        )
    return str(value)
