r"""Private helpers of the coverage report: one method's coverage per scenario, one table.

The report of :func:`bayes_eval.validation.coverage.summary` (coverage per M, the largest
under- and overcoverage in points, the misses outside +-2 points by more than 2 Monte Carlo
s.e. :math:`\sqrt{c(1-c)/n}`) and the aligned tables of
:func:`bayes_eval.validation.coverage.report_lines`.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []


def _method_report(cell, m, m_values, confidence: float, min_m: int) -> dict | None:
    """The report of one interval method in one scenario (``None``: no finite coverage)."""
    cov = cell["coverage"].sel(interval=m)
    se = cell["coverage_mc_se"].sel(interval=m)
    if not np.isfinite(cov.values).any():
        return None
    by_m = {}
    for mm in m_values:
        v = cov.sel(M=mm).values
        v = v[np.isfinite(v)]
        if v.size:
            by_m[int(mm)] = {
                "min": round(float(v.min()), 4),
                "max": round(float(v.max()), 4),
                "over": "N, C",
                "cells": int(v.size),
            }
    big = cov.where(cov["M"] >= min_m)
    under = float(np.nanmax(confidence - big.values, initial=-np.inf)) * 100
    over = float(np.nanmax(big.values - confidence, initial=-np.inf)) * 100
    misses = []
    for idx in zip(*np.nonzero(np.isfinite(big.values)), strict=True):
        point = big[idx]
        c, err = float(point), float(se[idx])
        if abs(c - confidence) > 0.02 + 2 * err:
            coords = {d: int(point[d]) for d in ("C", "M", "N")}
            misses.append([coords["C"], coords["M"], coords["N"], round(c, 4)])
    sharp = (
        cell["sd_over_rmse"].sel(interval=m).where(cov["M"] >= min_m).values
        if "sd_over_rmse" in cell
        else np.array([np.nan])
    )
    sharp = sharp[np.isfinite(sharp)]
    return {
        "coverage_by_M": by_m,
        "sd_over_rmse": (
            [round(float(sharp.min()), 3), round(float(sharp.max()), 3)] if sharp.size else None
        ),
        "under_pp": round(max(under, 0.0), 2) if np.isfinite(under) else None,
        "over_pp": round(max(over, 0.0), 2) if np.isfinite(over) else None,
        "misses": misses,
        "within_2pp": not misses if np.isfinite(under) else None,
    }


def _range(cell: dict) -> str:
    lo, hi = cell["min"], cell["max"]
    return f"{lo:.3f}" if lo == hi else f"{lo:.3f}-{hi:.3f}"


def _scenario_lines(scen, methods: dict, min_m: int, tag: str) -> list[str]:
    """The aligned table of one scenario: a row per method, a column per M."""
    by_m = {k: {int(m): c for m, c in r["coverage_by_M"].items()} for k, r in methods.items()}
    ms = sorted({m for cells in by_m.values() for m in cells})
    cols = {
        m: {k: _range(by_m[k][m]) if m in by_m[k] else "-" for k, r in methods.items()} for m in ms
    }
    width = {m: max(len(f"M={m}"), *map(len, cols[m].values())) for m in ms}
    name_w = max(len("method"), *map(len, methods))
    head = f"  {'method':<{name_w}}  " + "  ".join(f"{f'M={m}':>{width[m]}}" for m in ms)
    lines = ["", f"scenario {scen}{tag}", head + "  under   over  misses  sd/RMSE"]
    for name, rep in methods.items():
        n_big = sum(c["cells"] for m, c in rep["coverage_by_M"].items() if int(m) >= min_m)
        under = "-" if rep["under_pp"] is None else f"{rep['under_pp']:.1f}"
        over = "-" if rep["over_pp"] is None else f"{rep['over_pp']:.1f}"
        sharp = rep.get("sd_over_rmse")
        sharp_txt = "-" if not sharp else f"{sharp[0]:.2f}-{sharp[1]:.2f}"
        row = f"  {name:<{name_w}}  " + "  ".join(f"{cols[m][name]:>{width[m]}}" for m in ms)
        lines.append(row + f"  {under:>5}  {over:>5}  {len(rep['misses'])}/{n_big}  {sharp_txt:>9}")
    return lines
