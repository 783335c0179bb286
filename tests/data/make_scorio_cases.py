"""Regenerate ``scorio_0.2.3_cases.json``, the reference outputs of scorio 0.2.3.

``tests/test_reference_cases.py`` compares bayes_eval's estimators, to 1e-12, with what the
peer package scorio 0.2.3 (PyPI) returns on 13 fixed cases. The JSON file stores, per case:

* Inputs, fixed data that this script never changes: ``R`` (M x N results with categories
  0..C), ``w`` (rubric weights; ``null`` for binary ``R``), ``R0`` (prior runs or ``null``)
  and ``R_pass`` (the binary matrix used for the Pass family). As the case names and notes
  say, they are the paper's worked examples (``paper_*``), examples from scorio's docstrings
  and tutorial notebook (``docstring_*``, ``notebook_*``), and seeded random matrices and
  edge cases (``binary_*``, ``categorical_*``: M = N = 1, a negative weight, unused
  categories, tau * k just above an integer in floating point). The seeds are not recorded:
  the matrices themselves are the data.
* The arguments of every call, also fixed: ``confidence`` and ``bounds`` of each ``*_ci``
  entry, plus ``k``, ``alpha0``, ``beta0`` (and ``tau``) for the Pass family; the k list is
  the keys of ``pass_at_k`` / ``pass_hat_k`` / ``mg_pass_at_k``, and a ``g_pass_at_k_tau``
  entry with ``k: null`` holds its ``tau`` for every k of that list. ``bounds: null`` means
  the call passed ``bounds=None`` (no clipping), also for the Pass family whose default is
  ``(0, 1)``.
* Outputs, which this script recomputes with ``scorio.eval``: ``bayes`` and ``avg``
  (mu, sigma), every ``out`` (mu, sigma, lo, hi), the values of the Pass-family dicts and the
  ``values`` of each ``g_pass_at_k_tau`` entry.

Needs scorio 0.2.3 exactly (``pip install scorio==0.2.3``; it is in the ``dev`` extra). From
the repository root::

    python tests/data/make_scorio_cases.py --check   # recompute and compare, exit 1 if off
    python tests/data/make_scorio_cases.py --write   # recompute and rewrite the outputs

``--check`` prints how many values it compared and the worst absolute difference, and fails
above 1e-12. Expect a few 1e-16, not zero: the Pass-family posterior moments go through
``log1p``/``exp``/``expm1`` and a BLAS dot product, whose last bit depends on the platform's
math library and OpenBLAS kernel (glibc 2.36's ``log1p(0.6)`` is 0.67 ulp off, and the stored
file matches the correctly rounded value). For the same reason ``--write`` on another machine
changes some values in their last digits only.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

SCORIO_VERSION = "0.2.3"
DATA_FILE = Path(__file__).with_name(f"scorio_{SCORIO_VERSION}_cases.json")
TOL = 1e-12
JSON_INDENT = 1  # as the original file; it has no trailing newline either

PASS_FAMILY = ("pass_at_k", "pass_hat_k", "mg_pass_at_k")
# Output fields of a case: the whole field is output (None), or the named key of each entry.
OUTPUT_FIELDS: dict[str, str | None] = {
    "bayes": None,
    "bayes_ci": "out",
    "avg": None,
    "avg_ci": "out",
    **{name: None for name in PASS_FAMILY},
    **{f"{name}_ci": "out" for name in PASS_FAMILY},
    "g_pass_at_k_tau": "values",
    "g_pass_at_k_tau_ci": "out",
}

Case = dict[str, Any]


def _array(value: list[Any] | None) -> np.ndarray | None:
    return None if value is None else np.asarray(value)


def _bounds(value: list[float] | None) -> tuple[float, float] | None:
    return None if value is None else (float(value[0]), float(value[1]))


def _floats(values: tuple[float, ...]) -> list[float]:
    return [float(v) for v in values]


def _ci_entries(case: Case, field: str, call: Any) -> list[dict[str, Any]]:
    """Each entry of ``case[field]`` with ``out`` replaced by ``call(entry)``, key order kept."""
    return [{**entry, "out": _floats(call(entry))} for entry in case[field]]


def _pass_kwargs(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "confidence": entry["confidence"],
        "bounds": _bounds(entry["bounds"]),
        "alpha0": entry["alpha0"],
        "beta0": entry["beta0"],
    }


def recompute_case(case: Case, se: ModuleType) -> Case:
    """Return ``case`` with every output recomputed by scorio (inputs and arguments kept)."""
    R, w, R0 = np.asarray(case["R"]), _array(case["w"]), _array(case["R0"])
    R_pass = np.asarray(case["R_pass"])
    ks = [int(k) for k in case["pass_at_k"]]
    new = dict(case)

    new["bayes"] = _floats(se.bayes(R, w, R0))
    new["bayes_ci"] = _ci_entries(
        case,
        "bayes_ci",
        lambda e: se.bayes_ci(R, w, R0, confidence=e["confidence"], bounds=_bounds(e["bounds"])),
    )
    new["avg"] = _floats(se.avg(R, w))
    new["avg_ci"] = _ci_entries(
        case,
        "avg_ci",
        lambda e: se.avg_ci(R, w, confidence=e["confidence"], bounds=_bounds(e["bounds"])),
    )

    for name in PASS_FAMILY:
        point, ci = getattr(se, name), getattr(se, f"{name}_ci")
        new[name] = {k: float(point(R_pass, int(k))) for k in case[name]}
        new[f"{name}_ci"] = _ci_entries(
            case,
            f"{name}_ci",
            lambda e, ci=ci: ci(R_pass, int(e["k"]), **_pass_kwargs(e)),
        )

    new["g_pass_at_k_tau"] = [
        {
            **entry,
            "values": {
                str(k): float(se.g_pass_at_k_tau(R_pass, k, entry["tau"]))
                for k in (ks if entry["k"] is None else [int(entry["k"])])
            },
        }
        for entry in case["g_pass_at_k_tau"]
    ]
    new["g_pass_at_k_tau_ci"] = _ci_entries(
        case,
        "g_pass_at_k_tau_ci",
        lambda e: se.g_pass_at_k_tau_ci(R_pass, int(e["k"]), e["tau"], **_pass_kwargs(e)),
    )
    return new


def recompute(data: dict[str, Any], se: ModuleType) -> dict[str, Any]:
    cases = [recompute_case(case, se) for case in data["cases"]]
    return {**data, "cases": cases, "n_cases": len(cases)}


def _numbers(value: Any, label: str) -> Iterator[tuple[str, float]]:
    if isinstance(value, list):
        for i, item in enumerate(value):
            yield from _numbers(item, f"{label}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, f"{label}[{key}]")
    else:
        yield label, float(value)


def output_values(data: dict[str, Any]) -> Iterator[tuple[str, float]]:
    """Every output number of the file, labelled ``case/field[i].key[j]``, in file order."""
    for case in data["cases"]:
        for field, key in OUTPUT_FIELDS.items():
            if key is None:
                yield from _numbers(case[field], f"{case['name']}/{field}")
            else:
                for i, entry in enumerate(case[field]):
                    yield from _numbers(entry[key], f"{case['name']}/{field}[{i}].{key}")


def _difference(a: float, b: float) -> float:
    if math.isnan(a) and math.isnan(b):
        return 0.0
    return math.inf if math.isnan(a) or math.isnan(b) else abs(a - b)


def check(stored: dict[str, Any], new: dict[str, Any]) -> int:
    """Compare the recomputed outputs with the stored ones; return the exit status."""
    old_values, new_values = list(output_values(stored)), list(output_values(new))
    if [label for label, _ in old_values] != [label for label, _ in new_values]:
        print("FAIL: the recomputed outputs do not have the stored file's shape")
        return 1
    pairs = zip(old_values, new_values, strict=True)
    diffs = [(_difference(a, b), label) for (label, a), (_, b) in pairs]
    worst, where = max(diffs, key=lambda item: item[0])
    exact = sum(d == 0.0 for d, _ in diffs)
    print(
        f"compared {len(diffs)} values in {len(stored['cases'])} cases with scorio "
        f"{SCORIO_VERSION}: {exact} bit-identical, worst |diff| = {worst:.3g}"
        + (f" ({where})" if worst > 0.0 else "")
    )
    status = 0
    if stored["n_cases"] != len(stored["cases"]):
        print(f"FAIL: n_cases = {stored['n_cases']} but the file has {len(stored['cases'])} cases")
        status = 1
    bad = [(d, label) for d, label in diffs if d > TOL]
    for d, label in bad[:20]:
        print(f"FAIL: {label} differs by {d:.3g}")
    if bad:
        print(f"FAIL: {len(bad)} values differ by more than {TOL:g}")
        status = 1
    return status


def installed_scorio() -> str | None:
    try:
        return version("scorio")
    except PackageNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=f"Recompute the scorio {SCORIO_VERSION} reference outputs in {DATA_FILE.name}."
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="compare with the stored outputs")
    mode.add_argument("--write", action="store_true", help="rewrite the stored outputs")
    parser.add_argument("--file", type=Path, default=DATA_FILE, help="default: %(default)s")
    args = parser.parse_args(argv)

    installed = installed_scorio()
    if installed != SCORIO_VERSION:
        print(f"FAIL: found scorio {installed}; run: pip install scorio=={SCORIO_VERSION}")
        return 1
    stored = json.loads(args.file.read_text(encoding="utf-8"))
    if stored["scorio_version"] != SCORIO_VERSION:
        print(f"FAIL: {args.file} is for scorio {stored['scorio_version']}, not {SCORIO_VERSION}")
        return 1

    new = recompute(stored, importlib.import_module("scorio.eval"))
    if args.check:
        return check(stored, new)
    args.file.write_text(json.dumps(new, indent=JSON_INDENT), encoding="utf-8")
    n_values = len(list(output_values(new)))
    print(f"wrote {n_values} values in {len(new['cases'])} cases to {args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
