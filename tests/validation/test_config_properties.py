"""Property tests of the study configs: a TOML grid or options with any key set to any type or
value (or unknown keys, malformed TOML, non-UTF-8 bytes) either build a config or raise a
one-line ``ValueError`` that names the key; never another exception type."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from bayes_eval.validation import coverage, registry
from bayes_eval.validation.coverage import CoverageConfig, load_config

SETTINGS = settings(
    max_examples=examples(100),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
NUMPY_REPR = re.compile(r"np\.\w+\(|numpy\.")
VALID = {
    "M": [15, 30],
    "N": [4],
    "C": [1],
    "scenarios": ["anchored", "beta_mixture"],
    "replicates": 500,
    "exact_replicates": 100,
    "bootstrap_resamples": 100,
    "confidence": 0.95,
    "seed": 0,
    "nuts_cells": [["anchored", 1, 15, 4]],
}
KEYS = [*CoverageConfig.__dataclass_fields__, "repz", "m", "nuts cells"]

TOML_SCALARS = (
    st.integers(-3, 5)
    | st.sampled_from([2**63 - 1, -(2**63), 10**6])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.booleans()
    | st.text(max_size=8)
    | st.sampled_from(["uniform", "anchored", "phi4_aime25", "", "5,30"])
    | st.just(dt.datetime(1979, 5, 27, 7, 32))
    | st.just(dt.date(2024, 1, 1))
)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda c: (
        st.lists(c, max_size=4)
        | st.dictionaries(st.from_regex(r"[a-z]{1,3}", fullmatch=True), c, max_size=2)
    ),
    max_leaves=6,
)


def _toml(value) -> str:
    """A value as TOML text (a minimal writer: scalars, arrays, inline tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"


def _document(values: dict) -> str:
    return "".join(f"{json.dumps(k)} = {_toml(v)}\n" for k, v in values.items())


def _refusal(exc: ValueError, key: str | None = None) -> None:
    text = str(exc)
    assert text and "\n" not in text, text
    assert not NUMPY_REPR.search(text), text
    if key is not None:  # named as the field, or as the command line spells it
        assert key in text or "--" + key.replace("_", "-") in text, text


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


def test_the_valid_file_builds(folder):
    path = folder / "ok.toml"
    path.write_text(_document(VALID))
    assert load_config(path).M == [15, 30]
    assert coverage.grid_config(registry.make_config("coverage", config=str(path))).N == [4]


@SETTINGS
@given(key=st.sampled_from(KEYS), value=TOML_VALUES)
def test_any_value_for_any_key(folder, key, value):
    path = folder / "k.toml"
    path.write_text(_document({**VALID, key: value}))
    try:
        config = load_config(path)
    except ValueError as exc:
        _refusal(exc, key)
        return
    config.validate()
    assert config.cells()
    assert coverage.grid_config(registry.make_config("coverage", config=str(path))) == config


@SETTINGS
@given(data=st.data())
def test_byte_mutations_of_the_toml(folder, data):
    raw = bytearray(_document(VALID).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw)))
        op = data.draw(st.sampled_from(["delete", "insert", "truncate"]))
        if op == "delete":
            del raw[at : at + data.draw(st.integers(1, 6))]
        elif op == "insert":
            raw[at:at] = data.draw(
                st.binary(min_size=1, max_size=4) | st.sampled_from([b"=", b"[", b"\n", b'"'])
            )
        else:
            del raw[at:]
    path = folder / "b.toml"
    path.write_bytes(bytes(raw))
    try:
        config = load_config(path)
    except ValueError as exc:
        _refusal(exc)
        assert str(path) in str(exc)
        return
    config.validate()


# ----------------------------------------------------------------------------- options

OPTION_VALUES = (
    st.none()
    | st.integers(-5, 10**6)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.booleans()
    | st.text(max_size=8)
    | st.sampled_from(["5,30", "uniform,anchored", "anchored:1:30:4", "bayes", "0.1:0.4"])
    | st.lists(st.integers(-2, 50) | st.text(max_size=4), max_size=3)
    | st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)
    | st.sampled_from([np.int64(3), np.float64(0.5), np.str_("x"), np.bool_(True)])
)
REQUIRED = {
    "convergence": {"file": "results.csv"},
    "elicit": {"lo": 0.2, "hi": 0.6},
}


@st.composite
def study_options(draw):
    name = draw(st.sampled_from(sorted(registry.STUDIES)))
    fields = [f.name for f in dataclasses.fields(registry.STUDIES[name].config)]
    key = draw(st.sampled_from([*fields, "unknown_option"]))
    return name, key, {**REQUIRED.get(name, {}), key: draw(OPTION_VALUES)}


@settings(SETTINGS, max_examples=examples(150))
@given(case=study_options())
def test_any_value_for_any_option(case):
    name, key, options = case
    if name == "coverage" and key == "config":
        options.pop("config")  # a TOML path: covered above
    try:
        config = registry.make_config(name, **options)
    except ValueError as exc:
        _refusal(exc, key)
        return
    assert dataclasses.is_dataclass(config)
    if name == "coverage":
        try:
            coverage.grid_config(config)
        except ValueError as exc:
            _refusal(exc, key)
