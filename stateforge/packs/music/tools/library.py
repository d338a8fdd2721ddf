"""A listener's library: liked songs and followed artists (with their release notifications)."""

from __future__ import annotations

import functools
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.where import Where

from . import lookup as find
from .catalog import song_filters
from .lookup import (
    SONG_FROM,
    SONG_SELECT,
    SONG_TABLES,
    Limit,
    Offset,
    SongSpec,
    When,
    choices,
    moment,
    plural,
    refuse,
    song_text,
)


def playable(env: Env, user: dict, rows: list[dict], verb: str) -> None:
    """Refuse songs that cannot be `verb`ed: unavailable ones (policy playable_songs)."""
    gone = [r for r in rows if not r["is_available"]]
    if gone:
        listing = choices(gone, song_text)
        raise refuse(
            "playable_songs", f"{plural(len(gone), 'song')} cannot be {verb}, being unavailable: {listing}"
        )


# --- liked songs --------------------------------------------------------------------------------------

LIKES = ("users", "favourite_songs", *SONG_TABLES)
writes_likes = functools.partial(tool, kind="write", writes=("favourite_songs",), idempotent=True)
"""`@tool` for a write tool over liked songs (give reads, destructive)."""


@tool(reads=(*LIKES, "song_genres", "genres"))
def list_liked_songs(
    env: Env,
    username: str,
    query: str | None = None,
    artist: int | str | None = None,
    album: int | str | None = None,
    genre: str | None = None,
    liked_since: When | None = None,
    liked_before: When | None = None,
    sort_by: Literal["liked_at", "title", "artist", "duration", "release_date"] = "liked_at",
    descending: bool | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """A listener's liked songs (their library), most recently liked first by default, with filters and a
    page at a time; each shows the song and when it was liked.

    Args:
        username: The listener's username (or e-mail address).
        query: Part of the song title.
        artist: The primary artist: an artist_id, or part of the name.
        album: The release: an album_id, or part of its title.
        genre: Songs tagged with this genre.
        liked_since: Liked at or after this moment (a date means its midnight).
        liked_before: Liked before this moment (a date means its midnight).
        sort_by: liked_at (default), title, artist, duration or release_date.
        descending: Reverse the order (default: newest first for liked_at, A to Z otherwise).
        limit: Songs per page, 1 to 50.
        offset: Songs to skip.
    """
    me = find.user(env, username)
    where = song_filters(env, Where().add("f.user_id = ?", me["user_id"]), artist, album, genre)
    where.when(query, "contains(lower(s.title), lower(?))")
    where.when(moment(liked_since) if liked_since else None, "f.favourited_at >= ?")
    where.when(moment(liked_before) if liked_before else None, "f.favourited_at < ?")
    sql = (
        f"SELECT {SONG_SELECT}, f.favourited_at AS liked_at FROM favourite_songs AS f "
        f"JOIN {SONG_FROM} ON s.song_id = f.song_id WHERE {where.sql}"
    )
    column = {"duration": "duration_s"}.get(sort_by, sort_by)
    order = find.sort_order(column, descending, sort_by == "liked_at", "song_id")
    page = env.page(sql, where.params, order_by=order, limit=limit, offset=offset)
    return {"username": me["username"], **page}


@writes_likes(reads=LIKES, destructive=False)
def like_songs(
    env: Env, username: str, songs: Annotated[list[SongSpec], Field(min_length=1, max_length=300)]
) -> dict:
    """Like songs (add them to the listener's liked songs), up to 300 at once. Songs already liked stay as
    they are; unavailable songs cannot be liked.

    Args:
        username: The listener's username (or e-mail address).
        songs: The songs: song ids, or {"title", "artist"?, "album"?} objects.
    """
    me = find.acting_user(env, username)
    rows = list({r["song_id"]: r for r in find.songs(env, songs)}.values())
    playable(env, me, rows, "liked")
    ids = [r["song_id"] for r in rows]
    have = find.held(env, "favourite_songs", "song_id", ids, user_id=me["user_id"])
    new = [r for r in rows if r["song_id"] not in have]
    env.insert_many(
        "favourite_songs",
        [{"user_id": me["user_id"], "song_id": r["song_id"], "favourited_at": env.now} for r in new],
    )
    return {"liked": len(new), "already_liked": [song_text(r) for r in rows if r["song_id"] in have]}


@writes_likes(reads=(*LIKES, "song_genres", "genres"), destructive=True)
def unlike_songs(
    env: Env,
    username: str,
    songs: Annotated[list[SongSpec], Field(max_length=300)] | None = None,
    artist: int | str | None = None,
    album: int | str | None = None,
    genre: str | None = None,
    liked_since: When | None = None,
    liked_before: When | None = None,
    unavailable_only: bool = False,
) -> dict:
    """Remove songs from a listener's liked songs: the songs named, or every liked song matching all the
    filters given (artist, album, genre, when liked, unavailable). Songs not liked are ignored.

    Args:
        username: The listener's username (or e-mail address).
        songs: The songs: song ids, or {"title", "artist"?, "album"?} objects.
        artist: Every liked song by this primary artist (an artist_id, or part of the name).
        album: Every liked song of this release (an album_id, or part of its title).
        genre: Every liked song tagged with this genre.
        liked_since: Liked at or after this moment (a date means its midnight).
        liked_before: Liked before this moment (a date means its midnight).
        unavailable_only: Only songs that are no longer available.
    """
    me = find.acting_user(env, username)
    where = song_filters(env, Where().add("f.user_id = ?", me["user_id"]), artist, album, genre)
    if songs is not None:
        if not songs:
            raise ToolError("songs is empty; name at least one song, or leave it out and use filters.")
        named = sorted({r["song_id"] for r in find.songs(env, songs)})
        where.add("s.song_id IN (SELECT unnest(?::BIGINT[]))", named)
    where.when(moment(liked_since) if liked_since else None, "f.favourited_at >= ?")
    where.when(moment(liked_before) if liked_before else None, "f.favourited_at < ?")
    where.when(False if unavailable_only else None, "s.is_available = ?")
    if len(where) == 1:
        raise ToolError("name songs or give at least one filter; nothing was removed.")
    rows = env.query(
        f"SELECT s.song_id, s.title, ar.name AS artist FROM favourite_songs AS f JOIN {SONG_FROM} "
        f"ON s.song_id = f.song_id WHERE {where.sql} ORDER BY s.song_id",
        where.params,
    )
    if rows:
        gone = [r["song_id"] for r in rows]
        find.delete_ids(env, "favourite_songs", "song_id", gone, user_id=me["user_id"])
    return {"unliked": len(rows), "songs": [f"{r['title']!r} by {r['artist']}" for r in rows[:50]]}


# --- followed artists ---------------------------------------------------------------------------------

FOLLOWS = ("users", "artists", "artist_follows")
writes_follows = functools.partial(tool, kind="write", reads=FOLLOWS, writes=("artist_follows",))
"""`@tool` for a write tool over followed artists (give idempotent, destructive)."""


@tool(reads=("users", "artist_follows", "artists"))
def list_followed_artists(
    env: Env,
    username: str,
    query: str | None = None,
    notifications: bool | None = None,
    followed_since: When | None = None,
    followed_before: When | None = None,
    sort_by: Literal["followed_at", "name", "listeners"] = "followed_at",
    descending: bool | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """The artists a listener follows, with when they followed and whether release notifications are on,
    a page at a time.

    Args:
        username: The listener's username (or e-mail address).
        query: Part of the artist's name.
        notifications: true: only artists with notifications on; false: only those with them off.
        followed_since: Followed at or after this moment (a date means its midnight).
        followed_before: Followed before this moment.
        sort_by: followed_at (default, newest first), name or listeners.
        descending: Reverse the order (default: descending except for name).
        limit: Artists per page, 1 to 50.
        offset: Artists to skip.
    """
    me = find.user(env, username)
    where = Where().add("f.user_id = ?", me["user_id"]).when(query, "contains(lower(a.name), lower(?))")
    where.when(notifications, "f.notifications_on = ?")
    where.when(moment(followed_since) if followed_since else None, "f.followed_at >= ?")
    where.when(moment(followed_before) if followed_before else None, "f.followed_at < ?")
    sql = (
        "SELECT a.artist_id, a.name, a.artist_type, a.monthly_listeners AS listeners, f.followed_at, "
        "f.notifications_on FROM artist_follows AS f JOIN artists AS a ON a.artist_id = f.artist_id "
        f"WHERE {where.sql}"
    )
    order = find.sort_order(sort_by, descending, sort_by != "name", "artist_id")
    page = env.page(sql, where.params, order_by=order, limit=limit, offset=offset)
    return {"username": me["username"], **page}


def _artists(env: Env, refs: list[int | str]) -> list[dict]:
    rows = {}
    for ref in refs:
        row = find.artist(env, ref)
        rows[row["artist_id"]] = row
    return list(rows.values())


@writes_follows(idempotent=True, destructive=False)
def follow_artists(
    env: Env,
    username: str,
    artists: Annotated[list[int | str], Field(min_length=1, max_length=200)],
    notifications: bool = True,
) -> dict:
    """Follow artists, up to 200 at once, with release notifications on (or off). Artists already followed
    keep their settings.

    Args:
        username: The listener's username (or e-mail address).
        artists: Artist ids, or exact artist names.
        notifications: Be notified of their new releases.
    """
    me = find.acting_user(env, username)
    rows = _artists(env, artists)
    have = {
        r["artist_id"]
        for r in env.query("SELECT artist_id FROM artist_follows WHERE user_id = ?", [me["user_id"]])
    }
    new = [r for r in rows if r["artist_id"] not in have]
    env.insert_many(
        "artist_follows",
        [
            {
                "user_id": me["user_id"],
                "artist_id": r["artist_id"],
                "followed_at": env.now,
                "notifications_on": notifications,
            }
            for r in new
        ],
    )
    return {
        "followed": [r["name"] for r in new],
        "already_following": [r["name"] for r in rows if r["artist_id"] in have],
    }


@writes_follows(idempotent=True, destructive=True)
def unfollow_artists(
    env: Env,
    username: str,
    artists: Annotated[list[int | str], Field(max_length=200)] | None = None,
    followed_before: When | None = None,
    notifications_off_only: bool = False,
) -> dict:
    """Stop following artists: the artists named, or every followed artist matching the filters (followed
    before a moment, notifications off). Artists not followed are ignored.

    Args:
        username: The listener's username (or e-mail address).
        artists: Artist ids, or exact artist names.
        followed_before: Every artist followed before this moment (a date means its midnight).
        notifications_off_only: Only artists whose notifications are off.
    """
    me = find.acting_user(env, username)
    where = Where().add("f.user_id = ?", me["user_id"])
    if artists is not None:
        if not artists:
            raise ToolError("artists is empty; name at least one artist, or use the filters.")
        where.add(
            "f.artist_id IN (SELECT unnest(?::BIGINT[]))", [r["artist_id"] for r in _artists(env, artists)]
        )
    where.when(moment(followed_before) if followed_before is not None else None, "f.followed_at < ?")
    if notifications_off_only:
        where.add("NOT f.notifications_on")
    if len(where) == 1:
        raise ToolError("name artists or give a filter; nothing was changed.")
    rows = env.query(
        "SELECT a.artist_id, a.name FROM artist_follows AS f JOIN artists AS a ON a.artist_id = f.artist_id "
        f"WHERE {where.sql} ORDER BY a.name, a.artist_id",
        where.params,
    )
    if rows:
        gone = [r["artist_id"] for r in rows]
        find.delete_ids(env, "artist_follows", "artist_id", gone, user_id=me["user_id"])
    return {"unfollowed": [r["name"] for r in rows], "count": len(rows)}


@writes_follows(idempotent=True, destructive=False)
def set_artist_notifications(
    env: Env,
    username: str,
    enabled: bool,
    artists: Annotated[list[int | str], Field(min_length=1, max_length=200)] | None = None,
) -> dict:
    """Turn new-release notifications on or off for followed artists: those named, or every artist the
    listener follows.

    Args:
        username: The listener's username (or e-mail address).
        enabled: true for notifications on, false for off.
        artists: Artist ids or exact names (each must be followed); leave out for every followed artist.
    """
    me = find.acting_user(env, username)
    where, params = "user_id = ? AND notifications_on <> ?", [me["user_id"], enabled]
    if artists is not None:
        rows = _artists(env, artists)
        named = [r["artist_id"] for r in rows]
        followed = find.held(env, "artist_follows", "artist_id", named, user_id=me["user_id"])
        missing = [r["name"] for r in rows if r["artist_id"] not in followed]
        if missing:
            raise ToolError(f"{me['username']} does not follow {', '.join(missing)}; follow_artists first.")
        where += " AND artist_id IN (SELECT unnest(?::BIGINT[]))"
        params.append(sorted(followed))
    changed = env.update_where("artist_follows", where, params, {"notifications_on": enabled})
    return {"notifications_on": enabled, "changed": changed}
