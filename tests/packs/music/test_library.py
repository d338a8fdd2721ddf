"""Liked songs, followed artists, playing and the listening history: bulk likes and filtered unlikes,
follows and notifications, the playable-songs policy, history filters at their boundaries, statistics
against SQL, and deleting history."""

from __future__ import annotations

import datetime as dt

import pytest

pytestmark = pytest.mark.xdist_group("music_pack")

PLAYABLE = "SELECT song_id FROM songs WHERE is_available AND NOT explicit ORDER BY song_id"


@pytest.fixture
def me(run) -> str:
    """An active listener."""
    return run.username()


def test_like_many_then_unlike_by_filter(run, me):
    songs = [r["song_id"] for r in run.rows("SELECT song_id FROM songs WHERE is_available ORDER BY song_id")][
        :250
    ]
    mine = "SELECT f.song_id FROM favourite_songs AS f JOIN users AS u USING (user_id) WHERE u.username = ?"
    had = {r["song_id"] for r in run.rows(mine, [me])}
    liked = run.ok("like_songs", username=me, songs=songs)
    new = [s for s in songs if s not in had]
    assert liked["liked"] == len(new) > 200 and len(liked["already_liked"]) == 250 - len(new)
    assert run.changes() == {"favourite_songs": {"inserted": len(new)}}
    assert run.ok("list_liked_songs", username=me, limit=1)["total"] == len(had | set(songs))
    artist = run.value(
        "SELECT artist_id FROM songs WHERE song_id IN (SELECT unnest(?::BIGINT[])) "
        "GROUP BY artist_id ORDER BY count(*) DESC, artist_id LIMIT 1",
        [new],
    )
    by_artist = {r["song_id"] for r in run.rows("SELECT song_id FROM songs WHERE artist_id = ?", [artist])}
    gone = run.ok("unlike_songs", username=me, artist=artist)
    assert gone["unliked"] == len((had | set(songs)) & by_artist)
    newly = run.ok("unlike_songs", username=me, liked_since=run.ep.now.isoformat())
    assert newly["unliked"] == len(set(new) - by_artist)
    assert {r["song_id"] for r in run.rows(mine, [me])} == had - by_artist
    assert "nothing was removed" in run.refused("unlike_songs", username=me)


def test_liked_songs_pages_and_filters(run):
    fan = run.value(
        "SELECT u.username FROM users AS u JOIN favourite_songs AS f USING (user_id) "
        "GROUP BY u.username ORDER BY count(*) DESC, u.username LIMIT 1"
    )
    total = run.value(
        "SELECT count(*) FROM favourite_songs AS f JOIN users AS u USING (user_id) WHERE u.username = ?",
        [fan],
    )
    seen: list[int] = []
    for offset in range(0, total, 5):
        seen += [
            r["song_id"] for r in run.ok("list_liked_songs", username=fan, limit=5, offset=offset)["rows"]
        ]
    assert len(seen) == len(set(seen)) == total
    cut = run.value(
        "SELECT f.favourited_at FROM favourite_songs AS f JOIN users AS u USING (user_id) "
        "WHERE u.username = ? ORDER BY f.favourited_at LIMIT 1 OFFSET 2",
        [fan],
    )
    since = run.ok("list_liked_songs", username=fan, liked_since=cut.isoformat(), descending=False, limit=50)
    before = run.ok("list_liked_songs", username=fan, liked_before=cut.isoformat(), limit=50)
    assert since["total"] + before["total"] == total and before["total"] == 2
    assert min(r["liked_at"] for r in since["rows"]) == cut.isoformat()


def test_unavailable_songs_cannot_be_liked(run, me):
    gone = run.value("SELECT song_id FROM songs WHERE NOT is_available ORDER BY song_id LIMIT 1")
    error = run.refused("like_songs", username=me, songs=[1, gone])
    assert "(policy: playable_songs)" in error and f"song_id {gone}" in error


def test_follow_notifications_unfollow(run, me):
    artists = [
        r["artist_id"]
        for r in run.rows(
            "SELECT artist_id FROM artists WHERE artist_id NOT IN (SELECT f.artist_id "
            "FROM artist_follows AS f JOIN users AS u USING (user_id) WHERE u.username = ?) "
            "ORDER BY artist_id LIMIT 30",
            [me],
        )
    ]
    name = run.value("SELECT name FROM artists WHERE artist_id = ?", [artists[0]])
    done = run.ok("follow_artists", username=me, artists=artists, notifications=False)
    assert len(done["followed"]) == 30 and done["already_following"] == []
    again = run.ok("follow_artists", username=me, artists=[artists[0]])
    assert again["followed"] == [] and again["already_following"] == [name]
    off = run.ok("list_followed_artists", username=me, notifications=False, limit=50)
    assert {r["artist_id"] for r in off["rows"]} >= set(artists)
    on = run.ok("set_artist_notifications", username=me, enabled=True, artists=artists[:10])
    assert on["changed"] == 10
    stranger = run.value(
        "SELECT artist_id FROM artists WHERE artist_id NOT IN (SELECT f.artist_id FROM "
        "artist_follows AS f JOIN users AS u USING (user_id) WHERE u.username = ?) "
        "ORDER BY artist_id LIMIT 1",
        [me],
    )
    assert "follow_artists first" in run.refused(
        "set_artist_notifications", username=me, enabled=True, artists=[stranger]
    )
    gone = run.ok(
        "unfollow_artists",
        username=me,
        followed_before=(run.ep.now + dt.timedelta(seconds=1)).isoformat(),
        notifications_off_only=True,
    )
    assert {a for a in artists[10:]} <= {
        r["artist_id"]
        for r in run.rows(
            "SELECT artist_id FROM artists WHERE name IN (SELECT unnest(?::VARCHAR[]))", [gone["unfollowed"]]
        )
    }
    left = {
        r["artist_id"]
        for r in run.rows(
            "SELECT f.artist_id FROM artist_follows AS f JOIN users AS u USING (user_id) "
            "WHERE u.username = ?",
            [me],
        )
    }
    assert set(artists[:10]) <= left and not set(artists[10:]) & left


