"""Storylines that curate a listener's library artist by artist.

- `follow_audit`: every artist I follow (every page) -> each one's latest release (their page) -> unfollow
  those with nothing out since a stated day -> release notifications on for the ones kept -> a new
  private playlist of the playable tracks of each kept artist's latest release (`new_playlist`,
  `fill_playlist` of stories.py).
- `artist_purge`: one artist I am done with -> their plays out of my history -> their songs out of every
  playlist of mine (every playlist read, `my_playlists` of stories.py) -> unlike their songs -> unfollow.
"""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import ACTIVE, SAFE_ARTISTS, artist_name, cast_listener, introduce, render_day
from .stories import fill_playlist, my_playlists, new_playlist

FRESH_TITLES = (
    "Fresh From My Artists",
    "Latest Drops",
    "Newest From The Keepers",
    "Recent Releases",
    "Still Going Strong",
)


# --- the follow audit ------------------------------------------------------------------------------------

LATEST = "(SELECT max(al.release_date) FROM albums AS al WHERE al.artist_id = f.artist_id)"


def cast_follower(story: Story) -> None:
    """An active listener following 6-45 artists, and a cutoff day that splits them: at least two
    followed artists with nothing since and two with a release since, one of them on a playable album."""
    ctx = story.ctx
    cutoff = dt.date(ctx.rng.choice((2021, 2022, 2023, 2024, 2025)), ctx.rng.choice((1, 4, 7, 10)), 1)
    cast_listener(
        story,
        "SELECT u.user_id, u.username, u.display_name FROM users AS u JOIN artist_follows AS f "
        f"ON f.user_id = u.user_id WHERE {ACTIVE} GROUP BY ALL HAVING count(*) BETWEEN 6 AND 45 AND "
        f"count(*) FILTER (WHERE coalesce({LATEST}, DATE '1900-01-01') < ?) >= 2 AND "
        f"count(*) FILTER (WHERE {LATEST} >= ?) >= 2",
        [cutoff, cutoff],
        what="listener whose followed artists a day splits",
    )
    story["cutoff"], story["titles"] = cutoff, FRESH_TITLES


@step(inputs=("user",), outputs=("followed",), goal="every artist the listener follows")
def followed_artists(story: Story) -> None:
    rows = story.read_all("list_followed_artists", {"username": story["user"]["username"]})
    story["followed"] = [
        {"artist_id": r["artist_id"], "name": r["name"], "notifications_on": r["notifications_on"]}
        for r in rows
    ]


@step(
    inputs=("followed",),
    outputs=("latest",),
    goal="each followed artist's latest release",
    capabilities=("multi_condition_filtering",),
)
def latest_releases(story: Story) -> None:
    latest = {}
    for artist in story["followed"]:
        page = story.read("get_artist", {"artist": artist["artist_id"]})
        latest[artist["artist_id"]] = page.get("latest_release")
    story["latest"] = latest
    story.knob("solver_filtering", "each followed artist's latest release against a day")


@step(
    inputs=("user", "followed", "latest", "cutoff"),
    outputs=("kept",),
    goal="unfollow the artists with nothing out since the day",
    capabilities=("precise_boundary_judgment",),
)
def unfollow_quiet(story: Story) -> None:
    user, cutoff, latest = story["user"], story["cutoff"], story["latest"]
    day = cutoff.isoformat()
    quiet = [
        a
        for a in story["followed"]
        if not latest[a["artist_id"]] or latest[a["artist_id"]]["release_date"] < day
    ]
    kept = [a for a in story["followed"] if a not in quiet]
    if len(quiet) < 2 or len(kept) < 2:
        raise Skip("the day does not split the followed artists")
    story.call("unfollow_artists", {"username": user["username"], "artists": [a["artist_id"] for a in quiet]})
    story["kept"] = kept
    near = (cutoff - dt.timedelta(days=60), cutoff + dt.timedelta(days=60))
    if any(
        latest[a["artist_id"]]
        and near[0].isoformat() <= latest[a["artist_id"]]["release_date"] < near[1].isoformat()
        for a in story["followed"]
    ):
        story.distractor(
            "a followed artist whose latest release is within two months of the day",
            f"SELECT count(*) FROM artist_follows AS f WHERE f.user_id = ? AND {LATEST} BETWEEN ? AND ?",
            [user["user_id"], near[0], near[1]],
        )
    story.say(
        [
            "I follow too many artists. Unfollow everyone who hasn't put anything out since {day}, "
            "including anyone who has never released anything.",
            "Time to prune who I follow: drop every artist whose latest release is from before {day} (or "
            "who has no release at all).",
        ],
        day=render_day(story.ctx, cutoff),
    )
    story.ctx.goal(
        "the artists still followed",
        "SELECT list(artist_id ORDER BY artist_id) AS artists FROM artist_follows WHERE user_id = ?",
        [user["user_id"]],
        expected=[{"artists": sorted(a["artist_id"] for a in kept)}],
    )


