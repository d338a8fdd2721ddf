"""What the music recipes share: picking a listener and speaking as them, naming artists, songs, albums and
playlists the way the app shows them (uniquely, checked with SQL), choosing how big a bulk change is, and
writing dates and boundaries the way people say them.

The tools find an artist by its exact name but filter songs, likes and plays by *part* of a name; a recipe
names an artist only when both readings pick out the same one artist (`artist_name`), so the request means
exactly what its reference calls do.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from stateforge.tasks import RecipeContext, Skip, picks
from stateforge.tasks.compose import Story
from stateforge.tasks.wording import value_text

ACTIVE = "u.status = 'active'"
"""Only active accounts can change anything (policy active_accounts_only)."""

BANDS: tuple[tuple[int, int], ...] = ((2, 12), (12, 50), (50, 250))
"""Sizes of a bulk change: a few rows, dozens, hundreds (up to 250)."""
BAND_WEIGHTS: tuple[float, ...] = (0.2, 0.35, 0.45)

SAFE_ARTISTS = (
    "(SELECT a.artist_id FROM artists AS a WHERE (SELECT count(*) FROM artists AS b WHERE "
    "contains(lower(b.name), lower(a.name))) = 1)"
)
"""Ids of the artists whose name is nobody else's, not even as part of a longer name (`artist_name`)."""


# --- listeners ----------------------------------------------------------------------------------------


def introduce(
    ctx: RecipeContext, user: Mapping[str, Any], *, playlist: Mapping[str, Any] | None = None
) -> None:
    """Open the instruction as `user` speaking ("I'm Maria Lopez (@mlopez).") and record the reference;
    `playlist` (username, title): first record that the request's playlist is one (`refer_playlist`)."""
    if playlist is not None:
        refer_playlist(ctx, playlist["username"], playlist["title"])
    picks.introduce(
        ctx, "listener", "users", {"username": user["username"]}, user["display_name"], user["username"]
    )


