"""HELM ``per_instance_stats.json`` (one run directory of ``benchmark_output/runs/<suite>``).

The file is a list of records ``{instance_id, train_trial_index, [perturbation], stats}``;
``stats`` is a list of ``{name: {name, split, ...}, count, sum, mean, ...}``. The run's
``run_spec.json`` beside it names the model (``adapter_spec.model``) and the run
(``name``, e.g. ``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt-4o``).

Mapping: ``instance_id`` is the question, ``train_trial_index`` the trial (HELM's repeated
trials with different in-context examples), the metric (``metric=``, default
``exact_match``) gives the 0/1 category and ``is_correct``; every other unperturbed stat
with a ``mean`` becomes a signal (``num_output_tokens`` also gives ``token_ratio``). Records
with a ``perturbation`` (robustness/fairness variants) are skipped: they are different
conditions, not repeated trials. The task is the run name without its ``model=`` argument;
the model is ``model=``, else ``run_spec.json``, else the ``model=`` part of the directory
name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayes_eval.logs.eval_log import BASE_COLUMNS, EvalLog, make_log, positive_int

__all__ = ["read_helm"]

#: Columns a stat's name must not overwrite (such a stat is kept as ``stat_<name>``).
RESERVED = frozenset({*BASE_COLUMNS, "is_correct", "token_ratio"})


def _load(path: Path) -> Any:
    """The JSON value of a file (a file that is not JSON is refused, naming it)."""
    try:
        return json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc}).") from exc
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply to read.") from None


def _run_identity(run_dir: Path, model: str | None) -> tuple[str, str]:
    """``(model, task)`` of a run directory, from ``run_spec.json`` or the directory name."""
    spec_path = run_dir / "run_spec.json"
    name, spec_model = run_dir.name, None
    if spec_path.is_file():
        spec = _load(spec_path)
        if not isinstance(spec, Mapping):
            raise ValueError(
                f"{spec_path}: holds a {type(spec).__name__}; expected a JSON object with "
                "'name' and 'adapter_spec'."
            )
        if isinstance(spec.get("name"), str) and spec["name"]:
            name = spec["name"]
        adapter = spec.get("adapter_spec")
        found = adapter.get("model") if isinstance(adapter, Mapping) else None
        spec_model = found if isinstance(found, str) and found.strip() else None
    m = re.search(r"(?:^|[,:])model=([^,]+)", name)
    task = re.sub(r",?model=[^,]+", "", name).rstrip(":,")
    return model or spec_model or (m.group(1) if m else "model"), task


def read_helm(
    paths: Sequence[Path],
    *,
    model: str | None = None,
    metric: str | None = None,
    max_tokens: int | None = None,
    **options: Any,
) -> EvalLog:
    """Read HELM per-instance stats (see the module docstring).

    Parameters
    ----------
    paths : sequence of Path
        ``per_instance_stats.json`` files, or the run directories holding them.
    model : str, optional
        The model's name; default ``run_spec.json``'s, else the run name's ``model=``.
    metric : str, optional
        The 0/1 stat that gives the category, default ``"exact_match"``.
    max_tokens : int, optional
        The output budget dividing ``num_output_tokens`` into ``token_ratio``, default 32768.
    **options
        The reader options of the other formats: refused unless ``None``.

    Returns
    -------
    EvalLog
        One row per unperturbed record, of format ``"helm"``; ``meta`` names the metric.

    Raises
    ------
    ValueError
        For a missing file, a malformed record, a metric that is not 0/1, no record with the
        metric, or an option of another reader.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.logs.helm import read_helm
    >>> stat = lambda name, mean: {"name": {"name": name}, "count": 1, "mean": mean}
    >>> records = [{"instance_id": f"id{q}", "train_trial_index": t,
    ...             "stats": [stat("exact_match", float(q == t)), stat("num_output_tokens", 8)]}
    ...            for q in range(2) for t in range(2)]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run = Path(folder) / "mmlu:subject=anatomy,model=openai_gpt-4o"
    ...     run.mkdir()
    ...     _ = (run / "per_instance_stats.json").write_text(json.dumps(records))
    ...     log = read_helm([run], max_tokens=64)
    >>> log.table["model"][0], log.table["task"][0], log.signals
    ('openai_gpt-4o', 'mmlu:subject=anatomy', ('is_correct', 'num_output_tokens', 'token_ratio'))
    >>> log.results().values.tolist()
    [[[1.0, 0.0], [0.0, 1.0]]]
    """
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the helm reader does not take {sorted(options)}.")
    metric = metric or "exact_match"
    max_tokens = positive_int("max_tokens", 32768 if max_tokens is None else max_tokens)
    files = [p / "per_instance_stats.json" if p.is_dir() else p for p in paths]
    runs: list[tuple[str, str, list[_Record]]] = []  # per file: model, task, records
    for f in files:  # each file parsed, then its records validated, in order
        raw, name, task = _parse_file(f, model)
        runs.append((name, task, _validate_records(f, raw, metric)))
    rows = [_row(rec, name, task, metric, max_tokens) for name, task, recs in runs for rec in recs]
    df = pd.DataFrame(rows)
    if len(df) and (df["status"] == "error").all():
        raise ValueError(f"{', '.join(map(str, files))}: no record has the metric {metric!r}.")
    wheres = [rec.where for _, _, recs in runs for rec in recs]
    return make_log(
        df,
        fmt="helm",
        sources=[str(f) for f in files],
        meta={"metric": metric},
        locate=wheres.__getitem__,
    )


@dataclass(frozen=True)
class _Record:
    """One unperturbed per-instance record, checked: its question, trial and stat means."""

    where: str
    question: str
    trial: int
    stats: dict[str, float]


def _parse_file(f: Path, model: str | None) -> tuple[list[Any], str, str]:
    """Parse: the records of a ``per_instance_stats.json`` and its run's ``(model, task)``."""
    if not f.is_file():
        raise ValueError(f"{f}: no such file.")
    records = _load(f)
    if not isinstance(records, list):
        raise ValueError(f"{f}: expected a list of per-instance records.")
    name, task = _run_identity(f.parent, model)
    return records, name, task


