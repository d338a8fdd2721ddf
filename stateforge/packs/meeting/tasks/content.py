"""Recipes about what meetings leave behind: delete one's recordings made before a day, keep the transcribed
ones of a period longer, delete the largest ones, and write a note on a meeting one attended."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Call, RecipeContext, recipe
from stateforge.tasks.wording import render

from ..tools.common import RETENTION_DAYS
from .common import (
    ACTIVE,
    PERSON,
    colleague,
    introduce,
    meeting_ref,
    refer_meeting,
    scaled_difficulty,
    sized,
    unique_meeting_sql,
)

MANAGED = f"""
    SELECT r.*, {PERSON} FROM recordings AS r JOIN meetings AS m ON m.meeting_id = r.meeting_id
    JOIN employees AS e ON e.employee_id = m.organizer_id OR e.employee_id = r.started_by
    WHERE {ACTIVE}
"""
"""Recordings with each active person who manages them (the meeting's organizer, or who started it)."""
PAGE = 50


def _old_enough(ctx: RecipeContext) -> dt.date:
    """The first day whose recordings may not all be deleted yet: recordings made before it are old enough
    (kept at least 30 days)."""
    return (ctx.now - dt.timedelta(days=RETENTION_DAYS)).date()


@recipe(capabilities=("precise_boundary_judgment",), difficulty="medium")
def delete_recordings_before(ctx: RecipeContext) -> None:
    """Someone deletes every recording they manage made before a day, or on or before it: recordings were
    made on that day, so the boundary decides. The variant names today, which takes in recordings younger
    than the 30 days they must be kept."""
    inclusive = ctx.rng.random() < 0.5
    limit = _old_enough(ctx) - dt.timedelta(days=1 if inclusive else 0)
    row = sized(
        ctx,
        f"""
        WITH mine AS ({MANAGED}),
        d AS (SELECT employee_id, name, email, CAST(created_at AS DATE) AS day, count(*) AS k FROM mine
        GROUP BY ALL),
        c AS (SELECT *, sum(k) OVER (PARTITION BY employee_id ORDER BY day) AS through,
                     min(day) OVER (PARTITION BY employee_id) AS first_day FROM d)
        SELECT employee_id, name, email, day, {"through" if inclusive else "through - k"} AS n FROM c
        WHERE day > first_day AND day <= ?
        """,
        [limit],
        what="person with recordings on several days",
    )
    day = row["day"]
    cutoff = day + dt.timedelta(days=1) if inclusive else day
    introduce(ctx, row)
    phrase = "on or before {day}" if inclusive else "before {day}"
    ctx.say(
        [
            "Please delete all the recordings I manage (of meetings I organised or recordings I started) "
            "made " + phrase + ".",
            "Free up my cloud storage: every recording of mine made " + phrase + " can go.",
        ],
        day=day,
    )
    ctx.call(
        "delete_recordings",
        {"person": row["email"], "created_before": cutoff.isoformat()},
        step=f"Delete the {row['n']} recordings they manage made before {cutoff}",
    )
    ctx.goal(
        "none of their recordings before the cutoff is left; later ones stay",
        "SELECT count(*) FILTER (WHERE created_at < ?) AS before, count(*) FILTER (WHERE created_at >= ?) "
        f"AS after FROM ({MANAGED}) AS x WHERE employee_id = ?",
        [cutoff, cutoff, row["employee_id"]],
    )
    scaled_difficulty(ctx, int(row["n"]), hard=40)
    young = ctx.scalar(
        f"SELECT count(*) FROM ({MANAGED}) AS x WHERE employee_id = ? AND created_at > ?",
        [row["employee_id"], ctx.now - dt.timedelta(days=RETENTION_DAYS)],
    )
    if young:
        swap = (
            {day: ctx.today} if not inclusive else {day: ctx.today, cutoff: ctx.today + dt.timedelta(days=1)}
        )
        ctx.infeasible(
            "forbidden",
            policy="recording_retention",
            swap=swap,
            because=f"some of those recordings are younger than {RETENTION_DAYS} days and must be kept",
        )


RETENTION = (
    (dt.date(2027, 12, 31), "until the end of 2027 (December 31, 2027)"),
    (dt.date(2028, 6, 30), "until June 30, 2028"),
    (None, "indefinitely (no end date)"),
)


@recipe(capabilities=("full_data_acquisition", "multi_condition_filtering"), difficulty="medium")
def keep_transcribed_recordings(ctx: RecipeContext) -> None:
    """Someone keeps every recording they manage with a ready transcript, made in a period (and sometimes in
    one format), until a later day or indefinitely: the recordings come from list_recordings page by page,
    then one set_recording_retention with all their ids."""
    until, words = ctx.choice(RETENTION)
    row = sized(
        ctx,
        f"""
        SELECT employee_id, name, email, CAST(date_trunc('month', min(created_at)) AS DATE) AS first,
               CAST(max(created_at) AS DATE) AS last, count(*) AS n
        FROM ({MANAGED}) AS x WHERE transcript_status = 'ready' AND retention_until IS DISTINCT FROM ?
        GROUP BY ALL
        """,
        [until],
        what="person with transcribed recordings",
        bands=((2, 20), (21, 80), (81, 300)),
    )
    days = ctx.sql(
        f"SELECT DISTINCT CAST(created_at AS DATE) AS day FROM ({MANAGED}) AS x WHERE employee_id = ? AND "
        "transcript_status = 'ready' ORDER BY 1",
        [row["employee_id"]],
    )
    first = ctx.choice([d["day"] for d in days[: max(1, len(days) // 3)]])
    last = ctx.choice([d["day"] for d in days if d["day"] >= first][-max(1, len(days) // 3) :])
    search: dict = {
        "person": row["email"],
        "transcript_status": "ready",
        "from_date": first.isoformat(),
        "to_date": last.isoformat(),
    }
    values: dict = {"first": first, "last": last, "words": words}
    fmt = ""
    if ctx.rng.random() < 0.3:
        search["format"], values["format"] = "mp4", "MP4"
        fmt = " {format}"
    ids = [
        r["recording_id"]
        for r in ctx.sql(
            f"SELECT recording_id FROM ({MANAGED}) AS x WHERE employee_id = ? AND transcript_status = "
            "'ready' AND "
            "created_at >= ? AND created_at < ? AND (? IS NULL OR format = 'mp4') ORDER BY recording_id",
            [row["employee_id"], first, last + dt.timedelta(days=1), search.get("format")],
        )
    ]
    changing = ctx.scalar(
        "SELECT count(*) FROM recordings WHERE recording_id IN (SELECT unnest(?)) AND retention_until IS "
        "DISTINCT FROM ?",
        [ids, until],
    )
    if not changing:
        ctx.skip("already kept so")
    introduce(ctx, row)
    ctx.say(
        [
            "Please keep every"
            + fmt
            + " recording I manage that has a ready transcript and was made between "
            "{first} and {last} (both days included) {words}.",
            "All my"
            + fmt
            + " recordings from {first} through {last} whose transcript is ready should be kept "
            "{words}; please set that.",
        ],
        **values,
    )
    if until is None:
        ctx.derived(None, "'indefinitely' means no retention date")
    pages = max(1, -(-len(ids) // PAGE))
    for page in range(pages):
        ctx.read(
            "list_recordings", {**search, "limit": PAGE, "offset": page * PAGE}, step="List the recordings"
        )
    ctx.call(
        "set_recording_retention",
        {
            "person": row["email"],
            "recording_ids": ids,
            "retention_until": until.isoformat() if until else None,
        },
        step=f"Keep the {len(ids)} recordings {words}",
    )
    ctx.goal(
        "every one of those recordings is kept as asked",
        "SELECT count(*) FILTER (WHERE retention_until IS DISTINCT FROM ?) AS other FROM recordings "
        "WHERE recording_id IN (SELECT unnest(?))",
        [until, ids],
    )
    scaled_difficulty(ctx, int(changing), hard=40)
    if pages > 1:
        ctx.difficulty = "hard"


@recipe(capabilities=("aggregation_computation",), difficulty="medium")
def delete_largest_recordings(ctx: RecipeContext) -> None:
    """Someone deletes their k largest recordings made before a day (all older than the 30 days recordings
    are kept): list_recordings sorted by size gives them, delete_recordings takes their ids."""
    k = ctx.choice([2, 3, 3, 5, 10])
    limit = _old_enough(ctx)
    person = ctx.pick(
        f"SELECT employee_id, name, email, count(*) AS n FROM ({MANAGED}) AS x WHERE created_at < ? GROUP "
        "BY ALL HAVING count(*) > ?",
        [limit, k],
        what=f"person with {k + 1}+ old recordings",
    )
    days = ctx.sql(
        f"SELECT DISTINCT CAST(created_at AS DATE) AS day FROM ({MANAGED}) AS x WHERE employee_id = ? AND "
        "created_at < ? ORDER BY 1",
        [person["employee_id"], limit],
    )
    day = ctx.choice([d["day"] for d in days[k:]] or [limit]) + dt.timedelta(days=1)
    day = min(day, limit)
    top = ctx.sql(
        f"SELECT recording_id, round(size_bytes / 1e6, 1) AS mb FROM ({MANAGED}) AS x WHERE employee_id = ? "
        "AND created_at < ? ORDER BY mb DESC, recording_id LIMIT ?",
        [person["employee_id"], day, k + 1],
    )
    if len(top) <= k or top[k - 1]["mb"] == top[k]["mb"]:
        ctx.skip("tie at the cut")
    introduce(ctx, person)
    ctx.say(
        [
            "My cloud storage is full. Please delete my {k} largest recordings made before {day}.",
            "Delete the {k} biggest recordings I manage among those made before {day}, please.",
        ],
        k=k,
        day=day,
    )
    ctx.read(
        "list_recordings",
        {
            "person": person["email"],
            "to_date": (day - dt.timedelta(days=1)).isoformat(),
            "sort_by": "size",
            "descending": True,
            "limit": k,
        },
        step=f"List their {k} largest recordings before {day}",
    )
    ids = [t["recording_id"] for t in top[:k]]
    ctx.call("delete_recordings", {"person": person["email"], "recording_ids": ids}, step=f"Delete those {k}")
    ctx.goal(
        "the largest recordings are gone",
        "SELECT count(*) AS left FROM recordings WHERE recording_id IN (SELECT unnest(?))",
        [ids],
    )
    if k >= 5:
        ctx.difficulty = "hard"


NOTES = (
    "Action items: {a} sends the revised plan by Friday; we meet again in two weeks.",
    "Decision: we go ahead with option B. {a} owns the follow-up.",
    "Summary: scope agreed, budget still to be confirmed by finance. Next step for {a}: draft the timeline.",
    "Open questions: hiring plan and vendor choice. {a} will collect input from the team.",
)
VISIBILITY = {
    "attendees": "visible to the attendees",
    "private": "private, only for me",
    "organization": "visible to the whole organization",
}


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def note_on_meeting(ctx: RecipeContext) -> None:
    """Someone who organised or was invited to a recent meeting writes a note on it, dictated word for word,
    with a visibility. The variant asks for a note on a meeting they had no part in."""
    row = ctx.pick(
        unique_meeting_sql("m.status = 'ended' AND m.start_at >= ?"),
        [ctx.now - dt.timedelta(days=14)],
        what="recent meeting",
    )
    me = ctx.pick(
        f"SELECT {PERSON} FROM employees AS e WHERE {ACTIVE} AND (e.employee_id = ? OR e.employee_id IN "
        "(SELECT employee_id FROM meeting_attendees WHERE meeting_id = ?))",
        [row["employee_id"], row["meeting_id"]],
        what="participant",
    )
    mine = me["employee_id"] == row["employee_id"]
    owner = None if mine else colleague(ctx, row["employee_id"])
    someone = ctx.pick(
        "SELECT e.first_name AS first FROM meeting_attendees AS a JOIN employees AS e ON e.employee_id = "
        "a.employee_id WHERE a.meeting_id = ?",
        [row["meeting_id"]],
        what="attendee",
    )
    body = ctx.choice(NOTES).format(a=someone["first"])
    visibility = ctx.choice(list(VISIBILITY))
    refer_meeting(ctx, row, row)
    introduce(ctx, me)
    opening = ctx.instruction
    where = "my {title:q} on {when}" if mine else "{owner}'s {title:q} on {when}"
    template = ctx.choice(
        [
            "Please add a note to " + where + ', {vis}: "{body}"',
            "Write this note on " + where + ' ({vis}): "{body}"',
        ]
    )
    values = {
        "title": row["title"],
        "when": row["start_at"],
        "vis": VISIBILITY[visibility],
        "body": body,
        "owner": owner["text"] if owner else "",
    }
    ctx.say(template, **values)
    ctx.read(
        "search_meetings",
        {
            "attendee" if not mine else "organizer": me["email"],
            "on_date": row["start_at"].date().isoformat(),
            "text": row["title"],
        },
        step="Find the meeting",
    )
    ctx.call(
        "add_meeting_note",
        {"meeting": row["meeting_id"], "author": me["email"], "body": body, "visibility": visibility},
        step=f"Add the note ({visibility})",
    )
    ctx.policy("meeting_notes.body", "normalized")
    ctx.goal(
        "the note is on the meeting",
        "SELECT visibility FROM meeting_notes WHERE meeting_id = ? AND author_id = ? AND body = ?",
        [row["meeting_id"], me["employee_id"], body],
    )
    other = ctx.sql(
        unique_meeting_sql("m.status = 'ended' AND m.start_at >= ? AND m.organizer_id <> ?")
        + " AND m.meeting_id NOT IN (SELECT meeting_id FROM meeting_attendees WHERE employee_id = ?) "
        "ORDER BY m.start_at DESC, m.meeting_id LIMIT 5",
        [ctx.now - dt.timedelta(days=14), me["employee_id"], me["employee_id"]],
    )
    if not other:
        return
    pick = ctx.choice(other)
    their = colleague(ctx, pick["employee_id"], record=False)
    text = render(
        template.replace(where, "{owner}'s {title:q} on {when}"),
        {**values, "title": pick["title"], "when": pick["start_at"], "owner": their["text"]},
        ctx.style,
    )
    ctx.infeasible(
        "forbidden",
        policy="notes_privacy",
        instruction=f"{opening} {text}",
        calls=[
            Call(
                "add_meeting_note",
                {
                    "meeting": pick["meeting_id"],
                    "author": me["email"],
                    "body": body,
                    "visibility": visibility,
                },
            )
        ],
        because="only the meeting's organizer and invitees write notes on it",
        proof=meeting_ref(pick, pick["email"]),
    )
