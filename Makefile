# Two commands on a fresh machine: `make lab` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV   := .venv
# LAB_PYTHON: the python of an environment that already holds the locked packages (a JupyterHub's shared,
# read-only one): every target runs with it, and no .venv is made or checked.
ifdef LAB_PYTHON
PY     := $(LAB_PYTHON)
STAMP  :=
else
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
endif
INSTALLER ?= auto
LAB_ARGS ?=
# One xdist worker more than cores: the browser and notebook tests spend much of their time waiting on
# a kernel, Chromium or a grading time limit, and a third worker fills that idle core time. Measured on
# this 2-core machine, quiet, same checkout: pytest 482 s with 2 workers, 429 s with 3, 494 s with 4.
TEST_JOBS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')

.PHONY: lab test check test-browser demo grade venv lock relock regen slides clean

venv: $(STAMP)

# .venv holds exactly the versions in uv.lock, on every machine and every day (scripts/deps.py): with uv's
# `uv sync --locked` (the pinned uv: the one on PATH if it is that release, else from PyPI into build/uv/),
# or, where uv cannot be had, pip from requirements-lock.txt (the same pins, checked by hash).
# INSTALLER=pip forces pip. A lock older than pyproject.toml stops here with one line: run `make relock`.
# Bytecode is compiled at install: where PYTHONDONTWRITEBYTECODE is set, or the venv is read-only (the
# grading sandboxes), no __pycache__ is ever written, and every process compiled pandas, the SDK and the
# rest from source on each import: about half of a cold import's CPU time, measured here.
$(STAMP): pyproject.toml scripts/deps.py $(wildcard uv.lock requirements-lock.txt)
	@$(PYTHON) scripts/deps.py install --venv $(VENV) --python $(PYTHON) --installer $(INSTALLER)

lock:  ## move every locked version to the newest pyproject.toml allows, reinstall, and remake what depends on them
	$(PYTHON) scripts/deps.py lock
	$(MAKE) venv
	$(MAKE) regen

relock:  ## after editing pyproject.toml's dependencies: the lock files again, keeping every version that still fits
	$(PYTHON) scripts/deps.py lock --keep
	$(MAKE) venv

regen: $(STAMP)  ## remake the files computed from the locked packages' data (the live-cost table, its pages)
	$(PY) scripts/live_costs.py

lab: $(STAMP)  ## open JupyterLab on the repository (exercises/ too), showing notebooks/ first
	PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" $(PY) -m jupyter lab $(LAB_ARGS) \
	  $$([ "$$(id -u)" = 0 ] && echo --allow-root) \
	  --ServerApp.root_dir="$(CURDIR)" --ContentsManager.preferred_dir=notebooks

test: $(STAMP)  ## every test, notebooks and the real-browser test included, on every core (pytest-xdist)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadgroup --durations=20

check: $(STAMP)  ## the inner loop: lint and every fast test (no kernel, browser, sandbox, gradebook or drawing of every figure): about 90 s on 2 cores
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -q -n $(TEST_JOBS) -m "not slow" tests

test-browser: $(STAMP)  ## only the real-browser test (also part of `make test`): JupyterLab in headless Chromium
	$(PY) -m pytest -q tests/browser

demo: $(STAMP)  ## the city task as agent and as workflow, side by side
	$(PY) -m agentlab compare --png compare.png

grade: $(STAMP)  ## grade your exercises
	@$(PY) -m pytest -q --tb=short exercises

# The instructor kit's slides: one reveal.js deck per notebook and edition in build/slides/, with reveal.js and
# require.js copied beside them (so they present offline), at the versions scripts/slides/package-lock.json pins.
slides: $(STAMP)  ## build the instructor kit's slides into build/slides/ (needs npm once, for reveal.js 5)
	@mkdir -p build/slides-assets && cp scripts/slides/package.json scripts/slides/package-lock.json build/slides-assets/
	cd build/slides-assets && npm ci --no-audit --no-fund --loglevel=error
	$(PY) scripts/build_kit.py slides --assets build/slides-assets/node_modules

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
