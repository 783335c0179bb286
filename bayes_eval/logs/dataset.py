"""Shipped datasets (``dataset:NAME``) as evaluation logs.

A trial dataset of :mod:`bayes_eval.datasets` becomes one attempt per non-missing cell of
its ``results``; every other numeric ``(model, question, trial)`` variable becomes a signal.
Datasets shipped as a log file (the Inspect log) are read by their format's reader, so the
result is the same as reading the file itself.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayes_eval import datasets
from bayes_eval.logs.eval_log import EvalLog, make_log

__all__ = ["PREFIX", "dataset_name", "read_dataset", "shipped_log_file"]

PREFIX = "dataset:"
RESULT_DIMS = ("model", "question", "trial")


def dataset_name(path: object) -> str | None:
    """``NAME`` if ``path`` is written ``dataset:NAME``, else ``None``.

    Parameters
    ----------
    path : object
        A path or name as the user gave it (compared as text).

    Returns
    -------
    str or None
        The dataset's name, or ``None`` for anything else.

    Examples
    --------
    >>> from bayes_eval.logs.dataset import dataset_name
    >>> dataset_name("dataset:phi4_aime25"), dataset_name("runs.csv")
    ('phi4_aime25', None)
    """
    text = str(path)
    return text[len(PREFIX) :] if text.startswith(PREFIX) else None


def shipped_log_file(name: str) -> Path | None:
    """The log file of a dataset shipped as a log (read by its format's reader), else None.

    Parameters
    ----------
    name : str
        The dataset's name, with or without the ``dataset:`` prefix.

    Returns
    -------
    Path or None
        The shipped log file, or ``None`` for a dataset shipped as arrays (or an unknown
        name).

    Examples
    --------
    >>> from bayes_eval.logs.dataset import shipped_log_file
    >>> shipped_log_file("dataset:inspect_mmlu_log").name
    'mmlu-summary-choices.eval'
    >>> shipped_log_file("phi4_aime25") is None
    True
    """
    name = dataset_name(name) or str(name)
    info = datasets.DATASETS.get(name)
    if info is None or not info.log_file:
        return None
    return Path(datasets.files(name, info.log_file))


def read_dataset(name: str, *, model: str | None = None, **options: Any) -> EvalLog:
    """Read a shipped trial dataset by name (the ``dataset:`` prefix optional) as a log.

    The log has one attempt per non-missing cell of the dataset's ``results``, and its other
    ``(model, question, trial)`` variables as signals.

    Parameters
    ----------
    name : str
        The dataset's name, with or without the ``dataset:`` prefix.
    model : str, optional
        A new name for the dataset's model (for a dataset of one model only).
    **options
        The reader options of the other formats: refused unless ``None``.

    Returns
    -------
    EvalLog
        The log, of format ``"dataset"``, its source ``dataset:NAME``.

    Raises
    ------
    ValueError
        For an unknown dataset, one that is not trial results, a reader option, or
        ``model`` for a dataset of several models.

    Examples
    --------
    >>> from bayes_eval.logs.dataset import read_dataset
    >>> log = read_dataset("dataset:taubench_airline_gpt4o")
    >>> log.format, log.sources, len(log.table)
    ('dataset', ('dataset:taubench_airline_gpt4o',), 200)
    >>> read_dataset("gpt_oss_20b_aime25_q06", model="gpt-oss-20b").signals
    ('verifier_prob',)
    """
    name = dataset_name(name) or str(name)
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"shipped datasets do not take the reader options {sorted(options)}.")
    ds = datasets.load(name)
    if "results" not in ds or ds["results"].dims != RESULT_DIMS:
        raise ValueError(
            f"dataset {name!r} holds {sorted(map(str, ds.data_vars))}, not trial results "
            f"(model, question, trial); load it with bayes_eval.datasets.load({name!r})."
        )
    return make_log(_long_table(ds, model), fmt="dataset", sources=[PREFIX + name])


def _long_table(ds: xr.Dataset, model: str | None) -> pd.DataFrame:
    """One row per non-missing cell of ``results``, with the other variables as signals."""
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
    table: dict[Hashable, object] = {
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
