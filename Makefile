# Pairbench: `make run` starts the workbench, `make test` runs every check. Both set up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup system run test lint pytest bench bundle bundle-test clean

setup: system $(STAMP)

system:
	@PYTHON=$(PYTHON) packaging/ensure-system.sh

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

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

# tests/bundle: the spec and resource checks always run; the bundle's smoke test only against
# a bundle already built ($$PAIRBENCH_BUNDLE, else dist/pairbench from `make bundle`), since a
# fresh build adds about a minute to a suite that is already near CI's budget
# (`make bundle-test` builds one).
BUNDLE_UNDER_TEST := $(or $(PAIRBENCH_BUNDLE),$(if $(wildcard dist/pairbench/pairbench),$(abspath dist/pairbench)))

pytest: setup
	$(if $(BUNDLE_UNDER_TEST),@echo "pytest: smoke-testing the bundle $(BUNDLE_UNDER_TEST)")
	QT_QPA_PLATFORM=offscreen $(if $(BUNDLE_UNDER_TEST),PAIRBENCH_BUNDLE=$(BUNDLE_UNDER_TEST)) \
		$(BIN)/pytest -q -p no:cacheprovider \
		$(if $(BUNDLE_UNDER_TEST),,--ignore=tests/bundle/test_bundle.py)

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
