"""The coverage report: under- and over-coverage per scenario and method, tables and plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot, save_png

__all__ = ["HEADLINE", "plot", "report_lines", "summary", "table"]

HEADLINE = ("anchored", "beta_mixture")


def summary(ds: xr.Dataset, confidence: float = 0.95, *, min_m: int = 15) -> dict:
    """The coverage report: headline scenarios first, under- and over-coverage apart.

    For every scenario and method: the range of coverage per M over the cells of other N and
    C (``coverage_by_M``: ``{M: {"min", "max", "over": "N, C", "cells"}}``), the largest
    undercoverage and the largest overcoverage in percentage points over the cells with
    ``M >= min_m`` (``under_pp``, ``over_pp``; a method can do both), the cells outside
    +-2 points there (``misses``: ``[C, M, N, coverage]``) and whether the +-2 point target
    holds (``within_2pp``). ``headline`` repeats this for the anchored (real per-question
    rates) and beta-mixture scenarios, where the uniform prior is misspecified. Cells whose
    coverage is within 2 Monte Carlo s.e. of the target band are not counted as misses.
    """
    out: dict = {"nominal": confidence, "min_M": min_m, "scenarios": {}}
    for s in ds["scenario"].values:
        cell = ds.sel(scenario=s)
        report = {}
        for m in ds["interval"].values:
            cov = cell["coverage"].sel(interval=m)
            se = cell["coverage_mc_se"].sel(interval=m)
            if not np.isfinite(cov.values).any():
                continue
            by_m = {}
            for mm in ds["M"].values:
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
            report[str(m)] = {
                "coverage_by_M": by_m,
                "under_pp": round(max(under, 0.0), 2) if np.isfinite(under) else None,
                "over_pp": round(max(over, 0.0), 2) if np.isfinite(over) else None,
                "misses": misses,
                "within_2pp": not misses if np.isfinite(under) else None,
            }
        out["scenarios"][str(s)] = report
    out["headline"] = {s: out["scenarios"][s] for s in HEADLINE if s in out["scenarios"]}
    out["claim_error_bayes_max"] = round(float(np.nanmax(ds["claim_error_bayes"].values)), 4)
    out["claim_error_wald_max"] = round(float(np.nanmax(ds["claim_error_wald"].values)), 4)
    return out


def _range(cell: dict) -> str:
    lo, hi = cell["min"], cell["max"]
    return f"{lo:.3f}" if lo == hi else f"{lo:.3f}-{hi:.3f}"


def report_lines(out: dict) -> list[str]:
    """The human-readable coverage report of :func:`summary`: one aligned table per scenario.

    A row per method: coverage per M (the range over the cells of other N and C), the largest
    under- and overcoverage in points over ``M >= min_M`` and the misses (cells outside
    +-2 points by more than 2 Monte Carlo s.e.) out of the cells there.
    """
    nominal, min_m = out["nominal"], out["min_M"]
    lines = [
        f"coverage of the {nominal:.0%} intervals per M (a range a-b spans the cells of other N "
        "and C);",
        f"under/over: the largest gap in points over the cells with M >= {min_m}; misses: those "
        "cells outside +-2 points by more than 2 Monte Carlo s.e.",
    ]
    for scen, methods in out["scenarios"].items():
        if not methods:
            continue
        by_m = {k: {int(m): c for m, c in r["coverage_by_M"].items()} for k, r in methods.items()}
        ms = sorted({m for cells in by_m.values() for m in cells})
        cols = {
            m: {k: _range(by_m[k][m]) if m in by_m[k] else "-" for k, r in methods.items()}
            for m in ms
        }
        width = {m: max(len(f"M={m}"), *map(len, cols[m].values())) for m in ms}
        name_w = max(len("method"), *map(len, methods))
        head = f"  {'method':<{name_w}}  " + "  ".join(f"{f'M={m}':>{width[m]}}" for m in ms)
        tag = " (headline: real or misspecified rates)" if scen in HEADLINE else ""
        lines += ["", f"scenario {scen}{tag}", head + "  under   over  misses"]
        for name, rep in methods.items():
            n_big = sum(c["cells"] for m, c in rep["coverage_by_M"].items() if int(m) >= min_m)
            under = "-" if rep["under_pp"] is None else f"{rep['under_pp']:.1f}"
            over = "-" if rep["over_pp"] is None else f"{rep['over_pp']:.1f}"
            row = f"  {name:<{name_w}}  " + "  ".join(f"{cols[m][name]:>{width[m]}}" for m in ms)
            lines.append(row + f"  {under:>5}  {over:>5}  {len(rep['misses'])}/{n_big}")
    lines += [
        "",
        "largest share of wrong-sign ranking claims (|z| > 1.645 between two simulated "
        f"models) over the cells: Bayes@N (uniform prior) {out['claim_error_bayes_max']}, "
        f"Wald {out['claim_error_wald_max']}",
    ]
    return lines


def table(ds: xr.Dataset, scenario: str, methods=None):
    """Coverage of ``methods`` in one scenario as a ``pandas.DataFrame`` over (C, M, N)."""
    cov = ds["coverage"].sel(scenario=scenario)
    if methods is not None:
        cov = cov.sel(interval=[m for m in methods if m in ds["interval"].values])
    frame = cov.to_dataframe()["coverage"].unstack("interval").dropna(how="all")
    return frame[[m for m in (methods or frame.columns) if m in frame.columns]]


def plot(ds: xr.Dataset, path: str | Path, confidence: float = 0.95) -> Path:
    """Coverage versus M per method (worst over N and C, one panel per scenario), and width
    versus coverage over all cells."""
    plt = pyplot()

    scen = list(ds["scenario"].values)
    fig, axes = plt.subplots(1, len(scen) + 1, figsize=(4.2 * (len(scen) + 1), 4), squeeze=False)
    for ax, s in zip(axes[0], scen, strict=False):
        for m in ds["interval"].values:
            cov = ds["coverage"].sel(scenario=s, interval=m)
            worst = cov.min(dim=[d for d in cov.dims if d != "M"], skipna=True)
            if np.isfinite(worst).any():
                ax.plot(ds["M"], worst, marker="o", label=str(m))
        ax.axhline(confidence, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(f"{s}: worst coverage over N, C")
        ax.set_xlabel("M questions")
    axes[0][0].set_ylabel("coverage")
    axes[0][0].legend(fontsize=7)
    ax = axes[0][-1]
    for m in ds["interval"].values:
        c = ds["coverage"].sel(interval=m).values.ravel()
        wdt = ds["width"].sel(interval=m).values.ravel()
        keep = np.isfinite(c)
        ax.scatter(wdt[keep], c[keep], s=8, label=str(m))
    ax.axhline(confidence, color="k", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("mean width")
    ax.set_title("width versus coverage (all cells)")
    fig.tight_layout()
    return save_png(fig, path)
