-- Enterprise meeting app (modelled on Tencent Meeting / Outlook with room booking). Dialect: DuckDB.
--
-- Foreign keys are declared for the schema model; Stateforge does not declare them to DuckDB.
-- Cycles: org_units.head_employee_id -> employees and employees.org_unit_id -> org_units (the head is
-- nullable, so the fill plan defers it); org_units.parent_id and employees.manager_id are self-references.
-- Composite keys: floors (building_id, floor_number) is referenced by rooms and desks.

CREATE TYPE rsvp_response AS ENUM ('pending', 'accepted', 'tentative', 'declined');

CREATE TABLE org_units (
    org_unit_id      INTEGER      PRIMARY KEY,
    parent_id        INTEGER      REFERENCES org_units (org_unit_id) ON DELETE SET NULL,
    head_employee_id INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    code             VARCHAR(12)  NOT NULL UNIQUE,
    name             VARCHAR(100) NOT NULL,
    kind             VARCHAR(12)  NOT NULL CHECK (kind IN ('company', 'division', 'department', 'team')),
    cost_center      CHAR(6),
    created_on       DATE         NOT NULL,
    CHECK (parent_id IS NULL OR parent_id <> org_unit_id)
);

CREATE TABLE buildings (
    building_id    SMALLINT     PRIMARY KEY,
    code           VARCHAR(10)  NOT NULL UNIQUE,
    name           VARCHAR(80)  NOT NULL UNIQUE,
    street_address VARCHAR(200) NOT NULL,
    city           VARCHAR(80)  NOT NULL,
    country_code   CHAR(2)      NOT NULL,
    timezone       VARCHAR(40)  NOT NULL,
    opened_on      DATE,
    is_active      BOOLEAN      NOT NULL DEFAULT TRUE
);

CREATE TABLE employees (
    employee_id      INTEGER      PRIMARY KEY,
    org_unit_id      INTEGER      NOT NULL REFERENCES org_units (org_unit_id) ON DELETE RESTRICT,
    manager_id       INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    home_building_id SMALLINT     REFERENCES buildings (building_id) ON DELETE SET NULL,
    employee_no      CHAR(8)      NOT NULL UNIQUE,
    first_name       VARCHAR(40)  NOT NULL,
    last_name        VARCHAR(40)  NOT NULL,
    email            VARCHAR(254) NOT NULL UNIQUE,
    phone            VARCHAR(32),
    job_title        VARCHAR(80)  NOT NULL,
    employment_type  VARCHAR(12)  NOT NULL DEFAULT 'full_time'
                                  CHECK (employment_type IN ('full_time', 'part_time', 'contractor', 'intern')),
    timezone         VARCHAR(40)  NOT NULL DEFAULT 'UTC',
    hired_on         DATE         NOT NULL,
    left_on          DATE,
    is_active        BOOLEAN      NOT NULL DEFAULT TRUE,
    CHECK (manager_id IS NULL OR manager_id <> employee_id),
    CHECK (left_on IS NULL OR left_on > hired_on),
    CHECK (is_active = (left_on IS NULL))
);

CREATE TABLE building_hours (
    building_id SMALLINT NOT NULL REFERENCES buildings (building_id) ON DELETE CASCADE,
    weekday     SMALLINT NOT NULL CHECK (weekday BETWEEN 1 AND 7),
    opens_at    TIME     NOT NULL,
    closes_at   TIME     NOT NULL,
    PRIMARY KEY (building_id, weekday),
    CONSTRAINT ck_building_hours_order CHECK (closes_at > opens_at)
);

CREATE TABLE floors (
    building_id  SMALLINT    NOT NULL REFERENCES buildings (building_id) ON DELETE CASCADE,
    floor_number SMALLINT    NOT NULL CHECK (floor_number BETWEEN -5 AND 150),
    name         VARCHAR(40) NOT NULL,
    area_sqm     INTEGER     CHECK (area_sqm > 0),
    has_kitchen  BOOLEAN     NOT NULL DEFAULT FALSE,
    PRIMARY KEY (building_id, floor_number)
);

