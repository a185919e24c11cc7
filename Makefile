# Two commands for a fresh machine with Python 3.11+: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

NODE_STAMP := node_modules/.installed

.PHONY: run test test-fast test-slow lint typecheck js-check js-check-run wheel-check bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[all,dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/marrakech serve

# The default run leaves out the long runs marked `slow` (pyproject's addopts; `make
# test-slow` runs them). Each run ends with its ten slowest tests.
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadgroup --durations=10

# The compiled kernels are built once, by `marrakech compile` in the background while the
# checks run, rather than by each test worker on its first use (minutes on a cold cache).
test: $(STAMP)
	@$(BIN)/marrakech compile >$(VENV)/compile.log 2>&1 & compiling=$$!; \
	$(MAKE) --no-print-directory lint typecheck js-check || { kill $$compiling; exit 1; }; \
	wait $$compiling || echo "marrakech compile failed ($(VENV)/compile.log): the tests compile on first use"
	$(PYTEST)

# Before each commit: the engine and the in-process tests, without the end-to-end ones
# (browser, and e2e: server and command processes, PostgreSQL, the terminal app, a
# recipe tried in a copy of the package), which make test runs.
test-fast: $(STAMP)
	$(PYTEST) -m "not slow and not browser and not e2e"

test-slow: $(STAMP)
	$(PYTEST) -m slow

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks examples scripts
	$(BIN)/ruff format --check src tests benchmarks examples scripts
	$(BIN)/codespell

typecheck: $(STAMP)
	$(BIN)/mypy

# The page's JavaScript (served as written, no build step): the pinned dev tools from
# package-lock.json (npm ci, again when the lock changes), then types (tsc --checkJs over
# JSDoc), eslint and the unit tests of the pure modules (node --test tests/js/).
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

# Without Node.js and npm the checks are skipped, saying so (as the browser tests are
# without Chromium): `make test` needs nothing but Python; CI (.ci/run) installs them.
js-check:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory js-check-run; \
	else \
		echo "js-check SKIPPED: Node.js and npm are not installed (apt-get install -y nodejs npm)"; \
	fi

js-check-run: $(NODE_STAMP)
	node_modules/.bin/tsc -p tsconfig.json
	node_modules/.bin/eslint src/marrakech/web/static/js src/marrakech/web/static/sw.js tests/js eslint.config.js
	node --test tests/js/

# Build the wheel, install it in clean virtual environments (no extras; then [web]) and
# check it there: imports from site-packages, perft, tests/core, and the web app's page.
wheel-check:
	PYTHON=$(PYTHON) scripts/check_wheel.sh

bench: $(STAMP)
	$(BIN)/marrakech bench --players 4 --games 5000

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache node_modules
