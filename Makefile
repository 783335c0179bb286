# bayes_eval: the two set-up commands are `make demo` and `make test`.
# Both create .venv with a Python >= 3.12 (found by .ci/find-python) and install what they need.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
# Python may cache compiled modules (an environment with PYTHONDONTWRITEBYTECODE set would
# otherwise recompile the package and rewrite every test module in each pytest process: ~4 s)
unexport PYTHONDONTWRITEBYTECODE

# two pytest workers: PyTensor compiles one graph per core, NUTS chains share the rest
XDIST := -n 2 --dist loadgroup

.PHONY: demo test test-fast lint format bench bench-smoke docs clean

$(VENV)/.created:
	@PYBIN=$$(.ci/find-python) || exit 1; \
	echo "using $$PYBIN"; \
	"$$PYBIN" -m venv $(VENV) && $(PY) -m pip install --quiet --upgrade pip && touch $@

$(VENV)/.base: $(VENV)/.created pyproject.toml
	$(PY) -m pip install --quiet -e ".[plot]" && touch $@

$(VENV)/.dev: $(VENV)/.created pyproject.toml
	$(PY) -m pip install --quiet -e ".[dev,pymc,inspect]" && touch $@ $(VENV)/.base

$(VENV)/.docs: $(VENV)/.dev
	$(PY) -m pip install --quiet -e ".[dev,pymc,inspect,docs]" && touch $@

# ranks the shipped MathArena AIME 2025 I leaderboard, then the paper's biased-coin mimics
demo: $(VENV)/.base
	$(VENV)/bin/bayes-eval demo --plot demo_forest.png

lint: $(VENV)/.dev
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

format: $(VENV)/.dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# every test (PyMC and slow ones included), then every benchmark at its smoke size
test: $(VENV)/.dev lint
	$(PY) -m pytest -q $(XDIST) --durations=15
	$(PY) benchmarks/run_all.py

# the quick tier for your own loop: no PyMC compilation, nothing over ~5 s, a quarter of the
# Hypothesis examples (tests/hypothesis_budget.py)
test-fast: $(VENV)/.dev
	BAYES_EVAL_QUICK_TESTS=1 $(PY) -m pytest -q -m "not slow and not pymc" $(XDIST)

bench: $(VENV)/.dev
	$(PY) benchmarks/run_all.py --full --table --out bench_results.json

# every benchmark at its smoke size, each in a fresh process, two at a time (issue 28): one
# line per script (name, seconds, ok/FAILED), non-zero exit if any fails
bench-smoke: $(VENV)/.dev
	$(PY) benchmarks/run_all.py

# the documentation site into docs/_build/html: warnings are errors (nitpicky: every
# cross-reference resolves), the notebooks and the guides' code cells execute, then
# docs/check_site.py checks every internal link, that nothing loads from the network and that
# every public name has its API entry
docs: $(VENV)/.docs
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/sphinx-build -W --keep-going -n -q -b html docs docs/_build/html
	$(PY) docs/check_site.py docs/_build/html

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info docs/_build
