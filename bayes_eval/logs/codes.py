"""Labels as integer codes, and the numbering of attempts within groups, for long logs.

A label column (model, task, question) becomes integer codes into a short array of text
labels, so that 10^7 attempts are checked, grouped and pivoted with vectorised numpy on
integers: :func:`label_codes` (the checks of :func:`bayes_eval.logs.make_log`: a missing
label is refused, and so is a list or other non-scalar value; spaces around a label are
stripped with a warning; labels are compared in Unicode NFC with invisible format characters
(zero-width space, byte-order mark, ...) removed, and two spellings merged that way are named
in a warning; an empty label is refused), :func:`group_codes` (one dense code per
combination of labels), :func:`cumcount` (attempts numbered in row order within a group),
:func:`positions` (the rank of each trial within its group, and the first repeated trial) and
:func:`build_grid` (where each row goes in ``R[model, question, trial]``).
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pandas as pd

from bayes_eval.inputs import shown

__all__ = [
    "Grid",
    "build_grid",
    "cumcount",
    "group_codes",
    "label_codes",
    "positions",
    "status_ok",
    "table_grid",
    "text_codes",
]

_INT32 = 2**31 - 1


def _raw_codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, labels)``: codes (``-1`` = missing) into the distinct values as text."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        text = pd.Series(col.cat.categories).astype(str).to_numpy(dtype=object)
        return col.cat.codes.to_numpy(), text
    codes, uniques = pd.factorize(col.astype(str).to_numpy(dtype=object), use_na_sentinel=True)
    codes[col.isna().to_numpy()] = -1
    return codes, np.asarray(uniques, dtype=object)


def _non_scalar(col: pd.Series) -> np.ndarray | None:
    """Rows holding a list, tuple, dict, set or array (a Parquet list column), or None.

    None when the column holds none, decided from its inferred type without a pass in Python
    over text, number or categorical columns.
    """
    if col.dtype != object:
        return None
    kind = pd.api.types.infer_dtype(col, skipna=True)
    if kind in ("string", "integer", "floating", "mixed-integer-float", "boolean", "empty"):
        return None
    bad = col.map(lambda v: isinstance(v, list | tuple | dict | set | np.ndarray)).to_numpy()
    return bad if bad.any() else None


def _canonical(text: str) -> str:
    """A label as it is compared: Unicode NFC, invisible characters removed, spaces stripped.

    The invisible characters removed are format characters (category Cf: zero-width space and
    joiners, soft hyphen, byte-order mark, direction marks); the spaces stripped are those
    around the label.
    """
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
        text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return text.strip()


def _merged_spellings(
    text: np.ndarray, used: np.ndarray, clean: np.ndarray, name: str, src: str
) -> None:
    """Warn once when two spellings of a label that differ beyond spaces became one label.

    Such spellings differ by Unicode normalisation or invisible characters; the warning names
    both (escaped).
    """
    spaced = np.array([t.strip() for t in text], dtype=object)
    first: dict[str, str] = {}
    pairs = []
    for raw, key in zip(spaced[used].tolist(), clean[used].tolist(), strict=True):
        seen = first.setdefault(key, raw)
        if seen != raw:
            pairs.append((seen, raw, key))
    if pairs:
        a, b, key = pairs[0]
        more = f" ({len(pairs)} such merges)" if len(pairs) > 1 else ""
        warnings.warn(
            f"{src}: the {name} labels {a!a} and {b!a} differ only by Unicode "
            f"normalisation or invisible characters; they were merged as {shown(key)}{more}.",
            UserWarning,
            stacklevel=5,
        )


def _look_alikes(labels: np.ndarray, name: str, src: str) -> None:
    """Warn once when two distinct labels differ only by letter case or compatibility forms.

    Unicode compatibility forms are full-width letters, no-break spaces, ligatures: equal under
    NFKC and case folding. The labels stay two labels (``GPT-4`` and ``gpt-4`` may be two
    models); the warning names both.
    """
    first: dict[str, str] = {}
    pairs = []
    for label in labels.tolist():
        key = " ".join(unicodedata.normalize("NFKC", label).casefold().split())
        seen = first.setdefault(key, label)
        if seen != label:
            pairs.append((seen, label))
    if pairs:
        a, b = pairs[0]
        more = f" ({len(pairs)} such pairs)" if len(pairs) > 1 else ""
        warnings.warn(
            f"{src}: the {name} labels {a!a} and {b!a} differ only by letter case or Unicode "
            f"compatibility forms (full-width letters, no-break spaces){more}; they are kept "
            f"apart as two {name}s: rename one if they are the same.",
            UserWarning,
            stacklevel=5,
        )


def _first(codes: np.ndarray, which: np.ndarray) -> int:
    """The first row whose code is one of ``which`` (a boolean mask over the codes)."""
    return int(np.argmax(which[codes]))


def label_codes(
    col: pd.Series, name: str, src: str, locate: Callable[[int], str], *, empty_ok: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """A label column as ``(codes, labels)``: ``labels[codes]`` is the column as text.

    Parameters
    ----------
    col : pandas.Series
        Any dtype (categorical columns are checked on their categories, not row by row).
    name : str
        The column, for messages.
    src : str
        The files read, for the warning.
    locate : callable
        ``locate(i)`` names row ``i`` in messages.
    empty_ok : bool
        Whether an empty label is allowed (the task).

    Returns
    -------
    codes : numpy.ndarray of int8, int16 or int32
        One code per row (the smallest type that holds them).
    labels : numpy.ndarray of object
        The distinct labels (text, spaces around them stripped), sorted, each used by a row.

    Raises
    ------
    ValueError
        A missing label, a list (or other non-scalar value), or an empty one unless
        ``empty_ok``; the message names the first row.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_eval.logs.codes import label_codes
    >>> col = pd.Series(["gpt-4o", "claude", "gpt-4o"])
    >>> codes, labels = label_codes(col, "model", "runs.csv", lambda i: f"row {i + 2}")
    >>> codes.tolist(), labels.tolist()
    ([1, 0, 1], ['claude', 'gpt-4o'])
    >>> try:
    ...     label_codes(pd.Series(["gpt-4o", None]), "model", "runs.csv", lambda i: f"row {i + 2}")
    ... except ValueError as exc:
    ...     print(exc)
    row 3 has no model; expected a label.
    """
    bad = _non_scalar(col)
    if bad is not None:
        i = int(np.argmax(bad))
        value = col.iloc[i]
        kinds: dict[type, str] = {dict: "a mapping", set: "a set"}
        kind = kinds.get(type(value), "a list")
        raise ValueError(
            f"{locate(i)} has {kind} as its {name} ({shown(value)}); expected one label (text "
            "or a number) per row."
        )
    codes, text = _raw_codes(col)
    if codes.size and codes.min() < 0:
        i = int(np.argmax(codes < 0))
        raise ValueError(f"{locate(i)} has no {name}; expected a label.")
    used = np.bincount(codes, minlength=len(text)) > 0
    stripped = np.array([t.strip() for t in text], dtype=object)
    changed = (stripped != text) & used
    clean = np.array([_canonical(t) for t in text], dtype=object)
    if (clean[used] != stripped[used]).any():
        _merged_spellings(text, used, clean, name, src)
    if changed.any():
        k = codes[_first(codes, changed)]
        rows = int(np.count_nonzero(changed[codes]))
        warnings.warn(
            f"{src}: {rows} {name} label(s) had leading or trailing spaces "
            f"(e.g. {shown(str(text[k]))}); they were stripped.",
            UserWarning,
            stacklevel=4,
        )
    empty = (clean == "") & used
    if not empty_ok and empty.any():
        raise ValueError(f"{locate(_first(codes, empty))} has an empty {name}; expected a label.")
    labels = np.array(sorted(set(clean[used].tolist())), dtype=object)
    _look_alikes(labels, name, src)
    lut: np.ndarray = np.zeros(len(text), dtype=_code_type(len(labels)))
    lut[used] = np.searchsorted(labels, clean[used])
    return lut[codes], labels


def _code_type(n: int) -> type:
    """The smallest signed integer type for codes ``0..n - 1``."""
    for kind in (np.int8, np.int16, np.int32):
        if n <= np.iinfo(kind).max:
            return kind
    return np.int64


def group_codes(*columns: tuple[np.ndarray, int]) -> tuple[np.ndarray, int]:
    """One code per combination of ``(codes, n_codes)`` columns, and the number of codes.

    The codes are ``0..n - 1`` (some maybe unused, but ``n`` is at most a few times the rows;
    int32 when they fit).

    Parameters
    ----------
    *columns : tuple of (numpy.ndarray of int, int)
        Per label column, its codes (one per row, ``0..n_codes - 1``) and ``n_codes``; all
        of the same length.

    Returns
    -------
    codes : numpy.ndarray of int32 or int64
        One code per row: rows with the same combination of labels share a code.
    n : int
        The number of codes: every code is below it.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.logs.codes import group_codes
    >>> model, question = (np.array([0, 0, 1, 1]), 2), (np.array([0, 1, 0, 0]), 3)
    >>> g, n = group_codes(model, question)
    >>> g.tolist(), n
    ([0, 1, 3, 3], 6)
    """
    rows = len(columns[0][0])
    size = 1
    for _, k in columns:
        size *= max(k, 1)
    if size <= _INT32:
        g = np.zeros(rows, dtype=np.int32)
        for codes, k in columns:
            if k > 1:
                g *= k
                g += codes
    else:
        g, size = np.zeros(rows, dtype=np.int64), 1
        for codes, k in columns:
            if size * max(k, 1) > 2**62:
                g, size = _dense(g)
            g = g * max(k, 1) + codes
            size *= max(k, 1)
    if size > 4 * rows + 2**20:  # sparse: counting per code would not fit in memory
        g, size = _dense(g)
    return g, size


def _dense(g: np.ndarray) -> tuple[np.ndarray, int]:
    codes, uniques = pd.factorize(g)
    return codes.astype(np.int32 if len(uniques) <= _INT32 else np.int64), len(uniques)


def _starts(counts: np.ndarray) -> np.ndarray:
    return np.cumsum(counts) - counts


def _run_ranks(g: np.ndarray, n_groups: int, trial: np.ndarray | None = None) -> np.ndarray | None:
    """``0, 1, ...`` within each group when every group's rows are contiguous; else None.

    With ``trial``, its trials must also increase down the rows. This is how tools write logs.
    """
    change = np.empty(g.size, dtype=bool)
    change[:1] = True
    np.not_equal(g[1:], g[:-1], out=change[1:])
    starts = np.flatnonzero(change)
    if starts.size != np.count_nonzero(np.bincount(g, minlength=n_groups)):
        return None  # some group's rows are split
    if trial is not None:
        rising = trial[1:] > trial[:-1]
        rising |= change[1:]
        if not rising.all():
            return None
    kind = np.int32 if g.size <= _INT32 else np.int64
    ranks: np.ndarray = np.arange(g.size, dtype=kind)
    ranks -= np.repeat(starts.astype(kind), np.diff(starts, append=g.size))
    return ranks


def cumcount(g: np.ndarray, n_groups: int) -> np.ndarray:
    """``0, 1, ...`` in row order within each group ``g`` (as ``groupby(g).cumcount()``).

    Parameters
    ----------
    g : numpy.ndarray of int
        The group of each row, ``0..n_groups - 1`` (e.g. from
        :func:`bayes_eval.logs.codes.group_codes`).
    n_groups : int
        The number of groups: every code is below it.

    Returns
    -------
    numpy.ndarray of int64
        Each row's number within its group, in row order.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.logs.codes import cumcount
    >>> cumcount(np.array([1, 0, 1, 1, 0]), 2).tolist()
    [0, 0, 1, 2, 1]
    """
    if g.size and (ranks := _run_ranks(g, n_groups)) is not None:
        return ranks.astype(np.int64, copy=False)
    order = np.argsort(g, kind="stable")  # timsort: near linear on rows mostly grouped
    out = np.empty(g.size, dtype=np.int64)
    out[order] = np.arange(g.size) - _starts(np.bincount(g, minlength=n_groups))[g[order]]
    return out


def positions(g: np.ndarray, n_groups: int, trial: np.ndarray) -> tuple[np.ndarray, int]:
    """The rank of each row's ``trial`` within its group ``g``, and the first repeated row.

    Ties are ranked in row order. The repeated row is the first row (in row order) that repeats
    an earlier row's ``(g, trial)``, ``-1`` if none.

    ``trial`` holds integers ``0 <= trial < 2**53``. This takes linear time when each group's
    rows are contiguous with rising trials, or its trials are consecutive (``t0, t0 + 1, ...``
    in any order); otherwise a sort.

    Parameters
    ----------
    g : numpy.ndarray of int
        The group of each row, ``0..n_groups - 1`` (e.g. a (model, question)).
    n_groups : int
        The number of groups: every code is below it.
    trial : numpy.ndarray of int
        Each row's trial number, as the log gives it.

    Returns
    -------
    pos : numpy.ndarray of int
        The rank of each row's trial within its group, ``0, 1, ...``.
    duplicate : int
        The first row repeating an earlier ``(g, trial)``, ``-1`` if none.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.logs.codes import positions
    >>> pos, duplicate = positions(np.array([0, 0, 1, 1]), 2, np.array([3, 1, 0, 0]))
    >>> pos.tolist(), duplicate
    ([1, 0, 0, 1], 3)
    """
    if g.size == 0:
        return np.zeros(0, dtype=np.int64), -1
    ranks = _run_ranks(g, n_groups, trial)
    if ranks is not None:  # rising trials within each group: no repeat
        return ranks, -1
    counts = np.bincount(g, minlength=n_groups)
    low = np.full(n_groups, 2**62, dtype=np.int64)
    np.minimum.at(low, g, trial)
    rank = trial - low[g]
    if (rank < counts[g]).all():
        hit = np.zeros(g.size, dtype=bool)
        hit[_starts(counts)[g] + rank] = True
        if hit.all():  # every group's trials are low..low + count - 1, each once
            return rank, -1
    del rank
    span = int(trial.max()) + 1
    if n_groups * span < 2**62:
        order = np.argsort(g.astype(np.int64) * span + trial, kind="stable")
    else:
        order = np.lexsort((trial, g))
    gs = g[order]
    same = gs[1:] == gs[:-1]
    same &= trial[order[1:]] == trial[order[:-1]]
    dup = int(order[1:][same].min()) if same.any() else -1
    pos = np.empty(g.size, dtype=np.int64)
    pos[order] = np.arange(g.size) - _starts(counts)[gs]
    return pos, dup


class Grid(NamedTuple):
    """Where each row of a log goes in ``R[model, question, trial]``.

    Attributes
    ----------
    index : numpy.ndarray of int
        The flat position of each row in ``(model, question, trial)``.
    ok : numpy.ndarray of bool
        ``status == "ok"`` per row.
    model : numpy.ndarray of int
        The model position of each row.
    coords : dict
        ``model``, ``question``, ``trial`` and ``task`` (along ``question``): the
        coordinates of the grid.
    shape : tuple of int
        ``(models, questions, trials)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_eval.logs.codes import table_grid
    >>> t = pd.DataFrame({"model": ["b", "b", "a", "a"], "task": "math",
    ...                   "question": ["q10", "q2", "q2", "q2"], "trial": [0, 0, 0, 1],
    ...                   "status": ["ok", "ok", "ok", "error"]})
    >>> grid = table_grid(t)
    >>> grid.index.tolist(), grid.ok.tolist(), grid.model.tolist(), grid.shape
    ([6, 4, 0, 1], [True, True, True, False], [1, 1, 0, 0], (2, 2, 2))
    >>> grid.coords["question"].tolist()
    ['q2', 'q10']
    """

    #: flat position of each row in (model, question, trial); the field shadows
    #: ``tuple.index``, which no caller uses (hence the ignore)
    index: np.ndarray  # type: ignore[assignment]
    ok: np.ndarray  # status == "ok" per row
    model: np.ndarray  # model position of each row
    coords: dict
    shape: tuple[int, int, int]


def text_codes(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes of a label column into its sorted distinct labels (text), unused ones dropped.

    Unlike :func:`bayes_eval.logs.codes.label_codes`, nothing is checked or cleaned: for a
    table already checked (a log's).

    Parameters
    ----------
    col : pandas.Series
        The labels, any dtype (a categorical column's unused categories are dropped).

    Returns
    -------
    codes : numpy.ndarray of int
        One code per row (the smallest type that holds them).
    labels : numpy.ndarray of object
        The distinct labels as text, sorted.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_eval.logs.codes import text_codes
    >>> codes, labels = text_codes(pd.Series(["b", "a", "b"]))
    >>> codes.tolist(), labels.tolist()
    ([1, 0, 1], ['a', 'b'])
    """
    codes, labels = _raw_codes(col)
    used = np.bincount(codes, minlength=len(labels)) > 0
    kept = labels[used]
    order = np.argsort(kept.astype(str), kind="stable")
    lut: np.ndarray = np.full(len(labels), -1, dtype=_code_type(len(kept)))
    lut[np.flatnonzero(used)[order]] = np.arange(len(kept))
    return lut[codes], kept[order]


