"""The plain Python blocks of README.md and of the site's pages run, page by page, in order.

Each document's ```` ```python ```` blocks run in one namespace, in a folder holding the example
files (the blocks read them and write figures and study outputs). The site's executed cells
(```` ```{code-cell} ````) run in ``test_docs_pages.py``; the example-files page's own Python is
what writes the folder (``docs/_ext/doc_examples.py``).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from doc_examples import EXAMPLE_PAGE, write_example_files  # noqa: E402

DOCUMENTS = [
    README,
    *sorted(
        p
        for p in (ROOT / "docs").rglob("*.md")
        if "_build" not in p.parts and p != EXAMPLE_PAGE and "```python\n" in p.read_text()
    ),
]


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    return write_example_files(tmp_path_factory.mktemp("examples"))


@pytest.mark.slow
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_blocks_run(document, examples, tmp_path, monkeypatch):
    work = tmp_path / "work"
    shutil.copytree(examples, work)
    monkeypatch.chdir(work)
    blocks = re.findall(r"```python\n(.*?)```", document.read_text(), flags=re.S)
    assert blocks
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(document), "exec"), namespace)
    if document == README:
        assert round(namespace["mu_p"], 6) == 0.583333


def test_readme_shows_the_two_setup_commands_first():
    text = README.read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1)
    assert first_block.splitlines()[0].startswith("make demo")
    assert first_block.splitlines()[1].startswith("make test")


def test_readme_is_short():
    """The README says what the package is, the two commands and a short tour; the rest is
    on the documentation site."""
    assert len(README.read_text().splitlines()) <= 250


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)\)", README.read_text()):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), target
