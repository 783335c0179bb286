"""Heat maps of ``P(row better than column)``: the matrices of ``pairs`` side by side.

See :func:`bayes_eval.ranking.paired.compare_pairs` and ``bayes-eval pairs --plot``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from textwrap import fill

import numpy as np
from numpy.typing import ArrayLike

from bayes_eval.plotting.figure import pyplot, save_png, short_labels

__all__ = ["pairs_plot", "text_colour"]


def text_colour(p: float) -> str:
    """The colour of a cell's number on the RdBu_r scale 0..1.

    White on the dark ends (below 0.2 or above 0.8), black on the light middle.

    Parameters
    ----------
    p : float
        The cell's probability, in [0, 1].

    Returns
    -------
    str
        ``"white"`` or ``"black"``.

    Examples
    --------
    >>> from bayes_eval.plotting.pairs import text_colour
    >>> text_colour(0.1), text_colour(0.5), text_colour(0.95)
    ('white', 'black', 'white')
    """
    return "white" if abs(p - 0.5) > 0.3 else "black"


def pairs_plot(
    models: Sequence[str],
    matrices: Mapping[str, ArrayLike],
    path: str | Path,
    *,
    title: str | None = None,
) -> Path:
    """Draw one heat map per matrix (e.g. ``{"these questions": ..., "paired": ...}``).

    Rows and columns are in the order of ``models``, with a shared colour scale 0..1 (diverging
    around 1/2); cells are annotated when there are at most 20 models. Returns the path
    written.

    Parameters
    ----------
    models : sequence of str
        Names of the models, in the order of the rows and columns.
    matrices : dict of str to array_like
        Each a ``(L, L)`` matrix of ``P(row better than column)`` (NaN: not shown), by the
        title of its heat map.
    path : str or pathlib.Path
        The PNG file to write.
    title : str, optional
        Title of the figure.

    Returns
    -------
    pathlib.Path
        The path of the PNG written.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from bayes_eval.plotting.pairs import pairs_plot
    >>> p = np.array([[np.nan, 0.3], [0.7, np.nan]])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = pairs_plot(["a", "b"], {"these": p, "paired": p}, folder + "/pairs.png")
    ...     png.name, png.is_file()
    ('pairs.png', True)
    """
    plt = pyplot()
    models = short_labels(models)
    n = len(models)
    size = min(max(3.0, 0.32 * n + 1.5), 16.0)
    longest = max((len(str(m)) for m in models), default=1)
    margin = min(0.09 * longest, 4.0)  # room for the labels, in inches
    fig, axes = plt.subplots(
        1,
        len(matrices),
        figsize=(size * len(matrices) + margin + 1.5, size + margin),
        layout="constrained",
    )
    axes = np.atleast_1d(axes)
    image = None
    for k, (ax, (name, values)) in enumerate(zip(axes, matrices.items(), strict=True)):
        m = np.asarray(values, dtype=float)
        image = ax.imshow(np.ma.masked_invalid(m), cmap="RdBu_r", vmin=0.0, vmax=1.0)
        # a prior's label can be long: wrapped to the heat map's width (about 11 characters
        # of the title's font per inch)
        ax.set_title(fill(f"P(row better than column): {name}", width=max(60, int(size * 11))))
        ticks = np.arange(n)
        fontsize = max(4, min(9, int(200 / max(n, 1))))
        ax.set_xticks(ticks, labels=list(models), rotation=90, fontsize=fontsize)
        ax.set_yticks(ticks, labels=list(models) if k == 0 else [], fontsize=fontsize)
        if n <= 20:
            for i in range(n):
                for j in range(n):
                    if np.isfinite(m[i, j]):
                        ax.text(
                            j,
                            i,
                            f"{m[i, j]:.2f}",
                            ha="center",
                            va="center",
                            fontsize=7,
                            color=text_colour(m[i, j]),
                        )
    fig.colorbar(image, ax=list(axes), shrink=0.6)
    if title:  # above the figure (the heat maps' titles can take two lines); saved tight
        fig.suptitle(title, y=1.0, va="bottom")
    # tight: the constrained layout of square heat maps leaves long rotated column labels
    # partly below the figure (16 models with 29-character names lost their first letters)
    return save_png(fig, path, tight=True)
