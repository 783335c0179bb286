"""Bayesian ranking of candidates from imperfect LLM judges.

After Vossler et al., "LLMs Judging LLMs: A Simplex Perspective", §5 and App. B.

The model, written out for a general number of levels ``M`` (every choice the paper leaves
open is listed, with its reason, in :data:`CHOICES`):

* **Likelihood** (eq. 5.1 / B.3). For each judge ``j`` and candidate ``k`` with
  ``mask[j, k]``, the counts ``N[j, k, :]`` are multinomial with probabilities
  ``gamma_jk = sum_m pi^(j)_{k,m} theta^(j)_{m,:}``: the latent true score is marginalised
  separately per judge (the sum over ``m`` computed in probability space, which equals
  ``exp(logsumexp_m(log pi_m + log theta_{m,s}))``).
* **Judge confusion matrices** ``theta^(j)`` (rows = true level ``m``, columns = assigned
  level ``s``) from the weight-propagation DAG prior (§5.3, App. B.3): edges
  ``(m, a) -> (m+1, b)`` only for ``b >= a``, Dirichlet edge weights
  ``1 + rho_j beta_max 1[b = t(m+1)]`` (the tail from ``a`` of a vector of ones boosted at the
  next level's correct score), ``theta_{m+1} = A_m^T theta_m``, ``rho_j ~ Beta(1, 1)``; the
  root row ``theta_1 ~ Dirichlet(1 + rho_j beta_max e_{t(1)})``. Every draw is stochastically
  ordered (``theta_1 <=_st theta_2 <=_st ...``), so label switching cannot occur.
* **Random effects** on prevalences (§5.2, App. B.2) when ``omega > 0``:
  ``Z_k ~ Dirichlet(delta)``, ``R_j ~ Beta(omega J, J)``, ``W_k ~ Beta(omega K, K)``,
  ``pi^(j)_k = (1 - W_k R_j) pi_k + W_k R_j Z_k``; ``omega = 0`` is strong constancy
  (no random effects).
* **Base prevalences** ``pi_k ~ Dirichlet(1_M)``; the ranking target is the expected true
  score ``mu_k = sum_m v_m pi_{k,m}``.
* **Integrated model**: hyperpriors ``beta_max ~ Uniform(0, 20)``, ``omega ~ Uniform(0, 8)``
  (the sensitivity ranges of §5.4), random effects always on.

**How it is sampled** (:data:`CHOICES` ``"parametrisation"``). Every Dirichlet vector above
(the root rows, the DAG edge weights, ``pi_k``, ``Z_k``) is written by stick-breaking: a
vector ``x ~ Dirichlet(c_1..c_n)`` is ``x_i = u_i prod_{l<i} (1 - u_l)``,
``x_n = prod_{l<n} (1 - u_l)`` with independent ``u_i ~ Beta(c_i, c_{i+1} + ... + c_n)``, which
is exactly the same distribution (Connor and Mosimann, "Concepts of independence for
proportions with a generalization of the Dirichlet distribution", JASA, 1969). The sampled
variables are these sticks: ``dag_sticks`` (every root and edge stick of every judge, one
flat vector over the ``dag_stick`` coordinate), ``pi_sticks`` and ``Z_sticks`` (over
``candidate`` and ``stick``); ``theta``, ``pi`` and ``Z`` are deterministic functions of them.
In the integrated model the random-effect weights are non-centred in omega: NUTS samples
``R_u_j = R_j^(omega J)`` and ``W_u_k = W_k^(omega K)``, whose densities stay spread over
(0, 1) at every omega, where ``R`` and ``W`` themselves pile up at 0 for small omega (a
funnel). The change of variables is exact, so the model is unchanged.
The likelihood, from the sticks to ``gamma`` and the multinomial log pmf, and its gradient are
one compiled kernel (:class:`JudgeLoglik`): PyTensor would otherwise build and compile a graph
of several hundred operations for every data shape, which took longer than the sampling.

:func:`fit_judges` samples with NUTS and returns an ``xarray.DataTree`` with ``posterior``
(including ``expected_score`` and ``rank``), ``sample_stats``, ``observed_data`` and a
``ranking`` group (posterior mean and 95% interval of ``mu``, point rank, 95% rank credible
interval) and convergence diagnostics in ``attrs`` (:func:`fit_diagnostics`; a
:class:`~bayes_eval.models.sampling.ConvergenceWarning` when a check fails).
:func:`judge_sensitivity` runs the §5.4 grid.
"""

from __future__ import annotations

import importlib.util
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pymc as pm
import pytensor
import pytensor.tensor as pt
import xarray as xr
from pytensor.gradient import DisconnectedType, disconnected_type, grad_undefined
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.link.numba.dispatch import basic as numba_basic

from bayes_eval.judges.data import JudgeData
from bayes_eval.models.judge_fit import _frozen, _ranking_dataset, _reused
from bayes_eval.models.judge_kernel import _VERSION, DagTheta, _loglik, _stick_break
from bayes_eval.models.judge_prior import (
    _dag_prior,
    _dag_structure,
    _dirichlet_sticks,
    _effects_prior,
    _stick_labels,
)
from bayes_eval.models.sampling import (
    TRUSTED,
    Diagnostics,
    check_trace_memory,
    diagnostics,
    sampler_session,
    usable_cpus,
    warn_if_unconverged,
)
from bayes_eval.nuts import NutsSettings
from bayes_eval.ranking.ranks import rank

