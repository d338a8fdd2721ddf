"""Sessions: each MCP session's own episode over the served database, opened and closed with the session.

    sessions = Sessions(target)                       # a private copy per session
    sessions = Sessions(target, persist=True)         # the file itself, one session at a time
    sessions = Sessions(target, shared=episode)       # every session on an episode the caller owns
    record = sessions.open("8ff4dab7...")             # at the session's initialisation
    record.episode.call("get_user", {"user_id": 3})
    sessions.close("8ff4dab7...")                     # at its end (HTTP DELETE, idle timeout, process end)

Two sessions never see each other's writes and the base file is never written (DESIGN.md decision 6),
unless `persist`: then the one session at a time writes to the database itself, so that a person can run
an agent against it and open it with DuckDB afterwards. A second concurrent session is refused with a
`SessionRefused` that says why. Records of ended sessions keep their call log (the last `MAX_ENDED`).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from stateforge.episode import Episode, ToolResult
from stateforge.errors import StoreError
from stateforge.mcp.errors import SessionRefused
from stateforge.mcp.target import Target

log = logging.getLogger(__name__)

MAX_ENDED = 1000
"""Ended sessions whose records (and call logs) are kept; older ones are forgotten."""


@dataclass
class SessionRecord:
    """One MCP session and the episode behind it."""

    id: str
    episode: Episode
    opened: dt.datetime = field(default_factory=lambda: dt.datetime.now().astimezone())
    """When the session opened (the wall clock, for people; tools see only the episode's clock)."""
    ended: dt.datetime | None = None
    path: Path | None = None
    """The episode's database file (at the end back to the copy pool, unless kept or persisted)."""
    _final_log: list[ToolResult] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.path = self.episode.path

    @property
    def live(self) -> bool:
        """Whether the session is still open."""
        return self.ended is None

    @property
    def log(self) -> list[ToolResult]:
        """Every call of the session, in order (kept after it ended)."""
        return list(self._final_log) if self._final_log is not None else self.episode.log


class Sessions:
    """The live sessions of one server, each on its own episode of `target.db`."""

    def __init__(
        self,
        target: Target,
        *,
        persist: bool = False,
        workdir: str | Path | None = None,
        keep: bool = False,
        shared: Episode | None = None,
    ) -> None:
        self.target = target
        self.persist = persist
        self.workdir = workdir
        self.keep = keep
        self.shared = shared
        self._lock = threading.Lock()
        self._live: dict[str, SessionRecord] = {}
        self._ended: list[SessionRecord] = []
        self._writer: str | None = None
        """With persist: the session that holds (or is opening) the database."""

    @property
    def records(self) -> list[SessionRecord]:
        """Every session, ended ones first, in the order they opened."""
        with self._lock:
            return sorted([*self._ended, *self._live.values()], key=lambda r: r.opened)

    def get(self, session_id: str) -> SessionRecord | None:
        """The live session `session_id`, or None."""
        with self._lock:
            return self._live.get(session_id)

    def open(self, session_id: str) -> SessionRecord:
        """The session's record, opening its episode if it has none yet (a file copy; blocking).

        Raises `SessionRefused` when `persist` and another session holds the database, and `StoreError`
        when the episode cannot be opened.
        """
        with self._lock:
            found = self._live.get(session_id)
            if found is not None:
                return found
            if self.persist:
                if self._writer is not None:
                    raise SessionRefused(
                        f"{self.target.db} is being written by another session ({self._writer[:12]}): "
                        "with --persist the server writes the database itself, one session at a time. "
                        "End that session first, or serve without --persist to give every session its "
                        "own copy."
                    )
                self._writer = session_id
        try:
            episode = self.shared or self._open_episode()
        except BaseException:
            with self._lock:
                if self._writer == session_id:
                    self._writer = None
            raise
        record = SessionRecord(session_id, episode)
        with self._lock:
            raced = self._live.get(session_id)
            if raced is None:
                self._live[session_id] = record
        if raced is not None:  # the same session opened twice at once: keep the first
            if self.shared is None:
                episode.close()
            return raced
        log.info("session %s opened: %s", session_id[:12], _where(record, self))
        return record

    def _open_episode(self) -> Episode:
        try:
            return Episode.open(
                self.target.db,
                toolkit=self.target.toolkit,
                workdir=self.workdir,
                keep=self.keep,
                persist=self.persist,
                actor=self.target.actor,
            )
        except StoreError as exc:
            if not self.persist:
                raise
            raise StoreError(
                f"{exc} With --persist one server at a time writes the database: stop the other one "
                "(or end its session), or serve without --persist."
            ) from exc

    def close(self, session_id: str) -> None:
        """End the session: close its episode (its copy is deleted unless kept; persisted writes stay)."""
        with self._lock:
            record = self._live.pop(session_id, None)
        if record is None:
            return
        try:
            record._final_log = record.episode.log
            if self.shared is None:
                record.episode.close()
        finally:
            record.ended = dt.datetime.now().astimezone()
            with self._lock:
                if self._writer == session_id:
                    self._writer = None
                self._ended.append(record)
                del self._ended[:-MAX_ENDED]
        log.info("session %s ended after %d calls", session_id[:12], len(record._final_log or ()))

    def close_all(self) -> None:
        """End every live session (the server is stopping)."""
        with self._lock:
            ids = list(self._live)
        for session_id in ids:
            self.close(session_id)


def _where(record: SessionRecord, sessions: Sessions) -> str:
    if sessions.shared is not None:
        return f"on the shared episode {record.path}"
    if sessions.persist:
        return f"writing {record.path} itself (--persist)"
    return f"episode copy {record.path}"
