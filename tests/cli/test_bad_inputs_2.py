"""Hardening II (issue 27), bad inputs: memory bombs refused before allocating, non-scalar
labels, graded scores without a treatment, seeds, look-alike names, duplicated rows, and
messages in our words (no internal names). Each case is reproduced on a small file made in
the test's folder; the command line answers with one line and exit 2 (or exit 0 with one
warning line where the input is read as meant)."""

from __future__ import annotations

import argparse
import unicodedata
import warnings

import numpy as np
import pandas as pd
import pytest
from one_line import one_line_error

from bayes_eval.cli import main, parser
from bayes_eval.logs import read_eval_log

NFC = unicodedata.normalize("NFC", "mod\u00e8le")
NFD = unicodedata.normalize("NFD", "mod\u00e8le")


_one_line_error = one_line_error


def _board(models=("a", "b"), questions=12, trials=1, graded=False, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        (m, f"q{q}", t, round(float(rng.uniform()), 2) if graded else int(rng.uniform() < 0.5))
        for m in models
        for q in range(questions)
        for t in range(trials)
    ]
    return pd.DataFrame(rows, columns=["model", "question", "trial", "score"])


@pytest.fixture
def graded(tmp_path):
    path = tmp_path / "graded.csv"
    _board(graded=True, trials=2).to_csv(path, index=False)
    return str(path)


# 1. memory bombs: refused before allocating, naming the option


def test_score_levels_memory_bomb_names_the_option(graded, capsys):
    argv = ["rank", graded, "--score-levels", "1000000", "--questions", "common"]
    assert main(argv) == 2
    line = _one_line_error(capsys)
    assert "--score-levels 1000000 on 2 models x 12 questions needs about" in line
    assert "TiB of memory, above the limit of 4 GiB; expected fewer levels" in line


def test_sbc_memory_bomb_names_the_option(tmp_path, capsys):
    argv = ["validate", "sbc", "--simulations", "100", "--n-questions", "1000000000"]
    assert main([*argv, "--out", str(tmp_path / "sbc")]) == 2
    line = _one_line_error(capsys)
    assert "--n-questions 1000000000 with --n-models 2" in line
    assert "above the limit of 4 GiB" in line
    assert not (tmp_path / "sbc").exists() or not any((tmp_path / "sbc").iterdir())


def test_coverage_toml_memory_bomb_names_the_key(tmp_path, capsys):
    config = tmp_path / "big.toml"
    config.write_text("M = [1000000000]\nN = [4]\n")
    argv = ["validate", "coverage", "--config", str(config), "--out", str(tmp_path / "o")]
    assert main([*argv, "--workers", "0"]) == 2
    line = _one_line_error(capsys)
    assert f"{config}: M = 1000000000 (with C = 4, 2000 replicates" in line
    assert "above the limit of 4 GiB" in line


def test_memory_estimates_are_the_stated_formulas():
    from bayes_eval.inputs import MEMORY_LIMIT, check_memory, levels_bytes
    from bayes_eval.validation import config_checks as check

    # 32 (L M N + L M K + L K^2), by hand for L = 2, M = 6, N = 1, K = 10^6
    assert levels_bytes((2, 6, 1), 1_000_000) == 32.0 * (12 + 12e6 + 2e12)
    assert levels_bytes((2, 6, 1), 5) < 1e4  # a 5-point rubric costs nothing
    check_memory(MEMORY_LIMIT, "exactly the limit", "less")  # at the limit: allowed
    with pytest.raises(ValueError, match=r"^x needs about 4 GiB of memory, above the limit"):
        check_memory(MEMORY_LIMIT + 1, "x", "less")
    # the shipped coverage configurations and the default SBC study stay far below it
    from bayes_eval.validation.coverage import load_config
    from bayes_eval.validation.study_configs import SbcConfig

    for name in ("coverage_example", "coverage_headline", "coverage_report", "coverage_rubrics"):
        load_config(f"validation/configs/{name}.toml")
    SbcConfig()
    SbcConfig(estimator="crossed", n_questions=500, n_models=20)
    with pytest.raises(ValueError, match=r"M = 100000000 .* above the limit"):
        check.coverage_memory([100_000_000], [4], [1], 500, 0)


# 2. a list-valued label column


