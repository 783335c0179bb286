"""The output forms of a posterior: its printed table, its DataFrame and its DataTree of draws.

:class:`~bayes_eval.posteriors.posterior.Posterior` computes the numbers (moments, intervals,
draws); these lay them out: ``repr`` as a short table of one line per model,
:meth:`~bayes_eval.posteriors.posterior.Posterior.summary` as a ``pandas.DataFrame`` indexed by
model (ArviZ's convention), and
:meth:`~bayes_eval.posteriors.posterior.Posterior.to_datatree` as an ArviZ-style
``xarray.DataTree`` (groups ``posterior`` and ``prior`` over ``(chain, draw, model)`` and
``(question, category)``). pandas and xarray are imported only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bayes_eval.inputs import shown

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

__all__: list[str] = []

#: models a printed table shows in full (longer ones show the first 10 and the last 9)
_TABLE_ROWS = 20


def _model_names(models: tuple[str, ...] | None, n_models: int) -> list[str]:
    """The models' names, ``model_i`` for a batch without names."""
    return list(models or (f"model_{i}" for i in range(n_models)))


def _table(
    names: list[str],
    moments: tuple[NDArray[np.float64], NDArray[np.float64]],
    ends: tuple[NDArray[np.float64], NDArray[np.float64]],
    n_questions: int,
    prior: str,
    estimand: str,
) -> str:
    """A short table: a header naming the prior and estimand, one line per model.

    ``moments`` are the means and sd, ``ends`` the 95% intervals (arrays of one value per
    model).
    """
    (mu, sd), (lo, hi) = moments, ends
    n = len(names)
    width = min(max(len(name) for name in names), 40)
    lines = [
        f"Posterior of pi-bar: {n} model{'s' if n > 1 else ''}, "
        f"{n_questions} questions; prior: {prior}; estimand: "
        f"{estimand}",
        f"  {'model':<{width}}    mean      sd   95% interval",
    ]
    rows = list(range(n)) if n <= _TABLE_ROWS else [*range(10), None, *range(n - 9, n)]
    for i in rows:
        if i is None:
            lines.append(f"  ... {n - 19} more models")
            continue
        name = names[i] if len(names[i]) <= width else names[i][: width - 1] + "~"
        lines.append(f"  {name:<{width}}  {mu[i]:.4f}  {sd[i]:.4f}  [{lo[i]:.4f}, {hi[i]:.4f}]")
    return "\n".join(lines)


def _frame(doc: dict[str, Any], names: list[str]) -> pd.DataFrame:
    """The DataFrame of :meth:`Posterior.summary` from the dictionary of ``to_dict``."""
    import pandas as pd

    rows = {key: np.atleast_1d(doc[col]) for key, col in (("mean", "mu"), ("sd", "sigma"))}
    rows |= {"lo": np.atleast_1d(doc["lo"]), "hi": np.atleast_1d(doc["hi"])}
    rows["interval"] = np.atleast_1d(doc["interval_kind"])
    frame = pd.DataFrame(rows, index=pd.Index(names, name="model"))
    frame.attrs = {k: doc[k] for k in ("prior", "estimand", "confidence")}
    return frame


def _check_chains(draws: int, chains: int) -> tuple[int, int]:
    """Validate the draws per chain and the chains of a DataTree (positive integers)."""
    for name, value in (("draws", draws), ("chains", chains)):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise ValueError(f"{name} is {shown(value)}; expected a positive integer.")
    return int(draws), int(chains)


def _draws_tree(
    draws: tuple[NDArray[np.float64], NDArray[np.float64] | None],
    prior_draws: tuple[NDArray[np.float64], NDArray[np.float64] | None] | None,
    *,
    chains: int,
    models: list[str],
    questions: ArrayLike,
    n_categories: int,
    attrs: dict[str, Any],
) -> xr.DataTree:
    """The DataTree of draws of pi-bar (and pi) split into ``chains``.

    ``draws`` (and ``prior_draws``, the ``prior`` group) are ``(pi_bar, pi)``: ``pi_bar`` of
    shape ``(n, L)``, ``pi`` of shape ``(n, L, M, C + 1)`` or None.
    """
    import xarray as xr

    n = draws[0].shape[0]
    coords = {
        "chain": np.arange(chains),
        "draw": np.arange(n // chains),
        "model": models,
        "question": np.asarray(questions),
        "category": np.arange(n_categories),
    }

    def group(bar: NDArray[np.float64], p: NDArray[np.float64] | None) -> xr.Dataset:
        data = {"pi_bar": (tuple(coords)[:3], bar.reshape(chains, n // chains, -1))}
        if p is not None:
            data["pi"] = (tuple(coords), p.reshape(chains, n // chains, *p.shape[1:]))
        keep = tuple(coords)[: 3 + 2 * (p is not None)]
        return xr.Dataset(data, coords={k: coords[k] for k in keep})

    tree = {"posterior": group(*draws)}
    if prior_draws is not None:
        tree["prior"] = group(*prior_draws)
    dt = xr.DataTree.from_dict(tree)
    dt.attrs = attrs
    return dt
