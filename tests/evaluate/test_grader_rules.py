"""The grader answers a domain rule's verifier from the checks the episode's calls ran, only when the log is
complete: the rows must be those the rule's SQL returns on the end state, and a write no call recorded
(which may break the rule unseen) makes the grader run the SQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stateforge.episode import Episode, compile_rules
from stateforge.evaluate.grader import Grader
from stateforge.evaluate.gradestate import EpisodeState
from stateforge.tasks import Task
from stateforge.tasks.model import Verifier
from stateforge.tasks.verifiers import count_sql
from tests.episode.fixture import build_shop, full_toolkit, shop_schema

pytestmark = pytest.mark.xdist_group("evaluate")


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Grader]]:
    db = build_shop(tmp_path_factory.getbasetemp() / "fixtures")
    with Episode.open(db) as episode:
        schema, config = episode.schema, episode.config
    grader = Grader(db, schema, config)
    yield db, grader
    grader.close()


def _rule_verifiers(grader: Grader, episode: Episode) -> list[Verifier]:
    rules = compile_rules(episode.config.rules, episode.schema)
    assert {r.name for r in rules} >= {"order_lines_numbered", "shipped_orders_have_a_shipment"}
    return [
        Verifier(kind="integrity", name=f"rule {r.name}", sql=count_sql(r.sql), expected=[{"violations": 0}])
        for r in rules
    ]


def _an_order_with_lines(episode: Episode) -> dict[str, Any]:
    return episode.query(
        "SELECT order_id FROM main.order_lines GROUP BY 1 HAVING count(*) >= 2 ORDER BY 1 LIMIT 1"
    )[0]


SCENARIOS = {
    "no call": ([], False, True),
    "a call that runs the rule": (["remove_line"], False, True),
    "an unrecorded write that breaks it": (["remove_line"], True, False),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_rule_verifiers_give_the_rows_of_their_sql(
    scenario: str, shop: tuple[Path, Grader], tasks: list[Task]
) -> None:
    db, grader = shop
    calls, sneak, answered = SCENARIOS[scenario]
    with Episode.open(db, toolkit=full_toolkit(shop_schema())) as episode:
        order = _an_order_with_lines(episode)
        for tool in calls:
            result = episode.call(tool, {"order_id": order["order_id"], "line_no": 1})
            assert result.ok and "order_lines_numbered" in result.rules_checked, result.error
        if sneak:  # a gap in the numbering, written where no call records it
            changed = episode.connection.execute(
                "UPDATE main.order_lines SET line_no = line_no + 10 WHERE order_id = $1 AND line_no = "
                "(SELECT max(line_no) FROM main.order_lines WHERE order_id = $1)",
                [order["order_id"]],
            ).fetchall()
            assert changed == [(1,)]
        empty = {"tables": {}, "summary": {"inserted": 0, "deleted": 0, "updated": 0}}
        task = tasks[0].model_copy(update={"expected_diff": empty})  # names no table of the pack's
        state = grader._export(task, episode, episode.log)
        assert state.complete == (not sneak)
        for verifier in _rule_verifiers(grader, episode):
            assert (grader._answer(episode, verifier, state) is not None) == answered
            fast = grader._verify(task, episode, verifier, state)
            full = grader._verify(task, episode, verifier, EpisodeState(written=None))
            assert fast.passed == full.passed and fast.actual == full.actual, verifier.name
            if sneak and verifier.name == "rule order_lines_numbered":
                assert not fast.passed
