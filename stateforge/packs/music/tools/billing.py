"""Plans, subscriptions and payments: list the plans, read a listener's subscription, subscribe, change
plan, cancel, turn auto-renew on or off, settle an overdue subscription, list payments and refund one.

A subscription is one plan over one stretch of time; a plan change ends the current subscription
(cancelled) and starts a new one, charged at once. Every charge is a payment of exactly the plan's price
(the rule payment_amount_matches_plan); its external reference is derived from what it bills, so the same
request gives the same reference whatever order calls come in.
"""

from __future__ import annotations

import calendar
import datetime as dt
import hashlib
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.where import Where

from . import lookup as find
from .account import cancel_open, open_plans
from .lookup import Limit, Offset, When, moment, order_by, plural, refuse

REFUND_DAYS = 14
Method = Literal["card", "paypal", "apple_pay", "google_pay", "gift_card", "carrier"]
BILLING = ("users", "subscriptions", "subscription_plans", "payments")


def plan_row(env: Env, plan: str, *, offered: bool = True) -> dict:
    """A plan by code or name (any letter case), on offer unless `offered` is false; a `ToolError` listing
    the plans otherwise."""
    row = env.one(
        "SELECT plan_id, code, name, price, currency, billing_period, max_devices, is_active "
        "FROM subscription_plans WHERE lower(code) = lower(?) OR lower(name) = lower(?)",
        [plan, plan],
    )
    if row is None or (offered and not row["is_active"]):
        plans = env.query("SELECT code, name FROM subscription_plans WHERE is_active ORDER BY plan_id")
        listing = ", ".join(f"{p['code']} ({p['name']})" for p in plans)
        state = "is no longer offered" if row else "does not exist"
        raise ToolError(f"the plan {plan!r} {state}; the plans are: {listing}.")
    return row


def start(env: Env, user: dict, plan: dict, method: str, *, auto_renew: bool) -> tuple[dict, dict]:
    """A new active subscription of `user` to `plan` from now, and its first period's payment."""
    begun = {"user_id": user["user_id"], "plan_id": plan["plan_id"], "started_at": env.now}
    sub = env.insert("subscriptions", {**begun, "status": "active", "auto_renew": auto_renew})
    return sub, charge(env, user, sub, plan, method)


def charge(env: Env, user: dict, subscription: dict, plan: dict, method: str) -> dict:
    """A paid payment of `plan`'s price for `subscription`, charged now."""
    seq = env.scalar(
        "SELECT count(*) FROM payments WHERE subscription_id = ?", [subscription["subscription_id"]]
    )
    seed = f"{user['user_id']}|{plan['plan_id']}|{subscription['started_at'].isoformat()}|{seq}"
    ref = f"ch_{int(hashlib.sha256(seed.encode()).hexdigest(), 16) % 10**16:016d}"
    return env.insert(
        "payments",
        {
            "subscription_id": subscription["subscription_id"],
            "plan_id": plan["plan_id"],
            "amount": plan["price"],
            "currency": plan["currency"],
            "method": method,
            "status": "paid",
            "paid_at": env.now,
            "external_ref": ref,
        },
    )


def the_open(env: Env, me: dict, subscription_id: int | None, verb: str) -> dict:
    """The open subscription a call acts on: the only one, or the one given by id."""
    plans = open_plans(env, me["user_id"])
    if subscription_id is not None:
        plans = [p for p in plans if p["subscription_id"] == subscription_id]
        if not plans:
            raise ToolError(
                f"{me['username']} has no open subscription {subscription_id}; get_subscription shows theirs."
            )
    if not plans:
        raise ToolError(f"{me['username']} has no open subscription to {verb}.")
    if len(plans) > 1:
        listing = "; ".join(
            f"{p['subscription_id']} ({p['name']}, {p['status']}, since {p['started_at']:%Y-%m-%d})"
            for p in plans
        )
        raise ToolError(
            f"{me['username']} has {len(plans)} open subscriptions: {listing}. Pass the "
            f"subscription_id of the one to {verb}."
        )
    return plans[0]


