"""The CMDB: search configuration items, read one, walk its relations (and the business services a failure
reaches), its incidents and changes, and maintain relations and status."""

from __future__ import annotations

from typing import Literal

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import CMDB_VIEWERS, PEOPLE, Actor, Limit, Offset, actor, ci, group, require_itil, require_view

READS = (
    *PEOPLE,
    "configuration_items",
    "ci_classes",
    "ci_relationships",
    "ci_relation_types",
    "ci_relation_suggestions",
    "vendors",
    "locations",
    "incidents",
    "changes",
)
VIEW = (
    "SELECT ci.name, k.name AS class, ci.environment, ci.operational_status, ci.criticality, "
    "g.name AS support_group, l.name AS location, v.name AS vendor, u.user_name AS owned_by, ci.ip_address "
    "FROM configuration_items AS ci JOIN ci_classes AS k ON k.class_id = ci.class_id "
    "JOIN assignment_groups AS g ON g.group_id = ci.support_group_id "
    "JOIN locations AS l ON l.location_id = ci.location_id LEFT JOIN vendors AS v ON v.vendor_id = "
    "ci.vendor_id "
    "LEFT JOIN users AS u ON u.user_id = ci.owned_by"
)


def cmdb_editor(env: Env, me: Actor, item: dict, what: str) -> None:
    require_itil(me, what)
    if not (me.has("itil_admin") or item["support_group_id"] in me.groups):
        raise refuse(
            "cmdb_changes", f"{me.name} is not in the support group of {item['name']}"
        )


