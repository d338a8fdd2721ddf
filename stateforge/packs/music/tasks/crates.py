"""Storylines of genre crates: every playable track of a genre over a span of years, found page by page.

- `genre_crate`: every playable track of a genre released over some years (`search_songs`, every page)
  -> leave out the ones already liked (the solver compares against every page of the likes) -> a new
  private playlist of them (`new_playlist`, `fill_playlist` of stories.py) -> like them all.
- `crate_over_limit` (infeasible, all or nothing): the same tracks go into a playlist the listener has;
  after paging through them, they exceed its 500-song limit by a few (policy playlist_size_limit).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import ACTIVE, introduce, liked_goal, refer_playlist
from .stories import fill_playlist, new_playlist

CRATE_TITLES = (
    "Crate Digging",
    "Genre Deep Dive",
    "Back Catalogue",
    "Years in Sound",
    "Dig Deeper",
    "Genre Archive",
)
PLAYLIST_LIMIT = 500
"""At most 500 songs a playlist (policy playlist_size_limit)."""


def _year_counts(story: Story) -> list[dict[str, Any]]:
    """Playable songs per (genre, release year) up to last year, counted once each."""
    return story.sql(
        "SELECT g.name AS genre, year(al.release_date) AS y, count(DISTINCT s.song_id) AS n FROM songs AS s "
        "JOIN albums AS al ON al.album_id = s.album_id JOIN song_genres AS sg ON sg.song_id = s.song_id "
        "JOIN genres AS g ON g.genre_id = sg.genre_id WHERE s.is_available AND year(al.release_date) < ? "
        "GROUP BY ALL ORDER BY ALL",
        [story.ctx.today.year],
    )


def _spans(
    counts: list[dict[str, Any]], low: int, high: int, longest: int = 8
) -> list[tuple[str, int, int, int]]:
    """(genre, first year, last year, songs) of every span of consecutive years holding low..high songs."""
    by_genre: dict[str, dict[int, int]] = {}
    for row in counts:
        by_genre.setdefault(row["genre"], {})[int(row["y"])] = int(row["n"])
    found = []
    for genre, years in sorted(by_genre.items()):
        for first in sorted(years):
            total = 0
            for last in range(first, first + longest):
                total += years.get(last, 0)
                if low <= total <= high and last in years:
                    found.append((genre, first, last, total))
    return found


def cast_crate_listener(story: Story) -> None:
    """An active listener with a few likes, and a genre's span of years of 40-240 playable songs."""
    user = story.ctx.pick(
        "SELECT u.user_id, u.username, u.display_name FROM users AS u WHERE "
        f"{ACTIVE} AND (SELECT count(*) FROM favourite_songs AS f WHERE f.user_id = u.user_id) >= 3",
        what="listener with likes",
    )
    story["user"], story["titles"] = user, CRATE_TITLES
    story["span"] = story.ctx.choice(_spans(_year_counts(story), 40, 240))
    introduce(story.ctx, user)


def cast_crate_too_big(story: Story) -> None:
    """An active listener's playlist that a genre's span of years would overfill by a few songs."""
    ctx = story.ctx
    sizes = ctx.sql(
        "SELECT p.playlist_id, p.title, u.user_id, u.username, u.display_name, (SELECT count(*) FROM "
        "playlist_songs AS c WHERE c.playlist_id = p.playlist_id) AS songs FROM playlists AS p "
        f"JOIN users AS u ON u.user_id = p.owner_id WHERE {ACTIVE} AND (SELECT count(*) FROM playlists AS o "
        "WHERE o.owner_id = p.owner_id AND lower(o.title) = lower(p.title)) = 1 ORDER BY p.playlist_id"
    )
    by_size: dict[int, list[dict[str, Any]]] = {}
    for row in sizes:
        by_size.setdefault(int(row["songs"]), []).append(row)
    spans = _spans(_year_counts(story), PLAYLIST_LIMIT - max(by_size, default=0) + 1, PLAYLIST_LIMIT, 12)
    fitting = [(s, n) for s in spans for n in by_size if n >= 2 and PLAYLIST_LIMIT - n < s[3]]
    genre, first, last, total = ctx.choice(sorted({s for s, _ in fitting}))
    size = ctx.choice(sorted({n for s, n in fitting if s == (genre, first, last, total)}))
    playlist = ctx.choice(by_size[size])
    user = {k: playlist[k] for k in ("user_id", "username", "display_name")}
    story["user"], story["span"], story["target"] = user, (genre, first, last, total), playlist
    introduce(ctx, user)


