"""Property tests of the log importers: any mutation of a valid file (bytes or structure) is
either read (and ``results()`` is sane) or refused with a one-line ``ValueError``; never
another exception type, a numpy repr in the message, or a RuntimeWarning."""

from __future__ import annotations

import csv
import io
import json
import re
import tempfile
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples, property_settings

from bayes_eval.logs import read_eval_log

SETTINGS = property_settings(80)
NUMPY_REPR = re.compile(r"np\.\w+\(|numpy\.")

# ----------------------------------------------------------------------------- the property


def _check(path: Path, fmt: str | None = None, **options):
    """Read ``path``; a result must be sane, a refusal a one-line ValueError."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)  # stripped labels are announced
        try:
            log = read_eval_log(path, format=fmt, **options)
            log.summary()
            R = log.results()
        except ValueError as exc:
            text = str(exc)
            assert text and "\n" not in text.strip(), text
            assert not NUMPY_REPR.search(text), text
            return None
    _check_sane(log, R)
    return R


def _check_sane(log, R):
    table = log.table
    multi = table["task"].nunique() > 1
    task, question = table["task"].astype(str), table["question"].astype(str)
    qkey = task + "/" + question if multi else question
    assert R.dims == ("model", "question", "trial")
    assert R.shape[0] == table["model"].nunique()
    assert R.shape[1] == qkey.nunique()
    assert R.shape[2] == table.groupby(["model", qkey.to_numpy()]).size().max()
    v = R.values[~np.isnan(R.values)]
    assert v.size > 0 and np.all(np.isfinite(v)) and np.all(v >= 0)
    if log.graded:  # graded scores lie in [0, 1]
        assert np.all(v <= 1) and np.any(v != np.round(v))
    else:  # integer categories
        np.testing.assert_array_equal(v, np.round(v))
    trials = table["trial"].to_numpy(dtype=float)
    assert np.all(np.isfinite(trials)) and np.all(trials >= 0)


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


# ----------------------------------------------------------------------------- mutations

CELLS = st.sampled_from(
    [
        "",
        " ",
        "NA",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "True",
        "false",
        "-1",
        "0",
        "1",
        "2",
        "1.5",
        "1e309",
        "1e-320",
        "9" * 40,
        "0x10",
        "é",
        "模型",
        "\x00",
        '"',
        "a,b",
        "line\nbreak",
        "null",
        "2.10",
    ]
) | st.text(max_size=6)

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([2**70, -(2**70), 1e308, float("inf"), float("nan"), 0.5, -0.0])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4)
    | st.sampled_from(["C", "I", "P", "N", "x", "1", "0", ""])
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
    max_leaves=6,
)


@st.composite
def byte_mutations(draw, data: bytes) -> bytes:
    """Delete, insert or replace random bytes, or truncate."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "truncate"]))
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        if op == "delete" and out:
            del out[at : at + draw(st.integers(1, 8))]
        elif op == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=6))
        elif op == "replace" and out:
            out[at] = draw(st.integers(0, 255))
        elif op == "truncate":
            del out[at:]
    return bytes(out)


@st.composite
def json_mutation(draw, value):
    """``value`` with one node replaced by other JSON, one key dropped or one list item
    duplicated, dropped or replaced, chosen at a random depth."""
    if isinstance(value, dict) and value and draw(st.integers(0, 3)):
        key = draw(st.sampled_from(sorted(value)))
        out = dict(value)
        op = draw(st.sampled_from(["descend", "descend", "drop", "replace"]))
        if op == "drop":
            del out[key]
        elif op == "replace":
            out[key] = draw(JSON)
        else:
            out[key] = draw(json_mutation(value[key]))
        return out
    if isinstance(value, list) and value and draw(st.integers(0, 3)):
        i = draw(st.integers(0, len(value) - 1))
        out = list(value)
        op = draw(st.sampled_from(["descend", "descend", "drop", "duplicate", "replace"]))
        if op == "drop":
            del out[i]
        elif op == "duplicate":
            out.insert(i, out[i])
        elif op == "replace":
            out[i] = draw(JSON)
        else:
            out[i] = draw(json_mutation(value[i]))
        return out
    return draw(JSON)


# ----------------------------------------------------------------------------- CSV

CSV_ROWS = [
    {"model": m, "task": "t", "question": f"q{q}", "trial": t, "score": (q + t) % 2}
    for m in ("a", "b")
    for q in range(2)
    for t in range(2)
]
CSV_TEXT = pd.DataFrame(CSV_ROWS).assign(is_correct=lambda d: d["score"]).to_csv(index=False)


