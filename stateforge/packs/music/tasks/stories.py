"""Storylines of the music pack: long tasks composed of steps on shared entities (docs/tasks.md).

- `artist_mixtape`: my top artists (listening stats) -> their albums and EPs, track by track, kept when
  they fit a length the listener states -> a new private playlist of them -> like the ones not liked yet
  -> follow the artists not followed yet.
- `playlist_spring_clean`: every playlist I own -> every song of each -> take out the songs longer than a
  stated length -> delete the playlists left with fewer than a stated number of songs.
- `account_tidy`: pay what is overdue (the policy detour: a past-due plan cannot change) -> the cheapest
  plan with enough devices -> sign out the devices unused since a day -> register the new one.
- infeasible, all or nothing (the listener says so): `refund_last_weeks` meets a charge on day 15 of the
  14-day window; `mixtape_for_minor` meets the explicit-content age limit after the catalogue work;
  `device_without_room` meets the device limit after counting the active devices.
"""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import ACTIVE, cast_listener, introduce, liked_goal, months_back, render_day

TITLES = (
    "Heavy Rotation",
    "My Core Artists",
    "Deep Cuts Club",
    "Full Discographies",
    "All Killer",
    "Favourites Unpacked",
    "Top Three Deep Dive",
    "Catalogue Crawl",
)
KEEP_TYPES = ("album", "ep")
LIKES_PER_CALL = 300
"""`like_songs` takes at most 300 songs a call."""
PLAYLIST_SONGS = 500
"""A playlist holds at most 500 songs (policy playlist_size_limit)."""


# --- casts --------------------------------------------------------------------------------------------


def _top_artist_sql(start: dt.date) -> str:
    return (
        "WITH c AS (SELECT h.user_id, s.artist_id, count(*) AS plays FROM listening_history AS h JOIN songs "
        f"AS s ON s.song_id = h.song_id WHERE h.played_at >= DATE '{start.isoformat()}' GROUP BY ALL), "
        "r AS (SELECT *, row_number() OVER (PARTITION BY user_id ORDER BY plays DESC, artist_id) AS rn, "
        "lead(plays) OVER (PARTITION BY user_id ORDER BY plays DESC, artist_id) AS next FROM c) "
    )


def cast_listener_with_top_artists(story: Story, where: str = "TRUE") -> None:
    """An active listener whose top k artists since a month are clear-cut (no tie at the k-th place) and
    whose albums and EPs hold enough tracks to fill a playlist; `where` over `u` narrows the listeners."""
    ctx = story.ctx
    k = ctx.rng.choice((2, 3, 3, 4))
    start = months_back(ctx.today, ctx.rng.choice((6, 9, 12)))
    user = ctx.pick(
        _top_artist_sql(start)
        + "SELECT u.user_id, u.username, u.display_name, u.birth_date FROM r JOIN users "
        f"AS u ON u.user_id = r.user_id WHERE {ACTIVE} AND ({where}) AND rn = ? "
        f"AND plays > next AND (SELECT sum(al_n) FROM "
        "(SELECT (SELECT count(*) FROM albums AS al WHERE al.artist_id = r2.artist_id AND al.album_type IN "
        "('album', 'ep')) AS al_n FROM r AS r2 WHERE r2.user_id = r.user_id AND r2.rn <= ?)) >= ?",
        [k, k, 2 * k],
        what=f"listener with a clear top {k} of artists with albums",
    )
    story["user"], story["k"], story["start"] = user, k, start
    introduce(ctx, user)


def cast_playlist_owner(story: Story) -> None:
    """An active listener owning 3 or more playlists, titles unique among them."""
    cast_listener(
        story,
        "SELECT u.user_id, u.username, u.display_name FROM users AS u JOIN playlists AS p ON p.owner_id = "
        f"u.user_id WHERE {ACTIVE} GROUP BY ALL HAVING count(*) >= 3 AND count(DISTINCT lower(p.title)) = "
        "count(*)",
        what="listener with 3+ playlists",
    )