def renewal(started: dt.datetime, period: str, now: dt.datetime) -> dt.datetime:
    """The first billing anniversary of `started` after `now` (monthly or yearly)."""
    step = 12 if period == "year" else 1
    months = max(0, (now.year - started.year) * 12 + now.month - started.month)
    months -= months % step
    while True:
        total = started.month - 1 + months
        year, month = started.year + total // 12, total % 12 + 1
        day = min(started.day, calendar.monthrange(year, month)[1])
        when = started.replace(year=year, month=month, day=day)
        if when > now:
            return when
        months += step


@tool(reads=("subscription_plans",))
def list_plans(env: Env) -> dict:
    """List the plans on offer: code, name, billing period, price, currency, how many accounts can share it,
    how many devices may be active, audio quality and offline downloads."""
    plans = env.query(
        "SELECT code, name, billing_period, price, currency, max_members, max_devices, audio_quality, "
        "offline_downloads FROM subscription_plans WHERE is_active ORDER BY price, plan_id"
    )
    return {"plans": plans}


@tool(reads=BILLING)
def get_subscription(env: Env, username: str) -> dict:
    """A listener's subscription: the open one(s) with plan, price, status, start, auto-renew and next
    renewal date, and every past subscription (cancelled or expired) with when it ended.

    Args:
        username: The listener's username (or e-mail address).
    """
    me = find.user(env, username)
    current = open_plans(env, me["user_id"])
    for row in current:
        row["renews_on"] = (
            renewal(row["started_at"], row["billing_period"], env.now) if row["auto_renew"] else None
        )
        row.pop("plan_id")
    history = env.query(
        "SELECT s.subscription_id, p.code, p.name, s.status, s.started_at, s.ended_at, s.auto_renew, "
        "(SELECT count(*) FROM payments AS x WHERE x.subscription_id = s.subscription_id) AS payments "
        "FROM subscriptions AS s JOIN subscription_plans AS p ON p.plan_id = s.plan_id "
        "WHERE s.user_id = ? AND s.status IN ('cancelled', 'expired') ORDER BY s.started_at DESC, "
        "s.subscription_id DESC",
        [me["user_id"]],
    )
    return {"username": me["username"], "current": current, "past": history}


@tool(kind="write", reads=BILLING, writes=("subscriptions", "payments"), idempotent=False)
def subscribe(env: Env, username: str, plan: str, payment_method: Method) -> dict:
    """Subscribe a listener to a plan, starting now; the first period is charged at once. Refused when they
    already have an open subscription (use change_plan).

    Args:
        username: The listener's username (or e-mail address).
        plan: The plan's code or name (list_plans shows them).
        payment_method: card, paypal, apple_pay, google_pay, gift_card or carrier.
    """
    me = find.acting_user(env, username)
    chosen = plan_row(env, plan)
    current = open_plans(env, me["user_id"])
    if current:
        raise refuse(
            "one_open_subscription",
            f"{me['username']} already has an open subscription ({current[-1]['name']}, "
            f"{current[-1]['status']}); change its plan with change_plan instead",
        )
    sub, paid = start(env, me, chosen, payment_method, auto_renew=True)
    return {
        "subscription_id": sub["subscription_id"],
        "plan": chosen["name"],
        "status": "active",
        "charged": paid["amount"],
        "currency": paid["currency"],
        "external_ref": paid["external_ref"],
    }


