"""ArviZ figures (arviz-plots) for both paths: closed-form exact draws and NUTS fits.

The closed form becomes a ``DataTree`` with :func:`bayes_eval.xr.posterior_tree` (a
``posterior`` group of exact draws of ``pi_bar``, and a ``prior`` group), laid out as a NUTS
fit of :func:`bayes_eval.models.matching_model`, so the same functions draw either, or both
side by side. Every function writes one file and returns its path; ``backend`` is
arviz-plots' (``"matplotlib"``, the default, writes PNG through matplotlib's Agg backend;
``"bokeh"``/``"plotly"`` write what their ``savefig`` writes). ``arviz_plots`` is imported when a
figure is drawn, never by ``import bayes_eval``; it is part of the ``pymc`` extra.

* :func:`plot_forest`: credible intervals per model (50% and ``ci_prob``, equal-tailed);
* :func:`plot_trace` (trace and marginal per chain) and :func:`plot_rank` (rank ECDFs of the
  chains: uniform ranks mean the chains agree, Vehtari et al. 2021);
* :func:`plot_prior_posterior`: prior and posterior marginals overlaid;
* :func:`plot_ppc`: posterior predictive against the observed data, a rootogram for counts
  (needs the groups
  ``posterior_predictive`` and ``observed_data``, e.g. from ``pm.sample_posterior_predictive``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from bayes_eval.plotting.figure import pyplot

if TYPE_CHECKING:
    from types import ModuleType

    from arviz_plots import PlotCollection

__all__ = ["plot_forest", "plot_ppc", "plot_prior_posterior", "plot_rank", "plot_trace"]

#: The dim a dict of trees is stacked along by arviz-plots (``model``) clashes with the
#: evaluated models' dim, which is renamed to this for a comparison.
COMPARED_DIM = "llm"


def _azp() -> ModuleType:
    try:
        import arviz_plots
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ValueError("these figures need arviz-plots: pip install 'bayes_eval[pymc]'.") from exc
    return arviz_plots


def _save(pc: PlotCollection, path: str | Path, backend: str, dpi: int = 110) -> Path:
    from bayes_eval.files import write_file

    if backend != "matplotlib":
        return write_file(path, pc.savefig, keep_suffix=True)
    pyplot()  # Agg, headless
    fig = pc.viz["figure"].item() if hasattr(pc.viz, "__getitem__") else None
    try:
        kind = Path(path).suffix.lstrip(".").lower() or "png"
        return write_file(
            path, lambda tmp: pc.savefig(tmp, format=kind, dpi=dpi, bbox_inches="tight")
        )
    finally:
        if fig is not None:
            pyplot().close(fig)


def _check(dt: object, groups: Sequence[str], what: str) -> None:
    if not isinstance(dt, xr.DataTree):
        raise ValueError(f"{what} needs an xarray.DataTree; got {type(dt).__name__}.")
    missing = [g for g in groups if g not in dt.children]
    if missing:
        raise ValueError(
            f"{what} needs the groups {list(groups)}; the tree has {sorted(dt.children)} "
            f"(missing {missing})."
        )


def _rename_models(dt: xr.DataTree) -> xr.DataTree:
    return dt.map_over_datasets(
        lambda ds: ds.rename({"model": COMPARED_DIM}) if "model" in ds.dims else ds
    )


def _pooled(ds: xr.Dataset, sample_dims: Sequence[str]) -> xr.Dataset:
    """Every non-sample dim of every variable stacked into one ``obs`` dim."""

    def flat(da: xr.DataArray) -> xr.DataArray:
        other = [d for d in da.dims if d not in sample_dims]
        st = da.stack(obs=other)
        st = st.drop_vars(["obs", *other], errors="ignore")
        return st.assign_coords(obs=range(st.sizes["obs"]))

    return ds.map(flat)


def _thinned(post: xr.Dataset, n: int) -> xr.DataTree:
    """A posterior with chains combined into one, thinned evenly to ``n`` draws."""
    flat = post.stack(sample=("chain", "draw")).drop_vars(["sample", "chain", "draw"])
    keep = np.linspace(0, flat.sizes["sample"] - 1, n).round().astype(int)
    flat = flat.isel(sample=keep).rename(sample="draw").assign_coords(draw=np.arange(n))
    return xr.DataTree.from_dict({"posterior": flat.expand_dims(chain=[0])})


def plot_forest(
    data: xr.DataTree | Mapping[str, xr.DataTree],
    path: str | Path,
    *,
    var_names: Sequence[str] = ("pi_bar",),
    ci_prob: float = 0.95,
    backend: str = "matplotlib",
    title: str | None = None,
) -> Path:
    """Forest plot of ``var_names`` per model (``arviz_plots.plot_forest``).

    It shows the mean, 50% and ``ci_prob`` equal-tailed intervals of the posterior draws,
    chains combined.

    Parameters
    ----------
    data : DataTree or mapping of str to DataTree
        One fit, or several to compare (e.g. ``{"closed form": posterior_tree(R),
        "NUTS": sample(matching_model(R))}``): they are drawn side by side in colours with a
        legend; the evaluated models' dim is then called ``llm`` (arviz-plots names the
        compared fits ``model``).
    path : str or pathlib.Path
        File to write (a PNG with the matplotlib backend).
    var_names : sequence of str, optional
        Variables to draw, default ``("pi_bar",)``.
    ci_prob : float, optional
        Probability of the outer interval, in (0, 1); default 0.95.
    backend : str, optional
        arviz-plots backend: ``"matplotlib"`` (default), ``"bokeh"`` or ``"plotly"``.
    title : str, optional
        Title of the figure (matplotlib backend).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ValueError
        If ``ci_prob`` is not in (0, 1), or a tree has no ``posterior`` group.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.xr import posterior_tree
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> dt = posterior_tree(R, draws=50, chains=2, prior="uniform")
    >>> from bayes_eval.plotting.arviz import plot_forest
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = plot_forest(dt, folder + "/forest.png")
    ...     png.name, png.is_file()
    ('forest.png', True)
    """
    if not 0 < ci_prob < 1:
        raise ValueError(f"ci_prob is {ci_prob!r}; expected a probability in (0, 1).")
    azp = _azp()
    compare = isinstance(data, Mapping) and not isinstance(data, xr.DataTree)
    if compare:
        for name, dt in data.items():
            _check(dt, ["posterior"], f"plot_forest ({name})")
        # only the plotted variables of each posterior: a fit's other groups (e.g. the
        # ``closed_form`` group of :func:`bayes_eval.models.sample`) keep arviz-plots from
        # drawing it beside the others
        # and the same number of draws for every fit (arviz-plots aligns the fits on
        # chain and draw, so a shorter fit would be padded with NaN and not drawn): chains
        # combined, thinned evenly to the smallest fit
        posts = {str(k): v["posterior"].to_dataset()[list(var_names)] for k, v in data.items()}
        n = min(p.sizes["chain"] * p.sizes["draw"] for p in posts.values())
        # the models best first (by the first fit's mean of the first variable), every fit
        # in that order, so that the plot reads as a leaderboard
        first = next(iter(posts.values()))
        order = _best_first(first, var_names[0])
        data = {
            k: _rename_models(_thinned(p if order is None else p.sel(model=order), n))
            for k, p in posts.items()
        }
    else:
        _check(data, ["posterior"], "plot_forest")
        post = data["posterior"].to_dataset()
        order = _best_first(post, var_names[0])
        if order is not None:
            data = xr.DataTree.from_dict({"posterior": post.sel(model=order)})
    pc = azp.plot_forest(
        data,
        var_names=list(var_names),
        combined=True,
        ci_kind="eti",
        ci_probs=(0.5, ci_prob),
        point_estimate="mean",
        backend=backend,
    )
    if compare:
        pc.add_legend("model", title="fit")
    if backend == "matplotlib":
        figure = pc.viz["figure"].item()
        figure.axes[-1].set_xlabel(
            f"{', '.join(var_names)}: posterior mean, 50% and {ci_prob:.0%} intervals"
        )
        if title:
            figure.suptitle(title)
    return _save(pc, path, backend)


def _best_first(post: xr.Dataset, name: str) -> list | None:
    """The ``model`` coordinate ordered by the posterior mean of ``name``, best first.

    None when ``name`` has no ``model`` dim.
    """
    if name not in post or "model" not in post[name].dims:
        return None
    mean = post[name].mean([d for d in post[name].dims if d != "model"])
    return list(post["model"].values[np.argsort(-mean.values, kind="stable")])


def plot_trace(
    dt: xr.DataTree,
    path: str | Path,
    *,
    var_names: Sequence[str] = ("pi_bar",),
    backend: str = "matplotlib",
) -> Path:
    """Trace and marginal density per chain (``arviz_plots.plot_trace_dist``).

    Parameters
    ----------
    dt : xarray.DataTree
        A fit with a ``posterior`` group (e.g. :func:`bayes_eval.xr.posterior_tree`).
    path : str or pathlib.Path
        File to write (a PNG with the matplotlib backend).
    var_names : sequence of str, optional
        Variables to draw, default ``("pi_bar",)``.
    backend : str, optional
        arviz-plots backend: ``"matplotlib"`` (default), ``"bokeh"`` or ``"plotly"``.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.xr import posterior_tree
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> dt = posterior_tree(R, draws=50, chains=2, prior="uniform")
    >>> from bayes_eval.plotting.arviz import plot_trace
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = plot_trace(dt, folder + "/trace.png")
    ...     png.name, png.is_file()
    ('trace.png', True)
    """
    _check(dt, ["posterior"], "plot_trace")
    pc = _azp().plot_trace_dist(dt, var_names=list(var_names), backend=backend)
    return _save(pc, path, backend)


def plot_rank(
    dt: xr.DataTree,
    path: str | Path,
    *,
    var_names: Sequence[str] = ("pi_bar",),
    backend: str = "matplotlib",
) -> Path:
    """Fractional rank ECDFs of every chain with their simultaneous envelope.

    They are drawn by ``arviz_plots.plot_rank``.

    Parameters
    ----------
    dt : xarray.DataTree
        A fit with a ``posterior`` group of several chains.
    path : str or pathlib.Path
        File to write (a PNG with the matplotlib backend).
    var_names : sequence of str, optional
        Variables to draw, default ``("pi_bar",)``.
    backend : str, optional
        arviz-plots backend: ``"matplotlib"`` (default), ``"bokeh"`` or ``"plotly"``.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.xr import posterior_tree
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> dt = posterior_tree(R, draws=50, chains=2, prior="uniform")
    >>> from bayes_eval.plotting.arviz import plot_rank
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = plot_rank(dt, folder + "/rank.png")
    ...     png.name, png.is_file()
    ('rank.png', True)
    """
    _check(dt, ["posterior"], "plot_rank")
    pc = _azp().plot_rank(dt, var_names=list(var_names), backend=backend)
    return _save(pc, path, backend)


def plot_prior_posterior(
    dt: xr.DataTree,
    path: str | Path,
    *,
    var_names: Sequence[str] = ("pi_bar",),
    backend: str = "matplotlib",
) -> Path:
    """Prior and posterior marginals overlaid (``arviz_plots.plot_prior_posterior``).

    The tree needs a ``prior`` group: :func:`bayes_eval.xr.posterior_tree` adds one for
    fixed priors; for a NUTS fit use ``pm.sample_prior_predictive``.

    Parameters
    ----------
    dt : xarray.DataTree
        A fit with ``posterior`` and ``prior`` groups.
    path : str or pathlib.Path
        File to write (a PNG with the matplotlib backend).
    var_names : sequence of str, optional
        Variables to draw, default ``("pi_bar",)``.
    backend : str, optional
        arviz-plots backend: ``"matplotlib"`` (default), ``"bokeh"`` or ``"plotly"``.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.xr import posterior_tree
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> dt = posterior_tree(R, draws=50, chains=2, prior="uniform")
    >>> from bayes_eval.plotting.arviz import plot_prior_posterior
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = plot_prior_posterior(dt, folder + "/prior_posterior.png")
    ...     png.name, png.is_file()
    ('prior_posterior.png', True)
    """
    _check(dt, ["posterior", "prior"], "plot_prior_posterior")
    pc = _azp().plot_prior_posterior(dt, var_names=list(var_names), backend=backend)
    return _save(pc, path, backend)


def plot_ppc(
    dt: xr.DataTree,
    path: str | Path,
    *,
    var_names: Sequence[str] | None = None,
    num_samples: int = 50,
    backend: str = "matplotlib",
) -> Path:
    """Posterior predictive against the observed data, as a rootogram or predictive densities.

    For integer data such as the models' counts, a rootogram
    (``arviz_plots.plot_ppc_rootogram``) of how often each count occurs over all cells (model,
    question, category pooled: arviz-plots' rootogram takes one observation dim); the
    predictive densities (``arviz_plots.plot_ppc_dist``) otherwise.

    Parameters
    ----------
    dt : xarray.DataTree
        A fit with ``posterior_predictive`` and ``observed_data`` groups.
    path : str or pathlib.Path
        File to write (a PNG with the matplotlib backend).
    var_names : sequence of str, optional
        Observed variables to draw; default all of ``observed_data``.
    num_samples : int, optional
        Predictive draws drawn for continuous data, default 50.
    backend : str, optional
        arviz-plots backend: ``"matplotlib"`` (default), ``"bokeh"`` or ``"plotly"``.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    A rootogram of counts (a stand-in for ``pm.sample_posterior_predictive``):

    >>> import tempfile
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, xarray as xr
    >>> from bayes_eval.plotting.arviz import plot_ppc
    >>> rng = np.random.default_rng(0)
    >>> observed = xr.Dataset({"y": ("model", np.array([3, 5]))})
    >>> draws = rng.binomial(6, 0.6, (2, 50, 2))  # (chain, draw, model)
    >>> predicted = xr.Dataset({"y": (("chain", "draw", "model"), draws)})
    >>> dt = xr.DataTree.from_dict({"posterior_predictive": predicted, "observed_data": observed})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     png = plot_ppc(dt, folder + "/ppc.png")
    ...     png.name, png.is_file()
    ('ppc.png', True)
    """
    _check(dt, ["posterior_predictive", "observed_data"], "plot_ppc")
    azp = _azp()
    names = list(dt["observed_data"].data_vars) if var_names is None else list(var_names)
    discrete = all(dt["observed_data"][v].dtype.kind in "iub" for v in names)
    if discrete:  # arviz-plots' rootogram takes one observation dim: pool the cells
        flat = xr.DataTree.from_dict(
            {
                g: _pooled(dt[g].to_dataset()[names], ("chain", "draw"))
                for g in ("posterior_predictive", "observed_data")
            }
        )
        pc = azp.plot_ppc_rootogram(flat, var_names=names, backend=backend)
    else:
        pc = azp.plot_ppc_dist(dt, var_names=names, num_samples=int(num_samples), backend=backend)
    return _save(pc, path, backend)