__all__ = [
    "CHOICES",
    "FIXED_SETTINGS",
    "INTEGRATED_SETTINGS",
    "FitSettings",
    "JudgeLoglik",
    "dag_prior_draws",
    "delta_preset",
    "fit_diagnostics",
    "fit_judges",
    "judge_model",
    "judge_sensitivity",
    "model_settings",
]

#: Choices where Vossler et al. leave the model open, as implemented, each with its reason.
CHOICES = {
    "likelihood": "marginal per judge (eq. B.3), the paper's own likelihood: the counts are "
    "then sufficient statistics, so a count table such as Table D.2 is complete data (a "
    "latent truth shared across judges would need per-question scores)",
    "pi_prior": "Dirichlet(1_M): uniform over a candidate's prevalences, no level favoured",
    "root_prior": "Dirichlet(1 + rho_j beta_max e_t(1)): the first row is boosted at its "
    "correct level like every DAG edge, so all rows get the same kind of prior "
    "(switch: root='uniform')",
    "dag_rule": "tail-of-boosted-vector rule: reproduces the M = 3 matrices of App. B.3.2 "
    "exactly, is defined for every M, and keeps every draw stochastically ordered",
    "delta": "inflation delta_m = 10^((m-1)/(M-1)): geometric from 1 to 10, the endpoints of "
    "the paper's M = 3 example [1, 4, 10] (M = 3 gives [1, 3.2, 10]), defined for every M",
    "hyperpriors": "beta_max ~ U(0, 20), omega ~ U(0, 8): uniform over the ranges of the "
    "paper's sensitivity grid (§5.4), so the integrated model averages over what it varied",
    "omega_zero": "no random-effect block: omega = 0 makes R_j ~ Beta(0, J) a point mass at 0, "
    "so the effects vanish (and a degenerate Beta cannot be sampled)",
    "abstention": "M = 2 true levels, L = 3 ordered assigned levels incorrect < abstain < "
    "correct: abstaining is better than a wrong answer and worse than a right one",
    "missing": "unparseable scores are missing (imputing a level would invent data); "
    "fractional scores are rounded half up, the same way for every judge",
    "self_preference": "same-family (judge, candidate) pairs excluded from the likelihood "
    "(footnote 1 of the paper): a judge's self-preference would bias its family's score",
    "ranks": "1 + #{k': mu_k' > mu_k} per draw (competition ranks); point rank = rank of the "
    "posterior mean mu",
    "sensitivity_base": "omega = 0, beta_max = 5, the paper's base setting",
    "rho": "one rho_j per judge, shared by its DAG nodes: reliability is a trait of the judge, "
    "and per-node strengths are not identified from counts",
    "parametrisation": "every Dirichlet vector sampled as Beta sticks (stick-breaking; the same "
    "distribution, Connor and Mosimann 1969) and the likelihood with its gradient as one "
    "compiled kernel: the model compiles in seconds instead of minutes for each data shape; "
    "in the integrated model R and W sampled as R^(omega J) and W^(omega K) (non-centred: "
    "the centred weights made a funnel with omega that NUTS did not cross on SummEval)",
}


def delta_preset(name: str | Sequence[float], M: int) -> np.ndarray:
    """Concentration ``delta`` of ``Z_k`` (App. B.2.3).

    ``"inflation"`` (default, ``10^((m-1)/(M-1))``), ``"deflation"`` (its reverse), ``"uniform"``
    (ones), ``"central"`` (peaked in the middle), or explicit values.

    Parameters
    ----------
    name : str or sequence of float
        ``"inflation"``, ``"deflation"``, ``"uniform"`` or ``"central"``, or M positive
        numbers.
    M : int
        Number of true levels.

    Returns
    -------
    numpy.ndarray of shape (M,)
        The concentrations.

    Examples
    --------
    >>> from bayes_eval.models.judges import delta_preset
    >>> delta_preset("inflation", 3).round(4).tolist()
    [1.0, 3.1623, 10.0]
    >>> delta_preset("central", 3).tolist(), delta_preset("uniform", 2).tolist()
    ([1.0, 10.0, 1.0], [1.0, 1.0])
    """
    if not isinstance(name, str):
        d = np.asarray(name, dtype=float)
        if d.shape != (M,) or (d <= 0).any():
            raise ValueError(f"delta must be {M} positive numbers.")
        return d
    grid = np.arange(M) / max(M - 1, 1)
    if name == "inflation":
        return 10.0**grid
    if name == "deflation":
        return (10.0**grid)[::-1].copy()
    if name == "uniform":
        return np.ones(M)
    if name == "central":
        return 10.0 ** (1 - np.abs(2 * grid - 1))
    raise ValueError(
        f"delta is {name!r}; expected inflation, deflation, uniform, central or values."
    )


# The compiled loops (``_loglik``) and the summary Ops are in judge_kernel.py; the Op of the
# likelihood, which judge_model's users may meet in a graph, is public here.


