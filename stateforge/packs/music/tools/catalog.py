"""The catalogue as listeners browse it: search songs, releases and artists with filters, open a song, a
release or an artist page, list genres, and read the charts. All read tools; the catalogue itself is
written by the build only (labels deliver it; the service computes the charts)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.where import Where

from . import lookup as find
from .lookup import (
    SONG_FROM,
    SONG_SELECT,
    SONG_TABLES,
    Limit,
    Offset,
    SongSpec,
    order_by,
    span,
)

GENRES_OF = (
    "coalesce((SELECT list(g.name ORDER BY sg.is_primary DESC, g.name) FROM song_genres AS sg "
    "JOIN genres AS g ON g.genre_id = sg.genre_id WHERE sg.song_id = s.song_id), []::VARCHAR[]) AS genres"
)
IN_GENRE = (
    "EXISTS (SELECT 1 FROM song_genres AS sg JOIN genres AS g ON g.genre_id = sg.genre_id "
    "WHERE sg.song_id = s.song_id AND lower(g.name) = lower(?))"
)
Year = Annotated[int, Field(ge=1900, le=2100)]
Seconds = Annotated[int, Field(ge=0, le=3600)]


def genre_name(env: Env, name: str) -> str:
    """The genre's name as stored; a `ToolError` listing the genres when there is none such."""
    found = env.scalar("SELECT name FROM genres WHERE lower(name) = lower(?)", [name])
    if found is None:
        names = [r["name"] for r in env.query("SELECT name FROM genres ORDER BY name")]
        raise ToolError(f"no genre is called {name!r}; the genres are: {', '.join(names)}.")
    return found


def song_filters(
    env: Env, where: Where, artist: int | str | None, album: int | str | None, genre: str | None
) -> Where:
    """`where` with the common song filters over `s` (songs), `ar` (artists), `al` (albums) added."""
    where.ref(artist, "s.artist_id", "ar.name").ref(album, "s.album_id", "al.title")
    return where.when(genre_name(env, genre) if genre else None, IN_GENRE)


