"""A tool-calling conversation as the fake server reads it: the tools offered, and every call made so far
with its result.

The server keeps no state between requests: a chat-completions request carries the whole conversation,
so the turn to answer is the number of assistant messages already in it, and each earlier call's result
is the `tool` message that answers its id. `read_conversation` checks what OpenAI checks (tools are
function tools with a name; every tool call is answered by a `tool` message before the next assistant
turn) and answers a 400 otherwise, so a client that breaks the protocol fails here as it would there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from stateforge.fakellm.chat import ApiError, message_text

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class ToolSpec:
    """One function tool offered in the request."""

    name: str
    description: str
    parameters: dict[str, Any]

    @property
    def properties(self) -> dict[str, Any]:
        """The parameters' schemas by name."""
        props = self.parameters.get("properties")
        return props if isinstance(props, dict) else {}

    @property
    def required(self) -> list[str]:
        """The names of the required parameters, in schema order."""
        required = self.parameters.get("required")
        return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


@dataclass
class PastCall:
    """A call the assistant made earlier, and the result the client sent back for it."""

    turn: int
    """The assistant turn (0 = the first assistant message) that made the call."""
    index: int
    """Its position among that turn's calls."""
    id: str
    name: str
    arguments_text: str
    result_text: str | None = None
    """The `tool` message's content; None while unanswered."""

    @property
    def arguments(self) -> dict[str, Any] | None:
        """The arguments as an object, or None when they are not a JSON object."""
        try:
            value = json.loads(self.arguments_text or "{}")
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    @property
    def ok(self) -> bool:
        """The result is there and is not an error (`error: ...`, or an object with an `error` key)."""
        text = (self.result_text or "").lstrip()
        if self.result_text is None or text.lower().startswith("error"):
            return False
        result = self.result
        return not (isinstance(result, dict) and "error" in result)

    @property
    def result(self) -> Any:
        """The result parsed as JSON, or the text itself when it is not JSON (None when unanswered)."""
        if self.result_text is None:
            return None
        try:
            return json.loads(self.result_text)
        except ValueError:
            return self.result_text


@dataclass
class Conversation:
    """What the request says: the tools, the opening messages, and the calls made so far."""

    tools: dict[str, ToolSpec]
    system: str
    """The text of the system (or developer) messages, joined."""
    opening: str
    """The first user message: the task the conversation is about."""
    turn: int
    """The index of the assistant turn to answer (the number of assistant messages so far)."""
    calls: list[PastCall] = field(default_factory=list)
    tool_choice: Any = "auto"

    def made_by(self, turn: int) -> list[PastCall]:
        """The calls of assistant turn `turn` (negative counts from the end, as in Python)."""
        if turn < 0:
            turn += self.turn
        return [call for call in self.calls if call.turn == turn]

    def calls_to(self, name: str) -> list[PastCall]:
        """Every call of tool `name`, in order."""
        return [call for call in self.calls if call.name == name]


def read_tools(request: dict[str, Any]) -> dict[str, ToolSpec]:
    """The function tools of `request`, by name (400 for a malformed entry, as OpenAI answers)."""
    tools = request.get("tools")
    if not isinstance(tools, list):
        raise ApiError(400, "'tools' must be an array of tool objects.", param="tools")
    found: dict[str, ToolSpec] = {}
    for i, entry in enumerate(tools):
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or entry.get("type") != "function" or not isinstance(function, dict):
            raise ApiError(
                400, f"tools[{i}] must be {{'type': 'function', 'function': {{...}}}}.", param="tools"
            )
        name = function.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            message = f"tools[{i}].function.name {name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$."
            raise ApiError(400, message, param=f"tools[{i}].function.name")
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        if not isinstance(parameters, dict):
            raise ApiError(
                400, f"tools[{i}].function.parameters must be a JSON schema object.", param="tools"
            )
        found[name] = ToolSpec(name, str(function.get("description") or ""), parameters)
    return found


def read_conversation(request: dict[str, Any]) -> Conversation:
    """The conversation of a request that carries `tools` (see the module docstring)."""
    tools = read_tools(request)
    system: list[str] = []
    opening: str | None = None
    calls: list[PastCall] = []
    pending: dict[str, PastCall] = {}
    turn = 0
    for position, message in enumerate(request["messages"]):
        role = message.get("role")
        if role in ("system", "developer"):
            system.append(message_text(message.get("content")))
        elif role == "user":
            _check_answered(pending, position)
            if opening is None:
                opening = message_text(message.get("content"))
        elif role == "assistant":
            _check_answered(pending, position)
            for index, call in enumerate(message.get("tool_calls") or []):
                past = _past_call(call, turn, index, position)
                calls.append(past)
                pending[past.id] = past
            turn += 1
        elif role == "tool":
            call_id = message.get("tool_call_id")
            past = pending.pop(call_id, None) if isinstance(call_id, str) else None
            if past is None:
                raise ApiError(
                    400,
                    f"messages[{position}]: a message with role 'tool' must answer a preceding assistant "
                    f"message's 'tool_calls' (no pending call has id {call_id!r}).",
                    param=f"messages.[{position}].tool_call_id",
                )
            past.result_text = message_text(message.get("content"))
    _check_answered(pending, len(request["messages"]))
    choice = request.get("tool_choice", "auto")
    return Conversation(tools, "\n\n".join(system), opening or "", turn, calls, choice)


def _past_call(call: Any, turn: int, index: int, position: int) -> PastCall:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(call.get("id"), str):
        raise ApiError(
            400,
            f"messages[{position}].tool_calls[{index}] must have an 'id' and a 'function'.",
            param="messages",
        )
    arguments = function.get("arguments", "")
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return PastCall(turn, index, call["id"], str(function.get("name", "")), text)


def _check_answered(pending: dict[str, PastCall], position: int) -> None:
    """400 when a call of the last assistant turn has no `tool` message before message `position`."""
    if pending:
        ids = ", ".join(sorted(pending))
        raise ApiError(
            400,
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            f"'tool_call_id'. The following tool_call_ids did not have response messages: {ids} "
            f"(before messages[{position}]).",
            param="messages",
        )
