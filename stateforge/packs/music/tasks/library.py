"""Recipes over a listener's library: liked songs (unlike an artist, unlike everything liked before a day,
like a whole release) and followed artists (mute them all, unfollow the muted old ones, follow the
artists they played most)."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import RecipeContext, recipe

from .common import (
    ACTIVE,
    SAFE_ARTISTS,
    artist_name,
    clear_top_listener,
    days_with,
    introduce,
    month_span,
    months_back,
    next_day,
    offer_missing_release,
    refer_album,
    sized,
    year_start,
)


def _cutoff(ctx: RecipeContext, days: list, inclusive: bool) -> object:
    """The moment a "before" filter takes: the day itself, or the day after it when the day is included."""
    day = ctx.choice(days)
    return day, (next_day(day) if inclusive else day)


@recipe(capabilities=("multi_condition_filtering", "full_data_acquisition"), difficulty="medium")
def unlike_artist(ctx: RecipeContext) -> None:
    """A listener removes every liked song by one artist from their library (optionally only those liked
    before a day)."""
    row = sized(
        ctx,
        "SELECT u.user_id, u.username, u.display_name, s.artist_id, count(*) AS n, (SELECT count(*) FROM "
        "favourite_songs AS a WHERE a.user_id = u.user_id) AS liked FROM favourite_songs AS f JOIN users "
        f"AS u ON u.user_id = f.user_id JOIN songs AS s ON s.song_id = f.song_id WHERE {ACTIVE} AND "
        f"s.artist_id IN {SAFE_ARTISTS} GROUP BY ALL",
        what="listener with liked songs by one artist",
        spread="artist_id",
    )
    if row["n"] >= row["liked"]:
        ctx.skip("every liked song is by the artist")
    artist = artist_name(ctx, row["artist_id"])
    introduce(ctx, row)
    args = {"username": row["username"], "artist": artist}
    liked = "favourite_songs AS f JOIN songs AS s ON s.song_id = f.song_id"
    where = "f.user_id = ? AND s.artist_id = ?"
    days = days_with(ctx, liked, "f.favourited_at", where, [row["user_id"], row["artist_id"]])
    if len(days) >= 3 and ctx.rng.random() < 0.4:
        day, cutoff = _cutoff(ctx, days[1:], inclusive=False)
        args["liked_before"] = cutoff
        ctx.also("precise_boundary_judgment")
        ctx.say(
            [
                "Unlike the {artist} songs I liked before {day}; the ones I liked since then stay.",
                "Please remove from my liked songs every track by {artist} that I liked earlier than {day}.",
            ],
            artist=artist,
            day=day,
        )
    else:
        ctx.say(
            [
                "Remove every {artist} song from my liked songs.",
                "I've gone off {artist}: unlike all of their songs in my library, please.",
                "Please clear all the tracks by {artist} out of my Liked Songs.",
            ],
            artist=artist,
        )
    ctx.call("unlike_songs", args, step=f"Unlike the songs by {artist}")
    cutoff = args.get("liked_before")
    ctx.goal(
        "the artist's songs are unliked, the rest stay",
        "SELECT count(*) FILTER (WHERE s.artist_id = ? AND (? IS NULL OR f.favourited_at < ?)) AS gone, "
        "count(*) AS liked FROM favourite_songs AS f JOIN songs AS s ON s.song_id = f.song_id WHERE "
        "f.user_id = ?",
        [row["artist_id"], cutoff, cutoff, row["user_id"]],
    )


@recipe(capabilities=("full_data_acquisition", "precise_boundary_judgment"), difficulty="medium")
def unlike_liked_before(ctx: RecipeContext) -> None:
    """A listener clears out their liked songs from before a day (or up to and including it, or a whole
    year or earlier); the day is one on which they liked songs."""
    user = sized(
        ctx,
        "SELECT u.user_id, u.username, u.display_name, count(*) AS n FROM favourite_songs AS f JOIN users "
        f"AS u ON u.user_id = f.user_id WHERE {ACTIVE} GROUP BY ALL",
        what="listener with liked songs",
        bands=((4, 15), (15, 60), (60, 300)),
    )
    days = days_with(ctx, "favourite_songs", "favourited_at", "user_id = ?", [user["user_id"]])
    if len(days) < 3:
        ctx.skip("likes on too few days")
    introduce(ctx, user)
    style = ctx.choice(["before", "through", "year"])
    if style == "year" and days[0].year < days[-1].year:
        year = ctx.choice(sorted({d.year for d in days})[:-1])
        cutoff = dt.date(year + 1, 1, 1)
        ctx.say(
            [
                "Please unlike every song I liked in {year} or earlier.",
                "My liked songs are a mess. Remove everything I liked up to the end of {year}.",
            ],
            year=str(year),
        )
    elif style == "through":
        day, cutoff = _cutoff(ctx, days[1:-1], inclusive=True)
        ctx.say(
            [
                "Remove all the songs I liked on or before {day} from my liked songs.",
                "Unlike everything I liked up to and including {day}, please.",
            ],
            day=day,
        )
    else:
        day, cutoff = _cutoff(ctx, days[1:], inclusive=False)
        ctx.say(
            [
                "Remove all the songs I liked before {day} from my liked songs; keep the ones from {day} on.",
                "Unlike everything I liked earlier than {day}, please (likes from that day itself stay).",
            ],
            day=day,
        )
    gone = ctx.scalar(
        "SELECT count(*) FROM favourite_songs WHERE user_id = ? AND favourited_at < ?",
        [user["user_id"], cutoff],
    )
    if not gone:
        ctx.skip("nothing liked before the cutoff")
    ctx.call(
        "unlike_songs",
        {"username": user["username"], "liked_before": cutoff},
        step=f"Unlike the {gone} songs liked before {cutoff}",
    )
    ctx.goal(
        "nothing liked before the cutoff is left, the later likes stay",
        "SELECT count(*) FILTER (WHERE favourited_at < ?) AS old, count(*) AS liked FROM favourite_songs "
        "WHERE user_id = ?",
        [cutoff, user["user_id"]],
    )


@recipe(capabilities=("full_data_acquisition", "cross_step_dependency"), difficulty="medium")
def like_whole_album(ctx: RecipeContext) -> None:
    """A listener likes every track of a release: the release is opened for its tracks, then they are
    liked by id (tracks already liked stay as they are)."""
    user = ctx.pick(
        f"SELECT u.user_id, u.username, u.display_name FROM users AS u WHERE {ACTIVE}", what="listener"
    )
    album = ctx.pick(
        "SELECT al.album_id, al.title, al.artist_id, count(*) AS tracks, count(*) FILTER (WHERE s.song_id "
        "IN (SELECT song_id FROM favourite_songs WHERE user_id = ?)) AS liked FROM albums AS al JOIN songs "
        f"AS s ON s.album_id = al.album_id WHERE al.artist_id IN {SAFE_ARTISTS} GROUP BY ALL HAVING "
        "count(*) >= 3 AND bool_and(s.is_available)",
        [user["user_id"]],
        what="release with 3+ available tracks",
    )
    if album["liked"] == album["tracks"]:
        ctx.skip("every track already liked")
    artist = artist_name(ctx, album["artist_id"])
    refer_album(ctx, album["title"], artist)
    introduce(ctx, user)
    ctx.say(
        [
            "Please like every track on {album:q} by {artist}.",
            "I just listened to {artist}'s {album:q} all the way through. Add all of its songs to my liked "
            "songs.",
            "Could you put the whole of {album:q} ({artist}) into my Liked Songs?",
        ],
        album=album["title"],
        artist=artist,
    )
    page = ctx.read(
        "get_album",
        {"album": album["title"], "artist": artist},
        step=f"Open {album['title']!r} by {artist} for its {album['tracks']} tracks",
    )
    ctx.call(
        "like_songs",
        {"username": user["username"], "songs": [t["song_id"] for t in page["tracks"]]},
        step=f"Like its {album['tracks']} tracks",
    )
    ctx.goal(
        "every track of the release is liked",
        "SELECT count(*) AS liked FROM favourite_songs AS f JOIN songs AS s ON s.song_id = f.song_id WHERE "
        "f.user_id = ? AND s.album_id = ?",
        [user["user_id"], album["album_id"]],
    )
    offer_missing_release(ctx, album, artist, [f"{album['title']} (Live)"])


@recipe(capabilities=("full_data_acquisition",), difficulty="easy")
def mute_followed_artists(ctx: RecipeContext) -> None:
    """A listener turns off release notifications for every artist they follow (optionally but one)."""
    user = sized(
        ctx,
        "SELECT u.user_id, u.username, u.display_name, count(*) AS n FROM artist_follows AS f JOIN users "
        f"AS u ON u.user_id = f.user_id WHERE {ACTIVE} AND f.notifications_on GROUP BY ALL",
        what="listener following artists with notifications on",
        bands=((2, 12), (12, 60), (60, 600)),
    )
    introduce(ctx, user)
    keep = ctx.sql(
        "SELECT f.artist_id FROM artist_follows AS f WHERE f.user_id = ? AND f.notifications_on AND "
        f"f.artist_id IN {SAFE_ARTISTS} ORDER BY f.artist_id",
        [user["user_id"]],
    )
    ctx.derived(False, "'off' means notifications_on = false")
    ctx.call(
        "set_artist_notifications",
        {"username": user["username"], "enabled": False},
        step=f"Turn notifications off for the {user['n']} artists followed with them on",
    )
    if keep and user["n"] >= 3 and ctx.rng.random() < 0.4:
        kept_id = ctx.choice(keep)["artist_id"]
        artist = artist_name(ctx, kept_id)
        ctx.also("multi_condition_filtering")
        ctx.say(
            [
                "I get too many alerts. Turn off new-release notifications for every artist I follow, "
                "except {artist}: keep those on.",
                "Mute release notifications for all the artists I follow but {artist}.",
            ],
            artist=artist,
        )
        ctx.call(
            "set_artist_notifications",
            {"username": user["username"], "enabled": True, "artists": [artist]},
            step=f"Turn them back on for {artist}",
        )
    else:
        ctx.say(
            [
                "I get too many alerts. Turn off new-release notifications for every artist I follow.",
                "Please mute release notifications for all the artists I follow; I'll keep following them.",
                "Switch off the new-music notifications for each artist I follow, all of them.",
            ]
        )
    ctx.goal(
        "notifications are on only where asked",
        "SELECT list(artist_id ORDER BY artist_id) FILTER (WHERE notifications_on) AS on_for, count(*) AS "
        "follows FROM artist_follows WHERE user_id = ?",
        [user["user_id"]],
    )


@recipe(
    capabilities=("multi_condition_filtering", "full_data_acquisition", "precise_boundary_judgment"),
    difficulty="medium",
)
def unfollow_muted_before(ctx: RecipeContext) -> None:
    """A listener unfollows every artist they followed before a day (or up to and including it) whose
    notifications they had turned off."""
    user = sized(
        ctx,
        "SELECT u.user_id, u.username, u.display_name, count(*) AS n FROM artist_follows AS f JOIN users "
        f"AS u ON u.user_id = f.user_id WHERE {ACTIVE} AND NOT f.notifications_on GROUP BY ALL",
        what="listener with muted follows",
        bands=((3, 12), (12, 60), (60, 300)),
    )
    muted = "user_id = ? AND NOT notifications_on"
    days = days_with(ctx, "artist_follows", "followed_at", muted, [user["user_id"]])
    if len(days) < 3:
        ctx.skip("muted follows on too few days")
    inclusive = ctx.rng.random() < 0.5
    day, cutoff = _cutoff(ctx, days[1:-1] if inclusive else days[1:], inclusive)
    introduce(ctx, user)
    ctx.say(
        [
            "Unfollow every artist I followed on or before {day} whose release notifications I turned off.",
            "Among the artists I've muted, drop the ones I started following up to and including {day}.",
        ]
        if inclusive
        else [
            "Unfollow every artist I followed before {day} whose release notifications I turned off.",
            "Among the artists I've muted, drop the ones I started following before {day} (not on that day).",
        ],
        day=day,
    )
    ctx.call(
        "unfollow_artists",
        {"username": user["username"], "followed_before": cutoff, "notifications_off_only": True},
        step=f"Unfollow the muted artists followed before {cutoff}",
    )
    ctx.goal(
        "no muted follow from before the cutoff is left, the others stay",
        "SELECT count(*) FILTER (WHERE NOT notifications_on AND followed_at < ?) AS old_muted, count(*) AS "
        "follows FROM artist_follows WHERE user_id = ?",
        [cutoff, user["user_id"]],
    )


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="hard")
def follow_top_artists(ctx: RecipeContext) -> None:
    """A listener follows the k artists they played most over a period (those already followed stay as
    they are): the listening stats per artist are read, the top k followed."""
    k = ctx.choice([3, 3, 5, 10])
    if ctx.rng.random() < 0.6:
        start, end, name, what = year_start(ctx), None, str(ctx.today.year), "this year"
    else:
        start, end, name = month_span(months_back(ctx.today, ctx.choice([0, 1, 2])))
        what = "in {month}"
    user, top = clear_top_listener(ctx, "artist_id", k, start, end)
    ids = [r["item"] for r in top]
    followed = ctx.scalar(
        "SELECT count(*) FROM artist_follows WHERE user_id = ? AND artist_id IN (SELECT unnest(CAST(? AS "
        "BIGINT[])))",
        [user["user_id"], ids],
    )
    if followed == k:
        ctx.skip("already following them all")
    muted = ctx.rng.random() < 0.3
    introduce(ctx, user)
    ctx.say(
        [
            "Follow the {k} artists I listened to most " + what + " (skip any I already follow).",
            "Please make sure I follow my top {k} artists " + what + ", by number of plays.",
        ],
        k=k,
        month=name,
    )
    if muted:
        ctx.say(
            [
                "Keep release notifications off for the new follows.",
                "I don't want release notifications from the ones I start following.",
            ]
        )
        ctx.derived(False, "notifications off means notifications_on = false")
    stats = {"username": user["username"], "group_by": "artist", "since": start, "limit": k}
    if end:
        stats["before"] = end
    page = ctx.read("listening_stats", stats, step=f"Count @{user['username']}'s plays per artist")
    found = [r["artist_id"] for r in page["rows"]]
    if sorted(found) != sorted(ids):
        ctx.skip("the stats rank other artists first")
    args = {"username": user["username"], "artists": found}
    if muted:
        args["notifications"] = False
    ctx.call("follow_artists", args, step=f"Follow those {k} artists")
    ctx.goal(
        "the top artists are followed",
        "SELECT count(*) AS followed FROM artist_follows WHERE user_id = ? AND artist_id IN (SELECT "
        "unnest(CAST(? AS BIGINT[])))",
        [user["user_id"], ids],
    )
