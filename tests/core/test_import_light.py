"""``import bayes_eval`` must not pull in PyMC, ArviZ, PyTensor, matplotlib or Inspect AI."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_core_import_is_light():
    code = (
        "import sys, bayes_eval, bayes_eval.xr, bayes_eval.cli, bayes_eval.validation,"
        " bayes_eval.datasets;"
        "heavy = [m for m in ('pymc', 'arviz', 'pytensor', 'matplotlib', 'inspect_ai')"
        " if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.pymc
@pytest.mark.slow
def test_models_subpackage_brings_pymc_and_the_reproducibility_flag():
    code = (
        "import os, sys, bayes_eval.models, pytensor;"
        "print('pymc' in sys.modules, pytensor.config.numba__fastmath,"
        " 'numba__fastmath=False' in os.environ['PYTENSOR_FLAGS'])"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTENSOR_FLAGS"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == ["True", "False", "True"]


def test_subpackages_are_mapped_from_top_level_folders():
    import bayes_eval.models
    import bayes_eval.validation

    assert bayes_eval.models.__file__.replace("\\", "/").endswith("models/__init__.py")
    assert "PyMC" in bayes_eval.models.__doc__
    assert "convergence" in bayes_eval.validation.__doc__
