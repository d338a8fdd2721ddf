"""Offline realism: categorical columns by real-world frequency, vocabularies that read like data.

Each test generates real batches through `TableGenerator` (the build's generator) and measures what a
reader of the data would notice: which languages songs are in, whether titles repeat, whether a text was
cut mid-word, whether a band got a person's name.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import numpy as np
import pytest

from stateforge.domain.config import DomainConfig
from stateforge.fill.generator import TableGenerator, strategy_for
from stateforge.fill.grammar import Grammar
from stateforge.fill.topics import topic_of
from stateforge.fill.vocab import BY_KIND, VOCABULARIES
from stateforge.schema.model import Check, Column, ForeignKey, Table


def batch(table: Table, hints: dict[str, Any] | None = None, n: int = 20_000, start: int = 0,
          seed: int = 7) -> dict[str, list[Any]]:
    """One batch of `table`'s generated columns, as lists."""
    config = DomainConfig(name="x", columns=hints or {}, null_rate=0.0)
    return TableGenerator(table, config, seed=seed).generate(n, start).to_pydict()


def songs(*extra: Column, checks: tuple[str, ...] = ()) -> Table:
    return Table("songs", [Column("song_id", "BIGINT", nullable=False), Column("title", "VARCHAR(200)"),
                           Column("language_code", "VARCHAR(8)"), *extra],
                 primary_key=("song_id",), checks=[Check(c) for c in checks])


# --- frequencies -----------------------------------------------------------------------------------


def test_song_languages_follow_music_catalogues() -> None:
    counts = Counter(batch(songs())["language_code"])
    share = {code: n / 20_000 for code, n in counts.items()}
    assert counts.most_common(1)[0][0] == "en" and 0.35 < share["en"] < 0.6
    assert share["es"] > share["pt"] > share["it"] > share.get("eu", 0)
    assert not {"xh", "niu", "quz", "gez", "mhr"} & set(counts)  # obscure codes: not in music catalogues
    assert sum(n for code, n in counts.items() if share[code] < 0.001) / 20_000 < 0.01


def test_countries_currencies_and_time_zones_follow_real_use() -> None:
    users = Table("users", [Column("id", "BIGINT", nullable=False), Column("country_code", "CHAR(2)"),
                            Column("currency", "CHAR(3)"), Column("timezone", "VARCHAR(40)"),
                            Column("language", "VARCHAR(8)")], primary_key=("id",))
    made = batch(users)
    top = {c: Counter(made[c]).most_common(3) for c in ("country_code", "currency", "timezone", "language")}
    assert {code for code, _ in top["country_code"]} == {"CN", "IN", "US"}
    assert top["currency"][0][0] == "USD" and top["currency"][1][0] == "EUR"
    assert {zone for zone, _ in top["timezone"][:2]} == {"Asia/Kolkata", "Asia/Shanghai"}
    assert top["language"][0][0] == "en"  # not a music table: languages by speakers
    assert Counter(made["country_code"])["KP"] < 20


def test_allowed_values_are_weighted_by_meaning_and_others_stay_uniform() -> None:
    table = songs(Column("status", "VARCHAR(8)"),
                  checks=("language_code IN ('en', 'fr', 'eu')", "status IN ('a', 'b', 'c', 'd')"))
    made = batch(table, {"songs.title": {"values": ["w", "x", "y", "z"]}})
    languages = Counter(made["language_code"])
    assert set(languages) <= {"en", "fr", "eu"} and languages["en"] > 10 * languages["fr"] > 0
    for column, values in (("status", "abcd"), ("title", "wxyz")):  # CHECK list / hint list: no meaning
        counts = Counter(made[column])
        assert set(counts) == set(values)
        assert all(abs(n / 20_000 - 0.25) < 0.02 for n in counts.values()), counts


# --- vocabularies ----------------------------------------------------------------------------------


def _cases() -> list[tuple[str, str]]:
    return [(name, topic) for name, variants in VOCABULARIES.items() for topic in variants]


@pytest.mark.parametrize(("name", "topic"), _cases(), ids=[f"{n}/{t or '-'}" for n, t in _cases()])
@pytest.mark.parametrize("width", [24, 60, 400])
def test_every_vocabulary_fits_its_column_whole_and_well_formed(name: str, topic: str, width: int) -> None:
    names = {"": "things", "game": "heroes", "music": "songs", "playlist": "playlists", "genre": "genres",
             "clan": "clans", "meeting": "meetings", "absence": "out_of_office"}
    columns = [Column("id", "BIGINT", nullable=False), Column("v", f"VARCHAR({width})")]
    table = Table(names[topic], columns, primary_key=("id",))
    assert topic_of(table) == topic
    values = batch(table, {f"{table.name}.v": {"strategy": name}}, n=2_000)["v"]
    assert all(v and len(v) <= width and v == v.strip() and "  " not in v for v in values), name
    prose = name not in {"song_title", "album_title", "playlist_name", "meeting_title", "clan_name", "words",
                         "title"}
    if prose and width >= 60:  # whole sentences (or agenda lines), never cut mid-word
        cut = [v for v in values if not re.search(r"[.!?)]$|^1\. ", v)]
        assert not cut, cut[:3]
    words = {w for v in values for w in re.findall(r"[A-Za-z]+", v)}
    assert not words & {"lorem", "ipsum", "Mrs", "MD", "DVM"}  # none of Faker's noise


