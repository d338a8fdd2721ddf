"""Finding things by what a listener knows, for the music tools: users by username or e-mail, songs by id
or by title (and artist, album), artists and albums by name, playlists by id or title, devices by id or name.

Every resolver either returns exactly one row or raises a `ToolError` the agent can act on: nothing found
(with the closest candidates, and the tool that searches), or several found (each candidate listed with what
tells them apart and the id to pass instead). A policy refusal is `refuse(<policy>, text)` (a
`PolicyRefusal` with the domain.yaml policy's name as its `policy` field).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from stateforge.tools import Env, ToolError
from stateforge.tools.policies import refuse
from stateforge.tools.wording import SHOWN, choices, order_by, plural  # noqa: F401 - the pack's modules import them here

SONG_TABLES = ("songs", "artists", "albums")
"""What a rendered song reads: the track, its primary artist and its release."""

Limit = Annotated[int, Field(ge=1, le=50, description="Results per page, 1 to 50.")]
Offset = Annotated[
    int, Field(ge=0, description="Results to skip: 0 for the first page, then the previous offset + limit.")
]


class SongRef(BaseModel):
    """A song, named as a listener would: its title, with its artist and/or album when titles repeat."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=200, description="The song's title (any letter case).")
    artist: str | None = Field(
        default=None, max_length=100, description="Its primary artist's name, when the title is not unique."
    )
    album: str | None = Field(
        default=None, max_length=200, description="The title of the release it is on, when still not unique."
    )


SongSpec = int | SongRef
"""A song id (as search results show), or a `SongRef`."""

When = dt.datetime | dt.date
"""A moment in a filter: a date and time, or a date (its midnight)."""


def moment(value: When) -> dt.datetime:
    """A date as the midnight at its start; a date and time as is."""
    return value if isinstance(value, dt.datetime) else dt.datetime.combine(value, dt.time())


def text(value: str, what: str) -> str:
    """`value` without surrounding blanks; a `ToolError` naming `what` when nothing is left."""
    kept = value.strip()
    if not kept:
        raise ToolError(f"{what} cannot be blank; give some text.")
    return kept


IN_IDS = "IN (SELECT unnest(?::BIGINT[]))"
"""SQL after a column: its value is one of a list of ids (the parameter)."""


def held(env: Env, table: str, column: str, ids: Sequence[int], **scope: Any) -> set[int]:
    """Which of `ids` are in `column` of the rows of `table` whose columns equal `scope`."""
    where, params = _among(column, ids, scope)
    return {r[column] for r in env.query(f"SELECT {column} FROM {table} WHERE {where}", params)}


def delete_ids(env: Env, table: str, column: str, ids: Sequence[int], **scope: Any) -> None:
    """Delete the rows of `table` whose `column` is one of `ids` and whose columns equal `scope`."""
    env.delete_where(table, *_among(column, ids, scope))


def _among(column: str, ids: Sequence[int], scope: dict[str, Any]) -> tuple[str, list[Any]]:
    return " AND ".join([*(f"{k} = ?" for k in scope), f"{column} {IN_IDS}"]), [*scope.values(), ids]


def one(env: Env, sql: str, params: Sequence[Any], missing: str) -> dict[str, Any]:
    """The row of `sql`; a `ToolError` saying `missing` when there is none."""
    row = env.one(sql, params)
    if row is None:
        raise ToolError(missing)
    return row


def sort_order(column: str, descending: bool | None, by_default: bool, key: str) -> str:
    """`order_by` descending or not as asked, else in the list's default direction (`by_default`)."""
    return order_by(column, by_default if descending is None else descending, key)


def span(ms: int) -> str:
    """A duration in milliseconds as `m:ss` (or `h:mm:ss`)."""
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


# --- users --------------------------------------------------------------------------------------------

USER_COLUMNS = (
    "user_id, username, display_name, email, country_code, status, birth_date, explicit_content_allowed"
)


