"""Words shared by the vocabularies, and the generic ones used where a column's meaning is unknown.

Generic values are short plausible phrases ("Quiet Harbor", "Northern Lantern") and plain sentences
("The team reviewed the latest numbers."), never lorem ipsum: a reader takes them for data.
"""

from __future__ import annotations

from pipeline.fill.grammar import Grammar

FIRST = (
    "Aisha Alex Amara Ana Andre Anna Arjun Ava Ben Bianca Carlos Chen Chloe Daniel David Diego Elena Emma "
    "Ethan Fatima Felix Gabriel Grace Hana Hannah Hiro Ines Isaac Ivan Jack James Jin Jonas Jordan Julia "
    "Kai Karim Kate Kenji Laura Leo Lucas Luis Maya Mei Mia Mohammed Nadia Naomi Nina Noah Olivia Omar "
    "Oscar Pablo Priya Rafael Ravi Rosa Ryan Sam Sara Sofia Tariq Tom Uma Victor Wei Yara Yuki Zoe Zara "
    "Lena Marco Amir Ines Kofi Ngozi Sven Freya Mateo Lucia Tomas Eva Rahul Anika Joon Soo-ah Liam Nora "
    "Hugo Alice Theo Camille"
)

GENERIC_ADJ = (
    "Silver Quiet Northern Bright Hidden Golden Open Little Blue Green Wild Gentle Clear Rapid Simple "
    "Brave Early Second Central Eastern Western Southern Upper Lower Grand Royal Sunny Misty Cedar Maple "
    "Amber Coral Ivory Crimson Scarlet Violet Urban Rustic Modern Classic Cosy Hidden Lucky Swift Calm "
    "Steady"
)
GENERIC_NOUN = (
    "Harbor Garden Summit Bridge Meadow Lantern Valley River Orchard Harvest Beacon Canyon Market Studio "
    "Workshop Gallery Station Corner Square Terrace Grove Forest Island Lake Ridge Field Trail Path Gate "
    "Tower Hall Court House Point Bay Creek Hill Spring Falls Haven Pier Quarter Circle Works Collective "
    "Project Journal Edition Series Story Chapter Notes Table Room Club"
)
PHRASE = Grammar.of(
    ("{adj} {noun}", 6),
    ("{adj} {noun} {noun}", 1),
    ("The {adj} {noun}", 2),
    ("{noun} {noun}", 2),
    ("{noun}", 1),
    adj=GENERIC_ADJ, noun=GENERIC_NOUN,
)
TITLE = Grammar.of(
    ("The {adj} {noun}", 3),
    ("{adj} {noun}", 3),
    ("{noun} of the {adj} {noun}", 2),
    ("A {adj} {noun}", 1),
    ("{adj} {noun} and the {noun}", 1),
    adj=GENERIC_ADJ, noun=GENERIC_NOUN,
)

SUBJECT = (
    "The team|Our customers|The new process|The latest release|This option|The report|The plan|Everyone|"
    "The project|The update|This change|The schedule|The office|Support|The pilot"
)
SENTENCE = Grammar.of(
    ("{subject} {verb} {object}.", 6),
    ("{subject} {verb} {object} {when}.", 4),
    ("Please {ask} {object} {when}.", 2),
    ("Thanks for {thanks}.", 1),
    ("More details {when}.", 1),
    subject=SUBJECT,
    verb=(
        "reviewed|improved|simplified|covers|needs|includes|replaced|shared|updated|tested|clarified|"
        "depends on|builds on|changed|explains"
    ),
    object=(
        "the latest numbers|the main steps|the open questions|the next milestone|the feedback|the timeline|"
        "the costs|the details|the summary|the first results|the new layout|the checklist|the key points"
    ),
    when="this week|next month|before the deadline|after the review|by Friday|soon|today|last quarter",
    ask="check|confirm|review|update|share|read",
    thanks="the quick reply|your patience|the feedback|the help|joining|the update",
)

JOB = (
    "Product designer|Nurse|Teacher|Software engineer|Photographer|Student|Chef|Architect|Data analyst|"
    "Writer|Barista|Physiotherapist|Marketing lead|Researcher|Carpenter|Illustrator|Accountant|Pilot"
)
BIO = Grammar.of(
    ("{job} based in {city}.", 4),
    ("Into {hobby}, {hobby} and {hobby}.", 3),
    ("{job} by day, {hobby} by night.", 2),
    ("Coffee first, then {hobby}.", 1),
    ("Originally from {city}, now somewhere between {city} and {city}.", 1),
    job=JOB,
    city=(
        "Lisbon|Berlin|Toronto|Austin|Manila|Lagos|Seoul|Melbourne|Mexico City|Mumbai|Leeds|Porto|Denver|"
        "Nairobi|Osaka|Bogota|Warsaw|Glasgow|Cape Town|Singapore"
    ),
    hobby=(
        "climbing|old maps|film photography|board games|sourdough|trail running|jazz records|chess|"
        "gardening|cycling|sci-fi|surfing|travel|street food|yoga|vinyl|hiking|pottery|live music"
    ),
)
COMMENT = Grammar.of(
    ("Great {thing}, thanks for sharing.", 3),
    ("Totally agree with the {detail}.", 2),
    ("Not sure about the {detail}, but the rest works for me.", 2),
    ("This is exactly what I needed {when}.", 2),
    ("Could you say more about the {detail}?", 2),
    ("Love the {detail}.", 2),
    ("Same here, {reaction}.", 2),
    ("The {detail} could be clearer, {advice}.", 2),
    ("Tried this {when} and it {result}.", 2),
    ("{greeting}, {reaction}.", 1),
    thing="post|idea|write-up|find|tip|update|summary|guide|list|photo|story|thread",
    detail=(
        "second part|timing|price|details|ending|last point|examples|layout|first step|title|numbers|"
        "wording|colours|intro|conclusion|chart|sources"
    ),
    reaction=(
        "happened to me last week|can confirm|good to know|glad it's not just me|saving this for later|"
        "this made my day|bookmarked|sharing with my team"
    ),
    when="today|this morning|last night|at work|this week|on the weekend|again",
    advice="maybe add an example|maybe split it in two|maybe a short summary first|maybe a picture",
    result="worked|worked on the second try|saved me an hour|did not work for me|mostly worked",
    greeting="Thanks|Wow|Nice|Honestly|Ha",
)
