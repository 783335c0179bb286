"""Forest plot of a leaderboard: posterior means with credible intervals and rank ranges.

matplotlib is an optional dependency (extra ``[plot]``); it is imported when a plot is drawn.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr
from numpy.typing import NDArray

from bayes_eval.inputs import percent
from bayes_eval.plotting.figure import pyplot, save_png, short_labels
from bayes_eval.posteriors.posterior import NEW_QUESTIONS

__all__ = ["ESTIMATOR_AXIS", "estimator_label", "forest_plot"]


#: what the x axis shows, by the table's ``estimator`` attribute
ESTIMATOR_AXIS = {
    "Bayes@N": "Bayes@N posterior mean of pi-bar",
    "crossed": "crossed model posterior mean of pi-bar",
}


def estimator_label(table: xr.Dataset) -> str:
    """The x-axis label of a rank table's forest plot: the posterior mean of its estimator.

    Parameters
    ----------
    table : xarray.Dataset
        A rank table (:func:`bayes_eval.ranking.leaderboard.rank_table`); its ``estimator``
        attribute is read (default ``"Bayes@N"``), and its ``estimand`` (the new-questions
        board of :func:`bayes_eval.ranking.population.population_leaderboard`).

    Returns
    -------
    str
        The label.

    Examples
    --------
    >>> import xarray as xr
    >>> from bayes_eval.plotting.forest import estimator_label
    >>> estimator_label(xr.Dataset())
    'Bayes@N posterior mean of pi-bar'
    >>> estimator_label(xr.Dataset(attrs={"estimator": "crossed"}))
    'crossed model posterior mean of pi-bar'

    The new-questions board (its ``estimand`` attribute) shows the population mean score:

    >>> estimator_label(xr.Dataset(attrs={"estimand": "new questions"}))
    'posterior mean of the mean score on new questions'
    """
    if table.attrs.get("estimand") == NEW_QUESTIONS:
        return "posterior mean of the mean score on new questions"
    estimator = str(table.attrs.get("estimator", "Bayes@N"))
    return ESTIMATOR_AXIS.get(estimator, f"{estimator} posterior mean")


def forest_plot(
    table: xr.Dataset, path: str | Path, *, title: str | None = None, paper_ranks: bool = False
) -> Path:
    """Draw ``mu`` with ``[lo, hi]`` per model, best on top, with rank ranges and rank groups.

    Write each model's rank range (every rank the pairwise statements leave open, no chaining)
    in the right margin; shade the tie groups the board's claims leave (``tie_group``, groups
    of two or more models in a run of the list; :func:`bayes_eval.ranking.claims.fdr_claims`)
    or, with ``paper_ranks``, the CI-aware rank groups instead (the chaining rule of Hariri et
    al., "Don't Pass@k", §2.7.1, named as such).

    Parameters
    ----------
    table : xarray.Dataset
        Output of :func:`bayes_eval.ranking.leaderboard.rank_table` (needs ``mu``, ``lo``,
        ``hi``; ``rank_ci`` with ``paper_ranks``).
    path : str or Path
        PNG file to write.
    title : str, optional
        Title of the figure; default ``"Leaderboard"`` (naming the shading with
        ``paper_ranks``).
    paper_ranks : bool, optional
        Shade the paper's chaining CI-aware rank groups, default ``False``.

    Returns
    -------
    pathlib.Path
        The path of the PNG written.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.ranking.leaderboard import rank_table
    >>> from bayes_eval.plotting.forest import forest_plot
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = forest_plot(rank_table(R, prior="uniform"), folder + "/forest.png")
    ...     png.name, png.is_file()
    ('forest.png', True)
    """
    plt = pyplot()
    order = np.argsort(-table["mu"].values, kind="stable")
    names = short_labels(table["model"].values[order])
    mu = table["mu"].values[order]
    lo = table["lo"].values[order]
    hi = table["hi"].values[order]
    y = np.arange(mu.size)[::-1]
    fig, ax = plt.subplots(figsize=(8.0, 0.45 * mu.size + 1.4))
    shaded: list[tuple[NDArray, str]] = []
    if paper_ranks:
        groups = table["rank_ci"].values[order]
        shaded = [(y[groups == g], f"CI-aware rank {g}") for g in np.unique(groups)]
    elif "tie_group" in table:
        groups = table["tie_group"].values[order]
        runs = np.flatnonzero(np.diff(groups) != 0) + 1  # runs of one group down the list
        for rows_idx in np.split(np.arange(mu.size), runs):
            if rows_idx.size > 1:
                shaded.append((y[rows_idx], f"tie group {groups[rows_idx[0]]}"))
    for i, (rows, label) in enumerate(shaded):
        ax.axhspan(
            rows.min() - 0.5, rows.max() + 0.5, color="0.9" if i % 2 == 0 else "0.96", zorder=0
        )
        ax.text(
            0.995,
            rows.max() + 0.42,
            label,
            transform=ax.get_yaxis_transform(),
            ha="right",
            va="top",
            fontsize=7,
            color="0.35",
        )
    if "rank_lower" in table and "rank_upper" in table:  # rank ranges, no chaining
        lower = table["rank_lower"].values[order]
        upper = table["rank_upper"].values[order]
        for yi, a, b in zip(y, lower, upper, strict=True):
            text = f"rank {a}" if a == b else f"ranks {a}-{b}"
            ax.text(
                1.01,
                yi,
                text,
                transform=ax.get_yaxis_transform(),
                va="center",
                fontsize=8,
                color="0.25",
            )
    ax.errorbar(
        mu,
        y,
        xerr=[mu - lo, hi - mu],
        fmt="o",
        color="tab:blue",
        ecolor="tab:blue",
        capsize=3,
        zorder=3,
    )
    ax.set_yticks(y, names)
    conf = table.attrs.get("confidence", 0.95)
    ax.set_xlabel(f"{estimator_label(table)} with {percent(conf)} credible interval")
    ax.set_title(
        title
        or (
            "Leaderboard (shaded: the paper's CI-aware rank groups)"
            if paper_ranks
            else "Leaderboard"
        )
    )
    ax.set_ylim(-0.5, mu.size - 0.5)
    fig.tight_layout()
    return save_png(fig, path, dpi=120)
