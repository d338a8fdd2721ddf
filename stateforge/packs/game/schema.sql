-- 5v5 MOBA (modelled on Honor of Kings). Dialect: DuckDB.
--
-- Foreign keys are declared for the schema model; Stateforge does not declare them to DuckDB.
-- players.invited_by_player_id is a self-reference (nullable). Composite keys: match_events
-- (match_id, actor_slot) references match_participants (match_id, slot); friendships, link tables and
-- building blocks of rune pages and builds have composite primary keys.

CREATE TYPE team_side AS ENUM ('blue', 'red');

CREATE TABLE players (
    player_id            BIGINT      PRIMARY KEY,
    nickname             VARCHAR(24) NOT NULL UNIQUE,
    server_region        VARCHAR(8)  NOT NULL
                                     CHECK (server_region IN ('na', 'eu', 'sea', 'latam', 'mena', 'cn_east', 'cn_south')),
    account_level        SMALLINT    NOT NULL DEFAULT 1 CHECK (account_level BETWEEN 1 AND 30),
    gold                 BIGINT      NOT NULL DEFAULT 0 CHECK (gold >= 0),
    diamonds             INTEGER     NOT NULL DEFAULT 0 CHECK (diamonds >= 0),
    credit_score         SMALLINT    NOT NULL DEFAULT 100 CHECK (credit_score BETWEEN 0 AND 110),
    invited_by_player_id BIGINT      REFERENCES players (player_id) ON DELETE SET NULL,
    created_at           TIMESTAMP   NOT NULL,
    last_login_at        TIMESTAMP,
    banned_until         TIMESTAMP,
    CHECK (invited_by_player_id IS NULL OR invited_by_player_id <> player_id),
    CHECK (last_login_at IS NULL OR last_login_at >= created_at)
);

CREATE TABLE hero_roles (
    role_id     SMALLINT     PRIMARY KEY,
    name        VARCHAR(20)  NOT NULL UNIQUE,
    description VARCHAR(300)
);

CREATE TABLE heroes (
    hero_id          SMALLINT    PRIMARY KEY,
    name             VARCHAR(40) NOT NULL UNIQUE,
    title            VARCHAR(80),
    role_id          SMALLINT    NOT NULL REFERENCES hero_roles (role_id) ON DELETE RESTRICT,
    lane             VARCHAR(8)  NOT NULL CHECK (lane IN ('clash', 'mid', 'farm', 'jungle', 'roam')),
    attack_type      VARCHAR(8)  NOT NULL CHECK (attack_type IN ('melee', 'ranged')),
    difficulty       SMALLINT    NOT NULL DEFAULT 1 CHECK (difficulty BETWEEN 1 AND 3),
    price_gold       INTEGER     NOT NULL CHECK (price_gold BETWEEN 0 AND 20000),
    price_diamonds   INTEGER     NOT NULL CHECK (price_diamonds BETWEEN 0 AND 2000),
    base_hp          INTEGER     NOT NULL CHECK (base_hp BETWEEN 2000 AND 5000),
    released_on      DATE        NOT NULL,
    is_free_rotation BOOLEAN     NOT NULL DEFAULT FALSE
);

CREATE TABLE skins (
    skin_id        INTEGER     PRIMARY KEY,
    hero_id        SMALLINT    NOT NULL REFERENCES heroes (hero_id) ON DELETE CASCADE,
    name           VARCHAR(60) NOT NULL,
    rarity         VARCHAR(10) NOT NULL CHECK (rarity IN ('common', 'rare', 'epic', 'legendary', 'mythic')),
    price_diamonds INTEGER     NOT NULL CHECK (price_diamonds >= 0),
    released_on    DATE        NOT NULL,
    is_limited     BOOLEAN     NOT NULL DEFAULT FALSE,
    UNIQUE (hero_id, name)
);

CREATE TABLE player_heroes (
    player_id          BIGINT    NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    hero_id            SMALLINT  NOT NULL REFERENCES heroes (hero_id) ON DELETE CASCADE,
    acquired_at        TIMESTAMP NOT NULL,
    proficiency_points INTEGER   NOT NULL DEFAULT 0 CHECK (proficiency_points >= 0),
    matches_played     INTEGER   NOT NULL DEFAULT 0 CHECK (matches_played >= 0),
    wins               INTEGER   NOT NULL DEFAULT 0 CHECK (wins >= 0),
    PRIMARY KEY (player_id, hero_id),
    CHECK (wins <= matches_played)
);

