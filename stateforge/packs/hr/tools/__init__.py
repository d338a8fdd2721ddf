"""The HR system's tools, shaped like a Workday- or BambooHR-like product's API: paged, filtered lists and
business actions, one module per part of the product (the directory, time off, pay and payroll, staffing,
performance, checklists, system access, HR cases). Every tool acts as the signed-in worker (`common.actor`,
domain.yaml `actors:`) and refuses what domain.yaml's policies forbid, naming the policy; the procedures are
the assistant's to follow, and no tool refuses them.
"""

from __future__ import annotations

from .access import ACCESS_TOOLS
from .cases import CASE_TOOLS
from .checklists import CHECKLIST_TOOLS
from .leave import LEAVE_TOOLS
from .pay import PAY_TOOLS
from .people import (
    add_emergency_contact,
    get_job_history,
    get_my_profile,
    get_worker,
    list_direct_reports,
    list_emergency_contacts,
    list_holidays,
    list_job_profiles,
    list_org_units,
    list_positions,
    remove_emergency_contact,
    search_workers,
)
from .performance import PERFORMANCE_TOOLS
from .staffing import STAFFING_TOOLS

PEOPLE_TOOLS = [
    get_my_profile,
    search_workers,
    get_worker,
    list_direct_reports,
    list_org_units,
    list_positions,
    list_job_profiles,
    list_holidays,
    get_job_history,
    list_emergency_contacts,
    add_emergency_contact,
    remove_emergency_contact,
]

TOOLS = [
    *PEOPLE_TOOLS,
    *LEAVE_TOOLS,
    *PAY_TOOLS,
    *STAFFING_TOOLS,
    *PERFORMANCE_TOOLS,
    *CHECKLIST_TOOLS,
    *ACCESS_TOOLS,
    *CASE_TOOLS,
]
