"""The shape of the command line: the command list, nested validate studies built from the
registry, shared options, --json on every command, one-line errors, deprecated spellings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayes_eval.cli import COMMANDS, main, parser
from bayes_eval.cli._output import summary
from bayes_eval.validation.registry import STUDIES

CLI = Path(__file__).resolve().parents[2] / "bayes_eval" / "cli"
NAMES = [
    "rank",
    "pairs",
    "report",
    "schemas",
    "plan",
    "crosscheck",
    "compare",
    "priors",
    "validate",
    "adaptive",
]
NAMES += ["judges", "datasets", "demo"]


def _help(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_help_lists_every_command_with_its_line(capsys):
    text = _help(capsys, [])
    assert [c.__name__.rsplit(".", 1)[-1] for c in COMMANDS] == NAMES
    lines = text.splitlines()
    for command in COMMANDS:
        name = command.__name__.rsplit(".", 1)[-1]
        [line] = [x for x in lines if x.strip().startswith(name + " ")]
        assert command.HELP[:40] in line  # name and help on one line
    assert "Hariri et al." in text


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_validate_study_help_shows_only_its_own_options(capsys, name):
    text = _help(capsys, ["validate", name])
    fields = dataclasses.fields(STUDIES[name].config)
    own = {f.name for f in fields}
    for f in fields:
        if f.metadata.get("positional"):
            assert f.name.upper() in text
        elif f.default is True:
            assert "--no-" + f.name.replace("_", "-") in text
        else:
            assert "--" + f.name.replace("_", "-") in text
    others = {f.name for s in STUDIES.values() for f in dataclasses.fields(s.config)} - own
    flags = {w.strip("[],") for w in text.split() if w.startswith(("--", "[--"))}
    common = {"--help", "--json", "--out"}
    for flag in flags - common:
        name_ = flag.removeprefix("--").removeprefix("no-").replace("-", "_")
        assert name_ in own, f"{flag} is not an option of {name}"
    assert not any("--" + o.replace("_", "-") + " " in text for o in others - own)


def test_validate_lists_studies_with_papers(capsys):
    text = _help(capsys, ["validate"])
    for name in STUDIES:
        assert name in text
    assert "seed 0" not in text and "Hariri et al." in text and "Vossler et al." in text


def test_shared_options_have_one_spelling(capsys):
    for argv in (["rank"], ["plan"], ["pairs"], ["crosscheck"], ["priors"], ["compare"]):
        assert "--prior-file FILE" in _help(capsys, argv)
    for argv in (["crosscheck"], ["priors"], ["judges"]):
        text = _help(capsys, argv)
        assert all(f in text for f in ("--draws", "--chains", "--tune", "--seed", "--sampler"))
    assert "--confidence" in _help(capsys, ["plan"])
    assert "--z " not in _help(capsys, ["plan"])
    text = _help(capsys, ["adaptive", "simulate"])
    assert "--belief-mean" in text and "--belief-var" in text and "--seed" in text
    assert "--tau2" not in text  # roots only
    assert "--dataset" not in _help(capsys, ["adaptive", "roots"])
    from bayes_eval.logs import FORMATS

    assert all(f in _help(capsys, ["rank"]) for f in FORMATS)


def test_every_command_offers_json():
    p = parser()
    sub = next(a for a in p._actions if a.dest == "command")
    for name, command in sub.choices.items():
        nested = [a for a in command._actions if a.__class__.__name__ == "_SubParsersAction"]
        leaves = list(nested[0].choices.values()) if nested else [command]
        for leaf in leaves:
            assert any("--json" in a.option_strings for a in leaf._actions), (name, leaf.prog)


def test_no_json_module_and_no_statistics_in_the_cli():
    for path in CLI.glob("*.py"):
        text = path.read_text()
        assert "json.dump" not in text and "import json" not in text, path.name
        assert "scipy" not in text and "import numpy" not in text, path.name


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(4)
    rows = [
        {"model": m, "question": q, "trial": t, "score": int(rng.random() < p)}
        for m, p in (("a", 0.7), ("b", 0.4))
        for q in range(10)
        for t in range(4)
    ]
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    np.save(tmp_path / "m.npy", (rng.random((4, 40)) < 0.5).astype(float))
    return tmp_path


SMALL = ["--replicates", "1", "--budget", "0.05", "--out", "{d}/ad"]
FAST_JSON = [  # and ABOUT_MODELS below (rank, plan, pairs, adaptive simulate, validate ...)
    ["schemas"],
    ["datasets"],
    ["datasets", "phi4_aime25"],
    ["adaptive", "roots", "--examples", "8", "--batch", "2"],
]


#: commands that print numbers about models: their JSON names the prior and the estimand
ABOUT_MODELS = [
    ["rank", "{d}/runs.csv"],
    ["plan", "{d}/runs.csv", "a", "b", "--simulations", "200"],
    ["plan", "{d}/runs.csv", "a", "b", "--estimand", "new-questions", "--simulations", "200"],
    ["pairs", "{d}/runs.csv"],
    ["demo", "--n-questions", "6", "--trials", "4"],
    ["adaptive", "simulate", "--dataset", "matrix", "--matrix", "{d}/m.npy", *SMALL],
    ["validate", "elicit", "{d}/runs.csv", "--lo", "0.3", "--hi", "0.6", "--out", "{d}/v"],
    ["validate", "convergence", "{d}/runs.csv", "--replicates", "20", "--out", "{d}/c"],
]


@pytest.mark.parametrize("argv", FAST_JSON, ids=lambda a: " ".join(a[:2]))
def test_json_output_parses(runs, capsys, argv):
    assert main([a.format(d=runs) for a in argv] + ["--json"]) == 0
    json.loads(capsys.readouterr().out)  # strict JSON, one document


@pytest.mark.parametrize("argv", ABOUT_MODELS, ids=lambda a: " ".join(a[:2]))
def test_json_about_models_names_prior_and_estimand(runs, capsys, argv):
    assert main([a.format(d=runs) for a in argv] + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["prior"] and out["estimand"], sorted(out)


@pytest.mark.pymc
@pytest.mark.slow
def test_json_output_of_priors_parses(runs, capsys):
    assert main(["priors", str(runs / "runs.csv"), "--alpha0-grid", "0.5,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"prior", "estimand", "reference", "grids"}
    assert set(out["grids"]) == {"alpha0"} and out["estimand"] == "these questions"


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["validate", "nope"], "invalid choice: 'nope'"),
        (["validate", "elicit", "--out", "{d}/v"], "--lo/--hi"),
        (["validate", "elicit", "--prob", "2", "--lo", "0.1", "--hi", "0.2"], "prob is 2.0"),
        (["validate", "distinguishability", "--lo", "0.1"], "unrecognized arguments: --lo"),
        (["validate", "convergence"], "required: FILE"),
        (["adaptive", "simulate", "--prior", "0.5"], "--prior takes two numbers"),
        (["priors", "{d}/runs.csv", "--depth-grid", "1,x"], "'1,x' is not a list"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runs, capsys, argv, match):
    assert main([a.format(d=runs) for a in argv]) == 2
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if not x.startswith("bayes-eval: warning: ")]
    assert len(lines) == 1 and lines[0].startswith("bayes-eval: error: ")
    assert match in lines[0]


def test_deprecated_spellings_still_work(runs, capsys):
    path = str(runs / "runs.csv")
    assert main(["rank", path, "--prior", path, "--json"]) == 0
    cap = capsys.readouterr()
    assert "--prior is deprecated; use --prior-file" in cap.err
    new = ["rank", path, "--prior-file", path, "--json"]
    assert main(new) == 0
    assert json.loads(capsys.readouterr().out)["models"] == json.loads(cap.out)["models"]


def test_text_output_aligns_tables(runs, capsys):
    assert main(["rank", str(runs / "runs.csv")]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, x in enumerate(lines) if x.startswith("model"))
    rows = lines[header + 2 : header + 4]
    assert [r.split()[0] for r in rows] == ["a", "b"]
    cols = [lines[header].index("rank range") + len("rank range") for _ in rows]
    assert all(r[c - 1].isdigit() for r, c in zip(rows, cols, strict=True))  # right-aligned


def test_summary_renders_nested_results(capsys):
    summary(
        {
            "replicates": 10,
            "paper": "x",
            "p_correct": {"80": 0.81, "199": 0.9},
            "z_mean": {"80": 1.0, "199": 1.6},
            "methods": {"bayes": {"tau": 0.9, "n": 3}, "avg": {"tau": 0.8, "n": 3}},
            "empty": {},
            "bad": float("nan"),
        }
    )
    out = capsys.readouterr().out
    assert "replicates" in out and "p_correct" in out and "z_mean" in out
    row = next(x for x in out.splitlines() if x.startswith("199"))
    assert row.split() == ["199", "0.9", "1.6"]
    assert next(x for x in out.splitlines() if x.startswith("bayes")).split() == [
        "bayes",
        "0.9",
        "3",
    ]
    assert "bad" in out and "nan" not in out.lower().replace("bad", "")


def test_tables_print_brackets_as_text(capsys):
    from bayes_eval.cli._output import table

    table(["E[true score]", "x"], [["[bold]m[/bold]", "[1, 2]"]], title="t [dim]")
    out = capsys.readouterr().out
    assert "E[true score]" in out and "[bold]m[/bold]" in out and "t [dim]" in out
