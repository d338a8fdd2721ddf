"""A playlist's songs: add (many at once, at any place), remove (named, by position, or by filter), move,
sort, and copy a whole playlist."""

from __future__ import annotations

import functools
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.where import Where

from . import lookup as find
from .catalog import song_filters
from .library import playable
from .lookup import SONG_FROM, SongSpec, When, choices, moment, plural, refuse, song_text
from .playlists import (
    MAX_SONGS,
    PLAYLIST_TABLES,
    SORTS,
    SongList,
    Title,
    insert_songs,
    new_playlist,
    order_of,
    owned,
    set_order,
    summary,
    touch,
)

Position = Annotated[int, Field(ge=1, le=MAX_SONGS)]
writes_songs = functools.partial(
    tool, kind="write", reads=PLAYLIST_TABLES, writes=("playlists", "playlist_songs")
)
"""`@tool` for a write tool over playlists and their songs (give idempotent, destructive)."""


# destructive=False: it only adds songs; the positions it rewrites are those of the rows it inserts or
# of songs pushed down to make room, all kept
@writes_songs(idempotent=False, destructive=False)
def add_songs_to_playlist(
    env: Env,
    username: str,
    playlist: int | str,
    songs: SongList,
    position: Position | None = None,
    skip_duplicates: bool = False,
) -> dict:
    """Add songs to a playlist, up to 500 at once, in the order given: at the end, or starting at a
    position (the songs from there on move down). Owners add to their playlists; anyone active adds to a
    collaborative one. A song already in the playlist is refused unless skip_duplicates is true.

    Args:
        username: The listener adding the songs (username or e-mail address).
        playlist: The playlist_id, or the title of one of their own playlists.
        songs: The songs: song ids, or {"title", "artist"?, "album"?} objects.
        position: Where the first new song goes (1 is the top); default the end.
        skip_duplicates: Leave out songs already in the playlist (or named twice) instead of refusing.
    """
    me = find.acting_user(env, username)
    found = find.playlist(env, playlist, me)
    if found["owner_id"] != me["user_id"] and not found["is_collaborative"]:
        raise refuse(
            "playlist_permissions",
            f"playlist {found['playlist_id']} ({found['title']!r}) belongs to {found['owner']} and is not "
            "collaborative; only its owner can add songs",
        )
    rows = find.songs(env, songs)
    present = set(order_of(env, found["playlist_id"]))
    seen: set[int] = set()
    fresh, doubles = [], []
    for row in rows:
        (doubles if row["song_id"] in present or row["song_id"] in seen else fresh).append(row)
        seen.add(row["song_id"])
    if doubles and not skip_duplicates:
        raise ToolError(
            f"a playlist holds a song once; already in {found['title']!r} or named twice: "
            f"{choices(doubles, song_text)}. Pass skip_duplicates=true to add the others."
        )
    playable(env, me, fresh, "added")
    if fresh:
        insert_songs(env, me, found["playlist_id"], fresh, position)
        touch(env, found["playlist_id"])
    return {
        "playlist_id": found["playlist_id"],
        "title": found["title"],
        "added": len(fresh),
        "skipped": [song_text(r) for r in doubles[:50]],
        "songs": len(present) + len(fresh),
    }