CREATE TABLE player_skins (
    player_id   BIGINT      NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    skin_id     INTEGER     NOT NULL REFERENCES skins (skin_id) ON DELETE CASCADE,
    acquired_at TIMESTAMP   NOT NULL,
    source      VARCHAR(14) NOT NULL CHECK (source IN ('purchase', 'event', 'gift', 'season_reward', 'lottery')),
    is_equipped BOOLEAN     NOT NULL DEFAULT FALSE,
    PRIMARY KEY (player_id, skin_id)
);

CREATE TABLE items (
    item_id    SMALLINT    PRIMARY KEY,
    name       VARCHAR(40) NOT NULL UNIQUE,
    category   VARCHAR(10) NOT NULL CHECK (category IN ('attack', 'magic', 'defense', 'movement', 'jungle', 'support')),
    price_gold INTEGER     NOT NULL CHECK (price_gold BETWEEN 50 AND 4000),
    tier       SMALLINT    NOT NULL CHECK (tier BETWEEN 1 AND 3),
    is_active  BOOLEAN     NOT NULL DEFAULT TRUE
);

CREATE TABLE runes (
    rune_id SMALLINT     PRIMARY KEY,
    name    VARCHAR(30)  NOT NULL UNIQUE,
    color   VARCHAR(5)   NOT NULL CHECK (color IN ('red', 'blue', 'green')),
    level   SMALLINT     NOT NULL DEFAULT 5 CHECK (level BETWEEN 1 AND 5),
    bonus   VARCHAR(120) NOT NULL
);

CREATE TABLE rune_pages (
    page_id    INTEGER     PRIMARY KEY,
    player_id  BIGINT      NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    page_no    SMALLINT    NOT NULL CHECK (page_no BETWEEN 1 AND 50),
    name       VARCHAR(30) NOT NULL,
    is_default BOOLEAN     NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP   NOT NULL,
    UNIQUE (player_id, page_no)
);

CREATE TABLE rune_page_runes (
    page_id  INTEGER  NOT NULL REFERENCES rune_pages (page_id) ON DELETE CASCADE,
    rune_id  SMALLINT NOT NULL REFERENCES runes (rune_id) ON DELETE CASCADE,
    quantity SMALLINT NOT NULL DEFAULT 1 CHECK (quantity BETWEEN 1 AND 10),
    PRIMARY KEY (page_id, rune_id)
);

CREATE TABLE hero_builds (
    build_id   INTEGER     PRIMARY KEY,
    hero_id    SMALLINT    NOT NULL REFERENCES heroes (hero_id) ON DELETE CASCADE,
    player_id  BIGINT      REFERENCES players (player_id) ON DELETE CASCADE,
    name       VARCHAR(40) NOT NULL,
    is_public  BOOLEAN     NOT NULL DEFAULT TRUE,
    likes      INTEGER     NOT NULL DEFAULT 0 CHECK (likes >= 0),
    created_at TIMESTAMP   NOT NULL
);

CREATE TABLE build_items (
    build_id INTEGER  NOT NULL REFERENCES hero_builds (build_id) ON DELETE CASCADE,
    slot     SMALLINT NOT NULL CHECK (slot BETWEEN 1 AND 6),
    item_id  SMALLINT NOT NULL REFERENCES items (item_id) ON DELETE CASCADE,
    PRIMARY KEY (build_id, slot),
    UNIQUE (build_id, item_id)
);

CREATE TABLE seasons (
    season_id SMALLINT    PRIMARY KEY,
    name      VARCHAR(40) NOT NULL UNIQUE,
    starts_on DATE        NOT NULL,
    ends_on   DATE        NOT NULL,
    CHECK (ends_on > starts_on)
);

CREATE TABLE rank_history (
    record_id     BIGINT      PRIMARY KEY,
    player_id     BIGINT      NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    seq_no        INTEGER     NOT NULL CHECK (seq_no >= 1),
    recorded_at   TIMESTAMP   NOT NULL,
    tier          VARCHAR(12) NOT NULL
                              CHECK (tier IN ('bronze', 'silver', 'gold', 'platinum', 'diamond', 'starshine',
                                              'master', 'grandmaster', 'king')),
    stars         SMALLINT    NOT NULL DEFAULT 0 CHECK (stars BETWEEN 0 AND 100),
    change_reason VARCHAR(16) NOT NULL
                              CHECK (change_reason IN ('match_win', 'match_loss', 'season_reset', 'decay', 'protection_card'))
);

