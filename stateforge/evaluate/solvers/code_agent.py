"""The `openai-code` solver (E-Bench-Code): one tool, `exec_code`, that runs the model's Python in a sandbox
where the domain's tools are plain functions.

    stateforge evaluate music --solver openai-code --model gpt-4.1-mini --option code_timeout=20

The system prompt (`stateforge/prompts/solve_code.md`) gives the service's description, policies and frozen
date, the
tools as Python signatures with their descriptions (derived from the toolkit's listing: no schema, no SQL),
the modules code may import, and how to decline. Each `exec_code(code)` runs in a fresh sandboxed child
(`sandbox.py`, which says what it prevents and what it does not); a function call in the code comes back
to this process over a pipe and runs on the episode through `EpisodeHandle.call`, so the log, the
transactions, the limits and the grading are exactly those of the `openai` solver. The function returns
the call's JSON value or raises `ToolError` with its message; the model is shown the run's stdout, the
value of its last expression and the error (traceback trimmed to its own lines).

A tool-call budget spent inside the code stops the run (the code gets a `Stopped` it cannot catch with
`except Exception`) and the episode (`max_tool_calls`/`wall_seconds`, the agent's failure); a sandbox
that cannot start is an infrastructure error.
"""

from __future__ import annotations

from typing import Any

from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solver import Assignment, LimitReached, SolverConfig, SolverOutcome
from stateforge.evaluate.solvers.llm_options import number
from stateforge.evaluate.solvers.loop import converse, malformed_answer
from stateforge.evaluate.solvers.openai_agent import LLMSolver
from stateforge.evaluate.solvers.sandbox import Reply, Sandbox, SandboxLimits
from stateforge.evaluate.solvers.sandbox_child import ALLOWED_MODULES
from stateforge.llm.tooluse import ToolCall
from stateforge.tools import CANNOT_COMPLETE

PROMPT = "solve_code"
EXEC_CODE = "exec_code"
CODE_OPTIONS = ("code_timeout", "code_cpu", "code_memory_mb")
"""Options of this solver besides the LLM ones: wall seconds, CPU seconds and MiB per run."""


def exec_code_tool(timeout: float) -> dict[str, Any]:
    """The one tool the model is offered, in OpenAI function-calling form."""
    return {
        "type": "function",
        "function": {
            "name": EXEC_CODE,
            "description": (
                "Run Python code in a fresh sandboxed process where the service's tools are functions. "
                "Returns what it printed, the value of its last expression, and any error. "
                f"At most {timeout:g} s."
            ),
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string", "description": "The Python code to run."}},
                "required": ["code"],
                "additionalProperties": False,
            },
        },
    }


def describe_functions(listing: list[dict[str, Any]]) -> str:
    """The toolkit's tools as Python signatures with their descriptions and parameters, for the prompt."""
    blocks = []
    for tool in listing:
        params = tool.get("parameters") or []
        signature = ", ".join(p["name"] if p.get("required") else f"{p['name']}=None" for p in params)
        lines = [f"{tool['name']}({signature})  [{tool.get('kind', 'read')}]", f"    {tool['description']}"]
        for p in params:
            need = "required" if p.get("required") else "optional"
            lines.append(f"    - {p['name']} ({p.get('type', 'any')}, {need}): {p.get('description', '')}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


class CodeExecutor:
    """Answers `exec_code` calls by running the code in the sandbox, its tool calls on the episode."""

    def __init__(
        self, episode: EpisodeHandle, sandbox: Sandbox, listing: list[dict[str, Any]] | None = None
    ) -> None:
        self.episode = episode
        self.sandbox = sandbox
        listing = episode.listing() if listing is None else listing
        self.tools = [(t["name"], [p["name"] for p in t.get("parameters") or []]) for t in listing]
        self._names = {name for name, _ in self.tools}
        self.declined = False
        self.runs = 0
        self.seconds = 0.0
        self.killed = 0
        self._limit: LimitReached | None = None

    def execute(self, call: ToolCall) -> str:
        """The run's output for the model; raises `LimitReached` after a run that hit the episode's budget."""
        if call.name != EXEC_CODE:
            return f"error: there is no tool {call.name!r}; the only tool is {EXEC_CODE}(code)."
        if call.arguments is None:
            return malformed_answer(call)
        code = call.arguments.get("code")
        if not isinstance(code, str) or not code.strip():
            return f'error: {EXEC_CODE} takes {{"code": "<Python source>"}}, a non-empty string.'
        self.runs += 1
        result = self.sandbox.run(code, self.tools, self._call, timeout=self.episode.seconds_left)
        self.seconds += result.seconds
        self.killed += result.killed is not None
        if self._limit is not None:
            raise self._limit
        return result.text()

    def _call(self, name: str, arguments: dict[str, Any]) -> Reply:
        if name not in self._names:
            return {"ok": False, "error": f"there is no function {name!r}"}
        try:
            result = self.episode.call(name, arguments)
        except LimitReached as exc:
            self._limit = self._limit or exc
            return {"stop": str(exc)}
        if result.ok and name == CANNOT_COMPLETE:
            self.declined = True
        return {"ok": True, "value": result.value} if result.ok else {"ok": False, "error": result.error}


class CodeSolver(LLMSolver):
    """The model writes Python against the tools (see the module docstring)."""

    name = "openai-code"
    prompt = PROMPT

    def __init__(self, config: SolverConfig) -> None:
        super().__init__(config, extra_options=CODE_OPTIONS)
        defaults = SandboxLimits()
        options = config.options
        self.limits = SandboxLimits(
            timeout=number(self.name, options, "code_timeout") or defaults.timeout,
            cpu_seconds=number(self.name, options, "code_cpu", int) or defaults.cpu_seconds,
            memory_mb=number(self.name, options, "code_memory_mb", int) or defaults.memory_mb,
        )

    def preflight(self) -> None:
        """The server's checks, and the sandbox's fork server started now, before the first episode."""
        super().preflight()
        Sandbox(self.limits).warm()

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Converse with the model, running its code, until it stops or a limit is reached."""
        sandbox = Sandbox(self.limits)
        try:
            sandbox.warm()  # running already after preflight; started here when solve() comes first
            listing = episode.listing()  # once: the executor's functions and the prompt's signatures
            executor = CodeExecutor(episode, sandbox, listing)
            messages = self.template.render(
                instructions=episode.instructions,
                functions=describe_functions(listing),
                modules=", ".join(ALLOWED_MODULES),
                decline=CANNOT_COMPLETE,
                timeout=f"{self.limits.timeout:g}",
                instruction=task.instruction,
            )
            outcome = converse(
                self.client, list(messages), [exec_code_tool(self.limits.timeout)], executor, episode,
                self.budget(task),
            )
        finally:
            sandbox.close()
        outcome.details.update(
            code_runs=executor.runs, code_seconds=round(executor.seconds, 4), code_killed=executor.killed
        )
        return outcome

    def describe(self) -> dict[str, Any]:
        """The LLM settings and the sandbox's limits."""
        limits = self.limits
        return {
            **super().describe(),
            "code_timeout": limits.timeout,
            "code_cpu": limits.cpu_seconds,
            "code_memory_mb": limits.memory_mb,
        }


def make(config: SolverConfig) -> CodeSolver:
    """The registry's factory (the LLM options, and code_timeout, code_cpu, code_memory_mb)."""
    return CodeSolver(config)
