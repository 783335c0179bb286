"""Synthetic response matrices (arms x examples) that mimic the Gittins paper's benchmarks.

The benchmarks of Xie, He and Cao, "Efficient Cost-Aware LLM Evaluation via Bayesian Bandit
Gittins Indices" (GSM8K, PIQA and MMLU response matrices).

The paper's response matrices are not public. The arm metadata are, and ship with the
package (:mod:`bayes_eval.datasets`): ``bandit_gsm8k_arms`` and ``bandit_piqa_arms`` (model,
prompt, temperature, max tokens, price of GSM8K's 122 and PIQA's 103 arms) and
``bandit_mmlu_meta`` (for the 57 MMLU subjects the number of questions, the prior bucket and
the mean and standard deviation of the arm accuracies; 1500 arms = 15 models x 100 prompts).
The builders below read them by default.

Construction (documented choices):

1. **Arm accuracies** ``theta_k`` on the logit scale are a sum of effects of the arm's
   attributes: a model effect ``N(0, 1)``, a prompt effect (GSM8K/PIQA: ``step_by_step``
   +0.3; MMLU: one ``N(0, 0.5)`` effect per prompt template), ``-0.4 x temperature`` and
   +0.2 for 512 max tokens, plus arm noise ``N(0, 0.2)``. An affine map of the logits is then
   solved so that the arm accuracies have the target mean and standard deviation (for the
   row means of the generated matrix, whose sampling noise is corrected for):
   GSM8K ``0.2 +- 0.1`` and PIQA ``0.4 +- 0.141`` (the dataset-specific priors of the
   experiments, N(0.2, 0.01) and N(0.4, 0.02)); MMLU the subject's stored moments.
2. **Cells** follow a rank-1 logistic (Rasch) model ``P(Z_kj = 1) = sigmoid(a_k - d_j)``,
   with example difficulties ``d_j ~ N(0, difficulty_sd)`` shared by all arms and ``a_k``
   solved so that ``mean_j sigmoid(a_k - d_j) = theta_k``. Shared difficulties make the
   matrix approximately low-rank, as real response matrices are (which UCB-E-LRF exploits).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special

__all__ = [
    "BanditDataset",
    "from_matrix",
    "gsm8k_like",
    "logistic_matrix",
    "mmlu_like",
    "piqa_like",
]


@dataclass(frozen=True)
class BanditDataset:
    """A response matrix with what the policies need to know about it.

    Attributes
    ----------
    name : str
        Label of the data set.
    matrix : numpy.ndarray of shape (K, N)
        Scores in [0, 1] of ``K`` arms on ``N`` examples.
    costs : numpy.ndarray of shape (K,)
        Raw cost per example of each arm (e.g. USD per 1M tokens).
    belief : tuple of float
        The dataset-specific common prior belief ``(mean, variance)`` of an arm's accuracy
        (Gittins-S).
    arms : tuple of str
        One label per arm.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive.synthetic import BanditDataset
    >>> R = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    >>> data = BanditDataset("toy", R, np.array([1.0, 2.0]), (0.5, 0.04), ("small", "large"))
    >>> data.matrix.mean(axis=1).round(4).tolist(), data.arms
    ([0.6667, 0.3333], ('small', 'large'))
    """

    name: str
    matrix: NDArray[np.float64]
    costs: NDArray[np.float64]
    belief: tuple[float, float]
    arms: tuple[str, ...]


def _match_moments(z: NDArray[np.float64], mean: float, sd: float) -> NDArray[np.float64]:
    """``sigmoid(alpha + beta z)`` with mean and sd (over arms) equal to the targets."""
    z = (z - z.mean()) / z.std()

    def resid(p: NDArray[np.float64]) -> list[float]:
        t = special.expit(p[0] + np.exp(p[1]) * z)
        return [t.mean() - mean, t.std() - sd]

    sol = optimize.least_squares(
        resid, [special.logit(mean), np.log(4 * sd)], xtol=1e-14, ftol=1e-14, gtol=1e-14
    )
    if np.max(np.abs(sol.fun)) > 1e-8:  # pragma: no cover - unreachable for sane moments
        raise ValueError(f"cannot match arm-accuracy mean {mean} and sd {sd}.")
    return special.expit(sol.x[0] + np.exp(sol.x[1]) * z)


def _calibrated_matrix(
    z: NDArray[np.float64], mean: float, sd: float, n_examples: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Matrix whose *row means* have the target mean and sd.

    The stored moments are of the empirical arm accuracies, which include the sampling noise
    of ``n_examples`` cells: the latent sd is corrected by a few fixed-point steps with the
    same random numbers.
    """
    state = rng.bit_generator.state
    latent = sd
    for _ in range(4):
        rng.bit_generator.state = state
        m = logistic_matrix(_match_moments(z, mean, latent), n_examples, rng=rng)
        emp = m.mean(axis=1).std()
        latent = float(np.sqrt(max(latent**2 + sd**2 - emp**2, (0.2 * sd) ** 2)))
    rng.bit_generator.state = state
    return logistic_matrix(_match_moments(z, mean, latent), n_examples, rng=rng)


