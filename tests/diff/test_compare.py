"""compare(): inserts paired by content, foreign keys through the pairing, policies, a verdict's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from pydantic import ValidationError

from stateforge.diff import ColumnRule, Diff, DiffError, Policy, compare, db_labeler, diff_files, human_column
from stateforge.schema import parse_ddl
from tests.diff.conftest import make_pair

DDL = """
CREATE TABLE users (user_id BIGINT PRIMARY KEY, username VARCHAR NOT NULL UNIQUE, last_seen TIMESTAMP);
CREATE TABLE songs (song_id BIGINT PRIMARY KEY, title VARCHAR NOT NULL, plays INTEGER, price DECIMAL(6,2));
CREATE TABLE playlists (
    playlist_id BIGINT PRIMARY KEY, owner_id BIGINT NOT NULL REFERENCES users (user_id),
    title VARCHAR NOT NULL, description VARCHAR, created_at TIMESTAMP,
    featured_song_id BIGINT REFERENCES songs (song_id));
CREATE TABLE playlist_songs (
    playlist_id BIGINT NOT NULL REFERENCES playlists (playlist_id),
    song_id BIGINT NOT NULL REFERENCES songs (song_id), position INTEGER NOT NULL,
    PRIMARY KEY (playlist_id, song_id));
CREATE TABLE comments (
    comment_id BIGINT PRIMARY KEY, song_id BIGINT NOT NULL REFERENCES songs (song_id),
    parent_id BIGINT REFERENCES comments (comment_id), body VARCHAR NOT NULL);
CREATE TABLE plays (user_id BIGINT REFERENCES users (user_id), song_id BIGINT REFERENCES songs (song_id),
                    played_at TIMESTAMP);