class JudgeLoglik(Op):
    """Log-likelihood of the judges model (eq. B.3) and its gradient, from the sticks.

    Inputs: ``sticks`` (S,) of the DAG prior, ``pad`` (J, M, L, L - 1) from
    ``_dag_structure``, ``pi_sticks`` (K, M - 1), the pairs ``jj``, ``kk`` (P,), ``counts``
    (P, L), and ``R`` (J,), ``W`` (K,), ``z_sticks`` (K, M - 1) (read only with
    ``random_effects``). Outputs: the log pmf (scalar; the sum over pairs of the multinomial
    log pmf) and its gradient with respect to ``sticks``, ``pi_sticks``, ``R``, ``W`` and
    ``z_sticks``, which :meth:`pullback` returns (first derivatives only; NUTS needs no more).

    Parameters
    ----------
    random_effects : bool, optional
        Whether the prevalences have random effects (``R``, ``W`` and ``z_sticks`` are read);
        default False. :func:`~bayes_eval.models.judges.judge_model` sets it when
        ``omega > 0`` or ``integrated``.

    Examples
    --------
    >>> from bayes_eval.models.judges import JudgeLoglik
    >>> op = JudgeLoglik(random_effects=True)
    >>> op.random_effects, op == JudgeLoglik(True), op == JudgeLoglik()
    (True, True, False)
    """

    __props__ = ("random_effects",)
    _FLOAT = (0, 2, 6, 7, 8)

    def __init__(self, random_effects: bool = False):
        self.random_effects = bool(random_effects)

    def make_node(self, sticks, pad, pi_sticks, jj, kk, counts, R, W, z_sticks):
        """Build the node: the inputs cast, outputs the log pmf and one gradient per float input."""
        ins = [pt.as_tensor_variable(x) for x in (sticks, pad, pi_sticks, jj, kk, counts, R, W)]
        ins.append(pt.as_tensor_variable(z_sticks))
        for i in self._FLOAT:
            ins[i] = pt.cast(ins[i], "float64")
        for i in (1, 3, 4):
            ins[i] = pt.cast(ins[i], "int64")
        outs = [pt.dscalar(), *(ins[i].type() for i in self._FLOAT)]
        return Apply(self, ins, outs)

    def perform(self, node, inputs, output_storage):
        """Compute the log pmf and its gradient in one pass (``_loglik``)."""
        out = _loglik(*inputs, self.random_effects)
        output_storage[0][0] = np.asarray(out[0])
        for store, value in zip(output_storage[1:], out[1:], strict=True):
            store[0] = value

    def infer_shape(self, *args):  # (fgraph, node, shapes) before PyTensor 3, (node, shapes) now
        """Give the output shapes: a scalar, then those of the float inputs."""
        return [(), *(args[-1][i] for i in self._FLOAT)]

    def connection_pattern(self, node):
        """Connect every output to the float inputs (``sticks``, ``pi_sticks``, ``R``, ``W``...)."""
        return [[i in self._FLOAT] * 6 for i in range(9)]

    def pullback(self, inputs, outputs, cotangents):
        """Compute the input gradients: the cotangent of the log pmf times its gradient outputs.

        The integer inputs are disconnected; second derivatives are undefined.
        """
        if any(not isinstance(c.type, DisconnectedType) for c in cotangents[1:]):
            # a gradient of the gradient outputs: undefined (an error only if it is used)
            why = "JudgeLoglik computes first derivatives; NUTS needs no second ones"
            return [grad_undefined(self, i, x, why) for i, x in enumerate(inputs)]
        g = cotangents[0]
        grads = dict(zip(self._FLOAT, outputs[1:], strict=True))
        return [g * grads[i] if i in grads else disconnected_type() for i in range(9)]

    L_op = pullback  # PyTensor versions before `pullback`


@numba_basic.register_funcify_default_op_cache_key(JudgeLoglik)
def _numba_judge_loglik(op, node=None, **kwargs):
    effects = op.random_effects

    @numba_basic.numba_njit
    def judge_loglik(sticks, pad, pi_sticks, jj, kk, counts, R, W, z_sticks):
        out = _loglik(sticks, pad, pi_sticks, jj, kk, counts, R, W, z_sticks, effects)
        return (np.asarray(out[0]), out[1], out[2], out[3], out[4], out[5])

    return judge_loglik, _VERSION


#: Upper end of omega's uniform hyperprior in the integrated model (the §5.4 grid's range).
OMEGA_MAX = 8.0


def _model_coords(data: JudgeData, root: str) -> dict[str, list]:
    """The coords of :func:`judge_model` for ``data`` (masked), after checking what is left.

    Raises ``ValueError`` when no (judge, candidate) pair or some candidate has no
    admissible score left after the exclusions.
    """
    J, K, L = data.counts.shape
    if not data.mask.any():
        raise ValueError("no (judge, candidate) pair is left to fit after the exclusions.")
    unjudged = [data.candidates[k] for k in range(K) if not data.mask[:, k].any()]
    if unjudged:
        raise ValueError(f"candidate(s) {unjudged} have no admissible judge scores.")
    used = _dag_structure(J, data.n_true, L, data.correct_level, root)[0]
    return {
        "candidate": list(data.candidates),
        "judge": list(data.judges),
        "level": list(data.true_levels),
        "assigned": list(data.assigned_levels),
        "pair": _pairs(data),
        "stick": list(data.true_levels[:-1]),
        "dag_stick": _stick_labels(data, used),
    }


