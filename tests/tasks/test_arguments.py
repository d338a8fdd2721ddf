"""`stateforge.tasks.arguments.given`: optional tool arguments, passed only when a recipe has them."""

from __future__ import annotations

from stateforge.tasks.arguments import given


def test_given_drops_none_and_keeps_the_order_written():
    assert given(category="event", hero=None, limit=5) == {"category": "event", "limit": 5}
    assert list(given(b=1, a=2)) == ["b", "a"]


def test_false_zero_and_empty_are_given():
    assert given(is_public=False, likes=0, note="") == {"is_public": False, "likes": 0, "note": ""}
    assert given() == {} and given(x=None) == {}
