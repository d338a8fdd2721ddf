"""Recipes over whole playlists: build one from the listener's most played songs, copy someone's, move the
most played song to the top, trim one to a length, delete the small private ones."""

from __future__ import annotations

from stateforge.tasks import RecipeContext, recipe

from .common import (
    ACTIVE,
    clear_top_listener,
    introduce,
    month_span,
    months_back,
    offer_missing_playlist,
    taken,
    unique_playlist_sql,
    year_start,
)

TOP_TITLES = ("On Repeat", "My Top {k}", "Heavy Rotation", "Most Played", "Best of {period}")


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="hard")
def playlist_of_most_played(ctx: RecipeContext) -> None:
    """A listener makes a new playlist of their k most played songs over a period: the listening stats
    are read (plays per song), the top k taken (the k-th must beat the next one), the playlist created."""
    k = ctx.choice([3, 5, 5, 10])
    if ctx.rng.random() < 0.6:
        start, end, name, what = year_start(ctx), None, str(ctx.today.year), "this year"
    else:
        start, end, name = month_span(months_back(ctx.today, ctx.choice([0, 1, 2, 3])))
        what = "in {month}"
    user, top = clear_top_listener(ctx, "song_id", k, start, end)
    unavailable = ctx.scalar(
        "SELECT count(*) FROM songs WHERE NOT is_available AND song_id IN (SELECT unnest(CAST(? AS "
        "BIGINT[])))",
        [[r["item"] for r in top]],
    )
    if unavailable:
        ctx.skip("an unavailable song at the top")
    ordered = len({r["plays"] for r in top}) == k
    title = ctx.choice(TOP_TITLES).format(k=k, period=name)
    if taken(ctx, "playlists", "title", title, owner_id=user["user_id"]):
        ctx.skip("title taken")
    introduce(ctx, user)
    ctx.say(
        [
            "Make me a new playlist called {title:q} with the {k} songs I played most " + what + ".",
            "Could you create a playlist {title:q} out of my top {k} most-played songs " + what + "?",
            "I'd like a playlist named {title:q} holding the {k} tracks I listened to the most " + what + ".",
        ],
        title=title,
        k=k,
        month=name,
    )
    if ordered:
        ctx.say(["Put them in order, most played first.", "Most played at the top, please."])
    else:
        ctx.say(["Any order is fine.", "The order doesn't matter."])
        ctx.policy("playlist_songs.position", "ignore")
    stats = {"username": user["username"], "group_by": "song", "since": start, "limit": max(k, 10)}
    if end:
        stats["before"] = end
    page = ctx.read(
        "listening_stats", stats, step=f"Count @{user['username']}'s plays per song since {start}"
    )
    ids = [r["song_id"] for r in page["rows"][:k]]
    if sorted(ids) != sorted(r["item"] for r in top):
        ctx.skip("the stats rank other songs first")
    ctx.derived(ids, f"the {k} songs with the most plays in the listening stats")
    ctx.call(
        "create_playlist",
        {"username": user["username"], "title": title, "songs": ids},
        step=f"Create {title!r} with those {k} songs",
    )
    ctx.goal(
        "the playlist holds the top songs",
        "SELECT list(ps.song_id ORDER BY ps.song_id) AS songs FROM playlists AS p JOIN playlist_songs AS ps "
        "ON ps.playlist_id = p.playlist_id WHERE p.owner_id = ? AND p.title = ?",
        [user["user_id"], title],
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def copy_public_playlist(ctx: RecipeContext) -> None:
    """A listener saves a copy of someone's public playlist, naming its owner by their display name: the
    owner's username is looked up first, then the playlist copied under the title asked for, public or
    private. Variant: the playlist named is the owner's private one, which cannot be copied (forbidden)."""
    source = ctx.pick(
        unique_playlist_sql(
            "p.is_public AND (SELECT count(*) FROM users AS n WHERE lower(n.display_name) = "
            "lower(u.display_name)) = 1"
        )
        + " AND (SELECT count(*) FROM playlist_songs AS c JOIN songs AS s ON s.song_id = c.song_id "
        "WHERE c.playlist_id = p.playlist_id AND s.is_available) >= 2",
        what="public playlist of a listener with a unique name",
    )
    me = ctx.pick(
        f"SELECT u.user_id, u.username, u.display_name FROM users AS u WHERE {ACTIVE} AND u.user_id <> ?",
        [source["user_id"]],
        what="listener",
    )
    first = source["display_name"].split()[0]
    title = ctx.choice(
        [
            source["title"],
            f"{source['title']} (copy)",
            f"My {source['title']}",
            f"{first}'s {source['title']}",
        ]
    )
    if taken(ctx, "playlists", "title", title, owner_id=me["user_id"]):
        ctx.skip("title taken")
    public = ctx.rng.random() < 0.5
    ctx.refer(
        f"listener {source['display_name']}",
        "SELECT count(*) FROM users WHERE lower(display_name) = lower(?)",
        [source["display_name"]],
    )
    introduce(ctx, me, playlist=source)
    ctx.say(
        [
            "I love {owner}'s playlist {title:q}. Please save a copy of it to my account as {new:q}.",
            "Copy the playlist {title:q} made by {owner} into my library and call my copy {new:q}.",
        ],
        owner=source["display_name"],
        title=source["title"],
        new=title,
    )
    ctx.say(
        ["Keep my copy public.", "Others may see it."]
        if public
        else ["Keep my copy private.", "Nobody else should see my copy."]
    )
    found = ctx.read(
        "find_users",
        {"query": source["display_name"]},
        step=f"Look up the username of {source['display_name']}",
    )
    owner = next(
        r["username"] for r in found["rows"] if r["display_name"].lower() == source["display_name"].lower()
    )
    ctx.derived(public, "'public' means is_public = true, 'private' false")
    args = {
        "username": me["username"],
        "playlist": source["title"],
        "owner": owner,
        "title": title,
        "is_public": public,
    }
    ctx.call("duplicate_playlist", args, step=f"Copy {source['title']!r} of @{owner} as {title!r}")
    ctx.goal(
        "the copy exists with the original's available songs",
        "SELECT p.is_public, (SELECT list(c.song_id ORDER BY c.position) FROM playlist_songs AS c WHERE "
        "c.playlist_id = p.playlist_id) AS songs FROM playlists AS p WHERE p.owner_id = ? AND p.title = ?",
        [me["user_id"], title],
    )
    private = ctx.sql(
        unique_playlist_sql("NOT p.is_public AND NOT p.is_collaborative AND p.owner_id = ?")
        + " ORDER BY p.title",
        [source["user_id"]],
    )
    if private and title == source["title"]:
        other = ctx.choice(private)["title"]
        ctx.infeasible(
            "forbidden",
            policy="playlist_permissions",
            swap={source["title"]: other},
            because=f"{other!r} is @{source['username']}'s private playlist; private playlists cannot be "
            "copied",
        )


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def move_most_played_to_top(ctx: RecipeContext) -> None:
    """A listener moves the song of a playlist with the most plays overall to the top: the playlist is read
    (each song shows its plays), the maximum found, the song moved."""
    row = ctx.pick(
        unique_playlist_sql("NOT p.is_collaborative")
        + " AND (SELECT count(*) FROM playlist_songs AS c WHERE c.playlist_id = p.playlist_id) >= 3",
        what="playlist with 3+ songs",
    )
    songs = ctx.sql(
        "SELECT ps.song_id, ps.position, s.play_count FROM playlist_songs AS ps JOIN songs AS s ON "
        "s.song_id = ps.song_id WHERE ps.playlist_id = ? ORDER BY s.play_count DESC, ps.position",
        [row["playlist_id"]],
    )
    fewest = ctx.rng.random() < 0.3
    if fewest:
        songs = songs[::-1]
    if songs[0]["play_count"] == songs[1]["play_count"]:
        ctx.skip("tie at the top")
    target = 1 if not fewest else len(songs)
    if songs[0]["position"] == target:
        ctx.skip("already in place")
    introduce(ctx, row, playlist=row)
    if fewest:
        ctx.say(
            [
                "In my playlist {title:q}, move the song with the fewest plays overall to the very end.",
                "Put the least played track of {title:q} (by its total plays) at the bottom of the playlist.",
            ],
            title=row["title"],
        )
        ctx.derived(target, f"the bottom of the playlist is position {target}, its number of songs")
    else:
        ctx.say(
            [
                "In my playlist {title:q}, move the most played song (by total plays) to the top.",
                "Put the track of {title:q} that has the most plays overall at position one.",
                "Whichever song in {title:q} has been played the most should open the playlist; move it up.",
            ],
            title=row["title"],
        )
        ctx.derived(target, "the top of the playlist is position 1")
    ctx.read(
        "get_playlist",
        {"playlist": row["title"], "owner": row["username"]},
        step=f"Open {row['title']!r} and compare its songs' plays",
    )
    ctx.call(
        "move_playlist_song",
        {
            "username": row["username"],
            "playlist": row["title"],
            "song": songs[0]["song_id"],
            "to_position": target,
        },
        step=f"Move song {songs[0]['song_id']} to position {target}",
    )
    ctx.goal(
        "the song is in place",
        "SELECT position FROM playlist_songs WHERE playlist_id = ? AND song_id = ?",
        [row["playlist_id"], songs[0]["song_id"]],
    )
    offer_missing_playlist(ctx, row)


@recipe(capabilities=("aggregation_computation", "precise_boundary_judgment"), difficulty="hard")
def trim_playlist_to_length(ctx: RecipeContext) -> None:
    """A listener trims a playlist to at most N minutes by dropping songs from the end: the running total
    of the durations decides where the cut falls (the whole minutes are compared in seconds, as the app
    shows them)."""
    row = ctx.pick(
        unique_playlist_sql("NOT p.is_collaborative")
        + " AND (SELECT count(*) FROM playlist_songs AS c WHERE c.playlist_id = p.playlist_id) >= 4",
        what="playlist with 4+ songs",
    )
    songs = ctx.sql(
        "SELECT ps.position, s.duration_ms FROM playlist_songs AS ps JOIN songs AS s ON s.song_id = "
        "ps.song_id WHERE ps.playlist_id = ? ORDER BY ps.position",
        [row["playlist_id"]],
    )
    cut = ctx.rng.randrange(2, len(songs))  # keep songs[:cut]
    seconds = sum(s["duration_ms"] // 1000 for s in songs[:cut])
    minutes = -(-seconds // 60)
    kept = _prefix(songs, minutes * 60, lambda s: s["duration_ms"] // 1000)
    if kept != _prefix(songs, minutes * 60_000, lambda s: s["duration_ms"]) or kept >= len(songs) or kept < 1:
        ctx.skip("cut unclear at the boundary")
    introduce(ctx, row, playlist=row)
    ctx.say(
        [
            "My playlist {title:q} is too long. Drop songs from the end until it lasts {minutes} minutes or "
            "less; keep as many as fit.",
            "Trim {title:q} so the whole thing runs at most {minutes} minutes: remove tracks starting from "
            "the last one, and stop as soon as it fits.",
        ],
        title=row["title"],
        minutes=minutes,
    )
    ctx.read(
        "get_playlist",
        {"playlist": row["title"], "owner": row["username"]},
        step=f"Open {row['title']!r} and add up its song lengths",
    )
    positions = list(range(kept + 1, len(songs) + 1))
    ctx.derived(positions, f"the songs after the longest opening run that lasts at most {minutes} minutes")
    ctx.call(
        "remove_songs_from_playlist",
        {"username": row["username"], "playlist": row["title"], "positions": positions},
        step=f"Remove the last {len(positions)} songs",
    )
    ctx.goal(
        "the playlist fits and keeps its opening songs",
        "SELECT count(*) AS songs, sum(s.duration_ms) // 1000 AS seconds FROM playlist_songs AS ps JOIN "
        "songs AS s ON s.song_id = ps.song_id WHERE ps.playlist_id = ?",
        [row["playlist_id"]],
    )


def _prefix(songs: list[dict], limit: int, length: object) -> int:
    """How many songs from the start fit within `limit` (lengths by `length`)."""
    total = 0
    for i, song in enumerate(songs):
        total += length(song)  # type: ignore[operator]
        if total > limit:
            return i
    return len(songs)


@recipe(
    capabilities=("multi_condition_filtering", "full_data_acquisition", "precise_boundary_judgment"),
    difficulty="hard",
)
def delete_small_private_playlists(ctx: RecipeContext) -> None:
    """A listener deletes every private playlist of theirs with fewer than N songs (or N or fewer): the
    playlists are searched with the filters, then deleted one by one, by id."""
    limit = ctx.choice([3, 5, 8, 10])
    inclusive = ctx.rng.random() < 0.5
    most = limit if inclusive else limit - 1
    owner = ctx.pick(
        "SELECT * FROM (SELECT u.user_id, u.username, u.display_name, count(*) AS playlists, count(*) "
        "FILTER (WHERE NOT p.is_public AND (SELECT count(*) FROM playlist_songs AS c WHERE c.playlist_id = "
        "p.playlist_id) <= ?) AS n FROM users AS u JOIN playlists AS p ON p.owner_id = u.user_id WHERE "
        f"{ACTIVE} GROUP BY ALL) WHERE n >= 2 AND n < playlists",
        [most],
        what="listener with 2+ small private playlists",
    )
    introduce(ctx, owner)
    ctx.say(
        [
            "Delete all my private playlists that have {limit} songs or fewer.",
            "Please get rid of every private playlist of mine with at most {limit} songs in it.",
        ]
        if inclusive
        else [
            "Delete all my private playlists that have fewer than {limit} songs.",
            "Please get rid of every private playlist of mine with less than {limit} songs in it.",
        ],
        limit=limit,
    )
    page = ctx.read(
        "search_playlists",
        {"owner": owner["username"], "is_public": False, "max_songs": most, "limit": 50},
        step=f"Find @{owner['username']}'s private playlists with at most {most} songs",
    )
    if page["total"] > len(page["rows"]):
        ctx.skip("more than a page of playlists")
    for found in page["rows"]:
        ctx.call(
            "delete_playlist",
            {"username": owner["username"], "playlist": found["playlist_id"]},
            step=f"Delete playlist {found['playlist_id']} ({found['title']!r})",
        )
    ctx.goal(
        "no small private playlist is left, the others stay",
        "SELECT count(*) FILTER (WHERE NOT p.is_public AND (SELECT count(*) FROM playlist_songs AS c WHERE "
        "c.playlist_id = p.playlist_id) <= ?) AS small, count(*) AS playlists FROM playlists AS p WHERE "
        "p.owner_id = ?",
        [most, owner["user_id"]],
    )
