"""Playing songs and the listening history: play a song on a device, read the history with filters,
aggregate it (top artists, songs, genres, days ...), and delete parts of it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, Expr, ToolError, tool
from stateforge.tools.where import Where

from . import lookup as find
from .library import playable
from .lookup import (
    SONG_FROM,
    SONG_TABLES,
    Limit,
    Offset,
    SongSpec,
    When,
    moment,
    order_by,
    refuse,
    song_text,
)

Source = Literal["playlist", "album", "artist", "search", "radio", "chart", "daily_mix"]
SKIP_MS = 30_000
"""A play shorter than this counts as skipped (as the service logs it)."""
HISTORY = ("users", "listening_history", "devices", *SONG_TABLES)
GROUPS = {
    # group_by: (output columns, GROUP BY, extra joins, the order "by name")
    "artist": ("ar.artist_id, ar.name AS artist", "ar.artist_id, ar.name", "", "artist, artist_id"),
    "song": ("s.song_id, s.title, ar.name AS artist", "s.song_id, s.title, ar.name", "", "title, song_id"),
    "album": (
        "al.album_id, al.title AS album, ar.name AS artist",
        "al.album_id, al.title, ar.name",
        "",
        "album, album_id",
    ),
    "genre": (
        "g.name AS genre",
        "g.name",
        " JOIN song_genres AS sg ON sg.song_id = s.song_id JOIN genres AS g ON g.genre_id = sg.genre_id",
        "genre",
    ),
    "source": ("h.source", "h.source", "", "source"),
    "device": ("d.device_id, d.name AS device", "d.device_id, d.name", "", "device, device_id"),
    "day": ("CAST(h.played_at AS DATE) AS day", "CAST(h.played_at AS DATE)", "", "day"),
    "month": ("strftime(h.played_at, '%Y-%m') AS month", "strftime(h.played_at, '%Y-%m')", "", "month"),
}


def history_filters(
    env: Env,
    me: dict,
    since: When | None,
    before: When | None,
    artist: int | str | None,
    device: int | str | None,
    source: str | None,
) -> Where:
    """Conditions over `h` (listening_history), `s`, `ar`, `al` for the common history filters."""
    where = Where().add("h.user_id = ?", me["user_id"]).ref(artist, "s.artist_id", "ar.name")
    where.when(moment(since) if since else None, "h.played_at >= ?")
    where.when(moment(before) if before else None, "h.played_at < ?")
    where.when(find.device(env, me, device)["device_id"] if device is not None else None, "h.device_id = ?")
    return where.when(source, "h.source = ?")


@tool(
    kind="write",
    reads=("users", "devices", *SONG_TABLES),
    writes=("listening_history", "songs", "devices", "users"),
    idempotent=False,
    destructive=False,
)
def play_song(
    env: Env,
    username: str,
    song: SongSpec,
    device: int | str,
    source: Source = "search",
    ms_played: Annotated[int, Field(ge=0)] | None = None,
    shuffle: bool = False,
) -> dict:
    """Play a song for a listener on one of their signed-in devices, now: the play enters their listening
    history (a play under 30 seconds counts as skipped) and the song's play count goes up by one.

    Args:
        username: The listener's username (or e-mail address).
        song: The song: its song_id, or {"title", "artist"?, "album"?}.
        device: The device id or name (it must be signed in).
        source: Where the play started: playlist, album, artist, search (default), radio, chart or daily_mix.
        ms_played: How long it played, in milliseconds; default the whole song.
        shuffle: Whether shuffle was on.
    """
    me = find.acting_user(env, username)
    track = find.song(env, song)
    dev = find.device(env, me, device)
    if not dev["is_active"]:
        raise ToolError(
            f"the device {dev['name']!r} ({dev['device_id']}) is signed out; sign in on it again with "
            "register_device, or play on another device."
        )
    playable(env, me, [track], "played")
    if track["release_date"] > env.today:
        raise refuse(
            "playable_songs",
            f"{song_text(track)} is released on {track['release_date']}; it cannot be played before then",
        )
    if track["explicit"] and not me["explicit_content_allowed"]:
        raise refuse(
            "playable_songs",
            f"{song_text(track)} is explicit and {me['username']} has explicit content turned off",
        )
    length = ms_played if ms_played is not None else track["duration_ms"]
    if length > track["duration_ms"]:
        raise ToolError(f"ms_played {length} is longer than the song ({track['duration_ms']} ms).")
    row = env.insert(
        "listening_history",
        {
            "user_id": me["user_id"],
            "device_id": dev["device_id"],
            "song_id": track["song_id"],
            "played_at": env.now,
            "ms_played": length,
            "source": source,
            "shuffle": shuffle,
            "skipped": length < SKIP_MS,
        },
    )
    env.update("songs", track["song_id"], {"play_count": Expr("play_count + 1")})
    env.update("devices", dev["device_id"], {"last_seen_at": env.now})
    env.update("users", me["user_id"], {"last_active_at": env.now})
    return {
        "play_id": row["play_id"],
        "song": song_text(track),
        "device": dev["name"],
        "ms_played": length,
        "skipped": row["skipped"],
    }


@tool(reads=HISTORY)
def get_listening_history(
    env: Env,
    username: str,
    since: When | None = None,
    before: When | None = None,
    song: str | None = None,
    artist: int | str | None = None,
    device: int | str | None = None,
    source: Source | None = None,
    skipped: bool | None = None,
    oldest_first: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """A listener's listening history, newest first, with filters, a page at a time: each play shows its
    play_id, when, the song (id, title, artist, album), the device, where it started, how long it played
    and whether it was skipped or shuffled.

    Args:
        username: The listener's username (or e-mail address).
        since: Played at or after this moment (a date means its midnight).
        before: Played before this moment (a date means its midnight, so that day is excluded).
        song: Part of the song title.
        artist: The primary artist: an artist_id, or part of the name.
        device: One of their devices, by id or name.
        source: Where plays started: playlist, album, artist, search, radio, chart or daily_mix.
        skipped: true: only skipped plays (under 30 s); false: only plays that were not skipped.
        oldest_first: Oldest plays first instead of newest.
        limit: Plays per page, 1 to 50.
        offset: Plays to skip.
    """
    me = find.user(env, username)
    where = history_filters(env, me, since, before, artist, device, source)
    where.text(song, "s.title").when(skipped, "h.skipped = ?")
    sql = (
        "SELECT h.play_id, h.played_at, s.song_id, s.title, ar.name AS artist, al.title AS album, "
        "d.name AS device, h.device_id, h.source, h.ms_played, "
        "printf('%d:%02d', h.ms_played // 60000, (h.ms_played // 1000) % 60) AS played, h.skipped, h.shuffle "
        f"FROM listening_history AS h JOIN {SONG_FROM} ON s.song_id = h.song_id "
        f"JOIN devices AS d ON d.device_id = h.device_id WHERE {where.sql}"
    )
    order = order_by("played_at", not oldest_first, "play_id")
    page = env.page(sql, where.params, order_by=order, limit=limit, offset=offset)
    return {"username": me["username"], **page}


@tool(reads=(*HISTORY, "song_genres", "genres"))
def listening_stats(
    env: Env,
    username: str,
    group_by: Literal["artist", "song", "album", "genre", "source", "device", "day", "month"],
    since: When | None = None,
    before: When | None = None,
    artist: int | str | None = None,
    include_skipped: bool = True,
    sort_by: Literal["plays", "minutes", "name"] = "plays",
    limit: Limit = 10,
    offset: Offset = 0,
) -> dict:
    """Aggregate a listener's listening history: per artist, song, album, genre, source, device, day or
    month, the number of plays, minutes listened and skips, top first; plus the totals over every play that
    matches. A song tagged with several genres counts for each of them.

    Args:
        username: The listener's username (or e-mail address).
        group_by: What to count per: artist, song, album, genre, source, device, day or month.
        since: Plays at or after this moment (a date means its midnight).
        before: Plays before this moment (a date means its midnight, so that day is excluded).
        artist: Only songs by this primary artist (an artist_id, or part of the name).
        include_skipped: false to leave skipped plays out of the counts.
        sort_by: plays (default), minutes (both most first) or name (the group's name, A to Z / oldest first).
        limit: Groups per page, 1 to 50.
        offset: Groups to skip.
    """
    me = find.user(env, username)
    where = history_filters(env, me, since, before, artist, None, None)
    if not include_skipped:
        where.add("NOT h.skipped")
    select, group, joins, by_name = GROUPS[group_by]
    source = (
        f"FROM listening_history AS h JOIN {SONG_FROM} ON s.song_id = h.song_id "
        "JOIN devices AS d ON d.device_id = h.device_id"
    )
    condition = f" WHERE {where.sql}"
    sql = (
        f"SELECT {select}, count(*) AS plays, round(sum(h.ms_played) / 60000, 1) AS minutes, "
        f"count(*) FILTER (WHERE h.skipped) AS skips {source}{joins}{condition} GROUP BY {group}"
    )
    order = by_name if sort_by == "name" else f"{sort_by} DESC, {by_name}"
    page = env.page(sql, where.params, order_by=order, limit=limit, offset=offset)
    totals = env.one(
        "SELECT count(*) AS plays, coalesce(round(sum(h.ms_played) / 60000, 1), 0) AS minutes, "
        f"count(*) FILTER (WHERE h.skipped) AS skips, count(DISTINCT h.song_id) AS songs {source}{condition}",
        where.params,
    )
    return {"username": me["username"], "group_by": group_by, "totals": totals, **page}


@tool(kind="write", reads=HISTORY, writes=("listening_history",), idempotent=True, destructive=True)
def delete_listening_history(
    env: Env,
    username: str,
    play_ids: Annotated[list[int], Field(max_length=500)] | None = None,
    since: When | None = None,
    before: When | None = None,
    song: SongSpec | None = None,
    artist: int | str | None = None,
    device: int | str | None = None,
    everything: bool = False,
) -> dict:
    """Delete plays from a listener's listening history: the plays named by id, or every play matching all
    the filters given, or everything.

    Args:
        username: The listener's username (or e-mail address).
        play_ids: The plays to delete (get_listening_history shows their ids); each must be theirs.
        since: Plays at or after this moment (a date means its midnight).
        before: Plays before this moment (a date means its midnight, so that day is kept).
        song: Every play of this song (its song_id, or {"title", "artist"?, "album"?}).
        artist: Every play of songs by this primary artist (an artist_id, or part of the name).
        device: Every play from this device (id or name).
        everything: Clear the whole history (no other argument allowed).
    """
    me = find.acting_user(env, username)
    where = history_filters(env, me, since, before, artist, device, None)
    if play_ids is not None:
        if not play_ids:
            raise ToolError("play_ids is empty; name at least one play, or use the filters.")
        mine = find.held(env, "listening_history", "play_id", sorted(set(play_ids)), user_id=me["user_id"])
        stray = sorted(set(play_ids) - mine)
        if stray:
            raise ToolError(f"{me['username']}'s history has no play {', '.join(map(str, stray[:10]))}.")
        where.add("h.play_id IN (SELECT unnest(?::BIGINT[]))", sorted(mine))
    where.when(find.song(env, song)["song_id"] if song is not None else None, "h.song_id = ?")
    if everything != (len(where) == 1):
        raise ToolError(
            "give play_ids or at least one filter, or everything=true alone; nothing was deleted."
        )
    ids = [
        r["play_id"]
        for r in env.query(
            f"SELECT h.play_id FROM listening_history AS h JOIN {SONG_FROM} ON s.song_id = h.song_id "
            f"WHERE {where.sql} ORDER BY h.play_id",
            where.params,
        )
    ]
    if ids:
        find.delete_ids(env, "listening_history", "play_id", ids)
    return {"deleted": len(ids)}
