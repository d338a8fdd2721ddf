"""The meeting pack's business tools: what an employee, an organizer or facilities can do in the app.

The tools live in modules beside this one, one concern each:

- `calendar` reads calendars; `meetings` schedules, changes and moves meetings; `cancel`
  cancels and deletes them; `invites` invites and answers; `booking` books rooms for meetings;
  `series` handles recurring meetings;
- `places` buildings, rooms and equipment; `desks` desks; `away` out of office;
- `org` the org chart; `people` people's records; `content` recordings and notes;
- `common` finds people, meetings, rooms and units by what users know; `checks` holds the checks
  that bookings and answers must pass.

The product's policies (domain.yaml `policies:`) are enforced where a call could break them;
docs/packs/meeting.md lists the tools, the policies and the tables that stay read-only.
"""

from __future__ import annotations

from stateforge.tools import Tool
from stateforge.tools.collect import defined_in

from . import away, booking, calendar, cancel, content, desks, invites, meetings, org, people, places, series

TOOLS = defined_in(
    calendar, meetings, cancel, invites, booking, series, places, desks, away, org, people, content, kind=Tool
)
"""Every tool, module by module in the order clients see them, each module's tools as written there."""