def user(env: Env, username: str) -> dict[str, Any]:
    """The user with this username (exact, else in any letter case) or e-mail address; else a `ToolError`."""
    if "@" in username:
        missing = f"no user has the e-mail address {username!r}; find_users looks people up."
        sql = f"SELECT {USER_COLUMNS} FROM users WHERE lower(email) = lower(?)"
        return one(env, sql, [username], missing)
    row = env.one(f"SELECT {USER_COLUMNS} FROM users WHERE username = ?", [username])
    if row is not None:
        return row
    rows = env.query(
        f"SELECT {USER_COLUMNS} FROM users "
        "WHERE lower(username) = lower(?) OR lower(display_name) = lower(?) "
        "ORDER BY username LIMIT 20",
        [username, username],
    )
    if len(rows) == 1 and rows[0]["username"].lower() == username.lower():
        return rows[0]
    if rows:
        raise ToolError(
            f"no user has the username {username!r}, but {plural(len(rows), 'user')} go by that name: "
            f"{choices(rows, _user_text)}. Pass the username of the one you mean."
        )
    near = env.query(
        "SELECT username, display_name, country_code FROM users "
        "WHERE contains(lower(username), lower(?)) OR contains(lower(display_name), lower(?)) "
        "ORDER BY username LIMIT 5",
        [username, username],
    )
    hint = f" Similar: {choices(near, _user_text)}." if near else ""
    raise ToolError(f"no user has the username {username!r}.{hint} find_users searches by name.")


def _user_text(row: dict[str, Any]) -> str:
    return f"{row['username']} ({row['display_name']}, {row['country_code']})"


def acting_user(env: Env, username: str) -> dict[str, Any]:
    """The user a change is made for; suspended and closed accounts are refused."""
    row = user(env, username)
    if row["status"] != "active":
        raise refuse(
            "active_accounts_only",
            f"the account {row['username']} is {row['status']}; only active accounts can make changes",
        )
    return row


# --- songs --------------------------------------------------------------------------------------------

SONG_SELECT = (
    "s.song_id, s.title, ar.name AS artist, al.title AS album, al.release_date, "
    "s.duration_ms // 1000 AS duration_s, "
    "printf('%d:%02d', s.duration_ms // 60000, (s.duration_ms // 1000) % 60) AS duration, "
    "s.explicit, s.play_count AS plays, s.is_available AS available"
)
SONG_FROM = (
    "songs AS s JOIN artists AS ar ON ar.artist_id = s.artist_id "
    "JOIN albums AS al ON al.album_id = s.album_id"
)

_BY_IDS = (
    "SELECT s.song_id, s.title, ar.name AS artist, al.title AS album, al.release_date, s.duration_ms, "
    "s.explicit, s.is_available FROM " + SONG_FROM + " WHERE s.song_id IN (SELECT unnest(?::BIGINT[]))"
)
_BY_TITLES = (
    "SELECT r.i, s.song_id, s.title, ar.name AS artist, al.title AS album, al.release_date, s.duration_ms, "
    "s.explicit, s.is_available "
    "FROM (SELECT unnest(?::INTEGER[]) AS i, unnest(?::VARCHAR[]) AS t, unnest(?::VARCHAR[]) AS a, "
    "unnest(?::VARCHAR[]) AS b) AS r "
    "JOIN songs AS s ON lower(s.title) = lower(r.t) "
    "JOIN artists AS ar ON ar.artist_id = s.artist_id JOIN albums AS al ON al.album_id = s.album_id "
    "WHERE (r.a IS NULL OR lower(ar.name) = lower(r.a)) AND (r.b IS NULL OR lower(al.title) = lower(r.b)) "
    "ORDER BY r.i, s.song_id"
)


def song_text(row: dict[str, Any]) -> str:
    """`'Hour' by Jo Andrews on 'Finish' (2023), song_id 12`."""
    year = row["release_date"].year if row.get("release_date") else "?"
    return f"{row['title']!r} by {row['artist']} on {row['album']!r} ({year}), song_id {row['song_id']}"


def _ref_text(ref: SongRef) -> str:
    text = repr(ref.title)
    if ref.artist:
        text += f" by {ref.artist}"
    if ref.album:
        text += f" on {ref.album!r}"
    return text


