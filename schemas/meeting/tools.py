"""The meeting pack's business tools: what an employee, an organizer or facilities can do in the app.

The tools live in modules beside this one, one concern each:

- `tools_calendar` reads calendars; `tools_meetings` schedules, changes and moves meetings; `tools_cancel`
  cancels and deletes them; `tools_invites` invites and answers; `tools_booking` books rooms for meetings;
  `tools_series` handles recurring meetings;
- `tools_places` buildings, rooms and equipment; `tools_desks` desks; `tools_away` out of office;
- `tools_org` the org chart; `tools_people` people's records; `tools_content` recordings and notes;
- `tools_common` finds people, meetings, rooms and units by what users know; `tools_checks` holds the checks
  that bookings and answers must pass.

The product's policies (domain.yaml `policies:`) are enforced where a call could break them;
docs/packs/meeting.md lists the tools, the policies and the tables that stay read-only.
"""

from __future__ import annotations

from schemas.meeting import (
    tools_away,
    tools_booking,
    tools_calendar,
    tools_cancel,
    tools_content,
    tools_desks,
    tools_invites,
    tools_meetings,
    tools_org,
    tools_people,
    tools_places,
    tools_series,
)

TOOLS = [
    *tools_calendar.TOOLS,
    *tools_meetings.TOOLS,
    *tools_cancel.TOOLS,
    *tools_invites.TOOLS,
    *tools_booking.TOOLS,
    *tools_series.TOOLS,
    *tools_places.TOOLS,
    *tools_desks.TOOLS,
    *tools_away.TOOLS,
    *tools_org.TOOLS,
    *tools_people.TOOLS,
    *tools_content.TOOLS,
]
