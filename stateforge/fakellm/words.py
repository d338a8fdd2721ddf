"""Word pools and name-hint rules for the fake LLM server's values.

Small fixed pools (no Faker: a request must give the same bytes whatever Faker release is installed)
and two ordered rule tables that map a property name's words to a kind of value: `TEXT_RULES` for
strings, `NUMBER_RANGES` for integers and numbers. The first rule that matches wins.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from datetime import date, datetime, timedelta

FIRST_NAMES = (
    "Ava", "Liam", "Mia", "Noah", "Zoe", "Omar", "Lena", "Ravi", "Sofia", "Kenji",
    "Amara", "Lucas", "Ines", "Mateo", "Yara", "Felix", "Nora", "Hugo", "Leila", "Theo",
)  # fmt: skip
LAST_NAMES = (
    "Garcia", "Okafor", "Nguyen", "Schmidt", "Rossi", "Tanaka", "Silva", "Kowalski", "Haddad", "Larsen",
    "Moreau", "Patel", "Costa", "Ivanova", "Mendes", "Fischer", "Sato", "Brennan", "Dubois", "Khan",
)  # fmt: skip
ADJECTIVES = (
    "amber", "silent", "crimson", "golden", "hidden", "lunar", "velvet", "electric", "quiet", "wild",
    "frozen", "bright", "distant", "hollow", "neon", "paper", "rapid", "silver", "tidal", "urban",
)  # fmt: skip
NOUNS = (
    "harbor", "river", "echo", "garden", "signal", "horizon", "lantern", "meadow", "orbit", "canyon",
    "mirror", "falcon", "ember", "summit", "harvest", "voyage", "circuit", "forest", "comet", "tide",
)  # fmt: skip
VERBS = ("captures", "explores", "blends", "revisits", "follows", "celebrates", "questions", "maps")
CITIES = (
    "Lisbon", "Osaka", "Nairobi", "Toronto", "Munich", "Austin", "Lyon", "Seoul",
    "Porto", "Denver", "Krakow", "Melbourne", "Bogota", "Dublin", "Tallinn", "Valencia",
)  # fmt: skip
COUNTRIES = ("Portugal", "Japan", "Kenya", "Canada", "Germany", "France", "Colombia", "Ireland", "Spain")
GENRES = ("rock", "jazz", "pop", "hip hop", "electronic", "folk", "classical", "blues", "reggae", "metal")
COLORS = ("red", "blue", "green", "teal", "orange", "purple", "black", "white", "yellow")
STATUSES = ("active", "pending", "completed", "cancelled", "archived")
ROLES = ("engineer", "designer", "manager", "analyst", "support", "sales", "director", "intern")
LANGUAGES = ("en", "fr", "de", "es", "pt", "ja", "ko", "zh")
CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CAD", "BRL")
TIMEZONES = ("UTC", "Europe/Lisbon", "Asia/Tokyo", "America/Toronto", "Africa/Nairobi")
ORG_SUFFIXES = ("Collective", "Labs", "Studios", "Club", "Group", "Records")

PERSON_WORDS = frozenset(
    "user player artist author customer member attendee host owner employee contact person organizer "
    "speaker participant manager coach full display creator composer singer".split()
)
LONG_TEXT_WORDS = frozenset(
    "description comment comments bio summary note notes text body content message review about details "
    "reason feedback lyrics agenda instructions caption answer explanation".split()
)
TITLE_WORDS = frozenset(
    "title subject headline topic album song track playlist map room meeting event hero item skill "
    "champion product project book movie show episode series game match tournament channel".split()
)

Tokens = tuple[str, ...]
Clock = Callable[[], datetime]


def singular(name: str) -> str:
    """A rough singular of an array property's name, used as its items' hint (`tags` -> `tag`)."""
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"


def email(rng: random.Random) -> str:
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    return f"{first}.{last}{rng.randint(1, 99)}@example.com".lower()


def url(rng: random.Random) -> str:
    return f"https://example.com/{rng.choice(ADJECTIVES)}-{rng.choice(NOUNS)}"


def title(rng: random.Random) -> str:
    words = [rng.choice(ADJECTIVES), rng.choice(NOUNS)]
    if rng.random() < 0.4:
        words.insert(0, "the")
    return " ".join(words).title()


def sentence(rng: random.Random) -> str:
    """One short sentence, e.g. "A quiet orbit that revisits the golden harbor."."""
    adj, noun, verb = rng.choice(ADJECTIVES), rng.choice(NOUNS), rng.choice(VERBS)
    article = "An" if adj[0] in "aeiou" else "A"
    return f"{article} {adj} {noun} that {verb} the {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}."


def paragraph(rng: random.Random) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(1, 2)))


def _code(rng: random.Random) -> str:
    letters = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(3))
    return f"{letters}-{rng.randint(100, 999)}"


def _username(rng: random.Random) -> str:
    return f"{rng.choice(FIRST_NAMES).lower()}_{rng.choice(NOUNS)}{rng.randint(1, 99)}"


def _birthday(rng: random.Random) -> str:
    return (date(1950, 1, 1) + timedelta(days=rng.randrange(55 * 365))).isoformat()


def _phone(rng: random.Random) -> str:
    return f"+1-555-01{rng.randint(0, 99):02d}"


def _org(rng: random.Random) -> str:
    return f"{rng.choice(ADJECTIVES).title()} {rng.choice(NOUNS).title()} {rng.choice(ORG_SUFFIXES)}"


def _has(*words: str) -> Callable[[Tokens], bool]:
    wanted = frozenset(words)
    return lambda t: bool(wanted.intersection(t))


def _last(*words: str) -> Callable[[Tokens], bool]:
    return lambda t: bool(t) and t[-1] in words


def _named(*words: str) -> Callable[[Tokens], bool]:
    wanted = frozenset(words)
    return lambda t: "name" in t and bool(wanted.intersection(t))


Maker = Callable[[random.Random, Clock], str]

TEXT_RULES: tuple[tuple[Callable[[Tokens], bool], Maker], ...] = (
    (_has("uuid", "guid"), lambda r, _: str(uuid.UUID(int=r.getrandbits(128), version=4))),
    (_has("email", "mail"), lambda r, _: email(r)),
    (_has("url", "uri", "website", "link", "homepage", "avatar", "image", "photo"), lambda r, _: url(r)),
    (_has("phone", "mobile", "tel", "telephone"), lambda r, _: _phone(r)),
    (_has("username", "handle", "login", "nickname", "gamertag"), lambda r, _: _username(r)),
    (_named("screen"), lambda r, _: _username(r)),
    (_named("first", "given"), lambda r, _: r.choice(FIRST_NAMES)),
    (_named("last", "family", "sur"), lambda r, _: r.choice(LAST_NAMES)),
    (_has("surname"), lambda r, _: r.choice(LAST_NAMES)),
    (_has("birth", "birthday", "dob", "born"), lambda r, _: _birthday(r)),
    (_last("date", "day", "on"), lambda _, when: when().date().isoformat()),
    (_last("at", "time", "timestamp", "datetime", "ts"), lambda _, when: when().isoformat() + "Z"),
    (_has("city", "town", "location"), lambda r, _: r.choice(CITIES)),
    (_has("country", "region"), lambda r, _: r.choice(COUNTRIES)),
    (_has("address", "street"), lambda r, _: f"{r.randint(1, 250)} {r.choice(NOUNS).title()} Street"),
    (_has("zip", "postal", "postcode"), lambda r, _: f"{r.randint(10000, 99999)}"),
    (_has("genre"), lambda r, _: r.choice(GENRES)),
    (_has("color", "colour"), lambda r, _: r.choice(COLORS)),
    (_has("status", "state"), lambda r, _: r.choice(STATUSES)),
    (_has("role", "job", "occupation", "position"), lambda r, _: r.choice(ROLES)),
    (_has("language", "lang", "locale"), lambda r, _: r.choice(LANGUAGES)),
    (_has("currency"), lambda r, _: r.choice(CURRENCIES)),
    (_has("timezone", "tz"), lambda r, _: r.choice(TIMEZONES)),
    (
        _has(
            "team",
            "club",
            "guild",
            "clan",
            "company",
            "organization",
            "org",
            "label",
            "publisher",
            "studio",
            "brand",
            "venue",
        ),
        lambda r, _: _org(r),
    ),  # fmt: skip
    (lambda t: bool(LONG_TEXT_WORDS.intersection(t)), lambda r, _: paragraph(r)),
    (lambda t: bool(TITLE_WORDS.intersection(t)), lambda r, _: title(r)),
    (_named(*PERSON_WORDS), lambda r, _: person(r)),
    (_has("name"), lambda r, _: title(r)),
    (_has("code", "sku", "ref", "reference", "ticker", "key", "token"), lambda r, _: _code(r)),
    (_has("slug"), lambda r, _: f"{r.choice(ADJECTIVES)}-{r.choice(NOUNS)}"),
    (_has("password", "secret", "hash", "digest"), lambda r, _: f"{r.getrandbits(64):016x}"),
    (_has("ip"), lambda r, _: f"192.0.2.{r.randint(1, 254)}"),
)


def text_for(tokens: Tokens, rng: random.Random, when: Clock) -> str:
    """A string that the property name suggests; two plain words when nothing matches."""
    for matches, make in TEXT_RULES:
        if matches(tokens):
            return make(rng, when)
    return f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"


NUMBER_RANGES: tuple[tuple[Callable[[Tokens], bool], tuple[int, int]], ...] = (
    (lambda t: bool(t) and t[-1] in ("id", "key", "pk", "fk"), (1, 9999)),
    (_has("lat", "latitude"), (-90, 90)),
    (_has("lon", "lng", "longitude"), (-180, 180)),
    (_has("age"), (18, 80)),
    (_has("year"), (1970, 2025)),
    (_has("month"), (1, 12)),
    (_has("hour"), (0, 23)),
    (_has("rating", "stars"), (1, 5)),
    (_has("percent", "pct", "percentage"), (0, 100)),
    (_has("price", "amount", "cost", "fee", "salary", "balance", "budget"), (1, 500)),
    (_has("duration", "seconds", "secs", "length", "ms", "minutes"), (30, 600)),
    (_has("rank", "position", "order", "index", "seq", "priority", "number", "no"), (1, 50)),
    (_has("score", "points", "kills", "deaths", "assists", "level", "xp", "wins", "losses"), (0, 100)),
    (
        _has(
            "count",
            "num",
            "quantity",
            "qty",
            "total",
            "plays",
            "views",
            "likes",
            "followers",
            "size",
            "capacity",
            "seats",
        ),
        (0, 1000),
    ),  # fmt: skip
)


def numeric_range(tokens: Tokens) -> tuple[int, int] | None:
    """The usual range of a numeric property with this name, or None when the name says nothing."""
    for matches, bounds in NUMBER_RANGES:
        if matches(tokens):
            return bounds
    return None