def test_ambiguous_artist_names_list_candidates(run, me):
    ids = [r["artist_id"] for r in run.rows("SELECT artist_id FROM artists ORDER BY artist_id LIMIT 2")]
    run.ep.connection.execute("UPDATE artists SET name = 'The Twins' WHERE artist_id IN (?, ?)", ids)
    error = run.refused("follow_artists", username=me, artists=["the twins"])
    assert "2 artists are called 'the twins'" in error and all(f"artist_id {i}" in error for i in ids)
    assert "no artist is called" in run.refused("get_artist", artist="Nobody Of That Name")
    run.ok("follow_artists", username=me, artists=[ids[1]])


def test_playing_a_song_and_its_policy(run):
    u = run.username(
        "EXISTS (SELECT 1 FROM devices AS d WHERE d.user_id = u.user_id AND d.is_active) "
        "AND NOT u.explicit_content_allowed"
    )
    device = run.value(
        "SELECT d.device_id FROM devices AS d JOIN users AS u USING (user_id) "
        "WHERE u.username = ? AND d.is_active ORDER BY d.device_id LIMIT 1",
        [u],
    )
    song = run.one(
        "SELECT song_id, play_count, duration_ms FROM songs WHERE is_available AND NOT explicit "
        "ORDER BY song_id LIMIT 1"
    )
    played = run.ok("play_song", username=u, song=song["song_id"], device=device, ms_played=29_999)
    assert played["skipped"] is True
    assert run.changes() == {
        "devices": {"updated": 1},
        "listening_history": {"inserted": 1},
        "songs": {"updated": 1},
        "users": {"updated": 1},
    }
    assert (
        run.value("SELECT play_count FROM songs WHERE song_id = ?", [song["song_id"]])
        == song["play_count"] + 1
    )
    assert "longer than the song" in run.refused(
        "play_song", username=u, song=song["song_id"], device=device, ms_played=song["duration_ms"] + 1
    )
    explicit = run.value("SELECT song_id FROM songs WHERE is_available AND explicit ORDER BY song_id LIMIT 1")
    error = run.refused("play_song", username=u, song=explicit, device=device)
    assert "explicit content turned off" in error and "(policy: playable_songs)" in error
    unreleased = run.value(PLAYABLE + " LIMIT 1 OFFSET 1")
    run.ep.connection.execute(
        "UPDATE albums SET release_date = DATE '2026-07-10' WHERE album_id = "
        "(SELECT album_id FROM songs WHERE song_id = ?)",
        [unreleased],
    )
    error = run.refused("play_song", username=u, song=unreleased, device=device)
    assert "released on 2026-07-10" in error and "playable_songs" in error
    run.ok("sign_out_devices", username=u, devices=[device])
    assert "signed out" in run.refused("play_song", username=u, song=song["song_id"], device=device)


def test_history_filters_stats_and_deletion(run):
    u = run.value(
        "SELECT u.username FROM users AS u JOIN listening_history AS h USING (user_id) "
        "WHERE u.status = 'active' GROUP BY u.username ORDER BY count(*) DESC, u.username LIMIT 1"
    )
    plays = run.rows(
        "SELECT h.play_id, h.played_at, h.ms_played, h.skipped FROM listening_history AS h "
        "JOIN users AS u USING (user_id) WHERE u.username = ? ORDER BY h.played_at, h.play_id",
        [u],
    )
    assert len(plays) >= 5
    cut = plays[2]["played_at"]
    since = run.ok("get_listening_history", username=u, since=cut.isoformat(), limit=50)
    before = run.ok("get_listening_history", username=u, before=cut.isoformat(), limit=50)
    assert (since["total"], before["total"]) == (len(plays) - 2, 2)
    assert [
        r["play_id"] for r in run.ok("get_listening_history", username=u, oldest_first=True, limit=3)["rows"]
    ] == [p["play_id"] for p in plays[:3]]
    stats = run.ok("listening_stats", username=u, group_by="artist", limit=50)
    assert stats["totals"]["plays"] == len(plays) == sum(r["plays"] for r in stats["rows"])
    assert stats["totals"]["skips"] == sum(p["skipped"] for p in plays)
    assert [r["plays"] for r in stats["rows"]] == sorted((r["plays"] for r in stats["rows"]), reverse=True)
    kept = run.ok("listening_stats", username=u, group_by="month", include_skipped=False, sort_by="name")
    assert kept["totals"]["plays"] == sum(not p["skipped"] for p in plays)
    assert [r["month"] for r in kept["rows"]] == sorted(r["month"] for r in kept["rows"])
    gone = run.ok("delete_listening_history", username=u, before=cut.isoformat())
    assert gone["deleted"] == 2
    assert "nothing was deleted" in run.refused("delete_listening_history", username=u)
    error = run.refused("delete_listening_history", username=u, play_ids=[plays[3]["play_id"], 10**9])
    assert "has no play 1000000000" in error
    assert run.ok("delete_listening_history", username=u, everything=True)["deleted"] == len(plays) - 2
