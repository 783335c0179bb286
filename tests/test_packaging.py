"""The package builds quietly and completely (issue 29: every install printed about 280 lines
of setuptools ``BuildBackendWarning``, one block per data folder, and a new user thought it
had failed).

The build hooks of ``pyproject.toml``'s backend run in a fresh process on a copy of the
sources, with the warnings recorded as pip records a backend's (``catch_warnings(record=True)``
around the hook; pip prints every recorded ``UserWarning`` as a ``BuildBackendWarning``). The
wheel must carry every shipped data file and the editable install must resolve
``bayes_eval.models`` to ``models/``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HOOKS = """
import json, sys, warnings
sys.path[:0] = {backend_path}
backend = __import__({backend!r})
with warnings.catch_warnings(record=True) as seen:  # as pip's in-process hook runner
    wheel = backend.build_wheel("dist")
    editable = backend.build_editable("dist-editable")
print(json.dumps({{
    "wheel": wheel,
    "editable": editable,
    "warnings": [str(w.message) for w in seen if issubclass(w.category, UserWarning)],
}}))
"""


@pytest.mark.slow
def test_the_build_hooks_warn_nothing_and_ship_every_data_file(tmp_path):
    pytest.importorskip("setuptools")  # in the dev extra; the wheel package too
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("bayes_eval", "models", "validation", "scripts"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    script = HOOKS.format(backend_path=config["backend-path"], backend=config["build-backend"])
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=src, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["warnings"] == []
    data = src / "bayes_eval" / "datasets" / "data"
    shipped = {f"bayes_eval/datasets/data/{p.relative_to(data)}" for p in data.rglob("*")}
    shipped = {p for p in shipped if (ROOT / p).is_file()}
    with zipfile.ZipFile(src / "dist" / out["wheel"]) as whl:
        names = set(whl.namelist())
    assert shipped and shipped <= names
    assert "bayes_eval/models/__init__.py" in names
    assert "bayes_eval/validation/__init__.py" in names
    with zipfile.ZipFile(src / "dist-editable" / out["editable"]) as whl:
        finder = [n for n in whl.namelist() if n.endswith("_finder.py")]
        assert finder, whl.namelist()
        mapping = whl.read(finder[0]).decode()
    assert str(src / "models") in mapping and str(src / "validation") in mapping
