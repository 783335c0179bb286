"""Vectorised rank-normalised r-hat, bulk and tail ESS against arviz_stats itself.

arviz_stats computes the same definitions element by element (a Python loop with
``scipy.stats.rankdata``): it is the independent computation. Same formulas in float64, so
the tolerance is 1e-10 relative (the differences seen are below 1e-14: summation order of
the autocovariances and the FFT of the chain-averaged spectrum); NaN where arviz gives NaN.
"""

from __future__ import annotations

import arviz_stats
import numpy as np
import pytest
import xarray as xr
from arviz_base import rcParams
from scipy.signal import lfilter

from bayes_eval.models.rank_diagnostics import RankDiagnostics, rank_diagnostics
from bayes_eval.models.sampling import element_diagnostics

RTOL = 1e-10


def ar1(rng: np.random.Generator, phi, shape: tuple[int, ...]) -> np.ndarray:
    """AR(1) chains ``x_t = phi x_{t-1} + e_t`` along axis 1 of ``shape`` (chain, draw, k)."""
    e = rng.normal(size=shape)
    return np.stack([lfilter([1.0], [1.0, -p], e[..., k], axis=1) for k, p in enumerate(phi)], -1)


def reference(x: np.ndarray, prob: float | None = 0.05) -> list[np.ndarray]:
    """arviz_stats' rank r-hat, bulk ESS and tail ESS of every element of ``x``."""
    dims = ["chain", "draw", *(f"d{i}" for i in range(x.ndim - 2))]
    da = xr.DataArray(x, dims=dims)
    with np.errstate(divide="ignore", invalid="ignore"):
        return [
            np.asarray(arviz_stats.rhat(da, method="rank")),
            np.asarray(arviz_stats.ess(da, method="bulk")),
            np.asarray(arviz_stats.ess(da, method="tail", prob=prob)),
        ]


def assert_matches(x: np.ndarray, prob: float = 0.05, expected=None) -> RankDiagnostics:
    got = rank_diagnostics(x, tail_prob=prob)
    for name, want, have in zip(got._fields, expected or reference(x, prob), got, strict=True):
        assert have.shape == want.shape, name
        np.testing.assert_allclose(have, want, rtol=RTOL, atol=0, equal_nan=True, err_msg=name)
    return got


def _case(name: str) -> np.ndarray:
    rng = np.random.default_rng([28, CASES.index(name)])
    shape = (4, 200, 5)
    if name == "iid normal":
        return rng.normal(size=shape)
    if name == "AR(1) 0.95":
        return ar1(rng, [0.95, 0.9, 0.5, -0.5, 0.99], shape)
    if name == "shifted chains":  # r-hat >> 1
        return rng.normal(size=shape) + np.array([0.0, 0.0, 1.0, 3.0])[:, None, None]
    if name == "heavy tails":
        return rng.standard_cauchy(size=shape)
    if name == "many ties":
        return rng.poisson(0.4, size=shape).astype(float)
    if name == "rare binary":  # a tail indicator that is constant: ESS = its size
        return (rng.random(size=shape) < 0.03).astype(float)
    if name == "constant and NaN":
        x = rng.normal(size=shape)
        x[..., 1] = 0.25  # never changes: r-hat NaN, ESS = all split draws
        x[2, 17, 3] = np.nan  # one NaN: NaN everywhere for that element
        x[..., 4] = np.nan
        return x
    if name == "infinite draws":  # a median of inf: |inf - inf| is unranked, as in arviz
        x = rng.normal(size=shape)
        x[0, 3, 0] = np.inf
        x[:, :120, 1] = np.inf
        x[..., 2] = np.inf
        x[:, :110, 3] = -np.inf
        return x
    if name == "odd draws":
        return ar1(rng, [0.3] * 5, (3, 201, 5))
    if name == "one chain":  # r-hat NaN, ESS of the two halves
        return ar1(rng, [0.7] * 5, (1, 300, 5))
    if name == "2 chains x 4 draws":
        return rng.normal(size=(2, 4, 5))
    if name == "3 draws":  # too few: all NaN
        return rng.normal(size=(2, 3, 5))
    raise KeyError(name)


CASES = [
    "iid normal",
    "AR(1) 0.95",
    "shifted chains",
    "heavy tails",
    "many ties",
    "rare binary",
    "constant and NaN",
    "infinite draws",
    "odd draws",
    "one chain",
    "2 chains x 4 draws",
    "3 draws",
]


