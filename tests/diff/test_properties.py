"""Properties of compare(), over episodes hypothesis makes up.

An episode is logical: new songs, playlists, playlist entries and comment threads (which may point at new
or existing rows), updates and deletes. It becomes a diff once its new rows get ids; the same episode with
other ids (renumbered, in another order) must pass, and any one cell changed must fail.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stateforge.diff import Diff, compare
from stateforge.values import dumps
from tests.diff.test_compare import SCHEMA

TITLES = ["a", "b", "c"]
BASE_SONGS, BASE_PLAYLISTS, BASE_USERS, BASE_COMMENT = [17, 18], [7], [1, 42], 300
KEYS = {"songs": ("song_id",), "playlists": ("playlist_id",), "playlist_songs": ("playlist_id", "song_id"),
        "comments": ("comment_id",), "users": ("user_id",)}


@dataclass
class Episode:
    songs: list[tuple[str, int]]
    playlists: list[tuple[int, str]]
    entries: list[tuple[tuple[str, int], tuple[str, int], int]]
    """(playlist ref, song ref, position); a ref is ("base", id) or ("new", index)."""
    comments: list[tuple[tuple[str, int], tuple[str, int] | None, str]]
    """(song ref, parent ref or None, body); a new parent is an earlier comment."""
    retitled: dict[int, str]
    featured: tuple[str, int] | None
    deleted_users: list[int]


@st.composite
def episodes(draw: st.DrawFn) -> Episode:
    songs = draw(st.lists(st.tuples(st.sampled_from(TITLES), st.integers(0, 2)), max_size=4))
    playlists = draw(st.lists(st.tuples(st.sampled_from(BASE_USERS), st.sampled_from(TITLES)), max_size=3))
    song_refs = [("base", s) for s in BASE_SONGS] + [("new", i) for i in range(len(songs))]
    list_refs = [("base", p) for p in BASE_PLAYLISTS] + [("new", i) for i in range(len(playlists))]
    pairs = draw(st.lists(st.tuples(st.sampled_from(list_refs), st.sampled_from(song_refs)), max_size=6,
                          unique=True))
    entries = [(p, s, draw(st.integers(1, 3))) for p, s in pairs]
    comments: list[Any] = []
    for i in range(draw(st.integers(0, 4))):
        parents = [None, ("base", BASE_COMMENT)] + [("new", j) for j in range(i)]
        comments.append((draw(st.sampled_from(song_refs)), draw(st.sampled_from(parents)),
                         draw(st.sampled_from(["hi", "yo"]))))
    retitled = draw(st.dictionaries(st.sampled_from(BASE_SONGS), st.sampled_from(["x", "y"]), max_size=2))
    featured = draw(st.none() | st.sampled_from(song_refs))
    deleted = draw(st.lists(st.sampled_from(BASE_USERS), max_size=2, unique=True))
    return Episode(songs, playlists, entries, comments, retitled, featured, deleted)


def render(episode: Episode, ids: dict[str, list[int]]) -> Diff:
    """The diff of `episode` when its new rows get `ids` (per table, by creation index)."""
    def ref(table: str, r: tuple[str, int] | None) -> int | None:
        return None if r is None else r[1] if r[0] == "base" else ids[table][r[1]]

    tables: dict[str, dict[str, list]] = {t: {"inserted": [], "deleted": [], "updated": []} for t in KEYS}
    for i, (title, plays) in enumerate(episode.songs):
        tables["songs"]["inserted"].append(
            {"song_id": ids["songs"][i], "title": title, "plays": plays, "price": "1.00"})
    for i, (owner, title) in enumerate(episode.playlists):
        tables["playlists"]["inserted"].append(
            {"playlist_id": ids["playlists"][i], "owner_id": owner, "title": title, "description": None,
             "created_at": "2026-06-30T12:00:00", "featured_song_id": None})
    for p, s, position in episode.entries:
        tables["playlist_songs"]["inserted"].append(
            {"playlist_id": ref("playlists", p), "song_id": ref("songs", s), "position": position})
    for i, (song, parent, body) in enumerate(episode.comments):
        tables["comments"]["inserted"].append(
            {"comment_id": ids["comments"][i], "song_id": ref("songs", song),
             "parent_id": ref("comments", parent), "body": body})
    for song, title in sorted(episode.retitled.items()):
        tables["songs"]["updated"].append({"key": {"song_id": song}, "changes": {"title": ["old", title]}})
    if episode.featured is not None:
        featured = ref("songs", episode.featured)
        tables["playlists"]["updated"].append(
            {"key": {"playlist_id": 7}, "changes": {"featured_song_id": [None, featured]}})
    for user in episode.deleted_users:
        tables["users"]["deleted"].append({"user_id": user, "username": f"u{user}", "last_seen": None})
    for name, table in tables.items():  # as a diff would list them: by key
        table["inserted"].sort(key=lambda row, name=name: [row[k] for k in KEYS[name]])
    return Diff.from_dict({"tables": tables})


def first_ids(episode: Episode) -> dict[str, list[int]]:
    sizes = {"songs": len(episode.songs), "playlists": len(episode.playlists),
             "comments": len(episode.comments)}
    return {t: list(range(1000, 1000 + n)) for t, n in sizes.items()}


def other_ids(episode: Episode, seed: int) -> dict[str, list[int]]:
    rng = random.Random(seed)
    ids = {}
    for table, first in first_ids(episode).items():
        shuffled = [i + 4000 + rng.randrange(3) * 1000 for i in first]
        rng.shuffle(shuffled)
        ids[table] = shuffled
    return ids


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(episodes())
def test_a_diff_matches_itself(episode: Episode):
    diff = render(episode, first_ids(episode))
    assert compare(diff, diff, schema=SCHEMA).passed


@SETTINGS
@given(episodes(), st.integers(0, 10_000))
def test_renumbered_new_rows_and_the_keys_pointing_at_them_pass(episode: Episode, seed: int):
    expected, actual = render(episode, first_ids(episode)), render(episode, other_ids(episode, seed))
    verdict = compare(expected, actual, schema=SCHEMA)
    assert verdict.passed, verdict.explain()


def mutations(diff: Diff) -> list[tuple[str, Any]]:
    """Every single-cell change of `diff` (allocated ids aside), every row dropped, and rows added."""
    data = diff.to_dict()["tables"]
    found: list[tuple[str, Any]] = []
    for table, changes in data.items():
        for i, row in enumerate(changes["inserted"]):
            found.append(("drop", (table, "inserted", i)))
            for column, value in row.items():
                if column in ("song_id", "playlist_id", "comment_id") and table != "playlist_songs":
                    continue  # allocated: changing it alone is a renumbering
                if table == "playlist_songs" and column == "playlist_id":
                    continue  # may only move the entry between equal new playlists; song_id is checked
                found.append(("cell", (table, "inserted", i, column, value)))
        for i, update in enumerate(changes["updated"]):
            found.append(("drop", (table, "updated", i)))
            for column, (_, new) in update["changes"].items():
                found.append(("cell", (table, "updated", i, column, new)))
        for i in range(len(changes["deleted"])):
            found.append(("drop", (table, "deleted", i)))
    found += [("add", "insert"), ("add", "delete"), ("add", "update")]
    return found


def changed(value: Any, column: str) -> Any:
    if column == "song_id":  # a reference: point at another existing song (new -> base, or base -> base)
        return 18 if value == 17 else 17
    if column == "parent_id":
        return 300 if value != 300 else None
    if column == "featured_song_id":
        return 18 if value == 17 else 17
    if isinstance(value, bool) or value is None:
        return "filled" if value is None else not value
    if isinstance(value, int):
        return value + 10
    return f"{value}!"


def apply(diff: Diff, mutation: tuple[str, Any]) -> Diff:
    data = diff.to_dict()["tables"]
    kind, where = mutation
    if kind == "drop":
        table, part, i = where
        del data[table][part][i]
    elif kind == "cell":
        table, part, i, column, value = where
        if part == "inserted":
            data[table][part][i][column] = changed(value, column)
        else:
            old, new = data[table][part][i]["changes"][column]
            data[table][part][i]["changes"][column] = [old, changed(new, column)]
    elif where == "insert":
        data.setdefault("songs", {"inserted": [], "deleted": [], "updated": []})["inserted"].append(
            {"song_id": 9999, "title": "extra", "plays": 0, "price": "1.00"})
    elif where == "delete":
        data.setdefault("songs", {"inserted": [], "deleted": [], "updated": []})["deleted"].append(
            {"song_id": 18, "title": "Day", "plays": 0, "price": "2.50"})
    else:
        data.setdefault("users", {"inserted": [], "deleted": [], "updated": []})["updated"].append(
            {"key": {"user_id": 1}, "changes": {"username": ["ann", "anne"]}})
    return Diff.from_dict({"tables": data})


@SETTINGS
@given(episodes(), st.integers(0, 10_000), st.data())
def test_changing_any_one_cell_of_the_actual_state_fails(episode: Episode, seed: int, data: st.DataObject):
    expected = render(episode, first_ids(episode))
    actual = render(episode, other_ids(episode, seed))
    mutation = data.draw(st.sampled_from(mutations(actual)), label="mutation")
    mutated = apply(actual, mutation)
    verdict = compare(expected, mutated, schema=SCHEMA)
    assert not verdict.passed, f"{mutation} went unnoticed:\n{dumps(mutated.to_dict(), indent=1)}"
    assert all(m.message for m in verdict.mismatches)