CREATE TABLE rooms (
    room_id            INTEGER     PRIMARY KEY,
    building_id        SMALLINT    NOT NULL,
    floor_number       SMALLINT    NOT NULL,
    name               VARCHAR(60) NOT NULL,
    room_type          VARCHAR(14) NOT NULL DEFAULT 'meeting_room'
                                   CHECK (room_type IN ('meeting_room', 'phone_booth', 'boardroom', 'training_room', 'auditorium')),
    capacity           SMALLINT    NOT NULL CHECK (capacity BETWEEN 1 AND 500),
    video_conferencing BOOLEAN     NOT NULL DEFAULT TRUE,
    is_bookable        BOOLEAN     NOT NULL DEFAULT TRUE,
    requires_approval  BOOLEAN     NOT NULL DEFAULT FALSE,
    FOREIGN KEY (building_id, floor_number) REFERENCES floors (building_id, floor_number) ON DELETE CASCADE,
    UNIQUE (building_id, name)
);

CREATE TABLE equipment (
    equipment_id SMALLINT    PRIMARY KEY,
    name         VARCHAR(60) NOT NULL UNIQUE,
    category     VARCHAR(14) NOT NULL
                             CHECK (category IN ('display', 'audio', 'video', 'whiteboard', 'connectivity', 'accessibility')),
    is_portable  BOOLEAN     NOT NULL DEFAULT FALSE
);

CREATE TABLE room_equipment (
    room_id          INTEGER  NOT NULL REFERENCES rooms (room_id) ON DELETE CASCADE,
    equipment_id     SMALLINT NOT NULL REFERENCES equipment (equipment_id) ON DELETE CASCADE,
    quantity         SMALLINT NOT NULL DEFAULT 1 CHECK (quantity BETWEEN 1 AND 50),
    installed_on     DATE     NOT NULL,
    last_serviced_on DATE,
    PRIMARY KEY (room_id, equipment_id),
    CHECK (last_serviced_on IS NULL OR last_serviced_on >= installed_on)
);

CREATE TABLE desks (
    desk_id              INTEGER     PRIMARY KEY,
    building_id          SMALLINT    NOT NULL,
    floor_number         SMALLINT    NOT NULL,
    code                 VARCHAR(16) NOT NULL UNIQUE,
    desk_type            VARCHAR(10) NOT NULL DEFAULT 'hot_desk'
                                     CHECK (desk_type IN ('hot_desk', 'assigned', 'standing', 'accessible')),
    has_monitor          BOOLEAN     NOT NULL DEFAULT TRUE,
    assigned_employee_id INTEGER     REFERENCES employees (employee_id) ON DELETE SET NULL,
    FOREIGN KEY (building_id, floor_number) REFERENCES floors (building_id, floor_number) ON DELETE CASCADE,
    CHECK ((desk_type = 'assigned') = (assigned_employee_id IS NOT NULL))
);

CREATE TABLE desk_bookings (
    desk_id      INTEGER     NOT NULL REFERENCES desks (desk_id) ON DELETE CASCADE,
    booking_date DATE        NOT NULL,
    employee_id  INTEGER     NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    status       VARCHAR(10) NOT NULL DEFAULT 'booked'
                             CHECK (status IN ('booked', 'checked_in', 'cancelled', 'no_show')),
    PRIMARY KEY (desk_id, booking_date),
    UNIQUE (employee_id, booking_date)
);

CREATE TABLE meeting_series (
    series_id    INTEGER      PRIMARY KEY,
    organizer_id INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    title        VARCHAR(200) NOT NULL,
    frequency    VARCHAR(10)  NOT NULL CHECK (frequency IN ('daily', 'weekly', 'biweekly', 'monthly')),
    rrule        VARCHAR(200) NOT NULL,
    starts_on    DATE         NOT NULL,
    ends_on      DATE,
    CHECK (ends_on IS NULL OR ends_on > starts_on)
);

CREATE TABLE meetings (
    meeting_id           BIGINT        PRIMARY KEY,
    series_id            INTEGER       REFERENCES meeting_series (series_id) ON DELETE SET NULL,
    organizer_id         INTEGER       NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    title                VARCHAR(200)  NOT NULL,
    agenda               VARCHAR(2000),
    meeting_code         CHAR(11)      NOT NULL UNIQUE,
    start_at             TIMESTAMP     NOT NULL,
    end_at               TIMESTAMP     NOT NULL,
    is_online            BOOLEAN       NOT NULL DEFAULT TRUE,
    join_url             VARCHAR(300),
    passcode             VARCHAR(6),
    waiting_room_enabled BOOLEAN       NOT NULL DEFAULT FALSE,
    status               VARCHAR(12)   NOT NULL DEFAULT 'scheduled'
                                       CHECK (status IN ('scheduled', 'in_progress', 'ended', 'cancelled')),
    CONSTRAINT ck_meetings_time CHECK (end_at > start_at)
);

