"""One cell of the coverage study: true rates from a scenario, simulated results, and every
interval method's lo/hi (see :mod:`bayes_eval.validation.coverage` for the scenarios and the
methods). :func:`run_cell` is what the Dask workers run."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr
from scipy.special import ndtri
from scipy.stats import beta as beta_dist

from bayes_eval.posteriors.posterior import DirichletPosterior

if TYPE_CHECKING:  # pragma: no cover
    from bayes_eval.validation.coverage_config import CoverageConfig

__all__ = ["METHODS", "anchor_rates", "draw_pi", "run_cell"]

METHODS = (
    "empirical",
    "empirical_exact",
    "empirical_plugin",
    "uniform",
    "uniform_exact",
    "jeffreys",
    "oracle",
    "peer_clipped",
    "wald",
    "wilson",
    "clopper_pearson",
    "bootstrap",
    "hierarchical_nuts",
)


# --------------------------------------------------------------------------- scenarios


def anchor_rates(anchors: list[str]) -> np.ndarray:
    """Per-question success rates (mean over trials) of real binary evaluations.

    ``anchors`` names shipped datasets (:func:`bayes_eval.datasets.list_datasets`) or result
    files in any format :func:`bayes_eval.logs.read_eval_log` reads; every model of every
    source contributes one rate per question.
    """
    from bayes_eval import datasets
    from bayes_eval.logs import read_eval_log

    if not anchors:
        raise ValueError("anchors is empty; expected dataset names or result files.")
    rates = []
    for source in anchors:
        if source in datasets.DATASETS:
            R = datasets.load(source)["results"].values
        else:
            R = read_eval_log(source).results(require_all_questions=False).values
        if np.nanmax(R) > 1:
            raise ValueError(f"anchor {source!r} is not binary; the anchored scenario needs 0/1.")
        answered = ~np.isnan(R).all(axis=-1)
        rates.append(np.nanmean(np.where(answered[..., None], R, 0.0), axis=-1)[answered])
    return np.concatenate(rates)


def draw_pi(
    scenario: str, shape: tuple[int, int], n_cat: int, rng, config: CoverageConfig, anchors=None
):
    """True per-question probabilities, shape ``(*shape, C + 1)``."""
    if scenario == "uniform":
        return rng.dirichlet(np.ones(n_cat), size=shape)
    if scenario == "dirichlet":
        return rng.dirichlet(np.full(n_cat, config.alpha0), size=shape)
    if scenario == "beta_mixture":
        easy = rng.random(shape) < 0.5
        lean = np.linspace(0.2, 3.0, n_cat)  # mass toward the top categories
        a_easy = 1.5 * lean / lean.sum() * n_cat
        a_hard = a_easy[::-1]
        out = np.where(
            easy[..., None], rng.dirichlet(a_easy, size=shape), rng.dirichlet(a_hard, size=shape)
        )
        return out
    if scenario == "anchored":
        p = rng.choice(anchors, size=shape)
        return np.stack([1 - p, p], axis=-1)
    raise ValueError(f"unknown scenario {scenario!r}")


# --------------------------------------------------------------------------- methods


def _moments(counts: np.ndarray, w: np.ndarray, alpha0: float):
    post = DirichletPosterior(nu=counts + alpha0, w=w, tally=None)  # type: ignore[arg-type]
    return post.moments()


_CHUNK = 4_000_000  # nodes x reps x questions x categories per block of the learned prior


def _learned(counts: np.ndarray, w: np.ndarray, *, integrated: bool, exact: int, confidence):
    """mu, sigma (and the exact interval of the first ``exact`` replicates) under the learned
    prior, fitted per replicate (``pool="model"``), in blocks to bound memory: the package's
    own :class:`~bayes_eval.posteriors.posterior.Posterior`, as ``bayes_ci`` builds it."""
    from bayes_eval.inputs import Tally
    from bayes_eval.posteriors.posterior import Posterior

    reps, m, k = counts.shape
    mu, sigma = np.empty(reps), np.empty(reps)
    lo, hi = np.full(exact, np.nan), np.full(exact, np.nan)
    nodes_guess = 200 if integrated else 1
    block = max(1, _CHUNK // (nodes_guess * m * k))
    kind = "empirical" if integrated else "empirical-plugin"
    for start in range(0, reps, block):
        cnt = counts[start : start + block]
        tally = Tally(cnt, cnt.sum(axis=-1), k, True)
        post = Posterior.from_tally(tally, w, prior=kind)
        mu[start : start + block], sigma[start : start + block] = post.mean, post.sd
        n_ex = min(exact - start, cnt.shape[0])
        if n_ex > 0:
            ends = post[:n_ex].interval(confidence, kind="exact")
            lo[start : start + n_ex], hi[start : start + n_ex] = ends
    return mu, sigma, (lo, hi)


def _interval_table(counts, w, n, config, prior, rng, bootstrap_resamples):
    """lo, hi of every closed-form method for each replicate, and the uniform mu/sigma."""
    z = float(ndtri(0.5 + config.confidence / 2))
    reps, m, _ = counts.shape
    mu, sigma = _moments(counts.astype(float), w, 1.0)
    out = {"uniform": (mu - z * sigma, mu + z * sigma)}
    mu_j, sigma_j = _moments(counts.astype(float), w, 0.5)
    out["jeffreys"] = (mu_j - z * sigma_j, mu_j + z * sigma_j)
    if prior != 1.0:  # the scenario's own Dirichlet prior: well specified
        mu_o, sigma_o = _moments(counts.astype(float), w, prior)
        out["oracle"] = (mu_o - z * sigma_o, mu_o + z * sigma_o)
    exact = min(config.empirical_exact_reps, reps) if w.size == 2 else 0
    mu_e, sigma_e, ex = _learned(
        counts, w, integrated=True, exact=exact, confidence=config.confidence
    )
    out["empirical"] = (mu_e - z * sigma_e, mu_e + z * sigma_e)
    if exact:
        out["empirical_exact"] = ex
    mu_p, sigma_p, _ = _learned(counts, w, integrated=False, exact=0, confidence=None)
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


def run_cell(cell: tuple[str, int, int, int], config: CoverageConfig) -> xr.Dataset:
    """Simulate one grid cell; returns coverage, its MC error and mean width per method."""
    scenario, c, m, n = cell
    seed = zlib.crc32(f"{config.seed}|{scenario}|{c}|{m}|{n}".encode())
    rng = np.random.default_rng(seed)
    w = np.linspace(0.0, 1.0, c + 1)
    anchors = anchor_rates(config.anchors) if scenario == "anchored" else None
    prior = config.alpha0 if scenario == "dirichlet" else 1.0
    reps = config.reps
    pi = draw_pi(scenario, (reps, m), c + 1, rng, config, anchors)
    truth = (pi @ w).mean(-1)
    counts = rng.multinomial(n, pi)
    intervals, mu, sigma = _interval_table(
        counts, w, n, config, prior, rng, config.bootstrap_resamples
    )
    if config.exact_reps and (c == 1 or config.exact_categorical):
        from bayes_eval.posteriors.exact import exact_interval

        k = min(config.exact_reps, reps)
        lo, hi = exact_interval(counts[:k] + 1.0, w, config.confidence)
        intervals["uniform_exact"] = (lo, hi)
    nuts_diag = {}
    if [scenario, c, m, n] in [list(x) for x in config.nuts_cells]:
        intervals["hierarchical_nuts"], nuts_diag = _nuts_intervals(
            counts[: config.nuts_reps], w, config
        )
    # ranking claims at z > 1.645 between this model and an independent second one
    pi_b = draw_pi(scenario, (reps, m), c + 1, rng, config, anchors)
    truth_b = (pi_b @ w).mean(-1)
    counts_b = rng.multinomial(n, pi_b)
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

    names = [mth for mth in METHODS if mth in intervals]
    cov, used, width = [], [], []
    for name in names:
        lo, hi = intervals[name]
        t = truth[: lo.size]
        cov.append(float(np.mean((lo <= t) & (t <= hi))))
        used.append(lo.size)
        width.append(float(np.mean(hi - lo)))
    cov = np.asarray(cov)
    used = np.asarray(used)
    ds = xr.Dataset(
        {
            "coverage": ("interval", cov),
            "coverage_mc_se": ("interval", np.sqrt(cov * (1 - cov) / used)),
            "width": ("interval", np.asarray(width)),
            "n_reps": ("interval", used),
            "claim_rate_bayes": ((), float(claims.mean())),
            "claim_error_bayes": ((), float(wrong.sum() / max(claims.sum(), 1))),
            "claim_rate_wald": ((), float(claims_w.mean())),
            "claim_error_wald": ((), float(wrong_w.sum() / max(claims_w.sum(), 1))),
            **{key: ((), value) for key, value in nuts_diag.items()},
        },
        coords={"interval": names},
    )
    return ds.expand_dims(scenario=[scenario], C=[c], M=[m], N=[n])


_NUTS_BATCH = 50  # replicates fitted together as independent "models" of one PyMC model


def _nuts_intervals(counts: np.ndarray, w: np.ndarray, config: CoverageConfig):
    """95% ETI of pi-bar under :func:`bayes_eval.models.hierarchical_model`.

    The hierarchical model gives every model its own hyperparameters, so a batch of
    replicates is one fit of independent blocks (one compiled graph per batch, not one per
    replicate). Returns ``lo, hi`` and the fits' diagnostics (worst r-hat, divergences).
    """
    from bayes_eval.models import diagnostics, hierarchical_model, sample

    tail = (1 - config.confidence) / 2
    reps = counts.shape[0]
    n = int(counts[0, 0].sum())
    cum = np.cumsum(counts, axis=-1)[..., :-1]  # trial j has category #{c : cum_c <= j}
    R = (np.arange(n)[None, None, :, None] >= cum[:, :, None, :]).sum(-1)
    lo, hi, rhat, div = [], [], [], 0
    for start in range(0, reps, _NUTS_BATCH):
        idata = sample(
            hierarchical_model(R[start : start + _NUTS_BATCH], w),
            draws=config.nuts_draws,
            tune=config.nuts_draws,
            chains=2,
            seed=config.seed + start,
            warn=False,
        )
        q = idata["posterior"]["pi_bar"].quantile([tail, 1 - tail], dim=("chain", "draw"))
        lo.append(q.values[0])
        hi.append(q.values[1])
        diag = diagnostics(idata, var_names=["beta", "kappa", "pi_bar"])
        rhat.append(diag.max_rhat)
        div += diag.divergences
    return (np.concatenate(lo), np.concatenate(hi)), {
        "nuts_max_rhat": float(np.nanmax(rhat)),
        "nuts_divergences": int(div),
    }