# --- steps: the mixtape -------------------------------------------------------------------------------


@step(
    inputs=("user", "k", "start"),
    outputs=("artists",),
    goal="find the listener's top artists",
    capabilities=("aggregation_computation",),
)
def top_artists(story: Story) -> None:
    user, k = story["user"], story["k"]
    stats = story.read(
        "listening_stats",
        {"username": user["username"], "group_by": "artist", "since": story["start"], "limit": 10},
    )
    rows = stats["rows"]
    if len(rows) <= k or rows[k - 1]["plays"] == rows[k]["plays"]:
        raise Skip("top artists tied")
    story["artists"] = [{"artist_id": r["artist_id"], "name": r["artist"]} for r in rows[:k]]
    story.knob("aggregation", f"top {k} artists by plays")
    story.say(
        [
            "Take the {k} artists I've played the most since {start} and go through their catalogues.",
            "Since {start}, my listening has been mostly {k} artists; I'd like to "
            "dig into everything they've "
            "put out.",
        ],
        k=k,
        start=story["start"],
    )


@step(
    inputs=("artists",),
    outputs=("songs",),
    goal="every qualifying track of their albums and EPs",
    capabilities=("multi_condition_filtering", "full_data_acquisition"),
)
def collect_catalogue(story: Story) -> None:
    limit_s = story.rng.choice((180, 210, 240, 270, 300))
    songs: list[int] = []
    near = 0
    for artist in story["artists"]:
        albums = story.read_all("list_artist_albums", {"artist": artist["artist_id"]})
        for album in albums:
            if album["album_type"] not in KEEP_TYPES:
                continue
            tracks = story.read("get_album", {"album": album["album_id"]})["tracks"]
            for track in tracks:
                if not track["available"]:
                    continue
                if track["duration_s"] <= limit_s:
                    songs.append(track["song_id"])
                elif track["duration_s"] <= limit_s + 5:
                    near += 1
    songs = list(dict.fromkeys(songs))
    if len(songs) < 8:
        raise Skip("too few qualifying tracks")
    if len(songs) > PLAYLIST_SONGS:
        raise Skip("more qualifying tracks than a playlist holds")
    story["songs"], story["limit_s"] = songs, limit_s
    story.knob("solver_filtering", "albums and EPs only, playable, up to a length")
    if near:
        ids = ", ".join(str(a["artist_id"]) for a in story["artists"])
        story.distractor(
            f"a track just over {limit_s} s by the artists",
            "SELECT count(*) FROM songs AS s JOIN albums AS al ON al.album_id = "
            "s.album_id WHERE al.artist_id "
            f"IN ({ids}) AND al.album_type IN ('album', 'ep') AND s.is_available "
            "AND s.duration_ms // 1000 BETWEEN ? AND ?",
            [limit_s + 1, limit_s + 5],
        )
    minutes, seconds = divmod(limit_s, 60)
    length = f"{minutes}:{seconds:02d}"
    story["length"] = length
    story.say(
        [
            "Only their proper albums and EPs count, no singles or compilations, and only tracks on them "
            "that are still playable and no longer than {length}.",
            "Skip singles and compilations; from the albums and EPs keep every playable track that runs "
            "{length} or less.",
        ],
        length=length,
    )


@step(inputs=("user",), outputs=("playlist",), goal="a new private playlist")
def new_playlist(story: Story) -> None:
    user = story["user"]
    taken = {
        r["t"]
        for r in story.sql("SELECT lower(title) AS t FROM playlists WHERE owner_id = ?", [user["user_id"]])
    }
    free = [t for t in story.get("titles", TITLES) if t.lower() not in taken]
    if not free:
        raise Skip("every title taken")
    title = story.rng.choice(free)
    story.call("create_playlist", {"username": user["username"], "title": title, "is_public": False})
    story["playlist"] = title
    story.say(
        [
            "Put all of those in a new private playlist called {title:q}.",
            "Collect them in a new playlist, {title:q}, and keep it private.",
        ],
        title=title,
    )