@tool(reads=(*SONG_TABLES, "song_genres", "genres"))
def search_songs(
    env: Env,
    query: str | None = None,
    artist: int | str | None = None,
    album: int | str | None = None,
    genre: str | None = None,
    year_from: Year | None = None,
    year_to: Year | None = None,
    min_duration_s: Seconds | None = None,
    max_duration_s: Seconds | None = None,
    min_bpm: int | None = None,
    max_bpm: int | None = None,
    explicit: bool | None = None,
    language: str | None = None,
    available: bool | None = None,
    min_plays: int | None = None,
    sort_by: Literal["plays", "title", "artist", "release_date", "duration", "bpm"] = "plays",
    descending: bool | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search the song catalogue with any filters at once, sorted and a page at a time. Each song shows its
    song_id, title, artist, album, release date, duration (seconds and m:ss), genres, bpm, language, plays,
    whether it is explicit and whether it is available; `total` counts every match.

    Args:
        query: Part of the title (any letter case).
        artist: The primary artist: an artist_id, or part of the artist's name.
        album: The release: an album_id, or part of its title.
        genre: A genre name (list_genres shows them); songs tagged with it.
        year_from: Released in this year or later.
        year_to: Released in this year or earlier.
        min_duration_s: At least this long, in whole seconds (a 3:05 song lasts 185).
        max_duration_s: At most this long, in whole seconds.
        min_bpm: Tempo at least this many beats per minute.
        max_bpm: Tempo at most this many beats per minute.
        explicit: true: only explicit songs; false: only clean ones.
        language: A language code such as en, es or ko.
        available: true: only songs that can be played; false: only unavailable ones.
        min_plays: Played at least this many times.
        sort_by: The order: plays (default), title, artist, release_date, duration or bpm.
        descending: Reverse the order (default: descending for plays, release_date, duration and bpm).
        limit: Songs per page, 1 to 50.
        offset: Songs to skip.
    """
    where = song_filters(env, Where().text(query, "s.title"), artist, album, genre)
    where.when(year_from, "year(al.release_date) >= ?").when(year_to, "year(al.release_date) <= ?")
    where.when(min_duration_s, "s.duration_ms // 1000 >= ?").when(
        max_duration_s, "s.duration_ms // 1000 <= ?"
    )
    where.when(min_bpm, "s.bpm >= ?").when(max_bpm, "s.bpm <= ?").when(explicit, "s.explicit = ?")
    where.when(language, "lower(s.language_code) = lower(?)").when(available, "s.is_available = ?")
    where.when(min_plays, "s.play_count >= ?")
    sql = f"SELECT {SONG_SELECT}, s.bpm, s.language_code AS language FROM {SONG_FROM} WHERE {where.sql}"
    column = {"duration": "duration_s", "release_date": "release_date"}.get(sort_by, sort_by)
    order = find.sort_order(column, descending, sort_by not in ("title", "artist"), "song_id")
    page = env.page(sql, where.params, order_by=order, limit=limit, offset=offset)
    with_genres(env, page["rows"])
    return page


def with_genres(env: Env, rows: list[dict[str, Any]]) -> None:
    """Add each song's genres (primary first, then by name) to `rows` (songs with a song_id)."""
    found: dict[int, list[str]] = {}
    for r in env.query(
        "SELECT sg.song_id, g.name FROM song_genres AS sg JOIN genres AS g ON g.genre_id = sg.genre_id "
        "WHERE sg.song_id IN (SELECT unnest(?::BIGINT[])) ORDER BY sg.song_id, sg.is_primary DESC, g.name",
        [[row["song_id"] for row in rows]],
    ):
        found.setdefault(r["song_id"], []).append(r["name"])
    for row in rows:
        row["genres"] = found.get(row["song_id"], [])


@tool(
    reads=(
        *SONG_TABLES,
        "song_genres",
        "genres",
        "song_credits",
        "favourite_songs",
        "comments",
        "chart_entries",
        "chart_editions",
        "charts",
    )
)
def get_song(env: Env, song: SongSpec) -> dict:
    """Open a song's page: its details, genres (primary first), credits (featured artists, producers,
    songwriters with their share), how many listeners liked it, how many comments it has, and its chart
    runs (per chart: best rank, editions on the chart, the latest edition it was in).

    Args:
        song: The song: its song_id, or {"title", "artist"?, "album"?}.
    """
    found = find.song(env, song)
    sid = found["song_id"]
    row = env.one(
        f"SELECT {SONG_SELECT}, s.track_number, s.isrc, s.bpm, s.language_code AS language, {GENRES_OF} "
        f"FROM {SONG_FROM} WHERE s.song_id = ?",
        [sid],
    )
    assert row is not None
    row["primary_genre"] = env.scalar(
        "SELECT g.name FROM song_genres AS sg JOIN genres AS g ON g.genre_id = sg.genre_id "
        "WHERE sg.song_id = ? AND sg.is_primary ORDER BY g.name LIMIT 1",
        [sid],
    )
    row["credits"] = env.query(
        "SELECT ar.artist_id, ar.name AS artist, c.role, c.share_pct FROM song_credits AS c "
        "JOIN artists AS ar ON ar.artist_id = c.artist_id WHERE c.song_id = ? ORDER BY c.role, ar.name",
        [sid],
    )
    row["likes"] = env.scalar("SELECT count(*) FROM favourite_songs WHERE song_id = ?", [sid])
    row["comments"] = env.scalar("SELECT count(*) FROM comments WHERE song_id = ?", [sid])
    row["charts"] = env.query(
        "SELECT c.name AS chart, min(e.rank) AS best_rank, count(*) AS editions, "
        "max(ed.edition_no) AS latest_edition_no, max(ed.published_on) AS latest_published_on "
        "FROM chart_entries AS e JOIN chart_editions AS ed ON ed.edition_id = e.edition_id "
        "JOIN charts AS c ON c.chart_id = ed.chart_id WHERE e.song_id = ? GROUP BY c.name ORDER BY c.name",
        [sid],
    )
    return row


@tool(reads=("albums", "artists", "songs", "song_genres", "genres"))
def search_albums(
    env: Env,
    query: str | None = None,
    artist: int | str | None = None,
    album_type: Literal["album", "single", "ep", "compilation", "live"] | None = None,
    released_since: dt.date | None = None,
    released_before: dt.date | None = None,
    label: str | None = None,
    genre: str | None = None,
    sort_by: Literal["release_date", "title", "artist", "tracks"] = "release_date",
    descending: bool | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search releases (albums, singles, EPs, compilations, live records) with filters, sorted, a page at a
    time. Each shows album_id, title, artist, type, release date, label, track count and total length.

    Args:
        query: Part of the title (any letter case).
        artist: The artist: an artist_id, or part of the artist's name.
        album_type: Only releases of this type.
        released_since: Released on this date or later.
        released_before: Released before this date (the date itself excluded).
        label: Part of the record label's name.
        genre: Releases with at least one track tagged with this genre.
        sort_by: The order: release_date (default), title, artist or tracks.
        descending: Reverse the order (default: newest first for release_date, most first for tracks).
        limit: Releases per page, 1 to 50.
        offset: Releases to skip.
    """
    where = Where().text(query, "al.title").ref(artist, "al.artist_id", "ar.name")
    in_genre = f"EXISTS (SELECT 1 FROM songs AS s WHERE s.album_id = al.album_id AND {IN_GENRE})"
    where.when(genre_name(env, genre) if genre else None, in_genre).when(album_type, "al.album_type = ?")
    where.when(released_since, "al.release_date >= ?").when(released_before, "al.release_date < ?")
    where.when(label, "contains(lower(al.label), lower(?))")
    sql = (
        "SELECT al.album_id, al.title, ar.name AS artist, al.album_type, al.release_date, al.label, "
        "(SELECT count(*) FROM songs AS t WHERE t.album_id = al.album_id) AS tracks, "
        "(SELECT coalesce(sum(t.duration_ms), 0) // 1000 FROM songs AS t WHERE t.album_id = al.album_id) "
        f"AS duration_s FROM albums AS al JOIN artists AS ar ON ar.artist_id = al.artist_id WHERE {where.sql}"
    )
    order = find.sort_order(sort_by, descending, sort_by in ("release_date", "tracks"), "album_id")
    return env.page(sql, where.params, order_by=order, limit=limit, offset=offset)


@tool(reads=("albums", "artists", "songs", "album_credits"))
def get_album(env: Env, album: int | str, artist: str | None = None) -> dict:
    """Open a release: its details, credits, and every track in order (track number, song_id, title,
    duration, explicit, available, plays), with the total length.

    Args:
        album: The album_id, or the exact title (any letter case).
        artist: The artist's name, when several releases share the title.
    """
    found = find.album(env, album, artist)
    aid = found["album_id"]
    row = env.one(
        "SELECT al.album_id, al.title, ar.artist_id, ar.name AS artist, al.album_type, al.release_date, "
        "al.label, al.upc FROM albums AS al JOIN artists AS ar ON ar.artist_id = al.artist_id "
        "WHERE al.album_id = ?",
        [aid],
    )
    assert row is not None
    tracks = env.query(
        "SELECT s.track_number, s.song_id, s.title, ar.name AS artist, s.duration_ms // 1000 AS duration_s, "
        "s.duration_ms, s.explicit, s.is_available AS available, s.play_count AS plays "
        "FROM songs AS s JOIN artists AS ar ON ar.artist_id = s.artist_id "
        "WHERE s.album_id = ? ORDER BY s.track_number, s.song_id",
        [aid],
    )
    total = sum(t.pop("duration_ms") for t in tracks)
    for t in tracks:
        t["duration"] = span(t["duration_s"] * 1000)
    row["tracks"] = tracks
    row["track_count"] = len(tracks)
    row["duration"] = span(total)
    row["credits"] = env.query(
        "SELECT ar.artist_id, ar.name AS artist, c.role FROM album_credits AS c "
        "JOIN artists AS ar ON ar.artist_id = c.artist_id WHERE c.album_id = ? ORDER BY c.role, ar.name",
        [aid],
    )
    return row


@tool(reads=("artists", "artist_follows", "songs", "song_genres", "genres"))
def search_artists(
    env: Env,
    query: str | None = None,
    artist_type: Literal["solo", "band", "duo", "dj", "orchestra", "choir"] | None = None,
    country: str | None = None,
    verified: bool | None = None,
    genre: str | None = None,
    min_listeners: int | None = None,
    max_listeners: int | None = None,
    formed_from: Year | None = None,
    formed_to: Year | None = None,
    sort_by: Literal["listeners", "name", "followers", "formed_year"] = "listeners",
    descending: bool | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search artists with filters, sorted, a page at a time. Each shows artist_id, name, type, country,
    verified, monthly listeners, followers on the service and the year formed.

    Args:
        query: Part of the name (any letter case).
        artist_type: Only artists of this type.
        country: A two-letter country code (US, GB, KR, ...).
        verified: true: only verified artists; false: only unverified ones.
        genre: Artists with at least one song tagged with this genre.
        min_listeners: At least this many monthly listeners.
        max_listeners: At most this many monthly listeners.
        formed_from: Formed (or debuted) in this year or later.
        formed_to: Formed in this year or earlier.
        sort_by: The order: listeners (default), name, followers or formed_year.
        descending: Reverse the order (default: descending except for name).
        limit: Artists per page, 1 to 50.
        offset: Artists to skip.
    """
    in_genre = f"EXISTS (SELECT 1 FROM songs AS s WHERE s.artist_id = a.artist_id AND {IN_GENRE})"
    where = Where().text(query, "a.name").when(genre_name(env, genre) if genre else None, in_genre)
    where.when(artist_type, "a.artist_type = ?").when(country, "a.country_code = upper(?)")
    where.when(verified, "a.is_verified = ?")
    where.when(min_listeners, "a.monthly_listeners >= ?").when(max_listeners, "a.monthly_listeners <= ?")
    where.when(formed_from, "a.formed_year >= ?").when(formed_to, "a.formed_year <= ?")
    sql = (
        "SELECT a.artist_id, a.name, a.artist_type, a.country_code AS country, a.is_verified AS verified, "
        "a.monthly_listeners AS listeners, "
        "(SELECT count(*) FROM artist_follows AS f WHERE f.artist_id = a.artist_id) AS followers, "
        f"a.formed_year FROM artists AS a WHERE {where.sql}"
    )
    order = find.sort_order(sort_by, descending, sort_by != "name", "artist_id")
    return env.page(sql, where.params, order_by=order, limit=limit, offset=offset)


@tool(reads=(*SONG_TABLES, "artist_follows", "song_genres", "genres"))
def get_artist(env: Env, artist: int | str) -> dict:
    """Open an artist's page: profile and bio, the artist pick (featured song), followers, how many
    releases and songs they have, their five most played songs, their main genres and latest release.

    Args:
        artist: The artist_id, or the exact name (any letter case).
    """
    aid = find.artist(env, artist)["artist_id"]
    row = env.one(
        "SELECT a.artist_id, a.name, a.artist_type, a.country_code AS country, a.formed_year, "
        "a.is_verified AS verified, a.monthly_listeners AS listeners, a.bio, a.featured_song_id "
        "FROM artists AS a WHERE a.artist_id = ?",
        [aid],
    )
    assert row is not None
    featured = row.pop("featured_song_id")
    row["artist_pick"] = (
        env.one(f"SELECT {SONG_SELECT} FROM {SONG_FROM} WHERE s.song_id = ?", [featured])
        if featured
        else None
    )
    row["followers"] = env.scalar("SELECT count(*) FROM artist_follows WHERE artist_id = ?", [aid])
    row["releases"] = env.scalar("SELECT count(*) FROM albums WHERE artist_id = ?", [aid])
    row["songs"] = env.scalar("SELECT count(*) FROM songs WHERE artist_id = ?", [aid])
    row["top_songs"] = env.query(
        f"SELECT {SONG_SELECT} FROM {SONG_FROM} WHERE s.artist_id = ? ORDER BY s.play_count DESC, s.song_id "
        "LIMIT 5",
        [aid],
    )
    row["genres"] = [
        r["name"]
        for r in env.query(
            "SELECT g.name, count(*) AS n FROM songs AS s JOIN song_genres AS sg ON sg.song_id = s.song_id "
            "JOIN genres AS g ON g.genre_id = sg.genre_id WHERE s.artist_id = ? "
            "GROUP BY g.name ORDER BY n DESC, g.name LIMIT 3",
            [aid],
        )
    ]
    row["latest_release"] = env.one(
        "SELECT album_id, title, album_type, release_date FROM albums WHERE artist_id = ? "
        "ORDER BY release_date DESC, album_id DESC LIMIT 1",
        [aid],
    )
    return row


@tool(reads=("artists", "albums", "songs"))
def list_artist_albums(
    env: Env,
    artist: int | str,
    album_type: Literal["album", "single", "ep", "compilation", "live"] | None = None,
    sort_by: Literal["release_date", "title"] = "release_date",
    descending: bool = True,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """List an artist's releases (their discography), newest first by default, a page at a time.

    Args:
        artist: The artist_id, or the exact name (any letter case).
        album_type: Only releases of this type.
        sort_by: The order: release_date (default) or title.
        descending: Newest (or Z) first; false for oldest (or A) first.
        limit: Releases per page, 1 to 50.
        offset: Releases to skip.
    """
    found = find.artist(env, artist)
    sql = (
        "SELECT al.album_id, al.title, al.album_type, al.release_date, al.label, "
        "(SELECT count(*) FROM songs AS t WHERE t.album_id = al.album_id) AS tracks "
        "FROM albums AS al WHERE al.artist_id = ? AND (? IS NULL OR al.album_type = ?)"
    )
    page = env.page(
        sql,
        [found["artist_id"], album_type, album_type],
        order_by=order_by(sort_by, descending, "album_id"),
        limit=limit,
        offset=offset,
    )
    return {"artist_id": found["artist_id"], "artist": found["name"], **page}


@tool(reads=("genres", "song_genres"))
def list_genres(env: Env) -> dict[str, Any]:
    """List every genre with its description and how many songs are tagged with it."""
    genres = env.query(
        "SELECT g.name, g.description, "
        "(SELECT count(*) FROM song_genres AS sg WHERE sg.genre_id = g.genre_id) AS songs "
        "FROM genres AS g ORDER BY g.name"
    )
    return {"genres": genres}
