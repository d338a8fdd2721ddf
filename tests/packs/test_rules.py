"""Golden tests for the domain packs' business rules.

For every rule: a few hand-made rows that break it; the rule's check must find them, its repair statements
must make the check come back empty in one round (run plainly and inside a transaction), leave the expected
rows, keep every PRIMARY KEY / UNIQUE / NOT NULL / CHECK constraint (the final state is re-inserted into fresh
tables), and change nothing when run again. Foreign keys are not declared to DuckDB, so repairs cannot lean
on cascades: rows left dangling are the engine's to clean, and checks are anchored on the parent rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.packs.packs import PACKS, columns, connect, domain, insert, snapshot


@dataclass
class Scenario:
    rows: dict[str, list[dict[str, Any]]]
    """table -> rows to insert (NOT NULL columns left out get fillers)."""
    expect: list[tuple[str, list[tuple]]] = field(default_factory=list)
    """(query, rows) pairs that must hold after the repair."""
    found: int | None = None
    """How many rows the check returns before the repair, when it matters."""


def _match(
    match_id: int, season_id: int = 1, start: str = "2025-02-01 20:00:00", duration: int = 900
) -> dict:
    return {
        "match_id": match_id,
        "season_id": season_id,
        "map_name": "Canyon of Kings",
        "started_at": start,
        "duration_seconds": duration,
        "ended_at": f"{start[:10]} 23:59:59",
    }


def _team(match_id: int, heroes: list[int], sides: list[str] | None = None) -> list[dict]:
    sides = sides or ["blue"] * 5 + ["red"] * 5
    return [
        {
            "match_id": match_id,
            "slot": slot,
            "player_id": 100 * match_id + slot,
            "hero_id": hero,
            "side": side,
        }
        for slot, (hero, side) in enumerate(zip(heroes, sides, strict=False), start=1)
    ]


def _heroes(ids: range) -> list[dict]:
    return [
        {"hero_id": h, "name": f"Hero {h}", "role_id": 1, "base_hp": 3000, "released_on": "2020-01-01"}
        for h in ids
    ]


def _meeting(mid: int, start: str, end: str, status: str = "scheduled") -> dict:
    return {"meeting_id": mid, "organizer_id": 1, "start_at": start, "end_at": end, "status": status}


def _attend(mid: int, eid: int, response: str = "accepted") -> dict:
    return {
        "meeting_id": mid,
        "employee_id": eid,
        "response": response,
        "responded_at": None if response == "pending" else "2025-02-01 09:00:00",
    }


def _booking(
    bid: int, room: int, start: str, end: str, status: str = "confirmed", meeting: int | None = None
) -> dict:
    return {
        "booking_id": bid,
        "room_id": room,
        "meeting_id": meeting or bid,
        "start_at": start,
        "end_at": end,
        "status": status,
    }


SCENARIOS: dict[tuple[str, str], list[Scenario]] = {
    # ----------------------------------------------------------------------------------------------- music
    ("music", "playlist_positions_contiguous"): [
        Scenario(
            rows={
                "playlist_songs": [
                    {"playlist_id": 1, "song_id": 10, "position": 1, "added_at": "2025-01-01 10:00:00"},
                    {"playlist_id": 1, "song_id": 11, "position": 3, "added_at": "2025-01-02 10:00:00"},
                    {"playlist_id": 1, "song_id": 12, "position": 3, "added_at": "2025-01-03 10:00:00"},
                    {"playlist_id": 1, "song_id": 13, "position": 7, "added_at": "2025-01-01 09:00:00"},
                    {"playlist_id": 2, "song_id": 10, "position": 1, "added_at": "2025-01-01 10:00:00"},
                    {"playlist_id": 2, "song_id": 11, "position": 2, "added_at": "2025-01-01 10:00:00"},
                ]
            },
            found=2,
            expect=[
                (
                    "SELECT playlist_id, song_id, position FROM playlist_songs ORDER BY ALL",
                    [(1, 10, 1), (1, 11, 2), (1, 12, 3), (1, 13, 4), (2, 10, 1), (2, 11, 2)],
                )
            ],
        )
    ],
    ("music", "single_has_few_tracks"): [
        Scenario(
            rows={
                "albums": [
                    {"album_id": 1, "artist_id": 1, "album_type": "single"},
                    {"album_id": 2, "artist_id": 1, "album_type": "single"},
                    {"album_id": 3, "artist_id": 1, "album_type": "single"},
                    {"album_id": 4, "artist_id": 1, "album_type": "album"},
                ],
                "songs": [
                    {"song_id": 10 * a + t, "album_id": a, "artist_id": 1, "track_number": t,
                     "duration_ms": 180000}
                    for a, tracks in ((1, 5), (2, 8), (3, 3), (4, 2))
                    for t in range(1, tracks + 1)
                ],
            },
            found=2,  # five tracks become an EP, eight an album; three stay a single
            expect=[
                (
                    "SELECT album_id, album_type FROM albums ORDER BY ALL",
                    [(1, "ep"), (2, "album"), (3, "single"), (4, "album")],
                )
            ],
        )
    ],
    ("music", "album_tracks_by_album_artist"): [
        Scenario(
            rows={
                "albums": [
                    {"album_id": 1, "artist_id": 1, "album_type": "album"},
                    {"album_id": 2, "artist_id": 3, "album_type": "compilation"},
                    {"album_id": 3, "artist_id": 1, "album_type": "album"},
                ],
                "songs": (
                    # album 1: tracks 3, 6 and 9 of ten by a guest (70% by the artist)
                    [
                        {"song_id": 100 + t, "album_id": 1, "artist_id": 2 if t in (3, 6, 9) else 1,
                         "track_number": t, "duration_ms": 180000}
                        for t in range(1, 11)
                    ]
                    # a compilation is by many artists; album 3 has one guest in ten (90%: holds)
                    + [{"song_id": 200 + t, "album_id": 2, "artist_id": 3 + t, "track_number": t,
                        "duration_ms": 180000}
                       for t in range(1, 4)]
                    + [{"song_id": 300 + t, "album_id": 3, "artist_id": 2 if t == 4 else 1, "track_number": t,
                        "duration_ms": 180000}
                       for t in range(1, 11)]
                ),
            },
            found=1,
            expect=[
                # one guest track in ten is kept (the latest), the others become the album artist's
                (
                    "SELECT song_id, artist_id FROM songs WHERE artist_id <> 1 ORDER BY ALL",
                    [(109, 2), (201, 4), (202, 5), (203, 6), (304, 2)],
                )
            ],
        )
    ],
    ("music", "chart_ranks_contiguous"): [
        Scenario(
            rows={
                "charts": [
                    {"chart_id": 1, "name": "Top 10", "size": 10},
                    {"chart_id": 2, "name": "Top 50", "size": 50},
                ],
                "chart_editions": [
                    {"edition_id": 1, "chart_id": 1, "edition_no": 1, "published_on": "2026-01-02"},
                    {"edition_id": 2, "chart_id": 2, "edition_no": 1, "published_on": "2026-01-02"},
                ],
                "chart_entries": (
                    [
                        {"entry_id": e, "edition_id": 1, "rank": r, "song_id": 100 + e}
                        for e, r in enumerate([2, 5, 5, 9, 20, 21, 22, 23, 24, 25, 26, 27], start=1)
                    ]
                    + [
                        {"entry_id": 13, "edition_id": 2, "rank": 1, "song_id": 100},
                        {"entry_id": 14, "edition_id": 2, "rank": 2, "song_id": 101},
                    ]
                ),
            },
            found=12,
            expect=[
                (
                    "SELECT entry_id, rank FROM chart_entries ORDER BY ALL",
                    [(e, e) for e in range(1, 11)] + [(13, 1), (14, 2)],
                )
            ],
        )
    ],
    ("music", "payment_amount_matches_plan"): [
        Scenario(
            rows={
                "subscription_plans": [
                    {
                        "plan_id": 1,
                        "code": "premium_monthly",
                        "name": "Premium",
                        "billing_period": "month",
                        "price": "10.99",
                    },
                    {
                        "plan_id": 2,
                        "code": "premium_annual",
                        "name": "Premium Annual",
                        "billing_period": "year",
                        "price": "109.00",
                    },
                ],
                "payments": [
                    {
                        "payment_id": 1,
                        "subscription_id": 1,
                        "plan_id": 1,
                        "amount": "10.99",
                        "paid_at": "2025-01-01",
                    },
                    {
                        "payment_id": 2,
                        "subscription_id": 1,
                        "plan_id": 1,
                        "amount": "9.99",
                        "paid_at": "2025-02-01",
                    },
                    {
                        "payment_id": 3,
                        "subscription_id": 2,
                        "plan_id": 2,
                        "amount": "0.00",
                        "paid_at": "2025-01-05",
                    },
                ],
            },
            found=2,
            expect=[
                (
                    "SELECT payment_id, CAST(amount AS VARCHAR) FROM payments ORDER BY ALL",
                    [(1, "10.99"), (2, "10.99"), (3, "109.00")],
                )
            ],
        )
    ],
    ("music", "play_after_release"): [
        Scenario(
            rows={
                "albums": [{"album_id": 1, "artist_id": 1, "title": "First", "release_date": "2025-09-01"}],
                "songs": [
                    {"song_id": 1, "album_id": 1, "artist_id": 1, "title": "Opening", "duration_ms": 200000}
                ],
                "listening_history": [
                    {
                        "play_id": 1,
                        "user_id": 1,
                        "device_id": 1,
                        "song_id": 1,
                        "played_at": "2025-08-31 23:00:00",
                        "ms_played": 1000,
                    },
                    {
                        "play_id": 2,
                        "user_id": 1,
                        "device_id": 1,
                        "song_id": 1,
                        "played_at": "2025-09-01 00:00:00",
                        "ms_played": 1000,
                    },
                    {
                        "play_id": 3,
                        "user_id": 1,
                        "device_id": 1,
                        "song_id": 1,
                        "played_at": "2025-10-01 08:00:00",
                        "ms_played": 1000,
                    },
                ],
            },
            found=1,
            expect=[("SELECT play_id FROM listening_history ORDER BY ALL", [(2,), (3,)])],
        )
    ],
    ("music", "play_not_longer_than_song"): [
        Scenario(
            rows={
                "songs": [
                    {"song_id": 1, "album_id": 1, "artist_id": 1, "title": "Opening", "duration_ms": 200000}
                ],
                "listening_history": [
                    {
                        "play_id": 1,
                        "user_id": 1,
                        "device_id": 1,
                        "song_id": 1,
                        "played_at": "2025-10-01 08:00:00",
                        "ms_played": 250000,
                    },
                    {
                        "play_id": 2,
                        "user_id": 1,
                        "device_id": 1,
                        "song_id": 1,
                        "played_at": "2025-10-01 09:00:00",
                        "ms_played": 199999,
                    },
                ],
            },
            found=1,
            expect=[
                ("SELECT play_id, ms_played FROM listening_history ORDER BY ALL", [(1, 200000), (2, 199999)])
            ],
        )
    ],
    # --------------------------------------------------------------------------------------------- meeting
    ("meeting", "occurrence_follows_series"): [
        Scenario(
            rows={
                "meeting_series": [{"series_id": 1, "organizer_id": 1, "title": "Weekly sync"}],
                "meetings": [
                    {"meeting_id": 10, "series_id": 1, "organizer_id": 2, "title": "Budget review",
                     "start_at": "2025-03-03 10:00:00", "end_at": "2025-03-03 10:30:00"},
                    {"meeting_id": 11, "series_id": 1, "organizer_id": 1, "title": "Weekly sync",
                     "start_at": "2025-03-10 10:00:00", "end_at": "2025-03-10 10:30:00"},
                    {"meeting_id": 12, "series_id": None, "organizer_id": 3, "title": "Ad hoc",
                     "start_at": "2025-03-11 10:00:00", "end_at": "2025-03-11 10:30:00"},
                ],
                # once meeting 10 is the series organizer's, employee 1 can no longer be its invitee
                "meeting_attendees": [_attend(10, 1), _attend(10, 2), _attend(11, 2), _attend(12, 3)],
            },
            found=1,
            expect=[
                (
                    "SELECT meeting_id, organizer_id, title FROM meetings ORDER BY ALL",
                    [(10, 1, "Weekly sync"), (11, 1, "Weekly sync"), (12, 3, "Ad hoc")],
                ),
                ("SELECT meeting_id, employee_id FROM meeting_attendees ORDER BY ALL", [(10, 2), (11, 2)]),
            ],
        )
    ],
    ("meeting", "org_units_acyclic"): [
        Scenario(
            rows={
                "org_units": [
                    {"org_unit_id": u, "parent_id": p, "name": f"Unit {u}", "created_on": "2020-01-01"}
                    for u, p in [(1, None), (2, 1), (3, 4), (4, 5), (5, 3), (6, 3), (7, 8), (8, 7)]
                ]
            },
            found=5,
            expect=[
                (
                    "SELECT org_unit_id, parent_id FROM org_units ORDER BY ALL",
                    [(1, None), (2, 1), (3, None), (4, 5), (5, 3), (6, 3), (7, None), (8, 7)],
                )
            ],
        )
    ],
    ("meeting", "managers_acyclic"): [
        Scenario(
            rows={
                "employees": [
                    {"employee_id": e, "manager_id": m, "org_unit_id": 1, "hired_on": "2020-01-01"}
                    for e, m in [(1, None), (2, 1), (3, 4), (4, 3), (5, 3), (6, 5)]
                ]
            },
            found=2,
            expect=[
                (
                    "SELECT employee_id, manager_id FROM employees ORDER BY ALL",
                    [(1, None), (2, 1), (3, None), (4, 3), (5, 3), (6, 5)],
                )
            ],
        )
    ],
    ("meeting", "unit_head_is_member"): [
        Scenario(
            rows={
                "employees": [
                    {"employee_id": 1, "org_unit_id": 1, "hired_on": "2015-01-01"},
                    {"employee_id": 2, "org_unit_id": 1, "hired_on": "2012-01-01"},
                    {"employee_id": 3, "org_unit_id": 2, "hired_on": "2010-01-01"},
                    {
                        "employee_id": 4,
                        "org_unit_id": 2,
                        "hired_on": "2009-01-01",
                        "left_on": "2020-01-01",
                        "is_active": False,
                    },
                    {"employee_id": 5, "org_unit_id": 3, "hired_on": "2018-01-01"},
                ],
                "org_units": [
                    {"org_unit_id": 1, "head_employee_id": 3, "name": "A", "created_on": "2005-01-01"},
                    {"org_unit_id": 2, "head_employee_id": 4, "name": "B", "created_on": "2005-01-01"},
                    {"org_unit_id": 3, "head_employee_id": 5, "name": "C", "created_on": "2005-01-01"},
                    {"org_unit_id": 4, "head_employee_id": 1, "name": "D", "created_on": "2005-01-01"},
                    {"org_unit_id": 5, "head_employee_id": None, "name": "E", "created_on": "2005-01-01"},
                ],
            },
            found=3,
            expect=[
                (
                    "SELECT org_unit_id, head_employee_id FROM org_units ORDER BY ALL",
                    [(1, 2), (2, 3), (3, 5), (4, None), (5, None)],
                )
            ],
        )
    ],
    ("meeting", "room_booking_follows_meeting"): [
        Scenario(
            rows={
                "meetings": [
                    _meeting(1, "2025-03-03 10:00:00", "2025-03-03 11:00:00"),
                    _meeting(2, "2025-03-03 12:00:00", "2025-03-03 13:00:00", status="cancelled"),
                    _meeting(3, "2025-03-03 14:00:00", "2025-03-03 15:00:00"),
                ],
                "room_bookings": [
                    _booking(1, 1, "2025-03-03 10:00:00", "2025-03-03 11:00:00", meeting=1),
                    _booking(2, 1, "2025-03-03 12:00:00", "2025-03-03 13:00:00", meeting=2),
                    _booking(3, 1, "2025-03-03 13:30:00", "2025-03-03 15:00:00", meeting=3),
                    _booking(
                        4, 2, "2025-03-03 08:00:00", "2025-03-03 09:00:00", status="cancelled", meeting=3
                    ),
                ],
            },
            found=2,
            expect=[
                (
                    "SELECT booking_id, status, strftime(start_at, '%H:%M'), strftime(end_at, '%H:%M') "
                    "FROM room_bookings ORDER BY ALL",
                    [
                        (1, "confirmed", "10:00", "11:00"),
                        (2, "cancelled", "12:00", "13:00"),
                        (3, "confirmed", "14:00", "15:00"),
                        (4, "cancelled", "08:00", "09:00"),
                    ],
                )
            ],
        )
    ],
    ("meeting", "booking_within_opening_hours"): [
        Scenario(
            rows={
                "building_hours": [
                    {"building_id": 1, "weekday": d, "opens_at": "08:00:00", "closes_at": "19:00:00"}
                    for d in range(1, 6)
                ],
                "rooms": [
                    {"room_id": 1, "building_id": 1, "floor_number": 1, "name": "Everest", "capacity": 8}
                ],
                "room_bookings": [
                    _booking(1, 1, "2025-03-03 09:00:00", "2025-03-03 10:00:00"),  # Monday, inside
                    _booking(2, 1, "2025-03-03 18:30:00", "2025-03-03 19:30:00"),  # ends after closing
                    _booking(3, 1, "2025-03-08 10:00:00", "2025-03-08 11:00:00"),  # Saturday: closed
                    _booking(4, 1, "2025-03-04 07:30:00", "2025-03-04 08:30:00"),  # starts before opening
                    _booking(5, 1, "2025-03-05 18:00:00", "2025-03-05 19:00:00"),  # ends at closing: fine
                    _booking(6, 1, "2025-03-06 18:00:00", "2025-03-07 09:00:00"),  # spans two days
                    _booking(7, 1, "2025-03-09 10:00:00", "2025-03-09 11:00:00", status="cancelled"),
                ],
            },
            found=4,
            expect=[
                (
                    "SELECT booking_id, status FROM room_bookings ORDER BY ALL",
                    [
                        (1, "confirmed"),
                        (2, "cancelled"),
                        (3, "cancelled"),
                        (4, "cancelled"),
                        (5, "confirmed"),
                        (6, "cancelled"),
                        (7, "cancelled"),
                    ],
                )
            ],
        )
    ],
    ("meeting", "room_not_double_booked"): [
        Scenario(
            rows={
                "room_bookings": [
                    _booking(1, 1, "2025-03-03 09:00:00", "2025-03-03 10:00:00"),
                    _booking(2, 1, "2025-03-03 09:30:00", "2025-03-03 10:30:00"),  # overlaps 1: cancelled
                    _booking(3, 1, "2025-03-03 10:30:00", "2025-03-03 11:00:00"),  # starts as 2 ends: fine
                    _booking(4, 2, "2025-03-03 09:00:00", "2025-03-03 10:00:00"),  # other room
                    _booking(5, 1, "2025-03-03 09:15:00", "2025-03-03 09:45:00", status="cancelled"),
                    _booking(6, 3, "2025-03-03 09:00:00", "2025-03-03 10:00:00"),
                    _booking(
                        7, 3, "2025-03-03 09:00:00", "2025-03-03 10:00:00"
                    ),  # same slot: higher id cancelled
                ]
            },
            found=2,
            expect=[
                (
                    "SELECT booking_id FROM room_bookings WHERE status = 'confirmed' ORDER BY ALL",
                    [(1,), (3,), (4,), (6,)],
                )
            ],
        )
    ],
    ("meeting", "attendee_not_double_booked"): [
        Scenario(
            rows={
                "meetings": [
                    _meeting(1, "2025-03-03 09:00:00", "2025-03-03 10:00:00"),
                    _meeting(2, "2025-03-03 09:30:00", "2025-03-03 10:30:00"),
                    _meeting(3, "2025-03-03 10:30:00", "2025-03-03 11:00:00"),
                    _meeting(4, "2025-03-03 09:00:00", "2025-03-03 10:00:00", status="cancelled"),
                ],
                "meeting_attendees": [
                    _attend(1, 1),
                    _attend(2, 1),
                    _attend(3, 1),
                    _attend(4, 1),
                    _attend(1, 2),
                    _attend(2, 2, "tentative"),
                    _attend(3, 2, "pending"),
                ],
            },
            found=1,
            expect=[
                (
                    "SELECT meeting_id, employee_id, CAST(response AS VARCHAR) FROM meeting_attendees "
                    "ORDER BY ALL",
                    [
                        (1, 1, "accepted"),
                        (1, 2, "accepted"),
                        (2, 1, "declined"),
                        (2, 2, "tentative"),
                        (3, 1, "accepted"),
                        (3, 2, "pending"),
                        (4, 1, "accepted"),
                    ],
                )
            ],
        )
    ],
    ("meeting", "attendee_not_out_of_office"): [
        Scenario(
            rows={
                "out_of_office": [
                    {
                        "ooo_id": 1,
                        "employee_id": 1,
                        "starts_at": "2025-03-03 12:00:00",
                        "ends_at": "2025-03-05 00:00:00",
                    }
                ],
                "meetings": [
                    _meeting(1, "2025-03-03 09:00:00", "2025-03-03 10:00:00"),
                    _meeting(2, "2025-03-04 10:00:00", "2025-03-04 11:00:00"),
                    _meeting(3, "2025-03-03 11:30:00", "2025-03-03 12:30:00"),
                    _meeting(4, "2025-03-05 00:00:00", "2025-03-05 01:00:00"),
                ],
                "meeting_attendees": [
                    _attend(1, 1),
                    _attend(2, 1),
                    _attend(3, 1),
                    _attend(4, 1),
                    _attend(2, 2),
                ],
            },
            found=2,
            expect=[
                (
                    "SELECT meeting_id, employee_id FROM meeting_attendees WHERE response = 'declined' "
                    "ORDER BY ALL",
                    [(2, 1), (3, 1)],
                )
            ],
        )
    ],
    ("meeting", "recording_of_held_meeting"): [
        Scenario(
            rows={
                "meetings": [
                    _meeting(1, "2025-03-03 10:00:00", "2025-03-03 11:00:00", status="ended"),
                    _meeting(2, "2025-03-03 12:00:00", "2025-03-03 13:00:00", status="cancelled"),
                    _meeting(3, "2026-05-04 14:00:00", "2026-05-04 15:00:00"),
                ],
                "recordings": [
                    {
                        "recording_id": r,
                        "meeting_id": m,
                        "storage_url": f"https://r/{r}",
                        "duration_seconds": 60,
                        "size_bytes": 1,
                        "created_at": at,
                    }
                    for r, m, at in [
                        (1, 1, "2025-03-03 11:00:00"),  # kept: made when the meeting ended
                        (2, 1, "2025-03-03 10:30:00"),  # kept: made during the meeting
                        (3, 2, "2025-03-03 13:00:00"),  # the meeting was cancelled
                        (4, 3, "2026-03-31 12:00:00"),  # before the meeting starts
                    ]
                ],
            },
            found=2,
            expect=[("SELECT recording_id FROM recordings ORDER BY ALL", [(1,), (2,)])],
        )
    ],
    # ------------------------------------------------------------------------------------------------ game
    ("game", "five_players_a_side"): [
        Scenario(
            rows={
                "matches": [_match(1), _match(2), _match(3), _match(4)],
                "match_participants": (
                    _team(1, list(range(1, 11)))
                    + _team(
                        2,
                        list(range(1, 11)),
                        sides=["blue", "blue", "red", "blue", "blue", "red", "red", "blue", "red", "red"],
                    )
                    + _team(3, list(range(1, 10)))
                ),
            },
            found=3,
            expect=[
                ("SELECT match_id FROM matches ORDER BY ALL", [(1,), (2,)]),
                (
                    "SELECT slot, CAST(side AS VARCHAR) FROM match_participants "
                    "WHERE match_id = 2 AND slot IN (3, 8) "
                    "ORDER BY ALL",
                    [(3, "blue"), (8, "red")],
                ),
            ],
        )
    ],
    ("game", "hero_once_per_match"): [
        Scenario(
            rows={
                "heroes": _heroes(range(1, 13)),
                "matches": [_match(1), _match(2)],
                "match_participants": _team(1, list(range(1, 11))) + _team(2, [1, 1, 2, 3, 4, 5, 6, 7, 8, 8]),
            },
            found=2,
            expect=[
                (
                    "SELECT count(DISTINCT hero_id), count(*), bool_and(hero_id BETWEEN 1 AND 12) "
                    "FROM match_participants WHERE match_id = 2",
                    [(10, 10, True)],
                ),
                (
                    "SELECT slot, hero_id FROM match_participants WHERE match_id = 2 AND slot IN (1, 9) "
                    "ORDER BY ALL",
                    [(1, 1), (9, 8)],
                ),
                ("SELECT match_id FROM matches ORDER BY ALL", [(1,), (2,)]),
            ],
        ),
        Scenario(  # Too few heroes to make every pick distinct: the match goes.
            rows={
                "heroes": _heroes(range(1, 10)),
                "matches": [_match(1), _match(2)],
                "match_participants": _team(1, [1, 1, 2, 2, 3, 4, 5, 6, 7, 8])
                + _team(2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 9]),
            },
            found=3,
            expect=[("SELECT match_id FROM matches ORDER BY ALL", [])],
        ),
    ],
    ("game", "rank_history_in_time_order"): [
        Scenario(
            rows={
                "rank_history": [
                    {"record_id": 1, "player_id": 1, "seq_no": 1, "recorded_at": "2025-07-01 10:00:00"},
                    {"record_id": 2, "player_id": 1, "seq_no": 2, "recorded_at": "2025-09-01 10:00:00"},
                    {"record_id": 3, "player_id": 1, "seq_no": 3, "recorded_at": "2025-08-01 10:00:00"},
                    {"record_id": 4, "player_id": 2, "seq_no": 1, "recorded_at": "2025-07-01 10:00:00"},
                    {"record_id": 5, "player_id": 2, "seq_no": 2, "recorded_at": "2025-07-01 10:00:00"},
                    {"record_id": 6, "player_id": 2, "seq_no": 5, "recorded_at": "2025-08-01 10:00:00"},
                    {"record_id": 7, "player_id": 3, "seq_no": 1, "recorded_at": "2025-07-01 10:00:00"},
                    {"record_id": 8, "player_id": 3, "seq_no": 2, "recorded_at": "2025-07-02 10:00:00"},
                ]
            },
            found=4,
            expect=[
                (
                    "SELECT record_id, player_id, seq_no FROM rank_history ORDER BY ALL",
                    [(1, 1, 1), (2, 1, 3), (3, 1, 2), (4, 2, 1), (6, 2, 2), (7, 3, 1), (8, 3, 2)],
                )
            ],
        )
    ],
    ("game", "clan_has_one_leader"): [
        Scenario(
            rows={
                "clans": [
                    {"clan_id": c, "name": f"Clan {c}", "tag": f"C{c}", "created_at": "2024-01-01"}
                    for c in (1, 2, 3, 4)
                ],
                "clan_members": [
                    {"clan_id": 1, "player_id": 1, "role": "leader", "joined_at": "2024-01-01"},
                    {"clan_id": 1, "player_id": 2, "role": "leader", "joined_at": "2024-02-01"},
                    {"clan_id": 1, "player_id": 3, "role": "member", "joined_at": "2024-01-15"},
                    {"clan_id": 2, "player_id": 4, "role": "member", "joined_at": "2024-03-01"},
                    {"clan_id": 2, "player_id": 5, "role": "elder", "joined_at": "2024-01-01"},
                    {"clan_id": 4, "player_id": 6, "role": "leader", "joined_at": "2024-01-01"},
                ],
            },
            found=3,
            expect=[
                ("SELECT clan_id FROM clans ORDER BY ALL", [(1,), (2,), (4,)]),
                (
                    "SELECT clan_id, player_id, role FROM clan_members ORDER BY ALL",
                    [
                        (1, 1, "leader"),
                        (1, 2, "elder"),
                        (1, 3, "member"),
                        (2, 4, "member"),
                        (2, 5, "leader"),
                        (4, 6, "leader"),
                    ],
                ),
            ],
        )
    ],
    ("game", "match_within_season"): [
        Scenario(
            rows={
                "seasons": [
                    {"season_id": 1, "name": "S1", "starts_on": "2025-01-01", "ends_on": "2025-03-31"},
                    {"season_id": 2, "name": "S2", "starts_on": "2025-04-01", "ends_on": "2025-06-30"},
                ],
                "matches": [
                    _match(1, season_id=1, start="2025-02-01 20:00:00"),
                    _match(2, season_id=1, start="2025-05-01 20:00:00"),
                    _match(3, season_id=2, start="2024-12-01 20:00:00"),
                    _match(4, season_id=2, start="2025-03-31 23:00:00"),
                ],
            },
            found=3,
            expect=[("SELECT match_id, season_id FROM matches ORDER BY ALL", [(1, 1), (2, 2), (4, 1)])],
        )
    ],
    ("game", "one_equipped_skin_per_hero"): [
        Scenario(
            rows={
                "skins": [
                    {"skin_id": k, "hero_id": h, "name": f"Skin {k}", "released_on": "2024-01-01"}
                    for k, h in [(1, 1), (2, 1), (3, 1), (4, 2), (5, 3)]
                ],
                "player_heroes": [
                    {"player_id": p, "hero_id": h, "acquired_at": "2024-01-01"}
                    for p, h in [(1, 1), (1, 2), (2, 1)]
                ],
                "player_skins": [
                    # player 1 wears three skins of hero 1: the latest acquired (skin 2) stays
                    {"player_id": 1, "skin_id": 1, "acquired_at": "2024-02-01", "is_equipped": True},
                    {"player_id": 1, "skin_id": 2, "acquired_at": "2024-05-01", "is_equipped": True},
                    {"player_id": 1, "skin_id": 3, "acquired_at": "2024-03-01", "is_equipped": True},
                    {"player_id": 1, "skin_id": 4, "acquired_at": "2024-03-01", "is_equipped": True},
                    # player 1 does not own hero 3; player 2 owns hero 1 but not hero 2
                    {"player_id": 1, "skin_id": 5, "acquired_at": "2024-03-01", "is_equipped": True},
                    {"player_id": 2, "skin_id": 1, "acquired_at": "2024-03-01", "is_equipped": True},
                    {"player_id": 2, "skin_id": 4, "acquired_at": "2024-03-01", "is_equipped": True},
                ],
            },
            found=3,
            expect=[
                (
                    "SELECT player_id, skin_id FROM player_skins WHERE is_equipped ORDER BY ALL",
                    [(1, 2), (1, 4), (2, 1)],
                )
            ],
        )
    ],
    ("game", "rune_page_colour_limit"): [
        Scenario(
            rows={
                "runes": [
                    {"rune_id": r, "name": f"Rune {r}", "color": c, "bonus": "+1 attack"}
                    for r, c in [(1, "red"), (2, "red"), (3, "red"), (4, "red"), (11, "blue"), (12, "blue")]
                ],
                "rune_page_runes": [
                    # page 1: red 4 + 5 + 3 + 2 -> 4 + 5 + 1, rune 4 removed; blue 10 stays
                    {"page_id": 1, "rune_id": 1, "quantity": 4},
                    {"page_id": 1, "rune_id": 2, "quantity": 5},
                    {"page_id": 1, "rune_id": 3, "quantity": 3},
                    {"page_id": 1, "rune_id": 4, "quantity": 2},
                    {"page_id": 1, "rune_id": 11, "quantity": 10},
                    # page 2: red exactly 10 then more -> the runes after the tenth go
                    {"page_id": 2, "rune_id": 1, "quantity": 10},
                    {"page_id": 2, "rune_id": 2, "quantity": 1},
                    {"page_id": 2, "rune_id": 12, "quantity": 9},
                    {"page_id": 2, "rune_id": 11, "quantity": 2},
                ],
            },
            found=3,
            expect=[
                (
                    "SELECT page_id, rune_id, quantity FROM rune_page_runes ORDER BY ALL",
                    [(1, 1, 4), (1, 2, 5), (1, 3, 1), (1, 11, 10), (2, 1, 10), (2, 11, 2), (2, 12, 8)],
                )
            ],
        )
    ],
    ("game", "friend_request_once_per_pair"): [
        Scenario(
            rows={
                "friendships": [{"player_a_id": 1, "player_b_id": 2, "since": "2025-01-01"}],
                "friend_requests": [
                    {
                        "request_id": r,
                        "sender_id": s,
                        "recipient_id": t,
                        "status": st,
                        "sent_at": "2025-02-01",
                        "responded_at": None if st == "pending" else "2025-02-02",
                    }
                    for r, s, t, st in [
                        (1, 2, 1, "pending"),  # already friends
                        (2, 1, 2, "accepted"),  # history stays
                        (3, 3, 4, "pending"),  # the first of a pair stays ...
                        (4, 4, 3, "pending"),  # ... the reverse request goes
                        (5, 3, 4, "pending"),  # ... and so does the repeat
                        (6, 3, 4, "declined"),
                        (7, 5, 1, "pending"),
                    ]
                ],
            },
            found=3,
            expect=[("SELECT request_id FROM friend_requests ORDER BY ALL", [(2,), (3,), (6,), (7,)])],
        )
    ],
    ("game", "events_within_match"): [
        Scenario(
            rows={
                "matches": [_match(1, duration=600)],
                "match_events": [
                    {
                        "event_id": e,
                        "match_id": 1,
                        "actor_slot": 1,
                        "event_type": "tower_destroyed",
                        "at_second": s,
                    }
                    for e, s in [(1, 0), (2, 600), (3, 601)]
                ],
            },
            found=1,
            expect=[("SELECT event_id FROM match_events ORDER BY ALL", [(1,), (2,)])],
        )
    ],
}


def _cases():
    for pack in PACKS:
        for rule in domain(pack)["rules"]:
            for i, scenario in enumerate(SCENARIOS.get((pack, rule["name"]), [])):
                for transaction in (False, True):
                    label = f"{pack}-{rule['name']}-{i}-{'txn' if transaction else 'plain'}"
                    yield pytest.param(pack, rule, scenario, transaction, id=label)


@pytest.mark.parametrize("pack", PACKS)
def test_every_rule_has_a_scenario(pack):
    names = {r["name"] for r in domain(pack)["rules"]}
    assert names == {rule for p, rule in SCENARIOS if p == pack}


@pytest.mark.parametrize("pack, rule, scenario, transaction", list(_cases()))
def test_rule_finds_and_repairs_violations(pack, rule, scenario, transaction):
    con = connect(pack)
    for table, rows in scenario.rows.items():
        insert(con, pack, table, rows)

    found = con.sql(rule["check"]).fetchall()
    assert found, "the scenario must break the rule"
    if scenario.found is not None:
        assert len(found) == scenario.found, found

    if transaction:
        con.execute("BEGIN TRANSACTION")
    for statement in rule["repair"]:
        con.execute(statement)
    if transaction:
        con.execute("COMMIT")

    assert con.sql(rule["check"]).fetchall() == [], "one round of repairs must be enough"
    for query, expected in scenario.expect:
        assert con.sql(query).fetchall() == expected, query

    # The repaired state satisfies every constraint of fresh tables ...
    fresh = connect(pack)
    for table in columns(con):
        data = con.sql(f"SELECT * FROM {table}").to_arrow_table()  # noqa: F841 (read by the next SQL)
        fresh.execute(f"INSERT INTO {table} SELECT * FROM data")
    # ... and a second run of the repairs changes nothing.
    before = snapshot(con)
    for statement in rule["repair"]:
        con.execute(statement)
    assert snapshot(con) == before
