"""The suite relies on `--dist loadgroup` (make test): the tests of one `xdist_group` run on one worker, so
the heavy module and session fixtures they share (a pack's build, its recipes' kept tasks) are made once.
Some pytest / pytest-xdist pairs silently stop tagging tests with their group (pytest 9.2 with xdist 3.8):
every group is then spread over the workers and each worker makes the fixtures again."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("suite-groups")


def test_a_grouped_test_carries_its_group_to_the_scheduler(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by a worker of `--dist loadgroup` (make test runs it so)")
    assert request.node.nodeid.endswith("@suite-groups"), (
        f"{request.node.nodeid}: pytest-xdist did not tag the test with its xdist_group, so `--dist "
        "loadgroup` spreads every group over the workers (module fixtures made once per worker). The "
        "installed pytest and pytest-xdist do not work together: pin a pair that does in pyproject.toml "
        "(pytest 9.1.1 with pytest-xdist 3.8.0 does) and run `make lock`."
    )