@step(inputs=("user", "playlist", "songs"), goal="the playlist holds the tracks")
def fill_playlist(story: Story) -> None:
    user, title = story["user"], story["playlist"]
    story.call(
        "add_songs_to_playlist", {"username": user["username"], "playlist": title, "songs": story["songs"]}
    )
    # the request gives no order: the solver may add the tracks in any
    story.ctx.policy("playlist_songs.position", "ignore")
    story.ctx.goal(
        "the new playlist holds exactly the qualifying tracks",
        "SELECT list(ps.song_id ORDER BY ps.song_id) AS songs FROM playlist_songs AS ps JOIN playlists AS p "
        "ON p.playlist_id = ps.playlist_id WHERE p.owner_id = ? AND p.title = ? AND NOT p.is_public",
        [user["user_id"], title],
        expected=[{"songs": sorted(story["songs"])}],
    )


@step(inputs=("user", "songs"), goal="like the tracks not liked yet", capabilities=("full_data_acquisition",))
def like_missing(story: Story) -> None:
    user = story["user"]
    liked = {r["song_id"] for r in story.read_all("list_liked_songs", {"username": user["username"]})}
    todo = [s for s in story["songs"] if s not in liked]
    story.say(["Like any of them I haven't liked yet, too.", "And like the ones I haven't liked already."])
    for start in range(0, len(todo), LIKES_PER_CALL):  # the tool likes at most 300 songs a call
        chunk = todo[start : start + LIKES_PER_CALL]
        story.call("like_songs", {"username": user["username"], "songs": chunk})
    liked_goal(story.ctx, "every track is liked", user["user_id"], story["songs"], len(story["songs"]))


@step(inputs=("user", "artists"), goal="follow the artists not followed yet")
def follow_missing(story: Story) -> None:
    user = story["user"]
    followed = {
        r["artist_id"] for r in story.read_all("list_followed_artists", {"username": user["username"]})
    }
    todo = [a["artist_id"] for a in story["artists"] if a["artist_id"] not in followed]
    story.say(
        [
            "Finally, follow whichever of those artists I don't follow yet.",
            "Oh, and follow the ones among those artists I'm not following.",
        ]
    )
    if todo:
        story.call("follow_artists", {"username": user["username"], "artists": todo})


# --- steps: the spring clean --------------------------------------------------------------------------


@step(inputs=("user",), outputs=("playlists",), goal="every playlist the listener owns")
def my_playlists(story: Story) -> None:
    rows = story.read_all("search_playlists", {"owner": story["user"]["username"]})
    story["playlists"] = [r for r in rows if r["owner"] == story["user"]["username"]]


@step(
    inputs=("user", "playlists"),
    outputs=("kept_sizes",),
    goal="take the long songs out of each",
    capabilities=("multi_condition_filtering", "full_data_acquisition"),
)
def trim_long_songs(story: Story) -> None:
    user = story["user"]
    limit_s = story.rng.choice((240, 270, 300, 330, 360))
    sizes: dict[str, int] = {}
    touched, near = 0, 0
    for playlist in story["playlists"]:
        rows = story.read_all("get_playlist", {"playlist": playlist["playlist_id"]})
        long = [r["song_id"] for r in rows if r["duration_s"] > limit_s]
        near += sum(1 for r in rows if limit_s - 5 <= r["duration_s"] <= limit_s)
        if long:
            story.call(
                "remove_songs_from_playlist",
                {"username": user["username"], "playlist": playlist["playlist_id"], "songs": long},
            )
            touched += 1
        sizes[playlist["title"]] = len(rows) - len(long)
    if touched < 2:
        raise Skip("fewer than two playlists with long songs")
    minutes, seconds = divmod(limit_s, 60)
    story["kept_sizes"] = sizes
    story.knob("solver_filtering", f"songs longer than {limit_s} s, playlist by playlist")
    if near:
        story.knob("boundary_distractor", f"songs of {limit_s - 5}-{limit_s} s stay")
    story.say(
        [
            "Go through every playlist of mine and take out every song longer than {length}.",
            "I want my playlists lean: in each one I own, remove the songs that run over {length}.",
        ],
        length=f"{minutes}:{seconds:02d}",
    )