def logistic_matrix(
    theta: ArrayLike, n_examples: int, *, difficulty_sd: float = 1.5, rng: np.random.Generator
) -> NDArray[np.float64]:
    """0/1 matrix with ``P(Z_kj = 1) = sigmoid(a_k - d_j)``, ``mean_j`` of it ``= theta_k``.

    Parameters
    ----------
    theta : array_like of float, shape (K,)
        Accuracy of each arm, strictly between 0 and 1.
    n_examples : int
        Number ``N`` of examples (columns).
    difficulty_sd : float, optional
        Standard deviation of the example difficulties ``d_j``, default 1.5.
    rng : numpy.random.Generator
        Source of the difficulties and of the cells.

    Returns
    -------
    numpy.ndarray of float, shape (K, N)
        The 0/1 response matrix (arms x examples).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.adaptive.synthetic import logistic_matrix
    >>> R = logistic_matrix([0.2, 0.5, 0.8], 6, rng=np.random.default_rng(0))
    >>> R.astype(int).tolist()
    [[0, 0, 0, 0, 0, 1], [0, 1, 0, 1, 0, 0], [1, 1, 1, 1, 1, 1]]
    """
    theta = np.asarray(theta, dtype=np.float64)
    if ((theta <= 0) | (theta >= 1)).any():
        raise ValueError("arm accuracies must lie strictly between 0 and 1.")
    integer = isinstance(n_examples, (int, np.integer)) and not isinstance(n_examples, bool)
    if not integer or n_examples < 1:
        raise ValueError(f"n_examples is {n_examples}; expected a positive integer.")
    d = rng.normal(0.0, difficulty_sd, n_examples)
    lo, hi = np.full(theta.shape, -30.0), np.full(theta.shape, 30.0)
    for _ in range(80):  # vectorised bisection: mean_j sigmoid(a - d_j) is increasing in a
        mid = (lo + hi) / 2
        up = special.expit(mid[:, None] - d[None, :]).mean(axis=1) < theta
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    p = special.expit(((lo + hi) / 2)[:, None] - d[None, :])
    return (rng.random(p.shape) < p).astype(np.float64)


def _from_arms_csv(
    path: str | Path,
    name: str,
    mean: float,
    sd: float,
    n_examples: int,
    seed: int,
    belief: tuple[float, float],
) -> BanditDataset:
    import pandas as pd

    from bayes_eval.datasets import table_path

    path = table_path(path, kind="bandit")
    if not path.is_file():
        raise ValueError(f"{path}: no such file (expected the arm metadata CSV).")
    arms = pd.read_csv(path)
    need = {"model", "prompt", "temperature", "max_tokens", "cost_usd_per_1m"}
    if not need <= set(arms.columns):
        raise ValueError(f"{path}: expected columns {sorted(need)}, found {list(arms.columns)}.")
    rng = np.random.default_rng(seed)
    models = sorted(arms["model"].unique())
    model_eff = dict(zip(models, rng.normal(0.0, 1.0, len(models)), strict=True))
    z = (
        arms["model"].map(model_eff).to_numpy()
        + 0.3 * (arms["prompt"] == "step_by_step").to_numpy()
        - 0.4 * arms["temperature"].to_numpy()
        + 0.2 * (arms["max_tokens"] >= 512).to_numpy()
        + rng.normal(0.0, 0.2, len(arms))
    )
    matrix = _calibrated_matrix(z, mean, sd, n_examples, rng)
    labels = tuple(
        f"{r.model}|{r.prompt}|T={r.temperature}|{r.max_tokens}" for r in arms.itertuples()
    )
    return BanditDataset(name, matrix, arms["cost_usd_per_1m"].to_numpy(float), belief, labels)


