"""Rankings under several rubric schemata side by side.

After Hariri et al., "Don't Pass@k", App. F.1, Figure 7.

:func:`compare_schemata` scores the same attempts under each schema (thresholds pooled over
all models, once per schema), and returns one Dataset over ``(schema, model)`` with Bayes@N
``mu``, ``sigma``, the competition rank and the CI-aware rank (§2.7.1). Schemata whose
signals the data lack are skipped and listed in ``attrs["skipped"]`` with the reason.
:func:`plot_schema_ranks` draws Figure 7's bump chart (rank per model across schemata).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Prior, PriorSpec
from bayes_eval.rubrics.catalog import SCHEMATA, get_schema
from bayes_eval.rubrics.categories import categorize
from bayes_eval.rubrics.spec import Schema

__all__ = ["compare_schemata", "plot_schema_ranks"]


def compare_schemata(
    signals: xr.Dataset,
    schemata: Sequence[str | Schema] | None = None,
    *,
    present: np.ndarray | None = None,
    confidence: float = 0.95,
    prior: PriorSpec | Prior = DEFAULT_PRIOR,
) -> xr.Dataset:
    """Bayes@N and ranks of every model under each schema.

    Parameters
    ----------
    signals : xarray.Dataset
        Signals over ``(model, question, trial)`` (e.g.
        :meth:`bayes_eval.logs.eval_log.EvalLog.signal_dataset`).
    schemata : sequence, optional
        Schema keys, names or :class:`Schema` objects; default all twelve of Table 5.
    present : array of bool, optional
        Which attempts exist (default: where some required signal is not NaN).
    confidence : float
        Credibility level of the CI-aware rank (``z`` threshold ``Phi^{-1}(confidence)``).
    prior : str
        Per-question prior (see :func:`bayes_eval.bayes`); default the learned one, as
        :func:`bayes_eval.ranking.leaderboard.rank_table`; ``"uniform"`` is the paper's.

    Returns
    -------
    xarray.Dataset
        ``mu``, ``sigma``, ``rank``, ``rank_ci`` over ``(schema, model)``; thresholds per schema
        in ``attrs["thresholds"]`` (JSON-able), skipped schemata in ``attrs["skipped"]``.

    Examples
    --------
    Three models with correctness and boxing signals; Conf-Wrong Penalty needs
    ``completion_bpt`` and is skipped:

    >>> import numpy as np
    >>> import xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> dims = ("model", "question", "trial")
    >>> signals = xr.Dataset(
    ...     {
    ...         "is_correct": (dims, rng.integers(0, 2, (3, 8, 4))),
    ...         "has_box": (dims, rng.integers(0, 2, (3, 8, 4))),
    ...     },
    ...     coords={"model": ["a", "b", "c"]},
    ... )
    >>> table = compare_schemata(
    ...     signals, ["exact_match", "format_aware", "conf_wrong_penalty"], prior="uniform"
    ... )
    >>> dict(table.sizes), table["rank"].values.tolist()
    ({'schema': 2, 'model': 3}, [[1, 3, 2], [1, 3, 2]])
    >>> table.attrs["skipped"]
    "['Conf-Wrong Penalty']"
    """
    from bayes_eval.ranking.leaderboard import rank_table

    chosen = [get_schema(s) for s in (schemata or list(SCHEMATA))]
    if not chosen:
        raise ValueError("schemata is empty; expected at least one schema.")
    rows, names, skipped, thresholds = [], [], {}, {}
    for schema in chosen:
        try:
            cats = categorize(signals, schema, present=present)
        except ValueError as exc:
            if "needs the signal" in str(exc):
                skipped[schema.name] = str(exc)
                continue
            raise
        # the intervals are not kept: the normal one costs nothing (the exact law of a learned
        # prior near an end of the support, which "auto" would compute, takes seconds)
        table = rank_table(
            cast(xr.DataArray, cats.R),  # a DataArray: the signals are a Dataset
            cats.weights,
            confidence=confidence,
            prior=prior,
            skipna=True,
            interval="normal",
        )
        rows.append(table[["mu", "sigma", "rank", "rank_ci"]])
        names.append(schema.name)
        thresholds[schema.name] = cats.thresholds
    if not rows:
        have = sorted(getattr(signals, "data_vars", signals))
        needs = {s: sorted(set(get_schema(s).signals()[0]) - set(have)) for s in skipped}
        missing = sorted({x for v in needs.values() for x in v})
        raise ValueError(
            f"none of the {len(skipped)} schemata can be applied: the results have the "
            f"signals {have or 'none (scores only)'}, and each schema needs some of "
            f"{missing} (e.g. {next(iter(needs))!r} needs {next(iter(needs.values()))}); "
            "expected a log with per-attempt signals (see `bayes-eval schemas`)."
        )
    out = xr.concat(rows, dim=xr.DataArray(names, dims="schema", name="schema"))
    out.attrs = {
        "confidence": confidence,
        "thresholds": str(thresholds),
        "skipped": str(sorted(skipped)),
    }
    return out


def plot_schema_ranks(table: xr.Dataset, path: str | Path, *, ci_aware: bool = False) -> Path:
    """Figure 7's bump chart: each model's rank (``rank`` or ``rank_ci``) across schemata.

    Parameters
    ----------
    table : xarray.Dataset
        Ranks over ``(schema, model)``, as :func:`compare_schemata` returns them.
    path : str or pathlib.Path
        The PNG file to write.
    ci_aware : bool, optional, keyword-only
        Plot the CI-aware rank ``rank_ci`` instead of the competition rank ``rank``
        (default False).

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import xarray as xr
    >>> table = xr.Dataset(
    ...     {"rank": (("schema", "model"), np.array([[1, 2], [2, 1]]))},
    ...     coords={"schema": ["Exact Match", "Format Aware"], "model": ["a", "b"]},
    ... )
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = plot_schema_ranks(table, Path(folder) / "ranks.png")
    ...     print(out.name, out.is_file())
    ranks.png True
    """
    plt = pyplot()
    var = "rank_ci" if ci_aware else "rank"
    ranks = table[var].transpose("schema", "model").values
    schemata = [str(s) for s in table["schema"].values]
    models = [str(m) for m in table["model"].values]
    fig, ax = plt.subplots(figsize=(1.1 * len(schemata) + 3, 0.35 * len(models) + 2))
    x = np.arange(len(schemata))
    for j, m in enumerate(models):
        ax.plot(x, ranks[:, j], marker="o", lw=1.5)
        ax.annotate(
            m,
            (x[-1], ranks[-1, j]),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_xticks(x, schemata, rotation=35, ha="right")
    ax.invert_yaxis()
    ax.set_ylabel("CI-aware rank" if ci_aware else "competition rank")
    ax.set_title("Ranks across rubric schemata (cf. Hariri et al., Fig. 7)")
    ax.margins(x=0.05)
    fig.tight_layout()
    return save_png(fig, path)
