"""A small MCP agent to plug into `stateforge evaluate --solver mcp`, and a template for your own.

    stateforge evaluate music --solver mcp --agent-cmd "python examples/mcp_agent.py {url}"

It connects to the episode's MCP server (the URL as its first argument, or STATEFORGE_MCP_URL), reads the
user's request (STATEFORGE_INSTRUCTION, else stdin), and runs a tool-calling loop with any
OpenAI-compatible model (OPENAI_BASE_URL, OPENAI_API_KEY, and the model in STATEFORGE_AGENT_MODEL or
--model): the server's instructions as the system prompt, its tools as functions, each call made over
MCP and its text result handed back to the model. It prints the model's final answer and exits 0; it exits
1 when the model or the server fails. It needs only the `mcp` and `openai` packages, not Stateforge.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import openai
from mcp import Client


def function_tools(tools: list[Any]) -> list[dict[str, Any]]:
    """The MCP tools as OpenAI function tools."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description or "", "parameters": t.input_schema},
        }
        for t in tools
    ]


async def call_text(client: Client, name: str, arguments: dict[str, Any]) -> str:
    """One tool call over MCP; its text content (an error result's text starts with `error:`)."""
    result = await client.call_tool(name, arguments)
    text = "\n".join(getattr(part, "text", "") for part in result.content)
    return text if text or not result.is_error else "error: the call failed"


async def run(url: str, instruction: str, model: str, max_turns: int) -> str:
    """Work on `instruction` through the MCP server at `url`; the model's final answer."""
    llm = openai.AsyncOpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY from the environment
    async with Client(url) as client:
        tools = function_tools((await client.list_tools()).tools)
        system = (client.instructions or "") + (
            "\n\nAct for the user through the tools. If the request cannot be done as asked, call "
            "cannot_complete with the reason and change nothing."
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": instruction},
        ]
        for _ in range(max_turns):
            reply = await llm.chat.completions.create(model=model, messages=messages, tools=tools)
            message = reply.choices[0].message
            calls = message.tool_calls or []
            turn: dict[str, Any] = {"role": "assistant", "content": message.content}
            if calls:
                turn["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.function.name, "arguments": c.function.arguments}}
                    for c in calls
                ]
            messages.append(turn)
            if not calls:
                return message.content or ""
            for call in calls:
                try:
                    arguments = json.loads(call.function.arguments or "{}")
                    text = await call_text(client, call.function.name, arguments)
                except json.JSONDecodeError as exc:
                    text = f"error: the arguments are not JSON ({exc}); call the tool again."
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        return f"(stopped after {max_turns} turns)"


def main() -> int:
    """Parse the arguments, run, print the answer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", default=os.environ.get("STATEFORGE_MCP_URL"))
    parser.add_argument("--model", default=os.environ.get("STATEFORGE_AGENT_MODEL"))
    parser.add_argument("--max-turns", type=int, default=30)
    args = parser.parse_args()
    if not args.url or not args.model:
        parser.error("give the MCP URL (or STATEFORGE_MCP_URL) and --model (or STATEFORGE_AGENT_MODEL)")
    instruction = os.environ.get("STATEFORGE_INSTRUCTION") or sys.stdin.read()
    try:
        answer = asyncio.run(run(args.url, instruction.strip(), args.model, args.max_turns))
    except (openai.APIError, OSError) as exc:
        print(f"mcp_agent: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
