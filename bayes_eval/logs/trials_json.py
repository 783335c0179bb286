"""Per-trial result files published with two benchmarks.

* CRUXEval ``sample_scored_<model>_temp<T>_<input|output>.json``: ``raw_scored_generations``
  maps each problem id to its list of 0/1 (bool) scores, one per sample; samples are trials.
  Model ``<model>_temp<T>`` and task ``input``/``output`` come from the file name.
* tau-bench historical trajectories (``<model>-<domain>.json``): a list of records with
  ``task_id``, ``trial`` and ``reward`` (0/1); the model and the task (domain) come from the
  file name; ``num_turns`` (length of ``traj``) is kept as a signal.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from bayes_eval.logs.eval_log import EvalLog, make_log

__all__ = ["read_cruxeval", "read_taubench"]


def _load(path: Path):
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc}).") from exc


def _check_options(options: dict, fmt: str) -> None:
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the {fmt} reader does not take {sorted(options)}.")


def read_cruxeval(paths: Sequence[Path], *, model: str | None = None, **options) -> EvalLog:
    """Read CRUXEval scored-sample files."""
    _check_options(options, "cruxeval")
    rows = []
    for p in paths:
        data = _load(p)
        scored = data.get("raw_scored_generations") if isinstance(data, Mapping) else None
        if not isinstance(scored, Mapping):
            raise ValueError(f"{p}: no 'raw_scored_generations' mapping.")
        m = re.match(r"sample_scored_(.+)_(input|output)\.json$", p.name)
        name = model or (m.group(1) if m else p.stem)
        task = m.group(2) if m else ""
        for qid, values in scored.items():
            if not isinstance(values, list):
                raise ValueError(f"{p}: problem {qid!r}: expected a list of scores.")
            for t, v in enumerate(values):
                if v is None:
                    rows.append(
                        {
                            "model": name,
                            "task": task,
                            "question": qid,
                            "trial": t,
                            "status": "error",
                            "score": np.nan,
                        }
                    )
                    continue
                if not (isinstance(v, bool) or v in (0, 1)):
                    raise ValueError(f"{p}: problem {qid!r}, sample {t}: score {v!r} is not 0/1.")
                rows.append(
                    {
                        "model": name,
                        "task": task,
                        "question": qid,
                        "trial": t,
                        "status": "ok",
                        "score": int(v),
                        "is_correct": float(v),
                    }
                )
    return make_log(pd.DataFrame(rows), fmt="cruxeval", sources=[str(p) for p in paths])


def _turns(traj) -> float:
    if isinstance(traj, list):
        return float(len(traj))
    if isinstance(traj, str):
        try:
            return float(len(ast.literal_eval(traj)))
        except (ValueError, SyntaxError):
            return np.nan
    return np.nan


def read_taubench(paths: Sequence[Path], *, model: str | None = None, **options) -> EvalLog:
    """Read tau-bench trajectory files."""
    _check_options(options, "taubench")
    rows = []
    for p in paths:
        data = _load(p)
        if not isinstance(data, list):
            raise ValueError(f"{p}: expected a list of trajectory records.")
        m = re.match(r"(.+)-(airline|retail)\.json$", p.name)
        name = model or (m.group(1) if m else p.stem)
        task = m.group(2) if m else ""
        for i, rec in enumerate(data):
            if not isinstance(rec, Mapping) or not {"task_id", "trial", "reward"} <= set(rec):
                raise ValueError(f"{p}: record {i}: expected keys task_id, trial, reward.")
            try:
                reward = float(rec["reward"]) if rec["reward"] is not None else None
            except (TypeError, ValueError):
                raise ValueError(
                    f"{p}: record {i}: reward {rec['reward']!r} is not a number."
                ) from None
            row = {
                "model": name,
                "task": task,
                "question": str(rec["task_id"]),
                "trial": int(rec["trial"]),
                "num_turns": _turns(rec.get("traj")),
            }
            if reward is None:
                row.update(status="error", score=np.nan)
            elif reward not in (0.0, 1.0):
                raise ValueError(f"{p}: record {i}: reward {reward!r} is not 0/1.")
            else:
                row.update(status="ok", score=int(reward), is_correct=reward)
            rows.append(row)
    return make_log(pd.DataFrame(rows), fmt="taubench", sources=[str(p) for p in paths])