CREATE TABLE clans (
    clan_id       INTEGER      PRIMARY KEY,
    name          VARCHAR(30)  NOT NULL UNIQUE,
    tag           VARCHAR(5)   NOT NULL UNIQUE,
    description   VARCHAR(300),
    level         SMALLINT     NOT NULL DEFAULT 1 CHECK (level BETWEEN 1 AND 10),
    max_members   SMALLINT     NOT NULL DEFAULT 50 CHECK (max_members BETWEEN 10 AND 100),
    is_recruiting BOOLEAN      NOT NULL DEFAULT TRUE,
    created_at    TIMESTAMP    NOT NULL
);

CREATE TABLE clan_members (
    clan_id      INTEGER   NOT NULL REFERENCES clans (clan_id) ON DELETE CASCADE,
    player_id    BIGINT    NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    role         VARCHAR(8) NOT NULL DEFAULT 'member' CHECK (role IN ('leader', 'elder', 'member')),
    joined_at    TIMESTAMP NOT NULL,
    contribution INTEGER   NOT NULL DEFAULT 0 CHECK (contribution >= 0),
    PRIMARY KEY (clan_id, player_id),
    UNIQUE (player_id)
);

CREATE TABLE friendships (
    player_a_id BIGINT      NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    player_b_id BIGINT      NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    relation    VARCHAR(12) NOT NULL DEFAULT 'friend'
                            CHECK (relation IN ('friend', 'close_friend', 'mentor', 'bestie', 'partner')),
    intimacy    INTEGER     NOT NULL DEFAULT 0 CHECK (intimacy BETWEEN 0 AND 20000),
    since       TIMESTAMP   NOT NULL,
    PRIMARY KEY (player_a_id, player_b_id),
    CONSTRAINT ck_friendships_ordered CHECK (player_a_id < player_b_id)
);

CREATE TABLE friend_requests (
    request_id   BIGINT       PRIMARY KEY,
    sender_id    BIGINT       NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    recipient_id BIGINT       NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    message      VARCHAR(100),
    status       VARCHAR(9)   NOT NULL DEFAULT 'pending'
                              CHECK (status IN ('pending', 'accepted', 'declined', 'cancelled')),
    sent_at      TIMESTAMP    NOT NULL,
    responded_at TIMESTAMP,
    CHECK (sender_id <> recipient_id),
    CHECK ((status = 'pending') = (responded_at IS NULL)),
    CHECK (responded_at IS NULL OR responded_at >= sent_at)
);

CREATE TABLE matches (
    match_id         BIGINT      PRIMARY KEY,
    season_id        SMALLINT    NOT NULL REFERENCES seasons (season_id) ON DELETE RESTRICT,
    mode             VARCHAR(8)  NOT NULL CHECK (mode IN ('ranked', 'normal', 'brawl', 'peak', 'custom')),
    map_name         VARCHAR(40) NOT NULL,
    started_at       TIMESTAMP   NOT NULL,
    duration_seconds INTEGER     NOT NULL CHECK (duration_seconds BETWEEN 180 AND 3600),
    ended_at         TIMESTAMP   NOT NULL,
    winning_side     team_side,
    CHECK (ended_at > started_at)
);

CREATE TABLE match_participants (
    match_id     BIGINT       NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
    slot         SMALLINT     NOT NULL CHECK (slot BETWEEN 1 AND 10),
    player_id    BIGINT       NOT NULL REFERENCES players (player_id) ON DELETE RESTRICT,
    hero_id      SMALLINT     NOT NULL REFERENCES heroes (hero_id) ON DELETE RESTRICT,
    side         team_side    NOT NULL,
    lane         VARCHAR(8)   CHECK (lane IN ('clash', 'mid', 'farm', 'jungle', 'roam')),
    kills        SMALLINT     NOT NULL DEFAULT 0 CHECK (kills BETWEEN 0 AND 100),
    deaths       SMALLINT     NOT NULL DEFAULT 0 CHECK (deaths BETWEEN 0 AND 100),
    assists      SMALLINT     NOT NULL DEFAULT 0 CHECK (assists BETWEEN 0 AND 100),
    gold_earned  INTEGER      NOT NULL DEFAULT 0 CHECK (gold_earned BETWEEN 0 AND 60000),
    damage_dealt INTEGER      NOT NULL DEFAULT 0 CHECK (damage_dealt >= 0),
    damage_taken INTEGER      NOT NULL DEFAULT 0 CHECK (damage_taken >= 0),
    rating       DECIMAL(3,1) CHECK (rating BETWEEN 0 AND 16),
    is_mvp       BOOLEAN      NOT NULL DEFAULT FALSE,
    PRIMARY KEY (match_id, slot),
    UNIQUE (match_id, player_id)
);

