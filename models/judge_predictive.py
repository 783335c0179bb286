r"""Posterior predictive checks of the LLM-as-judge model.

The model is :func:`bayes_eval.models.judges.judge_model` (Vossler et al., "LLMs Judging LLMs: A
Simplex Perspective", eq. 5.1 / B.3).

**What a replicate is.** The model's observed variable ``scores`` holds the count vectors
``N[j, k, :]`` of the (judge, candidate) pairs in the likelihood. A posterior predictive
replicate (:func:`pymc.sample_posterior_predictive`) is, per posterior draw,
:math:`\tilde N_{jk} \sim \mathrm{Mult}(n_{jk}, \gamma_{jk})` with
:math:`\gamma_{jk} = \sum_m \pi^{(j)}_{k,m}\theta^{(j)}_{m,:}` and the observed totals
:math:`n_{jk}`: the same number of questions scored again by the same judge. Same-family pairs
are left out of the likelihood (footnote 1 of the paper); when ``data`` is given they are
*predicted* from the same posterior :math:`\gamma_{jk}` (NumPy multinomial draws): what an
unbiased judge with the fitted confusion matrix would have given its own family. That is a
held-out check of self-preference.

The likelihood marginalises the true score separately for each judge, so it specifies no
joint distribution of two judges' scores on one question: the per-question agreement rate of
two judges cannot be replicated and is not checked. Agreement is checked on what the model
does specify, the per-candidate score distributions.

**Test statistics** (:func:`judge_statistics`, a NumPy function of count tables), with
:math:`v_s` the value of assigned level ``s``, :math:`\bar s_{jk} = \sum_s v_s N_{jks}/n_{jk}`
judge ``j``'s mean score of candidate ``k`` and :math:`p_{jk} = N_{jk}/n_{jk}`; "fit pairs"
are the pairs in the likelihood, "the others" of ``j`` are the other judges' fit pairs:

* ``level_share`` (judge, assigned): the share of judge ``j``'s scores (fit pairs, pooled)
  at each level: calibration / use of the scale;
* ``mean_score`` (judge): judge ``j``'s mean score over its fit pairs, pooled: leniency;
* ``pair_mean`` (judge, candidate): :math:`\bar s_{jk}` for every scored pair (held-out
  same-family pairs included, marked by ``in_likelihood``);
* ``spearman_others`` (judge): the Spearman correlation, over the candidates ``j`` and at
  least one other judge score, of :math:`\bar s_{jk}` with the others' mean
  :math:`\bar s_{-j,k}` (average ranks for ties; NaN with fewer than 3 candidates or a
  constant ranking): does ``j`` order the candidates like the others?
* ``overlap_others`` (judge): the mean over the same candidates of
  :math:`\sum_s \min(p_{jks}, \bar p_{-j,ks}) = 1 - \mathrm{TV}`, with :math:`\bar p_{-j,k}`
  the others' mean score distribution: distributional agreement of ``j`` with the others;
* ``self_preference`` (judge; needs same-family marks): with
  :math:`D_{jk} = \bar s_{jk} - \bar s^{\,\mathrm{ref}}_{-j,k}` (the reference: the mean of
  the *other-family* judges' scores of ``k``), the mean of :math:`D_{jk}` over ``j``'s own
  family's candidates minus its mean over ``j``'s other candidates (a difference in
  differences: candidate quality and the judge's leniency cancel). NaN when ``j`` has no
  own-family or no other candidate with a reference.

**p-values** are mid-p values :math:`P(T(\tilde y) > T(y)) + \tfrac12 P(T(\tilde y) = T(y))`
over the draws where :math:`T(\tilde y)` is defined, as in
:func:`bayes_eval.models.predictive.ppc_statistics`. A p near 0 means the observed value is
*larger* than the model reproduces (e.g. ``self_preference`` near 0: the judge favours its own
family beyond what the fitted unbiased judge predicts; ``level_share`` near 0: the judge uses
that level more often than fitted); near 1, *smaller* (e.g. ``spearman_others`` near 1: the
judge disagrees with the others' ranking more than the model's replicates do). Each pair has
its own multinomial cell probabilities here (``pi`` per candidate, ``theta`` per judge), so
the replicates track the data closely and checks of fit-pair statistics are conservative
(Gelman, Meng and Stern, "Posterior predictive assessment of model fitness via realized
discrepancies", Statistica Sinica, 1996); the held-out pairs are not conservative in this way.
"""

from __future__ import annotations