def judge_model(
    data: JudgeData,
    *,
    omega: float = 0.0,
    beta_max: float = 5.0,
    integrated: bool = False,
    delta: str | Sequence[float] = "inflation",
    root: str = "boosted",
    exclude_same_family: bool = True,
) -> pm.Model:
    """Build the judges model (module docstring) for ``data``.

    The sampled variables are ``rho``, the sticks ``dag_sticks`` and ``pi_sticks`` and, with
    random effects, ``Z_sticks``, ``R``, ``W`` (module docstring); ``theta``, ``pi``, ``Z`` and
    ``expected_score`` are deterministic. The observed ``scores`` (pair, assigned) are the
    multinomial counts.

    Parameters
    ----------
    data : JudgeData
        Counts per judge, candidate and assigned level
        (:class:`bayes_eval.judges.data.JudgeData`).
    omega : float, keyword-only
        Random-effect strength (0 = strong constancy, no random effects). A ``pm.Data``
        variable, so fits over an ``omega`` grid (> 0) reuse one compiled graph.
    beta_max : float, keyword-only
        DAG prior strength (0 = all Dirichlet parameters 1); ``pm.Data``.
    integrated : bool, keyword-only
        Hyperpriors on ``omega`` and ``beta_max`` instead of fixed values.
    delta : str or sequence, keyword-only
        Concentration of ``Z_k`` (:func:`delta_preset`).
    root : {"boosted", "uniform"}, keyword-only
        Prior of the root row ``theta_1``.
    exclude_same_family : bool, keyword-only
        Drop same-family pairs from the likelihood (footnote 1 of Vossler et al.).

    Returns
    -------
    pymc.Model
        With coords ``candidate``, ``judge``, ``level``, ``assigned``, ``pair``, ``stick``
        and ``dag_stick``, and the data ``counts``, ``values``, ``omega`` and ``beta_max``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judges import judge_model
    >>> model = judge_model(data)
    >>> [v.name for v in model.free_RVs], [v.name for v in model.deterministics]
    (['rho', 'dag_sticks', 'pi_sticks'], ['theta', 'pi', 'expected_score'])
    >>> [v.name for v in judge_model(data, omega=1.0).free_RVs]
    ['rho', 'dag_sticks', 'pi_sticks', 'Z_sticks', 'R', 'W']
    """
    if not (np.isfinite(omega) and omega >= 0):
        raise ValueError(f"omega is {omega!r}; expected a number >= 0.")
    if not (np.isfinite(beta_max) and beta_max >= 0):
        raise ValueError(f"beta_max is {beta_max!r}; expected a number >= 0.")
    data = data.with_mask(exclude_same_family)
    J, K, L = data.counts.shape
    M = data.n_true
    jj, kk = np.nonzero(data.mask)
    coords = _model_coords(data, root)
    effects = bool(integrated or omega > 0)
    loglik = JudgeLoglik(effects)
    # every Beta parameter is positive by construction (omega > 0 wherever R, W exist), so
    # PyMC's parameter checks would only add operations to the compiled graph
    with pm.Model(coords=coords, check_bounds=False) as model:
        counts = pm.Data("counts", data.counts[jj, kk], dims=("pair", "assigned"))
        values = pm.Data("values", data.values, dims="level")
        if integrated:
            bmax = pm.Uniform("beta_max", 0.0, 20.0)
            om = pm.Uniform("omega", 0.0, OMEGA_MAX)
        else:
            bmax = pm.Data("beta_max", float(beta_max))
            om = pm.Data("omega", float(omega))
        rho = pm.Beta("rho", 1.0, 1.0, dims="judge")
        sticks, pad = _dag_prior(rho * bmax, J, M, L, data.correct_level, root, labels=True)
        if sticks is None:
            sticks = pt.zeros(0)
        pm.Deterministic("theta", DagTheta()(sticks, pad), dims=("judge", "level", "assigned"))
        if M > 1:
            pi_sticks = _dirichlet_sticks("pi_sticks", np.ones((K, M)), ("candidate", "stick"))
            pi = pm.Deterministic("pi", _stick_break(pi_sticks), dims=("candidate", "level"))
        else:
            pi_sticks, pi = pt.zeros((K, 0)), pt.ones((K, 1))
        if effects:
            conc = np.broadcast_to(delta_preset(delta, M), (K, M))
            if M > 1:
                z_sticks = _dirichlet_sticks("Z_sticks", conc, ("candidate", "stick"))
                pm.Deterministic("Z", _stick_break(z_sticks), dims=("candidate", "level"))
            else:
                z_sticks = pt.zeros((K, 0))
            if integrated:
                R, W = _effects_prior(om, J, K)
            else:
                R = pm.Beta("R", alpha=om * J, beta=float(J), dims="judge")
                W = pm.Beta("W", alpha=om * K, beta=float(K), dims="candidate")
        else:
            z_sticks, R, W = pt.zeros((K, max(M - 1, 0))), pt.zeros(J), pt.zeros(K)

        def scores_dist(sticks, pi_sticks, R, W, z_sticks, n, size):
            theta = DagTheta()(sticks, pad)
            pi_p = _stick_break(pi_sticks)[kk] if M > 1 else pt.ones((len(kk), 1))
            if effects:
                lam = (R[jj] * W[kk])[:, None]
                z_p = _stick_break(z_sticks)[kk] if M > 1 else pi_p
                pi_p = (1 - lam) * pi_p + lam * z_p
            gamma = (pi_p[:, :, None] * theta[jj]).sum(axis=1)
            return pm.Multinomial.dist(n=n, p=gamma)

        def scores_logp(value, sticks, pi_sticks, R, W, z_sticks, n):
            return loglik(sticks, pad, pi_sticks, jj, kk, value, R, W, z_sticks)[0]

        pm.CustomDist(
            "scores",
            sticks,
            pi_sticks,
            R,
            W,
            z_sticks,
            counts.sum(axis=1),
            dist=scores_dist,
            logp=scores_logp,
            signature="(s),(k,m),(j),(k),(k,m),(p)->(p,l)",
            dtype="int64",
            observed=counts,
            dims=("pair", "assigned"),
        )
        pm.Deterministic("expected_score", (pi * values[None, :]).sum(axis=1), dims="candidate")
    return model