@step(
    inputs=("user", "kept_sizes"),
    goal="delete the playlists left too small",
    capabilities=("aggregation_computation",),
)
def drop_small(story: Story) -> None:
    user, sizes = story["user"], story["kept_sizes"]
    floor = story.rng.choice((3, 4, 5, 6))
    small = [t for t, n in sizes.items() if n < floor]
    story.say(
        [
            "Afterwards, any playlist left with fewer than {floor} songs can go entirely.",
            "If that leaves a playlist with under {floor} songs, delete it.",
        ],
        floor=floor,
    )
    for title in small:
        story.call("delete_playlist", {"username": user["username"], "playlist": title})
    story.knob("aggregation", f"songs left per playlist against {floor}")
    story.ctx.goal(
        "the owner's playlists and their sizes",
        "SELECT list((p.title, (SELECT count(*) FROM "
        "playlist_songs AS ps WHERE ps.playlist_id = p.playlist_id)) ORDER BY p.title) AS sizes "
        "FROM playlists AS p WHERE p.owner_id = ?",
        [user["user_id"]],
    )


# --- steps: the account -------------------------------------------------------------------------------


def cast_past_due(story: Story) -> None:
    """An active listener with one past-due subscription and 2+ active devices."""
    cast_listener(
        story,
        "SELECT u.user_id, u.username, u.display_name FROM users AS u JOIN subscriptions AS s ON s.user_id = "
        f"u.user_id WHERE {ACTIVE} AND s.status = 'past_due' AND (SELECT count(*) FROM subscriptions AS o "
        "WHERE o.user_id = u.user_id AND o.status IN ('active', 'past_due')) = 1 AND (SELECT count(*) FROM "
        "devices AS d WHERE d.user_id = u.user_id AND d.is_active) >= 2",
        what="listener with a past-due plan",
    )


@step(inputs=("user",), outputs=("method",), goal="pay what is overdue first (policy one_open_subscription)")
def settle_overdue(story: Story) -> None:
    user = story["user"]
    story.read("get_subscription", {"username": user["username"]})
    method = story.rng.choice(("card", "paypal"))
    story.call("pay_overdue", {"username": user["username"], "payment_method": method})
    story["method"] = method
    story.knob("policy_detour", "a past-due plan is paid before it changes")


@step(
    inputs=("user", "method"),
    outputs=("devices_allowed",),
    goal="the cheapest plan with enough devices",
    capabilities=("aggregation_computation",),
)
def cheapest_plan(story: Story) -> None:
    user = story["user"]
    need = story.rng.choice((4, 5, 6))
    plans = story.read("list_plans", {})["plans"]
    fitting = sorted(
        (float(p["price"]), p["code"], p["max_devices"])
        for p in plans
        if p["max_devices"] >= need and p["billing_period"] == "month"
    )
    if len(fitting) < 2 or fitting[0][0] == fitting[1][0]:
        raise Skip("no clear cheapest plan")
    price, code, allowed = fitting[0]
    now = story.read("get_subscription", {"username": user["username"]})
    if any(c["code"] == code for c in now["current"]):
        raise Skip("already on the cheapest plan")
    story.call("change_plan", {"username": user["username"], "plan": code})
    story["devices_allowed"] = allowed
    story.say(
        [
            "Move me to the cheapest monthly plan that allows at least {need} devices; if I owe anything, "
            "settle it by {method} first.",
            "I need a monthly plan for {need} or more devices, the cheapest one. Pay whatever is overdue "
            "with {method} before you switch.",
        ],
        need=need,
        method=story["method"],
    )