def songs(env: Env, specs: Sequence[SongSpec]) -> list[dict[str, Any]]:
    """The songs named by `specs`, in their order (a song named twice appears twice).

    Each row has song_id, title, artist, album, release_date, duration_ms, explicit, is_available. A
    `ToolError` lists every id that does not exist, every title that matches nothing and every title that
    matches several songs (with the candidates).
    """
    found: dict[int, dict[str, Any]] = {}
    ids = sorted({s for s in specs if isinstance(s, int)})
    if ids:
        found = {r["song_id"]: r for r in env.query(_BY_IDS, [ids])}
    refs = [(i, s) for i, s in enumerate(specs) if isinstance(s, SongRef)]
    by_ref: dict[int, list[dict[str, Any]]] = {i: [] for i, _ in refs}
    if refs:
        rows = env.query(
            _BY_TITLES,
            [
                [i for i, _ in refs],
                [r.title for _, r in refs],
                [r.artist for _, r in refs],
                [r.album for _, r in refs],
            ],
        )
        for row in rows:
            by_ref[row.pop("i")].append(row)
    problems = [f"no song has the id {s}" for s in ids if s not in found]
    out: list[dict[str, Any]] = []
    for i, spec in enumerate(specs):
        if isinstance(spec, int):
            if spec in found:
                out.append(found[spec])
            continue
        matches = by_ref[i]
        if len(matches) == 1:
            out.append(matches[0])
        elif not matches:
            problems.append(_missing_song(env, spec))
        else:
            problems.append(
                f"{_ref_text(spec)} matches {plural(len(matches), 'song')}: {choices(matches, song_text)}"
            )
    if problems:
        raise ToolError(
            f"{choices(problems, str)}. Name songs by song_id (search_songs shows them), or add the artist "
            "and album."
        )
    return out


def song(env: Env, spec: SongSpec) -> dict[str, Any]:
    """The one song named by `spec` (see `songs`)."""
    return songs(env, [spec])[0]


def _missing_song(env: Env, ref: SongRef) -> str:
    near = env.query(
        "SELECT s.song_id, s.title, ar.name AS artist, al.title AS album, al.release_date FROM "
        + SONG_FROM
        + " WHERE contains(lower(s.title), lower(?)) AND (? IS NULL OR contains(lower(ar.name), lower(?))) "
        "ORDER BY s.play_count DESC, s.song_id LIMIT 3",
        [ref.title, ref.artist, ref.artist],
    )
    hint = f" (similar: {choices(near, song_text)})" if near else ""
    return f"no song matches {_ref_text(ref)}{hint}"


# --- artists and albums -------------------------------------------------------------------------------


def artist(env: Env, ref: int | str) -> dict[str, Any]:
    """The artist with this id, or this exact name (any letter case)."""
    cols = "artist_id, name, artist_type, country_code, monthly_listeners, is_verified"
    if isinstance(ref, int):
        missing = f"no artist has the id {ref}; search_artists finds artists by name."
        return one(env, f"SELECT {cols} FROM artists WHERE artist_id = ?", [ref], missing)
    rows = env.query(
        f"SELECT {cols} FROM artists WHERE lower(name) = lower(?) ORDER BY monthly_listeners DESC, artist_id",
        [ref],
    )
    if len(rows) == 1:
        return rows[0]
    if rows:
        raise ToolError(
            f"{plural(len(rows), 'artist')} are called {ref!r}: {choices(rows, _artist_text)}. "
            "Pass the artist_id of the one you mean."
        )
    near = env.query(
        f"SELECT {cols} FROM artists WHERE contains(lower(name), lower(?)) "
        "ORDER BY monthly_listeners DESC, artist_id LIMIT 3",
        [ref],
    )
    hint = f" Similar: {choices(near, _artist_text)}." if near else ""
    raise ToolError(f"no artist is called {ref!r}.{hint} search_artists finds artists by part of a name.")


def _artist_text(row: dict[str, Any]) -> str:
    return (
        f"{row['name']} (artist_id {row['artist_id']}, {row['artist_type']}, "
        f"{row['country_code'] or 'no country'}, {row['monthly_listeners']:,} monthly listeners)"
    )