@writes_songs(idempotent=True, destructive=True)
def remove_songs_from_playlist(
    env: Env,
    username: str,
    playlist: int | str,
    songs: Annotated[list[SongSpec], Field(max_length=MAX_SONGS)] | None = None,
    positions: Annotated[list[Position], Field(max_length=MAX_SONGS)] | None = None,
    artist: int | str | None = None,
    album: int | str | None = None,
    added_since: When | None = None,
    added_before: When | None = None,
    added_by: str | None = None,
    explicit: bool | None = None,
    unavailable_only: bool = False,
) -> dict:
    """Remove songs from a playlist: the songs named, the songs at the positions given, or every song
    matching all the filters given; the songs after them move up. A collaborator (not the owner) removes
    only songs they added.

    Args:
        username: The listener removing the songs (username or e-mail address).
        playlist: The playlist_id, or the title of one of their own playlists.
        songs: Songs to remove (each must be in the playlist): ids, or {"title", "artist"?, "album"?}.
        positions: Positions to remove, as they are before the removal (1 is the top).
        artist: Every song by this primary artist (an artist_id, or part of the name).
        album: Every song of this release (an album_id, or part of its title).
        added_since: Songs added at or after this moment (a date means its midnight).
        added_before: Songs added before this moment (a date means its midnight).
        added_by: Songs added by this listener (username).
        explicit: true: only explicit songs; false: only clean ones.
        unavailable_only: Only songs that are no longer available.
    """
    me = find.acting_user(env, username)
    found = find.playlist(env, playlist, me)
    pid = found["playlist_id"]
    mine = found["owner_id"] == me["user_id"]
    if not mine and not found["is_collaborative"]:
        raise refuse(
            "playlist_permissions",
            f"playlist {pid} ({found['title']!r}) belongs to {found['owner']}; "
            "only its owner can remove songs",
        )
    current = order_of(env, pid)
    where = Where().add("ps.playlist_id = ?", pid)
    if songs is not None:
        named = find.songs(env, songs)
        absent = [song_text(r) for r in named if r["song_id"] not in set(current)]
        if absent:
            raise ToolError(f"not in {found['title']!r}: {'; '.join(absent[:5])}.")
        where.add("ps.song_id IN (SELECT unnest(?::BIGINT[]))", sorted({r["song_id"] for r in named}))
    if positions is not None:
        beyond = sorted(p for p in set(positions) if p > len(current))
        if beyond:
            raise ToolError(
                f"{found['title']!r} has {plural(len(current), 'song')}; no position {beyond[0]}."
            )
        at = sorted({current[p - 1] for p in positions})
        where.add("ps.song_id IN (SELECT unnest(?::BIGINT[]))", at)
    song_filters(env, where, artist, album, None)
    where.when(moment(added_since) if added_since else None, "ps.added_at >= ?")
    where.when(moment(added_before) if added_before else None, "ps.added_at < ?")
    where.when(find.user(env, added_by)["user_id"] if added_by else None, "ps.added_by_user_id = ?")
    where.when(explicit, "s.explicit = ?").when(False if unavailable_only else None, "s.is_available = ?")
    if len(where) == 1:
        raise ToolError("name songs or positions, or give at least one filter; nothing was removed.")
    rows = env.query(
        f"SELECT s.song_id, s.title, ar.name AS artist, ps.added_by_user_id FROM playlist_songs AS ps "
        f"JOIN {SONG_FROM} ON s.song_id = ps.song_id WHERE {where.sql} ORDER BY ps.position",
        where.params,
    )
    if not mine:
        theirs = [r for r in rows if r["added_by_user_id"] != me["user_id"]]
        if theirs:
            raise refuse(
                "playlist_permissions",
                f"{me['username']} did not add {plural(len(theirs), 'of these songs', 'of these songs')} "
                f"(e.g. {theirs[0]['title']!r}); on a collaborative playlist you remove only songs you added",
            )
    gone = {r["song_id"] for r in rows}
    if gone:
        find.delete_ids(env, "playlist_songs", "song_id", sorted(gone), playlist_id=pid)
        set_order(env, pid, [sid for sid in current if sid not in gone])
        touch(env, pid)
    return {
        "playlist_id": pid,
        "title": found["title"],
        "removed": len(gone),
        "songs_removed": [f"{r['title']!r} by {r['artist']}" for r in rows[:50]],
        "songs": len(current) - len(gone),
    }