@step(inputs=("user", "kept"), goal="release notifications on for the artists kept")
def notify_kept(story: Story) -> None:
    user = story["user"]
    off = [a["artist_id"] for a in story["kept"] if not a["notifications_on"]]
    story.say(
        [
            "For the ones I keep, make sure release notifications are on.",
            "Turn new-release notifications on for every artist I'm still following.",
        ]
    )
    if off:
        story.call(
            "set_artist_notifications", {"username": user["username"], "enabled": True, "artists": off}
        )


@step(
    inputs=("user", "kept", "latest"),
    outputs=("songs",),
    goal="the playable tracks of each kept artist's latest release",
    capabilities=("full_data_acquisition",),
)
def latest_tracks(story: Story) -> None:
    songs: list[int] = []
    for artist in story["kept"]:
        release = story["latest"][artist["artist_id"]]
        album = story.read("get_album", {"album": release["album_id"]})
        songs += [t["song_id"] for t in album["tracks"] if t["available"]]
    songs = list(dict.fromkeys(songs))
    if len(songs) < 5:
        raise Skip("too few tracks on the latest releases")
    story["songs"] = songs
    story.say(
        [
            "Then gather the playable tracks of the latest release of each artist I keep.",
            "And collect every track I can still play from each remaining artist's newest release.",
        ]
    )


FOLLOW_AUDIT = Storyline(
    "follow_audit",
    cast_follower,
    (
        followed_artists,
        latest_releases,
        unfollow_quiet,
        notify_kept,
        latest_tracks,
        new_playlist,
        fill_playlist,
    ),
    provides=("user", "cutoff", "titles"),
    weight=2.5,
)


# --- the artist purge ------------------------------------------------------------------------------------


def cast_done_with_artist(story: Story) -> None:
    """An active listener with 3+ playlists, two or more holding songs by an artist whose name is theirs
    alone, whom the listener has played and liked or follows."""
    ctx = story.ctx
    row = ctx.pick(
        "WITH pl AS (SELECT p.owner_id AS user_id, s.artist_id, count(DISTINCT p.playlist_id) AS lists FROM "
        "playlist_songs AS ps JOIN playlists AS p ON p.playlist_id = ps.playlist_id JOIN songs AS s ON "
        "s.song_id = ps.song_id GROUP BY ALL) SELECT u.user_id, u.username, u.display_name, pl.artist_id "
        f"FROM pl JOIN users AS u ON u.user_id = pl.user_id WHERE {ACTIVE} AND pl.lists >= 2 "
        f"AND pl.artist_id IN {SAFE_ARTISTS} AND (SELECT count(*) FROM playlists AS o "
        "WHERE o.owner_id = u.user_id) >= 3 AND "
        "(SELECT count(DISTINCT lower(o.title)) FROM playlists AS o WHERE o.owner_id = u.user_id) = "
        "(SELECT count(*) FROM playlists AS o WHERE o.owner_id = u.user_id) AND EXISTS (SELECT 1 FROM "
        "listening_history AS h JOIN songs AS s ON s.song_id = h.song_id WHERE h.user_id = u.user_id AND "
        "s.artist_id = pl.artist_id) AND (EXISTS (SELECT 1 FROM favourite_songs AS f JOIN songs AS s ON "
        "s.song_id = f.song_id WHERE f.user_id = u.user_id AND s.artist_id = pl.artist_id) OR EXISTS (SELECT "
        "1 FROM artist_follows AS f WHERE f.user_id = u.user_id AND f.artist_id = pl.artist_id))",
        what="listener done with an artist in two playlists",
    )
    user = {k: row[k] for k in ("user_id", "username", "display_name")}
    story["user"] = user
    introduce(ctx, user)
    story["artist"] = {"name": artist_name(ctx, row["artist_id"])}


