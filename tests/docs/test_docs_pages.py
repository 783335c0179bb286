"""Every executed page of the documentation site runs, as ``make docs`` runs it.

The pages under ``docs/`` that are MyST notebooks (``file_format: mystnb``) execute their code
cells when the site is built; here each is executed the same way (jupytext reads the page,
nbclient runs it in the page's folder with ``bayes-eval`` on the PATH), so that ``make test``
catches a page that no longer runs without building the site. Pages whose cells sample PyMC
models are marked ``pymc``.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import jupytext
import pytest
from nbclient import NotebookClient

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS / "_ext"))
from doc_examples import KERNEL_ENV  # noqa: E402

PAGES = sorted(
    p
    for p in DOCS.rglob("*.md")
    if "_build" not in p.parts and p.read_text().startswith("---\nfile_format: mystnb")
)
#: pages whose cells compile or sample PyMC models
PYMC = {"pymc", "judges"}


def _param(path: Path):
    marks = [pytest.mark.slow] + ([pytest.mark.pymc] if path.stem in PYMC else [])
    return pytest.param(path, marks=marks, id=str(path.relative_to(DOCS)))


def test_there_are_executed_pages():
    assert {p.stem for p in PAGES} >= {"tour", "leaderboard", "comparing", "closed_forms"}


def execute_page(path: Path):
    """The page executed in its folder, as myst-nb executes it; returns the notebook."""
    nb = jupytext.read(path, fmt="md:myst")
    env = dict(os.environ)
    # `!bayes-eval` is this install's; tables and progress bars as docs/conf.py sets them
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(KERNEL_ENV)
    NotebookClient(
        nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute(env=env)
    return nb


@pytest.mark.parametrize("path", [_param(p) for p in PAGES])
def test_page_executes(path):
    nb = execute_page(path)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    # a `!bayes-eval` cell that failed prints argparse's or the command's one-line error
    assert not re.search(r"bayes-eval: error|Traceback", text), text[-2000:]
