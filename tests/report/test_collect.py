"""The report's figures against plain SQL on the same real database: what the page shows is the data."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.report import DatabaseProfile, collect
from stateforge.report.columns import kind_of, sample_source

pytestmark = pytest.mark.xdist_group("report")


@pytest.fixture(scope="module")
def profile(music_db: Path) -> DatabaseProfile:
    return collect(music_db)


@pytest.fixture(scope="module")
def con(music_db: Path):
    with duckdb.connect(str(music_db), read_only=True) as c:
        yield c


def table(profile: DatabaseProfile, name: str):
    return next(t for t in profile.tables if t.name == name)


def column(profile: DatabaseProfile, t: str, c: str):
    return next(p for p in table(profile, t).columns if p.name == c)


def test_rows_nulls_and_distinct_counts_match_sql(profile: DatabaseProfile, con):
    for t in profile.tables:
        [(rows,)] = con.execute(f'SELECT count(*) FROM "{t.name}"').fetchall()
        assert t.rows == rows, t.name
        for p in t.columns:
            [(nulls, distinct)] = con.execute(
                f'SELECT count(*) - count("{p.name}"), count(DISTINCT "{p.name}") FROM "{t.name}"').fetchall()
            assert (p.nulls, p.distinct, p.distinct_exact) == (nulls, distinct, True), f"{t.name}.{p.name}"
    assert profile.rows == sum(t.rows for t in profile.tables) > 5000
    assert profile.audit["violations"] == 0 and profile.audit["checks_run"] > 100


def test_distributions_count_every_value(profile: DatabaseProfile):
    births = column(profile, "users", "birth_date")
    assert births.kind == "time" and births.histogram is not None and births.nulls > 0
    drawn = sum(births.histogram.counts) + births.histogram.above
    assert drawn == table(profile, "users").rows - births.nulls
    status = column(profile, "users", "status")
    values = status.values
    assert values is not None and {v for v, _ in values.top} <= {"active", "suspended", "closed"}
    assert sum(n for _, n in values.top) + values.other + values.nulls == values.total
    track = column(profile, "songs", "track_number")
    assert track.values is not None and track.values.ordered
    assert [int(v) for v, _ in track.values.top] == sorted(int(v) for v, _ in track.values.top)


def test_keys_and_foreign_keys_get_a_note_not_a_plot(profile: DatabaseProfile):
    key = column(profile, "users", "user_id")
    assert key.role == "primary key" and key.histogram is None and key.values is None and "key" in key.note
    fk = column(profile, "songs", "album_id")
    assert fk.role == "foreign key -> albums(album_id)" and "fan-out" in fk.note
    isrc = column(profile, "songs", "isrc")
    assert isrc.examples and isrc.note.startswith("Every value distinct")
    currency = column(profile, "payments", "currency")
    assert currency.distinct == 1 and currency.values.top[0][0] == "USD"


def test_fanout_covers_every_parent(profile: DatabaseProfile, con):
    songs = table(profile, "songs")
    albums = next(f for f in songs.fanouts if f.parent == "albums")
    [(parents, childless, top)] = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE n = 0), max(n) FROM (SELECT a.album_id, "
        "count(s.song_id) AS n FROM albums a LEFT JOIN songs s USING (album_id) GROUP BY a.album_id)"
    ).fetchall()
    assert (albums.parents, albums.childless, albums.max) == (parents, childless, top)
    assert sum(n for _, n in albums.distribution) == parents
    assert albums.children == songs.rows and albums.orphans == 0
    referrals = next(f for f in table(profile, "users").fanouts if f.columns == ("referred_by_user_id",))
    assert referrals.null_keys == column(profile, "users", "referred_by_user_id").nulls > 0


def test_rules_are_checked_now_with_the_build_figures(profile: DatabaseProfile):
    rules = [r for r in profile.rules if r.kind == "rule"]
    assert {r.name for r in rules} >= {"playlist_positions_contiguous", "payment_amount_matches_plan"}
    assert all(r.violations == 0 and r.error is None and r.build is not None for r in rules)
    assert profile.violations == 0
    assert profile.inputs["domain"] == "music" and profile.build["totals"]["tables"] == len(profile.tables)


def test_violations_and_broken_rules_are_found(broken_db: Path):
    broken = collect(broken_db)
    orphans = [c for c in broken.audit["checks"] if c["check"] == "foreign_key" and c["table"] == "songs"]
    assert orphans and orphans[0]["count"] > 0
    songs = table(broken, "songs")
    to_albums = next(f for f in songs.fanouts if f.parent == "albums")
    assert songs.violations and to_albums.orphans == orphans[0]["count"]
    rule = next(r for r in broken.rules if r.name == "payment_amount_matches_plan")
    assert rule.violations == 1 and rule.samples[0]["amount"] != rule.samples[0]["price"]
    assert broken.violations == broken.audit["violations"] + 1


def test_large_tables_are_sampled_deterministically_and_say_so(music_db: Path, profile: DatabaseProfile, con):
    first = collect(music_db, sample_rows=300)
    again = collect(music_db, sample_rows=300)
    history = table(first, "listening_history")
    assert history.rows > 300 and history.sampled is not None and 150 < history.sampled < 600
    assert history.sampled == table(again, "listening_history").sampled
    repeated = table(again, "listening_history").columns
    assert [c.histogram for c in history.columns] == [c.histogram for c in repeated]
    assert not column(first, "listening_history", "play_id").distinct_exact
    every_row = table(profile, "listening_history").columns
    assert [p.nulls for p in history.columns] == [p.nulls for p in every_row], "NULL counts read every row"
    small = table(first, "subscription_plans")
    assert small.sampled is None
    source, sampled = sample_source("listening_history", history.rows, 300)
    assert sampled and con.execute(f"SELECT count(*) FROM {source}").fetchall()[0][0] == history.sampled


@pytest.mark.parametrize(("duck_type", "kind"), [
    ("BIGINT", "integer"), ("UTINYINT", "integer"), ("DECIMAL(8,2)", "number"), ("DOUBLE", "number"),
    ("DATE", "time"), ("TIMESTAMP WITH TIME ZONE", "time"), ("TIME", "clock"), ("INTERVAL", "interval"),
    ("BOOLEAN", "boolean"), ("VARCHAR", "text"), ("UUID", "text"), ("ENUM('a', 'b')", "text"),
    ("BLOB", "other"), ("INTEGER[]", "other"), ("STRUCT(a INTEGER)", "other"),
])
def test_kinds_of_duckdb_types(duck_type: str, kind: str):
    assert kind_of(duck_type) == kind
