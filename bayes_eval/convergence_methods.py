r"""The methods whose rankings :mod:`bayes_eval.convergence` follows, and their scores.

Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.7 and Fig. 2: ``"bayes"`` (Bayes@N, the same ranking as avg@N, §2.6), ``"pass_at_k:K"``,
``"pass_hat_k:K"``, ``"g_pass_at_k_tau:K:TAU"``, ``"mg_pass_at_k:K"``. For the Pass family
each question's unbiased estimate for (s trials, c successes),
:math:`\sum_j A_j\,\mathrm{Hyp}(j; s, c, k)` with the credits :math:`A_j` of App. H eqs.
21-24, comes from a table computed once (:func:`score_table`); a step with fewer than ``k``
trials has no ranking (NaN). The names are re-exported by :mod:`bayes_eval.convergence`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.stats import hypergeom

from bayes_eval.inputs import shown
from bayes_eval.pass_point import _mg_credit, _threshold_credit, tau_threshold

__all__ = [
    "DEFAULT_METHODS",
    "Method",
    "flat_index",
    "parse_method",
    "score_table",
    "step_scores",
]

#: Hariri et al., "Don't Pass@k", Fig. 2: Bayes@N, Pass@2/4/8, Pass^k, G-Pass@k_tau
#: (tau = 0.5), mG-Pass@k. The paper does not state k for the last three; k = 4 here.
DEFAULT_METHODS = (
    "bayes",
    "pass_at_k:2",
    "pass_at_k:4",
    "pass_at_k:8",
    "pass_hat_k:4",
    "g_pass_at_k_tau:4:0.5",
    "mg_pass_at_k:4",
)


@dataclass(frozen=True)
class Method:
    """A parsed method name (:func:`parse_method`).

    Attributes
    ----------
    name : str
        The name as given.
    kind : {"bayes", "pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k"}
    k : int
        Attempts of a Pass family metric (0 for bayes).
    tau : float
        Threshold of G-Pass@k_tau (1 otherwise).
    """

    name: str
    kind: str
    k: int = 0
    tau: float = 1.0

    @property
    def credit(self) -> NDArray[np.float64]:
        """Credit for j = 0..k successes among k attempts (App. H eqs. 21-24, see
        :mod:`bayes_eval.pass_family`)."""
        if self.kind == "pass_at_k":
            return _threshold_credit(self.k, 1)
        if self.kind == "pass_hat_k":
            return _threshold_credit(self.k, self.k)
        if self.kind == "g_pass_at_k_tau":
            return _threshold_credit(self.k, tau_threshold(self.tau, self.k))
        if self.kind == "mg_pass_at_k":
            return _mg_credit(self.k)
        raise ValueError(f"{self.name} has no credit vector")


def parse_method(name: str) -> Method:
    """Parse ``"bayes"``, ``"pass_at_k:4"``, ``"g_pass_at_k_tau:4:0.5"``, ...

    Parameters
    ----------
    name : str
        ``"bayes"``, ``"pass_at_k:K"``, ``"pass_hat_k:K"``, ``"g_pass_at_k_tau:K:TAU"``
        (0 < TAU <= 1) or ``"mg_pass_at_k:K"`` with an integer K >= 1.

    Returns
    -------
    Method

    Raises
    ------
    ValueError
        Any other name.
    """
    parts = name.split(":")
    kind = parts[0]
    try:
        if kind == "bayes" and len(parts) == 1:
            return Method(name, kind)
        if kind in ("pass_at_k", "pass_hat_k", "mg_pass_at_k") and len(parts) == 2:
            k = int(parts[1])
            if k >= 1:
                return Method(name, kind, k)
        if kind == "g_pass_at_k_tau" and len(parts) == 3:
            k, tau = int(parts[1]), float(parts[2])
            if k >= 1 and 0 < tau <= 1:
                return Method(name, kind, k, tau)
    except ValueError:
        pass
    raise ValueError(
        f"method {shown(name)} is not understood; expected 'bayes', 'pass_at_k:K', 'pass_hat_k:K', "
        "'g_pass_at_k_tau:K:TAU' (0 < TAU <= 1) or 'mg_pass_at_k:K' with an integer K >= 1."
    )


def score_table(method: Method, n_max: int) -> NDArray[np.float64]:
    r"""Per-question unbiased estimate for every (s trials, c successes).

    :math:`\sum_j A_j\,\mathrm{Hyp}(j; s, c, k)` with the credits :math:`A_j` of
    ``method`` (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation", App. H eqs. 21-24).

    Parameters
    ----------
    method : Method
        A Pass family method.
    n_max : int
        Largest number of trials.

    Returns
    -------
    ndarray, shape ``(n_max + 1, n_max + 1)``
        ``table[s, c]``; NaN where ``s < k`` or ``c > s``.
    """
    table = np.full((n_max + 1, n_max + 1), np.nan)
    s = np.arange(method.k, n_max + 1)
    if s.size == 0:
        return table
    ss, cc = np.meshgrid(s, np.arange(n_max + 1), indexing="ij")
    valid = cc <= ss
    credit = method.credit
    j = np.arange(method.k + 1)
    pmf = hypergeom.pmf(j[None, :], ss[valid][:, None], cc[valid][:, None], method.k)
    values = np.full(ss.shape, np.nan)
    values[valid] = pmf @ credit
    table[method.k :] = values
    return table


def flat_index(counts: NDArray[np.int16]) -> NDArray[np.intp]:
    """Index of (s, c) into a flattened :func:`score_table`, shared by the Pass methods.

    Parameters
    ----------
    counts : ndarray of int16, shape ``(b, L, N, M)``
        Prefix successes (:func:`bayes_eval.convergence.prefix_counts`).

    Returns
    -------
    ndarray of intp, the shape of ``counts``
    """
    n = counts.shape[2]
    row = (np.arange(1, n + 1, dtype=np.intp) * (n + 1))[None, None, :, None]
    return counts.astype(np.intp) + row


def step_scores(
    counts: NDArray[np.int16],
    method: Method,
    table: NDArray | None = None,
    flat: NDArray[np.intp] | None = None,
) -> NDArray:
    """Scores of every model at every step.

    Bayes@N ranks by total successes (rank-equivalent to mu under the uniform prior: Hariri
    et al., "Don't Pass@k", §2.6 and eq. 19); the Pass family sums the per-question table
    values (a mean up to the factor 1/M).

    Parameters
    ----------
    counts : ndarray of int16, shape ``(b, L, N, M)``
        Prefix successes (:func:`bayes_eval.convergence.prefix_counts`).
    method : Method
    table, flat : ndarray, optional
        :func:`score_table` and :func:`flat_index`, when already computed.

    Returns
    -------
    ndarray, shape ``(b, L, N)``
    """
    if method.kind == "bayes":
        return counts.sum(axis=-1, dtype=np.int64).astype(float)
    if table is None:
        table = score_table(method, counts.shape[2])
    if flat is None:
        flat = flat_index(counts)
    return np.take(table.ravel(), flat).sum(axis=-1)