@step(
    inputs=("span",),
    outputs=("genre_songs",),
    goal="every playable track of the genre over the years",
    capabilities=("full_data_acquisition",),
)
def genre_tracks(story: Story) -> None:
    genre, first, last, total = story["span"]
    rows = story.read_all(
        "search_songs",
        {"genre": genre, "year_from": first, "year_to": last, "available": True, "sort_by": "release_date"},
    )
    if len(rows) != total:
        raise Skip("genre span miscounted", f"{genre} {first}-{last}: {len(rows)} songs, {total} expected")
    story["genre_songs"] = [r["song_id"] for r in rows]
    story["genre"], story["first"], story["last"] = genre, first, last
    near = (
        "SELECT count(*) FROM songs AS s JOIN albums AS al ON al.album_id = s.album_id WHERE s.is_available "
        "AND EXISTS (SELECT 1 FROM song_genres AS sg JOIN genres AS g ON g.genre_id = sg.genre_id WHERE "
        "sg.song_id = s.song_id AND g.name = ?) AND (al.release_date BETWEEN ? AND ? OR al.release_date "
        "BETWEEN ? AND ?)"
    )
    edges = [
        genre,
        dt.date(first - 1, 12, 1),
        dt.date(first - 1, 12, 31),
        dt.date(last + 1, 1, 1),
        dt.date(last + 1, 1, 31),
    ]
    if story.ctx.scalar(near, edges):  # a track a month outside the years, when the catalogue has one
        story.distractor(f"a playable {genre} track released just outside {first}-{last}", near, edges)
    years = f"{first}" if first == last else f"{first} to {last}"
    story.say(
        [
            "I've been getting into {genre}, so I want every {genre} track released in {years} that can "
            "still be played.",
            "Dig out every playable {genre} track from {years} for me.",
            "I'm on a {genre} kick: I'd like all the {genre} songs released in {years} that are still "
            "available.",
        ],
        genre=genre,
        years=years,
    )


@step(
    inputs=("user", "genre_songs"),
    outputs=("songs",),
    goal="leave out the tracks already liked",
    capabilities=("multi_condition_filtering",),
)
def drop_liked(story: Story) -> None:
    liked = {
        r["song_id"] for r in story.read_all("list_liked_songs", {"username": story["user"]["username"]})
    }
    songs = [s for s in story["genre_songs"] if s not in liked]
    if len(songs) < 20:
        raise Skip("too few unliked tracks")
    story["songs"] = songs
    story.knob("solver_filtering", "tracks of a genre and years, minus every liked song")
    story.say(
        [
            "Leave out the ones I've already liked.",
            "Skip any I've liked already; I only want the ones new to me.",
        ]
    )


@step(inputs=("user", "songs"), goal="like every track of the crate")
def like_all(story: Story) -> None:
    user, songs = story["user"], story["songs"]
    story.call("like_songs", {"username": user["username"], "songs": songs})
    story.say(["And like all of them, too.", "Then like every one of them."])
    liked_goal(story.ctx, "every crate track is liked", user["user_id"], songs, len(songs))


@step(
    inputs=("user", "target", "genre_songs"),
    goal="add them to the playlist: over its 500-song limit",
    capabilities=("aggregation_computation",),
)
def add_all_to_playlist(story: Story) -> None:
    user, target, songs = story["user"], story["target"], story["genre_songs"]
    refer_playlist(story.ctx, user["username"], target["title"])
    listing = story.read(
        "get_playlist", {"playlist": target["title"], "owner": user["username"], "limit": 50}
    )
    have = int(listing["songs"])
    story.say(
        [
            "Add all of them to my playlist {title:q}. All or nothing, please: if they don't all fit, leave "
            "the playlist as it is and tell me.",
            "Put every one of them into my {title:q} playlist; if that can't be done for all of them, don't "
            "add any and let me know why.",
        ],
        title=target["title"],
    )
    story.blocked(
        "add_songs_to_playlist",
        {"username": user["username"], "playlist": target["title"], "songs": songs},
        kind="capacity",
        policy="playlist_size_limit",
        because=f"{target['title']!r} holds {have} songs and the {len(songs)} tracks would take it to "
        f"{have + len(songs)}, over the 500-song limit, so nothing is added",
    )


GENRE_CRATE = Storyline(
    "genre_crate",
    cast_crate_listener,
    (genre_tracks, drop_liked, new_playlist, fill_playlist, like_all),
    provides=("user", "titles", "span"),
    weight=1.0,
)
CRATE_OVER_LIMIT = Storyline(
    "crate_over_limit",
    cast_crate_too_big,
    (genre_tracks, add_all_to_playlist),
    provides=("user", "span", "target"),
    capabilities=("full_data_acquisition",),
    feasible=False,
    weight=0.5,
)
STORYLINES = (GENRE_CRATE, CRATE_OVER_LIMIT)
