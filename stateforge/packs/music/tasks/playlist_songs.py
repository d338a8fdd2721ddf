"""Recipes that change the songs of one playlist: take out an artist, the explicit songs, the songs added
before a day or the songs the owner has not played lately; add a whole album at the end."""

from __future__ import annotations

from stateforge.tasks import RecipeContext, recipe
from stateforge.tasks.picks import read_pages, spread_pick

from .common import (
    SAFE_ARTISTS,
    artist_name,
    days_with,
    introduce,
    months_back,
    next_day,
    offer_missing_playlist,
    offer_missing_release,
    refer_album,
    unique_playlist_sql,
    year_start,
)


def _songs_goal(ctx: RecipeContext, playlist_id: int) -> None:
    ctx.goal(
        "the playlist holds exactly the expected songs, in order",
        "SELECT list(song_id ORDER BY position) AS songs FROM playlist_songs WHERE playlist_id = ?",
        [playlist_id],
    )


@recipe(capabilities=("multi_condition_filtering", "full_data_acquisition"), difficulty="medium")
def remove_artist_from_playlist(ctx: RecipeContext) -> None:
    """A listener removes every song by one artist from one of their playlists (the others stay)."""
    row = spread_pick(
        ctx,
        "SELECT x.playlist_id, x.title, x.user_id, x.username, x.display_name, s.artist_id, count(*) AS n "
        f"FROM ({unique_playlist_sql()}) AS x JOIN playlist_songs AS ps ON ps.playlist_id = x.playlist_id "
        f"JOIN songs AS s ON s.song_id = ps.song_id WHERE s.artist_id IN {SAFE_ARTISTS} GROUP BY ALL HAVING "
        "count(*) >= 2 AND count(*) < any_value(x.songs)",
        spread="artist_id",
        what="playlist with 2+ songs by one artist",
    )
    artist = artist_name(ctx, row["artist_id"])
    introduce(ctx, row, playlist=row)
    ctx.say(
        [
            "Please remove every song by {artist} from my playlist {title:q}.",
            "I'm tired of {artist}. Take all of their songs out of {title:q}, but leave the rest alone.",
            "Could you clear {artist} out of my {title:q} playlist? All of their tracks should go.",
        ],
        artist=artist,
        title=row["title"],
    )
    ctx.call(
        "remove_songs_from_playlist",
        {"username": row["username"], "playlist": row["title"], "artist": artist},
        step=f"Remove the {row['n']} songs by {artist} from {row['title']!r}",
    )
    ctx.goal(
        "no song by the artist is left in the playlist, and the others stay",
        "SELECT count(*) FILTER (WHERE s.artist_id = ?) AS by_artist, count(*) AS songs FROM playlist_songs "
        "AS ps JOIN songs AS s ON s.song_id = ps.song_id WHERE ps.playlist_id = ?",
        [row["artist_id"], row["playlist_id"]],
    )
    offer_missing_playlist(ctx, row)


@recipe(capabilities=("precise_boundary_judgment",), difficulty="medium")
def remove_songs_added_before(ctx: RecipeContext) -> None:
    """A listener drops the songs added to a playlist before a day, or up to and including it: the day is
    one on which songs were added, so which side it falls on matters."""
    row = ctx.pick(
        unique_playlist_sql("NOT p.is_collaborative") + " AND (SELECT count(DISTINCT CAST(c.added_at "
        "AS DATE)) FROM playlist_songs AS c WHERE c.playlist_id = p.playlist_id) >= 3",
        what="playlist with songs added on 3+ days",
    )
    days = days_with(ctx, "playlist_songs", "added_at", "playlist_id = ?", [row["playlist_id"]])
    day = ctx.choice(days[1:])
    inclusive = ctx.rng.random() < 0.5 and day != days[-1]  # some songs stay
    cutoff = next_day(day) if inclusive else day
    removed = ctx.scalar(
        "SELECT count(*) FROM playlist_songs WHERE playlist_id = ? AND added_at < ?",
        [row["playlist_id"], cutoff],
    )
    introduce(ctx, row, playlist=row)
    ctx.say(
        [
            "Remove the songs that were added to my playlist {title:q} on or before {day}.",
            "In {title:q}, take out everything added up to and including {day}.",
            "Please clean up {title:q}: any song added on {day} or earlier should go.",
        ]
        if inclusive
        else [
            "Remove the songs that were added to my playlist {title:q} before {day}.",
            "In {title:q}, take out everything added before {day}; songs added on {day} itself stay.",
            "Please clean up {title:q}: any song added earlier than {day} should go (not the ones from "
            "that day).",
        ],
        title=row["title"],
        day=day,
    )
    ctx.call(
        "remove_songs_from_playlist",
        {"username": row["username"], "playlist": row["title"], "added_before": cutoff},
        step=f"Remove the {removed} songs added before {cutoff} from {row['title']!r}",
    )
    ctx.goal(
        "no song added before the cutoff is left, and the later ones stay",
        "SELECT count(*) FILTER (WHERE added_at < ?) AS old, count(*) AS songs FROM playlist_songs WHERE "
        "playlist_id = ?",
        [cutoff, row["playlist_id"]],
    )
    offer_missing_playlist(ctx, row)


