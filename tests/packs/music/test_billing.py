"""Subscriptions and payments: one open subscription, plan changes, cancelling, auto-renew, settling a
past-due subscription, and the refund window, all through the tools."""

from __future__ import annotations

import datetime as dt

import pytest

pytestmark = pytest.mark.xdist_group("music_pack")

OPEN = (
    "SELECT count(*) FROM subscriptions AS s "
    "WHERE s.user_id = u.user_id AND s.status IN ('active', 'past_due')"
)


def test_subscribe_once_then_change_plan(run):
    u = run.username(f"({OPEN}) = 0")
    made = run.ok("subscribe", username=u, plan="Premium Individual", payment_method="apple_pay")
    assert (
        made["charged"] == "10.99"
        and made["external_ref"].startswith("ch_")
        and len(made["external_ref"]) == 19
    )
    assert run.changes() == {"payments": {"inserted": 1}, "subscriptions": {"inserted": 1}}
    error = run.refused("subscribe", username=u, plan="student_monthly", payment_method="card")
    assert "already has an open subscription" in error and "(policy: one_open_subscription)" in error
    assert "does not exist" in run.refused("subscribe", username=u, plan="platinum", payment_method="card")
    # a plan taken at this very moment is replaced, charge and all
    changed = run.ok("change_plan", username=u, plan="hifi_family_monthly")
    assert changed["payment_method"] == "apple_pay" and changed["charged"] == "22.99"
    assert run.changes() == {
        "payments": {"inserted": 1, "deleted": 1},
        "subscriptions": {"inserted": 1, "deleted": 1},
    }
    current = run.ok("get_subscription", username=u)["current"]
    assert [(c["code"], c["status"]) for c in current] == [("hifi_family_monthly", "active")]


def test_change_plan_ends_the_current_subscription(run):
    u = run.username(
        f"({OPEN}) = 1 AND EXISTS (SELECT 1 FROM subscriptions AS s WHERE s.user_id = u.user_id "
        "AND s.status = 'active' AND s.plan_id <> 8)"
    )
    old = run.ok("get_subscription", username=u)["current"][0]
    changed = run.ok("change_plan", username=u, plan="hifi_family_monthly", payment_method="card")
    ended = run.one(
        "SELECT status, ended_at FROM subscriptions WHERE subscription_id = ?", [old["subscription_id"]]
    )
    assert ended == {"status": "cancelled", "ended_at": run.ep.now}
    assert changed["ended_subscription_id"] == old["subscription_id"]
    assert "already on HiFi Family" in run.refused("change_plan", username=u, plan="HiFi Family")
    paid = run.ok("list_payments", username=u, plan="hifi_family_monthly", since=str(run.ep.now.date()))
    assert paid["total"] == 1 and paid["rows"][0]["amount"] == "22.99"


def test_cancel_and_auto_renew(run):
    u = run.username(
        f"({OPEN}) = 1 AND EXISTS (SELECT 1 FROM subscriptions AS s WHERE s.user_id = u.user_id "
        "AND s.status = 'active' AND s.auto_renew)"
    )
    renew = run.ok("get_subscription", username=u)["current"][0]["renews_on"]
    assert dt.datetime.fromisoformat(renew) > run.ep.now
    assert run.ok("set_auto_renew", username=u, enabled=False)["changed"] is True
    assert run.ok("set_auto_renew", username=u, enabled=False)["changed"] is False
    assert run.changes() == {}
    done = run.ok("cancel_subscription", username=u)
    assert done["status"] == "cancelled"
    assert "no open subscription to cancel" in run.refused("cancel_subscription", username=u)
    # no listener holds two open subscriptions: the build holds one_open_subscription (a state policy)
    assert not run.rows(
        "SELECT user_id FROM subscriptions WHERE ended_at IS NULL GROUP BY user_id HAVING count(*) > 1")


def test_past_due_must_be_settled_before_changing_plan(run):
    u = run.username(
        "EXISTS (SELECT 1 FROM subscriptions AS s WHERE s.user_id = u.user_id "
        f"AND s.status = 'past_due') AND ({OPEN}) = 1"
    )
    error = run.refused("change_plan", username=u, plan="premium_annual", payment_method="card")
    assert "pay_overdue" in error and "(policy: one_open_subscription)" in error
    settled = run.ok("pay_overdue", username=u, payment_method="gift_card")["settled"]
    assert len(settled) == 1
    assert run.changes() == {"payments": {"inserted": 1}, "subscriptions": {"updated": 1}}
    assert "nothing is owed" in run.refused("pay_overdue", username=u, payment_method="card")
    run.ok("change_plan", username=u, plan="premium_annual")


def test_refund_window(run):
    old = run.one(
        "SELECT u.username, p.external_ref FROM payments AS p "
        "JOIN subscriptions AS s USING (subscription_id) JOIN users AS u ON u.user_id = s.user_id "
        "WHERE u.status = 'active' AND p.status = 'paid' AND p.paid_at < ? ORDER BY p.payment_id LIMIT 1",
        [run.ep.now - dt.timedelta(days=15)],
    )
    error = run.refused("refund_payment", username=old["username"], payment=old["external_ref"])
    assert "refunds are possible for 14 days" in error and "(policy: refund_window)" in error
    pending = run.one(
        "SELECT u.username, p.payment_id FROM payments AS p JOIN subscriptions AS s USING (subscription_id) "
        "JOIN users AS u ON u.user_id = s.user_id WHERE u.status = 'active' AND p.status = 'pending' "
        "ORDER BY p.payment_id LIMIT 1"
    )
    error = run.refused("refund_payment", username=pending["username"], payment=pending["payment_id"])
    assert "still pending" in error and "refund_window" in error
    other = run.username("u.username <> ?", [old["username"]])
    assert "has no payment" in run.refused("refund_payment", username=other, payment=old["external_ref"])
    recent = run.one(
        "SELECT u.username, p.external_ref FROM payments AS p "
        "JOIN subscriptions AS s USING (subscription_id) JOIN users AS u ON u.user_id = s.user_id "
        "WHERE u.status = 'active' AND p.status = 'paid' AND p.paid_at BETWEEN ? AND ? "
        "ORDER BY p.payment_id LIMIT 1",
        [run.ep.now - dt.timedelta(days=14), run.ep.now],
    )
    refunded = run.ok("refund_payment", username=recent["username"], payment=recent["external_ref"])
    assert refunded["refunded_at"] == run.ep.now.isoformat()
    assert "already refunded" in run.refused(
        "refund_payment", username=recent["username"], payment=recent["external_ref"]
    )
    listed = run.ok("list_payments", username=recent["username"], status="refunded")
    assert recent["external_ref"] in {r["external_ref"] for r in listed["rows"]}
