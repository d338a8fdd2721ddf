"""The parent side of the exec_code sandbox's fork server (`sandbox_zygote.py` says what the server does).

    server = shared_server()          # started once per process (the openai-code solver starts it early)
    child = server.spawn(workdir)     # a forked child: its stdin, stdout and stderr pipes, and its pid
    ...
    code = server.kill_and_wait(child.pid)

One server serves every sandbox of the process, from any thread: requests go out under a lock, and a
reader thread hands each reply (`spawned`, `exited`) to whoever waits for it. A server that died (killed,
out of memory) is replaced at the next spawn; the runs it had fail as a child that died would.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from stateforge.errors import TransientError

ZYGOTE = Path(__file__).with_name("sandbox_zygote.py")
ENV = {"LANG": "C.UTF-8"}
WAIT_SECONDS = 10.0
"""How long a spawn or a killed child's exit may take before the server is deemed broken."""


class ForkServerError(TransientError):
    """The fork server could not start, or broke: the harness's problem, not the model's."""


@dataclass
class ForkedChild:
    """A child forked for one run: the parent's ends of its pipes, and its pid."""

    pid: int
    stdin: BinaryIO
    stdout: BinaryIO
    stderr: BinaryIO
    server: ForkServer


class ForkServer:
    """One `sandbox_zygote.py` process and the thread that reads its replies."""

    def __init__(self) -> None:
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(ZYGOTE), str(child.fileno())],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=ENV, close_fds=True,
                pass_fds=(child.fileno(),), start_new_session=True,
            )
        except OSError as exc:
            parent.close()
            raise ForkServerError(f"the exec_code sandbox could not start {sys.executable}: {exc}") from exc
        finally:
            child.close()
        self.sock = parent
        self.owner = os.getpid()
        """The process that started it (a forked copy of that process must start its own)."""
        self._send_lock = threading.Lock()
        self._cond = threading.Condition()
        self._replies: dict[str, Any] = {}
        self._next = 0
        self.alive = True
        self._reader = threading.Thread(target=self._read, name="sandbox-fork-server", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b""
            with self._cond:
                if not data:
                    self.alive = False
                    self._cond.notify_all()
                    return
                message = json.loads(data)
                if "pid" in message:  # a new child: an unclaimed exit of an earlier one of its pid is stale
                    self._replies.pop(f"x{message['pid']}", None)
                key = f"s{message['spawned']}" if "spawned" in message else f"x{message['exited']}"
                self._replies[key] = message
                self._cond.notify_all()

    def _wait(self, key: str, timeout: float) -> dict[str, Any] | None:
        with self._cond:
            self._cond.wait_for(lambda: key in self._replies or not self.alive, timeout)
            return self._replies.pop(key, None)

    def _send(self, message: dict[str, Any], fds: list[int] | None = None) -> None:
        data = json.dumps(message).encode()
        with self._send_lock:
            try:
                if fds:
                    socket.send_fds(self.sock, [data], fds)
                else:
                    self.sock.send(data)
            except OSError as exc:
                raise ForkServerError(f"the exec_code sandbox's fork server is gone: {exc}") from exc

    def spawn(self, cwd: str) -> ForkedChild:
        """A new child in `cwd`, its pipes connected; ForkServerError when the server cannot make one."""
        with self._cond:
            self._next += 1
            ident = self._next
        pipes = [os.pipe() for _ in range(3)]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        try:
            self._send({"spawn": ident, "cwd": cwd}, theirs)
            reply = self._wait(f"s{ident}", WAIT_SECONDS)
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        if reply is None or "pid" not in reply:
            for fd in ours:
                os.close(fd)
            why = reply["error"] if reply else "it did not answer"
            raise ForkServerError(f"the exec_code sandbox could not fork a child: {why}")
        modes = ("wb", "rb", "rb")
        stdin, stdout, stderr = (os.fdopen(fd, mode) for fd, mode in zip(ours, modes, strict=True))
        return ForkedChild(int(reply["pid"]), stdin, stdout, stderr, self)

    def kill(self, pid: int) -> None:
        """SIGKILL to the child's process group (nothing if it was reaped already)."""
        try:
            self._send({"kill": pid})
        except ForkServerError:
            pass  # the server is gone: it killed its children on the way out

    def exit_code(self, pid: int, timeout: float = WAIT_SECONDS) -> int | None:
        """The child's exit status once reaped (-N for signal N); None if the server broke first."""
        reply = self._wait(f"x{pid}", timeout)
        return None if reply is None else int(reply["code"])

    def cpu_seconds(self) -> float:
        """CPU time of the server and of its reaped children (Linux `/proc`; 0.0 where unreadable)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        return ticks / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        """Stop the server (it kills its children) and reap it."""
        self.alive = False
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_shared: ForkServer | None = None
_shared_lock = threading.Lock()


def shared_server() -> ForkServer:
    """The process's fork server, started on first use and again after it died (or in a forked copy of
    the process, whose inherited one is its parent's)."""
    global _shared
    with _shared_lock:
        if _shared is not None and _shared.owner != os.getpid():
            _shared = None  # the parent's: neither used nor closed here
        if _shared is None or not _shared.alive or _shared.proc.poll() is not None:
            if _shared is not None:
                _shared.close()
            _shared = ForkServer()
        return _shared


def running_server() -> ForkServer | None:
    """The process's fork server if one runs (for CPU accounting), without starting one."""
    return _shared if _shared is not None and _shared.owner == os.getpid() else None


@atexit.register
def _close_shared() -> None:
    global _shared
    with _shared_lock:
        server, _shared = _shared, None
    if server is not None and server.owner == os.getpid():
        server.close()
