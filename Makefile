# Pairbench: `make run` starts the workbench, `make test` runs every check. Both set up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup system vendor run test lint pytest bench bundle bundle-test clean

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

# tests/bundle: the spec and resource checks, and the bundle's smoke test, always run. The smoke
# test runs against $$PAIRBENCH_BUNDLE when it names a bundle already built (DIR/pairbench),
# else against dist/pairbench built afresh first (`make bundle`: about 45 s here, the smoke
# tests about 20 s more).
BUNDLE_UNDER_TEST := $(or $(PAIRBENCH_BUNDLE),$(abspath dist/pairbench))

# --durations: the 25 slowest tests are listed at the end, to keep the suite's time in view.
pytest: setup $(if $(PAIRBENCH_BUNDLE),,bundle)
	@echo "pytest: smoke-testing the bundle $(BUNDLE_UNDER_TEST)"
	QT_QPA_PLATFORM=offscreen PAIRBENCH_BUNDLE=$(BUNDLE_UNDER_TEST) \
		$(BIN)/pytest -q -p no:cacheprovider --durations=25

test: lint pytest

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
