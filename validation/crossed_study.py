r"""Study ``crossed``: coverage of the crossed model with and without its interaction option.

The crossed model (:func:`bayes_eval.models.crossed_model`) explains every (LLM, question)
rate by an ability and a shared difficulty, :math:`p_{lq} = \mathrm{logit}^{-1}(\theta_l -
b_q)`. When LLMs have question-specific strengths the truth is

.. math:: p_{lq} = \mathrm{logit}^{-1}(\theta_l - b_q + e_{lq}), \qquad
   e_{lq} \sim N(0, \tau^2),

and the pure Rasch model attributes the cell-level variation to binomial noise: its
intervals are too narrow. ``interaction=True`` adds :math:`e_{lq}` to the model (a
non-centred, doubly zero-sum random effect with a half-normal prior on its sd).

**Boards.** :func:`bayes_eval.synthetic.leaderboard.simulate_leaderboard` with ``n_models``
LLMs, ``n_questions`` questions, ``N`` binary trials per cell, :math:`\theta_l \sim N(0,
s_\theta^2)`, :math:`b_q \sim N(0, s_b^2)` and the interaction sd :math:`\tau`
(``interaction_sds``), as in the design of the issue that asked for this check (6 LLMs,
M = 30, :math:`s_\theta = 0.5`, :math:`s_b = 2`, :math:`\tau \in \{0, 1\}`, N in {1, 4}). Each
board is fitted twice, without (``rasch``) and with (``interaction``) the option: the two
fits see the same boards (paired). The truths are of the *these questions* estimand: the
true rates :math:`p_{lq}`, their means :math:`\bar p_l = \frac1M\sum_q p_{lq}` and the
competition ranks of the :math:`\bar p_l` (1 = best).

**Checks** at credible level ``confidence`` (equal-tailed quantiles of the draws): the share of
true :math:`\bar p_l` inside the interval of ``pi_bar``, of true :math:`p_{lq}` inside the
interval of ``p``, and of true ranks inside the rank interval of
:func:`bayes_eval.models.crossed_rank_table` (quantiles of the rank of every draw); beside
coverage, the sharpness *posterior sd / RMSE of the posterior mean* (1 is honest, below 0.9
overconfident, above 1.2 wasteful) and the mean width of the rank interval. The LLMs and cells
of one board share its questions, so they are not independent: the Monte Carlo standard error
of a coverage is that of the mean of the per-board coverages (boards are independent).

**Sampling.** One model per (N, option) is compiled once (nutpie,
:func:`nutpie.compile_pymc_model`) and every board swaps its counts in with ``with_data``;
the non-centred parametrisation (the builder's default) at the model's own target_accept
(0.95). Each fit records its divergences, the largest r-hat and the smallest bulk ESS over
``theta``, ``pi_bar`` and the sds (:func:`bayes_eval.models.sampling.diagnostics`).

**Resumable.** Boards are run in blocks of ``block`` per (N, tau, fit), each written when
done (:mod:`bayes_eval.validation.cell_runner`); running the same command again resumes.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot, save_png
from bayes_eval.posteriors.posterior import THESE_QUESTIONS
from bayes_eval.ranking.ranks import rank
from bayes_eval.synthetic.leaderboard import simulate_leaderboard
from bayes_eval.validation.cell_runner import merge_cells, run_cells
from bayes_eval.validation.registry import StudyResult
from bayes_eval.validation.study_configs import CrossedStudyConfig
from bayes_eval.validation.study_output import write_netcdf

__all__ = ["FITS", "board_fit", "cells", "plot", "run_cell", "run_study", "summary"]

#: The two fits of every board: the pure Rasch model and the model with the interaction.
FITS = ("rasch", "interaction")
_COMPILED: dict = {}
_CHECKED = ("theta", "pi_bar", "sigma_theta", "sigma_b", "sigma_e")


def cells(config: CrossedStudyConfig) -> list[tuple[int, int, str, int]]:
    """``(N, tau index, fit, first board)`` of every block, in a fixed order.

    Parameters
    ----------
    config : CrossedStudyConfig
        The study's options (``bayes_eval.validation.study_configs.CrossedStudyConfig``):
        the grids ``N`` and ``interaction_sds``, ``replicates`` and ``block``.

    Returns
    -------
    list of tuple of (int, int, str, int)
        One ``(N, tau index, fit, first board)`` per block of ``block`` boards, the two fits
        of a block next to each other.

    Examples
    --------
    >>> from bayes_eval.validation.crossed_study import cells
    >>> from bayes_eval.validation.study_configs import CrossedStudyConfig
    >>> config = CrossedStudyConfig(replicates=20, N=(4, 1), interaction_sds=(0.0, 1.0), block=10)
    >>> len(cells(config)), cells(config)[:3]
    (16, [(4, 0, 'rasch', 0), (4, 0, 'interaction', 0), (4, 0, 'rasch', 10)])
    """
    starts = range(0, config.replicates, config.block)
    return [
        (n, t, fit, s)
        for n in config.N
        for t in range(len(config.interaction_sds))
        for s in starts
        for fit in FITS
    ]


def _cell_name(cell) -> str:
    n, t, fit, start = cell
    return f"N{n:03d}_tau{t:02d}_{fit}_{start:05d}"


def _compiled(config: CrossedStudyConfig, n: int, fit: str):
    """``(compiled model, target_accept)`` for boards of this shape, built once per process."""
    key = (config.n_models, config.n_questions, n, fit)
    if key not in _COMPILED:
        import nutpie

        from bayes_eval.models.crossed import crossed_model
        from bayes_eval.models.sampling import model_info

        R = np.zeros((config.n_models, config.n_questions, n))
        model = crossed_model(R, interaction=fit == "interaction", store_p=True)
        _COMPILED[key] = (nutpie.compile_pymc_model(model), model_info(model).target_accept)
    return _COMPILED[key]


def _board(config: CrossedStudyConfig, n: int, t: int, board: int):
    """The board and the sampler seed of board ``board`` of (N, tau index).

    They are the same for both fits.
    """
    ss = np.random.SeedSequence([config.seed, n, t, board])
    data_ss, sampler_ss = ss.spawn(2)
    sim = simulate_leaderboard(
        config.n_models,
        config.n_questions,
        n_trials=n,
        ability_mean=0.0,
        ability_sd=config.ability_sd,
        difficulty_sd=config.difficulty_sd,
        interaction_sd=float(config.interaction_sds[t]),
        seed=np.random.default_rng(data_ss),
    )
    return sim, int(sampler_ss.generate_state(1)[0] % 2**31)


def board_fit(posterior: xr.Dataset, expected: np.ndarray, level: float) -> dict:
    """The checks of one fit (module docstring).

    Computed from its ``posterior`` (``pi_bar`` over ``model``, ``p`` over
    ``(model, question)``, optionally ``sigma_e``) and the true rates ``expected``
    ``(L, M)``: posterior mean, sd and interval of ``pi_bar`` and ``p``, the rank interval,
    and ``sigma_e``'s mean and interval (NaN without it).

    Parameters
    ----------
    posterior : xarray.Dataset
        The fit's draws over ``(chain, draw, ...)``: ``pi_bar`` over ``model``, ``p`` over
        ``(model, question)``, optionally ``sigma_e``.
    expected : numpy.ndarray of shape (L, M)
        The true rates.
    level : float
        The credible level of the equal-tailed intervals.

    Returns
    -------
    dict
        ``pibar_*`` and ``rank_*`` (arrays over models), ``p_*`` (arrays ``(L, M)``) with
        suffixes ``true``, ``mean``, ``sd``, ``lo``, ``hi`` (ranks: ``true``, ``lo``, ``hi``),
        and ``sigma_e_mean``, ``sigma_e_lo``, ``sigma_e_hi`` (floats).

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.validation.crossed_study import board_fit
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(0.2, 0.8, (3, 4))
    >>> draws = np.clip(truth + rng.normal(0.0, 0.1, (2, 100, 3, 4)), 0.0, 1.0)
    >>> posterior = xr.Dataset({
    ...     "p": (("chain", "draw", "model", "question"), draws),
    ...     "pi_bar": (("chain", "draw", "model"), draws.mean(-1)),
    ... })
    >>> out = board_fit(posterior, truth, 0.9)
    >>> out["pibar_true"].round(4).tolist(), out["pibar_mean"].round(4).tolist()
    ([0.3446, 0.6593, 0.5446], [0.3438, 0.6561, 0.5412])
    >>> out["rank_true"].tolist(), out["rank_lo"].tolist(), out["rank_hi"].tolist()
    ([3, 1, 2], [3, 1, 1], [3, 2, 2])
    >>> out["sigma_e_mean"]
    nan
    """
    tail = (1.0 - level) / 2.0
    post = posterior.stack(sample=("chain", "draw"))
    pb = post["pi_bar"].transpose("sample", "model").values
    p = post["p"].transpose("sample", "model", "question").values
    ranks = rank(pb, axis=-1)
    r_lo, r_hi = np.quantile(ranks, [tail, 1.0 - tail], axis=0, method="inverted_cdf")
    out = {
        "pibar_true": expected.mean(axis=1),
        "pibar_mean": pb.mean(0),
        "pibar_sd": pb.std(0, ddof=1),
        "pibar_lo": np.quantile(pb, tail, axis=0),
        "pibar_hi": np.quantile(pb, 1.0 - tail, axis=0),
        "rank_true": rank(expected.mean(axis=1)),
        "rank_lo": r_lo.astype(np.int64),
        "rank_hi": r_hi.astype(np.int64),
        "p_true": expected,
        "p_mean": p.mean(0),
        "p_sd": p.std(0, ddof=1),
        "p_lo": np.quantile(p, tail, axis=0),
        "p_hi": np.quantile(p, 1.0 - tail, axis=0),
    }
    if "sigma_e" in post:
        s = post["sigma_e"].values
        out |= {"sigma_e_mean": s.mean(), "sigma_e_lo": np.quantile(s, tail)}
        out["sigma_e_hi"] = np.quantile(s, 1.0 - tail)
    else:
        out |= {"sigma_e_mean": np.nan, "sigma_e_lo": np.nan, "sigma_e_hi": np.nan}
    return out


def run_cell(cell, config: CrossedStudyConfig) -> xr.Dataset:
    """Fit one block of boards (module docstring) and return its checks per board.

    Parameters
    ----------
    cell : tuple of (int, int, str, int)
        The block, ``(N, tau index, fit, first board)``
        (:func:`bayes_eval.validation.crossed_study.cells`).
    config : CrossedStudyConfig
        The study's options (``bayes_eval.validation.study_configs.CrossedStudyConfig``).

    Returns
    -------
    xarray.Dataset
        The checks of :func:`bayes_eval.validation.crossed_study.board_fit` and the sampler's
        ``divergences``, ``max_rhat`` and ``min_ess_bulk``, over
        ``(N, tau, fit, board[, model[, question]])``.

    Examples
    --------
    The crossed model is compiled and sampled by NUTS, so the example is shown, not run::

        from bayes_eval.validation.crossed_study import cells, run_cell
        from bayes_eval.validation.study_configs import CrossedStudyConfig
        config = CrossedStudyConfig(
            replicates=2, n_models=3, n_questions=4, N=(2,), interaction_sds=(1.0,),
            draws=50, tune=50, chains=2, block=2,
        )
        ds = run_cell(cells(config)[0], config)
        dict(ds.sizes)  # {'N': 1, 'tau': 1, 'fit': 1, 'board': 2, 'model': 3, 'question': 4}
    """
    import nutpie

    from bayes_eval.models.sampling import diagnostics

    n, t, fit, start = cell
    compiled, target_accept = _compiled(config, n, fit)
    boards = range(start, min(start + config.block, config.replicates))
    rows, diag = [], []
    for board in boards:
        sim, sampler_seed = _board(config, n, t, board)
        successes = np.nansum(sim.scores, axis=-1).astype(np.int64)
        trials = np.full(successes.shape, n, dtype=np.int64)
        tree = nutpie.sample(
            compiled.with_data(successes=successes, n_trials=trials),
            draws=config.draws,
            tune=config.tune,
            chains=config.chains,
            seed=sampler_seed,
            target_accept=target_accept,
            progress_bar=False,
            cores=1,
        )
        rows.append(board_fit(tree["posterior"].to_dataset(), sim.expected, config.confidence))
        names = [v for v in _CHECKED if v in tree["posterior"].data_vars]
        d = diagnostics(tree, names)
        diag.append((d.divergences, d.max_rhat, d.min_ess_bulk))
    L, M = config.n_models, config.n_questions
    dims = {(): (), (L,): ("model",), (L, M): ("model", "question")}
    data = {}
    for name in rows[0]:
        stacked = np.stack([np.asarray(r[name]) for r in rows])
        data[name] = (
            ("N", "tau", "fit", "board", *dims[stacked.shape[1:]]),
            stacked[None, None, None],
        )
    div, rhat, ess = (np.array(x, dtype=float) for x in zip(*diag, strict=True))
    for name, values in (("divergences", div), ("max_rhat", rhat), ("min_ess_bulk", ess)):
        data[name] = (("N", "tau", "fit", "board"), values[None, None, None])
    coords = {
        "N": [n],
        "tau": [float(config.interaction_sds[t])],
        "fit": [fit],
        "board": np.arange(boards.start, boards.stop),
    }
    return xr.Dataset(data, coords=coords)


def _coverage(inside: np.ndarray) -> tuple[float, float]:
    """Coverage and its Monte Carlo se from per-board shares (axis 0: boards)."""
    per_board = inside.reshape(inside.shape[0], -1).mean(axis=1)
    k = per_board.size
    se = float(per_board.std(ddof=1) / np.sqrt(k)) if k > 1 else float("nan")
    return float(per_board.mean()), se


def _sharpness(mean, sd, truth) -> float:
    """Mean posterior sd / RMSE of the posterior mean."""
    rmse = np.sqrt(np.mean((mean - truth) ** 2))
    return float(np.mean(sd) / rmse) if rmse > 0 else float("nan")


def summary(ds: xr.Dataset) -> dict:
    """Summarise the boards per (N, tau, fit).

    Per (N, tau, fit): coverage of ``pi_bar``, of the cell rates ``p`` and of the ranks with
    their Monte Carlo se (over boards), sd/RMSE of ``pi_bar`` and ``p``, the mean rank-interval
    width, ``sigma_e``'s posterior mean, the median upper end of its interval and (tau > 0)
    how often the interval holds tau, and the sampler's record.

    Parameters
    ----------
    ds : xarray.Dataset
        The merged blocks of :func:`bayes_eval.validation.crossed_study.run_cell`.

    Returns
    -------
    dict
        ``settings`` (the dataset's attributes), ``estimand`` and ``coverage``: per
        ``"N=N tau=TAU FIT"``, the boards, coverages with their standard errors, sd/RMSE,
        ``rank_width``, ``sigma_e`` (interaction fit) and the sampler's record.

    Examples
    --------
    A dataset of the layout :func:`bayes_eval.validation.crossed_study.run_study` merges, from four
    fake posteriors of one cell (sampling the crossed model is slow):

    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.validation.crossed_study import board_fit, summary
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(0.2, 0.8, (3, 4))
    >>> def one_board():
    ...     centre = truth + rng.normal(0.0, 0.1, truth.shape)
    ...     p = np.clip(centre + rng.normal(0.0, 0.1, (2, 100, 3, 4)), 0.0, 1.0)
    ...     post = xr.Dataset({"p": (("chain", "draw", "model", "question"), p),
    ...                        "pi_bar": (("chain", "draw", "model"), p.mean(-1))})
    ...     row = board_fit(post, truth, 0.9)
    ...     row |= {"divergences": 0, "max_rhat": 1.01, "min_ess_bulk": 150.0}
    ...     return xr.Dataset({k: (("model", "question")[: np.ndim(v)], v) for k, v in row.items()})
    >>> ds = xr.concat([one_board() for _ in range(4)], "board")
    >>> ds = ds.expand_dims(N=[4], tau=[0.0], fit=["rasch"])
    >>> row = summary(ds)["coverage"]["N=4 tau=0 rasch"]
    >>> {k: row[k] for k in ("boards", "pibar_coverage", "p_coverage", "p_sd_over_rmse")}
    {'boards': 4, 'pibar_coverage': 0.9167, 'p_coverage': 0.9375, 'p_sd_over_rmse': 1.126}
    >>> row["rank_width"], row["divergent_boards"], row["max_rhat"]
    (1.417, 0, 1.01)
    """
    rows = {}
    for n in ds["N"].values:
        for tau in ds["tau"].values:
            for fit in ds["fit"].values:
                c = ds.sel(N=n, tau=tau, fit=fit).dropna("board", subset=["pibar_mean"])
                if c.sizes["board"] == 0:
                    continue
                b = c.sizes["board"]

                def inside(name, c=c):
                    lo, hi, true = (c[f"{name}_{k}"].values for k in ("lo", "hi", "true"))
                    return (lo <= true) & (true <= hi)

                row = {"boards": int(b)}
                for name in ("pibar", "p", "rank"):
                    cov, se = _coverage(inside(name))
                    row[f"{name}_coverage"] = round(cov, 4)
                    row[f"{name}_coverage_se"] = round(se, 4)
                for name in ("pibar", "p"):
                    args = (c[f"{name}_{k}"].values for k in ("mean", "sd", "true"))
                    row[f"{name}_sd_over_rmse"] = round(_sharpness(*args), 3)
                row["rank_width"] = round(float((c["rank_hi"] - c["rank_lo"] + 1).mean()), 3)
                if fit == "interaction":
                    row["sigma_e_mean"] = round(float(c["sigma_e_mean"].mean()), 3)
                    lo, hi = c["sigma_e_lo"].values, c["sigma_e_hi"].values
                    row["sigma_e_upper"] = round(float(np.median(hi)), 3)
                    if tau > 0:  # an interval of a positive sd never holds 0
                        inside = (lo <= tau) & (tau <= hi)
                        row["tau_coverage"] = round(float(inside.mean()), 4)
                row["divergent_boards"] = int((c["divergences"] > 0).sum())
                row["divergences_per_board"] = round(float(c["divergences"].mean()), 2)
                row["max_rhat"] = round(float(c["max_rhat"].max()), 4)
                row["min_ess_bulk"] = round(float(c["min_ess_bulk"].min()), 1)
                rows[f"N={int(n)} tau={float(tau):g} {fit}"] = row
    return {"settings": dict(ds.attrs), "estimand": THESE_QUESTIONS, "coverage": rows}


def run_study(config: CrossedStudyConfig, out: str | Path, *, progress: bool = True) -> StudyResult:
    """Run (or resume) the study.

    Writes ``OUT/study.json``, ``OUT/cells/``, and once every block is done
    ``OUT/crossed.nc`` and ``OUT/crossed.png``.

    Parameters
    ----------
    config : CrossedStudyConfig
        The study's options (``bayes_eval.validation.study_configs.CrossedStudyConfig``);
        ``max_cells`` stops after that many new blocks.
    out : str or pathlib.Path
        Folder to write into; the blocks already in it are resumed.
    progress : bool, optional
        Show a progress bar, default True.

    Returns
    -------
    StudyResult
        The merged dataset (empty before the first block), the summary of
        :func:`bayes_eval.validation.crossed_study.summary` with ``cells_computed``,
        ``cells_resumed``, ``cells_pending``, the files and the seconds taken, and the files
        (``manifest``, ``cells``, and once every block is done ``netcdf`` and ``plot``).

    Examples
    --------
    Every board is fitted twice by NUTS, so the example is shown, not run::

        from bayes_eval.validation.crossed_study import run_study
        from bayes_eval.validation.study_configs import CrossedStudyConfig
        config = CrossedStudyConfig(replicates=4, N=(4,), interaction_sds=(1.0,), block=2)
        result = run_study(config, "crossed-out")
        result.summary["cells_pending"]  # 0: every cell finished
    """
    start = time.perf_counter()
    out = Path(out)
    done = run_cells(
        cells(config),
        run_cell,
        config,
        out,
        cell_name=_cell_name,
        digest=config.digest(),
        manifest=config.study_fields(),
        n_workers=0,
        max_cells=config.max_cells,
        progress=progress,
        desc="crossed blocks",
    )
    ds = merge_cells(out)
    files: dict = {"manifest": out / "study.json", "cells": out / "cells"}
    report: dict = {}
    if ds is not None:
        ds.attrs = {
            k: str(v) if isinstance(v, tuple) else v for k, v in config.study_fields().items()
        }
        report = summary(ds)
        if done.pending == 0:
            files["netcdf"] = write_netcdf(ds, out / "crossed.nc")
            files["plot"] = plot(ds, out / "crossed.png")
    report |= {
        "cells_computed": len(done.computed),
        "cells_resumed": len(done.skipped),
        "cells_pending": done.pending,
        "netcdf": str(files.get("netcdf")) if "netcdf" in files else None,
        "plot": str(files.get("plot")) if "plot" in files else None,
        "seconds": round(time.perf_counter() - start, 2),
    }
    return StudyResult(ds if ds is not None else xr.Dataset(), report, files)


def plot(ds: xr.Dataset, path: str | Path) -> Path:
    """Plot the coverage of ``pi_bar``, the cell rates and the ranks per (N, tau).

    Both fits side by side, with 2-se error bars and the nominal level.

    Parameters
    ----------
    ds : xarray.Dataset
        The merged blocks of :func:`bayes_eval.validation.crossed_study.run_cell`.
    path : str or pathlib.Path
        The PNG file to write.

    Returns
    -------
    pathlib.Path
        The PNG written.

    Examples
    --------
    A dataset of the layout :func:`bayes_eval.validation.crossed_study.run_study` merges, from four
    fake posteriors of one cell (sampling the crossed model is slow):

    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayes_eval.validation.crossed_study import board_fit, plot
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(0.2, 0.8, (3, 4))
    >>> def one_board():
    ...     centre = truth + rng.normal(0.0, 0.1, truth.shape)
    ...     p = np.clip(centre + rng.normal(0.0, 0.1, (2, 100, 3, 4)), 0.0, 1.0)
    ...     post = xr.Dataset({"p": (("chain", "draw", "model", "question"), p),
    ...                        "pi_bar": (("chain", "draw", "model"), p.mean(-1))})
    ...     row = board_fit(post, truth, 0.9)
    ...     row |= {"divergences": 0, "max_rhat": 1.01, "min_ess_bulk": 150.0}
    ...     return xr.Dataset({k: (("model", "question")[: np.ndim(v)], v) for k, v in row.items()})
    >>> ds = xr.concat([one_board() for _ in range(4)], "board")
    >>> ds = ds.expand_dims(N=[4], tau=[0.0], fit=["rasch"])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     png = plot(ds, Path(tmp) / "crossed.png")
    ...     print(png.name, png.exists())
    crossed.png True
    """
    plt = pyplot()
    rows = summary(ds)["coverage"]
    level = float(ds.attrs.get("confidence", 0.9))
    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    keys = sorted({k.rsplit(" ", 1)[0] for k in rows})
    x = np.arange(len(keys))
    for ax, (name, title) in zip(
        axes, (("pibar", "pi-bar per LLM"), ("p", "rate per cell"), ("rank", "rank")), strict=True
    ):
        for j, fit in enumerate(FITS):
            cov = [rows.get(f"{k} {fit}", {}).get(f"{name}_coverage", np.nan) for k in keys]
            se = [rows.get(f"{k} {fit}", {}).get(f"{name}_coverage_se", np.nan) for k in keys]
            ax.errorbar(x + 0.15 * (2 * j - 1), cov, yerr=2 * np.asarray(se), fmt="o", label=fit)
        ax.axhline(level, color="0.5", lw=0.8)
        ax.set_xticks(x, keys, rotation=20, fontsize=8)
        ax.set_title(f"coverage of {title}")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"share inside the {level:.0%} interval")
    axes[0].legend()
    fig.tight_layout()
    return save_png(fig, path)
