"""Music texts: artist bios, comments under songs, playlist and genre descriptions.

Pronouns are "they"/"their" throughout, so a text never contradicts the name beside it.
"""

from __future__ import annotations

from pipeline.fill.grammar import Grammar
from pipeline.fill.vocab.music import ACTIVITY, ENSEMBLE_CITY, GENRE, MOOD, PLACE

GENRE_LOWER = (
    "indie pop|lo-fi hip-hop|jazz|soul|funk|folk|house|techno|ambient|R&B|punk|garage rock|synth-pop|bossa "
    "nova|afrobeats|reggae|country|blues|gospel|trap|drum and bass|dream pop|post-rock|disco|neo-soul|"
    "electronica|chamber pop|psychedelic rock|bluegrass|cumbia|K-pop|city pop|shoegaze"
)
TRAIT = (
    "warm vocals|sparse arrangements|big choruses|intricate guitar work|hypnotic grooves|lush harmonies|"
    "energetic live shows|confessional lyrics|tight rhythm sections|cinematic strings|playful wordplay|"
    "heavy basslines|falsetto hooks|vintage synths|raw recordings|clever sampling|soaring melodies|hushed "
    "storytelling|brass-heavy arrangements|late-night atmospheres"
)
DESCRIPTOR = (
    "Singer-songwriter|Producer|Rapper|Pianist|Guitarist|Vocalist|Multi-instrumentalist|Band|Four-piece "
    "band|Duo|Collective|Trio|Composer|DJ and producer"
)
YEARS = " ".join(str(y) for y in range(1978, 2025))
RELEASE = "debut album|first EP|breakout single|second record|latest album|live album"
TOUR = "Europe|North America|Japan|Latin America|the UK|Australia|Southeast Asia|festival stages worldwide"

CITY = PLACE + "|" + ENSEMBLE_CITY
REPERTOIRE = (
    "Baroque and early music|the Romantic repertoire|new commissions and film scores|Bach cantatas|"
    "contemporary classical music|Mozart and Haydn|sacred music|opera choruses|twentieth-century works"
)


def _bio_first(descriptor: str) -> Grammar:
    """Opening sentences of a bio for acts described as one of `descriptor`."""
    return Grammar.of(
        ("{descriptor} from {city} blending {genre} and {genre}.", 4),
        ("{descriptor} based in {city}, known for {trait} and {trait}.", 4),
        ("{descriptor} from {city} whose {genre} is built on {trait}.", 2),
        descriptor=descriptor, city=CITY, genre=GENRE_LOWER, trait=TRAIT,
    )


def _ensemble_first(descriptor: str) -> Grammar:
    return Grammar.of(
        ("{descriptor} from {city} performing {repertoire}.", 3),
        ("{descriptor} based in {city}, known for {repertoire}.", 2),
        ("Founded in {city} in {year}, the {lower} focuses on {repertoire}.", 2),
        descriptor=descriptor, lower=descriptor.lower(), city=ENSEMBLE_CITY, repertoire=REPERTOIRE,
        year=YEARS,
    )


BIO_FIRST = _bio_first("Artist|Act|Music project|Songwriter")
BIO_BY_KIND = {
    "solo": _bio_first("Singer-songwriter|Producer|Rapper|Pianist|Guitarist|Vocalist|Multi-instrumentalist"),
    "band": _bio_first("Band|Four-piece band|Five-piece band|Rock trio|Indie band|Collective"),
    "duo": _bio_first("Duo|Sibling duo|Production duo|Songwriting duo"),
    "dj": _bio_first("DJ and producer|Producer|Selector and producer|DJ"),
    "orchestra": _ensemble_first("Orchestra|Chamber orchestra|Ensemble|String ensemble"),
    "choir": _ensemble_first("Choir|Vocal ensemble|Chamber choir|Gospel choir"),
}
BIO_MORE = Grammar.of(
    ("Their {release} came out in {year}.", 3),
    ("They have toured {tour} since {year}.", 2),
    ("Known for {trait}.", 2),
    ("Their {release} was recorded in {city} in under a month.", 1),
    ("They are currently working on new music.", 1),
    ("Expect {trait} and {trait}.", 1),
    ("Fans love their {trait}.", 1),
    release=RELEASE, year=YEARS, tour=TOUR, trait=TRAIT, city=PLACE,
)

