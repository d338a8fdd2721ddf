"""`stateforge mcp`: resolve what to serve, set logging to stderr, and serve in the foreground until stopped.

    run_mcp("music", transport="http", port=8765)   # until SIGINT / SIGTERM; exit 0 after a clean stop

stdout belongs to the stdio transport, so everything a person reads (the address, sessions opening and
ending, warnings) goes to stderr, through `logging`.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path

from stateforge.mcp.errors import ServeError
from stateforge.mcp.http import EVICT_IDLE, IDLE_TIMEOUT, MAX_SESSIONS, serve_mcp
from stateforge.mcp.stdio import run_stdio
from stateforge.mcp.target import load_target, resolve_database
from stateforge.tools.actor import Actor

log = logging.getLogger("stateforge.mcp")
TRANSPORTS = ("stdio", "http")


def run_mcp(
    domain_or_db: str,
    *,
    db: str | Path | None = None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    persist: bool = False,
    pack: str | Path | None = None,
    idle_timeout: float | None = IDLE_TIMEOUT,
    max_sessions: int = MAX_SESSIONS,
    evict_idle: float | None = EVICT_IDLE,
    actor: str | None = None,
    roles: tuple[str, ...] = (),
) -> None:
    """Serve a pack's database (or a database file) over stdio or streamable HTTP until stopped; with
    `actor` (`--as`), every session acts as that person, in `roles` (`--role`; none: all they hold)."""
    if transport not in TRANSPORTS:
        raise ServeError(f"--transport is {transport!r}; use stdio or http.")
    setup_logging()
    path, pack_dir = resolve_database(domain_or_db, db=db)
    if roles and actor is None:
        raise ServeError("--role needs --as PERSON (whose role it is).")
    who = Actor(person=actor, roles=roles) if actor is not None else None
    target = load_target(path, pack=pack or pack_dir, actor=who)
    if target.actor is not None:
        log.info("every session acts as %s", target.actor.describe())
    mode = (
        f"calls write {path} itself, one session at a time (--persist)"
        if persist
        else "every session works on its own copy; the database is never changed"
    )
    if transport == "stdio":
        log.info("serving %s (%d tools) over stdio: %s", target.name, len(target.toolkit), mode)
        run_stdio(target, persist=persist)
        return
    handle = serve_mcp(
        path,
        host=host,
        port=port,
        persist=persist,
        pack=pack or pack_dir,
        idle_timeout=idle_timeout,
        max_sessions=max_sessions,
        evict_idle=evict_idle,
        actor=target.actor,
    )
    log.info("serving %s (%d tools) at %s: %s. Ctrl-C stops.", target.name, len(target.toolkit), handle.url,
             mode)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not stop.is_set() and handle.running:
            stop.wait(0.5)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        handle.close()
    if not stop.is_set():
        raise ServeError("the MCP HTTP server stopped on its own; the log above says why.")
    served = len(handle.sessions)
    log.info("stopped after %d session%s", served, "" if served == 1 else "s")


def setup_logging() -> None:
    """Log to stderr: Stateforge's server at INFO, everything else (the SDK, uvicorn) at WARNING."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S"))
        root.addHandler(handler)
        root.setLevel(logging.WARNING)
    logging.getLogger("stateforge.mcp").setLevel(logging.INFO)
