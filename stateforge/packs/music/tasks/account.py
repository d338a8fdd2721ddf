"""Recipes over a listener's account: refund a recent charge, move to the cheapest plan that meets a need,
sign in on a new device, sign out the devices not used lately, allow explicit content."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import RecipeContext, Skip, recipe

from .common import ACTIVE, days_with, introduce, listener_swap, next_day, sized, taken

REFUND_DAYS = 14
ADULT = 18


@recipe(capabilities=("cross_step_dependency", "precise_boundary_judgment"), difficulty="medium")
def refund_recent_charge(ctx: RecipeContext) -> None:
    """A listener asks for a refund of a charge named by its day and amount: the payments of that day are
    listed for its receipt number, then refunded. It is at most 14 days old. Variant: an older paid charge
    of theirs, past the refund window (forbidden)."""
    pay = ctx.pick(
        "SELECT u.user_id, u.username, u.display_name, p.payment_id, p.external_ref, p.amount, pl.name AS "
        "plan, CAST(p.paid_at AS DATE) AS day FROM payments AS p JOIN subscriptions AS s ON "
        "s.subscription_id = p.subscription_id JOIN users AS u ON u.user_id = s.user_id JOIN "
        f"subscription_plans AS pl ON pl.plan_id = p.plan_id WHERE {ACTIVE} AND p.status = 'paid' AND "
        "p.paid_at >= ? AND p.paid_at <= ? AND (SELECT count(*) FROM payments AS q JOIN subscriptions AS t "
        "ON t.subscription_id = q.subscription_id WHERE t.user_id = u.user_id AND CAST(q.paid_at AS DATE) "
        "= CAST(p.paid_at AS DATE)) = 1",
        [ctx.now - dt.timedelta(days=REFUND_DAYS), ctx.now],
        what="refundable charge",
    )
    same_day = (
        "SELECT count(*) FROM payments AS p JOIN subscriptions AS s ON s.subscription_id = p.subscription_id "
        "JOIN users AS u ON u.user_id = s.user_id WHERE u.username = ? AND CAST(p.paid_at AS DATE) = ?"
    )
    ctx.refer(f"the charge of @{pay['username']} on {pay['day']}", same_day, [pay["username"], pay["day"]])
    introduce(ctx, pay)
    ctx.say(
        [
            "I was charged {amount} for {plan} on {day} and I'd like that money back. Please refund it.",
            "Please refund my {plan} payment of {amount} from {day}.",
            "Can you refund the {amount} charge from {day}? It was for my {plan} plan.",
        ],
        amount=pay["amount"],
        plan=pay["plan"],
        day=pay["day"],
    )
    ctx.read(
        "list_payments",
        {"username": pay["username"], "since": pay["day"], "before": next_day(pay["day"])},
        step=f"List @{pay['username']}'s payments of {pay['day']} for the receipt number",
    )
    ctx.call(
        "refund_payment",
        {"username": pay["username"], "payment": pay["external_ref"]},
        step=f"Refund payment {pay['external_ref']}",
    )
    ctx.goal(
        "the charge is refunded", "SELECT status FROM payments WHERE payment_id = ?", [pay["payment_id"]]
    )
    old = ctx.sql(
        "SELECT p.external_ref, p.amount, pl.name AS plan, CAST(p.paid_at AS DATE) AS day FROM payments AS "
        "p JOIN subscriptions AS s ON s.subscription_id = p.subscription_id JOIN subscription_plans AS pl "
        "ON pl.plan_id = p.plan_id WHERE s.user_id = ? AND p.status = 'paid' AND p.paid_at < ? AND (SELECT "
        "count(*) FROM payments AS q JOIN subscriptions AS t ON t.subscription_id = q.subscription_id WHERE "
        "t.user_id = s.user_id AND CAST(q.paid_at AS DATE) = CAST(p.paid_at AS DATE)) = 1 ORDER BY "
        "p.paid_at DESC LIMIT 1",
        [pay["user_id"], ctx.now - dt.timedelta(days=REFUND_DAYS + 1)],
    )
    if old:
        before = old[0]
        swap = {
            pay["day"]: before["day"],
            next_day(pay["day"]): next_day(before["day"]),
            pay["external_ref"]: before["external_ref"],
        }
        if before["plan"] != pay["plan"]:
            swap[pay["plan"]] = before["plan"]
        if before["amount"] != pay["amount"]:
            swap[pay["amount"]] = before["amount"]
        ctx.infeasible(
            "forbidden",
            policy="refund_window",
            swap=swap,
            because=f"the charge of {before['day']} is more than {REFUND_DAYS} days old; refunds are "
            f"possible for {REFUND_DAYS} days",
        )


NEEDS = (
    # (what the listener asks for, SQL over the plan `pl`)
    ("lets me stream on at least 4 devices at once", "pl.max_devices >= 4"),
    ("lets me stream on more than 4 devices at once", "pl.max_devices > 4"),
    ("lets me stream on at least 5 devices at once", "pl.max_devices >= 5"),
    ("lets me stream on more than 5 devices at once", "pl.max_devices > 5"),
    ("I can share with at least one other person", "pl.max_members >= 2"),
    ("I can share with more than two people in total", "pl.max_members > 2"),
    ("has lossless audio or better", "pl.audio_quality IN ('lossless', 'hi_res')"),
    ("has hi-res audio", "pl.audio_quality = 'hi_res'"),
    (
        "has lossless audio or better for at least 3 accounts",
        "pl.audio_quality IN ('lossless', 'hi_res') AND pl.max_members >= 3",
    ),
)


@recipe(
    capabilities=("aggregation_computation", "cross_step_dependency", "precise_boundary_judgment"),
    difficulty="hard",
)
def switch_to_cheapest_plan(ctx: RecipeContext) -> None:
    """A listener moves to (or subscribes to) the cheapest monthly plan that meets a need ("at least 4
    devices", "more than 4 devices", lossless audio ...): the plans are read and compared. Variant: a
    listener whose subscription is past due, who must pay before changing plan (forbidden)."""
    need, condition = ctx.choice(NEEDS)
    plans = ctx.sql(
        "SELECT pl.plan_id, pl.code, pl.name, pl.price FROM subscription_plans AS pl WHERE pl.is_active AND "
        f"pl.billing_period = 'month' AND {condition} ORDER BY pl.price, pl.plan_id"
    )
    if not plans or (len(plans) > 1 and plans[0]["price"] == plans[1]["price"]):
        raise Skip("no single cheapest plan")
    target = plans[0]
    open_subs = (
        "SELECT u.user_id, u.username, u.display_name, max(s.plan_id) AS plan_id FROM users AS u JOIN "
        f"subscriptions AS s ON s.user_id = u.user_id WHERE {ACTIVE} AND s.status IN ('active', 'past_due') "
        "GROUP BY ALL HAVING count(*) = 1 AND bool_and(s.status = ?) AND max(s.plan_id) <> ?"
    )
    subscribed = ctx.rng.random() < 0.7
    if subscribed:
        user = ctx.pick(
            open_subs + " AND (SELECT count(*) FROM payments AS p "
            "WHERE p.subscription_id = max(s.subscription_id)) > 0",
            ["active", target["plan_id"]],
            what="listener with an active subscription",
        )
    else:
        user = ctx.pick(
            f"SELECT u.user_id, u.username, u.display_name FROM users AS u WHERE {ACTIVE} AND NOT EXISTS "
            "(SELECT 1 FROM subscriptions AS s WHERE s.user_id = u.user_id AND s.status IN ('active', "
            "'past_due'))",
            what="listener without a subscription",
        )
    introduce(ctx, user)
    ctx.read("list_plans", {}, step="List the plans and compare the monthly ones that meet the need")
    if subscribed:
        ctx.say(
            [
                "Please move me to the cheapest monthly plan that {need}.",
                "I want to change my subscription to whichever monthly plan is cheapest among those that "
                "{need}.",
            ],
            need=need,
        )
        ctx.call(
            "change_plan",
            {"username": user["username"], "plan": target["code"]},
            step=f"Change the plan to {target['name']} ({target['price']} a month)",
        )
    else:
        method = ctx.choice(["card", "paypal", "apple_pay", "google_pay"])
        shown = {"card": "my card", "paypal": "PayPal", "apple_pay": "Apple Pay", "google_pay": "Google Pay"}
        ctx.say(
            [
                "I don't have a subscription at the moment. Sign me up for the cheapest monthly plan that "
                "{need}, and pay with {method}.",
                "Subscribe me to the least expensive monthly plan that {need}; I'll pay with {method}.",
            ],
            need=need,
            method=shown[method],
        )
        ctx.call(
            "subscribe",
            {"username": user["username"], "plan": target["code"], "payment_method": method},
            step=f"Subscribe to {target['name']} ({target['price']} a month)",
        )
    ctx.goal(
        "the listener is on the plan",
        "SELECT plan_id, status FROM subscriptions WHERE user_id = ? AND status IN ('active', 'past_due')",
        [user["user_id"]],
    )
    if subscribed:
        try:
            late = ctx.pick(
                open_subs, ["past_due", target["plan_id"]], what="listener with a past-due subscription"
            )
        except Skip:
            return
        ctx.infeasible(
            "forbidden",
            policy="one_open_subscription",
            swap=listener_swap(user, late),
            because=f"@{late['username']}'s subscription is past due; it must be paid before the plan "
            "can change",
        )


DEVICE_NAMES = {
    "ios": ("iPad Mini", "Work iPhone", "Old iPhone"),
    "android": ("Pixel", "Galaxy Tab", "Work phone"),
    "web": ("Office browser", "Library computer"),
    "desktop": ("Home PC", "Work laptop", "MacBook"),
    "smart_speaker": ("Kitchen speaker", "Bedroom speaker", "Echo Dot"),
    "car": ("Family car", "Dad's car"),
    "tv": ("Living room TV", "Bedroom TV"),
}
DEVICE_WORDS = {
    "ios": "an iOS device",
    "android": "an Android device",
    "web": "a web browser",
    "desktop": "the desktop app",
    "smart_speaker": "a smart speaker",
    "car": "my car",
    "tv": "a smart TV",
}


@recipe(capabilities=("precise_boundary_judgment",), difficulty="easy")
def register_new_device(ctx: RecipeContext) -> None:
    """A listener with one place left under their plan's device limit signs in on a new device. Variant: a
    listener already at the limit (capacity)."""
    allowed = (
        "coalesce((SELECT max(pl.max_devices) FROM subscriptions AS s JOIN subscription_plans AS pl ON "
        "pl.plan_id = s.plan_id WHERE s.user_id = u.user_id AND s.status IN ('active', 'past_due')), 1)"
    )
    room = (
        f"SELECT u.user_id, u.username, u.display_name FROM users AS u WHERE {ACTIVE} AND (SELECT count(*) "
        f"FROM devices AS d WHERE d.user_id = u.user_id AND d.is_active) = {allowed} - ?"
    )
    user = ctx.pick(room, [1], what="listener with one device place left")
    kind = ctx.choice(sorted(DEVICE_NAMES))
    name = ctx.choice(DEVICE_NAMES[kind])
    if taken(ctx, "devices", "name", name, user_id=user["user_id"]):
        ctx.skip("device name taken")
    introduce(ctx, user)
    ctx.say(
        [
            "I've got a new device, {what}. Please sign me in on it and call it {name:q}.",
            "Add {what} to my account under the name {name:q}.",
            "Register my new device {name:q} ({what}) on my account, please.",
        ],
        what=DEVICE_WORDS[kind],
        name=name,
    )
    ctx.call(
        "register_device",
        {"username": user["username"], "device_type": kind, "name": name},
        step=f"Register the {kind} device {name!r}",
    )
    ctx.goal(
        "the device is signed in",
        "SELECT device_type, is_active FROM devices WHERE user_id = ? AND name = ?",
        [user["user_id"], name],
    )
    try:
        full = ctx.pick(room, [0], what="listener at the device limit")
    except Skip:
        return
    if not taken(ctx, "devices", "name", name, user_id=full["user_id"]):
        ctx.infeasible(
            "capacity",
            swap=listener_swap(user, full),
            because=f"@{full['username']} already has as many active devices as their plan allows",
        )


@recipe(capabilities=("full_data_acquisition", "precise_boundary_judgment"), difficulty="medium")
def sign_out_unused_devices(ctx: RecipeContext) -> None:
    """A listener signs out of every device they have not used since a day; a device last seen on that
    day counts as used and stays."""
    user = sized(
        ctx,
        "SELECT u.user_id, u.username, u.display_name, count(*) AS n FROM devices AS d JOIN users AS u ON "
        f"u.user_id = d.user_id WHERE {ACTIVE} AND d.is_active GROUP BY ALL",
        what="listener with signed-in devices",
        bands=((3, 12), (12, 60), (60, 400)),
    )
    days = days_with(
        ctx,
        "devices",
        "last_seen_at",
        "user_id = ? AND is_active AND last_seen_at IS NOT NULL",
        [user["user_id"]],
    )
    if len(days) < 3:
        ctx.skip("devices seen on too few days")
    day = ctx.choice(days[1:])
    introduce(ctx, user)
    ctx.say(
        [
            "Sign me out of every device I haven't used since {day}. Devices I used on {day} or later stay "
            "signed in.",
            "Please log out every device of mine that hasn't been used since {day}, never-used ones too.",
            "Any device of mine not seen since {day} should be signed out (ones used that day are fine).",
        ],
        day=day,
    )
    gone = ctx.scalar(
        "SELECT count(*) FROM devices WHERE user_id = ? AND is_active AND (last_seen_at IS NULL OR "
        "last_seen_at < ?)",
        [user["user_id"], day],
    )
    ctx.call(
        "sign_out_devices",
        {"username": user["username"], "unused_since": day},
        step=f"Sign out the {gone} devices not seen since {day}",
    )
    ctx.derived(False, "'signed out' means is_active = false")
    ctx.goal(
        "the unused devices are signed out, the others stay signed in",
        "SELECT count(*) FILTER (WHERE is_active AND (last_seen_at IS NULL OR last_seen_at < ?)) AS stale, "
        "count(*) FILTER (WHERE is_active) AS active FROM devices WHERE user_id = ?",
        [day, user["user_id"]],
    )


@recipe(capabilities=("precise_boundary_judgment",), difficulty="easy")
def allow_explicit_content(ctx: RecipeContext) -> None:
    """An adult listener (18 or over on the clock's day, often only just) allows explicit content. Variant:
    a listener who is not 18 yet (forbidden)."""
    adults = (
        f"SELECT u.user_id, u.username, u.display_name, u.birth_date FROM users AS u WHERE {ACTIVE} AND NOT "
        "u.explicit_content_allowed AND u.birth_date IS NOT NULL AND u.birth_date + INTERVAL (?) YEAR "
        "BETWEEN ? AND ?"
    )
    today = ctx.today
    recent = ctx.rng.random() < 0.6
    low = today - dt.timedelta(days=120) if recent else dt.date(1900, 1, 1)
    try:
        user = ctx.pick(adults, [ADULT, low, today], what="adult listener with explicit content off")
    except Skip:
        user = ctx.pick(
            adults, [ADULT, dt.date(1900, 1, 1), today], what="adult listener with explicit content off"
        )
    introduce(ctx, user)
    ctx.say(
        [
            "Please allow explicit content on my account.",
            "Please turn on explicit songs for me.",
            "Switch explicit content on in my settings, please.",
        ]
    )
    ctx.derived(True, "'allow explicit content' means explicit_content_allowed = true")
    ctx.call(
        "update_profile",
        {"username": user["username"], "explicit_content_allowed": True},
        step="Allow explicit content",
    )
    ctx.goal(
        "explicit content is allowed",
        "SELECT explicit_content_allowed FROM users WHERE user_id = ?",
        [user["user_id"]],
    )
    try:
        minor = ctx.pick(
            adults,
            [ADULT, next_day(today), today + dt.timedelta(days=365)],
            what="listener under 18 with explicit content off",
        )
    except Skip:
        return
    ctx.infeasible(
        "forbidden",
        policy="explicit_content_adults",
        swap=listener_swap(user, minor),
        because=f"@{minor['username']} is not 18 yet (born {minor['birth_date']}); explicit content "
        "stays off",
    )
