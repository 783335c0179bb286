"""Every example in a docstring runs and prints what it shows.

The examples are part of the API reference (``make docs``); here each module's doctests run
as ``python -m doctest`` would, with NumPy printing as it does by default. Those of the PyMC
models (``bayes_eval.models``) are marked ``pymc``, those of the studies
(``bayes_eval.validation``) ``slow``.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest


def _modules() -> list[str]:
    """The core package's modules, then those of ``bayes_eval.models`` and
    ``bayes_eval.validation`` (which an editable install maps from ``models/`` and
    ``validation/``, so they are walked on their own)."""
    names = []
    for package in ("bayes_eval", "bayes_eval.models", "bayes_eval.validation"):
        root = importlib.import_module(package)
        names.append(package)
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            if not info.name.startswith("bayes_eval.cli"):
                names.append(info.name)
    return sorted(set(names))


def _marks(name: str) -> list[pytest.MarkDecorator]:
    if name.startswith("bayes_eval.models"):
        return [pytest.mark.pymc, pytest.mark.slow]
    if name.startswith("bayes_eval.validation"):
        return [pytest.mark.slow]
    return []


def _tests():
    finder = doctest.DocTestFinder()
    out = []
    for name in _modules():
        module = importlib.import_module(name)
        for test in finder.find(module, name):
            if test.examples and test.name.startswith(name):
                out.append(pytest.param(test, id=test.name, marks=_marks(name)))
    return out


TESTS = _tests()


def test_there_are_examples():
    assert len(TESTS) >= 20


@pytest.mark.parametrize("test", TESTS)
def test_docstring_example(test):
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)
