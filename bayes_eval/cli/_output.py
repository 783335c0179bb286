"""Output of the commands: aligned tables for people, and JSON for machines.

The tables go through ``rich`` (uncertainty dimmed), and the JSON through the one encoder
:func:`bayes_eval.serialize.dump`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["Col", "emit_json", "fmt", "interval", "say", "table", "text", "uncertain"]


class Col(NamedTuple):
    """A column: header, rich style, alignment, and whether long cells wrap.

    The rich style is ``"dim"`` for uncertainty; long cells wrap at word boundaries (text).
    Other cells are kept on one line while the table fits; when it does not they fold onto
    the next line, never cut (a model's full name always shows).
    """

    header: str
    style: str | None = None
    justify: Literal["default", "left", "center", "right", "full"] = "right"
    wrap: bool = False


def text(header: str) -> Col:
    """A left-aligned column of text that wraps."""
    return Col(header, None, "left", True)


def uncertain(header: str) -> Col:
    """A column of an uncertainty (sd, interval, Monte Carlo error): dimmed."""
    return Col(header, "dim")


def _console() -> Console:
    from rich.console import Console

    console = Console(highlight=False, soft_wrap=False)
    if not console.is_terminal:  # a pipe or a file: no colour, tables never squeezed
        console = Console(highlight=False, soft_wrap=False, width=200, no_color=True)
    return console


def table(
    columns: Sequence[str | Col],
    rows: Iterable[Sequence[Any]],
    *,
    title: str | None = None,
    caption: str | None = None,
) -> None:
    """Print rows under ``columns``.

    The first column is left-aligned unless given a :class:`Col`, the others right-aligned.
    Cells are printed with ``str``.
    """
    from rich import box
    from rich.table import Table
    from rich.text import Text  # plain text: a name such as "[x]" is not markup

    out = Table(
        box=box.SIMPLE_HEAD,
        title=None if title is None else Text(title),
        title_justify="left",
        caption=None if caption is None else Text(caption),
        caption_justify="left",
        pad_edge=False,
        show_edge=False,
    )
    for i, c in enumerate(columns):
        col = c if isinstance(c, Col) else Col(c, None, "left" if i == 0 else "right")
        out.add_column(
            Text(col.header),
            style=col.style,
            justify=col.justify,
            overflow="fold",
        )
    for row in rows:
        out.add_row(*(Text(str(cell)) for cell in row))
    _console().print(out)


def say(*lines: str) -> None:
    """Print text lines as they are (no markup)."""
    for line in lines:
        print(line)


def progress(line: str) -> None:
    """A line of progress on stderr (flushed at once): what long work is doing now.

    For where no progress bar shows it (e.g. which of several fits is running). Never on
    stdout, which carries the results (and ``--json``).
    """
    print(line, file=sys.stderr, flush=True)


def emit_json(value: Any) -> None:
    """``value`` as strict JSON on stdout (:func:`bayes_eval.serialize.dump`)."""
    from bayes_eval.serialize import dump

    dump(value, sys.stdout)


def fmt(x: float | None, digits: int = 4) -> str:
    """A number with ``digits`` decimals (``-`` for None)."""
    return "-" if x is None else f"{x:.{digits}f}"


def interval(lo: float, hi: float, digits: int = 4) -> str:
    """``[lo, hi]``."""
    return f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"


# ------------------------------------------------------------------ generic summaries


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def cell(value: Any) -> str:
    """One value as a table cell.

    Numbers to 4 significant digits, lists joined, ``-`` for None, anything nested as compact
    JSON.
    """
    from bayes_eval.serialize import dumps, to_jsonable

    value = to_jsonable(value)
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list) and all(_scalar(v) for v in value):
        return ", ".join(cell(v) for v in value)
    if _scalar(value):
        return str(value)
    return dumps(value, indent=None)


def _flat(value: Any) -> bool:
    """A non-empty dict whose values are all scalars (or lists of scalars)."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(
            _scalar(v) or (isinstance(v, list) and all(_scalar(x) for x in v))
            for v in value.values()
        )
    )


def _row(value: Any) -> Any:
    """A dict with its flat dict values spread into columns ``key value-key`` (one level).

    For example ``{"tau_at_n": {1: 0.7}}`` -> ``{"tau_at_n 1": 0.7}``; anything else is
    unchanged.
    """
    if not isinstance(value, dict):
        return value
    out: dict = {}
    for k, v in value.items():
        if _flat(v):
            out.update({f"{k} {kk}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out


def _records(value: Any) -> bool:
    """A dict of flat dicts, or a list of flat dicts (after :func:`_row`), as table rows.

    One table row each.
    """
    items = value.values() if isinstance(value, dict) else value
    return isinstance(value, (dict, list)) and bool(value) and all(_flat(_row(v)) for v in items)


def summary(data: dict, *, title: str | None = None) -> None:
    """Print a JSON-ready summary as tables, generically.

    A ``report`` entry (a list of lines) is printed as it is, followed by the files written.
    Otherwise scalars go into one ``key | value`` table; flat dicts with the same keys are
    columns of one table (e.g. numbers by N); dicts or lists of flat dicts are tables with a
    row each; other dicts are sections of their own (titled by their key, printed the same
    way); anything else is a cell of compact JSON.
    """
    from bayes_eval.serialize import to_jsonable

    data = to_jsonable(data)
    if isinstance(data.get("report"), list):
        say(*map(str, data["report"]))
        files = {k: data[k] for k in ("netcdf", "plot", "seconds") if k in data}
        say(", ".join(f"{k}: {cell(v)}" for k, v in files.items()))
        return
    nested = {
        k: v for k, v in data.items() if isinstance(v, dict) and v and not (_flat(v) or _records(v))
    }
    scalars = {k: v for k, v in data.items() if not (_flat(v) or _records(v) or k in nested)}
    groups: dict[tuple, list[str]] = {}
    for key, value in data.items():
        if _flat(value) and key not in scalars:
            groups.setdefault(tuple(value), []).append(key)
    if scalars:
        table(["", text("value")], ([k, cell(v)] for k, v in scalars.items()), title=title)
    elif title:
        say(title)
    for keys, names in groups.items():
        table(
            ["", *names],
            ([k, *(cell(data[n][k]) for n in names)] for k in keys),
        )
    for key, value in data.items():
        if key in scalars or _flat(value) or not _records(value):
            continue
        items = value.items() if isinstance(value, dict) else enumerate(value, 1)
        rows = [(name, _row(r)) for name, r in items]
        columns = list(dict.fromkeys(c for _, r in rows for c in r))
        table(
            [key, *columns],
            ([name, *(cell(r.get(c)) for c in columns)] for name, r in rows),
        )
    for key, value in nested.items():  # a nested section: its own tables, titled, not JSON
        summary(value, title=key)
