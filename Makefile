# Two commands set everything up on a fresh machine: `make demo` and `make test`.
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test bench typecheck lint native clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,plot,openspiel,cluster,native,web]'
	$(BIN)/python scripts/build_native.py
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/refuge best-move opening-2p

test: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider --benchmark-disable tests benchmarks

bench: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider benchmarks --benchmark-only --benchmark-columns=min,median,mean,ops,rounds

typecheck: $(STAMP)
	$(BIN)/python -m mypy

lint: $(STAMP)
	$(BIN)/ruff check positions search advisor lab benchmarks scripts tests

# Recompile the hot path (positions/kernel/rules.py, positions/kernel/heuristics.py) after editing it; until then
# the edited sources run as Python (positions/native.py keeps stale builds out).
native: $(STAMP)
	$(BIN)/python scripts/build_native.py

clean:
	$(PYTHON) scripts/build_native.py --clean
	rm -rf $(VENV) build *.egg-info .pytest_cache .benchmarks .hypothesis
