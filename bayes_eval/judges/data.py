"""LLM-as-judge data: judge-assigned scores per (question, judge, candidate).

Vossler et al., "LLMs Judging LLMs: A Simplex Perspective".

Notation of Vossler et al. §3: questions ``i``, judges ``j = 1..J``, candidates ``k = 1..K``, true
levels ``m = 1..M`` and assigned levels ``s = 1..L`` (``L = M``, or ``L = 3`` for two true
levels with abstention, ordered incorrect < abstain < correct). Under the likelihood of
eq. B.3 the true score is marginalised separately for each judge, so the counts
``N[j, k, s] = #{i : S_ijk = s}`` are sufficient statistics; per-question scores are kept
when available because the baselines (bootstrap over questions, Bradley-Terry pairs, PPI)
need them.

Pairs in which a judge scores a candidate of its own model family are excluded from the
Bayesian likelihood by default (footnote 1 of Vossler et al.; ``mask``), and kept by the
baselines, as in the paper's Table 1.

Choices where the paper is silent: an unparseable score (``-1``, ``0`` on a 1-5 scale, or
empty) is missing, because the judge gave no usable level and imputing one would invent
data; fractional scores (3.5, a judge hedging between two levels) are rounded half up, so
they land on the scale the model needs, the same way for every judge.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "JudgeData",
    "collapse_levels",
    "from_count_table",
    "from_scores",
    "summeval",
    "summeval_table",
]


@dataclass(frozen=True)
class JudgeData:
    """Judge scores for ranking candidates.

    Attributes
    ----------
    counts : (J, K, L) int array
        ``N[j, k, s]``: how often judge ``j`` gave candidate ``k`` assigned level ``s``.
    mask : (J, K) bool array
        ``True`` where the pair enters the Bayesian likelihood (not the same family).
    same_family : (J, K) bool array
        ``True`` where judge ``j`` and candidate ``k`` are of the same model family.
    candidates, judges : tuple of str
        Names of the ``K`` candidates and of the ``J`` judges.
    true_levels, assigned_levels : tuple of str
        Labels of the ``M`` true and ``L`` assigned levels (ordered low to high).
    values : (M,) array
        Score value of each true level (``1..M`` for Likert, ``0, 1`` for binary): the ranking
        target is ``mu_k = sum_m values[m] pi_{k,m}``.
    correct_level : (M,) int array
        ``t(m)``: the assigned level that is correct for true level ``m``.
    scores : (n, J, K) float array or None
        Per-question assigned levels as indices ``0..L-1`` (NaN = missing), if known.
    truth : (K,) array or None
        Ground-truth score per candidate (e.g. the expert mean), for evaluation only.
    meta : dict
        Provenance, e.g. ``{"source": ..., "dim": ...}``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> data.counts.shape, data.true_levels
    ((2, 3, 3), ('1', '2', '3'))
    >>> data.mean_scores().tolist()
    [[2.0, 1.5, 1.5], [2.0, 1.5, 2.0]]
    """

    counts: NDArray[np.int64]
    mask: NDArray[np.bool_]
    same_family: NDArray[np.bool_]
    candidates: tuple[str, ...]
    judges: tuple[str, ...]
    true_levels: tuple[str, ...]
    assigned_levels: tuple[str, ...]
    values: NDArray[np.float64]
    correct_level: NDArray[np.int64]
    scores: NDArray[np.float64] | None = None
    truth: NDArray[np.float64] | None = None
    meta: dict = field(default_factory=dict)

    @property
    def n_true(self) -> int:
        """Number ``M`` of true score levels."""
        return len(self.true_levels)

    @property
    def n_assigned(self) -> int:
        """Number ``L`` of assigned score levels."""
        return len(self.assigned_levels)

    def with_mask(self, exclude_same_family: bool) -> JudgeData:
        """Same data with the same-family pairs excluded (default) or kept."""
        mask = ~self.same_family if exclude_same_family else np.ones_like(self.same_family)
        mask = mask & (self.counts.sum(axis=2) > 0)
        return JudgeData(**{**self.__dict__, "mask": mask})

    def mean_scores(self) -> NDArray[np.float64]:
        """``(J, K)`` mean assigned score per judge and candidate (assigned level values)."""
        vals = self.assigned_values()
        n = self.counts.sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.counts * vals).sum(axis=2) / n

    def assigned_values(self) -> NDArray[np.float64]:
        """Value of each assigned level: the value of the true level it is correct for.

        An abstention sits halfway between its neighbours.
        """
        vals = np.full(self.n_assigned, np.nan)
        vals[self.correct_level] = self.values
        idx = np.arange(self.n_assigned)
        known = ~np.isnan(vals)
        return np.interp(idx, idx[known], vals[known])


def _validate(
    counts: ArrayLike,
    same_family: ArrayLike,
    candidates: Sequence[str],
    judges: Sequence[str],
    values: Sized,
    correct_level: Sized,
    L: int,
) -> None:
    counts = np.asarray(counts)
    J, K = len(judges), len(candidates)
    if counts.shape != (J, K, L):
        raise ValueError(f"counts has shape {counts.shape}; expected (J, K, L) = ({J}, {K}, {L}).")
    if (counts < 0).any() or (counts != np.round(counts)).any():
        raise ValueError("counts must be non-negative integers.")
    if counts.sum() == 0:
        raise ValueError("there are no scores; expected at least one judge score.")
    if len(set(candidates)) != K or len(set(judges)) != J:
        raise ValueError("candidate and judge names must be unique.")
    if np.asarray(same_family).shape != (J, K):
        raise ValueError(f"same_family has shape {np.shape(same_family)}; expected ({J}, {K}).")
    if len(values) != len(correct_level):
        raise ValueError("values and correct_level need one entry per true level.")


def from_count_table(
    table: str | Path | pd.DataFrame,
    *,
    n_levels: int | None = None,
    values: Sequence[float] | None = None,
    truth: dict[str, float] | None = None,
) -> JudgeData:
    """Counts from a long table ``candidate, judge, score, count[, same_family]``.

    ``score`` is 1..M (Likert); ``same_family`` (0/1) marks pairs to exclude; extra columns
    ``candidate_family`` and ``judge_family`` are used when ``same_family`` is absent. This is
    the layout of the shipped MT-Bench table (``"dataset:mtbench_judges"``, Table D.2 of
    Vossler et al., "LLMs Judging LLMs: A Simplex Perspective"). ``truth`` maps candidates to
    a ground-truth score (evaluation only).

    Parameters
    ----------
    table : str, pathlib.Path or pandas.DataFrame
        The long table, a CSV path or a shipped ``"dataset:..."`` name.
    n_levels : int, optional
        Number ``M`` of levels, default the largest score in the table.
    values : sequence of float, optional
        Score value of each level, default ``1..M``.
    truth : dict of str to float, optional
        Ground-truth score of every candidate.

    Returns
    -------
    JudgeData
        The counts ``N[j, k, s]`` with the same-family pairs masked out.

    Raises
    ------
    ValueError
        For a missing column, a score outside ``1..M``, a count that is not a non-negative
        integer, or a candidate without a ``truth`` value.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayes_eval.judges.data import from_count_table
    >>> table = pd.DataFrame({"candidate": ["a", "a", "b", "b"], "judge": ["j"] * 4,
    ...                       "score": [1, 2, 1, 2], "count": [3, 1, 1, 3]})
    >>> data = from_count_table(table)
    >>> data.counts.tolist(), data.candidates
    ([[[3, 1], [1, 3]]], ('a', 'b'))
    >>> from_count_table("dataset:mtbench_judges").counts.shape
    (2, 6, 5)
    """
    from bayes_eval.datasets import table_path

    if not isinstance(table, pd.DataFrame):
        table = table_path(table, kind="judges")
    src = str(table) if not isinstance(table, pd.DataFrame) else "table"
    df = pd.read_csv(table) if not isinstance(table, pd.DataFrame) else table.copy()
    need = {"candidate", "judge", "score", "count"}
    if not need <= set(df.columns):
        raise ValueError(f"{src}: expected columns {sorted(need)}, found {list(df.columns)}.")
    score = pd.to_numeric(df["score"], errors="coerce")
    if score.isna().any() or (score != np.round(score)).any():
        i = int(np.flatnonzero((score.isna() | (score != np.round(score))).to_numpy())[0])
        raise ValueError(
            f"{src}: row {i + 2} has score {str(df['score'].iloc[i])!r}; expected 1..M."
        )
    count = pd.to_numeric(df["count"], errors="coerce")
    bad = count.isna() | (count < 0) | (count != np.round(count))
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raw = df["count"].iloc[i]
        shown = "an empty count" if pd.isna(raw) else f"count {str(raw)!r}"
        raise ValueError(f"{src}: row {i + 2} has {shown}; expected a non-negative integer.")
    M = int(n_levels or score.max())
    if score.min() < 1 or score.max() > M:
        raise ValueError(f"{src}: scores must lie in 1..{M}.")
    candidates = tuple(pd.unique(df["candidate"].astype(str)))
    judges = tuple(pd.unique(df["judge"].astype(str)))
    counts = np.zeros((len(judges), len(candidates), M), dtype=np.int64)
    ji = pd.Index(judges).get_indexer(df["judge"].astype(str))
    ki = pd.Index(candidates).get_indexer(df["candidate"].astype(str))
    np.add.at(counts, (ji, ki, score.to_numpy(int) - 1), count.to_numpy(np.int64))
    fam = np.zeros((len(judges), len(candidates)), dtype=bool)
    if "same_family" in df.columns:
        fam[ji, ki] = df["same_family"].to_numpy().astype(bool)
    elif {"candidate_family", "judge_family"} <= set(df.columns):
        fam[ji, ki] = (df["candidate_family"] == df["judge_family"]).to_numpy()
    vals = np.asarray(values if values is not None else np.arange(1, M + 1), dtype=float)
    levels = tuple(str(m) for m in range(1, M + 1))
    _validate(counts, fam, candidates, judges, vals, np.arange(M), M)
    tr = None
    if truth is not None:
        missing = [c for c in candidates if c not in truth]
        if missing:
            raise ValueError(f"truth has no value for {missing}.")
        tr = np.array([float(truth[c]) for c in candidates])
    return JudgeData(
        counts=counts,
        mask=~fam & (counts.sum(2) > 0),
        same_family=fam,
        candidates=candidates,
        judges=judges,
        true_levels=levels,
        assigned_levels=levels,
        values=vals,
        correct_level=np.arange(M),
        truth=tr,
        meta={"source": src},
    )


def from_scores(
    scores: NDArray,
    *,
    candidates: Sequence[str],
    judges: Sequence[str],
    n_levels: int,
    same_family: NDArray | None = None,
    abstain: bool = False,
    values: Sequence[float] | None = None,
    truth: Sequence[float] | None = None,
) -> JudgeData:
    """Per-question scores ``(n, J, K)`` on ``1..M`` (NaN, -1 or 0 = missing).

    Fractional scores are rounded half up. With ``abstain=True`` (binary, ``M = 2``), the
    scores are ``-1`` (incorrect), ``0`` (abstain), ``1`` (correct), mapped to the ordered
    assigned levels incorrect < abstain < correct.

    Parameters
    ----------
    scores : numpy.ndarray of shape (n, J, K)
        Score of each question, judge and candidate on ``1..M`` (or ``-1, 0, 1`` with
        ``abstain``).
    candidates : sequence of str
        Names of the ``K`` candidates.
    judges : sequence of str
        Names of the ``J`` judges.
    n_levels : int
        Number ``M`` of true levels.
    same_family : numpy.ndarray of bool, shape (J, K), optional
        Pairs of the same model family, excluded from the likelihood; default none.
    abstain : bool, optional
        Binary scores with an abstention level, default ``False``.
    values : sequence of float, optional
        Score value of each true level, default ``1..M`` (``0, 1`` with ``abstain``).
    truth : sequence of float, optional
        Ground-truth score per candidate, for evaluation only.

    Returns
    -------
    JudgeData
        The counts and the per-question assigned levels.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[5, 4]], [[3.5, 0]]])  # 2 questions, 1 judge, 2 candidates
    >>> data = from_scores(scores, candidates=["a", "b"], judges=["gpt"], n_levels=5)
    >>> data.counts.tolist()  # 3.5 rounds up to 4; 0 is missing
    [[[0, 0, 0, 1, 1], [0, 0, 0, 1, 0]]]
    >>> binary = np.array([[[1, 0, -1]], [[1, 1, np.nan]]])
    >>> abst = from_scores(binary, candidates=["a", "b", "c"], judges=["gpt"], n_levels=2,
    ...                    abstain=True)
    >>> abst.assigned_levels, abst.counts.tolist()
    (('incorrect', 'abstain', 'correct'), [[[0, 0, 2], [0, 1, 1], [1, 0, 0]]])
    """
    s = np.array(scores, dtype=np.float64)
    if s.ndim != 3 or s.shape[1:] != (len(judges), len(candidates)):
        raise ValueError(
            f"scores has shape {s.shape}; expected (n, J, K) = "
            f"(n, {len(judges)}, {len(candidates)})."
        )
    M = int(n_levels)
    if abstain:
        if M != 2:
            raise ValueError("abstain=True needs n_levels=2 (binary true scores).")
        bad = ~np.isnan(s) & ~np.isin(s, [-1, 0, 1])
        if bad.any():
            raise ValueError("with abstain=True scores must be -1, 0 or 1 (or NaN).")
        idx = s + 1  # -1 -> 0 incorrect, 0 -> 1 abstain, 1 -> 2 correct
        assigned: tuple[str, ...]
        true_levels: tuple[str, ...]
        L, assigned, correct = 3, ("incorrect", "abstain", "correct"), np.array([0, 2])
        true_levels = ("incorrect", "correct")
        vals = np.asarray(values if values is not None else [0.0, 1.0], dtype=float)
    else:
        r = np.floor(s + 0.5)
        r[(r < 1) | (r > M)] = np.nan  # -1 / 0: unparseable -> missing
        idx = r - 1
        L, correct = M, np.arange(M)
        assigned = true_levels = tuple(str(m) for m in range(1, M + 1))
        vals = np.asarray(values if values is not None else np.arange(1, M + 1), dtype=float)
    counts = np.zeros((len(judges), len(candidates), L), dtype=np.int64)
    ok = ~np.isnan(idx)
    _, jj, kk = np.nonzero(ok)
    np.add.at(counts, (jj, kk, idx[ok].astype(int)), 1)
    fam = (
        np.zeros((len(judges), len(candidates)), bool)
        if same_family is None
        else (np.asarray(same_family, dtype=bool))
    )
    _validate(counts, fam, tuple(candidates), tuple(judges), vals, correct, L)
    tr = None if truth is None else np.asarray(truth, dtype=float)
    return JudgeData(
        counts=counts,
        mask=~fam & (counts.sum(2) > 0),
        same_family=fam,
        candidates=tuple(candidates),
        judges=tuple(judges),
        true_levels=true_levels,
        assigned_levels=assigned,
        values=vals,
        correct_level=correct,
        scores=idx,
        truth=tr,
    )


#: The judges of Vossler et al.'s SummEval experiment (column names of the SummEval table).
SUMMEVAL_JUDGES = ("j_gpt4_0314", "j_gpt35_0301", "j_llama2_70b")


def summeval_table(path: str | Path = "dataset:summeval_judges") -> pd.DataFrame:
    """The SummEval table (one row per ``doc_id, system, dim``) with ``expert_mean``.

    ``path`` is the shipped table (default) or a CSV with columns ``doc_id, system, dim``,
    judge columns, and ``expert_mean`` or ``expert1..3`` (their mean is computed).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The table, default the shipped ``"dataset:summeval_judges"``.

    Returns
    -------
    pandas.DataFrame
        The table with an ``expert_mean`` column; ``attrs["source"]`` names the file.

    Examples
    --------
    >>> from bayes_eval.judges.data import summeval_table
    >>> table = summeval_table()
    >>> table.shape, sorted(table["dim"].unique())
    ((4800, 17), ['coherence', 'consistency', 'fluency', 'relevance'])
    """
    from bayes_eval.datasets import table_path

    path = table_path(path, kind="judges")
    try:
        df = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: could not be read as CSV ({exc}).") from exc
    if not {"doc_id", "system", "dim"} <= set(df.columns):
        raise ValueError(f"{path}: expected columns doc_id, system, dim.")
    if "expert_mean" not in df.columns:
        experts = [c for c in df.columns if c.startswith("expert")]
        if not experts:
            raise ValueError(f"{path}: no expert_mean or expert1..3 columns for the truth.")
        df["expert_mean"] = df[experts].mean(axis=1)
    df.attrs["source"] = str(path)
    return df


def summeval(
    path: str | Path = "dataset:summeval_judges",
    dim: str = "coherence",
    *,
    judges: Sequence[str] = SUMMEVAL_JUDGES,
) -> JudgeData:
    """One SummEval dimension (coherence, consistency, fluency, relevance) as judge scores.

    12 systems x 100 documents, 1-5 scores of the given judge columns; ground truth = the
    systems' mean expert score. No judge is a candidate, so no pair is excluded. ``path``: see
    :func:`summeval_table` (default: the shipped ``"dataset:summeval_judges"``).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The SummEval table, default the shipped ``"dataset:summeval_judges"``.
    dim : str, optional
        The dimension, default ``"coherence"``.
    judges : sequence of str, optional
        Judge columns, default ``SUMMEVAL_JUDGES`` (GPT-4, GPT-3.5 and Llama-2-70B).

    Returns
    -------
    JudgeData
        Scores of the 12 systems on 1..5, with the expert mean as ``truth``.

    Examples
    --------
    >>> from bayes_eval.judges.data import summeval
    >>> data = summeval(dim="coherence")
    >>> data.counts.shape, data.candidates[:3], data.meta["dim"]
    ((3, 12, 5), ('M8', 'M9', 'M10'), 'coherence')
    >>> data.truth.round(3)[:3].tolist()
    [3.29, 2.383, 2.727]
    """
    df = summeval_table(path)
    dims = sorted(df["dim"].unique())
    if dim not in dims:
        raise ValueError(
            f"{path}: no dimension {str(dim)!r}; expected one of {[str(d) for d in dims]}."
        )
    missing = [j for j in judges if j not in df.columns]
    if missing:
        raise ValueError(f"{path}: no judge column(s) {missing}.")
    d = df[df["dim"] == dim]
    systems = sorted(d["system"].unique(), key=lambda s: (len(s), s))  # M8 < M9 < M10
    docs = sorted(d["doc_id"].unique())
    cube = np.full((len(docs), len(judges), len(systems)), np.nan)
    di = pd.Index(docs).get_indexer(d["doc_id"])
    si = pd.Index(systems).get_indexer(d["system"])
    for j, col in enumerate(judges):
        cube[di, j, si] = d[col].to_numpy(float)
    truth = d.groupby("system")["expert_mean"].mean().reindex(systems).to_numpy()
    out = from_scores(cube, candidates=systems, judges=list(judges), n_levels=5, truth=truth)
    return JudgeData(**{**out.__dict__, "meta": {"source": str(path), "dim": dim}})


def collapse_levels(data: JudgeData, groups: Sequence[Sequence[int]]) -> JudgeData:
    """Merge assigned (and true) levels into groups.

    E.g. ``[[0, 1], [2], [3, 4]]`` turns a 1-5 scale into 3 levels (low, middle, high) for a
    ternary plot. Values become group means.

    Parameters
    ----------
    data : JudgeData
        Judge scores without an abstention level (``L = M``).
    groups : sequence of sequence of int
        A partition of the level indices ``0..M-1``, in order from low to high.

    Returns
    -------
    JudgeData
        The same data on ``len(groups)`` levels, labelled like ``"1+2"``.

    Examples
    --------
    >>> from bayes_eval.judges.data import collapse_levels, summeval
    >>> three = collapse_levels(summeval(), [[0, 1], [2], [3, 4]])
    >>> three.counts.shape, three.true_levels, three.values.tolist()
    ((3, 12, 3), ('1+2', '3', '4+5'), [1.5, 3.0, 4.5])
    """
    if data.n_assigned != data.n_true:
        raise ValueError("collapse_levels needs L = M (no abstention level).")
    flat = sorted(i for g in groups for i in g)
    if flat != list(range(data.n_true)):
        raise ValueError(f"groups must partition 0..{data.n_true - 1}; got {groups}.")
    counts = np.stack([data.counts[..., list(g)].sum(-1) for g in groups], axis=-1)
    vals = np.array([data.values[list(g)].mean() for g in groups])
    labels = tuple("+".join(data.true_levels[i] for i in g) for g in groups)
    scores = None
    if data.scores is not None:
        lut = np.full(data.n_true, np.nan)
        for gi, g in enumerate(groups):
            lut[list(g)] = gi
        ok = ~np.isnan(data.scores)
        scores = np.full(data.scores.shape, np.nan)
        scores[ok] = lut[data.scores[ok].astype(int)]
    return JudgeData(
        **{
            **data.__dict__,
            "counts": counts,
            "true_levels": labels,
            "assigned_levels": labels,
            "values": vals,
            "correct_level": np.arange(len(groups)),
            "scores": scores,
        }
    )
