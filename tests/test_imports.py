"""What an offline build imports: only what it uses. Every package imported costs every build its import
time (prefect, openai, pandera and mcp together: about 3 CPU seconds on these machines), so the CLI and
the build stages import the LLM client, the flows, pandera, the MCP server and the HTML report on the
paths that need them, not at the top.

Checked in a fresh interpreter (this process has imported everything the other tests use).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

NOT_FOR_AN_OFFLINE_BUILD = (
    "prefect",  # the flows: `stateforge serve`, `stateforge/flows/`
    "openai",  # the LLM backend: `--backend openai`
    "httpx",
    "pandera",  # batch validation is Arrow-native (`stateforge.validation.batch_arrow`)
    "mcp",  # `stateforge mcp`
    "starlette",
    "uvicorn",
    "jinja2",
    "matplotlib",  # `stateforge report`
    "sqlalchemy",
    "jsonschema",
)

SCRIPT = """
import json, sys
from stateforge.cli import main
try:
    main(["build-domain", "music", "--scale", "0.002", "--out", sys.argv[1], "--json"])
except SystemExit as exc:
    code = exc.code
else:
    code = 0
sys.stdout.flush()
print(json.dumps({"code": code, "modules": sorted({m.split(".")[0] for m in sys.modules})}), file=sys.stderr)
"""


def test_an_offline_build_imports_no_llm_client_flow_engine_or_server(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, env=env, timeout=300
    )
    result = json.loads(done.stderr.strip().splitlines()[-1])
    assert result["code"] == 0, done.stderr
    assert json.loads(done.stdout)["totals"]["violations"] == 0
    modules = set(result["modules"])
    assert {"stateforge", "duckdb"} <= modules  # it did build
    assert sorted(modules.intersection(NOT_FOR_AN_OFFLINE_BUILD)) == []


def test_the_cli_imports_no_command_s_dependencies_before_a_command_runs():
    script = "import sys, stateforge.cli; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    modules = set(done.stdout.split())
    assert "typer" in modules
    heavy = ("duckdb", "pyarrow", "pandas", "sqlglot", "networkx", "pydantic", *NOT_FOR_AN_OFFLINE_BUILD)
    assert sorted(modules.intersection(heavy)) == []
