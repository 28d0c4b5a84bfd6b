# Two commands set everything up on a fresh machine: `make demo` and `make test`.
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# The Rust core (native/, the refuge_native module): rebuilt when its sources change; a machine
# without cargo runs everything in Python and is told so once.
NATIVE_STAMP   := $(VENV)/.native-stamp
NATIVE_SOURCES := $(wildcard native/Cargo.toml native/Cargo.lock native/*/Cargo.toml native/*/pyproject.toml \
                             native/*/src/*.rs)

.PHONY: demo test bench typecheck lint native native-identity native-bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,plot,openspiel,cluster,web]'
	touch $(STAMP)

$(NATIVE_STAMP): $(STAMP) $(NATIVE_SOURCES)
	@if command -v cargo >/dev/null 2>&1; then \
	    echo "building the native core (native/, release profile)"; \
	    $(BIN)/python -m pip install --quiet ./native/py || exit 1; \
	else \
	    echo "note: no Rust toolchain (cargo): the native core is not built; everything runs in Python"; \
	fi
	touch $(NATIVE_STAMP)

demo: $(NATIVE_STAMP)
	$(BIN)/refuge best-move opening-2p

test: $(NATIVE_STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider --benchmark-disable tests benchmarks

bench: $(NATIVE_STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider benchmarks --benchmark-only --benchmark-columns=min,median,mean,ops,rounds

typecheck: $(STAMP)
	$(BIN)/python -m mypy

lint: $(STAMP)
	$(BIN)/ruff check positions search advisor lab benchmarks tests

# Rebuild the Rust core into the virtual environment now (make demo / make test do when it changed).
native: $(STAMP)
	rm -f $(NATIVE_STAMP)
	$(MAKE) $(NATIVE_STAMP)

# The native rules proven equal to the Python kernel on 50,000 seeded games (CI runs 2,016).
native-identity: $(NATIVE_STAMP)
	REFUGE_NATIVE_GAMES=50000 $(BIN)/python -m pytest -q -p no:cacheprovider --benchmark-disable tests/native

# The crate's own benchmarks (criterion): copy, draw+apply, heuristic and random playouts.
native-bench:
	cd native && cargo bench -p refuge-core

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .benchmarks .hypothesis native/target
