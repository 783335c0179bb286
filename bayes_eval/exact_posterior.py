r"""The exact posterior distribution of pi-bar, not only its first two moments.

Under the Bayes@N posterior (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large
Language Model Evaluation", Appendix A) pi-bar is the mean of M independent random variables
:math:`Y_\alpha = w\cdot\pi_\alpha`, :math:`\pi_\alpha \sim \mathrm{Dir}(\nu_\alpha)`.
The paper approximates its law by :math:`N(\mu, \sigma^2)` (§2.5); this module computes it.

1. Categories with equal weight are merged (aggregation property of the Dirichlet), leaving
   levels :math:`v_0 < \dots < v_K`.
2. The CDF of each :math:`Y_\alpha` is exact: a scaled Beta CDF when :math:`K = 1`; for
   :math:`K \ge 2`, :math:`P(Y \le y) = P(\sum_k (v_k - y) G_k \le 0)` with independent
   :math:`G_k \sim \mathrm{Gamma}(\nu_k)` (Dirichlet as normalised Gammas), evaluated by the
   Gil-Pelaez/Imhof inversion
   :math:`P(X \le 0) = \tfrac12 - \tfrac1\pi\int_0^\infty \sin\theta(t)/(t\rho(t))\,dt`,
   :math:`\theta = \sum_k \nu_k \arctan(c_k t)`, :math:`\rho = \prod_k (1 + c_k^2 t^2)^{\nu_k/2}`,
   integrated by the trapezoidal rule in :math:`\log t` (absolute error below 1e-9, also at a
   distance 1e-250 from a level, where a CDF like :math:`y^{0.05}` is still 1e-13).
3. Each :math:`Y_\alpha/M` is discretised on a lattice of step ``h`` (default: the
   root-mean-square posterior sd of the :math:`Y_\alpha/M` divided by 40) by *linear
   binning*: the mass at :math:`y` between lattice points :math:`x_j < y < x_{j+1}` is split
   between them in proportion :math:`(x_{j+1} - y) : (y - x_j)`, so that the discretised
   variable has :math:`E[\tilde Y \mid Y] = Y`, whatever the shape of the density within a
   cell. The masses are second differences of :math:`G(y) = E[(y - Y)_+]`: in closed form for
   :math:`K = 1` (:math:`E[\pi 1\{\pi \le z\}] = \frac{a}{a+b} I_z(a + 1, b)`), otherwise the
   antiderivative of a cubic spline through exact CDF values (192 Chebyshev points of the
   window plus points graded geometrically around every level, where the density can be
   infinite). Each question's lattice is offset by a fraction of a step so that its most
   probable level is a lattice point: with concentrations below 1 the density there behaves
   like :math:`|y - v|^{a-1}`, and most of the mass sits within a small fraction of a cell of
   it. A question's window is its mean ± 20 sd, widened to its 1e-14 and 1 - 1e-14 quantiles.
4. Identical questions are grouped and the M lattice laws are convolved by FFT (a power of the
   transform for each group), over all their lattice points when there are at most 2^15 of
   them, otherwise over ±25 posterior sd of pi-bar around the known mean (the circular
   convolution is unwrapped there).
5. The lattice sum is :math:`\bar\pi + E` with :math:`E[E \mid \pi] = 0` and
   :math:`\mathrm{Var}(E \mid \pi) \le M h^2/4`; its CDF is taken linear between cell edges.
   Its mean is exact; its variance is scaled to the exact one (eq. 15; Sheppard's
   correction, a change of a quantile by ~1e-4 posterior sd), by a factor reduced where
   needed so that no lattice point inside the support leaves it.
6. Tails. Near an end of the support :math:`[s_{\min}, s_{\max}]` of pi-bar no lattice of
   fixed step resolves a law like :math:`(s - s_{\min})^a` with small :math:`a`: all-wrong
   questions under :math:`\alpha_0 = 0.05` (M = 5 binary, N = 1) have their 2.5% point at
   :math:`8.4\cdot10^{-8}`, the lattice step is :math:`7\cdot10^{-4}`. A quantile (or CDF
   value) within 512 cells of an end is therefore recomputed from that end:
   :math:`P(\bar\pi - s_{\min} \le r)` depends only on each question's law on its first
   :math:`r` (in units of pi-bar), so it is computed exactly on 4096 cells of
   :math:`[0, r_{\max}]` from the per-question laws truncated there (linear binning from the
   end, truncated products of their transforms), with :math:`r_{\max}` shrunk until the
   quantile lies beyond cell 512.
7. The same inside the support. For N >= 1 only a question's most probable level (its
   anchor) can carry a density like :math:`|y - v|^{a-1}` with :math:`a < 1`, so the sum of
   the anchors, :math:`s_0`, is the only point where pi-bar can concentrate (e.g. one
   all-wrong and one all-correct question, or all-middle rubric answers, under
   :math:`\alpha_0 = 0.05`: the quartiles can lie 1e-5, the 45% point 1e-12 from
   :math:`s_0`). When the exponents at the anchors add up to less than 2, values within 64
   cells of :math:`s_0` are refined level by level: every question is split into its law
   within :math:`\delta` (256 cells) of its anchor and the rest; the sum with some question
   beyond :math:`\delta` has a density smooth on that scale and is kept from the coarser level,
   the sum of the truncated laws is recomputed with an 8 times finer step
   (:math:`F_{k+1} = F_k - N_\delta(h) + N_\delta(h/8)`), until the value is 64 cells of the
   finest step away from :math:`s_0`.
8. With a single question the exact CDF is inverted directly
   (:func:`scipy.special.betaincinv` for :math:`K = 1`, root finding in the log-distance from
   the nearer end on the Imhof CDF otherwise).

Accuracy. Measured by ``pytest -m slow -k accuracy tests/core/test_exact_posterior.py`` (288
cases per confidence level: alpha0 in {0.05, 0.5, 1, 10}, binary and (0, 1/2, 1) rubrics,
M in {1, 2, 5, 30}, N in {1, 16}, all-wrong, all-correct, half-and-half, all-middle and
random data; references: scipy's beta quantiles, numerical convolution by quadrature for two
binary questions, and a 16 times finer computation) and wider sweeps (about 900 cases at 95%
with alpha0 up to 100; 504 cases at each of 50, 80, 90, 99 and 99.9%; a reference with exact
CDF values in every cell instead of splines; conditional Monte Carlo with 8·10^6 draws, also
for the affine map of avg@N):

==========  ==========================  ==============================
confidence  endpoint - exact quantile   mass beyond an endpoint - tail
==========  ==========================  ==============================
50%         < 1e-4 posterior sd         < 4e-5
80-95%      < 1e-4 posterior sd         < 8e-6 (95%: < 4e-6)
99%         < 2e-4 posterior sd         < 1.5e-6
99.9%       < 4e-4 posterior sd         < 4e-7
==========  ==========================  ==============================

(far in a tail the density is small, so a larger error in sd is a smaller one in
probability). The closed forms of the all-wrong tails (tests) are met to 2e-6 relative.
Endpoints always lie in the support. One limit is floating point: a quantile closer to a
point than the spacing of floats there is that point (all-correct data under alpha0 = 0.05:
the 97.5% point is :math:`1 - 8\cdot10^{-33}`, returned as 1.0, with no mass beyond it).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import fft as sfft

from bayes_eval.credible_interval import CredibleInterval
from bayes_eval.exact_imhof import dirichlet_functional_cdf
from bayes_eval.exact_lattice import _group, _lattice_pmf, _question_moments, _questions
from bayes_eval.exact_tails import ExactPosterior, _Model, _single_ppf

__all__ = [
    "ExactPosterior",
    "dirichlet_functional_cdf",
    "exact_interval",
    "exact_posterior",
    "lattice_step",
    "prob_greater",
]

_SUM_WINDOW = 25.0  # half-width of the unwrapped window of the sum, in posterior sd
_NO_WRAP_CELLS = 2**15  # up to this length the sum is computed over all its lattice points
_CELLS_PER_SD = 40.0


def exact_posterior(
    nu: ArrayLike,
    w: ArrayLike,
    *,
    scale: ArrayLike | None = None,
    shift: ArrayLike | None = None,
    step: float | None = None,
) -> ExactPosterior:
    r"""Exact posterior of :math:`\frac1M\sum_\alpha (s_\alpha\, w\cdot\pi_\alpha + t_\alpha)`.

    :math:`\pi_\alpha \sim \mathrm{Dir}(\nu_\alpha)` independently: the Bayes@N posterior
    of Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation", Appendix A, whose mean and sd (eq. 15) are matched exactly; the law itself
    is computed by steps 1-7 of the module docstring (the paper uses :math:`N(\mu,
    \sigma^2)`, §2.5).

    Parameters
    ----------
    nu : array_like, shape ``(M, C + 1)``
        Posterior Dirichlet concentrations per question.
    w : array_like, shape ``(C + 1,)``
        Rubric weights.
    scale, shift : array_like, shape ``(M,)``, optional
        Per-question affine map (default 1 and 0: pi-bar itself). avg@N uses
        :math:`s_\alpha = T_\alpha/N_\alpha` (eq. 20).
    step : float, optional
        Lattice step in units of the result; default ``rms(sd_alpha/M) / 40``.

    Returns
    -------
    ExactPosterior
        Its :meth:`~ExactPosterior.ppf` and :meth:`~ExactPosterior.cdf` have the accuracy
        stated in the module docstring (95% quantiles within 1e-4 posterior sd, tail masses
        within 4e-6, always in the support).
    """
    nu = np.asarray(nu, dtype=float)
    w = np.asarray(w, dtype=float)
    m = nu.shape[0]
    scale = np.ones(m) if scale is None else np.asarray(scale, dtype=float)
    shift = np.zeros(m) if shift is None else np.asarray(shift, dtype=float)
    levels, beta = _group(nu, w)
    q_mean, q_sd = _question_moments(levels, beta, scale, shift, m)
    mean = float(q_mean.sum())
    sd = float(np.sqrt((q_sd**2).sum()))
    if sd == 0.0 or levels.size == 1:
        return ExactPosterior(np.array([mean]), np.array([1.0]), 0.0, mean, 0.0, (mean, mean))
    h = float(np.sqrt(np.mean(q_sd**2)) / _CELLS_PER_SD) if step is None else float(step)
    questions, const = _questions(levels, beta, scale, shift, m)
    lower = const + sum(q.count * q.lo for q in questions)
    upper = const + sum(q.count * q.hi for q in questions)

    starts, fracs, pmfs = [], [], []
    for q in questions:
        j0, frac, pmf = _lattice_pmf(q, h)
        starts.append(j0)
        fracs.append(frac)
        pmfs.append(pmf)
    mult = np.array([q.count for q in questions])
    offset = int((np.array(starts) * mult).sum())  # lattice index of the sum when all j = j0
    frac = float((np.array(fracs) * mult).sum())
    origin = const + (offset + frac) * h  # position of relative index 0
    total_len = int(sum(k * (p.size - 1) for p, k in zip(pmfs, mult, strict=True))) + 1
    half = int(np.ceil(_SUM_WINDOW * sd / h)) + 2
    n_fft = max(2 * half + 1, max(p.size for p in pmfs))
    wrap = total_len > max(n_fft, _NO_WRAP_CELLS)
    n_fft = sfft.next_fast_len(n_fft if wrap else total_len, real=True)
    # product of spectra raised to the multiplicities, in polar form (a zero stays a zero)
    log_abs = np.zeros(n_fft // 2 + 1)
    phase = np.zeros(n_fft // 2 + 1)
    with np.errstate(divide="ignore"):
        for p, k in zip(pmfs, mult, strict=True):
            spec = sfft.rfft(p, n_fft)
            log_abs += k * np.log(np.abs(spec))
            phase += k * np.angle(spec)
    pmf = np.clip(sfft.irfft(np.exp(log_abs) * np.exp(1j * phase), n_fft), 0.0, None)
    index = np.arange(n_fft, dtype=float)
    if wrap:  # residue r stands for index r + n_fft * round((centre - r) / n_fft)
        centre = (mean - origin) / h
        index = index + n_fft * np.round((centre - index) / n_fft)
        order = np.argsort(index)
        index, pmf = index[order], pmf[order]
    x = origin + index * h
    pmf /= pmf.sum()
    raw = (np.concatenate([[x[0] - h / 2], x + h / 2]), np.concatenate([[0.0], np.cumsum(pmf)]))
    # the sum of the most probable levels: the law concentrates there when the exponents of
    # the questions' densities there (|y - v|^(a - 1)) add up to less than 2
    spike = const + sum(q.count * (q.slope * q.levels[q.anchor] + q.intercept) for q in questions)
    exponent = sum(q.count * (q.beta.sum() - q.beta.max()) for q in questions)
    if not (exponent < 2.0 and lower < spike < upper and sum(mult) <= 64):
        spike = None  # (with more questions all of them are at their anchors only rarely)
    # Sheppard's correction: linear binning keeps the mean; the lattice law plus the uniform
    # spread within a cell (cdf linear between edges) is shrunk to the exact variance
    g_mean = float(pmf @ x)
    g_var = float(pmf @ (x - g_mean) ** 2) + h * h / 12.0
    factor = sd / np.sqrt(g_var)
    # ... unless that would move a point of the support out of it (a most probable level at an
    # end is a lattice point; interpolated CDFs leave the mean ~1e-8 sd off)
    tol = 1e-6 * h
    inside = x[(pmf > 0) & (x >= lower - tol) & (x <= upper + tol)]
    if inside.size and inside[0] < g_mean:
        factor = min(factor, (mean - lower) / (g_mean - inside[0]))
    if inside.size and inside[-1] > g_mean:
        factor = min(factor, (upper - mean) / (inside[-1] - g_mean))
    x = mean + (x - g_mean) * factor
    model = _Model(questions, const, lower, upper, h * factor, raw, spike)
    return ExactPosterior(x, pmf, h * factor, mean, sd, (lower, upper), model)


def lattice_step(nus, w: ArrayLike) -> float | None:
    """One lattice step fine enough for every posterior in ``nus``.

    The default step of :func:`exact_posterior` (step 3 of the module docstring), the
    smallest over the models, so that their lattices can be compared.

    Parameters
    ----------
    nus : sequence of array_like, each of shape ``(M, C + 1)``
        Posterior concentrations of the models to compare.
    w : array_like, shape ``(C + 1,)``
        Rubric weights.

    Returns
    -------
    float or None
        The smallest ``rms(sd_alpha / M) / 40`` among them, so that convolving or comparing
        them (:func:`prob_greater`) keeps the default accuracy; ``None`` if all are point
        masses.
    """
    w = np.asarray(w, dtype=float)
    steps = []
    for nu in nus:
        nu = np.asarray(nu, dtype=float)
        levels, beta = _group(nu, w)
        m = nu.shape[0]
        _, q_sd = _question_moments(levels, beta, np.ones(m), np.zeros(m), m)
        rms = float(np.sqrt(np.mean(q_sd**2)))
        if rms > 0:
            steps.append(rms / _CELLS_PER_SD)
    return min(steps) if steps else None


def prob_greater(a: ExactPosterior, b: ExactPosterior) -> float:
    r"""Exact ``P(pi-bar_a > pi-bar_b)`` for independent posteriors on the same lattice step.

    The exact counterpart of the ranking confidence :math:`\rho = \Phi(z)` of Hariri et al.,
    "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", §2.5: the law
    of :math:`D = \bar\pi_a - \bar\pi_b` is the FFT convolution of the two lattice laws,
    shifted to the exact mean of D, and :math:`P(D > 0)` splits the cell containing 0.
    Build both with the same ``step`` (see :func:`bayes_eval.ranking.prob_better`).

    Parameters
    ----------
    a, b : ExactPosterior

    Returns
    -------
    float
    """
    if a.sd == 0.0 and b.sd == 0.0:
        return float(a.mean > b.mean) + 0.5 * float(a.mean == b.mean)
    if a.sd == 0.0 or b.sd == 0.0:
        point, other, sign = (a, b, 1.0) if a.sd == 0.0 else (b, a, -1.0)
        below = float(other.cdf(point.mean))
        return below if sign > 0 else 1.0 - below
    # D = A - B on a common grid of step h = mean of the two steps (they agree to ~1e-3)
    h = 0.5 * (a.step + b.step)
    xa = np.round((a.x - a.x[0]) / h).astype(int)
    xb = np.round((b.x - b.x[0]) / h).astype(int)
    pa = np.bincount(xa, weights=a.pmf)
    pb = np.bincount(xb, weights=b.pmf)
    n = sfft.next_fast_len(pa.size + pb.size, real=True)
    pd = sfft.irfft(sfft.rfft(pa, n) * sfft.rfft(pb[::-1], n), n)[: pa.size + pb.size - 1]
    pd = np.clip(pd, 0.0, None)
    pd /= pd.sum()
    d = a.x[0] - b.x[-1] + np.arange(pd.size) * h
    # shift to the exact mean of the difference, then split the cell containing 0
    d += (a.mean - b.mean) - float(pd @ d)
    upper = d + h / 2
    lower = d - h / 2
    frac_above = np.clip(upper / h, 0.0, 1.0)
    frac_above[lower >= 0] = 1.0
    return float(pd @ frac_above)


def exact_interval(
    nu: ArrayLike,
    w: ArrayLike,
    confidence: float,
    *,
    scale: ArrayLike | None = None,
    shift: ArrayLike | None = None,
) -> CredibleInterval:
    r"""Equal-tailed ``confidence`` interval of the exact posterior, for each model of a batch.

    :math:`[F^{-1}(\tfrac{1-\gamma}{2}), F^{-1}(\tfrac{1+\gamma}{2})]` with F the exact
    posterior CDF of :func:`exact_posterior` and :math:`\gamma` the ``confidence``: the exact
    counterpart of the normal interval :math:`\mu \mp z\sigma` of Hariri et al., "Don't
    Pass@k: A Bayesian Framework for Large Language Model Evaluation", §2.5.

    Accuracy (measured against independent references, see the module docstring): for
    alpha0 >= 0.05, binary or three-level rubrics, M <= 30 and N <= 16, including all-wrong and
    all-correct data, the endpoints are within 1e-4 posterior sd of the exact quantiles for
    confidence up to 95% (2e-4 at 99%, 4e-4 at 99.9%) and the posterior mass below ``lo`` and
    above ``hi`` is ``(1 - confidence) / 2`` within 4e-6 at 95% (4e-5 at 50%, 4e-7 at 99.9%).
    With one question they are the exact quantiles (Beta: to machine precision; more levels:
    to the 1e-9 accuracy of the CDF). Both always lie in the support (``[min w, max w]`` for
    pi-bar); a quantile closer to an end of it than the spacing of floating-point numbers
    there is returned as that end.

    Parameters
    ----------
    nu : array_like, shape ``(..., M, C + 1)``
        Posterior Dirichlet concentrations.
    w : array_like, shape ``(C + 1,)``
        Rubric weights.
    confidence : float
        Credibility level in ``(0, 1)``.
    scale, shift : array_like, shape ``(..., M)``, optional
        Per-question affine map, as in :func:`exact_posterior`.

    Returns
    -------
    CredibleInterval
        ``(lo, hi)``: ndarrays with the leading shape of ``nu``, always within the support.
    """
    nu = np.asarray(nu, dtype=float)
    tail = 0.5 * (1.0 - confidence)
    m, k = nu.shape[-2:]
    batch = nu.reshape(-1, m, k)
    scales = None if scale is None else np.broadcast_to(scale, nu.shape[:-1]).reshape(-1, m)
    shifts = None if shift is None else np.broadcast_to(shift, nu.shape[:-1]).reshape(-1, m)
    lo = np.empty(batch.shape[0])
    hi = np.empty(batch.shape[0])
    w = np.asarray(w, dtype=float)
    for i, nu_i in enumerate(batch):
        s_i = None if scales is None else scales[i]
        t_i = None if shifts is None else shifts[i]
        if m == 1:  # one question: invert its exact CDF, no lattice needed
            levels, beta = _group(nu_i, w)
            s_i = np.ones(1) if s_i is None else np.asarray(s_i, dtype=float)
            t_i = np.zeros(1) if t_i is None else np.asarray(t_i, dtype=float)
            questions, const = _questions(levels, beta, s_i, t_i, 1)
            if levels.size > 1 and questions:
                model = _Model(
                    questions, const, questions[0].lo + const, questions[0].hi + const, 0
                )
                lo[i], hi[i] = _single_ppf(model, tail), _single_ppf(model, 1.0 - tail)
                continue
        dist = exact_posterior(nu_i, w, scale=s_i, shift=t_i)
        lo[i], hi[i] = dist.ppf([tail, 1.0 - tail])
    return CredibleInterval(lo.reshape(nu.shape[:-2]), hi.reshape(nu.shape[:-2]))