def test_catalogue_names_are_distinct_at_scale_one_and_beyond() -> None:
    made = batch(songs(Column("album", "VARCHAR(200)")), {"songs.album": {"strategy": "album_title"}},
                 n=20_000, start=0)
    later = batch(songs(Column("album", "VARCHAR(200)")), {"songs.album": {"strategy": "album_title"}},
                  n=20_000, start=50_000)
    titles = made["title"] + later["title"]
    assert strategy_for(songs(), "title", DomainConfig(name="x")) == "song_title"
    assert len(set(titles)) / len(titles) > 0.99
    assert len(set(made["album"] + later["album"])) / 40_000 > 0.95
    assert sum(t.endswith(")") for t in titles) / len(titles) < 0.1  # remixes and versions stay a minority


@pytest.mark.parametrize("name", ["song_title", "album_title", "clan_name", "words", "title", "playlist_name",
                                  "meeting_title"])
def test_a_unique_column_gets_distinct_names_without_numbers(name: str) -> None:
    table = Table("things", [Column("id", "BIGINT", nullable=False), Column("v", "VARCHAR(30)")],
                  primary_key=("id",), unique=[("v",)])
    values = batch(table, {"things.v": {"strategy": name}}, n=1_500)["v"] + batch(
        table, {"things.v": {"strategy": name}}, n=1_500, start=1_500)["v"]
    assert len(set(values)) == 3_000
    if name not in ("playlist_name", "meeting_title"):  # catalogue names: no number while combinations last
        assert not any(re.search(r" \d+$", v) for v in values)


def test_artist_names_and_bios_follow_the_artist_type() -> None:
    kinds = ["solo", "band", "orchestra", "choir", "dj", "duo"]
    artists = Table("artists", [Column("artist_id", "BIGINT", nullable=False), Column("name", "VARCHAR(100)"),
                                Column("artist_type", "VARCHAR(10)", allowed_values=kinds),
                                Column("bio", "VARCHAR(2000)")], primary_key=("artist_id",))
    made = batch(artists, n=3_000)
    rows = list(zip(made["artist_type"], made["name"], made["bio"], strict=True))
    for kind, name, bio in rows:
        if kind == "orchestra":
            assert re.search(r"Orchestra|Philharmonic|Ensemble|Quartet", name), name
            assert re.search(r"Orchestra|Ensemble|orchestra|ensemble", bio), bio
        elif kind == "choir":
            assert re.search(r"Choir|Singers", name), name
        elif kind == "duo":
            assert " & " in name and re.match(r"\w* ?duo ", bio.lower()), (name, bio)
        elif kind == "band":
            assert not bio.startswith(("Singer", "Rapper", "Pianist", "Duo")), bio
    solo_names = [name for kind, name, _ in rows if kind == "solo"]
    assert all(len(n.split()) >= 2 for n in solo_names)


def test_clan_tags_abbreviate_their_clan_and_stay_unique() -> None:
    columns = [Column("clan_id", "BIGINT", nullable=False), Column("tag", "VARCHAR(5)"),
               Column("name", "VARCHAR(30)")]
    clans = Table("clans", columns, primary_key=("clan_id",), unique=[("name",), ("tag",)])
    made = batch(clans, n=1_000)
    assert len(set(made["tag"])) == len(set(made["name"])) == 1_000
    for name, tag in zip(made["name"], made["tag"], strict=True):
        words = [w for w in name.split() if w not in ("The", "of", "the", "&")]
        initials = "".join(w[0] for w in words[:2]).upper()
        assert re.fullmatch(r"[A-Z]{4,5}", tag), tag
        assert tag.startswith(initials) or tag[0] == name[0], (name, tag)


def test_same_seed_same_values_other_seed_other_values() -> None:
    table = songs(Column("bio", "VARCHAR(500)"))
    hints = {"songs.bio": {"strategy": "bio"}}
    one, again, other = (batch(table, hints, n=500, seed=s) for s in (3, 3, 4))
    assert one == again
    assert one["title"] != other["title"] and one["bio"] != other["bio"]


def test_a_grammar_never_truncates_and_gives_up_loudly_when_nothing_fits() -> None:
    grammar = Grammar.of(("{a} {b}", 1), "{a}", a="Tiny Enormous", b="Cat Elephant")
    values = grammar.sample(np.random.default_rng(0), 200, max_len=8).to_pylist()
    assert set(values) <= {"Tiny Cat", "Tiny", "Enormous"}
    with pytest.raises(ValueError, match="no template fits"):
        grammar.fit(3)
    with pytest.raises(ValueError, match="slot"):
        Grammar.of("{missing}")


def test_kind_forms_cover_the_kinds_the_vocabulary_knows() -> None:
    assert set(BY_KIND["artist_name"]) == {"band", "dj", "orchestra", "choir"}  # solo and duo: people's names
    assert set(BY_KIND["bio"]) == {"solo", "band", "duo", "dj", "orchestra", "choir"}


def test_foreign_keys_give_a_table_its_topic() -> None:
    comments = Table("comments", [Column("comment_id", "BIGINT", nullable=False), Column("song_id", "BIGINT"),
                                  Column("body", "VARCHAR(1000)")], primary_key=("comment_id",),
                     foreign_keys=[ForeignKey(("song_id",), "songs", ("song_id",))])
    assert topic_of(comments) == "music"
    assert strategy_for(comments, "body", DomainConfig(name="x")) == "comment"