PART = (
    "chorus|bridge|bassline|drop|outro|intro|second verse|guitar solo|harmonies|beat|hook|piano part|drums|"
    "synth line|last minute|key change|string section|backing vocals|lyrics|production"
)
PRAISE = (
    "perfect|unreal|so underrated|pure gold|everything|stunning|addictive|beautiful|insane|chef's kiss|"
    "criminally underrated|a masterpiece|haunting|so good|on another level|timeless"
)
PERIOD = (
    "a rough year|my exams|a breakup|lockdown|a long winter|my first year abroad|night shifts|college|a "
    "move to a new city|a hard week|my thesis|training for a marathon|a long recovery"
)
WHO = "my dad|my sister|my best friend|my partner|my roommate|my mom|a stranger on the train|my kids"
COMMENT = Grammar.of(
    ("The {part} is {praise}.", 5),
    ("This song got me through {period}.", 3),
    ("Who's still listening in {year}?", 2),
    ("On repeat since the day it came out.", 1),
    ("Saw them live in {place} and this one was the highlight.", 2),
    ("That {part} at {minute}:{second} gives me chills.", 3),
    ("Perfect song for {activity}.", 3),
    ("Reminds me of summers in {place}.", 2),
    ("Underrated. The {part} alone deserves more streams.", 1),
    ("{who} showed me this and now I can't stop playing it.", 2),
    ("Added to my {mood} playlist.", 2),
    ("Found this on a {mood} playlist, no regrets.", 1),
    ("Still the best thing they ever made.", 1),
    ("Playing this at my wedding.", 1),
    part=PART, praise=PRAISE, period=PERIOD, year="2023 2024 2025 2026", place=PLACE, minute="0 1 2 3 4",
    second="05 12 17 23 31 38 44 52 58", activity=ACTIVITY.lower(), mood=MOOD.lower(), who=WHO,
)
COMMENT_MORE = Grammar.of(
    ("The {part} is {praise}.", 3),
    ("Need a live version.", 1),
    ("Can't wait for the album.", 1),
    ("Greetings from {place}!", 2),
    ("{year} and still on repeat.", 1),
    ("Thank you for this.", 1),
    part=PART, praise=PRAISE, place=PLACE, year="2023 2024 2025 2026",
)

OCCASION = (
    "late nights|long drives|slow mornings|rainy afternoons|summer evenings|your commute|deep work|dinner "
    "with friends|the gym|lazy Sundays|getting ready|a night in"
)
PLAYLIST_DESCRIPTION = Grammar.of(
    ("The best of {genre} for {occasion}.", 4),
    ("{mood} tracks for {occasion}, updated every {weekday}.", 3),
    ("A mix of {genre} and {genre} for {occasion}.", 3),
    ("Hand-picked {genre} for {occasion}.", 3),
    ("Songs to {verb} to.", 2),
    ("Everything I had on repeat in {month}.", 2),
    ("{mood} {genre}, no skips.", 2),
    genre=GENRE_LOWER, occasion=OCCASION, mood=MOOD, weekday="Monday Friday Sunday",
    verb="study|run|cook|dance|drive|unwind|focus|fall asleep|clean the house",
    month="January February March April May June July August September October November December",
)
GENRE_DESCRIPTION = Grammar.of(
    ("Music built on {trait} and {trait}.", 3),
    ("A style rooted in {scene}, known for {trait}.", 3),
    ("Grew out of {scene} and still lives on {trait}.", 2),
    ("Ranges from {trait} to {trait}.", 2),
    trait=TRAIT,
    scene=(
        "1970s club culture|church choirs|Jamaican sound systems|bedroom studios|underground raves|dance "
        "halls|coffeehouse open mics|college radio|street parties|jazz clubs|film scores"
    ),
)
DESCRIPTION_MUSIC = Grammar.of(
    ("{mood} {genre} with {trait}.", 3),
    ("A {genre} record full of {trait}.", 2),
    mood=MOOD, genre=GENRE, trait=TRAIT,
)
