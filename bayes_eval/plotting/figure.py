"""Headless matplotlib for the PNG plots of the CLI and the studies.

matplotlib is an optional dependency (extras ``[plot]`` and ``[validation]``); it is
imported only when a figure is drawn, with the non-interactive Agg backend.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

    from matplotlib.figure import Figure

__all__ = ["LABEL_WIDTH", "pyplot", "save_png", "short_labels"]

#: The most characters of a model name a figure shows (its middle elided beyond).
LABEL_WIDTH = 40


def pyplot() -> ModuleType:
    """``matplotlib.pyplot`` on the Agg backend, or a clear error if matplotlib is missing.

    Returns
    -------
    module
        ``matplotlib.pyplot``, with the non-interactive Agg backend selected.

    Raises
    ------
    ValueError
        If matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> from bayes_eval.plotting.figure import pyplot
    >>> plt = pyplot()
    >>> plt.__name__, matplotlib.get_backend()
    ('matplotlib.pyplot', 'Agg')
    >>> fig, ax = plt.subplots()
    >>> type(fig).__name__, len(fig.axes)
    ('Figure', 1)
    >>> plt.close(fig)
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError("plots need matplotlib: pip install 'bayes_eval[plot]'.") from exc
    return plt


def save_png(fig: Figure, path: str | Path, *, dpi: int = 110, tight: bool = False) -> Path:
    """Write ``fig`` to ``path`` as PNG, close it, and return the path.

    ``tight``: the page is cropped or grown to what is drawn (labels the layout left outside
    the figure kept).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to write (closed afterwards, also on error).
    path : str or pathlib.Path
        The PNG file to write.
    dpi : int, optional
        Resolution, default 110.
    tight : bool, optional
        Crop or grow the page to what is drawn (``bbox_inches="tight"``), default ``False``.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from bayes_eval.plotting.figure import pyplot, save_png
    >>> plt = pyplot()
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [0, 1])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = save_png(fig, folder + "/line.png")
    ...     png.name, png.is_file(), plt.fignum_exists(fig.number)
    ('line.png', True, False)
    """
    from bayes_eval.files import write_file

    extra: dict[str, Any] = {"bbox_inches": "tight"} if tight else {}
    try:
        return write_file(path, lambda tmp: fig.savefig(tmp, format="png", dpi=dpi, **extra))
    finally:
        pyplot().close(fig)


def short_labels(names: Iterable[object], width: int = LABEL_WIDTH) -> list[str]:
    """Names as a figure shows them: one line, at most ``width`` characters, still distinct.

    A long name has its middle elided (``"DeepSeek-R1-Dist...-Llama-70B"``) and a clash gets
    ``#2``, ``#3``, so that a long name cannot grow a figure to thousands of pixels.

    Parameters
    ----------
    names : iterable of str
        The model names.
    width : int, optional
        The most characters of a label, default ``LABEL_WIDTH`` (40).

    Returns
    -------
    list of str
        One distinct label per name, in order.

    Examples
    --------
    >>> from bayes_eval.plotting.figure import short_labels
    >>> short_labels(["gpt-4o", "DeepSeek-R1-Distill-Llama-70B-Instruct", "a  b", "gpt-4o"],
    ...              width=20)
    ['gpt-4o', 'DeepSeek...-Instruct', 'a b', 'gpt-4o #2']
    """
    out: list[str] = []
    seen: dict[str, int] = {}
    for name in names:
        text = " ".join(str(name).split())
        if len(text) > width:
            head = (width - 3) // 2
            text = f"{text[:head]}...{text[-(width - 3 - head) :]}"
        seen[text] = seen.get(text, 0) + 1
        out.append(text if seen[text] == 1 else f"{text} #{seen[text]}")
    return out
