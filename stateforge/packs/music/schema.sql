-- Music streaming app (modelled on QQ Music / Spotify). Dialect: DuckDB.
--
-- Foreign keys are declared for the schema model (fill order, audit, the write tools' ON DELETE semantics);
-- Stateforge does not declare them to DuckDB. artists.featured_song_id -> songs closes a cycle with
-- songs.artist_id -> artists (it is nullable, so the fill plan defers it); users.referred_by_user_id and
-- comments.parent_comment_id are self-references.

CREATE TYPE audio_quality AS ENUM ('standard', 'high', 'lossless', 'hi_res');

CREATE TABLE subscription_plans (
    plan_id           SMALLINT      PRIMARY KEY,
    code              VARCHAR(32)   NOT NULL UNIQUE,
    name              VARCHAR(60)   NOT NULL,
    billing_period    VARCHAR(8)    NOT NULL CHECK (billing_period IN ('month', 'year')),
    price             DECIMAL(8,2)  NOT NULL CHECK (price > 0),
    currency          CHAR(3)       NOT NULL DEFAULT 'USD',
    max_members       SMALLINT      NOT NULL DEFAULT 1 CHECK (max_members BETWEEN 1 AND 6),
    max_devices       SMALLINT      NOT NULL DEFAULT 3 CHECK (max_devices BETWEEN 1 AND 10),
    audio_quality     audio_quality NOT NULL DEFAULT 'high',
    offline_downloads BOOLEAN       NOT NULL DEFAULT TRUE,
    is_active         BOOLEAN       NOT NULL DEFAULT TRUE
);

CREATE TABLE users (
    user_id                  BIGINT       PRIMARY KEY,
    username                 VARCHAR(30)  NOT NULL UNIQUE,
    email                    VARCHAR(254) NOT NULL,
    display_name             VARCHAR(60)  NOT NULL,
    country_code             CHAR(2)      NOT NULL,
    birth_date               DATE,
    created_at               TIMESTAMP    NOT NULL,
    last_active_at           TIMESTAMP,
    referred_by_user_id      BIGINT       REFERENCES users (user_id) ON DELETE SET NULL,
    status                   VARCHAR(12)  NOT NULL DEFAULT 'active'
                                          CHECK (status IN ('active', 'suspended', 'closed')),
    explicit_content_allowed BOOLEAN      NOT NULL DEFAULT TRUE,
    CHECK (last_active_at IS NULL OR last_active_at >= created_at),
    CHECK (referred_by_user_id IS NULL OR referred_by_user_id <> user_id)
);

CREATE UNIQUE INDEX ux_users_email ON users (email);

CREATE TABLE subscriptions (
    subscription_id BIGINT      PRIMARY KEY,
    user_id         BIGINT      NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    plan_id         SMALLINT    NOT NULL REFERENCES subscription_plans (plan_id) ON DELETE RESTRICT,
    started_at      TIMESTAMP   NOT NULL,
    ended_at        TIMESTAMP,
    status          VARCHAR(10) NOT NULL CHECK (status IN ('active', 'past_due', 'cancelled', 'expired')),
    auto_renew      BOOLEAN     NOT NULL DEFAULT TRUE,
    UNIQUE (subscription_id, plan_id),
    CONSTRAINT ck_subscriptions_period CHECK (ended_at IS NULL OR ended_at > started_at),
    CONSTRAINT ck_subscriptions_open CHECK ((status IN ('active', 'past_due')) = (ended_at IS NULL))
);

CREATE TABLE payments (
    payment_id      BIGINT       PRIMARY KEY,
    subscription_id BIGINT       NOT NULL,
    plan_id         SMALLINT     NOT NULL,
    amount          DECIMAL(8,2) NOT NULL CHECK (amount >= 0),
    currency        CHAR(3)      NOT NULL DEFAULT 'USD',
    method          VARCHAR(12)  NOT NULL
                                 CHECK (method IN ('card', 'paypal', 'apple_pay', 'google_pay', 'gift_card', 'carrier')),
    status          VARCHAR(10)  NOT NULL DEFAULT 'paid' CHECK (status IN ('paid', 'pending', 'failed', 'refunded')),
    paid_at         TIMESTAMP    NOT NULL,
    refunded_at     TIMESTAMP,
    external_ref    VARCHAR(24)  NOT NULL UNIQUE,
    FOREIGN KEY (subscription_id, plan_id) REFERENCES subscriptions (subscription_id, plan_id) ON DELETE CASCADE,
    CHECK (refunded_at IS NULL OR refunded_at >= paid_at),
    CHECK ((status = 'refunded') = (refunded_at IS NOT NULL))
);

CREATE TABLE devices (
    device_id     BIGINT      PRIMARY KEY,
    user_id       BIGINT      NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    device_type   VARCHAR(14) NOT NULL
                              CHECK (device_type IN ('ios', 'android', 'web', 'desktop', 'smart_speaker', 'car', 'tv')),
    name          VARCHAR(60) NOT NULL,
    app_version   VARCHAR(12),
    registered_at TIMESTAMP   NOT NULL,
    last_seen_at  TIMESTAMP,
    is_active     BOOLEAN     NOT NULL DEFAULT TRUE,
    UNIQUE (user_id, device_id),
    CHECK (last_seen_at IS NULL OR last_seen_at >= registered_at)
);

CREATE TABLE genres (
    genre_id    SMALLINT     PRIMARY KEY,
    name        VARCHAR(40)  NOT NULL UNIQUE,
    description VARCHAR(300)
);

CREATE TABLE artists (
    artist_id         BIGINT       PRIMARY KEY,
    name              VARCHAR(100) NOT NULL,
    artist_type       VARCHAR(10)  NOT NULL DEFAULT 'solo'
                                   CHECK (artist_type IN ('solo', 'band', 'duo', 'dj', 'orchestra', 'choir')),
    country_code      CHAR(2),
    formed_year       SMALLINT     CHECK (formed_year BETWEEN 1900 AND 2026),
    is_verified       BOOLEAN      NOT NULL DEFAULT FALSE,
    monthly_listeners BIGINT       NOT NULL DEFAULT 0 CHECK (monthly_listeners >= 0),
    bio               VARCHAR(2000),
    featured_song_id  BIGINT       REFERENCES songs (song_id) ON DELETE SET NULL
);

CREATE TABLE albums (
    album_id     BIGINT       PRIMARY KEY,
    artist_id    BIGINT       NOT NULL REFERENCES artists (artist_id) ON DELETE CASCADE,
    title        VARCHAR(200) NOT NULL,
    album_type   VARCHAR(12)  NOT NULL DEFAULT 'album'
                              CHECK (album_type IN ('album', 'single', 'ep', 'compilation', 'live')),
    release_date DATE         NOT NULL,
    label        VARCHAR(100),
    upc          CHAR(12)     NOT NULL UNIQUE,
    UNIQUE (artist_id, title)
);

CREATE TABLE songs (
    song_id       BIGINT       PRIMARY KEY,
    album_id      BIGINT       NOT NULL REFERENCES albums (album_id) ON DELETE CASCADE,
    artist_id     BIGINT       NOT NULL REFERENCES artists (artist_id) ON DELETE CASCADE,
    title         VARCHAR(200) NOT NULL,
    track_number  SMALLINT     NOT NULL DEFAULT 1 CHECK (track_number BETWEEN 1 AND 60),
    duration_ms   INTEGER      NOT NULL CHECK (duration_ms BETWEEN 15000 AND 3600000),
    isrc          CHAR(12)     NOT NULL UNIQUE,
    explicit      BOOLEAN      NOT NULL DEFAULT FALSE,
    language_code VARCHAR(8),
    bpm           SMALLINT     CHECK (bpm BETWEEN 40 AND 250),
    play_count    BIGINT       NOT NULL DEFAULT 0 CHECK (play_count >= 0),
    is_available  BOOLEAN      NOT NULL DEFAULT TRUE
);

CREATE TABLE song_genres (
    song_id    BIGINT   NOT NULL REFERENCES songs (song_id) ON DELETE CASCADE,
    genre_id   SMALLINT NOT NULL REFERENCES genres (genre_id) ON DELETE CASCADE,
    is_primary BOOLEAN  NOT NULL DEFAULT FALSE,
    PRIMARY KEY (song_id, genre_id)
);

CREATE TABLE song_credits (
    song_id   BIGINT       NOT NULL REFERENCES songs (song_id) ON DELETE CASCADE,
    artist_id BIGINT       NOT NULL REFERENCES artists (artist_id) ON DELETE CASCADE,
    role      VARCHAR(12)  NOT NULL
                           CHECK (role IN ('featured', 'composer', 'lyricist', 'producer', 'arranger', 'remixer')),
    share_pct DECIMAL(5,2) CHECK (share_pct BETWEEN 0 AND 100),
    PRIMARY KEY (song_id, artist_id, role)
);

CREATE TABLE album_credits (
    album_id  BIGINT      NOT NULL REFERENCES albums (album_id) ON DELETE CASCADE,
    artist_id BIGINT      NOT NULL REFERENCES artists (artist_id) ON DELETE CASCADE,
    role      VARCHAR(14) NOT NULL
                          CHECK (role IN ('primary', 'featured', 'producer', 'engineer', 'art_director')),
    PRIMARY KEY (album_id, artist_id, role)
);

CREATE TABLE playlists (
    playlist_id      BIGINT       PRIMARY KEY,
    owner_id         BIGINT       NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    title            VARCHAR(100) NOT NULL,
    description      VARCHAR(500),
    is_public        BOOLEAN      NOT NULL DEFAULT TRUE,
    is_collaborative BOOLEAN      NOT NULL DEFAULT FALSE,
    follower_count   INTEGER      NOT NULL DEFAULT 0 CHECK (follower_count >= 0),
    created_at       TIMESTAMP    NOT NULL,
    updated_at       TIMESTAMP    NOT NULL,
    CHECK (updated_at >= created_at),
    CHECK (NOT (is_collaborative AND is_public))
);

CREATE TABLE playlist_songs (
    playlist_id      BIGINT    NOT NULL REFERENCES playlists (playlist_id) ON DELETE CASCADE,
    song_id          BIGINT    NOT NULL REFERENCES songs (song_id) ON DELETE CASCADE,
    position         INTEGER   NOT NULL CHECK (position >= 1),
    added_at         TIMESTAMP NOT NULL,
    added_by_user_id BIGINT    REFERENCES users (user_id) ON DELETE SET NULL,
    PRIMARY KEY (playlist_id, song_id)
);

CREATE TABLE favourite_songs (
    user_id        BIGINT    NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    song_id        BIGINT    NOT NULL REFERENCES songs (song_id) ON DELETE CASCADE,
    favourited_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, song_id)
);

