"""The package's layout, as ARCHITECTURE.md states it, checked on the source.

Every ``import`` in the package (module level or inside a function: a lazy import is still a
dependency) is read with :mod:`ast`. The rules:

1. Layers: a part of the package imports only the parts listed for it in ``ALLOWED``. The
   core is itself layered (files, interrupts, inputs, serialize, nuts <- posteriors <- metrics <- xr <- ranking <- synthetic);
   above it datasets, the domain packages, models, validation, the demo and the CLI. A new
   top-level module or subpackage must be placed in a layer here and in ARCHITECTURE.md.
2. No circles: the graph of module-to-module imports has no cycle.
3. No private name (``_x``) is imported from another subpackage (or top-level module).
4. ``bayes_eval/`` holds at most 20 modules directly; the rest are grouped by concern.
5. No re-export shims: a module's ``__all__`` lists only what it defines; the core's
   subpackages (``posteriors``, ``metrics``, ``ranking``, ``synthetic``) have an ``__init__``
   that imports nothing. Package ``__init__`` files of the other packages are their public
   names.
6. The CLI is one module per command (plus its shared ``_`` helpers).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"bayes_eval": ROOT / "bayes_eval", "bayes_eval.models": ROOT / "models"}
SOURCES["bayes_eval.validation"] = ROOT / "validation"

#: the core, bottom up: each imports only those before it (and numpy, scipy, xarray)
CORE = [
    "files",
    "interrupts",
    "inputs",
    "serialize",
    "nuts",
    "posteriors",
    "metrics",
    "xr",
    "ranking",
    "synthetic",
]
DOMAIN = ["logs", "rubrics", "judges", "adaptive", "plotting"]

#: part -> the parts it may import (besides itself).
ALLOWED: dict[str, set[str]] = {part: set(CORE[:i]) for i, part in enumerate(CORE)}
ALLOWED["serialize"] = set()
ALLOWED["nuts"] = set()
ALLOWED["files"] = set()
ALLOWED["interrupts"] = set()
ALLOWED["datasets"] = set(CORE)
ALLOWED["plotting"] = set(CORE)
ALLOWED["rubrics"] = set(CORE) | {"plotting"}
ALLOWED["logs"] = set(CORE) | {"datasets", "rubrics"}
ALLOWED["judges"] = set(CORE) | {"datasets", "plotting"}
ALLOWED["adaptive"] = set(CORE) | {"datasets", "plotting"}
ALLOWED["models"] = set(CORE) | {"datasets", "logs", "rubrics", "judges", "plotting"}
ALLOWED["validation"] = ALLOWED["models"] | {"models", "adaptive"}
ALLOWED["demo"] = set(ALLOWED) - {"demo"}
ALLOWED["cli"] = set(ALLOWED)
ALLOWED["package"] = set(CORE)  # bayes_eval/__init__.py: the public top-level names


def _modules() -> dict[str, Path]:
    out = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if package == "bayes_eval" and parts and parts[0] in ("models", "validation"):
                continue  # not a source folder of bayes_eval itself
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _part(module: str) -> str:
    names = module.split(".")
    if len(names) == 1:
        return "package"
    return names[1]


def _imports(module: str, path: Path) -> dict[str, set[str]]:
    """Module -> the names imported from it (``*`` for a whole-module import)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            pairs = [(a.name, "*") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".")
                if not path.name == "__init__.py":
                    pkg = pkg[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join([*pkg, base] if base else pkg)
            # ``from pkg import sub`` depends on the submodule, ``from mod import name`` on mod
            pairs = [
                (f"{base}.{a.name}", "*") if f"{base}.{a.name}" in MODULES else (base, a.name)
                for a in node.names
            ]
        else:
            continue
        for name, what in pairs:
            if not name.startswith("bayes_eval"):
                continue
            parts = name.split(".")
            for k in range(len(parts), 0, -1):  # the longest prefix that is a module of ours
                candidate = ".".join(parts[:k])
                if candidate in MODULES:
                    if candidate != module:
                        found.setdefault(candidate, set()).add(what)
                    break
    return found


class _Lazy(dict):
    """Filled on first use: parsing every module costs ~2 s, paid only by the worker that
    runs these tests (not at collection)."""

    def __init__(self, build):
        super().__init__()
        self._build = build

    def _fill(self):
        if not super().__len__():
            self.update(self._build())

    def __getitem__(self, key):
        self._fill()
        return super().__getitem__(key)

    def items(self):
        self._fill()
        return super().items()

    def __iter__(self):
        self._fill()
        return super().__iter__()

    def __len__(self):
        self._fill()
        return super().__len__()


IMPORTS = _Lazy(lambda: {m: _imports(m, p) for m, p in MODULES.items()})
GRAPH = _Lazy(lambda: {m: set(deps) for m, deps in IMPORTS.items()})


def test_every_module_is_in_a_layer():
    parts = {_part(m) for m in MODULES}
    assert parts <= set(ALLOWED), f"parts without a layer: {parts - set(ALLOWED)}"


def test_layers_import_only_downwards():
    bad = []
    for module, deps in GRAPH.items():
        part = _part(module)
        for dep in deps:
            other = _part(dep)
            if other != part and other not in ALLOWED[part]:
                bad.append(f"{module} ({part}) imports {dep} ({other})")
    assert not bad, "imports against the layers of ARCHITECTURE.md:\n" + "\n".join(sorted(bad))


def test_no_import_circles():
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for dep in sorted(GRAPH[m]):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep not in state and (cycle := visit(dep)):
                return cycle
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(GRAPH):
        if m not in state and (cycle := visit(m)):
            pytest.fail("import circle: " + " -> ".join(cycle))


def test_no_private_name_crosses_a_subpackage():
    bad = []
    for module, deps in IMPORTS.items():
        for dep, names in deps.items():
            if _part(dep) == _part(module) and _part(module) != "package":
                continue
            private = sorted(n for n in names if n.startswith("_") and n != "*")
            if private:
                bad.append(f"{module} imports {', '.join(private)} from {dep}")
    assert not bad, "private names across subpackages:\n" + "\n".join(sorted(bad))


def test_the_top_level_holds_at_most_twenty_modules():
    flat = sorted(p.name for p in (ROOT / "bayes_eval").glob("*.py"))
    assert len(flat) <= 20, f"{len(flat)} modules directly in bayes_eval/: {flat}"


def test_subpackages_do_not_re_export():
    shims = []
    for module, path in MODULES.items():
        if path.name != "__init__.py" or module in (
            "bayes_eval",
            "bayes_eval.models",
            "bayes_eval.validation",
        ):
            continue
        if GRAPH[module]:
            shims.append(f"{module} imports {sorted(GRAPH[module])}")
    # the domain packages' __init__ files are their public names
    public = {f"bayes_eval.{p}" for p in (*DOMAIN, "datasets", "cli")}
    shims = [s for s in shims if s.split()[0] not in public]
    assert not shims, "subpackage __init__ re-exporting:\n" + "\n".join(shims)


def test_cli_is_one_module_per_command():
    from bayes_eval.cli import COMMANDS

    folder = ROOT / "bayes_eval" / "cli"
    commands = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
    registered = {m.__name__.rsplit(".", 1)[1] for m in COMMANDS}
    assert commands - {"__main__"} == registered


def test_modules_export_only_what_they_define():
    # a module's __all__ names its own definitions: no module re-exports another's names
    # (package __init__ files are the public names of their package and may)
    bad = []
    for module, path in MODULES.items():
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        defined, exported = set(), []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        defined.add(t.id)
                        if t.id == "__all__":
                            exported = list(ast.literal_eval(node.value))
        foreign = [n for n in exported if n not in defined]
        if foreign:
            bad.append(f"{module} re-exports {foreign}")
    assert not bad, "re-exports:\n" + "\n".join(bad)


def test_importing_the_package_is_light_and_every_public_name_resolves():
    """``import bayes_eval`` (and ``bayes_eval.cli``, the console script's module) imports no
    numerical library: its names load on first use, so that Ctrl-C during the slow first
    imports is reported by the command line in one line. Each name of ``__all__`` resolves to
    the object of the module that defines it."""
    import subprocess
    import sys

    import bayes_eval

    code = (
        "import sys, bayes_eval, bayes_eval.cli; "
        "print(sorted({'numpy', 'scipy', 'xarray', 'importlib.metadata'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    for name in bayes_eval.__all__:
        value = getattr(bayes_eval, name)
        assert getattr(sys.modules[value.__module__], name) is value
    assert set(bayes_eval.__all__) <= set(dir(bayes_eval))
    assert bayes_eval.__version__.count(".") >= 2  # read from the installed metadata
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        bayes_eval.nope  # noqa: B018
