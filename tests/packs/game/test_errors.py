"""The game pack's errors in the shape every pack shares (tests/packs/errors.py)."""

from __future__ import annotations

import pytest

from stateforge.episode import Episode
from stateforge.tools import Toolkit
from tests.packs.errors import check_argument_errors, check_refusal
from tests.packs.game.conftest import Cast

pytestmark = pytest.mark.xdist_group("game_pack")


def test_a_policy_refusal_names_its_policy_as_a_field(ep: Episode, kit: Toolkit, cast: Cast):
    check_refusal(ep, kit, "join_clan", {"player": cast.banned, "clan": cast.open_clan}, "clan_membership")
    check_refusal(
        ep, kit, "send_mail", {"player": cast.banned, "to": cast.rich, "subject": "Hi", "body": "x"}, "mail"
    )


def test_argument_errors_name_the_argument_and_no_internal_type(ep: Episode, kit: Toolkit):
    assert check_argument_errors(ep, kit) > 20