CREATE TABLE artist_follows (
    user_id          BIGINT    NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    artist_id        BIGINT    NOT NULL REFERENCES artists (artist_id) ON DELETE CASCADE,
    followed_at      TIMESTAMP NOT NULL,
    notifications_on BOOLEAN   NOT NULL DEFAULT TRUE,
    PRIMARY KEY (user_id, artist_id)
);

CREATE TABLE listening_history (
    play_id   BIGINT      PRIMARY KEY,
    user_id   BIGINT      NOT NULL,
    device_id BIGINT      NOT NULL,
    song_id   BIGINT      NOT NULL REFERENCES songs (song_id) ON DELETE CASCADE,
    played_at TIMESTAMP   NOT NULL,
    ms_played INTEGER     NOT NULL CHECK (ms_played >= 0),
    source    VARCHAR(10) NOT NULL
                          CHECK (source IN ('playlist', 'album', 'artist', 'search', 'radio', 'chart', 'daily_mix')),
    shuffle   BOOLEAN     NOT NULL DEFAULT FALSE,
    skipped   BOOLEAN     NOT NULL DEFAULT FALSE,
    FOREIGN KEY (user_id, device_id) REFERENCES devices (user_id, device_id) ON DELETE CASCADE
);

CREATE TABLE comments (
    comment_id        BIGINT        PRIMARY KEY,
    song_id           BIGINT        NOT NULL REFERENCES songs (song_id) ON DELETE CASCADE,
    user_id           BIGINT        NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    parent_comment_id BIGINT        REFERENCES comments (comment_id) ON DELETE CASCADE,
    body              VARCHAR(1000) NOT NULL,
    like_count        INTEGER       NOT NULL DEFAULT 0 CHECK (like_count >= 0),
    is_pinned         BOOLEAN       NOT NULL DEFAULT FALSE,
    created_at        TIMESTAMP     NOT NULL,
    edited_at         TIMESTAMP,
    CHECK (parent_comment_id IS NULL OR parent_comment_id <> comment_id),
    CHECK (edited_at IS NULL OR edited_at >= created_at)
);

