"""The prior-benefit study's numbers do not depend on how many replicates are held at once."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.slow
def test_prior_benefit_is_the_same_for_every_chunk():
    from bayes_eval.validation.prior_benefit import run

    kwargs = {"replicates": 230, "n_max": 4, "depths": (0, 2, 8), "seed": 5, "progress": False}
    a, b = run(chunk=50, **kwargs), run(chunk=1000, **kwargs)
    c = run(chunk=137, **kwargs)  # rounded down to whole blocks of 50
    for other in (b, c):
        # the same random draws; only the order of the floating-point sums differs
        np.testing.assert_array_equal(
            a["tau_original_vs_updated"].values, other["tau_original_vs_updated"].values
        )
        for name in ("tau_mean", "tau_se", "delta_tau"):
            np.testing.assert_allclose(a[name].values, other[name].values, rtol=0, atol=1e-12)
    assert a.sizes["replicate"] == 230
