"""Accounts and devices: looking people up (by username, e-mail, or a display name two people share),
profile changes and their policies, closing an account, and the device limit."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("music_pack")


def test_people_are_found_by_what_is_known_of_them(run):
    a, b = [
        r["username"]
        for r in run.rows("SELECT username FROM users WHERE status = 'active' ORDER BY user_id LIMIT 2")
    ]
    email = run.value("SELECT email FROM users WHERE username = ?", [a])
    assert run.ok("get_profile", username=email.upper())["username"] == a
    run.ok("update_profile", username=a, display_name="Sam Lee")
    run.ok("update_profile", username=b, display_name="Sam Lee")
    error = run.refused("get_profile", username="sam lee")
    assert "2 users go by that name" in error and a in error and b in error
    found = run.ok("find_users", query="Sam Lee")
    assert {r["username"] for r in found["rows"]} == {a, b} and found["total"] == 2
    error = run.refused("get_profile", username="nobody_at_all_42")
    assert "no user has the username 'nobody_at_all_42'" in error and "find_users" in error


def test_profile_changes_and_their_rules(run):
    a, b = [
        r["username"]
        for r in run.rows("SELECT username FROM users WHERE status = 'active' ORDER BY user_id LIMIT 2")
    ]
    taken = run.value("SELECT email FROM users WHERE username = ?", [b])
    assert "belongs to another account" in run.refused("update_profile", username=a, email=taken)
    assert "not an e-mail address" in run.refused("update_profile", username=a, email="nope")
    assert "two-letter code" in run.refused("update_profile", username=a, country="DEU")
    run.ok(
        "update_profile", username=a, country="kr", email="new.address@example.org", birth_date="2000-02-29"
    )
    row = run.one("SELECT country_code, email, birth_date FROM users WHERE username = ?", [a])
    assert (row["country_code"], row["email"], str(row["birth_date"])) == (
        "KR",
        "new.address@example.org",
        "2000-02-29",
    )
    run.ok("update_profile", username=a, explicit_content_allowed=True)
    error = run.refused("update_profile", username=a, birth_date="2012-05-01")
    assert "(policy: explicit_content_adults)" in error and "explicit_content_allowed=false" in error
    run.ok("update_profile", username=a, birth_date="2012-05-01", explicit_content_allowed=False)
    error = run.refused("update_profile", username=a, explicit_content_allowed=True)
    assert "under 18 (born 2012-05-01)" in error and "(policy: explicit_content_adults)" in error
    assert "at least one field" in run.refused("update_profile", username=a)


def test_closing_an_account(run):
    u = run.username(
        "(SELECT count(*) FROM subscriptions AS s WHERE s.user_id = u.user_id "
        "AND s.status IN ('active', 'past_due')) = 1 "
        "AND EXISTS (SELECT 1 FROM devices AS d WHERE d.user_id = u.user_id AND d.is_active)"
    )
    closed = run.ok("close_account", username=u)
    assert closed["status"] == "closed" and len(closed["cancelled_subscriptions"]) == 1
    assert (
        run.value(
            "SELECT count(*) FROM devices AS d JOIN users AS u ON u.user_id = d.user_id "
            "WHERE u.username = ? AND d.is_active",
            [u],
        )
        == 0
    )
    sub = run.one(
        "SELECT status, ended_at, auto_renew FROM subscriptions WHERE subscription_id = ?",
        [closed["cancelled_subscriptions"][0]],
    )
    assert sub["status"] == "cancelled" and sub["ended_at"] == run.ep.now and sub["auto_renew"] is False
    for tool, args in (
        ("create_playlist", {"title": "x"}),
        ("like_songs", {"songs": [1]}),
        ("update_profile", {"display_name": "x"}),
    ):
        error = run.refused(tool, username=u, **args)
        assert f"the account {u} is closed" in error and "(policy: active_accounts_only)" in error
    assert run.ok("get_profile", username=u)["status"] == "closed"


def test_device_limit_sign_out_and_remove(run):
    u = run.username(
        "NOT EXISTS (SELECT 1 FROM subscriptions AS s WHERE s.user_id = u.user_id "
        "AND s.status IN ('active', 'past_due'))"
    )
    listed = run.ok("list_devices", username=u)
    assert listed["devices_allowed"] == 1
    if listed["active_devices"]:
        error = run.refused("register_device", username=u, device_type="web", name="Browser")
        assert "(policy: device_limit)" in error and "sign_out_devices" in error
        run.ok("sign_out_devices", username=u, everywhere=True)
    made = run.ok("register_device", username=u, device_type="ios", name="My iPhone", app_version="8.9.12")
    assert "device_limit" in run.refused("register_device", username=u, device_type="web", name="Browser")
    run.ok("subscribe", username=u, plan="duo_monthly", payment_method="card")
    run.ok("register_device", username=u, device_type="web", name="Browser")
    assert run.ok("list_devices", username=u, active=True)["active_devices"] == 2
    song = run.value("SELECT song_id FROM songs WHERE is_available AND NOT explicit ORDER BY song_id LIMIT 1")
    run.ok("play_song", username=u, song=song, device="my iphone")
    run.ok("play_song", username=u, song=song, device=made["device_id"], ms_played=12_000)
    gone = run.ok("remove_device", username=u, device="My iPhone")
    assert gone["plays_deleted"] == 2
    assert run.changes() == {"devices": {"deleted": 1}, "listening_history": {"deleted": 2}}
    signed = run.ok("sign_out_devices", username=u, unused_since=str(run.ep.now.date()))
    assert signed["count"] == 0
    assert "exactly one of" in run.refused("sign_out_devices", username=u)
