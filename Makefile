# Pairbench: `make run` starts the workbench, `make test` runs every check, `make check` the quick
# loop (lint and the tests that need no lab). All set up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup system vendor run test check lint pytest bench bundle bundle-test clean

setup: system $(STAMP) vendor

system:
	@PYTHON=$(PYTHON) packaging/ensure-system.sh

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

# uperf and iperf3 3.21 for the lab, built once per pinned archive into a cache outside the
# repository (from $$PAIRBENCH_VENDOR_DIR or ../shared/vendor, else downloaded; sha256-checked).
vendor: $(STAMP)
	@$(BIN)/python packaging/vendor_tools.py

run: setup
	@if [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ] && [ "$$QT_QPA_PLATFORM" != "offscreen" ]; then \
		echo "No display: starting the workbench on a virtual X server (xvfb-run)"; \
		xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/pairbench; \
	else \
		$(BIN)/pairbench; \
	fi

lint: setup
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

# make test (what CI runs): lint, the bundle build (into dist/, unless $$PAIRBENCH_BUNDLE names
# one already built) and the tests on $${PAIRBENCH_TEST_WORKERS:-4} pytest-xdist workers all at
# once; then the tests that must run alone and the bundle's smoke tests. Each part's output is
# printed whole; the run ends with the 25 slowest tests and the total time (tests/suite_runner.py,
# tests/README.md).
test: setup
	@$(BIN)/python tests/suite_runner.py test

# The quick loop after each change: lint and the unit and window tests, at once.
check: setup
	@$(BIN)/python tests/suite_runner.py check

# The whole suite in one plain pytest session (no workers; the default lab), as before.
pytest: setup
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -q -p no:cacheprovider --durations=25

bench: setup
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench

# The desktop package: dist/pairbench/ (one-folder PyInstaller bundle) and
# dist/pairbench-VERSION-linux-x86_64.tar.gz, built from a clean work directory.
bundle: setup
	PYTHON=$(abspath $(BIN)/python) packaging/build-bundle.sh dist

# Smoke test: builds a fresh bundle in a temporary directory, unpacks its tarball elsewhere,
# opens the window (offscreen and on Xvfb), runs iperf3 through it, exports charts.
bundle-test: setup
	env -u PAIRBENCH_BUNDLE QT_QPA_PLATFORM=offscreen $(BIN)/pytest -q -p no:cacheprovider tests/bundle

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache dist