def _pairs(data: JudgeData) -> list[str]:
    """Labels ``judge|candidate`` of the pairs in the likelihood (``pair`` coordinate)."""
    jj, kk = np.nonzero(data.mask)
    return [f"{data.judges[j]}|{data.candidates[k]}" for j, k in zip(jj, kk, strict=True)]


def dag_prior_draws(
    M: int,
    L: int | None = None,
    *,
    J: int = 1,
    beta_max: float = 5.0,
    draws: int = 1000,
    correct_level: Sequence[int] | None = None,
    root: str = "boosted",
    seed: int = 0,
) -> np.ndarray:
    """Prior draws ``(draws, J, M, L)`` of the confusion matrices (for checks and plots).

    The draws come from the model's own prior graph (:func:`judge_model`), drawn by PyTensor's
    Python backend (a few thousand draws of a small graph need no compiled code).

    Parameters
    ----------
    M : int
        Number of true levels (rows).
    L : int, optional
        Number of assigned levels (columns); default ``M``.
    J : int, keyword-only
        Number of judges, default 1.
    beta_max : float, keyword-only
        DAG prior strength, default 5.
    draws : int, keyword-only
        Number of draws, default 1000.
    correct_level : sequence of int, optional, keyword-only
        The correct assigned level of each true level; default ``0, 1, ..., M - 1``.
    root : {"boosted", "uniform"}, keyword-only
        Prior of the root row ``theta_1`` (default ``"boosted"``).
    seed : int, keyword-only
        Random seed, default 0.

    Returns
    -------
    numpy.ndarray of shape (draws, J, M, L)
        Confusion matrices, each row a distribution over the assigned levels.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.models.judges import dag_prior_draws
    >>> theta = dag_prior_draws(3, draws=200, seed=0)
    >>> theta.shape, bool(np.allclose(theta.sum(-1), 1.0))
    ((200, 1, 3, 3), True)
    >>> theta.mean(0)[0].round(2).tolist()  # mass near the diagonal: a reliable judge
    [[0.61, 0.2, 0.19], [0.11, 0.53, 0.36], [0.02, 0.14, 0.83]]
    """
    L = M if L is None else L
    correct = np.arange(M) if correct_level is None else np.asarray(correct_level)
    with pm.Model():
        rho = pm.Beta("rho", 1.0, 1.0, shape=J)
        sticks, pad = _dag_prior(rho * beta_max, J, M, L, correct, root)
        theta = DagTheta()(pt.zeros(0) if sticks is None else sticks, pad)
    return pm.draw(theta, draws=draws, random_seed=seed, mode="FAST_COMPILE")


#: NUTS settings of the integrated model where :func:`model_settings` fills in unset values: long
#: enough for a posterior with two modes of the overall score level, between which NUTS moves
#: only every few hundred draws (SummEval's coherence, where judges that give most summaries
#: a 5 leave true levels 2 and 3 apart only through the prior; 1,000 tuning steps left the
#: mass matrix too poor for r-hat <= 1.01 there, and a target acceptance of 0.65 diverged).
INTEGRATED_SETTINGS = {"draws": 16000, "tune": 4000, "target_accept": 0.8, "sampler": "nutpie"}
#: The same for a model with fixed omega and beta_max (the paper's 4 x (1000 + 1000)).
FIXED_SETTINGS = {"draws": 1000, "tune": 1000, "target_accept": 0.9, "sampler": "pymc"}


def model_settings(settings: NutsSettings | None, integrated: bool) -> NutsSettings:
    """NUTS settings for :func:`fit_judges` with every unset value the judges model's own.

    Filled in from :data:`INTEGRATED_SETTINGS` for the integrated model, from
    :data:`FIXED_SETTINGS` for one with fixed omega and beta_max (the paper: 4 chains x
    1000 + 1000); nutpie falls back to PyMC's NUTS where it is not installed.

    Parameters
    ----------
    settings : bayes_eval.nuts.NutsSettings or None
        The settings given (None: ``NutsSettings()``, all the model's own).
    integrated : bool
        Whether the model has hyperpriors on omega and beta_max.

    Returns
    -------
    bayes_eval.nuts.NutsSettings
        The settings with draws, tuning steps, target acceptance rate and sampler filled in.

    Examples
    --------
    >>> from bayes_eval.models.judges import model_settings
    >>> from bayes_eval.nuts import NutsSettings
    >>> s = model_settings(NutsSettings(draws=50, tune=50, chains=1), integrated=False)
    >>> s.draws, s.target_accept, s.sampler
    (50, 0.9, 'pymc')
    """
    own = dict(INTEGRATED_SETTINGS if integrated else FIXED_SETTINGS)
    if own["sampler"] == "nutpie" and importlib.util.find_spec("nutpie") is None:
        own["sampler"] = "pymc"  # pragma: no cover - nutpie ships with the pymc extra
    return (NutsSettings() if settings is None else settings).resolved(**own)


