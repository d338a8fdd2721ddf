"""Playlists: search and open them, create, edit, copy and delete them, and add, remove, move and sort
their songs (one at a time or hundreds at once).

A playlist's songs are numbered 1..n without gaps (the rule playlist_positions_contiguous); every change
here leaves them so. The owner edits a playlist; on a collaborative one any active listener may add songs
and remove the songs they added (policy playlist_permissions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, Expr, ToolError, tool
from stateforge.tools.where import Where

from . import lookup as find
from .library import playable
from .lookup import (
    PLAYLIST_COLUMNS,
    SONG_FROM,
    SONG_SELECT,
    SONG_TABLES,
    Limit,
    Offset,
    SongSpec,
    When,
    moment,
    plural,
    refuse,
    song_text,
)

MAX_SONGS = 500
"""Songs a playlist may hold (policy playlist_size_limit)."""
PLAYLIST_TABLES = ("users", "playlists", "playlist_songs", *SONG_TABLES)
Title = Annotated[str, Field(min_length=1, max_length=100)]
Description = Annotated[str, Field(max_length=500)]
SongList = Annotated[list[SongSpec], Field(min_length=1, max_length=MAX_SONGS)]
SORTS = {
    "title": "lower(s.title)",
    "artist": "lower(ar.name)",
    "album": "lower(al.title)",
    "duration": "s.duration_ms",
    "release_date": "al.release_date",
    "added_at": "ps.added_at",
    "plays": "s.play_count",
}


def owned(env: Env, me: dict, ref: int | str, verb: str) -> dict:
    """`me`'s playlist `ref` (by id or title); someone else's is refused (policy playlist_permissions)."""
    found = find.playlist(env, ref, me)
    if found["owner_id"] != me["user_id"]:
        raise refuse(
            "playlist_permissions",
            f"playlist {found['playlist_id']} ({found['title']!r}) belongs to {found['owner']}; only its "
            f"owner can {verb} it",
        )
    return found


def order_of(env: Env, playlist_id: int) -> list[int]:
    """The playlist's song ids in playing order."""
    rows = env.query(
        "SELECT song_id FROM playlist_songs WHERE playlist_id = ? ORDER BY position, added_at, song_id",
        [playlist_id],
    )
    return [r["song_id"] for r in rows]


def set_order(env: Env, playlist_id: int, song_ids: Sequence[int]) -> int:
    """Number the playlist's songs by their place in `song_ids` (1..n); songs not yet in it are left for
    the caller to insert at their place. Only rows whose position changes are written; their count."""
    current = {
        r["song_id"]: r["position"]
        for r in env.query(
            "SELECT song_id, position FROM playlist_songs WHERE playlist_id = ?", [playlist_id]
        )
    }
    moves = [
        (sid, pos) for pos, sid in enumerate(song_ids, start=1) if sid in current and current[sid] != pos
    ]
    if not moves:
        return 0
    ids, positions = [m[0] for m in moves], [m[1] for m in moves]
    return env.update_where(
        "playlist_songs",
        "playlist_id = ? AND song_id IN (SELECT unnest(?::BIGINT[]))",
        [playlist_id, ids],
        {
            "position": Expr(
                "(SELECT m.p FROM (SELECT unnest(?::BIGINT[]) AS s, unnest(?::INTEGER[]) AS p) AS m "
                "WHERE m.s = playlist_songs.song_id)",
                [ids, positions],
            )
        },
    )


def touch(env: Env, playlist_id: int) -> None:
    """The playlist was changed now."""
    env.update("playlists", playlist_id, {"updated_at": env.now})


def summary(env: Env, playlist_id: int) -> dict:
    """The playlist's header as its page shows it: owner, flags, song count and length."""
    row = env.one(
        f"SELECT {PLAYLIST_COLUMNS}, "
        "(SELECT count(*) FROM playlist_songs AS x WHERE x.playlist_id = p.playlist_id) AS songs, "
        "(SELECT coalesce(sum(t.duration_ms), 0) FROM playlist_songs AS x JOIN songs AS t "
        "ON t.song_id = x.song_id WHERE x.playlist_id = p.playlist_id) AS duration_ms "
        "FROM playlists AS p JOIN users AS u ON u.user_id = p.owner_id WHERE p.playlist_id = ?",
        [playlist_id],
    )
    assert row is not None
    row.pop("owner_id")
    row["duration"] = find.span(row.pop("duration_ms"))
    return row


def new_playlist(env: Env, me: dict, title: str, description: str | None, public: bool, collab: bool) -> dict:
    """Insert a playlist of `me`'s, created now with no followers; the new row."""
    return env.insert(
        "playlists",
        {
            "owner_id": me["user_id"],
            "title": title,
            "description": description,
            "is_public": public,
            "is_collaborative": collab,
            "follower_count": 0,
            "created_at": env.now,
            "updated_at": env.now,
        },
    )


