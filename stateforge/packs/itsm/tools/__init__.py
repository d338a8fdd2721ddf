"""The ITSM suite's tools, shaped like a ServiceNow-like product's Table API and UI actions.

One module per part of the product: incidents (the list and form, read side), incident_work (the form's
UI actions, the activity stream, major incidents), problems, changes (with the CAB's approvals and
meetings), cmdb (items, relations, impact walks), people (users, groups, membership), knowledge and
catalog (ordering, approving as the manager, fulfilment). Every tool acts as the episode's signed-in person
(`common.actor`: domain.yaml `actors:`), shows what their roles may see and refuses what domain.yaml's
policies forbid, naming the policy.
"""

from __future__ import annotations

from .catalog import CATALOG_TOOLS
from .changes import CHANGE_TOOLS
from .cmdb import CMDB_TOOLS
from .incident_work import INCIDENT_WRITES
from .incidents import (
    get_incident,
    list_attachments,
    list_breached_slas,
    list_categories,
    list_incident_activity,
    list_incident_history,
    list_incidents,
    list_sla_definitions,
)
from .knowledge import KNOWLEDGE_TOOLS
from .people import PEOPLE_TOOLS
from .problems import PROBLEM_TOOLS

INCIDENT_READS = [
    list_incidents,
    get_incident,
    list_incident_activity,
    list_incident_history,
    list_attachments,
    list_breached_slas,
    list_categories,
    list_sla_definitions,
]

TOOLS = [
    *INCIDENT_READS,
    *INCIDENT_WRITES,
    *PROBLEM_TOOLS,
    *CHANGE_TOOLS,
    *CMDB_TOOLS,
    *PEOPLE_TOOLS,
    *KNOWLEDGE_TOOLS,
    *CATALOG_TOOLS,
]