"""
ROWS = """
INSERT INTO users VALUES (1, 'ann', NULL), (42, 'mike', '2026-01-01 10:00:00');
INSERT INTO songs VALUES (17, 'Hour', 3, 1.00), (18, 'Day', 0, 2.50);
INSERT INTO playlists VALUES (7, 1, 'Old', NULL, '2025-01-01 00:00:00', NULL);
INSERT INTO comments VALUES (300, 17, NULL, 'first');
"""
SCHEMA = parse_ddl(DDL)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_pair(tmp_path_factory.mktemp("compare"), DDL, ROWS)[0]


def diff(**tables: dict[str, Any]) -> Diff:
    """A diff from `table={"inserted": [...], "deleted": [...], "updated": [(key, {col: (old, new)})]}`."""
    doc = {
        name: {
            "inserted": t.get("inserted", []),
            "deleted": t.get("deleted", []),
            "updated": [{"key": k, "changes": c} for k, c in t.get("updated", [])],
        }
        for name, t in tables.items()
    }
    return Diff.from_dict({"tables": doc})


def playlist(pid: int, title: str, **more: Any) -> dict[str, Any]:
    row = {"playlist_id": pid, "owner_id": 1, "title": title, "description": None,
           "created_at": "2026-06-30T12:00:00", "featured_song_id": None}
    return row | more


def entry(pid: int, sid: int, position: int) -> dict[str, Any]:
    return {"playlist_id": pid, "song_id": sid, "position": position}


ROAD_TRIP = diff(
    playlists={"inserted": [playlist(101, "Road Trip"), playlist(102, "Gym")]},
    playlist_songs={"inserted": [entry(101, 17, 1), entry(101, 18, 2), entry(102, 17, 1)]},
)


def test_a_diff_matches_itself():
    assert compare(ROAD_TRIP, ROAD_TRIP, schema=SCHEMA).passed


def test_new_rows_with_other_ids_in_another_order_pass():
    renumbered = diff(
        playlists={"inserted": [playlist(900, "Gym"), playlist(901, "Road Trip")]},
        playlist_songs={"inserted": [entry(900, 17, 1), entry(901, 17, 1), entry(901, 18, 2)]},
    )
    verdict = compare(ROAD_TRIP, renumbered, schema=SCHEMA)
    assert verdict.passed, verdict.explain()


def test_children_that_point_at_the_wrong_new_parent_fail(base: Path):
    swapped = diff(
        playlists={"inserted": [playlist(900, "Gym"), playlist(901, "Road Trip")]},
        playlist_songs={"inserted": [entry(901, 17, 1), entry(900, 17, 1), entry(900, 18, 2)]},
    )
    with db_labeler(base, SCHEMA) as labels:
        verdict = compare(ROAD_TRIP, swapped, schema=SCHEMA, labels=labels)
    assert verdict.explain() == (
        "playlist_songs: insert (song 'Day', position 2): "
        "playlist_id expected 'Road Trip' (new), got 'Gym' (new)"
    )
    assert [(m.kind, m.expected, m.actual) for m in verdict.mismatches] == [("insert_value", 101, 900)]


def test_the_verdict_reads_like_the_issue(base: Path):
    expected = diff(
        playlists={"inserted": [playlist(101, "Road Trip")]},
        playlist_songs={"inserted": [entry(101, 17, 3)]},
        songs={"updated": [({"song_id": 17}, {"title": ["Hour", "X"]})]},
    )
    actual = diff(
        playlists={"inserted": [playlist(555, "Road Trip")]},
        songs={"updated": [({"song_id": 17}, {"title": ["Hour", "Y"]})]},
        users={"deleted": [{"user_id": 42, "username": "mike", "last_seen": "2026-01-01T10:00:00"}]},
    )
    with db_labeler(base, SCHEMA) as labels:
        verdict = compare(expected, actual, schema=SCHEMA, labels=labels)
    assert verdict.explain().splitlines() == [
        "unexpected delete of users 42 ('mike')",
        "songs 17.title: expected 'X', got 'Y'",
        "playlist_songs: expected insert (playlist 'Road Trip', song 'Hour', position 3) is missing",
    ]
    update = verdict.mismatches[1]
    assert (update.kind, update.table, update.key, update.column, update.expected, update.actual) == (
        "update_value", "songs", {"song_id": 17}, "title", "X", "Y"
    )
    assert verdict.to_dict()["mismatches"][0]["kind"] == "unexpected_delete"


def test_a_nearly_equal_insert_names_the_column_that_differs():
    actual = diff(
        playlists={"inserted": [playlist(900, "Gym"), playlist(901, "Road Trip")]},
        playlist_songs={"inserted": [entry(900, 17, 1), entry(901, 17, 1), entry(901, 18, 4)]},
    )
    verdict = compare(ROAD_TRIP, actual, schema=SCHEMA)
    (mismatch,) = verdict.mismatches
    assert mismatch.message == (
        "playlist_songs: insert (playlist 'Road Trip', song_id 18): position expected 2, got 4"
    )
    assert (mismatch.kind, mismatch.key, mismatch.expected, mismatch.actual) == (
        "insert_value", {"playlist_id": 901, "song_id": 18}, 2, 4
    )


def test_updates_that_point_at_new_rows_follow_the_pairing():
    def featuring(new_id: int, featured: int) -> Diff:
        song = {"song_id": new_id, "title": "Fresh", "plays": 0, "price": "0.99"}
        return diff(songs={"inserted": [song]},
                    playlists={"updated": [({"playlist_id": 7}, {"featured_song_id": [None, featured]})]})

    assert compare(featuring(501, 501), featuring(777, 777), schema=SCHEMA).passed
    verdict = compare(featuring(501, 501), featuring(777, 18), schema=SCHEMA)
    assert verdict.explain() == "playlists 7.featured_song_id: expected 'Fresh' (new), got 18"


def test_self_references_between_new_rows_are_checked_after_pairing():
    def thread(first: int, second: int, parent_of_second: int) -> Diff:
        return diff(comments={"inserted": [
            {"comment_id": first, "song_id": 17, "parent_id": None, "body": "hi"},
            {"comment_id": second, "song_id": 17, "parent_id": parent_of_second, "body": "hello"},
        ]})

    expected = thread(901, 902, 901)
    assert compare(expected, thread(951, 950, 951), schema=SCHEMA).passed
    verdict = compare(expected, thread(951, 950, 300), schema=SCHEMA)
    assert verdict.explain() == (
        "comments: insert (song_id 17, body 'hello'): "
        "parent_id expected new comments row (song_id 17, body 'hi'), got 300"
    )


def test_deletes_and_updates_are_matched_by_key():
    expected = diff(
        users={"deleted": [{"user_id": 42, "username": "mike", "last_seen": None}]},
        songs={"updated": [
            ({"song_id": 17}, {"plays": [3, 4]}), ({"song_id": 18}, {"title": ["Day", "Night"]})
        ]},
    )
    actual = diff(songs={"updated": [({"song_id": 17}, {"plays": [3, 4], "price": ["1.00", "1.50"]})]})
    assert compare(expected, actual, schema=SCHEMA).explain().splitlines() == [
        "expected delete of users 42 ('mike') is missing",
        "songs 17.price: expected 1.00, got 1.50",
        "expected update of songs 18 is missing (title 'Day' -> 'Night')",
    ]
    reverse = compare(actual, expected, schema=SCHEMA)
    assert [m.kind for m in reverse.mismatches] == ["unexpected_delete", "update_value", "unexpected_update"]


def test_tables_without_a_key_compare_as_multisets():
    row = {"user_id": 1, "song_id": 17, "played_at": "2026-06-30T12:00:00"}
    twice = diff(plays={"inserted": [row, row], "deleted": [row | {"song_id": 18}]})
    once = diff(plays={"inserted": [row], "deleted": [row | {"song_id": 18}]})
    assert compare(twice, twice, schema=SCHEMA).passed
    verdict = compare(twice, once, schema=SCHEMA)
    assert [m.kind for m in verdict.mismatches] == ["missing_insert"]
    verdict = compare(once, diff(plays={"inserted": [row]}), schema=SCHEMA)
    assert verdict.explain() == (
        "expected delete of plays (user_id 1, song_id 18, played_at '2026-06-30T12:00:00') is missing"
    )


def test_policies_loosen_the_columns_they_name():
    expected = diff(
        playlists={"inserted": [playlist(101, "Road Trip", description="Songs for the road.")]},
        songs={"updated": [({"song_id": 17}, {"price": ["1.00", "1.20"]})],
               "inserted": [{"song_id": 600, "title": "New", "plays": 0, "price": "0.99"}]},
        users={"updated": [({"user_id": 1}, {"last_seen": [None, "2026-06-30T12:00:00"]})]},
    )
    actual = diff(
        playlists={"inserted": [playlist(900, "road  trip!", description="anything",
                                         created_at="2026-06-30T12:00:45")]},
        songs={"updated": [({"song_id": 17}, {"price": ["1.00", "1.204"]})],
               "inserted": [{"song_id": 601, "title": "New", "plays": 0, "price": "1.00"}]},
    )
    strict = compare(expected, actual, schema=SCHEMA)
    assert [m.kind for m in strict.mismatches] == [
        "missing_update", "insert_value", "update_value", "missing_insert", "unexpected_insert"
    ]
    policy = Policy.model_validate({"columns": {
        "playlists.title": "normalized",
        "playlists.description": "any_non_null",
        "*.created_at": {"rule": "time", "seconds": 60},
        "songs.price": {"rule": "numeric", "abs": 0.01},
        "users.last_seen": "ignore",
    }})
    verdict = compare(expected, actual, schema=SCHEMA, policy=policy)
    assert verdict.passed, verdict.explain()
    tight = Policy(columns={"songs.price": ColumnRule(rule="numeric", rel=0.001)}).over(policy)
    verdict = compare(expected, actual, schema=SCHEMA, policy=tight)
    assert [m.column for m in verdict.mismatches] == ["price", "price"]
    assert "(numeric within 0.001 relative)" in verdict.mismatches[0].message


def test_tolerances_find_the_pairing_when_a_greedy_one_would_not():
    def songs(*prices: str, first: int) -> Diff:
        rows = [{"song_id": first + i, "title": "Same", "plays": 0, "price": p} for i, p in enumerate(prices)]
        return diff(songs={"inserted": rows})

    policy = Policy(columns={"songs.price": ColumnRule(rule="numeric", abs=0.015)})
    # 1.02 could take 1.01 first; then 1.00 would be left alone. A maximum matching pairs both.
    verdict = compare(songs("1.02", "1.00", first=500), songs("1.01", "1.03", first=800), schema=SCHEMA,
                      policy=policy)
    assert verdict.passed, verdict.explain()


def test_policy_layers_names_and_rules_are_checked():
    domain = Policy(columns={"playlists.created_at": "ignore", "songs.title": "normalized"})
    task = Policy(columns={"*.created_at": {"rule": "time", "seconds": 5}})
    merged = task.over(domain)
    assert merged.rule("playlists", "created_at") == ColumnRule(rule="time", seconds=5)
    assert merged.rule("SONGS", "Title").rule == "normalized"
    assert merged.rule("songs", "plays").rule == "exact"
    assert Policy.model_validate_json(merged.model_dump_json()) == merged
    assert merged.to_dict() == {"columns": {
        "*.created_at": {"rule": "time", "seconds": 5}, "songs.title": "normalized"}}
    assert Policy.model_validate(merged.to_dict()) == merged
    with pytest.raises(ValidationError, match="needs"):
        ColumnRule(rule="numeric")
    with pytest.raises(ValidationError, match="takes no seconds"):
        ColumnRule(rule="normalized", seconds=3)
    with pytest.raises(ValidationError, match="table.column"):
        Policy(columns={"title": "ignore"})
    with pytest.raises(ValidationError, match="extra|Extra"):
        Policy.model_validate({"columns": {}, "tables": {}})
    with pytest.raises(DiffError, match='no table "song".*Did you mean "songs"'):
        compare(ROAD_TRIP, ROAD_TRIP, schema=SCHEMA, policy=Policy(columns={"song.title": "ignore"}))
    with pytest.raises(DiffError, match='no column "titel" in songs.*Did you mean "title"'):
        compare(ROAD_TRIP, ROAD_TRIP, schema=SCHEMA, policy=Policy(columns={"songs.titel": "ignore"}))


def test_diffs_of_another_schema_are_refused():
    with pytest.raises(DiffError, match="table albums, which the schema model does not have"):
        compare(diff(albums={"inserted": [{"id": 1}]}), ROAD_TRIP, schema=SCHEMA)
    with pytest.raises(DiffError, match='column "name" in table songs'):
        compare(diff(songs={"inserted": [{"name": "x"}]}), ROAD_TRIP, schema=SCHEMA)


def test_real_episodes_that_insert_in_another_order_pass(tmp_path: Path):
    one = """
    INSERT INTO playlists VALUES (8, 1, 'Road Trip', NULL, '2026-06-30 12:00:00', NULL),
                                 (9, 42, 'Gym', NULL, '2026-06-30 12:00:00', NULL);
    INSERT INTO playlist_songs VALUES (8, 17, 1), (8, 18, 2), (9, 18, 1);
    UPDATE songs SET plays = plays + 1 WHERE song_id = 17;
    """
    other = """
    INSERT INTO playlists VALUES (8, 42, 'Gym', NULL, '2026-06-30 12:00:00', NULL),
                                 (9, 1, 'Road Trip', NULL, '2026-06-30 12:00:00', NULL);
    INSERT INTO playlist_songs VALUES (8, 18, 1), (9, 18, 2), (9, 17, 1);
    UPDATE songs SET plays = 4 WHERE song_id = 17;
    """
    base, first = make_pair(tmp_path, DDL, ROWS, one, name="first")
    _, second = make_pair(tmp_path, DDL, ROWS, other, name="second")
    expected, actual = diff_files(base, first), diff_files(base, second)
    assert expected != actual
    assert compare(expected, actual, schema=SCHEMA).passed
    with duckdb.connect(str(second)) as con:
        con.execute("UPDATE playlist_songs SET position = 3 WHERE playlist_id = 9 AND song_id = 18")
    verdict = compare(expected, diff_files(base, second), schema=SCHEMA)
    assert verdict.explain() == (
        "playlist_songs: insert (playlist 'Road Trip', song_id 18): position expected 2, got 3"
    )


def test_labels_come_from_the_human_column_of_the_base(base: Path):
    people = parse_ddl(
        "CREATE TABLE staff (id INT PRIMARY KEY, first_name VARCHAR, last_name VARCHAR, email VARCHAR);"
        "CREATE TABLE rooms (room_id INT PRIMARY KEY, floor INT, room_name VARCHAR);"
        "CREATE TABLE seats (seat_no INT PRIMARY KEY, row_no INT);"
    )
    assert [human_column(t) for t in people.tables] == [("first_name", "last_name"), "room_name", None]
    with duckdb.connect(str(base), read_only=True) as con:
        labels = db_labeler(con, SCHEMA)  # a connection stays the caller's
        assert labels("songs", {"song_id": 18}) == "Day" and labels("users", {"user_id": 42}) == "mike"
        assert labels("songs", {"song_id": 999}) is None  # no such row
        assert labels("playlist_songs", {"playlist_id": 7}) is None  # no column to name it by
        labels.close()
        assert con.execute("SELECT count(*) FROM songs").fetchall() == [(2,)]
