"""``bayes-eval datasets NAME --export FILE`` and ``bayes-eval --version`` (issue 29).

The exported long table is checked against the dataset itself: reading the file gives the
same results and signals on the same (model, question, trial) grid (exact: labels are text,
categories integers, floats written at full precision), and ``rank`` on the file answers
what ``rank dataset:NAME`` answers.
"""

from __future__ import annotations

import json
from importlib.metadata import version

import pandas as pd
import pytest
import xarray as xr

from bayes_eval.cli import main
from bayes_eval.logs import read_eval_log
from bayes_eval.logs.long_table import write_long_table

TRIAL_DATASETS = [
    "matharena_aime25_i",
    "phi4_aime25",
    "taubench_airline_gpt4o",
    "gpt_oss_20b_aime25_q06",
    "inspect_mmlu_log",
]


#: every trial dataset as CSV; Parquet and gzipped TSV on one dataset with a signal and one without
EXPORTS = [(name, ".csv") for name in TRIAL_DATASETS]
EXPORTS += [("gpt_oss_20b_aime25_q06", ".parquet"), ("matharena_aime25_i", ".tsv.gz")]


@pytest.mark.parametrize("name, suffix", EXPORTS)
def test_an_exported_dataset_reads_back_as_the_dataset(name, suffix, tmp_path):
    log = read_eval_log(f"dataset:{name}")
    before = log.table.copy()
    path = write_long_table(log, tmp_path / f"x{suffix}")
    pd.testing.assert_frame_equal(log.table, before)  # the log is not modified
    back = read_eval_log(str(path))
    assert back.signals == log.signals
    xr.testing.assert_identical(back.to_dataset().drop_attrs(), log.to_dataset().drop_attrs())
    assert sorted(path.parent.iterdir()) == [path]  # nothing left beside it


def _rank_json(source: str, capsys) -> dict:
    assert main(["rank", source, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow  # two rankings of 16 models with the learned prior: ~1 s
def test_rank_on_the_exported_file_answers_as_rank_on_the_dataset(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", "matharena_aime25_i", "--export", "x.csv"]) == 0
    said = capsys.readouterr().out
    assert "wrote x.csv: 960 attempts" in said and "bayes-eval rank x.csv" in said
    ours = _rank_json("x.csv", capsys)
    shipped = _rank_json("dataset:matharena_aime25_i", capsys)
    assert len(ours["models"]) == 16
    for key in ("prior", "estimand", "models"):
        assert ours[key] == shipped[key], key


def test_export_json_names_the_file_and_the_command_that_reads_it(tmp_path, capsys):
    out = tmp_path / "g.parquet"
    assert main(["datasets", "gpt_oss_20b_aime25_q06", "--export", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["rows"] == 80 and info["models"] == 1 and info["max_trials"] == 80
    assert info["signals"] == ["verifier_prob"]
    assert info["read_with"] == f"bayes-eval rank {out}"
    assert out.is_file()


@pytest.mark.parametrize(
    "argv, phrase",
    [
        (["datasets", "--export", "x.csv"], "--export needs a dataset NAME"),
        (["datasets", "phi4_aime25", "--export", "x.txt"], "cannot tell the format"),
        (["datasets", "phi4_aime25", "--export", "missing/x.csv"], "does not exist"),
        (["datasets", "mtbench_judges", "--export", "x.csv"], "not trial results"),
        (["datasets", "no_such_dataset", "--export", "x.csv"], "no_such_dataset"),
    ],
)
def test_bad_exports_are_one_line_and_status_2(argv, phrase, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bayes-eval: error: ") and err.count("\n") == 1 and phrase in err
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_export_leaves_no_file(tmp_path, monkeypatch):
    log = read_eval_log("dataset:taubench_airline_gpt4o")

    def interrupted(self, path, *args, **kwargs):
        open(path, "w").write("model,ta")  # a partial write, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_long_table(log, tmp_path / "x.csv")
    assert list(tmp_path.iterdir()) == []


def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"bayes-eval {version('bayes_eval')}\n"
