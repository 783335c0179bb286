"""The one JSON encoder: numpy, named results, dataclasses, xarray, non-finite floats."""

import dataclasses
import io
import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from bayes_eval import bayes_ci
from bayes_eval.serialize import dump, dumps, to_jsonable


def test_named_result_keeps_field_names_and_values():
    R = np.array([[1, 0, 1], [0, 0, 1]])
    res = bayes_ci(R)
    out = json.loads(dumps(res))
    assert list(out) == list(res._fields)
    assert out["mu"] == pytest.approx(float(res.mu), rel=0, abs=0)


def test_numpy_scalars_arrays_paths_and_non_finite():
    value = {
        "i": np.int64(3),
        "f": np.float32(0.5),
        "b": np.bool_(True),
        "a": np.array([[1.0, np.nan], [np.inf, 2.0]]),
        "p": Path("x/y.png"),
        7: (1, 2),
    }
    assert to_jsonable(value) == {
        "i": 3,
        "f": 0.5,
        "b": True,
        "a": [[1.0, None], [None, 2.0]],
        "p": "x/y.png",
        "7": [1, 2],
    }
    json.loads(dumps(value))  # strict: no NaN tokens


def test_dataclass_and_xarray():
    @dataclasses.dataclass
    class Cfg:
        m: int
        w: tuple[float, ...]

    assert to_jsonable(Cfg(2, (0.0, 1.0))) == {"m": 2, "w": [0.0, 1.0]}
    ds = xr.Dataset({"mu": ("model", [0.1, 0.2])}, coords={"model": ["a", "b"]}, attrs={"n": 4})
    out = to_jsonable(ds)
    assert out["data_vars"]["mu"] == [0.1, 0.2]
    assert out["coords"]["model"] == ["a", "b"]
    assert out["attrs"] == {"n": 4}
    assert to_jsonable(ds["mu"])["dims"] == ["model"]


def test_dump_writes_one_document_and_refuses_unknown_objects():
    buf = io.StringIO()
    dump({"x": 1}, buf)
    assert json.loads(buf.getvalue()) == {"x": 1}
    with pytest.raises(TypeError, match="object"):
        dumps({"x": object()})