@pytest.mark.parametrize(
    ("value", "kind"), [(["a"], "a list"), ({"a": 1}, "a mapping")], ids=["list", "struct"]
)
def test_a_list_valued_model_column_is_refused(value, kind, tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = _board()
    path = tmp_path / "list_model.parquet"
    model = pa.array([value] * len(df))
    pq.write_table(pa.table({"model": model, "question": df.question, "score": df.score}), path)
    assert main(["rank", str(path)]) == 2
    line = _one_line_error(capsys)
    assert f"{path}: row 1 has {kind} as its model" in line
    assert "expected one label (text or a number) per row" in line


# 3. graded scores read by commands that count categories


def test_graded_scores_are_refused_by_elicit_naming_its_own_option(graded, capsys):
    assert main(["validate", "elicit", graded, "--lo", "0.3", "--hi", "0.6"]) == 2
    line = _one_line_error(capsys)
    assert "the scores are graded" in line and "--score-levels K" in line
    assert "--fractional" not in line  # elicit has no --fractional


def test_graded_scores_are_refused_by_plan(graded, capsys):
    assert main(["plan", graded, "a", "b"]) == 2
    line = _one_line_error(capsys)
    assert "the scores are graded" in line
    assert "--score-levels K" in line and "--fractional" not in line  # plan cannot use it


def test_score_levels_below_two_names_the_option(graded, capsys):
    assert main(["rank", graded, "--score-levels", "1"]) == 2
    assert "--score-levels is 1; expected an integer K >= 2" in _one_line_error(capsys)


# 4. seeds


def _seed_actions(p: argparse.ArgumentParser, path=()):
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _seed_actions(sub, (*path, name))
        elif "--seed" in action.option_strings:
            yield " ".join(path), action


def test_every_seed_option_refuses_a_negative_seed_in_our_words():
    found = list(_seed_actions(parser()))
    assert len(found) >= 15  # rank, plan, crosscheck, judges, adaptive, every study, ...
    for command, action in found:
        assert action.type("0") == 0 and action.type("7") == 7, command
        with pytest.raises(argparse.ArgumentTypeError, match="'-1' is not a non-negative"):
            action.type("-1")


def test_crossed_rank_with_a_negative_seed_fails_before_pymc(tmp_path, capsys):
    path = tmp_path / "bin.csv"
    _board().to_csv(path, index=False)
    assert main(["rank", str(path), "--estimator", "crossed", "--seed", "-1"]) == 2
    line = _one_line_error(capsys)
    assert "argument --seed: '-1' is not a non-negative integer" in line
    assert "random_seed" not in line


# 5. names equal after Unicode normalisation or without invisible characters


@pytest.mark.parametrize(
    ("first", "second"),
    [(NFC, NFD), ("gpt-4o", "gpt\u200b-4o"), ("gpt-4o", "\ufeffgpt-4o\u2060")],
    ids=["nfc-nfd", "zero-width-space", "bom-word-joiner"],
)
def test_look_alike_model_names_are_merged_with_one_warning(first, second, tmp_path):
    df = _board(models=(first, "b"))
    df.loc[(df.model == first) & (df.question.isin(["q1", "q5", "q7"])), "model"] = second
    path = tmp_path / "names.csv"
    df.to_csv(path, index=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        R = read_eval_log(path).results()
    assert R.sizes == {"model": 2, "question": 12, "trial": 1}
    assert unicodedata.normalize("NFC", first).strip("\ufeff\u2060") in R["model"].values
    texts = [str(w.message) for w in caught]
    assert len(texts) == 1, texts
    assert ascii(first) in texts[0] and ascii(second) in texts[0]
    assert "differ only by Unicode normalisation or invisible characters" in texts[0]


def test_look_alike_names_warn_once_on_the_command_line(tmp_path, capsys, monkeypatch):
    from bayes_eval.cli import run

    df = _board(models=(NFC, "b"))
    df.loc[df.question == "q3", "model"] = df.loc[df.question == "q3", "model"].replace(NFC, NFD)
    path = tmp_path / "names.csv"
    df.to_csv(path, index=False)
    monkeypatch.setattr("sys.argv", ["bayes-eval", "rank", str(path), "--prior-kind", "uniform"])
    assert run() == 0
    out, err = capsys.readouterr()
    assert NFC in out and NFD not in out  # one model, spelt in NFC
    err = err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bayes-eval: warning: "), err
    assert "'mod\\xe8le' and 'mode\\u0300le'" in err[0]


def test_distinct_non_ascii_names_are_kept_apart_silently(tmp_path):
    df = _board(models=("mod\u00e8le", "mod\u00e9le"))
    path = tmp_path / "names.csv"
    df.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        R = read_eval_log(path).results()
    assert list(R["model"].values) == ["mod\u00e8le", "mod\u00e9le"]


# 6. duplicated rows


def test_one_duplicated_row_of_a_leaderboard_export_is_dropped_with_a_warning(tmp_path):
    df = _board().drop(columns="trial")
    path = tmp_path / "dup.csv"
    pd.concat([df, df.iloc[[3]]]).to_csv(path, index=False)
    with pytest.warns(UserWarning) as caught:
        log = read_eval_log(path)
    assert len(caught) == 1
    assert str(caught[0].message) == (
        f"{path}: line 26 repeats an earlier row exactly (a, q3, score {df.score[3]}); 1 such "
        "row was dropped as a duplicate (separate attempts need a trial column)."
    )
    summary = log.summary()
    assert (summary["max_trials"], summary["attempts"], summary["missing"]) == (1, 24, 0)
    assert np.array_equal(log.results().values[..., 0], read_eval_log_of(df, tmp_path))


def read_eval_log_of(df: pd.DataFrame, tmp_path) -> np.ndarray:
    path = tmp_path / "clean.csv"
    df.to_csv(path, index=False)
    return read_eval_log(path).results().values[..., 0]


@pytest.mark.parametrize("copies", [0, 1], ids=["one-repeat", "and-an-exact-copy"])
def test_pairs_listed_twice_with_two_scores_stay_attempts(copies, tmp_path):
    """Repeats that are not all copies are attempts (a copy among them is a coincidence)."""
    df = _board().drop(columns="trial")
    extra = pd.concat([df.iloc[[3]].assign(score=1 - df.score[3]), df.iloc[[5]][:copies]])
    path = tmp_path / "two.csv"
    pd.concat([df, extra]).to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log = read_eval_log(path)
    summary = log.summary()
    assert (summary["max_trials"], summary["attempts"]) == (2, 25 + copies)


@pytest.mark.parametrize(
    ("extra", "phrase"),
    [("a,q,0,1\n", "(an exact duplicate of an earlier row)"), ("a,q,0,0\n", "another score")],
)
def test_a_repeated_trial_number_is_refused_saying_which_kind(extra, phrase, tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("model,question,trial,score\na,q,0,1\nb,q,0,1\n" + extra)
    assert main(["rank", str(path)]) == 2
    line = _one_line_error(capsys)
    assert f"{path}: line 4 repeats model='a'" in line and phrase in line


# 7. messages that named internals


def test_byte_order_mark_in_toml_files_is_skipped(tmp_path):
    from bayes_eval.rubrics.spec import load_schema
    from bayes_eval.validation.coverage import load_config

    config = tmp_path / "bom.toml"
    config.write_bytes(b"\xef\xbb\xbfM = [15]\nN = [4]\nreplicates = 20\n")
    assert (load_config(config).M, load_config(config).replicates) == ([15], 20)
    schema = tmp_path / "schema.toml"
    schema.write_bytes(
        b'\xef\xbb\xbfname = "bom"\nweights = [0, 0, 1]\n[[categories]]\nlabel = "wrong"\n'
        b'when = "wrong"\n[[categories]]\nlabel = "right"\nwhen = "correct"\n'
    )
    assert load_schema(schema).labels == ("invalid", "wrong", "right")


def test_a_parquet_column_named_like_arrow_internals_is_read(tmp_path):
    df = _board().drop(columns="trial").assign(__fragment_index=1.0)
    path = tmp_path / "frag.parquet"
    df.to_parquet(path)
    log = read_eval_log(path)
    assert log.signals == ("__fragment_index",)
    assert log.results().sizes == {"model": 2, "question": 12, "trial": 1}


@pytest.mark.parametrize(
    ("argv", "phrase"),
    [
        (["judges", "dataset:bandit_gsm8k_arms"], "expected one of ['mtbench_judges', 'summ"),
        (["judges", "dataset:phi4_aime25"], "expected one of ['mtbench_judges', 'summeval_"),
        (["priors", "dataset:phi4_aime25", "--alpha0-grid", "0,1"], "--alpha0-grid has 0;"),
        (["priors", "dataset:phi4_aime25", "--kappa-grid", "0"], "--kappa-grid has 0;"),
    ],
    ids=["judges-bandit", "judges-log", "alpha0-grid", "kappa-grid"],
)
def test_messages_name_options_and_the_right_datasets(argv, phrase, capsys):
    assert main(argv) == 2
    line = _one_line_error(capsys)
    assert phrase in line
    assert "bandit" not in line.split("expected")[-1] or argv[0] != "judges"
    assert "alpha0_grid" not in line and "kappa_prior" not in line


def test_pairs_with_one_model_says_so(tmp_path, capsys):
    path = tmp_path / "one.csv"
    _board(models=("a",), trials=3).to_csv(path, index=False)
    assert main(["pairs", str(path)]) == 2
    line = _one_line_error(capsys)
    assert "1 model; pairs compares two or more models" in line
    assert "shape" not in line
