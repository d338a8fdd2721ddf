"""The exec_code sandbox (parent side): run a model's Python in a child process where the domain's tools are
plain functions whose calls come back over a pipe and run on the episode.

    sandbox = Sandbox(SandboxLimits(timeout=10, cpu_seconds=5, memory_mb=512))
    result = sandbox.run(code, tools=[("get_user", ["id"])], call=lambda name, args: {"ok": True, ...})
    result.text()          # what the model is shown: stdout, the last expression's value, the error
    sandbox.close()

Each run is a fresh process forked from the process's fork server (`sandbox_forks.py` starts
`python -I -S sandbox_zygote.py`: isolated mode, no PYTHON* variables, no user site, no script directory on
the path, no site-packages; an empty environment, `LANG` only), which has loaded the child's modules once
and never runs a model's code, so a run costs a fork instead of an interpreter's start, and nothing one
run does reaches another (each child is a copy of the pristine server; its random state is reseeded).
The server starts ahead (`warm()`, from the solver's preflight), off the episodes' path. Each child gets a
fresh empty temporary working directory, no descriptors but its three pipes, and a session of its own;
then it goes through `sandbox_child.main()` as a freshly started one would.

What it prevents, in layers (the child's docstring gives the order):

1. **The Python layer** (bypassable in principle, like any in-process sandbox of Python): builtins reduced
   to an allow-list (no `open`, `exec`, `eval`, `compile`, `__import__`, `globals`, `vars`, `input`,
   `breakpoint`); imports only of `ALLOWED_MODULES`, each seen through a view without underscore names or
   other modules (`typing.sys`, `random._os` are not reachable); the code is refused before it runs when it
   names an attribute starting with `_` or one of the frame attributes (`gi_frame`, `f_back`,
   `f_globals`, `tb_frame`, ...), or a name starting with `__`; `getattr`/`hasattr` refuse the same names.
2. **The OS layer** (holds even if the Python layer is broken): `RLIMIT_NOFILE` = 3 after every other
   descriptor is closed (no file, directory or socket can be opened: no reading `/etc/passwd` or the
   episode's database, no network), `RLIMIT_NPROC` = 0 (no fork, no exec after the uid change),
   `RLIMIT_FSIZE` = 0 (no file writes), `RLIMIT_AS` (memory) and `RLIMIT_CPU` (CPU seconds: SIGXCPU),
   no core dumps; as root, the child drops to uid/gid 65534 (`nobody`, no groups) before the code runs.
3. **The parent**: a wall-time kill of the child's whole process group, output capped, the child's
   messages parsed as data (a forged message can only ask for the domain's tools, as the code could).

What it does not prevent: a broken Python layer still reaches `stat()`-like calls that need no descriptor
(it can learn whether a path exists), `os.kill` of processes of the same uid (`nobody` when run as root;
the harness's own user otherwise, the fork server included: it is replaced at the next run), CPU and
memory use up to the limits, and reading the child's own memory (which holds nothing but the code, the
tools' results and the modules it was forked with). There is no seccomp filter and no
network namespace: without root the NPROC limit counts every process of the user, and the network is
closed only because no socket can get a descriptor.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stateforge.errors import TransientError
from stateforge.evaluate.solvers.sandbox_forks import ForkServerError, shared_server
from stateforge.values import dumps

STDERR_TAIL = 2_000

Reply = dict[str, Any]
"""What the parent answers a tool call: `{"ok": True, "value": v}`, `{"ok": False, "error": why}`, or
`{"stop": why}` (the episode's budget is spent)."""


class SandboxError(TransientError):
    """The sandbox could not start or broke before running the code: the harness's problem, not the
    model's (an infrastructure error, retried)."""


@dataclass(frozen=True)
class SandboxLimits:
    """What one exec_code run may use."""

    timeout: float = 10.0
    """Wall seconds, from the request to the result (tool calls included); then the child is killed."""
    cpu_seconds: int = 5
    """CPU seconds (RLIMIT_CPU); then the kernel stops the child."""
    memory_mb: int = 512
    """Address space (RLIMIT_AS), in MiB; allocations beyond it raise MemoryError in the code."""


@dataclass
class RunResult:
    """One run's output."""

    stdout: str = ""
    result: str | None = None
    """repr of the last expression's value, when the code ends with an expression that is not None."""
    error: str | None = None
    """The trimmed traceback, a refusal, or why the run was stopped."""
    calls: int = 0
    seconds: float = 0.0
    killed: str | None = None
    """`timeout`, `cpu` or `signal N` when the child did not finish on its own."""

    def text(self) -> str:
        """What the model is shown."""
        parts = []
        if self.stdout:
            parts.append(f"stdout:\n{self.stdout.rstrip()}")
        if self.result is not None:
            parts.append(f"result: {self.result}")
        if self.error:
            parts.append(f"error:\n{self.error.rstrip()}")
        return "\n".join(parts) or "(no output)"


class _Child:
    """A child forked for one run by the process's fork server, and its working directory."""

    def __init__(self) -> None:
        self.workdir = tempfile.mkdtemp(prefix="stateforge-sandbox-")
        try:
            self.forked = shared_server().spawn(self.workdir)
        except ForkServerError as exc:
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise SandboxError(str(exc)) from exc
        self.pid = self.forked.pid

    def send(self, message: dict[str, Any]) -> None:
        self.forked.stdin.write(dumps(message).encode() + b"\n")
        self.forked.stdin.flush()

    def receive(self) -> dict[str, Any] | None:
        """The next message, None at the end of the child's output; ValueError for a line that is not one."""
        line = self.forked.stdout.readline()
        if not line:
            return None
        message = json.loads(line)
        if not isinstance(message, dict):
            raise ValueError("not a JSON object")
        return message

    def kill(self) -> None:
        self.forked.server.kill(self.pid)

    def finish(self) -> tuple[int, str]:
        """Kill what is left, reap it, remove its directory: (return code, the tail of its stderr)."""
        forked = self.forked
        for pipe in (forked.stdin, forked.stdout):
            try:
                pipe.close()  # a child still reading its stdin gets EOF and exits
            except OSError:
                pass
        self.kill()
        code = forked.server.exit_code(self.pid)
        os.set_blocking(forked.stderr.fileno(), False)
        try:
            err = forked.stderr.read() or b""  # after the exit: what it wrote, without waiting for more
        except OSError:
            err = b""
        forked.stderr.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        if code is None:
            code, err = -signal.SIGKILL, err + b"\n(the sandbox's fork server stopped)"
        return code, err.decode("utf-8", "replace")[-STDERR_TAIL:]


class Sandbox:
    """Runs code in fresh children forked from the process's fork server (see the module docstring). One
    per episode; not thread-safe (the fork server is)."""

    def __init__(self, limits: SandboxLimits | None = None, *, guards: bool = True) -> None:
        self.limits = limits or SandboxLimits()
        self.guards = guards
        """False turns the Python layer off (tests of the OS layer alone); the OS limits always apply."""

    def warm(self) -> None:
        """Start the process's fork server now, if it is not running (it loads the child's modules while
        the caller waits for something else); SandboxError if it cannot start."""
        try:
            shared_server()
        except ForkServerError as exc:
            raise SandboxError(str(exc)) from exc

    def run(
        self,
        code: str,
        tools: list[tuple[str, list[str]]],
        call: Callable[[str, dict[str, Any]], Reply],
        *,
        timeout: float | None = None,
    ) -> RunResult:
        """Run `code` with `tools` as functions, each call answered by `call(name, arguments)`.

        `timeout` (default: the limits') bounds the wall time. Raises `SandboxError` when the child could
        not start; whatever `call` raises (other than a reply) kills the child and propagates.
        """
        child = _Child()
        seconds = min(timeout if timeout is not None else self.limits.timeout, self.limits.timeout)
        killed = threading.Event()

        def on_timeout() -> None:
            killed.set()
            child.kill()

        timer = threading.Timer(max(seconds, 0.01), on_timeout)
        timer.daemon = True
        started_at = time.perf_counter()
        result, started, done = RunResult(), False, False
        try:
            timer.start()
            try:
                ready = child.receive()
                if ready != {"ready": True}:
                    raise ValueError(f"expected the ready message, got {ready!r}")
                child.send({
                    "code": code, "tools": [[name, list(params)] for name, params in tools],
                    "cpu_seconds": self.limits.cpu_seconds, "memory_mb": self.limits.memory_mb,
                    "guards": self.guards,
                })
                while (message := child.receive()) is not None:
                    if message.get("started"):
                        started = True
                    elif "call" in message:
                        result.calls += 1
                        arguments = message.get("arguments")
                        reply = call(str(message["call"]), arguments if isinstance(arguments, dict) else {})
                        child.send(reply)
                    elif message.get("done"):
                        result.stdout = str(message.get("stdout") or "")
                        result.result = message.get("result")
                        result.error = message.get("error")
                        done = True
                        break
            except (OSError, ValueError) as exc:  # a broken pipe, a line that is not a message
                if not started and not killed.is_set():
                    raise SandboxError(f"the exec_code sandbox broke before the code ran: {exc}") from exc
                result.error = f"the sandbox's output could not be read ({exc}); the run was stopped"
        finally:
            timer.cancel()
            code_, err = child.finish()
        result.seconds = round(time.perf_counter() - started_at, 4)
        if not done:
            why = self._why(code_, err, killed.is_set(), started, seconds, result.error)
            result.killed, result.error = why
        return result

    def _why(
        self, code: int, err: str, timed_out: bool, started: bool, seconds: float, error: str | None
    ) -> tuple[str, str]:
        if not started and not timed_out:
            raise SandboxError(f"the exec_code sandbox exited ({code}) before the code ran: {err.strip()}")
        if timed_out:
            return "timeout", f"the code ran longer than {seconds:g} s and was stopped"
        if code == -signal.SIGXCPU or code == -signal.SIGKILL:
            return "cpu", f"the code used more than {self.limits.cpu_seconds} s of CPU and was stopped"
        tail = err.strip()[-300:]
        return f"exit {code}", error or f"the code's process ended abruptly (exit {code}) {tail}"

    def close(self) -> None:
        """Nothing to release: the children are gone after each run, and the fork server is the process's
        (it stops when the process exits)."""
