"""Pages generated from the code when the site builds: the API reference and the CLI reference.

* **API**: every public module (a module of ``bayes_eval``, ``bayes_eval.models`` or
  ``bayes_eval.validation`` with an ``__all__``, outside the command-line package) gets a
  section on its package's page, with its docstring and an autosummary of its ``__all__``.
  A name is documented once, in the module that defines it; a package that re-exports it
  (``bayes_eval.Posterior``, ``bayes_eval.logs.read_eval_log``) lists it with a link.
* **CLI**: ``bayes-eval --help`` and every command's and nested command's ``--help``, as the
  parser prints them (``bayes_eval.cli._program.parser``).
* **Examples**: the jupytext notebooks of ``notebooks/`` are copied beside the pages, where
  myst-nb executes them.

The pages are written under ``api/reference/``, ``cli/`` and ``examples/notebooks/``
(ignored by git) before Sphinx reads the sources and autosummary writes its stubs;
:func:`api_entries` is what ``docs/check_site.py`` and ``tests/docs/test_docs_site.py``
check the site against.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import shutil
from dataclasses import dataclass, field
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent

#: the packages whose modules are documented, in the order of the reference's pages
PACKAGES = ("bayes_eval", "bayes_eval.models", "bayes_eval.validation")
#: one page per subpackage; the core modules directly under ``bayes_eval`` share one page
PAGE_TITLES = {
    "bayes_eval": "Top level: ``import bayes_eval as be``",
    "bayes_eval.core": "Core modules: inputs, files, serialisation, xarray",
    "bayes_eval.posteriors": "Posteriors and priors",
    "bayes_eval.metrics": "Metrics: Bayes@N, avg@N and the Pass family",
    "bayes_eval.ranking": "Ranking, comparisons, claims and plans",
    "bayes_eval.synthetic": "Simulated results with known truth",
    "bayes_eval.logs": "Logs of other tools",
    "bayes_eval.rubrics": "Rubric schemata",
    "bayes_eval.judges": "LLM judges",
    "bayes_eval.adaptive": "Adaptive evaluation (Gittins indices)",
    "bayes_eval.plotting": "Plotting",
    "bayes_eval.datasets": "Shipped datasets",
    "bayes_eval.models": "PyMC models (``bayes_eval.models``)",
    "bayes_eval.validation": "Validation studies (``bayes_eval.validation``)",
}


@dataclass
class Section:
    """One public module: the names documented in it and those documented elsewhere."""

    module: str
    own: list[str] = field(default_factory=list)
    elsewhere: dict[str, str] = field(default_factory=dict)  # name -> documented path


def _private(name: str) -> bool:
    return any(part.startswith("_") for part in name.split("."))


def public_modules() -> list[str]:
    """Every documented module: a public module with an ``__all__``, CLI excluded."""
    out = []
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        found = list(pkgutil.walk_packages(pkg.__path__, package + "."))  # imports each package
        names = [package, *(m.name for m in found if not m.ispkg)]
        names += [m.name for m in found if m.ispkg]
        for name in names:
            if _private(name) or name.startswith("bayes_eval.cli"):
                continue
            if name in ("bayes_eval.models", "bayes_eval.validation") and package == "bayes_eval":
                continue
            module = importlib.import_module(name)
            if getattr(module, "__all__", None) is not None and name not in out:
                out.append(name)
    return out


def page_of(module: str) -> str:
    """The reference page a module's section is on (its subpackage)."""
    parts = module.split(".")
    if module == "bayes_eval":
        return "bayes_eval"
    if parts[1] in ("models", "validation"):
        return ".".join(parts[:2])
    sub = ".".join(parts[:2])
    return sub if sub in PAGE_TITLES else "bayes_eval.core"


def _key(obj, name: str) -> object:
    """What makes two exports one object: a function or class by identity; a value by identity
    and name (equal small numbers are one object in Python, and not one constant)."""
    return id(obj) if callable(obj) else (id(obj), name)


def api_entries() -> dict[str, list[Section]]:
    """Page -> its sections; every ``__all__`` name of every public module appears once as
    documented (``own``) in the module that defines it (the deepest module that exports
    it), and as a link wherever else it is exported (``bayes_eval.posterior``)."""
    modules = public_modules()
    where: dict[object, str] = {}  # the object's key -> documented path
    for module in sorted(modules, key=lambda m: (-m.count("."), m)):  # deepest first
        mod = importlib.import_module(module)
        for name in mod.__all__:
            obj = getattr(mod, name)
            home = getattr(obj, "__module__", None) if callable(obj) else None
            if home in modules and home != module:
                continue  # documented where it is defined
            where.setdefault(_key(obj, name), f"{module}.{name}")
    pages: dict[str, list[Section]] = {}
    for module in modules:
        mod = importlib.import_module(module)
        section = Section(module)
        for name in mod.__all__:
            path = where.get(_key(getattr(mod, name), name), f"{module}.{name}")
            if path == f"{module}.{name}":
                section.own.append(name)
            else:
                section.elsewhere[name] = path
        pages.setdefault(page_of(module), []).append(section)
    return {page: pages[page] for page in PAGE_TITLES if page in pages}


