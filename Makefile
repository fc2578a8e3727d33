# Two commands on a fresh machine: `make lab` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
LAB_ARGS ?=

.PHONY: lab test test-browser demo grade venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lab: $(STAMP)  ## open JupyterLab on the repository (exercises/ too), showing notebooks/ first
	PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(VENV)/bin/jupyter lab $(LAB_ARGS) \
	  $$([ "$$(id -u)" = 0 ] && echo --allow-root) \
	  --ServerApp.root_dir="$(CURDIR)" --ContentsManager.preferred_dir=notebooks

test: $(STAMP)  ## every test, notebooks included
	$(PY) -m pytest -q

test-browser: $(STAMP)  ## only the real-browser test (also part of `make test`): JupyterLab in headless Chromium
	$(PY) -m pytest -q tests/browser

demo: $(STAMP)  ## the city task as agent and as workflow, side by side
	$(PY) -m agentlab compare

grade: $(STAMP)  ## grade your exercises
	$(PY) -m pytest -q --tb=short exercises

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