CREATE TABLE charts (
    chart_id   SMALLINT    PRIMARY KEY,
    name       VARCHAR(60) NOT NULL UNIQUE,
    region     CHAR(2),
    frequency  VARCHAR(8)  NOT NULL DEFAULT 'weekly' CHECK (frequency IN ('daily', 'weekly')),
    size       SMALLINT    NOT NULL DEFAULT 50 CHECK (size BETWEEN 10 AND 200)
);

CREATE TABLE chart_editions (
    edition_id   INTEGER  PRIMARY KEY,
    chart_id     SMALLINT NOT NULL REFERENCES charts (chart_id) ON DELETE CASCADE,
    edition_no   SMALLINT NOT NULL CHECK (edition_no >= 1),
    published_on DATE     NOT NULL,
    UNIQUE (chart_id, edition_no)
);

CREATE TABLE chart_entries (
    entry_id       BIGINT   PRIMARY KEY,
    edition_id     INTEGER  NOT NULL REFERENCES chart_editions (edition_id) ON DELETE CASCADE,
    rank           SMALLINT NOT NULL CHECK (rank BETWEEN 1 AND 200),
    song_id        BIGINT   NOT NULL REFERENCES songs (song_id) ON DELETE CASCADE,
    previous_rank  SMALLINT CHECK (previous_rank BETWEEN 1 AND 200),
    weeks_on_chart SMALLINT NOT NULL DEFAULT 1 CHECK (weeks_on_chart >= 1),
    streams        BIGINT   NOT NULL DEFAULT 0 CHECK (streams >= 0),
    UNIQUE (edition_id, song_id)
);