def album(env: Env, ref: int | str, artist_name: str | None = None) -> dict[str, Any]:
    """The release with this id, or this exact title (any letter case), optionally by this artist."""
    cols = "al.album_id, al.title, ar.name AS artist, al.album_type, al.release_date, al.artist_id"
    base = f"SELECT {cols} FROM albums AS al JOIN artists AS ar ON ar.artist_id = al.artist_id"
    if isinstance(ref, int):
        missing = f"no album has the id {ref}; search_albums finds releases by title."
        return one(env, f"{base} WHERE al.album_id = ?", [ref], missing)
    rows = env.query(
        f"{base} WHERE lower(al.title) = lower(?) AND (? IS NULL OR lower(ar.name) = lower(?)) "
        "ORDER BY al.release_date DESC, al.album_id",
        [ref, artist_name, artist_name],
    )
    if len(rows) == 1:
        return rows[0]
    by = f" by {artist_name}" if artist_name else ""
    if rows:
        raise ToolError(
            f"{plural(len(rows), 'release')} are titled {ref!r}{by}: {choices(rows, _album_text)}. "
            "Pass the album_id, or the artist."
        )
    raise ToolError(f"no release is titled {ref!r}{by}; search_albums finds releases by part of a title.")


def _album_text(row: dict[str, Any]) -> str:
    return (
        f"{row['title']!r} by {row['artist']} ({row['album_type']}, {row['release_date']}, "
        f"album_id {row['album_id']})"
    )


# --- playlists and devices ----------------------------------------------------------------------------

PLAYLIST_COLUMNS = (
    "p.playlist_id, p.title, p.owner_id, u.username AS owner, p.description, p.is_public, "
    "p.is_collaborative, "
    "p.follower_count, p.created_at, p.updated_at"
)


def playlist(env: Env, ref: int | str, owner: dict[str, Any] | None = None) -> dict[str, Any]:
    """The playlist with this id, or with this title (any letter case) among `owner`'s playlists."""
    base = f"SELECT {PLAYLIST_COLUMNS} FROM playlists AS p JOIN users AS u ON u.user_id = p.owner_id"
    if isinstance(ref, int):
        return one(env, f"{base} WHERE p.playlist_id = ?", [ref], f"no playlist has the id {ref}.")
    if owner is None:
        raise ToolError(f"name the owner of the playlist {ref!r}, or pass its playlist_id.")
    rows = env.query(
        f"{base} WHERE p.owner_id = ? AND lower(p.title) = lower(?) ORDER BY p.playlist_id",
        [owner["user_id"], ref],
    )
    if len(rows) == 1:
        return rows[0]
    if rows:
        raise ToolError(
            f"{owner['username']} has {plural(len(rows), 'playlist')} titled {ref!r}: "
            + choices(rows, lambda r: f"playlist_id {r['playlist_id']} (created {r['created_at']:%Y-%m-%d})")
            + ". Pass the playlist_id of the one you mean."
        )
    mine = env.query(
        "SELECT playlist_id, title FROM playlists WHERE owner_id = ? ORDER BY title, playlist_id LIMIT 10",
        [owner["user_id"]],
    )
    listing = ", ".join(f"{r['title']!r} ({r['playlist_id']})" for r in mine) or "none"
    raise ToolError(f"{owner['username']} has no playlist titled {ref!r}; their playlists: {listing}.")


def device(env: Env, owner: dict[str, Any], ref: int | str) -> dict[str, Any]:
    """One of `owner`'s devices, by device id or by name (any letter case)."""
    cols = "device_id, device_type, name, app_version, registered_at, last_seen_at, is_active"
    if isinstance(ref, int):
        sql = f"SELECT {cols} FROM devices WHERE user_id = ? AND device_id = ?"
        missing = f"{owner['username']} has no device with the id {ref}; list_devices shows theirs."
        return one(env, sql, [owner["user_id"], ref], missing)
    rows = env.query(
        f"SELECT {cols} FROM devices WHERE user_id = ? AND lower(name) = lower(?) ORDER BY device_id",
        [owner["user_id"], ref],
    )
    if len(rows) == 1:
        return rows[0]
    if rows:
        raise ToolError(
            f"{owner['username']} has {plural(len(rows), 'device')} named {ref!r}: "
            + choices(rows, _device_text)
            + ". Pass the device_id of the one you mean."
        )
    raise ToolError(f"{owner['username']} has no device named {ref!r}; list_devices shows theirs.")


def _device_text(row: dict[str, Any]) -> str:
    seen = row["last_seen_at"].strftime("%Y-%m-%d") if row["last_seen_at"] else "never"
    state = "active" if row["is_active"] else "signed out"
    return f"device_id {row['device_id']} ({row['device_type']}, {state}, last seen {seen})"