def status_ok(col: pd.Series) -> np.ndarray:
    """``status == "ok"`` per row.

    Parameters
    ----------
    col : pandas.Series
        A log's ``status`` column (text or categorical; a missing status is not ok).

    Returns
    -------
    numpy.ndarray of bool
        ``True`` where the status is ``"ok"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_eval.logs.codes import status_ok
    >>> status_ok(pd.Series(["ok", "error", "ok"])).tolist()
    [True, False, True]
    """
    if isinstance(col.dtype, pd.CategoricalDtype):
        cats = np.asarray(col.cat.categories.astype(str) == "ok")
        return np.append(cats, False)[col.cat.codes.to_numpy()]  # code -1 -> False
    return col.to_numpy() == "ok"


def table_grid(t: pd.DataFrame) -> Grid:
    """:func:`build_grid` of a log's table.

    Parameters
    ----------
    t : pandas.DataFrame
        A log's table: columns ``model``, ``task``, ``question``, ``trial`` and ``status``.

    Returns
    -------
    Grid
        Where each row goes in ``R[model, question, trial]``.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_eval.logs.codes import table_grid
    >>> t = pd.DataFrame({"model": ["a", "a", "b"], "task": "math", "question": ["q1", "q1", "q2"],
    ...                   "trial": [0, 1, 0], "status": "ok"})
    >>> grid = table_grid(t)
    >>> grid.index.tolist(), grid.shape
    ([0, 1, 6], (2, 2, 2))
    """
    mc, models = text_codes(t["model"])
    tc, tasks = text_codes(t["task"])
    qc, questions = text_codes(t["question"])
    trial = t["trial"].to_numpy(dtype=np.int64)
    return build_grid((mc, models), (tc, tasks), (qc, questions), trial, status_ok(t["status"]))


