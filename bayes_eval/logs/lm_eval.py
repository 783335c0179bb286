"""lm-evaluation-harness ``--log_samples`` output (``samples_<task>_<time>.jsonl``).

Each line is one document under one filter: ``doc_id``, ``doc``, ``target``, ``resps``,
``filtered_resps``, ``filter``, ``metrics`` (the metric names) and one field per metric with
its value. lm-eval writes these files to ``<output_path>/<model_name>/``.

Mapping:

* the model is ``model=`` or the name of the directory holding the file; the task comes from
  the file name ``samples_<task>_<timestamp>.jsonl``;
* the metric (``metric=``, default the first name in ``metrics``) gives the category: it
  must be 0/1 (or ``true``/``false``) per attempt, e.g. ``exact_match`` or ``acc``; other
  numeric metric fields become signals, and ``is_correct`` is the chosen metric;
* one filter is read (``filter=``, default the first filter in the file, e.g. ``none`` or
  ``strict-match``); the filter chosen is reported;
* **trials**: several files for the same model and task (repeated runs, ordered by their
  timestamps), repeated lines for the same ``doc_id`` within a file, and list-valued metric
  fields (one value per repeat) all become successive trials;
* ``has_box`` is 1 when the filtered response contains ``\\boxed{``;
* a line with ``null`` metric value is a failed trial. A line that is not JSON or lacks a
  field is an error naming the file and the line number.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from bayes_eval.logs.eval_log import BASE_COLUMNS, EvalLog, make_log

__all__ = ["read_lm_eval"]

_NAME = re.compile(r"^samples_(?P<task>.+?)_(?P<time>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl$")


#: Columns a metric's name must not overwrite (such a metric is not kept as a signal).
RESERVED = frozenset({*BASE_COLUMNS, "is_correct", "has_box"})


def _lines(f: Path):
    """``(line number, text)`` of a JSONL file; bytes that are not UTF-8 are refused."""
    try:
        with f.open(encoding="utf-8") as fh:
            yield from enumerate(fh, start=1)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{f}: not UTF-8 text (byte {exc.object[exc.start]:#04x}); expected a JSONL file."
        ) from None


def _text(resp) -> str:
    while isinstance(resp, list) and resp:
        resp = resp[0]
    return resp if isinstance(resp, str) else ""


def _binary(value, where: str, metric: str) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and float(value) in (0.0, 1.0):
        return float(value)
    raise ValueError(
        f"{where}: metric {metric!r} is {value!r}; expected 0/1 per attempt to use it as the "
        "category (choose another with metric=... or rank a schema over the signal)."
    )


def read_lm_eval(
    paths: Sequence[Path],
    *,
    model: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
    **options,
) -> EvalLog:
    """Read lm-eval sample logs (see the module docstring)."""
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the lm-eval reader does not take {sorted(options)}.")
    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.glob("samples_*.jsonl")) if p.is_dir() else [p])
    keyed = []
    for f in files:
        m = _NAME.match(f.name)
        task = m["task"] if m else f.stem.removeprefix("samples_")
        stamp = m["time"] if m else ""
        keyed.append((model or f.parent.name or "model", task, stamp, f))
    keyed.sort(key=lambda t: (t[0], t[1], t[2], str(t[3])))
    next_trial: dict[tuple[str, str, str], int] = defaultdict(int)
    rows, wheres, chosen_metric, chosen_filter = [], [], set(), set()
    for name, task, _, f in keyed:
        file_filter = filter
        for lineno, line in _lines(f):
            if not line.strip():
                continue
            where = f"{f}: line {lineno}"
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
                raise ValueError(
                    f"{where}: doc_id is {doc_id!r:.40}; expected a string or an integer."
                )
            rec_filter = str(rec.get("filter", "none"))
            if file_filter is None:
                file_filter = rec_filter
            if rec_filter != file_filter:
                continue
            names = rec.get("metrics")
            names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
            met = metric or (names[0] if names else None)
            if met is None or met not in rec:
                raise ValueError(
                    f"{where}: no metric {met!r} in the record (metrics listed: {names}); "
                    "choose one with metric=... / --metric."
                )
            chosen_metric.add(met)
            chosen_filter.add(file_filter)
            values = rec[met] if isinstance(rec[met], list) else [rec[met]]
            signals = {
                k: float(rec[k])
                for k in names
                if k != met and k not in RESERVED and isinstance(rec.get(k), (int, float, bool))
            }
            has_box = float("\\boxed{" in _text(rec.get("filtered_resps", rec.get("resps"))))
            for v in values:
                key = (name, task, str(rec["doc_id"]))
                row = {
                    "model": name,
                    "task": task,
                    "question": str(rec["doc_id"]),
                    "trial": next_trial[key],
                    **signals,
                    "has_box": has_box,
                }
                next_trial[key] += 1
                if v is None:
                    row.update(status="error", score=np.nan, is_correct=np.nan)
                else:
                    b = _binary(v, where, met)
                    row.update(status="ok", score=int(b), is_correct=b)
                rows.append(row)
                wheres.append(where)
        if file_filter is not None and not any(r["model"] == name for r in rows):
            raise ValueError(f"{f}: no record with filter {file_filter!r}.")
    meta = {"metric": ", ".join(sorted(chosen_metric)), "filter": ", ".join(sorted(chosen_filter))}
    return make_log(
        pd.DataFrame(rows),
        fmt="lm-eval",
        sources=[str(f) for f in files],
        meta=meta,
        locate=wheres.__getitem__,
    )
