"""Music names: song and album titles, artist names (person, band, duo, DJ, orchestra, choir), playlists.

Word lists written for this project; templates follow the shapes real catalogues use ("Golden Hour",
"Chasing Cars", "Streets of Gold", "Hold Me Closer", "The Velvet Hour", "Live at the Roundhouse").
"""

from __future__ import annotations

from pipeline.fill.grammar import Grammar
from pipeline.fill.vocab.common import FIRST

ADJ = (
    "Golden Paper Electric Silver Broken Velvet Wild Lonely Sweet Bitter Little Endless Crimson Blue Quiet "
    "Restless Faded Hollow Frozen Gentle Heavy Honest Secret Sacred Silent Distant Northern Southern Lucky "
    "Reckless Tender Violet Amber Crystal Easy Fragile Holy Hungry Invisible Lost Modern Perfect Pretty "
    "Rainy Savage Shiny Slow Sunday Vintage Warm Young Cold Dark Bright Empty Happy Careless Dizzy "
    "Electric Famous Foreign Green Heavenly Lazy Liquid Loud Marble Midnight Mystic Naked Paper Pink "
    "Plastic Purple Radiant Rebel Rusty Salty Scarlet Shallow Sleepy Stolen Strange Sugar Summer Tired "
    "Toxic Twisted Ultraviolet Wicked Winter Wooden Yellow Static Hidden Brave Cosmic Dusty Gilded "
    "Lonesome Atomic Blissful Boundless Brilliant Clever Cruel Curious Dangerous Delicate Desperate "
    "Digital Dreamy Elegant Eternal Fearless Fierce Glowing Gorgeous Graceful Jealous Lovesick Luminous "
    "Magnetic Melancholy Mellow Nervous Nocturnal Precious Rough Sentimental Sleepless Soft Solid Stubborn "
    "Sudden Supersonic Tropical Unbroken Unknown Untamed Weightless"
)
NOUN = (
    "Heart Hour River Light Fire Dream Road Rain Sky Love Storm Ocean Moon Sun Star City Shadow Ghost "
    "Garden Window Mirror Highway Island Kiss Letter Memory Promise Satellite Signal Smoke Thunder Wave "
    "Wire Youth Horizon Paradise Parade Bloom Honey Gold Diamond Feather Flame Harbor Lullaby Echo Avenue "
    "Boulevard Carousel Coastline Daydream Fever Gravity Heartbeat Hurricane Lighthouse Machine Melody "
    "Motel Postcard Radio Riot Sunrise Sunset Tide Valentine Weekend Wildfire Season Daylight Twilight "
    "Afterglow Anthem Ballad Cathedral Compass Dancer Desert Diary Engine Escape Frontier Galaxy Halo "
    "Heaven Jungle Kingdom Lantern Maze Meadow Nightfall Orbit Pilot Planet Prayer Rhythm Rodeo Sailor "
    "Silence Skyline Stranger Tequila Thief Traffic Tunnel Universe Vacation Voyage Whisper Wonder "
    "Mountain Valley Canyon Freeway Rooftop Balcony Bedroom Kitchen Cigarette Champagne Lemonade Perfume "
    "Rainbow Snowfall Starlight Moonlight Sunshine Windmill Firefly Butterfly Goodbye Hello Lover Runaway "
    "Stereo Cassette Vinyl Neon Polaroid Marathon Apartment Arcade Atlas Autumn Avalanche Bandit Bayou "
    "Beacon Blossom Bonfire Bouquet Cabin Canvas Caravan Carnival Cascade Cinema Circus Citadel Clockwork "
    "Comet Constellation Coral Cradle Crossroads Crown Current Dynamo Eclipse Ember Empire Envelope "
    "Fountain Gallery Glacier Hideaway Hologram Hotel Jukebox Labyrinth Lagoon Locket Marigold Masquerade "
    "Metro Mirage Monsoon Nectar Oasis Orchard Palace Pavement Penthouse Pinball Porcelain Prism Quicksand "
    "Railway Ribbon Sanctuary Shoreline Sidewalk Souvenir Spiral Stadium Subway Telescope Tornado "
    "Trampoline Voltage Waterfall Whirlwind Wishbone"
)
NOUNS = (
    "Cars Bridges Stars Lights Hearts Dreams Ghosts Roses Waves Kings Wolves Diamonds Horses Flowers "
    "Lovers Strangers Sirens Shadows Mountains Rivers Fireworks Butterflies Cigarettes Headlights "
    "Streetlights Secrets Promises Memories Bullets Wings Angels Monsters Machines Daydreams Oceans "
    "Feathers Letters Cities Satellites Summers Echoes Sparks Colors Tides Islands Tigers Birds Planets "
    "Kisses Highways Candles Mirrors Thieves Saints Sinners Soldiers Sailors Dancers Pilots Giants Heroes "
    "Ghosts Oranges Cherries"
)
GERUND = (
    "Chasing Dancing Falling Running Burning Waiting Holding Dreaming Breaking Counting Driving Drowning "
    "Fading Flying Losing Missing Riding Saving Shaking Singing Sleeping Stealing Talking Walking Watching "
    "Wishing Calling Catching Crossing Fighting Finding Hiding Leaving Lighting Painting Racing Sailing "
    "Spinning Swimming Waking Wandering Whistling Kissing Building Climbing"
)
VERB = (
    "Hold Take Let Call Save Kiss Lead Tell Show Wake Leave Love Find Catch Carry Follow Bring Meet Pull "
    "Move Teach Help Forgive Remember Trust Set Hug Need Give Want Keep Lift Send Walk Drive Dance"
)
ADVERB = "Home Closer Down Back Now Slowly Tonight Again Away Under Higher Gently Forever Anyway Softly Right"
PLACE = (
    "California|Tokyo|Paris|Brooklyn|Memphis|Berlin|Havana|Rome|Nashville|Lisbon|Seoul|Mexico|Montana|"
    "Tennessee|Georgia|Santa Fe|Barcelona|London|Manhattan|Carolina|Texas|Vegas|Venice|Amsterdam|Dublin|"
    "Rio|Kingston|Lagos|Istanbul|Marrakech|Malibu|Harlem|Detroit|Chicago|Miami|Phoenix|Denver|Cairo|"
    "Shanghai|Bangkok|Oslo|Stockholm|Glasgow|Austin|Atlanta|New Orleans|San Juan|Bombay|Osaka|Mumbai|"
    "Bristol"
)
TIME = (
    "Nights Days Summer Mornings Evenings Sundays Weekends Afternoon Midnight Dawn Winter December July "
    "October Forever Tonight Yesterday Tomorrow Springtime"
)
IN_THE = (
    "Rain Dark Dust Kitchen Backseat Morning Water Wind Sky Snow Sun Garden Streets City Valley Night Dark "
    "Deep End Afterglow Mirror Moonlight Summertime Static Fog Crowd Attic Basement Desert Storm Ocean"
)
ON_THE = (
    "Highway Rooftop Boulevard Coastline River Moon Radio Freeway Balcony Dancefloor Beach Bridge Wire Run "
    "Line Edge Floor Road Wall Water Weekend Horizon Border Phone Stairs Roof Other Side"
)
VERSION = (
    "Acoustic|Live|Remix|Demo|Radio Edit|Remastered|Piano Version|Stripped|Extended Mix|Reprise|Interlude"
)