@recipe(capabilities=("multi_condition_filtering",), difficulty="easy")
def remove_explicit_from_playlist(ctx: RecipeContext) -> None:
    """A listener makes a playlist clean: every explicit song goes (optionally only those added since a
    day)."""
    row = ctx.pick(
        unique_playlist_sql("NOT p.is_collaborative")
        + " AND (SELECT count(*) FROM playlist_songs AS c JOIN songs AS s ON s.song_id = c.song_id "
        "WHERE c.playlist_id = p.playlist_id AND s.explicit) >= 1",
        what="playlist with explicit songs",
    )
    args = {"username": row["username"], "playlist": row["title"], "explicit": True}
    introduce(ctx, row, playlist=row)
    songs = "playlist_songs AS c JOIN songs AS s ON s.song_id = c.song_id"
    days = days_with(ctx, songs, "c.added_at", "c.playlist_id = ? AND s.explicit", [row["playlist_id"]])
    if len(days) >= 2 and ctx.rng.random() < 0.5:
        since = days[-1]
        args["added_since"] = since
        ctx.also("precise_boundary_judgment")
        ctx.say(
            [
                "Take the explicit songs out of my playlist {title:q}, but only the ones added on or after "
                "{day}; older explicit tracks can stay.",
                "Remove from {title:q} every explicit track that was added since {day} (that day included).",
            ],
            title=row["title"],
            day=since,
        )
    else:
        ctx.say(
            [
                "My kids use {title:q} now. Please remove every explicit song from it.",
                "Make my playlist {title:q} clean: take out all the explicit tracks.",
                "Remove all explicit songs from {title:q}, please.",
            ],
            title=row["title"],
        )
    ctx.call("remove_songs_from_playlist", args, step=f"Remove the explicit songs from {row['title']!r}")
    _songs_goal(ctx, row["playlist_id"])
    offer_missing_playlist(ctx, row)


@recipe(capabilities=("full_data_acquisition", "cross_step_dependency"), difficulty="medium")
def add_album_to_playlist(ctx: RecipeContext) -> None:
    """A listener appends every track of a release, in album order, to one of their playlists: the tracks
    are read from the release's page, then added by id."""
    playlist = ctx.pick(unique_playlist_sql("NOT p.is_collaborative"), what="playlist")
    album = ctx.pick(
        "SELECT al.album_id, al.title, al.artist_id, count(*) AS tracks FROM albums AS al JOIN songs AS s "
        f"ON s.album_id = al.album_id WHERE al.artist_id IN {SAFE_ARTISTS} GROUP BY ALL HAVING count(*) "
        "BETWEEN 2 AND 14 AND bool_and(s.is_available) AND NOT bool_or(s.song_id IN (SELECT song_id FROM "
        "playlist_songs WHERE playlist_id = ?))",
        [playlist["playlist_id"]],
        what="release with 2+ available tracks",
    )
    artist = artist_name(ctx, album["artist_id"])
    refer_album(ctx, album["title"], artist)
    introduce(ctx, playlist, playlist=playlist)
    ctx.say(
        [
            "Add all the tracks of {album:q} by {artist} to the end of my playlist {title:q}, in album "
            "order.",
            "Please append the whole {album:q} record by {artist} to {title:q}, track 1 first.",
            "I want every song from {artist}'s {album:q} at the bottom of my {title:q} playlist, in the "
            "order they are on the release.",
        ],
        album=album["title"],
        artist=artist,
        title=playlist["title"],
    )
    page = ctx.read(
        "get_album",
        {"album": album["title"], "artist": artist},
        step=f"Open {album['title']!r} by {artist} to read its {album['tracks']} tracks",
    )
    ids = [t["song_id"] for t in page["tracks"]]
    ctx.call(
        "add_songs_to_playlist",
        {"username": playlist["username"], "playlist": playlist["title"], "songs": ids},
        step=f"Add the {len(ids)} tracks to the end of {playlist['title']!r}",
    )
    _songs_goal(ctx, playlist["playlist_id"])
    editions = [f"{album['title']} ({e})" for e in ("Deluxe Edition", "Live", "Remastered")]
    offer_missing_release(ctx, album, artist, editions)


