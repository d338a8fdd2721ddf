"""Serve the deployments of every domain pack from this process: `build-domain/<pack>`,
`generate-tasks/<pack>`, `evaluate/<pack>` and `release/<pack>`.

`make serve` starts a local Prefect server and runs this; then
`prefect deployment run build-domain/music --watch` builds the music pack,
`prefect deployment run generate-tasks/music --watch` makes its tasks and
`prefect deployment run evaluate/music -p solver=oracle -p k=3 --watch` evaluates a solver on them and
`prefect deployment run release/music -p version=1.0.0 -p baseline=oracle,noop --watch` makes a release.

SIGTERM or Ctrl-C stops serving within seconds (exit 0) whether or not the API still answers; an API that
stays gone for `api_grace` seconds stops it with exit 1 (`serve_deployments`).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
import urllib.request
from uuid import UUID

from prefect import get_client
from prefect.runner import Runner
from prefect.settings import PREFECT_API_URL

from stateforge.domain import list_domains
from stateforge.flows.build_domain import build_domain
from stateforge.flows.evaluate import evaluate
from stateforge.flows.generate_tasks import generate_tasks
from stateforge.flows.release import release

LOG = logging.getLogger("stateforge.serve")
HEALTH_EVERY = 2.0
"""Seconds between two health checks of the Prefect API while serving."""
STOP_TIMEOUT = 5.0
"""Seconds a stop waits for the runner to wind down before the process exits anyway."""

# Each flow served per pack, with what its deployment does ({pack} is the pack's name).
_FLOWS = (
    (build_domain, "Build the {pack} domain pack offline into artifacts/{pack}/."),
    (generate_tasks, "Generate the {pack} tasks on artifacts/{pack}/{pack}.duckdb (build it first)."),
    (
        evaluate,
        "Evaluate a solver (-p solver=NAME) on the {pack} tasks; the run goes to artifacts/{pack}/runs/.",
    ),
    (
        release,
        "Release the {pack} pack (-p version=V, -p baseline=oracle,noop): build, tasks, baselines and a "
        "reproducible bundle in artifacts/releases/{pack}-<V>/.",
    ),
)


def deployments(packs: list[str] | None = None) -> list:
    """The `build-domain/<pack>`, `generate-tasks/<pack>`, `evaluate/<pack>` and `release/<pack>`
    deployments of each pack (all packs by default)."""
    return [
        flow.to_deployment(
            name=pack,
            parameters={"domain": pack},
            description=description.format(pack=pack),
            tags=["stateforge", pack],
        )
        for pack in packs or list_domains()
        for flow, description in _FLOWS
    ]


def serve_deployments(
    packs: list[str] | None = None,
    *,
    limit: int | None = 1,
    api_grace: float = 60.0,
    pause_timeout: float = 5.0,
) -> int:
    """Serve the deployments until asked to stop (SIGTERM, Ctrl-C) or the Prefect API stays gone.

    One run at a time by default (builds, generation and evaluation are CPU-bound). Returns the exit code:
    0 after a requested stop, whether or not the API still answers (pausing the deployments is best effort,
    bounded by `pause_timeout` seconds); 1 when the API has not answered for `api_grace` seconds. A lost
    connection is one warning line, not a traceback, and the health check retries every
    `HEALTH_EVERY` seconds until it answers again or the grace runs out.
    """
    quiet_connection_tracebacks()
    if not LOG.handlers:  # Prefect's logging setup leaves the root at WARNING: our lines go to stderr
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(
            "%(asctime)s.%(msecs)03d | %(levelname)-7s | %(name)s - %(message)s", datefmt="%H:%M:%S"))
        LOG.addHandler(handler)
        LOG.setLevel(logging.INFO)
        LOG.propagate = False
    runner = Runner(pause_on_shutdown=False, limit=limit)
    served = deployments(packs)
    ids = register(runner, served, api_grace=api_grace)
    if ids is None:
        return 1
    for d in served:
        LOG.info("serving %s/%s", d.flow_name, d.name)
    failed: list[BaseException] = []

    def run_loop() -> None:
        try:
            asyncio.run(runner.start())
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            failed.append(exc)

    # The runner's loop runs off the main thread, so Prefect leaves the signals to us: a stop must not
    # wait on an API that is gone.
    loop = threading.Thread(target=run_loop, name="stateforge-serve", daemon=True)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    loop.start()
    code, down_since = 0, None
    try:
        while not stop.wait(HEALTH_EVERY) and loop.is_alive():
            problem = api_problem()
            if problem is None:
                if down_since is not None:
                    LOG.warning("the Prefect API answers again: serving on")
                down_since = None
                continue
            if down_since is None:
                down_since = time.monotonic()
                LOG.warning("the Prefect API at %s does not answer (%s); retrying for up to %.0f s",
                            api_url(), problem, api_grace)
            elif time.monotonic() - down_since > api_grace:
                LOG.error("the Prefect API at %s has not answered for %.0f s: stopping. Start the server "
                          "again (make serve) and rerun `stateforge serve`.", api_url(), api_grace)
                code = 1
                break
        if failed:
            LOG.error("serving stopped: %s: %s", type(failed[0]).__name__, failed[0])
            code = 1
        elif code == 0:
            LOG.info("stop requested: pausing the deployments and stopping")
            pause(ids, timeout=pause_timeout)
    finally:
        if loop.is_alive():
            try:
                runner.execute_in_background(runner.astop).result(timeout=STOP_TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - stopping is best effort; the process exits anyway
                LOG.warning("the runner did not stop cleanly within %.0f s (%s)", STOP_TIMEOUT, exc)
            loop.join(STOP_TIMEOUT)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code


def register(runner: Runner, served: list, *, api_grace: float) -> list[UUID] | None:
    """Register the deployments with the API, waiting up to `api_grace` seconds for an API that does not
    answer yet (a server still starting, or busy): one warning line, then retries every `HEALTH_EVERY`
    seconds. None (with an error line) when it never answered."""
    ids: list[UUID] = []
    down_since: float | None = None
    for deployment in served:
        while True:
            problem = api_problem()
            if problem is None:
                try:
                    ids.append(runner.add_deployment(deployment))
                    break
                except Exception as exc:  # noqa: BLE001 - a lost connection is retried, anything else raises
                    if not lost_connection(exc):
                        raise
                    problem = f"{type(exc).__name__}: {exc}"
            if down_since is None:
                down_since = time.monotonic()
                LOG.warning("the Prefect API at %s does not answer (%s); registering the deployments "
                            "when it does, for up to %.0f s", api_url(), problem, api_grace)
            elif time.monotonic() - down_since > api_grace:
                LOG.error("the Prefect API at %s has not answered for %.0f s: nothing is served. Start the "
                          "server (make serve) and rerun `stateforge serve`.", api_url(), api_grace)
                return None
            time.sleep(HEALTH_EVERY)
    return ids


def lost_connection(exc: BaseException) -> bool:
    """True when `exc`, or an exception it was raised from, is a lost or refused connection."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionError | TimeoutError) or type(seen).__module__.split(".")[0] in (
            ConnectionLost.KINDS
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def api_url() -> str:
    """The Prefect API this process talks to (PREFECT_API_URL)."""
    return str(PREFECT_API_URL.value() or "")


