"""A listener's account: finding people, the profile and its settings, closing the account, and the
devices signed in on it (register, sign out, remove)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.where import Where

from . import lookup as find
from .lookup import Limit, Offset, When, moment, order_by, plural, refuse

FREE_DEVICES = 1
"""Active devices allowed without an open subscription (policy device_limit)."""
ADULT_AGE = 18
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
DeviceType = Literal["ios", "android", "web", "desktop", "smart_speaker", "car", "tv"]


def age_on(birth: dt.date, day: dt.date) -> int:
    """Whole years from `birth` to `day`."""
    return day.year - birth.year - ((day.month, day.day) < (birth.month, birth.day))


def open_plans(env: Env, user_id: int) -> list[dict]:
    """The user's open (active or past-due) subscriptions with their plans, oldest first."""
    return env.query(
        "SELECT s.subscription_id, s.status, s.started_at, s.auto_renew, p.plan_id, p.code, p.name, p.price, "
        "p.currency, p.billing_period, p.max_devices FROM subscriptions AS s "
        "JOIN subscription_plans AS p ON p.plan_id = s.plan_id "
        "WHERE s.user_id = ? AND s.status IN ('active', 'past_due') ORDER BY s.started_at, s.subscription_id",
        [user_id],
    )


@tool(reads=("users",))
def find_users(
    env: Env,
    query: str | None = None,
    country: str | None = None,
    status: Literal["active", "suspended", "closed"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Find listeners by part of their username or display name, or by their exact e-mail address; shows
    username, display name, country, account status and when they joined, a page at a time.

    Args:
        query: Part of a username or display name, or a whole e-mail address (any letter case).
        country: A two-letter country code.
        status: Only accounts in this state.
        limit: People per page, 1 to 50.
        offset: People to skip.
    """
    named = (
        "contains(lower(username), lower(?)) OR contains(lower(display_name), lower(?)) "
        "OR lower(email) = lower(?)"
    )
    where = Where().when(query or None, named, query, query, query)
    where.when(country or None, "country_code = upper(?)").when(status or None, "status = ?")
    sql = (
        "SELECT username, display_name, country_code AS country, status, created_at AS joined_at FROM users "
        f"WHERE {where.sql}"
    )
    order = order_by("username", False, "joined_at")
    return env.page(sql, where.params, order_by=order, limit=limit, offset=offset)


@tool(
    reads=(
        "users",
        "playlists",
        "favourite_songs",
        "artist_follows",
        "comments",
        "devices",
        "subscriptions",
        "subscription_plans",
    )
)
def get_profile(env: Env, username: str) -> dict:
    """A listener's account page: username, display name, e-mail, country, birth date, status, whether
    explicit content is allowed, when they joined and were last active, who referred them and how many they
    referred, their counts (playlists, liked songs, followed artists, comments, active devices) and their
    current subscription.

    Args:
        username: The listener's username (or e-mail address).
    """
    uid = find.user(env, username)["user_id"]
    row = env.one(
        "SELECT u.username, u.display_name, u.email, u.country_code AS country, u.birth_date, u.status, "
        "u.explicit_content_allowed, u.created_at AS joined_at, u.last_active_at, r.username AS referred_by, "
        "(SELECT count(*) FROM users AS x WHERE x.referred_by_user_id = u.user_id) AS referrals, "
        "(SELECT count(*) FROM playlists AS p WHERE p.owner_id = u.user_id) AS playlists, "
        "(SELECT count(*) FROM favourite_songs AS f WHERE f.user_id = u.user_id) AS liked_songs, "
        "(SELECT count(*) FROM artist_follows AS a WHERE a.user_id = u.user_id) AS followed_artists, "
        "(SELECT count(*) FROM comments AS c WHERE c.user_id = u.user_id) AS comments, "
        "(SELECT count(*) FROM devices AS d WHERE d.user_id = u.user_id AND d.is_active) AS active_devices "
        "FROM users AS u LEFT JOIN users AS r ON r.user_id = u.referred_by_user_id WHERE u.user_id = ?",
        [uid],
    )
    assert row is not None
    plans = open_plans(env, uid)
    row["subscription"] = (
        {k: plans[-1][k] for k in ("subscription_id", "code", "name", "status", "started_at", "auto_renew")}
        if plans
        else None
    )
    return row


@tool(kind="write", reads=("users",), writes=("users",), idempotent=True, destructive=True)
def update_profile(
    env: Env,
    username: str,
    display_name: Annotated[str, Field(min_length=1, max_length=60)] | None = None,
    email: Annotated[str, Field(max_length=254)] | None = None,
    country: str | None = None,
    birth_date: dt.date | None = None,
    explicit_content_allowed: bool | None = None,
) -> dict:
    """Change a listener's profile and settings: display name, e-mail, country, birth date, and whether
    explicit content may play. Only the fields given change.

    Args:
        username: The listener's username (or current e-mail address).
        display_name: The new name shown on the profile.
        email: The new e-mail address (no other account may use it).
        country: The new two-letter country code (it decides what the catalogue offers).
        birth_date: The new birth date.
        explicit_content_allowed: Allow explicit songs to play (listeners under 18 cannot turn it on).
    """
    me = find.acting_user(env, username)
    changes: dict = {}
    if display_name is not None:
        changes["display_name"] = find.text(display_name, "display_name")
    if email is not None:
        if not EMAIL.match(email):
            raise ToolError(f"{email!r} is not an e-mail address (name@domain.tld).")
        taken = env.scalar(
            "SELECT username FROM users WHERE lower(email) = lower(?) AND user_id <> ?",
            [email, me["user_id"]],
        )
        if taken:
            raise ToolError(f"the e-mail address {email!r} belongs to another account; choose another.")
        changes["email"] = email
    if country is not None:
        if not re.fullmatch(r"[A-Za-z]{2}", country):
            raise ToolError(f"country must be a two-letter code such as US or DE, got {country!r}.")
        changes["country_code"] = country.upper()
    if birth_date is not None:
        if birth_date > env.today:
            raise ToolError(f"the birth date {birth_date} is in the future.")
        changes["birth_date"] = birth_date
    if explicit_content_allowed is not None:
        changes["explicit_content_allowed"] = explicit_content_allowed
    if not changes:
        raise ToolError("give at least one field to change.")
    birth = changes.get("birth_date", me["birth_date"])
    explicit = changes.get("explicit_content_allowed", me["explicit_content_allowed"])
    if explicit and birth is not None and age_on(birth, env.today) < ADULT_AGE:
        raise refuse(
            "explicit_content_adults",
            f"{me['username']} is under {ADULT_AGE} (born {birth}), so explicit content cannot be allowed"
            + ("" if "explicit_content_allowed" in changes else "; also pass explicit_content_allowed=false"),
        )
    env.update("users", me["user_id"], changes)
    return {"username": me["username"], "changed": sorted(changes)}


@tool(
    kind="write",
    reads=("users", "subscriptions", "subscription_plans", "devices"),
    writes=("users", "subscriptions", "devices"),
    idempotent=False,
    destructive=True,
)
def close_account(env: Env, username: str) -> dict:
    """Close a listener's account: it becomes closed (read-only), its open subscription is cancelled now
    and every device is signed out. Playlists, likes and history stay.

    Args:
        username: The listener's username (or e-mail address).
    """
    me = find.acting_user(env, username)
    cancelled = cancel_open(env, me, open_plans(env, me["user_id"]))
    signed_out = env.update_where(
        "devices", "user_id = ? AND is_active", [me["user_id"]], {"is_active": False}
    )
    env.update("users", me["user_id"], {"status": "closed"})
    return {
        "username": me["username"],
        "status": "closed",
        "cancelled_subscriptions": cancelled,
        "signed_out_devices": signed_out,
    }


def cancel_open(env: Env, me: dict, plans: list[dict]) -> list[int]:
    """End `plans` (open subscriptions of `me`) now, as cancelled by the user; their ids.

    A subscription started at this very moment (earlier in the same session: the clock is frozen) cannot
    end when it starts, so it is withdrawn instead: deleted with its charge, as if it was never taken.
    """
    for plan in plans:
        if plan["started_at"] >= env.now:
            env.delete("subscriptions", plan["subscription_id"])
        else:
            env.update(
                "subscriptions",
                plan["subscription_id"],
                {"status": "cancelled", "ended_at": env.now, "auto_renew": False},
            )
    return [p["subscription_id"] for p in plans]


# --- devices ------------------------------------------------------------------------------------------


def devices_allowed(env: Env, user_id: int) -> int:
    """Active devices the user may have: the open subscription's plan's max_devices, else FREE_DEVICES."""
    plans = open_plans(env, user_id)
    return max((p["max_devices"] for p in plans), default=FREE_DEVICES)


@tool(reads=("users", "devices", "listening_history", "subscriptions", "subscription_plans"))
def list_devices(env: Env, username: str, active: bool | None = None) -> dict:
    """List a listener's devices (device_id, type, name, app version, registered, last seen, active,
    plays made from it) and how many active devices their plan allows.

    Args:
        username: The listener's username (or e-mail address).
        active: true: only signed-in devices; false: only signed-out ones.
    """
    me = find.user(env, username)
    rows = env.query(
        "SELECT d.device_id, d.device_type, d.name, d.app_version, d.registered_at, d.last_seen_at, "
        "d.is_active AS active, (SELECT count(*) FROM listening_history AS h WHERE h.device_id = d.device_id "
        "AND h.user_id = d.user_id) AS plays FROM devices AS d "
        "WHERE d.user_id = ? AND (? IS NULL OR d.is_active = ?) ORDER BY d.registered_at, d.device_id",
        [me["user_id"], active, active],
    )
    active_now = env.scalar("SELECT count(*) FROM devices WHERE user_id = ? AND is_active", [me["user_id"]])
    return {
        "username": me["username"],
        "devices_allowed": devices_allowed(env, me["user_id"]),
        "active_devices": active_now,
        "devices": rows,
    }


@tool(
    kind="write",
    reads=("users", "devices", "subscriptions", "subscription_plans"),
    writes=("devices",),
    idempotent=False,
)
def register_device(
    env: Env,
    username: str,
    device_type: DeviceType,
    name: Annotated[str, Field(min_length=1, max_length=60)],
    app_version: Annotated[str, Field(pattern=r"^\d{1,3}(\.\d{1,3}){1,3}$")] | None = None,
) -> dict:
    """Sign a listener in on a new device. Refused when they already have as many active devices as their
    plan allows (sign one out first).

    Args:
        username: The listener's username (or e-mail address).
        device_type: ios, android, web, desktop, smart_speaker, car or tv.
        name: The device's name as shown in the device list, e.g. "Kitchen speaker".
        app_version: The app version, e.g. 8.9.12.
    """
    me = find.acting_user(env, username)
    allowed = devices_allowed(env, me["user_id"])
    active = env.query(
        "SELECT device_id, name FROM devices WHERE user_id = ? AND is_active ORDER BY device_id",
        [me["user_id"]],
    )
    if len(active) >= allowed:
        shown = ", ".join(f"{r['name']!r} ({r['device_id']})" for r in active[:8])
        raise refuse(
            "device_limit",
            f"{me['username']} already has {plural(len(active), 'active device')} and their plan allows "
            f"{allowed}; sign one out first (sign_out_devices): {shown}"
            + (f" and {len(active) - 8} more" if len(active) > 8 else ""),
        )
    row = env.insert(
        "devices",
        {
            "user_id": me["user_id"],
            "device_type": device_type,
            "name": find.text(name, "name"),
            "app_version": app_version,
            "registered_at": env.now,
            "last_seen_at": env.now,
            "is_active": True,
        },
    )
    return {"device_id": row["device_id"], "name": row["name"], "device_type": device_type, "active": True}


@tool(kind="write", reads=("users", "devices"), writes=("devices",), idempotent=True, destructive=False)
def sign_out_devices(
    env: Env,
    username: str,
    devices: Annotated[list[int | str], Field(max_length=200)] | None = None,
    unused_since: When | None = None,
    everywhere: bool = False,
) -> dict:
    """Sign a listener out of devices (they stay in the device list, signed out): the devices named, or
    every device not seen since a moment, or everywhere. Devices already signed out are left as they are.

    Args:
        username: The listener's username (or e-mail address).
        devices: Device ids or names (list_devices shows them).
        unused_since: Every active device last seen before this moment (a date means its midnight), or never.
        everywhere: Sign out every active device.
    """
    me = find.acting_user(env, username)
    if sum(x is not None and x is not False for x in (devices, unused_since, everywhere)) != 1:
        raise ToolError("choose exactly one of devices, unused_since or everywhere=true.")
    if devices is not None:
        if not devices:
            raise ToolError("devices is empty; name at least one device.")
        ids = sorted({find.device(env, me, d)["device_id"] for d in devices})
        where, params = (
            "user_id = ? AND is_active AND device_id IN (SELECT unnest(?::BIGINT[]))",
            [me["user_id"], ids],
        )
    elif unused_since is not None:
        where = "user_id = ? AND is_active AND (last_seen_at IS NULL OR last_seen_at < ?)"
        params = [me["user_id"], moment(unused_since)]
    else:
        where, params = "user_id = ? AND is_active", [me["user_id"]]
    names = env.query(f"SELECT device_id, name FROM devices WHERE {where} ORDER BY device_id", params)
    if names:
        env.update_where("devices", where, params, {"is_active": False})
    return {"signed_out": names, "count": len(names)}


@tool(kind="write", reads=("users", "devices"), writes=("devices",), idempotent=False, destructive=True)
def remove_device(env: Env, username: str, device: int | str) -> dict:
    """Remove a device from a listener's account for good; the plays made from it leave their listening
    history too (sign_out_devices keeps both).

    Args:
        username: The listener's username (or e-mail address).
        device: The device id or name.
    """
    me = find.acting_user(env, username)
    found = find.device(env, me, device)
    env.delete("devices", found["device_id"])
    plays = env.changes.counts.get("listening_history", {}).get("deleted", 0)
    return {"removed": {"device_id": found["device_id"], "name": found["name"]}, "plays_deleted": plays}