CREATE TABLE meeting_attendees (
    meeting_id   BIGINT        NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
    employee_id  INTEGER       NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    response     rsvp_response NOT NULL DEFAULT 'pending',
    is_optional  BOOLEAN       NOT NULL DEFAULT FALSE,
    responded_at TIMESTAMP,
    PRIMARY KEY (meeting_id, employee_id),
    CHECK ((response = 'pending') = (responded_at IS NULL))
);

CREATE TABLE room_bookings (
    booking_id BIGINT      PRIMARY KEY,
    room_id    INTEGER     NOT NULL REFERENCES rooms (room_id) ON DELETE CASCADE,
    meeting_id BIGINT      NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
    booked_by  INTEGER     REFERENCES employees (employee_id) ON DELETE SET NULL,
    start_at   TIMESTAMP   NOT NULL,
    end_at     TIMESTAMP   NOT NULL,
    status     VARCHAR(10) NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed', 'cancelled', 'released')),
    checked_in BOOLEAN     NOT NULL DEFAULT FALSE,
    UNIQUE (meeting_id, room_id),
    CONSTRAINT ck_room_bookings_time CHECK (end_at > start_at)
);

CREATE TABLE working_hours (
    employee_id INTEGER  NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    weekday     SMALLINT NOT NULL CHECK (weekday BETWEEN 1 AND 7),
    starts_at   TIME     NOT NULL,
    ends_at     TIME     NOT NULL,
    is_remote   BOOLEAN  NOT NULL DEFAULT FALSE,
    PRIMARY KEY (employee_id, weekday),
    CHECK (ends_at > starts_at)
);

CREATE TABLE out_of_office (
    ooo_id             INTEGER     PRIMARY KEY,
    employee_id        INTEGER     NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    starts_at          TIMESTAMP   NOT NULL,
    ends_at            TIMESTAMP   NOT NULL,
    reason             VARCHAR(10) NOT NULL
                                   CHECK (reason IN ('vacation', 'sick', 'travel', 'training', 'parental', 'other')),
    auto_reply_message VARCHAR(500),
    delegate_id        INTEGER     REFERENCES employees (employee_id) ON DELETE SET NULL,
    CHECK (ends_at > starts_at),
    CHECK (delegate_id IS NULL OR delegate_id <> employee_id)
);

CREATE TABLE recordings (
    recording_id      BIGINT       PRIMARY KEY,
    meeting_id        BIGINT       NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
    started_by        INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    format            VARCHAR(4)   NOT NULL DEFAULT 'mp4' CHECK (format IN ('mp4', 'm4a', 'webm')),
    storage_url       VARCHAR(300) NOT NULL,
    duration_seconds  INTEGER      NOT NULL CHECK (duration_seconds BETWEEN 1 AND 86400),
    size_bytes        BIGINT       NOT NULL CHECK (size_bytes >= 0),
    transcript_status VARCHAR(10)  NOT NULL DEFAULT 'none'
                                   CHECK (transcript_status IN ('none', 'processing', 'ready', 'failed')),
    created_at        TIMESTAMP    NOT NULL,
    retention_until   DATE
);

CREATE TABLE meeting_notes (
    note_id    BIGINT      PRIMARY KEY,
    meeting_id BIGINT      NOT NULL REFERENCES meetings (meeting_id) ON DELETE CASCADE,
    author_id  INTEGER     NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    body       TEXT        NOT NULL,
    visibility VARCHAR(12) NOT NULL DEFAULT 'attendees' CHECK (visibility IN ('attendees', 'private', 'organization')),
    created_at TIMESTAMP   NOT NULL,
    updated_at TIMESTAMP,
    CHECK (updated_at IS NULL OR updated_at >= created_at)
);

