"""Playlists through the tools: creation, bulk adds at a position, removal by filter, moves and sorts
(positions stay 1..n), the FK cascade of a deletion, copies, and every playlist policy refused by name."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("music_pack")

AVAILABLE = "SELECT song_id FROM songs WHERE is_available ORDER BY song_id"


@pytest.fixture
def owner(run) -> str:
    """An active listener who will own the playlists."""
    return run.username()


@pytest.fixture
def songs(run) -> list[int]:
    """Every available song id, in order."""
    return [r["song_id"] for r in run.rows(AVAILABLE)]


def test_create_then_add_many_at_a_position(run, owner, songs):
    assert "title cannot be blank" in run.refused("create_playlist", username=owner, title="   ")
    made = run.ok("create_playlist", username=owner, title=" Road Trip ", songs=songs[:3])
    pid = made["playlist_id"]
    assert made["songs"] == 3 and made["is_public"] is True and made["owner"] == owner
    assert made["title"] == "Road Trip"
    added = run.ok(
        "add_songs_to_playlist", username=owner, playlist="road trip", songs=songs[3:153], position=2
    )
    assert added["added"] == 150 and added["songs"] == 153
    assert run.changes()["playlist_songs"] == {"inserted": 150, "updated": 2}
    assert run.positions_ok(pid) == [songs[0], *songs[3:153], songs[1], songs[2]]
    page = run.ok("get_playlist", playlist=pid, limit=50, offset=150)
    assert page["total"] == 153 and [r["position"] for r in page["rows"]] == [151, 152, 153]
    assert page["rows"][0]["added_by"] == owner


def test_adding_by_title_and_artist_and_refusing_duplicates(run, owner, songs):
    pid = run.ok("create_playlist", username=owner, title="Mix", songs=songs[:2])["playlist_id"]
    song = run.one(
        "SELECT s.song_id, s.title, a.name FROM songs AS s JOIN artists AS a ON a.artist_id = s.artist_id "
        "WHERE s.is_available "
        "AND (SELECT count(*) FROM songs AS t WHERE lower(t.title) = lower(s.title)) = 1 "
        "ORDER BY s.song_id DESC LIMIT 1"
    )
    run.ok("add_songs_to_playlist", username=owner, playlist=pid, songs=[{"title": song["title"].upper()}])
    assert run.positions_ok(pid)[-1] == song["song_id"]
    error = run.refused("add_songs_to_playlist", username=owner, playlist=pid, songs=[songs[0], songs[5]])
    assert "already in 'Mix'" in error and "skip_duplicates=true" in error
    done = run.ok(
        "add_songs_to_playlist",
        username=owner,
        playlist=pid,
        songs=[songs[0], songs[5], songs[5]],
        skip_duplicates=True,
    )
    assert done["added"] == 1 and len(done["skipped"]) == 2
    assert run.positions_ok(pid) == [songs[0], songs[1], song["song_id"], songs[5]]


def test_an_ambiguous_title_lists_the_candidates(run, owner, songs):
    first = run.one("SELECT song_id, title, artist_id FROM songs ORDER BY song_id LIMIT 1")
    run.ep.connection.execute(  # titles are nearly all distinct: make a namesake (behind the tools)
        "UPDATE songs SET title = ? WHERE song_id = (SELECT min(song_id) FROM songs WHERE artist_id <> ?)",
        [first["title"], first["artist_id"]],
    )
    title = run.one(
        "SELECT lower(title) AS t FROM songs GROUP BY lower(title) HAVING count(*) > 1 ORDER BY 1 LIMIT 1"
    )["t"]
    pid = run.ok("create_playlist", username=owner, title="Ambiguous")["playlist_id"]
    error = run.refused("add_songs_to_playlist", username=owner, playlist=pid, songs=[{"title": title}])
    assert "matches 2 songs" in error or "matches 3 songs" in error
    assert error.count("song_id") >= 2
    error = run.refused(
        "add_songs_to_playlist", username=owner, playlist=pid, songs=[{"title": "zzz no such"}]
    )
    assert "no song matches 'zzz no such'" in error
    run.ok("create_playlist", username=owner, title="Ambiguous")
    error = run.refused("delete_playlist", username=owner, playlist="AMBIGUOUS")
    assert "has 2 playlists titled 'AMBIGUOUS'" in error and str(pid) in error


def test_remove_by_filter_move_and_sort(run, owner, songs):
    pid = run.ok("create_playlist", username=owner, title="Sorted", songs=songs[:40])["playlist_id"]
    artist = run.one(
        "SELECT s.artist_id, count(*) AS n FROM playlist_songs AS p JOIN songs AS s ON s.song_id = p.song_id "
        "WHERE p.playlist_id = ? GROUP BY s.artist_id ORDER BY n DESC, s.artist_id LIMIT 1",
        [pid],
    )
    removed = run.ok("remove_songs_from_playlist", username=owner, playlist=pid, artist=artist["artist_id"])
    assert removed["removed"] == artist["n"] and removed["songs"] == 40 - artist["n"]
    left = run.positions_ok(pid)
    assert len(left) == 40 - artist["n"]
    run.ok("move_playlist_song", username=owner, playlist=pid, from_position=len(left), to_position=1)
    assert run.positions_ok(pid) == [left[-1], *left[:-1]]
    run.ok("sort_playlist", username=owner, playlist=pid, by="duration", descending=True)
    durations = [
        r["d"]
        for r in run.rows(
            "SELECT s.duration_ms AS d FROM playlist_songs AS p JOIN songs AS s ON s.song_id = p.song_id "
            "WHERE p.playlist_id = ? ORDER BY p.position",
            [pid],
        )
    ]
    assert durations == sorted(durations, reverse=True)
    run.positions_ok(pid)
    error = run.refused("move_playlist_song", username=owner, playlist=pid, from_position=99, to_position=1)
    assert "no position 99" in error
    error = run.refused("remove_songs_from_playlist", username=owner, playlist=pid)
    assert "nothing was removed" in error


def test_deleting_a_playlist_cascades_to_its_songs(run, owner, songs):
    pid = run.ok("create_playlist", username=owner, title="Gone soon", songs=songs[:12])["playlist_id"]
    gone = run.ok("delete_playlist", username=owner, playlist="Gone soon")
    assert gone["songs_removed"] == 12
    assert run.changes() == {"playlists": {"deleted": 1}, "playlist_songs": {"deleted": 12}}
    assert run.value("SELECT count(*) FROM playlist_songs WHERE playlist_id = ?", [pid]) == 0


def test_size_limit(run, owner, songs):
    pid = run.ok("create_playlist", username=owner, title="Everything", songs=songs[:450])["playlist_id"]
    error = run.refused("add_songs_to_playlist", username=owner, playlist=pid, songs=songs[450:520])
    assert "over the limit of 500" in error and "(policy: playlist_size_limit)" in error
    run.ok("add_songs_to_playlist", username=owner, playlist=pid, songs=songs[450:500])
    assert len(run.positions_ok(pid)) == 500


def test_collaborative_playlists_stay_private(run, owner):
    made = run.ok("create_playlist", username=owner, title="Together", is_collaborative=True)
    assert made["is_public"] is False
    error = run.refused(
        "create_playlist", username=owner, title="Open", is_public=True, is_collaborative=True
    )
    assert "(policy: collaborative_playlists_private)" in error
    error = run.refused("update_playlist", username=owner, playlist="Together", is_public=True)
    assert "is_collaborative=false" in error and "collaborative_playlists_private" in error
    done = run.ok(
        "update_playlist",
        username=owner,
        playlist="Together",
        is_public=True,
        is_collaborative=False,
        title="Together, publicly",
        description="",
    )
    assert done["is_public"] and not done["is_collaborative"] and done["description"] is None


def test_permissions_and_collaborators(run, owner, songs):
    other = run.username("u.username <> ?", [owner])
    shared = run.ok(
        "create_playlist", username=owner, title="Shared", is_collaborative=True, songs=songs[:2]
    )["playlist_id"]
    private = run.ok("create_playlist", username=owner, title="Mine", is_public=False)["playlist_id"]
    for tool, extra in (
        ("update_playlist", {"title": "Hijacked"}),
        ("delete_playlist", {}),
        ("sort_playlist", {"by": "title"}),
    ):
        error = run.refused(tool, username=other, playlist=shared, **extra)
        assert f"belongs to {owner}" in error and "(policy: playlist_permissions)" in error
    error = run.refused("add_songs_to_playlist", username=other, playlist=private, songs=[songs[9]])
    assert "not collaborative" in error and "playlist_permissions" in error
    run.ok("add_songs_to_playlist", username=other, playlist=shared, songs=[songs[9]])
    error = run.refused("remove_songs_from_playlist", username=other, playlist=shared, songs=[songs[0]])
    assert "remove only songs you added" in error
    run.ok("remove_songs_from_playlist", username=other, playlist=shared, added_by=other)
    assert run.positions_ok(shared) == songs[:2]
    error = run.refused("duplicate_playlist", username=other, playlist=private)
    assert "private playlist" in error and "playlist_permissions" in error
    copy = run.ok("duplicate_playlist", username=other, playlist="Shared", owner=owner)
    assert copy["owner"] == other and copy["songs"] == 2 and copy["title"] == "Shared"


def test_unavailable_songs_cannot_be_added(run, owner):
    gone = run.value("SELECT song_id FROM songs WHERE NOT is_available ORDER BY song_id LIMIT 1")
    error = run.refused("create_playlist", username=owner, title="Ghosts", songs=[gone])
    assert "unavailable" in error and "(policy: playable_songs)" in error


def test_search_playlists_pages(run):
    seen, offset = [], 0
    while True:
        page = run.ok("search_playlists", sort_by="title", limit=50, offset=offset)
        seen += [r["playlist_id"] for r in page["rows"]]
        offset += 50
        if offset >= page["total"]:
            break
    assert len(seen) == len(set(seen)) == page["total"] == run.value("SELECT count(*) FROM playlists") > 100
    public = run.ok("search_playlists", is_public=True, min_songs=3, sort_by="songs", limit=50)
    assert all(r["is_public"] and r["songs"] >= 3 for r in public["rows"])
    assert [r["songs"] for r in public["rows"]] == sorted((r["songs"] for r in public["rows"]), reverse=True)
    assert public["total"] == run.value(
        "SELECT count(*) FROM playlists AS p WHERE is_public AND "
        "(SELECT count(*) FROM playlist_songs AS s WHERE s.playlist_id = p.playlist_id) >= 3"
    )
