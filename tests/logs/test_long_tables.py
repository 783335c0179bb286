"""Long tables as public leaderboards export them: graded scores, no trial column, pairs listed
twice; and the fast CSV reader (pyarrow, integer codes) against the row-by-row one."""

from __future__ import annotations

import csv
import gzip
import io
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from bayes_eval.logs import long_table, make_log, read_eval_log
from bayes_eval.logs.codes import cumcount, group_codes, positions

CSV_TEXT = "".join(
    f"{m},t,q{q},{t},{(q + t) % 2}\n" for m in "ab" for q in range(2) for t in range(2)
)
CSV_TEXT = "model,task,question,trial,score\n" + CSV_TEXT
LEADERBOARD = (
    "model,question,score\n"
    "m1,q2,0.5\n"
    "m1,q10,1\n"
    "m2,q2,0.25\n"
    "m2,q10,0\n"
    "m2,q2,0.75\n"  # the pair (m2, q2) a second time: its trial 1
    "m1,q2,0.125\n"
)


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture
def fast_calls(monkeypatch):
    """How many CSV files the fast reader read (not handed to the row-by-row one)."""
    calls = []
    fast = long_table._read_csv_fast

    def spy(p):
        out = fast(p)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(long_table, "_read_csv_fast", spy)
    return calls


# ----------------------------------------------------------------------------- graded scores


def test_graded_scores_are_read_and_flagged(tmp_path, fast_calls):
    log = read_eval_log(_csv(tmp_path, LEADERBOARD))
    assert fast_calls == [True]
    assert log.graded
    R = log.results(require_all_questions=False)
    assert R["model"].values.tolist() == ["m1", "m2"]
    assert R["question"].values.tolist() == ["q2", "q10"]  # natural order
    np.testing.assert_array_equal(R.sel(model="m1").values, [[0.5, 0.125], [1, np.nan]])
    np.testing.assert_array_equal(R.sel(model="m2").values, [[0.25, 0.75], [0, np.nan]])
    summary = log.summary()
    assert summary["graded"] is True and summary["distinct_scores"] == 6
    assert summary["missing"] == 2 and summary["max_trials"] == 2


def test_integer_categories_are_not_graded(tmp_path):
    log = read_eval_log(_csv(tmp_path, "model,question,trial,score\na,q,0,0\na,q,1,3\n"))
    assert not log.graded
    assert log.summary()["graded"] is False and "distinct_scores" not in log.summary()


@pytest.mark.parametrize(("value", "shown"), [("1.5", "1.5"), ("-0.5", "-0.5"), ("-1", "-1.0")])
def test_a_graded_score_out_of_range_is_refused_with_its_line(tmp_path, value, shown):
    path = _csv(tmp_path, f"model,question,score\na,q1,0.5\na,q2,{value}\n")
    expected = (
        rf"t\.csv: line 3 \(a, q2, trial 0\) has score {shown}; expected an integer category "
        r"0\.\.C or a graded score in \[0, 1\]\."
    )
    with pytest.raises(ValueError, match=expected):
        read_eval_log(path)


def test_integer_categories_above_1_beside_graded_scores_are_refused(tmp_path):
    path = _csv(tmp_path, "model,question,score\na,q1,0.5\na,q2,1\na,q3,2\n")
    with pytest.raises(
        ValueError,
        match=r"line 4 \(a, q3, trial 0\) has score 2\.0, an integer category, but \S*t\.csv: line 2 "
        r"\(a, q1, trial 0\) has the graded score 0\.5; expected integer categories 0\.\.C or "
        r"graded scores in \[0, 1\], not both\.",
    ):
        read_eval_log(path)


def test_make_log_takes_graded_scores_from_any_importer():
    rows = pd.DataFrame({"model": ["a", "a"], "question": ["q", "q"], "score": [0.3, 1.0]})
    log = make_log(rows, fmt="test", sources=["mem"])
    assert log.graded and log.table["trial"].tolist() == [0, 1]
    with pytest.raises(ValueError, match=r"mem: record 2 \(a, q, trial 1\) has score inf"):
        make_log(rows.assign(score=[0.3, np.inf]), fmt="test", sources=["mem"])
    with pytest.raises(ValueError, match=r"missing column\(s\) \['question'\]; expected model, "):
        make_log(rows.drop(columns="question"), fmt="test", sources=["mem"])


# ----------------------------------------------------------------------------- no trial column


def test_without_a_trial_column_repeats_are_trials_in_row_order(tmp_path):
    log = read_eval_log(_csv(tmp_path, LEADERBOARD))
    t = log.table
    assert t["trial"].tolist() == [0, 0, 0, 0, 1, 1]
    assert t["score"].tolist() == [0.5, 1, 0.25, 0, 0.75, 0.125]  # rows kept in file order
    assert t["trial"].dtype == np.int64
    grouped = read_eval_log(_csv(tmp_path, "model,question,score\na,q,1\na,q,0\nb,q,1\n"))
    assert grouped.table["trial"].tolist() == [0, 1, 0]  # rows of a pair together
    assert grouped.table["trial"].dtype == np.int64


