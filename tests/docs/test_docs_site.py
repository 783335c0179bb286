"""The documentation site's generated pages cover the code: every public name has its API
entry, every command its CLI reference (``docs/_ext/bayes_eval_docs.py``), and the site's
checker finds what it must (``docs/check_site.py``). ``make docs`` builds the site itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
sys.path.insert(0, str(ROOT / "docs"))
import bayes_eval_docs as gen  # noqa: E402
import check_site  # noqa: E402


def _modules_with_all() -> set[str]:
    """Every public module whose source assigns ``__all__``, read from the files (not imported)."""
    out = set()
    for folder, package in (
        (ROOT / "bayes_eval", "bayes_eval"),
        (ROOT / "models", "bayes_eval.models"),
        (ROOT / "validation", "bayes_eval.validation"),
    ):
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join((package, *parts))
            if any(p.startswith("_") for p in parts) or name.startswith("bayes_eval.cli"):
                continue
            if package == "bayes_eval" and parts[:1] in (("models",), ("validation",)):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            if any(
                (
                    isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                )
                or (  # ``__all__: list[str] = []``
                    isinstance(node, ast.AnnAssign)
                    and isinstance(node.target, ast.Name)
                    and node.target.id == "__all__"
                )
                for node in tree.body
            ):
                out.add(name)
    return out


@pytest.mark.slow  # imports every module, PyMC's included
def test_every_public_name_has_an_api_entry():
    import importlib

    entries = gen.api_entries()
    sections = [s for page in entries.values() for s in page]
    assert {s.module for s in sections} == _modules_with_all()
    for section in sections:
        exported = importlib.import_module(section.module).__all__
        assert sorted(section.own + list(section.elsewhere)) == sorted(exported), section.module
    documented = {f"{s.module}.{n}" for s in sections for n in s.own}
    for section in sections:  # a re-export links to a documented definition
        assert set(section.elsewhere.values()) <= documented, section.module
    assert "bayes_eval.posteriors.posterior.Posterior" in documented
    top = next(s for s in sections if s.module == "bayes_eval")
    assert top.elsewhere["posterior"] == "bayes_eval.posteriors.posterior.posterior"


def test_the_cli_reference_lists_every_command():
    from bayes_eval.cli._program import COMMANDS, command_name, parser

    names = [name for name, _ in gen._commands(parser(), "bayes-eval")]
    assert {f"bayes-eval {command_name(c)}" for c in COMMANDS} <= set(names)
    assert "bayes-eval validate coverage" in names and "bayes-eval adaptive simulate" in names


def test_the_site_checker_finds_remote_loads_and_broken_links(tmp_path):
    (tmp_path / "index.html").write_text(
        '<html><head><script src="https://cdn.example.org/x.js"></script>'
        '<link rel="stylesheet" href="//fonts.example.org/f.css"></head>'
        '<body><a id="top" href="https://example.org/">ok: a link</a>'
        '<a href="page.html#here">ok</a><a href="missing.html">broken</a>'
        '<a href="page.html#nowhere">no anchor</a></body></html>'
    )
    (tmp_path / "page.html").write_text('<p id="here">x</p><a href="index.html#top">back</a>')
    (tmp_path / "style.css").write_text("@import url('https://fonts.example.org/a.css');")
    text = "\n".join(check_site.site_failures(tmp_path))
    assert "loads https://cdn.example.org/x.js" in text
    assert "loads //fonts.example.org/f.css" in text
    assert "broken link missing.html" in text
    assert "no #nowhere" in text
    assert "style.css: loads from the network" in text
    assert "https://example.org/" not in text  # a link to follow, not a load
    assert "page.html#here" not in text and "index.html#top" not in text
    assert len(text.splitlines()) == 5