SONG_TITLE = Grammar.of(
    ("{adj} {noun}", 10),
    ("{gerund} {nouns}", 5),
    ("{noun}", 2),
    ("{nouns} of {place}", 2),
    ("{noun} in the {in_the}", 3),
    ("{verb} Me {adverb}", 3),
    ("Don't {verb} Me {adverb}", 1),
    ("{place} {time}", 3),
    ("Back to {place}", 1),
    ("All the {adj} {nouns}", 2),
    ("The {noun} We {verb}", 1),
    ("{adj} {nouns}", 4),
    ("{noun} on the {on_the}", 2),
    ("{adj} {noun} ({version})", 0.5),
    ("{gerund} {adverb}", 2),
    ("{gerund} {adj} {nouns}", 2),
    ("{noun} of {adj} {nouns}", 2),
    ("{adj} {noun} in the {in_the}", 1),
    ("{adj} {nouns} on the {on_the}", 1),
    adj=ADJ, noun=NOUN, nouns=NOUNS, gerund=GERUND, verb=VERB, adverb=ADVERB, place=PLACE, time=TIME,
    version=VERSION, in_the=IN_THE, on_the=ON_THE,
)

VENUE = (
    "the Roundhouse|the Fillmore|Red Rocks|the Apollo|the Troubadour|the Blue Note|Montreux|the Royal "
    "Albert Hall|the Ryman|Budokan|the Paradiso|the Olympia|the Hollywood Bowl|Glastonbury|the Village "
    "Vanguard"
)
ROMAN = "II III IV V VI VII"
ALBUM_TITLE = Grammar.of(
    ("{nouns}", 3),
    ("The {adj} {noun}", 5),
    ("{adj} {noun}", 6),
    ("{place} Sessions", 1),
    ("Songs for {nouns}", 2),
    ("Songs from the {noun}", 1),
    ("Live at {venue}", 1),
    ("{noun} & {noun}", 3),
    ("A {noun} in {place}", 2),
    ("{noun}, Vol. {roman}", 1),
    ("{adj} {nouns} (Deluxe Edition)", 1),
    ("Notes on {noun}", 1),
    ("{gerund} {nouns}", 2),
    ("After the {noun}", 1),
    ("The {adj} {noun} of {place}", 2),
    ("{nouns} of the {adj} {noun}", 1),
    adj=ADJ, noun=NOUN, nouns=NOUNS, gerund=GERUND, place=PLACE, venue=VENUE, roman=ROMAN,
)

