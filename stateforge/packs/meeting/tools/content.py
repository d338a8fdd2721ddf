"""What meetings leave behind: cloud recordings (list, delete, keep longer) and meeting notes (read what a
person may see, write, edit, delete)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change, create
from stateforge.tools.policies import refuse
from stateforge.tools.where import Where

from .common import (
    RETENTION_DAYS,
    Limit,
    Meeting,
    MeetingRef,
    Offset,
    find_meeting,
    find_person,
    person_id,
    title_of,
    who,
)

Visibility = Literal["attendees", "private", "organization"]
Body = Annotated[str, Field(min_length=1, max_length=10000)]
RecordingIds = Annotated[
    list[int], Field(max_length=500, description="Recording ids (list_recordings shows them).")
]
_RECORDINGS = """
    SELECT c.recording_id, c.meeting_id, m.title, m.start_at AS meeting_start, c.created_at,
           round(c.duration_seconds / 60.0, 1) AS minutes, round(c.size_bytes / 1e6, 1) AS size_mb, c.format,
           c.transcript_status, c.retention_until, c.storage_url,
           o.first_name || ' ' || o.last_name AS organizer, o.email AS organizer_email,
           s.first_name || ' ' || s.last_name AS started_by, m.organizer_id, c.started_by AS starter_id
    FROM recordings AS c JOIN meetings AS m ON m.meeting_id = c.meeting_id
    JOIN employees AS o ON o.employee_id = m.organizer_id
    LEFT JOIN employees AS s ON s.employee_id = c.started_by
"""
_REC_READS = ("recordings", "meetings", "employees")


@tool(reads=_REC_READS)
def list_recordings(
    env: Env,
    person: str | None = None,
    meeting: MeetingRef | None = None,
    from_date: dt.date | None = None,
    to_date: dt.date | None = None,
    transcript_status: Literal["none", "processing", "ready", "failed"] | None = None,
    format: Literal["mp4", "m4a", "webm"] | None = None,
    min_size_mb: Annotated[float, Field(ge=0)] | None = None,
    sort_by: Literal["created_at", "size", "duration"] = "created_at",
    descending: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Cloud recordings: a person's (of meetings they organised, or that they started), a meeting's, or all,
    by recording date, transcript state, file format and size. Rows show the recording id, meeting, length in
    minutes, size in MB, transcript state and how long it is kept.

    Args:
        person: Only recordings this person manages (email, employee number or full name).
        meeting: Only recordings of this meeting (its id or 9-digit code).
        from_date: Only recordings made on or after this day.
        to_date: Only recordings made on or before this day.
        transcript_status: Only recordings whose transcript is in this state.
        format: Only recordings in this file format.
        min_size_mb: Only recordings at least this large, in MB.
        sort_by: Order by recording time, size or length.
        descending: Reverse the order (e.g. largest first).
    """
    where = Where()
    if person:
        pid = person_id(env, person)
        where.add("organizer_id = ? OR starter_id = ?", pid, pid)
    if meeting is not None:
        where.add("meeting_id = ?", find_meeting(env, meeting)["meeting_id"])
    where.when(from_date and dt.datetime.combine(from_date, dt.time(0)), "created_at >= ?")
    where.when(to_date and dt.datetime.combine(to_date, dt.time(0)) + dt.timedelta(days=1), "created_at < ?")
    where.when(transcript_status, "transcript_status = ?").when(format, "format = ?")
    where.when(min_size_mb, "size_mb >= ?")
    way = " DESC" if descending else ""
    order = {"created_at": f"created_at{way}", "size": f"size_mb{way}", "duration": f"minutes{way}"}[sort_by]
    sql = f"SELECT * EXCLUDE (organizer_id, starter_id) FROM ({_RECORDINGS}) AS x WHERE {where.sql}"
    return env.page(sql, where.params, order_by=f"{order}, recording_id", limit=limit, offset=offset)


def _managed(env: Env, person: dict, ids: list[int]) -> list[dict]:
    """The recordings `ids`, each managed by `person` (organizer of its meeting, or who started it)."""
    rows = env.query(
        f"SELECT * FROM ({_RECORDINGS}) AS x WHERE recording_id IN (SELECT unnest(?)) ORDER BY recording_id",
        [ids],
    )
    missing = sorted(set(ids) - {r["recording_id"] for r in rows})
    if missing:
        raise ToolError(f"no recording {', '.join(map(str, missing))}; list_recordings shows the ids.")
    foreign = [
        r["recording_id"] for r in rows if person["employee_id"] not in (r["organizer_id"], r["starter_id"])
    ]
    if foreign:
        raise refuse(
            "recording_retention",
            f"{who(person)} neither organised the meeting of nor started recording(s) "
            f"{', '.join(map(str, foreign))}; only they may manage them.",
        )
    return rows


