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
from typing import Any

import numpy as np
import pandas as pd

from bayes_eval.logs.eval_log import EvalLog, make_log

__all__ = ["read_cruxeval", "read_taubench"]


def _load(path: Path) -> Any:
    """The JSON value of a file (a file that is not JSON is refused, naming it)."""
    try:
        return json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not valid JSON ({exc}).") from exc
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply to read.") from None


def _check_options(options: dict[str, Any], fmt: str) -> None:
    """Refuse the options of other readers (those not None)."""
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the {fmt} reader does not take {sorted(options)}.")


def read_cruxeval(paths: Sequence[Path], *, model: str | None = None, **options: Any) -> EvalLog:
    """Read CRUXEval scored-sample files.

    Parameters
    ----------
    paths : sequence of Path
        ``sample_scored_<model>_temp<T>_<input|output>.json`` files (module docstring).
    model : str, optional
        The model's name; default ``<model>_temp<T>`` from the file name.
    **options
        The reader options of the other formats: refused unless ``None``.

    Returns
    -------
    EvalLog
        One row per problem and sample, of format ``"cruxeval"``; a ``null`` score is a
        failed trial.

    Raises
    ------
    ValueError
        For a file without ``raw_scored_generations``, a score that is not 0/1, or an
        option of another reader.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.logs.trials_json import read_cruxeval
    >>> scores = {"sample_0": [True, False, True], "sample_1": [False, False, None]}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "sample_scored_codellama-7b_temp0.2_output.json"
    ...     _ = path.write_text(json.dumps({"raw_scored_generations": scores}))
    ...     log = read_cruxeval([path])
    >>> log.table["model"][0], log.table["task"][0]
    ('codellama-7b_temp0.2', 'output')
    >>> log.results().values.tolist()
    [[[1.0, 0.0, 1.0], [0.0, 0.0, nan]]]
    """
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
                raise ValueError(
                    f"{p}: problem {qid!r} has {values!r:.40}; expected a list of scores."
                )
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
                if not (isinstance(v, bool) or (isinstance(v, (int, float)) and v in (0, 1))):
                    raise ValueError(
                        f"{p}: problem {qid!r}, sample {t + 1}: score {v!r:.40} is not 0/1; "
                        "expected true/false, 0/1 or null (a failed sample)."
                    )
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


def _turns(traj: object) -> float:
    """The number of turns of a trajectory (a list, or its Python text); NaN otherwise."""
    if isinstance(traj, list):
        return float(len(traj))
    if isinstance(traj, str):
        try:
            value = ast.literal_eval(traj)
            if isinstance(value, (list, tuple)):
                return float(len(value))
        except Exception:  # not a Python literal (or too deep): no turn count
            return np.nan
        return np.nan
    return np.nan


def read_taubench(paths: Sequence[Path], *, model: str | None = None, **options: Any) -> EvalLog:
    """Read tau-bench trajectory files.

    Parameters
    ----------
    paths : sequence of Path
        ``<model>-<domain>.json`` files (module docstring).
    model : str, optional
        The model's name; default ``<model>`` from the file name.
    **options
        The reader options of the other formats: refused unless ``None``.

    Returns
    -------
    EvalLog
        One row per record, of format ``"taubench"``, with the signals ``num_turns`` and
        ``is_correct``; a ``null`` reward is a failed trial.

    Raises
    ------
    ValueError
        For a record without ``task_id``, ``trial`` and ``reward``, a reward that is not
        0/1, or an option of another reader.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.logs.trials_json import read_taubench
    >>> records = [{"task_id": q, "trial": t, "reward": float(q == t), "traj": [{}, {}]}
    ...            for q in range(2) for t in range(2)]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "gpt-4o-airline.json"
    ...     _ = path.write_text(json.dumps(records))
    ...     log = read_taubench([path])
    >>> log.table["model"][0], log.table["task"][0], log.signals
    ('gpt-4o', 'airline', ('num_turns', 'is_correct'))
    >>> log.results().values.tolist()
    [[[1.0, 0.0], [0.0, 1.0]]]
    """
    _check_options(options, "taubench")
    rows, wheres = [], []
    for p in paths:
        data = _load(p)
        if not isinstance(data, list):
            raise ValueError(f"{p}: expected a list of trajectory records.")
        m = re.match(r"(.+)-(airline|retail)\.json$", p.name)
        name = model or (m.group(1) if m else p.stem)
        task = m.group(2) if m else ""
        for i, rec in enumerate(data, start=1):
            where = f"{p}: record {i}"
            if not isinstance(rec, Mapping) or not {"task_id", "trial", "reward"} <= set(rec):
                raise ValueError(f"{where}: expected keys task_id, trial, reward.")
            task_id, trial, reward = rec["task_id"], rec["trial"], rec["reward"]
            if isinstance(trial, float) and trial.is_integer():
                trial = int(trial)
            if isinstance(task_id, bool) or not isinstance(task_id, (str, int)):
                raise ValueError(
                    f"{where}: task_id is {task_id!r:.40}; expected a string or an integer."
                )
            if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
                raise ValueError(f"{where}: trial is {trial!r:.40}; expected an integer >= 0.")
            if reward is not None and (
                isinstance(reward, bool)
                or not isinstance(reward, (int, float))
                or reward not in (0, 1)
            ):
                raise ValueError(
                    f"{where}: reward is {reward!r:.40}; expected 0 or 1 (null: a failed trial)."
                )
            row = {
                "model": name,
                "task": task,
                "question": str(task_id),
                "trial": trial,
                "num_turns": _turns(rec.get("traj")),
            }
            if reward is None:
                row.update(status="error", score=np.nan)
            else:
                row.update(status="ok", score=int(reward), is_correct=float(reward))
            rows.append(row)
            wheres.append(where)
    return make_log(
        pd.DataFrame(rows),
        fmt="taubench",
        sources=[str(p) for p in paths],
        locate=wheres.__getitem__,
    )
