"""Property tests of the long-table readers on *valid* tables of the kinds real leaderboards
have (issue 27): incomplete designs (pairs no model ran), graded scores in [0, 1], repeated
attempts with trial numbers, and a cluster column. Whatever the table, CSV and Parquet read
the same results, every score lands in its cell, an absent pair is NaN, and the clusters map
each question to its group; the ``rank`` command then ends in 0 or one line with exit 2."""

from __future__ import annotations

import tempfile
import unicodedata
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples, property_settings

from bayes_eval.logs import read_eval_log

SETTINGS = property_settings(24, suppress=[HealthCheck.function_scoped_fixture])


@st.composite
def leaderboards(draw):
    """A long table ``model, question, trial, score, subject`` with at least one row."""
    n_models = draw(st.integers(1, 3))
    n_questions = draw(st.integers(1, 5))
    trials = draw(st.integers(1, 3))
    graded = draw(st.booleans())
    models = draw(
        st.lists(
            st.text(
                st.characters(codec="utf-8", exclude_categories=("C", "Z")), min_size=1, max_size=6
            ),
            min_size=n_models,
            max_size=n_models,
            unique_by=lambda s: s.strip().casefold(),
        ),
    )
    questions = [f"q{i}" for i in range(n_questions)]
    subjects = draw(
        st.lists(st.sampled_from(["alg", "geo", "num"]), min_size=n_questions, max_size=n_questions)
    )
    keep = draw(
        st.lists(st.booleans(), min_size=n_models * n_questions, max_size=n_models * n_questions)
    )
    if not any(keep):
        keep[0] = True
    score = st.floats(0, 1, allow_nan=False) if graded else st.sampled_from([0.0, 1.0])
    rows = []
    for i, m in enumerate(models):
        for j, q in enumerate(questions):
            if keep[i * n_questions + j]:
                for t in range(trials):
                    rows.append((m, q, t, draw(score), subjects[j]))
    return pd.DataFrame(rows, columns=["model", "question", "trial", "score", "subject"])


def _read(path: Path, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # stripped labels, incomplete designs
        return read_eval_log(path, **options)


@SETTINGS
@given(table=leaderboards())
def test_csv_and_parquet_read_every_score_into_its_cell(table):
    with tempfile.TemporaryDirectory() as folder:
        csv_path, pq_path = Path(folder) / "t.csv", Path(folder) / "t.parquet"
        table.to_csv(csv_path, index=False)
        table.to_parquet(pq_path)
        R_csv = _read(csv_path, cluster="subject").results(require_all_questions=False)
        R_pq = _read(pq_path, cluster="subject").results(require_all_questions=False)
        log = _read(pq_path, cluster="subject")
    np.testing.assert_array_equal(np.isnan(R_csv.values), np.isnan(R_pq.values))
    np.testing.assert_allclose(R_csv.values, R_pq.values, rtol=1e-12, equal_nan=True)
    models = [str(m) for m in R_pq["model"].values]
    questions = [str(q) for q in R_pq["question"].values]

    def label(m: str) -> str:  # labels are compared in Unicode NFC, spaces stripped
        return unicodedata.normalize("NFC", m).strip()

    for m, q, t, s, _ in table.itertuples(index=False):
        cell = R_pq.values[models.index(label(m)), questions.index(q), t]
        assert cell == pytest.approx(s, abs=1e-12)
    ran = {(label(m), q) for m, q in zip(table["model"], table["question"], strict=True)}
    for i, m in enumerate(models):
        for j, q in enumerate(questions):
            if (m, q) not in ran:
                assert np.isnan(R_pq.values[i, j]).all()
    clusters = log.meta["clusters"]
    expected = dict(zip(table["question"], table["subject"], strict=False))
    assert {str(k): str(v) for k, v in dict(clusters).items()} == expected


@settings(SETTINGS, max_examples=examples(12))
@given(table=leaderboards(), mode=st.sampled_from(["common", "all", "error"]))
def test_rank_ends_in_zero_or_one_line(table, mode, capsys):
    from bayes_eval.cli import main

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.parquet"
        table.to_parquet(path)
        graded = not set(table["score"].unique()) <= {0.0, 1.0}
        argv = ["rank", str(path), "--questions", mode, "--cluster", "subject", "--json"]
        status = main([*argv, *(["--fractional"] if graded else [])])
    out, err = capsys.readouterr()
    assert status in (0, 2), (status, err)
    if status == 2:
        lines = [line for line in err.splitlines() if line.startswith("bayes-eval: error:")]
        assert len(lines) == 1 and "Traceback" not in err, err
    else:
        assert out.strip().startswith("{")
