"""The official TypeScript MCP SDK for the tests: installed once per machine into a cache, run with node.

    sdk = typescript_sdk()      # pytest.skip with the reason when node or npm cannot install it
    sdk.run("http-sessions", url, "3", "get_carrier", '{"carrier_id": 2}')   # check.mjs's JSON answer

The cache is `artifacts/.cache/mcp-ts/` (git-ignored), keyed on `ts/package.json`, so one install (about
30 s) serves every test, every worker and later runs; a file lock keeps two workers from installing at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent / "ts"
ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("STATEFORGE_TS_CACHE", ROOT / "artifacts" / ".cache" / "mcp-ts"))
INSTALL_TIMEOUT = 300


@dataclass(frozen=True)
class TypescriptSdk:
    """Where the SDK is installed, and `run` for the check script."""

    folder: Path

    def run(self, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> dict[str, Any]:
        """`node check.mjs ARGS...`: its one JSON line; an AssertionError with its stderr if it fails."""
        done = subprocess.run(
            ["node", str(self.folder / "check.mjs"), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            cwd=self.folder,
        )
        assert done.returncode == 0, f"check.mjs {args[0]} failed:\n{done.stderr[-4000:]}"
        return json.loads(done.stdout.strip().splitlines()[-1])


def typescript_sdk() -> TypescriptSdk:
    """The installed SDK (installing it at the first call), or `pytest.skip` saying why it cannot be had."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed for the TypeScript SDK checks; neither is on PATH")
    manifest = (HERE / "package.json").read_bytes()
    folder = CACHE / hashlib.sha256(manifest).hexdigest()[:12]
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json").is_file():
            (folder / "package.json").write_bytes(manifest)
            try:
                done = subprocess.run(
                    ["npm", "install", "--no-audit", "--no-fund", "--silent", "--no-package-lock"],
                    cwd=folder,
                    capture_output=True,
                    text=True,
                    timeout=INSTALL_TIMEOUT,
                )
            except subprocess.TimeoutExpired:
                pytest.skip(f"npm install of the TypeScript SDK timed out after {INSTALL_TIMEOUT} s")
            if done.returncode != 0:
                reason = done.stderr.strip()[-300:]
                pytest.skip(f"npm cannot install the TypeScript SDK (is the registry reachable?): {reason}")
        shutil.copy(HERE / "check.mjs", folder / "check.mjs")
    return TypescriptSdk(folder)
