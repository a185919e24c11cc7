# Two commands for a fresh machine with Python 3.11+: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast test-slow lint typecheck wheel-check bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/marrakech serve

test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -n 2 --dist loadgroup

test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -m "not slow and not browser"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m slow

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples scripts
	$(BIN)/ruff format --check src tests benchmarks examples scripts
	$(BIN)/codespell

typecheck: $(STAMP)
	$(BIN)/mypy

# Build the wheel, install it in clean virtual environments (no extras; then [web]) and
# check it there: imports from site-packages, perft, tests/core, and the web app's page.
wheel-check:
	PYTHON=$(PYTHON) scripts/check_wheel.sh

bench: $(STAMP)
	$(BIN)/marrakech bench --players 4 --games 5000

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