def _validate_records(f: Path, records: list[Any], metric: str) -> list[_Record]:
    """Validate: every unperturbed record of a file, checked (perturbed ones are skipped)."""
    out = []
    for i, rec in enumerate(records, start=1):
        where = f"{f}: record {i}"
        if not isinstance(rec, Mapping) or "instance_id" not in rec or "stats" not in rec:
            raise ValueError(f"{where}: expected keys 'instance_id' and 'stats'.")
        if rec.get("perturbation"):
            continue
        iid, trial = rec["instance_id"], rec.get("train_trial_index", 0)
        if isinstance(iid, bool) or not isinstance(iid, (str, int)):
            raise ValueError(
                f"{where}: instance_id is {iid!r:.40}; expected a string or an integer."
            )
        if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
            raise ValueError(
                f"{where}: train_trial_index is {trial!r:.40}; expected an integer >= 0."
            )
        stats = _stats(rec["stats"], where)
        v = stats.get(metric)
        if v is not None and v not in (0.0, 1.0):
            raise ValueError(
                f"{where}: metric {metric!r} is {v!r}; expected 0/1 per attempt to use "
                "it as the category (choose another with metric=...)."
            )
        out.append(_Record(where, str(iid), trial, stats))
    return out


def _stats(stats: object, where: str) -> dict[str, float]:
    """The mean of every unperturbed stat with a count, by name (malformed stats refused)."""
    if not isinstance(stats, list):
        raise ValueError(f"{where}: 'stats' is {stats!r:.40}; expected a list.")
    out = {}
    for st in stats:
        sname = st.get("name") if isinstance(st, Mapping) else None
        if not isinstance(sname, Mapping) or "name" not in sname:
            raise ValueError(f"{where}: a stat has no name.")
        if sname.get("perturbation"):
            continue
        mean = st.get("mean")
        if mean is not None and (isinstance(mean, bool) or not isinstance(mean, (int, float))):
            raise ValueError(
                f"{where}: stat {sname['name']!r:.40} has mean {mean!r:.40}; expected a number."
            )
        if st.get("count", 1) and mean is not None:
            out[str(sname["name"])] = float(mean)
    return out


def _row(rec: _Record, model: str, task: str, metric: str, max_tokens: int) -> dict[str, Any]:
    """Assemble: a record's row (category from the metric, the other stats as signals)."""
    row: dict[str, Any] = {
        "model": model,
        "task": task,
        "question": rec.question,
        "trial": rec.trial,
    }
    if metric not in rec.stats:
        row.update(status="error", score=np.nan)
    else:
        v = rec.stats[metric]
        row.update(status="ok", score=int(v), is_correct=v)
    for k, v in rec.stats.items():
        if k != metric:
            row[k if k not in RESERVED else f"stat_{k}"] = v
    if "num_output_tokens" in rec.stats:
        row["token_ratio"] = rec.stats["num_output_tokens"] / max_tokens
    return row