def insert_songs(env: Env, me: dict, playlist_id: int, rows: list[dict], position: int | None) -> None:
    """Put the songs `rows` into the playlist at `position` (1-based; default: the end), in their order,
    added now by `me`; the songs after them move down."""
    current = order_of(env, playlist_id)
    if len(current) + len(rows) > MAX_SONGS:
        raise refuse(
            "playlist_size_limit",
            f"the playlist has {plural(len(current), 'song')}; adding {len(rows)} would make "
            f"{len(current) + len(rows)}, over the limit of {MAX_SONGS}",
        )
    at = len(current) if position is None else min(position - 1, len(current))
    set_order(env, playlist_id, current[:at] + [r["song_id"] for r in rows] + current[at:])
    env.insert_many(
        "playlist_songs",
        [
            {
                "playlist_id": playlist_id,
                "song_id": r["song_id"],
                "position": at + i,
                "added_at": env.now,
                "added_by_user_id": me["user_id"],
            }
            for i, r in enumerate(rows, start=1)
        ],
    )


@tool(reads=(*PLAYLIST_TABLES,))
def search_playlists(
    env: Env,
    query: str | None = None,
    owner: str | None = None,
    is_public: bool | None = None,
    collaborative: bool | None = None,
    contains_song: SongSpec | None = None,
    min_followers: int | None = None,
    min_songs: int | None = None,
    max_songs: int | None = None,
    updated_since: When | None = None,
    sort_by: Literal["followers", "title", "songs", "created_at", "updated_at"] = "followers",
    descending: bool | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search playlists with filters (a listener's own with owner=their username), sorted, a page at a time.
    Each shows playlist_id (as in its share link), title, owner, description, public / collaborative,
    followers, number of songs, total length in seconds, created and updated.

    Args:
        query: Part of the title or description (any letter case).
        owner: The owner's username (or e-mail address).
        is_public: true: only public playlists; false: only private ones.
        collaborative: true: only collaborative playlists; false: only the others.
        contains_song: Only playlists holding this song (its song_id, or {"title", "artist"?, "album"?}).
        min_followers: At least this many followers.
        min_songs: At least this many songs.
        max_songs: At most this many songs.
        updated_since: Changed at or after this moment (a date means its midnight).
        sort_by: followers (default), title, songs, created_at or updated_at.
        descending: Reverse the order (default: descending except for title).
        limit: Playlists per page, 1 to 50.
        offset: Playlists to skip.
    """
    in_text = "contains(lower(p.title), lower(?)) OR contains(lower(coalesce(p.description, '')), lower(?))"
    where = Where().when(query or None, in_text, query, query)
    where.when(find.user(env, owner)["user_id"] if owner else None, "p.owner_id = ?")
    holds = "EXISTS (SELECT 1 FROM playlist_songs AS c WHERE c.playlist_id = p.playlist_id AND c.song_id = ?)"
    where.when(find.song(env, contains_song)["song_id"] if contains_song is not None else None, holds)
    where.when(is_public, "p.is_public = ?").when(collaborative, "p.is_collaborative = ?")
    where.when(min_followers, "p.follower_count >= ?")
    where.when(moment(updated_since) if updated_since else None, "p.updated_at >= ?")
    sql = (
        "SELECT p.playlist_id, p.title, u.username AS owner, p.description, p.is_public, p.is_collaborative, "
        "p.follower_count AS followers, "
        "(SELECT count(*) FROM playlist_songs AS x WHERE x.playlist_id = p.playlist_id) AS songs, "
        "(SELECT coalesce(sum(t.duration_ms), 0) // 1000 FROM playlist_songs AS x JOIN songs AS t "
        "ON t.song_id = x.song_id WHERE x.playlist_id = p.playlist_id) AS duration_s, "
        "p.created_at, p.updated_at "
        f"FROM playlists AS p JOIN users AS u ON u.user_id = p.owner_id WHERE {where.sql}"
    )
    sizes = Where().when(min_songs, "songs >= ?").when(max_songs, "songs <= ?")
    if sizes:
        sql = f"SELECT * FROM ({sql}) AS found WHERE {sizes.sql}"
    order = find.sort_order(sort_by, descending, sort_by != "title", "playlist_id")
    return env.page(sql, where.params + sizes.params, order_by=order, limit=limit, offset=offset)


@tool(reads=(*PLAYLIST_TABLES,))
def get_playlist(
    env: Env,
    playlist: int | str,
    owner: str | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict:
    """Open a playlist: its header (title, owner, description, public / collaborative, followers, number of
    songs, total length) and its songs in order, a page at a time: position, song_id, title, artist, album,
    duration, explicit, available, when added and by whom.

    Args:
        playlist: The playlist_id, or its title (then give the owner).
        owner: The owner's username, when the playlist is named by title.
        limit: Songs per page, 1 to 50.
        offset: Songs to skip (positions 51 and on start at offset 50).
    """
    who = find.user(env, owner) if owner else None
    found = find.playlist(env, playlist, who)
    page = env.page(
        f"SELECT ps.position, {SONG_SELECT}, ps.added_at, by_u.username AS added_by "
        f"FROM playlist_songs AS ps JOIN {SONG_FROM} ON s.song_id = ps.song_id "
        "LEFT JOIN users AS by_u ON by_u.user_id = ps.added_by_user_id WHERE ps.playlist_id = ?",
        [found["playlist_id"]],
        order_by="position, added_at, song_id",
        limit=limit,
        offset=offset,
    )
    return {**summary(env, found["playlist_id"]), **page}


# destructive=False: it only adds a playlist and its songs (insert_songs numbers the new rows, nothing else)
@tool(
    kind="write",
    reads=(*PLAYLIST_TABLES,),
    writes=("playlists", "playlist_songs"),
    idempotent=False,
    destructive=False,
)
def create_playlist(
    env: Env,
    username: str,
    title: Title,
    description: Description | None = None,
    is_public: bool | None = None,
    is_collaborative: bool = False,
    songs: Annotated[list[SongSpec], Field(max_length=MAX_SONGS)] | None = None,
) -> dict:
    """Create a playlist for a listener, optionally with songs in the order given. It is public unless it is
    collaborative (collaborative playlists are always private).

    Args:
        username: The owner's username (or e-mail address).
        title: The playlist's title, 1 to 100 characters.
        description: A text shown under the title, up to 500 characters.
        is_public: Whether anyone can find it (default: public, private when collaborative).
        is_collaborative: Let other listeners add songs (the playlist must then be private).
        songs: Songs to put in, in order: song ids, or {"title", "artist"?, "album"?} objects.
    """
    me = find.acting_user(env, username)
    public = (not is_collaborative) if is_public is None else is_public
    if public and is_collaborative:
        raise refuse(
            "collaborative_playlists_private",
            "a collaborative playlist cannot be public; pass is_public=false, or is_collaborative=false",
        )
    rows = find.songs(env, songs or [])
    doubles = sorted({song_text(r) for r in rows if sum(x["song_id"] == r["song_id"] for x in rows) > 1})
    if doubles:
        raise ToolError(f"a playlist holds a song once; named twice: {'; '.join(doubles[:5])}.")
    playable(env, me, rows, "added")
    created = new_playlist(env, me, find.text(title, "title"), description or None, public, is_collaborative)
    insert_songs(env, me, created["playlist_id"], rows, None)
    return summary(env, created["playlist_id"])


@tool(kind="write", reads=(*PLAYLIST_TABLES,), writes=("playlists",), idempotent=True, destructive=True)
def update_playlist(
    env: Env,
    username: str,
    playlist: int | str,
    title: Title | None = None,
    description: Description | None = None,
    is_public: bool | None = None,
    is_collaborative: bool | None = None,
) -> dict:
    """Change a playlist's details: rename it, change or clear its description, make it public or private,
    turn collaboration on or off. Only the owner can; a collaborative playlist stays private.

    Args:
        username: The owner's username (or e-mail address).
        playlist: The playlist_id, or the title of one of their playlists.
        title: The new title.
        description: The new description; an empty string clears it.
        is_public: true to publish it, false to make it private.
        is_collaborative: true to let others add songs (it must be or become private), false to stop.
    """
    me = find.acting_user(env, username)
    found = owned(env, me, playlist, "edit")
    changes: dict = {}
    if title is not None:
        changes["title"] = find.text(title, "title")
    if description is not None:
        changes["description"] = description or None
    if is_public is not None:
        changes["is_public"] = is_public
    if is_collaborative is not None:
        changes["is_collaborative"] = is_collaborative
    if not changes:
        raise ToolError("give at least one of title, description, is_public or is_collaborative.")
    public = changes.get("is_public", found["is_public"])
    collaborative = changes.get("is_collaborative", found["is_collaborative"])
    if public and collaborative:
        fix = "also pass is_collaborative=false to publish it" if is_public else "also pass is_public=false"
        raise refuse(
            "collaborative_playlists_private",
            f"{found['title']!r} would be collaborative and public at once; {fix}",
        )
    env.update("playlists", found["playlist_id"], {**changes, "updated_at": env.now})
    return summary(env, found["playlist_id"])


@tool(kind="write", reads=(*PLAYLIST_TABLES,), writes=("playlists",), idempotent=False, destructive=True)
def delete_playlist(env: Env, username: str, playlist: int | str) -> dict:
    """Delete one of a listener's playlists, with its songs list. Only the owner can.

    Args:
        username: The owner's username (or e-mail address).
        playlist: The playlist_id, or the title of one of their playlists.
    """
    me = find.acting_user(env, username)
    found = owned(env, me, playlist, "delete")
    env.delete("playlists", found["playlist_id"])
    removed = env.changes.counts.get("playlist_songs", {}).get("deleted", 0)
    return {
        "deleted": {"playlist_id": found["playlist_id"], "title": found["title"]},
        "songs_removed": removed,
    }
