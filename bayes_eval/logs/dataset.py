"""Shipped datasets (``dataset:NAME``) as evaluation logs.

A trial dataset of :mod:`bayes_eval.datasets` becomes one attempt per non-missing cell of
its ``results``; every other numeric ``(model, question, trial)`` variable becomes a signal.
Datasets shipped as a log file (the Inspect log) are read by their format's reader, so the
result is the same as reading the file itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayes_eval.logs.eval_log import EvalLog, make_log

__all__ = ["PREFIX", "dataset_name", "read_dataset"]

PREFIX = "dataset:"
RESULT_DIMS = ("model", "question", "trial")


def dataset_name(path: object) -> str | None:
    """``NAME`` if ``path`` is written ``dataset:NAME``, else ``None``."""
    text = str(path)
    return text[len(PREFIX) :] if text.startswith(PREFIX) else None


def read_dataset(name: str, *, model: str | None = None, **options) -> EvalLog:
    """Read a shipped dataset by name (the ``dataset:`` prefix optional)."""
    from bayes_eval import datasets

    name = dataset_name(name) or str(name)
    info = datasets.DATASETS.get(name)
    if info is not None and info.log_file:  # shipped as a log: read it as the file itself
        from bayes_eval.logs import read_eval_log

        log = read_eval_log(datasets.files(name, info.log_file), model=model, **options)
        return EvalLog(log.table, log.signals, (PREFIX + name,), log.format, log.meta)
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"shipped datasets do not take the reader options {sorted(options)}.")
    ds = datasets.load(name)
    if "results" not in ds or ds["results"].dims != RESULT_DIMS:
        raise ValueError(
            f"dataset {name!r} holds {sorted(ds.data_vars)}, not trial results "
            f"(model, question, trial); load it with bayes_eval.datasets.load({name!r})."
        )
    return make_log(_long_table(ds, model), fmt="dataset", sources=[PREFIX + name])


def _long_table(ds, model: str | None) -> pd.DataFrame:
    R = ds["results"].values
    m, q, t = np.nonzero(~np.isnan(R))
    questions = ds["question"].values.astype(str)
    if "task" in ds.coords:  # multi-task datasets name questions TASK/ID
        tasks = ds["task"].values.astype(str)
        bare = np.array([s.split("/", 1)[1] if "/" in s else s for s in questions])
    else:
        tasks = np.full(len(questions), str(ds.attrs.get("task", "")))
        bare = questions
    models = ds["model"].values.astype(str)
    if model is not None:
        if len(models) != 1:
            raise ValueError(f"--model renames a single model; the dataset has {len(models)}.")
        models = np.array([model])
    table = {
        "model": models[m],
        "task": tasks[q],
        "question": bare[q],
        "trial": ds["trial"].values[t],
        "score": R[m, q, t].astype(int),
        "status": "ok",
    }
    for name, var in ds.data_vars.items():
        if name != "results" and var.dims == RESULT_DIMS and np.issubdtype(var.dtype, np.number):
            table[name] = var.values[m, q, t]
    return pd.DataFrame(table)
