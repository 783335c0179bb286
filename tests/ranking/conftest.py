"""Shared boards of the planning tests."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr


@pytest.fixture(scope="session")
def one_trial_board() -> xr.DataArray:
    """Four binary models x 24 questions x one trial (a and b, b and c not yet separated)."""
    rng = np.random.default_rng(8)
    p = np.array([0.8, 0.6, 0.5, 0.45])[:, None] * rng.uniform(0.5, 1.0, (1, 24))
    R = (rng.random((4, 24, 1)) < p[..., None]).astype(float)
    return xr.DataArray(R, dims=("model", "question", "trial"), coords={"model": list("abcd")})