@tool(kind="write", reads=BILLING, writes=("subscriptions", "payments"), idempotent=False, destructive=True)
def change_plan(
    env: Env,
    username: str,
    plan: str,
    payment_method: Method | None = None,
    subscription_id: int | None = None,
) -> dict:
    """Move a listener to another plan now: the current subscription ends (cancelled) and a new one on the
    new plan starts, its first period charged at once. A past-due subscription must be paid first. A
    subscription taken at this very moment is replaced (removed with its charge).

    Args:
        username: The listener's username (or e-mail address).
        plan: The new plan's code or name.
        payment_method: How to pay; default: the method of the current subscription's last payment.
        subscription_id: The open subscription to change, when the listener has several.
    """
    me = find.acting_user(env, username)
    chosen = plan_row(env, plan)
    current = the_open(env, me, subscription_id, "change")
    if current["plan_id"] == chosen["plan_id"]:
        raise ToolError(f"{me['username']} is already on {chosen['name']}.")
    if current["status"] == "past_due":
        raise refuse(
            "one_open_subscription",
            f"subscription {current['subscription_id']} is past due; settle it with pay_overdue before "
            "changing plan",
        )
    method = payment_method or env.scalar(
        "SELECT method FROM payments WHERE subscription_id = ? "
        "ORDER BY paid_at DESC, payment_id DESC LIMIT 1",
        [current["subscription_id"]],
    )
    if method is None:
        raise ToolError(
            "the current subscription has no payment to copy the method from; pass payment_method."
        )
    cancel_open(env, me, [current])
    sub, paid = start(env, me, chosen, method, auto_renew=current["auto_renew"])
    return {
        "ended_subscription_id": current["subscription_id"],
        "previous_plan": current["name"],
        "subscription_id": sub["subscription_id"],
        "plan": chosen["name"],
        "charged": paid["amount"],
        "external_ref": paid["external_ref"],
        "payment_method": method,
    }


@tool(kind="write", reads=BILLING, writes=("subscriptions",), idempotent=False, destructive=True)
def cancel_subscription(env: Env, username: str, subscription_id: int | None = None) -> dict:
    """Cancel a listener's open subscription now: it ends at once (cancelled) and will not renew. To keep it
    until the end of the paid period instead, turn auto-renew off (set_auto_renew). A subscription taken at
    this very moment is withdrawn instead (removed with its charge).

    Args:
        username: The listener's username (or e-mail address).
        subscription_id: The open subscription to cancel, when the listener has several.
    """
    me = find.acting_user(env, username)
    current = the_open(env, me, subscription_id, "cancel")
    cancel_open(env, me, [current])
    return {
        "subscription_id": current["subscription_id"],
        "plan": current["name"],
        "status": "cancelled",
        "ended_at": env.now,
    }


@tool(kind="write", reads=BILLING, writes=("subscriptions",), idempotent=True, destructive=False)
def set_auto_renew(env: Env, username: str, enabled: bool, subscription_id: int | None = None) -> dict:
    """Turn automatic renewal of a listener's open subscription on or off (off: it stays until it expires).

    Args:
        username: The listener's username (or e-mail address).
        enabled: true to renew every period, false to stop renewing.
        subscription_id: The open subscription, when the listener has several.
    """
    me = find.acting_user(env, username)
    current = the_open(env, me, subscription_id, "change")
    if current["auto_renew"] != enabled:
        env.update("subscriptions", current["subscription_id"], {"auto_renew": enabled})
    return {
        "subscription_id": current["subscription_id"],
        "plan": current["name"],
        "auto_renew": enabled,
        "changed": current["auto_renew"] != enabled,
    }


# destructive=False: a payment is added and the subscription's status follows it (a purchase)
@tool(kind="write", reads=BILLING, writes=("subscriptions", "payments"), idempotent=False, destructive=False)
def pay_overdue(env: Env, username: str, payment_method: Method) -> dict:
    """Settle a past-due subscription: charge its plan's price now and make it active again.

    Args:
        username: The listener's username (or e-mail address).
        payment_method: card, paypal, apple_pay, google_pay, gift_card or carrier.
    """
    me = find.acting_user(env, username)
    due = [p for p in open_plans(env, me["user_id"]) if p["status"] == "past_due"]
    if not due:
        raise ToolError(f"{me['username']} has no past-due subscription; nothing is owed.")
    paid = [charge(env, me, sub, sub, payment_method) for sub in due]
    for sub in due:
        env.update("subscriptions", sub["subscription_id"], {"status": "active"})
    return {
        "settled": [
            {
                "subscription_id": s["subscription_id"],
                "plan": s["name"],
                "charged": p["amount"],
                "external_ref": p["external_ref"],
            }
            for s, p in zip(due, paid, strict=True)
        ]
    }


