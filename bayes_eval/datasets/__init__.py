"""Real evaluation data shipped with bayes_eval, in compact derived form.

Like ArviZ's ``load_arviz_data``: :func:`list_datasets` names what is here,
:func:`load` returns an :class:`xarray.Dataset`. Trial datasets have a ``results``
variable with dims ``(model, question, trial)`` (categories 0..C as floats, NaN = no
attempt) and, where the source has them, per-attempt signals on the same grid; judge
datasets keep their natural dims (``candidate``, ``judge``, ``score``, ``question``,
``aspect``); the bandit metadata has ``arm`` and ``subject``. Every dataset's ``attrs``
hold ``description``, ``source``, ``licence`` and ``citation``; the files and a longer
``SOURCE.md`` (with the upstream ``LICENSE`` where there is one) sit in
``bayes_eval/datasets/data/<name>/`` (:func:`files`).

Command line: ``bayes-eval datasets`` lists them, and every command that reads results
accepts ``dataset:NAME`` in place of a file, e.g. ``bayes-eval rank dataset:matharena_aime25_i``.

Examples
--------
>>> import bayes_eval as be
>>> from bayes_eval import datasets
>>> ds = datasets.load("phi4_aime25")
>>> R = ds["results"].isel(model=0).values.astype(int)
>>> [round(x, 3) for x in be.bayes_ci(R, prior="uniform")]  # as the authors published
[0.598, 0.007, 0.584, 0.613]
"""

from __future__ import annotations

from bayes_eval.datasets.registry import (
    DATASETS,
    DatasetInfo,
    files,
    list_datasets,
    load,
    table_path,
)

__all__ = ["DATASETS", "DatasetInfo", "files", "list_datasets", "load", "table_path"]
