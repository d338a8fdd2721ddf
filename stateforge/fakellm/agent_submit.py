"""The rule-based agent's submission (`agent.py`): the instruction composed from the values it used, the
reference and goal queries, the capability asked for, and any other field the submit tool requires
(synthesized from its schema)."""

from __future__ import annotations

import random
from typing import Any

from stateforge.fakellm.agent_plans import Board, Plan
from stateforge.fakellm.conversation import PastCall
from stateforge.fakellm.rows import synthesize
from stateforge.fakellm.words import singular


def _noun(table: str) -> str:
    return singular(table).replace("_", " ")


def _say(value: Any) -> str:
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _where(keys: dict[str, str], arguments: dict[str, Any]) -> str:
    return " and ".join(f"{c.replace('_', ' ')} is {_say(arguments[p])}" for p, c in keys.items())


def _instruction(plan: Plan, rng: random.Random) -> str:
    noun, where = _noun(plan.table), _where(plan.keys, plan.arguments)
    if plan.kind == "create":
        values = ", ".join(f"{c.replace('_', ' ')} {_say(plan.arguments[p])}" for p, c in plan.keys.items())
        return rng.choice([f"Please add a {noun} with {values}.", f"I'd like a new {noun}: {values}."])
    if plan.kind == "update" and plan.change is not None:
        param, column, value = plan.change
        what = f"{column.replace('_', ' ')} to {_say(value)}"
        return rng.choice(
            [
                f"For the {noun} whose {where}, please set the {what}.",
                f"Please change the {noun} whose {where}: set its {what}.",
            ]
        )
    verb = plan.tool.name.split("_", 1)[0].lower()
    return rng.choice(
        [f"Please {verb} the {noun} whose {where}.", f"Could you {verb} the {noun} whose {where}?"]
    )


def submission(state: Board, plan: Plan, done: PastCall, round_no: int) -> dict[str, Any]:
    """The submit tool's arguments for `plan`, whose call `done` succeeded (or was refused: infeasible)."""
    assert state.roles.submit is not None
    rng = random.Random(f"{state.seed}:submit:{round_no}")
    params = [plan.arguments[p] for p in plan.keys]
    condition = " AND ".join(f'"{c}" = ?' for c in plan.keys.values())
    noun, where = _noun(plan.table), _where(plan.keys, plan.arguments)
    feasible = done.ok
    known: dict[str, Any] = {
        "instruction": _instruction(plan, rng),
        "difficulty": "easy",
        "feasible": feasible,
        "derived": [],
        "policy": {},
        "infeasible": None,
        "references": [],
        "goals": [],
    }
    flags = [(c, plan.arguments[p]) for p, c in plan.keys.items() if isinstance(plan.arguments[p], bool)]
    if plan.change is not None and isinstance(plan.change[2], bool):
        flags.append((plan.change[1], plan.change[2]))
    known["derived"] = [
        {"value": v, "how": f"the request says {c.replace('_', ' ')} {_say(v)}"} for c, v in flags
    ]
    if plan.kind != "create":
        count = f'SELECT count(*) AS n FROM "{plan.table}" WHERE {condition}'
        entity = f"the {noun} whose {where}"
        expected = 0 if plan.missing else 1
        known["references"] = [{"entity": entity, "sql": count, "params": params, "expected": expected}]
    if feasible:
        shown = [*plan.keys.values(), plan.change[1]] if plan.change is not None else []
        columns = ", ".join(f'"{c}"' for c in shown) or "*"
        sql = f'SELECT {columns} FROM "{plan.table}" WHERE {condition}'
        known["goals"] = [{"name": f"the {noun} is as asked", "sql": sql, "params": params, "expected": None}]
    else:
        known["infeasible"] = {"kind": "missing", "because": f"There is no {noun} whose {where}."}
    schema = state.roles.submit.parameters
    arguments: dict[str, Any] = {}
    for name, prop in state.roles.submit.properties.items():
        if name == "capabilities":
            arguments[name] = _capabilities(prop, state.conv.opening, rng)
        elif name in known:
            arguments[name] = known[name]
        elif name in state.roles.submit.required:
            arguments[name] = synthesize(prop, rng)
    if not isinstance(schema.get("properties"), dict):
        arguments = known
    return arguments


def _capabilities(schema: Any, opening: str, rng: random.Random) -> list[str]:
    items = schema.get("items", {}) if isinstance(schema, dict) else {}
    names = [v for v in items.get("enum", []) if isinstance(v, str)]
    asked = [n for n in names if n in opening]
    return asked[:1] or ([rng.choice(names)] if names else ["multi_condition_filtering"])