@st.composite
def csv_tables(draw) -> str:
    header = list(pd.DataFrame(CSV_ROWS).assign(is_correct=0).columns)
    rows = [[str(r.get(c, r["score"])) for c in header] for r in CSV_ROWS]
    table = [header, *rows]
    for _ in range(draw(st.integers(1, 4))):
        op = draw(
            st.sampled_from(["cell", "cell", "cell", "drop_col", "dup_col", "shuffle", "row"])
        )
        width = len(table[0])
        if op == "cell" and width:
            i = draw(st.integers(0, len(table) - 1))
            j = draw(st.integers(0, width - 1))
            if j < len(table[i]):  # a row shortened earlier may lack the cell
                table[i][j] = draw(CELLS)
        elif op == "drop_col" and width:
            j = draw(st.integers(0, width - 1))
            table = [r[:j] + r[j + 1 :] for r in table]
        elif op == "dup_col" and width:
            j = draw(st.integers(0, width - 1))
            table = [[*r, r[j] if j < len(r) else ""] for r in table]
        elif op == "shuffle":
            order = draw(st.permutations(range(width)))
            table = [[r[k] for k in order if k < len(r)] for r in table]
        elif op == "row":
            i = draw(st.integers(1, len(table) - 1))
            kind = draw(st.sampled_from(["drop", "dup", "short", "long"]))
            if kind == "drop" and len(table) > 2:
                del table[i]
            elif kind == "dup":
                table.insert(i, list(table[i]))
            elif kind == "short":
                table[i] = table[i][:-1]
            else:
                table[i] = [*table[i], draw(CELLS)]
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(table)
    return buf.getvalue()


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


def test_the_valid_files_are_read(folder):
    assert _check(_write(folder, "ok.csv", CSV_TEXT.encode())).shape == (2, 2, 2)
    assert _check(_write(folder, "ok.eval", _eval_bytes(EVAL_HEADER, EVAL_SAMPLES))) is not None
    assert _check(_write(folder, "gpt-4o-airline.json", _json_bytes(TAU))).shape == (1, 2, 2)
    assert _check(_write(folder, "sample_scored_m_input.json", _json_bytes(CRUX))) is not None
    assert _check(_write(folder, LM_NAME, _jsonl(LM_LINES)), "lm-eval").shape == (1, 2, 2)
    assert _check(_write(folder, "per_instance_stats.json", _json_bytes(HELM)), "helm") is not None


@SETTINGS
@given(text=csv_tables())
def test_csv_structure_mutations(folder, text):
    _check(_write(folder, "s.csv", text.encode()))


@SETTINGS
@given(data=byte_mutations(CSV_TEXT.encode()))
def test_csv_byte_mutations(folder, data):
    _check(_write(folder, "b.csv", data))


@settings(SETTINGS, max_examples=examples(40))
@given(text=csv_tables())
def test_parquet_from_mutated_tables(folder, text):
    try:
        df = pd.read_csv(io.StringIO(text))
        df.to_parquet(folder / "p.parquet")
    except Exception:  # not a table pandas can write: nothing to read
        return
    _check(folder / "p.parquet")


# ----------------------------------------------------------------------------- JSON trials

TAU = [
    {"task_id": q, "trial": t, "reward": float((q + t) % 2), "traj": [{}, {}]}
    for q in range(2)
    for t in range(2)
]
CRUX = {"raw_scored_generations": {"0": [True, False], "1": [False, True]}}


def _json_bytes(value) -> bytes:
    return json.dumps(value).encode()


@SETTINGS
@given(value=json_mutation(TAU))
def test_taubench_structure_mutations(folder, value):
    _check(_write(folder, "m-airline.json", _json_bytes(value)), "taubench")


@SETTINGS
@given(value=json_mutation(CRUX))
def test_cruxeval_structure_mutations(folder, value):
    _check(_write(folder, "sample_scored_m_input.json", _json_bytes(value)), "cruxeval")


@SETTINGS
@given(data=byte_mutations(_json_bytes(TAU)))
def test_json_byte_mutations_detected_format(folder, data):
    _check(_write(folder, "m-retail.json", data))


# ----------------------------------------------------------------------------- lm-eval

LM_NAME = "samples_arc_2025-01-01T10-00-00.000001.jsonl"
LM_LINES = [
    {
        "doc_id": d,
        "filter": "none",
        "metrics": ["acc", "f1"],
        "acc": (d + r) % 2,
        "f1": 0.5,
        "resps": [["\\boxed{1}"]],
        "filtered_resps": ["\\boxed{1}"],
    }
    for r in range(2)
    for d in range(2)
]


def _jsonl(lines) -> bytes:
    return "".join(json.dumps(x) + "\n" for x in lines).encode()


@SETTINGS
@given(lines=json_mutation(LM_LINES))
def test_lm_eval_structure_mutations(folder, lines):
    data = _jsonl(lines) if isinstance(lines, list) else _json_bytes(lines)
    _check(_write(folder, LM_NAME, data), "lm-eval")


@SETTINGS
@given(data=byte_mutations(_jsonl(LM_LINES)))
def test_lm_eval_byte_mutations(folder, data):
    _check(_write(folder, LM_NAME, data), "lm-eval")


# ----------------------------------------------------------------------------- HELM

HELM = [
    {
        "instance_id": f"id{q}",
        "train_trial_index": t,
        "stats": [
            {"name": {"name": "exact_match", "split": "test"}, "count": 1, "mean": (q + t) % 2},
            {"name": {"name": "num_output_tokens", "split": "test"}, "count": 1, "mean": 9},
        ],
    }
    for q in range(2)
    for t in range(2)
]