COMMENT ON TABLE subscription_plans IS 'Paid plans a listener can subscribe to (free listeners have no subscription).';
COMMENT ON COLUMN subscription_plans.code IS 'Stable plan code used by billing, e.g. premium_monthly.';
COMMENT ON COLUMN subscription_plans.price IS 'Price charged every billing period, in the plan currency.';
COMMENT ON COLUMN subscription_plans.max_members IS 'Accounts that can share the plan (family and duo plans).';
COMMENT ON COLUMN subscription_plans.max_devices IS 'Devices that may stream at the same time.';

COMMENT ON TABLE users IS 'Listener accounts.';
COMMENT ON COLUMN users.username IS 'Unique public handle shown on profiles and playlists.';
COMMENT ON COLUMN users.country_code IS 'ISO 3166-1 alpha-2 country of the account; decides catalogue availability.';
COMMENT ON COLUMN users.referred_by_user_id IS 'The user whose invite link brought this user in, if any.';
COMMENT ON COLUMN users.status IS 'active, suspended (by moderation) or closed (by the user).';

COMMENT ON TABLE subscriptions IS 'A user''s subscription to one plan; a plan change starts a new subscription.';
COMMENT ON COLUMN subscriptions.ended_at IS 'When the subscription stopped; NULL while it is active or past due.';
COMMENT ON COLUMN subscriptions.status IS 'active or past_due while open; cancelled (by the user) or expired once ended.';
COMMENT ON COLUMN subscriptions.auto_renew IS 'Whether the subscription renews at the end of each billing period.';

COMMENT ON TABLE payments IS 'One charge (or attempt) for a billing period of a subscription.';
COMMENT ON COLUMN payments.plan_id IS 'The plan billed; always the plan of the subscription.';
COMMENT ON COLUMN payments.amount IS 'Amount charged; equals the plan price.';
COMMENT ON COLUMN payments.status IS 'paid, pending, failed or refunded (a refunded payment has refunded_at).';
COMMENT ON COLUMN payments.external_ref IS 'Reference of the charge at the payment provider.';

