"""The project's vocabularies: one per `strategy:` name, with a variant per topic.

    vocabulary("description", "playlist")   # -> the playlist variant (a Grammar)
    vocabulary("note", "")                   # -> the generic variant (Prose)

A vocabulary is a `Grammar` (names and titles: one phrase a row) or `Prose` (sentences: the first from
one grammar, up to `most - 1` more from another, as many as fit the column). The topic comes from
`stateforge.fill.topics.topic_of`; a topic without its own variant takes the generic one ("").
Word lists and templates are data, in the TOML files beside this module (`words.grammar` reads them).
"""

from __future__ import annotations

from dataclasses import dataclass

from stateforge.fill.grammar import Grammar
from stateforge.fill.vocab.words import grammar as g


@dataclass(frozen=True)
class Prose:
    """Texts of 1 to `most` sentences: the first from `first`, the others from `more`."""

    first: Grammar
    more: Grammar | None = None
    most: int = 1
    numbered: bool = False
    """One item a line, numbered `1.`, `2.`, ... (agendas) instead of sentences joined by spaces."""


Vocabulary = Grammar | Prose

_SENTENCES = Prose(g("common.sentence"), g("common.sentence"), most=3)
SHORT_SENTENCE = g("common.sentence")
"""What a text column too short for its vocabulary's sentences gets instead of a cut sentence."""

VOCABULARIES: dict[str, dict[str, Vocabulary]] = {
    "song_title": {"": g("music.song_title")},
    "album_title": {"": g("music.album_title")},
    "playlist_name": {"": g("music.playlist_name")},
    "meeting_title": {"": g("work.meeting_title")},
    "clan_name": {"": g("game.clan_name")},
    "agenda": {"": Prose(g("work.item_first"), g("work.item"), most=6, numbered=True)},
    "bio": {
        "music": Prose(g("music_text.bio_first"), g("music_text.bio_more"), most=3),
        "": Prose(g("common.bio"), g("common.bio"), most=2),
    },
    "comment": {
        "music": Prose(g("music_text.comment"), g("music_text.comment_more"), most=2),
        "": Prose(g("common.comment"), g("common.comment"), most=2),
    },
    "description": {
        "playlist": Prose(g("music_text.playlist_description")),
        "genre": Prose(g("music_text.genre_description")),
        "music": Prose(g("music_text.description_music")),
        "clan": Prose(g("game.clan_description")),
        "": Prose(g("common.sentence"), g("common.sentence"), most=2),
    },
    "note": {"meeting": Prose(g("work.note_first"), g("work.note_more"), most=4), "": _SENTENCES},
    "message": {"game": Prose(g("game.mail")), "absence": Prose(g("work.out_of_office")), "": _SENTENCES},
    "words": {"game": g("game.epic_phrase"), "": g("common.phrase")},
    "title": {"game": g("game.epic_phrase"), "": g("common.title")},
    "sentence": {"": Prose(g("common.sentence"))},
    "paragraph": {"": Prose(g("common.sentence"), g("common.sentence"), most=4)},
}
"""Vocabulary by strategy name, then by topic ("" for any other topic)."""

BY_KIND: dict[str, dict[str, Vocabulary]] = {
    "artist_name": {
        "band": g("music.band"),
        "dj": g("music.dj"),
        "orchestra": g("music.orchestra"),
        "choir": g("music.choir"),
    },
    "bio": {
        kind: Prose(g(f"music_text.bio_{kind}"), g("music_text.bio_more"), most=3)
        for kind in ("solo", "band", "duo", "dj", "orchestra", "choir")
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
