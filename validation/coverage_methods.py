r"""The interval methods of one coverage cell: every method's lo, hi per simulated benchmark.

Normal intervals :math:`\mu \pm z\sigma` of pi-bar under the uniform prior (Hariri et al.,
"Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", §2.5), Jeffreys,
the scenario's own Dirichlet prior and the prior learned from the questions (integrated and
plugged in), the exact equal-tailed intervals, Wald, Wilson, Clopper-Pearson, the percentile
bootstrap over questions and the hierarchical NUTS model; and the rates of ranking claims at
``z > 1.645``. :func:`bayes_eval.validation.coverage.run_cell` calls these private engines.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri
from scipy.stats import beta as beta_dist

from bayes_eval.inputs import Tally
from bayes_eval.posteriors.exact import on_one_lattice
from bayes_eval.posteriors.intervals import mixture_moments
from bayes_eval.posteriors.posterior import (
    DirichletPosterior,
    Posterior,
    sums_moments,
    total_sums,
)
from bayes_eval.posteriors.priors import Prior
from bayes_eval.validation.cell_runner import report_progress

__all__: list[str] = []


def _moments(counts: np.ndarray, w: np.ndarray, alpha0: float):
    post = DirichletPosterior(nu=counts + alpha0, w=w, tally=None)  # type: ignore[arg-type]
    return post.moments()


#: Rows of exact intervals computed between two reports of the progress bar.
_EXACT_BLOCK = 50

_CHUNK = 8_000_000  # nodes x reps x categories x trials per block of the learned prior
#: the learned prior's quadrature nodes by number of categories (its widest product rules,
#: a 256-point sample beyond five categories): the block size's bound on its arrays
_NODES_GUESS = {2: 121, 3: 343, 4: 625, 5: 243}


def _learned(counts: np.ndarray, w: np.ndarray, *, exact: int, confidence, done=(0, 1), fixed=()):
    """The mu and sigma under the learned prior, integrated and plugged in, and exact intervals.

    Mu and sigma under the learned prior integrated (``empirical``) and plugged in
    (``empirical_plugin``), and the exact interval of the first ``exact`` replicates under the
    integrated one, fitted per replicate (``pool="model"``), in blocks to bound memory: the
    package's own prior fit and moments, as ``bayes_ci`` computes them. One fit per replicate
    serves both: the plug-in prior is the integrated fit's mode
    (:meth:`~bayes_eval.posteriors.priors.FittedPrior.plug_in`, what ``empirical-plugin``
    fits). The moments under every prior (the learned prior's nodes, its mode, and the fixed
    Dirichlet priors ``fixed``, concentrations alpha0) are read from one set of sums per
    replicate (:func:`~bayes_eval.posteriors.posterior.total_sums`), not from the questions
    once per prior. ``done = (a, b)``: the share of the cell done before and after this call,
    for its progress bar (:func:`~bayes_eval.validation.cell_runner.report_progress`).
    Returns ``(mu, sigma)`` of each learned form, ``(lo, hi)``, and ``(mu, sigma)`` under
    each of ``fixed``.
    """
    reps, _, k = counts.shape
    mu, sigma = np.empty((2 + len(fixed), reps)), np.empty((2 + len(fixed), reps))
    lo, hi = np.full(exact, np.nan), np.full(exact, np.nan)
    # the fit works on each replicate's statistics (nodes x categories x trials, not
    # questions: posteriors.prior_statistics._Data), so a block holds that many replicates
    nodes_guess = _NODES_GUESS.get(k, 256)
    total = counts[..., 0].copy()  # slices of the short category axis: no slow reduction
    for i in range(1, k):
        total += counts[..., i]
    block = max(1, _CHUNK // (nodes_guess * (k + 1) * (int(total.max(initial=0)) + 1)))
    del total
    # the replicates are independent benchmarks of one model each: no board to learn from
    integrated = Prior.parse("empirical", pool="model")
    fixed_nodes = [np.full((1, 1, k), float(alpha0)) for alpha0 in fixed]
    for start in range(0, reps, block):
        cnt = counts[start : start + block]
        rows = slice(start, start + block)
        fitted = integrated.fit(cnt, w=w)
        sums = total_sums(cnt, w)
        node_mu, node_sd = sums_moments(sums, fitted.nodes, w)
        mu[0, rows], sigma[0, rows] = mixture_moments(node_mu, node_sd, fitted.weights)
        for i, nodes in enumerate([fitted.alpha[None], *fixed_nodes], start=1):
            (mu[i, rows],), (sigma[i, rows],) = sums_moments(sums, nodes, w)
        n_ex = min(exact - start, cnt.shape[0])
        if n_ex > 0:
            tally = Tally(cnt, cnt.sum(axis=-1), k, True)
            post = Posterior(
                data=cnt.astype(np.float64), fitted=fitted, w=w, tally=tally, prior=integrated
            )
            ends = post[:n_ex].interval(confidence, kind="exact")
            lo[start : start + n_ex], hi[start : start + n_ex] = ends
        report_progress(done[0] + (done[1] - done[0]) * min(start + block, reps) / reps)
    return (mu[0], sigma[0]), (mu[1], sigma[1]), (lo, hi), list(zip(mu[2:], sigma[2:], strict=True))


def _interval_table(counts, w, n, config, prior, rng, bootstrap_resamples, share=1.0):
    """lo, hi of every closed-form method for each replicate, and the uniform mu/sigma.

    ``share``: the part of the cell's progress bar this table covers (its learned-prior fits,
    which take most of its time).
    """
    z = float(ndtri(0.5 + config.confidence / 2))
    reps, m, _ = counts.shape
    exact = min(config.empirical_exact_replicates, reps) if on_one_lattice(w) else 0
    # the fixed priors: uniform, Jeffreys, and the scenario's own Dirichlet (well specified)
    fixed = (1.0, 0.5) if prior == 1.0 else (1.0, 0.5, prior)
    (mu_e, sigma_e), (mu_p, sigma_p), ex, moments = _learned(  # most of a cell's time: 0 -> 90%
        counts, w, exact=exact, confidence=config.confidence, done=(0, 0.9 * share), fixed=fixed
    )
    (mu, sigma), (mu_j, sigma_j) = moments[:2]
    out = {"uniform": (mu - z * sigma, mu + z * sigma)}
    out["jeffreys"] = (mu_j - z * sigma_j, mu_j + z * sigma_j)
    if prior != 1.0:
        mu_o, sigma_o = moments[2]
        out["oracle"] = (mu_o - z * sigma_o, mu_o + z * sigma_o)
    out["empirical"] = (mu_e - z * sigma_e, mu_e + z * sigma_e)
    if exact:
        out["empirical_exact"] = ex
    out["empirical_plugin"] = (mu_p - z * sigma_p, mu_p + z * sigma_p)
    out["peer_clipped"] = (np.clip(mu - z * sigma, 0, 1), np.clip(mu + z * sigma, 0, 1))
    per_q = (counts @ w) / n  # (reps, M)
    a = per_q.mean(-1)
    se = per_q.std(-1, ddof=1) / np.sqrt(m) if m > 1 else np.zeros(reps)
    out["wald"] = (a - z * se, a + z * se)
    if w.size == 2:
        k = counts[..., 1].sum(-1).astype(float)
        tot = float(m * n)
        centre = (k + z * z / 2) / (tot + z * z)
        half = z / (tot + z * z) * np.sqrt(k * (tot - k) / tot + z * z / 4)
        out["wilson"] = (centre - half, centre + half)
        tail = (1 - config.confidence) / 2
        lo = np.where(k > 0, beta_dist.ppf(tail, k, tot - k + 1), 0.0)
        hi = np.where(k < tot, beta_dist.ppf(1 - tail, k + 1, tot - k), 1.0)
        out["clopper_pearson"] = (lo, hi)
    if bootstrap_resamples:
        q = [(1 - config.confidence) / 2, (1 + config.confidence) / 2]
        los, his = [], []
        for start in range(0, reps, 200):
            block = per_q[start : start + 200]
            idx = rng.integers(0, m, size=(block.shape[0], bootstrap_resamples, m))
            means = np.take_along_axis(block[:, None, :], idx, axis=-1).mean(-1)
            lo_b, hi_b = np.quantile(means, q, axis=-1)
            los.append(lo_b)
            his.append(hi_b)
        out["bootstrap"] = (np.concatenate(los), np.concatenate(his))
    return out, mu, sigma


def _exact_intervals(
    counts: np.ndarray, w: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """Exact equal-tailed intervals of pi-bar under the uniform prior, one per replicate.

    pi-bar's law does not depend on the order of the questions: replicates whose count vectors
    are a permutation of each other share one interval (few distinct ones when M N is small: 6
    for M = 5 binary questions of N = 1 trial). The progress goes from 50% to 100%.
    """
    from bayes_eval.posteriors.exact import exact_interval

    k, m, levels = counts.shape
    canonical = np.sort(counts.view(_row_dtype(counts)), axis=1).view(counts.dtype)
    distinct, inverse = np.unique(canonical.reshape(k, -1), axis=0, return_inverse=True)
    nu = distinct.reshape(-1, m, levels) + 1.0
    lo, hi = np.empty(len(nu)), np.empty(len(nu))
    for start in range(0, len(nu), _EXACT_BLOCK):  # one law per row: show the progress
        part = slice(start, start + _EXACT_BLOCK)
        lo[part], hi[part] = exact_interval(nu[part], w, confidence)
        report_progress(0.5 + 0.5 * min(start + _EXACT_BLOCK, len(nu)) / len(nu))
    return lo[inverse.ravel()], hi[inverse.ravel()]


def _claim_rates(
    counts: np.ndarray,
    mu: np.ndarray,
    sigma: np.ndarray,
    truth: np.ndarray,
    counts_b: np.ndarray,
    truth_b: np.ndarray,
    w: np.ndarray,
) -> dict[str, float]:
    """Rates and errors of ranking claims at z > 1.645 against an independent second model.

    The claims of the Bayes@N posterior (uniform prior) beside those of a Wald test on the
    per-question means; an error is a claim whose sign is not the truth's.
    """
    reps, m, _ = counts.shape
    n = counts[0, 0].sum()
    mu_b, sigma_b = _moments(counts_b.astype(float), w, 1.0)
    zb = (mu - mu_b) / np.sqrt(sigma**2 + sigma_b**2)
    claims = np.abs(zb) > 1.645
    wrong = claims & (np.sign(zb) != np.sign(truth - truth_b))
    per_q_a = (counts @ w) / n
    per_q_b = (counts_b @ w) / n
    se_w = (
        np.sqrt(per_q_a.var(-1, ddof=1) / m + per_q_b.var(-1, ddof=1) / m)
        if m > 1
        else np.full(reps, np.inf)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        zw = (per_q_a.mean(-1) - per_q_b.mean(-1)) / se_w
    claims_w = np.abs(zw) > 1.645
    wrong_w = claims_w & (np.sign(zw) != np.sign(truth - truth_b))
    return {
        "claim_rate_bayes": float(claims.mean()),
        "claim_error_bayes": float(wrong.sum() / max(claims.sum(), 1)),
        "claim_rate_wald": float(claims_w.mean()),
        "claim_error_wald": float(wrong_w.sum() / max(claims_w.sum(), 1)),
    }


def _row_dtype(counts: np.ndarray) -> np.dtype:
    """A structured dtype viewing each question's count vector (last axis) as one element.

    Sorting along the question axis then sorts whole count vectors (lexicographically).
    """
    return np.dtype([(f"c{i}", counts.dtype) for i in range(counts.shape[-1])])


_NUTS_BATCH = 50  # replicates fitted together as independent "models" of one PyMC model


def _nuts_intervals(counts: np.ndarray, w: np.ndarray, config, model: str = "hierarchical"):
    """95% ETI of pi-bar under :func:`bayes_eval.models.hierarchical_model` or its mixture.

    ``model`` is ``hierarchical`` or ``mixture`` (:func:`bayes_eval.models.mixture_model`).
    Both give every model its own hyperparameters, so a batch of replicates is one fit of
    independent blocks (one compiled graph per batch, not one per replicate). ``config`` is
    the study's :class:`~bayes_eval.validation.coverage.CoverageConfig`. Returns ``lo, hi``
    and the fits' diagnostics (worst r-hat, divergences; keys ``nuts_max_rhat`` and
    ``nuts_divergences``, prefixed ``mixture_`` for the mixture, whose r-hat is ``pi_bar``'s).
    """
    from bayes_eval.models import diagnostics, hierarchical_model, mixture_model, sample
    from bayes_eval.nuts import NutsSettings

    build = mixture_model if model == "mixture" else hierarchical_model
    # the mixture's group variables are identified only by the ordering of their scores (weakly
    # where the results are of one kind): its fits are judged by pi_bar, which no labelling moves
    checked = ["pi_bar"] if model == "mixture" else ["beta", "kappa", "pi_bar"]
    prefix = "mixture_" if model == "mixture" else ""

    tail = (1 - config.confidence) / 2
    reps = counts.shape[0]
    n = int(counts[0, 0].sum())
    cum = np.cumsum(counts, axis=-1)[..., :-1]  # trial j has category #{c : cum_c <= j}
    R = (np.arange(n)[None, None, :, None] >= cum[:, :, None, :]).sum(-1)
    lo, hi, rhat, div = [], [], [], 0
    nuts = NutsSettings(draws=config.nuts_draws, tune=config.nuts_draws, chains=2, warn=False)
    for start in range(0, reps, _NUTS_BATCH):
        fit = build(R[start : start + _NUTS_BATCH], w)
        idata = sample(fit, nuts.replace(seed=config.seed + start))
        q = idata["posterior"]["pi_bar"].quantile([tail, 1 - tail], dim=("chain", "draw"))
        lo.append(q.values[0])
        hi.append(q.values[1])
        diag = diagnostics(idata, var_names=checked)
        rhat.append(diag.max_rhat)
        div += diag.divergences
    return (np.concatenate(lo), np.concatenate(hi)), {
        f"{prefix}nuts_max_rhat": float(np.nanmax(rhat)),
        f"{prefix}nuts_divergences": int(div),
    }