@tool(reads=READS)
def search_cis(
    env: Env,
    query: str | None = None,
    ci_class: str | None = None,
    environment: Literal["production", "staging", "test", "development"] | None = None,
    status: Literal["operational", "non_operational", "repair_in_progress", "retired"] | None = None,
    support_group: str | None = None,
    location: str | None = None,
    min_criticality: int | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Configuration items matching the filters, by name.

    Args:
        query: Part of the item's name (srv-lon, db-, ...).
        ci_class: The class (Server, Virtual Machine, Database, Application, Network Device, Storage Array,
            Business Service, Load Balancer).
        environment: production, staging, test or development.
        status: The operational status.
        support_group: The support group's name.
        location: The location's name.
        min_criticality: Only items at least this critical (1 mission critical .. 4 low; 2 gives 1 and 2).
    """
    require_view(actor(env), CMDB_VIEWERS, "the CMDB")
    where, params = ["TRUE"], []
    if query:
        where.append("lower(ci.name) LIKE ?")
        params.append(f"%{query.strip().lower()}%")
    if ci_class:
        where.append("lower(k.name) = lower(?)")
        params.append(ci_class)
    for column, value in (("ci.environment", environment), ("ci.operational_status", status)):
        if value:
            where.append(f"{column} = ?")
            params.append(value)
    if support_group:
        where.append("ci.support_group_id = ?")
        params.append(group(env, support_group, argument="support_group")["group_id"])
    if location:
        where.append("lower(l.name) = lower(?)")
        params.append(location)
    if min_criticality is not None:
        where.append("ci.criticality <= ?")
        params.append(min_criticality)
    return env.page(
        f"{VIEW} WHERE {' AND '.join(where)}", params, order_by="name", limit=limit, offset=offset
    )


@tool(reads=READS)
def get_ci(env: Env, name: str) -> dict:
    """One configuration item with counts of its relations and open incidents and changes.

    Args:
        name: The item's name.
    """
    require_view(actor(env), CMDB_VIEWERS, "the CMDB")
    item = ci(env, name, argument="name")
    row = env.one(f"{VIEW} WHERE ci.ci_id = ?", [item["ci_id"]])
    row.update(
        env.one(
            "SELECT (SELECT count(*) FROM ci_relationships WHERE parent_ci_id = $c) AS relations_out, "
            "(SELECT count(*) FROM ci_relationships WHERE child_ci_id = $c) AS relations_in, "
            "(SELECT count(*) FROM incidents WHERE ci_id = $c AND state IN ('new', 'in_progress', "
            "'on_hold')) AS open_incidents, "
            "(SELECT count(*) FROM changes WHERE ci_id = $c AND state NOT IN ('closed', 'canceled')) AS "
            "open_changes",
            {"c": item["ci_id"]},
        )
    )
    return row


@tool(reads=READS)
def list_ci_relations(
    env: Env,
    name: str,
    direction: Literal["outgoing", "incoming", "both"] = "both",
    relation: str | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """An item's relations, read the way the product shows them ("app-x Depends on db-y"; incoming ones with
    the child's descriptor: "db-y Used by app-x").

    Args:
        name: The item's name.
        direction: outgoing (this item is the parent), incoming (it is the child) or both.
        relation: Only this descriptor (Depends on, Used by, Runs on, Hosts, ...).
    """
    require_view(actor(env), CMDB_VIEWERS, "the CMDB")
    item = ci(env, name, argument="name")
    parts, params = [], []
    if direction in ("outgoing", "both"):
        parts.append(
            "SELECT t.parent_descriptor AS relation, o.name AS other, k.name AS other_class, "
            "o.operational_status AS other_status FROM ci_relationships AS r JOIN ci_relation_types AS t "
            "USING (type_id) JOIN configuration_items AS o ON o.ci_id = r.child_ci_id JOIN ci_classes AS k "
            "ON k.class_id = o.class_id WHERE r.parent_ci_id = ?"
        )
        params.append(item["ci_id"])
    if direction in ("incoming", "both"):
        parts.append(
            "SELECT t.child_descriptor AS relation, o.name AS other, k.name AS other_class, "
            "o.operational_status AS other_status FROM ci_relationships AS r JOIN ci_relation_types AS t "
            "USING (type_id) JOIN configuration_items AS o ON o.ci_id = r.parent_ci_id JOIN ci_classes AS k "
            "ON k.class_id = o.class_id WHERE r.child_ci_id = ?"
        )
        params.append(item["ci_id"])
    sql = "SELECT * FROM (" + " UNION ALL ".join(parts) + ") AS rel"
    if relation:
        sql += " WHERE lower(relation) = lower(?)"
        params.append(relation)
    return env.page(sql, params, order_by="relation, other", limit=limit, offset=offset)


@tool(reads=READS)
def impacted_services(env: Env, name: str, depth: int = 4) -> dict:
    """Walk up from an item through the items that depend on it (the parents of its relations), up to
    `depth` hops: the business services and applications an outage of this item reaches.

    Args:
        name: The item's name.
        depth: How many hops to walk (1 to 6).
    """
    require_view(actor(env), CMDB_VIEWERS, "the CMDB")
    if not 1 <= depth <= 6:
        raise ToolError("depth must be between 1 and 6.", argument="depth")
    item = ci(env, name, argument="name")
    rows = env.query(
        "WITH RECURSIVE up(ci_id, hops) AS (SELECT ?, 0 UNION SELECT r.parent_ci_id, up.hops + 1 FROM up "
        "JOIN ci_relationships AS r ON r.child_ci_id = up.ci_id WHERE up.hops < ?) "
        "SELECT o.name, k.name AS class, o.criticality, o.operational_status, min(up.hops) AS hops FROM up "
        "JOIN configuration_items AS o "
        "ON o.ci_id = up.ci_id JOIN ci_classes AS k ON k.class_id = o.class_id WHERE up.hops > 0 "
        "GROUP BY o.name, k.name, o.criticality, o.operational_status ORDER BY hops, o.name",
        [item["ci_id"], depth],
    )
    services = [r for r in rows if r["class"] == "Business Service"]
    return {"ci": item["name"], "reached": len(rows), "business_services": services, "items": rows[:500]}


@tool(kind="write", reads=READS, writes=("ci_relationships",), idempotent=True)
def add_ci_relation(env: Env, parent: str, child: str, relation: str) -> dict:
    """Relate two items: the parent <relation> the child ("app-x", "db-y", "Depends on").

    Args:
        parent: The parent item's name.
        child: The child item's name.
        relation: The parent's descriptor: Depends on, Runs on, Hosted on, Connected by or Contains.
    """
    me = actor(env)
    up, down = ci(env, parent, argument="parent"), ci(env, child, argument="child")
    cmdb_editor(env, me, up, "edit the CMDB")
    if up["ci_id"] == down["ci_id"]:
        raise ToolError("an item cannot be related to itself.", argument="child")
    for item, arg in ((up, "parent"), (down, "child")):
        if item["operational_status"] == "retired":
            raise refuse("cmdb_changes", f"{item['name']} is retired: no new relations", argument=arg)
    kind = env.one(
        "SELECT type_id, name FROM ci_relation_types WHERE lower(parent_descriptor) = lower(?)", [relation]
    )
    if kind is None:
        raise ToolError(
            f"no relation type reads {relation!r} from the parent; use Depends on, Runs on, Hosted on, "
            "Connected by or Contains.",
            argument="relation",
        )
    if not env.scalar(
        "SELECT count(*) FROM ci_relation_suggestions WHERE parent_class_id = ? AND type_id = ? AND "
        "child_class_id = ?",
        [up["class_id"], kind["type_id"], down["class_id"]],
    ):
        classes = env.one(
            "SELECT (SELECT name FROM ci_classes WHERE class_id = ?) AS up, "
            "(SELECT name FROM ci_classes WHERE class_id = ?) AS down",
            [up["class_id"], down["class_id"]],
        )
        raise refuse(
            "cmdb_relations_by_class",
            f"a {classes['up']} is not related to a {classes['down']} by {kind['name'].split('::')[0]!r} "
            f"({up['name']} -> {down['name']}): relations follow the classes' suggested relations",
            argument="relation",
        )
    if env.scalar(
        "SELECT count(*) FROM ci_relationships WHERE parent_ci_id = ? AND child_ci_id = ? AND type_id = ?",
        [up["ci_id"], down["ci_id"], kind["type_id"]],
    ):
        raise ToolError(f"{up['name']} {relation} {down['name']} is recorded already.", argument="child")
    env.insert(
        "ci_relationships",
        {
            "parent_ci_id": up["ci_id"],
            "child_ci_id": down["ci_id"],
            "type_id": kind["type_id"],
            "created_at": env.now,
        },
    )
    return {"parent": up["name"], "relation": relation, "child": down["name"]}


@tool(kind="write", reads=READS, writes=("ci_relationships",), idempotent=True, destructive=True)
def remove_ci_relation(env: Env, parent: str, child: str, relation: str) -> dict:
    """Remove a relation between two items.

    Args:
        parent: The parent item's name.
        child: The child item's name.
        relation: The parent's descriptor (Depends on, ...).
    """
    me = actor(env)
    up, down = ci(env, parent, argument="parent"), ci(env, child, argument="child")
    cmdb_editor(env, me, up, "edit the CMDB")
    gone = env.delete_where(
        "ci_relationships",
        "parent_ci_id = ? AND child_ci_id = ? AND type_id IN (SELECT type_id FROM "
        "ci_relation_types WHERE lower(parent_descriptor) = lower(?))",
        [up["ci_id"], down["ci_id"], relation],
    )
    if not gone:
        raise ToolError(
            f"{up['name']} {relation} {down['name']} is not recorded; list_ci_relations shows it.",
            argument="relation",
        )
    return {"removed": gone}


@tool(kind="write", reads=READS, writes=("configuration_items",), idempotent=True)
def set_ci_status(
    env: Env,
    name: str,
    status: Literal["operational", "non_operational", "repair_in_progress", "retired"],
) -> dict:
    """Set an item's operational status (retiring it needs no open incident or change on it).

    Args:
        name: The item's name.
        status: operational, non_operational, repair_in_progress or retired.
    """
    me = actor(env)
    item = ci(env, name, argument="name")
    cmdb_editor(env, me, item, "edit the CMDB")
    if status == "retired" and env.scalar(
        "SELECT (SELECT count(*) FROM incidents WHERE ci_id = $c AND state IN ('new', 'in_progress', "
        "'on_hold')) + "
        "(SELECT count(*) FROM changes WHERE ci_id = $c AND state NOT IN ('closed', 'canceled'))",
        {"c": item["ci_id"]},
    ):
        raise refuse(
            "cmdb_changes",
            f"{item['name']} has open incidents or changes: resolve them before retiring it",
            argument="status",
        )
    env.update("configuration_items", item["ci_id"], {"operational_status": status})
    return {"name": item["name"], "operational_status": status}


CMDB_TOOLS = [
    search_cis,
    get_ci,
    list_ci_relations,
    impacted_services,
    add_ci_relation,
    remove_ci_relation,
    set_ci_status,
]