@step(inputs=("user",), outputs=(), goal="sign out the stale devices and register the new one")
def refresh_devices(story: Story) -> None:
    user = story["user"]
    listing = story.read("list_devices", {"username": user["username"]})
    active = [d for d in listing["devices"] if d["active"]]
    if any(d["last_seen_at"] is None for d in active):
        raise Skip("a device never used")
    seen = sorted(d["last_seen_at"][:10] for d in active)
    if len(seen) < 2:
        raise Skip("too few devices")
    cutoff = dt.date.fromisoformat(seen[len(seen) // 2])
    stale = [d["device_id"] for d in active if d["last_seen_at"][:10] < cutoff.isoformat()]
    if not stale:
        raise Skip("no stale device")
    story.call("sign_out_devices", {"username": user["username"], "devices": stale})
    name = story.rng.choice(("Kitchen speaker", "Work laptop", "Living room TV", "Car stereo"))
    kind = {
        "Kitchen speaker": "smart_speaker",
        "Work laptop": "desktop",
        "Living room TV": "tv",
        "Car stereo": "car",
    }[name]
    story.call("register_device", {"username": user["username"], "device_type": kind, "name": name})
    story.say(
        [
            "Then sign out every device I haven't used since {cutoff} and add my {kind} as {name:q}.",
            "Once that's done, log out the devices not seen since {cutoff} and register my "
            "{kind} as {name:q}.",
        ],
        cutoff=render_day(story.ctx, cutoff),
        kind=kind,
        name=name,
    )
    story.ctx.goal(
        "the active devices",
        "SELECT list(name ORDER BY name) AS names FROM devices WHERE user_id = ? AND is_active",
        [user["user_id"]],
    )


# --- infeasible: blockers found by working --------------------------------------------------------------


def cast_refund_window(story: Story) -> None:
    """An active listener with a paid charge exactly 15 days old and another paid one inside 14 days."""
    now = story.ctx.now
    cast_listener(
        story,
        "SELECT u.user_id, u.username, u.display_name FROM users AS u JOIN subscriptions AS s ON s.user_id = "
        f"u.user_id JOIN payments AS p ON p.subscription_id = s.subscription_id "
        f"WHERE {ACTIVE} AND p.status = "
        "'paid' AND p.paid_at >= ? AND p.paid_at < ? GROUP BY ALL HAVING count(*) >= 1",
        [now - dt.timedelta(days=21), now - dt.timedelta(days=14)],
        what="listener with a charge just outside the refund window",
    )


@step(
    inputs=("user",),
    goal="refund the last three weeks, all or nothing",
    capabilities=("precise_boundary_judgment", "aggregation_computation"),
)
def refund_three_weeks(story: Story) -> None:
    user, now = story["user"], story.ctx.now
    since = (now - dt.timedelta(days=21)).date()
    rows = story.read(
        "list_payments", {"username": user["username"], "since": since, "status": "paid", "limit": 50}
    )["rows"]
    old = sorted(
        (r for r in rows if dt.datetime.fromisoformat(r["paid_at"]) < now - dt.timedelta(days=14)),
        key=lambda r: r["paid_at"],
    )
    if not old:
        raise Skip("no charge outside the window")
    story.say(
        [
            "Refund every charge I paid since {since}. It's all or nothing: if any one of them can't be "
            "refunded, don't refund any and tell me why.",
            "I'd like my money back for everything charged since {since}, but only if every charge can be "
            "refunded; otherwise leave it all as it is.",
        ],
        since=since,
    )
    story.blocked(
        "refund_payment",
        {"username": user["username"], "payment": old[0]["payment_id"]},
        kind="forbidden",
        policy="refund_window",
        because=f"the charge of {old[0]['paid_at'][:10]} is past the 14-day refund "
        "window, so nothing is refunded",
    )


@step(inputs=("user",), goal="explicit content on first: refused by age")
def explicit_on(story: Story) -> None:
    user = story["user"]
    profile = story.read("get_profile", {"username": user["username"]})
    story.say(
        [
            "I want a playlist of those tracks, explicit ones included, so before anything else turn "
            "explicit content on for me; if that can't be done, leave everything as it is."
        ]
    )
    story.blocked(
        "update_profile",
        {"username": user["username"], "explicit_content_allowed": True},
        kind="forbidden",
        policy="explicit_content_adults",
        because=f"born {profile.get('birth_date')}, the listener is under 18 and "
        "cannot turn explicit content on, so nothing is changed",
    )


def cast_minor_with_top_artists(story: Story) -> None:
    """A listener under 18 (by days) with clear top artists."""
    today = story.ctx.today
    adult = today.replace(year=today.year - 18)
    cast_listener_with_top_artists(
        story, f"u.birth_date > DATE '{adult.isoformat()}' AND NOT u.explicit_content_allowed"
    )


def cast_full_devices(story: Story) -> None:
    """An active listener whose active devices fill what the plan allows."""
    cast_listener(
        story,
        "SELECT u.user_id, u.username, u.display_name FROM users AS u JOIN subscriptions AS s ON s.user_id = "
        "u.user_id JOIN subscription_plans AS sp ON sp.plan_id = s.plan_id WHERE "
        f"{ACTIVE} AND s.status IN ('active', 'past_due') AND (SELECT count(*) FROM subscriptions AS o WHERE "
        "o.user_id = u.user_id AND o.status IN ('active', 'past_due')) = 1 AND "
        "(SELECT count(*) FROM devices AS "
        "d WHERE d.user_id = u.user_id AND d.is_active) >= sp.max_devices",
        what="listener with every device place taken",
    )


@step(
    inputs=("user",),
    goal="register without signing anything out: over the limit",
    capabilities=("aggregation_computation",),
)
def register_without_room(story: Story) -> None:
    user = story["user"]
    story.read("get_subscription", {"username": user["username"]})
    listing = story.read("list_devices", {"username": user["username"]})
    story.say(
        [
            "Add my new android tablet as 'Reading tablet', but keep every device "
            "I'm signed in on now; if it "
            "doesn't fit, change nothing."
        ]
    )
    story.blocked(
        "register_device",
        {"username": user["username"], "device_type": "android", "name": "Reading tablet"},
        kind="capacity",
        policy="device_limit",
        because=f"{listing['active_devices']} active devices already fill the plan's "
        f"{listing['devices_allowed']}, and the listener wants none signed out",
    )


ARTIST_MIXTAPE = Storyline(
    "artist_mixtape",
    cast_listener_with_top_artists,
    (top_artists, collect_catalogue, new_playlist, fill_playlist, like_missing, follow_missing),
    provides=("user", "k", "start"),
    weight=2.0,
)
PLAYLIST_SPRING_CLEAN = Storyline(
    "playlist_spring_clean",
    cast_playlist_owner,
    (my_playlists, trim_long_songs, drop_small),
    provides=("user",),
    weight=1.8,
)
ACCOUNT_TIDY = Storyline(
    "account_tidy",
    cast_past_due,
    (settle_overdue, cheapest_plan, refresh_devices),
    provides=("user",),
    weight=0.6,
)
REFUND_LAST_WEEKS = Storyline(
    "refund_last_weeks",
    cast_refund_window,
    (refund_three_weeks,),
    provides=("user",),
    capabilities=("precise_boundary_judgment",),
    feasible=False,
    weight=0.3,
)
MIXTAPE_FOR_MINOR = Storyline(
    "mixtape_for_minor",
    cast_minor_with_top_artists,
    (top_artists, collect_catalogue, explicit_on),
    provides=("user", "k", "start"),
    feasible=False,
    weight=0.5,
)
DEVICE_WITHOUT_ROOM = Storyline(
    "device_without_room",
    cast_full_devices,
    (register_without_room,),
    provides=("user",),
    capabilities=("aggregation_computation",),
    feasible=False,
    weight=0.3,
)
STORYLINES = (
    ARTIST_MIXTAPE,
    PLAYLIST_SPRING_CLEAN,
    ACCOUNT_TIDY,
    REFUND_LAST_WEEKS,
    MIXTAPE_FOR_MINOR,
    DEVICE_WITHOUT_ROOM,
)