def test_with_a_trial_column_a_repeated_attempt_is_still_refused(tmp_path):
    path = _csv(tmp_path, "model,question,trial,score\na,q,0,1\nb,q,0,1\na,q,0,0\n")
    with pytest.raises(ValueError, match=r"line 4 repeats model='a', task='', question='q', trial"):
        read_eval_log(path)


def test_parquet_without_a_trial_column(tmp_path):
    df = pd.read_csv(io.StringIO(LEADERBOARD))
    df.to_parquet(tmp_path / "lb.parquet")
    log = read_eval_log(tmp_path / "lb.parquet")
    assert log.table.equals(read_eval_log(_csv(tmp_path, LEADERBOARD)).table)
    assert log.graded and log.table["trial"].tolist() == [0, 0, 0, 0, 1, 1]
    df.assign(score=df["score"].astype(str).where(df.index != 3, "x")).to_parquet(
        tmp_path / "bad.parquet"
    )
    with pytest.raises(ValueError, match=r"bad\.parquet: row 4 \(m2, q10, trial 0\) has score"):
        read_eval_log(tmp_path / "bad.parquet")


def test_a_table_needs_model_question_and_a_score_or_signal(tmp_path):
    with pytest.raises(
        ValueError,
        match=r"missing column\(s\) \['score'\]; expected model, question and either score or "
        r"signal columns \(found \['model', 'question', 'trial'\]\)",
    ):
        read_eval_log(_csv(tmp_path, "model,question,trial\na,q,0\n"))
    with pytest.raises(ValueError, match=r"missing column\(s\) \['model'\]"):
        read_eval_log(_csv(tmp_path, "name,question,score\na,q,1\n"))


# ----------------------------------------------------------------------------- the fast reader


def test_labels_stay_text_on_the_fast_path(tmp_path, fast_calls):
    text = "model,question,score\nNA,2.1,1\nNA,2.10,0\nnull,2.1,1\nnull,2.10,1\n"
    R = read_eval_log(_csv(tmp_path, text)).results()
    assert fast_calls == [True]
    assert sorted(R["model"].values.tolist()) == ["NA", "null"]
    assert R["question"].values.tolist() == ["2.1", "2.10"]
    with pytest.warns(UserWarning, match=r"1 model label\(s\).*'NA '.*stripped"):
        R = read_eval_log(_csv(tmp_path, text.replace("NA,2.10", "NA ,2.10"))).results()
    assert sorted(R["model"].values.tolist()) == ["NA", "null"] and fast_calls[-1]


def test_gzip_and_tsv_take_the_fast_path(tmp_path, fast_calls):
    plain = read_eval_log(_csv(tmp_path, CSV_TEXT)).table
    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(CSV_TEXT.encode()))
    tsv = _csv(tmp_path, CSV_TEXT.replace(",", "\t"), "t.tsv")
    assert read_eval_log(gz).table.equals(plain)
    assert read_eval_log(tsv).table.equals(plain)
    assert fast_calls == [True, True, True]


def test_malformed_files_fall_back_to_the_line_numbered_messages(tmp_path, fast_calls):
    cases = [
        ("model,question,trial,score\na,q,0,1\n,q,1,0\n", "line 3: the model cell is empty"),
        ("model,question,trial,score\na,q,0,1\na,q,x,1\n", "line 3: column 'trial'.*'x'"),
        ("model,question,trial,score\na,q,0,1,9\na,q,1,1\n", "line 2 has 5 fields"),
        ("model,question,trial,score\na,q,0,1\na,q,-1,1\n", r"line 3 \(a, q\) has trial -1;"),
        ("model,question,trial,score\na,q,0,nan\n", r"line 2: column 'score'.*'nan'"),
    ]
    for text, message in cases:
        with pytest.raises(ValueError, match=message):
            read_eval_log(_csv(tmp_path, text))


