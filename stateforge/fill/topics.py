"""What a table is about, and which of the project's vocabularies a text column of it takes.

    topic_of(table)                         # "music" for songs, and for comments that reference songs
    vocabulary_for("title", "title", songs) # "song_title"

A topic comes from the table's own name words (singular or plural), else from the tables its foreign
keys reference: `comments(song_id -> songs)` is about music. Specific topics (playlist, genre, clan,
meeting, absence) come before the broad ones (music, game). The vocabulary of a column is refined from
the strategy its name suggests (`infer`): a `title` of a song is a `song_title`, the `body` of a comment
a `comment`, the `name` of a clan a `clan_name`. Unknown meanings keep the generic strategy, whose values
are short plausible phrases and sentences.
"""

from __future__ import annotations

import re

from stateforge.schema.model import Table

_TOPICS: tuple[tuple[str, str], ...] = (
    ("playlist", "playlist mixtape"),
    ("genre", "genre"),
    ("clan", "clan guild team squad crew alliance"),
    ("absence", "out_of_office absence leave vacation"),
    ("meeting", "meeting agenda minute appointment"),
    ("music", "song track album artist band musician release record lyric chart listening"),
    ("game", "player hero skin match quest rune clan guild reward"),
)
_SPECIFIC = {"playlist", "genre", "clan", "absence", "meeting"}


def _words(name: str) -> set[str]:
    """Snake-case words of a name and their singulars (`out_of_office` is kept whole too)."""
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    snake = re.sub(r"[^a-z0-9]+", "_", snake.lower()).strip("_")
    words = set(snake.split("_")) | {snake}
    plural = {w for w in words if w.endswith("s")}
    return words | {w[:-1] for w in plural} | {w[:-2] for w in plural if w.endswith("es")} | {
        w[:-3] + "y" for w in plural if w.endswith("ies")
    }


def _match(words: set[str], topics: tuple[tuple[str, str], ...]) -> str:
    for topic, marks in topics:
        if words & set(marks.split()):
            return topic
    return ""


def topic_of(table: Table) -> str:
    """The table's topic: playlist, genre, clan, absence, meeting, music, game, or "" when unknown."""
    own = _match(_words(table.name), _TOPICS)
    if own:
        return own
    broad = tuple(t for t in _TOPICS if t[0] not in _SPECIFIC)
    for fk in table.foreign_keys:
        found = _match(_words(fk.ref_table), broad)
        if found:
            return found
    return ""


_TITLES = (
    ("song_title", "song track"),
    ("album_title", "album release record"),
    ("playlist_name", "playlist mixtape"),
    ("meeting_title", "meeting appointment event"),
)
_NAMES = (("artist_name", "artist band musician"), *_TITLES)
_PROSE = (
    ("bio", "bio biography about"),
    ("comment", "comment comments review reply feedback"),
    ("agenda", "agenda"),
    ("note", "note notes remarks minutes"),
    ("description", "description desc summary details"),
    ("message", "message auto_reply_message reply_message"),
)
_PROSE_BY_TABLE = (
    ("comment", "comment review reply"),
    ("note", "note minute"),
    ("message", "mail message inbox chat notification out_of_office"),
)


def vocabulary_for(strategy: str, name: str, table: Table) -> str | None:
    """The vocabulary strategy for a text column that `infer` gave `strategy`, or None to keep it.

    `strategy` is "title" (title, subject, headline), "name" (a bare `name` or `*_name`), "sentence" or
    "paragraph" (descriptions, bios, bodies, ...), or "tag" (a column named `tag`).
    """
    table_words = _words(table.name)
    topic = topic_of(table)
    if strategy in ("title", "name"):
        found = _match(table_words, _NAMES if strategy == "name" else _TITLES)
        if found:
            return found
        if topic == "clan" and strategy == "name":
            return "clan_name"
        return None
    if strategy in ("sentence", "paragraph"):
        found = _match(_words(name), _PROSE)
        if found == "comment" and topic == "meeting":
            return "note"
        if found:
            return found
        return _match(table_words, _PROSE_BY_TABLE) or ("message" if topic == "absence" else None)
    if strategy == "tag" and topic == "clan":
        return "tag"
    return None
