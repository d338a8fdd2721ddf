"""The catalogue and the charts: searches with several conditions at once give exactly what SQL gives,
a page at a time; lookups by title name the candidates; chart editions by number and by date."""

from __future__ import annotations

import datetime as dt

import pytest

pytestmark = pytest.mark.xdist_group("music_pack")


def test_search_songs_with_many_conditions_matches_sql(run):
    expected = [
        r["song_id"]
        for r in run.rows(
            "SELECT s.song_id FROM songs AS s JOIN albums AS al ON al.album_id = s.album_id "
            "WHERE year(al.release_date) BETWEEN 1990 AND 2020 AND s.duration_ms // 1000 BETWEEN 150 AND 300 "
            "AND NOT s.explicit AND s.is_available ORDER BY s.play_count DESC, s.song_id"
        )
    ]
    assert len(expected) > 60
    got, offset = [], 0
    while offset < len(expected):
        page = run.ok(
            "search_songs",
            year_from=1990,
            year_to=2020,
            min_duration_s=150,
            max_duration_s=300,
            explicit=False,
            available=True,
            limit=50,
            offset=offset,
        )
        assert page["total"] == len(expected) and len(page["rows"]) <= 50
        got += [r["song_id"] for r in page["rows"]]
        offset += 50
    assert got == expected
    row = page["rows"][0]
    assert set(row) >= {"song_id", "title", "artist", "album", "duration", "genres", "plays"}
    assert row["duration"] == f"{row['duration_s'] // 60}:{row['duration_s'] % 60:02d}"


def test_search_by_genre_artist_and_text(run):
    genre = run.one(
        "SELECT g.name, count(*) AS n FROM song_genres AS sg JOIN genres AS g USING (genre_id) "
        "GROUP BY g.name ORDER BY n DESC, g.name LIMIT 1"
    )
    found = run.ok("search_songs", genre=genre["name"].lower(), limit=50)
    assert found["total"] == genre["n"] and all(genre["name"] in r["genres"] for r in found["rows"])
    error = run.refused("search_songs", genre="Polka")
    assert "no genre is called 'Polka'" in error and genre["name"] in error
    artist = run.one("SELECT artist_id, name FROM artists ORDER BY artist_id LIMIT 1")
    by_id = run.ok("search_songs", artist=artist["artist_id"], sort_by="title", limit=50)
    assert by_id["total"] == run.value(
        "SELECT count(*) FROM songs WHERE artist_id = ?", [artist["artist_id"]]
    )
    titles = [r["title"] for r in by_id["rows"]]
    assert titles == sorted(titles)
    word = run.value("SELECT split_part(title, ' ', 1) FROM songs ORDER BY song_id LIMIT 1")
    hits = run.ok("search_songs", query=word.lower(), limit=50)
    assert hits["total"] == run.value(
        "SELECT count(*) FROM songs WHERE contains(lower(title), lower(?))", [word]
    )


def test_song_album_and_artist_pages(run):
    song = run.one(
        "SELECT song_id, album_id, artist_id FROM songs WHERE song_id IN "
        "(SELECT song_id FROM song_credits) ORDER BY song_id LIMIT 1"
    )
    page = run.ok("get_song", song=song["song_id"])
    assert page["credits"] and page["likes"] == run.value(
        "SELECT count(*) FROM favourite_songs WHERE song_id = ?", [song["song_id"]]
    )
    album = run.ok("get_album", album=song["album_id"])
    assert [t["track_number"] for t in album["tracks"]] == sorted(t["track_number"] for t in album["tracks"])
    assert album["track_count"] == len(album["tracks"])
    title = run.value("SELECT title FROM albums WHERE album_id = ?", [song["album_id"]])
    assert run.ok("get_album", album=title.upper(), artist=album["artist"])["album_id"] == song["album_id"]
    artist = run.ok("get_artist", artist=song["artist_id"])
    assert artist["songs"] == run.value("SELECT count(*) FROM songs WHERE artist_id = ?", [song["artist_id"]])
    plays = [s["plays"] for s in artist["top_songs"]]
    assert plays == sorted(plays, reverse=True) and len(plays) <= 5
    albums = run.ok("list_artist_albums", artist=song["artist_id"], descending=False)
    dates = [r["release_date"] for r in albums["rows"]]
    assert dates == sorted(dates) and albums["total"] == artist["releases"]


