"""The fake model's tool-calling mode: requests that carry `tools` get tool calls, then a final message.

Who decides the turn: the script the conversation matches (`scripts.py`), else the rule-based agent
(`agent.py`). The answer is in the OpenAI wire format: `message.tool_calls` with `id`, `type: function`
and `function: {name, arguments}` (arguments as a JSON *string*), `content` null and finish_reason
"tool_calls"; a final message has content and finish_reason "stop". `tool_choice: "none"` always gets
a final message; other tool choices are not enforced (the driver decides).

Faults (`faults.py`) apply to the turn the driver chose: `malformed` breaks one call's argument JSON,
`truncated` cuts the last call's arguments (finish_reason "length"), `unknown_tool` renames one call to a
tool that was not offered, and the content faults (`wrong_types`, `missing_fields`, `extra_fields`,
`invented_fk`, `duplicates`) change one call's arguments object. On a final message, `malformed` and
`truncated` act as on any text; the others do not apply (and are not counted). `max_tokens` cuts the
calls where the budget (4 characters a token) runs out, with finish_reason "length".
"""

from __future__ import annotations

import json
import random
from typing import Any

from stateforge.fakellm.agent import agent_turn
from stateforge.fakellm.chat import Answer, count_tokens
from stateforge.fakellm.conversation import Conversation, read_conversation
from stateforge.fakellm.faults import CONTENT_FAULTS, corrupt_document, corrupt_text
from stateforge.fakellm.scripts import Planned, PlannedCall, ScriptBook, scripted_turn


def tool_answer(
    request: dict[str, Any],
    rng: random.Random,
    fault: str | None,
    scripts: ScriptBook,
    seed: int,
    digest: str,
) -> tuple[Answer, str]:
    """(the answer, who drove it: `script:<key>` or `agent`) for a request that carries tools."""
    conversation = read_conversation(request)
    script = scripts.find(conversation)
    if conversation.tool_choice == "none":
        planned, driver = Planned.say("(tool_choice is 'none': no tool is called.)"), "none"
    elif script is not None:
        planned, driver = scripted_turn(script, conversation), f"script:{script.key}"
        scripts.served(script)
    else:
        planned, driver = agent_turn(conversation, seed), "agent"
    answer = _with_fault(planned, conversation, fault, rng, digest)
    return _within_limit(answer, request.get("max_completion_tokens") or request.get("max_tokens")), driver


def _within_limit(answer: Answer, limit: Any) -> Answer:
    """`answer` cut at the request's token limit (finish_reason "length"), as a real model stops."""
    if not isinstance(limit, int) or not answer.tool_calls:
        if isinstance(limit, int) and count_tokens(answer.content) > limit:
            return Answer(answer.content[: 4 * limit], "length", answer.fault)
        return answer
    kept, budget = [], 4 * limit
    for call in answer.tool_calls:
        size = len(call["name"]) + len(call["arguments"])
        if size > budget:
            if budget > len(call["name"]):
                kept.append(call | {"arguments": call["arguments"][: budget - len(call["name"])]})
            return Answer("", "length", answer.fault, tuple(kept))
        kept.append(call)
        budget -= size
    return answer


def _with_fault(
    planned: Planned, conversation: Conversation, fault: str | None, rng: random.Random, digest: str
) -> Answer:
    calls = [PlannedCall(c.name, c.arguments) for c in planned.calls]
    if not calls:
        text, finish, applied = planned.content or "", "stop", ""
        if fault in ("malformed", "truncated") and (broken := corrupt_text(fault, text, rng)) is not None:
            (text, finish), applied = broken, fault
        return Answer(text, finish, applied)
    finish, applied = "tool_calls", ""
    if fault == "truncated":
        last = calls[-1]
        if len(last.arguments) > 1:
            last.arguments = last.arguments[: rng.randint(1, len(last.arguments) - 1)]
            finish, applied = "length", fault
    elif fault == "malformed":
        call = rng.choice(calls)
        if (broken := corrupt_text(fault, call.arguments, rng)) is not None:
            call.arguments, applied = broken[0], fault
    elif fault == "unknown_tool":
        call = rng.choice(calls)
        call.name, applied = _unknown_name(call.name, set(conversation.tools), rng), fault
    elif fault in CONTENT_FAULTS:
        call = rng.choice(calls)
        try:
            arguments = json.loads(call.arguments)
        except ValueError:
            arguments = None
        changed = corrupt_document(fault, arguments, [], rng) if isinstance(arguments, dict) else None
        if changed is not None:
            call.arguments, applied = json.dumps(changed, ensure_ascii=False), fault
    wire = tuple(
        {"id": f"call_{digest[:16]}_{k}", "name": c.name, "arguments": c.arguments}
        for k, c in enumerate(calls)
    )
    return Answer("", finish, applied, wire)


def _unknown_name(name: str, offered: set[str], rng: random.Random) -> str:
    """A near miss of `name` that is not an offered tool (the kind of slip models make)."""
    choices = [f"{name}s", f"get_{name}", name.replace("_", ""), f"{name}_v2"]
    rng.shuffle(choices)
    return next((c for c in choices if c not in offered and c != name), f"{name}_unknown")