@recipe(
    capabilities=("multi_condition_filtering", "cross_step_dependency", "precise_boundary_judgment"),
    difficulty="hard",
)
def remove_unplayed_from_playlist(ctx: RecipeContext) -> None:
    """A listener removes from a playlist every song they have not played since a day (the first of the
    year, or another): the playlist and their listening history are read, the difference removed."""
    first = year_start(ctx)
    since = ctx.choice([first, first, *(months_back(ctx.today, k) for k in (2, 3, 4))])
    row = ctx.pick(
        "SELECT * FROM (SELECT x.*, (SELECT count(*) FROM playlist_songs AS ps WHERE ps.playlist_id = "
        "x.playlist_id AND EXISTS (SELECT 1 FROM listening_history AS h WHERE h.user_id = x.user_id AND "
        "h.song_id = ps.song_id AND h.played_at >= ?)) AS played, (SELECT count(DISTINCT h.song_id) FROM "
        "listening_history AS h WHERE h.user_id = x.user_id AND h.played_at >= ?) AS heard FROM "
        f"({unique_playlist_sql('NOT p.is_collaborative')}) AS x) WHERE played >= 1 AND played < songs AND "
        "heard <= 250",
        [since, since],
        what="playlist with songs played and not played lately",
    )
    gone = [
        r["song_id"]
        for r in ctx.sql(
            "SELECT ps.song_id FROM playlist_songs AS ps WHERE ps.playlist_id = ? AND NOT EXISTS (SELECT 1 "
            "FROM listening_history AS h WHERE h.user_id = ? AND h.song_id = ps.song_id AND h.played_at >= "
            "?) ORDER BY ps.position",
            [row["playlist_id"], row["user_id"], since],
        )
    ]
    introduce(ctx, row, playlist=row)
    if since == first:
        ctx.say(
            [
                "Remove every song I haven't played this year from my playlist {title:q}.",
                "Go through {title:q} and take out the songs I haven't listened to at all since {since}.",
                "My playlist {title:q} needs a clean-up: drop anything I haven't played in {year}.",
            ],
            title=row["title"],
            since=since,
            year=str(since.year),
        )
    else:
        ctx.say(
            [
                "Remove from my playlist {title:q} every song I haven't played since {since} (plays on "
                "{since} count).",
                "Take out of {title:q} the songs I haven't listened to on or after {since}.",
            ],
            title=row["title"],
            since=since,
        )
    ctx.read(
        "get_playlist",
        {"playlist": row["title"], "owner": row["username"]},
        step=f"Open {row['title']!r} to list its {row['songs']} songs",
    )
    read_pages(
        ctx,
        "listening_stats",
        {"username": row["username"], "group_by": "song", "since": since},
        step=f"Count the songs @{row['username']} played since {since} (from {{start}})",
    )
    ctx.call(
        "remove_songs_from_playlist",
        {"username": row["username"], "playlist": row["title"], "songs": gone},
        step=f"Remove the {len(gone)} songs not played since {since}",
    )
    _songs_goal(ctx, row["playlist_id"])
    offer_missing_playlist(ctx, row)
