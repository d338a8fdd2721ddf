"""The project's vocabularies: one per `strategy:` name, with a variant per topic.

    vocabulary("description", "playlist")   # -> the playlist variant (a Grammar)
    vocabulary("note", "")                   # -> the generic variant (Prose)

A vocabulary is a `Grammar` (names and titles: one phrase a row) or `Prose` (sentences: the first from
one grammar, up to `most - 1` more from another, as many as fit the column). The topic comes from
`pipeline.fill.topics.topic_of`; a topic without its own variant takes the generic one ("").
Word lists live beside this module: `music`, `music_text`, `work`, `game`, `common`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.fill.grammar import Grammar
from pipeline.fill.vocab import common, game, music, music_text, work


@dataclass(frozen=True)
class Prose:
    """Texts of 1 to `most` sentences: the first from `first`, the others from `more`."""

    first: Grammar
    more: Grammar | None = None
    most: int = 1
    numbered: bool = False
    """One item a line, numbered `1.`, `2.`, ... (agendas) instead of sentences joined by spaces."""


Vocabulary = Grammar | Prose

_SENTENCES = Prose(common.SENTENCE, common.SENTENCE, most=3)
SHORT_SENTENCE = common.SENTENCE
"""What a text column too short for its vocabulary's sentences gets instead of a cut sentence."""

VOCABULARIES: dict[str, dict[str, Vocabulary]] = {
    "song_title": {"": music.SONG_TITLE},
    "album_title": {"": music.ALBUM_TITLE},
    "playlist_name": {"": music.PLAYLIST_NAME},
    "meeting_title": {"": work.MEETING_TITLE},
    "clan_name": {"": game.CLAN_NAME},
    "agenda": {"": Prose(work.ITEM_FIRST, work.ITEM, most=6, numbered=True)},
    "bio": {
        "music": Prose(music_text.BIO_FIRST, music_text.BIO_MORE, most=3),
        "": Prose(common.BIO, common.BIO, most=2),
    },
    "comment": {
        "music": Prose(music_text.COMMENT, music_text.COMMENT_MORE, most=2),
        "": Prose(common.COMMENT, common.COMMENT, most=2),
    },
    "description": {
        "playlist": Prose(music_text.PLAYLIST_DESCRIPTION),
        "genre": Prose(music_text.GENRE_DESCRIPTION),
        "music": Prose(music_text.DESCRIPTION_MUSIC),
        "clan": Prose(game.CLAN_DESCRIPTION),
        "": Prose(common.SENTENCE, common.SENTENCE, most=2),
    },
    "note": {"meeting": Prose(work.NOTE_FIRST, work.NOTE_MORE, most=4), "": _SENTENCES},
    "message": {"game": Prose(game.MAIL), "absence": Prose(work.OUT_OF_OFFICE), "": _SENTENCES},
    "words": {"game": game.EPIC_PHRASE, "": common.PHRASE},
    "title": {"game": game.EPIC_PHRASE, "": common.TITLE},
    "sentence": {"": Prose(common.SENTENCE)},
    "paragraph": {"": Prose(common.SENTENCE, common.SENTENCE, most=4)},
}
"""Vocabulary by strategy name, then by topic ("" for any other topic)."""

BY_KIND: dict[str, dict[str, Vocabulary]] = {
    "artist_name": {
        "band": music.BAND,
        "dj": music.DJ,
        "orchestra": music.ORCHESTRA,
        "choir": music.CHOIR,
    },
    "bio": {
        kind: Prose(first, music_text.BIO_MORE, most=3) for kind, first in music_text.BIO_BY_KIND.items()
    },
}
"""Forms of a vocabulary by the kind a row states (`artist_type`); other kinds take the default form."""


def vocabulary(name: str, topic: str = "") -> Vocabulary:
    """The vocabulary `name` in `topic` (the generic variant when the topic has none)."""
    variants = VOCABULARIES[name]
    return variants.get(topic) or variants[""]


def kind_of(value: str) -> str:
    """A row's kind as one of the forms: band, duo, dj, orchestra, choir, or solo (anything else)."""
    text = value.lower()
    for kind, marks in _KIND_MARKS:
        if any(mark in text for mark in marks):
            return kind
    return "solo"


_KIND_MARKS = (
    ("duo", ("duo", "pair")),
    ("dj", ("dj", "producer", "electronic")),
    ("orchestra", ("orchestra", "ensemble", "quartet", "philharmonic", "symphony")),
    ("choir", ("choir", "chorus", "vocal group")),
    ("band", ("band", "group", "trio", "collective")),
)