ROOT = (
    "Sun Moon Star Glass Iron Silver Night Wolf Fire Stone Ocean River Sky Echo Gold Rain Snow Storm Cloud "
    "Wild Black White Red Blue Green Bright Dark Velvet Honey Paper Neon Crystal Ember Ash Frost Thunder"
)
SUFFIX = "field light fall wave house bird line side gate town beat shine heart fly wood bloom tide road"
BAND = Grammar.of(
    ("The {nouns}", 4),
    ("The {adj} {nouns}", 5),
    ("{adj} {nouns}", 3),
    ("{noun} {nouns}", 3),
    ("{noun} & the {nouns}", 2),
    ("{root}{suffix}", 4),
    ("{place} {nouns}", 1),
    adj=ADJ, noun=NOUN, nouns=NOUNS, root=ROOT, suffix=SUFFIX, place=PLACE,
)
DJ = Grammar.of(
    ("DJ {root}{suffix}", 2),
    ("{root}{suffix}", 3),
    ("{adj} {noun}", 1),
    ("{root} {roman}", 1),
    adj=ADJ, noun=NOUN, root=ROOT, suffix=SUFFIX, roman=ROMAN,
)
ENSEMBLE_CITY = (
    "London|Berlin|Vienna|Chicago|Boston|Cleveland|Philadelphia|Los Angeles|San Francisco|Amsterdam|Oslo|"
    "Helsinki|Prague|Budapest|Tokyo|Seoul|Sydney|Toronto|Montreal|Dresden|Leipzig|Munich|Zurich|Lyon|"
    "Birmingham|Manchester|Dublin|Warsaw|Copenhagen|Stockholm|Madrid|Lisbon|Milan|Rotterdam|Bergen"
)
ORCHESTRA = Grammar.of(
    ("{city} Symphony Orchestra", 4),
    ("{city} Philharmonic", 3),
    ("{city} Chamber Orchestra", 2),
    ("{city} Baroque Ensemble", 1),
    ("{city} String Quartet", 1),
    city=ENSEMBLE_CITY,
)
CHOIR = Grammar.of(
    ("{city} Chamber Choir", 3),
    ("{city} Gospel Choir", 2),
    ("{city} Boys Choir", 1),
    ("{city} Youth Choir", 1),
    ("The {city} Singers", 2),
    city=ENSEMBLE_CITY,
)

GENRE = (
    "Indie|Lo-Fi|Jazz|Hip-Hop|R&B|House|Techno|Soul|Funk|Pop|Rock|Acoustic|Classical|Ambient|K-Pop|Latin|"
    "Reggaeton|Country|Folk|Disco|Afrobeats|Metal|Punk|Blues|Bossa Nova|Indie Pop|Synthwave|Neo-Soul|Dance"
)
ACTIVITY = (
    "Study|Workout|Running|Cooking|Commute|Focus|Sleep|Reading|Gaming|Yoga|Coding|Driving|Cleaning|Dinner|"
    "Coffee|Party|Pregame|Beach Day|Road Trip|Rainy Days|Sunday Morning|Date Night|Shower|Gym|Deep Work"
)
MOOD = (
    "Chill|Happy|Sad|Mellow|Upbeat|Dreamy|Moody|Cozy|Feel-Good|Late Night|Golden Hour|Rainy Day|Summer|"
    "Autumn|Winter|Sunny|Calm|Hype|Nostalgic|Heartbreak"
)
COMMON_PLAYLISTS = (
    "Workout|Road Trip|Late Night|Focus|Throwbacks|Sunday Morning|Study Beats|Rainy "
    "Day|Summer Hits|Sad Songs|Gym|Cooking|Sleep|Discoveries|Running|Dinner Jazz|Coffee Shop|Wedding|"
    "Commute|Deep Focus|Old School|Liked Songs Mix|On Repeat|Car Songs|Good Vibes|Shower Songs|Bangers|"
    "Favourites"
)
DECADE = "60s 70s 80s 90s 2000s 2010s"
YEAR = "2018 2019 2020 2021 2022 2023 2024 2025 2026"
SEASON = "Summer Winter Spring Autumn Fall"
PLAYLIST_NAME = Grammar.of(
    ("{common}", 2),
    ("{mood} {activity}", 5),
    ("{activity} Mix", 3),
    ("{genre} Essentials", 2),
    ("{genre} for {activity}", 3),
    ("{mood} Vibes", 2),
    ("{decade} {genre}", 2),
    ("{genre} Throwbacks", 1),
    ("{season} {year}", 2),
    ("Favourites {year}", 1),
    ("Songs for {activity}", 2),
    ("{mood} {genre}", 3),
    ("{activity} Playlist", 1),
    ("{first}'s {mix}", 2),
    ("{mood} {activity} {mix}", 2),
    ("{genre} & {genre}", 1),
    ("{decade} {genre} {mix}", 1),
    first=FIRST, mix="Mix|Playlist|Picks|Favourites|Rotation|Jams|Songs|Tunes|Essentials|Selects",
    common=COMMON_PLAYLISTS, mood=MOOD, activity=ACTIVITY, genre=GENRE, decade=DECADE, season=SEASON,
    year=YEAR,
)
