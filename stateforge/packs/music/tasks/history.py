"""Recipes over listening: play a charted song on a device, and delete parts of the listening history (a
span of days, an artist, the skipped plays of a month, the busiest day of a month)."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import RecipeContext, Skip, picks, recipe

from .common import (
    ACTIVE,
    SAFE_ARTISTS,
    artist_name,
    days_with,
    introduce,
    listener_swap,
    month_span,
    months_back,
    next_day,
    period_where,
    render_day,
    sized,
    year_start,
)

PLAYS_OF = "SELECT count(*) FROM listening_history WHERE user_id = ?"


def _history_goal(ctx: RecipeContext, user_id: int, condition: str, params: list) -> None:
    """Goal: no play of the user matching `condition` (SQL over listening_history) is left, the rest stay."""
    ctx.goal(
        "the plays asked for are deleted, the others stay",
        f"SELECT count(*) FILTER (WHERE {condition}) AS matching, count(*) AS plays FROM listening_history "
        "WHERE user_id = ?",
        [*params, user_id],
    )


@recipe(capabilities=("full_data_acquisition", "precise_boundary_judgment"), difficulty="medium")
def delete_history_span(ctx: RecipeContext) -> None:
    """A listener deletes their plays over a span of days given by its first and last day (both included),
    or everything before a day; the days at the edges hold plays, so the edges matter."""
    user = sized(
        ctx,
        "SELECT u.user_id, u.username, u.display_name, count(DISTINCT CAST(h.played_at AS DATE)) AS days, "
        f"count(*) AS n FROM listening_history AS h JOIN users AS u ON u.user_id = h.user_id WHERE {ACTIVE} "
        "GROUP BY ALL HAVING count(DISTINCT CAST(h.played_at AS DATE)) >= 4",
        what="listener who played on 4+ days",
        bands=((4, 40), (40, 200), (200, 900)),
    )
    days = days_with(ctx, "listening_history", "played_at", "user_id = ?", [user["user_id"]])
    introduce(ctx, user)
    if ctx.rng.random() < 0.6:
        i = ctx.rng.randrange(0, len(days) - 1)
        j = ctx.rng.randrange(i + 1, min(len(days), i + 1 + max(2, len(days) // 3)))
        first, last = days[i], days[j]
        since, before = first, next_day(last)
        ctx.say(
            [
                "Delete my listening history from {first} to {last}, both days included.",
                "Please wipe every play in my history between {first} and {last} (inclusive).",
                "Remove everything I listened to from {first} through {last} from my history.",
            ],
            first=first,
            last=last,
        )
        args = {"username": user["username"], "since": since, "before": before}
        condition, params = "played_at >= ? AND played_at < ?", [since, before]
    else:
        day = ctx.choice(days[1 : max(2, len(days) // 2)])
        ctx.say(
            [
                "Delete all my plays from before {day}; keep {day} itself and everything after.",
                "Please clear my listening history up to (but not including) {day}.",
            ],
            day=day,
        )
        args = {"username": user["username"], "before": day}
        condition, params = "played_at < ?", [day]
    gone = ctx.scalar(f"{PLAYS_OF} AND {condition}", [user["user_id"], *params])
    ctx.call("delete_listening_history", args, step=f"Delete the {gone} plays in that span")
    _history_goal(ctx, user["user_id"], condition, params)


@recipe(capabilities=("multi_condition_filtering", "full_data_acquisition"), difficulty="medium")
def delete_artist_plays(ctx: RecipeContext) -> None:
    """A listener deletes every play of one artist from their history (optionally only this year's)."""
    year = ctx.rng.random() < 0.4
    since = year_start(ctx) if year else dt.date(1900, 1, 1)
    row = sized(
        ctx,
        "SELECT u.user_id, u.username, u.display_name, s.artist_id, count(*) AS n, "
        f"({PLAYS_OF.replace('user_id = ?', 'user_id = u.user_id')}) AS plays FROM listening_history AS h "
        f"JOIN users AS u ON u.user_id = h.user_id JOIN songs AS s ON s.song_id = h.song_id WHERE {ACTIVE} "
        f"AND h.played_at >= ? AND s.artist_id IN {SAFE_ARTISTS} GROUP BY ALL",
        [since],
        what="listener with plays of one artist",
        spread="artist_id",
    )
    if row["n"] >= row["plays"]:
        ctx.skip("every play is the artist's")
    artist = artist_name(ctx, row["artist_id"])
    introduce(ctx, row)
    args = {"username": row["username"], "artist": artist}
    if year:
        args["since"] = since
        ctx.say(
            [
                "Delete every play of {artist} from my listening history this year.",
                "Please remove the {artist} songs I played in {year} from my history; older plays can stay.",
            ],
            artist=artist,
            year=str(since.year),
        )
    else:
        ctx.say(
            [
                "Delete every play of {artist} from my listening history.",
                "My history is full of {artist}. Remove all of those plays, please.",
                "Please erase all my plays of songs by {artist}.",
            ],
            artist=artist,
        )
    ctx.call("delete_listening_history", args, step=f"Delete the {row['n']} plays of {artist}")
    _history_goal(
        ctx,
        row["user_id"],
        "played_at >= ? AND song_id IN (SELECT song_id FROM songs WHERE artist_id = ?)",
        [since, row["artist_id"]],
    )


@recipe(
    capabilities=("multi_condition_filtering", "full_data_acquisition", "cross_step_dependency"),
    difficulty="hard",
)
def delete_skipped_plays(ctx: RecipeContext) -> None:
    """A listener deletes the plays they skipped over a period (a month, this year, since a day): the
    history is read page by page with the skipped filter, and the plays found are deleted by id (the delete
    tool has no skipped filter)."""
    span = ctx.choice(["month", "year", "since"])
    if span == "year":
        first, after, name = year_start(ctx), None, "this year"
    elif span == "since":
        first, after = months_back(ctx.today, ctx.choice([2, 3, 4])), None
        name = "since " + render_day(ctx, first)
    else:
        first, after, name = month_span(months_back(ctx.today, ctx.choice([0, 1, 2, 3, 4, 5])))
        name = "in " + name
    where, params = period_where(first, after)
    skipped = (
        "SELECT u.user_id, u.username, u.display_name, count(*) FILTER (WHERE h.skipped) AS n FROM "
        f"listening_history AS h JOIN users AS u ON u.user_id = h.user_id WHERE {ACTIVE} AND {where} GROUP "
        "BY ALL HAVING count(*) FILTER (WHERE h.skipped) < count(*)"
    )
    try:
        user = sized(
            ctx, skipped, params, what="listener with skipped plays", bands=((2, 12), (12, 50), (50, 400))
        )
    except Skip:
        user = ctx.pick(
            f"SELECT * FROM ({skipped}) AS s WHERE n >= 1", params, what="listener with a skipped play"
        )
    introduce(ctx, user)
    ctx.say(
        [
            "Delete every play I skipped {period} from my listening history; keep the ones I listened to.",
            "Please remove the skipped plays (the ones under 30 seconds) from my history {period}.",
            "Clean up my listening history {period}: the tracks I skipped shouldn't be in there.",
        ],
        period=name,
    )
    span_args = {"since": first, **({"before": after} if after else {})}
    plays = picks.read_pages(
        ctx,
        "get_listening_history",
        {"username": user["username"], **span_args, "skipped": True},
        step=f"List @{user['username']}'s skipped plays {name} (from {{start}})",
    )
    ids = [r["play_id"] for r in plays]
    ctx.call(
        "delete_listening_history",
        {"username": user["username"], "play_ids": ids},
        step=f"Delete those {len(ids)} plays",
    )
    _history_goal(ctx, user["user_id"], "skipped AND " + where.replace("h.", ""), params)


@recipe(
    capabilities=("aggregation_computation", "cross_step_dependency", "precise_boundary_judgment"),
    difficulty="hard",
)
def delete_busiest_day(ctx: RecipeContext) -> None:
    """A listener deletes the plays of the day of a month on which they played the most: the stats per day
    are read, the top day found (it must beat the runner-up), and that day's plays deleted."""
    first, after, name = month_span(months_back(ctx.today, ctx.choice([0, 1, 2, 3, 4, 5])))
    user = ctx.pick(
        "WITH d AS (SELECT h.user_id, CAST(h.played_at AS DATE) AS day, count(*) AS plays FROM "
        "listening_history AS h WHERE h.played_at >= ? AND h.played_at < ? GROUP BY ALL), r AS (SELECT *, "
        "row_number() OVER (PARTITION BY user_id ORDER BY plays DESC, day) AS rn FROM d) SELECT u.user_id, "
        "u.username, u.display_name, max(plays) FILTER (WHERE rn = 1) AS plays, any_value(day) FILTER "
        f"(WHERE rn = 1) AS day FROM r JOIN users AS u ON u.user_id = r.user_id WHERE {ACTIVE} GROUP BY ALL "
        "HAVING count(*) >= 2 AND max(plays) FILTER (WHERE rn = 1) > max(plays) FILTER (WHERE rn = 2)",
        [first, after],
        what=f"listener with a clear busiest day in {name}",
    )
    introduce(ctx, user)
    ctx.say(
        [
            "Find the day in {month} on which I played the most songs and delete that day's plays from my "
            "history.",
            "On one day in {month} somebody else used my account all day: it's the day with the most plays "
            "that month. Please delete every play from that day.",
        ],
        month=name,
    )
    ctx.read(
        "listening_stats",
        {"username": user["username"], "group_by": "day", "since": first, "before": after, "limit": 5},
        step=f"Count @{user['username']}'s plays per day in {name}",
    )
    day = user["day"]
    ctx.derived([day, next_day(day)], "the busiest day, and the day after it (where the day ends)")
    ctx.call(
        "delete_listening_history",
        {"username": user["username"], "since": day, "before": next_day(day)},
        step=f"Delete the {user['plays']} plays of {day}",
    )
    _history_goal(ctx, user["user_id"], "CAST(played_at AS DATE) = ?", [day])


@recipe(capabilities=("cross_step_dependency", "precise_boundary_judgment"), difficulty="medium")
def play_from_chart(ctx: RecipeContext) -> None:
    """A listener plays the song at a place of a chart, this week's edition or the one in force on a day
    (a publication day, or the day before one), on one of their devices. Variant: the song is explicit
    and the listener has explicit content off (forbidden)."""
    chart = ctx.pick(
        "SELECT c.chart_id, c.name, max(ed.edition_no) AS latest FROM charts AS c JOIN chart_editions AS ed "
        "ON ed.chart_id = c.chart_id GROUP BY ALL HAVING count(*) >= 2",
        what="chart with 2+ editions",
    )
    editions = ctx.sql(
        "SELECT edition_id, edition_no, published_on FROM chart_editions WHERE chart_id = ? ORDER BY "
        "edition_no",
        [chart["chart_id"]],
    )
    rank = ctx.choice([1, 1, 2, 3, 5, 10])
    latest = ctx.rng.random() < 0.4
    if latest:
        edition, as_of = editions[-1], None
    else:
        i = ctx.rng.randrange(1, len(editions))
        on_day = ctx.rng.random() < 0.5
        as_of = editions[i]["published_on"] if on_day else editions[i]["published_on"] - dt.timedelta(days=1)
        edition = editions[i] if on_day else editions[i - 1]
    song = ctx.one(
        "SELECT s.song_id, s.title, s.explicit, s.is_available, al.release_date FROM chart_entries AS e "
        "JOIN songs AS s ON s.song_id = e.song_id JOIN albums AS al ON al.album_id = s.album_id WHERE "
        "e.edition_id = ? AND e.rank = ?",
        [edition["edition_id"], rank],
    )
    if song is None or not song["is_available"] or song["release_date"] > ctx.today:
        ctx.skip("the charted song cannot be played")
    listeners = (
        "SELECT u.user_id, u.username, u.display_name, d.name AS device FROM users AS u JOIN devices AS d "
        f"ON d.user_id = u.user_id WHERE {ACTIVE} AND d.is_active AND u.explicit_content_allowed = ? AND "
        "(SELECT count(*) FROM devices AS o WHERE o.user_id = u.user_id AND lower(o.name) = lower(d.name)) "
        "= 1"
    )
    user = ctx.pick(listeners, [True], what="listener with a signed-in device")
    ctx.refer(
        f"chart {chart['name']}", "SELECT count(*) FROM charts WHERE lower(name) = lower(?)", [chart["name"]]
    )
    ctx.refer(
        f"device {user['device']!r} of @{user['username']}",
        "SELECT count(*) FROM devices AS d JOIN users AS u ON u.user_id = d.user_id WHERE u.username = ? "
        "AND lower(d.name) = lower(?)",
        [user["username"], user["device"]],
    )
    introduce(ctx, user)
    place = {1: "number one", 2: "number two", 3: "number three"}.get(rank, f"number {rank}")
    if latest:
        ctx.say(
            [
                "Play this week's {place} on the {chart} chart on my {device}, started from the chart.",
                "Put on the song at {place} of the latest {chart} on my {device} (play it from the chart).",
            ],
            place=place,
            chart=chart["name"],
            device=user["device"],
        )
    else:
        ctx.say(
            [
                "Play the song that was {place} on the {chart} chart as it stood on {day} on my {device}, "
                "started from the chart.",
                "On my {device}, play whatever was at {place} of the {chart} edition in force on {day} "
                "(play it from the chart).",
            ],
            place=place,
            chart=chart["name"],
            day=as_of,
            device=user["device"],
        )
    chart_args = {"chart": chart["name"], "limit": 10}
    if as_of is not None:
        chart_args["as_of"] = as_of
    page = ctx.read("get_chart", chart_args, step=f"Read the {chart['name']} edition asked for")
    found = next(r["song_id"] for r in page["rows"] if r["rank"] == rank)
    ctx.call(
        "play_song",
        {"username": user["username"], "song": found, "device": user["device"], "source": "chart"},
        step=f"Play song {found} on the {user['device']}",
    )
    ctx.goal(
        "the song was played from the chart on the device",
        "SELECT count(*) AS plays FROM listening_history AS h JOIN devices AS d ON d.device_id = "
        "h.device_id WHERE h.user_id = ? AND h.song_id = ? AND lower(d.name) = lower(?) AND h.source = "
        "'chart'",
        [user["user_id"], song["song_id"], user["device"]],
    )
    if song["explicit"]:
        try:
            other = ctx.pick(listeners, [False], what="listener with explicit content off")
        except Skip:
            return
        ctx.infeasible(
            "forbidden",
            policy="playable_songs",
            swap=listener_swap(user, other) | {user["device"]: other["device"]},
            because=f"the song is explicit and @{other['username']} has explicit content turned off",
        )