def test_a_title_shared_by_songs_asks_which_one(run):
    # titles are nearly all distinct: give a song of another artist the first song's title (behind the tools)
    first = run.one("SELECT song_id, title, artist_id FROM songs ORDER BY song_id LIMIT 1")
    run.ep.connection.execute(
        "UPDATE songs SET title = ? WHERE song_id = (SELECT min(song_id) FROM songs WHERE artist_id <> ?)",
        [first["title"], first["artist_id"]],
    )
    title, n = run.one(
        "SELECT min(title) AS t, count(*) AS n FROM songs GROUP BY lower(title) "
        "HAVING count(*) > 1 ORDER BY lower(title) LIMIT 1"
    ).values()
    error = run.refused("get_song", song={"title": title})
    assert f"matches {n} songs" in error and "song_id" in error and "add the artist" in error
    artist = run.value(
        "SELECT a.name FROM songs AS s JOIN artists AS a USING (artist_id) WHERE s.title = ? "
        "ORDER BY s.song_id LIMIT 1",
        [title],
    )
    if (
        run.value(
            "SELECT count(*) FROM songs AS s JOIN artists AS a USING (artist_id) WHERE s.title = ? "
            "AND a.name = ?",
            [title, artist],
        )
        == 1
    ):
        assert run.ok("get_song", song={"title": title, "artist": artist})["artist"] == artist
    error = run.refused("get_song", song={"title": title + " (Remix)"})
    assert "no song matches" in error
    assert "no song has the id 99999999" in run.refused("get_song", song=99999999)


def test_albums_by_release_date_boundaries(run):
    day = run.value("SELECT release_date FROM albums ORDER BY release_date LIMIT 1 OFFSET 40")
    since = run.ok("search_albums", released_since=str(day), limit=1)["total"]
    before = run.ok("search_albums", released_before=str(day), limit=1)["total"]
    assert since + before == run.value("SELECT count(*) FROM albums")
    assert before == run.value("SELECT count(*) FROM albums WHERE release_date < ?", [day])
    singles = run.ok("search_albums", album_type="single", sort_by="title", descending=False, limit=50)
    assert all(r["album_type"] == "single" for r in singles["rows"])
    verified = run.ok("search_artists", verified=True, sort_by="name", limit=50)
    assert all(r["verified"] for r in verified["rows"])
    names = [r["name"] for r in verified["rows"]]
    assert names == sorted(names)


def test_chart_editions(run):
    chart = run.ok("list_charts")["charts"][0]
    latest = run.ok("get_chart", chart=chart["name"])
    assert latest["edition_no"] == chart["latest_edition_no"] and latest["total"] == 50
    assert [r["rank"] for r in latest["rows"]] == list(range(1, 51))
    first = run.ok("get_chart", chart=chart["name"].upper(), edition_no=1, limit=10, offset=10)
    assert [r["rank"] for r in first["rows"]] == list(range(11, 21))
    published = dt.date.fromisoformat(first["published_on"])
    as_of = run.ok("get_chart", chart=chart["name"], as_of=str(published + dt.timedelta(days=6)))
    assert as_of["edition_no"] == 1
    assert "no edition on or before" in run.refused("get_chart", chart=chart["name"], as_of="2020-01-01")
    assert "the charts are" in run.refused("get_chart", chart="Top 40 Mars")
    moved = [r for r in latest["rows"] if r["previous_rank"] is not None]
    assert all(r["movement"] == r["previous_rank"] - r["rank"] for r in moved)
