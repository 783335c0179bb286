"""Every ``bayes-eval`` command of README.md and of the documentation site runs as written.

The commands are read from the ``bash`` blocks of README.md and of the pages under ``docs/``
(the executed ``!bayes-eval`` cells of the site's pages run in ``test_docs_pages.py``). The
files they read are written the way the "Example files" page writes them
(``docs/_ext/doc_examples.py``: its ``datasets --export`` lines, its heredocs and its Python:
shipped data where a real source exists), plus the logs of other tools (the shipped Inspect
log, an lm-eval output folder). The sampler commands and the exact learned-prior intervals run
on the first 3 models x 8 questions of the exported runs, and commands that would run for
minutes at their defaults get size options appended (``SMALLER``: argparse keeps the last
value of an option), so what is checked is the documentation's own spelling of every command
and option. Each must exit 0.
"""

from __future__ import annotations

import glob
import re
import shlex
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from doc_examples import EXAMPLE_PAGE, example_blocks, write_example_files  # noqa: E402

#: README.md and every page of the site, in a fixed order
DOCUMENTS = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts),
]

NUTS = "--draws 60 --tune 60 --chains 2 --no-progress"
#: command prefix -> options appended to keep the run small
SMALLER = {
    "validate biased-coin": "--independent 3 --replicates 10 --n-max 6 --n-questions 5",
    "validate prior-benefit": "--replicates 20 --n-max 6 --n-questions 5",
    "validate distinguishability": "--replicates 50 --n-max 20",
    "validate pairs": "--replicates 4 --n-models 3 --n-questions 8",
    "validate clusters": "--replicates 3 --n-models 3 --n-questions 12 --clusters 3,4 "
    "--cluster-sd 1 --draws 200",
    "validate graded": "--replicates 3 --n-models 3 --n-questions 12 --inflation 1,0",
    "validate convergence": "--replicates 20",
    "validate plan": "--replicates 4 --n-questions 10 --simulations 200",
    "validate claims": "--replicates 3 --n-questions 10 --permutations 100 --draws 500",
    "validate coverage": "--workers 0 --replicates 40 --exact-replicates 0 --bootstrap-resamples 0",
    "validate elicit": "--simulations 2000",
    "validate judges-synthetic": "--replicates 1 --n-questions 30 --candidates 3 --judges 2 "
    "--draws 60 --tune 60 --chains 2",
    "validate judges": "--draws 60 --tune 60 --chains 2 --no-integrated",
    "adaptive simulate": "--replicates 1",
    "judges": NUTS,
    # crosscheck keeps the documented 4 x 1000 draws: its exit status is its verdict (PyMC's
    # r-hat and ESS thresholds), which fewer draws would fail
    "crosscheck": "--no-progress",
    "priors": NUTS,
    "compare": "--draws 100 --tune 100 --chains 2",
    # the NUTS study on the tiny grid of tests/validation/test_sbc.py (5 questions x 4 trials),
    # in this process: the same xdist group, so the nutpie model compiled there is reused
    "validate sbc": "--simulations 20 --workers 0 --n-questions 5 --trials 4",
    "rank leaderboard.csv --fractional --estimator crossed": NUTS,
}
SAMPLES = ("crosscheck", "priors", "judges", "validate judges", "compare", "validate sbc")
SAMPLES += ("rank leaderboard.csv --fractional --estimator crossed",)
#: commands run on the cut MathArena runs (``small/``: see :func:`_write_inputs`)
SMALL_DATA = (*SAMPLES, "rank runs.csv --weights")


def _commands() -> list[str]:
    out = []
    for document in DOCUMENTS:
        for block in re.findall(r"```bash\n(.*?)```", document.read_text(), flags=re.S):
            for line in block.splitlines():
                line = line.split("  #")[0].strip()
                if line.startswith("bayes-eval "):
                    out.append(line[len("bayes-eval ") :])
    return list(dict.fromkeys(out))  # a command shown on two pages runs once


COMMANDS = _commands()


def _write_inputs(folder: Path) -> None:
    write_example_files(folder)
    # the sampler commands and the exact learned-prior intervals run on the first 3 models x 8
    # questions of the exported MathArena runs (the shape of the fits in tests/models, whose
    # compiled graphs they share): the example page's own files, cut to the test's time budget
    small = folder / "small"
    small.mkdir()
    runs = pd.read_csv(folder / "runs.csv", dtype={"question": str})
    keep = runs["model"].isin(runs["model"].unique()[:3]) & runs["question"].isin(
        runs["question"].unique()[:8]
    )
    runs[keep].to_csv(small / "runs.csv", index=False)
    runs[keep].to_parquet(small / "runs.parquet")
    from bayes_eval import datasets

    (folder / "logs").mkdir()
    shutil.copy(datasets.files("inspect_mmlu_log", "mmlu-summary-choices.eval"), folder / "logs")
    # an lm-eval --output_path as lm-eval lays it out: 2 models x 2 tasks x 2 runs
    shutil.copytree(ROOT / "tests" / "data" / "lm_eval_output", folder / "out")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("readme")
    _write_inputs(folder)
    return folder


def test_the_documentation_shows_commands():
    assert len(COMMANDS) >= 25


def _marks(command: str):
    marks = [pytest.mark.slow]
    if command.startswith(SAMPLES):
        marks.append(pytest.mark.pymc)
    if command.startswith("validate sbc --estimator hierarchical"):
        marks.append(pytest.mark.xdist_group("sbc-hierarchical"))
    return marks


@pytest.mark.parametrize("command", [pytest.param(c, marks=_marks(c), id=c[:60]) for c in COMMANDS])
def test_documented_command_runs_as_written(command, inputs, tmp_path, monkeypatch):
    from bayes_eval.cli import main

    work = tmp_path / "work"
    shutil.copytree(inputs, work)
    shutil.copytree(ROOT / "validation" / "configs", work / "validation" / "configs")
    if command.startswith(SMALL_DATA):
        for p in (work / "small").iterdir():
            shutil.copy(p, work / p.name)
    monkeypatch.chdir(work)
    args = []
    for word in shlex.split(command):  # the shell's globbing
        args += sorted(glob.glob(word)) if "*" in word else [word]
    extra = next((v for k, v in SMALLER.items() if command.startswith(k + " ")), "")
    if not extra:
        extra = next((v for k, v in SMALLER.items() if command == k), "")
    try:
        status = main([*args, *shlex.split(extra)])
    except SystemExit as stop:  # --version and --help exit through argparse
        status = stop.code
    assert status == 0, command


def test_the_example_files_are_written_by_the_example_page(inputs):
    """Every file a documented command reads is one the "Example files" page writes (or a
    log of another tool: the shipped Inspect log, an lm-eval output folder)."""
    named = set()
    for command in COMMANDS:
        named |= {w for w in shlex.split(command) if re.search(r"\.(csv|parquet|toml|npy)$", w)}
    written = {p.name for p in inputs.iterdir()}
    outputs = {"results.nc", "fit.nc"}
    reads = {w for w in named if not w.endswith((".png", ".nc"))} - outputs
    reads -= {w for w in reads if w.startswith("validation/configs/")}
    assert reads <= written, sorted(reads - written)
    section = EXAMPLE_PAGE.read_text()
    for name in reads:
        assert name in section, name
    # the first rows the page shows are those the export wrote
    (shown,) = example_blocks("text")
    head = (inputs / "runs.csv").read_text().splitlines()[: len(shown.splitlines())]
    assert shown.splitlines() == head
