"""Which public names' docstrings miss a numpydoc section: the audit behind
``tests/test_docstrings.py::test_public_docstrings_are_complete``.

Run it directly to list what is missing, for one package or module prefix::

    python tests/docstring_audit.py bayes_eval.ranking
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys

from numpydoc.docscrape import ClassDoc
from numpydoc.validate import validate

#: numpydoc's checks every public name passes: a docstring with a one-line summary, every
#: parameter documented (and none that does not exist) with a description, the returned
#: value documented with a description, and an example
CODES = frozenset({"GL08", "SS01", "PR01", "PR02", "PR07", "RT01", "RT03", "EX01"})
PACKAGES = ("bayes_eval", "bayes_eval.models", "bayes_eval.validation")


def public_modules(package: str) -> list[str]:
    """The public modules of ``package`` (no ``_`` component, not the command line)."""
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or "cli" in parts:
            continue
        if package == "bayes_eval" and parts[1] in ("models", "validation"):
            continue
        names.append(info.name)
    return sorted(names)


def public_names(module: str) -> list[str]:
    """The functions and classes of ``module.__all__`` defined in ``module`` itself."""
    mod = importlib.import_module(module)
    out = []
    for name in getattr(mod, "__all__", ()):
        obj = getattr(mod, name, None)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module:
            out.append(name)
    return out


def _attributes(obj) -> set[str]:
    """The names a class documents under "Attributes" (its fields, for a result object)."""
    names = set()
    for item in ClassDoc(obj, config={"show_class_members": False})["Attributes"]:
        names.update(n.strip() for n in item.name.split(","))
    return names


def problems(module: str, name: str) -> list[str]:
    """numpydoc's messages for ``module.name`` among :data:`CODES`.

    A class's constructor arguments may be documented under "Parameters" or, for a result
    object whose arguments are its fields, under "Attributes"."""
    obj = getattr(importlib.import_module(module), name)
    errors = [(c, m) for c, m in validate(f"{module}.{name}")["errors"] if c in CODES]
    if inspect.isclass(obj) and any(c == "PR01" for c, _ in errors):
        attrs = _attributes(obj)
        documented = {p for p in inspect.signature(obj).parameters if p in attrs}
        kept = []
        for code, message in errors:
            if code == "PR01":
                missing = re.findall(r"'([^']+)'", message)
                if all(p in documented for p in missing):
                    continue
            kept.append((code, message))
        errors = kept
    return [f"{code} {message}" for code, message in errors]


def audit(prefix: str) -> dict[str, list[str]]:
    """``{"module.name": [messages]}`` for every public name under ``prefix`` that fails."""
    package = next((p for p in reversed(PACKAGES) if prefix.startswith(p)), "bayes_eval")
    out = {}
    for module in public_modules(package):
        if not (module == prefix or module.startswith(prefix + ".")):
            continue
        for name in public_names(module):
            found = problems(module, name)
            if found:
                out[f"{module}.{name}"] = found
    return out


if __name__ == "__main__":
    total = 0
    for prefix in sys.argv[1:] or ["bayes_eval"]:
        for qualname, messages in audit(prefix).items():
            total += 1
            print(qualname)
            for message in messages:
                print("   ", message)
    print(f"{total} public names with missing sections")