CREATE TABLE match_events (
    event_id    BIGINT      PRIMARY KEY,
    match_id    BIGINT      NOT NULL,
    actor_slot  SMALLINT    NOT NULL,
    event_type  VARCHAR(16) NOT NULL
                            CHECK (event_type IN ('kill', 'first_blood', 'double_kill', 'triple_kill', 'penta_kill',
                                                  'tower_destroyed', 'tyrant_slain', 'overlord_slain',
                                                  'crystal_destroyed')),
    at_second   INTEGER     NOT NULL CHECK (at_second >= 0),
    victim_slot SMALLINT    CHECK (victim_slot BETWEEN 1 AND 10),
    FOREIGN KEY (match_id, actor_slot) REFERENCES match_participants (match_id, slot) ON DELETE CASCADE,
    CHECK (victim_slot IS NULL OR victim_slot <> actor_slot)
);

CREATE TABLE rewards (
    reward_id INTEGER     PRIMARY KEY,
    name      VARCHAR(60) NOT NULL,
    kind      VARCHAR(14) NOT NULL
                          CHECK (kind IN ('gold', 'diamonds', 'hero_voucher', 'skin_voucher', 'rune_fragments',
                                          'item_chest', 'battle_pass_xp')),
    amount    INTEGER     NOT NULL CHECK (amount > 0)
);

CREATE TABLE mail (
    mail_id      BIGINT        PRIMARY KEY,
    recipient_id BIGINT        NOT NULL REFERENCES players (player_id) ON DELETE CASCADE,
    sender_id    BIGINT        REFERENCES players (player_id) ON DELETE SET NULL,
    category     VARCHAR(14)   NOT NULL
                               CHECK (category IN ('system', 'friend', 'clan', 'event', 'compensation', 'season_reward')),
    subject      VARCHAR(80)   NOT NULL,
    body         VARCHAR(2000),
    sent_at      TIMESTAMP     NOT NULL,
    read_at      TIMESTAMP,
    expires_at   TIMESTAMP     NOT NULL,
    is_deleted   BOOLEAN       NOT NULL DEFAULT FALSE,
    CHECK (read_at IS NULL OR read_at >= sent_at),
    CHECK (expires_at > sent_at),
    CHECK (sender_id IS NULL OR sender_id <> recipient_id)
);

CREATE TABLE mail_attachments (
    mail_id    BIGINT    NOT NULL REFERENCES mail (mail_id) ON DELETE CASCADE,
    reward_id  INTEGER   NOT NULL REFERENCES rewards (reward_id) ON DELETE CASCADE,
    quantity   SMALLINT  NOT NULL DEFAULT 1 CHECK (quantity BETWEEN 1 AND 999),
    claimed_at TIMESTAMP,
    PRIMARY KEY (mail_id, reward_id)
);

CREATE TABLE season_rewards (
    season_id SMALLINT    NOT NULL REFERENCES seasons (season_id) ON DELETE CASCADE,
    reward_id INTEGER     NOT NULL REFERENCES rewards (reward_id) ON DELETE CASCADE,
    min_tier  VARCHAR(12) NOT NULL
                          CHECK (min_tier IN ('bronze', 'silver', 'gold', 'platinum', 'diamond', 'starshine',
                                              'master', 'grandmaster', 'king')),
    PRIMARY KEY (season_id, reward_id)
);

COMMENT ON TABLE players IS 'Player accounts.';
COMMENT ON COLUMN players.nickname IS 'Unique in-game name.';
COMMENT ON COLUMN players.gold IS 'Gold balance (earned by playing; buys heroes and runes).';
COMMENT ON COLUMN players.diamonds IS 'Diamond balance (bought with money; buys skins).';
COMMENT ON COLUMN players.credit_score IS 'Behaviour score; below 90 the player cannot queue for ranked matches.';
COMMENT ON COLUMN players.invited_by_player_id IS 'The player whose invite brought this player in, if any.';
COMMENT ON COLUMN players.banned_until IS 'End of the current ban; NULL when the player is not banned.';

COMMENT ON TABLE hero_roles IS 'Hero roles: tank, fighter, assassin, mage, marksman, support.';
COMMENT ON TABLE heroes IS 'Playable heroes.';
COMMENT ON COLUMN heroes.lane IS 'Lane the hero is usually played in.';
COMMENT ON COLUMN heroes.price_gold IS 'Price in gold; heroes can also be bought with diamonds.';
COMMENT ON TABLE skins IS 'Cosmetic skins of a hero, bought with diamonds.';