import warnings

import numpy as np
import pymc as pm
import xarray as xr
from scipy import stats

from bayes_eval.judges.data import JudgeData

__all__ = [
    "JUDGE_STATISTICS",
    "judge_posterior_predictive",
    "judge_ppc_statistics",
    "judge_statistics",
]

#: The per-judge scalar statistics of :func:`judge_statistics` (module docstring).
JUDGE_STATISTICS = ("mean_score", "spearman_others", "overlap_others", "self_preference")
_SAMPLE = ("chain", "draw")


def _others_mean(
    x: np.ndarray, use: np.ndarray, *, trailing: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Mean over judges ``j' != j`` with ``use[j', k]`` of ``x[..., j', k, *]`` and their count.

    ``x`` has shape ``(..., J, K)``, or ``(..., J, K, L)`` with ``trailing``; ``use`` is
    ``(J, K)``.
    """
    u = use[:, :, None] if trailing else use
    xs = np.where(u, x, 0.0)
    cnt = use.sum(0) - use  # (J, K): the other judges with a used pair for k
    axis = -3 if trailing else -2
    c = cnt[:, :, None] if trailing else cnt
    with np.errstate(invalid="ignore", divide="ignore"):
        return (xs.sum(axis, keepdims=True) - xs) / c, cnt


def _spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman correlation over the last axis (average ranks; NaN if a ranking is constant)."""
    rx = stats.rankdata(x, axis=-1)
    ry = stats.rankdata(y, axis=-1)
    a = rx - rx.mean(-1, keepdims=True)
    b = ry - ry.mean(-1, keepdims=True)
    den = np.sqrt((a**2).sum(-1) * (b**2).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a * b).sum(-1) / np.where(den > 0, den, 1.0), np.nan)


