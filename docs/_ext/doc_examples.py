"""The example files every command of the documentation reads, written as the site says.

``getting_started/example_files.md`` writes them with its ``bayes-eval datasets ...
--export`` lines, its heredocs and its Python; :func:`write_example_files` runs exactly those
blocks in a folder. The executed pages call :func:`example_folder` in a hidden first cell (so
that their ``bayes-eval`` cells read the files the site describes), and the tests
(``tests/docs/``) use the same function.
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
EXAMPLE_PAGE = DOCS / "getting_started" / "example_files.md"
#: what the executed pages' kernels see beside the environment (``docs/conf.py`` and the page
#: tests): tables as wide as a leaderboard's columns, and no progress bars (they are for a
#: terminal; the cells show the results)
KERNEL_ENV = {"COLUMNS": "140", "TQDM_DISABLE": "1"}


def example_blocks(kind: str) -> list[str]:
    """The fenced blocks of the example-files page in a language (``bash``, ``python``,
    ``text``)."""
    return re.findall(rf"```{kind}\n(.*?)```", EXAMPLE_PAGE.read_text(), flags=re.S)


def write_example_files(folder: Path) -> Path:
    """Write the example files in ``folder`` as the example-files page does."""
    from bayes_eval.cli import main

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for block in example_blocks("bash"):
        for name, body in re.findall(r"cat > (\S+) <<'EOF'\n(.*?)\nEOF", block, flags=re.S):
            (folder / name).write_text(body + "\n")
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("bayes-eval datasets ") and "--export" in line:
                argv = shlex.split(line)[1:]
                argv[argv.index("--export") + 1] = str(folder / argv[argv.index("--export") + 1])
                if main(argv) != 0:
                    raise RuntimeError(f"the example-files page's command failed: {line}")
    here = Path.cwd()
    try:
        os.chdir(folder)
        for python in example_blocks("python"):
            exec(compile(python, str(EXAMPLE_PAGE), "exec"), {})
    finally:
        os.chdir(here)
    return folder


def example_folder() -> Path:
    """A new temporary folder holding the example files (a page's hidden first cell)."""
    return write_example_files(Path(tempfile.mkdtemp(prefix="bayes_eval_docs_")))
