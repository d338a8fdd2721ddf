# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DOMAIN ?= music

export PREFECT_HOME ?= $(CURDIR)/.prefect
export PREFECT_SERVER_ANALYTICS_ENABLED ?= false
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 90

.PHONY: run test venv serve serve-stop lint clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

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

## A local Prefect server (port 4200) and one build-domain deployment per pack; Ctrl-C stops serving.
PREFECT_PORT ?= 4200
serve: $(STAMP)
	PREFECT_API_URL= $(BIN)/prefect server start --background --host 127.0.0.1 --port $(PREFECT_PORT) --no-ui
	PREFECT_API_URL=http://127.0.0.1:$(PREFECT_PORT)/api $(BIN)/prefect server status --wait --timeout 120
	PREFECT_API_URL=http://127.0.0.1:$(PREFECT_PORT)/api PREFECT_RUNNER_POLL_FREQUENCY=2 $(BIN)/stateforge serve

serve-stop: $(STAMP)
	$(BIN)/prefect server stop
