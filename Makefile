# Inference Atlas — every command sets up what it needs on a fresh machine.
#   make serve   build and serve the site at http://127.0.0.1:8000 (an edited entry shows in about a second)
#   make test    run the whole test suite (unit, site build, browser, Lighthouse budgets)
VENV   ?= .venv
PYTHON ?= python3
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
NODE_STAMP = node_modules/.installed-$(shell cksum package-lock.json | cut -d' ' -f1)
export NO_MKDOCS_2_WARNING = 1

.PHONY: serve build test check bench bench-browser bench-serve browser clean

# Lighthouse (npm, pinned in package-lock.json) for the accessibility and performance budgets.
$(NODE_STAMP): package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	rm -f node_modules/.installed-* && touch $@

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[test]"
	rm -f $(VENV)/.installed-* && touch $@

# PyTorch for the GPU suite's CPU test (bench/gpu, tests/test_gpu_suite.py). The exact pin
# takes the CPU wheel that lies on this kind of machine's disk; a range would download a
# CUDA build of several GB. Not a project dependency: only the tests need it.
TORCH_STAMP = $(VENV)/.torch-2.13.0
$(TORCH_STAMP): $(STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check torch==2.13.0
	touch $@

# Zensical (Material's successor) for tests/test_markdown_export.py, which builds the folder
# `atlas markdown` writes with it. 0.0.73 is the newest release the registry can install
# (from 0.0.74 on it needs zensical-ui, which the registry does not serve); it needs
# Python 3.11, and the test is skipped without it. Not a project dependency: only the test needs it.
ZENSICAL_STAMP = $(VENV)/.zensical-0.0.73
$(ZENSICAL_STAMP): $(STAMP)
	if $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then \
	  $(BIN)/pip install --quiet --disable-pip-version-check zensical==0.0.73; fi
	touch $@

# `atlas serve` (generator/serve/server.py) re-renders only the pages an edit changes; the output
# is what `make build` writes, byte for byte (tests/test_serve.py).
serve: $(STAMP)
	$(BIN)/atlas serve --host 127.0.0.1 --port 8000

build: $(STAMP)
	$(BIN)/mkdocs build

check: $(STAMP)
	$(BIN)/atlas check

# Browser tests drive Debian's Chromium (a browser cannot be downloaded here); the link test
# reads Debian's English word list (wamerican) to find term links that are everyday words.
browser:
	@test -x /usr/bin/chromium -a -f /usr/share/dict/words || { \
	  echo "installing Debian's chromium and wamerican for the tests"; \
	  SUDO=$$(test "$$(id -u)" = 0 || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium wamerican >/dev/null; }

test: $(STAMP) $(TORCH_STAMP) $(ZENSICAL_STAMP) $(NODE_STAMP) browser
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest

clean:
	rm -rf site .pytest_cache

bench: $(STAMP)
	$(BIN)/python -m bench.build --sizes 100 1000 3000 --repeat 3 --out bench-out --page docs/benchmark.md

# What a reader waits for, in Chromium: Lighthouse scores and paint times, graph redraws
# (median and spread of five runs). Timings live here, never in the pass/fail tests.
bench-browser: $(STAMP) $(NODE_STAMP) browser
	$(BIN)/python -m bench.browser --runs 5 --out bench-out --page docs/benchmark-browser.md

# What an author waits for under `make serve`: edit to served page, beside a clean build
# (median and range of five runs, the real knowledge base and 1,000 synthetic entries).
bench-serve: $(STAMP)
	$(BIN)/python -m bench.serve --sizes real 1000 --runs 3 --out bench-out --page docs/benchmark-serve.md
