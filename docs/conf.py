"""Sphinx configuration of the bayes_eval documentation (``make docs``).

The site builds offline and opens from disk without a network request: MathJax ships with
``sphinx-mathjax-offline``, the theme's fonts and scripts with ``pydata-sphinx-theme``, and no
extension that fetches (intersphinx, external link icons) is loaded. The API pages and the
command-line reference are generated from the code (``_ext/bayes_eval_docs.py``); the example
notebooks are the jupytext files of ``notebooks/``, executed by myst-nb.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import version as _version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
from doc_examples import KERNEL_ENV  # noqa: E402

# the same draws for the same seed (the notebooks sample PyMC models)
os.environ.setdefault("PYTENSOR_FLAGS", "numba__fastmath=False")
os.environ.setdefault("MPLBACKEND", "Agg")
# the executed cells' kernels inherit this process's environment
os.environ.update(KERNEL_ENV)

project = "bayes_eval"
author = "the bayes_eval developers"
copyright = "2026, the bayes_eval developers"
release = _version("bayes_eval")
version = release

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_copybutton",
    "sphinx-mathjax-offline",
    "bayes_eval_docs",
]

exclude_patterns = [
    "_build",
    "_ext",
    "_templates",
    "conf.py",
    "check_site.py",
    "**/.ipynb_checkpoints",
]
templates_path = ["_templates"]
nitpicky = True
# types written in words in numpydoc's "Parameters" (``array_like``, ``int, optional``) and
# the third-party classes whose documentation is not part of this site
nitpick_ignore_regex = [
    (r"py:.*", r"~?(?!bayes_eval)[A-Za-z_]\w*\..*"),  # other packages: not on this site
    (r"py:.*", r"(optional|default|array_like|array-like|scalar|callable|iterable)"),
]

# -- API reference ---------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"  # numpydoc's Parameters section carries the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- notebooks and Markdown ------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_custom_formats = {".py": ["jupytext.reads", {"fmt": "py:percent"}]}
nb_execution_mode = os.environ.get("BAYES_EVAL_DOCS_EXECUTE", "cache")
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True

# -- HTML ------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"bayes_eval {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_align": "left",
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
html_copy_source = False
