"""Game names and texts: clan names, clan descriptions, in-game mail, and epic phrases for skins and items."""

from __future__ import annotations

from pipeline.fill.grammar import Grammar

EPIC_ADJ = (
    "Crimson Jade Iron Shadow Golden Silver Frost Ember Void Azure Obsidian Scarlet Celestial Ancient "
    "Eternal Savage Silent Thunder Moonlit Burning Frozen Wild Royal Cursed Blessed Fallen Rising Phantom "
    "Radiant Dark Arcane Steel Venom Night Solar Lunar Twilight Blood"
)
EPIC_NOUN = (
    "Dragon Phoenix Wolf Tiger Blade Crown Lotus Serpent Falcon Raven Titan Warden Knight Sentinel Storm "
    "Spirit Empress Emperor Ronin Samurai Valkyrie Reaper Oracle Hunter Ranger Guardian Legend Comet "
    "Tempest Fang Claw Shield Spear Arrow Flame Tide Dawn Eclipse Viper Lion Bear Hawk Mantis Scorpion "
    "Sage Monk"
)
EPIC_NOUNS = (
    "Wolves Dragons Tigers Blades Crowns Knights Titans Wardens Ravens Falcons Legends Reapers Hunters "
    "Rangers Guardians Sentinels Phantoms Spirits Samurai Valkyries Lions Serpents Vipers Hawks Monks "
    "Outlaws Nomads Raiders Rebels Kings Queens Saints Renegades Vanguard Immortals"
)
ORDER = "Legion Order Guild Clan Alliance Covenant Brotherhood Syndicate Dynasty Empire Pact Tribe Squad Crew"
REALM = (
    "the North|the East|the Jade Sea|the Abyss|the Canyon|the Storm|the Ninth Gate|the Red Moon|the Void|"
    "the Silk Road|the Dawn|the Frozen Peaks|the River Kingdom|Eternity"
)
CLAN_NAME = Grammar.of(
    ("{adj} {nouns}", 8),
    ("{adj} {noun} {order}", 3),
    ("{adj} {order}", 5),
    ("{noun} {order}", 4),
    ("{nouns} of {realm}", 3),
    ("The {adj} {noun}", 2),
    ("House of the {noun}", 1),
    ("{noun} & {noun}", 1),
    adj=EPIC_ADJ, noun=EPIC_NOUN, nouns=EPIC_NOUNS, order=ORDER, realm=REALM,
)
EPIC_PHRASE = Grammar.of(
    ("{adj} {noun}", 6),
    ("{noun} of {realm}", 2),
    ("The {adj} {noun}", 2),
    ("{noun}", 1),
    adj=EPIC_ADJ, noun=EPIC_NOUN, realm=REALM,
)

CLAN_DESCRIPTION = Grammar.of(
    ("{tone} clan for {kind} players. {rule}.", 5),
    ("{tone} clan, active {when}. {rule}.", 4),
    ("Recruiting {role} mains for {mode}. {rule}.", 3),
    ("We push {mode} {when}. {rule}.", 3),
    ("{tone} group of friends from {region}, all ranks welcome.", 2),
    tone="Friendly|Chill|Competitive|Active|Casual|Tryhard|Family-friendly|Veteran|Social|Hardcore",
    kind="ranked|casual|late-night|weekend|competitive|new|returning|mid-lane|jungle",
    when="every evening|on weekends|daily|after 8 pm|most nights|during events",
    rule=(
        "Level 20+ only|Discord required|Be online at least three days a week|No toxicity|Help each other "
        "climb|Inactive for 14 days means kick|Mic preferred|Join the weekly clan war|Diamond and above|"
        "Friendly banter welcome"
    ),
    role="tank|support|jungle|mage|marksman|assassin|fighter",
    mode="ranked|peak tournaments|clan wars|brawl|five-stacks",
    region="the same city|Southeast Asia|Europe|Latin America|the east coast|different time zones",
)

MAIL = Grammar.of(
    ("Thanks for playing! Your {reward} is attached.", 3),
    ("Congratulations on reaching {tier}! Claim your {reward} before it expires.", 3),
    ("Sorry for the downtime during {incident}. Here is a {reward} as compensation.", 2),
    ("Welcome back, {title}! A {reward} is waiting for you.", 2),
    ("gg {when_past}, want to {play} {when}?", 3),
    ("Thanks for the carry {when_past}! Let's {play} {when}.", 2),
    ("Clan war starts {when}, don't forget to sign up.", 2),
    ("Happy birthday! Enjoy this {reward} from the team.", 1),
    ("Your {hero} build is amazing, can you share the runes?", 1),
    ("Season {season} ends {when}: claim your {reward} now.", 2),
    ("I'm online {when} if you need a {role} for {mode}.", 2),
    reward=(
        "reward|gift pack|skin voucher|hero trial card|diamond bonus|rune fragments|ranked protection card|"
        "battle pass XP boost|gold bonus|lucky chest|emote|avatar frame"
    ),
    tier="Gold|Platinum|Diamond|Starshine|Master|Grandmaster|King|a new season rank",
    when="tonight|tomorrow|this weekend|after work|later|on Saturday|on Sunday|in an hour",
    when_past="last night|earlier|yesterday|this morning|in that last match",
    play="duo|queue|run ranked|try peak|play brawl",
    incident="maintenance|the server outage|the login issue|the update",
    title="commander|hero|legend|warrior|captain",
    hero="Li Bai|Hua Mulan|Daji|Zhuge Liang|Hou Yi|Sun Wukong|Angela|Arthur|Luna|Kai",
    season="28 29 30 31 32 33 34 35 36 37 38 39",
    role="tank|support|jungler|mage|marksman",
    mode="ranked|peak|clan war|brawl",
)