class FitSettings(NutsSettings):
    """Deprecated: the NUTS settings of :func:`fit_judges` (:class:`~bayes_eval.nuts.NutsSettings`).

    Making one issues a ``DeprecationWarning``; it is a :class:`~bayes_eval.nuts.NutsSettings`
    in every other way, and :meth:`resolved` with ``integrated`` fills in the judges model's own
    values (:func:`model_settings`).

    Parameters
    ----------
    draws, tune : int or None
        Draws kept and tuning steps per chain (None: the model's own).
    chains : int
        Number of chains, default 4.
    seed : int
        Random seed, default 0.
    sampler : {"pymc", "nutpie"} or None
        The NUTS implementation (None: the model's own).
    target_accept : float or None
        NUTS target acceptance rate (None: the model's own).
    progress : bool
        Show the sampler's progress bar; default False.
    cores : int or None
        Chains run at the same time (None: the usable CPUs, at most ``chains``).
    warn : bool
        Issue a ConvergenceWarning when a check fails; default True.

    Examples
    --------
    >>> import warnings
    >>> from bayes_eval.models.judges import FitSettings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     settings = FitSettings(draws=50, tune=50, chains=1).resolved(integrated=False)
    >>> settings.draws, settings.target_accept, settings.sampler
    (50, 0.9, 'pymc')
    """

    def __post_init__(self) -> None:
        warnings.warn(
            "FitSettings is deprecated; use bayes_eval.nuts.NutsSettings (the same fields).",
            DeprecationWarning,
            stacklevel=3,
        )
        super().__post_init__()

    def resolved(self, integrated: bool = False, **own: Any) -> NutsSettings:  # type: ignore[override]
        """These settings with every unset value the judges model's own (:func:`model_settings`).

        Parameters
        ----------
        integrated : bool
            Whether the model has hyperpriors on omega and beta_max.
        **own : Any
            Values that win over the model's own where these settings leave them unset.

        Returns
        -------
        bayes_eval.nuts.NutsSettings
            The filled-in settings.
        """
        plain = NutsSettings(**self.kwargs())
        return model_settings(plain.resolved(**own) if own else plain, integrated)


def fit_diagnostics(idata: xr.DataTree) -> Diagnostics:
    """Convergence diagnostics of a judges fit (:func:`bayes_eval.models.sampling.diagnostics`).

    Every variable NUTS produced is checked (``rho``, the sticks, ``theta``, ``pi``, the random
    effects, the hyperparameters and ``expected_score``), not ``rank``, which is
    computed from ``expected_score`` afterwards and is discrete. ``converged`` requires r-hat
    at most 1.01, bulk and tail ESS at least 100 per chain and *no* divergence (PyMC's
    thresholds): a divergence means NUTS could not explore part of the posterior, which can
    bias every estimate, so no rate of them is treated as negligible.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit of :func:`~bayes_eval.models.judges.fit_judges` (``posterior`` and ``sample_stats``).

    Returns
    -------
    Diagnostics
        The convergence summary (:class:`bayes_eval.models.sampling.Diagnostics`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judges import fit_diagnostics, fit_judges
    >>> from bayes_eval.nuts import NutsSettings
    >>> fit = fit_judges(data, nuts=NutsSettings(draws=20, tune=20, chains=1, warn=False))
    >>> diag = fit_diagnostics(fit)
    >>> diag.converged, diag.messages[0]
    (False, '1 chain: r-hat needs at least 2 chains to compare; run more chains')
    """
    names = [v for v in idata["posterior"].to_dataset().data_vars if v != "rank"]
    return diagnostics(idata, var_names=names)


def _structure_key(data: JudgeData, *, effects: bool, integrated: bool, delta, root) -> tuple:
    """What :func:`judge_model` builds into the graph, besides its ``pm.Data``.

    The ``pm.Data`` are counts, values, omega, beta_max; the rest is names, levels, pairs and prior
    options.
    """
    d = tuple(delta_preset(delta, data.n_true)) if effects else None
    return (
        tuple(data.candidates),
        tuple(data.judges),
        tuple(data.true_levels),
        tuple(data.assigned_levels),
        tuple(int(t) for t in data.correct_level),
        tuple(_pairs(data)),
        bool(integrated),
        bool(effects),
        d,
        root,
    )


def _built_model(data: JudgeData, *, omega, integrated, delta, root, exclude_same_family):
    """:func:`judge_model` for ``data``, or the model built earlier for the same structure."""
    used = data.with_mask(exclude_same_family)
    effects = bool(integrated or omega > 0)
    key = _structure_key(used, effects=effects, integrated=integrated, delta=delta, root=root)
    return _reused(
        key,
        lambda: judge_model(
            data,
            omega=omega,
            integrated=integrated,
            delta=delta,
            root=root,
            exclude_same_family=exclude_same_family,
        ),
    )


def _renamed(
    nuts: NutsSettings | None, settings: NutsSettings | None, *, owner: str
) -> NutsSettings | None:
    """``nuts``, or the deprecated ``settings=`` it replaced (a ``DeprecationWarning``)."""
    if settings is None:
        return nuts
    if nuts is not None:
        raise ValueError(f"{owner}() got both nuts= and settings=; pass nuts= only.")
    warnings.warn(
        f"{owner}(): settings= is deprecated; pass nuts= (the same NutsSettings).",
        DeprecationWarning,
        stacklevel=3,
    )
    return settings


