"""The compiled ordinal likelihood of the crossed model against independent computations.

Values: the cumulative-logit probabilities written with ``scipy.special.expit`` (rel 1e-12:
both are float64 evaluations of the same closed form, the kernel's through one logarithm of a
product). Gradients: central differences of the values (step 1e-6, abs 1e-6: the truncation
error of the difference quotient at that step is ~1e-9 here), and the two PyTensor paths
(a broadcast scalar cotangent, scaled from the one-pass gradient; any other cotangent, through
:class:`OrdinalLoglikGrad`) against each other to rounding.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.graph.traversal import io_toposort
from scipy.special import expit

from bayes_eval.models import crossed_model
from bayes_eval.models.crossed_kernels import (
    OrdinalLoglik,
    _ordinal_values,
    _ordinal_vjp,
    ordinal_loglik,
)
from bayes_eval.synthetic.leaderboard import simulate_leaderboard

pytestmark = pytest.mark.pymc  # PyTensor graphs and Numba kernels (about 8 s)


def _case(K: int, seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    L, M = 4, 6
    data = {
        "li": rng.integers(0, L, n),
        "qi": rng.integers(0, M, n),
        "kk": rng.integers(0, K, n),
        "count": rng.integers(1, 4, n).astype(float),
    }
    params = {
        "theta": rng.normal(size=L),
        "b": rng.normal(size=M),
        "c": np.sort(rng.normal(scale=2.0, size=K - 1)),
        "off": rng.normal(size=n),
    }
    return data, params


def _direct(data, p, offset):
    """``count * log P(Y = k)`` from expit: P(Y = k) = s(eta - c_k) - s(eta - c_{k+1})."""
    eta = p["theta"][data["li"]] - p["b"][data["qi"]] + (p["off"] if offset else 0.0)
    cuts = np.concatenate([[-np.inf], p["c"], [np.inf]])
    k = data["kk"]
    return data["count"] * np.log(expit(eta - cuts[k]) - expit(eta - cuts[k + 1]))


def _kernel(data, p, offset):
    off = p["off"] if offset else np.zeros(0)
    d = data
    return _ordinal_values(
        p["theta"], p["b"], p["c"], d["li"], d["qi"], d["kk"], d["count"], off, offset
    )


@pytest.mark.parametrize("K", [2, 3, 5])
@pytest.mark.parametrize("offset", [False, True])
def test_values_match_the_cumulative_logit_probabilities(K, offset):
    data, p = _case(K, seed=K)
    np.testing.assert_allclose(_kernel(data, p, offset)[0], _direct(data, p, offset), rtol=1e-12)


@pytest.mark.parametrize("K", [2, 5])
@pytest.mark.parametrize("offset", [False, True])
def test_gradients_match_central_differences(K, offset):
    data, p = _case(K, seed=10 + K)
    _, *unit = _kernel(data, p, offset)
    cot = np.random.default_rng(0).normal(size=data["li"].size)
    off = p["off"] if offset else np.zeros(0)
    d = data
    vjp = _ordinal_vjp(
        p["theta"], p["b"], p["c"], d["li"], d["qi"], d["kk"], d["count"], off, offset, cot
    )
    names = ["theta", "b", "c"] + (["off"] if offset else [])
    h = 1e-6
    for name, g_unit, g_cot in zip(names, unit, vjp, strict=False):
        for j in range(p[name].size):
            up, down = dict(p), dict(p)
            up[name], down[name] = p[name].copy(), p[name].copy()
            up[name][j] += h
            down[name][j] -= h
            diff = (_kernel(data, up, offset)[0] - _kernel(data, down, offset)[0]) / (2 * h)
            assert g_unit[j] == pytest.approx(diff.sum(), abs=1e-6), (name, j)
            assert g_cot[j] == pytest.approx(cot @ diff, abs=1e-6), (name, j)
    if not offset:
        assert unit[3].size == 0 and vjp[3].size == 0


def test_no_overflow_far_out_on_the_logit_scale():
    """eta = 400: the product of the two factors overflows, their logs do not."""
    data, p = _case(5, seed=3)
    p["theta"] = p["theta"] + 400.0
    got = _kernel(data, p, False)[0]
    eta = p["theta"][data["li"]] - p["b"][data["qi"]]
    cuts = np.concatenate([[-np.inf], p["c"], [np.inf]])
    k = data["kk"]
    # log P(Y = k) for eta >> c: log(1 - s(c_k - eta)... ) written with logs of expit
    with np.errstate(divide="ignore"):
        direct = np.log(expit(cuts[k + 1] - eta) - expit(cuts[k] - eta))  # = P(Y = k) too
    assert np.isfinite(got).all()
    top = k == 4
    np.testing.assert_allclose(got[top], data["count"][top] * direct[top], rtol=1e-12)


@pytest.mark.parametrize("offset", [False, True])
def test_both_gradient_paths_of_the_graph(offset):
    """A scalar cotangent (a log density's) and a per-entry one (weights) in PyTensor's Python
    mode give the kernel's gradients."""
    data, p = _case(3, seed=7)
    th, b, c, off = pt.dvector(), pt.dvector(), pt.dvector(), pt.dvector()
    d = data
    v = ordinal_loglik(th, b, c, d["li"], d["qi"], d["kk"], d["count"], off if offset else None)
    wrt = [th, b, c] + ([off] if offset else [])
    weights = np.random.default_rng(1).normal(size=d["li"].size)
    f = pytensor.function(
        wrt,
        [*pytensor.grad(v.sum(), wrt), *pytensor.grad((v * weights).sum(), wrt)],
        mode="FAST_COMPILE",
        on_unused_input="ignore",
    )
    args = [p["theta"], p["b"], p["c"]] + ([p["off"]] if offset else [])
    out = f(*args)
    n = len(wrt)
    offs = p["off"] if offset else np.zeros(0)
    unit = _ordinal_vjp(
        p["theta"],
        p["b"],
        p["c"],
        d["li"],
        d["qi"],
        d["kk"],
        d["count"],
        offs,
        offset,
        np.ones(d["li"].size),
    )
    weighted = _ordinal_vjp(
        p["theta"], p["b"], p["c"], d["li"], d["qi"], d["kk"], d["count"], offs, offset, weights
    )
    for got, want in zip(out[:n], unit, strict=False):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    for got, want in zip(out[n:], weighted, strict=False):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the log density's path reuses the one-pass gradient: no OrdinalLoglikGrad in its graph
    g = pytensor.grad(v.sum(), wrt)
    ops = {type(node.op).__name__ for node in io_toposort(wrt, g)}
    assert "OrdinalLoglikGrad" not in ops and "OrdinalLoglik" in ops


def test_pointwise_terms_of_the_crossed_model():
    """The model's elementwise log-likelihood (what LOO reads) is one value per (cell, level)
    entry, equal to the direct formula at a random point."""
    board = simulate_leaderboard(5, 30, scores="levels", levels=4, missing=0.1, seed=4)
    model = crossed_model(board.to_dataarray(), likelihood="ordinal", levels=4)
    point = model.initial_point()
    rng = np.random.default_rng(5)
    point = {k: v + rng.normal(scale=0.3, size=np.shape(v)) for k, v in point.items()}
    (terms,) = model.logp(vars=[model["levels_obs"]], sum=False)
    outs = model.replace_rvs_by_values([terms, model["theta"], model["b"], model["cutpoints"]])
    fn = pytensor.function(model.value_vars, outs, on_unused_input="ignore", mode="FAST_COMPILE")
    got, theta, b, c = fn(*[point[v.name] for v in model.value_vars])
    data = {
        "li": model["cell_model"].get_value(),
        "qi": model["cell_question"].get_value(),
        "kk": model["level_index"].get_value(),
        "count": model["level_count"].get_value().astype(float),
    }
    assert got.shape == data["li"].shape
    want = _direct(data, {"theta": theta, "b": b, "c": c}, False)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_ops_check_their_inputs():
    assert OrdinalLoglik(True) != OrdinalLoglik(False)
    with pytest.raises(TypeError, match=r"takes vectors; got theta \(2-d\)"):
        ordinal_loglik(pt.dmatrix(), pt.dvector(), pt.dvector(), [0], [0], [0], [1.0])
