"""The service catalogue: items, ordering them (a request with its requested items and the manager
approvals they need), requests, approving them as the manager, and fulfilment."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import (
    PEOPLE,
    Actor,
    Limit,
    Offset,
    active_person,
    actor,
    is_member,
    person,
    record,
    require_itil,
)

READS = (*PEOPLE, "catalog_items", "catalog_categories", "requests", "requested_items", "request_approvals")
WRITES = ("requests", "requested_items", "request_approvals")
ITEM_VIEW = (
    "SELECT i.name, c.title AS category, i.price, i.requires_approval, i.delivery_days, i.max_quantity, "
    "i.active, g.name AS fulfilment_group FROM catalog_items AS i JOIN catalog_categories AS c "
    "USING (catalog_category_id) JOIN assignment_groups AS g ON g.group_id = i.fulfillment_group_id"
)


class Line(BaseModel):
    """One item of an order."""

    model_config = ConfigDict(extra="forbid")
    item: str = Field(description="The catalogue item's name.")
    quantity: int = Field(default=1, ge=1, le=10, description="How many.")


def sync_request(env: Env, request_id: int) -> None:
    """A request's state and closing follow its items (closed when all are, in progress while any is
    worked)."""
    items = env.query("SELECT state, closed_at FROM requested_items WHERE request_id = ?", [request_id])
    done = all(i["state"] in ("fulfilled", "rejected", "canceled") for i in items)
    busy = any(i["state"] in ("approved", "work_in_progress", "fulfilled") for i in items)
    env.update(
        "requests",
        request_id,
        {
            "state": "closed" if done else ("in_progress" if busy else "open"),
            "closed_at": max(i["closed_at"] for i in items) if done else None,
        },
    )


def ritm(env: Env, number: str) -> dict[str, Any]:
    return record(env, "requested_items", number, argument="number")


@tool(reads=READS)
def list_catalog_items(
    env: Env, category: str | None = None, active_only: bool = True
) -> dict:
    """The catalogue: each item's price, whether it needs approval, delivery days and maximum quantity.

    Args:
        category: The section (Hardware, Software, Access, Mobile, Services).
        active_only: Leave out items that can no longer be ordered.
    """
    actor(env)
    where, params = ["TRUE"], []
    if category:
        where.append("lower(c.title) = lower(?)")
        params.append(category)
    if active_only:
        where.append("i.active")
    return {"items": env.query(f"{ITEM_VIEW} WHERE {' AND '.join(where)} ORDER BY c.title, i.name", params)}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def order_catalog_items(
    env: Env,
    items: Annotated[list[Line], Field(min_length=1, max_length=6)],
    requested_for: str | None = None,
) -> dict:
    """Order catalogue items in one request, for yourself or (managers: a direct report; service desk: anyone)
    someone else; items that need approval wait for the manager of the person they are for.

    Args:
        items: The items and quantities.
        requested_for: The user name of the person they are for (default: you).
    """
    me = actor(env)
    target = me.user
    if requested_for and requested_for.strip().lower() != me.name.lower():
        target = active_person(env, requested_for, argument="requested_for", role="receive catalogue items")
        if target["manager_id"] != me.id and not me.has("itil"):
            raise refuse(
                "catalog_ordering",
                f"{me.name} may order for themself and their direct reports only",
                argument="requested_for",
            )
    last = env.scalar("SELECT max(number) FROM requests")
    number = f"REQ{int(last[3:]) + 1:07d}" if last else "REQ0010001"
    req = env.insert(
        "requests",
        {
            "number": number,
            "requested_for": target["user_id"],
            "opened_by": me.id,
            "opened_at": env.now,
            "state": "open",
        },
    )
    last_ritm = env.scalar("SELECT max(number) FROM requested_items")
    seq = int(last_ritm[4:]) if last_ritm else 10000
    made = []
    for line in items:
        item = env.one("SELECT * FROM catalog_items WHERE lower(name) = lower(?)", [line.item.strip()])
        if item is None:
            raise ToolError(
                f"no catalogue item is called {line.item!r}; list_catalog_items shows them.", argument="items"
            )
        if not item["active"]:
            raise refuse("catalog_ordering", f"{item['name']} can no longer be ordered", argument="items")
        if line.quantity > item["max_quantity"]:
            raise refuse(
                "catalog_ordering",
                f"{item['name']}: at most {item['max_quantity']} per request",
                argument="items",
            )
        seq += 1
        needs = item["requires_approval"] and target["manager_id"] is not None
        row = env.insert(
            "requested_items",
            {
                "number": f"RITM{seq:07d}",
                "request_id": req["request_id"],
                "item_id": item["item_id"],
                "quantity": line.quantity,
                "state": "pending_approval" if needs else "approved",
                "assignment_group_id": item["fulfillment_group_id"],
                "opened_at": env.now,
                "due_date": env.now.date() + dt.timedelta(days=item["delivery_days"]),
            },
        )
        if needs:
            env.insert(
                "request_approvals",
                {
                    "ritm_id": row["ritm_id"],
                    "approver_id": target["manager_id"],
                    "state": "requested",
                    "requested_at": env.now,
                },
            )
        made.append({"number": row["number"], "item": item["name"], "state": row["state"]})
    sync_request(env, req["request_id"])
    return {"request": number, "items": made}


@tool(reads=READS)
def list_requests(
    env: Env,
    requested_for: str | None = None,
    state: Literal["open", "in_progress", "closed", "canceled", "any"] = "any",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Requests, newest first, with their items' count.

    Args:
        requested_for: The user name of the person they are for (default: you; the service desk sees all).
        state: open, in_progress, closed, canceled or any.
    """
    me = actor(env)
    who = person(env, requested_for, argument="requested_for") if requested_for else me.user
    if who["user_id"] != me.id and who["manager_id"] != me.id and not me.has("itil"):
        raise refuse(
            "catalog_ordering",
            f"{me.name} sees their own and their reports' requests only",
            argument="requested_for",
        )
    where, params = ["q.requested_for = ?"], [who["user_id"]]
    if state != "any":
        where.append("q.state = ?")
        params.append(state)
    return env.page(
        "SELECT q.number, q.state, q.opened_at, q.closed_at, o.user_name AS opened_by, "
        "(SELECT count(*) FROM requested_items AS r WHERE r.request_id = q.request_id) AS items "
        "FROM requests AS q JOIN users AS o ON o.user_id = q.opened_by "
        f"WHERE {' AND '.join(where)}",
        params,
        order_by="opened_at DESC, number",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def get_request(env: Env, number: str) -> dict:
    """A request with its items, their states, due dates, assignees and approvals.

    Args:
        number: The request number (REQ0010001).
    """
    me = actor(env)
    req = record(env, "requests", number)
    manager = env.scalar("SELECT manager_id FROM users WHERE user_id = ?", [req["requested_for"]])
    if not me.has("itil") and me.id not in (req["opened_by"], req["requested_for"], manager):
        raise refuse(
            "ticket_visibility",
            f"{me.name} sees their own and their reports' requests only; {req['number']} is someone else's",
            argument="number",
        )
    items = env.query(
        "SELECT r.number, i.name AS item, r.quantity, r.state, r.due_date, u.user_name AS assigned_to, "
        "a.state AS approval, ap.user_name AS approver FROM requested_items AS r JOIN catalog_items AS i "
        "USING (item_id) "
        "LEFT JOIN users AS u ON u.user_id = r.assigned_to LEFT JOIN request_approvals AS a ON a.ritm_id = "
        "r.ritm_id "
        "LEFT JOIN users AS ap ON ap.user_id = a.approver_id WHERE r.request_id = ? ORDER BY r.number",
        [req["request_id"]],
    )
    who = env.scalar("SELECT user_name FROM users WHERE user_id = ?", [req["requested_for"]])
    return {
        "number": req["number"],
        "state": req["state"],
        "requested_for": who,
        "opened_at": req["opened_at"],
        "items": items,
    }


@tool(reads=READS)
def list_my_request_approvals(env: Env, limit: Limit = 20, offset: Offset = 0) -> dict:
    """Requested items waiting for your approval (as the manager of the person they are for), oldest first."""
    me = actor(env)
    return env.page(
        "SELECT r.number, i.name AS item, r.quantity, i.price, u.user_name AS requested_for, "
        "a.requested_at FROM request_approvals AS a JOIN requested_items AS r USING (ritm_id) "
        "JOIN catalog_items AS i USING (item_id) JOIN requests AS q USING (request_id) "
        "JOIN users AS u ON u.user_id = q.requested_for WHERE a.approver_id = ? AND a.state = 'requested'",
        [me.id],
        order_by="requested_at, number",
        limit=limit,
        offset=offset,
    )


def decide(env: Env, me: Actor, number: str, state: str) -> dict[str, Any]:
    item = ritm(env, number)
    row = env.one("SELECT * FROM request_approvals WHERE ritm_id = ?", [item["ritm_id"]])
    if row is None or row["approver_id"] != me.id:
        raise refuse(
            "manager_approves_requests",
            f"{item['number']} awaits no approval of {me.name}",
            argument="number",
        )
    if row["state"] != "requested":
        raise refuse(
            "manager_approves_requests", f"{item['number']} was {row['state']} already", argument="number"
        )
    env.update("request_approvals", row["approval_id"], {"state": state, "decided_at": env.now})
    return item


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def approve_requested_item(env: Env, number: str) -> dict:
    """Approve a requested item waiting for you (you manage the person it is for); it goes to fulfilment.

    Args:
        number: The requested item's number (RITM0010001).
    """
    me = actor(env)
    item = decide(env, me, number, "approved")
    env.update("requested_items", item["ritm_id"], {"state": "approved"})
    sync_request(env, item["request_id"])
    return {"number": item["number"], "state": "approved"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def reject_requested_item(env: Env, number: str) -> dict:
    """Reject a requested item waiting for you; it is closed unfulfilled.

    Args:
        number: The requested item's number.
    """
    me = actor(env)
    item = decide(env, me, number, "rejected")
    env.update("requested_items", item["ritm_id"], {"state": "rejected", "closed_at": env.now})
    sync_request(env, item["request_id"])
    return {"number": item["number"], "state": "rejected"}


def fulfiller(env: Env, me: Actor, item: dict[str, Any], what: str) -> None:
    require_itil(me, what)
    if not is_member(env, item["assignment_group_id"], me.id):
        raise refuse(
            "assignee_in_assignment_group",
            f"{me.name} is not in the item's fulfilment group"
        )


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def start_fulfilment(env: Env, number: str) -> dict:
    """Take an approved requested item in your fulfilment group: assigned to you, work in progress.

    Args:
        number: The requested item's number.
    """
    me = actor(env)
    item = ritm(env, number)
    fulfiller(env, me, item, "fulfil requests")
    if item["state"] == "pending_approval":
        raise refuse(
            "manager_approves_requests", f"{item['number']} awaits its manager approval", argument="number"
        )
    if item["state"] != "approved":
        raise refuse(
            "closed_records_frozen",
            f"{item['number']} is {item['state'].replace('_', ' ')}: only approved items are worked",
            argument="number",
        )
    env.update("requested_items", item["ritm_id"], {"state": "work_in_progress", "assigned_to": me.id})
    sync_request(env, item["request_id"])
    return {"number": item["number"], "state": "work_in_progress", "assigned_to": me.name}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def fulfil_requested_item(env: Env, number: str) -> dict:
    """Mark a requested item you are working on fulfilled (delivered).

    Args:
        number: The requested item's number.
    """
    me = actor(env)
    item = ritm(env, number)
    fulfiller(env, me, item, "fulfil requests")
    if item["state"] in ("fulfilled", "rejected", "canceled"):
        raise refuse(
            "closed_records_frozen", f"{item['number']} is {item['state']} already", argument="number"
        )
    if item["state"] != "work_in_progress":
        raise ToolError(
            f"{item['number']} is {item['state'].replace('_', ' ')}: start its fulfilment first.",
            argument="number",
        )
    env.update(
        "requested_items",
        item["ritm_id"],
        {"state": "fulfilled", "closed_at": env.now, "assigned_to": item["assigned_to"] or me.id},
    )
    sync_request(env, item["request_id"])
    return {"number": item["number"], "state": "fulfilled"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def cancel_requested_item(env: Env, number: str) -> dict:
    """Cancel a requested item not yet fulfilled (the person it is for, whoever ordered it, or the desk).

    Args:
        number: The requested item's number.
    """
    me = actor(env)
    item = ritm(env, number)
    req = env.one("SELECT * FROM requests WHERE request_id = ?", [item["request_id"]])
    if me.id not in (req["requested_for"], req["opened_by"]) and not me.has("itil"):
        raise refuse("catalog_ordering", f"{me.name} did not order {item['number']}")
    if item["state"] in ("fulfilled", "rejected", "canceled"):
        raise refuse(
            "closed_records_frozen", f"{item['number']} is {item['state']} already", argument="number"
        )
    env.update_where(
        "request_approvals",
        "ritm_id = ? AND state = 'requested'",
        [item["ritm_id"]],
        {"state": "cancelled", "decided_at": env.now},
    )
    env.update(
        "requested_items", item["ritm_id"], {"state": "canceled", "closed_at": env.now, "assigned_to": None}
    )
    sync_request(env, item["request_id"])
    return {"number": item["number"], "state": "canceled"}


CATALOG_TOOLS = [
    list_catalog_items,
    order_catalog_items,
    list_requests,
    get_request,
    list_my_request_approvals,
    approve_requested_item,
    reject_requested_item,
    start_fulfilment,
    fulfil_requested_item,
    cancel_requested_item,
]
