"""A built pack, changed by SQL the way an episode would, diffed and graded."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.diff import Policy, compare, db_labeler, diff_files
from stateforge.store import read_model


@pytest.fixture(scope="module")
def music(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("music")
    build_domain("music", rows=15, out=out)
    return out / "music.duckdb"


def changed(music: Path, folder: Path, name: str, sql: str) -> Path:
    path = folder / f"{name}.duckdb"
    shutil.copy(music, path)
    with duckdb.connect(str(path)) as con:
        con.execute(sql)
    return path


EPISODE = """
UPDATE songs SET title = upper(title), play_count = play_count + 1 WHERE song_id % 7 = 0;
UPDATE subscription_plans SET price = price + 1.25, audio_quality = 'hi_res'
 WHERE plan_id = (SELECT min(plan_id) FROM subscription_plans);
DELETE FROM favourite_songs WHERE user_id = (SELECT min(user_id) FROM favourite_songs);
INSERT INTO playlists SELECT max(playlist_id) + 1, 1, 'Road Trip', NULL, true, false, 0,
                             TIMESTAMP '2026-06-30 12:00:00', TIMESTAMP '2026-06-30 12:00:00' FROM playlists;
INSERT INTO playlist_songs SELECT (SELECT max(playlist_id) FROM playlists), song_id,
                                  row_number() OVER (ORDER BY song_id), TIMESTAMP '2026-06-30 12:00:00', 1
                           FROM songs WHERE song_id IN (1, 2, 3);
"""


def labels_of_user(music: Path, schema) -> str | None:
    with db_labeler(music, schema) as labels:
        return labels("users", {"user_id": 1})


def test_an_unchanged_copy_has_no_diff(music: Path, tmp_path: Path):
    assert diff_files(music, changed(music, tmp_path, "copy", "CHECKPOINT")).empty


def test_a_built_pack_changed_by_sql_diffs_to_exactly_those_rows(music: Path, tmp_path: Path):
    after = changed(music, tmp_path, "episode", EPISODE)
    with duckdb.connect(str(music), read_only=True) as con:
        found = con.execute("SELECT song_id FROM songs WHERE song_id % 7 = 0 ORDER BY 1").fetchall()
        retitled = [r[0] for r in found]
        plan, price = con.execute(
            "SELECT plan_id, price FROM subscription_plans ORDER BY plan_id LIMIT 1").fetchone()
        unliked = con.execute(
            "SELECT count(*) FROM favourite_songs WHERE user_id = (SELECT min(user_id) FROM favourite_songs)"
        ).fetchone()[0]
        next_id = con.execute("SELECT max(playlist_id) + 1 FROM playlists").fetchone()[0]
    diff = diff_files(music, after)
    assert sorted(diff.tables) == [
        "favourite_songs", "playlist_songs", "playlists", "songs", "subscription_plans"
    ]
    songs = diff.tables["songs"]
    assert [u.key["song_id"] for u in songs.updated] == retitled and retitled
    assert all(set(u.changes) == {"title", "play_count"} for u in songs.updated)
    assert all(new == old.upper() for u in songs.updated for old, new in [u.changes["title"]])
    (plan_update,) = diff.tables["subscription_plans"].updated
    assert plan_update.key == {"plan_id": plan}
    assert plan_update.changes["price"] == (str(price), str(price + Decimal("1.25")))  # DECIMAL: as text
    assert plan_update.changes["audio_quality"][1] == "hi_res"
    assert len(diff.tables["favourite_songs"].deleted) == unliked
    (playlist,) = diff.tables["playlists"].inserted
    assert playlist["playlist_id"] == next_id and playlist["created_at"] == "2026-06-30T12:00:00"
    entries = diff.tables["playlist_songs"].inserted
    assert [(r["song_id"], r["position"]) for r in entries] == [(1, 1), (2, 2), (3, 3)]
    assert diff.summary == {"inserted": 4, "deleted": unliked, "updated": len(retitled) + 1}


def test_an_episode_that_did_the_same_with_other_ids_passes_and_a_wrong_one_is_explained(
    music: Path, tmp_path: Path
):
    with duckdb.connect(str(music), read_only=True) as con:
        schema, _ = read_model(con)
    expected = diff_files(music, changed(music, tmp_path, "expected", EPISODE))
    other = EPISODE.replace("max(playlist_id) + 1", "max(playlist_id) + 50")
    actual = diff_files(music, changed(music, tmp_path, "actual", other))
    assert actual.tables["playlists"].inserted[0]["playlist_id"] != expected.tables["playlists"].inserted[0][
        "playlist_id"]
    assert compare(expected, actual, schema=schema).passed
    wrong = other.replace("IN (1, 2, 3)", "IN (1, 2, 4)").replace("upper(title)", "lower(title)")
    mistaken = diff_files(music, changed(music, tmp_path, "wrong", wrong))
    with db_labeler(music, schema) as labels:
        verdict = compare(expected, mistaken, schema=schema, labels=labels)
        songs = [labels("songs", {"song_id": i}) for i in (3, 4)]
    assert all(songs)
    lines = verdict.explain().splitlines()
    assert not verdict.passed and len(lines) == len(expected.tables["songs"].updated) + 1
    assert all(line.startswith("songs ") and ".title: expected '" in line for line in lines[:-1])
    assert lines[-1] == (
        f"playlist_songs: insert (playlist 'Road Trip', added_by_user {labels_of_user(music, schema)!r}, "
        f"position 3, added_at '2026-06-30T12:00:00'): song_id expected {songs[0]!r}, got {songs[1]!r}"
    )
    loose = Policy(columns={"songs.title": "normalized", "playlist_songs.song_id": "ignore"})
    assert compare(expected, mistaken, schema=schema, policy=loose).passed
