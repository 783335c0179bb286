"""Headless matplotlib for the PNG plots of the CLI and the studies.

matplotlib is an optional dependency (extras ``[plot]`` and ``[validation]``); it is
imported only when a figure is drawn, with the non-interactive Agg backend.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["pyplot", "save_png"]


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or a clear error if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError("plots need matplotlib: pip install 'bayes_eval[plot]'.") from exc
    return plt


def save_png(fig, path: str | Path, *, dpi: int = 110, tight: bool = False) -> Path:
    """Write ``fig`` to ``path`` as PNG, close it, and return the path. ``tight``: the page
    is cropped or grown to what is drawn (labels the layout left outside the figure kept)."""
    path = Path(path)
    fig.savefig(path, dpi=dpi, **({"bbox_inches": "tight"} if tight else {}))
    pyplot().close(fig)
    return path
