"""Shared fixtures: the specification folder ``../shared`` beside the project."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared() -> Path:
    assert SHARED.is_dir(), f"{SHARED} is missing: the tests read the specification data there"
    return SHARED


@pytest.fixture(scope="session")
def scorio_cases(shared):
    return json.loads((shared / "reference" / "scorio_0.2.3_cases.json").read_text())


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)