def judge_statistics(
    counts: np.ndarray,
    values: np.ndarray,
    mask: np.ndarray,
    same_family: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The judge test statistics (module docstring) of count tables.

    Parameters
    ----------
    counts : (..., J, K, L) array
        Counts per judge, candidate and assigned level; leading axes are replicates. A pair
        is scored when its total is positive (the totals must be the same in every replicate).
    values : (L,) array
        Value of each assigned level.
    mask : (J, K) bool array
        The pairs of the fit (in the likelihood); statistics other than ``pair_mean`` and
        ``self_preference`` use only these.
    same_family : (J, K) bool array, optional
        Same-family pairs; without it ``self_preference`` is NaN.

    Returns
    -------
    dict
        ``level_share`` (..., J, L), ``pair_mean`` (..., J, K) and each of
        :data:`JUDGE_STATISTICS` (..., J).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judge_predictive import judge_statistics
    >>> stats = judge_statistics(data.counts, np.asarray(data.values, float), data.mask)
    >>> stats["mean_score"].round(4).tolist(), stats["overlap_others"].round(4).tolist()
    ([1.6667, 1.8333], [0.8333, 0.8333])
    >>> stats["level_share"].round(4).tolist()  # per judge, over the assigned levels
    [[0.5, 0.3333, 0.1667], [0.5, 0.1667, 0.3333]]
    """
    c = np.asarray(counts, dtype=float)
    if c.ndim < 3:
        raise ValueError(f"counts has shape {c.shape}; expected (..., J, K, L).")
    J, K, L = c.shape[-3:]
    v = np.asarray(values, dtype=float)
    if v.shape != (L,):
        raise ValueError(f"values has shape {v.shape}; expected ({L},) (one per level).")
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != (J, K):
        raise ValueError(f"mask has shape {mask.shape}; expected ({J}, {K}).")
    n = c.sum(-1)
    present = n.reshape(-1, J, K)[0] > 0
    if ((n > 0) != present).any():
        raise ValueError("the pair totals differ between replicates; expected the same totals.")
    fit = mask & present
    lead = c.shape[:-3]
    with np.errstate(invalid="ignore", divide="ignore"):
        cf = np.where(fit[..., None], c, 0.0)
        per_judge = cf.sum(-2)  # (..., J, L)
        share = per_judge / per_judge.sum(-1, keepdims=True)
        mean_score = (per_judge * v).sum(-1) / per_judge.sum(-1)
        pair_mean = np.where(present, (c * v).sum(-1) / n, np.nan)
        prop = c / n[..., None]
    # agreement with the other judges' fit pairs, over j's fit candidates
    others_m, cnt = _others_mean(pair_mean, fit)
    others_p, _ = _others_mean(prop, fit, trailing=True)
    comparable = fit & (cnt > 0)
    spear = np.full((*lead, J), np.nan)
    overlap = np.full((*lead, J), np.nan)
    for j in range(J):  # a loop over judges only; every replicate at once
        ks = comparable[j]
        if ks.any():
            ov = np.minimum(prop[..., j, ks, :], others_p[..., j, ks, :]).sum(-1)
            overlap[..., j] = ov.mean(-1)
        if ks.sum() >= 3:
            spear[..., j] = _spearman(pair_mean[..., j, ks], others_m[..., j, ks])
    selfp = np.full((*lead, J), np.nan)
    if same_family is not None:
        fam = np.asarray(same_family, dtype=bool)
        if fam.shape != (J, K):
            raise ValueError(f"same_family has shape {fam.shape}; expected ({J}, {K}).")
        ref_m, ref_cnt = _others_mean(pair_mean, present & ~fam)
        diff = pair_mean - ref_m
        for j in range(J):
            ok = present[j] & (ref_cnt[j] > 0)
            own, rest = ok & fam[j], ok & ~fam[j]
            if own.any() and rest.any():
                selfp[..., j] = diff[..., j, own].mean(-1) - diff[..., j, rest].mean(-1)
    return {
        "level_share": share,
        "pair_mean": pair_mean,
        "mean_score": mean_score,
        "spearman_others": spear,
        "overlap_others": overlap,
        "self_preference": selfp,
    }


def _pair_index(model: pm.Model, labels=None) -> tuple[np.ndarray, np.ndarray]:
    """Judge and candidate indices of ``judge|candidate`` labels.

    The default labels are the model's ``pair`` coordinate.
    """
    judges, cands = list(model.coords["judge"]), list(model.coords["candidate"])
    lookup = {f"{j}|{k}": (a, b) for a, j in enumerate(judges) for b, k in enumerate(cands)}
    labels = model.coords["pair"] if labels is None else labels
    try:
        idx = np.array([lookup[str(p)] for p in labels], dtype=int).reshape(-1, 2)
    except KeyError as exc:
        raise ValueError(f"pair {exc.args[0]!r} is not 'judge|candidate' of the model.") from exc
    return idx[:, 0], idx[:, 1]


def _held_out_gamma(post: xr.Dataset, jj: np.ndarray, kk: np.ndarray) -> np.ndarray:
    """Posterior ``gamma_jk`` ``(chain, draw, pair, L)`` of pairs outside the likelihood."""
    theta = post["theta"].values[:, :, jj]  # (c, d, P, M, L)
    pi = post["pi"].values[:, :, kk]  # (c, d, P, M)
    if "Z" in post:  # random effects: pi^(j)_k = (1 - W_k R_j) pi_k + W_k R_j Z_k
        lam = post["R"].values[:, :, jj] * post["W"].values[:, :, kk]
        pi = (1 - lam)[..., None] * pi + lam[..., None] * post["Z"].values[:, :, kk]
    gamma = (pi[..., None] * theta).sum(-2)
    return gamma / gamma.sum(-1, keepdims=True)


def judge_posterior_predictive(
    idata: xr.DataTree, model: pm.Model, *, data: JudgeData | None = None, seed: int = 0
) -> xr.DataTree:
    """A copy of ``idata`` with a ``posterior_predictive`` group (the input is not changed).

    ``scores`` (chain, draw, pair, assigned) come from :func:`pymc.sample_posterior_predictive`
    (``random_seed=seed``). With ``data``, the scored pairs outside the likelihood (the
    excluded same-family pairs) get ``held_out_scores`` (chain, draw, held_out, assigned):
    multinomial draws with the observed totals from the posterior ``gamma_jk``
    (``numpy.random.default_rng([seed, 1])``), and ``held_out_observed`` their counts.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of ``model`` (:func:`bayes_eval.models.judges.fit_judges`).
    model : pymc.Model
        The :func:`~bayes_eval.models.judges.judge_model` that was sampled.
    data : JudgeData, optional, keyword-only
        The fitted data, to replicate the scored pairs left out of the likelihood too.
    seed : int, keyword-only
        Random seed of the replicates, default 0.

    Returns
    -------
    xarray.DataTree
        A copy of ``idata`` with ``posterior_predictive`` (``scores``, and with ``data``
        ``held_out_scores`` and ``held_out_observed`` where pairs were held out).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.nuts import NutsSettings
    >>> from bayes_eval.models.judges import fit_judges, judge_model
    >>> model = judge_model(data)
    >>> settings = NutsSettings(draws=20, tune=20, chains=1, warn=False)  # a toy fit
    >>> fit = fit_judges(data, model=model, nuts=settings)
    >>> from bayes_eval.models import judge_posterior_predictive
    >>> rep = judge_posterior_predictive(fit, model, seed=0)["posterior_predictive"]["scores"]
    >>> rep.dims, rep.shape
    (('chain', 'draw', 'pair', 'assigned'), (1, 20, 6, 3))
    """
    if "posterior" not in idata.children:
        raise ValueError("idata has no posterior group; expected a fit from fit_judges.")
    if "scores" not in model.named_vars or "pair" not in model.coords:
        raise ValueError("model is not a judges model (judge_model); expected 'scores'.")
    pp = pm.sample_posterior_predictive(
        idata,
        model=model,
        var_names=["scores"],
        random_seed=int(seed),
        progressbar=False,
        compile_kwargs={"mode": "FAST_COMPILE"},  # one draw per posterior draw: no Numba needed
    )
    rep = pp["posterior_predictive"].to_dataset()
    if data is not None:
        if (tuple(data.judges), tuple(data.candidates)) != (
            tuple(model.coords["judge"]),
            tuple(model.coords["candidate"]),
        ):
            raise ValueError("data has other judges or candidates than the model.")
        jj, kk = _pair_index(model)
        obs = idata["observed_data"]["scores"].values
        if not np.array_equal(data.counts[jj, kk], obs):
            raise ValueError("data counts differ from the fit's observed scores.")
        inside = np.zeros(data.mask.shape, bool)
        inside[jj, kk] = True
        hj, hk = np.nonzero(~inside & (data.counts.sum(2) > 0))
        if hj.size:
            post = idata["posterior"].to_dataset()
            gamma = _held_out_gamma(post, hj, hk)
            rng = np.random.default_rng([int(seed), 1])
            draws = rng.multinomial(data.counts[hj, hk].sum(1), gamma)
            labels = [f"{data.judges[a]}|{data.candidates[b]}" for a, b in zip(hj, hk, strict=True)]
            dims = ("chain", "draw", "held_out", "assigned")
            rep["held_out_scores"] = xr.DataArray(
                draws, dims=dims, coords={**{d: rep[d] for d in _SAMPLE}, "held_out": labels}
            )
            rep["held_out_observed"] = (("held_out", "assigned"), data.counts[hj, hk])
    out = idata.copy()
    out["posterior_predictive"] = xr.DataTree(rep)
    return out


def _tables(tree: xr.DataTree, model: pm.Model, J: int, K: int, L: int):
    """Observed (J, K, L) and replicated (S, J, K, L) count tables and the fit mask."""
    jj, kk = _pair_index(model)
    rep_ds = tree["posterior_predictive"].to_dataset()
    rep_pairs = rep_ds["scores"].stack(sample=_SAMPLE).transpose("sample", "pair", "assigned")
    S = rep_pairs.sizes["sample"]
    obs = np.zeros((J, K, L), dtype=np.int64)
    rep = np.zeros((S, J, K, L), dtype=np.int64)
    obs[jj, kk] = tree["observed_data"]["scores"].values
    rep[:, jj, kk] = rep_pairs.values
    mask = np.zeros((J, K), bool)
    mask[jj, kk] = True
    if "held_out_scores" in rep_ds:
        hj, hk = _pair_index(model, rep_ds["held_out"].values)
        held = rep_ds["held_out_scores"].stack(sample=_SAMPLE)
        obs[hj, hk] = rep_ds["held_out_observed"].values
        rep[:, hj, hk] = held.transpose("sample", "held_out", "assigned").values
    return obs, rep, mask


def _summary(obs: np.ndarray, rep: np.ndarray, tail: float) -> dict[str, np.ndarray]:
    """Replicate mean, sd, central interval and mid-p value (sample axis 0; NaN-aware)."""
    defined = np.isfinite(rep)
    n = defined.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        warnings.filterwarnings("ignore", "Degrees of freedom", RuntimeWarning)
        hits = (rep > obs).sum(0) + 0.5 * (rep == obs).sum(0)
        p = np.where(np.isfinite(obs) & (n > 0), hits / n, np.nan)
        return {
            "observed": obs,
            "rep_mean": np.nanmean(rep, 0),
            "rep_sd": np.nanstd(rep, 0),
            "rep_lo": np.nanquantile(rep, tail, 0),
            "rep_hi": np.nanquantile(rep, 1 - tail, 0),
            "p_value": p,
        }


def judge_ppc_statistics(
    idata: xr.DataTree,
    model: pm.Model,
    *,
    data: JudgeData | None = None,
    seed: int = 0,
    prob: float = 0.95,
) -> xr.Dataset:
    """Posterior predictive check of a judges fit.

    Observed statistics, their replicated distribution and mid-p values (module docstring).

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of ``model`` (:func:`bayes_eval.models.judges.fit_judges`); not changed.
    model : pymc.Model
        The :func:`~bayes_eval.models.judges.judge_model` that was sampled.
    data : JudgeData, optional, keyword-only
        The fitted data: gives the same-family marks (``self_preference``, held-out
        same-family pairs) and the assigned-level values (needed with abstention, ``L != M``).
    seed : int, keyword-only
        Random seed of the replicates, default 0
        (:func:`~bayes_eval.models.judge_predictive.judge_posterior_predictive`).
    prob : float, keyword-only
        Mass of the central replicated interval ``rep_lo``, ``rep_hi`` (default 0.95).

    Returns
    -------
    xarray.Dataset
        Over ``(statistic, judge)`` (:data:`JUDGE_STATISTICS`): ``observed``, ``rep_mean``,
        ``rep_sd``, ``rep_lo``, ``rep_hi``, ``p_value``; the same with prefix ``share_`` over
        ``(judge, assigned)`` (``level_share``) and ``pair_`` over ``(judge, candidate)``
        (``pair_mean``), with ``in_likelihood`` over ``(judge, candidate)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.nuts import NutsSettings
    >>> from bayes_eval.models.judges import fit_judges, judge_model
    >>> model = judge_model(data)
    >>> settings = NutsSettings(draws=20, tune=20, chains=1, warn=False)  # a toy fit
    >>> fit = fit_judges(data, model=model, nuts=settings)
    >>> from bayes_eval.models import judge_ppc_statistics
    >>> checks = judge_ppc_statistics(fit, model)
    >>> checks["statistic"].values.tolist()
    ['mean_score', 'spearman_others', 'overlap_others', 'self_preference']
    >>> checks["observed"].sel(statistic="mean_score").values.round(4).tolist()
    [1.6667, 1.8333]
    """
    if not 0 < prob < 1:
        raise ValueError(f"prob is {prob!r}; expected a number in (0, 1).")
    tree = judge_posterior_predictive(idata, model, data=data, seed=seed)
    judges, cands = list(model.coords["judge"]), list(model.coords["candidate"])
    assigned = list(model.coords["assigned"])
    J, K, L = len(judges), len(cands), len(assigned)
    if data is not None:
        values = data.assigned_values()
    elif L == len(model.coords["level"]):
        values = tree["constant_data"]["values"].values
    else:
        raise ValueError("assigned levels differ from true levels (abstention); pass data=.")
    obs, rep, mask = _tables(tree, model, J, K, L)
    fam = None if data is None else data.same_family
    t_obs = judge_statistics(obs, values, mask, fam)
    t_rep = judge_statistics(rep, values, mask, fam)
    tail = (1 - prob) / 2
    scal = _summary(
        np.stack([t_obs[s] for s in JUDGE_STATISTICS]),
        np.stack([t_rep[s] for s in JUDGE_STATISTICS], axis=1),
        tail,
    )
    share = _summary(t_obs["level_share"], t_rep["level_share"], tail)
    pair = _summary(t_obs["pair_mean"], t_rep["pair_mean"], tail)
    out = {k: (("statistic", "judge"), v) for k, v in scal.items()}
    out.update({f"share_{k}": (("judge", "assigned"), v) for k, v in share.items()})
    out.update({f"pair_{k}": (("judge", "candidate"), v) for k, v in pair.items()})
    out["in_likelihood"] = (("judge", "candidate"), mask)
    return xr.Dataset(
        out,
        coords={
            "statistic": list(JUDGE_STATISTICS),
            "judge": judges,
            "candidate": cands,
            "assigned": assigned,
        },
        attrs={
            "p_value": "mid-p: P(T_rep > T_obs) + P(T_rep == T_obs) / 2",
            "draws": int(rep.shape[0]),
            "prob": prob,
            "held_out_pairs": int(((obs.sum(-1) > 0) & ~mask).sum()),
        },
    )
