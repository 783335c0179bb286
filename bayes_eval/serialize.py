"""One JSON encoding for everything bayes_eval writes (``--json`` output, study manifests).

:func:`to_jsonable` turns the objects our functions return into plain JSON values:
numpy scalars and arrays, named tuples (as objects with their field names), dataclasses,
mappings, :class:`pathlib.Path`, and xarray ``Dataset``/``DataArray`` (as ``{"dims",
"coords", "data_vars", "attrs"}`` / ``{"dims", "coords", "data"}``). Non-finite floats become
``null`` (JSON has no NaN or infinity), so every output parses with a strict JSON reader.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import numpy as np

__all__ = ["dump", "dumps", "to_jsonable"]


def _float(x: float) -> float | None:
    return x if math.isfinite(x) else None


def to_jsonable(value: Any) -> Any:
    """A JSON-ready copy of ``value`` (see the module docstring for the rules).

    Parameters
    ----------
    value : object
        A result of bayes_eval (named tuple, dataclass, numpy or xarray object, mapping,
        sequence, scalar, path, or None).

    Returns
    -------
    object
        Plain ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or None values; a
        non-finite float becomes None.

    Raises
    ------
    TypeError
        For an object with no JSON form (the message names its type).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> to_jsonable({"mu": np.float64(0.5), "n": np.int64(3), "lo": np.nan, "ok": np.bool_(True)})
    {'mu': 0.5, 'n': 3, 'lo': None, 'ok': True}
    >>> to_jsonable(xr.DataArray([0.25, 0.5], dims="model", coords={"model": ["a", "b"]}))
    {'dims': ['model'], 'coords': {'model': ['a', 'b']}, 'data': [0.25, 0.5]}
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        return _float(float(value))
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named result
        return {k: to_jsonable(v) for k, v in zip(value._fields, value, strict=True)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    import xarray as xr

    if isinstance(value, xr.DataArray):
        return {
            "dims": list(value.dims),
            "coords": {str(k): to_jsonable(c.values) for k, c in value.coords.items()},
            "data": to_jsonable(value.values),
        }
    if isinstance(value, xr.Dataset):
        return {
            "dims": {str(k): int(v) for k, v in value.sizes.items()},
            "coords": {str(k): to_jsonable(c.values) for k, c in value.coords.items()},
            "data_vars": {str(k): to_jsonable(v.values) for k, v in value.data_vars.items()},
            "attrs": to_jsonable(dict(value.attrs)),
        }
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    raise TypeError(f"no JSON form for an object of type {type(value).__name__}.")


def dumps(value: Any, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """``value`` as strict JSON text (NaN and infinities written as ``null``).

    Parameters
    ----------
    value : object
        Anything :func:`to_jsonable` accepts.
    indent : int or None, optional
        Indentation of the JSON text; default 2, None for one line.
    sort_keys : bool, optional
        Sort the keys of every object; default False.

    Returns
    -------
    str
        The JSON text.

    Examples
    --------
    >>> import numpy as np
    >>> dumps({"mu": np.float64(0.5), "sigma": np.nan}, indent=None)
    '{"mu": 0.5, "sigma": null}'
    >>> dumps({"b": 1, "a": [np.int64(2)]}, indent=None, sort_keys=True)
    '{"a": [2], "b": 1}'
    """
    return json.dumps(to_jsonable(value), indent=indent, sort_keys=sort_keys, allow_nan=False)


def dump(value: Any, fp: IO[str], *, indent: int | None = 2, sort_keys: bool = False) -> None:
    r"""Write ``value`` to ``fp`` as strict JSON text followed by a newline.

    Parameters
    ----------
    value : object
        Anything :func:`to_jsonable` accepts.
    fp : file-like object
        A text stream open for writing.
    indent : int or None, optional
        Indentation of the JSON text; default 2, None for one line.
    sort_keys : bool, optional
        Sort the keys of every object; default False.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> buf = io.StringIO()
    >>> dump({"a": np.arange(3)}, buf, indent=None)
    >>> buf.getvalue()
    '{"a": [0, 1, 2]}\n'
    """
    fp.write(dumps(value, indent=indent, sort_keys=sort_keys))
    fp.write("\n")
