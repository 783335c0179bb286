"""Judge scores from a CSV file: :func:`load_judge_data` recognises the three layouts
``bayes-eval judges`` reads and returns :class:`~bayes_eval.judges.data.JudgeData` for
the model of Vossler et al., "LLMs Judging LLMs: A Simplex Perspective".

* a count table ``candidate, judge, score, count`` (e.g. MT-Bench, Table D.2);
* a per-question table ``question, judge, candidate, score`` with optional
  ``judge_family`` and ``candidate_family`` (a judge scoring its own family is excluded);
* the SummEval CSV ``doc_id, system, dim, ...`` (one data set per dimension).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["SHIPPED_WITH_TRUTH", "load_judge_data", "read_truth"]

#: The shipped count table whose human ranking serves as the truth when none is given.
SHIPPED_WITH_TRUTH = "dataset:mtbench_judges"


def read_truth(path: str | Path) -> dict[str, float]:
    """Ground-truth scores from a CSV with columns ``candidate, score``."""
    import pandas as pd

    if not Path(path).is_file():
        raise ValueError(f"{path}: no such file (expected the --truth CSV candidate,score).")
    t = pd.read_csv(path)
    if not {"candidate", "score"} <= set(t.columns):
        raise ValueError(f"{path}: expected columns candidate, score.")
    return dict(zip(t["candidate"].astype(str), t["score"].astype(float), strict=True))


def _shipped_truth() -> dict[str, float]:
    from bayes_eval.datasets import load

    ranks = load("mtbench_judges")["human_rank"]
    n = ranks.sizes["candidate"]
    names = ranks["candidate"].values
    return {str(c): float(n + 1 - r) for c, r in zip(names, ranks.values, strict=True)}


def _per_question(df, truth, levels, abstain):
    import pandas as pd

    from bayes_eval.judges import data as jd

    qs = pd.unique(df["question"])
    js = list(pd.unique(df["judge"].astype(str)))
    ks = list(pd.unique(df["candidate"].astype(str)))
    cube = np.full((len(qs), len(js), len(ks)), np.nan)
    qi = pd.Index(qs).get_indexer(df["question"])
    ji = pd.Index(js).get_indexer(df["judge"].astype(str))
    ki = pd.Index(ks).get_indexer(df["candidate"].astype(str))
    cube[qi, ji, ki] = pd.to_numeric(df["score"])
    fam = None
    if {"judge_family", "candidate_family"} <= set(df.columns):
        jf = dict(zip(df["judge"].astype(str), df["judge_family"], strict=True))
        kf = dict(zip(df["candidate"].astype(str), df["candidate_family"], strict=True))
        fam = np.array([[jf[j] == kf[k] for k in ks] for j in js])
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


def load_judge_data(
    file: str | Path,
    *,
    truth: str | Path | None = None,
    dim: str | None = None,
    levels: int | None = None,
    abstain: bool = False,
) -> list[tuple[str, object]]:
    """``[(label, JudgeData)]`` from a judge-score CSV or ``dataset:NAME``.

    Parameters
    ----------
    file
        Count table, per-question table or the SummEval CSV (module docstring).
    truth
        CSV ``candidate, score`` of ground-truth scores; for the shipped MT-Bench table its
        human ranking is used when this is None.
    dim
        SummEval dimension (default: one data set per dimension, labelled by it).
    levels
        Number of true score levels ``M`` of a per-question table (default: the largest
        score, or 2 with ``abstain``).
    abstain
        Per-question binary scores -1/0/1 where 0 is an abstention.

    Raises
    ------
    ValueError
        For a file that is not CSV or matches none of the layouts.
    """
    import pandas as pd

    from bayes_eval.datasets import table_path
    from bayes_eval.judges import data as jd

    path = table_path(str(file))
    try:
        head = pd.read_csv(path, nrows=5)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{file}: could not be read as CSV ({exc}).") from exc
    scores = None
    if truth:
        scores = read_truth(truth)
    elif str(file) == SHIPPED_WITH_TRUTH:
        scores = _shipped_truth()
    cols = set(head.columns)
    if {"doc_id", "system", "dim"} <= cols:
        dims = [dim] if dim else sorted(pd.read_csv(path)["dim"].unique())
        return [(d, jd.summeval(path, d)) for d in dims]
    if {"candidate", "judge", "score", "count"} <= cols:
        return [("all", jd.from_count_table(path, truth=scores))]
    if {"question", "judge", "candidate", "score"} <= cols:
        return [("all", _per_question(pd.read_csv(path), scores, levels, abstain))]
    raise ValueError(
        f"{file}: expected a count table (candidate, judge, score, count), a per-question "
        "table (question, judge, candidate, score) or the SummEval CSV (doc_id, system, dim)."
    )
