"""The shortcuts of ``bayes_ci``'s per-call work (issue 28) give the general path's numbers and
errors: the cached ``z`` of a confidence level, the float fast exit of ``check_confidence``,
the label check of every integer width, the sums of a fixed prior, the default prior
returned at once, and the int64 / uint64 label sums of the one-pass moments.

References: scipy's ``ndtri`` itself (exact equality), the counts path of
:func:`bayes_eval.posterior` (a masked array without missing trials builds the
``(L, M, C + 1)`` counts; relative 1e-12, as in ``tests/posteriors/test_onepass.py``: both
are float64 closed forms of the same integer counts) and the same labels in another dtype
(exact equality: the one-pass sums are exact integers).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri

from bayes_eval import bayes as _bayes
from bayes_eval import bayes_ci as _bayes_ci
from bayes_eval.inputs import check_confidence, labels
from bayes_eval.metrics.bayes import prior_of
from bayes_eval.posteriors.intervals import normal_interval, two_sided_z
from bayes_eval.posteriors.onepass import one_pass_moments
from bayes_eval.posteriors.priors import Prior

RTOL = 1e-12


def bayes_ci(R, w=None, **kw):
    """The fast paths serve fixed priors and the normal interval (the paper's): asked for."""
    kw.setdefault("prior", "uniform")
    kw.setdefault("interval", "normal")
    return _bayes_ci(R, w, **kw)


def bayes(R, w=None, **kw):
    kw.setdefault("prior", "uniform")
    return _bayes(R, w, **kw)


def _counts_path(R, **kw):
    return bayes_ci(np.ma.masked_array(R, mask=np.zeros(np.shape(R), bool)), **kw)


def _error(fn, *args, **kw) -> str:
    with pytest.raises(ValueError) as info:
        fn(*args, **kw)
    return str(info.value)


def test_z_is_scipys_value_cached_or_not():
    for c in (0.95, 0.9, 0.5, 0.999, 0.6827, 1e-9, 1 - 1e-12):
        exact = float(ndtri(0.5 + 0.5 * c))
        assert two_sided_z(c) == exact and two_sided_z(c) == exact  # computed, then cached
        assert two_sided_z(np.float64(c)) == exact  # numpy scalars: not cached, same value
        assert two_sided_z(np.array(c)) == exact
    lo, hi = normal_interval(np.array([0.5, 0.2]), np.array([0.1, 0.05]), 0.95)
    z = float(ndtri(0.975))
    np.testing.assert_array_equal(lo, np.array([0.5, 0.2]) - z * np.array([0.1, 0.05]))
    np.testing.assert_array_equal(hi, np.array([0.5, 0.2]) + z * np.array([0.1, 0.05]))


def test_confidence_fast_exit_keeps_every_answer_and_message():
    assert check_confidence(0.95) == 0.95 and type(check_confidence(0.95)) is float
    assert check_confidence(np.float64(0.9)) == 0.9 and type(check_confidence(0.9)) is float
    for bad in (0.0, 1.0, -0.5, 1.5, float("nan"), float("inf"), True, "0.95", None, 1):
        msg = _error(check_confidence, bad)
        assert msg.startswith("confidence is ") and "strictly between 0 and 1" in msg
    R = np.array([[0, 1, 1], [1, 0, 1]])
    assert bayes_ci(R, confidence=0.9) == bayes_ci(R, confidence=np.float64(0.9))  # floats


@pytest.mark.parametrize("dtype", ["<i8", ">i8", "<i4", "i1", "u1", "<u2", ">u8", "<u8"])
def test_binary_label_check_gives_the_general_answer(dtype):
    """With w=None the one-pass path checks the labels by the maximum of their unsigned view;
    the counts path checks them by their maximum and minimum: the same top, results and
    messages, for every width and byte order."""
    rng = np.random.default_rng(11)
    R = (rng.random((3, 6, 9)) < 0.4).astype(dtype)
    values, weights, top = labels(R)
    assert top == 1 and values.dtype == R.dtype and weights.tolist() == [0.0, 1.0]
    assert labels(np.zeros((2, 3), dtype))[2] == 0
    for a, b in zip(bayes_ci(R), _counts_path(R), strict=True):
        np.testing.assert_allclose(a, b, rtol=RTOL)
    bad = R.copy()
    bad[1, 2, 3] = 2  # a category without weights
    msg = _error(bayes_ci, bad)
    assert msg == _error(_counts_path, bad) and "contains category 2" in msg
    if np.dtype(dtype).kind == "i":
        bad[1, 2, 3] = -1  # its unsigned view has the top bit set
        msg = _error(bayes_ci, bad)
        assert msg == _error(_counts_path, bad)
        assert "negative category -1 at index (1, 2, 3)" in msg


def test_uint64_labels_take_the_one_pass_path():
    """uint64 labels failed in the one-pass sums (numpy refused uint64 -> int64 summing);
    they now give the int64 labels' numbers exactly."""
    rng = np.random.default_rng(5)
    R = rng.integers(0, 3, size=(4, 7, 11))
    w = [0.0, 0.5, 1.0]
    for dtype in ("<u8", ">u8"):  # either byte order
        np.testing.assert_array_equal(bayes_ci(R.astype(dtype), w), bayes_ci(R, w))
    assert bayes(R[0].astype(np.uint64), w) == bayes(R[0], w)  # one model: floats
    binary = (R > 0).astype(np.uint64)
    np.testing.assert_array_equal(bayes_ci(binary), bayes_ci(binary.astype(np.int64)))


@pytest.mark.parametrize("prior", ["uniform", "jeffreys", 0.7, [0.3, 1.1, 2.5]])
def test_the_prior_sums_are_those_of_each_prior(prior):
    """The fixed prior's sums: alternating priors (and a non-contiguous alpha) give each
    prior's own counts-path numbers."""
    rng = np.random.default_rng(2)
    R = rng.integers(0, 3, size=(5, 8, 6))
    w = [0.0, 0.5, 1.0]
    for _ in range(2):
        got, ref = bayes_ci(R, w, prior=prior), _counts_path(R, w=w, prior=prior)
        for a, b in zip(got, ref, strict=True):
            np.testing.assert_allclose(a, b, rtol=RTOL)
    values, weights, top = labels(R, w)
    alpha = np.array([[0.3, 9.0], [1.1, 9.0], [2.5, 9.0]])[:, 0]  # a strided view
    assert not alpha.flags.c_contiguous
    np.testing.assert_array_equal(
        one_pass_moments(values, weights, alpha, top),
        one_pass_moments(values, weights, np.ascontiguousarray(alpha), top),
    )


def test_int64_sums_match_the_counts_path_and_the_bytes():
    """The int64 labels' einsum sums against the counts path and against the same labels as
    int8 (the byte-word sums): equal numbers, on one and many models, binary and graded."""
    rng = np.random.default_rng(9)
    for shape, c in (((20, 30, 80), 1), ((6, 9, 17), 4), ((12, 5), 2), ((3, 4, 1), 1)):
        R = rng.integers(0, c + 1, size=shape)
        w = None if c == 1 else np.linspace(0.0, 1.0, c + 1)
        got = bayes_ci(R, w)
        for a, b in zip(got, _counts_path(R, w=w), strict=True):
            np.testing.assert_allclose(a, b, rtol=RTOL)
        for a, b in zip(got, bayes_ci(R.astype(np.int8), w), strict=True):
            np.testing.assert_array_equal(a, b)


def test_the_default_prior_shortcut_is_prior_parse():
    """``prior_of``'s defaults return ``Prior.parse("empirical")`` (the default of every
    command) at once, and the named priors too; any other argument takes ``Prior.parse``,
    with its answers and messages."""
    assert prior_of() is prior_of("empirical") and prior_of() == Prior.parse("empirical")
    assert prior_of("uniform") is prior_of("uniform") == Prior.parse("uniform")
    assert prior_of(np.str_("uniform")) == Prior.parse("uniform")
    fixed = prior_of("uniform", alpha0=2.0)
    assert (fixed.kind, fixed.label, float(fixed.alpha)) == ("fixed", "Dirichlet(2)", 2.0)
    runs = np.array([[1, 0], [0, 0]])
    assert prior_of("uniform", R0=runs).runs is not None
    with pytest.raises(ValueError, match="runs_mask is given without runs"):
        prior_of("uniform", R0_mask=np.zeros((2, 2), bool))
    with pytest.raises(ValueError, match="pool applies to learned priors"):
        prior_of("uniform", pool="model")
    R = np.array([[0, 1, 1], [1, 0, 0]])
    for a, b in zip(bayes_ci(R, R0=runs), _counts_path(R, R0=runs), strict=True):
        np.testing.assert_allclose(a, b, rtol=RTOL)