@step(inputs=("user", "artist"), outputs=("artist_id",), goal="find the artist and clear their plays")
def clear_artist_plays(story: Story) -> None:
    user, name = story["user"], story["artist"]["name"]
    found = story.read("search_artists", {"query": name, "limit": 5})
    matches = [r for r in found["rows"] if r["name"].lower() == name.lower()]
    if len(matches) != 1:
        raise Skip("artist not found by name")
    artist_id = matches[0]["artist_id"]
    story["artist_id"] = artist_id
    plays = story.read(
        "get_listening_history", {"username": user["username"], "artist": artist_id, "limit": 50}
    )
    story.say(
        [
            "I'm completely done with {name}. Wipe every play of theirs from my listening history,",
            "I never want to hear {name} again: delete all my plays of their songs,",
        ],
        name=name,
    )
    if plays["total"]:
        story.call("delete_listening_history", {"username": user["username"], "artist": artist_id})


@step(
    inputs=("user", "artist", "artist_id", "playlists"),
    goal="their songs out of every playlist of the listener's",
    capabilities=("full_data_acquisition", "multi_condition_filtering"),
)
def strip_from_playlists(story: Story) -> None:
    user, name = story["user"], story["artist"]["name"]
    touched = 0
    for playlist in story["playlists"]:
        rows = story.read_all("get_playlist", {"playlist": playlist["playlist_id"]})
        theirs = [r["song_id"] for r in rows if r["artist"] == name]
        if theirs:
            story.call(
                "remove_songs_from_playlist",
                {"username": user["username"], "playlist": playlist["playlist_id"], "songs": theirs},
            )
            touched += 1
    if touched < 2:
        raise Skip("fewer than two playlists hold the artist")
    story.knob("solver_filtering", f"songs by {name}, playlist by playlist")
    # the songs after a removed one move up; the tool renumbers them, whoever removes the same songs
    story.ctx.policy("playlist_songs.position", "ignore")
    story.say(
        [
            "take their songs out of every playlist I own,",
            "remove anything of theirs from all of my playlists,",
        ]
    )
    story.ctx.goal(
        "no playlist of the listener holds the artist",
        "SELECT count(*) AS left FROM playlist_songs AS ps JOIN playlists AS p ON p.playlist_id = "
        "ps.playlist_id JOIN songs AS s ON s.song_id = ps.song_id WHERE p.owner_id = ? AND s.artist_id = ?",
        [user["user_id"], story["artist_id"]],
        expected=[{"left": 0}],
    )


@step(inputs=("user", "artist_id"), goal="unlike their songs and unfollow them")
def drop_artist(story: Story) -> None:
    user, artist_id = story["user"], story["artist_id"]
    liked = story.read_all("list_liked_songs", {"username": user["username"], "artist": artist_id})
    if liked:
        story.call("unlike_songs", {"username": user["username"], "songs": [r["song_id"] for r in liked]})
    follows = story.read_all("list_followed_artists", {"username": user["username"]})
    if any(r["artist_id"] == artist_id for r in follows):
        story.call("unfollow_artists", {"username": user["username"], "artists": [artist_id]})
    story.say(
        [
            "unlike every song of theirs I've liked and unfollow them.",
            "and if I like any of their songs or follow them, undo that too.",
        ]
    )


ARTIST_PURGE = Storyline(
    "artist_purge",
    cast_done_with_artist,
    (clear_artist_plays, my_playlists, strip_from_playlists, drop_artist),
    provides=("user", "artist"),
    weight=1.8,
)
STORYLINES = (FOLLOW_AUDIT, ARTIST_PURGE)