COMMENT ON TABLE player_heroes IS 'Heroes a player owns, with their proficiency and record on the hero.';
COMMENT ON COLUMN player_heroes.wins IS 'Matches won with the hero; at most matches_played.';
COMMENT ON TABLE player_skins IS 'Skins a player owns.';
COMMENT ON COLUMN player_skins.is_equipped IS 'The skin the hero wears in matches: at most one per player and hero, of a hero the player owns.';

COMMENT ON TABLE items IS 'Items bought in a match with gold earned in the match.';
COMMENT ON COLUMN items.tier IS '1 = basic component, 2 = intermediate, 3 = finished item.';
COMMENT ON TABLE runes IS 'Runes: passive bonuses in three colours, equipped through rune pages.';
COMMENT ON TABLE rune_pages IS 'A player''s rune pages, numbered from 1; page 1 is the default.';
COMMENT ON TABLE rune_page_runes IS 'Runes equipped on a page, with how many copies.';
COMMENT ON TABLE hero_builds IS 'Recommended item builds for a hero: official ones (no player) and players'' own.';
COMMENT ON COLUMN hero_builds.player_id IS 'Author of the build; NULL for an official build.';
COMMENT ON TABLE build_items IS 'The six item slots of a build; an item appears at most once per build.';

COMMENT ON TABLE seasons IS 'Ranked seasons; a season lasts 13 weeks, starts_on and ends_on inclusive.';
COMMENT ON TABLE rank_history IS 'A player''s ranked tier over time; seq_no numbers the records 1..n in recorded_at order.';
COMMENT ON COLUMN rank_history.seq_no IS 'Position of the record in the player''s history, 1 = oldest.';
COMMENT ON COLUMN rank_history.stars IS 'Stars within the tier (king tier counts stars without an upper tier).';

COMMENT ON TABLE clans IS 'Player clans; every clan has exactly one leader among its members.';
COMMENT ON COLUMN clans.tag IS 'Short unique tag shown before members'' names.';
COMMENT ON TABLE clan_members IS 'Clan membership; a player is in at most one clan.';
COMMENT ON COLUMN clan_members.role IS 'leader (exactly one per clan), elder or member.';

COMMENT ON TABLE friendships IS 'A friendship between two players, stored once with player_a_id < player_b_id.';
COMMENT ON COLUMN friendships.intimacy IS 'Intimacy points earned by playing together and exchanging gifts.';
COMMENT ON COLUMN friendships.relation IS 'Special relation the two players declared (friend when none).';

COMMENT ON TABLE friend_requests IS 'Friend requests; accepting one makes the two players friends. At most one pending request per pair, none between friends.';
COMMENT ON COLUMN friend_requests.status IS 'pending until the recipient accepts or declines it, or the sender cancels it.';
COMMENT ON COLUMN friend_requests.responded_at IS 'When the request was accepted, declined or cancelled; NULL while pending.';

COMMENT ON TABLE matches IS 'Played matches: 5 players a side, each hero at most once per match.';
COMMENT ON COLUMN matches.started_at IS 'Start of the match; always inside its season.';
COMMENT ON COLUMN matches.winning_side IS 'Side that destroyed the enemy crystal; NULL for a remake.';
COMMENT ON TABLE match_participants IS 'The ten players of a match: slots 1-5 play blue, 6-10 play red.';
COMMENT ON COLUMN match_participants.rating IS 'Performance rating of the player in the match (0-16).';
COMMENT ON COLUMN match_participants.gold_earned IS 'Gold earned in the match.';
COMMENT ON TABLE match_events IS 'Notable events of a match (kills, objectives), by the participant who made them.';
COMMENT ON COLUMN match_events.at_second IS 'Seconds since the start of the match; never after its end.';
COMMENT ON COLUMN match_events.victim_slot IS 'Slot of the killed player for kill events; NULL for objectives.';

COMMENT ON TABLE rewards IS 'Rewards that can be attached to mail or granted at the end of a season.';
COMMENT ON TABLE mail IS 'In-game mailbox; system mail has no sender.';
COMMENT ON COLUMN mail.expires_at IS 'After this time the mail and its unclaimed attachments disappear.';
COMMENT ON TABLE mail_attachments IS 'Rewards attached to a mail; claimed_at is set when the player claims them.';
COMMENT ON TABLE season_rewards IS 'Rewards granted at the end of a season to players who reached at least min_tier.';