def _title(text: str, mark: str) -> str:
    return f"{text}\n{mark * len(text)}\n"


def _write_api(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for page, sections in api_entries().items():
        lines = [_title(PAGE_TITLES[page], "="), ""]
        for section in sections:
            lines += [_title(f"``{section.module}``", "-"), ""]
            lines += [f".. automodule:: {section.module}", "   :no-members:", ""]
            if section.own:
                lines += [f".. currentmodule:: {section.module}", ""]
                lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
                lines += [f"   {name}" for name in section.own] + [""]
            if section.elsewhere:
                lines += [
                    ".. currentmodule:: None",
                    "",
                    ".. autosummary::",
                    "   :nosignatures:",
                    "",
                ]
                lines += [f"   ~{path}" for path in section.elsewhere.values()] + [""]
        _write_if_changed(folder / f"{page}.rst", "\n".join(lines))


def _commands(parser: argparse.ArgumentParser, prefix: str):
    """(name, parser) of every command and nested command, depth first."""
    yield prefix, parser
    for action in parser._actions:  # argparse keeps its subcommands here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, f"{prefix} {name}")


def _write_cli(folder: Path) -> None:
    from bayes_eval.cli._program import parser

    folder.mkdir(parents=True, exist_ok=True)
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal's width
    try:
        helps = [(name, sub.format_help()) for name, sub in _commands(parser(), "bayes-eval")]
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns
    lines = [
        _title("Command-line reference", "="),
        "",
        "Every command's ``--help``, as the installed ``bayes-eval`` prints it (generated from",
        "the parsers when this site is built). Exit statuses: 0 done, 1 a check the command",
        "reports failed, 2 bad input (one line ``bayes-eval: error: ...``), 130 interrupted.",
        "",
    ]
    for name, text in helps:
        lines += [_title(f"``{name}``", "-"), "", ".. code-block:: text", ""]
        lines += ["   " + line if line else "" for line in text.splitlines()]
        lines += [""]
    _write_if_changed(folder / "index.rst", "\n".join(lines))


def _copy_notebooks(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        target = folder / path.name
        if not target.exists() or target.read_bytes() != path.read_bytes():
            shutil.copyfile(path, target)


def _write_if_changed(path: Path, text: str) -> None:
    """Keep the file's time stamp when nothing changed (Sphinx rebuilds what is newer)."""
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def generate(app=None, config=None) -> None:
    """Write the generated pages (Sphinx's ``config-inited``: before autosummary reads them)."""
    _write_api(DOCS / "api" / "reference")
    _write_cli(DOCS / "cli")
    _copy_notebooks(DOCS / "examples" / "notebooks")


def _lookup(path: str):
    """The object at a dotted path, or None: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        rest = parts[cut:]
        for i, name in enumerate(rest):
            home, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
            if i and isinstance(home, str) and isinstance(qual, str):
                return ".".join([home, qual, *rest[i:]])  # a class's member: by the class
            if not hasattr(obj, name):
                return None
            obj = getattr(obj, name)
        home, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if callable(obj) and isinstance(home, str) and isinstance(qual, str):
            return f"{home}.{qual}"
        return ".".join(parts)
    return None


def _resolve(app, env, node, contnode):
    """Link a Python name the way the code reads it: ``be.posterior``, a re-export such as
    ``bayes_eval.logs.read_eval_log`` or a name relative to the docstring's module go to the
    page of the object they name (documented once, where it is defined)."""
    from sphinx.util.nodes import make_refnode

    if node.get("refdomain") != "py":
        return None
    objects = env.get_domain("py").objects
    target = node["reftarget"].lstrip("~.")
    module, cls = node.get("py:module"), node.get("py:class")
    prefixes = [f"{module}.{cls}." if module and cls else "", f"{module}." if module else "", ""]
    for prefix in dict.fromkeys(prefixes):
        path = _lookup(prefix + target)
        if path in objects:
            entry = objects[path]
            return make_refnode(
                app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, path
            )
    return None


def _no_mail_links(app, doctree) -> None:
    """Keep "G-Pass@k_tau" a word: docutils reads any ``a@b`` as an e-mail address."""
    from docutils import nodes

    for ref in list(doctree.findall(nodes.reference)):
        if ref.get("refuri", "").startswith("mailto:"):
            ref.replace_self(nodes.Text(ref.astext()))


def setup(app):
    app.connect("config-inited", generate)
    app.connect("doctree-read", _no_mail_links)
    app.connect("missing-reference", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