def listener_swap(user: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    """The swap that makes a variant about `other` instead of `user`: their username (bare and as the
    @handle the instruction shows) and display name."""
    return {
        user["username"]: other["username"],
        f"@{user['username']}": f"@{other['username']}",
        user["display_name"]: other["display_name"],
    }


def cast_listener(
    story: Story, sql: str, params: Sequence[Any] | None = None, *, what: str
) -> dict[str, Any]:
    """A storyline's cast: the listener a row of `sql` names (user_id, username, display_name), picked,
    set as `story["user"]` and introduced as the one speaking."""
    user = story.ctx.pick(sql, params, what=what)
    story["user"] = user
    introduce(story.ctx, user)
    return user


def liked_goal(ctx: RecipeContext, what: str, user_id: int, songs: Sequence[int], liked: int) -> None:
    """Goal: `liked` of `songs` are among the user's liked songs."""
    ids = ", ".join(str(s) for s in songs)
    ctx.goal(
        what,
        f"SELECT count(*) AS liked FROM favourite_songs WHERE user_id = ? AND song_id IN ({ids})",
        [user_id],
        expected=[{"liked": liked}],
    )


sized = functools.partial(picks.sized, bands=BANDS, weights=BAND_WEIGHTS)
"""`stateforge.tasks.picks.sized` with the music bands (`spread=` draws a column's values evenly)."""


# --- naming things ------------------------------------------------------------------------------------


def artist_name(ctx: RecipeContext, artist_id: int) -> str:
    """The artist's name, when it names them alone both exactly and as part of a name (the tools' filters
    match part of a name); `Skip` otherwise. Records the reference."""
    row = ctx.one(
        "SELECT a.name, (SELECT count(*) FROM artists AS b WHERE contains(lower(b.name), lower(a.name))) AS "
        "n FROM artists AS a WHERE a.artist_id = ?",
        [artist_id],
    )
    if row is None or row["n"] != 1:
        raise Skip("artist name shared", f"artist {artist_id}: its name is part of another artist's")
    ctx.refer(
        f"artist {row['name']}", "SELECT count(*) FROM artists WHERE lower(name) = lower(?)", [row["name"]]
    )
    return row["name"]


def refer_playlist(ctx: RecipeContext, username: str, title: str) -> None:
    """The playlist titled `title` (any letter case) among @username's playlists is one."""
    ctx.refer(
        f"playlist {title!r} of @{username}",
        "SELECT count(*) FROM playlists AS p JOIN users AS u ON u.user_id = p.owner_id WHERE u.username = ? "
        "AND lower(p.title) = lower(?)",
        [username, title],
    )


def refer_song(ctx: RecipeContext, title: str, artist: str) -> None:
    """The song `title` by `artist` (both any letter case) is one."""
    ctx.refer(
        f"song {title!r} by {artist}",
        "SELECT count(*) FROM songs AS s JOIN artists AS a ON a.artist_id = s.artist_id WHERE "
        "lower(s.title) = lower(?) AND lower(a.name) = lower(?)",
        [title, artist],
    )


def refer_album(ctx: RecipeContext, title: str, artist: str) -> None:
    """The release `title` by `artist` (both any letter case) is one."""
    ctx.refer(
        f"release {title!r} by {artist}",
        "SELECT count(*) FROM albums AS al JOIN artists AS a ON a.artist_id = al.artist_id WHERE "
        "lower(al.title) = lower(?) AND lower(a.name) = lower(?)",
        [title, artist],
    )


def unique_playlist_sql(where: str = "TRUE") -> str:
    """Playlists of active owners whose title is unique among the owner's playlists, with the owner's
    username and display name and the playlist's song count `songs`; `where` over `p` and `u`."""
    return (
        "SELECT p.playlist_id, p.title, p.is_public, p.is_collaborative, u.user_id, u.username, "
        "u.display_name, (SELECT count(*) FROM playlist_songs AS c WHERE c.playlist_id = p.playlist_id) AS "
        f"songs FROM playlists AS p JOIN users AS u ON u.user_id = p.owner_id WHERE {ACTIVE} AND ({where}) "
        f"AND {picks.unique_within('p', 'playlists', ['owner_id'], ['title'])}"
    )


def taken(ctx: RecipeContext, table: str, column: str, value: str, **scope: Any) -> bool:
    """Whether a row of `table` whose columns equal `scope` has `value` in `column` (any letter case)."""
    return picks.unused_value(ctx, table, column, [value], where=scope) is None


PLAYLIST_EXTRAS = ("Mix", "2", "Vol. 2", "Redux", "Remix")
"""Words added to a playlist title to name one the listener does not have (missing variants)."""


def offer_missing_playlist(ctx: RecipeContext, row: Mapping[str, Any]) -> None:
    """Offer the variant that names a playlist the listener (`row`: user_id, username, title) does not have:
    the title with one of `PLAYLIST_EXTRAS` added."""
    titles = [f"{row['title']} {extra}" for extra in PLAYLIST_EXTRAS]
    other = picks.unused_value(ctx, "playlists", "title", titles, where={"owner_id": row["user_id"]})
    if other is not None:
        ctx.infeasible(
            "missing",
            swap={row["title"]: other},
            because=f"@{row['username']} has no playlist called {other!r}",
        )


def offer_missing_release(
    ctx: RecipeContext, album: Mapping[str, Any], artist: str, titles: Sequence[str]
) -> None:
    """Offer the variant that names a release of `artist` (`album`: title, artist_id) that does not exist:
    the first of `titles` that none of theirs has."""
    other = picks.unused_value(ctx, "albums", "title", titles, where={"artist_id": album["artist_id"]})
    if other is not None:
        ctx.infeasible(
            "missing", swap={album["title"]: other}, because=f"{artist} has no release called {other!r}"
        )


# --- time ---------------------------------------------------------------------------------------------


def days_with(ctx: RecipeContext, rows: str, column: str, where: str, params: Sequence[Any]) -> list[dt.date]:
    """The distinct days, oldest first, on which `column` falls among the rows of `rows` (a table, or
    joined tables) that match `where`: the days a boundary can be drawn on."""
    sql = f"SELECT DISTINCT CAST({column} AS DATE) AS day FROM {rows} WHERE {where} ORDER BY 1"
    return [r["day"] for r in ctx.sql(sql, params)]


def year_start(ctx: RecipeContext) -> dt.date:
    """The first day of the clock's year: what "this year" starts with."""
    return dt.date(ctx.today.year, 1, 1)


def render_day(ctx: RecipeContext, day: dt.date) -> str:
    """A day written in the instruction's style ("May 3, 2026"), for text assembled before `ctx.say`."""
    return value_text(day, ctx.style)


def next_day(value: dt.date) -> dt.date:
    """The day after `value`: where a day named inclusively ends."""
    return value + dt.timedelta(days=1)


def month_span(day: dt.date) -> tuple[dt.date, dt.date, str]:
    """The first day of `day`'s month, the first of the next, and the month's name ("May 2026")."""
    first = day.replace(day=1)
    after = (first + dt.timedelta(days=32)).replace(day=1)
    return first, after, first.strftime("%B %Y")


def months_back(day: dt.date, k: int) -> dt.date:
    """The first day of the month `k` months before `day`'s."""
    total = day.year * 12 + day.month - 1 - k
    return dt.date(total // 12, total % 12 + 1, 1)


# --- listening statistics -----------------------------------------------------------------------------


def period_where(start: dt.date, end: dt.date | None) -> tuple[str, list[Any]]:
    """SQL over `h` (listening_history) for plays at or after `start` and before `end` (if given)."""
    if end is None:
        return "h.played_at >= ?", [start]
    return "h.played_at >= ? AND h.played_at < ?", [start, end]


def clear_top_listener(
    ctx: RecipeContext, item: str, k: int, start: dt.date, end: dt.date | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An active listener whose k most played `item`s (song_id or artist_id) over the period are clear-cut
    (the k-th has more plays than the next), and their items ranked (`item`, `plays`, most first)."""
    where, params = period_where(start, end)
    counts = (
        f"SELECT h.user_id, s.{item} AS item, count(*) AS plays FROM listening_history AS h JOIN songs AS s "
        f"ON s.song_id = h.song_id WHERE {where} GROUP BY ALL"
    )
    user = ctx.pick(
        f"WITH c AS ({counts}), r AS (SELECT *, row_number() OVER (PARTITION BY user_id ORDER BY plays "
        "DESC, item) AS rn FROM c) SELECT u.user_id, u.username, u.display_name FROM r JOIN users AS u ON "
        f"u.user_id = r.user_id WHERE {ACTIVE} GROUP BY ALL HAVING count(*) > ? AND max(plays) FILTER "
        "(WHERE rn = ?) > max(plays) FILTER (WHERE rn = ?)",
        [*params, k, k, k + 1],
        what=f"listener with a clear top {k}",
    )
    ranked = ctx.sql(
        f"SELECT item, plays FROM ({counts}) AS c WHERE user_id = ? ORDER BY plays DESC, item LIMIT ?",
        [*params, user["user_id"], k],
    )
    return user, ranked
