"""Docstrings carry the formula and the reasons, not measurement history: no docstring (nor
``#:`` attribute comment, which Sphinx reads as one) states a timing. Timings live in
``benchmarks/README.md`` and the benchmarks themselves."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from docstring_audit import audit, public_modules

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bayes_eval", "models", "validation")
#: a number (or range) followed by a unit of time: "12 ms", "0.1-1 s", "24 seconds"
TIMING = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?(?:\s*[-–]\s*\d+(?:\.\d+)?)?\s*"
    r"(?:ms|µs|us|s|secs?|seconds?|minutes?|min)\b(?!\w|\.\w)"
)


def _docstrings(path: Path):
    """(line, text) of every docstring and ``#:`` comment of a module."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield getattr(node, "lineno", 1), text
    for number, line in enumerate(source.splitlines(), 1):
        if line.strip().startswith("#:"):
            yield number, line


def _modules():
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


@pytest.mark.parametrize(
    "text", ["took 12 ms", "0.1-1 s per interval", "in 24 seconds", "about 6 s. Then"]
)
def test_the_pattern_finds_timings(text):
    assert TIMING.search(text)


@pytest.mark.parametrize("text", ["N = 4 trials", "s = 0.5", "2 s.e.", "1e-9 sd", "Table 2"])
def test_the_pattern_spares_other_numbers(text):
    assert not TIMING.search(text)


def test_no_docstring_carries_a_timing():
    found = [
        f"{path.relative_to(ROOT)}:{line}: ...{text[max(m.start() - 40, 0) : m.end() + 10]}..."
        for path in _modules()
        for line, text in _docstrings(path)
        for m in TIMING.finditer(text)
    ]
    assert len(_modules()) > 50
    assert not found, "timings in docstrings (move them to benchmarks/README.md):\n" + "\n".join(
        found
    )


def test_no_docstring_is_generated():
    """Every docstring is written in the source, where documentation tools read it: none is
    assigned or edited at run time (``f.__doc__ = ...``, ``__doc__.replace``, ``__doc__ +=``)."""
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            if any(isinstance(t, ast.Attribute) and t.attr == "__doc__" for t in targets):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "setattr" and any(
                    isinstance(a, ast.Constant) and a.value == "__doc__" for a in node.args
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, "generated docstrings:\n" + "\n".join(found)


#: the packages whose public names are audited, with the marks of their imports' cost
AUDITED = [
    pytest.param("bayes_eval", id="core"),
    pytest.param("bayes_eval.models", id="models", marks=[pytest.mark.pymc, pytest.mark.slow]),
    pytest.param("bayes_eval.validation", id="validation", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("package", AUDITED)
def test_public_docstrings_are_complete(package):
    """Every public function and class (in its module's ``__all__``) has numpydoc's sections:
    a one-line summary, every parameter with a description, the returned value with a
    description, and an example (run by ``tests/test_doctests.py``). ``python
    tests/docstring_audit.py PACKAGE`` lists what is missing."""
    assert len(public_modules(package)) > 10
    missing = audit(package)
    assert not missing, "\n".join(f"{name}: {'; '.join(m)}" for name, m in missing.items())
