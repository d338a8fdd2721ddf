"""Every policy is classified: a state policy has a check (run as a domain check of kind policy), an
action policy has none; a policy with neither is a load error naming it."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.domain.config import DomainConfig
from stateforge.domain.loader import load_config
from stateforge.errors import DomainError
from stateforge.schema.model import Column, Schema, Table
from stateforge.validation.rules import apply_rules


def _write(tmp_path: Path, policies: str) -> Path:
    path = tmp_path / "domain.yaml"
    path.write_text("name: shop\npolicies:\n" + policies)
    return path


def test_a_policy_with_neither_check_nor_action_is_a_load_error_naming_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "  - name: ok\n    kind: action\n    description: Staff only.\n"
                            "  - name: vague_rule\n    description: Be nice.\n")
    with pytest.raises(DomainError, match=r"domain.yaml:\d+: policies\[1\]: policy vague_rule has no check "
                                          r"and is not marked `kind: action`"):
        load_config(path)


@pytest.mark.parametrize("body, message", [
    ("    kind: action\n    check: SELECT 1\n", "is `kind: action` but has a check"),
    ("    kind: state\n", "is `kind: state` but has no check"),
    ("    kind: procedure\n", "is `kind: procedure` but has no check"),
])
def test_a_misclassified_policy_is_a_load_error(tmp_path: Path, body: str, message: str) -> None:
    path = _write(tmp_path, "  - name: p\n    description: d.\n" + body)
    with pytest.raises(DomainError, match=message):
        load_config(path)


def test_a_state_policy_is_held_by_the_build() -> None:
    config = DomainConfig.model_validate({"name": "shop", "policies": [
        {"name": "cart_limit", "description": "A cart holds at most 2 items.",
         "check": "SELECT cart_id FROM items GROUP BY cart_id HAVING count(*) > 2",
         "repair": ["DELETE FROM items WHERE rowid IN (SELECT rowid FROM (SELECT rowid, row_number() OVER "
                    "(PARTITION BY cart_id ORDER BY item_id) AS n FROM items) WHERE n > 2)"]},
        {"name": "staff_only", "description": "Only staff refund.", "kind": "action"}]})
    assert [p.kind for p in config.policies] == ["state", "action"]
    columns = [Column("item_id", "INTEGER", nullable=False), Column("cart_id", "INTEGER", nullable=False)]
    schema = Schema([Table("items", columns, primary_key=("item_id",))])
    con = duckdb.connect()
    con.execute("CREATE TABLE items (item_id INTEGER PRIMARY KEY, cart_id INTEGER NOT NULL)")
    con.execute("INSERT INTO items VALUES (1, 1), (2, 1), (3, 1), (4, 2)")
    [report] = apply_rules(con, schema, config)
    assert (report.name, report.kind, report.found) == ("cart_limit", "policy", 1)
    assert con.execute("SELECT list(item_id ORDER BY item_id) FROM items").fetchall()[0][0] == [1, 2, 4]


def test_a_procedure_is_checked_on_built_data_but_not_enforced_and_is_told_apart(tmp_path: Path) -> None:
    import datetime as dt

    from stateforge.mcp.target import instructions
    from stateforge.tools.actor import Actor

    path = _write(tmp_path, "  - name: cap\n    kind: action\n    description: At most five.\n"
                            "  - name: four_eyes\n    kind: procedure\n    description: Ask a colleague.\n"
                            "    check: SELECT 1 WHERE FALSE\n")
    config = load_config(path)
    procedure = config.policies[1]
    assert (procedure.checked, procedure.enforced) == (True, False)
    assert (config.policies[0].checked, config.policies[0].enforced) == (False, True)
    said = instructions(config, dt.datetime(2026, 6, 30, 12), "shop", actor=Actor(person="ana"))
    tools_refuse, follow = said.split("Procedures you must follow")
    assert "At most five." in tools_refuse and "Ask a colleague." not in tools_refuse
    assert "Ask a colleague." in follow
    assert "You act for" not in said  # the config declares no actors: no one to name