@change(reads=_REC_READS, writes=("recordings",))
def delete_recordings(
    env: Env,
    person: str,
    recording_ids: RecordingIds = [],  # noqa: B006 - a pydantic default, copied per call
    meeting: MeetingRef | None = None,
    created_before: dt.date | None = None,
) -> dict:
    """Delete cloud recordings a person manages: given ids, every recording of a meeting, and/or every one
    they manage made before a day. Recordings are kept at least 30 days after they were made: younger ones
    cannot be deleted.

    Args:
        person: Who deletes: the meeting's organizer or whoever started the recording (email, employee number
            or full name).
        recording_ids: These recordings.
        meeting: Every recording of this meeting (its id or 9-digit code).
        created_before: Every recording they manage made before this day.
    """
    p = find_person(env, person, active=False)
    ids = list(recording_ids)
    if meeting is not None:
        m = find_meeting(env, meeting)
        ids += [
            r["recording_id"]
            for r in env.query("SELECT recording_id FROM recordings WHERE meeting_id = ?", [m["meeting_id"]])
        ]
        if not ids:
            raise ToolError(f"{title_of(m)} has no recordings.")
    if created_before is not None:
        ids += [
            r["recording_id"]
            for r in env.query(
                f"SELECT recording_id FROM ({_RECORDINGS}) AS x WHERE (organizer_id = ? OR starter_id = ?) "
                "AND created_at < ?",
                [p["employee_id"], p["employee_id"], dt.datetime.combine(created_before, dt.time(0))],
            )
        ]
    if not ids:
        raise ToolError(
            "nothing to delete: give recording_ids, a meeting, or created_before (matching none)."
        )
    rows = _managed(env, p, sorted(set(ids)))
    young = [r["recording_id"] for r in rows if r["created_at"] > env.now - dt.timedelta(days=RETENTION_DAYS)]
    if young:
        raise refuse(
            "recording_retention",
            f"recording(s) {', '.join(map(str, young))} are less than {RETENTION_DAYS} days old and "
            "must be kept; leave them out.",
        )
    deleted = env.delete_where(
        "recordings", "recording_id IN (SELECT unnest(?))", [[r["recording_id"] for r in rows]]
    )
    return {
        "deleted": deleted,
        "recording_ids": [r["recording_id"] for r in rows],
        "freed_mb": round(sum(float(r["size_mb"]) for r in rows), 1),
    }


@change(reads=_REC_READS, writes=("recordings",))
def set_recording_retention(
    env: Env, person: str, recording_ids: RecordingIds, retention_until: dt.date | None = None
) -> dict:
    """Set until when recordings are kept (or, without a date, keep them until deleted). The date is in the
    future and at least 30 days after each recording was made.

    Args:
        person: Who decides: the meeting's organizer or whoever started the recording (email, employee number
            or full name).
        recording_ids: The recordings.
        retention_until: The last day to keep them; leave out to keep them indefinitely.
    """
    p = find_person(env, person, active=False)
    if not recording_ids:
        raise ToolError("give the recording ids.")
    rows = _managed(env, p, sorted(set(recording_ids)))
    if retention_until is not None:
        if retention_until <= env.today:
            raise ToolError(f"retention_until must be after today ({env.today}).")
        short = [
            r["recording_id"]
            for r in rows
            if retention_until < r["created_at"].date() + dt.timedelta(days=RETENTION_DAYS)
        ]
        if short:
            raise refuse(
                "recording_retention",
                f"recording(s) {', '.join(map(str, short))} must be kept at least {RETENTION_DAYS} days "
                "after they were made; choose a later date."
            )
    changed = env.update_where(
        "recordings",
        "recording_id IN (SELECT unnest(?))",
        [[r["recording_id"] for r in rows]],
        {"retention_until": retention_until},
    )
    return {"updated": changed, "retention_until": retention_until}


def _participants(env: Env, meeting: dict) -> set[int]:
    return {meeting["organizer_id"]} | {
        a["employee_id"]
        for a in env.query(
            "SELECT employee_id FROM meeting_attendees WHERE meeting_id = ?", [meeting["meeting_id"]]
        )
    }