COMMENT ON TABLE devices IS 'Devices a user has signed in on; every play is made from one of them.';
COMMENT ON COLUMN devices.last_seen_at IS 'Last time the device talked to the service.';

COMMENT ON TABLE genres IS 'Music genres used to tag songs.';

COMMENT ON TABLE artists IS 'Performing artists: solo artists, bands, DJs, orchestras.';
COMMENT ON COLUMN artists.monthly_listeners IS 'Distinct listeners over the last 28 days.';
COMMENT ON COLUMN artists.featured_song_id IS 'The "artist pick" pinned on the artist page: any song, often their own.';

COMMENT ON TABLE albums IS 'Releases: albums, singles, EPs, compilations and live recordings.';
COMMENT ON COLUMN albums.release_date IS 'Date the release and its tracks became available; nobody can play them earlier.';
COMMENT ON COLUMN albums.upc IS 'Universal Product Code of the release (12 digits).';

COMMENT ON TABLE songs IS 'Tracks in the catalogue.';
COMMENT ON COLUMN songs.album_id IS 'The release the track appears on (a single is a release of its own).';
COMMENT ON COLUMN songs.artist_id IS 'Primary artist; other contributors are in song_credits.';
COMMENT ON COLUMN songs.duration_ms IS 'Length of the track in milliseconds.';
COMMENT ON COLUMN songs.isrc IS 'International Standard Recording Code (12 characters).';
COMMENT ON COLUMN songs.play_count IS 'All-time number of plays.';

COMMENT ON TABLE song_genres IS 'Genres of a song; is_primary marks the main ones.';
COMMENT ON TABLE song_credits IS 'Contributors of a song other than its primary artist, with their role.';
COMMENT ON COLUMN song_credits.share_pct IS 'Royalty share of the contributor, in percent.';
COMMENT ON TABLE album_credits IS 'Artists credited on a release, with their role.';

COMMENT ON TABLE playlists IS 'User playlists; collaborative playlists are private.';
COMMENT ON COLUMN playlists.is_collaborative IS 'Whether people the owner invited can add songs (never public).';
COMMENT ON TABLE playlist_songs IS 'Songs of a playlist, ordered by position; a song appears at most once.';
COMMENT ON COLUMN playlist_songs.position IS 'Place of the song in the playlist: 1..n without gaps.';
COMMENT ON COLUMN playlist_songs.added_by_user_id IS 'Who added the song (the owner, or a collaborator).';

COMMENT ON TABLE favourite_songs IS 'Songs a user liked ("Liked Songs").';
COMMENT ON TABLE artist_follows IS 'Artists a user follows.';

COMMENT ON TABLE listening_history IS 'One row per play of a song by a user on one of their devices.';
COMMENT ON COLUMN listening_history.played_at IS 'When playback started; never before the release date of the song''s album.';
COMMENT ON COLUMN listening_history.ms_played IS 'Milliseconds actually played; at most the song duration.';
COMMENT ON COLUMN listening_history.source IS 'Where playback was started from.';

COMMENT ON TABLE comments IS 'Comments under songs; a reply points at the comment it answers.';
COMMENT ON COLUMN comments.parent_comment_id IS 'The comment this one replies to; NULL for a top-level comment.';

COMMENT ON TABLE charts IS 'Ranked charts published by the service (global, regional, by genre).';
COMMENT ON COLUMN charts.region IS 'ISO country code of a regional chart; NULL for a global chart.';
COMMENT ON COLUMN charts.size IS 'Number of places the chart publishes.';
COMMENT ON TABLE chart_editions IS 'One published edition (week) of a chart.';
COMMENT ON COLUMN chart_editions.edition_no IS 'Edition number within the chart: 1 for the first week, then 2, 3, ...';
COMMENT ON TABLE chart_entries IS 'Places of one chart edition; each song is ranked once and ranks run 1..n without gaps.';
COMMENT ON COLUMN chart_entries.rank IS 'Place in the edition, 1 = top.';
COMMENT ON COLUMN chart_entries.previous_rank IS 'Place in the previous edition; NULL for a new entry.';
COMMENT ON COLUMN chart_entries.streams IS 'Streams counted for the edition''s week.';
