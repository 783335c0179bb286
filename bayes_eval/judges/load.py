"""Judge scores from a CSV file, in the three layouts ``bayes-eval judges`` reads.

:func:`load_judge_data` recognises the layouts and returns
:class:`~bayes_eval.judges.data.JudgeData` for the model of Vossler et al., "LLMs Judging
LLMs: A Simplex Perspective".

* a count table ``candidate, judge, score, count`` (e.g. MT-Bench, Table D.2);
* a per-question table ``question, judge, candidate, score`` with optional
  ``judge_family`` and ``candidate_family`` (a judge scoring its own family is excluded);
* the SummEval CSV ``doc_id, system, dim, ...`` (one data set per dimension).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas as pd

    from bayes_eval.judges.data import JudgeData

__all__ = ["SHIPPED_WITH_TRUTH", "load_judge_data", "read_truth"]

#: The shipped count table whose human ranking serves as the truth when none is given.
SHIPPED_WITH_TRUTH = "dataset:mtbench_judges"


def read_truth(path: str | Path) -> dict[str, float]:
    """Ground-truth scores from a CSV with columns ``candidate, score``.

    Parameters
    ----------
    path : str or pathlib.Path
        The CSV file.

    Returns
    -------
    dict of str to float
        The score of each candidate.

    Raises
    ------
    ValueError
        For a missing file or column, or a score that is not a number.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from bayes_eval.judges.load import read_truth
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     pd.DataFrame({"candidate": ["a", "b"], "score": [3.5, 2]}).to_csv(
    ...         folder + "/truth.csv", index=False)
    ...     truth = read_truth(folder + "/truth.csv")
    >>> {k: float(v) for k, v in truth.items()}
    {'a': 3.5, 'b': 2.0}
    """
    import pandas as pd

    if not Path(path).is_file():
        raise ValueError(f"{path}: no such file (expected the --truth CSV candidate,score).")
    t = pd.read_csv(path, dtype=str, keep_default_na=False)
    if not {"candidate", "score"} <= set(t.columns):
        raise ValueError(f"{path}: expected columns candidate, score.")
    score = _numbers(t["score"], f"{path}", "score", empty_ok=False)
    return dict(zip(t["candidate"].str.strip(), score, strict=True))


def _numbers(column: pd.Series, where: str, name: str, *, empty_ok: bool) -> NDArray[np.float64]:
    """A text column as floats; a cell that is not a number is refused, naming its line.

    An empty cell is refused too, unless ``empty_ok`` (then it is NaN). Line 1 is the header.
    """
    import pandas as pd

    text = column.astype(str).str.strip()
    values = pd.to_numeric(text.where(text != "", None), errors="coerce")
    bad = values.isna() & ((text != "") | (not empty_ok))
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(
            f"{where}: line {i + 2}: the {name} {text.iloc[i]!r} is not a number."
            if text.iloc[i]
            else f"{where}: line {i + 2}: the {name} cell is empty; expected a number."
        )
    return values.to_numpy(dtype=float)


def _shipped_truth() -> dict[str, float]:
    from bayes_eval.datasets import load

    ranks = load("mtbench_judges")["human_rank"]
    n = ranks.sizes["candidate"]
    names = ranks["candidate"].values
    return {str(c): float(n + 1 - r) for c, r in zip(names, ranks.values, strict=True)}


def _per_question(
    df: pd.DataFrame,
    truth: Mapping[str, float] | None,
    levels: int | None,
    abstain: bool,
    where: str,
) -> JudgeData:
    import pandas as pd

    from bayes_eval.judges import data as jd

    qs = pd.unique(df["question"])
    js = list(pd.unique(df["judge"].astype(str)))
    ks = list(pd.unique(df["candidate"].astype(str)))
    cube = np.full((len(qs), len(js), len(ks)), np.nan)
    qi = pd.Index(qs).get_indexer(df["question"])
    ji = pd.Index(js).get_indexer(df["judge"].astype(str))
    ki = pd.Index(ks).get_indexer(df["candidate"].astype(str))
    cube[qi, ji, ki] = _numbers(df["score"], where, "score", empty_ok=True)
    fam = None
    if {"judge_family", "candidate_family"} <= set(df.columns):
        jf = dict(zip(df["judge"].astype(str), df["judge_family"], strict=True))
        kf = dict(zip(df["candidate"].astype(str), df["candidate_family"], strict=True))
        fam = np.array([[jf[j] == kf[k] for k in ks] for j in js])
    if truth is not None and (missing := [k for k in ks if k not in truth]):
        raise ValueError(f"truth has no value for {missing}.")
    if np.isnan(cube).all():
        raise ValueError(f"{where}: every score is empty; expected judge scores.")
    n_levels = levels or (2 if abstain else int(np.nanmax(cube)))
    return jd.from_scores(
        cube,
        candidates=ks,
        judges=js,
        n_levels=n_levels,
        same_family=fam,
        abstain=abstain,
        truth=None if truth is None else [truth[k] for k in ks],
    )


#: Why an option does not apply to a layout (it would be ignored).
_UNUSED = {
    "truth": "its truth is the expert mean",
    "dim": "only the SummEval CSV has dimensions",
    "levels": "only a per-question table takes levels",
    "abstain": "only a per-question table takes abstentions",
}


def _only(file: str | Path, layout: str, **options: object) -> None:
    """Refuse the options (given, i.e. not None/False) that a layout would ignore."""
    for name, value in options.items():
        if value is not None and value is not False:
            raise ValueError(f"{file}: a {layout}; --{name} does not apply ({_UNUSED[name]}).")


def load_judge_data(
    file: str | Path,
    *,
    truth: str | Path | None = None,
    dim: str | None = None,
    levels: int | None = None,
    abstain: bool = False,
) -> list[tuple[str, JudgeData]]:
    """``[(label, JudgeData)]`` from a judge-score CSV or ``dataset:NAME``.

    Parameters
    ----------
    file : str or pathlib.Path
        Count table, per-question table or the SummEval CSV (module docstring).
    truth : str or pathlib.Path, optional
        CSV ``candidate, score`` of ground-truth scores; for the shipped MT-Bench table its
        human ranking is used when this is None.
    dim : str, optional
        SummEval dimension (default: one data set per dimension, labelled by it).
    levels : int, optional
        Number of true score levels ``M`` of a per-question table (default: the largest
        score, or 2 with ``abstain``).
    abstain : bool, optional
        Per-question binary scores -1/0/1 where 0 is an abstention; default ``False``.

    Returns
    -------
    list of (str, JudgeData)
        One labelled data set (``"all"``), or one per SummEval dimension (labelled by it).

    Raises
    ------
    ValueError
        For a file that is not CSV or matches none of the layouts, or an option its layout
        does not use (``truth`` for SummEval, ``dim`` outside SummEval, ``levels`` and
        ``abstain`` outside a per-question table).

    Examples
    --------
    >>> from bayes_eval.judges.load import load_judge_data
    >>> [(label, data.counts.shape) for label, data in load_judge_data("dataset:mtbench_judges")]
    [('all', (2, 6, 5))]
    >>> [(label, data.counts.shape)
    ...  for label, data in load_judge_data("dataset:summeval_judges", dim="fluency")]
    [('fluency', (3, 12, 5))]
    """
    import pandas as pd

    from bayes_eval.datasets import table_path
    from bayes_eval.judges import data as jd

    path = table_path(str(file), kind="judges")
    try:
        head = pd.read_csv(path, nrows=5)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{file}: could not be read as CSV ({exc}).") from exc
    cols = set(head.columns)
    if {"doc_id", "system", "dim"} <= cols:
        _only(file, "SummEval CSV", truth=truth, levels=levels, abstain=abstain)
        dims = [dim] if dim else sorted(str(d) for d in pd.read_csv(path)["dim"].unique())
        return [(d, jd.summeval(str(file), d)) for d in dims]
    scores = None
    if truth:
        scores = read_truth(truth)
    elif str(file) == SHIPPED_WITH_TRUTH:
        scores = _shipped_truth()
    if {"candidate", "judge", "score", "count"} <= cols:
        _only(file, "count table", dim=dim, levels=levels, abstain=abstain)
        return [("all", jd.from_count_table(path, truth=scores))]
    if {"question", "judge", "candidate", "score"} <= cols:
        _only(file, "per-question table", dim=dim)
        df = pd.read_csv(path)  # the scores as text: a word is refused, not read as NaN
        df["score"] = pd.read_csv(path, usecols=["score"], dtype=str, keep_default_na=False)
        return [("all", _per_question(df, scores, levels, abstain, str(file)))]
    raise ValueError(
        f"{file}: expected a count table (candidate, judge, score, count), a per-question "
        "table (question, judge, candidate, score) or the SummEval CSV (doc_id, system, dim)."
    )
