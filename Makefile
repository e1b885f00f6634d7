# Pairbench: `make run` starts the workbench, `make test` runs every check. Both set up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup system run test lint pytest bench clean

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

pytest: setup
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -q -p no:cacheprovider

test: lint pytest

bench: setup
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
