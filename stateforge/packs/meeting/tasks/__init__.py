"""Recipes of the meeting pack: the offline task generator's programs (docs/tasks.md, the meeting section).

Each recipe finds a situation in the built database with SQL, picks one with the seeded rng, acts through
the pack's own tools (tools.py) on an episode, and writes the request as the employee would. They live in
modules beside this file, one area each: an organizer's calendar, invitations, recurring series, rooms and
desks, people (absences, offboarding, working hours, offices), and recordings and notes. What they share
(naming people, meetings and rooms, sizes, days) is in `common`.

The default tier is the storylines of `stories` (long tasks of dependent steps); the short recipes above
stay as the warm-up tier (`generate-tasks --tier warmup`).
"""

from __future__ import annotations

from .calendar import (
    cancel_meetings_in_range,
    change_meeting_settings,
    delete_cancelled_before,
    follow_up_with_accepted,
    schedule_at_first_free_time,
    shift_meeting,
)
from .content import (
    delete_largest_recordings,
    delete_recordings_before,
    keep_transcribed_recordings,
    note_on_meeting,
)
from .invites import (
    accept_invitation,
    answer_invitations,
    invite_direct_reports,
    invite_org_unit,
    remove_declined,
)
from .people import (
    move_team_building,
    offboard_unit_head,
    out_of_office_with_manager,
    shorten_working_days,
)
from .places import (
    book_desk_for_days,
    book_smallest_room,
    install_missing_equipment,
    rooms_out_of_service,
)
from .series import add_to_series, create_series, end_series
from .stories import STORYLINES

WARMUP = [
    # an organizer's calendar
    cancel_meetings_in_range,
    shift_meeting,
    schedule_at_first_free_time,
    change_meeting_settings,
    follow_up_with_accepted,
    delete_cancelled_before,
    # invitations
    invite_org_unit,
    invite_direct_reports,
    remove_declined,
    answer_invitations,
    accept_invitation,
    # recurring series
    end_series,
    add_to_series,
    create_series,
    # rooms and desks
    book_smallest_room,
    rooms_out_of_service,
    install_missing_equipment,
    book_desk_for_days,
    # people
    out_of_office_with_manager,
    offboard_unit_head,
    shorten_working_days,
    move_team_building,
    # recordings and notes
    delete_recordings_before,
    keep_transcribed_recordings,
    delete_largest_recordings,
    note_on_meeting,
]
"""The warm-up tier: short, single-step tasks (`generate-tasks --tier warmup`)."""

RECIPES = [story.recipe() for story in STORYLINES]
"""The default tier: composed, long-horizon storylines (stories.py)."""

TIERS = {"long": RECIPES, "warmup": WARMUP}
"""Selectable task sets; the first is the default."""
