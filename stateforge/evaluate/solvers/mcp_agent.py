"""The `mcp` solver: any external agent, started as a command, working on its episode over MCP.

    stateforge evaluate music --solver mcp --agent-cmd "python examples/mcp_agent.py {url}"
    STATEFORGE_MCP_AGENT_CMD="my-agent --server {url}" stateforge evaluate music --solver mcp

For each episode the harness serves that very episode over MCP (streamable HTTP on loopback,
`EpisodeHandle.mcp_server()`: its calls land in the episode's log and are graded like any other) and
starts the command (split like a shell would, no shell run) with:

- the placeholders `{url}`, `{instruction}`, `{task_id}`, `{trial}` and `{seed}` in its arguments replaced;
- the environment of the harness plus `STATEFORGE_MCP_URL`, `STATEFORGE_INSTRUCTION`, `STATEFORGE_TASK_ID`,
  `STATEFORGE_TRIAL`, `STATEFORGE_SEED` and `STATEFORGE_DEADLINE` (seconds it has);
- the instruction on its stdin (then closed);
- the current directory as its working directory, in a session of its own.

It has the episode's wall time left (or `--option timeout=S`, whichever is less); then its whole process
group is killed (`stop_reason` `wall_seconds`). Its exit code, the tail of its stderr and of its stdout (its
final answer, by convention) go to the record. A non-zero exit or a crash is the agent's failure (graded as
the episode stands, `stop_reason` `exit N`); a command that cannot be started is an infrastructure error,
and one whose program is not found fails the run before it starts (preflight).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import time
from typing import Any

from stateforge.errors import TerminalError
from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solver import Assignment, BaseSolver, SolverConfig, SolverOutcome
from stateforge.evaluate.solvers.llm_options import check_options, number

CMD_ENV = "STATEFORGE_MCP_AGENT_CMD"
"""The command, when `--agent-cmd` (`--option cmd=...`) is not given."""
OPTIONS = ("cmd", "timeout")
TAIL = 4_000
"""Characters of stdout and stderr kept in the record."""


class McpAgentSolver(BaseSolver):
    """Runs an external agent per episode (see the module docstring)."""

    name = "mcp"

    def __init__(self, command: str, timeout: float | None = None) -> None:
        if not command.strip():
            raise TerminalError(
                f"the mcp solver needs the agent's command: --agent-cmd \"python my_agent.py {{url}}\" (or "
                f"--option cmd=..., or {CMD_ENV}); it receives the episode's MCP URL as {{url}} or in "
                "STATEFORGE_MCP_URL."
            )
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise TerminalError(f"the agent's command {command!r} does not parse ({exc}).") from None
        self.command = command
        self.timeout = timeout

    def preflight(self) -> None:
        """The command's program exists and can be run."""
        program = self.argv[0]
        if shutil.which(program) is None:
            raise TerminalError(
                f"the agent's command {self.command!r}: no program {program!r} on PATH (or not executable). "
                "Give a full path, or install it."
            )

    def describe(self) -> dict[str, Any]:
        """The command and its time limit."""
        return {"command": self.command, "timeout": self.timeout}

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Serve the episode over MCP, run the agent until it exits or its time is up."""
        messages: list[dict[str, Any]] = [{"role": "user", "content": task.instruction}]
        with episode.mcp_server() as url:
            seconds = episode.seconds_left
            if self.timeout is not None:
                seconds = min(self.timeout, seconds)
            values = {"url": url, "instruction": task.instruction, "task_id": task.task_id,
                      "trial": str(task.trial), "seed": str(task.seed)}
            argv = [_fill(arg, values) for arg in self.argv]
            env = {
                **os.environ,
                "STATEFORGE_MCP_URL": url, "STATEFORGE_INSTRUCTION": task.instruction,
                "STATEFORGE_TASK_ID": task.task_id, "STATEFORGE_TRIAL": str(task.trial),
                "STATEFORGE_SEED": str(task.seed), "STATEFORGE_DEADLINE": f"{seconds:.3f}",
            }
            started = time.perf_counter()
            try:
                proc = subprocess.Popen(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                    start_new_session=True,
                )
            except OSError as exc:
                return SolverOutcome(messages=messages, infra_error=f"the agent could not be started: {exc}")
            timed_out = False
            try:
                out, err = proc.communicate(task.instruction.encode(), timeout=max(seconds, 0.01))
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
                out, err = proc.communicate()
            finally:
                _kill_group(proc)  # whatever the agent left running in its session
        stdout, stderr = _tail(out), _tail(err)
        if stdout.strip():
            messages.append({"role": "assistant", "content": stdout.strip()})
        code = proc.returncode
        stop = "wall_seconds" if timed_out else ("done" if code == 0 else f"exit {code}")
        spent = round(time.perf_counter() - started, 4)
        details = {"exit_code": code, "stderr": stderr, "agent_seconds": spent}
        return SolverOutcome(messages=messages, stop_reason=stop, details=details)


def _fill(arg: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        arg = arg.replace("{" + key + "}", value)
    return arg


def _tail(data: bytes | None) -> str:
    text = (data or b"").decode("utf-8", "replace")
    return text if len(text) <= TAIL else f"... ({len(text) - TAIL} characters cut)\n" + text[-TAIL:]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def make(config: SolverConfig) -> McpAgentSolver:
    """The registry's factory: the command from `--option cmd` (`--agent-cmd`) or STATEFORGE_MCP_AGENT_CMD."""
    check_options("mcp", config.options, OPTIONS)
    command = config.options.get("cmd") or os.environ.get(CMD_ENV, "")
    return McpAgentSolver(command, number("mcp", config.options, "timeout"))