def _outcome(path, monkeypatch, fast: bool):
    """What reading ``path`` gives: the table, summary, R and warnings, or the message."""
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(long_table, "_read_csv_fast", lambda p: None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                log = read_eval_log(path)
            except ValueError as exc:
                return str(exc)
            try:
                R = log.results()
            except ValueError as exc:
                R = str(exc)
    return log.table, log.summary(), R, [str(w.message) for w in caught]


def _same(path, monkeypatch):
    fast, slow = _outcome(path, monkeypatch, True), _outcome(path, monkeypatch, False)
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
        return
    assert fast[0].equals(slow[0])
    assert fast[1] == slow[1] and fast[3] == slow[3]
    assert fast[2] == slow[2] if isinstance(slow[2], str) else fast[2].identical(slow[2])


SAME = settings(
    max_examples=examples(60),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


CELLS = st.sampled_from(
    "|| |NA|null|nan|inf|True|-1|0|1|2|0.5|1.5|2.10|0x10|1_0|+1| 1|1.|.5|-0|1e0|1e-320|a b| a"
    '|"|a,b|line\nbreak|é|\x00'.split("|")
) | st.text(max_size=4)


@st.composite
def mutated_tables(draw) -> bytes:
    """The leaderboard or the trials table (CSV or TSV) with cells, rows or columns changed."""
    base = draw(st.sampled_from([LEADERBOARD, CSV_TEXT]))
    table = [line.split(",") for line in base.splitlines()]
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["cell", "cell", "cell", "drop_col", "dup_row", "swap"]))
        i = draw(st.integers(0, len(table) - 1))
        j = draw(st.integers(0, len(table[0]) - 1))
        if op == "cell":
            table[i][j] = draw(CELLS)
        elif op == "drop_col" and len(table[0]) > 1:
            table = [r[:j] + r[j + 1 :] for r in table]
        elif op == "dup_row" and i:
            table.insert(i, list(table[i]))
        elif op == "swap" and i > 1:
            table[i], table[i - 1] = table[i - 1], table[i]
    buf = io.StringIO()
    sep = draw(st.sampled_from([",", "\t"]))
    csv.writer(buf, delimiter=sep, lineterminator=draw(st.sampled_from(["\n", "\r\n"]))).writerows(
        table
    )
    return buf.getvalue().encode()


@st.composite
def byte_mutations(draw) -> bytes:
    """The leaderboard with bytes deleted, inserted or replaced."""
    out = bytearray(LEADERBOARD.encode())
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(out) - 1))
        op = draw(st.sampled_from(["delete", "insert", "replace"]))
        if op == "delete":
            del out[at : at + draw(st.integers(1, 4))]
        elif op == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=4))
        else:
            out[at] = draw(st.integers(0, 255))
    return bytes(out)


@SAME
@given(data=mutated_tables())
def test_fast_and_row_by_row_readers_agree_on_mutated_tables(tmp_path, monkeypatch, data):
    path = tmp_path / ("s.tsv" if b"\t" in data.split(b"\n")[0] else "s.csv")
    path.write_bytes(data)
    _same(path, monkeypatch)


@SAME
@given(data=byte_mutations())
def test_fast_and_row_by_row_readers_agree_on_mutated_bytes(tmp_path, monkeypatch, data):
    path = tmp_path / "b.csv"
    path.write_bytes(data)
    _same(path, monkeypatch)


def test_fast_and_row_by_row_readers_agree_on_a_larger_log(tmp_path, monkeypatch, rng):
    models = [f"org/m-{i}" for i in range(7)]
    rows = [
        (m, f"t{q % 3}", f"q{q}", t, int(rng.random() < 0.6))
        for m in models
        for q in range(40)
        for t in range(5)
        if rng.random() > 0.1
    ]
    order = rng.permutation(len(rows))
    df = pd.DataFrame([rows[i] for i in order], columns=["model", "task", "question", "trial", "x"])
    df["score"] = df.pop("x")
    df.loc[df.index % 17 == 0, "status"] = "error"
    df.loc[df["status"] == "error", "score"] = np.nan
    path = tmp_path / "big.csv"
    df.to_csv(path, index=False)
    _same(path, monkeypatch)
    _same(_csv(tmp_path, df.drop(columns="trial").to_csv(index=False), "nt.csv"), monkeypatch)


# ----------------------------------------------------------------------------- integer codes


@given(
    g=st.lists(st.integers(0, 5), min_size=1, max_size=40),
    t=st.lists(st.integers(0, 6), min_size=40, max_size=40),
)
@settings(max_examples=examples(200), deadline=None, database=None)
def test_codes_number_trials_as_pandas_does(g, t):
    g = np.asarray(g, dtype=np.int32)
    trial = np.asarray(t[: g.size], dtype=np.int64)
    frame = pd.DataFrame({"g": g, "t": trial})
    assert cumcount(g, 6).dtype == np.int64
    np.testing.assert_array_equal(cumcount(g, 6), frame.groupby("g").cumcount())
    pos, dup = positions(g, 6, trial)
    repeated = frame.duplicated().to_numpy()
    assert dup == (int(np.argmax(repeated)) if repeated.any() else -1)
    ranked = frame.assign(i=np.arange(g.size)).sort_values(["g", "t", "i"])
    np.testing.assert_array_equal(pos[ranked["i"]], ranked.groupby("g").cumcount())


def test_group_codes_are_one_per_combination():
    a, b = np.array([0, 1, 0, 1, 0]), np.array([2, 2, 2, 0, 1])
    g, n = group_codes((a, 2), (b, 3))
    assert n >= len(set(g.tolist())) == 4
    assert g[0] == g[2] and len({g[0], g[1], g[3], g[4]}) == 4
    huge = (np.array([0, 9999, 0]), 10**4), (np.array([5, 5, 5]), 10**6), (np.zeros(3, int), 1)
    g, n = group_codes(*huge)  # 10^10 combinations: numbered densely, not one per combination
    assert n == 2 and g.tolist() == [g[0], g[1], g[0]] and g[0] != g[1]
