# bayes_eval: the two set-up commands are `make demo` and `make test`.
# Both create .venv with a Python >= 3.12 (found by .ci/find-python) and install what they need.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test lint bench clean

$(VENV)/.created:
	@PYBIN=$$(.ci/find-python) || exit 1; \
	echo "using $$PYBIN"; \
	"$$PYBIN" -m venv $(VENV) && $(PY) -m pip install --quiet --upgrade pip && touch $@

$(VENV)/.base: $(VENV)/.created pyproject.toml
	$(PY) -m pip install --quiet -e ".[plot]" && touch $@

$(VENV)/.dev: $(VENV)/.created pyproject.toml
	$(PY) -m pip install --quiet -e ".[dev,pymc]" && touch $@ $(VENV)/.base

demo: $(VENV)/.base
	$(VENV)/bin/bayes-eval demo --plot demo_forest.png

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .

test: $(VENV)/.dev lint
	$(PY) -m pytest -q

bench: $(VENV)/.dev
	$(PY) benchmarks/bench_bayes.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
