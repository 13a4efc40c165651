# Entry points: `make demo` (the main job on a throwaway project), `make test`, and `make faults`
# (the fault suite in its long mode: hundreds of kill -9, 16 x 500 hook events).
PYTHON ?= python3
# Test workers (pytest-xdist): one more than the processors this may run on, since most tests
# wait on the real rewind and git processes they start; JOBS=0 runs the suite in this one process.
JOBS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) + 1)' 2>/dev/null || echo auto)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test faults bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	touch $@

demo: $(VENV)/.installed
	$(BIN)/rewind demo

test: $(VENV)/.installed
	$(BIN)/python -m pytest -n $(JOBS) --dist loadscope
	$(BIN)/ruff check rewind tests setup.py
	$(BIN)/ruff format --check rewind tests setup.py
	$(BIN)/mypy

faults: $(VENV)/.installed
	REWIND_FAULTS=long $(BIN)/python -m pytest tests/faults -s

# Installed packages ship byte-compiled modules; an editable install under
# PYTHONDONTWRITEBYTECODE would recompile every module of every hook process instead.
bench: $(VENV)/.installed
	$(BIN)/python -m compileall -q rewind
	$(BIN)/python -m tests.bench

clean:
	rm -rf $(VENV)