COMMENT ON TABLE org_units IS 'The organisation chart: company, divisions, departments and teams, as a tree.';
COMMENT ON COLUMN org_units.parent_id IS 'The unit this one belongs to; NULL for the company itself.';
COMMENT ON COLUMN org_units.head_employee_id IS 'The employee who leads the unit; always a member of the unit.';
COMMENT ON COLUMN org_units.kind IS 'Level in the chart: company > division > department > team.';

COMMENT ON TABLE buildings IS 'Office buildings of the company.';
COMMENT ON COLUMN buildings.timezone IS 'IANA time zone of the building; opening hours and bookings are in local time.';

COMMENT ON TABLE employees IS 'People working for the company; everyone belongs to one org unit.';
COMMENT ON COLUMN employees.manager_id IS 'Direct manager; NULL for the chief executive.';
COMMENT ON COLUMN employees.home_building_id IS 'Building the employee usually works from.';
COMMENT ON COLUMN employees.employee_no IS 'Personnel number, E followed by seven digits.';
COMMENT ON COLUMN employees.left_on IS 'Last day of employment; NULL while the employee is active.';

COMMENT ON TABLE building_hours IS 'Opening hours of a building per ISO weekday (1 = Monday); no row means closed that day.';

COMMENT ON TABLE floors IS 'Floors of a building, numbered from 1 (negative numbers are basements).';

COMMENT ON TABLE rooms IS 'Bookable spaces: meeting rooms, phone booths, boardrooms, training rooms, auditoriums.';
COMMENT ON COLUMN rooms.capacity IS 'Seats in the room.';
COMMENT ON COLUMN rooms.requires_approval IS 'Bookings need approval by facilities (boardrooms and auditoriums).';

COMMENT ON TABLE equipment IS 'Kinds of equipment a room can have.';
COMMENT ON TABLE room_equipment IS 'Equipment installed in a room, with how many units.';

COMMENT ON TABLE desks IS 'Desks on a floor: hot desks anyone can book, and desks assigned to one employee.';
COMMENT ON COLUMN desks.assigned_employee_id IS 'Owner of an assigned desk; NULL for every other desk type.';
COMMENT ON TABLE desk_bookings IS 'A desk booked by one employee for one day; one desk per employee per day.';

COMMENT ON TABLE meeting_series IS 'Recurring meetings: the pattern that generates occurrences.';
COMMENT ON COLUMN meeting_series.rrule IS 'iCalendar recurrence rule, e.g. FREQ=WEEKLY;INTERVAL=2.';

COMMENT ON TABLE meetings IS 'Scheduled meetings (one occurrence of a series, or a single meeting); online, in a room, or both.';
COMMENT ON COLUMN meetings.series_id IS 'The recurring series this meeting is an occurrence of, if any.';
COMMENT ON COLUMN meetings.meeting_code IS 'Nine-digit code participants type to join, as 123-456-789.';
COMMENT ON COLUMN meetings.start_at IS 'Start, in the local time of the organiser''s building.';
COMMENT ON COLUMN meetings.status IS 'scheduled, in_progress, ended or cancelled.';

COMMENT ON TABLE meeting_attendees IS 'Invitees of a meeting and their response; an accepted invitee is never in two overlapping meetings.';
COMMENT ON COLUMN meeting_attendees.response IS 'pending (not answered yet), accepted, tentative or declined.';
COMMENT ON COLUMN meeting_attendees.responded_at IS 'When the invitee answered; NULL while the response is pending.';

COMMENT ON TABLE room_bookings IS 'A room reserved for a meeting, for the meeting''s time; a room is never double-booked.';
COMMENT ON COLUMN room_bookings.status IS 'confirmed, cancelled, or released (freed early because nobody checked in).';
COMMENT ON COLUMN room_bookings.booked_by IS 'Who made the booking (usually the organiser or an assistant).';

COMMENT ON TABLE working_hours IS 'An employee''s working hours per ISO weekday (1 = Monday); no row means a day off.';
COMMENT ON TABLE out_of_office IS 'Periods an employee is away; accepted meetings never fall inside them.';
COMMENT ON COLUMN out_of_office.delegate_id IS 'Colleague who handles requests while the employee is away.';

COMMENT ON TABLE recordings IS 'Cloud recordings of meetings.';
COMMENT ON COLUMN recordings.transcript_status IS 'State of the automatic transcript of the recording.';
COMMENT ON TABLE meeting_notes IS 'Notes written during or after a meeting.';
