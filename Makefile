# Two commands set everything up on a fresh machine: `make demo` and `make test`.
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test bench typecheck lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,plot,openspiel,cluster]'
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
	$(BIN)/ruff check positions search advisor benchmarks scripts tests

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .benchmarks .hypothesis
