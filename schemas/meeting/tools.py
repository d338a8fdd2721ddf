"""The meeting pack's business tools: what an employee, an organizer or facilities can do in the app.

The tools live in a few modules beside this one, one concern each (`tools_people`, `tools_places`,
`tools_desks`, `tools_calendar`, `tools_meetings`, `tools_invites`, `tools_booking`, `tools_series`,
`tools_away`, `tools_content`; shared lookups and checks in `tools_common`). The product's policies
(domain.yaml `policies:`) are enforced where a call could break them; docs/packs/meeting.md lists the tools,
the policies and the tables that stay read-only.
"""

from __future__ import annotations

from schemas.meeting import (
    tools_away,
    tools_booking,
    tools_calendar,
    tools_content,
    tools_desks,
    tools_invites,
    tools_meetings,
    tools_people,
    tools_places,
    tools_series,
)

TOOLS = [
    *tools_calendar.TOOLS,
    *tools_meetings.TOOLS,
    *tools_invites.TOOLS,
    *tools_booking.TOOLS,
    *tools_series.TOOLS,
    *tools_places.TOOLS,
    *tools_desks.TOOLS,
    *tools_away.TOOLS,
    *tools_people.TOOLS,
    *tools_content.TOOLS,
]
