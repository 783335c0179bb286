"""Every jupytext notebook in notebooks/ executes without error (small sizes, seconds)."""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.py"))
#: notebooks that sample PyMC models (compile + NUTS: tens of seconds each)
PYMC = {"02_crosscheck", "08_llm_judges", "09_workflow", "10_leaderboards"}
#: notebooks over ~5 s on two cores without PyMC, and the quickstart (a kernel start and the
#: shipped leaderboard: ~3 s, over the quick tier's budget; README's commands are tested too)
SLOW = {
    "01_quickstart",
    "03_convergence",
    "04_coverage",
    "05_prior_elicitation",
    "06_rubrics_and_logs",
    "07_adaptive_evaluation",
}


def _param(path: Path):
    marks = [pytest.mark.pymc, pytest.mark.slow] if path.stem in PYMC else []
    marks += [pytest.mark.slow] if path.stem in SLOW else []
    return pytest.param(path, marks=marks, id=path.stem)


def test_there_are_notebooks():
    assert any(p.stem == "01_quickstart" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", [_param(p) for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path):
    nb = jupytext.read(path)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("Bayes@5" in o.get("text", "") for o in outputs) or path.stem != "01_quickstart"
