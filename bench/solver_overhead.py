"""Solver overhead: the share of an LLM solver's episode that is not waiting for the model, at 1 s a turn.

    .venv/bin/python bench/solver_overhead.py [--scale 1] [--tasks 8] [--latency 1.0] [--concurrency 4]
                                              [--rounds 3] [--no-write]

On music at --scale (built with its tasks by bench/evaluate.py's `prepare`, under artifacts/bench-evaluate/,
and reused), takes --tasks tasks with at most 6 reference calls and runs them, interleaved in each of
--rounds rounds, with:

- `openai`: the fake server (`stateforge.fakellm`, latency --latency s a turn) replaying each task's reference
  calls as tool calls, one per turn, then a final message;
- `openai-code`: the same calls as one exec_code run (each call a function in the sandbox), then a final
  message;
- the baseline, `oracle`: the same tasks with no model, what the harness alone costs an episode;
- then one exec_code run's CPU, a fresh interpreter against a fork from the fork server
  (`bench/sandbox_runs.py`), and one client turn the previous way against now (`bench/client_turns.py`).

Per episode: wall time (open, solve, grade), model turns x latency (the simulated model's own time: what no
harness can save), and the rest, the overhead: the HTTP round trip beyond the latency (the openai client and
the server), the harness (opening the episode, grading), the tools, the sandbox, the loop. Reports medians,
the overhead's share of the episode (goal: at most 5%) and the ratio to the oracle's episode. Writes
"## Solver overhead (bench/solver_overhead.py)" of docs/BENCHMARKS.md unless --no-write.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _doc import write_section

from stateforge.evaluate import EvalRun, run_evaluation
from stateforge.evaluate.rundir import EPISODES_FILE
from stateforge.evaluate.runner import Stage
from stateforge.evaluate.solvers.sandbox import Sandbox
from stateforge.evaluate.solvers.sandbox_forks import running_server
from stateforge.fakellm.scripts import replay_script
from stateforge.tasks import Task, read_tasks
from stateforge.tools import Toolkit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from client_turns import measure as measure_turns  # noqa: E402 - one client turn, two ways
from evaluate import prepare  # noqa: E402 - bench/evaluate.py builds and caches the database and tasks
from sandbox_runs import measure as measure_sandbox  # noqa: E402 - one exec_code run, two ways

STATEFORGE = str(Path(sys.executable).with_name("stateforge"))
HEADING = "Solver overhead (bench/solver_overhead.py)"
GOAL = 0.05
BEFORE = (
    "Before: revision 21618b8 (each exec_code run a fresh `python -I -S` child, a spare started per "
    "episode and one more after each run; the tools serialised twice a turn, for the key and the body), "
    "the same command on this machine (load average 8.0 at the end): openai 3.9% on free cores (the "
    "harness's 3.4%, the solver's own 0.5%: 5.9 CPU ms a turn), openai-code 8.0% (the harness's 4.8%, "
    "the solver's own 3.1%: 34.2 CPU ms a turn, most of it two interpreter starts an episode at ~26 CPU "
    "ms each). Earlier, at load 19.1: openai 5.7%, openai-code 10.2%."
)
SOLVERS = ("openai", "openai-code")


def code_script(task: Task) -> dict[str, Any]:
    """One exec_code turn making every reference call (a refused one printed, not raised), then 'Done.'."""
    lines = []
    for call in task.reference_calls:
        lines += ["try:", f"    print({call.tool}(**{call.arguments!r}))", "except ToolError as error:",
                  "    print('refused:', error)"]
    turn = [{"name": "exec_code", "arguments": {"code": "\n".join(lines)}}]
    return {"key": task.id, "match": task.instruction, "turns": [turn, "Done."]}


def tool_script(task: Task) -> dict[str, Any]:
    """The reference calls as tool calls, one a turn, then 'Done.'."""
    return replay_script(task.id, task.instruction, [c.model_dump() for c in task.reference_calls])


def records(summary: dict[str, Any]) -> list[dict[str, Any]]:
    lines = (Path(summary["folder"]) / EPISODES_FILE).read_text().splitlines()
    return [json.loads(line) for line in lines]


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    """`stateforge fake-llm` in its own process (as a model server is: its CPU is not the harness's)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [STATEFORGE, "fake-llm", "--port", str(port), "--model", "fake", "--latency", f"{latency:g}"],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None and "fake LLM server on" in proc.stdout.readline()
    return proc, f"http://127.0.0.1:{port}"


def post_scripts(root: str, scripts: list[dict[str, Any]]) -> None:
    body = json.dumps({"scripts": scripts}).encode()
    request = urllib.request.Request(f"{root}/_control/scripts", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200


def cpu_seconds() -> float:
    """CPU of this process (every thread), of its reaped children, and of the sandbox's fork server with
    the children it forked and reaped (it lives as long as the process, so it is never reaped here)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    server = running_server()
    forks = server.cpu_seconds() if server is not None else 0.0
    return time.process_time() + children.ru_utime + children.ru_stime + forks


def fork_server_start() -> float:
    """CPU seconds the sandbox's fork server costs to start (its imports) and fork its first child: once
    per process, before the first episode (the openai-code solver starts it in its preflight)."""
    assert running_server() is None, "the fork server is already running"
    Sandbox().run("1", [], lambda name, arguments: {"ok": False, "error": "no tools"})
    server = running_server()
    assert server is not None
    return server.cpu_seconds()


def run_rounds(
    args: argparse.Namespace, db: Path, tasks_file: Path, kit: Toolkit, chosen: list[Task]
) -> dict[str, Any]:
    """Every variant once per round: the episode records and the CPU seconds per episode of each."""
    names = (*SOLVERS, "oracle")
    found: dict[str, Any] = {"records": {n: [] for n in names}, "cpu": {n: [] for n in names}}
    found["fork_server_start"] = fork_server_start()
    ids = ",".join(f"id:{t.id}" for t in chosen)
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    servers = {}
    try:
        for name, script in (("openai", tool_script), ("openai-code", code_script)):
            proc, root = start_server(args.latency)
            servers[name] = (proc, root)
            post_scripts(root, [script(t) for t in chosen])
        with tempfile.TemporaryDirectory(prefix="bench-solvers-") as tmp:
            options = {"cache": "off", "cache_dir": f"{tmp}/llm-cache"}
            for _ in range(args.rounds):
                for name in names:
                    more: dict[str, Any] = {}
                    if name in servers:
                        more = {"model": "fake", "base_url": f"{servers[name][1]}/v1", "options": options}
                    spent: list[float] = []

                    def runner(
                        stage: Stage, label: str, work: Callable[[], None], spent: list = spent
                    ) -> None:
                        before = cpu_seconds()  # the episodes alone: the run's fixed start left out
                        work()
                        if stage.name == "episodes":
                            spent.append(cpu_seconds() - before)

                    run = EvalRun(db, solver=name, tasks_file=tasks_file, task_filter=ids, out=f"{tmp}/runs",
                                  concurrency=args.concurrency, toolkit=kit, **more)
                    summary = run_evaluation(run, runner=runner)
                    found["cpu"][name].append(sum(spent) / len(chosen))
                    assert summary["passed"] == len(chosen), (name, summary["failures"], summary["harness"])
                    found["records"][name] += records(summary)
    finally:
        for proc, _ in servers.values():
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    return found


def med(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def breakdown(found: list[dict[str, Any]], latency: float) -> dict[str, float]:
    """Median ms per episode: wall, the model's latency, overhead and its parts; the overhead's share."""
    rows = []
    for r in found:
        wall = r["wall_seconds"] * 1000
        model = r["turns"] * latency * 1000
        details, parts = r["solver_details"], r["timings"]
        tools = sum(c.get("ms", 0.0) for c in r["tool_calls"])
        sandbox = details.get("code_seconds", 0.0) * 1000
        grading = sum(parts.get(p, 0.0) for p in ("verifiers", "export", "diff", "compare"))
        rows.append({
            "wall": wall, "model": model, "turns": r["turns"], "overhead": wall - model,
            "share": (wall - model) / wall,
            "transport": details["model_seconds"] * 1000 - model, "open": parts.get("open", 0.0),
            "grading": grading, "tools": tools, "sandbox": max(sandbox - tools, 0.0) if sandbox else 0.0,
        })
    keys = rows[0].keys()
    return {k: med([row[k] for row in rows]) for k in keys}


def report(args: argparse.Namespace, db: Path, chosen: list[Task], found: dict[str, Any]) -> str:
    recs, cpu = found["records"], found["cpu"]
    oracle = med([r["wall_seconds"] * 1000 for r in recs["oracle"]])
    oracle_cpu = med(cpu["oracle"]) * 1000
    calls = statistics.mean(len(t.reference_calls) for t in chosen)
    lines = [
        "Command: `.venv/bin/python bench/solver_overhead.py "
        f"--scale {args.scale:g} --tasks {args.tasks} --latency {args.latency:g} --concurrency "
        f"{args.concurrency} --rounds {args.rounds}` ({dt.date.today().isoformat()}; {os.cpu_count()} cores "
        f"shared with other work, load average {os.getloadavg()[0]:.1f} at the end). Database: music at "
        f"scale {args.scale:g}, {db.stat().st_size / 1e6:.1f} MB; {len(chosen)} tasks "
        f"({sum(not t.feasible for t in chosen)} infeasible, {calls:.1f} reference calls each on average), "
        f"{args.concurrency} episodes at a time; `stateforge fake-llm --latency {args.latency:g}` in its own "
        f"process; medians over {args.rounds} rounds x {len(chosen)} episodes per solver.",
        "",
        "| solver | episode ms | model latency ms | overhead ms | overhead share (wall, at this load) | "
        "CPU ms per episode | **overhead share on free cores** | of which the harness's (the oracle's CPU) | "
        "of which the solver's own | the solver's own CPU ms per turn | HTTP beyond the latency | open | "
        "grading | tools | sandbox |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    shares = {}
    for name in SOLVERS:
        b = breakdown(recs[name], args.latency)
        used = med(cpu[name]) * 1000
        shares[name] = free = used / (b["model"] + used)
        harness = oracle_cpu / (b["model"] + used)
        own = (used - oracle_cpu) / (b["model"] + used)
        per_turn = (used - oracle_cpu) / max(b["turns"], 1)
        lines.append(
            f"| {name} | {b['wall']:.0f} | {b['model']:.0f} | {b['overhead']:.0f} | {b['share']:.1%} | "
            f"{used:.0f} | **{free:.1%}** | {harness:.1%} | {own:.1%} | {per_turn:.1f} | "
            f"{b['transport']:.0f} | "
            f"{b['open']:.0f} | {b['grading']:.0f} | {b['tools']:.0f} | {b['sandbox']:.0f} |"
        )
    lines.append(
        f"| oracle (baseline: no model) | {oracle:.0f} | 0 | {oracle:.0f} | | {oracle_cpu:.0f} "
        "| | | | | | | | | |"
    )
    verdict = ", ".join(f"{name} {share:.1%}" for name, share in shares.items())
    met = all(share <= GOAL for share in shares.values())
    lines += [
        "",
        f"Goal: at most {GOAL:.0%} of an episode's wall time outside the model's own latency. Measured on "
        f"free cores: **{verdict}** ({'met' if met else 'not met'}): the CPU an episode costs this process "
        "(every thread: the episode's, the openai client's event loop, grading; and the sandbox's fork "
        "server with the children it forks), "
        "against that CPU plus the model's latency, which is what the episode's wall time is when the CPU "
        "work does not wait for a core. The wall columns are what this loaded machine gave: everything "
        "that is not the simulated latency (the HTTP round trip through the openai client and the server, "
        "opening the episode, the tools, grading, the sandbox's run, whose child is forked from a fork "
        "server started once per process), inflated by the load; they are medians of each part, so they "
        "need not add up. "
        "The harness's share (opening the episode's copy, the tools' queries, the verifiers and the diff: "
        "what the oracle costs, model or not) is fixed per episode, so it shrinks as episodes get longer "
        "than these short tasks' few turns; the solver's own cost (the openai client, the cache, the "
        "conversation, the sandbox's exchanges) is per turn: the solver's own share is the CPU beyond the "
        "oracle's, the harness's share the oracle's CPU, both against the same episode. The sandbox's fork "
        f"server costs {found['fork_server_start'] * 1000:.0f} CPU ms to start (its imports and first fork), "
        "once per process, before the first episode: left out of the episodes' CPU, like the client's "
        "start.",
        "",
        "One exec_code run (two tool calls), CPU of this process and the sandbox's processes, measured in "
        "the same run (bench/sandbox_runs.py; median of 5 blocks of 20 runs each way, interleaved):",
        "",
        "| exec_code run | CPU ms per run | ratio |",
        "|---|---:|---:|",
        f"| a fresh `python -I -S sandbox_child.py` (before) | {found['sandbox']['fresh']:.1f} | 1.00x |",
        f"| a child forked from the fork server (now) | {found['sandbox']['forked']:.1f} | "
        f"{found['sandbox']['ratio']:.2f}x |",
        "",
        "One tool-calling turn in the openai client (the music toolkit's 53 tools, a conversation of six "
        "messages), CPU of this process, against the fake server with no latency, measured in the same run "
        "(bench/client_turns.py; median of 5 blocks of 40 turns each way, interleaved):",
        "",
        "| client turn | CPU ms per turn | ratio |",
        "|---|---:|---:|",
        "| before: key from the lists, `chat.completions.create(extra_body=...)` | "
        f"{found['turns']['before']:.2f} | 1.00x |",
        "| now: tools encoded once, messages once for key and body, the body posted as it is | "
        f"{found['turns']['now']:.2f} | {found['turns']['ratio']:.2f}x |",
        "",
        BEFORE,
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    db, tasks_file, kit, _ = prepare(args.scale, 30)
    tasks = read_tasks(tasks_file)
    short = [t for t in tasks if len(t.reference_calls) <= 6]
    chosen = [t for t in short if t.feasible][: args.tasks - 1] + [t for t in short if not t.feasible][:1]
    found = run_rounds(args, db, tasks_file, kit, chosen)
    found["sandbox"] = measure_sandbox()
    proc, root = start_server(0.0)
    try:
        found["turns"] = measure_turns(f"{root}/v1", kit.openai_tools())
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    text = report(args, db, chosen, found)
    print(text)
    if not args.no_write:
        write_section(HEADING, text)


if __name__ == "__main__":
    main()
