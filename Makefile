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

.PHONY: run test venv lock serve serve-stop lint clean browser bytecode

## The project's venv: every package at the version requirements.lock pins, then Stateforge itself
## (editable, no dependency resolution), so every machine gets the same transitive versions.
venv: $(STAMP) bytecode

## The project's own modules compiled to __pycache__/*.pyc, as pip does for a wheel: the editable install
## leaves them as sources, and where PYTHONDONTWRITEBYTECODE is set every process compiled ~300 modules
## again (~0.2 s of each `stateforge` command). Incremental: only sources newer than their .pyc are
## compiled; a stale .pyc is never read (its header records the source's mtime and size).
PACKAGES := stateforge
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q $(PACKAGES)

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
run: $(STAMP) bytecode
	$(BIN)/stateforge build-domain $(DOMAIN)

## The whole test suite (CI calls this). `browser` first: the HTML report's test renders it in Chromium.
test: $(STAMP) bytecode browser
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q

## Chromium from the Debian packages, for the browser tests (tests/html, tests/report): installed with apt
## when `chromium` is missing and apt can install (root); elsewhere this says how, and those tests skip.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "installing chromium (Debian package) for the browser tests"; \
	  (apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 || \
	   { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends chromium >/dev/null; }) \
	  || echo "could not install chromium: the browser tests will skip (run 'apt-get install chromium')"; \
	else echo "chromium is missing and apt-get is not usable here: the browser tests will skip" \
	  "(install Chromium as root with 'apt-get install chromium')"; fi

lint: $(STAMP)
	$(BIN)/ruff check stateforge tests bench

clean:
	rm -rf artifacts/*/ .pytest_cache .hypothesis

## A local Prefect server (port 4200) and the build-domain, generate-tasks, evaluate and release deployments
## of every pack; Ctrl-C stops serving (the server stays up: `make serve-stop` stops both).
PREFECT_PORT ?= 4200
serve: $(STAMP)
	PREFECT_API_URL= $(BIN)/prefect server start --background --host 127.0.0.1 --port $(PREFECT_PORT) --no-ui
	PREFECT_API_URL=http://127.0.0.1:$(PREFECT_PORT)/api $(BIN)/prefect server status --wait --timeout 120
	PREFECT_API_URL=http://127.0.0.1:$(PREFECT_PORT)/api PREFECT_RUNNER_POLL_FREQUENCY=2 $(BIN)/stateforge serve \
	  --pid-file $(PREFECT_HOME)/stateforge-serve.pid

## The serving process first (SIGTERM; it stops within seconds with or without the API), then the server.
serve-stop: $(STAMP)
	@pidfile=$(PREFECT_HOME)/stateforge-serve.pid; \
	if [ -f $$pidfile ] && kill -TERM $$(cat $$pidfile) 2>/dev/null; then \
	  echo "stopping stateforge serve (pid $$(cat $$pidfile))"; \
	  for i in $$(seq 30); do [ -f $$pidfile ] || break; sleep 0.5; done; \
	fi
	$(BIN)/prefect server stop