@tool(reads=BILLING)
def list_payments(
    env: Env,
    username: str,
    status: Literal["paid", "pending", "failed", "refunded"] | None = None,
    method: Method | None = None,
    plan: str | None = None,
    since: When | None = None,
    before: When | None = None,
    sort_by: Literal["paid_at", "amount"] = "paid_at",
    descending: bool = True,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """A listener's payment history, newest first by default: external reference (the receipt number),
    plan, amount, currency, method, status, when charged and when refunded, a page at a time.

    Args:
        username: The listener's username (or e-mail address).
        status: Only payments in this state.
        method: Only payments made this way.
        plan: Only payments for this plan (code or name).
        since: Charged at or after this moment (a date means its midnight).
        before: Charged before this moment (a date means its midnight, so the day itself is excluded).
        sort_by: paid_at (default) or amount.
        descending: Newest (or largest) first; false for oldest first.
        limit: Payments per page, 1 to 50.
        offset: Payments to skip.
    """
    me = find.user(env, username)
    where = Where().add("s.user_id = ?", me["user_id"])
    where.when(status, "p.status = ?").when(method, "p.method = ?")
    where.when(plan_row(env, plan, offered=False)["plan_id"] if plan else None, "p.plan_id = ?")
    where.when(moment(since) if since else None, "p.paid_at >= ?")
    where.when(moment(before) if before else None, "p.paid_at < ?")
    sql = (
        "SELECT p.payment_id, p.external_ref, pl.name AS plan, p.amount, p.currency, p.method, p.status, "
        "p.paid_at, p.refunded_at, p.subscription_id FROM payments AS p "
        "JOIN subscriptions AS s ON s.subscription_id = p.subscription_id "
        f"JOIN subscription_plans AS pl ON pl.plan_id = p.plan_id WHERE {where.sql}"
    )
    order = order_by(sort_by, descending, "payment_id")
    return env.page(sql, where.params, order_by=order, limit=limit, offset=offset)


@tool(kind="write", reads=BILLING, writes=("payments",), idempotent=False, destructive=True)
def refund_payment(
    env: Env, username: str, payment: Annotated[str, Field(min_length=1, max_length=24)] | int
) -> dict:
    """Refund a listener's payment in full. Only a paid charge of theirs, at most 14 days old, can be
    refunded, and only once.

    Args:
        username: The listener's username (or e-mail address).
        payment: The payment's external reference (ch_..., as on the receipt) or its payment_id.
    """
    me = find.acting_user(env, username)
    column = "p.payment_id" if isinstance(payment, int) else "p.external_ref"
    row = env.one(
        "SELECT p.payment_id, p.external_ref, p.status, p.paid_at, p.amount, p.currency, s.user_id "
        "FROM payments AS p JOIN subscriptions AS s ON s.subscription_id = p.subscription_id "
        f"WHERE {column} = ?",
        [payment],
    )
    if row is None or row["user_id"] != me["user_id"]:
        raise ToolError(f"{me['username']} has no payment {payment!r}; list_payments shows theirs.")
    ref = row["external_ref"]
    if row["status"] != "paid":
        why = {
            "refunded": "was already refunded",
            "pending": "is still pending (nothing was charged yet)",
            "failed": "failed (nothing was charged)",
        }[row["status"]]
        raise refuse("refund_window", f"payment {ref} {why}; only a paid charge can be refunded")
    if row["paid_at"] > env.now:
        raise refuse(
            "refund_window", f"payment {ref} is dated {row['paid_at']}, after now; it cannot be refunded yet"
        )
    age = env.now - row["paid_at"]
    if age > dt.timedelta(days=REFUND_DAYS):
        raise refuse(
            "refund_window",
            f"payment {ref} was charged on {row['paid_at']:%Y-%m-%d}, {plural(age.days, 'day')} ago; "
            f"refunds are possible for {REFUND_DAYS} days",
        )
    env.update("payments", row["payment_id"], {"status": "refunded", "refunded_at": env.now})
    return {
        "external_ref": ref,
        "refunded": row["amount"],
        "currency": row["currency"],
        "refunded_at": env.now,
    }
