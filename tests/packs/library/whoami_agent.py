"""An MCP agent for the harness test: over its episode's server (the URL as argument), reads who the
session acts for (`get_member`) and writes it and the server's instructions to stderr as JSON."""

from __future__ import annotations

import json
import sys

import anyio
from mcp import Client


async def main(url: str) -> None:
    async with Client(url) as client:
        member = await client.call_tool("get_member", {})
        sys.stderr.write(json.dumps({"instructions": client.instructions,
                                     "card": member.structured_content["card_number"]}))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
