"""Storylines over the listening history.

- `borrowed_device`: someone else used one of my devices since a day -> every play on it since then
  (every page) -> unlike the songs liked since then that were played on that device and on no other
  since then (every page of the likes and of the whole history: the solver sets them against each other)
  -> delete those plays -> sign the device out.
"""

from __future__ import annotations

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import ACTIVE, introduce, liked_goal, months_back, render_day

PLAYS_PER_CALL = 500
"""`delete_listening_history` takes at most 500 play ids a call."""


def cast_borrowed_device(story: Story) -> None:
    """An active listener's active device, named uniquely among theirs, and a month's first day since
    which a song liked was played on it and on no other device."""
    ctx = story.ctx
    since = months_back(ctx.today, ctx.rng.choice((3, 6, 9, 12, 18)))
    row = ctx.pick(
        "WITH dp AS (SELECT h.user_id, h.device_id, h.song_id FROM listening_history AS h "
        "WHERE h.played_at >= ?), solo AS (SELECT DISTINCT user_id, device_id, song_id FROM dp "
        "WHERE NOT EXISTS (SELECT 1 FROM dp AS o WHERE o.user_id = dp.user_id AND o.song_id = dp.song_id "
        "AND o.device_id <> dp.device_id)) "
        "SELECT DISTINCT u.user_id, u.username, u.display_name, d.device_id, d.name AS device FROM solo "
        "JOIN favourite_songs AS f ON f.user_id = solo.user_id AND f.song_id = solo.song_id AND "
        "f.favourited_at >= ? JOIN devices AS d ON d.device_id = solo.device_id JOIN users AS u ON u.user_id "
        f"= solo.user_id WHERE {ACTIVE} AND d.is_active AND (SELECT count(*) FROM devices AS o WHERE "
        "o.user_id = d.user_id AND lower(o.name) = lower(d.name)) = 1",
        [since, since],
        what="listener with a borrowed device",
    )
    user = {k: row[k] for k in ("user_id", "username", "display_name")}
    story["user"], story["since"] = user, since
    story["device"] = {"device_id": row["device_id"], "name": row["device"]}
    introduce(ctx, user)
    ctx.refer(
        f"device {row['device']!r} of @{user['username']}",
        "SELECT count(*) FROM devices WHERE user_id = ? AND lower(name) = lower(?)",
        [user["user_id"], row["device"]],
    )


@step(
    inputs=("user", "device", "since"),
    outputs=("device_plays",),
    goal="every play on the device since the day",
    capabilities=("full_data_acquisition",),
)
def device_plays(story: Story) -> None:
    user, device, since = story["user"], story["device"], story["since"]
    rows = story.read_all(
        "get_listening_history", {"username": user["username"], "device": device["name"], "since": since}
    )
    if not rows:
        raise Skip("no plays on the device")
    story["device_plays"] = rows
    story.say(
        [
            "Someone else has been using my {device:q} since {since}, and every play on it since then was "
            "theirs.",
            "I lent out my {device:q} and since {since} none of what played on it was me.",
        ],
        device=device["name"],
        since=render_day(story.ctx, since),
    )


@step(
    inputs=("user", "device", "since", "device_plays"),
    goal="unlike the songs liked since the day and played only on the device",
    capabilities=("aggregation_computation", "multi_condition_filtering"),
)
def unlike_borrowed(story: Story) -> None:
    user, device, since = story["user"], story["device"], story["since"]
    liked = story.read_all("list_liked_songs", {"username": user["username"], "liked_since": since})
    plays = story.read_all("get_listening_history", {"username": user["username"], "since": since})
    on_device = {r["song_id"] for r in story["device_plays"]}
    elsewhere = {r["song_id"] for r in plays if r["device_id"] != device["device_id"]}
    theirs = [r["song_id"] for r in liked if r["song_id"] in on_device and r["song_id"] not in elsewhere]
    if not theirs:
        raise Skip("no song liked only through the device")
    story.call("unlike_songs", {"username": user["username"], "songs": theirs})
    story.knob("aggregation", "songs liked since the day, played on the device and on no other")
    story.say(
        [
            "They liked songs too: unlike whatever was liked since then that was played on that device and "
            "never on any of my others since.",
            "Undo their likes: any song liked since then that only ever played on that device, not on my "
            "other ones, should be unliked.",
        ]
    )
    liked_goal(story.ctx, "their likes are gone", user["user_id"], theirs, 0)


@step(inputs=("user", "device", "device_plays"), goal="delete the device's plays and sign it out")
def clear_and_sign_out(story: Story) -> None:
    user, device = story["user"], story["device"]
    ids = [r["play_id"] for r in story["device_plays"]]
    for start in range(0, len(ids), PLAYS_PER_CALL):
        chunk = ids[start : start + PLAYS_PER_CALL]
        story.call("delete_listening_history", {"username": user["username"], "play_ids": chunk})
    story.call("sign_out_devices", {"username": user["username"], "devices": [device["device_id"]]})
    story.say(
        [
            "Delete all of those plays from my history and sign that device out.",
            "Then clear every one of those plays and log the device out.",
        ]
    )
    story.ctx.goal(
        "no play of the device since the day, and it is signed out",
        "SELECT (SELECT count(*) FROM listening_history WHERE device_id = ? AND played_at >= ?) AS plays, "
        "(SELECT is_active FROM devices WHERE device_id = ?) AS active",
        [device["device_id"], story["since"], device["device_id"]],
        expected=[{"plays": 0, "active": False}],
    )


BORROWED_DEVICE = Storyline(
    "borrowed_device",
    cast_borrowed_device,
    (device_plays, unlike_borrowed, clear_and_sign_out),
    provides=("user", "since", "device"),
    weight=0.5,
)
STORYLINES = (BORROWED_DEVICE,)
