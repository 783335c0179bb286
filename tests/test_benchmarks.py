"""Benchmarks that cannot rot (issue 28): every script in ``benchmarks/`` takes ``--smoke`` and
``--json``, and ``benchmarks/run_all.py`` (``make bench-smoke``) runs each of them.

Read from the source with ``ast`` (no subprocess, no import of the scripts: milliseconds); the
smoke runs themselves are ``make bench-smoke``.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _runner():
    spec = importlib.util.spec_from_file_location("bench_run_all", BENCH / "run_all.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the runner imports the standard library only
    return module


def _options(path: Path) -> set[str]:
    """Every option string given to an ``add_argument`` call in the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            found |= {
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and str(a.value).startswith("--")
            }
    return found


SCRIPTS = sorted(
    p for p in BENCH.glob("*.py") if not p.name.startswith("_") and p.name != "run_all.py"
)


def test_there_are_benchmarks():
    # a moved folder or a wrong glob would make the parametrised test below pass vacuously
    assert len(SCRIPTS) >= 10
    assert "bench_bayes.py" in {p.name for p in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_benchmark_takes_smoke_and_json(script):
    options = _options(script)
    missing = {"--smoke", "--json"} - options
    assert not missing, f"{script.name} has no {sorted(missing)} option (options: {options})"


def test_the_runner_runs_every_benchmark_with_smoke():
    runner = _runner()
    assert [p.name for p in runner.scripts()][: len(runner.LONGEST)] == list(runner.LONGEST)
    assert sorted(p.name for p in runner.scripts()) == [p.name for p in SCRIPTS]
    assert {"--jobs", "--timeout", "--json"} <= _options(BENCH / "run_all.py")


def test_the_runner_reports_a_failure(tmp_path, monkeypatch):
    # a script that exits non-zero is FAILED with its output; one that prints no JSON under
    # --json is FAILED too; the exit status of the run is 1 (no real benchmark is started)
    runner = _runner()
    bad = tmp_path / "bench_bad.py"
    bad.write_text("import sys\nprint('boom', file=sys.stderr)\nsys.exit(3)\n")
    not_json = tmp_path / "bench_text.py"
    not_json.write_text("print('a table, not JSON')\n")
    r = runner.run_one(bad, as_json=False, timeout=30)
    assert (r["ok"], r["problem"]) == (False, "exit status 3")
    assert "boom" in r["output"]
    r = runner.run_one(not_json, as_json=True, timeout=30)
    assert not r["ok"] and "JSON" in r["problem"]
    assert runner.run_one(not_json, as_json=False, timeout=30)["ok"]
    monkeypatch.setattr(runner, "scripts", lambda folder=None: [bad, not_json])
    assert runner.main(["--jobs", "1"]) == 1


def test_full_runs_report_every_goal_verdict(tmp_path, monkeypatch, capsys):
    # ``make bench`` (--full --table): the table's scripts exist, run at full size (no
    # --smoke, with --json), and every record carrying a True/False meets_goal is listed
    runner = _runner()
    assert set(runner.TABLE) <= {p.name for p in SCRIPTS}
    doc = {
        "a": {"meets_goal": True, "text": "1.2x (goal <= 1.5x)"},
        "b": [{"meets_goal": False}, {"meets_goal": None}],
        "c": 3,
    }
    assert runner.goals(doc) == [("a", True, "1.2x (goal <= 1.5x)"), ("b[0]", False, "")]
    fake = tmp_path / "bench_fake.py"
    fake.write_text(
        "import json, sys\nassert '--smoke' not in sys.argv and '--json' in sys.argv\n"
        "print(json.dumps({'row': {'meets_goal': False, 'text': 'slow'}}))\n"
    )
    monkeypatch.setattr(runner, "scripts", lambda folder=None: [fake])
    assert runner.main(["--full"]) == 0
    out = capsys.readouterr().out
    assert "1 goals (0 met)" in out and "NOT met bench_fake.py" in out and "row: slow" in out