def gsm8k_like(
    arms_csv: str | Path = "dataset:bandit_gsm8k_arms", *, n_examples: int = 1000, seed: int = 0
) -> BanditDataset:
    """122 x 1000 GSM8K mimic from the arm metadata.

    The metadata defaults to the shipped ``bandit_gsm8k_arms``; cost = input + 2 x output
    price.

    Parameters
    ----------
    arms_csv : str or pathlib.Path, optional
        The arm metadata CSV (columns ``model``, ``prompt``, ``temperature``,
        ``max_tokens``, ``cost_usd_per_1m``), default the shipped
        ``"dataset:bandit_gsm8k_arms"``.
    n_examples : int, optional
        Examples per arm, default 1000.
    seed : int, optional
        Seed of the arm effects and of the matrix, default 0.

    Returns
    -------
    BanditDataset
        Named ``"gsm8k-like"``, with the dataset prior ``(0.2, 0.01)``.

    Examples
    --------
    >>> from bayes_eval.adaptive.synthetic import gsm8k_like
    >>> data = gsm8k_like(n_examples=50, seed=0)
    >>> data.name, data.matrix.shape, data.belief
    ('gsm8k-like', (122, 50), (0.2, 0.01))
    >>> data.arms[0]
    'gpt2|step_by_step|T=0.0|128'
    """
    return _from_arms_csv(arms_csv, "gsm8k-like", 0.2, 0.1, n_examples, seed, (0.2, 0.01))


def piqa_like(
    arms_csv: str | Path = "dataset:bandit_piqa_arms", *, n_examples: int = 1000, seed: int = 0
) -> BanditDataset:
    """103 x 1000 PIQA mimic from the arm metadata.

    The metadata defaults to the shipped ``bandit_piqa_arms``; cost = input price only.

    Parameters
    ----------
    arms_csv : str or pathlib.Path, optional
        The arm metadata CSV (columns ``model``, ``prompt``, ``temperature``,
        ``max_tokens``, ``cost_usd_per_1m``), default the shipped
        ``"dataset:bandit_piqa_arms"``.
    n_examples : int, optional
        Examples per arm, default 1000.
    seed : int, optional
        Seed of the arm effects and of the matrix, default 0.

    Returns
    -------
    BanditDataset
        Named ``"piqa-like"``, with the dataset prior ``(0.4, 0.02)``.

    Examples
    --------
    >>> from bayes_eval.adaptive.synthetic import piqa_like
    >>> data = piqa_like(n_examples=50, seed=0)
    >>> data.name, data.matrix.shape, data.belief
    ('piqa-like', (103, 50), (0.4, 0.02))
    """
    return _from_arms_csv(arms_csv, "piqa-like", 0.4, np.sqrt(0.02), n_examples, seed, (0.4, 0.02))


#: The keys :func:`mmlu_like` reads besides ``tasks``.
_MMLU_META_KEYS = ("models_in_row_order_with_input_cost_usd_per_1m", "prior_buckets_code")