@writes_songs(idempotent=True, destructive=False)
def move_playlist_song(
    env: Env,
    username: str,
    playlist: int | str,
    to_position: Position,
    song: SongSpec | None = None,
    from_position: Position | None = None,
) -> dict:
    """Move one song of a playlist to another position; the songs in between shift by one. Name the song,
    or the position it is at now. Only the owner reorders.

    Args:
        username: The owner's username (or e-mail address).
        playlist: The playlist_id, or the title of one of their playlists.
        to_position: Its new position (1 is the top).
        song: The song to move: its song_id, or {"title", "artist"?, "album"?}.
        from_position: The position of the song to move (instead of naming it).
    """
    me = find.acting_user(env, username)
    found = owned(env, me, playlist, "reorder")
    current = order_of(env, found["playlist_id"])
    if (song is None) == (from_position is None):
        raise ToolError("give the song to move or its from_position (one of them).")
    for pos in (to_position, from_position):
        if pos is not None and pos > len(current):
            raise ToolError(f"{found['title']!r} has {plural(len(current), 'song')}; no position {pos}.")
    if song is not None:
        row = find.song(env, song)
        if row["song_id"] not in current:
            raise ToolError(f"{song_text(row)} is not in {found['title']!r}.")
        moving = row["song_id"]
    else:
        moving = current[from_position - 1]  # type: ignore[operator]
    order = [sid for sid in current if sid != moving]
    order.insert(to_position - 1, moving)
    if set_order(env, found["playlist_id"], order):
        touch(env, found["playlist_id"])
    return {
        "playlist_id": found["playlist_id"],
        "song_id": moving,
        "from_position": current.index(moving) + 1,
        "to_position": to_position,
    }


@writes_songs(idempotent=True)
def sort_playlist(
    env: Env,
    username: str,
    playlist: int | str,
    by: Literal["title", "artist", "album", "duration", "release_date", "added_at", "plays"],
    descending: bool = False,
) -> dict:
    """Reorder a whole playlist by title, artist, album, duration, release date, date added or plays (ties
    keep their current order). Only the owner reorders.

    Args:
        username: The owner's username (or e-mail address).
        playlist: The playlist_id, or the title of one of their playlists.
        by: What to sort by.
        descending: Z to A, longest, newest or most played first.
    """
    me = find.acting_user(env, username)
    found = owned(env, me, playlist, "reorder")
    direction = "DESC" if descending else "ASC"
    rows = env.query(
        f"SELECT ps.song_id FROM playlist_songs AS ps JOIN {SONG_FROM} ON s.song_id = ps.song_id "
        f"WHERE ps.playlist_id = ? ORDER BY {SORTS[by]} {direction} NULLS LAST, ps.position, ps.song_id",
        [found["playlist_id"]],
    )
    moved = set_order(env, found["playlist_id"], [r["song_id"] for r in rows])
    if moved:
        touch(env, found["playlist_id"])
    return {"playlist_id": found["playlist_id"], "sorted_by": by, "descending": descending, "moved": moved}


# destructive=False: the positions it sets are the new copy's own
@writes_songs(idempotent=False, destructive=False)
def duplicate_playlist(
    env: Env,
    username: str,
    playlist: int | str,
    owner: str | None = None,
    title: Title | None = None,
    is_public: bool = True,
) -> dict:
    """Copy a playlist (one's own, a public one, or a collaborative one) into a new playlist of the
    listener's, with the same description and songs in the same order; unavailable songs are left out.
    Someone else's private playlist cannot be copied.

    Args:
        username: The listener who gets the copy (username or e-mail address).
        playlist: The playlist_id of the original, or its title (then give its owner if it is not theirs).
        owner: The original's owner (username), when naming someone else's playlist by title.
        title: The copy's title (default: the original's).
        is_public: Whether the copy is public.
    """
    me = find.acting_user(env, username)
    source = find.playlist(env, playlist, find.user(env, owner) if owner else me)
    if source["owner_id"] != me["user_id"] and not (source["is_public"] or source["is_collaborative"]):
        raise refuse(
            "playlist_permissions",
            f"playlist {source['playlist_id']} ({source['title']!r}) is {source['owner']}'s private "
            "playlist; it cannot be copied",
        )
    rows = env.query(
        "SELECT ps.song_id, s.is_available FROM playlist_songs AS ps "
        "JOIN songs AS s ON s.song_id = ps.song_id "
        "WHERE ps.playlist_id = ? ORDER BY ps.position, ps.added_at, ps.song_id",
        [source["playlist_id"]],
    )
    kept = [r for r in rows if r["is_available"]]
    named = find.text(title, "title") if title is not None else source["title"]
    copy = new_playlist(env, me, named, source["description"], is_public, False)
    insert_songs(env, me, copy["playlist_id"], kept, None)
    return {
        **summary(env, copy["playlist_id"]),
        "copied_from": source["playlist_id"],
        "left_out_unavailable": len(rows) - len(kept),
    }