@SETTINGS
@given(value=json_mutation(HELM))
def test_helm_structure_mutations(folder, value):
    _check(_write(folder, "per_instance_stats.json", _json_bytes(value)), "helm")


@settings(SETTINGS, max_examples=examples(40))
@given(spec=JSON, data=byte_mutations(_json_bytes(HELM)))
def test_helm_byte_mutations_and_run_spec(folder, spec, data):
    run = folder / "run_model=x"
    run.mkdir(exist_ok=True)
    (run / "run_spec.json").write_text(json.dumps(spec))
    _check(_write(run, "per_instance_stats.json", data), "helm")
    (run / "run_spec.json").unlink()


# ----------------------------------------------------------------------------- Inspect

EVAL_HEADER = {
    "version": 2,
    "eval": {"task": "demo", "model": "m", "scorers": [{"name": "choice"}, {"name": "judge"}]},
}
EVAL_SAMPLES = [
    {
        "id": q,
        "epoch": e,
        "scores": {"choice": {"value": "CI"[(q + e) % 2]}, "judge": {"value": 0.5}},
        "output": {"usage": {"output_tokens": 10}, "choices": [{"stop_reason": "stop"}]},
    }
    for q in range(1, 3)
    for e in range(1, 3)
]


def _eval_bytes(header, samples, names=None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("header.json", json.dumps(header))
        for i, s in enumerate(samples):
            name = names[i] if names else f"samples/{i}_epoch_1.json"
            zf.writestr(name, json.dumps(s))
    return buf.getvalue()


@SETTINGS
@given(header=json_mutation(EVAL_HEADER))
def test_inspect_header_mutations(folder, header):
    _check(_write(folder, "h.eval", _eval_bytes(header, EVAL_SAMPLES)))


@SETTINGS
@given(samples=json_mutation(EVAL_SAMPLES))
def test_inspect_sample_mutations(folder, samples):
    samples = samples if isinstance(samples, list) else [samples]
    _check(_write(folder, "s.eval", _eval_bytes(EVAL_HEADER, samples)))


@settings(SETTINGS, max_examples=examples(60))
@given(data=byte_mutations(_eval_bytes(EVAL_HEADER, EVAL_SAMPLES)))
def test_inspect_zip_byte_mutations(folder, data):
    _check(_write(folder, "z.eval", data))


@settings(SETTINGS, max_examples=examples(60))
@given(log=json_mutation({**EVAL_HEADER, "samples": EVAL_SAMPLES}), scorer=st.none() | CELLS)
def test_inspect_json_log_mutations(folder, log, scorer):
    _check(_write(folder, "log.json", _json_bytes(log)), "inspect", scorer=scorer)


@settings(SETTINGS, max_examples=examples(40))
@given(value_map=st.dictionaries(st.text(max_size=2), JSON_SCALARS, max_size=3))
def test_inspect_value_maps(folder, value_map):
    _check(_write(folder, "v.eval", _eval_bytes(EVAL_HEADER, EVAL_SAMPLES)), value_map=value_map)


# ----------------------------------------------------------------------------- line numbers


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "model,question,trial,score\na,q,0,1\n\na,q,1,1.5\n",
            r"t\.csv: line 4 \(a, q, trial 1\) has score 1\.5; expected an integer category 0\.\.C "
            r"or a graded score in \[0, 1\]",
        ),
        ('model,question,trial,score\n"a\nb",q,0,1\n"a\nb",q,0,1\n', r"t\.csv: line 4 repeats"),
        ("model,question,trial,score\na,q,,1\n", r"t\.csv: line 2 \(a, q\) has no trial"),
        ("model,question,trial,score\na,q,-1,1\n", r"line 2 \(a, q\) has trial -1; expected an"),
        ("model,question,trial,score\na,q,0,inf\n", r"line 2 \(a, q, trial 0\) has score inf"),
        ("model,question,trial,score,score\na,q,0,1,1\n", r"the column 'score' appears more"),
        ("model,question,trial,score\na,q,0,1\n\xff\n", r"not UTF-8 text \(byte 0xff"),
    ],
)
def test_csv_messages_name_the_file_line(tmp_path, text, message):
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode("latin-1") if "\xff" in text else text.encode())
    with pytest.raises(ValueError, match=message):
        read_eval_log(path).results()


def test_json_messages_name_the_record_from_one(tmp_path):
    tau = [dict(TAU[0]), {**TAU[1], "trial": "x"}]
    path = _write(tmp_path, "m-airline.json", _json_bytes(tau))
    with pytest.raises(ValueError, match=r"m-airline\.json: record 2: trial is 'x'; expected an"):
        read_eval_log(path)
    path.write_text(json.dumps([TAU[0], TAU[0]]))
    with pytest.raises(ValueError, match=r"m-airline\.json: record 2 repeats model='m'"):
        read_eval_log(path)
