"""The rule-based agent: what the fake model does in a tool-calling conversation that no script covers.

It plays the privileged task generator with simple, deterministic rules, reading nothing but the wire
format (the tools offered, their JSON schemas, the results sent back):

1. list the tables and columns with the SQL tool (a tool with one required string parameter `sql` or
   `query`): `information_schema.columns`;
2. pick a write tool (its description carries `[changes data]`, or its name starts with a verb such as
   create, update, delete) whose required parameters all name columns of one table (`playlist_id`, or
   `<table>_<column>`), read up to 40 rows of that table, pick a row whose values fit the parameters'
   types, and call the tool (an update-like tool also gets one optional parameter set to another row's
   value, or a flipped boolean); a failed call moves on to the next pick, at most `MAX_TRIES` per round;
3. submit the task with `submit_task`: an instruction composed from the values used, a reference query
   per entity named, a goal query, the capability the request asks for (else a seeded pick).

When the first user message asks for an *infeasible* task, step 2 names a row that does not exist
(an unused key value) and the submission says `feasible: false` once the tool has refused. A submission
the client answers with a rejection (its result mentions "rejected") starts a new round: the client is
expected to have reset the database. Every choice is drawn from a seed made of the server's seed and the
conversation's opening, so the same conversation gets the same answers. Without an SQL tool and a submit
tool (a solver's conversation with no script) the agent declines: `cannot_complete` when offered, else a
final message.
"""

from __future__ import annotations

import hashlib
import re

from stateforge.fakellm.agent_plans import (
    COLUMNS_SQL,
    Board,
    Plan,
    Roles,
    plan_write,
    sql_result,
    tables_of,
)
from stateforge.fakellm.agent_submit import submission
from stateforge.fakellm.conversation import Conversation, PastCall
from stateforge.fakellm.scripts import Planned

MAX_TRIES = 6
"""Write calls per round before the agent gives up."""
MAX_RESUBMITS = 3
"""Submissions per round that fail for another reason than a rejection (broken arguments)."""
_INFEASIBLE = re.compile(r"\binfeasible\b", re.IGNORECASE)


def agent_turn(conv: Conversation, seed: int) -> Planned:
    """The agent's answer to the conversation's current turn (see the module docstring)."""
    roles = Roles.of(conv.tools)
    if roles.sql is None or roles.submit is None:
        return _decline(conv, roles)
    digest = hashlib.sha256(f"{seed}\n{conv.system}\n{conv.opening}".encode()).hexdigest()
    state = Board(conv, roles, digest)
    submits = conv.calls_to(roles.submit.name)
    if submits and submits[-1].ok:
        return Planned.say("Submitted.")
    rejected = [c for c in submits if _rejected(c)]
    start = max((c.turn for c in rejected), default=-1)
    round_calls = [c for c in conv.calls if c.turn > start]
    listing = sql_result(conv, roles, COLUMNS_SQL)
    if listing is None:
        return Planned.call(roles.sql.name, {roles.sql_param: COLUMNS_SQL})
    state.tables = tables_of(listing.result)
    infeasible = bool(_INFEASIBLE.search(conv.opening))
    writes = [c for c in round_calls if c.name in {w.name for w in roles.writes}]
    done = _finished(writes, infeasible)
    if done is not None:
        resubmits = [c for c in round_calls if c.name == roles.submit.name and c.turn > done.turn]
        if len(resubmits) >= MAX_RESUBMITS:
            return Planned.say("I could not submit the task.")
        plan = plan_write(state, len(rejected), writes.index(done), infeasible)
        if not isinstance(plan, Plan) or plan.tool.name != done.name:
            return Planned.say("I lost track of my change.")
        return Planned.call(roles.submit.name, submission(state, plan, done, len(rejected)))
    if len(writes) >= MAX_TRIES:
        return Planned.say("I could not find a change that works.")
    plan = plan_write(state, len(rejected), len(writes), infeasible)
    if isinstance(plan, str):
        return Planned.call(roles.sql.name, {roles.sql_param: plan})
    if plan is None:
        return Planned.say("I found no write tool whose parameters I can fill from the tables.")
    return Planned.call(plan.tool.name, plan.arguments)


def _rejected(call: PastCall) -> bool:
    return not call.ok and "rejected" in (call.result_text or "").lower()


def _finished(writes: list[PastCall], infeasible: bool) -> PastCall | None:
    """The write the round's task rests on: the last one, if it succeeded (refused, when infeasible)."""
    if not writes:
        return None
    last = writes[-1]
    if infeasible:
        refused = not last.ok and re.match(r"\s*error \((tool|constraint|rule)\)", last.result_text or "")
        return last if refused or last.ok else None
    return last if last.ok else None


def _decline(conv: Conversation, roles: Roles) -> Planned:
    if roles.decline is not None and not conv.calls_to(roles.decline.name):
        return Planned.call(roles.decline.name, {"reason": "I have no way to do this (no script covers it)."})
    return Planned.say("I cannot help with that.")