def fit_judges(
    data: JudgeData,
    *,
    omega: float = 0.0,
    beta_max: float = 5.0,
    integrated: bool = False,
    delta: str | Sequence[float] = "inflation",
    root: str = "boosted",
    exclude_same_family: bool = True,
    nuts: NutsSettings | None = None,
    model: pm.Model | None = None,
    settings: NutsSettings | None = None,
) -> xr.DataTree:
    """Fit the judges model with NUTS and summarise the ranking.

    ``model`` may be a model built earlier by :func:`~bayes_eval.models.judges.judge_model`
    for the same data and structure; then only its ``counts``, ``values``, ``omega`` and
    ``beta_max`` data are set (no new graph). Without it, a model built by an earlier fit of
    the same structure (the same candidates, judges, levels, pairs and prior options) is
    reused the same way. Each model is sampled through a frozen copy (``_frozen``) that
    compiles its functions once, so repeated fits (the SummEval dimensions, a sensitivity
    grid, study replicates) spend their time sampling.

    Parameters
    ----------
    data : JudgeData
        Counts per judge, candidate and assigned level.
    omega, beta_max, integrated, delta, root, exclude_same_family : keyword-only
        The model, as in :func:`~bayes_eval.models.judges.judge_model` (defaults
        ``omega=0``, ``beta_max=5``, ``integrated=False``, ``delta="inflation"``,
        ``root="boosted"``, ``exclude_same_family=True``).
    nuts : bayes_eval.nuts.NutsSettings, optional, keyword-only
        NUTS settings; unset values are the model's own (:func:`model_settings`).
    model : pymc.Model, optional, keyword-only
        A model built earlier by :func:`~bayes_eval.models.judges.judge_model` for the same
        pairs, to reuse.
    settings : bayes_eval.nuts.NutsSettings, optional, keyword-only
        Deprecated name of ``nuts`` (a ``DeprecationWarning``).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (with ``expected_score`` and ``rank`` over ``candidate``),
        ``sample_stats``, ``observed_data``, ``constant_data`` and ``ranking`` (posterior mean,
        sd and 95% equal-tailed interval of ``mu``; point rank; 95% rank credible interval;
        ``truth`` if known). ``attrs`` hold the settings and the convergence diagnostics of
        :func:`fit_diagnostics` (``max_rhat``, ``min_ess_bulk``, ``min_ess_tail``,
        ``divergences``, ``divergence_rate``, ``converged`` as 0/1 and
        ``convergence_messages``; read them back with
        :meth:`bayes_eval.models.sampling.Diagnostics.from_attrs`). ``converged`` is 1 only
        without divergences and with every checked variable within PyMC's r-hat and ESS
        thresholds.

    Examples
    --------
    A toy fit (one short chain, so it does not pass the convergence checks; ``warn=False``
    keeps it quiet):

    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judges import fit_judges
    >>> from bayes_eval.nuts import NutsSettings
    >>> fit = fit_judges(data, nuts=NutsSettings(draws=20, tune=20, chains=1, warn=False))
    >>> sorted(fit.children)
    ['constant_data', 'observed_data', 'posterior', 'ranking', 'sample_stats']
    >>> list(fit["ranking"].data_vars)
    ['mu_mean', 'mu_sd', 'mu_lo', 'mu_hi', 'rank', 'rank_lo', 'rank_hi', 'rank_mean']
    >>> fit["posterior"]["expected_score"].dims, bool(fit.attrs["converged"])
    (('chain', 'draw', 'candidate'), False)
    """
    s = model_settings(_renamed(nuts, settings, owner="fit_judges"), integrated)
    used = data.with_mask(exclude_same_family)
    if model is None:
        model = _built_model(
            data,
            omega=omega,
            integrated=integrated,
            delta=delta,
            root=root,
            exclude_same_family=exclude_same_family,
        )
    else:  # reuse a built model: same pairs, new counts and prior settings
        built = model.coords.get("pair"), model.coords.get("candidate")
        if built != (tuple(_pairs(used)), tuple(used.candidates)):
            raise ValueError("model was built for other (judge, candidate) pairs; rebuild it.")
        if not integrated and omega == 0 and "R" in model.named_vars:
            raise ValueError("omega is 0 but model has random effects; build it with omega=0.")
    jj, kk = np.nonzero(used.mask)
    new = {"counts": used.counts[jj, kk], "values": np.asarray(used.values, dtype=float)}
    if not integrated:
        new.update({"omega": float(omega), "beta_max": float(beta_max)})
    with model:
        pm.set_data(new)
    sampled = _frozen(model)
    if sampled is not model:
        with sampled:
            pm.set_data(new)
    cores = s.cores or min(s.chains, usable_cpus())
    # Only the log density and its gradient (evaluated ~10^5 times) are compiled with Numba;
    # the functions evaluated once per draw (the initial point, the deterministics stored in
    # the trace) run on PyTensor's Python backend, whose compilation takes no time.
    # (inside the model's context, where PyMC's compiler reads its ``check_bounds``)
    check_trace_memory(sampled, draws=s.draws, tune=s.tune, chains=s.chains)
    with sampled, pytensor.config.change_flags(mode="FAST_COMPILE"), sampler_session():
        idata = pm.sample(
            draws=s.draws,
            tune=s.tune,
            chains=s.chains,
            cores=cores,
            random_seed=s.seed,
            target_accept=s.target_accept,
            model=sampled,
            progressbar=s.progress,
            compute_convergence_checks=False,
            nuts_sampler=s.sampler,
            compile_kwargs={"mode": "NUMBA", **(TRUSTED if s.sampler == "pymc" else {})},
        )
    post = idata["posterior"].to_dataset()
    post["rank"] = (("chain", "draw", "candidate"), rank(post["expected_score"].values))
    idata["posterior"] = xr.DataTree(post)
    idata["ranking"] = xr.DataTree(_ranking_dataset(post, used))
    diag = fit_diagnostics(idata)
    idata.attrs.update(
        {
            "omega": "integrated" if integrated else float(omega),
            "beta_max": "integrated" if integrated else float(beta_max),
            "exclude_same_family": int(exclude_same_family),
            **diag.to_attrs(),
        }
    )
    if s.warn:
        warn_if_unconverged(diag, "judges model fit")
    return idata


