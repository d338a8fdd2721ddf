"""The music pack's errors in the shape every pack shares (tests/packs/errors.py)."""

from __future__ import annotations

import pytest

from stateforge.episode import Episode
from stateforge.tools import Toolkit
from tests.packs.errors import check_argument_errors, check_refusal, check_shape

pytestmark = pytest.mark.xdist_group("music_pack")


def test_a_policy_refusal_names_its_policy_as_a_field(ep: Episode, music_kit: Toolkit):
    closed = ep.query("SELECT username FROM users WHERE status <> 'active' ORDER BY user_id LIMIT 1")[0]
    check_refusal(
        ep,
        music_kit,
        "create_playlist",
        {"username": closed["username"], "title": "Road"},
        "active_accounts_only",
    )


def test_argument_errors_name_the_argument_and_no_internal_type(ep: Episode, music_kit: Toolkit):
    assert check_argument_errors(ep, music_kit) > 20
    user = ep.query("SELECT username FROM users WHERE status = 'active' ORDER BY user_id LIMIT 1")[0]
    for songs, expected in [(["abc"], "must be an integer or an object"), ([{"titel": "x"}], "'titel'")]:
        result = ep.call("like_songs", {"username": user["username"], "songs": songs})
        fields = check_shape(result, music_kit)
        assert fields["argument"] == "songs" and expected in fields["error"] and "songs[0]" in fields["error"]


@pytest.mark.parametrize("tool", ["list_plans", "list_genres", "list_charts"])
def test_list_tools_return_an_object(ep: Episode, tool: str):
    result = ep.call(tool, {})
    assert result.ok and isinstance(result.value, dict) and list(result.value) == [tool.removeprefix("list_")]
