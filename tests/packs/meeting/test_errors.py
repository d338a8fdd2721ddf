"""The meeting pack's errors in the shape every pack shares (tests/packs/errors.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from stateforge.episode import Episode
from stateforge.tools import load_toolkit
from tests.packs.errors import check_argument_errors, check_refusal

pytestmark = pytest.mark.xdist_group("meeting-pack")


def test_a_policy_refusal_names_its_policy_as_a_field(ep: Episode):
    kit = load_toolkit("meeting")
    me = ep.query("SELECT email FROM employees WHERE is_active ORDER BY employee_id LIMIT 1")[0]["email"]
    far = (dt.date(2026, 3, 31) + dt.timedelta(days=60)).isoformat()
    fields = check_refusal(ep, kit, "book_desk", {"person": me, "date": far}, "desk_booking")
    assert "30 days ahead" in fields["error"]


def test_argument_errors_name_the_argument_and_no_internal_type(ep: Episode):
    assert check_argument_errors(ep, load_toolkit("meeting")) > 20


def test_list_buildings_returns_an_object(ep: Episode):
    result = ep.call("list_buildings", {})
    assert result.ok and list(result.value) == ["buildings"] and result.value["buildings"]
