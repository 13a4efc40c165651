# Two entry points: `make demo` (the main job on a throwaway project) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	touch $@

demo: $(VENV)/.installed
	$(BIN)/rewind demo

test: $(VENV)/.installed
	$(BIN)/python -m pytest
	$(BIN)/ruff check rewind tests
	$(BIN)/ruff format --check rewind tests
	$(BIN)/mypy

# Installed packages ship byte-compiled modules; an editable install under
# PYTHONDONTWRITEBYTECODE would recompile every module of every hook process instead.
bench: $(VENV)/.installed
	$(BIN)/python -m compileall -q rewind
	$(BIN)/python -m tests.bench

clean:
	rm -rf $(VENV)