def build_grid(
    model: tuple[np.ndarray, np.ndarray],
    task: tuple[np.ndarray, np.ndarray],
    question: tuple[np.ndarray, np.ndarray],
    trial: np.ndarray,
    ok: np.ndarray,
    pos: np.ndarray | None = None,
) -> Grid:
    """Where each row goes: models in text order, questions in natural order, trials ranked.

    Questions are task-qualified (``task/question``) when there are several tasks; trials are
    ranked within each (model, question).

    ``(codes, labels)`` per label column with labels sorted and all used; ``pos``, the rank of
    each trial within its (model, task, question), saves a sort when given.

    Parameters
    ----------
    model, task, question : tuple of (numpy.ndarray of int, numpy.ndarray of object)
        Each column's codes (one per row) and its sorted labels, e.g. from
        :func:`bayes_eval.logs.codes.text_codes`.
    trial : numpy.ndarray of int
        Each row's trial number.
    ok : numpy.ndarray of bool
        ``status == "ok"`` per row, kept in the result.
    pos : numpy.ndarray of int, optional
        The rank of each row's trial within its (model, task, question); default computed
        with :func:`bayes_eval.logs.codes.positions`.

    Returns
    -------
    Grid
        The flat position of each row, ``ok``, each row's model, the coordinates and the
        shape ``(models, questions, trials)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.logs.codes import build_grid
    >>> model = (np.array([0, 0, 1]), np.array(["a", "b"], dtype=object))
    >>> task = (np.array([0, 0, 0]), np.array(["math"], dtype=object))
    >>> question = (np.array([0, 0, 1]), np.array(["q1", "q2"], dtype=object))
    >>> grid = build_grid(model, task, question, np.array([0, 1, 0]), np.ones(3, dtype=bool))
    >>> grid.index.tolist(), grid.shape, grid.coords["question"].tolist()
    ([0, 1, 6], (2, 2, 2), ['q1', 'q2'])
    """
    (mc, models), (tc, tasks), (qc, questions) = model, task, question
    if len(tasks) > 1:  # task-qualified question ids
        nq0 = len(questions)
        pair, pairs = pd.factorize(tc.astype(np.int64) * nq0 + qc)
        pairs = np.asarray(pairs, dtype=np.int64)
        keys = [f"{tasks[k // nq0]}/{questions[k % nq0]}" for k in pairs.tolist()]
        key, questions = pd.factorize(np.asarray(keys, dtype=object))
        questions = np.asarray(questions, dtype=object)
        if len(questions) < len(pairs):  # two (task, question) print alike: rank again
            pos = None
        first_pair = np.unique(key, return_index=True)[1]  # keys in order of appearance
        task_of = tasks[pairs[first_pair] // nq0]
        qc = np.asarray(key, dtype=np.int32)[pair]
    else:
        task_of = np.full(len(questions), tasks[0], dtype=object)
    order = sorted(range(len(questions)), key=lambda k: _question_key(questions[k]))
    rank = np.empty(len(questions), dtype=np.int32)
    rank[order] = np.arange(len(questions))
    qi = rank[qc]
    nm, nq = len(models), len(questions)
    if pos is None:
        pos = positions(*group_codes((mc, nm), (qi, nq)), trial)[0]
    n_trials = int(pos.max()) + 1 if pos.size else 0
    index: np.ndarray = mc.astype(np.int32 if nm * nq * n_trials <= _INT32 else np.int64)
    index *= nq
    index += qi
    index *= n_trials
    index += pos
    coords = {
        "model": np.asarray(models, dtype=str),
        "question": np.asarray(questions[order], dtype=str),
        "trial": np.arange(n_trials),
        "task": ("question", np.asarray(task_of[order], dtype=str)),
    }
    return Grid(index, ok, mc, coords, (nm, nq, n_trials))


def _natural_key(text: object) -> list:
    return [int(t) if t.isdecimal() else t for t in re.split(r"(\d+)", str(text))]


def _question_key(text: object) -> tuple:
    """Natural order (``q2`` before ``q10``), ties (``q01``, ``q1``) in text order."""
    return _natural_key(text), str(text)
