"""An MCP agent for the ablation test: over its episode's server (the URL as argument), writes the server's
instructions and the names of the tools it lists to stderr as JSON, and does nothing else."""

from __future__ import annotations

import json
import sys

import anyio
from mcp import Client


async def main(url: str) -> None:
    async with Client(url) as client:
        listed = await client.list_tools()
        sys.stderr.write(json.dumps({"instructions": client.instructions,
                                     "tools": [t.name for t in listed.tools]}))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1])
