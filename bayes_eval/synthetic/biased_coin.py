r"""Biased-coin LLM mimics (the default dataset of ``bayes-eval demo``).

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation", §2.7.

Eleven mimics answer M = 30 questions; mimic :math:`\beta` answers question :math:`\alpha`
correctly with probability :math:`\pi_{\alpha 1}`, and its true score is the mean over questions
:math:`\bar\pi_\beta`. The paper lists the :math:`\bar\pi` values (with an intentional tie at
0.3642) but not the per-question probabilities, so they are generated here: draws from
:math:`\mathrm{Beta}(\kappa\bar\pi, \kappa(1-\bar\pi))` (question difficulty varies widely for
``kappa = 4``) shifted on the logit scale so that their mean is exactly :math:`\bar\pi`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq
from scipy.special import expit, logit

from bayes_eval.inputs import check_memory

__all__ = ["PAPER_PI_BAR", "mimic_probabilities", "simulate_results"]


#: True scores of LLM_1 .. LLM_11 (Hariri et al., §2.7 and Fig. 2).
PAPER_PI_BAR = (
    0.2332,
    0.2545,
    0.3604,
    0.3642,
    0.3642,
    0.4466,
    0.5418,
    0.5276,
    0.608,
    0.6213,
    0.7327,
)


def mimic_probabilities(
    pi_bar: ArrayLike = PAPER_PI_BAR,
    *,
    n_questions: int = 30,
    concentration: float = 4.0,
    seed: int | np.random.Generator = 0,
) -> NDArray[np.float64]:
    """Per-question success probabilities, shape ``(L, M)``, whose row means equal ``pi_bar``.

    Parameters
    ----------
    pi_bar : sequence of float in (0, 1)
        True score of each mimic.
    n_questions : int, keyword-only
        M.
    concentration : float, keyword-only
        ``kappa`` of the Beta draws (smaller: more heterogeneous questions).
    seed : int or numpy.random.Generator, keyword-only
        Seed of the Beta draws, or a generator to draw from (default 0).

    Returns
    -------
    numpy.ndarray of shape (L, M)
        Success probability of each mimic on each question; row ``l`` has mean
        ``pi_bar[l]`` (to root-finding precision).

    Raises
    ------
    ValueError
        ``pi_bar`` is not a vector of probabilities strictly between 0 and 1.

    Examples
    --------
    >>> p = mimic_probabilities()  # the paper's eleven mimics
    >>> p.shape, p.mean(axis=1).round(4)[:3].tolist()
    ((11, 30), [0.2332, 0.2545, 0.3604])
    >>> mimic_probabilities([0.3, 0.7], n_questions=5).round(3).tolist()
    [[0.485, 0.235, 0.437, 0.014, 0.329], [0.803, 0.893, 0.847, 0.585, 0.373]]
    """
    rng = np.random.default_rng(seed)
    pi_bar = np.asarray(pi_bar, dtype=float)
    if pi_bar.ndim != 1 or not ((pi_bar > 0) & (pi_bar < 1)).all():
        raise ValueError("pi_bar must be a vector of probabilities strictly between 0 and 1.")
    check_memory(  # the probabilities and the Beta draws and logits of one mimic
        8.0 * (pi_bar.size + 3) * float(n_questions),
        f"{n_questions} questions for each of {pi_bar.size} mimics",
        "fewer questions",
    )
    out = np.empty((pi_bar.size, n_questions))
    for i, target in enumerate(pi_bar):
        draws = rng.beta(concentration * target, concentration * (1 - target), n_questions)
        x = logit(np.clip(draws, 1e-6, 1 - 1e-6))
        shift = brentq(lambda s, x=x, t=target: expit(x + s).mean() - t, -50.0, 50.0, xtol=1e-14)
        out[i] = expit(x + shift)
    return out


def simulate_results(
    probabilities: NDArray[np.float64], n_trials: int, *, seed: int | np.random.Generator = 0
) -> NDArray[np.int8]:
    """Binary results ``R``, shape ``(L, M, N)`` (int8): ``R[l, a, i] ~ Bernoulli(p[l, a])``.

    Parameters
    ----------
    probabilities : numpy.ndarray of shape (L, M)
        Success probability of each model on each question (:func:`mimic_probabilities`).
    n_trials : int
        N, the trials of every question.
    seed : int or numpy.random.Generator, keyword-only
        Seed of the draws, or a generator to draw from (default 0).

    Returns
    -------
    numpy.ndarray of int8, shape (L, M, N)
        The results, 1 for a correct trial and 0 for a wrong one.

    Examples
    --------
    >>> R = simulate_results(mimic_probabilities([0.3, 0.7], n_questions=5), 4)
    >>> R.shape, R.dtype.name
    ((2, 5, 4), 'int8')
    >>> R[0].tolist()
    [[0, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 1, 0]]
    """
    rng = np.random.default_rng(seed)
    p = np.asarray(probabilities, dtype=float)
    check_memory(  # the uniforms (8 bytes), the comparison (1) and the results (1)
        10.0 * p.size * float(n_trials),
        f"{n_trials} trials per question on {p.size} (model, question) cells",
        "fewer trials",
    )
    return (rng.random((*p.shape, n_trials)) < p[..., None]).astype(np.int8)
