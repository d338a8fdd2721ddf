"""One exec_code run's CPU, two ways, measured in the same run (part of bench/solver_overhead.py):

- a fresh interpreter (the sandbox's previous design, still how `sandbox_child.py` runs by hand):
  `python -I -S sandbox_child.py` started, spoken to over its pipes, reaped;
- a child forked from the fork server (`Sandbox.run`, as the openai-code solver runs it now).

Both run the same code making two tool calls. CPU = this process's and the children's (the fork server's
own and its reaped children's for the second, read from /proc in clock ticks of 10 ms: so each figure is
a block of runs' total over its runs); the median block of each way, the blocks interleaved.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from stateforge.evaluate.solvers import sandbox_child
from stateforge.evaluate.solvers.sandbox import Sandbox
from stateforge.evaluate.solvers.sandbox_forks import running_server, shared_server

CHILD = sandbox_child.__file__
CODE = "a = get_user(id=1)\nb = get_user(id=2)\nprint(a['name'], b['name'])"
TOOLS = [("get_user", ["id"])]


def answer(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "value": {"id": arguments.get("id"), "name": "Ada"}}


def cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    server = running_server()
    return time.process_time() + children.ru_utime + children.ru_stime + (
        server.cpu_seconds() if server is not None else 0.0
    )


def fresh_interpreter() -> str:
    """One run the previous way: a new interpreter for the run."""
    with tempfile.TemporaryDirectory(prefix="stateforge-sandbox-") as workdir:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(CHILD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=workdir, env={"LANG": "C.UTF-8"}, start_new_session=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        assert json.loads(proc.stdout.readline()) == {"ready": True}
        request = {"code": CODE, "tools": [[n, p] for n, p in TOOLS], "cpu_seconds": 5, "memory_mb": 512}
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        while message := json.loads(proc.stdout.readline() or "null"):
            if "call" in message:
                proc.stdin.write(json.dumps(answer(message["call"], message["arguments"])).encode() + b"\n")
                proc.stdin.flush()
            elif message.get("done"):
                stdout = message["stdout"]
                break
        proc.communicate(timeout=10)
    return stdout


def measure(blocks: int = 5, runs: int = 20) -> dict[str, float]:
    """CPU ms per run of each way (the median of `blocks` blocks of `runs` runs), and their ratio."""
    sandbox = Sandbox()
    shared_server()
    forked = lambda: sandbox.run(CODE, TOOLS, answer).stdout  # noqa: E731
    found: dict[str, list[float]] = {"fresh": [], "forked": []}
    for way in (fresh_interpreter, forked):
        assert way() == "Ada Ada\n"  # warm both up, and check they answer alike
    for _ in range(blocks):
        for name, way in (("fresh", fresh_interpreter), ("forked", forked)):
            time.sleep(0.05)  # the fork server has reaped the last child: its CPU is in the server's
            before = cpu()
            for _ in range(runs):
                way()
            time.sleep(0.05)
            found[name].append((cpu() - before) / runs)
    fresh, fork = (statistics.median(found[k]) * 1000 for k in ("fresh", "forked"))
    return {"fresh": fresh, "forked": fork, "ratio": fork / fresh if fresh else 0.0, "runs": blocks * runs}