def judge_sensitivity(
    data: JudgeData,
    *,
    omegas: Sequence[float] = (0, 1, 2, 4, 8),
    beta_maxes: Sequence[float] = (0, 1, 5, 10, 20),
    base: tuple[float, float] = (0.0, 5.0),
    nuts: NutsSettings | None = None,
    progress: bool = False,
    settings: NutsSettings | None = None,
) -> xr.Dataset:
    """§5.4's sensitivity analysis.

    Spearman correlation of each setting's point ranking with the base fit
    (``omega = 0, beta_max = 5``), and the rank intervals of each fit.

    The omega grid runs at the base ``beta_max``, the beta_max grid at the base ``omega``.
    Fits with ``omega = 0`` share one compiled model and fits with ``omega > 0`` another
    (also with earlier fits of the same data structure, :func:`fit_judges`).

    Parameters
    ----------
    data : JudgeData
        Counts per judge, candidate and assigned level.
    omegas : sequence of float, keyword-only
        The omega grid (at the base ``beta_max``); default 0, 1, 2, 4, 8.
    beta_maxes : sequence of float, keyword-only
        The beta_max grid (at the base ``omega``); default 0, 1, 5, 10, 20.
    base : (float, float), keyword-only
        The base ``(omega, beta_max)``, default ``(0, 5)``.
    nuts : bayes_eval.nuts.NutsSettings, optional, keyword-only
        NUTS settings of every fit (default 2 chains x (500 + 500)).
    progress : bool, keyword-only
        Show a progress bar over the fits; default False.
    settings : bayes_eval.nuts.NutsSettings, optional, keyword-only
        Deprecated name of ``nuts`` (a ``DeprecationWarning``).

    Returns
    -------
    xarray.Dataset
        Over ``setting`` (coords ``axis`` and ``value``): ``spearman_vs_base``; over
        ``(setting, candidate)``: ``rank``, ``rank_lo`` and ``rank_hi``.

    Examples
    --------
    A toy grid of two fits (one short chain each; convergence warnings silenced here):

    >>> import warnings
    >>> import numpy as np
    >>> from bayes_eval.judges.data import from_scores
    >>> scores = np.array([[[3, 2, 2], [1, 1, 1]], [[1, 1, 1], [3, 2, 3]]])
    >>> data = from_scores(scores, candidates=["a", "b", "c"], judges=["j1", "j2"], n_levels=3)
    >>> from bayes_eval.models.judges import judge_sensitivity
    >>> from bayes_eval.nuts import NutsSettings
    >>> nuts = NutsSettings(draws=20, tune=20, chains=1, warn=False)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     grid = judge_sensitivity(data, omegas=(0,), beta_maxes=(1, 5), nuts=nuts)
    >>> grid["setting"].values.tolist(), dict(grid.sizes)
    (['omega=0', 'beta_max=1', 'beta_max=5'], {'setting': 3, 'candidate': 3})
    """
    from scipy import stats

    nuts = _renamed(nuts, settings, owner="judge_sensitivity")
    nuts = nuts or NutsSettings(draws=500, tune=500, chains=2)
    grid = [("omega", o, float(o), base[1]) for o in omegas]
    grid += [("beta_max", b, base[0], float(b)) for b in beta_maxes]
    if (base[0], base[1]) not in [(g[2], g[3]) for g in grid]:
        grid.insert(0, ("base", 0, base[0], base[1]))
    fits: dict[tuple[float, float], xr.Dataset] = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len({(g[2], g[3]) for g in grid}), desc="sensitivity fits")
    for _, _, om, bm in grid:
        if (om, bm) in fits:
            continue
        # fit_judges reuses the model built for this structure (one with omega = 0, one with)
        fit = fit_judges(data, omega=om, beta_max=bm, nuts=nuts)
        fits[(om, bm)] = fit["ranking"].to_dataset()
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    base_rank = fits[(base[0], base[1])]["mu_mean"].values
    rows = []
    for axis, value, om, bm in grid:
        r = fits[(om, bm)]
        rho = float(stats.spearmanr(base_rank, r["mu_mean"].values).statistic)
        rows.append(
            (axis, float(value), rho, r["rank"].values, r["rank_lo"].values, r["rank_hi"].values)
        )
    setting = [f"{a}={v:g}" for a, v, *_ in rows]
    return xr.Dataset(
        {
            "spearman_vs_base": ("setting", [r[2] for r in rows]),
            "rank": (("setting", "candidate"), np.array([r[3] for r in rows])),
            "rank_lo": (("setting", "candidate"), np.array([r[4] for r in rows])),
            "rank_hi": (("setting", "candidate"), np.array([r[5] for r in rows])),
        },
        coords={
            "setting": setting,
            "axis": ("setting", [r[0] for r in rows]),
            "value": ("setting", [r[1] for r in rows]),
            "candidate": list(data.candidates),
        },
        attrs={"base": f"omega={base[0]:g}, beta_max={base[1]:g}"},
    )
