"""Every example in a docstring of the core package runs and prints what it shows.

The examples are part of the API reference (``make docs``); here each module's doctests run
as ``python -m doctest`` would, with NumPy printing as it does by default. The PyMC models and
the studies (``models/``, ``validation/``) show their use on the site's guides instead.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bayes_eval


def _modules() -> list[str]:
    names = ["bayes_eval"]
    for info in pkgutil.walk_packages(bayes_eval.__path__, "bayes_eval."):
        if not info.name.startswith("bayes_eval.cli"):
            names.append(info.name)
    return names


def _tests():
    finder = doctest.DocTestFinder()
    out = []
    for name in _modules():
        module = importlib.import_module(name)
        for test in finder.find(module, name):
            if test.examples and test.name.startswith(name):
                out.append(pytest.param(test, id=test.name))
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
