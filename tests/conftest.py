"""Shared fixtures. Everything a test needs ships with the repository: real data in
:mod:`bayes_eval.datasets`, generated reference numbers in ``tests/data``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

# Property tests draw the same examples on every run (a failure reproduces; CI cannot flake);
# HYPOTHESIS_PROFILE=explore draws new ones.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "ci"))

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def scorio_cases():
    """Outputs of scorio 0.2.3 on fixed inputs (regenerate: tests/data/make_scorio_cases.py)."""
    return json.loads((DATA / "scorio_0.2.3_cases.json").read_text())


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


SLOW_SECONDS = 5.0
_unmarked_slow: list[tuple[str, float]] = []


def pytest_runtest_logreport(report):
    """Collect tests that ran over ~5 s without the ``slow`` marker (see the summary)."""
    if report.when == "call" and report.duration > SLOW_SECONDS:
        if "slow" not in report.keywords:
            _unmarked_slow.append((report.nodeid, report.duration))


def pytest_terminal_summary(terminalreporter):
    if _unmarked_slow:
        terminalreporter.section("tests over 5 s without the 'slow' marker")
        for nodeid, seconds in sorted(_unmarked_slow, key=lambda x: -x[1]):
            terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}")


def _whole_file_marks(path) -> str:
    """The text of a test module's ``pytestmark = ...`` statement (empty if none)."""
    import ast

    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError):
        return ""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            return ast.unparse(node.value)
    return ""


def pytest_ignore_collect(collection_path, config):
    """Skip importing a test module whose every test is marked ``pymc`` when the marker
    expression excludes them (``make test-fast``): importing it would load PyMC and ArviZ in
    every worker for nothing. Its tests run in ``make test``."""
    expr = config.getoption("markexpr") or ""
    if "not pymc" not in expr or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    return True if "mark.pymc" in _whole_file_marks(collection_path) else None


def pytest_collection_modifyitems(config, items):
    """Run the ``slow`` tests first, then the other ``pymc`` ones, then the rest (each group
    in collection order; the same order in every xdist worker). The two workers then finish
    together: a minute-long test collected last (tests/validation/ comes late) would leave one
    worker idle while the other runs it."""

    def tier(item) -> int:
        if item.get_closest_marker("slow"):
            return 0
        return 1 if item.get_closest_marker("pymc") else 2

    items.sort(key=tier)