@pytest.mark.parametrize("name", CASES)
def test_matches_arviz_stats(name):
    got = assert_matches(_case(name))
    if name == "shifted chains":
        assert np.all(got.r_hat > 1.2)
    if name in ("one chain", "3 draws"):
        assert np.isnan(got.r_hat).all()
    if name == "3 draws":
        assert np.isnan(got.ess_bulk).all() and np.isnan(got.ess_tail).all()


@pytest.mark.slow
def test_short_chains_every_branch_of_the_geyer_truncation():
    """Short chains with positive and negative autocorrelation: the sum stops at the first
    non-positive pair, at the lag cap, with or without its even term, and the monotone
    running minimum changes pairs; 2 x 4 draws gives the floor tau = 1 / log10(8)."""
    rng = np.random.default_rng(28)
    for draws in [*range(4, 16), 33]:
        for chains in (1, 2):
            x = ar1(rng, rng.uniform(-0.95, 0.99, size=8), (chains, draws, 8))
            x[..., :2] = np.round(x[..., :2])  # ties
            assert_matches(x)
    minimal = rank_diagnostics(_case("2 chains x 4 draws"))
    np.testing.assert_allclose(minimal.ess_bulk, 8 * np.log10(8), rtol=1e-12)


def test_tail_probability_and_arviz_default():
    """arviz_stats' tail ESS without ``prob`` uses rcParams["stats.ci_prob"] (0.89): the 11%
    and 89% quantiles; the paper's 5% and 95% (the default here) give other numbers."""
    x = _case("AR(1) 0.95")
    default = rcParams["stats.ci_prob"]
    arviz_default = reference(x, prob=None)
    assert_matches(x, prob=default, expected=arviz_default)
    np.testing.assert_array_equal(
        rank_diagnostics(x, tail_prob=1 - default).ess_tail,
        rank_diagnostics(x, tail_prob=default).ess_tail,
    )
    assert not np.allclose(rank_diagnostics(x).ess_tail, arviz_default[2], rtol=1e-3)


def test_blocks_shapes_and_input_untouched():
    x = np.concatenate([_case("constant and NaN")] * 6, axis=-1).reshape(4, 200, 2, 15)
    before = x.copy()
    whole = rank_diagnostics(x)
    one_at_a_time = rank_diagnostics(x, max_bytes=1)
    assert whole.r_hat.shape == (2, 15)
    for a, b in zip(whole, one_at_a_time, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(x, before)  # NaN rows are zeroed in a copy only
    single = np.ascontiguousarray(x[:, :, 0, :1])  # a block that is the whole array
    kept = single.copy()
    scalar = rank_diagnostics(single[..., 0])
    assert scalar.r_hat.shape == ()
    np.testing.assert_array_equal(single, kept)
    flags = rank_diagnostics(x[:, :, 0, 0] > 0)  # booleans are read as 0/1
    np.testing.assert_array_equal(flags, rank_diagnostics((x[:, :, 0, 0] > 0).astype(float)))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"x": np.zeros(10)}, r"shape \(10,\); expected \(chain, draw, \*element\)"),
        ({"x": np.full((2, 10), "a")}, r"dtype <U1; expected numbers"),
        ({"x": np.zeros((2, 10)), "tail_prob": 0.0}, r"tail_prob is 0.0; expected a prob"),
        ({"x": np.zeros((2, 10)), "tail_prob": 1.5}, r"tail_prob is 1.5; expected a prob"),
        ({"x": np.zeros((2, 10)), "max_bytes": 0}, r"max_bytes is 0; expected a positive"),
    ],
)
def test_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rank_diagnostics(**kwargs)


def test_element_diagnostics_is_arviz_stats_with_fixed_elements_nan():
    """``element_diagnostics``: arviz_stats' numbers (the tail ESS at the paper's 5% and 95%
    quantiles), any order of dims, coords kept, NaN where an element never changes."""
    x = _case("constant and NaN")
    da = xr.DataArray(x, dims=("chain", "draw", "k"), coords={"k": list("abcde")})
    got = element_diagnostics(da.transpose("k", "draw", "chain"))
    want = reference(x, prob=0.05)
    want[1][1] = want[2][1] = np.nan  # the fixed element: arviz gives its size as ESS
    for name, w in zip(("r_hat", "ess_bulk", "ess_tail"), want, strict=True):
        assert got[name].dims == ("k",) and list(got[name]["k"].values) == list("abcde")
        np.testing.assert_allclose(got[name].values, w, rtol=RTOL, equal_nan=True)
    fixed = element_diagnostics(xr.full_like(da, 2.0).astype(int))
    assert all(np.isnan(fixed[name].values).all() for name in fixed.data_vars)