def api_problem(timeout: float = 3.0) -> str | None:
    """None when the API's /health answers 200 within `timeout` seconds, else what went wrong (one line)."""
    try:
        with urllib.request.urlopen(f"{api_url().rstrip('/')}/health", timeout=timeout) as reply:
            return None if reply.status == 200 else f"HTTP {reply.status}"
    except (OSError, ValueError) as exc:
        return f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"


def pause(ids: list[UUID], *, timeout: float) -> None:
    """Pause the served deployments, giving up after `timeout` seconds with one log line (the API may be
    gone: a stop never waits on it)."""
    done = threading.Event()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with get_client(sync_client=True) as client:
                for deployment_id in ids:
                    client.pause_deployment(deployment_id)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="stateforge-pause", daemon=True).start()
    if not done.wait(timeout) or errors:
        why = f"{type(errors[0]).__name__}: {errors[0]}" if errors else f"no answer within {timeout:.0f} s"
        LOG.warning("could not pause the %d deployments (%s): they stay active on the server", len(ids), why)
    else:
        LOG.info("paused the %d deployments", len(ids))


class ConnectionLost(logging.Filter):
    """Turns a log record that carries a lost-connection exception (the API or its events websocket gone)
    into one warning line without its traceback."""

    KINDS = ("websockets", "httpx", "httpcore", "anyio")

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and lost_connection(exc):
            record.msg = f"{record.getMessage()} ({type(exc).__name__}: {exc}); retrying"
            record.args = ()
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_connection_tracebacks() -> None:
    """Put `ConnectionLost` on every handler that Prefect's logging set up (and the root's)."""
    names = ["", *logging.root.manager.loggerDict]
    for name in names:
        found = logging.getLogger(name)
        for handler in getattr(found, "handlers", []):
            if not any(isinstance(f, ConnectionLost) for f in handler.filters):
                handler.addFilter(ConnectionLost())