_NOTE_READS = ("meeting_notes", "meetings", "employees", "meeting_attendees")


@tool(reads=_NOTE_READS)
def list_meeting_notes(env: Env, meeting: Meeting, viewer: str) -> dict:
    """The notes of a meeting that a person may read: organization-wide notes, notes for attendees when they
    organise or are invited to it, and their own private notes; oldest first.

    Args:
        viewer: Who reads: an email address, an employee number (E and seven digits) or a full name.
    """
    m = find_meeting(env, meeting)
    p = find_person(env, viewer, role="viewer", active=False)
    member = p["employee_id"] in _participants(env, m)
    notes = env.query(
        """
        SELECT n.note_id, a.first_name || ' ' || a.last_name AS author, a.email AS author_email, n.visibility,
               n.body, n.created_at, n.updated_at
        FROM meeting_notes AS n JOIN employees AS a ON a.employee_id = n.author_id
        WHERE n.meeting_id = ? AND (n.visibility = 'organization' OR (n.visibility = 'attendees' AND ?)
              OR n.author_id = ?)
        ORDER BY n.created_at, n.note_id
        """,
        [m["meeting_id"], member, p["employee_id"]],
    )
    return {"meeting_id": m["meeting_id"], "title": m["title"], "viewer": who(p), "notes": notes}


@create(reads=_NOTE_READS, writes=("meeting_notes",))
def add_meeting_note(
    env: Env, meeting: Meeting, author: str, body: Body, visibility: Visibility = "attendees"
) -> dict:
    """Write a note on a meeting (not a cancelled one); only its organizer and invitees write notes.

    Args:
        author: Who writes: an email address, an employee number (E and seven digits) or a full name.
        body: The note's text.
        visibility: attendees (organizer and invitees), private (only the author) or organization (everyone).
    """
    m = find_meeting(env, meeting)
    p = find_person(env, author, role="author")
    if m["status"] == "cancelled":
        raise refuse("notes_privacy", f"{title_of(m)} was cancelled; notes go on meetings that take place.")
    if p["employee_id"] not in _participants(env, m):
        raise refuse(
            "notes_privacy",
            f"{who(p)} is neither the organizer nor invited to {title_of(m)}; only they write notes.",
        )
    note = env.insert(
        "meeting_notes",
        {
            "meeting_id": m["meeting_id"],
            "author_id": p["employee_id"],
            "body": body,
            "visibility": visibility,
            "created_at": env.now,
        },
    )
    return {"note_id": note["note_id"], "meeting_id": m["meeting_id"], "visibility": visibility}


def _own_note(env: Env, note_id: int, author: str) -> tuple[dict, dict]:
    p = find_person(env, author, role="author", active=False)
    note = env.one(
        "SELECT note_id, author_id, meeting_id, created_at FROM meeting_notes WHERE note_id = ?", [note_id]
    )
    if note is None:
        raise ToolError(f"no note {note_id}; list_meeting_notes shows a meeting's notes.")
    if note["author_id"] != p["employee_id"]:
        raise refuse(
            "notes_privacy",
            f"note {note_id} was written by someone else; only its author changes or deletes it.",
        )
    return note, p


@change(reads=("meeting_notes", "employees"), writes=("meeting_notes",))
def edit_meeting_note(
    env: Env, note_id: int, author: str, body: Body | None = None, visibility: Visibility | None = None
) -> dict:
    """Change the text or the visibility of one's own meeting note.

    Args:
        note_id: The note's id (list_meeting_notes shows it).
        author: The note's author (email, employee number or full name).
        body: The new text.
        visibility: attendees, private or organization.
    """
    note, _ = _own_note(env, note_id, author)
    changes: dict = {k: v for k, v in (("body", body), ("visibility", visibility)) if v is not None}
    if not changes:
        raise ToolError("give a new body or visibility.")
    env.update("meeting_notes", note_id, {**changes, "updated_at": max(env.now, note["created_at"])})
    return {"note_id": note_id, "changed": sorted(changes)}


@change(reads=("meeting_notes", "employees"), writes=("meeting_notes",))
def delete_meeting_note(env: Env, note_id: int, author: str) -> dict:
    """Delete one's own meeting note.

    Args:
        note_id: The note's id (list_meeting_notes shows it).
        author: The note's author (email, employee number or full name).
    """
    _own_note(env, note_id, author)
    env.delete("meeting_notes", note_id)
    return {"note_id": note_id, "deleted": True}

