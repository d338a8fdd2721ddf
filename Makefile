# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
LOCK   := requirements.lock
DOMAIN ?= music

export PREFECT_HOME ?= $(CURDIR)/.prefect
export PREFECT_SERVER_ANALYTICS_ENABLED ?= false
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 90

.PHONY: run test venv lock serve serve-stop lint clean

## The project's venv: every package at the version requirements.lock pins, then Stateforge itself
## (editable, no dependency resolution), so every machine gets the same transitive versions.
venv: $(STAMP)

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

## Re-pin requirements.lock after changing the dependencies in pyproject.toml: a fresh venv resolves
## '.[dev]' and every installed distribution is written down with ==.
LOCK_VENV := .lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install --quiet '.[dev]'
	{ echo "# Every package of '.[dev]', transitive ones included, pinned: written by 'make lock', read by"; \
	  echo "# 'make venv'. Edit pyproject.toml, then run 'make lock'; never edit this file by hand."; \
	  $(LOCK_VENV)/bin/python -m pip freeze --all --exclude-editable | grep -v -E '^(pip|stateforge)( ?@|==)'; \
	} > $(LOCK)
	rm -rf $(LOCK_VENV) build

## Build the default domain offline into artifacts/$(DOMAIN)/.
run: $(STAMP)
	$(BIN)/stateforge build-domain $(DOMAIN)

## The whole test suite (CI calls this).
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

lint: $(STAMP)
	$(BIN)/ruff check pipeline validation flows tests bench

clean:
	rm -rf artifacts/*/ .pytest_cache .hypothesis

## A local Prefect server (port 4200) and the build-domain and generate-tasks deployments of every pack;
## Ctrl-C stops serving.
PREFECT_PORT ?= 4200
serve: $(STAMP)
	PREFECT_API_URL= $(BIN)/prefect server start --background --host 127.0.0.1 --port $(PREFECT_PORT) --no-ui
	PREFECT_API_URL=http://127.0.0.1:$(PREFECT_PORT)/api $(BIN)/prefect server status --wait --timeout 120
	PREFECT_API_URL=http://127.0.0.1:$(PREFECT_PORT)/api PREFECT_RUNNER_POLL_FREQUENCY=2 $(BIN)/stateforge serve

serve-stop: $(STAMP)
	$(BIN)/prefect server stop