def mmlu_like(
    meta_json: str | Path = "dataset:bandit_mmlu_meta",
    subject: str = "anatomy",
    *,
    n_examples: int | None = None,
    seed: int = 0,
) -> BanditDataset:
    """1500-arm MMLU-subject mimic (15 models x 100 prompts) from the subject metadata.

    The metadata defaults to the shipped ``bandit_mmlu_meta``; or a JSON file of that layout.
    ``n_examples`` defaults to the subject's number of questions. The dataset prior is the
    subject's bucket prior (``prior_buckets_code``: low N(0.4, 0.02), medium N(0.6, 0.02),
    high N(0.75, 0.01)); costs are the models' input prices.

    Parameters
    ----------
    meta_json : str or pathlib.Path, optional
        The MMLU metadata JSON, default the shipped ``"dataset:bandit_mmlu_meta"``.
    subject : str, optional
        The MMLU subject, default ``"anatomy"``.
    n_examples : int, optional
        Examples per arm, default the subject's number of questions.
    seed : int, optional
        Seed of the arm effects and of the matrix, default 0.

    Returns
    -------
    BanditDataset
        Named ``"mmlu-like:<subject>"``, 1500 arms labelled ``"<model>|prompt<p>"``.

    Examples
    --------
    >>> from bayes_eval.adaptive.synthetic import mmlu_like
    >>> data = mmlu_like(subject="anatomy", n_examples=20, seed=0)
    >>> data.name, data.matrix.shape, data.belief
    ('mmlu-like:anatomy', (1500, 20), (0.6, 0.02))
    """
    from bayes_eval.datasets import table_path

    path = table_path(meta_json, kind="bandit")
    try:
        meta = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the MMLU metadata JSON ({exc}).") from exc
    if not isinstance(meta, dict) or "tasks" not in meta:
        raise ValueError(f"{path}: expected a JSON object with a 'tasks' list.")
    missing = [k for k in _MMLU_META_KEYS if k not in meta]
    if missing:
        raise ValueError(f"{path}: the MMLU metadata JSON has no key {str(missing[0])!r}.")
    tasks = {t[0]: t for t in meta["tasks"]}
    if subject not in tasks:
        raise ValueError(f"unknown MMLU subject {str(subject)!r}; expected one of {sorted(tasks)}.")
    _, n_q, bucket, mean, sd = tasks[subject]
    models = meta["models_in_row_order_with_input_cost_usd_per_1m"]
    rng = np.random.default_rng(seed)
    model_eff = rng.normal(0.0, 1.0, len(models))
    prompt_eff = rng.normal(0.0, 0.5, 100)
    z = (model_eff[:, None] + prompt_eff[None, :]).ravel() + rng.normal(0.0, 0.2, 100 * len(models))
    n = int(n_q) if n_examples is None else n_examples  # checked, never truncated
    matrix = _calibrated_matrix(z, float(mean), float(sd), n, rng)
    costs = np.repeat([float(c) for _, c in models], 100)
    belief = cast(
        "tuple[float, float]", tuple(float(x) for x in meta["prior_buckets_code"][bucket])
    )
    labels = tuple(f"{m}|prompt{p}" for m, _ in models for p in range(100))
    return BanditDataset(f"mmlu-like:{subject}", matrix, costs, belief, labels)


def from_matrix(
    path: str | Path,
    *,
    costs: ArrayLike | None = None,
    belief: tuple[float, float] = (0.5, 0.04),
) -> BanditDataset:
    """A user-supplied matrix (``.npy`` or ``.csv`` without header, arms x examples).

    Parameters
    ----------
    path : str or pathlib.Path
        The matrix file: ``.npy``, or comma-separated text without header; at least two
        rows (arms), scores in [0, 1].
    costs : array_like of float, shape (K,), optional
        Cost per example of each arm, all > 0; default 1 for every arm.
    belief : tuple of float, optional
        The dataset prior ``(mean, variance)`` of an arm's accuracy, default ``(0.5, 0.04)``.

    Returns
    -------
    BanditDataset
        Named after the file's stem, arms labelled ``"0"``, ``"1"``, ...

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from bayes_eval.adaptive.synthetic import from_matrix
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     np.save(folder + "/toy.npy", np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]))
    ...     data = from_matrix(folder + "/toy.npy", costs=[1.0, 3.0])
    >>> data.name, data.matrix.shape, data.costs.tolist(), data.arms
    ('toy', (2, 3), [1.0, 3.0], ('0', '1'))
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file.")
    try:
        m = np.load(path) if path.suffix == ".npy" else np.loadtxt(path, delimiter=",", ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{path}: could not read a numeric matrix ({exc}).") from exc
    m = np.asarray(m, dtype=np.float64)
    if m.ndim != 2 or m.size == 0:
        raise ValueError(f"{path}: expected a 2-D matrix (arms x examples), got shape {m.shape}.")
    if m.shape[0] < 2:
        raise ValueError(
            f"{path}: the matrix has 1 arm (1 row of {m.shape[1]} examples); expected 2 or more "
            "arms (rows) to choose between (with one arm every policy has zero regret)."
        )
    if not np.isfinite(m).all() or (m < 0).any() or (m > 1).any():
        raise ValueError(f"{path}: scores must be finite and in [0, 1].")
    c = np.ones(m.shape[0]) if costs is None else np.asarray(costs, dtype=np.float64)
    if c.shape != (m.shape[0],):
        raise ValueError(f"costs has shape {c.shape}; expected ({m.shape[0]},) one per arm.")
    if not (np.isfinite(c).all() and (c > 0).all()):
        bad = c[~(np.isfinite(c) & (c > 0))][0]
        raise ValueError(f"costs has a cost of {bad}; expected finite costs > 0, one per arm.")
    return BanditDataset(path.stem, m, c, belief, tuple(str(i) for i in range(m.shape[0])))
