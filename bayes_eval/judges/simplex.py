"""The simplex view of judges and candidates: geometry and identifiability.

After Vossler et al., "LLMs Judging LLMs: A Simplex Perspective", §3-4.

A judge ``j`` with confusion matrix ``theta^(j)`` (rows ``theta_m``: the distribution of the
assigned score when the true score is ``m``) is ``M`` *vertices* on the simplex of assigned
scores; a candidate's assigned-score distribution ``gamma_k = sum_m pi_{k,m} theta_m`` is a
point inside the polytope they span, and its barycentric coordinates are its prevalences
``pi_k`` (areas of sub-triangles for ``M = 3``, Figure 4).

Two-level scoring (Theorem 1). With ``M = 2``, ``gamma_{k,high} = theta_{1,high} +
pi_{k,high} (theta_{2,high} - theta_{1,high})`` is increasing in ``pi_{k,high}`` whenever
``theta_{2,high} > theta_{1,high}`` (Assumption 3), so the order of the candidates along the
segment is their true order whatever the judge's accuracy: the ranking is identifiable from
one judge under strong constancy (i), or from ``J >= 2`` judges and ``K >= 4`` candidates
under moderate constancy (ii). With three or more levels no such guarantee exists
(Theorem 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "assumption3_holds",
    "barycentric_prevalence",
    "plot_simplex",
    "ternary_xy",
    "two_level_identifiable",
    "two_level_prevalence",
    "two_level_ranks",
]


def assumption3_holds(theta: ArrayLike) -> NDArray[np.bool_]:
    """Assumption 3 per judge: ``theta[m, lowest]`` strictly decreasing in ``m``.

    As in Vossler et al., "LLMs Judging LLMs: A Simplex Perspective", Assumption 3 ("decreases
    with respect to m"), and as Theorem 1 uses it: a judge whose rows tie on the lowest level
    cannot tell those levels apart, and the ranking is not identifiable from it.

    ``theta`` is ``(M, L)`` or ``(J, M, L)``; returns one Boolean per judge.

    Parameters
    ----------
    theta : array_like of float, shape (M, L) or (J, M, L)
        Confusion matrix of one judge, or of each of ``J`` judges: row ``m`` is the
        distribution of the assigned level when the true level is ``m``.

    Returns
    -------
    numpy.ndarray of bool, shape (J,)
        Whether each judge satisfies Assumption 3 (shape ``(1,)`` for one judge).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.simplex import assumption3_holds
    >>> theta = np.array([[0.8, 0.2], [0.3, 0.7]])
    >>> assumption3_holds(theta).tolist()
    [True]
    >>> assumption3_holds([theta, theta[::-1]]).tolist()  # the second judge flips labels
    [True, False]
    """
    t = np.asarray(theta, dtype=float)
    if t.ndim == 2:
        t = t[None]
    return np.all(np.diff(t[:, :, 0], axis=1) < 0, axis=1)


def two_level_identifiable(
    *, n_judges: int, n_candidates: int, constancy: str, assumption3: bool
) -> dict[str, object]:
    """Which sufficient condition of Theorem 1 holds for 2-level scoring.

    ``constancy`` is ``"strong"`` (Assumption 1: a judge's confusion matrix is the same for
    all candidates) or ``"moderate"`` (Assumption 2: the same for all non-self candidates).

    Parameters
    ----------
    n_judges : int
        Number ``J`` of judges.
    n_candidates : int
        Number ``K`` of candidates.
    constancy : {"strong", "moderate"}
        Which constancy assumption holds.
    assumption3 : bool
        Whether the judges satisfy Assumption 3 (:func:`assumption3_holds`).

    Returns
    -------
    dict
        ``identifiable``, ``condition_i``, ``condition_ii`` (bool) and ``reason`` (str).

    Examples
    --------
    >>> from bayes_eval.judges.simplex import two_level_identifiable
    >>> out = two_level_identifiable(n_judges=2, n_candidates=4, constancy="moderate",
    ...                              assumption3=True)
    >>> out["identifiable"], out["condition_ii"]
    (True, True)
    >>> two_level_identifiable(n_judges=1, n_candidates=4, constancy="moderate",
    ...                        assumption3=True)["reason"]
    'moderate constancy needs J >= 2 judges and K >= 4 candidates (Theorem 1 (ii)).'
    """
    if constancy not in ("strong", "moderate"):
        raise ValueError(f"constancy is {str(constancy)!r}; expected 'strong' or 'moderate'.")
    cond_i = assumption3 and constancy == "strong" and n_judges >= 1
    cond_ii = assumption3 and n_judges >= 2 and n_candidates >= 4
    if cond_i:
        why = "Theorem 1 (i): a judge satisfying Assumptions 1 and 3 orders the candidates."
    elif cond_ii:
        why = "Theorem 1 (ii): K >= 4 candidates and J >= 2 judges under Assumptions 2 and 3."
    elif not assumption3:
        why = "Assumption 3 fails: an adversarial judge can flip the ranking (label flipping)."
    else:
        why = "moderate constancy needs J >= 2 judges and K >= 4 candidates (Theorem 1 (ii))."
    return {
        "identifiable": bool(cond_i or cond_ii),
        "condition_i": bool(cond_i),
        "condition_ii": bool(cond_ii),
        "reason": why,
    }


def two_level_prevalence(gamma_high: ArrayLike, theta: ArrayLike) -> NDArray[np.float64]:
    """``pi_{k,high}`` from ``gamma_{k,high}`` and a 2-level confusion matrix ``theta (2, 2)``.

    Its position on the segment: ``(gamma_high - theta[0, 1]) / (theta[1, 1] - theta[0, 1])``.

    Parameters
    ----------
    gamma_high : array_like of float, shape (K,)
        Share of high scores the judge gives each candidate.
    theta : array_like of float, shape (2, 2)
        The judge's confusion matrix (rows: true low, true high).

    Returns
    -------
    numpy.ndarray of float, shape (K,)
        Prevalence ``pi_{k,high}`` of the high true level for each candidate.

    Raises
    ------
    ValueError
        If ``theta`` is not ``(2, 2)`` or violates Assumption 3.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.simplex import two_level_prevalence
    >>> theta = np.array([[0.8, 0.2], [0.3, 0.7]])
    >>> two_level_prevalence([0.25, 0.45, 0.65], theta).round(4).tolist()
    [0.1, 0.5, 0.9]
    """
    t = np.asarray(theta, dtype=float)
    if t.shape != (2, 2):
        raise ValueError(f"theta has shape {t.shape}; expected (2, 2).")
    gap = t[1, 1] - t[0, 1]
    if gap <= 0:
        raise ValueError("theta violates Assumption 3 (theta[1, high] <= theta[0, high]).")
    return (np.asarray(gamma_high, dtype=float) - t[0, 1]) / gap


def two_level_ranks(gamma_high: ArrayLike) -> NDArray[np.int64]:
    """Candidate ranks (1 = best) from the share of high scores a judge gives them.

    Under Theorem 1 this is the true ranking, without knowing the judge's confusion matrix.

    Parameters
    ----------
    gamma_high : array_like of float, shape (K,)
        Share of high scores the judge gives each candidate.

    Returns
    -------
    numpy.ndarray of int, shape (K,)
        Competition ranks (ties share the smallest rank).

    Examples
    --------
    >>> from bayes_eval.judges.simplex import two_level_ranks
    >>> two_level_ranks([0.25, 0.65, 0.45, 0.65]).tolist()
    [4, 1, 3, 1]
    """
    g = np.asarray(gamma_high, dtype=float)
    return (1 + (g[None, :] > g[:, None]).sum(axis=1)).astype(np.int64)


def barycentric_prevalence(gamma: ArrayLike, vertices: ArrayLike) -> NDArray[np.float64]:
    """Prevalences ``pi`` with ``gamma = pi @ vertices``: the barycentric coordinates of ``gamma``.

    ``vertices`` is ``(M, M)``, its rows on the simplex and linearly independent.

    Parameters
    ----------
    gamma : array_like of float, shape (M,) or (K, M)
        Assigned-score distribution of one or ``K`` candidates.
    vertices : array_like of float, shape (M, M)
        The judge's confusion matrix ``theta`` (row ``m``: vertex of true level ``m``).

    Returns
    -------
    numpy.ndarray of float, shape (K, M)
        Prevalences ``pi`` of each candidate (one row for a single ``gamma``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.simplex import barycentric_prevalence
    >>> V = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]])
    >>> gamma = np.array([0.2, 0.3, 0.5]) @ V
    >>> barycentric_prevalence(gamma, V).round(4).tolist()
    [[0.2, 0.3, 0.5]]
    """
    V = np.asarray(vertices, dtype=float)
    g = np.atleast_2d(np.asarray(gamma, dtype=float))
    if V.ndim != 2 or V.shape[0] != V.shape[1]:
        raise ValueError(f"vertices has shape {V.shape}; expected (M, M).")
    return np.linalg.solve(V.T, g.T).T


def ternary_xy(p: ArrayLike) -> NDArray[np.float64]:
    """2-D coordinates of points on the 2-simplex (corners (0, 0), (1, 0), (1/2, sqrt(3)/2)).

    Parameters
    ----------
    p : array_like of float, shape (..., 3)
        Points on the simplex of three levels.

    Returns
    -------
    numpy.ndarray of float, shape (..., 2)
        Their ``(x, y)`` coordinates in the equilateral triangle.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.simplex import ternary_xy
    >>> ternary_xy(np.eye(3)).round(4).tolist()
    [[0.0, 0.0], [1.0, 0.0], [0.5, 0.866]]
    >>> ternary_xy([1 / 3, 1 / 3, 1 / 3]).round(4).tolist()
    [0.5, 0.2887]
    """
    p = np.asarray(p, dtype=float)
    x = p[..., 1] + 0.5 * p[..., 2]
    y = np.sqrt(3) / 2 * p[..., 2]
    return np.stack([x, y], axis=-1)


def plot_simplex(
    theta: ArrayLike,
    gamma: ArrayLike,
    path: str | Path,
    *,
    candidates: Sequence[str],
    judges: Sequence[str],
    levels: Sequence[str] = ("low", "middle", "high"),
    title: str | None = None,
) -> Path:
    """Ternary plot of judges and candidates (Vossler et al., Figures 2-4).

    Per judge, its three vertices ``theta_m`` (posterior means) joined as a triangle, and the
    candidates' points ``gamma_jk`` inside it.

    ``theta`` is ``(J, 3, 3)``, ``gamma`` ``(J, K, 3)``. For ``M = 5`` collapse the levels first
    (:func:`bayes_eval.judges.data.collapse_levels`, e.g. {1, 2}, {3}, {4, 5}).

    Parameters
    ----------
    theta : array_like of float, shape (J, 3, 3)
        Confusion matrix of each judge (its three vertices).
    gamma : array_like of float, shape (J, K, 3)
        Assigned-score distribution of each candidate under each judge.
    path : str or pathlib.Path
        Where to write the PNG.
    candidates : sequence of str
        Names of the ``K`` candidates.
    judges : sequence of str
        Names of the ``J`` judges.
    levels : sequence of str, optional
        Labels of the three corners, default ``("low", "middle", "high")``.
    title : str, optional
        Title of the figure; default a description of the marks.

    Returns
    -------
    pathlib.Path
        The path of the PNG written.

    Raises
    ------
    ValueError
        If ``theta`` or ``gamma`` is not on three levels.

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from bayes_eval.judges.simplex import plot_simplex
    >>> V = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]])
    >>> theta = np.stack([V, V[::-1, ::-1]])  # two judges
    >>> pi = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])  # two candidates
    >>> gamma = np.einsum("km,jms->jks", pi, theta)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = plot_simplex(theta, gamma, folder + "/simplex.png", candidates=["a", "b"],
    ...                        judges=["j1", "j2"])
    ...     png.name, png.is_file()
    ('simplex.png', True)
    """
    from bayes_eval.plotting.figure import pyplot, save_png

    theta = np.asarray(theta, dtype=float)
    gamma = np.asarray(gamma, dtype=float)
    if theta.shape[1:] != (3, 3) or gamma.shape[-1] != 3:
        raise ValueError("the ternary plot needs 3 levels: collapse the scale first.")
    from matplotlib.lines import Line2D

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8.6, 5.8))
    corners = ternary_xy(np.eye(3))
    ax.plot(*np.vstack([corners, corners[:1]]).T, color="0.3", lw=1)
    for c, lab in zip(corners, levels, strict=True):
        ax.annotate(
            lab,
            c,
            xytext=(0, -12 if c[1] == 0 else 6),
            textcoords="offset points",
            ha="center",
            fontsize=9,
        )
    markers = "os^Dv<>p"
    cmap = plt.get_cmap("tab10")
    for j, name in enumerate(judges):
        v = ternary_xy(theta[j])
        ax.plot(*np.vstack([v, v[:1]]).T, ls="--", color=cmap(j), lw=1.2, label=f"judge {name}")
        ax.scatter(*v.T, marker="*", s=120, color=cmap(j), zorder=3)
        pts = ternary_xy(gamma[j])
        for k in range(len(candidates)):
            ax.scatter(
                *pts[k],
                marker=markers[k % len(markers)],
                color=cmap(j),
                s=28,
                edgecolor="k",
                lw=0.4,
                zorder=4,
            )
    ax.set_aspect("equal")
    ax.axis("off")
    # the names in two legends beside the triangle, not written at the points (which cluster)
    first = ax.legend(
        loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False, title="judges"
    )
    ax.add_artist(first)
    marks = [
        Line2D([], [], ls="", marker=markers[k % len(markers)], color="0.8", mec="k", mew=0.4)
        for k in range(len(candidates))
    ]
    ax.legend(
        marks,
        list(candidates),
        loc="lower left",
        bbox_to_anchor=(1.0, 0.0),
        fontsize=7,
        frameon=False,
        title="candidates",
    )
    ax.set_title(title or "judges (stars: vertices theta_m) and candidates (gamma_jk)")
    fig.tight_layout()
    return save_png(fig, path)
